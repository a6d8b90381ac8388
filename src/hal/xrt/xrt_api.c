/* xrt_api.c - loading XRT with dlopen, and the probe before any call that can
 * abort (see xrt_api.h). */
#include "hal/xrt/xrt_api.h"

#include <dirent.h>
#include <stdbool.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/base/status_util.h"

void air_xrt_env_read(air_xrt_env_t* env) {
  env->library = getenv("AIR_XRT_LIBRARY");
  env->xilinx_xrt = getenv("XILINX_XRT");
  env->device_dir = getenv("AIR_XRT_DEVICE_DIR");
  if (env->library && !*env->library) env->library = NULL;
  if (env->xilinx_xrt && !*env->xilinx_xrt) env->xilinx_xrt = NULL;
  if (!env->device_dir || !*env->device_dir) env->device_dir = "/dev/accel";
}

static bool is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

air_status_t air_xrt_probe(const air_allocator_t* a, const air_xrt_env_t* env, uint32_t index) {
  /* 1. An NPU: the amdxdna driver makes /dev/accel/accelN. */
  uint32_t nodes = 0;
  DIR* d = opendir(env->device_dir);
  if (d) {
    for (struct dirent* e; (e = readdir(d));)
      if (strncmp(e->d_name, "accel", 5) == 0) ++nodes;
    closedir(d);
  }
  if (nodes == 0)
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "no NPU: no device node %s/accel* (the amdxdna kernel driver makes "
                      "one per Ryzen AI NPU); XRT was not asked to open device %u",
                      env->device_dir, index);
  if (index >= nodes)
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "no NPU %u: %u device node%s under %s", index, nodes, nodes == 1 ? "" : "s",
                      env->device_dir);
  /* 2. An XRT install whose error path will not abort the process. */
  if (!env->xilinx_xrt)
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "XRT is not set up: XILINX_XRT is unset (source the XRT setup script, "
                      "e.g. /opt/xilinx/xrt/setup.sh). libairrt does not call xrtDeviceOpen "
                      "without it: XRT aborts the process on its first error there");
  char core[1024];
  snprintf(core, sizeof core, "%s/lib/libxrt_core.so.2", env->xilinx_xrt);
  if (!is_file(core))
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "XRT is not set up: XILINX_XRT=%s has no lib/libxrt_core.so.2, which "
                      "XRT loads on its first error and aborts the process without", env->xilinx_xrt);
  return NULL;
}

air_status_t air_xrt_api_load(const air_allocator_t* a, const air_xrt_env_t* env,
                              air_xrt_api_t* api) {
  memset(api, 0, sizeof *api);
  if (env->library) {
    snprintf(api->path, sizeof api->path, "%s", env->library);
  } else {
    snprintf(api->path, sizeof api->path, "%s/lib/libxrt_coreutil.so.2",
             env->xilinx_xrt ? env->xilinx_xrt : "");
    if (!env->xilinx_xrt || !is_file(api->path))
      snprintf(api->path, sizeof api->path, "libxrt_coreutil.so.2");
  }
  dlerror();
  api->lib = dlopen(api->path, RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    const char* why = dlerror();
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "XRT is not installed: dlopen(\"%s\") failed: %s (install XRT; an NPU "
                      "needs XRT 2.17 or newer with the amdxdna driver)",
                      api->path, why ? why : "unknown error");
  }
  struct {
    const char* name;
    void** slot;
  } syms[] = {
#define S(n) {#n, (void**)&api->n}
      S(xrtDeviceOpen), S(xrtDeviceClose), S(xrtDeviceLoadXclbinHandle),
      S(xrtXclbinAllocFilename), S(xrtXclbinFreeHandle), S(xrtXclbinGetUUID),
      S(xrtPLKernelOpen), S(xrtKernelClose), S(xrtKernelArgGroupId), S(xrtBOAlloc),
      S(xrtBOAllocUserPtr), S(xrtBOSubAlloc), S(xrtBOFree), S(xrtBOMap), S(xrtBOSync),
      S(xrtRunOpen), S(xrtRunSetArg), S(xrtRunStart), S(xrtRunWait), S(xrtRunClose),
#undef S
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    /* POSIX: a data pointer from dlsym converts to a function pointer. */
    *syms[i].slot = dlsym(api->lib, syms[i].name);
    if (!*syms[i].slot) {
      air_status_t s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                                  "XRT library %s lacks %s: not a usable libxrt_coreutil",
                                  api->path, syms[i].name);
      air_xrt_api_unload(api);
      return s;
    }
  }
  return NULL;
}

void air_xrt_api_unload(air_xrt_api_t* api) {
  if (api->lib) dlclose(api->lib);
  api->lib = NULL;
}

air_status_t air_xrt_error(const air_allocator_t* a, air_status_code_t code, const char* call,
                           int err, const char* what) {
  return AIR_STATUS(a, code, "XRT %s failed%s%s: %s (errno %d; XRT's own message is on stderr)",
                    call, what ? " " : "", what ? what : "", err ? strerror(err) : "no errno",
                    err);
}

const char* air_xrt_state_name(int s) {
  static const char* const k[] = {"0",         "NEW",   "QUEUED",  "RUNNING",
                                  "COMPLETED", "ERROR", "ABORT",   "SUBMITTED",
                                  "TIMEOUT",   "NORESPONSE", "SKERROR", "SKCRASHED"};
  return s >= 0 && s < (int)(sizeof k / sizeof k[0]) ? k[s] : "unknown";
}

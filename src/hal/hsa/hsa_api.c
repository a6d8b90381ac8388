/* hsa_api.c - loading libhsa-runtime64 with dlopen (hsa_api.h). Nothing here
 * runs at library load; a process that never opens an hsa device never maps ROCr. */
#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_api.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/status_util.h"

air_status_t air_hsa_api_load(const air_allocator_t* allocator, const char* path,
                              air_hsa_api_t* out) {
  memset(out, 0, sizeof *out);
  /* $AIR_HSA_RUNTIME picks the library (a ROCm install's, or the tests' software
   * runtime) when the caller names none. */
  const char* env = getenv("AIR_HSA_RUNTIME");
  if (!path && env && *env) path = env;
  const char* tried[2] = {path, NULL};
  if (!path) {
    tried[0] = "libhsa-runtime64.so.1";
    tried[1] = "libhsa-runtime64.so";
  }
  void* lib = NULL;
  const char* err = "";
  for (int i = 0; i < 2 && tried[i] && !lib; ++i) {
    lib = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) err = dlerror();
    else out->from = tried[i];
  }
  if (!lib)
    return AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE,
                      "no HSA runtime for the AMD GPU: cannot load %s (%s); install ROCm or "
                      "Debian's libhsa-runtime64-1", tried[0], err ? err : "dlopen failed");
  /* A library may hand over its whole table (the tests' software runtime,
   * tests/soft_hsa/soft_hsa_rt.c, which has no exported HSA names). */
  void* table_fn = dlsym(lib, "air_hsa_api_v1");
  if (table_fn) {
    int (*fill)(air_hsa_api_t*);
    memcpy(&fill, &table_fn, sizeof table_fn);
    const char* from = out->from;
    if (fill(out)) {
      dlclose(lib);
      memset(out, 0, sizeof *out);
      return AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE, "HSA runtime %s refused to start", from);
    }
    out->from = from;
    out->library = lib;
    return NULL;
  }
  /* POSIX lets a function's address travel as dlsym's void*; memcpy moves it into
   * the typed field without an aliasing cast. */
  const char* missing = NULL;
#define AIR_HSA_API_LOAD(name, ret, params)        \
  if (!missing) {                                  \
    void* f = dlsym(lib, #name);                   \
    if (f) memcpy(&out->name, &f, sizeof f);       \
    else missing = #name;                          \
  }
  AIR_HSA_API_FUNCTIONS(AIR_HSA_API_LOAD)
#undef AIR_HSA_API_LOAD
  if (missing) {
    air_status_t s = AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE,
                                "HSA runtime %s lacks %s: it is older than ROCm 5 or not ROCr",
                                out->from, missing);
    dlclose(lib);
    memset(out, 0, sizeof *out);
    return s;
  }
  out->library = lib;
  return NULL;
}

void air_hsa_api_unload(air_hsa_api_t* api) {
  if (api->library) dlclose(api->library);
  memset(api, 0, sizeof *api);
}

air_status_t air_hsa_status(const air_allocator_t* allocator, const air_hsa_api_t* api,
                            hsa_status_t status, const char* what) {
  const char* text = NULL;
  if (!api->hsa_status_string || api->hsa_status_string(status, &text) != HSA_STATUS_SUCCESS ||
      !text)
    text = "unknown HSA status";
  /* Statuses mean the same to the caller whichever call made them. */
  air_status_code_t code = AIR_STATUS_INTERNAL;
  switch (status) {
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES: code = AIR_STATUS_RESOURCE_EXHAUSTED; break;
    case HSA_STATUS_ERROR_NOT_INITIALIZED: code = AIR_STATUS_UNAVAILABLE; break;
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
    case HSA_STATUS_ERROR_INVALID_ISA: code = AIR_STATUS_INVALID_ARGUMENT; break;
    case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: code = AIR_STATUS_NOT_FOUND; break;
    default: break;
  }
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '.')) --n;
  return AIR_STATUS(allocator, code, "%s: %.*s (HSA status 0x%x)", what, (int)n, text,
                    (unsigned)status);
}
#endif /* AIR_HAVE_HSA */

typedef int air_hsa_api_translation_unit_t;

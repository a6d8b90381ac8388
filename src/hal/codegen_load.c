/* codegen_load.c - finding the code generator at run time (codegen_load.h).
 *
 * Where: the dynamic loader's search for the versioned file name (which finds a
 * generator the application linked, LD_LIBRARY_PATH, and the RUNPATH of the
 * object asking: $ORIGIN for libairrt.so, the lib directory for the installed
 * tools, the build directory in a build tree), then the directory of the object
 * holding this code. The library is opened RTLD_LOCAL (its LLVM stays out of
 * the process's symbol namespace) and RTLD_NODELETE (LLVM registers process-wide
 * state that must outlive any dlclose). */
#define _GNU_SOURCE 1
#include "hal/codegen_load.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "air/config.h"
#include "runtime/base/status_util.h"

#define CG_SONAME "libairrt_codegen.so." AIR_CG_SO_VERSION

/* The SONAME's version is the library's MAJOR.MINOR (CMakeLists.txt). */
#define AIR_CG_STR2(x) #x
#define AIR_CG_STR(x) AIR_CG_STR2(x)
#define AIR_CG_SO_VERSION AIR_CG_STR(AIR_VERSION_MAJOR) "." AIR_CG_STR(AIR_VERSION_MINOR)

const char* air_cg_library_name(void) { return CG_SONAME; }

static void* open_beside_self(char* why, size_t cap) {
  Dl_info info;
  if (!dladdr((void*)(uintptr_t)&air_cg_library_name, &info) || !info.dli_fname) return NULL;
  const char* slash = strrchr(info.dli_fname, '/');
  if (!slash) return NULL;
  char path[4096];
  int n = snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                   CG_SONAME);
  if (n < 0 || (size_t)n >= sizeof path) return NULL;
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* e = dlerror();
    /* A file that is there but does not load says more than "not found". */
    if (e && !strstr(e, "No such file")) snprintf(why, cap, "%s", e);
  }
  return h;
}

air_status_t air_cg_load(const air_allocator_t* allocator, const air_cg_hooks_t** out) {
  *out = NULL;
  char why[512] = "";
  void* h = dlopen(CG_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* e = dlerror();
    if (e && !strstr(e, "No such file") && !strstr(e, "cannot open shared object"))
      snprintf(why, sizeof why, "%s", e);
    h = open_beside_self(why, sizeof why);
  }
  if (!h)
    return AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE, "no code generator: %s %s", CG_SONAME,
                      why[0] ? why : "is not installed (LLVM 16 absent at build time?)");
  air_cg_entry_fn_t entry = (air_cg_entry_fn_t)(uintptr_t)dlsym(h, AIR_CG_ENTRY_SYMBOL);
  const air_cg_hooks_t* hooks = entry ? entry() : NULL;
  if (!hooks)
    return AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE, "%s has no %s", CG_SONAME,
                      AIR_CG_ENTRY_SYMBOL);
  if (hooks->abi_version != AIR_CG_ABI_VERSION || !hooks->build ||
      strcmp(hooks->build, AIR_VERSION_STRING))
    return AIR_STATUS(allocator, AIR_STATUS_UNAVAILABLE,
                      "%s is for another libairrt (ABI %u, build %s; this one: ABI %u, %s)",
                      CG_SONAME, hooks->abi_version, hooks->build ? hooks->build : "?",
                      AIR_CG_ABI_VERSION, AIR_VERSION_STRING);
  *out = hooks;
  return NULL;
}

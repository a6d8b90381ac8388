/* cg_gpu_link.c - the toolchain that turns a GPU kernel module into an HSA code
 * object, found rather than assumed (cg_gpu.h), and the compile and link steps.
 *
 * Default: this process's LLVM (16 on Debian) emits the relocatable object
 * through its C API, and ld.lld of LLVM 16 or later links it into a shared code
 * object. ld.lld is called directly: clang-16's own link step runs Debian's
 * unversioned lld, which is release 14 and predates code-object v5. A ROCm
 * install, when present, replaces both: its clang compiles the module's bitcode
 * for the processor (so processors newer than this LLVM, gfx942 say, build) and
 * its ld.lld links. Linking happens at compile time only; nothing here runs when
 * a program is loaded. */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "amdgpu/gfx.h"
#include "codegen/cg_gpu_kernel.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

extern char** environ;

static bool is_exe(const char* path) { return path[0] && access(path, X_OK) == 0; }

static bool find_in_path(const char* name, char* out, size_t cap) {
  const char* path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char* colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n) {
      snprintf(out, cap, "%.*s/%s", (int)n, path, name);
      if (is_exe(out)) return true;
    }
    path += n + (colon ? 1 : 0);
  }
  out[0] = 0;
  return false;
}

air_status_t air_cg_gpu_toolchain_find(const air_allocator_t* a, const char* processor,
                                       air_cg_gpu_toolchain_t* out) {
  memset(out, 0, sizeof *out);
  const air_gfx_info_t* gfx = air_gfx_by_name(processor, strlen(processor));
  if (!gfx)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "unknown AMDGPU processor '%s'", processor);
  snprintf(out->processor, sizeof out->processor, "%s", processor);
  const char* roots[3] = {getenv("AIR_ROCM_PATH"), getenv("ROCM_PATH"), "/opt/rocm"};
  for (int i = 0; i < 3; ++i) {
    if (!roots[i] || !*roots[i]) continue;
    char clang[512], lld[512];
    snprintf(clang, sizeof clang, "%s/llvm/bin/clang", roots[i]);
    snprintf(lld, sizeof lld, "%s/llvm/bin/ld.lld", roots[i]);
    if (is_exe(clang) && is_exe(lld)) {
      snprintf(out->compiler, sizeof out->compiler, "%s", clang);
      snprintf(out->linker, sizeof out->linker, "%s", lld);
      snprintf(out->describe, sizeof out->describe, "ROCm LLVM (%.200s/llvm)", roots[i]);
      return NULL;
    }
  }
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  if (gfx->llvm > major)
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "%s needs LLVM %u or newer to generate code, but this code generator has "
                      "LLVM %u and no ROCm was found ($AIR_ROCM_PATH, $ROCM_PATH, /opt/rocm: "
                      "llvm/bin/clang and llvm/bin/ld.lld); install ROCm 6 or later, or a newer "
                      "LLVM build of libairrt",
                      processor, gfx->llvm, major);
  /* An ld.lld of this LLVM's release or later. */
  for (unsigned v = major; v < major + 8 && !out->linker[0]; ++v) {
    char name[32];
    snprintf(name, sizeof name, "ld.lld-%u", v);
    find_in_path(name, out->linker, sizeof out->linker);
  }
  if (!out->linker[0]) {
    snprintf(out->linker, sizeof out->linker, "/usr/lib/llvm-%u/bin/ld.lld", major);
    if (!is_exe(out->linker)) out->linker[0] = 0;
  }
  if (!out->linker[0])
    return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                      "no ld.lld of LLVM %u or later to link GPU code objects (Debian: apt-get "
                      "install lld-%u; the unversioned ld.lld of lld 14 is not used: it predates "
                      "code-object v5)",
                      major, major);
  snprintf(out->describe, sizeof out->describe, "LLVM %u.%u.%u C API + %.200s", major, minor, patch,
           out->linker);
  return NULL;
}

/*--- running the tools ------------------------------------------------------------*/

/* Runs argv with stdout and stderr into `log`; on failure the log's start is in
 * the error. */
static air_status_t run(const air_allocator_t* a, char* const argv[], const char* log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE, "cannot run %s: %s", argv[0], strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return NULL;
  char text[1024] = "";
  FILE* f = fopen(log, "r");
  if (f) {
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
  }
  for (size_t n = strlen(text); n && (text[n - 1] == '\n' || text[n - 1] == ' ');) text[--n] = 0;
  return AIR_STATUS(a, AIR_STATUS_INTERNAL, "%s failed (%s %d): %s", argv[0],
                    WIFEXITED(status) ? "exit" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), text);
}

static air_status_t write_file(const air_allocator_t* a, const char* path, const void* p, size_t n) {
  FILE* f = fopen(path, "wb");
  bool ok = f && fwrite(p, 1, n, f) == n;
  if (f && fclose(f)) ok = false;
  return ok ? NULL : AIR_STATUS(a, AIR_STATUS_INTERNAL, "cannot write %s: %s", path, strerror(errno));
}

static air_status_t read_file(const air_allocator_t* a, const char* path, void** out, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return AIR_STATUS(a, AIR_STATUS_INTERNAL, "cannot read %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* p = n > 0 ? air_mem_alloc(a, (size_t)n) : NULL;
  bool ok = p && fread(p, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  if (!ok) {
    air_mem_free(a, p);
    return AIR_STATUS(a, AIR_STATUS_INTERNAL, "cannot read %s", path);
  }
  *out = p;
  *size = (size_t)n;
  return NULL;
}

air_status_t cg_gpu_link(air_cg_module_t* m, const air_cg_gpu_toolchain_t* tc, void** out,
                         size_t* out_size, int64_t* codegen_ns, int64_t* link_ns) {
  const air_allocator_t* a = &m->alloc;
  *out = NULL;
  *out_size = 0;
  const char* tmp = getenv("TMPDIR");
  char dir[512], obj[600], hsaco[600], bc[600], log[600];
  snprintf(dir, sizeof dir, "%s/airc-gpu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir))
    return AIR_STATUS(a, AIR_STATUS_INTERNAL, "cannot make a temporary directory: %s", strerror(errno));
  snprintf(obj, sizeof obj, "%s/kernel.o", dir);
  snprintf(hsaco, sizeof hsaco, "%s/kernel.hsaco", dir);
  snprintf(bc, sizeof bc, "%s/kernel.bc", dir);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  int64_t t0 = cg_now_ns();
  air_status_t st = NULL;
  if (tc->compiler[0]) {
    if (LLVMWriteBitcodeToFile(m->mod, bc))
      st = AIR_STATUS(a, AIR_STATUS_INTERNAL, "cannot write %s", bc);
    char mcpu[64];
    snprintf(mcpu, sizeof mcpu, "-mcpu=%s", tc->processor);
    char* argv[] = {(char*)tc->compiler, "-c", "-x", "ir", "--target=amdgcn-amd-amdhsa", mcpu,
                    "-O2", "-o", obj, bc, NULL};
    if (!st) st = run(a, argv, log);
  } else {
    void* bytes = NULL;
    size_t n = 0;
    st = air_cg_module_object(m, &bytes, &n);
    if (!st) st = write_file(a, obj, bytes, n);
    air_mem_free(a, bytes);
  }
  int64_t t1 = cg_now_ns();
  if (!st) {
    char* argv[] = {(char*)tc->linker, "-shared", "--no-undefined", "-o", hsaco, obj, NULL};
    st = run(a, argv, log);
  }
  if (!st) st = read_file(a, hsaco, out, out_size);
  int64_t t2 = cg_now_ns();
  if (codegen_ns) *codegen_ns += t1 - t0;
  if (link_ns) *link_ns += t2 - t1;
  unlink(obj);
  unlink(hsaco);
  unlink(bc);
  unlink(log);
  rmdir(dir);
  return st;
}

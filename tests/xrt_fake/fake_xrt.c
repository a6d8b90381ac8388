/* fake_xrt.c - a tests-only stand-in for libxrt_coreutil: the same C entry points
 * (restated from BACKENDS.md §1.2), loaded by the NPU driver through its normal
 * dlopen path (AIR_XRT_LIBRARY). It records every call and its arguments in a
 * text log, keeps BOs in host memory, checks what a real NPU would need (opcode 3,
 * a TXN 0.1 instruction BO whose size matches the word count), and fails any call
 * on request, so tests can assert the driver's call sequence, BO reuse, syncs,
 * batching and error paths. Control calls are fake_xrt_*.
 *
 * Global state is fine here: this is a test double of a process-wide library. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXPORT __attribute__((visibility("default")))

enum { K_DEV = 1, K_XCLBIN, K_KERNEL, K_BO, K_RUN };

typedef struct obj_t {
  int kind, live;
  size_t size, offset;
  int parent;           /* BO: sub-BO parent id */
  unsigned char* mem;   /* BO memory (a sub-BO points into its parent's) */
  int kernel;           /* RUN */
  uint64_t args[16];    /* RUN: scalars or BO ids */
  int set[16];
  int started;
} obj_t;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static obj_t g_obj[4096];
static int g_n = 1; /* id 0 is NULL */
static char* g_log;
static size_t g_log_len, g_log_cap;
static char g_fail_call[64];
static int g_fail_nth, g_fail_err, g_fail_count;
static int g_wait_state = 4; /* ERT_CMD_STATE_COMPLETED */
static int g_devices = 1;
static char g_kernel[64] = "MLIR_AIE";
static unsigned g_started;

static void logf_(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char* fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  if (g_log_len + (size_t)n + 2 > g_log_cap) {
    size_t cap = g_log_cap ? g_log_cap * 2 : 65536;
    while (cap < g_log_len + (size_t)n + 2) cap *= 2;
    char* p = realloc(g_log, cap);
    if (!p) return;
    g_log = p;
    g_log_cap = cap;
  }
  memcpy(g_log + g_log_len, line, (size_t)n);
  g_log_len += (size_t)n;
  g_log[g_log_len++] = '\n';
  g_log[g_log_len] = 0;
}

/* True when this call is the one asked to fail (errno set). */
static int should_fail(const char* call) {
  if (strcmp(call, g_fail_call)) return 0;
  if (++g_fail_count != g_fail_nth) return 0;
  errno = g_fail_err;
  logf_("  -> injected failure, errno %d", g_fail_err);
  return 1;
}

static int new_obj(int kind) {
  if (g_n >= (int)(sizeof g_obj / sizeof g_obj[0])) return 0;
  int id = g_n++;
  memset(&g_obj[id], 0, sizeof g_obj[id]);
  g_obj[id].kind = kind;
  g_obj[id].live = 1;
  return id;
}

static void* H(int id) { return id ? (void*)(uintptr_t)(0x1000 + id) : NULL; }
static int ID(void* h, int kind) {
  uintptr_t v = (uintptr_t)h;
  if (v <= 0x1000 || v >= 0x1000 + (uintptr_t)g_n) return 0;
  int id = (int)(v - 0x1000);
  return g_obj[id].live && g_obj[id].kind == kind ? id : 0;
}

#define LOCK pthread_mutex_lock(&g_mu)
#define UNLOCK pthread_mutex_unlock(&g_mu)
#define BAD_HANDLE(ret) do { logf_("  -> no such handle"); errno = EINVAL; UNLOCK; return ret; } while (0)

/*--- control ---------------------------------------------------------------------*/

EXPORT void fake_xrt_reset(void) {
  LOCK;
  for (int i = 1; i < g_n; ++i)
    if (g_obj[i].kind == K_BO && g_obj[i].parent == 0) free(g_obj[i].mem);
  g_n = 1;
  g_log_len = 0;
  if (g_log) g_log[0] = 0;
  g_fail_call[0] = 0;
  g_fail_nth = g_fail_count = 0;
  g_wait_state = 4;
  g_devices = 1;
  g_started = 0;
  snprintf(g_kernel, sizeof g_kernel, "MLIR_AIE");
  UNLOCK;
}

/* Forgets the log only (objects stay). */
EXPORT void fake_xrt_clear_log(void) {
  LOCK;
  g_log_len = 0;
  if (g_log) g_log[0] = 0;
  UNLOCK;
}

/* Unloading the library frees what it kept (LeakSanitizer checks the tests). */
__attribute__((destructor)) static void fake_xrt_unload(void) {
  fake_xrt_reset();
  free(g_log);
  g_log = NULL;
  g_log_len = g_log_cap = 0;
}

/* The log so far (a copy the caller frees). */
EXPORT char* fake_xrt_log(void) {
  LOCK;
  char* s = strdup(g_log ? g_log : "");
  UNLOCK;
  return s;
}

/* The nth call (1-based) of `call` fails with errno `err`. */
EXPORT void fake_xrt_fail(const char* call, int nth, int err) {
  LOCK;
  snprintf(g_fail_call, sizeof g_fail_call, "%s", call);
  g_fail_nth = nth;
  g_fail_err = err;
  g_fail_count = 0;
  UNLOCK;
}

EXPORT void fake_xrt_set_wait_state(int state) { LOCK; g_wait_state = state; UNLOCK; }
EXPORT void fake_xrt_set_devices(int n) { LOCK; g_devices = n; UNLOCK; }
EXPORT unsigned fake_xrt_runs_started(void) { LOCK; unsigned n = g_started; UNLOCK; return n; }

/* Live objects of a kind (1 device .. 5 run), to check that everything is freed. */
EXPORT int fake_xrt_live(int kind) {
  LOCK;
  int n = 0;
  for (int i = 1; i < g_n; ++i) n += g_obj[i].live && g_obj[i].kind == kind;
  UNLOCK;
  return n;
}

/*--- devices and xclbins ---------------------------------------------------------*/

EXPORT void* xrtDeviceOpen(unsigned int index) {
  LOCK;
  logf_("xrtDeviceOpen(%u)", index);
  if (should_fail("xrtDeviceOpen")) { UNLOCK; return NULL; }
  if ((int)index >= g_devices) {
    errno = ENOENT;
    UNLOCK;
    return NULL;
  }
  int id = new_obj(K_DEV);
  UNLOCK;
  return H(id);
}

EXPORT int xrtDeviceClose(void* d) {
  LOCK;
  int id = ID(d, K_DEV);
  logf_("xrtDeviceClose(dev%d)", id);
  if (!id) BAD_HANDLE(-1);
  g_obj[id].live = 0;
  UNLOCK;
  return 0;
}

EXPORT void* xrtXclbinAllocFilename(const char* path) {
  LOCK;
  logf_("xrtXclbinAllocFilename(%s)", path ? path : "(null)");
  struct stat st;
  if (should_fail("xrtXclbinAllocFilename")) { UNLOCK; return NULL; }
  if (!path || stat(path, &st) != 0) {
    errno = ENOENT;
    UNLOCK;
    return NULL;
  }
  int id = new_obj(K_XCLBIN);
  g_obj[id].size = (size_t)st.st_size;
  UNLOCK;
  return H(id);
}

EXPORT int xrtXclbinFreeHandle(void* x) {
  LOCK;
  int id = ID(x, K_XCLBIN);
  logf_("xrtXclbinFreeHandle(xclbin%d)", id);
  if (!id) BAD_HANDLE(-1);
  g_obj[id].live = 0;
  UNLOCK;
  return 0;
}

EXPORT int xrtXclbinGetUUID(void* x, unsigned char out[16]) {
  LOCK;
  int id = ID(x, K_XCLBIN);
  logf_("xrtXclbinGetUUID(xclbin%d)", id);
  if (!id) BAD_HANDLE(-1);
  for (int i = 0; i < 16; ++i) out[i] = (unsigned char)(0xA0 + i + id);
  UNLOCK;
  return 0;
}

EXPORT int xrtDeviceLoadXclbinHandle(void* d, void* x) {
  LOCK;
  int di = ID(d, K_DEV), xi = ID(x, K_XCLBIN);
  logf_("xrtDeviceLoadXclbinHandle(dev%d, xclbin%d)", di, xi);
  if (should_fail("xrtDeviceLoadXclbinHandle")) { UNLOCK; return -1; }
  if (!di || !xi) BAD_HANDLE(-1);
  UNLOCK;
  return 0;
}

/*--- kernels ---------------------------------------------------------------------*/

EXPORT void* xrtPLKernelOpen(void* d, const unsigned char uuid[16], const char* name) {
  LOCK;
  int di = ID(d, K_DEV);
  logf_("xrtPLKernelOpen(dev%d, uuid %02x.., %s)", di, uuid ? uuid[0] : 0, name ? name : "(null)");
  if (should_fail("xrtPLKernelOpen")) { UNLOCK; return NULL; }
  if (!di) BAD_HANDLE(NULL);
  if (!name || strncmp(name, g_kernel, strlen(g_kernel))) {
    errno = ENOENT;
    UNLOCK;
    return NULL;
  }
  int id = new_obj(K_KERNEL);
  UNLOCK;
  return H(id);
}

EXPORT int xrtKernelClose(void* k) {
  LOCK;
  int id = ID(k, K_KERNEL);
  logf_("xrtKernelClose(kernel%d)", id);
  if (!id) BAD_HANDLE(-1);
  g_obj[id].live = 0;
  UNLOCK;
  return 0;
}

/* mlir-aie's xclbins put the instruction buffer (arg 1) in another bank than the
 * data; the fake answers 1 for arg 1 and 0 otherwise, so a driver that ignores the
 * kernel's groups is caught. */
EXPORT int xrtKernelArgGroupId(void* k, int argno) {
  LOCK;
  int id = ID(k, K_KERNEL);
  logf_("xrtKernelArgGroupId(kernel%d, %d)", id, argno);
  if (should_fail("xrtKernelArgGroupId")) { UNLOCK; return -1; }
  if (!id) BAD_HANDLE(-1);
  UNLOCK;
  return argno == 1 ? 1 : 0;
}

/*--- buffer objects --------------------------------------------------------------*/

EXPORT void* xrtBOAlloc(void* d, size_t size, uint64_t flags, uint32_t grp) {
  LOCK;
  int di = ID(d, K_DEV);
  if (should_fail("xrtBOAlloc")) { logf_("xrtBOAlloc(dev%d, %zu, 0x%llx, %u)", di, size, (unsigned long long)flags, grp); UNLOCK; return NULL; }
  if (!di) BAD_HANDLE(NULL);
  int id = new_obj(K_BO);
  g_obj[id].size = size;
  g_obj[id].mem = calloc(1, size ? size : 1);
  logf_("xrtBOAlloc(dev%d, %zu, 0x%llx, %u) = bo%d", di, size, (unsigned long long)flags, grp, id);
  UNLOCK;
  return H(id);
}

EXPORT void* xrtBOAllocUserPtr(void* d, void* ptr, size_t size, uint64_t flags, uint32_t grp) {
  (void)ptr;
  LOCK;
  int di = ID(d, K_DEV);
  logf_("xrtBOAllocUserPtr(dev%d, %zu, 0x%llx, %u)", di, size, (unsigned long long)flags, grp);
  errno = EOPNOTSUPP; /* not used by the driver */
  UNLOCK;
  return NULL;
}

EXPORT void* xrtBOSubAlloc(void* parent, size_t size, size_t offset) {
  LOCK;
  int pi = ID(parent, K_BO);
  if (!pi) BAD_HANDLE(NULL);
  if (should_fail("xrtBOSubAlloc")) { UNLOCK; return NULL; }
  if (offset > g_obj[pi].size || size > g_obj[pi].size - offset) {
    logf_("xrtBOSubAlloc(bo%d, %zu, %zu) -> out of range", pi, size, offset);
    errno = EINVAL;
    UNLOCK;
    return NULL;
  }
  int id = new_obj(K_BO);
  g_obj[id].size = size;
  g_obj[id].offset = offset;
  g_obj[id].parent = pi;
  g_obj[id].mem = g_obj[pi].mem + offset;
  logf_("xrtBOSubAlloc(bo%d, %zu, %zu) = bo%d", pi, size, offset, id);
  UNLOCK;
  return H(id);
}

EXPORT int xrtBOFree(void* b) {
  LOCK;
  int id = ID(b, K_BO);
  logf_("xrtBOFree(bo%d)", id);
  if (!id) BAD_HANDLE(-1);
  for (int i = 1; i < g_n; ++i)
    if (g_obj[i].live && g_obj[i].kind == K_BO && g_obj[i].parent == id)
      logf_("  -> freed while sub-BO bo%d lives", i);
  if (!g_obj[id].parent) free(g_obj[id].mem);
  g_obj[id].mem = NULL;
  g_obj[id].live = 0;
  UNLOCK;
  return 0;
}

EXPORT void* xrtBOMap(void* b) {
  LOCK;
  int id = ID(b, K_BO);
  logf_("xrtBOMap(bo%d)", id);
  if (should_fail("xrtBOMap")) { UNLOCK; return NULL; }
  if (!id) BAD_HANDLE(NULL);
  void* p = g_obj[id].mem;
  UNLOCK;
  return p;
}

EXPORT int xrtBOSync(void* b, int dir, size_t size, size_t offset) {
  LOCK;
  int id = ID(b, K_BO);
  logf_("xrtBOSync(bo%d, %s, %zu, %zu)", id, dir == 0 ? "TO_DEVICE" : dir == 1 ? "FROM_DEVICE" : "?",
        size, offset);
  if (should_fail("xrtBOSync")) { UNLOCK; return -1; }
  if (!id) BAD_HANDLE(-1);
  if (offset > g_obj[id].size || size > g_obj[id].size - offset) {
    logf_("  -> range outside the BO");
    errno = EINVAL;
    UNLOCK;
    return -1;
  }
  UNLOCK;
  return 0;
}

/*--- runs ------------------------------------------------------------------------*/

EXPORT void* xrtRunOpen(void* k) {
  LOCK;
  int ki = ID(k, K_KERNEL);
  if (should_fail("xrtRunOpen")) { logf_("xrtRunOpen(kernel%d)", ki); UNLOCK; return NULL; }
  if (!ki) BAD_HANDLE(NULL);
  int id = new_obj(K_RUN);
  g_obj[id].kernel = ki;
  logf_("xrtRunOpen(kernel%d) = run%d", ki, id);
  UNLOCK;
  return H(id);
}

/* Arguments 0 (opcode) and 2 (word count) are scalars, read as 64 bits as the
 * driver passes them; every other argument is a BO handle. */
EXPORT int xrtRunSetArg(void* r, int index, ...) {
  va_list ap;
  va_start(ap, index);
  LOCK;
  int id = ID(r, K_RUN);
  if (!id || index < 0 || index >= 16) {
    va_end(ap);
    logf_("xrtRunSetArg(run%d, %d, ?)", id, index);
    BAD_HANDLE(-1);
  }
  if (index == 0 || index == 2) {
    uint64_t v = va_arg(ap, uint64_t);
    g_obj[id].args[index] = v;
    logf_("xrtRunSetArg(run%d, %d, %llu)", id, index, (unsigned long long)v);
  } else {
    void* h = va_arg(ap, void*);
    int bo = ID(h, K_BO);
    g_obj[id].args[index] = (uint64_t)bo;
    logf_("xrtRunSetArg(run%d, %d, bo%d)", id, index, bo);
    if (!bo) {
      va_end(ap);
      BAD_HANDLE(-1);
    }
  }
  g_obj[id].set[index] = 1;
  va_end(ap);
  if (should_fail("xrtRunSetArg")) { UNLOCK; return -1; }
  UNLOCK;
  return 0;
}

EXPORT int xrtRunStart(void* r) {
  LOCK;
  int id = ID(r, K_RUN);
  logf_("xrtRunStart(run%d)", id);
  if (should_fail("xrtRunStart")) { UNLOCK; return -1; }
  if (!id) BAD_HANDLE(-1);
  obj_t* o = &g_obj[id];
  /* What the firmware needs: opcode 3, an instruction BO holding a TXN 0.1 stream
   * of exactly the given word count. */
  int bo = o->set[1] ? (int)o->args[1] : 0;
  uint64_t words = o->args[2];
  const uint32_t* w = bo && g_obj[bo].live ? (const uint32_t*)g_obj[bo].mem : NULL;
  if (!o->set[0] || o->args[0] != 3 || !w || !o->set[2] || words * 4 > g_obj[bo].size ||
      words < 4 || (w[0] & 0xFFFF) != 0x0100 || w[3] != words * 4) {
    logf_("  -> refused: opcode %llu, instruction BO bo%d, %llu words",
          (unsigned long long)o->args[0], bo, (unsigned long long)words);
    errno = EINVAL;
    UNLOCK;
    return -1;
  }
  o->started = 1;
  ++g_started;
  UNLOCK;
  return 0;
}

EXPORT int xrtRunWait(void* r) {
  LOCK;
  int id = ID(r, K_RUN);
  logf_("xrtRunWait(run%d)", id);
  if (!id) {
    errno = EINVAL;
    UNLOCK;
    return 6; /* ABORT, as XRT answers a bad handle */
  }
  int state = g_obj[id].started ? g_wait_state : 6;
  if (should_fail("xrtRunWait")) state = 5; /* ERROR */
  g_obj[id].started = 0;
  UNLOCK;
  return state;
}

EXPORT int xrtRunClose(void* r) {
  LOCK;
  int id = ID(r, K_RUN);
  logf_("xrtRunClose(run%d)", id);
  if (!id) BAD_HANDLE(-1);
  g_obj[id].live = 0;
  UNLOCK;
  return 0;
}

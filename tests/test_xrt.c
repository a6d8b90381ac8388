/* test_xrt.c - the NPU driver (src/hal/xrt) against the tests-only fake
 * libxrt_coreutil (tests/xrt_fake/fake_xrt.c), loaded through the driver's own
 * dlopen path: the probe, the call sequence of an executable and of runs, BO and
 * run-handle reuse, the sync directions, batching, and every error path. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "air/air.h"
#include "npu/insts.h"
#include "test_util.h"

typedef struct fake_t {
  void* lib;
  void (*reset)(void);
  void (*clear_log)(void);
  char* (*log)(void);
  void (*fail_on)(const char*, int, int);
  void (*set_wait_state)(int);
  int (*live)(int);
  unsigned (*started)(void);
} fake_t;

static fake_t g_fake;
static air_context_t* g_ctx;

static void* s_alloc(void* self, size_t n) { (void)self; return malloc(n); }
static void* s_realloc(void* self, void* p, size_t n) { (void)self; return realloc(p, n); }
static void s_free(void* self, void* p) { (void)self; free(p); }
static const air_allocator_t k_sys = {NULL, s_alloc, s_realloc, s_free};
static char g_dir[256], g_insts[300], g_xclbin[300];

static void set_env_ok(void) {
  char p[320];
  setenv("AIR_XRT_LIBRARY", AIR_FAKE_XRT, 1);
  snprintf(p, sizeof p, "%s/dev", g_dir);
  setenv("AIR_XRT_DEVICE_DIR", p, 1);
  snprintf(p, sizeof p, "%s/xrt", g_dir);
  setenv("XILINX_XRT", p, 1);
  unsetenv("AIR_XRT_TARGET");
}

static void touch(const char* path) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs("x", f);
  fclose(f);
}

/* A stream for @copy (2 memref args): MM2S from arg 0, S2MM into arg 1. */
static void write_insts(const char* path, uint32_t patch_arg) {
  char mod[2048];
  snprintf(mod, sizeof mod,
           "aie.device(npu1) {\n"
           "  aie.shim_dma_allocation @in(MM2S, 0, 0)\n"
           "  aie.shim_dma_allocation @out(S2MM, 0, 0)\n"
           "  aie.runtime_sequence(%%a: memref<256xi32>, %%b: memref<256xi32>) {\n"
           "    aiex.npu.dma_memcpy_nd(%%a[0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<256xi32>\n"
           "    aiex.npu.dma_memcpy_nd(%%b[0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 1 : i64, metadata = @out} : memref<256xi32>\n"
           "    aiex.npu.dma_wait {symbol = @out}\n"
           "  }\n"
           "}\n");
  uint32_t* w;
  size_t n;
  air_status_t s = air_npu_insts_from_module(&k_sys, mod, strlen(mod), "m", NULL, &w, &n);
  assert_null(s);
  /* Re-point the second patch (word 4+12+12+6+12+8 = arg word) when asked. */
  if (patch_arg != 1) {
    for (size_t i = 0; i + 11 < n; ++i)
      if (w[i] == 0x81 && w[i + 1] == 48 && w[i + 8] == 1) w[i + 8] = patch_arg;
  }
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(w, 4, n, f);
  fclose(f);
  free(w);
}

static int setup(void** state) {
  snprintf(g_dir, sizeof g_dir, "/tmp/air-xrt-test-%d", (int)getpid());
  char p[320];
  mkdir(g_dir, 0700);
  snprintf(p, sizeof p, "%s/dev", g_dir);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/dev/accel0", g_dir);
  touch(p);
  snprintf(p, sizeof p, "%s/empty", g_dir);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/xrt", g_dir);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/xrt/lib", g_dir);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/xrt/lib/libxrt_core.so.2", g_dir);
  touch(p);
  snprintf(g_xclbin, sizeof g_xclbin, "%s/final.xclbin", g_dir);
  touch(g_xclbin);
  snprintf(g_insts, sizeof g_insts, "%s/insts.bin", g_dir);
  write_insts(g_insts, 1);
  /* The same path the driver dlopens, so both see one copy of the fake. */
  g_fake.lib = dlopen(AIR_FAKE_XRT, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(g_fake.lib);
  *(void**)&g_fake.reset = dlsym(g_fake.lib, "fake_xrt_reset");
  *(void**)&g_fake.clear_log = dlsym(g_fake.lib, "fake_xrt_clear_log");
  *(void**)&g_fake.log = dlsym(g_fake.lib, "fake_xrt_log");
  *(void**)&g_fake.fail_on = dlsym(g_fake.lib, "fake_xrt_fail");
  *(void**)&g_fake.set_wait_state = dlsym(g_fake.lib, "fake_xrt_set_wait_state");
  *(void**)&g_fake.live = dlsym(g_fake.lib, "fake_xrt_live");
  *(void**)&g_fake.started = dlsym(g_fake.lib, "fake_xrt_runs_started");
  int rc = test_context_setup(state);
  g_ctx = *state;
  return rc;
}

static int teardown(void** state) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", g_dir);
  dlclose(g_fake.lib);
  return test_context_teardown(state);
}

static int before(void** state) {
  (void)state;
  set_env_ok();
  g_fake.reset();
  return 0;
}

static void expect_status(air_status_t s, air_status_code_t code, const char* needle) {
  if (!s) fail_msg("expected %s, got OK", air_status_code_name(code));
  const char* msg = air_status_message(s);
  if (air_status_code(s) != code || (needle && !strstr(msg, needle)))
    fail_msg("expected %s with '%s', got %s: %s", air_status_code_name(code), needle ? needle : "",
             air_status_code_name(air_status_code(s)), msg);
  air_status_free(s);
}

static int count(const char* log, const char* needle) {
  int n = 0;
  for (const char* p = log; (p = strstr(p, needle)); ++p) ++n;
  return n;
}

static void test_probe(void** state) {
  air_context_t* ctx = *state;
  air_device_t* d = NULL;
  char p[320];
  /* No device node: refused before XRT is asked anything. */
  snprintf(p, sizeof p, "%s/empty", g_dir);
  setenv("AIR_XRT_DEVICE_DIR", p, 1);
  expect_status(air_device_open(ctx, "xrt:0", &d), AIR_STATUS_UNAVAILABLE, "no NPU: no device node");
  set_env_ok();
  expect_status(air_device_open(ctx, "xrt:1", &d), AIR_STATUS_UNAVAILABLE, "no NPU 1: 1 device node");
  /* XILINX_XRT unset, or without libxrt_core.so.2: XRT would abort; not called. */
  unsetenv("XILINX_XRT");
  expect_status(air_device_open(ctx, "xrt:0", &d), AIR_STATUS_UNAVAILABLE, "XILINX_XRT is unset");
  setenv("XILINX_XRT", "/usr", 1);
  expect_status(air_device_open(ctx, "xrt", &d), AIR_STATUS_UNAVAILABLE,
                "XILINX_XRT=/usr has no lib/libxrt_core.so.2");
  char* log = g_fake.log();
  assert_int_equal(count(log, "xrtDeviceOpen"), 0);
  free(log);
  set_env_ok();
  setenv("AIR_XRT_LIBRARY", "/nonexistent/libxrt_coreutil.so.2", 1);
  expect_status(air_device_open(ctx, "xrt:0", &d), AIR_STATUS_UNAVAILABLE,
                "XRT is not installed: dlopen(\"/nonexistent/libxrt_coreutil.so.2\")");
  set_env_ok();
  expect_status(air_device_open(ctx, "xrt:x", &d), AIR_STATUS_INVALID_ARGUMENT, "malformed device URI");
  g_fake.fail_on("xrtDeviceOpen", 1, ENODEV);
  expect_status(air_device_open(ctx, "xrt:0", &d), AIR_STATUS_UNAVAILABLE,
                "XRT xrtDeviceOpen failed for NPU 0: No such device");
  assert_null(d);
  assert_null(air_device_open(ctx, "xrt:0", &d));
  air_device_info_t info;
  assert_null(air_device_query(d, &info));
  assert_string_equal(info.driver, "xrt");
  assert_non_null(strstr(info.name, "npu1"));
  air_device_release(d);
  log = g_fake.log();
  assert_non_null(strstr(log, "xrtDeviceOpen(0)\nxrtDeviceClose(dev"));
  free(log);
  assert_int_equal(g_fake.live(1), 0);
}

typedef struct run_fix_t {
  air_program_t* program;
  air_device_t* dev;
  air_executable_t* exe;
  air_buffer_t* buf[2];
} run_fix_t;

static air_program_t* load_program(air_context_t* ctx) {
  char path[512];
  snprintf(path, sizeof path, "%s/npu/l3_copy.mlir", AIR_TEST_DATA_DIR);
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  air_program_t* p = NULL;
  air_parse_options_t o = {0};
  o.filename = "l3_copy.mlir";
  assert_null(air_program_parse(ctx, text, len, &o, &p));
  free(text);
  return p;
}

static void open_exe(air_context_t* ctx, run_fix_t* f, const char* insts) {
  memset(f, 0, sizeof *f);
  f->program = load_program(ctx);
  assert_null(air_device_open(ctx, "xrt:0", &f->dev));
  air_executable_options_t o = {0, g_xclbin, NULL, insts};
  assert_null(air_executable_create_with_options(f->dev, f->program, &o, &f->exe));
  for (int i = 0; i < 2; ++i) assert_null(air_buffer_allocate(f->dev, 4096, 0, &f->buf[i]));
}

static void close_exe(run_fix_t* f) {
  for (int i = 0; i < 2; ++i) air_buffer_release(f->buf[i]);
  air_executable_release(f->exe);
  air_device_release(f->dev);
  air_program_destroy(f->program);
  /* Every XRT object the driver made is gone. */
  for (int k = 1; k <= 5; ++k) assert_int_equal(g_fake.live(k), 0);
}

/* Records `n` dispatches of @copy over (buf0 + off, buf1 + off), runs it, returns
 * the submission's status. */
static air_status_t run(run_fix_t* f, int n, uint64_t off, air_command_buffer_t** keep) {
  air_command_buffer_t* cb = NULL;
  assert_null(air_command_buffer_create(f->dev, 0, &cb));
  air_binding_t b[2] = {{f->buf[0], off, 0, 0}, {f->buf[1], off, 0, 0}};
  for (int i = 0; i < n; ++i) assert_null(air_command_buffer_dispatch(cb, f->exe, 0, 2, b, NULL));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* sem = NULL;
  assert_null(air_semaphore_create(g_ctx, 0, &sem));
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, &sem, &one};
  assert_null(air_device_queue_execute(f->dev, 0, NULL, cb, &sig));
  air_status_t s = air_semaphore_wait(sem, 1, -1);
  air_semaphore_release(sem);
  if (keep) *keep = cb;
  else air_command_buffer_release(cb);
  return s;
}

static void test_executable_and_batch(void** state) {
  air_context_t* ctx = *state;
  run_fix_t f;
  open_exe(ctx, &f, g_insts);
  char* log = g_fake.log();
  /* Executable: xclbin, kernel, the instruction BO in arg 1's group, synced once. */
  const char* seq[] = {"xrtXclbinAllocFilename(", "xrtDeviceLoadXclbinHandle(", "xrtXclbinGetUUID(",
                       "xrtPLKernelOpen(dev1, uuid", "MLIR_AIE)", "xrtKernelArgGroupId(kernel3, 1)",
                       "xrtBOAlloc(dev1, 272, 0x1000000, 1)", "xrtBOMap(", "xrtBOSync(bo4, TO_DEVICE, 272, 0)"};
  const char* at = log;
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; ++i) {
    const char* p = strstr(at, seq[i]);
    if (!p) fail_msg("'%s' missing after:\n%s", seq[i], at);
    at = p;
  }
  free(log);
  g_fake.clear_log();
  /* Two dispatches in one command buffer: both start before either is waited
   * for; the input is synced to the device once, the output back once. */
  air_command_buffer_t* cb = NULL;
  assert_null(run(&f, 2, 0, &cb));
  log = g_fake.log();
  assert_int_equal(count(log, "xrtRunOpen"), 2);
  assert_int_equal(count(log, "xrtRunStart"), 2);
  const char* second_start = strstr(strstr(log, "xrtRunStart") + 1, "xrtRunStart");
  const char* first_wait = strstr(log, "xrtRunWait");
  assert_true(second_start && first_wait && second_start < first_wait);
  assert_int_equal(count(log, "TO_DEVICE, 1024, 0)"), 1);   /* arg 0, read */
  assert_int_equal(count(log, "FROM_DEVICE, 1024, 0)"), 1); /* arg 1, written */
  assert_true(strstr(log, "FROM_DEVICE") > strstr(log, "xrtRunWait"));
  assert_int_equal(count(log, ", 0, 3)"), 2);   /* opcode 3 */
  assert_int_equal(count(log, ", 2, 68)"), 2);  /* 68 instruction words */
  assert_int_equal(count(log, ", 1, bo4)"), 2); /* the instruction BO */
  /* Buffers are whole-BO arguments here: no sub-BO. */
  assert_int_equal(count(log, "xrtBOSubAlloc"), 0);
  free(log);
  /* Submitting again reuses run handles and BOs: no new XRT objects. */
  g_fake.clear_log();
  air_timepoint_list_t none = {0, NULL, NULL};
  air_semaphore_t* sem = NULL;
  assert_null(air_semaphore_create(ctx, 0, &sem));
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, &sem, &one};
  assert_null(air_device_queue_execute(f.dev, 0, &none, cb, &sig));
  assert_null(air_semaphore_wait(sem, 1, -1));
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  log = g_fake.log();
  assert_int_equal(count(log, "xrtRunOpen"), 0);
  assert_int_equal(count(log, "xrtBOAlloc"), 0);
  assert_int_equal(count(log, "xrtRunSetArg(run6, 0"), 0); /* fixed args set once */
  assert_int_equal(count(log, "xrtRunStart"), 2);
  free(log);
  /* A sub-range: one sub-BO per (buffer, range), made once. */
  g_fake.clear_log();
  assert_null(run(&f, 1, 1024, NULL));
  assert_null(run(&f, 1, 1024, NULL));
  log = g_fake.log();
  assert_int_equal(count(log, "xrtBOSubAlloc"), 2); /* one per buffer */
  assert_int_equal(count(log, "xrtBOSubAlloc(bo"), 2);
  free(log);
  close_exe(&f);
}

static void test_run_errors(void** state) {
  air_context_t* ctx = *state;
  run_fix_t f;
  open_exe(ctx, &f, g_insts);
  g_fake.set_wait_state(5);
  expect_status(run(&f, 2, 0, NULL), AIR_STATUS_INTERNAL,
                "XRT xrtRunWait: the run of @copy on xrt:0 (npu1 NPU, 4 columns) ended in state ERROR");
  g_fake.set_wait_state(4);
  g_fake.clear_log();
  g_fake.fail_on("xrtRunStart", 2, EIO);
  expect_status(run(&f, 2, 0, NULL), AIR_STATUS_INTERNAL, "XRT xrtRunStart failed");
  /* The run that did start was still waited for. */
  char* log = g_fake.log();
  assert_int_equal(count(log, "xrtRunWait"), 1);
  free(log);
  g_fake.fail_on("xrtBOSync", 1, EIO);
  expect_status(run(&f, 1, 0, NULL), AIR_STATUS_INTERNAL, "XRT xrtBOSync failed (to the device)");
  /* After failures the device still runs. */
  assert_null(run(&f, 1, 0, NULL));
  close_exe(&f);
}

static void test_executable_errors(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = load_program(ctx);
  air_device_t* d = NULL;
  assert_null(air_device_open(ctx, "xrt:0", &d));
  air_executable_t* e = NULL;
  expect_status(air_executable_create(d, p, 0, &e), AIR_STATUS_INVALID_ARGUMENT, "needs the xclbin");
  air_executable_options_t o = {0, "/nonexistent.xclbin", NULL, g_insts};
  expect_status(air_executable_create_with_options(d, p, &o, &e), AIR_STATUS_NOT_FOUND,
                "XRT xrtXclbinAllocFilename failed /nonexistent.xclbin");
  o.xclbin = g_xclbin;
  o.kernel = "OTHER";
  expect_status(air_executable_create_with_options(d, p, &o, &e), AIR_STATUS_NOT_FOUND,
                "XRT xrtPLKernelOpen failed for kernel 'OTHER'");
  o.kernel = NULL;
  g_fake.fail_on("xrtDeviceLoadXclbinHandle", 1, EOPNOTSUPP);
  expect_status(air_executable_create_with_options(d, p, &o, &e), AIR_STATUS_UNAVAILABLE,
                "XRT xrtDeviceLoadXclbinHandle failed");
  /* A stream patching an argument the entry does not have. */
  char bad[320];
  snprintf(bad, sizeof bad, "%s/bad.bin", g_dir);
  write_insts(bad, 7);
  o.insts = bad;
  expect_status(air_executable_create_with_options(d, p, &o, &e), AIR_STATUS_INVALID_ARGUMENT,
                "patches kernel data argument 7; the entry has 2 memref parameters");
  o.insts = "/nonexistent.bin";
  expect_status(air_executable_create_with_options(d, p, &o, &e), AIR_STATUS_NOT_FOUND,
                "cannot open instruction stream");
  assert_null(e);
  /* A cpu device refuses NPU options. */
  air_device_t* cpu = NULL;
  assert_null(air_device_open(ctx, "cpu", &cpu));
  o.insts = NULL;
  expect_status(air_executable_create_with_options(cpu, p, &o, &e), AIR_STATUS_INVALID_ARGUMENT,
                "takes no xclbin");
  air_device_release(cpu);
  air_device_release(d);
  air_program_destroy(p);
  for (int k = 1; k <= 5; ++k) assert_int_equal(g_fake.live(k), 0);
}

/* Without an instruction file the executable runs the stream the schedule
 * compiled from the program's L3 transfers (106 words for l3_copy.mlir). */
static void test_compiled_stream(void** state) {
  air_context_t* ctx = *state;
  run_fix_t f;
  open_exe(ctx, &f, NULL);
  char* log = g_fake.log();
  assert_non_null(strstr(log, "xrtBOAlloc(dev1, 424, 0x1000000, 1)"));
  free(log);
  g_fake.clear_log();
  assert_null(run(&f, 1, 0, NULL));
  log = g_fake.log();
  assert_int_equal(count(log, ", 2, 106)"), 1);
  assert_int_equal(count(log, "TO_DEVICE, 1024, 0)"), 1);   /* arg 0 is only read */
  assert_int_equal(count(log, "FROM_DEVICE, 1024, 0)"), 1); /* arg 1 is only written */
  free(log);
  close_exe(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_probe, before),
      cmocka_unit_test_setup(test_executable_and_batch, before),
      cmocka_unit_test_setup(test_run_errors, before),
      cmocka_unit_test_setup(test_executable_errors, before),
      cmocka_unit_test_setup(test_compiled_stream, before),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

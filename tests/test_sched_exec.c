/* Running from a compiled schedule (src/hal/cpu/interp/waves.c, plan.c):
 * every sample and test program gives byte-identical results on the schedule path
 * and on the dynamic path (and a generated host level with many buffers);
 * deadlocks, kernel failures and the watchdog work from the schedule. The
 * transient arena, shared plans and traces are in test_sched_exec_plan.c, the
 * HAL in test_sched_exec_hal.c; all three share tests/sched_exec_test.h and run
 * on each path (AIR_TEST_PATH, tests/sched_exec.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_exec_test.h"

/*---------------------------------------------------------------------------*/
/* Same results both ways                                                    */
/*---------------------------------------------------------------------------*/

/* Runs `entry` dynamically and from its schedule on identical inputs, on the
 * test's path (AIR_TEST_PATH), and once more from the schedule on the reference
 * path (interpreted, reference loops), and compares every memref argument byte
 * for byte. */
static void run_both(fx_t* f, const char* path, const char* entry, const int64_t* scalars,
                     uint32_t threads) {
  air_program_t* p = test_load_file(f->x.ctx, path);
  const air_op_t* fn = test_find_func(p, entry);
  assert_non_null(fn);
  air_schedule_t* sc = compile(f, p, entry);
  air_pool_t* pool = NULL;
  if (threads) test_check(air_pool_create(NULL, threads, &pool));
  args_t dyn, sch, ref;
  args_make(p, fn, scalars, &dyn);
  args_make(p, fn, scalars, &sch);
  args_make(p, fn, scalars, &ref);
  runopt_t od = {.pool = pool}, os = {.pool = pool, .schedule = sc},
           orf = {.pool = pool, .schedule = sc, .reference = true};
  air_status_t st = run(f, p, fn, &dyn, &od);
  if (st) fprintf(stderr, "%s @%s (dynamic): %s\n", path, entry, air_status_message(st));
  test_check(st);
  st = run(f, p, fn, &sch, &os);
  if (st) fprintf(stderr, "%s @%s (schedule): %s\n", path, entry, air_status_message(st));
  test_check(st);
  st = run(f, p, fn, &ref, &orf);
  if (st) fprintf(stderr, "%s @%s (reference): %s\n", path, entry, air_status_message(st));
  test_check(st);
  for (uint32_t i = 0; i < dyn.n; ++i) {
    if (!dyn.buf[i]) continue;
    if (memcmp(dyn.buf[i], sch.buf[i], dyn.bytes[i]))
      fprintf(stderr, "%s @%s: argument %u differs between the paths\n", path, entry, i);
    assert_memory_equal(dyn.buf[i], sch.buf[i], dyn.bytes[i]);
    if (memcmp(ref.buf[i], sch.buf[i], dyn.bytes[i]))
      fprintf(stderr, "%s @%s: argument %u differs from the reference path\n", path, entry, i);
    assert_memory_equal(ref.buf[i], sch.buf[i], dyn.bytes[i]);
  }
  args_free(&dyn);
  args_free(&sch);
  args_free(&ref);
  if (pool) air_pool_destroy(pool);
  air_schedule_free(sc);
  air_program_destroy(p);
}

static void test_samples_both_ways(void** state) {
  fx_t* f = *state;
  static const struct {
    const char* file;
    const char* fn;
  } s[] = {{"vector_add", "vector_add"},
           {"pipeline", "scale_offset"},
           {"matmul_4x4", "matmul_512"},
           {"matmul_4x4_bf16", "matmul_512_bf16"}};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/samples/%s.mlir", AIR_SOURCE_DIR, s[i].file);
    run_both(f, path, s[i].fn, NULL, 0);
  }
}

static void test_programs_both_ways(void** state) {
  fx_t* f = *state;
  static const struct {
    const char* file;
    const char* fn;
    uint32_t threads;
    int64_t scalars[2];
  } s[] = {
      {"programs/affine_if_broadcast", "bcast", 0, {0}},
      {"programs/affine_tile_transpose", "transpose", 0, {0}},
      {"programs/affine_tile_transpose", "reshape", 0, {0}},
      {"programs/execute_results", "fill_rows", 0, {0}},
      {"programs/linalg_generic_bf16", "gemm_bias_bf16", 0, {0}},
      {"programs/matmul_4x4_channels", "matmul_128", 0, {0}},
      {"programs/module_attrs_opaque", "annotated", 0, {0}},
      {"programs/no_module_wrapper", "copy_through_l1", 0, {0}},
      {"programs/old_async_token", "old_style", 0, {0}},
      {"programs/parallel_reduce_tokens", "scale", 0, {0}},
      {"programs/scalar_control", "clamp", 0, {7}},
      /* Every tile writes the whole buffer back: racy unless on one thread. */
      {"programs/scalar_control", "tiles", 1, {0}},
      {"programs/segment_pipeline", "pipeline", 0, {0}},
      {"programs/segment_unroll_kernel", "unrolled", 0, {0}},
      {"programs/spec_token_lists", "spec_forms", 0, {0}},
      {"programs/vector_add_dma", "vector_add", 0, {0}},
      {"interp/affinity", "apart", 0, {0}},
      {"interp/affinity", "together", 0, {0}},
      {"interp/backlog", "backlog", 0, {4096}},
      {"interp/bf16_matmul", "bf16_matmul", 0, {0}},
      {"interp/broadcast", "bcast", 0, {0}},
      {"interp/chain", "chain", 0, {0}},
      {"interp/deadlock", "starve", 0, {4}},
      {"interp/depth", "ahead_1", 0, {0}},
      {"interp/depth", "ahead_3", 0, {0}},
      {"interp/exchange", "exchange", 0, {0}},
      {"interp/reduce", "reduce", 0, {0}},
      {"interp/reduce", "init_wait", 0, {0}},
      {"interp/scalars", "poly", 0, {5}},
      {"interp/scalars", "scalars", 0, {0}},
      {"sched_exec/transients", "transients", 0, {0}},
      {"sched_exec/edges", "ordered", 0, {0}},
      {"sched_exec/edges", "affinity", 0, {0}},
      {"schedule/memplan", "plan", 0, {0}},
      {"artifact/host_mix", "host", 0, {0}},
  };
  for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mlir", AIR_TEST_DATA_DIR, s[i].file);
    run_both(f, path, s[i].fn, s[i].scalars, s[i].threads);
  }
}

/* A generated host level: `n` buffers, buffer k made once buffer k - 2 is freed,
 * so two are in flight at a time and the plan reuses their bytes; each copies
 * one row of the input to the output through its buffer. */
static char* many_buffers(int n) {
  size_t cap = 4096 + (size_t)n * 1024, len = 0;
  char* t = malloc(cap);
  len += (size_t)snprintf(t + len, cap - len,
                          "func.func @many(%%in: memref<%dx64xi32>, %%out: memref<%dx64xi32>) {\n"
                          "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                          "  %%c64 = arith.constant 64 : index\n",
                          n, n);
  for (int k = 0; k < n; ++k) {
    char dep[32] = "";
    if (k >= 2) snprintf(dep, sizeof dep, " [%%f%d]", k - 2);
    len += (size_t)snprintf(
        t + len, cap - len,
        "  %%r%d = arith.constant %d : index\n"
        "  %%t%d, %%b%d = air.execute%s -> (memref<64xi32>) {\n"
        "    %%m = memref.alloc() : memref<64xi32>\n"
        "    air.execute_terminator %%m : memref<64xi32>\n  }\n"
        "  %%d%d = air.dma_memcpy_nd async [%%t%d] (%%b%d[] [] [], %%in[%%r%d, %%c0] [%%c1, %%c64] "
        "[%%c64, %%c1]) : (memref<64xi32>, memref<%dx64xi32>)\n"
        "  %%e%d = air.dma_memcpy_nd async [%%d%d] (%%out[%%r%d, %%c0] [%%c1, %%c64] [%%c64, %%c1], "
        "%%b%d[] [] []) : (memref<%dx64xi32>, memref<64xi32>)\n"
        "  %%f%d = air.execute [%%e%d] {\n    memref.dealloc %%b%d : memref<64xi32>\n  }\n",
        k, k, k, k, dep, k, k, k, k, n, k, k, k, k, n, k, k, k);
  }
  len += (size_t)snprintf(t + len, cap - len, "  air.wait_all [%%f%d, %%f%d]\n  return\n}\n", n - 2,
                          n - 1);
  return t;
}

static void test_many_buffers(void** state) {
  fx_t* f = *state;
  enum { N = 300 };
  char* text = many_buffers(N);
  char path[] = "/tmp/air_sched_many_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  free(text);
  run_both(f, path, "many", NULL, 0);
  air_program_t* p = test_load_file(f->x.ctx, path);
  air_schedule_t* sc = compile(f, p, "many");
  air_interp_plan_t* plan = make_plan(p, sc);
  uint64_t size = 0;
  air_interp_plan_transient(plan, &size, NULL);
  assert_true(size >= 2 * 256 && size <= 4 * 256); /* N buffers of 256 bytes, 2 live */
  args_t a;
  args_make(p, test_find_func(p, "many"), NULL, &a);
  runopt_t o = {.plan = plan};
  test_check(run(f, p, test_find_func(p, "many"), &a, &o));
  assert_memory_equal(a.buf[0], a.buf[1], a.bytes[0]);
  args_free(&a);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
  remove(path);
}

/*---------------------------------------------------------------------------*/
/* Failures from the schedule                                                */
/*---------------------------------------------------------------------------*/

/* A deadlock found while running from the schedule names the blocked ops. */
static void test_deadlock_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/deadlock.mlir");
  const air_op_t* fn = test_find_func(p, "starve");
  const air_op_t* get = test_find_op(p->module, AIR_OP_GET, NULL);
  air_schedule_t* sc = compile(f, p, "starve");
  args_t a;
  int64_t n[2] = {3, 0};
  args_make(p, fn, n, &a);
  runopt_t o = {.schedule = sc};
  air_status_t st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  const char* msg = air_status_message(st);
  test_expect_in(msg, "deadlock: no operation can make progress");
  test_expect_in(msg, "%s:%u:%u: air.channel.get @ch[0] blocked: no put (herd @cons [0])",
            p->filename, get->line, get->col);
  /* The wait_all's wave never opens: the driver says what it waits for. */
  test_expect_in(msg, "%s:%u:%u: func.func @starve: the schedule has 1 of 3 waves not started: "
            "queue 0 (host) wave 1 waits for queue 2 (compute) wave 0",
            p->filename, fn->line, fn->col);
  air_status_free(st);
  args_free(&a);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* A failing kernel fails the run with its status, located. */
static void test_fault_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/fault.mlir");
  const air_op_t* fn = test_find_func(p, "faulty");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, NULL);
  air_schedule_t* sc = compile(f, p, "faulty");
  for (int round = 0; round < 3; ++round) {
    args_t a;
    args_make(p, fn, NULL, &a);
    runopt_t o = {.schedule = sc};
    air_status_t st = run(f, p, fn, &a, &o);
    assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
    test_expect_in(air_status_message(st), "%s:%u:%u: error: func.call @work failed: tile (1, 1) broke",
              p->filename, call->line, call->col);
    air_status_free(st);
    args_free(&a);
  }
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* The watchdog fires from the schedule path too, and the abandoned kernel's late
 * return touches nothing that is gone (the plan here belongs to the caller). */
static void test_watchdog_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/watchdog.mlir");
  const air_op_t* fn = test_find_func(p, "stuck");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, NULL);
  air_schedule_t* sc = compile(f, p, "stuck");
  air_interp_plan_t* plan = make_plan(p, sc);
  atomic_store(&g_slow_done, 0);
  runopt_t o = {.plan = plan, .watchdog_ns = 50000000};
  air_status_t st = run(f, p, fn, NULL, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
  test_expect_in(air_status_message(st), "%s:%u:%u: error: func.call @slow ran longer than the watchdog",
            p->filename, call->line, call->col);
  air_status_free(st);
  assert_int_equal(atomic_load(&g_slow_done), 0);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
  int64_t deadline = air_time_now_ns() + 5000000000LL;
  while (!atomic_load(&g_slow_done) && air_time_now_ns() < deadline) {
    struct timespec d = {0, 1000000};
    nanosleep(&d, NULL);
  }
  assert_int_equal(atomic_load(&g_slow_done), 1);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_samples_both_ways, setup, teardown),
      cmocka_unit_test_setup_teardown(test_programs_both_ways, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_buffers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadlock_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_watchdog_from_schedule, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

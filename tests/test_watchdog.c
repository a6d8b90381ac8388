/* The watchdog (src/hal/cpu/interp/watchdog.c): a run whose kernel or long op
 * outlasts the run's watchdog time fails with DEADLINE_EXCEEDED naming the op,
 * without waiting for a kernel it abandons; an op's own exit catches what the
 * watchdog thread did not see in time. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "air/context.h"
#include "air/kernel.h"
#include "air/program.h"
#include "hal/cpu/interp/sync.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/cpu/interp/interp.h"
#include "hal/futex.h"
#include "runtime/ir/ir.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "support/threads.h"

#include "interp_test.h"

/* @slow waits in this gate until the test opens it (at most 20 s), so a run
 * that failed "without waiting for the kernel" provably did not wait. Static:
 * an abandoned kernel may outlive the test that failed before opening it. */
static test_gate_t g_slow;

static air_status_t k_slow(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  (void)c;
  test_gate_pass(&g_slow, 20);
  return NULL;
}

/* A run object with nothing running, for driving the watchdog's records by
 * hand: program `p`, the fixture's pool, the system allocator. */
static ix_run_t* bare_run(fx_t* f, const air_program_t* p, int64_t watchdog_ns) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  ix_run_t* r = ix_run_new(&a);
  assert_non_null(r);
  size_t keep = offsetof(ix_run_t, alloc);
  memset((char*)r + keep, 0, sizeof *r - keep);
  r->alloc = a;
  r->p = p;
  r->pool = f->pool;
  r->watchdog_ns = watchdog_ns;
  return r;
}

/* A watched op that outlasts the watchdog fails the run even when the watchdog
 * thread cannot look while it runs (a loaded machine kept it off a core for
 * 130-380 ms; here the run lock it needs is held): the op's exit checks its own
 * time. The thread may still win the race once the lock is free; either way the
 * run fails, and before the exit checked, it mostly did not. */
static void test_watchdog_exit_checks(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/watchdog.mlir");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, "slow");
  ix_run_t* r = bare_run(f, p, 10000000);
  ix_strand_t s;
  memset(&s, 0, sizeof s);
  s.run = r;
  s.worker = 0;
  test_check(ix_watchdog_start(r, NULL));
  ix_lock(r);
  ix_watchdog_enter(&s, call, false);
  test_sleep_us(40000);
  ix_unlock(r);
  assert_false(ix_watchdog_exit(&s));
  ix_watchdog_stop(r);
  assert_true(ix_failing(r));
  assert_int_equal(air_status_code(r->status), AIR_STATUS_DEADLINE_EXCEEDED);
  test_expect_in(air_status_message(r->status), "func.call @slow ran longer than the watchdog");
  air_status_free(r->status);
  ix_watchdog_free(r);
  ix_run_destroy(r, r->alloc);
  air_program_destroy(p);
}

/* The watchdog fails a run whose kernel runs too long, naming the call, without
 * waiting for it; the kernel's late return frees the rest (ASan watches). */
static void test_watchdog(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/watchdog.mlir");
  test_check(air_context_register_kernel(f->ctx, "slow", k_slow, NULL));
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, "slow");
  char where[512];
  snprintf(where, sizeof where, "%s:%u:%u: error: func.call @slow ran longer than the watchdog",
           p->filename, call->line, call->col);
  runopt_t o = {.watchdog_ns = 50000000};
  air_status_t st = run(f, p, "stuck", NULL, 0, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
  test_expect_in(air_status_message(st), "%s", where);
  air_status_free(st);
  /* Failed without waiting for the kernel: it cannot have left the closed
   * gate (however long the watchdog thread was kept off a core). */
  assert_int_equal(atomic_load(&g_slow.left), 0);
  /* The program goes away while the abandoned kernel still runs. */
  air_program_destroy(p);
  test_gate_open(&g_slow);
  test_gate_expect_left(&g_slow, 1, 20);

  /* A watchdog that never fires changes nothing. */
  air_program_t* v = test_load_file(f->ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir");
  float x[4096], y[4096], z[4096];
  for (int i = 0; i < 4096; ++i) x[i] = y[i] = (float)i;
  air_arg_t args[3] = {test_mref(x, AIR_ELEM_F32, 1, (int64_t)4096),
                       test_mref(y, AIR_ELEM_F32, 1, (int64_t)4096),
                       test_mref(z, AIR_ELEM_F32, 1, (int64_t)4096)};
  runopt_t slow = {.watchdog_ns = 10000000000LL};
  test_check(run(f, v, "vector_add", args, 3, &slow));
  assert_true(z[4095] == 8190.0f);
  air_program_destroy(v);
}

/* A newer op on the same worker takes the record over (the records are per
 * worker, and a record is one op). The older op's exit then leaves the record
 * alone — it clears only what its own enter posted (same sequence number) — so
 * the watchdog still sees the newer op run too long and abandons it. Before
 * the exit compared sequence numbers, the stale exit cleared the newer record
 * and the watchdog never fired. When the machine keeps this thread off a core
 * for longer than the watchdog time, the older op's own exit fails the run
 * first; that attempt proves nothing and is tried again. */
static void test_watchdog_stale_exit(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/watchdog.mlir");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, "slow");
  bool checked = false;
  for (int attempt = 0; attempt < 5 && !checked; ++attempt) {
    ix_run_t* r = bare_run(f, p, 200000000);
    ix_strand_t older, newer;
    memset(&older, 0, sizeof older);
    memset(&newer, 0, sizeof newer);
    older.run = newer.run = r;
    older.worker = newer.worker = 0;
    test_check(ix_watchdog_start(r, NULL));
    int64_t t0 = air_time_now_ns();
    ix_watchdog_enter(&older, call, false);
    ix_watchdog_enter(&newer, call, true);
    assert_false(ix_watchdog_exit(&older));
    checked = air_time_now_ns() - t0 < r->watchdog_ns;
    if (checked) {
      int64_t deadline = air_time_now_ns() + 10000000000LL;
      while (!ix_failing(r) && air_time_now_ns() < deadline) test_sleep_us(1000);
      assert_true(ix_failing(r));
      assert_true(ix_watchdog_exit(&newer)); /* the watchdog fired on it: abandoned */
      assert_int_equal(r->abandoned, 1);
      assert_int_equal(air_status_code(r->status), AIR_STATUS_DEADLINE_EXCEEDED);
      test_expect_in(air_status_message(r->status), "the kernel is abandoned");
    } else {
      ix_watchdog_exit(&newer);
    }
    ix_watchdog_stop(r);
    air_status_free(r->status);
    ix_watchdog_free(r);
    ix_run_destroy(r, r->alloc);
  }
  assert_true(checked);
  air_program_destroy(p);
}

/*--- several dispatches on one device ----------------------------------------*/

/* Held kernels: each waits until the test opens the gate (at most 20 s). */
typedef struct gate_t {
  _Atomic int entered, finished, open;
} gate_t;

static air_status_t k_held(void* ud, const air_kernel_call_t* c) {
  (void)c;
  gate_t* g = ud;
  atomic_fetch_add(&g->entered, 1);
  int64_t deadline = air_time_now_ns() + 20000000000LL;
  while (!atomic_load(&g->open) && air_time_now_ns() < deadline) test_sleep_us(1000);
  atomic_fetch_add(&g->finished, 1);
  return NULL;
}

static air_status_t k_quick(void* ud, const air_kernel_call_t* c) {
  (void)c;
  atomic_fetch_add((_Atomic int*)ud, 1);
  return NULL;
}

/* Two entries shaped like tests/data/interp/watchdog.mlir's: one calls a held
 * kernel, the other a quick one. */
static const char k_two_entries[] =
    "func.func private @held(index)\n"
    "func.func private @quick(index)\n"
    "func.func @stuck() {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) {\n"
    "    air.segment @s1 {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      air.herd @h1 tile (%x) in (%sx=%c1s) {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        func.call @held(%c0) : (index) -> ()\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n"
    "func.func @fine() {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) {\n"
    "    air.segment @s2 {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      air.herd @h2 tile (%x) in (%sx=%c1s) {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        func.call @quick(%c0) : (index) -> ()\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

enum { N_STUCK = 3, N_FINE = 2 };

static air_command_buffer_t* record_entry(air_device_t* dev, air_executable_t* e, uint32_t entry,
                                          int64_t watchdog_ns) {
  air_dispatch_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.watchdog_ns = watchdog_ns;
  air_command_buffer_t* cb = NULL;
  test_check(air_command_buffer_create(dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, e, entry, 0, NULL, &opts));
  test_check(air_command_buffer_end(cb));
  return cb;
}

/* Several dispatches with watchdog times run at once on one device, some of
 * them stuck in a kernel: the device's one watchdog thread (started by the
 * first such dispatch, no thread per dispatch) fails each stuck one with
 * DEADLINE_EXCEEDED while its kernel is still held, lets the others finish,
 * and is joined when the device is released. Threads are compared by id, not
 * counted: a thread joined by an earlier test (or by the release here) can
 * still be listed for a moment after its join returned. */
static void test_watchdog_concurrent_dispatches(void** state) {
  (void)state;
  test_tids_t before, with_watchdog, now;
  test_tids_now(&before);
  air_context_t* ctx = NULL;
  test_check(air_context_create(NULL, NULL, &ctx));
  gate_t g;
  memset(&g, 0, sizeof g);
  _Atomic int quick = 0;
  test_check(air_context_register_kernel(ctx, "held", k_held, &g));
  test_check(air_context_register_kernel(ctx, "quick", k_quick, (void*)&quick));
  air_device_t* dev = NULL;
  test_check(air_device_open(ctx, "cpu:threads=6", &dev));
  air_program_t* p = NULL;
  test_check(air_program_parse(ctx, k_two_entries, strlen(k_two_entries), NULL, &p));
  air_executable_t* e = NULL;
  test_check(air_executable_create(dev, p, 0, &e));
  uint32_t stuck = 0, fine = 0;
  test_check(air_executable_lookup(e, "stuck", &stuck));
  test_check(air_executable_lookup(e, "fine", &fine));

  /* One dispatch with a watchdog first: the device's watchdog thread is up. */
  air_command_buffer_t* warm = record_entry(dev, e, fine, 10000000000LL);
  air_semaphore_t* ws = NULL;
  test_check(air_semaphore_create(ctx, 0, &ws));
  air_timepoint_list_t none = {0, NULL, NULL};
  uint64_t one = 1;
  air_timepoint_list_t wsig = {1, &ws, &one};
  test_check(air_device_queue_execute(dev, 0, &none, warm, &wsig));
  test_check(air_semaphore_wait(ws, 1, 60000000000LL));
  test_tids_now(&with_watchdog);

  air_command_buffer_t* cbs[N_STUCK + N_FINE];
  air_semaphore_t* sems[N_STUCK + N_FINE];
  for (int i = 0; i < N_STUCK + N_FINE; ++i) {
    cbs[i] = i < N_STUCK ? record_entry(dev, e, stuck, 40000000) /* 40 ms */
                         : record_entry(dev, e, fine, 10000000000LL);
    test_check(air_semaphore_create(ctx, 0, &sems[i]));
    air_timepoint_list_t sig = {1, &sems[i], &one};
    test_check(air_device_queue_execute(dev, 0, &none, cbs[i], &sig));
  }
  int64_t deadline = air_time_now_ns() + 20000000000LL;
  while (atomic_load(&g.entered) < N_STUCK && air_time_now_ns() < deadline) test_sleep_us(1000);
  assert_int_equal(atomic_load(&g.entered), N_STUCK);
  /* Every stuck kernel is running under its watchdog: still the one thread. */
  test_tids_now(&now);
  long extra = 0;
  if (test_tids_new(&with_watchdog, &now, &extra))
    fail_msg("a thread (tid %ld) started while the stuck dispatches ran", extra);
  for (int i = 0; i < N_STUCK + N_FINE; ++i) {
    air_status_t st = air_semaphore_wait(sems[i], 1, 60000000000LL);
    if (i < N_STUCK) {
      assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
      test_expect_in(air_status_message(st), "func.call @held ran longer than the watchdog");
      air_status_free(st);
    } else {
      test_check(st);
    }
  }
  /* Failed while every kernel was still held: the watchdog did not wait. */
  assert_int_equal(atomic_load(&g.finished), 0);
  assert_int_equal(atomic_load(&quick), 1 + N_FINE);
  atomic_store(&g.open, 1);

  for (int i = 0; i < N_STUCK + N_FINE; ++i) {
    air_semaphore_release(sems[i]);
    air_command_buffer_release(cbs[i]);
  }
  air_semaphore_release(ws);
  air_command_buffer_release(warm);
  air_executable_release(e);
  air_program_destroy(p);
  /* Releasing the device waits for the abandoned kernels and joins the watchdog. */
  air_device_release(dev);
  assert_int_equal(atomic_load(&g.finished), N_STUCK);
  test_tids_expect_gone(&before, 10, "air_device_release");
  air_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_watchdog, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_watchdog_exit_checks, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_watchdog_stale_exit, test_exec_setup, test_exec_teardown),
      cmocka_unit_test(test_watchdog_concurrent_dispatches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

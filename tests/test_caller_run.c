/* Submissions that run on their caller's thread (cpu_queue.c, run_here): once a
 * command buffer's execution is measured short against a worker's wake-up, the
 * cpu device runs it inside air_device_queue_execute on a thread-less pool. These
 * tests submit one command buffer many times through the public API and check
 *  - every result, with two herds that rendezvous on a depth-1 channel (so strands
 *    park and resume on the one thread), on 1 and 2 workers;
 *  - that the caller's thread really ran them (a kernel notes its thread);
 *  - that a run on the caller's thread that deadlocks still fails with the
 *    blocked ops named, returns, and that the next one works;
 *  - that a dispatch with a watchdog never runs on the caller's thread. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "support/alloc.h"
#include "support/status.h"

/* The producer puts cfg[0] values, the consumer gets 4 and then calls @where,
 * which records its thread. cfg[0] = 4 balances them; 3 starves the last get. */
static const char k_text[] =
    "air.channel @ch [1]\n"
    "func.func private @where(memref<1xi32, 2>)\n"
    "func.func @run(%cfg: memref<1xi32>, %out: memref<4xi32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %v = memref.load %cfg[%c0] : memref<1xi32>\n"
    "  %n = arith.index_cast %v : i32 to index\n"
    "  %t = air.launch async (%l) in (%nl=%c1) args(%nn=%n, %o=%out) : index, memref<4xi32> {\n"
    "    air.segment @s args(%sn=%nn, %so=%o) : index, memref<4xi32> {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %p = air.herd @prod async tile (%x) in (%sx=%c1s) args(%hn=%sn) : index {\n"
    "        %z = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %buf = memref.alloc() : memref<1xi32, 2>\n"
    "        scf.for %i = %z to %hn step %one {\n"
    "          %w = arith.index_cast %i : index to i32\n"
    "          memref.store %w, %buf[%z] : memref<1xi32, 2>\n"
    "          air.channel.put @ch[%z] (%buf[] [] []) : (memref<1xi32, 2>)\n"
    "        }\n"
    "        memref.dealloc %buf : memref<1xi32, 2>\n"
    "      }\n"
    "      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<4xi32> {\n"
    "        %z = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c4 = arith.constant 4 : index\n"
    "        %buf = memref.alloc() : memref<1xi32, 2>\n"
    "        scf.for %i = %z to %c4 step %one {\n"
    "          air.channel.get @ch[%z] (%buf[] [] []) : (memref<1xi32, 2>)\n"
    "          air.dma_memcpy_nd (%ho[%i] [%one] [%one], %buf[%z] [%one] [%one]) : "
    "(memref<4xi32>, memref<1xi32, 2>)\n"
    "        }\n"
    "        func.call @where(%buf) : (memref<1xi32, 2>) -> ()\n"
    "        memref.dealloc %buf : memref<1xi32, 2>\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  air.wait_all [%t]\n"
    "  return\n"
    "}\n";

typedef struct where_t {
  pthread_t caller;
  _Atomic int here, away;
} where_t;

static air_status_t where_kernel(void* user, const air_kernel_call_t* call) {
  (void)call;
  where_t* w = user;
  atomic_fetch_add(pthread_equal(pthread_self(), w->caller) ? &w->here : &w->away, 1);
  return NULL;
}

typedef struct fx_t {
  test_budget_t count;
  air_context_t* ctx;
  air_device_t* dev;
  air_program_t* prog;
  air_executable_t* exe;
  air_buffer_t* io; /* cfg (4 bytes), then out (16 bytes) */
  int32_t* cfg;
  int32_t* out;
  air_semaphore_t* sem;
  uint64_t value;
  where_t where;
} fx_t;

static void open_fx(fx_t* f, const char* uri) {
  memset(f, 0, sizeof *f);
  test_budget_init(&f->count, -1);
  test_check(air_context_create(NULL, &f->count.allocator, &f->ctx));
  f->where.caller = pthread_self();
  test_check(air_context_register_kernel(f->ctx, "where", where_kernel, &f->where));
  test_check(air_device_open(f->ctx, uri, &f->dev));
  test_check(air_program_parse(f->ctx, k_text, strlen(k_text), NULL, &f->prog));
  test_check(air_executable_create(f->dev, f->prog, 0, &f->exe));
  test_check(air_buffer_allocate(f->dev, 20, 0, &f->io));
  void* p = NULL;
  test_check(air_buffer_map(f->io, 0, 20, AIR_MAP_READ | AIR_MAP_WRITE, &p));
  f->cfg = p;
  f->out = f->cfg + 1;
  test_check(air_semaphore_create(f->ctx, 0, &f->sem));
}

static void close_fx(fx_t* f) {
  air_semaphore_release(f->sem);
  air_buffer_release(f->io);
  air_executable_release(f->exe);
  air_program_destroy(f->prog);
  air_device_release(f->dev);
  air_context_destroy(f->ctx);
  assert_int_equal(test_budget_live(&f->count), 0);
}

static air_command_buffer_t* record(fx_t* f, int64_t watchdog_ns) {
  air_binding_t bind[2] = {{f->io, 0, 0, 0}, {f->io, 4, 0, 0}};
  air_dispatch_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.watchdog_ns = watchdog_ns;
  air_command_buffer_t* cb = NULL;
  test_check(air_command_buffer_create(f->dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, f->exe, 0, 2, bind, &opts));
  test_check(air_command_buffer_end(cb));
  return cb;
}

/* Submits cb with cfg[0] = n and waits (bounded: a hang fails the test). */
static air_status_t submit(fx_t* f, air_command_buffer_t* cb, int32_t n) {
  f->cfg[0] = n;
  memset(f->out, -1, 16);
  uint64_t v = ++f->value;
  air_semaphore_t* sems[1] = {f->sem};
  air_timepoint_list_t sig = {1, sems, &v};
  test_check(air_device_queue_execute(f->dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(f->sem, v, 30ll * 1000 * 1000 * 1000);
  if (air_status_code(st) != AIR_STATUS_OK) {
    /* A failed timeline stays failed: the next run needs a fresh one. */
    air_semaphore_release(f->sem);
    f->value = 0;
    test_check(air_semaphore_create(f->ctx, 0, &f->sem));
  }
  return st;
}

static void expect_out(const fx_t* f) {
  for (int i = 0; i < 4; ++i) assert_int_equal(f->out[i], i);
}

enum { RUNS = 40 };

/* One worker: nothing to gain from the pool past the first (measuring) run, so
 * the caller runs nearly every submission (every 64th eligible one goes to the
 * workers to measure their wake-up again). */
static void test_runs_on_caller(void** state) {
  (void)state;
  fx_t f;
  open_fx(&f, "cpu:threads=1");
  air_command_buffer_t* cb = record(&f, 0);
  for (int i = 0; i < RUNS; ++i) {
    test_check(submit(&f, cb, 4));
    expect_out(&f);
  }
  int here = atomic_load(&f.where.here), away = atomic_load(&f.where.away);
  assert_int_equal(here + away, RUNS);
  assert_true(here >= RUNS / 2);
  assert_true(away >= 1); /* the first run measured the workers */

  /* A deadlock on the caller's thread: the run fails naming the starved get,
   * the call returns, and the same command buffer then runs again. */
  int before = atomic_load(&f.where.here) + atomic_load(&f.where.away);
  test_expect_status(submit(&f, cb, 3), AIR_STATUS_ABORTED,
                     "air.channel.get @ch[0] blocked: no put (herd @cons [0])");
  assert_int_equal(atomic_load(&f.where.here) + atomic_load(&f.where.away), before);
  for (int i = 0; i < 3; ++i) {
    test_check(submit(&f, cb, 4));
    expect_out(&f);
  }
  air_command_buffer_release(cb);
  close_fx(&f);
}

/* Two workers: whichever path the measurements pick, every result is exact. */
static void test_two_workers_exact(void** state) {
  (void)state;
  fx_t f;
  open_fx(&f, "cpu:threads=2");
  air_command_buffer_t* cb = record(&f, 0);
  for (int i = 0; i < RUNS; ++i) {
    test_check(submit(&f, cb, 4));
    expect_out(&f);
  }
  assert_int_equal(atomic_load(&f.where.here) + atomic_load(&f.where.away), RUNS);
  air_command_buffer_release(cb);
  close_fx(&f);
}

/* A watchdog may abandon a kernel and end the run while the kernel still runs;
 * the caller's thread could not return then, so such dispatches stay on the
 * workers. */
static void test_watchdog_stays_on_workers(void** state) {
  (void)state;
  fx_t f;
  open_fx(&f, "cpu:threads=1");
  air_command_buffer_t* cb = record(&f, 30ll * 1000 * 1000 * 1000);
  for (int i = 0; i < 10; ++i) {
    test_check(submit(&f, cb, 4));
    expect_out(&f);
  }
  assert_int_equal(atomic_load(&f.where.here), 0);
  assert_int_equal(atomic_load(&f.where.away), 10);
  air_command_buffer_release(cb);
  close_fx(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs_on_caller),
      cmocka_unit_test(test_two_workers_exact),
      cmocka_unit_test(test_watchdog_stays_on_workers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The MPI transport (src/rank_mpi) under mpirun -np 2 or more: windows made by
 * every process (MPI_Win_allocate), one-sided puts and gets into a peer's part
 * (passive target, complete on return), messages delivered in order by the
 * listener thread, windows freed collectively, and agreement. Then dispatches
 * through the C API with the transport: the halo program's ranks spread over the
 * processes with each process checking its own ranks' values, and processes
 * running different programs failing at their first collective instead of
 * hanging. Each process checks what it can see; the test is run by ctest through
 * mpiexec (tests/rank.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "support/status.h"

#include "air/air.h"
#include "rank_mpi/rank_mpi.h"

static air_rank_transport_t* g_t;

typedef struct inbox_t {
  _Atomic uint32_t n;
  uint32_t from[64];
  uint64_t value[64];
} inbox_t;

static void on_msg(void* user, uint32_t from, const void* msg, size_t len) {
  inbox_t* in = user;
  uint32_t k = atomic_load(&in->n);
  if (k < 64 && len == sizeof(uint64_t)) {
    in->from[k] = from;
    memcpy(&in->value[k], msg, sizeof(uint64_t));
    atomic_store(&in->n, k + 1);
  }
}

static void test_windows_and_rma(void** state) {
  (void)state;
  air_rank_transport_t* t = g_t;
  uint32_t me = t->process, np = t->processes;
  assert_true(np >= 2);
  /* Part sizes differ per process (a block of ranks each). */
  uint64_t bytes = 4096 * (me + 1);
  void* base = NULL;
  air_rank_window_t* w = NULL;
  test_check(t->vtable->window_create(t, bytes, &base, &w));
  assert_non_null(base);
  for (uint64_t i = 0; i < bytes; ++i) assert_int_equal(((uint8_t*)base)[i], 0);
  /* Nobody writes into a peer's part before the peer has looked at it. */
  test_check(t->vtable->agree(t, 1, NULL, NULL, NULL, NULL));
  /* Write our id into the next process's part at offset 64*me, read it back. */
  uint32_t next = (me + 1) % np;
  uint64_t v = 1000 + me, back = 0;
  air_rank_chunk_t c = {64 * me, &v, sizeof v};
  test_check(t->vtable->put(t, w, next, 1, &c));
  air_rank_chunk_t g = {64 * me, &back, sizeof back};
  test_check(t->vtable->get(t, w, next, 1, &g));
  assert_int_equal(back, 1000 + me);
  /* Two chunks in one call, then a large transfer split by nothing. */
  uint64_t two[2] = {7, 9}, got[2] = {0, 0};
  air_rank_chunk_t cc[2] = {{2048, &two[0], 8}, {2056, &two[1], 8}};
  test_check(t->vtable->put(t, w, next, 2, cc));
  air_rank_chunk_t gg = {2048, got, 16};
  test_check(t->vtable->get(t, w, next, 1, &gg));
  assert_int_equal(got[0], 7);
  assert_int_equal(got[1], 9);
  test_expect_status(t->vtable->put(t, w, np, 1, &c), AIR_STATUS_OUT_OF_RANGE, "process");
  /* Every process's puts landed before anyone frees: the free is collective. */
  test_check(t->vtable->window_free(t, w));
}

static void test_messages(void** state) {
  (void)state;
  air_rank_transport_t* t = g_t;
  uint32_t me = t->process, np = t->processes;
  inbox_t in;
  memset(&in, 0, sizeof in);
  test_check(t->vtable->listen(t, on_msg, &in));
  /* Everyone sends three numbered messages to every other process. */
  for (uint64_t k = 0; k < 3; ++k)
    for (uint32_t p = 0; p < np; ++p)
      if (p != me) {
        uint64_t v = (uint64_t)me * 100 + k;
        test_check(t->vtable->send(t, p, &v, sizeof v));
      }
  uint32_t want = 3 * (np - 1);
  for (int spin = 0; spin < 20000 && atomic_load(&in.n) < want; ++spin) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
  test_check(t->vtable->listen(t, NULL, NULL));
  assert_int_equal(atomic_load(&in.n), want);
  /* In order per sender. */
  uint64_t last[64];
  memset(last, 0xff, sizeof last);
  for (uint32_t i = 0; i < want; ++i) {
    uint32_t f = in.from[i];
    assert_true(f < np && f != me);
    assert_int_equal(in.value[i] / 100, f);
    uint64_t k = in.value[i] % 100;
    assert_true(last[f] == UINT64_MAX ? k == 0 : k == last[f] + 1);
    last[f] = k;
  }
  /* A window after the messages: every process has stopped listening first. */
  void* base;
  air_rank_window_t* w;
  test_check(t->vtable->window_create(t, 64, &base, &w));
  test_check(t->vtable->window_free(t, w));
}

/* agree: the smallest and largest key of all processes (its cancel hook, which
 * leaves a collective pending, is exercised end to end: tests/rank_mpi_run.sh). */
static void test_agree(void** state) {
  (void)state;
  air_rank_transport_t* t = g_t;
  uint32_t me = t->process, np = t->processes;
  uint64_t lo = 0, hi = 0;
  test_check(t->vtable->agree(t, 42, &lo, &hi, NULL, NULL));
  assert_int_equal(lo, 42);
  assert_int_equal(hi, 42);
  test_check(t->vtable->agree(t, 10 + me, &lo, &hi, NULL, NULL));
  assert_int_equal(lo, 10);
  assert_int_equal(hi, 10 + np - 1);
}

/* Dispatches `text`'s only entry with (nr, out) on the CPU device over the
 * transport; returns the run's status. `copies` receives every local rank's copy. */
static air_status_t dispatch_text(const char* text, int64_t nr, float* out, size_t bytes,
                                  air_rank_copies_t** copies, air_context_t** out_ctx) {
  air_context_t* ctx;
  test_check(air_context_create(NULL, NULL, &ctx));
  air_program_t* p;
  test_check(air_program_parse(ctx, text, strlen(text), NULL, &p));
  air_device_t* dev;
  air_executable_t* exe;
  test_check(air_device_open(ctx, "cpu", &dev));
  test_check(air_executable_create(dev, p, 0, &exe));
  test_check(air_rank_copies_create(ctx, copies));
  air_buffer_t* buf;
  test_check(air_buffer_import(dev, out, bytes, 0, &buf));
  air_binding_t b[2];
  memset(b, 0, sizeof b);
  b[0].i = nr;
  b[1].buffer = buf;
  air_dispatch_options_t o;
  memset(&o, 0, sizeof o);
  o.rank_copies = *copies;
  o.transport = g_t;
  air_command_buffer_t* cb;
  air_semaphore_t* sem;
  test_check(air_command_buffer_create(dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, exe, 0, 2, b, &o));
  test_check(air_command_buffer_end(cb));
  test_check(air_semaphore_create(ctx, 0, &sem));
  air_semaphore_t* sems[1] = {sem};
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, sems, &one};
  test_check(air_device_queue_execute(dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(sem, 1, 60 * 1000000000LL);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  air_buffer_release(buf);
  air_executable_release(exe);
  air_device_release(dev);
  air_program_destroy(p);
  *out_ctx = ctx;
  return st;
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return buf;
}

/* 4 ranks over the processes: each holds a block and checks its ranks' outputs:
 * rows [10r+i, 10n+i, 0, 10n+i], n the next rank (data/rank/halo.mlir), with the
 * next rank usually in another process (strided gets and puts through windows). */
static void test_dispatch_halo(void** state) {
  (void)state;
  uint32_t np = g_t->processes;
  float out[4][4];
  memset(out, 0, sizeof out);
  air_rank_copies_t* copies;
  air_context_t* ctx;
  test_check(dispatch_text(read_file(AIR_TEST_DATA_DIR "/rank/halo.mlir"), 4, &out[0][0],
                           sizeof out, &copies, &ctx));
  uint32_t first, end;
  air_rank_copies_local(copies, &first, &end);
  assert_int_equal(air_rank_copies_count(copies), 4);
  assert_int_equal(first, 4 * g_t->process / np);
  assert_int_equal(end, 4 * (g_t->process + 1) / np);
  for (uint32_t k = first; k < end; ++k) {
    float o[4][4];
    test_check(air_rank_copies_read(copies, 1, k, 0, o, sizeof o));
    uint32_t next = (k + 1) % 4;
    for (int i = 0; i < 4; ++i) {
      assert_true(o[i][0] == (float)(10 * k + (uint32_t)i));
      assert_true(o[i][1] == (float)(10 * next + (uint32_t)i));
      assert_true(o[i][2] == 0.0f);
      assert_true(o[i][3] == (float)(10 * next + (uint32_t)i));
    }
  }
  /* Another process's rank is not here. */
  uint32_t other = end < 4 ? end : 0;
  float z[16];
  test_expect_status(air_rank_copies_read(copies, 1, other, 0, z, sizeof z), AIR_STATUS_NOT_FOUND,
                     "no copy");
  /* The binding itself is this process's first rank's copy. */
  assert_true(out[0][0] == (float)(10 * first));
  air_rank_copies_destroy(copies);
  air_context_destroy(ctx);
}

/* Process 0 runs a program whose first collective is on line 3, the others one
 * whose first is on line 4: every process fails there, naming both. */
static void test_dispatch_mismatch(void** state) {
  (void)state;
  const char* a =
      "func.func @f(%nr: index, %o: memref<4xf32>) {\n"
      "  air.rank (%r) in (%n=%nr) {\n"
      "    %h = memref.alloc() {air.symmetric} : memref<4xf32>\n"
      "    memref.dealloc %h : memref<4xf32>\n"
      "  }\n  return\n}\n";
  const char* b =
      "func.func @f(%nr: index, %o: memref<4xf32>) {\n"
      "  air.rank (%r) in (%n=%nr) {\n"
      "    %c = arith.constant 0 : index\n"
      "    %h = memref.alloc() {air.symmetric} : memref<4xf32>\n"
      "    memref.dealloc %h : memref<4xf32>\n"
      "  }\n  return\n}\n";
  float out[4] = {0};
  air_rank_copies_t* copies;
  air_context_t* ctx;
  air_status_t st = dispatch_text(g_t->process ? b : a, g_t->processes, out, sizeof out, &copies,
                                  &ctx);
  assert_non_null(st);
  const char* m = air_status_message(st);
  assert_non_null(strstr(m, "reached this symmetric allocation while another process reached "
                            "the symmetric allocation at"));
  assert_non_null(strstr(m, g_t->process ? "at 3:" : "at 4:"));
  air_status_free(st);
  air_rank_copies_destroy(copies);
  air_context_destroy(ctx);
}

int main(void) {
  air_status_t st = air_rank_transport_mpi_create(NULL, &g_t);
  if (st) {
    fprintf(stderr, "test_rank_mpi: %s\n", air_status_message(st));
    air_status_free(st);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_windows_and_rma),
      cmocka_unit_test(test_messages),
      cmocka_unit_test(test_agree),
      cmocka_unit_test(test_dispatch_halo),
      cmocka_unit_test(test_dispatch_mismatch),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  g_t->vtable->destroy(g_t);
  return rc;
}

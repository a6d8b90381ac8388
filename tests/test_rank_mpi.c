/* The MPI transport (src/rank_mpi) under mpirun -np 2 or more: windows made by
 * every process (MPI_Win_allocate), one-sided puts and gets into a peer's part
 * (passive target, complete on return), messages delivered in order by the
 * listener thread, and windows freed collectively. Each process checks what it
 * can see; the test is run by ctest through mpiexec (tests/rank.cmake). */
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
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  g_t->vtable->destroy(g_t);
  return rc;
}

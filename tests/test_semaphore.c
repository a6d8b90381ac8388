/* Timeline semaphores: ordering, timeouts, failure propagation, callbacks. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hal/semaphore.h"
#include "support/threads.h"

static air_semaphore_t* make(uint64_t v) {
  air_semaphore_t* s = NULL;
  air_status_t st = air_hal_semaphore_create(NULL, v, &s);
  assert_null(st);
  assert_non_null(s);
  return s;
}

static void test_signal_and_query(void** state) {
  (void)state;
  air_semaphore_t* s = make(3);
  assert_int_equal(air_semaphore_query(s, NULL), 3);
  assert_null(air_semaphore_signal(s, 7));
  assert_int_equal(air_semaphore_query(s, NULL), 7);
  assert_null(air_semaphore_wait(s, 5, 0)); /* already reached: polling succeeds */
  air_status_t st = air_semaphore_signal(s, 7); /* not increasing */
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(air_status_message(st), "must increase"));
  air_status_free(st);
  /* Nobody slept, so none of that made a system call. */
  air_semaphore_stats_t ss;
  air_semaphore_stats(s, &ss);
  assert_int_equal(ss.futex_waits, 0);
  assert_int_equal(ss.futex_wakes, 0);
  air_semaphore_release(s);
}

static void test_wait_timeout(void** state) {
  (void)state;
  air_semaphore_t* s = make(0);
  air_semaphore_set_spin(s, 0);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  air_status_t st = air_semaphore_wait(s, 1, 20 * 1000 * 1000);
  clock_gettime(CLOCK_MONOTONIC, &b);
  assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
  air_status_free(st);
  double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  assert_true(ms >= 19.0);
  st = air_semaphore_wait(s, 1, 0);
  assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
  air_status_free(st);
  air_semaphore_release(s);
}

typedef struct {
  air_semaphore_t* s;
  uint64_t value;
  air_status_code_t code;
  char message[128];
} waiter_t;

static void* waiter_main(void* arg) {
  waiter_t* w = arg;
  air_status_t st = air_semaphore_wait(w->s, w->value, -1);
  w->code = air_status_code(st);
  strncpy(w->message, air_status_message(st), sizeof w->message - 1);
  air_status_free(st);
  return NULL;
}

static void test_cross_thread_signal(void** state) {
  (void)state;
  air_semaphore_t* s = make(0);
  air_semaphore_set_spin(s, 16); /* force the futex path */
  enum { N = 4 };
  waiter_t w[N];
  pthread_t t[N];
  for (int i = 0; i < N; ++i) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].s = s;
    w[i].value = (uint64_t)(i + 1);
    w[i].code = AIR_STATUS_UNKNOWN;
  }
  test_threads_start(t, N, waiter_main, w, sizeof w[0]);
  test_sleep_us(5000);
  for (uint64_t v = 1; v <= N; ++v) assert_null(air_semaphore_signal(s, v));
  test_threads_join(t, N);
  for (int i = 0; i < N; ++i) assert_int_equal(w[i].code, AIR_STATUS_OK);
  air_semaphore_release(s);
}

static void test_failure_reaches_every_waiter(void** state) {
  (void)state;
  air_semaphore_t* s = make(0);
  air_semaphore_set_spin(s, 0);
  enum { N = 3 };
  waiter_t w[N];
  pthread_t t[N];
  for (int i = 0; i < N; ++i) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].s = s;
    w[i].value = 10;
  }
  test_threads_start(t, N, waiter_main, w, sizeof w[0]);
  air_semaphore_fail(s, air_status_make(NULL, AIR_STATUS_ABORTED, __FILE__, __LINE__,
                                        "kernel k failed"));
  /* A second failure does not replace the first. */
  air_semaphore_fail(s, air_status_make(NULL, AIR_STATUS_INTERNAL, __FILE__, __LINE__,
                                        "later"));
  test_threads_join(t, N);
  for (int i = 0; i < N; ++i) {
    assert_int_equal(w[i].code, AIR_STATUS_ABORTED);
    assert_string_equal(w[i].message, "kernel k failed");
  }
  air_status_t f = NULL;
  assert_int_equal(air_semaphore_query(s, &f), UINT64_MAX);
  assert_int_equal(air_status_code(f), AIR_STATUS_ABORTED);
  air_status_free(f);
  air_status_t st = air_semaphore_signal(s, 11);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  air_status_free(st);
  air_semaphore_release(s);
}

typedef struct {
  int calls;
  air_status_code_t code;
} cb_state_t;

static void on_timepoint(void* user, air_status_t failure) {
  cb_state_t* c = user;
  c->calls++;
  c->code = air_status_code(failure);
}

static void test_timepoint_callbacks(void** state) {
  (void)state;
  air_semaphore_t* s = make(1);
  cb_state_t c[4];
  memset(c, 0, sizeof c);
  air_timepoint_t tp[4] = {{NULL, 1, on_timepoint, &c[0]},
                           {NULL, 2, on_timepoint, &c[1]},
                           {NULL, 3, on_timepoint, &c[2]},
                           {NULL, 9, on_timepoint, &c[3]}};
  for (int i = 0; i < 4; ++i) air_semaphore_notify(s, &tp[i]);
  assert_int_equal(c[0].calls, 1); /* already reached: inline */
  assert_int_equal(c[1].calls, 0);
  assert_null(air_semaphore_signal(s, 2));
  assert_int_equal(c[1].calls, 1);
  assert_int_equal(c[2].calls, 0);
  assert_null(air_semaphore_signal(s, 5));
  assert_int_equal(c[2].calls, 1);
  assert_int_equal(c[2].code, AIR_STATUS_OK);
  assert_int_equal(c[3].calls, 0);
  air_semaphore_fail(s, air_status_make(NULL, AIR_STATUS_INTERNAL, __FILE__, __LINE__, "x"));
  assert_int_equal(c[3].calls, 1);
  assert_int_equal(c[3].code, AIR_STATUS_INTERNAL);
  air_semaphore_release(s);
}

/* Registration out of value order still resolves each timepoint exactly when its
 * value is reached (the pending list is kept sorted). */
static void test_timepoints_out_of_order(void** state) {
  (void)state;
  air_semaphore_t* s = make(0);
  enum { N = 6 };
  const uint64_t values[N] = {5, 2, 9, 3, 9, 1};
  cb_state_t c[N];
  air_timepoint_t tp[N];
  memset(c, 0, sizeof c);
  for (int i = 0; i < N; ++i) {
    tp[i] = (air_timepoint_t){NULL, values[i], on_timepoint, &c[i]};
    air_semaphore_notify(s, &tp[i]);
  }
  for (uint64_t v = 1; v <= 10; ++v) {
    assert_null(air_semaphore_signal(s, v));
    for (int i = 0; i < N; ++i) assert_int_equal(c[i].calls, values[i] <= v ? 1 : 0);
  }
  air_semaphore_release(s);
}

static void test_release_cancels_pending(void** state) {
  (void)state;
  air_semaphore_t* s = make(0);
  cb_state_t c = {0, AIR_STATUS_OK};
  air_timepoint_t tp = {NULL, 5, on_timepoint, &c};
  air_semaphore_notify(s, &tp);
  air_semaphore_release(s);
  assert_int_equal(c.calls, 1);
  assert_int_equal(c.code, AIR_STATUS_CANCELLED);
}

typedef struct {
  air_semaphore_t* ping;
  air_semaphore_t* pong;
  int rounds;
} pingpong_t;

static void* pong_main(void* arg) {
  pingpong_t* p = arg;
  for (int i = 1; i <= p->rounds; ++i) {
    air_status_t st = air_semaphore_wait(p->ping, (uint64_t)i, -1);
    if (st) {
      air_status_free(st);
      return NULL;
    }
    air_status_free(air_semaphore_signal(p->pong, (uint64_t)i));
  }
  return NULL;
}

static void test_ping_pong(void** state) {
  (void)state;
  pingpong_t p = {make(0), make(0), 2000};
  air_semaphore_set_spin(p.ping, 64); /* mix spinning and sleeping */
  air_semaphore_set_spin(p.pong, 64);
  pthread_t t;
  test_threads_start(&t, 1, pong_main, &p, sizeof p);
  for (int i = 1; i <= p.rounds; ++i) {
    assert_null(air_semaphore_signal(p.ping, (uint64_t)i));
    assert_null(air_semaphore_wait(p.pong, (uint64_t)i, 5LL * 1000 * 1000 * 1000));
  }
  test_threads_join(&t, 1);
  assert_int_equal(air_semaphore_query(p.pong, NULL), (uint64_t)p.rounds);
  air_semaphore_release(p.ping);
  air_semaphore_release(p.pong);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_signal_and_query),
      cmocka_unit_test(test_wait_timeout),
      cmocka_unit_test(test_cross_thread_signal),
      cmocka_unit_test(test_failure_reaches_every_waiter),
      cmocka_unit_test(test_timepoint_callbacks),
      cmocka_unit_test(test_timepoints_out_of_order),
      cmocka_unit_test(test_release_cancels_pending),
      cmocka_unit_test(test_ping_pong),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

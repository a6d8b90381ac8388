/* The HAL object layer on the cpu device, ordering and concurrency: waits
 * before signals, several waits, fan-out and fan-in, failure propagated from a
 * failed wait, semaphores destroyed or released early, releasing a device with
 * work in flight, concurrent submissions from several threads. Each test checks
 * that nothing leaks (tests/hal_device_test.h). */
#include "hal_device_test.h"

/*--- ordering, waiting, failure -------------------------------------------*/

static void test_wait_before_signal(void** state) {
  fx_t* f = *state;
  air_buffer_t* b = buffer(f, 16);
  air_command_buffer_t* cb = new_cb(f);
  uint8_t v = 7;
  assert_null(air_command_buffer_fill(cb, b, 0, 16, &v, 1));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* in = sem(f, 0);
  air_semaphore_t* out = sem(f, 0);
  submit(f, in, 5, cb, out, 1);
  /* A second submission waits on the first through `out`. */
  uint8_t w = 9;
  air_command_buffer_t* cb2 = new_cb(f);
  assert_null(air_command_buffer_fill(cb2, b, 8, 8, &w, 1));
  assert_null(air_command_buffer_end(cb2));
  submit(f, out, 1, cb2, out, 2);
  air_command_buffer_release(cb2); /* the submission keeps it alive */

  test_expect_status(air_semaphore_wait(out, 1, 0), AIR_STATUS_DEADLINE_EXCEEDED, NULL);
  test_expect_status(air_semaphore_wait(out, 1, 20 * 1000 * 1000), AIR_STATUS_DEADLINE_EXCEEDED, NULL);
  uint8_t* p = map(b);
  assert_int_equal(p[0], 0); /* nothing ran */
  assert_null(air_semaphore_signal(in, 4));
  test_expect_status(air_semaphore_wait(out, 1, 5 * 1000 * 1000), AIR_STATUS_DEADLINE_EXCEEDED, NULL);
  assert_null(air_semaphore_signal(in, 5));
  assert_null(air_semaphore_wait(out, 2, -1));
  for (int i = 0; i < 16; ++i) assert_int_equal(p[i], i < 8 ? 7 : 9);
  air_semaphore_release(in);
  air_semaphore_release(out);
  air_command_buffer_release(cb);
  air_buffer_release(b);
}

/* Several waits on one submission: it starts only when the last is reached. */
static void test_multiple_waits(void** state) {
  fx_t* f = *state;
  air_semaphore_t* s[3] = {sem(f, 0), sem(f, 0), sem(f, 10)};
  uint64_t v[3] = {1, 2, 10};
  air_semaphore_t* done = sem(f, 0);
  uint64_t dv = 1;
  air_timepoint_list_t w = {3, s, v}, sg = {1, &done, &dv};
  assert_null(air_device_queue_execute(f->dev, 0, &w, NULL, &sg));
  assert_null(air_semaphore_signal(s[1], 2));
  test_expect_status(air_semaphore_wait(done, 1, 2 * 1000 * 1000), AIR_STATUS_DEADLINE_EXCEEDED, NULL);
  assert_null(air_semaphore_signal(s[0], 1));
  assert_null(air_semaphore_wait(done, 1, -1));
  for (int i = 0; i < 3; ++i) air_semaphore_release(s[i]);
  air_semaphore_release(done);
}

/* One signal releases many submissions at once (fan-out); one barrier waits for
 * all of them (fan-in). */
static void test_fan_out_fan_in(void** state) {
  fx_t* f = *state;
  enum { K = 64 };
  air_buffer_t* b = buffer(f, K);
  air_semaphore_t* go = sem(f, 0);
  air_semaphore_t* each[K];
  uint64_t ones[K];
  for (int i = 0; i < K; ++i) {
    each[i] = sem(f, 0);
    ones[i] = 1;
    air_command_buffer_t* cb = new_cb(f);
    uint8_t v = (uint8_t)(100 + i);
    assert_null(air_command_buffer_fill(cb, b, (uint64_t)i, 1, &v, 1));
    assert_null(air_command_buffer_end(cb));
    submit(f, go, 1, cb, each[i], 1);
    air_command_buffer_release(cb);
  }
  air_semaphore_t* done = sem(f, 0);
  uint64_t dv = 1;
  air_timepoint_list_t all = {K, each, ones}, sg = {1, &done, &dv};
  assert_null(air_device_queue_execute(f->dev, 0, &all, NULL, &sg));
  test_expect_status(air_semaphore_wait(done, 1, 1000 * 1000), AIR_STATUS_DEADLINE_EXCEEDED, NULL);
  assert_null(air_semaphore_signal(go, 1));
  assert_null(air_semaphore_wait(done, 1, -1));
  uint8_t* p = map(b);
  for (int i = 0; i < K; ++i) assert_int_equal(p[i], 100 + i);
  for (int i = 0; i < K; ++i) air_semaphore_release(each[i]);
  air_semaphore_release(go);
  air_semaphore_release(done);
  air_buffer_release(b);
}

/* A failed wait fails the submission's signals without running its work, and
 * the failure travels to a second submission that waits on the first. */
static void test_failure_chain_from_wait(void** state) {
  fx_t* f = *state;
  air_buffer_t* x = buffer(f, 32);
  air_command_buffer_t* cb = new_cb(f);
  uint8_t v = 1;
  assert_null(air_command_buffer_fill(cb, x, 0, 32, &v, 1));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t *s0 = sem(f, 0), *s1 = sem(f, 0), *s2 = sem(f, 0), *s3 = sem(f, 0);
  submit(f, s0, 1, cb, s1, 1);
  submit(f, s1, 1, cb, s2, 1);
  submit(f, s2, 1, NULL, s3, 7);
  air_semaphore_fail(s0, air_status_make(NULL, AIR_STATUS_ABORTED, __FILE__, __LINE__,
                                         "upstream producer died (code 42)"));
  test_expect_status(air_semaphore_wait(s3, 7, -1), AIR_STATUS_ABORTED, "upstream producer died (code 42)");
  test_expect_status(air_semaphore_wait(s1, 1, -1), AIR_STATUS_ABORTED, "code 42");
  assert_int_equal(air_semaphore_query(s2, NULL), UINT64_MAX);
  uint8_t* p = map(x);
  for (int i = 0; i < 32; ++i) assert_int_equal(p[i], 0); /* never ran */

  /* Submitting on an already failed timepoint fails at once, the same way. */
  air_semaphore_t* s4 = sem(f, 0);
  submit(f, s1, 1, cb, s4, 1);
  test_expect_status(air_semaphore_wait(s4, 1, -1), AIR_STATUS_ABORTED, "code 42");

  /* The device is still usable. */
  air_semaphore_t* ok = sem(f, 0);
  submit(f, NULL, 0, cb, ok, 1);
  assert_null(air_semaphore_wait(ok, 1, -1));
  assert_int_equal(p[31], 1);
  air_semaphore_t* all[] = {s0, s1, s2, s3, s4, ok};
  for (size_t i = 0; i < 6; ++i) air_semaphore_release(all[i]);
  air_command_buffer_release(cb);
  air_buffer_release(x);
}

/* A wait semaphore destroyed while a submission waits on it cancels that
 * submission (the semaphore is not kept alive by waiters). */
static void test_wait_semaphore_destroyed(void** state) {
  fx_t* f = *state;
  air_semaphore_t* w = sem(f, 0);
  air_semaphore_t* out = sem(f, 0);
  submit(f, w, 1, NULL, out, 1);
  air_semaphore_release(w);
  test_expect_status(air_semaphore_wait(out, 1, -1), AIR_STATUS_CANCELLED, "destroyed");
  air_semaphore_release(out);
}

static void test_signal_semaphore_released_early(void** state) {
  fx_t* f = *state;
  air_semaphore_t* w = sem(f, 0);
  air_semaphore_t* out = sem(f, 0);
  air_semaphore_t* watch = sem(f, 0);
  submit(f, w, 1, NULL, out, 1);
  submit(f, out, 1, NULL, watch, 1);
  air_semaphore_release(out); /* the first submission still holds it */
  assert_null(air_semaphore_signal(w, 1));
  assert_null(air_semaphore_wait(watch, 1, -1));
  air_semaphore_release(w);
  air_semaphore_release(watch);
}

/*--- draining and concurrency ----------------------------------------------*/

typedef struct signaller_t {
  air_semaphore_t* s;
  uint64_t value;
  int delay_ms;
} signaller_t;

static void* signaller_main(void* arg) {
  signaller_t* g = arg;
  test_sleep_us(1000 * (int64_t)g->delay_ms);
  air_status_free(air_semaphore_signal(g->s, g->value));
  return NULL;
}

/* Releasing the device with work in flight waits for that work. */
static void test_release_drains(void** state) {
  fx_t* f = *state;
  air_device_t* d = NULL;
  assert_null(air_device_open(f->ctx, "cpu:threads=1", &d));
  uint8_t host[4096];
  memset(host, 0, sizeof host);
  air_buffer_t* b = NULL;
  assert_null(air_buffer_import(d, host, sizeof host, 0, &b));
  air_command_buffer_t* cb = NULL;
  assert_null(air_command_buffer_create(d, 0, &cb));
  uint8_t v = 0x5a;
  assert_null(air_command_buffer_fill(cb, b, 0, sizeof host, &v, 1));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* in = sem(f, 0);
  air_semaphore_t* out = sem(f, 0);
  uint64_t one = 1;
  air_timepoint_list_t w = {1, &in, &one}, s = {1, &out, &one};
  assert_null(air_device_queue_execute(d, 0, &w, cb, &s));
  air_command_buffer_release(cb);
  air_buffer_release(b);
  signaller_t g = {in, 1, 30};
  pthread_t t;
  test_threads_start(&t, 1, signaller_main, &g, sizeof g);
  air_device_release(d); /* blocks until the fill ran and `out` is signalled */
  assert_int_equal(air_semaphore_query(out, NULL), 1);
  assert_int_equal(host[0], 0x5a);
  assert_int_equal(host[sizeof host - 1], 0x5a);
  test_threads_join(&t, 1);
  air_semaphore_release(in);
  air_semaphore_release(out);
}

typedef struct worker_arg_t {
  fx_t* f;
  air_buffer_t* buf;
  air_command_buffer_t* shared; /* submitted by both threads; empty so they cannot race */
  int id;
  int rounds;
  int failures;
} worker_arg_t;

/* A chain of submissions on one thread's semaphore: a fresh command buffer that
 * sets this round's byte, then alternately this thread's reused command buffer
 * (fill + barrier + copy in its own region), the shared one, or a barrier. */
static void* submitter_main(void* arg) {
  worker_arg_t* w = arg;
  air_semaphore_t* s = NULL;
  air_command_buffer_t* mine = NULL;
  uint64_t base = (uint64_t)w->id * 4096, v = 0;
  uint32_t pat = 0x01020304u * (uint32_t)(w->id + 1);
  air_status_t st = air_semaphore_create(w->f->ctx, 0, &s);
  if (!st) st = air_command_buffer_create(w->f->dev, 0, &mine);
  if (!st) st = air_command_buffer_fill(mine, w->buf, base + 1024, 1024, &pat, 4);
  if (!st) st = air_command_buffer_barrier(mine);
  if (!st) st = air_command_buffer_copy(mine, w->buf, base + 1024, w->buf, base + 2048, 1024);
  if (!st) st = air_command_buffer_end(mine);
  for (int i = 0; i < w->rounds && !st; ++i) {
    air_command_buffer_t* cb = NULL;
    uint8_t val = (uint8_t)(i + 1);
    st = air_command_buffer_create(w->f->dev, 0, &cb);
    if (!st) st = air_command_buffer_fill(cb, w->buf, base + (uint64_t)i, 1, &val, 1);
    if (!st) st = air_command_buffer_end(cb);
    uint64_t wv = v, sv = v + 1;
    air_timepoint_list_t wl = {1, &s, &wv}, sl = {1, &s, &sv};
    if (!st) st = air_device_queue_execute(w->f->dev, 0, &wl, cb, &sl);
    air_command_buffer_release(cb); /* in flight: the submission holds it */
    air_command_buffer_t* next = i % 3 == 0 ? mine : i % 3 == 1 ? w->shared : NULL;
    wv = sv++;
    if (!st) st = air_device_queue_execute(w->f->dev, 0, &wl, next, &sl);
    v += 2;
  }
  if (!st) st = air_semaphore_wait(s, v, -1);
  if (st) {
    print_error("thread %d: %s\n", w->id, air_status_message(st));
    air_status_free(st);
    w->failures++;
  }
  air_command_buffer_release(mine);
  air_semaphore_release(s);
  return NULL;
}

static void test_concurrent_submissions(void** state) {
  fx_t* f = *state;
  enum { THREADS = 2, ROUNDS = 300 };
  air_buffer_t* buf = buffer(f, THREADS * 4096);
  air_command_buffer_t* shared = new_cb(f);
  assert_null(air_command_buffer_end(shared));
  worker_arg_t w[THREADS];
  for (int i = 0; i < THREADS; ++i) w[i] = (worker_arg_t){f, buf, shared, i, ROUNDS, 0};
  test_threads_run(THREADS, submitter_main, w, sizeof w[0]);
  uint8_t* p = map(buf);
  for (int i = 0; i < THREADS; ++i) {
    assert_int_equal(w[i].failures, 0);
    for (int r = 0; r < ROUNDS; ++r) assert_int_equal(p[i * 4096 + r], (uint8_t)(r + 1));
    uint32_t pat = 0x01020304u * (uint32_t)(i + 1), got;
    memcpy(&got, p + i * 4096 + 2048 + 1020, 4);
    assert_int_equal(got, pat);
  }
  air_command_buffer_release(shared);
  air_buffer_release(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_wait_before_signal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_multiple_waits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fan_out_fan_in, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_chain_from_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wait_semaphore_destroyed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_signal_semaphore_released_early, setup, teardown),
      cmocka_unit_test_setup_teardown(test_release_drains, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_submissions, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

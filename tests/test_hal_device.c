/* The HAL object layer on the cpu device: URIs, buffers, executables, command
 * buffers, queue submissions, failure propagation, draining, concurrency. Every
 * test runs on a context whose allocator counts live blocks, and checks that
 * nothing is left once everything is released. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include <cmocka.h>

#include "air/buffer.h"
#include "air/command_buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air/kernel.h"
#include "air/program.h"
#include "air/semaphore.h"
#include "air/trace.h"
#include "air/types.h"
#include "support/alloc.h"
#include "support/status.h"
#include "support/threads.h"

/*--- fixtures --------------------------------------------------------------*/

/* The context's allocator counts live blocks and can be made to fail. */
typedef struct fx_t {
  test_budget_t count;
  air_context_t* ctx;
  air_device_t* dev;
} fx_t;

static int setup(void** state) {
  fx_t* f = calloc(1, sizeof(*f));
  test_budget_init(&f->count, -1);
  if (air_context_create(NULL, &f->count.allocator, &f->ctx)) return -1;
  if (air_device_open(f->ctx, "cpu:threads=2", &f->dev)) return -1;
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fx_t* f = *state;
  air_device_release(f->dev);
  air_context_destroy(f->ctx);
  long live = test_budget_live(&f->count);
  free(f);
  return live == 0 ? 0 : -1; /* a leak fails the test */
}

static air_semaphore_t* sem(fx_t* f, uint64_t v) {
  air_semaphore_t* s = NULL;
  assert_null(air_semaphore_create(f->ctx, v, &s));
  return s;
}

/* Submits wait (ws@wv, if ws) -> cb -> signal (ss@sv, if ss). */
static void submit(fx_t* f, air_semaphore_t* ws, uint64_t wv, air_command_buffer_t* cb,
                   air_semaphore_t* ss, uint64_t sv) {
  air_timepoint_list_t w = {ws ? 1 : 0, &ws, &wv};
  air_timepoint_list_t s = {ss ? 1 : 0, &ss, &sv};
  assert_null(air_device_queue_execute(f->dev, 0, &w, cb, &s));
}

static air_buffer_t* buffer(fx_t* f, uint64_t size) {
  air_buffer_t* b = NULL;
  assert_null(air_buffer_allocate(f->dev, size, 0, &b));
  return b;
}

static uint8_t* map(air_buffer_t* b) {
  void* p = NULL;
  assert_null(air_buffer_map(b, 0, air_buffer_size(b), AIR_MAP_READ | AIR_MAP_WRITE, &p));
  return p;
}

static air_command_buffer_t* new_cb(fx_t* f) {
  air_command_buffer_t* cb = NULL;
  assert_null(air_command_buffer_create(f->dev, 0, &cb));
  return cb;
}

/*--- devices ---------------------------------------------------------------*/

/* The driver list (what `air-run --help` shows) agrees with what opening says: a
 * driver listed as not built answers "not built"; a built one never does. */
static void test_driver_list(void** state) {
  fx_t* f = *state;
  uint32_t n = air_device_driver_count();
  assert_true(n >= 3);
  int have_cpu = 0;
  for (uint32_t i = 0; i < n; ++i) {
    air_driver_info_t info;
    assert_null(air_device_driver_info(i, &info));
    assert_non_null(info.name);
    assert_non_null(strstr(info.forms, info.name));
    if (!strcmp(info.name, "cpu")) {
      have_cpu = 1;
      assert_int_equal(info.built, 1);
      assert_non_null(strstr(info.forms, "cpu:threads=N"));
    }
    air_device_t* d = NULL;
    air_status_t s = air_device_open(f->ctx, info.name, &d);
    int says_unbuilt = s && strstr(air_status_message(s), "not built") != NULL;
    assert_int_equal(says_unbuilt, !info.built);
    air_status_free(s);
    air_device_release(d);
  }
  assert_true(have_cpu);
  air_driver_info_t info;
  test_expect_status(air_device_driver_info(n, &info), AIR_STATUS_INVALID_ARGUMENT, "out of range");
  test_expect_status(air_device_driver_info(0, NULL), AIR_STATUS_INVALID_ARGUMENT, "NULL");
}

static void test_uri(void** state) {
  fx_t* f = *state;
  air_device_info_t info;
  assert_null(air_device_query(f->dev, &info));
  assert_string_equal(info.driver, "cpu");
  assert_int_equal(info.workers, 2);
  assert_int_equal(info.queue_count, 1);
  assert_non_null(strstr(info.name, "2 threads"));

  const char* good[] = {"cpu", "cpu:threads=1", "cpu:threads=3", NULL};
  const uint32_t workers[] = {0, 1, 3, 0};
  for (int i = 0; i < 4; ++i) {
    air_device_t* d = NULL;
    assert_null(air_device_open(f->ctx, good[i], &d));
    assert_null(air_device_query(d, &info));
    if (workers[i]) assert_int_equal(info.workers, workers[i]);
    assert_true(info.workers >= 1);
    air_device_retain(d);
    air_device_release(d);
    air_device_release(d);
  }

  const char* bad[] = {"",          "cpu:",          "cpu:threads=0", "cpu:threads=1025",
                       "cpu:threads=x", "cpu:threads=2x", "cpu:thread=2", "cpu:threads=-1",
                       "cpu:threads=99999999999", ":0", "hsa:x", "xrt:0x", "hsa:"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    air_device_t* d = (air_device_t*)1;
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    test_expect_status(air_device_open(f->ctx, bad[i], &d), AIR_STATUS_INVALID_ARGUMENT, quoted);
    assert_null(d);
  }
  air_device_t* d = NULL;
  test_expect_status(air_device_open(f->ctx, "gpu:0", &d), AIR_STATUS_INVALID_ARGUMENT,
         "unknown device driver 'gpu' in URI 'gpu:0'");
  /* Without /dev/kfd (no amdgpu driver, no GPU) the hsa driver says so. */
  if (access("/dev/kfd", F_OK) != 0) {
    test_expect_status(air_device_open(f->ctx, "hsa:0", &d), AIR_STATUS_UNAVAILABLE,
                       "no AMD GPU available through HSA");
    test_expect_status(air_device_open(f->ctx, "hsa", &d), AIR_STATUS_UNAVAILABLE, "'hsa'");
  }
  /* The NPU driver is built in: on a machine without an NPU it says so. */
  test_expect_status(air_device_open(f->ctx, "xrt:1", &d), AIR_STATUS_UNAVAILABLE, "NPU");
  assert_null(d);
  test_expect_status(air_device_open(NULL, "cpu", &d), AIR_STATUS_INVALID_ARGUMENT, NULL);
  test_expect_status(air_device_query(NULL, &info), AIR_STATUS_INVALID_ARGUMENT, NULL);
}

/*--- buffers ---------------------------------------------------------------*/

static void test_buffer_map(void** state) {
  fx_t* f = *state;
  air_buffer_t* b = buffer(f, 100);
  assert_int_equal(air_buffer_size(b), 100);
  void* p = NULL;
  assert_null(air_buffer_map(b, 0, 100, AIR_MAP_READ, &p));
  assert_int_equal((uintptr_t)p % 64, 0);
  for (int i = 0; i < 100; ++i) assert_int_equal(((uint8_t*)p)[i], 0);
  memset(p, 0xab, 100);
  air_buffer_unmap(b, p);
  void* q = NULL;
  assert_null(air_buffer_map(b, 90, 10, AIR_MAP_WRITE, &q));
  assert_ptr_equal(q, (uint8_t*)p + 90);
  assert_int_equal(*(uint8_t*)q, 0xab);
  air_buffer_unmap(b, q);
  assert_null(air_buffer_map(b, 100, 0, AIR_MAP_READ, &q)); /* empty range at the end */

  test_expect_status(air_buffer_map(b, 90, 11, AIR_MAP_READ, &q), AIR_STATUS_OUT_OF_RANGE, "100-byte");
  assert_null(q);
  test_expect_status(air_buffer_map(b, 101, 0, AIR_MAP_READ, &q), AIR_STATUS_OUT_OF_RANGE, NULL);
  test_expect_status(air_buffer_map(b, 1, UINT64_MAX, AIR_MAP_READ, &q), AIR_STATUS_OUT_OF_RANGE, NULL);
  test_expect_status(air_buffer_map(b, UINT64_MAX, 2, AIR_MAP_READ, &q), AIR_STATUS_OUT_OF_RANGE, NULL);
  test_expect_status(air_buffer_map(b, 0, 1, 0, &q), AIR_STATUS_INVALID_ARGUMENT, NULL);
  test_expect_status(air_buffer_map(b, 0, 1, 8, &q), AIR_STATUS_INVALID_ARGUMENT, NULL);
  test_expect_status(air_buffer_map(NULL, 0, 1, AIR_MAP_READ, &q), AIR_STATUS_INVALID_ARGUMENT, NULL);

  air_buffer_t* z = buffer(f, 0); /* empty buffers are legal and mappable at 0 */
  assert_null(air_buffer_map(z, 0, 0, AIR_MAP_READ, &q));
  air_buffer_release(z);

  air_buffer_t* x = NULL;
  test_expect_status(air_buffer_allocate(f->dev, 8, 1, &x), AIR_STATUS_INVALID_ARGUMENT, "flags");
  test_expect_status(air_buffer_allocate(f->dev, UINT64_MAX, 0, &x), AIR_STATUS_RESOURCE_EXHAUSTED, NULL);
  assert_null(x);
  air_buffer_retain(b);
  air_buffer_release(b);
  air_buffer_release(b);
}

static void test_buffer_import(void** state) {
  fx_t* f = *state;
  uint32_t host[64];
  for (int i = 0; i < 64; ++i) host[i] = (uint32_t)i;
  air_buffer_t* b = NULL;
  assert_null(air_buffer_import(f->dev, host, sizeof host, 0, &b));
  assert_int_equal(air_buffer_size(b), sizeof host);
  void* p = NULL;
  assert_null(air_buffer_map(b, 8, 4, AIR_MAP_READ, &p));
  assert_ptr_equal(p, &host[2]); /* no copy */

  /* Device writes land in the caller's memory. */
  air_command_buffer_t* cb = new_cb(f);
  uint32_t pat = 0xdeadbeef;
  assert_null(air_command_buffer_fill(cb, b, 16, 32, &pat, 4));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  submit(f, NULL, 0, cb, s, 1);
  assert_null(air_semaphore_wait(s, 1, -1));
  for (int i = 0; i < 64; ++i)
    assert_int_equal(host[i], i >= 4 && i < 12 ? 0xdeadbeefu : (uint32_t)i);
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(b);

  test_expect_status(air_buffer_import(f->dev, NULL, 4, 0, &b), AIR_STATUS_INVALID_ARGUMENT, NULL);
  test_expect_status(air_buffer_import(f->dev, (void*)(UINTPTR_MAX - 3), 16, 0, &b),
         AIR_STATUS_OUT_OF_RANGE, NULL);
}

/*--- transfers through submissions ----------------------------------------*/

static void test_fill_copy(void** state) {
  fx_t* f = *state;
  air_buffer_t* a = buffer(f, 64);
  air_buffer_t* b = buffer(f, 64);
  air_command_buffer_t* cb = new_cb(f);
  uint8_t p1 = 0x11;
  uint16_t p2 = 0x2233; /* bytes 33 22 on little-endian */
  uint32_t p4 = 0x44556677;
  assert_null(air_command_buffer_fill(cb, a, 0, 64, &p1, 1));
  assert_null(air_command_buffer_fill(cb, b, 3, 6, &p2, 2));  /* odd offset */
  assert_null(air_command_buffer_fill(cb, b, 20, 12, &p4, 4));
  assert_null(air_command_buffer_barrier(cb));
  assert_null(air_command_buffer_copy(cb, a, 0, b, 40, 8));
  assert_null(air_command_buffer_copy(cb, b, 20, a, 60, 4));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  submit(f, NULL, 0, cb, s, 1);
  assert_null(air_semaphore_wait(s, 1, -1));
  uint8_t* pa = map(a);
  uint8_t* pb = map(b);
  uint8_t want_b[64] = {0};
  const uint8_t b2[2] = {0x33, 0x22}, b4[4] = {0x77, 0x66, 0x55, 0x44};
  for (int i = 0; i < 6; ++i) want_b[3 + i] = b2[i % 2];
  for (int i = 0; i < 12; ++i) want_b[20 + i] = b4[i % 4];
  for (int i = 0; i < 8; ++i) want_b[40 + i] = 0x11;
  assert_memory_equal(pb, want_b, 64);
  for (int i = 0; i < 60; ++i) assert_int_equal(pa[i], 0x11);
  assert_memory_equal(pa + 60, b4, 4);

  /* The same command buffer runs again (re-submission). */
  memset(pb, 0, 64);
  submit(f, NULL, 0, cb, s, 2);
  assert_null(air_semaphore_wait(s, 2, -1));
  assert_memory_equal(pb, want_b, 64);

  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(a);
  air_buffer_release(b);
}

/* copy A->B, barrier, copy B->C: C must be A every time. Large enough that the
 * second copy would read stale bytes if the barrier were ignored. */
static void test_barrier_orders_copies(void** state) {
  fx_t* f = *state;
  enum { N = 1 << 20, ROUNDS = 8 };
  air_buffer_t* a = buffer(f, N);
  air_buffer_t* b = buffer(f, N);
  air_buffer_t* c = buffer(f, N);
  uint8_t *pa = map(a), *pb = map(b), *pc = map(c);
  air_command_buffer_t* cb = new_cb(f);
  assert_null(air_command_buffer_copy(cb, a, 0, b, 0, N));
  assert_null(air_command_buffer_barrier(cb));
  assert_null(air_command_buffer_barrier(cb)); /* repeated barriers are harmless */
  assert_null(air_command_buffer_copy(cb, b, 0, c, 0, N));
  assert_null(air_command_buffer_barrier(cb)); /* trailing too */
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  for (int r = 1; r <= ROUNDS; ++r) {
    memset(pa, r, N);
    memset(pb, 0, N);
    memset(pc, 0, N);
    submit(f, NULL, 0, cb, s, (uint64_t)r);
    assert_null(air_semaphore_wait(s, (uint64_t)r, -1));
    assert_int_equal(pc[0], r);
    assert_int_equal(pc[N / 2], r);
    assert_int_equal(pc[N - 1], r);
    assert_memory_equal(pc, pa, N);
  }
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(a);
  air_buffer_release(b);
  air_buffer_release(c);
}

/* Many transfers in one wave fan out to the pool (task nodes reused per wave). */
static void test_wide_waves(void** state) {
  fx_t* f = *state;
  enum { K = 64 };
  air_buffer_t* src = buffer(f, K * 256);
  air_buffer_t* dst = buffer(f, K * 256);
  air_command_buffer_t* cb = new_cb(f);
  for (int w = 0; w < 3; ++w) {
    for (uint32_t i = 0; i < K; ++i) {
      uint8_t v = (uint8_t)(i + w);
      assert_null(air_command_buffer_fill(cb, src, i * 256, 256, &v, 1));
    }
    assert_null(air_command_buffer_barrier(cb));
    for (uint32_t i = 0; i < K; ++i)
      assert_null(air_command_buffer_copy(cb, src, i * 256, dst, (K - 1 - i) * 256, 256));
    assert_null(air_command_buffer_barrier(cb));
  }
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  submit(f, NULL, 0, cb, s, 1);
  assert_null(air_semaphore_wait(s, 1, -1));
  uint8_t* pd = map(dst);
  for (uint32_t i = 0; i < K; ++i) {
    assert_int_equal(pd[(K - 1 - i) * 256], (uint8_t)(i + 2));
    assert_int_equal(pd[(K - 1 - i) * 256 + 255], (uint8_t)(i + 2));
  }
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(src);
  air_buffer_release(dst);
}

/*--- recording checks ------------------------------------------------------*/

static void test_recording_validation(void** state) {
  fx_t* f = *state;
  air_buffer_t* b = buffer(f, 64);
  air_command_buffer_t* cb = new_cb(f);
  uint32_t pat = 0;
  test_expect_status(air_command_buffer_fill(cb, b, 0, 6, &pat, 3), AIR_STATUS_INVALID_ARGUMENT, "1, 2 or 4");
  test_expect_status(air_command_buffer_fill(cb, b, 0, 6, &pat, 4), AIR_STATUS_INVALID_ARGUMENT, "multiple");
  test_expect_status(air_command_buffer_fill(cb, b, 0, 8, NULL, 4), AIR_STATUS_INVALID_ARGUMENT, NULL);
  test_expect_status(air_command_buffer_fill(cb, NULL, 0, 8, &pat, 4), AIR_STATUS_INVALID_ARGUMENT, "NULL");
  test_expect_status(air_command_buffer_fill(cb, b, 60, 8, &pat, 4), AIR_STATUS_OUT_OF_RANGE, NULL);
  test_expect_status(air_command_buffer_fill(cb, b, UINT64_MAX - 3, 8, &pat, 4), AIR_STATUS_OUT_OF_RANGE,
         NULL);
  test_expect_status(air_command_buffer_copy(cb, b, 0, b, 1, 64), AIR_STATUS_OUT_OF_RANGE, "target");
  test_expect_status(air_command_buffer_copy(cb, b, 1, b, 0, 64), AIR_STATUS_OUT_OF_RANGE, "source");
  test_expect_status(air_command_buffer_copy(cb, b, 8, b, 0, UINT64_MAX - 4), AIR_STATUS_OUT_OF_RANGE, NULL);
  test_expect_status(air_command_buffer_copy(cb, NULL, 0, b, 0, 4), AIR_STATUS_INVALID_ARGUMENT, NULL);

  /* A buffer of another device is refused. */
  air_device_t* other = NULL;
  assert_null(air_device_open(f->ctx, "cpu:threads=1", &other));
  air_buffer_t* ob = NULL;
  assert_null(air_buffer_allocate(other, 64, 0, &ob));
  test_expect_status(air_command_buffer_copy(cb, ob, 0, b, 0, 4), AIR_STATUS_INVALID_ARGUMENT,
         "another device");
  air_command_buffer_t* ocb = NULL;
  assert_null(air_command_buffer_create(other, 0, &ocb));
  assert_null(air_command_buffer_end(ocb));
  test_expect_status(air_device_queue_execute(f->dev, 0, NULL, ocb, NULL), AIR_STATUS_INVALID_ARGUMENT,
         "another device");
  air_command_buffer_release(ocb);
  air_buffer_release(ob);
  air_device_release(other);

  /* Not ended yet: cannot be submitted. */
  test_expect_status(air_device_queue_execute(f->dev, 0, NULL, cb, NULL), AIR_STATUS_FAILED_PRECONDITION,
         "air_command_buffer_end");
  assert_null(air_command_buffer_end(cb));
  test_expect_status(air_command_buffer_barrier(cb), AIR_STATUS_FAILED_PRECONDITION, "ended");
  test_expect_status(air_command_buffer_fill(cb, b, 0, 4, &pat, 4), AIR_STATUS_FAILED_PRECONDITION, NULL);
  test_expect_status(air_command_buffer_end(cb), AIR_STATUS_FAILED_PRECONDITION, NULL);

  /* Submission arguments. */
  air_semaphore_t* s = sem(f, 0);
  air_semaphore_t* none = NULL;
  uint64_t v = 1;
  air_timepoint_list_t bad_list = {1, &none, &v};
  air_timepoint_list_t null_arrays = {1, NULL, NULL};
  test_expect_status(air_device_queue_execute(f->dev, 1, NULL, cb, NULL), AIR_STATUS_INVALID_ARGUMENT,
         "queue 1");
  test_expect_status(air_device_queue_execute(f->dev, 0, &bad_list, cb, NULL), AIR_STATUS_INVALID_ARGUMENT,
         "wait semaphore 0 is NULL");
  test_expect_status(air_device_queue_execute(f->dev, 0, NULL, cb, &null_arrays),
         AIR_STATUS_INVALID_ARGUMENT, "signal");
  test_expect_status(air_device_queue_execute(NULL, 0, NULL, cb, NULL), AIR_STATUS_INVALID_ARGUMENT, NULL);
  air_command_buffer_t* x = NULL;
  test_expect_status(air_command_buffer_create(f->dev, 4, &x), AIR_STATUS_INVALID_ARGUMENT, "flags");
  assert_null(x);

  /* An empty command buffer and a NULL one (a barrier) both just signal. */
  air_command_buffer_t* empty = new_cb(f);
  assert_null(air_command_buffer_end(empty));
  submit(f, NULL, 0, empty, s, 1);
  submit(f, s, 1, NULL, s, 2);
  assert_null(air_semaphore_wait(s, 2, -1));
  air_command_buffer_release(empty);
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(b);
}

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

/* Out of memory on every allocation in turn: every call fails cleanly and
 * nothing leaks (teardown checks the count). */
static void test_out_of_memory(void** state) {
  fx_t* f = *state;
  air_semaphore_t* s = sem(f, 0);
  for (long budget = 0; budget < 12; ++budget) {
    test_budget_set(&f->count, budget);
    air_buffer_t* b = NULL;
    air_command_buffer_t* cb = NULL;
    air_status_t st = air_buffer_allocate(f->dev, 256, 0, &b);
    uint8_t v = 3;
    if (!st) st = air_command_buffer_create(f->dev, 0, &cb);
    if (!st) st = air_command_buffer_fill(cb, b, 0, 256, &v, 1);
    if (!st) st = air_command_buffer_end(cb);
    uint64_t sv = (uint64_t)budget + 1;
    air_timepoint_list_t sl = {1, &s, &sv};
    if (!st) st = air_device_queue_execute(f->dev, 0, NULL, cb, &sl);
    test_budget_set(&f->count, -1);
    if (st) {
      assert_int_equal(air_status_code(st), AIR_STATUS_RESOURCE_EXHAUSTED);
      air_status_free(st);
      assert_null(air_semaphore_signal(s, sv));
    } else {
      assert_null(air_semaphore_wait(s, sv, -1));
      assert_int_equal(map(b)[255], 3);
    }
    air_command_buffer_release(cb);
    air_buffer_release(b);
  }
  air_semaphore_release(s);
}

/*--- executables and dispatch ----------------------------------------------*/

static const char k_two_entries[] =
    "func.func @first(%arg0: memref<4x?xf32>, %arg1: index, %arg2: f32) {\n"
    "  return\n"
    "}\n"
    "func.func private @decl(memref<8xi32>)\n"
    "func.func @second(%arg0: memref<2x3x4xi16>) {\n"
    "  return\n"
    "}\n";

static air_program_t* parse(fx_t* f, const char* text) {
  air_program_t* p = NULL;
  air_status_t st = air_program_parse(f->ctx, text, strlen(text), NULL, &p);
  if (st) print_error("%s\n", air_status_message(st));
  assert_null(st);
  return p;
}

static air_program_t* parse_file(fx_t* f, const char* path) {
  air_program_t* p = NULL;
  air_status_t st = air_program_parse_file(f->ctx, path, NULL, &p);
  if (st) print_error("%s\n", air_status_message(st));
  assert_null(st);
  return p;
}

static void test_executable(void** state) {
  fx_t* f = *state;
  air_program_t* p = parse(f, k_two_entries);
  air_executable_t* e = NULL;
  assert_null(air_executable_create(f->dev, p, 0, &e));
  uint32_t ord = 99;
  test_expect_status(air_executable_lookup(e, NULL, &ord), AIR_STATUS_INVALID_ARGUMENT, "2 entry functions");
  assert_null(air_executable_lookup(e, "second", &ord));
  assert_int_equal(ord, 1);
  test_expect_status(air_executable_lookup(e, "decl", &ord), AIR_STATUS_NOT_FOUND, "@decl");
  assert_null(air_executable_lookup(e, "first", &ord));
  assert_int_equal(ord, 0);

  air_arg_t args[4];
  uint32_t n = 0;
  assert_null(air_executable_signature(e, 0, 0, NULL, &n)); /* count only */
  assert_int_equal(n, 3);
  assert_null(air_executable_signature(e, 0, 4, args, &n));
  assert_int_equal(args[0].kind, AIR_ARG_MEMREF);
  assert_int_equal(args[0].elem, AIR_ELEMENT_F32);
  assert_int_equal(args[0].memref.rank, 2);
  assert_int_equal(args[0].memref.sizes[0], 4);
  assert_int_equal(args[0].memref.sizes[1], -1);
  assert_null(args[0].memref.data);
  assert_int_equal(args[1].kind, AIR_ARG_INT);
  assert_int_equal(args[1].elem, AIR_ELEMENT_INDEX);
  assert_int_equal(args[2].kind, AIR_ARG_FLOAT);
  assert_null(air_executable_signature(e, 1, 4, args, &n));
  assert_int_equal(n, 1);
  assert_int_equal(args[0].memref.rank, 3);
  assert_int_equal(args[0].elem, AIR_ELEMENT_I16);
  assert_int_equal(args[0].memref.sizes[2], 4);
  test_expect_status(air_executable_signature(e, 2, 4, args, &n), AIR_STATUS_OUT_OF_RANGE, NULL);

  /* Recording checks against the signature. */
  air_buffer_t* b = buffer(f, 48);
  air_command_buffer_t* cb = new_cb(f);
  air_binding_t bind[2] = {{b, 0, 0, 0}, {NULL, 0, 0, 0}};
  test_expect_status(air_command_buffer_dispatch(cb, e, 5, 1, bind, NULL), AIR_STATUS_OUT_OF_RANGE, "ordinal 5");
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 2, bind, NULL), AIR_STATUS_INVALID_ARGUMENT,
         "2 bindings for 1 parameters");
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 1, &bind[1], NULL), AIR_STATUS_INVALID_ARGUMENT,
         "no buffer");
  bind[0].offset = 2; /* 48 bytes needed at 2 in a 48-byte buffer */
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 1, bind, NULL), AIR_STATUS_OUT_OF_RANGE,
         "needs 48 bytes at offset 2");
  bind[0].offset = UINT64_MAX;
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 1, bind, NULL), AIR_STATUS_OUT_OF_RANGE, NULL);
  air_buffer_t* big = buffer(f, 64);
  air_binding_t odd = {big, 1, 0, 0};
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 1, &odd, NULL), AIR_STATUS_INVALID_ARGUMENT,
         "aligned");
  air_dispatch_options_t opts = {1, 0, NULL, NULL, NULL};
  bind[0].offset = 0;
  test_expect_status(air_command_buffer_dispatch(cb, e, 1, 1, bind, &opts), AIR_STATUS_INVALID_ARGUMENT,
         "flags");
  test_expect_status(air_command_buffer_dispatch(cb, e, 0, 3, bind, NULL), AIR_STATUS_UNIMPLEMENTED,
         "dynamic shape");
  assert_null(air_command_buffer_dispatch(cb, e, 1, 1, bind, NULL));
  air_command_buffer_release(cb);
  air_buffer_release(big);
  air_buffer_release(b);

  air_executable_retain(e);
  air_executable_release(e);
  air_executable_release(e);

  /* A program the verifier rejects (a herd outside any segment) makes no executable. */
  air_program_t* bad = parse(f,
                             "func.func @f(%arg0: memref<4xf32>) {\n"
                             "  %0 = air.wait_all async\n"
                             "  %c1 = arith.constant 1 : index\n"
                             "  air.herd tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%a=%arg0) "
                             ": memref<4xf32> {\n"
                             "    %l = memref.alloc() : memref<4xf32, 2>\n"
                             "  }\n"
                             "  return\n"
                             "}\n");
  air_executable_t* be = NULL;
  test_expect_status(air_executable_create(f->dev, bad, 0, &be), AIR_STATUS_FAILED_PRECONDITION, "[nesting]");
  assert_null(be);
  air_program_destroy(bad);
  air_program_destroy(p);
}

static air_status_t failing_kernel(void* user, const air_kernel_call_t* call) {
  (void)call;
  atomic_fetch_add((_Atomic int*)user, 1);
  return air_status_make(NULL, AIR_STATUS_DATA_LOSS, __FILE__, __LINE__,
                         "kernel boom: checksum mismatch in tile 0");
}

static bool executor_missing(air_status_t st) {
  return air_status_code(st) == AIR_STATUS_UNIMPLEMENTED &&
         strstr(air_status_message(st), "cpu executor not built yet");
}

static void test_dispatch_vector_add(void** state) {
  fx_t* f = *state;
  air_program_t* p = parse_file(f, AIR_SOURCE_DIR "/samples/vector_add.mlir");
  air_executable_t* e = NULL;
  assert_null(air_executable_create(f->dev, p, 0, &e));
  uint32_t ord = 9;
  assert_null(air_executable_lookup(e, NULL, &ord));
  assert_int_equal(ord, 0);
  air_arg_t sig[3];
  uint32_t n = 0;
  assert_null(air_executable_signature(e, 0, 3, sig, &n));
  assert_int_equal(n, 3);
  assert_int_equal(sig[2].memref.sizes[0], 4096);

  enum { N = 4096 };
  air_buffer_t* io = buffer(f, 3 * N * sizeof(float));
  float* v = (float*)map(io);
  for (int i = 0; i < N; ++i) {
    v[i] = (float)i;
    v[N + i] = 2.0f * (float)i;
    v[2 * N + i] = -1.0f;
  }
  air_binding_t bind[3] = {{io, 0, 0, 0}, {io, N * 4, 0, 0}, {io, 2 * N * 4, 0, 0}};
  air_trace_t* trace = NULL;
  assert_null(air_trace_create(f->ctx, &trace));
  air_dispatch_options_t opts = {0, 0, trace, NULL, NULL};
  air_command_buffer_t* cb = new_cb(f);
  assert_null(air_command_buffer_dispatch(cb, e, 0, 3, bind, &opts));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  submit(f, NULL, 0, cb, s, 1);
  air_status_t st = air_semaphore_wait(s, 1, 60LL * 1000 * 1000 * 1000);
  bool skip_it = executor_missing(st);
  if (!skip_it) {
    if (st) print_error("%s\n", air_status_message(st));
    assert_null(st);
    for (int i = 0; i < N; ++i) assert_true(v[2 * N + i] == 3.0f * (float)i);
    assert_true(air_trace_event_count(trace) > 0); /* the options reached the executor */
  }
  air_status_free(st);
  air_trace_destroy(trace);
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  air_buffer_release(io);
  air_executable_release(e);
  air_program_destroy(p);
  if (skip_it) skip(); /* only while the interpreter is a placeholder */
}

/* A dispatch that fails fails its submission's signals, the submission waiting on
 * those fails without running, and every waiter sees the kernel's message. */
static void test_failure_chain_from_dispatch(void** state) {
  fx_t* f = *state;
  _Atomic int calls = 0;
  assert_null(air_context_register_kernel(f->ctx, "boom", failing_kernel, (void*)&calls));
  air_program_t* p = parse(f,
                           "func.func private @boom(memref<16xf32>)\n"
                           "func.func @run(%arg0: memref<16xf32>) {\n"
                           "  air.launch () in () args(%la=%arg0) : memref<16xf32> {\n"
                           "    air.segment @s args(%sa=%la) : memref<16xf32> {\n"
                           "      %c1 = arith.constant 1 : index\n"
                           "      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) "
                           "args(%a=%sa) : memref<16xf32> {\n"
                           "        func.call @boom(%a) : (memref<16xf32>) -> ()\n"
                           "      }\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}\n");
  air_executable_t* e = NULL;
  air_status_t st = air_executable_create(f->dev, p, 0, &e);
  if (st) print_error("%s\n", air_status_message(st));
  assert_null(st);
  air_buffer_t* b = buffer(f, 64);
  air_buffer_t* marker = buffer(f, 8);
  air_binding_t bind = {b, 0, 0, 0};
  air_command_buffer_t* cb = new_cb(f);
  uint8_t one = 1;
  assert_null(air_command_buffer_dispatch(cb, e, 0, 1, &bind, NULL));
  assert_null(air_command_buffer_barrier(cb));
  assert_null(air_command_buffer_fill(cb, marker, 0, 4, &one, 1)); /* skipped */
  assert_null(air_command_buffer_end(cb));
  air_command_buffer_t* after = new_cb(f);
  assert_null(air_command_buffer_fill(after, marker, 4, 4, &one, 1));
  assert_null(air_command_buffer_end(after));

  air_semaphore_t *s1 = sem(f, 0), *s2 = sem(f, 0);
  submit(f, NULL, 0, cb, s1, 1);
  submit(f, s1, 1, after, s2, 1);
  air_status_t st1 = air_semaphore_wait(s1, 1, 60LL * 1000 * 1000 * 1000);
  air_status_t st2 = air_semaphore_wait(s2, 1, 60LL * 1000 * 1000 * 1000);
  assert_non_null(st1);
  const char* want = executor_missing(st1) ? "cpu executor not built yet"
                                           : "kernel boom: checksum mismatch in tile 0";
  assert_string_equal(air_status_message(st2), air_status_message(st1));
  assert_non_null(strstr(air_status_message(st2), want));
  if (!executor_missing(st1)) assert_int_equal(atomic_load(&calls), 1);
  air_status_free(st1);
  air_status_free(st2);
  uint8_t* m = map(marker);
  for (int i = 0; i < 8; ++i) assert_int_equal(m[i], 0);

  /* The device stays usable. */
  air_semaphore_t* ok = sem(f, 0);
  submit(f, NULL, 0, after, ok, 1);
  assert_null(air_semaphore_wait(ok, 1, -1));
  assert_int_equal(m[4], 1);

  air_semaphore_release(s1);
  air_semaphore_release(s2);
  air_semaphore_release(ok);
  air_command_buffer_release(cb);
  air_command_buffer_release(after);
  air_buffer_release(b);
  air_buffer_release(marker);
  air_executable_release(e);
  air_program_destroy(p);
}

static air_status_t slow_kernel(void* user, const air_kernel_call_t* call) {
  (void)call;
  test_sleep_us(300000);
  atomic_fetch_add((_Atomic int*)user, 1);
  return NULL;
}

/* The dispatch's watchdog reaches the executor: a kernel that overruns it fails
 * the submission with DEADLINE_EXCEEDED long before the kernel returns. */
static void test_dispatch_watchdog(void** state) {
  fx_t* f = *state;
  _Atomic int calls = 0;
  assert_null(air_context_register_kernel(f->ctx, "slow", slow_kernel, (void*)&calls));
  air_program_t* p = parse(f,
                           "func.func private @slow(memref<16xf32>)\n"
                           "func.func @run(%arg0: memref<16xf32>) {\n"
                           "  air.launch () in () args(%la=%arg0) : memref<16xf32> {\n"
                           "    air.segment @s args(%sa=%la) : memref<16xf32> {\n"
                           "      %c1 = arith.constant 1 : index\n"
                           "      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) "
                           "args(%a=%sa) : memref<16xf32> {\n"
                           "        func.call @slow(%a) : (memref<16xf32>) -> ()\n"
                           "      }\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}\n");
  air_executable_t* e = NULL;
  assert_null(air_executable_create(f->dev, p, 0, &e));
  air_buffer_t* b = buffer(f, 64);
  air_binding_t bind = {b, 0, 0, 0};
  air_dispatch_options_t opts = {0, 20 * 1000 * 1000, NULL, NULL, NULL};
  air_command_buffer_t* cb = new_cb(f);
  assert_null(air_command_buffer_dispatch(cb, e, 0, 1, &bind, &opts));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t* s = sem(f, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  submit(f, NULL, 0, cb, s, 1);
  air_status_t st = air_semaphore_wait(s, 1, 60LL * 1000 * 1000 * 1000);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  bool skip_it = executor_missing(st);
  if (!skip_it) {
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    test_expect_status(st, AIR_STATUS_DEADLINE_EXCEEDED, "watchdog");
    assert_true(ms < 250.0);
    assert_int_equal(atomic_load(&calls), 0); /* still running */
  } else {
    air_status_free(st);
  }
  air_semaphore_release(s);
  air_command_buffer_release(cb);
  /* The device still runs work while a worker is stuck in the abandoned kernel. */
  air_semaphore_t* idle = sem(f, 0);
  submit(f, NULL, 0, NULL, idle, 1);
  assert_null(air_semaphore_wait(idle, 1, -1));
  air_semaphore_release(idle);
  /* That kernel still holds the buffer; release it once the kernel is done. The
   * device release in teardown waits for the rest of the abandoned run. */
  while (!skip_it && atomic_load(&calls) == 0) test_sleep_us(10000);
  air_buffer_release(b);
  air_executable_release(e);
  air_program_destroy(p);
  if (skip_it) skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_uri, setup, teardown),
      cmocka_unit_test_setup_teardown(test_driver_list, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_map, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_import, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fill_copy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_orders_copies, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wide_waves, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recording_validation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wait_before_signal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_multiple_waits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fan_out_fan_in, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_chain_from_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wait_semaphore_destroyed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_signal_semaphore_released_early, setup, teardown),
      cmocka_unit_test_setup_teardown(test_release_drains, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_submissions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_executable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dispatch_vector_add, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_chain_from_dispatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dispatch_watchdog, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

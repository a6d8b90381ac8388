/* The HAL object layer on the cpu device: URIs and the driver list, buffers
 * (mapping, import), transfers through queue submissions (fill, copy, barriers,
 * wide waves), command buffer recording checks, and out of memory on every
 * allocation. Every test runs on a context whose allocator counts live blocks,
 * and checks that nothing is left once everything is released
 * (tests/hal_device_test.h). Ordering, failure and concurrency are in
 * test_hal_device_sync.c, executables and dispatch in
 * test_hal_device_dispatch.c. */
#include "hal_device_test.h"

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
      cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

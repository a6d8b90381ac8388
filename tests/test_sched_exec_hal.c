/* The HAL running from compiled schedules: an executable compiles a schedule per
 * entry and dispatches run from it (the dynamic path, a caller's transient buffer
 * and the transient size it reports), dispatches that run inline, and
 * executables from .airbin artifacts. Shares tests/sched_exec_test.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_exec_test.h"

/*---------------------------------------------------------------------------*/
/* The HAL                                                                   */
/*---------------------------------------------------------------------------*/

typedef struct hal_t {
  air_device_t* dev;
  air_buffer_t* in;
  air_buffer_t* out;
} hal_t;

static void hal_open(fx_t* f, hal_t* h) {
  memset(h, 0, sizeof *h);
  test_check(air_device_open(f->x.ctx, "cpu:threads=2", &h->dev));
  test_check(air_buffer_allocate(h->dev, 1024, 0, &h->in));
  test_check(air_buffer_allocate(h->dev, 1024, 0, &h->out));
  int32_t* in = NULL;
  test_check(air_buffer_map(h->in, 0, 1024, AIR_MAP_WRITE, (void**)&in));
  for (int i = 0; i < 256; ++i) in[i] = i * 3 - 100;
  air_buffer_unmap(h->in, in);
}

static void hal_close(hal_t* h) {
  air_buffer_release(h->in);
  air_buffer_release(h->out);
  air_device_release(h->dev);
}

/* Ends `cb`, submits it with one signal, waits, releases it. */
static air_status_t run_cb(fx_t* f, hal_t* h, air_command_buffer_t* cb) {
  test_check(air_command_buffer_end(cb));
  air_semaphore_t* sem = NULL;
  test_check(air_semaphore_create(f->x.ctx, 0, &sem));
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, &sem, &one};
  test_check(air_device_queue_execute(h->dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(sem, 1, 10000000000LL);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  return st;
}

/* Dispatches @transients once (with `transient` when not NULL) and checks out =
 * 2 * in + 1. Returns the recording or execution status otherwise. */
static air_status_t hal_dispatch(fx_t* f, hal_t* h, air_executable_t* e, uint32_t flags,
                                 air_buffer_t* transient, uint64_t offset) {
  air_command_buffer_t* cb = NULL;
  test_check(air_command_buffer_create(h->dev, 0, &cb));
  test_check(air_command_buffer_fill(cb, h->out, 0, 1024, "\0\0\0\0", 4));
  test_check(air_command_buffer_barrier(cb));
  air_binding_t b[2] = {{h->in, 0, 0, 0}, {h->out, 0, 0, 0}};
  air_dispatch_options_t o = {.flags = flags};
  air_status_t st = transient
                        ? air_command_buffer_dispatch_transient(cb, e, 0, 2, b, transient, offset, &o)
                        : air_command_buffer_dispatch(cb, e, 0, 2, b, &o);
  if (st) {
    air_command_buffer_release(cb);
    return st;
  }
  st = run_cb(f, h, cb);
  if (st) return st;
  int32_t *in = NULL, *out = NULL;
  test_check(air_buffer_map(h->in, 0, 1024, AIR_MAP_READ, (void**)&in));
  test_check(air_buffer_map(h->out, 0, 1024, AIR_MAP_READ, (void**)&out));
  for (int i = 0; i < 256; ++i) assert_int_equal(out[i], 2 * in[i] + 1);
  air_buffer_unmap(h->in, in);
  air_buffer_unmap(h->out, out);
  return NULL;
}

/* An executable compiles a schedule per entry and dispatches run from it by
 * default; the dynamic path, a caller's transient buffer and the summary. */
static void test_hal_schedule(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_executable_t* e = NULL;
  test_check(air_executable_create(h.dev, p, 0, &e));
  assert_string_equal(air_executable_entry_name(e, 0), "transients");
  assert_null(air_executable_entry_name(e, 1));
  uint64_t need = 0;
  uint32_t align = 0;
  test_check(air_executable_transient_size(e, 0, &need, &align));
  assert_int_equal(need, 2048);
  assert_int_equal(align, 64);
  air_schedule_info_t info;
  test_check(air_executable_schedule_info(e, 0, &info));
  assert_string_equal(info.target, "cpu");
  assert_int_equal(info.commands, 13);
  assert_int_equal(info.queues, 2);
  assert_string_equal(info.queue_kind[0], "host");
  assert_string_equal(info.queue_kind[1], "dma");
  assert_int_equal(info.queue_waves[0] + info.queue_waves[1], info.waves);
  assert_int_equal(info.transient_bytes, 2048);
  assert_true(info.compile_ns > 0);

  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  test_check(hal_dispatch(f, &h, e, AIR_DISPATCH_DYNAMIC, NULL, 0));
  air_buffer_t* arena = NULL;
  test_check(air_buffer_allocate(h.dev, 4096, 0, &arena));
  test_check(hal_dispatch(f, &h, e, 0, arena, 64));
  uint8_t* bytes = NULL;
  test_check(air_buffer_map(arena, 0, 4096, AIR_MAP_READ, (void**)&bytes));
  uint32_t used = 0;
  for (int i = 64; i < 64 + 2048; ++i) used += bytes[i] != 0;
  air_buffer_unmap(arena, bytes);
  assert_true(used > 512); /* the run's buffers lived there */

  air_status_t st = hal_dispatch(f, &h, e, 0, arena, 2112);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "has 1984 bytes");
  test_expect_in(air_status_message(st), "needs 2048 bytes aligned to 64");
  air_status_free(st);
  st = hal_dispatch(f, &h, e, 0, arena, 32);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "aligned to 32; the entry needs 2048 bytes aligned to 64");
  air_status_free(st);
  air_buffer_release(arena);
  air_executable_release(e);

  /* Without schedules: the dynamic path, no arena, no summary. */
  test_check(air_executable_create(h.dev, p, AIR_EXECUTABLE_NO_SCHEDULE, &e));
  test_check(air_executable_transient_size(e, 0, &need, &align));
  assert_int_equal(need, 0);
  st = air_executable_schedule_info(e, 0, &info);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  air_status_free(st);
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  air_executable_release(e);
  st = air_executable_create(h.dev, p, 0x80, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  air_program_destroy(p);

  /* A program whose L3 buffer has no static size is not schedulable: the
   * executable is still made (its entry runs on the dynamic path) and the schedule
   * info gives the located reason. */
  static const char dyn[] =
      "func.func @dyn(%n: index, %o: memref<4xf32>) {\n"
      "  %b = memref.alloc(%n) : memref<?xf32>\n"
      "  memref.dealloc %b : memref<?xf32>\n"
      "  return\n"
      "}\n";
  air_parse_options_t po = {.filename = "dyn.mlir"};
  test_check(air_program_parse(f->x.ctx, dyn, strlen(dyn), &po, &p));
  test_check(air_executable_create(h.dev, p, 0, &e));
  air_schedule_info_t why;
  st = air_executable_schedule_info(e, 0, &why);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st), "dynamic path");
  test_expect_in(air_status_message(st), "dyn.mlir:2:");
  air_status_free(st);
  air_executable_release(e);
  test_check(air_executable_create(h.dev, p, AIR_EXECUTABLE_NO_SCHEDULE, &e));
  air_executable_release(e);
  air_program_destroy(p);
  hal_close(&h);
}

/* Dispatches that run inline (a straight-line entry): many in one command
 * buffer, so its argument array moves while recording, each adding its index to
 * its own element; then one with an index out of range fails the submission
 * with the same located error the pool path gives. */
static void test_hal_inline_dispatches(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  static const char src[] =
      "func.func @bump(%a: memref<256xi32>, %i: index, %k: i32) {\n"
      "  %v = memref.load %a[%i] : memref<256xi32>\n"
      "  %w = arith.addi %v, %k : i32\n"
      "  memref.store %w, %a[%i] : memref<256xi32>\n"
      "  return\n"
      "}\n";
  air_parse_options_t po = {.filename = "bump.mlir"};
  air_program_t* p = NULL;
  air_executable_t* e = NULL;
  test_check(air_program_parse(f->x.ctx, src, strlen(src), &po, &p));
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    test_check(air_executable_create(h.dev, p, dynamic ? AIR_EXECUTABLE_NO_SCHEDULE : 0, &e));
    air_command_buffer_t* cb = NULL;
    test_check(air_command_buffer_create(h.dev, 0, &cb));
    test_check(air_command_buffer_fill(cb, h.out, 0, 1024, "\0\0\0\0", 4));
    test_check(air_command_buffer_barrier(cb));
    air_dispatch_options_t o = {0};
    enum { N = 200 };
    for (int i = 0; i < N; ++i) {
      air_binding_t b[3] = {{h.out, 0, 0, 0}, {NULL, 0, i, 0}, {NULL, 0, 1000 + i, 0}};
      test_check(air_command_buffer_dispatch(cb, e, 0, 3, b, &o));
      if (i % 50 == 49) test_check(air_command_buffer_barrier(cb));
    }
    test_check(run_cb(f, &h, cb));
    int32_t* out = NULL;
    test_check(air_buffer_map(h.out, 0, 1024, AIR_MAP_READ, (void**)&out));
    for (int i = 0; i < 256; ++i) assert_int_equal(out[i], i < N ? 1000 + i : 0);
    air_buffer_unmap(h.out, out);

    test_check(air_command_buffer_create(h.dev, 0, &cb));
    air_binding_t bad[3] = {{h.out, 0, 0, 0}, {NULL, 0, 300, 0}, {NULL, 0, 1, 0}};
    test_check(air_command_buffer_dispatch(cb, e, 0, 3, bad, &o));
    air_status_t st = run_cb(f, &h, cb);
    assert_non_null(st);
    test_expect_in(air_status_message(st), "bump.mlir:2:");
    test_expect_in(air_status_message(st), "memref.load");
    /* A watchdog sends the same dispatch through the pool path. */
    air_dispatch_options_t wd = {.watchdog_ns = 60000000000LL};
    test_check(air_command_buffer_create(h.dev, 0, &cb));
    test_check(air_command_buffer_dispatch(cb, e, 0, 3, bad, &wd));
    air_status_t pool_st = run_cb(f, &h, cb);
    assert_non_null(pool_st);
    assert_int_equal(air_status_code(st), air_status_code(pool_st));
    assert_string_equal(air_status_message(st), air_status_message(pool_st));
    air_status_free(pool_st);
    air_status_free(st);
    air_executable_release(e);
  }
  air_program_destroy(p);
  hal_close(&h);
}

/* Executables from .airbin images: same results, owned program, clean errors. */
static void test_hal_artifact(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "transients");
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  void* image = NULL;
  size_t size = 0;
  test_check(air_artifact_write(&heap, p, sc, &image, &size));
  air_schedule_free(sc);
  air_program_destroy(p); /* the executable owns what it loads */

  air_executable_t* e = NULL;
  test_check(air_executable_create_from_artifact(h.dev, image, size, &e));
  uint64_t need = 0;
  test_check(air_executable_transient_size(e, 0, &need, NULL));
  assert_int_equal(need, 2048);
  air_schedule_info_t info;
  test_check(air_executable_schedule_info(e, 0, &info));
  assert_int_equal(info.commands, 13);
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  test_check(hal_dispatch(f, &h, e, AIR_DISPATCH_DYNAMIC, NULL, 0));
  air_executable_release(e);

  char path[] = "/tmp/air_sched_exec_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, image, size), (ssize_t)size);
  close(fd);
  test_check(air_executable_create_from_file(h.dev, path, &e));
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  air_executable_release(e);
  remove(path);
  air_status_t st = air_executable_create_from_file(h.dev, path, &e);
  assert_non_null(st);
  assert_null(e);
  air_status_free(st);

  /* Truncated: DATA_LOSS; not an .airbin: INVALID_ARGUMENT; neither crashes. */
  st = air_executable_create_from_artifact(h.dev, image, size / 2, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
  assert_null(e);
  air_status_free(st);
  st = air_executable_create_from_artifact(h.dev, "func.func @f() { return }", 25, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  heap.free(heap.self, image);

  /* A schedule for another target does not run here. */
  p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_target_t* npu = NULL;
  test_check(air_target_lookup(&heap, "npu1", &npu));
  test_check(air_schedule_compile(&heap, p, "transients", npu, &sc));
  test_check(air_artifact_write(&heap, p, sc, &image, &size));
  st = air_executable_create_from_artifact(h.dev, image, size, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st), "for target \"npu1\"");
  air_status_free(st);
  heap.free(heap.self, image);
  air_schedule_free(sc);
  air_program_destroy(p);
  hal_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_hal_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hal_artifact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hal_inline_dispatches, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

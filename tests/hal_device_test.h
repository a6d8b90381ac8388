/* hal_device_test.h - what the tests of the HAL object layer on the cpu device
 * (test_hal_device.c, test_hal_device_sync.c, test_hal_device_dispatch.c)
 * share: the fixture (a context whose allocator counts live blocks and can be
 * made to fail, a cpu device; teardown fails the test on a leak) and shorthands
 * for semaphores, submissions, buffers, mappings and command buffers.
 * Header-only (static inline); include after <cmocka.h>. */
#ifndef AIR_TESTS_HAL_DEVICE_TEST_H_
#define AIR_TESTS_HAL_DEVICE_TEST_H_

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

static inline int setup(void** state) {
  fx_t* f = calloc(1, sizeof(*f));
  test_budget_init(&f->count, -1);
  if (air_context_create(NULL, &f->count.allocator, &f->ctx)) return -1;
  if (air_device_open(f->ctx, "cpu:threads=2", &f->dev)) return -1;
  *state = f;
  return 0;
}

static inline int teardown(void** state) {
  fx_t* f = *state;
  air_device_release(f->dev);
  air_context_destroy(f->ctx);
  long live = test_budget_live(&f->count);
  free(f);
  return live == 0 ? 0 : -1; /* a leak fails the test */
}

static inline air_semaphore_t* sem(fx_t* f, uint64_t v) {
  air_semaphore_t* s = NULL;
  assert_null(air_semaphore_create(f->ctx, v, &s));
  return s;
}

/* Submits wait (ws@wv, if ws) -> cb -> signal (ss@sv, if ss). */
static inline void submit(fx_t* f, air_semaphore_t* ws, uint64_t wv, air_command_buffer_t* cb,
                          air_semaphore_t* ss, uint64_t sv) {
  air_timepoint_list_t w = {ws ? 1 : 0, &ws, &wv};
  air_timepoint_list_t s = {ss ? 1 : 0, &ss, &sv};
  assert_null(air_device_queue_execute(f->dev, 0, &w, cb, &s));
}

static inline air_buffer_t* buffer(fx_t* f, uint64_t size) {
  air_buffer_t* b = NULL;
  assert_null(air_buffer_allocate(f->dev, size, 0, &b));
  return b;
}

static inline uint8_t* map(air_buffer_t* b) {
  void* p = NULL;
  assert_null(air_buffer_map(b, 0, air_buffer_size(b), AIR_MAP_READ | AIR_MAP_WRITE, &p));
  return p;
}

static inline air_command_buffer_t* new_cb(fx_t* f) {
  air_command_buffer_t* cb = NULL;
  assert_null(air_command_buffer_create(f->dev, 0, &cb));
  return cb;
}

#endif /* AIR_TESTS_HAL_DEVICE_TEST_H_ */

/* artifact_test.h - what the .airbin tests (test_artifact.c,
 * test_artifact_corrupt.c) share: compiling a program file for cpu (false when it
 * does not compile), writing an artifact into a heap buffer, and expecting a read
 * of some bytes to fail with a code and a phrase. Header-only (static inline),
 * like parse_test.h. */
#ifndef AIR_TESTS_ARTIFACT_TEST_H_
#define AIR_TESTS_ARTIFACT_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "runtime/base/arena.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/artifact/artifact_format.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"
#include "scheduler/schedule_bind.h"
#include "support/status.h"
#include "test_util.h"

/* Parses, verifies for cpu and compiles; false (and nothing held) when any step
 * fails, so callers can skip programs that are not meant to compile. */
static inline bool compile_path(air_context_t* ctx, const char* path, air_program_t** prog,
                                air_schedule_t** sched) {
  *prog = NULL;
  *sched = NULL;
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, "cpu", &t);
  if (!s) s = air_program_parse_file(ctx, path, NULL, prog);
  if (!s) s = air_program_verify(*prog, "cpu", 0);
  if (!s) s = air_schedule_compile(air_context_allocator(ctx), *prog, NULL, t, sched);
  if (s) {
    air_status_free(s);
    air_program_destroy(*prog);
    *prog = NULL;
    return false;
  }
  return true;
}

typedef struct bytes_t {
  uint8_t* data;
  size_t size;
} bytes_t;

static inline bytes_t write_mem(air_context_t* ctx, const air_program_t* p,
                                const air_schedule_t* s) {
  bytes_t b = {0};
  void* data = NULL;
  air_status_t st = air_artifact_write(air_context_allocator(ctx), p, s, &data, &b.size);
  if (st) fail_msg("write: %s", air_status_message(st));
  /* Copy onto the C heap so tests can mutate and free without the context. */
  b.data = malloc(b.size);
  assert_non_null(b.data);
  memcpy(b.data, data, b.size);
  air_context_allocator(ctx)->free(air_context_allocator(ctx)->self, data);
  return b;
}

static inline void expect_read(air_context_t* ctx, const void* data, size_t size,
                               air_status_code_t code, const char* needle) {
  air_program_t* p = (air_program_t*)1;
  air_schedule_t* s = (air_schedule_t*)1;
  test_expect_status(air_artifact_read(ctx, data, size, "bad.airbin", &p, &s), code, needle);
  assert_null(p);
  assert_null(s);
}

#endif /* AIR_TESTS_ARTIFACT_TEST_H_ */

/* gpu_test.h - what the GPU kernel tests (test_gpu_kernels.c, test_gpu_segments.c)
 * share: parsing a program or a file, and building a program's schedule and
 * kernels for one processor. Header-only, like test_util.h, so each test stays
 * one translation unit. Include after <cmocka.h>. */
#ifndef AIR_TESTS_GPU_TEST_H_
#define AIR_TESTS_GPU_TEST_H_

#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "codegen/cg_gpu.h"
#include "runtime/target/target.h"
#include "scheduler/compile.h"
#include "test_util.h"

/* `text` parsed as `name`; a parse error fails the test. */
static inline air_program_t* gpu_test_parse(air_context_t* ctx, const char* text,
                                            const char* name) {
  air_parse_options_t o = {0};
  o.filename = name;
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(ctx, text, strlen(text), &o, &p);
  if (s) fail_msg("%s: %s", name, air_status_message(s));
  return p;
}

/* The file at `path` parsed; an unreadable file fails the test. */
static inline air_program_t* gpu_test_parse_file(air_context_t* ctx, const char* path) {
  size_t n = 0;
  char* text = test_read_file(path, &n);
  if (!text) fail_msg("cannot read %s", path);
  air_program_t* p = gpu_test_parse(ctx, text, path);
  free(text);
  return p;
}

/* Schedule + kernels for `gfx` (its toolchain must be present: a schedule or
 * toolchain error fails the test); returns the status of the kernel step. */
static inline air_status_t gpu_test_build(air_context_t* ctx, air_program_t* p, const char* gfx,
                                          air_schedule_t** out) {
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, gfx, &t));
  air_status_t s = air_schedule_compile(air_context_allocator(ctx), p, NULL, t, out);
  if (s) fail_msg("schedule for %s: %s", gfx, air_status_message(s));
  air_cg_gpu_toolchain_t tc;
  s = air_cg_gpu_toolchain_find(NULL, gfx, &tc);
  if (s) fail_msg("toolchain for %s: %s", gfx, air_status_message(s));
  return air_cg_gpu_compile(NULL, p, *out, t, &tc, NULL);
}

#endif /* AIR_TESTS_GPU_TEST_H_ */

/* test_artifact_code.c - the optional `.air.code` section of an .airbin
 * (scheduler/artifact/artifact_code.c): host code written beside the program
 * reads back byte for byte with its unit count and instruction set; an artifact
 * without the section reads with no code; a section edited to belong to other
 * program text, or with a wrong size, magic, version or name, fails the whole
 * read with DATA_LOSS naming what is wrong; every truncation is refused. */
#define _GNU_SOURCE 1 /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "fuzz_artifact.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"

typedef struct fx_t {
  air_context_t* ctx;
  air_program_t* prog;
  air_schedule_t* sched;
  uint8_t* image;
  size_t size;
} fx_t;

static const uint8_t k_object[] = "\x7f" "ELF pretend object: the section does not look inside";

static int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  assert_null(air_context_create(NULL, NULL, &f->ctx));
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, "cpu", &t));
  assert_null(air_program_parse_file(f->ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir", NULL,
                                     &f->prog));
  assert_null(air_program_verify(f->prog, "cpu", 0));
  assert_null(air_schedule_compile(air_context_allocator(f->ctx), f->prog, NULL, t, &f->sched));
  air_artifact_code_t code = {.object = (void*)k_object, .size = sizeof k_object, .n_units = 3};
  strcpy(code.isa, "x86-64-v3");
  void* data = NULL;
  assert_null(air_artifact_write_ex(air_context_allocator(f->ctx), f->prog, f->sched, &code, &data,
                                    &f->size));
  f->image = malloc(f->size);
  memcpy(f->image, data, f->size);
  air_context_allocator(f->ctx)->free(air_context_allocator(f->ctx)->self, data);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fx_t* f = *state;
  free(f->image);
  air_schedule_free(f->sched);
  air_program_destroy(f->prog);
  air_context_destroy(f->ctx);
  free(f);
  return 0;
}

static air_status_t read_code(fx_t* f, const uint8_t* b, size_t n, air_artifact_code_t* code) {
  air_program_t* p = NULL;
  air_schedule_t* s = NULL;
  air_status_t st = air_artifact_read_ex(f->ctx, b, n, "c.airbin", &p, &s, code);
  air_schedule_free(s);
  air_program_destroy(p);
  return st;
}

static void test_round_trip(void** state) {
  fx_t* f = *state;
  air_artifact_code_t code;
  assert_null(read_code(f, f->image, f->size, &code));
  assert_non_null(code.object);
  assert_int_equal(code.size, sizeof k_object);
  assert_memory_equal(code.object, k_object, sizeof k_object);
  assert_int_equal(code.n_units, 3);
  assert_string_equal(code.isa, "x86-64-v3");
  air_context_allocator(f->ctx)->free(air_context_allocator(f->ctx)->self, code.object);
  /* A reader that does not ask for code reads the same file. */
  air_program_t* p = NULL;
  air_schedule_t* s = NULL;
  assert_null(air_artifact_read(f->ctx, f->image, f->size, "c.airbin", &p, &s));
  air_schedule_free(s);
  air_program_destroy(p);
  /* Written without code: no section, no object. */
  void* data = NULL;
  size_t size = 0;
  assert_null(air_artifact_write(air_context_allocator(f->ctx), f->prog, f->sched, &data, &size));
  assert_null(memmem(data, size, ".air.code", 10));
  assert_null(read_code(f, data, size, &code));
  assert_null(code.object);
  air_context_allocator(f->ctx)->free(air_context_allocator(f->ctx)->self, data);
}

static void expect_corrupt(fx_t* f, const uint8_t* b, size_t n, const char* phrase) {
  air_artifact_code_t code;
  air_status_t st = read_code(f, b, n, &code);
  assert_non_null(st);
  assert_null(code.object);
  if (phrase) {
    assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
    if (!strstr(air_status_message(st), phrase))
      fail_msg("'%s' does not say '%s'", air_status_message(st), phrase);
  }
  air_status_free(st);
}

static void test_rules(void** state) {
  fx_t* f = *state;
  uint8_t* b = malloc(f->size);
  uint8_t* hdr = memmem(f->image, f->size, "AIRCODE", 8);
  assert_non_null(hdr);
  size_t at = (size_t)(hdr - f->image);

  memcpy(b, f->image, f->size);
  b[at + 16] ^= 1; /* the text hash */
  expect_corrupt(f, b, f->size, "made for other program text");

  memcpy(b, f->image, f->size);
  b[at + 24] += 1; /* the object size */
  expect_corrupt(f, b, f->size, "object size");

  memcpy(b, f->image, f->size);
  b[at + 1] = 'X'; /* the magic */
  expect_corrupt(f, b, f->size, "no AIRCODE header");

  memcpy(b, f->image, f->size);
  b[at + 8] = 9; /* the version */
  expect_corrupt(f, b, f->size, "version 9");

  memcpy(b, f->image, f->size);
  b[at + 32 + 9] = 'z'; /* the ISA name runs into its padding without a NUL... */
  memset(b + at + 32 + 10, 'z', 6);
  expect_corrupt(f, b, f->size, "instruction set name");

  /* The program text itself edited: the stored hash no longer matches. Rename
   * the segment inside .air.program (the program still verifies). */
  memcpy(b, f->image, f->size);
  uint8_t* c = memmem(b, f->size, "@vadd_seg", 9);
  assert_non_null(c);
  c[8] = 'h';
  expect_corrupt(f, b, f->size, "made for other program text");

  for (size_t k = 0; k < f->size; k += 13) expect_corrupt(f, f->image, k, NULL);
  free(b);
}

/* The reader's fuzz check accepts the image and every corrupt variant above
 * without breaking a promise (it also reads the code). */
static void test_fuzz_check(void** state) {
  fx_t* f = *state;
  assert_int_equal(air_fuzz_artifact_check(f->image, f->size), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_fuzz_check),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_host_object.c - the loader of the code generator's x86-64 objects
 * (hal/host_object.c), with no LLVM in the process: an object the generator
 * wrote for samples/vector_add.mlir (tests/fuzz/host_object_corpus) is linked
 * and its unit run on real buffers through the unit ABI; objects edited to break
 * one rule each are refused with the rule named; every truncation is refused. */
#define _GNU_SOURCE 1 /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/program.h"
#include "hal/host_object.h"
#include "hal/compiled.h"
#include "runtime/ir/ir.h"

#define CORPUS AIR_SOURCE_DIR "/tests/fuzz/host_object_corpus/"

static unsigned char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* b = malloc((size_t)len + 1);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  b[len] = 0;
  *n = (size_t)len;
  return b;
}

static uint64_t rd64(const unsigned char* p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x;
}
static uint32_t rd32(const unsigned char* p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

/* The section header of the section called `name`. */
static unsigned char* section(unsigned char* b, const char* name) {
  uint64_t shoff = rd64(b + 40);
  uint16_t shnum, shstrndx;
  memcpy(&shnum, b + 60, 2);
  memcpy(&shstrndx, b + 62, 2);
  unsigned char* strh = b + shoff + (uint64_t)shstrndx * 64;
  const char* names = (const char*)b + rd64(strh + 24);
  for (uint16_t i = 0; i < shnum; ++i) {
    unsigned char* h = b + shoff + (uint64_t)i * 64;
    if (!strcmp(names + rd32(h), name)) return h;
  }
  fail_msg("no section %s", name);
  return NULL;
}

static void expect_refused(const unsigned char* b, size_t n, const char* phrase) {
  air_host_object_t* o = NULL;
  air_status_t st = air_host_object_load(NULL, b, n, "t.o", &o);
  assert_non_null(st);
  assert_null(o);
  assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
  if (phrase && !strstr(air_status_message(st), phrase))
    fail_msg("'%s' does not say '%s'", air_status_message(st), phrase);
  assert_non_null(strstr(air_status_message(st), "t.o"));
  air_status_free(st);
}

static void test_link_and_run(void** state) {
  (void)state;
  size_t n;
  unsigned char* b = slurp(CORPUS "vector_add.o", &n);
  air_host_object_t* o = NULL;
  air_status_t st = air_host_object_load(NULL, b, n, "vector_add.o", &o);
  if (st) fail_msg("%s", air_status_message(st));
  assert_int_equal(air_host_object_count(o), 1);
  const char* name = air_host_object_name(o, 0);
  assert_non_null(name);
  unsigned index = 0;
  assert_int_equal(sscanf(name, "air_unit_%u", &index), 1);

  /* The op the symbol names, in the program read from text as a loader would. */
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  air_parse_options_t po = {.filename = "vector_add.mlir"};
  air_program_t* p = NULL;
  assert_null(air_program_parse_file(ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir", &po, &p));
  const air_op_t* unit = air_cg_op_at(p->module, index);
  assert_non_null(unit);
  assert_int_equal(unit->kind, AIR_OP_FOR);
  air_vid_t ins[16];
  uint32_t n_in = air_cg_unit_inputs(p, unit, ins, 16);
  assert_true(n_in > 3 && n_in <= 16);

  /* Inputs: the three L1 memrefs (la, lb read; lc written) and the constants. */
  float a[256], bb[256], c[256];
  for (int i = 0; i < 256; ++i) a[i] = (float)i * 0.5f, bb[i] = 3.0f - (float)i, c[i] = -1.0f;
  air_memref_t m[3];
  float* data[3] = {a, bb, c};
  for (int k = 0; k < 3; ++k) {
    memset(&m[k], 0, sizeof m[k]);
    m[k].data = data[k], m[k].elem = AIR_ELEM_F32, m[k].rank = 1;
    m[k].sizes[0] = 256, m[k].strides[0] = 1;
  }
  air_cg_word_t in[16];
  int mi = 0;
  for (uint32_t i = 0; i < n_in; ++i) {
    const air_value_info_t* vi = air_ir_value(p, ins[i]);
    if (vi->def && vi->def->kind == AIR_OP_CONSTANT) in[i].i = vi->def->value.i;
    else in[i].m = &m[mi++]; /* la, lb, lc in first-use order */
  }
  assert_int_equal(mi, 3);
  air_cg_frame_t frame = {.in = in, .out = NULL};
  air_cg_fn_t fn = (air_cg_fn_t)(uintptr_t)air_host_object_address(o, 0);
  assert_int_equal(fn(&frame), AIR_CG_OK);
  for (int i = 0; i < 256; ++i) assert_true(c[i] == a[i] + bb[i]);

  /* A view that does not match the static type: FALLBACK, nothing written. */
  m[2].sizes[0] = 128;
  c[0] = -7.0f;
  assert_int_equal(fn(&frame), AIR_CG_FALLBACK);
  assert_true(c[0] == -7.0f);

  air_program_destroy(p);
  air_context_destroy(ctx);
  air_host_object_free(o);
  free(b);
}

static void test_refusals(void** state) {
  (void)state;
  size_t n;
  unsigned char* good = slurp(CORPUS "vector_add.o", &n);
  unsigned char* b = malloc(n);

  memcpy(b, good, n);
  b[18] = 3; /* e_machine EM_386 */
  expect_refused(b, n, "not an x86-64 relocatable object");

  memcpy(b, good, n);
  unsigned char* rela = section(b, ".rela.text");
  unsigned char* first = b + rd64(rela + 24);
  first[8] = 2; /* R_X86_64_PC32 */
  expect_refused(b, n, "relocation type 2");

  memcpy(b, good, n);
  rela = section(b, ".rela.text");
  first = b + rd64(rela + 24);
  memset(first, 0x7f, 8); /* r_offset far outside .text */
  expect_refused(b, n, "outside its section");

  memcpy(b, good, n);
  unsigned char* ro = section(b, ".rodata.cst4");
  ro[8] |= 1; /* SHF_WRITE */
  expect_refused(b, n, "writable");

  memcpy(b, good, n);
  unsigned char* sh = section(b, ".text");
  memset(sh + 32, 0xff, 8); /* sh_size */
  expect_refused(b, n, "outside the file");

  /* Every prefix of the file is refused (sampled densely at the start). */
  for (size_t k = 0; k < n; k += k < 128 ? 1 : 7) expect_refused(good, k, NULL);
  expect_refused(NULL, 0, "not an ELF");
  free(b);
  free(good);

  /* An external the generated code may not call. */
  unsigned char* z = slurp(CORPUS "memset_loop.o", &n);
  air_host_object_t* o = NULL;
  air_status_t st = air_host_object_load(NULL, z, n, "memset_loop.o", &o);
  if (st) fail_msg("%s", air_status_message(st));
  air_host_object_free(o);
  unsigned char* at = memmem(z, n, "memset", 7);
  assert_non_null(at);
  memcpy(at, "system", 7);
  expect_refused(z, n, "'system', which generated code may not use");
  free(z);
}

static void test_cpu_levels(void** state) {
  (void)state;
  assert_true(air_host_object_cpu_supports("x86-64"));
  assert_false(air_host_object_cpu_supports("risc-v"));
  assert_false(air_host_object_cpu_supports(NULL));
  /* The machines this project runs on have AVX2 (the generator's objects need
   * x86-64-v3); a test here would only restate cpuid. */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_link_and_run),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_cpu_levels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The builder API, print, parse, verify: every program of the corpus
 * (tests/builder_programs.c) prints, parses back to the same text and the same
 * ops, and verifies (skipped only while the printer, parser or verifier is a
 * placeholder). */
#include "builder_test.h"

/*---------------------------------------------------------------------------*/
/* Print, parse, verify                                                      */
/*---------------------------------------------------------------------------*/

static uint32_t kind_count(air_program_t* p, air_opkind_t k) { return count(p, k); }

/* print -> parse -> print gives the same text and the same ops. */
static void round_trip(void** state, int i) {
  fixture_t* f = *state;
  air_program_t* p = build(f, i);
  char *t1 = NULL, *t2 = NULL;
  size_t n1 = 0, n2 = 0;
  air_status_t s = air_program_print_to_string(p, 0, &t1, &n1);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    skip();
  }
  OK(s);
  assert_int_equal(strlen(t1), n1);
  air_parse_options_t o = {0};
  o.filename = k_programs[i].name;
  air_program_t* q = NULL;
  s = air_program_parse(f->ctx, t1, n1, &o, &q);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    air_program_free_string(p, t1);
    skip();
  }
  if (s) print_error("--- printed %s ---\n%s\n", k_programs[i].name, t1);
  OK(s);
  OK(air_program_print_to_string(q, 0, &t2, &n2));
  if (strcmp(t1, t2) != 0)
    print_error("--- first print ---\n%s\n--- second print ---\n%s\n", t1, t2);
  assert_string_equal(t1, t2);
  /* A name given with air_builder_set_name is the one printed and parsed back. */
  if (k_programs[i].build == build_attrs) {
    assert_non_null(strstr(t1, "%sym_buf = memref.alloc()"));
    air_op_t* a = find(q, AIR_OP_ALLOC, 0);
    assert_string_equal(air_ir_value(q, a->results[0])->name, "sym_buf");
  }
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    uint32_t a = kind_count(p, (air_opkind_t)k), c = kind_count(q, (air_opkind_t)k);
    if (a != c)
      print_error("%s: %u %s ops built, %u parsed back\n", k_programs[i].name, a,
                  air_opkind_name((air_opkind_t)k), c);
    assert_int_equal(a, c);
  }
  air_program_free_string(p, t1);
  air_program_free_string(q, t2);
  air_program_destroy(q);
}

/* The verifier accepts every program built here. */
static void verifies(void** state, int i) {
  fixture_t* f = *state;
  air_program_t* p = build(f, i);
  air_status_t s = air_program_verify(p, NULL, 0);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    skip();
  }
  if (s) {
    char* text = NULL;
    air_status_t ps = air_program_print_to_string(p, 0, &text, NULL);
    if (!ps) print_error("--- %s ---\n%s\n", k_programs[i].name, text);
    air_status_free(ps);
    air_program_free_string(p, text);
  }
  OK(s);
}

#define PROGRAM_TESTS(X) \
  X(0, vector_add) X(1, matmul) X(2, parallel) X(3, execute) X(4, tokens) \
  X(5, elements) X(6, broadcast) X(7, compute) X(8, gpu) X(9, attrs)

#define DEFINE_RT(i, name)                                                       \
  static void test_round_trip_##name(void** state) { round_trip(state, i); }     \
  static void test_verify_##name(void** state) { verifies(state, i); }
PROGRAM_TESTS(DEFINE_RT)
#undef DEFINE_RT

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define RT_ENTRY(i, name) T(test_round_trip_##name), T(test_verify_##name),

int main(void) {
  const struct CMUnitTest tests[] = {
      PROGRAM_TESTS(RT_ENTRY)
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

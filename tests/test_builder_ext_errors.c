/* test_builder_ext_errors.c - the builder calls for mlir-air's wider op set
 * (issue 12), argument checks: math and linalg, scf.index_switch and
 * scf.forall, memref.global and air.custom; and that a failed call leaves the
 * program as it was. */
#include "builder_ext_test.h"

/*---------------------------------------------------------------------------*/
/* Argument checks                                                           */
/*---------------------------------------------------------------------------*/

/* Inside @f(x : 4xf32, n : 4xi32) with values of each kind at hand. */
typedef struct vals_t {
  air_value_t x, n;   /* memrefs */
  air_value_t fv, iv; /* f32, i32 scalars */
  air_value_t idx;    /* index */
  air_value_t f64v;   /* f64 */
} vals_t;

static vals_t open_func(air_builder_t* b) {
  vals_t v;
  air_type_t ins[2] = {tm(b, AIR_ELEMENT_F32, 1, 4, 0, 0), tm(b, AIR_ELEMENT_I32, 1, 4, 0, 0)};
  air_value_t a[2];
  func_begin(b, "f", 2, ins, a);
  v.x = a[0];
  v.n = a[1];
  v.idx = ci(b, 0);
  v.fv = load(b, v.x, 1, v.idx, 0);
  v.iv = load(b, v.n, 1, v.idx, 0);
  OK(air_builder_constant_float(b, ts(b, AIR_ELEMENT_F64), 1.5, &v.f64v));
  return v;
}

static void test_bad_math_and_linalg(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  vals_t v = open_func(b);
  air_value_t r = 0, two[2] = {v.fv, v.fv}, mixed[2] = {v.fv, v.f64v}, three[3] = {v.fv, v.fv,
                                                                                   v.fv};
  FAILS(air_builder_math(NULL, AIR_MATH_SQRT, 1, &v.fv, &r), INVALID, NULL);
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.fv, NULL), INVALID, "NULL out");
  FAILS(air_builder_math(b, AIR_MATH_COUNT, 1, &v.fv, &r), INVALID, "unknown op");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 2, two, &r), INVALID, "math.sqrt takes 1 operand");
  FAILS(air_builder_math(b, AIR_MATH_POWF, 1, two, &r), INVALID, "takes 2 operands");
  FAILS(air_builder_math(b, AIR_MATH_FMA, 2, three, &r), INVALID, "takes 3 operands");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, NULL, &r), INVALID, NULL);
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.iv, &r), INVALID, NULL);  /* int to a float op */
  FAILS(air_builder_math(b, AIR_MATH_CTPOP, 1, &v.fv, &r), INVALID, NULL); /* float to an int op */
  FAILS(air_builder_math(b, AIR_MATH_CTPOP, 1, &v.idx, &r), INVALID, NULL); /* index */
  FAILS(air_builder_math(b, AIR_MATH_ATAN2, 2, mixed, &r), INVALID, "different types");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.x, &r), INVALID, NULL);   /* a memref */
  OK(air_builder_math(b, AIR_MATH_SQRT, 1, &v.f64v, &r));                  /* f64 is fine */

  air_value_t xx[2] = {v.x, v.x}, xn[2] = {v.x, v.n};
  air_value_t big = 0;
  OK(air_builder_memref_alloc(b, tm(b, AIR_ELEMENT_F32, 1, 8, 0, 0), 0, NULL, &big));
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_COUNT, 2, xx, v.x), INVALID,
        "unknown op");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 1, xx, v.x), INVALID,
        "linalg.add takes 2 inputs, not 1");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_EXP, 2, xx, v.x), INVALID,
        "linalg.exp takes 1 input, not 2");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, NULL, v.x), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xx, v.fv), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, two, v.x), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xx, big), INVALID,
        "does not have the output's shape");
  OK(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xn, v.x)); /* types: verifier */

  /* linalg.index only directly inside a linalg.generic, below its loop count */
  FAILS(air_builder_linalg_index(b, 0, &r), PRECOND, NULL);
  air_affine_desc_t id1 = {0, 1, 0, 1, 2, k_id2};
  air_affine_desc_t maps[2] = {id1, id1};
  air_iterator_t it = AIR_ITERATOR_PARALLEL;
  air_generic_desc_t gd = {0, 1, &v.x, 1, &v.x, maps, 1, &it};
  air_value_t ba[2];
  OK(air_builder_linalg_generic_begin(b, &gd, ba));
  FAILS(air_builder_linalg_index(b, 1, &r), INVALID, "has 1 loops, not 2");
  FAILS(air_builder_linalg_index(b, 0, NULL), INVALID, "NULL out");
  OK(air_builder_linalg_index(b, 0, &r));
  OK(air_builder_linalg_generic_end(b, 1, &ba[0]));
}

static void test_bad_switch_forall(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  vals_t v = open_func(b);
  air_type_t i32 = ts(b, AIR_ELEMENT_I32), tok = 0;
  int64_t dup[2] = {1, 1}, one = 1;
  air_value_t r = 0;
  FAILS(air_builder_scf_index_switch_begin(b, v.iv, 1, &one, 0, NULL, NULL), INVALID, NULL);
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 2, dup, 0, NULL, NULL), INVALID,
        "case 1 given twice");
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 1, NULL, 0, NULL, NULL), INVALID,
        "NULL cases");
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 1, &one, 1, &tok, &r), INVALID, NULL);
  FAILS(air_builder_scf_index_switch_next(b, 0, NULL), PRECOND, NULL);
  FAILS(air_builder_scf_index_switch_end(b, 0, NULL), PRECOND, NULL);
  OK(air_builder_scf_index_switch_begin(b, v.idx, 1, &one, 1, &i32, &r));
  FAILS(air_builder_scf_index_switch_end(b, 1, &v.iv), PRECOND, "1 of the 1 case regions");
  FAILS(air_builder_scf_index_switch_next(b, 1, &v.fv), INVALID, NULL); /* wrong yield type */
  FAILS(air_builder_scf_index_switch_next(b, 0, NULL), INVALID, NULL);  /* missing yield */
  OK(air_builder_scf_index_switch_next(b, 1, &v.iv));
  FAILS(air_builder_scf_index_switch_next(b, 1, &v.iv), PRECOND, "the default region is open");
  OK(air_builder_scf_index_switch_end(b, 1, &v.iv));
  /* no cases: the only region is the default */
  OK(air_builder_scf_index_switch_begin(b, v.idx, 0, NULL, 0, NULL, NULL));
  OK(air_builder_scf_index_switch_end(b, 0, NULL));

  air_index_t lb = {0, 0}, ub = {0, 8}, st0 = {0, 0}, st = {0, 2}, bad = {v.iv, 0};
  air_value_t ivs[9];
  air_index_t many[9];
  for (int i = 0; i < 9; ++i) many[i] = ub;
  FAILS(air_builder_scf_forall_begin(b, 0, &lb, &ub, &st, ivs), INVALID, "1 to 8 dimensions");
  FAILS(air_builder_scf_forall_begin(b, 9, many, many, many, ivs), INVALID, NULL);
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, NULL, &st, ivs), INVALID, NULL);
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, &ub, &st0, ivs), INVALID, "step 0 is 0");
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, &bad, &st, ivs), INVALID, NULL); /* i32 bound */
  FAILS(air_builder_scf_forall_end(b), PRECOND, NULL);
  OK(air_builder_scf_forall_begin(b, 1, &lb, &ub, &st, ivs));
  FAILS(air_builder_scf_index_switch_end(b, 0, NULL), PRECOND, NULL); /* forall is open */
  OK(air_builder_scf_forall_end(b));
  OK(air_builder_func_end(b, 0, NULL));
  OK(air_builder_finish(b));
  OK(air_program_verify(f->p, NULL, 0));
}

static void test_bad_global_custom(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  air_type_t m4 = tm(b, AIR_ELEMENT_I32, 1, 4, 0, 0), i32 = ts(b, AIR_ELEMENT_I32);
  air_type_t dyn = 0, unr = 0;
  int64_t q = AIR_DIM_DYNAMIC;
  OK(air_type_memref(f->p, AIR_ELEMENT_I32, 1, &q, 0, NULL, &dyn));
  OK(air_type_memref_unranked(f->p, AIR_ELEMENT_I32, 0, &unr));
  int32_t data[4] = {1, 2, 3, 4};
  air_global_desc_t g = {0, "g", m4, data, sizeof data};
  FAILS(air_builder_memref_global(b, NULL), INVALID, "NULL desc");
  g.flags = 4;
  FAILS(air_builder_memref_global(b, &g), INVALID, "unknown flags");
  g.flags = 0;
  g.name = "";
  FAILS(air_builder_memref_global(b, &g), INVALID, NULL);
  g.name = "g";
  g.type = i32;
  FAILS(air_builder_memref_global(b, &g), INVALID, NULL);
  g.type = dyn;
  FAILS(air_builder_memref_global(b, &g), INVALID, "static shape");
  g.type = unr;
  FAILS(air_builder_memref_global(b, &g), INVALID, "static shape");
  g.type = m4;
  g.data_bytes = 12;
  FAILS(air_builder_memref_global(b, &g), INVALID, "holds 16 bytes, not 12");
  g = (air_global_desc_t){AIR_GLOBAL_CONSTANT_BIT, "g", m4, NULL, 0};
  FAILS(air_builder_memref_global(b, &g), INVALID, "needs data");
  assert_null(f->p->module->regions[0]->first); /* nothing appended */
  g = (air_global_desc_t){AIR_GLOBAL_CONSTANT_BIT, "g", m4, data, sizeof data};
  OK(air_builder_memref_global(b, &g));

  air_value_t r = 0, t = 0;
  vals_t v = open_func(b);
  FAILS(air_builder_memref_global(b, &g), PRECOND, "module level");
  FAILS(air_builder_memref_get_global(b, "g", m4, NULL), INVALID, "NULL out");
  FAILS(air_builder_memref_get_global(b, NULL, m4, &r), INVALID, NULL);
  FAILS(air_builder_memref_get_global(b, "g", i32, &r), INVALID, NULL);
  OK(air_builder_memref_get_global(b, "g", m4, &r));

  FAILS(air_builder_custom(b, "k", 8, 0, NULL, 1, &v.n, NULL), INVALID, "unknown flags");
  FAILS(air_builder_custom(b, "k", AIR_BUILD_ASYNC, 0, NULL, 1, &v.n, NULL), INVALID,
        "NULL out_token");
  FAILS(air_builder_custom(b, "", 0, 0, NULL, 1, &v.n, NULL), INVALID, NULL);
  FAILS(air_builder_custom(b, "k", 0, 1, &v.n, 1, &v.n, NULL), INVALID, NULL); /* dep: not a token */
  FAILS(air_builder_custom(b, "k", 0, 0, NULL, 1, NULL, NULL), INVALID, NULL);
  OK(air_builder_custom(b, NULL, AIR_BUILD_ASYNC, 0, NULL, 2, (air_value_t[]){v.n, r}, &t));
  assert_true(t != 0);
  air_value_t none = 99;
  OK(air_builder_custom(b, "k", 0, 1, &t, 0, NULL, &none));
  assert_int_equal(none, 0);
  OK(air_builder_func_end(b, 0, NULL));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_bad_math_and_linalg),
      T(test_bad_switch_forall),
      T(test_bad_global_custom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

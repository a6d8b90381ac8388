/* test_builder_ext.c - the builder calls for mlir-air's wider op set (issue 12),
 * math and named elementwise linalg ops: each program is built op by op,
 * verified, printed, parsed back (same text, same ops) and run on the CPU
 * driver against C (libm for math). The other calls are in
 * test_builder_ext_control.c, test_builder_ext_views.c and
 * test_builder_ext_errors.c. */
#include "builder_ext_test.h"

/*---------------------------------------------------------------------------*/
/* Programs                                                                  */
/*---------------------------------------------------------------------------*/

enum { N_FMATH = AIR_MATH_FMA + 1, N_IMATH = AIR_MATH_COUNT - AIR_MATH_ABSI };

/* @math(x, y : 16xf32, o : 31x16xf32, n : 16xi32, no : 4x16xi32): row k of o is
 * float math op k of (x, y) (fma: x * y + x), row k of no integer op k of n. */
static void build_math(air_builder_t* b) {
  air_type_t ins[5] = {tm(b, AIR_ELEMENT_F32, 1, 16, 0, 0), tm(b, AIR_ELEMENT_F32, 1, 16, 0, 0),
                       tm(b, AIR_ELEMENT_F32, 2, N_FMATH, 16, 0),
                       tm(b, AIR_ELEMENT_I32, 1, 16, 0, 0),
                       tm(b, AIR_ELEMENT_I32, 2, N_IMATH, 16, 0)};
  air_value_t a[5];
  func_begin(b, "math", 5, ins, a);
  air_value_t j = loop(b, 16);
  air_value_t x = load(b, a[0], 1, j, 0), y = load(b, a[1], 1, j, 0);
  for (int k = 0; k < N_FMATH; ++k) {
    air_value_t ops[3] = {x, y, x}, r = 0;
    uint32_t n = k == AIR_MATH_FMA ? 3 : k >= AIR_MATH_POWF ? 2 : 1;
    OK(air_builder_math(b, (air_math_op_t)k, n, ops, &r));
    store(b, r, a[2], 2, ci(b, k), j);
  }
  air_value_t i = load(b, a[3], 1, j, 0);
  for (int k = 0; k < N_IMATH; ++k) {
    air_value_t r = 0;
    OK(air_builder_math(b, (air_math_op_t)(AIR_MATH_ABSI + k), 1, &i, &r));
    store(b, r, a[4], 2, ci(b, k), j);
  }
  end_loop(b);
  OK(air_builder_func_end(b, 0, NULL));
}

/* @elementwise(x, y : 8xf32, o : 21x8xf32, p, q : 8xi32, r : 3x8xi32): row k of
 * o is elementwise op k on floats (div_unsigned: 0 there), rows of r are
 * div_unsigned, max and abs on integers. Each op writes a fresh buffer that a
 * loop copies into its row. */
static void ew_row(air_builder_t* b, air_elementwise_op_t op, uint32_t n_ins,
                   const air_value_t* ins, air_type_t t, air_value_t out, int64_t row) {
  air_value_t tmp = 0;
  OK(air_builder_memref_alloc(b, t, 0, NULL, &tmp));
  OK(air_builder_linalg_elementwise(b, op, n_ins, ins, tmp));
  air_value_t j = loop(b, 8);
  store(b, load(b, tmp, 1, j, 0), out, 2, ci(b, row), j);
  end_loop(b);
  OK(air_builder_memref_dealloc(b, tmp));
}

static void build_elementwise(air_builder_t* b) {
  air_type_t f8 = tm(b, AIR_ELEMENT_F32, 1, 8, 0, 0), i8 = tm(b, AIR_ELEMENT_I32, 1, 8, 0, 0);
  air_type_t ins[6] = {f8, f8, tm(b, AIR_ELEMENT_F32, 2, AIR_ELEMENTWISE_COUNT, 8, 0), i8, i8,
                       tm(b, AIR_ELEMENT_I32, 2, 3, 8, 0)};
  air_value_t a[6];
  func_begin(b, "elementwise", 6, ins, a);
  for (int k = 0; k < AIR_ELEMENTWISE_COUNT; ++k) {
    if (k == AIR_ELEMENTWISE_DIV_UNSIGNED) continue;
    ew_row(b, (air_elementwise_op_t)k, k <= AIR_ELEMENTWISE_POWF ? 2 : 1, a, f8, a[2], k);
  }
  ew_row(b, AIR_ELEMENTWISE_DIV_UNSIGNED, 2, a + 3, i8, a[5], 0);
  ew_row(b, AIR_ELEMENTWISE_MAX, 2, a + 3, i8, a[5], 1);
  ew_row(b, AIR_ELEMENTWISE_ABS, 1, a + 3, i8, a[5], 2);
  OK(air_builder_func_end(b, 0, NULL));
}
/*---------------------------------------------------------------------------*/
/* math                                                                      */
/*---------------------------------------------------------------------------*/

static void fill_math(bufs_t* bu) {
  for (int i = 0; i < 16; ++i) {
    ((float*)bu->orig[0])[i] = (float)((i - 7.5) * 0.31);     /* signs, the asin domain and out */
    ((float*)bu->orig[1])[i] = (float)(0.75 + 0.5 * (i % 5)); /* exponents, divisors */
  }
  ((float*)bu->orig[0])[4] = 2.5f; /* a tie: round and roundeven differ */
  static const int32_t n[16] = {0, 1, -1, 6, -7, INT32_MAX, INT32_MIN, 0x00ff0000,
                                255, 256, -256, 0x10, 99999, -99999, 0x4000, 3};
  memcpy(bu->orig[3], n, sizeof n);
}

static float math_ref(int k, float x, float y) {
  switch (k) {
    case AIR_MATH_ABSF: return fabsf(x);
    case AIR_MATH_CEIL: return ceilf(x);
    case AIR_MATH_FLOOR: return floorf(x);
    case AIR_MATH_ROUND: return roundf(x);
    case AIR_MATH_ROUNDEVEN: return nearbyintf(x);
    case AIR_MATH_TRUNC: return truncf(x);
    case AIR_MATH_SQRT: return sqrtf(x);
    case AIR_MATH_RSQRT: return 1.0f / sqrtf(x);
    case AIR_MATH_CBRT: return cbrtf(x);
    case AIR_MATH_EXP: return expf(x);
    case AIR_MATH_EXP2: return exp2f(x);
    case AIR_MATH_EXPM1: return expm1f(x);
    case AIR_MATH_LOG: return logf(x);
    case AIR_MATH_LOG2: return log2f(x);
    case AIR_MATH_LOG10: return log10f(x);
    case AIR_MATH_LOG1P: return log1pf(x);
    case AIR_MATH_SIN: return sinf(x);
    case AIR_MATH_COS: return cosf(x);
    case AIR_MATH_TAN: return tanf(x);
    case AIR_MATH_TANH: return tanhf(x);
    case AIR_MATH_ASIN: return asinf(x);
    case AIR_MATH_ACOS: return acosf(x);
    case AIR_MATH_ATAN: return atanf(x);
    case AIR_MATH_SINH: return sinhf(x);
    case AIR_MATH_COSH: return coshf(x);
    case AIR_MATH_ERF: return erff(x);
    case AIR_MATH_POWF: return powf(x, y);
    case AIR_MATH_ATAN2: return atan2f(x, y);
    case AIR_MATH_COPYSIGN: return copysignf(y, x);
    case AIR_MATH_REMF: return fmodf(x, y);
    default: return fmaf(x, y, x);
  }
}

static int32_t imath_ref(int k, int32_t v) {
  uint32_t u = (uint32_t)v;
  switch (k) {
    case 0: return (int32_t)(v < 0 ? 0u - u : u);
    case 1: return __builtin_popcount(u);
    case 2: return u ? __builtin_clz(u) : 32;
    default: return u ? __builtin_ctz(u) : 32;
  }
}

static void check_math(const bufs_t* bu) {
  for (int k = 0; k < N_FMATH; ++k)
    for (int i = 0; i < 16; ++i) {
      float x = IN(0, float)[i], y = IN(1, float)[i];
      float want = math_ref(k, x, y), got = OUT(2, float)[k * 16 + i];
      if (k == AIR_MATH_COPYSIGN) want = copysignf(x, y); /* math.copysign x, y */
      if (!same_f(got, want)) {
        print_error("math op %d at %d: got %a, libm says %a\n", k, i, got, want);
        fail();
      }
    }
  for (int k = 0; k < N_IMATH; ++k)
    for (int i = 0; i < 16; ++i)
      assert_int_equal(OUT(4, int32_t)[k * 16 + i], imath_ref(k, IN(3, int32_t)[i]));
}

static void test_math(void** state) {
  fx_t* f = *state;
  build_math(f->b);
  assert_int_equal(count_kind(f->p, AIR_OP_MATH_FMA), 1);
  assert_int_equal(count_kind(f->p, AIR_OP_REMF), 1);
  char* text = verify_and_round_trip(f, "math");
  assert_non_null(strstr(text, "math.fma"));
  assert_non_null(strstr(text, "math.ctlz"));
  assert_non_null(strstr(text, "arith.remf"));
  air_program_free_string(f->p, text);
  run(f, "math", fill_math, check_math);
}

/*---------------------------------------------------------------------------*/
/* elementwise                                                               */
/*---------------------------------------------------------------------------*/

static void fill_ew(bufs_t* bu) {
  for (int j = 0; j < 8; ++j) {
    ((float*)bu->orig[0])[j] = 0.2f + 0.6f * (float)j - (j == 3 ? 5.0f : 0.0f);
    ((float*)bu->orig[1])[j] = 0.4f + 0.3f * (float)j;
    ((int32_t*)bu->orig[3])[j] = j % 2 ? -50 * j - 3 : 700 * j + 1;
    ((int32_t*)bu->orig[4])[j] = j % 3 ? 5 + j : -9;
  }
}

static float ew_ref(int k, float x, float y) {
  switch (k) {
    case AIR_ELEMENTWISE_ADD: return x + y;
    case AIR_ELEMENTWISE_SUB: return x - y;
    case AIR_ELEMENTWISE_MUL: return x * y;
    case AIR_ELEMENTWISE_DIV: return x / y;
    case AIR_ELEMENTWISE_MAX: return x > y ? x : y;
    case AIR_ELEMENTWISE_MIN: return x < y ? x : y;
    case AIR_ELEMENTWISE_POWF: return powf(x, y);
    case AIR_ELEMENTWISE_EXP: return expf(x);
    case AIR_ELEMENTWISE_LOG: return logf(x);
    case AIR_ELEMENTWISE_ABS: return fabsf(x);
    case AIR_ELEMENTWISE_CEIL: return ceilf(x);
    case AIR_ELEMENTWISE_FLOOR: return floorf(x);
    case AIR_ELEMENTWISE_NEGF: return -x;
    case AIR_ELEMENTWISE_RECIPROCAL: return 1.0f / x;
    case AIR_ELEMENTWISE_ROUND: return roundf(x);
    case AIR_ELEMENTWISE_SQRT: return sqrtf(x);
    case AIR_ELEMENTWISE_RSQRT: return 1.0f / sqrtf(x);
    case AIR_ELEMENTWISE_SQUARE: return x * x;
    case AIR_ELEMENTWISE_TANH: return tanhf(x);
    default: return erff(x);
  }
}

static void check_ew(const bufs_t* bu) {
  for (int k = 0; k < AIR_ELEMENTWISE_COUNT; ++k)
    for (int j = 0; j < 8; ++j) {
      float want = k == AIR_ELEMENTWISE_DIV_UNSIGNED ? 0.0f
                                                     : ew_ref(k, IN(0, float)[j], IN(1, float)[j]);
      float got = OUT(2, float)[k * 8 + j];
      if (!same_f(got, want)) {
        print_error("elementwise op %d at %d: got %a, C says %a\n", k, j, got, want);
        fail();
      }
    }
  for (int j = 0; j < 8; ++j) {
    int32_t p = IN(3, int32_t)[j], q = IN(4, int32_t)[j];
    assert_int_equal(OUT(5, int32_t)[j], (int32_t)((uint32_t)p / (uint32_t)q));
    assert_int_equal(OUT(5, int32_t)[8 + j], p > q ? p : q);
    assert_int_equal(OUT(5, int32_t)[16 + j], p < 0 ? -p : p);
  }
}

static void test_elementwise(void** state) {
  fx_t* f = *state;
  build_elementwise(f->b);
  assert_int_equal(count_kind(f->p, AIR_OP_LINALG_DIV_UNSIGNED), 1);
  assert_int_equal(count_kind(f->p, AIR_OP_LINALG_ERF), 1);
  char* text = verify_and_round_trip(f, "elementwise");
  assert_non_null(strstr(text, "linalg.reciprocal ins("));
  air_program_free_string(f->p, text);
  run(f, "elementwise", fill_ew, check_ew);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_math),
      T(test_elementwise),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

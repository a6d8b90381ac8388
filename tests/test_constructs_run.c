/* test_constructs_run.c - the `// RUN:` entries of tests/data/constructs run on
 * the CPU driver, each checked against a C reference (libm for the math
 * dialect); the `// RUN-ERROR:` entries fail with the op named. Every RUN line of
 * every construct file must have an entry here, so a new construct cannot be
 * added without being run. Prints how many files and entries ran.
 *
 * Arguments are made from the entry's signature: a row-major buffer per memref
 * argument, filled with a deterministic pattern (or an entry's own inputs), kept
 * twice so the reference can read the inputs after the run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "test_util.h"

#include "air/program.h"
#include "runtime/base/bf16.h"
#include "runtime/ir/ir.h"

#define CONSTRUCTS AIR_TEST_DATA_DIR "/constructs"
enum { MAX_ARGS = 8 };

typedef struct bufs_t {
  uint32_t n;
  void* now[MAX_ARGS];  /* after the run */
  void* orig[MAX_ARGS]; /* the inputs */
  int64_t count[MAX_ARGS];
} bufs_t;

/*---------------------------------------------------------------------------*/
/* Half-precision references (round to nearest even); bf16 is runtime/base's  */
/*---------------------------------------------------------------------------*/

static uint32_t f_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* A float rounded to bf16 and back (a NaN stays a NaN, which is all the
 * comparisons below ask of one). */
static float rbf16(float f) { return air_bf16_to_f32(air_bf16_from_f32(f)); }

/* A float rounded to IEEE half and back (exact arithmetic on the significand). */
static float rf16(float f) {
  if (isnan(f) || isinf(f)) return f;
  double a = fabs((double)f);
  if (a >= 65520.0) return copysignf(INFINITY, f);
  int e;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  int q = e - 11 < -24 ? -24 : e - 11; /* quantum exponent: 11 significant bits */
  double r = nearbyint(ldexp(a, -q));  /* ties to even in the default mode */
  return copysignf((float)ldexp(r, q), f);
}

/*---------------------------------------------------------------------------*/
/* The entries                                                               */
/*---------------------------------------------------------------------------*/

#define IN(i, T) ((const T*)b->orig[i])
#define OUT(i, T) ((const T*)b->now[i])

static void check_switch(const bufs_t* b) {
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 16; ++j) {
      int32_t k = t == 0 ? 3 : t == 2 ? -1 : 1, want = IN(0, int32_t)[t * 16 + j] * k;
      if (t == 3 && j == 0) want = 100;
      assert_int_equal(OUT(1, int32_t)[t * 16 + j], want);
    }
}

static void check_unranked(const bufs_t* b) {
  for (int i = 0; i < 64; ++i) assert_true(OUT(1, float)[i] == 2 * IN(0, float)[i]);
}

static void check_move_u8(const bufs_t* b) {
  for (int i = 0; i < 64; ++i) {
    uint8_t want = i == 0 ? IN(0, uint8_t)[63] : i == 63 ? IN(0, uint8_t)[0] : IN(0, uint8_t)[i];
    assert_int_equal(OUT(1, uint8_t)[i], want);
  }
  assert_memory_equal(b->now[3], b->orig[2], 32 * sizeof(int16_t));
}

static void check_forall_add(const bufs_t* b) {
  for (int i = 0; i < 64 * 64; ++i)
    assert_true(OUT(2, float)[i] == IN(0, float)[i] + IN(1, float)[i]);
}

static void check_forall_strided(const bufs_t* b) {
  for (int i = 0; i < 128; ++i) {
    int32_t want = i >= 4 && i < 100 && (i - 4) % 8 == 0 ? 3 * IN(0, int32_t)[i] : IN(1, int32_t)[i];
    assert_int_equal(OUT(1, int32_t)[i], want);
  }
}

static void check_index(const bufs_t* b) {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      assert_int_equal(OUT(1, int32_t)[i * 16 + j], IN(0, int32_t)[i * 16 + j] + i * 16 + j);
}

static float fmaxm(float a, float c) { return a == c ? (signbit(a) ? c : a) : a > c ? a : c; }
static float fminm(float a, float c) { return a == c ? (signbit(a) ? a : c) : a < c ? a : c; }

static void check_elementwise(const bufs_t* b) {
  for (int t = 0; t < 2; ++t)
    for (int j = 0; j < 8; ++j) {
      float x = IN(0, float)[t * 8 + j], y = IN(1, float)[t * 8 + j];
      float want[11] = {x + y, x - y, x * y, x / y, fmaxm(x, y), fminm(x, y), expf(x), fabsf(x),
                        -x, sqrtf(y), x * x};
      for (int k = 0; k < 11; ++k) {
        float got = OUT(2, float)[t * 88 + k * 8 + j];
        assert_true(got == want[k] || (isnan(got) && isnan(want[k])));
      }
    }
}

static void check_elementwise_more(const bufs_t* b) {
  for (int j = 0; j < 8; ++j) {
    float x = IN(0, float)[j], y = IN(1, float)[j];
    float want[9] = {powf(x, y), logf(x),      ceilf(x),  floorf(x), 1.0f / x,
                     roundf(x),  1.0f / sqrtf(x), tanhf(x), erff(x)};
    for (int k = 0; k < 9; ++k) {
      float got = OUT(2, float)[k * 8 + j];
      assert_true(got == want[k] || (isnan(got) && isnan(want[k])));
    }
    uint32_t a = (uint32_t)IN(3, int32_t)[j], c = (uint32_t)IN(4, int32_t)[j];
    assert_int_equal((uint32_t)OUT(5, int32_t)[j], a / c);
  }
}

static void fill_elementwise_more(bufs_t* b) {
  for (int j = 0; j < 8; ++j) {
    ((float*)b->orig[0])[j] = 0.3f + 0.7f * (float)j - (j == 5 ? 9.0f : 0.0f); /* one negative */
    ((float*)b->orig[1])[j] = 0.5f + 0.25f * (float)j;
    ((int32_t*)b->orig[3])[j] = j % 2 ? -100 * j - 7 : 1000 * j + 3;
    ((int32_t*)b->orig[4])[j] = j % 3 ? 7 + j : -3; /* a large unsigned divisor too */
  }
}

static void check_lookup(const bufs_t* b) {
  static const int32_t c8[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  static const float lut[4] = {1.0f, 0.25f, 0.0625f, 0.015625f};
  assert_memory_equal(b->now[0], c8, sizeof c8);
  assert_memory_equal(b->now[1], lut, sizeof lut);
  assert_true(OUT(2, float)[0] == 2.5f);
  assert_true(OUT(2, float)[1] == IN(2, float)[1]);
}

static void check_views(const bufs_t* b) {
  const float* in = IN(0, float);
  for (int i = 0; i < 24; ++i) assert_true(OUT(1, float)[i] == in[i]);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) assert_true(OUT(2, float)[i * 4 + j] == in[j * 6 + i]);
  for (int i = 0; i < 24; ++i) assert_true(OUT(3, float)[i] == in[i]);
}

static void check_custom(const bufs_t* b) {
  for (int i = 0; i < 32; ++i) assert_int_equal(OUT(1, int32_t)[i], IN(0, int32_t)[i] + 14);
}

static void check_top(const bufs_t* b) { assert_memory_equal(b->now[1], b->orig[0], 32); }

static void check_broadcast(const bufs_t* b) {
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 128; ++i)
      assert_int_equal(OUT(1, int32_t)[t * 128 + i], IN(0, int32_t)[i] + t);
}

static void check_sqrt(const bufs_t* b) {
  for (int i = 0; i < 128; ++i) {
    float want = sqrtf(IN(0, float)[i]), got = OUT(1, float)[i];
    assert_true(got == want || (isnan(got) && isnan(want)));
  }
}

/* dma_padding: out1 is each 6-wide row with a zero before and after; out2 the
 * same rows between a zero row above and below. */
static void check_padding(const bufs_t* b) {
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 8; ++j) {
      bool inside = i >= 1 && i <= 8 && j >= 1 && j <= 6;
      int32_t want = inside ? IN(0, int32_t)[(i - 1) * 6 + (j - 1)] : 0;
      assert_int_equal(OUT(2, int32_t)[i * 8 + j], want);
      if (i < 8)
        assert_int_equal(OUT(1, int32_t)[i * 8 + j],
                         j >= 1 && j <= 6 ? IN(0, int32_t)[i * 6 + (j - 1)] : 0);
    }
}

/* math: row k of the output is op k of math_ops.mlir's order. */
enum { N_UNARY = 26, N_MATH = 30 };
static double math_ref(int k, double x, double y, bool f64) {
  float xf = (float)x, yf = (float)y;
#define M(fn) (f64 ? fn(x) : (double)fn##f(xf))
  switch (k) {
    case 0: return M(sqrt);
    case 1: return f64 ? 1.0 / sqrt(x) : (double)(1.0f / sqrtf(xf));
    case 2: return M(exp);
    case 3: return M(exp2);
    case 4: return M(expm1);
    case 5: return M(log);
    case 6: return M(log2);
    case 7: return M(log10);
    case 8: return M(log1p);
    case 9: return M(tanh);
    case 10: return M(sin);
    case 11: return M(cos);
    case 12: return M(tan);
    case 13: return M(atan);
    case 14: return M(sinh);
    case 15: return M(cosh);
    case 16: return M(asin);
    case 17: return M(acos);
    case 18: return M(erf);
    case 19: return M(cbrt);
    case 20: return M(fabs);
    case 21: return M(floor);
    case 22: return M(ceil);
    case 23: return M(round);
    case 24: return M(nearbyint);
    case 25: return M(trunc);
    case 26: return f64 ? pow(x, y) : (double)powf(xf, yf);
    case 27: return f64 ? atan2(x, y) : (double)atan2f(xf, yf);
    case 28: return f64 ? copysign(x, y) : (double)copysignf(xf, yf);
    default: return f64 ? fma(x, y, x) : (double)fmaf(xf, yf, xf);
  }
#undef M
}

static void fill_math(bufs_t* b, bool f64) {
  for (int i = 0; i < 16; ++i) {
    /* negatives, zero-ish, halves (rounding), beyond the asin domain */
    double x = (i - 7.5) * 0.37, y = 0.25 + 0.5 * (i % 6) - (i == 3 ? 2.0 : 0.0);
    if (f64) {
      ((double*)b->orig[0])[i] = x;
      ((double*)b->orig[1])[i] = y;
    } else {
      ((float*)b->orig[0])[i] = (float)x;
      ((float*)b->orig[1])[i] = (float)y;
    }
  }
  if (f64) /* a tie: round and roundeven differ */
    ((double*)b->orig[0])[5] = 0.5;
  else
    ((float*)b->orig[0])[5] = 0.5f;
}

static void check_math(const bufs_t* b, bool f64) {
  for (int k = 0; k < N_MATH; ++k)
    for (int i = 0; i < 16; ++i) {
      double x = f64 ? IN(0, double)[i] : IN(0, float)[i];
      double y = f64 ? IN(1, double)[i] : IN(1, float)[i];
      double want = math_ref(k, x, y, f64);
      double got = f64 ? OUT(2, double)[k * 16 + i] : OUT(2, float)[k * 16 + i];
      if (!(got == want || (isnan(got) && isnan(want)))) {
        print_error("math op #%d of %s at %d: got %a, libm says %a\n", k, f64 ? "f64" : "f32", i,
                    got, want);
        fail();
      }
    }
}
static void fill_math_f32(bufs_t* b) { fill_math(b, false); }
static void fill_math_f64(bufs_t* b) { fill_math(b, true); }
static void check_math_f32(const bufs_t* b) { check_math(b, false); }
static void check_math_f64(const bufs_t* b) { check_math(b, true); }

static void fill_math_int(bufs_t* b) {
  static const int32_t v[16] = {0, 1, -1, 7, -8, 0x7fffffff, (int32_t)0x80000000, 0x00f0f000,
                                255, 256, -256, 0x40, 12345678, -12345678, 0x8000, 0x7f};
  memcpy(b->orig[0], v, sizeof v);
}
static int32_t ctlz_w(uint32_t u, int w) { return u ? __builtin_clz(u) - (32 - w) : w; }
static int32_t cttz_w(uint32_t u, int w) { return u ? __builtin_ctz(u) : w; }
static void check_math_int(const bufs_t* b) {
  for (int i = 0; i < 16; ++i) {
    int32_t x = IN(0, int32_t)[i];
    int8_t x8 = (int8_t)x;
    uint32_t u = (uint32_t)x;
    uint8_t u8 = (uint8_t)x8;
    int32_t want[8] = {(int32_t)(x < 0 ? 0u - u : u), __builtin_popcount(u), ctlz_w(u, 32),
                       cttz_w(u, 32), (int8_t)(x8 < 0 ? (uint8_t)(0u - u8) : u8),
                       __builtin_popcount(u8), ctlz_w(u8, 8), cttz_w(u8, 8)};
    for (int k = 0; k < 8; ++k) assert_int_equal(OUT(1, int32_t)[k * 16 + i], want[k]);
  }
}

/* arith: the cases of arith_casts.mlir, in its order (integers, then floats). */
static const char* const k_int_cases[] = {
    "remsi_i32",      "remui_i32",       "minsi_i32",      "maxsi_i32",      "minui_i32",
    "maxui_i32",      "divsi_i32",       "divui_i32",      "ceildivsi_i32",  "floordivsi_i32",
    "remsi_i8",       "remui_i8",        "minsi_i8",       "maxui_i8",       "divsi_i8",
    "divui_i8",       "remsi_i16",       "remui_i16",      "minsi_i16",      "maxui_i16",
    "divsi_i16",      "divui_i16",       "remsi_i64",      "remui_i64",      "shrsi",
    "shrui",          "fptosi_f32_i8",   "fptosi_f32_i16", "fptosi_f32_i32", "fptosi_f32_i64",
    "fptosi_f64_i32", "fptosi_f16_i16",  "fptosi_bf16_i32", "fptosi_f64_i64", "fptoui_f32_i8",
    "fptoui_f32_i16", "fptoui_f32_i32",  "fptoui_f64_i64", "fptoui_f16_i8",  "index_cast",
    "index_castui",   "bitcast",         "trunci"};
static const char* const k_float_cases[] = {
    "sitofp_i8_f16",  "sitofp_i8_bf16",  "sitofp_i16_f32", "sitofp_i32_f64", "sitofp_i64_f32",
    "sitofp_i32_f16", "sitofp_i32_bf16", "uitofp_i8_f32",  "uitofp_i16_f16", "uitofp_i32_f64",
    "uitofp_i64_f64", "uitofp_i32_f32",  "maximumf",       "minimumf",       "maxnumf",
    "minnumf",        "remf",            "truncf_f16",     "truncf_bf16",    "truncf_f64_f32"};
enum { N_ICASES = sizeof k_int_cases / sizeof k_int_cases[0] };
enum { N_FCASES = sizeof k_float_cases / sizeof k_float_cases[0] };

static int64_t floordiv(int64_t a, int64_t c) { return a / c - ((a % c) && ((a < 0) != (c < 0))); }
static int64_t ceildiv(int64_t a, int64_t c) { return a / c + ((a % c) && ((a < 0) == (c < 0))); }

static int64_t int_case(const char* n, int32_t a, int32_t c, float x) {
  int8_t a8 = (int8_t)a, c8 = (int8_t)c;
  int16_t a16 = (int16_t)a, c16 = (int16_t)c;
  uint32_t ua = (uint32_t)a, uc = (uint32_t)c;
  float ax = fabsf(x);
#define IS(s) (strcmp(n, s) == 0)
  if (IS("remsi_i32")) return a % c;
  if (IS("remui_i32")) return ua % uc;
  if (IS("minsi_i32")) return a < c ? a : c;
  if (IS("maxsi_i32")) return a > c ? a : c;
  if (IS("minui_i32")) return ua < uc ? ua : uc;
  if (IS("maxui_i32")) return ua > uc ? ua : uc;
  if (IS("divsi_i32")) return a / c;
  if (IS("divui_i32")) return ua / uc;
  if (IS("ceildivsi_i32")) return ceildiv(a, c);
  if (IS("floordivsi_i32")) return floordiv(a, c);
  if (IS("remsi_i8")) return (int8_t)(a8 % c8);
  if (IS("remui_i8")) return (uint8_t)((uint8_t)a8 % (uint8_t)c8);
  if (IS("minsi_i8")) return a8 < c8 ? a8 : c8;
  if (IS("maxui_i8")) return (uint8_t)a8 > (uint8_t)c8 ? (uint8_t)a8 : (uint8_t)c8;
  if (IS("divsi_i8")) return (int8_t)(a8 / c8);
  if (IS("divui_i8")) return (uint8_t)((uint8_t)a8 / (uint8_t)c8);
  if (IS("remsi_i16")) return (int16_t)(a16 % c16);
  if (IS("remui_i16")) return (uint16_t)((uint16_t)a16 % (uint16_t)c16);
  if (IS("minsi_i16")) return a16 < c16 ? a16 : c16;
  if (IS("maxui_i16")) return (uint16_t)a16 > (uint16_t)c16 ? (uint16_t)a16 : (uint16_t)c16;
  if (IS("divsi_i16")) return (int16_t)(a16 / c16);
  if (IS("divui_i16")) return (uint16_t)((uint16_t)a16 / (uint16_t)c16);
  if (IS("remsi_i64")) return (int64_t)a % (int64_t)c;
  if (IS("remui_i64")) return (int64_t)((uint64_t)(int64_t)a % (uint64_t)(int64_t)c);
  if (IS("shrsi")) return a >> (c & 31);
  if (IS("shrui")) return ua >> (c & 31);
  if (IS("fptosi_f32_i8")) return (int8_t)truncf(x);
  if (IS("fptosi_f32_i16")) return (int16_t)truncf(x);
  if (IS("fptosi_f32_i32")) return (int32_t)truncf(x);
  if (IS("fptosi_f32_i64")) return (int64_t)truncf(x);
  if (IS("fptosi_f64_i32")) return (int32_t)trunc((double)x);
  if (IS("fptosi_f16_i16")) return (int16_t)truncf(rf16(x));
  if (IS("fptosi_bf16_i32")) return (int32_t)truncf(rbf16(x));
  if (IS("fptosi_f64_i64")) return (int64_t)trunc((double)x);
  if (IS("fptoui_f32_i8")) return (uint8_t)truncf(ax);
  if (IS("fptoui_f32_i16")) return (uint16_t)truncf(ax);
  if (IS("fptoui_f32_i32")) return (uint32_t)truncf(ax);
  if (IS("fptoui_f64_i64")) return (int64_t)(uint64_t)trunc((double)ax);
  if (IS("fptoui_f16_i8")) return (uint8_t)truncf(rf16(ax));
  if (IS("index_cast")) return a;
  if (IS("index_castui")) return ua;
  if (IS("bitcast")) return f_bits(x);
  if (IS("trunci")) return a8;
  fail_msg("no reference for %s", n);
  return 0;
}

static double float_case(const char* n, int32_t a, float x, float y) {
  int8_t a8 = (int8_t)a;
  int16_t a16 = (int16_t)a;
  if (IS("sitofp_i8_f16")) return rf16((float)a8);
  if (IS("sitofp_i8_bf16")) return rbf16((float)a8);
  if (IS("sitofp_i16_f32")) return (float)a16;
  if (IS("sitofp_i32_f64")) return (double)a;
  if (IS("sitofp_i64_f32")) return (float)(int64_t)a;
  if (IS("sitofp_i32_f16")) return rf16((float)a);
  if (IS("sitofp_i32_bf16")) return rbf16((float)a);
  if (IS("uitofp_i8_f32")) return (float)(uint8_t)a8;
  if (IS("uitofp_i16_f16")) return rf16((float)(uint16_t)a16);
  if (IS("uitofp_i32_f64")) return (double)(uint32_t)a;
  if (IS("uitofp_i64_f64")) return (double)(uint64_t)(int64_t)a;
  if (IS("uitofp_i32_f32")) return (float)(uint32_t)a;
  if (IS("maximumf")) return fmaxm(x, y);
  if (IS("minimumf")) return fminm(x, y);
  if (IS("maxnumf")) return fmaxf(x, y);
  if (IS("minnumf")) return fminf(x, y);
  if (IS("remf")) return fmodf(x, y);
  if (IS("truncf_f16")) return rf16(x);
  if (IS("truncf_bf16")) return rbf16(x);
  if (IS("truncf_f64_f32")) return x;
#undef IS
  fail_msg("no reference for %s", n);
  return 0;
}

static void fill_casts(bufs_t* b) {
  for (int i = 0; i < 16; ++i) {
    int32_t c = ((i * 31) % 37) - 18;
    if (c == 0 || c == -1) c = 7; /* no division by zero, no INT_MIN / -1 at any width */
    ((int32_t*)b->orig[0])[i] = ((i * 7919) % 2001) - 1000;
    ((int32_t*)b->orig[1])[i] = c;
    ((float*)b->orig[2])[i] = (float)(i - 7) * 9.75f + 0.3f;
    ((float*)b->orig[3])[i] = (float)(i % 5 - 2) * 3.5f + 1.25f;
  }
}

static void check_casts(const bufs_t* b) {
  for (int i = 0; i < 16; ++i) {
    int32_t a = IN(0, int32_t)[i], c = IN(1, int32_t)[i];
    float x = IN(2, float)[i], y = IN(3, float)[i];
    for (int k = 0; k < N_ICASES; ++k) {
      int64_t want = int_case(k_int_cases[k], a, c, x), got = OUT(4, int64_t)[k * 16 + i];
      if (got != want) {
        print_error("%s at %d (a=%d b=%d x=%g): got %lld, C says %lld\n", k_int_cases[k], i, a,
                    c, (double)x, (long long)got, (long long)want);
        fail();
      }
    }
    for (int k = 0; k < N_FCASES; ++k) {
      double want = float_case(k_float_cases[k], a, x, y), got = OUT(5, double)[k * 16 + i];
      if (!(got == want || (isnan(got) && isnan(want)))) {
        print_error("%s at %d (a=%d x=%g y=%g): got %a, C says %a\n", k_float_cases[k], i, a,
                    (double)x, (double)y, got, want);
        fail();
      }
    }
  }
}

/*---------------------------------------------------------------------------*/
/* Kernels the construct programs call                                       */
/*---------------------------------------------------------------------------*/

/* "scale_any": doubles every element of an f32 memref of any rank (an unranked
 * argument arrives with its runtime rank). */
static air_status_t k_scale_any(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  if (c->n_args != 1 || c->args[0].kind != AIR_ARG_MEMREF) return NULL;
  const air_memref_t* m = &c->args[0].memref;
  assert_int_equal(m->rank, 2);
  float* d = m->data;
  for (int64_t i = 0; i < m->sizes[0]; ++i)
    for (int64_t j = 0; j < m->sizes[1]; ++j) d[m->offset + i * m->strides[0] + j * m->strides[1]] *= 2;
  return NULL;
}

/* "printMemrefF32": what MLIR's runtime prints; here it records the rank it saw. */
static air_status_t k_print_memref(void* ud, const air_kernel_call_t* c) {
  int* seen = ud;
  if (c->n_args == 1 && c->args[0].kind == AIR_ARG_MEMREF) *seen = (int)c->args[0].memref.rank;
  return NULL;
}

/* "add_seven": adds 7 to a 1-d i32 memref. */
static air_status_t k_add_seven(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  const air_memref_t* m = &c->args[0].memref;
  int32_t* d = m->data;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[m->offset + i * m->strides[0]] += 7;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* The table and the driver                                                  */
/*---------------------------------------------------------------------------*/

typedef struct entry_t {
  const char* file;
  const char* fn;
  void (*fill)(bufs_t* b);        /* NULL: the default pattern */
  void (*check)(const bufs_t* b); /* NULL: a RUN-ERROR entry */
  const char* error;              /* RUN-ERROR: text the failure contains */
} entry_t;

static const entry_t k_entries[] = {
    {"index_switch", "switch_scale", NULL, check_switch, NULL},
    {"unranked_memref", "unranked", NULL, check_unranked, NULL},
    {"signed_unsigned", "move_u8", NULL, check_move_u8, NULL},
    {"forall_memref", "forall_add", NULL, check_forall_add, NULL},
    {"forall_memref", "forall_strided", NULL, check_forall_strided, NULL},
    {"forall_tensor", "to_from_memref", NULL, NULL, "not executable"},
    {"linalg_index", "index_iota", NULL, check_index, NULL},
    {"linalg_elementwise", "elementwise", NULL, check_elementwise, NULL},
    {"linalg_elementwise", "elementwise_more", fill_elementwise_more, check_elementwise_more,
     NULL},
    {"memref_global", "lookup", NULL, check_lookup, NULL},
    {"memref_views", "views", NULL, check_views, NULL},
    {"air_custom", "custom", NULL, check_custom, NULL},
    {"multi_module", "top", NULL, check_top, NULL},
    {"bodiless_hier", "fused", NULL, NULL, "without a body"},
    {"math_ops", "math_f32", fill_math_f32, check_math_f32, NULL},
    {"math_ops", "math_f64", fill_math_f64, check_math_f64, NULL},
    {"math_ops", "math_int", fill_math_int, check_math_int, NULL},
    {"arith_casts", "arith_casts", fill_casts, check_casts, NULL},
    {"channel_broadcast", "channel_broadcast", NULL, check_broadcast, NULL},
    {"sqrt_token_loop", "sqrt_loop", NULL, check_sqrt, NULL},
    {"pattern_out_of_buffer", "out_of_buffer", NULL, NULL, "air.dma_memcpy_nd"},
    {"dma_padding", "padded", NULL, check_padding, NULL},
    {"dma_padding", "padded_get", NULL, NULL, "on a get is not executable"},
};
enum { N_ENTRIES = sizeof k_entries / sizeof k_entries[0] };

/* The default inputs: small values of every element type, nonzero, positive for
 * float inputs (sqrt of a sensible number). */
static void fill_default(void* p, uint32_t elem, int64_t count, uint32_t arg) {
  uint32_t es = air_elem_size((air_elem_kind_t)elem);
  for (int64_t e = 0; e < count; ++e) {
    int v = (int)((e * 7 + arg * 13) % 23) - 11;
    char* q = (char*)p + e * es;
    switch (elem) {
      case AIR_ELEM_F32: *(float*)q = (float)(v + 12) * 0.375f; break;
      case AIR_ELEM_F64: *(double*)q = (v + 12) * 0.375; break;
      default: {
        int64_t x = v ? v * 3 : 5;
        memcpy(q, &x, es); /* little-endian: the low bytes */
        break;
      }
    }
  }
}

static void run_entry(test_exec_t* x, const entry_t* en) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.mlir", CONSTRUCTS, en->file);
  air_program_t* p = test_load_file(x->ctx, path);
  const air_op_t* fn = test_find_func(p, en->fn);
  assert_non_null(fn);
  bufs_t b;
  memset(&b, 0, sizeof b);
  b.n = fn->iaux[0];
  assert_true(b.n <= MAX_ARGS);
  air_arg_t args[MAX_ARGS];
  for (uint32_t i = 0; i < b.n; ++i) {
    const air_type_info_t* t = air_ir_type(p, fn->types[i]);
    assert_int_equal(t->kind, AIR_TYPE_MEMREF);
    int64_t count = 1;
    for (uint32_t k = 0; k < t->rank; ++k) count *= t->shape[k];
    uint32_t es = air_elem_size(t->elem);
    b.count[i] = count;
    b.now[i] = calloc((size_t)count, es);
    b.orig[i] = calloc((size_t)count, es);
    fill_default(b.orig[i], t->elem, count, i);
    args[i] = test_mref(NULL, t->elem, 0);
    args[i].memref.rank = t->rank;
    int64_t stride = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
      args[i].memref.sizes[k] = t->shape[k];
      args[i].memref.strides[k] = stride;
      stride *= t->shape[k];
    }
  }
  if (en->fill) en->fill(&b);
  for (uint32_t i = 0; i < b.n; ++i) {
    memcpy(b.now[i], b.orig[i], (size_t)b.count[i] * air_elem_size(args[i].elem));
    args[i].memref.data = b.now[i];
  }
  air_interp_desc_t d = test_exec_desc(x, p, fn, args, b.n);
  air_status_t st = air_interp_run(&d);
  if (en->check) {
    if (st) print_error("%s @%s: %s\n", en->file, en->fn, air_status_message(st));
    test_check(st);
    en->check(&b);
  } else {
    assert_non_null(st);
    if (!strstr(air_status_message(st), en->error)) {
      print_error("%s @%s: expected a failure naming '%s', got: %s\n", en->file, en->fn,
                  en->error, air_status_message(st));
      fail();
    }
    /* at the op: file:line:col of the program */
    assert_non_null(strstr(air_status_message(st), en->file));
    air_status_free(st);
  }
  for (uint32_t i = 0; i < b.n; ++i) {
    free(b.now[i]);
    free(b.orig[i]);
  }
  air_program_destroy(p);
}

/* Every `// RUN:` / `// RUN-ERROR:` line of the construct files has an entry. */
static void check_coverage(int* files_run) {
  DIR* dir = opendir(CONSTRUCTS);
  assert_non_null(dir);
  int lines = 0;
  *files_run = 0;
  for (struct dirent* de; (de = readdir(dir));) {
    size_t l = strlen(de->d_name);
    if (l < 6 || strcmp(de->d_name + l - 5, ".mlir") != 0) continue;
    char path[512], stem[256];
    snprintf(path, sizeof path, "%s/%s", CONSTRUCTS, de->d_name);
    snprintf(stem, sizeof stem, "%.*s", (int)(l - 5), de->d_name);
    size_t len;
    char* text = test_read_file(path, &len);
    assert_non_null(text);
    bool any = false;
    for (const char* q = text; (q = strstr(q, "// RUN")); ++q) {
      char fn[128] = "";
      if (sscanf(q, "// RUN: @%127[A-Za-z0-9_]", fn) != 1 &&
          sscanf(q, "// RUN-ERROR: @%127[A-Za-z0-9_]", fn) != 1)
        continue;
      ++lines;
      bool found = false;
      for (int i = 0; i < N_ENTRIES; ++i)
        found |= !strcmp(k_entries[i].file, stem) && !strcmp(k_entries[i].fn, fn);
      if (!found) {
        print_error("%s: `// RUN...: @%s` has no entry in test_constructs_run.c\n", path, fn);
        fail();
      }
      any = any || strncmp(q, "// RUN:", 7) == 0;
    }
    *files_run += any;
    free(text);
  }
  closedir(dir);
  assert_int_equal(lines, N_ENTRIES);
}

static void test_run_constructs(void** state) {
  test_exec_t* x = *state;
  int seen = 0;
  assert_null(air_context_register_kernel(x->ctx, "scale_any", k_scale_any, NULL));
  assert_null(air_context_register_kernel(x->ctx, "printMemrefF32", k_print_memref, &seen));
  assert_null(air_context_register_kernel(x->ctx, "add_seven", k_add_seven, NULL));
  int files = 0, ran = 0, refused = 0;
  check_coverage(&files);
  for (int i = 0; i < N_ENTRIES; ++i) {
    run_entry(x, &k_entries[i]);
    if (k_entries[i].check) ++ran; else ++refused;
  }
  assert_int_equal(seen, 2); /* printMemrefF32 saw the rank behind memref<*xf32> */
  printf("constructs run: %d files with RUN entries; %d entries run and match C, %d refused "
         "at the op as expected\n",
         files, ran, refused);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_constructs),
  };
  return cmocka_run_group_tests(tests, test_exec_setup, test_exec_teardown);
}

/* math.c - math.* and arith.remf on one scalar (see math.h). MLIR lowers
 * math.exp on f32 to llvm.exp.f32, which is C's expf: so f32 goes through the
 * float functions of libm, f64 through the double ones, and f16/bf16 compute in
 * f32 (as MLIR's arith-to-llvm extends them) and round to their type. */
#include "hal/cpu/interp/math.h"

#include <math.h>

#include "hal/cpu/interp/codec.h"

static double unary_f64(air_opkind_t k, double x, bool* ok) {
  switch (k) {
    case AIR_OP_MATH_ABSF: return fabs(x);
    case AIR_OP_MATH_CEIL: return ceil(x);
    case AIR_OP_MATH_FLOOR: return floor(x);
    case AIR_OP_MATH_ROUND: return round(x);
    case AIR_OP_MATH_ROUNDEVEN: return nearbyint(x); /* default mode: ties to even */
    case AIR_OP_MATH_TRUNC: return trunc(x);
    case AIR_OP_MATH_SQRT: return sqrt(x);
    case AIR_OP_MATH_RSQRT: return 1.0 / sqrt(x);
    case AIR_OP_MATH_CBRT: return cbrt(x);
    case AIR_OP_MATH_EXP: return exp(x);
    case AIR_OP_MATH_EXP2: return exp2(x);
    case AIR_OP_MATH_EXPM1: return expm1(x);
    case AIR_OP_MATH_LOG: return log(x);
    case AIR_OP_MATH_LOG2: return log2(x);
    case AIR_OP_MATH_LOG10: return log10(x);
    case AIR_OP_MATH_LOG1P: return log1p(x);
    case AIR_OP_MATH_SIN: return sin(x);
    case AIR_OP_MATH_COS: return cos(x);
    case AIR_OP_MATH_TAN: return tan(x);
    case AIR_OP_MATH_TANH: return tanh(x);
    case AIR_OP_MATH_ASIN: return asin(x);
    case AIR_OP_MATH_ACOS: return acos(x);
    case AIR_OP_MATH_ATAN: return atan(x);
    case AIR_OP_MATH_SINH: return sinh(x);
    case AIR_OP_MATH_COSH: return cosh(x);
    case AIR_OP_MATH_ERF: return erf(x);
    default: *ok = false; return 0;
  }
}

static float unary_f32(air_opkind_t k, float x, bool* ok) {
  switch (k) {
    case AIR_OP_MATH_ABSF: return fabsf(x);
    case AIR_OP_MATH_CEIL: return ceilf(x);
    case AIR_OP_MATH_FLOOR: return floorf(x);
    case AIR_OP_MATH_ROUND: return roundf(x);
    case AIR_OP_MATH_ROUNDEVEN: return nearbyintf(x);
    case AIR_OP_MATH_TRUNC: return truncf(x);
    case AIR_OP_MATH_SQRT: return sqrtf(x);
    case AIR_OP_MATH_RSQRT: return 1.0f / sqrtf(x);
    case AIR_OP_MATH_CBRT: return cbrtf(x);
    case AIR_OP_MATH_EXP: return expf(x);
    case AIR_OP_MATH_EXP2: return exp2f(x);
    case AIR_OP_MATH_EXPM1: return expm1f(x);
    case AIR_OP_MATH_LOG: return logf(x);
    case AIR_OP_MATH_LOG2: return log2f(x);
    case AIR_OP_MATH_LOG10: return log10f(x);
    case AIR_OP_MATH_LOG1P: return log1pf(x);
    case AIR_OP_MATH_SIN: return sinf(x);
    case AIR_OP_MATH_COS: return cosf(x);
    case AIR_OP_MATH_TAN: return tanf(x);
    case AIR_OP_MATH_TANH: return tanhf(x);
    case AIR_OP_MATH_ASIN: return asinf(x);
    case AIR_OP_MATH_ACOS: return acosf(x);
    case AIR_OP_MATH_ATAN: return atanf(x);
    case AIR_OP_MATH_SINH: return sinhf(x);
    case AIR_OP_MATH_COSH: return coshf(x);
    case AIR_OP_MATH_ERF: return erff(x);
    default: *ok = false; return 0;
  }
}

bool ix_math_float(air_opkind_t k, uint32_t el, const double* x, double* out) {
  bool ok = true, f64 = el == AIR_ELEM_F64;
  switch (k) {
    case AIR_OP_MATH_POWF: *out = f64 ? pow(x[0], x[1]) : powf((float)x[0], (float)x[1]); break;
    case AIR_OP_MATH_ATAN2:
      *out = f64 ? atan2(x[0], x[1]) : atan2f((float)x[0], (float)x[1]);
      break;
    case AIR_OP_MATH_COPYSIGN:
      *out = f64 ? copysign(x[0], x[1]) : copysignf((float)x[0], (float)x[1]);
      break;
    case AIR_OP_REMF: *out = f64 ? fmod(x[0], x[1]) : fmodf((float)x[0], (float)x[1]); break;
    case AIR_OP_MATH_FMA:
      *out = f64 ? fma(x[0], x[1], x[2]) : fmaf((float)x[0], (float)x[1], (float)x[2]);
      break;
    default: *out = f64 ? unary_f64(k, x[0], &ok) : unary_f32(k, (float)x[0], &ok); break;
  }
  if (ok) *out = ix_round_f(el, *out);
  return ok;
}

bool ix_math_int(air_opkind_t k, uint32_t el, int64_t x, int64_t* out) {
  uint32_t bits = ix_elem_bits(el);
  uint64_t u = ix_mask_u(el, x);
  switch (k) {
    case AIR_OP_MATH_ABSI: *out = ix_norm_i(el, (int64_t)(x < 0 ? 0 - (uint64_t)x : (uint64_t)x)); return true;
    case AIR_OP_MATH_CTPOP: *out = __builtin_popcountll(u); return true;
    case AIR_OP_MATH_CTLZ: *out = u ? __builtin_clzll(u) - (64 - (int)bits) : (int64_t)bits; return true;
    case AIR_OP_MATH_CTTZ: *out = u ? __builtin_ctzll(u) : (int64_t)bits; return true;
    default: return false;
  }
}

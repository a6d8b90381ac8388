/* codec.c - element codecs: loading and storing memory elements by type, and
 * rounding a value to its type.
 *
 * Scalars: integers are int64 normalised to their width (i1 is 0/1, iN and siN
 * sign-extended, uiN zero-extended), floats are doubles holding a value exactly representable in
 * their type: f16/bf16/f32 go through f32 and round to the type (round to
 * nearest even), f64 stays a double. */
#include "hal/cpu/interp/codec.h"

#include <string.h>

#include "runtime/base/bf16.h"

static uint32_t f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}

static float bits_f32(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (h & 1))) ++h;
    return (uint16_t)(sign | h);
  }
  uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return (uint16_t)h;
}

static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (exp == 0) {
    if (!mant) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      x = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112) << 23) | (mant << 13);
  }
  return bits_f32(x);
}

double ix_round_half(uint32_t elem, double x) {
  return elem == AIR_ELEM_BF16 ? air_bf16_to_f32(air_bf16_from_f32((float)x))
                               : f16_to_f32(f32_to_f16((float)x));
}

double ix_load_f(const void* p, uint32_t elem) {
  switch (elem) {
    case AIR_ELEM_F64: { double d; memcpy(&d, p, 8); return d; }
    case AIR_ELEM_F32: { float f; memcpy(&f, p, 4); return f; }
    case AIR_ELEM_BF16: { uint16_t h; memcpy(&h, p, 2); return air_bf16_to_f32(h); }
    case AIR_ELEM_F16: { uint16_t h; memcpy(&h, p, 2); return f16_to_f32(h); }
    case AIR_ELEM_UI64: { uint64_t u; memcpy(&u, p, 8); return (double)u; }
    default: return (double)ix_load_i(p, elem);
  }
}

int64_t ix_load_i(const void* p, uint32_t elem) {
  switch (elem) {
    case AIR_ELEM_I1: return *(const uint8_t*)p & 1;
    case AIR_ELEM_I8: case AIR_ELEM_SI8: return *(const int8_t*)p;
    case AIR_ELEM_I16: case AIR_ELEM_SI16: { int16_t v; memcpy(&v, p, 2); return v; }
    case AIR_ELEM_I32: case AIR_ELEM_SI32: { int32_t v; memcpy(&v, p, 4); return v; }
    case AIR_ELEM_I64: case AIR_ELEM_INDEX: case AIR_ELEM_SI64: case AIR_ELEM_UI64: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
    /* Unsigned elements load zero-extended (ix_norm_i keeps them so). */
    case AIR_ELEM_UI8: return *(const uint8_t*)p;
    case AIR_ELEM_UI16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case AIR_ELEM_UI32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case AIR_ELEM_F64: case AIR_ELEM_F32: case AIR_ELEM_BF16: case AIR_ELEM_F16:
      return (int64_t)ix_load_f(p, elem);
    default: return 0;
  }
}

void ix_store_f(void* p, uint32_t elem, double x) {
  switch (elem) {
    case AIR_ELEM_F64: memcpy(p, &x, 8); break;
    case AIR_ELEM_F32: { float f = (float)x; memcpy(p, &f, 4); break; }
    case AIR_ELEM_BF16: { uint16_t h = air_bf16_from_f32((float)x); memcpy(p, &h, 2); break; }
    case AIR_ELEM_F16: { uint16_t h = f32_to_f16((float)x); memcpy(p, &h, 2); break; }
    default: ix_store_i(p, elem, (int64_t)x); break; /* ix_store_i ends the recursion */
  }
}

void ix_store_i(void* p, uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: *(uint8_t*)p = (uint8_t)(x & 1); break;
    case AIR_ELEM_I8: case AIR_ELEM_SI8: case AIR_ELEM_UI8: *(uint8_t*)p = (uint8_t)x; break;
    case AIR_ELEM_I16: case AIR_ELEM_SI16: case AIR_ELEM_UI16: {
      uint16_t v = (uint16_t)x;
      memcpy(p, &v, 2);
      break;
    }
    case AIR_ELEM_I32: case AIR_ELEM_SI32: case AIR_ELEM_UI32: {
      uint32_t v = (uint32_t)x;
      memcpy(p, &v, 4);
      break;
    }
    case AIR_ELEM_I64: case AIR_ELEM_INDEX: case AIR_ELEM_SI64: case AIR_ELEM_UI64:
      memcpy(p, &x, 8);
      break;
    case AIR_ELEM_F64: case AIR_ELEM_F32: case AIR_ELEM_BF16: case AIR_ELEM_F16:
      ix_store_f(p, elem, (double)x);
      break;
    default: break;
  }
}

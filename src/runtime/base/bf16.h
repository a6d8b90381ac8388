/* bf16.h - f32 <-> bfloat16 bits, rounding to nearest even; a NaN stays a quiet
 * NaN with its top bits. One definition for the executor's element codec
 * (hal/cpu/interp/codec.c; the generated code rounds the same way), the parser's
 * dense literals, air-run's random inputs, the tests' references and the
 * benchmarks' inputs. */
#ifndef AIR_RUNTIME_BASE_BF16_H_
#define AIR_RUNTIME_BASE_BF16_H_

#include <stdint.h>
#include <string.h>

static inline uint16_t air_bf16_from_f32(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

static inline float air_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

#endif /* AIR_RUNTIME_BASE_BF16_H_ */

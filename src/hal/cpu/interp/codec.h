/* codec.h - element codecs: memory elements loaded and stored by element type
 * (f16/bf16 converted through f32), floats rounded and integers normalised to
 * their type. No run, no IR: the second floor of the executor. */
#ifndef AIR_HAL_CPU_INTERP_CODEC_H_
#define AIR_HAL_CPU_INTERP_CODEC_H_

#include <stdint.h>

#include "runtime/ir/ir.h"

/* Memory element access by type (an air_elem_kind_t). */
double ix_load_f(const void* p, uint32_t elem);
int64_t ix_load_i(const void* p, uint32_t elem);
void ix_store_f(void* p, uint32_t elem, double x);
void ix_store_i(void* p, uint32_t elem, int64_t x);
/* f16/bf16: a float rounded to the type (round to nearest even). */
double ix_round_half(uint32_t elem, double x);

/* The small ones are inline: every scalar op calls them (bench: submit-sweep). */

/* Rounds a float to its element type (f16/bf16/f32 via float). */
static inline double ix_round_f(uint32_t elem, double x) {
  switch (elem) {
    case AIR_ELEM_F64: return x;
    case AIR_ELEM_F32: return (float)x;
    case AIR_ELEM_BF16: case AIR_ELEM_F16: return ix_round_half(elem, x);
    default: return x;
  }
}

/* Normalises an integer to its width (i1 0/1, iN and siN sign-extended, uiN
 * zero-extended). */
static inline int64_t ix_norm_i(uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: return x & 1;
    case AIR_ELEM_I8: case AIR_ELEM_SI8: return (int8_t)x;
    case AIR_ELEM_I16: case AIR_ELEM_SI16: return (int16_t)x;
    case AIR_ELEM_I32: case AIR_ELEM_SI32: return (int32_t)x;
    case AIR_ELEM_UI8: return (uint8_t)x;
    case AIR_ELEM_UI16: return (uint16_t)x;
    case AIR_ELEM_UI32: return (uint32_t)x;
    default: return x;
  }
}

/* The integer's bits of its width, zero-extended (unsigned views of iN). */
static inline uint64_t ix_mask_u(uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: return (uint64_t)x & 1;
    case AIR_ELEM_I8: case AIR_ELEM_SI8: case AIR_ELEM_UI8: return (uint64_t)x & 0xffu;
    case AIR_ELEM_I16: case AIR_ELEM_SI16: case AIR_ELEM_UI16: return (uint64_t)x & 0xffffu;
    case AIR_ELEM_I32: case AIR_ELEM_SI32: case AIR_ELEM_UI32:
      return (uint64_t)x & 0xffffffffu;
    default: return (uint64_t)x;
  }
}

/* Width in bits of an integer element type (1 for i1). */
static inline uint32_t ix_elem_bits(uint32_t elem) {
  return elem == AIR_ELEM_I1 ? 1 : air_elem_size((air_elem_kind_t)elem) * 8;
}

#endif /* AIR_HAL_CPU_INTERP_CODEC_H_ */

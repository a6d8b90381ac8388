/* math.h - the math dialect's functions and arith.remf on one scalar (math.c):
 * pure computation on the codec floor, as compiled code would do it: f64 in
 * double precision, f32 through C's float functions, f16/bf16 widened to f32 and
 * rounded back (codec.h). */
#ifndef AIR_HAL_CPU_INTERP_MATH_H_
#define AIR_HAL_CPU_INTERP_MATH_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/ir/ir.h"

/* math.* float ops (unary, binary, fma) and arith.remf on element type `el`;
 * x holds 1, 2 or 3 operands. False when `kind` is none of them. */
bool ix_math_float(air_opkind_t kind, uint32_t el, const double* x, double* out);
/* math.absi / ctpop / ctlz / cttz on an integer of element type `el`. False
 * when `kind` is none of them. */
bool ix_math_int(air_opkind_t kind, uint32_t el, int64_t x, int64_t* out);

#endif /* AIR_HAL_CPU_INTERP_MATH_H_ */

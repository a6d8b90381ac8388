/* scalar.h - the scalar op family: arith, affine.apply/min/max, cmp, select,
 * casts. Handlers of this family compute into the env and never park; the
 * strand loop runs them (loop.c) and linalg.generic runs them per point. */
#ifndef AIR_HAL_CPU_INTERP_SCALAR_H_
#define AIR_HAL_CPU_INTERP_SCALAR_H_

#include <stdbool.h>

#include "hal/cpu/interp/env.h"

/* Whether `op` is one of this family's. */
bool ix_is_scalar_op(const air_op_t* op);
/* Evaluates `op` in `e`, storing its result there. */
air_status_t ix_eval_scalar(ix_run_t* r, ix_env_t* e, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_SCALAR_H_ */

/* linalg.h - the linalg op family: linalg.fill, linalg.copy, linalg.matmul and
 * linalg.generic (its region runs through the scalar family). Handlers compute
 * and never park; the strand loop runs them under the watchdog.
 *
 * Extension point: a library GEMM or a compiled kernel for a linalg op slots in
 * here, behind ix_linalg's switch, with the same checks on its operands. */
#ifndef AIR_HAL_CPU_INTERP_LINALG_H_
#define AIR_HAL_CPU_INTERP_LINALG_H_

#include "hal/cpu/interp/strand.h"

air_status_t ix_linalg(ix_strand_t* s, ix_env_t* e, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_LINALG_H_ */

/* views.h - memref globals and the views lowerings write (views.c):
 * memref.get_global, memref.reshape, memref.transpose,
 * memref.extract_strided_metadata and memref.reinterpret_cast. Handlers compute
 * and never park. */
#ifndef AIR_HAL_CPU_INTERP_VIEWS_H_
#define AIR_HAL_CPU_INTERP_VIEWS_H_

#include "hal/cpu/interp/strand.h"

/* Runs one op of the family in `e`. */
air_status_t ix_view_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op);
/* Frees the run's globals (run end). */
void ix_globals_free(ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_VIEWS_H_ */

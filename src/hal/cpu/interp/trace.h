/* trace.h - trace events of a run's ops (air/trace.h): one span per op on the
 * track of the PE, channel or DMA it ran for. */
#ifndef AIR_HAL_CPU_INTERP_TRACE_H_
#define AIR_HAL_CPU_INTERP_TRACE_H_

#include "hal/cpu/interp/strand.h"

/* Records `op` as a span from t0 to now on `track` (no-op without a trace or on
 * an abandoned strand). `kind` is an air_track_kind_t. */
void ix_trace(ix_strand_t* s, int kind, const char* track, const air_op_t* op, int64_t t0);

#endif /* AIR_HAL_CPU_INTERP_TRACE_H_ */

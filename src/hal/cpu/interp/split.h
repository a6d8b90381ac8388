/* split.h - large copies split across the pool's workers: a DMA or a channel
 * transfer of SPLIT_MIN bytes or more is cut into chunks along its outer
 * dimension; helper tasks on the pool and the calling strand take chunks from a
 * shared counter until none is left, so a busy pool costs nothing (the caller
 * copies everything itself) and an idle worker halves the time. Memory-bound
 * copies gain from a second core's load/store bandwidth. */
#ifndef AIR_HAL_CPU_INTERP_SPLIT_H_
#define AIR_HAL_CPU_INTERP_SPLIT_H_

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/run.h"

/* Bytes from which a copy is worth splitting (~40 us of memcpy here). */
#define IX_SPLIT_MIN ((int64_t)1 << 20)

/* ix_pat_copy(dst, src), split when large and cuttable (both patterns, in
 * canonical form, with the same outer size, or one of them one contiguous run). */
void ix_split_copy(ix_run_t* r, const ix_pat_t* dst, const ix_pat_t* src);

#endif /* AIR_HAL_CPU_INTERP_SPLIT_H_ */

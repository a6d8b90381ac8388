/* lists.h - an op's offset/size/stride lists (air.dma_memcpy_nd, channel
 * put/get) evaluated in an environment, and the access patterns they give. */
#ifndef AIR_HAL_CPU_INTERP_LISTS_H_
#define AIR_HAL_CPU_INTERP_LISTS_H_

#include "hal/cpu/interp/env.h"
#include "hal/cpu/interp/pattern.h"

/* The values of one side's three lists (lists[0..2]) into vals, and *out over
 * them; errors for too many entries or sizes and strides that differ in number. */
air_status_t ix_lists_eval(ix_run_t* r, ix_env_t* e, const air_op_t* op,
                           const air_ixlist_t* lists, int64_t vals[3][IX_MAX_PAT],
                           ix_lists_t* out);
/* The pattern of view `v` through evaluated lists (an error says why not). */
air_status_t ix_pat_from(ix_run_t* r, const air_op_t* op, const air_memref_t* v,
                         const ix_lists_t* l, ix_pat_t* out);
/* Both: the access pattern of a view through lists[0..2] (evaluated in `e`). */
air_status_t ix_pat_of(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_memref_t* v,
                       const air_ixlist_t* lists, ix_pat_t* out);

/* pad_before / pad_after of a transfer, for its padded side `p`: the lists
 * (outermost first) line up with p's innermost dimensions, the rest get 0; a
 * list longer than p has dimensions pads unit dimensions p gains in front (as
 * a buffer descriptor's outer dimensions of size 1). *any is false when neither
 * is written. */
air_status_t ix_pads(ix_run_t* r, const air_op_t* op, ix_pat_t* p, int64_t pb[IX_MAX_PAT],
                     int64_t pa[IX_MAX_PAT], bool* any);

#endif /* AIR_HAL_CPU_INTERP_LISTS_H_ */

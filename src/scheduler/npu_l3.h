/* npu_l3.h - an entry's L3 data movement as an NPU instruction stream: every
 * transfer with one side in L3 (a launch- or segment-level air.channel.put/get,
 * an air.dma_memcpy_nd between L3 and a segment's memory) becomes a shim BD,
 * the address patch of its entry argument, a task-queue push, and the syncs that
 * keep queues and BDs from being overrun (npu/, NPU-DMA.md). The shim column and
 * channel of each transfer endpoint are chosen here, by the scheduler.
 *
 * Shim channels come from the scheduler's DMA sharing analysis (dma_share.h):
 * endpoints never active together share one.
 *
 * Static programs only: launch, segment and loop bounds, sizes, strides and
 * offsets must be constants or computable from induction variables; launches,
 * segments, scf.for, affine.for and scf.parallel loops are unrolled, an scf.if or
 * affine.if takes the branch its (then known) condition selects. Anything else
 * (an L3 transfer inside a herd, an if with an unknown condition, a dynamic bound,
 * an L3 memref that is not an entry argument, more endpoints than shim channels)
 * is a located reason, not a stream. */
#ifndef AIR_SCHEDULER_NPU_L3_H_
#define AIR_SCHEDULER_NPU_L3_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"

/* Lowers entry `entry` of `p` for NPU target `t` (npu1, npu2, npu1_Ncol,
 * npu2_Ncol). Words come from `a`. UNIMPLEMENTED/INVALID_ARGUMENT located
 * ("FILE:LINE:COL: ...") when the program cannot be lowered. */
air_status_t air_npu_l3_lower(const air_allocator_t* a, const air_program_t* p,
                              const air_op_t* entry, const air_target_t* t, uint32_t** out_words,
                              size_t* out_n_words);

#endif /* AIR_SCHEDULER_NPU_L3_H_ */

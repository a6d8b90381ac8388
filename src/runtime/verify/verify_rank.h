/* verify_rank.h - the rules of scale-out (verify_rank.c): air.rank, its universe,
 * symmetric allocations and cross-rank data movement, applied op by op by the
 * per-op pass (verify_ops.c). */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_RANK_H_
#define AIR_RUNTIME_VERIFY_VERIFY_RANK_H_

#include "runtime/verify/verify_util.h"

/* air.rank (its shape is checked with the other hierarchy ops): nesting, the
 * universe operand, kernel arguments. */
void air_v_check_rank(air_vctx_t* v, uint32_t id);
/* air.universe.alloc: shape, types, placement. */
void air_v_check_universe(air_vctx_t* v, uint32_t id);
/* memref.alloc / memref.dealloc of an air.symmetric memref. */
void air_v_check_symmetric(air_vctx_t* v, uint32_t id);
/* air.dma_memcpy_nd with src_rank / dst_rank (a well-formed dma). */
void air_v_check_rank_dma(air_vctx_t* v, uint32_t id);
/* put/get on a gpu_symmetric_heap channel. */
void air_v_check_rank_chan(air_vctx_t* v, uint32_t id);

/* The air.rank op id enclosing `id` (NONE outside any rank). */
static inline uint32_t air_v_rank_of(const air_vctx_t* v, uint32_t id) {
  return air_v_enclosing(v, id, AIR_OP_RANK);
}

#endif /* AIR_RUNTIME_VERIFY_VERIFY_RANK_H_ */

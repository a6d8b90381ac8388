/* verify_mem.h - memref globals and views, tensors, air.custom and unranked
 * operands (verify_mem.c), called by the per-op pass (verify_ops.c). */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_MEM_H_
#define AIR_RUNTIME_VERIFY_VERIFY_MEM_H_

#include "runtime/verify/verify_util.h"

/* collapse_shape / expand_shape / cast. */
void air_v_check_reshape(air_vctx_t* v, uint32_t id);
/* [structure] where an op that addresses elements gets an unranked memref. */
void air_v_check_ranked(air_vctx_t* v, uint32_t id);
/* Checks op `id` when its class is one of this file's; false when it is not. */
bool air_v_check_mem(air_vctx_t* v, uint32_t id);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_MEM_H_ */

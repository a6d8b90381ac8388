/* verify_ctrl.h - [structure] of scf, affine and linalg ops (verify_ctrl.c),
 * called by the per-op pass (verify_ops.c) by op class. */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_CTRL_H_
#define AIR_RUNTIME_VERIFY_VERIFY_CTRL_H_

#include "runtime/verify/verify_util.h"

void air_v_check_for(air_vctx_t* v, uint32_t id);
void air_v_check_parallel(air_vctx_t* v, uint32_t id);
void air_v_check_reduce(air_vctx_t* v, uint32_t id);
void air_v_check_if(air_vctx_t* v, uint32_t id, bool affine);
void air_v_check_affine_for(air_vctx_t* v, uint32_t id);
void air_v_check_switch(air_vctx_t* v, uint32_t id);
void air_v_check_forall(air_vctx_t* v, uint32_t id);
void air_v_check_in_parallel(air_vctx_t* v, uint32_t id);
void air_v_check_linalg(air_vctx_t* v, uint32_t id);
void air_v_check_linalg_index(air_vctx_t* v, uint32_t id);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_CTRL_H_ */

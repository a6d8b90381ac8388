/* verify_data.h - the data-movement and memory rules (verify_data.c) that the
 * per-op pass (verify_ops.c) applies op by op. */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_DATA_H_
#define AIR_RUNTIME_VERIFY_VERIFY_DATA_H_

#include "runtime/verify/verify_util.h"

void air_v_collect_channels(air_vctx_t* v); /* fills v->chans, checks declarations */
void air_v_check_chan_io(air_vctx_t* v, uint32_t id);
void air_v_check_dma(air_vctx_t* v, uint32_t id);
void air_v_check_spaces(air_vctx_t* v, uint32_t id, uint8_t* seen_types);
void air_v_check_alloc_space(air_vctx_t* v, uint32_t id);
void air_v_check_npu_compute(air_vctx_t* v, uint32_t id);
void air_v_check_herd_access(air_vctx_t* v, uint32_t id);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_DATA_H_ */

/* dma.h - the dma op family: air.dma_memcpy_nd. A transfer that is one
 * contiguous run on both sides moves with no pattern built (pattern.h:
 * ix_copy_flat); any other builds both patterns and copies between them. */
#ifndef AIR_HAL_CPU_INTERP_DMA_H_
#define AIR_HAL_CPU_INTERP_DMA_H_

#include "hal/cpu/interp/strand.h"

/* Runs an air.dma_memcpy_nd (a step handler; never parks). */
int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_DMA_H_ */

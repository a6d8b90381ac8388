/* dma.h - the dma op family: air.dma_memcpy_nd. A transfer that is one
 * contiguous run on both sides moves with no pattern built (pattern.h:
 * ix_copy_flat); any other builds both patterns and copies between them. */
#ifndef AIR_HAL_CPU_INTERP_DMA_H_
#define AIR_HAL_CPU_INTERP_DMA_H_

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/strand.h"

/* Runs an air.dma_memcpy_nd (a step handler; never parks). */
int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

/* The transfer of an air.dma_memcpy_nd without peers or list errors, once both
 * sides' lists are evaluated: ix_dma's copy and errors (also a compiled unit's,
 * through unit.c's hook). `watch`: bracket the copy with the watchdog (a unit
 * runs inside its own bracket). *t0 is set when traced. */
/* ix_dma_move's first step for an unpadded transfer: a small one that is one
 * contiguous run on both sides is moved; false (nothing moved) otherwise. */
bool ix_dma_flat(const air_memref_t* dv, const ix_lists_t* dl, const air_memref_t* sv,
                 const ix_lists_t* sl);
air_status_t ix_dma_move(ix_strand_t* s, const air_op_t* op, const air_memref_t* dv,
                         const ix_lists_t* dl, const air_memref_t* sv, const ix_lists_t* sl,
                         bool watch, int64_t* t0);

#endif /* AIR_HAL_CPU_INTERP_DMA_H_ */

/* memref.h - the memref op family: alloc, dealloc, load, store (and affine
 * forms), subview, the reshapes, memref.copy. Handlers compute and never park.
 * Every memref.alloc is recorded in the run (r->held, r->allocs) so a program that
 * forgets to dealloc, or fails half-way, still frees it when the run ends. */
#ifndef AIR_HAL_CPU_INTERP_MEMREF_H_
#define AIR_HAL_CPU_INTERP_MEMREF_H_

#include "hal/cpu/interp/strand.h"

/* Runs one op of the family in `e`. */
air_status_t ix_mem_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op);
/* The shape memref.alloc `op` gives its result in `e` (data NULL) and its bytes. */
air_status_t ix_alloc_shape(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_memref_t* out,
                            size_t* out_bytes);
/* memref.alloc / dealloc on views (op_alloc's and op_dealloc's work without the
 * env; a compiled unit's hooks, unit.c). */
air_status_t ix_alloc_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_memref_t* out);
air_status_t ix_dealloc_view(ix_run_t* r, const air_op_t* op, const air_memref_t* v);
/* True when view `m` is row-major contiguous over its dimensions (unit
 * dimensions may have any stride). */
bool ix_view_contiguous(const air_memref_t* m);
/* Frees every allocation still recorded, and the record. */
void ix_allocs_free(ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_MEMREF_H_ */

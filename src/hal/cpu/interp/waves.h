/* waves.h - the schedule path: the host level of a run opened wave by wave from
 * a plan (plan.h), as the partition's gates open, by the opener (the host
 * strand's IX_F_OPEN frame); and the transient arena the memory plan places
 * host-level L3 allocs in. On the dynamic path (no plan) r->waves is NULL and
 * every call here is a no-op. */
#ifndef AIR_HAL_CPU_INTERP_WAVES_H_
#define AIR_HAL_CPU_INTERP_WAVES_H_

#include <stdbool.h>

#include "hal/cpu/interp/strand.h"
#include "runtime/base/strbuf.h"

/* Sets up r->waves for `d` (plan, gates, wave tokens, arena); no-op on the
 * dynamic path. On error ix_waves_free undoes what was made. */
air_status_t ix_waves_init(ix_run_t* r, const air_interp_desc_t* d);
void ix_waves_free(ix_run_t* r);
/* The IX_F_OPEN frame: opens every ready wave, parks while none is, pops when
 * all have opened. */
int ix_step_open(ix_strand_t* s, ix_frame_t* f);
/* The deadlock report's line for the parked opener. */
void ix_waves_describe(ix_run_t* r, air_sb_t* sb);
/* memref.alloc / dealloc of a buffer the memory plan places in the transient
 * arena: true when handled (`*st` then holds the outcome). */
bool ix_arena_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st);
bool ix_arena_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st);
/* The same on views (a compiled unit's hooks, unit.c): the alloc's view to *out. */
bool ix_arena_alloc_view(ix_run_t* r, const air_op_t* op, air_memref_t* out, air_status_t* st);
bool ix_arena_dealloc_view(ix_run_t* r, const air_op_t* op, const air_memref_t* v,
                           air_status_t* st);

#endif /* AIR_HAL_CPU_INTERP_WAVES_H_ */

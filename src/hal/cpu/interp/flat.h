/* flat.h - hierarchy ops run flat (issue 14): on the inline path (start.c), an
 * entry whose launches hold no channel op and whose herd bodies are compiled
 * units whole runs every launch, segment and herd instance in the strand that
 * meets it, in order, each PE as one call of its herd's unit: no instance
 * strands, tokens, spawns or pool trips.
 *
 * Why that order is legal: a compiled herd body holds no channel op and orders
 * its own async ops by program order (cg_emit.c unit_boundary_ok), so no PE
 * ever waits for another PE, and launch and segment bodies of such an entry are
 * pure ops (tables.c flat_block): running the instances one after the other is
 * one of the schedules the concurrent path may take. */
#ifndef AIR_HAL_CPU_INTERP_FLAT_H_
#define AIR_HAL_CPU_INTERP_FLAT_H_

#include "hal/cpu/interp/interp.h"
#include "hal/cpu/interp/strand.h"

/* Whether a run of `d` (entry body binfo `flat`) can run its launches flat:
 * compiled units in use, every herd of the nest a unit whose memrefs are the
 * entry's arguments or allocations passed down unchanged, and every memref
 * argument the view its parameter type describes (so no unit declines its
 * views, which flat cannot fall back from). Checked once per recorded dispatch. */
bool ix_flat_ready(const air_interp_desc_t* d);

/* Runs hierarchy op `op` of a flat run to its end in strand `s` (a step
 * handler, for ops whose run has r->flat): IX_CONT (op done, its token the
 * run's fired one) or IX_FAILED. */
int ix_flat_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_FLAT_H_ */

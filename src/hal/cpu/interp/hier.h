/* hier.h - the hierarchy op family: air.launch / air.segment / air.herd, their
 * instances as strands, processing elements, affinity groups.
 *
 * Extension point: ranks (air.rank, MPI) would be one more level here: an
 * instance per rank, with a channel space that reaches the other ranks. */
#ifndef AIR_HAL_CPU_INTERP_HIER_H_
#define AIR_HAL_CPU_INTERP_HIER_H_

#include "hal/cpu/interp/strand.h"

/* Runs a hierarchy op in its own strand: spawns every instance (a step handler). */
int ix_op_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

/* The iteration space of hierarchy op `op` (its sizes, read in `e`, and their
 * product): IX_CONT, or IX_FAILED with the run failed. */
int ix_hier_space(ix_strand_t* s, ix_env_t* e, const air_op_t* op, int64_t* sizes,
                  uint64_t* total);
/* Instance `i` (row-major) of `op`'s space: its body env (*out, a ref) with the
 * ids, sizes and arguments bound, and for a herd its PE filled in (`unit`: the
 * body is a compiled unit, whose PE name is formatted only when needed).
 * IX_CONT or IX_FAILED. */
int ix_hier_instance(ix_strand_t* s, ix_env_t* e, const air_op_t* op, const int64_t* sizes,
                     uint64_t i, bool unit, ix_env_t** out);

#endif /* AIR_HAL_CPU_INTERP_HIER_H_ */

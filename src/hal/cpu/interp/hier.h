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

#endif /* AIR_HAL_CPU_INTERP_HIER_H_ */

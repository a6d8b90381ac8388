/* parallel.h - the parallel op family: scf.parallel (instances as strands of
 * their own, or in sequence when the body cannot park), its init tokens, and
 * scf.reduce folding the instances' values in instance order. Step handlers. */
#ifndef AIR_HAL_CPU_INTERP_PARALLEL_H_
#define AIR_HAL_CPU_INTERP_PARALLEL_H_

#include "hal/cpu/interp/strand.h"

int ix_op_parallel(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* An instance's body reached its scf.reduce (`term`). */
int ix_end_instance(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);
/* The IX_F_REDUCE frame: folds the instances' values once they have all run. */
int ix_step_reduce(ix_strand_t* s, ix_frame_t* f);
/* A reduce region's body reached its scf.reduce.return (`term`). */
int ix_end_reduce_region(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);

#endif /* AIR_HAL_CPU_INTERP_PARALLEL_H_ */

/* control.h - the control op family: loops (scf.for, affine.for, scf.forall),
 * branches (scf.if, affine.if, scf.index_switch) and air.execute's region. Step handlers: each pushes a
 * body frame, whose end (ix_end_for, or the loop's generic block end) completes
 * the op. */
#ifndef AIR_HAL_CPU_INTERP_CONTROL_H_
#define AIR_HAL_CPU_INTERP_CONTROL_H_

#include "hal/cpu/interp/strand.h"

int ix_op_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* A loop body reached its terminator `term`: the next iteration, or the results. */
int ix_end_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);
int ix_op_if(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
int ix_op_switch(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* scf.forall on memrefs: its points one after another; ix_end_forall at the
 * body's scf.forall.in_parallel moves to the next. */
int ix_op_forall(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
int ix_end_forall(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);
int ix_op_execute(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_CONTROL_H_ */

/* unit.h - the compiled-unit op family: a loop, branch or linalg.generic that the
 * program's compiled code covers (hal/compiled.h) runs as native code. */
#ifndef AIR_HAL_CPU_INTERP_UNIT_H_
#define AIR_HAL_CPU_INTERP_UNIT_H_

#include "hal/compiled.h"
#include "hal/cpu/interp/strand.h"

/* The unit declined (a view without its type's static shape): interpret `op`. */
enum { IX_UNIT_FALLBACK = 100 };

/* The compiled unit for `op`, or NULL (none, or the run interprets). */
static inline const air_cg_unit_t* ix_unit_of(const ix_run_t* r, const air_op_t* op) {
  return r->code ? r->code->find(r->code->self, op) : NULL;
}

/* Runs unit `u` for `op` at the top frame `f`, everything it reads ready:
 * IX_CONT (done, results bound, op completed), IX_FAILED, or IX_UNIT_FALLBACK
 * before any side effect. Never parks. */
int ix_unit_run(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const air_cg_unit_t* u);

/* Runs a herd body unit for the PE whose body frame `f` is on top (hier.c marks
 * it IX_FL_UNIT, its owner the air.herd): IX_CONT (body done, frame popped),
 * IX_FAILED, or IX_UNIT_FALLBACK before any side effect (interpret the body). */
int ix_unit_body(ix_strand_t* s, ix_frame_t* f);

/* Runs herd body unit `u` of `herd` for the PE of body env `e` (s->pe) with no
 * frame (flat.c): IX_CONT, IX_FAILED, or IX_UNIT_FALLBACK before any side effect. */
int ix_unit_pe(ix_strand_t* s, ix_env_t* e, const air_op_t* herd, const air_cg_unit_t* u);

#endif /* AIR_HAL_CPU_INTERP_UNIT_H_ */

/* trace.c - trace events of a run's ops. */
#include "hal/cpu/interp/trace.h"

#include <stdio.h>

#include "hal/futex.h"
#include "hal/trace_impl.h"

void ix_trace(ix_strand_t* s, int kind, const char* track, const air_op_t* op, int64_t t0) {
  ix_run_t* r = s->run;
  if (!r->trace || s->abandoned) return;
  char name[128];
  if (op->kind == AIR_OP_CALL)
    snprintf(name, sizeof name, "func.call @%s", op->sym ? op->sym : "?");
  else if (op->sym && op->kind != AIR_OP_CHANNEL)
    snprintf(name, sizeof name, "%s @%s", ix_opname(op), op->sym);
  else
    snprintf(name, sizeof name, "%s", ix_opname(op));
  air_trace_record(r->trace, (air_track_kind_t)kind, track, name, t0, air_time_now_ns());
}

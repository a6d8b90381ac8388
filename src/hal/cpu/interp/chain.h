/* chain.h - a strand's chain of async ops: an async op a strand issues runs
 * right there, in the issuing strand, in program order, with no strand, token
 * or wake of its own, and parks that strand when it has to wait. Releasing
 * keeps this exact: when the run stalls, every strand parked in a chain op
 * hands that op to a strand of its own (what the op would have been without
 * the chain) and goes on issuing, so a program runs to its end whenever its
 * async ops could, whatever order the chain tried first (issue 14).
 *
 * Why it is exact. An async op may run as soon as everything it waits for is
 * there, in any order its tokens and its channel tickets allow; running it
 * first in its issuer's strand is one of those orders. Its result token is the
 * run's fired token (sync.h ix_tok_forever): only ops after it in program
 * order can read that result, and the strand runs them after the op is done.
 * The op also completes before the strand leaves, so its scope is not done
 * early. The one thing the chain adds is waiting in order: a strand parked in
 * a chain op does not issue its later ops, and one of those may be what the
 * op waits for. Such a wait ends only if the run stalls, and a stall releases
 * every such strand before anything is reported: the op moves to a strand of
 * its own with a token of its own (parked where it was: a channel op keeps its
 * ticket), the issuer's frame is marked IX_FL_SPREAD so its later ops run in
 * place only when they are ready (the old rule), and the deadlock report, if
 * the stall remains, shows what it showed before.
 *
 * Not chained: hierarchy ops (they run nested bodies, and sync ones wait for
 * them anyway), an air.execute whose region could park, ops under a trace
 * (a strand's spans per op), runs spanning processes (a remote channel op's
 * record lives with its strand), and programs with affinity lists (a token's
 * identity names a group there). */
#ifndef AIR_HAL_CPU_INTERP_CHAIN_H_
#define AIR_HAL_CPU_INTERP_CHAIN_H_

#include <stdbool.h>

#include "hal/cpu/interp/strand.h"

/* Whether this run chains at all (see above). */
static inline bool ix_chain_on(const ix_run_t* r) {
  return r->fired && !r->trace && !r->transport && !r->tab.affinity;
}

/* Runs async `op` of the frame `f` (the top frame) in this strand: its result
 * is the fired token, `f` moves past it, and the op's frame `cf` goes on top
 * (IX_FL_CHAIN). Returns IX_CONT or IX_FAILED. */
int ix_chain_push(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_frame_t* cf);

/* On the wake a stall gave (s->release): hands the chain op at the top to a
 * strand of its own and marks its issuer's frame IX_FL_SPREAD. */
int ix_chain_release(ix_strand_t* s);

/* Under the run lock, from the stall hook: wakes every strand parked in a chain
 * op with s->release set. Returns how many (0: the stall is real). */
uint32_t ix_chain_release_locked(ix_run_t* r, ix_wake_t* w);

#endif /* AIR_HAL_CPU_INTERP_CHAIN_H_ */

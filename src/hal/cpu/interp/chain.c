/* chain.c - async ops run in their issuer's strand, and their release when the
 * run stalls (the rules are in chain.h). */
#include "hal/cpu/interp/chain.h"

#include "hal/cpu/interp/env.h"

int ix_chain_push(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_frame_t* cf) {
  ix_run_t* r = s->run;
  ix_env_t* env = f->env;
  /* Read only by ops after `op`, which this strand runs once `op` is done. */
  ix_set(r, env, op->results[0], (ix_val_t){.p = r->fired});
  ix_next(s);
  /* The env is borrowed from the issuing frame, which stays below this one and
   * keeps it until this frame is gone (or takes a reference when released). */
  if (!ix_push(s, cf)) return ix_oom(s);
  ix_top(s)->flags |= IX_FL_CHAIN;
  return IX_CONT;
}

int ix_chain_release(ix_strand_t* s) {
  ix_run_t* r = s->run;
  s->release = false;
  ix_frame_t* f = ix_top(s);
  const air_op_t* op = f->owner;
  /* Its token counts toward this strand's scope, kept pending by this strand
   * (ix_spawn_new takes the count), as a dispatched op's does (loop.c). */
  ix_tok_t* t = ix_tok_new_unlocked(r, op, s->scope, 0);
  ix_strand_t* c = t ? ix_strand_new(r, t, t, s->pe, s->space) : NULL;
  ix_frame_t of = *f;
  of.flags &= (uint8_t)~IX_FL_CHAIN;
  if (!c || !ix_strand_extra(c, s, NULL, 0) || !ix_push(c, &of)) {
    if (c) ix_strand_free(c);
    if (t) ix_tok_unref(r, t);
    return ix_oom(s);
  }
  /* The frame (its ticket and loop state) is the new strand's, with an env
   * reference of its own: the issuing frame goes on and may move to its next
   * env. */
  ix_env_ref(of.env);
  s->n--;
  ix_set(r, of.env, op->results[0], (ix_val_t){.p = t});
  ix_top(s)->flags |= IX_FL_SPREAD;
  /* Not parked at spawn: it re-runs the op from the start, which parks it where
   * this strand was (a release is rare; the pool trip does not matter). */
  ix_spawn_new(r, c, s->scope, NULL, 0, op, 0);
  ix_tok_unref(r, t);
  return IX_CONT;
}

uint32_t ix_chain_release_locked(ix_run_t* r, ix_wake_t* w) {
  uint32_t n = 0;
  ix_waiter_t* next;
  for (ix_waiter_t* x = r->parked; x; x = next) {
    next = x->pnext;
    ix_strand_t* s = ix_strand_of(x);
    if (!s->n || ix_top(s)->kind != IX_F_OP || !(ix_top(s)->flags & IX_FL_CHAIN)) continue;
    s->release = true;
    ix_wake(r, x, w);
    ++n;
  }
  return n;
}

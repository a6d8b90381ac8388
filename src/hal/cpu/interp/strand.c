/* strand.c - strands joining and leaving a run, their frame stacks, and the
 * helpers every op handler uses to fail, park on a token or pass values on. */
#include "hal/cpu/interp/strand.h"

#include <stdio.h>
#include <string.h>

#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"

ix_strand_t* ix_strand_new(ix_run_t* r, ix_tok_t* join, ix_tok_t* scope, ix_pe_t* pe,
                           struct ix_space_t* space) {
  ix_strand_t* s = ix_cache_get_zero(r->cache, &r->alloc, sizeof *s);
  if (!s) return NULL;
  s->run = r;
  s->w.task.fn = r->hooks->strand_task;
  s->join = join;
  s->scope = scope;
  s->pe = pe;
  /* The first strand working for a traced PE keeps its env (and so the PE) alive
   * until the last one leaves: the body strand pops the herd's frame before it
   * exits, while strands it dispatched may still run. */
  if (pe && pe->t0) {
    s->pe_counted = true;
    if (atomic_fetch_add_explicit(&pe->strands, 1, memory_order_acq_rel) == 0)
      ix_env_ref(pe->env);
  }
  s->space = space;
  if (join) ix_tok_ref(join);
  if (scope) ix_tok_ref(scope);
  return s;
}

bool ix_strand_extra(ix_strand_t* c, const ix_strand_t* from, ix_tok_t* const* more, uint32_t n) {
  uint32_t have = from ? from->n_extra : 0;
  if (!have && !n) return true;
  c->extra = ix_cache_get(c->run->cache, &c->run->alloc, (have + n) * sizeof(ix_tok_t*));
  if (!c->extra) return false;
  c->cap_extra = have + n;
  for (uint32_t i = 0; i < have + n; ++i) {
    c->extra[i] = i < have ? from->extra[i] : more[i - have];
    ix_tok_ref(c->extra[i]);
  }
  c->n_extra = have + n;
  return true;
}

bool ix_strand_extra_push(ix_strand_t* s, ix_tok_t* const* toks, uint32_t n) {
  ix_run_t* r = s->run;
  if (s->n_extra + n > s->cap_extra) {
    uint32_t cap = s->n_extra + n;
    ix_tok_t** x = ix_cache_get(r->cache, &r->alloc, cap * sizeof(ix_tok_t*));
    if (!x) return false;
    for (uint32_t i = 0; i < s->n_extra; ++i) x[i] = s->extra[i];
    ix_cache_put(r->cache, &r->alloc, s->extra, s->cap_extra * sizeof(ix_tok_t*));
    s->extra = x;
    s->cap_extra = cap;
  }
  for (uint32_t i = 0; i < n; ++i) {
    ix_tok_ref(toks[i]);
    s->extra[s->n_extra++] = toks[i];
  }
  return true;
}

void ix_strand_extra_trim(ix_strand_t* s, uint32_t n) {
  while (s->n_extra > n) ix_tok_unref(s->run, s->extra[--s->n_extra]);
}

/* A strand stops working for its PE; the last one records the PE's span and
 * lets go of the PE's env. */
static void pe_leave(ix_strand_t* s, bool record) {
  ix_pe_t* pe = s->pe;
  /* An uncounted strand's PE may already be gone (its body popped the env). */
  if (!s->pe_counted) return;
  s->pe_counted = false;
  if (atomic_fetch_sub_explicit(&pe->strands, 1, memory_order_acq_rel) != 1) return;
  if (record && !s->abandoned && s->run->trace) {
    char name[128];
    snprintf(name, sizeof name, "air.herd @%s", pe->herd && pe->herd->sym ? pe->herd->sym : "?");
    air_trace_record(s->run->trace, AIR_TRACK_PE, pe->track, name, pe->t0, air_time_now_ns());
  }
  ix_env_unref(s->run, pe->env); /* may free pe */
}

void ix_strand_free(ix_strand_t* s) {
  ix_run_t* r = s->run;
  pe_leave(s, false);
  while (s->n) ix_pop(s);
  for (uint32_t i = 0; i < s->n_extra; ++i) ix_tok_unref(r, s->extra[i]);
  ix_cache_put(r->cache, &r->alloc, s->extra, s->cap_extra * sizeof(ix_tok_t*));
  if (s->join) ix_tok_unref(r, s->join);
  if (s->scope) ix_tok_unref(r, s->scope);
  if (!s->fixed_frames) ix_cache_put(r->cache, &r->alloc, s->frames, s->cap * sizeof(ix_frame_t));
  ix_cache_put(r->cache, &r->alloc, s, sizeof *s);
}

void ix_spawn(ix_run_t* r, ix_strand_t* s) {
  ix_lock(r);
  if (s->join) s->join->pending++;
  r->live++;
  r->active++;
  ix_unlock(r);
  air_pool_submit(r->pool, &s->w.task);
}

void ix_spawn_locked(ix_run_t* r, ix_strand_t* s, ix_wake_t* w) {
  if (s->join) s->join->pending++;
  r->live++;
  r->active++;
  s->w.task.next = NULL;
  if (w->last)
    w->last->next = &s->w.task;
  else
    w->first = &s->w.task;
  w->last = &s->w.task;
  w->n++;
}

/* An async op whose dependency has not fired would otherwise go through the
 * pool only to park on it at once; spawning it parked saves that round trip
 * (issue 14). The caller is an active strand, so the run cannot look stalled
 * here. */
void ix_spawn_new(ix_run_t* r, ix_strand_t* s, ix_tok_t* parent, ix_tok_t* t, uint8_t why,
                  const air_op_t* op, air_vid_t v) {
  ix_wake_t w = {0};
  bool parked = false;
  ix_lock(r);
  if (parent) parent->pending++;
  if (s->join) s->join->pending++;
  r->live++;
  r->active++;
  if (t && !ix_tok_fired(t) && !ix_failing(r)) {
    s->w.park = (ix_park_t){.why = why, .op = op, .vid = v, .tok = t};
    parked = ix_park_locked(r, &s->w, &t->waiters, &w);
  }
  ix_unlock(r);
  if (!parked) air_pool_submit(r->pool, &s->w.task);
  ix_wake_flush(r, &w);
}

/* When every strand but abandoned ones has left, the outcome is known. */
bool ix_take_early_done(ix_run_t* r, air_status_t* st) {
  if (r->done_called || !r->abandoned || r->live != r->abandoned) return false;
  r->done_called = true;
  *st = r->status;
  r->status = NULL;
  return true;
}

/* Everything touching the run happens under the lock, woken strands included:
 * once this strand has left, another may end the run and free it the moment the
 * lock is released. The last strand hands the run to the `ended` hook. */
ix_strand_t* ix_strand_exit(ix_strand_t* s) {
  ix_run_t* r = s->run;
  ix_wake_t w = {0};
  ix_strand_t* next = NULL;
  air_status_t early = NULL;
  air_interp_done_fn_t done = r->done;
  void* user = r->user;
  pe_leave(s, true);
  while (s->n) ix_pop(s);
  ix_lock(r);
  if (s->join) ix_tok_unhold_locked(r, s->join, &w);
  if (s->abandoned) r->abandoned--;
  ix_strand_free(s);
  r->live--;
  r->active--;
  bool call_done = ix_take_early_done(r, &early);
  bool last = r->live == 0;
  if (!last && r->active == 0 && !ix_failing(r)) r->hooks->stalled(r, &w);
  /* Hand-off: the first strand this exit woke (usually the one op waiting for
   * the token it fired) runs next on this worker, without a trip through the
   * pool's queue, while what it reads is still in this core's cache. It is
   * counted active, so the run cannot end before it runs. */
  if (w.n) {
    next = (ix_strand_t*)w.first;
    w.first = next->w.task.next;
    if (!--w.n) w.last = NULL;
    next->w.task.next = NULL;
  }
  ix_wake_flush(r, &w);
  ix_unlock(r);
  if (call_done) done(user, early);
  if (last) r->hooks->ended(r);
  return next;
}

/*---------------------------------------------------------------------------*/
/* Frames                                                                    */
/*---------------------------------------------------------------------------*/

bool ix_push(ix_strand_t* s, const ix_frame_t* f) {
  if (s->n == s->cap) {
    /* Most strands are one dispatched op: one frame, two for an execute body. */
    uint32_t cap = s->cap ? s->cap * 2 : 2;
    ix_run_t* r = s->run;
    ix_frame_t* nf = ix_cache_get(r->cache, &r->alloc, cap * sizeof(*nf));
    if (!nf) return false;
    if (s->n) memcpy(nf, s->frames, s->n * sizeof(*nf));
    if (!s->fixed_frames) ix_cache_put(r->cache, &r->alloc, s->frames, s->cap * sizeof(*nf));
    s->fixed_frames = false;
    s->frames = nf;
    s->cap = cap;
  }
  s->frames[s->n++] = *f;
  return true;
}

void ix_pop(ix_strand_t* s) {
  ix_run_t* r = s->run;
  ix_frame_t* f = &s->frames[--s->n];
  if (f->kind == IX_F_WAIT) {
    ix_tok_t** toks = f->state;
    for (uint32_t i = 0; i < f->n_wait; ++i) ix_tok_unref(r, toks[i]);
    air_mem_free(&r->alloc, toks);
  } else if (f->state) {
    ix_shared_unref(r, f->state);
  }
  if (f->done) {
    ix_tok_t* t = f->done;
    f->done = NULL;
    ix_tok_unhold(r, t);
    ix_tok_unref(r, t);
  }
  /* A chain op's frame borrows its issuer's env (chain.c). */
  if (f->env && !(f->flags & IX_FL_CHAIN)) ix_env_unref(r, f->env);
}

void ix_next(ix_strand_t* s) {
  ix_frame_t* f = ix_top(s);
  if (f->kind == IX_F_OP)
    ix_pop(s);
  else
    f->pc = f->pc->next;
}

/*---------------------------------------------------------------------------*/
/* What op handlers share                                                    */
/*---------------------------------------------------------------------------*/

int ix_failed(ix_strand_t* s, air_status_t st) {
  ix_fail(s->run, st);
  return IX_FAILED;
}

int ix_oom(ix_strand_t* s) {
  return ix_failed(s, AIR_STATUS_OOM(&s->run->alloc, "executor state"));
}

/* Parks on token `t` unless it fired. */
int ix_park_tok(ix_strand_t* s, ix_tok_t* t, uint8_t why, const air_op_t* op, air_vid_t v) {
  ix_run_t* r = s->run;
  ix_wake_t w = {0};
  ix_lock(r);
  if (ix_tok_fired(t)) {
    ix_unlock(r);
    return IX_CONT;
  }
  s->w.park = (ix_park_t){.why = why, .op = op, .vid = v, .tok = t};
  bool parked = ix_park_locked(r, &s->w, &t->waiters, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return parked ? IX_PARKED : IX_FAILED;
}

/* Copies `n` values from `src` (read in env `se`) to `dst` (bound in env `de`). */
int ix_transfer(ix_strand_t* s, const air_op_t* op, ix_env_t* se, const air_vid_t* src,
                ix_env_t* de, const air_vid_t* dst, uint32_t n) {
  ix_run_t* r = s->run;
  if (!n) return IX_CONT;
  ix_tv_t small[IX_TV_SMALL];
  ix_tv_t* tv = ix_tv_get(r, small, n);
  if (!tv) return ix_oom(s);
  air_status_t st = ix_capture(r, se, op, src, n, tv);
  if (st) {
    ix_tv_put(r, small, tv);
    return ix_failed(s, st);
  }
  ix_bind(r, de, dst, n, tv);
  ix_tv_put(r, small, tv);
  return IX_CONT;
}

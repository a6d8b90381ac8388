/* sync.c - the run's wait lists, parking and waking, failing a run, and tokens
 * with their completion tree (the rules are in sync.h). */
#include "hal/cpu/interp/sync.h"

#include <string.h>

#include "runtime/base/mem.h"

void ix_wake_flush(ix_run_t* r, ix_wake_t* w) {
  if (!w->n) return;
  air_pool_submit_chain(r->pool, w->first, w->last, w->n);
  w->first = w->last = NULL;
  w->n = 0;
}

static void wl_push(ix_wlist_t* l, ix_waiter_t* s) {
  s->wlist = l;
  s->wnext = NULL;
  s->wprev = l->tail;
  if (l->tail)
    l->tail->wnext = s;
  else
    l->head = s;
  l->tail = s;
}

/* In ticket order; new tickets are usually the largest, so this scans little. */
static void wl_insert(ix_wlist_t* l, ix_waiter_t* s) {
  ix_waiter_t* after = l->tail;
  while (after && after->park.ticket > s->park.ticket) after = after->wprev;
  s->wlist = l;
  s->wprev = after;
  s->wnext = after ? after->wnext : l->head;
  if (s->wnext)
    s->wnext->wprev = s;
  else
    l->tail = s;
  if (after)
    after->wnext = s;
  else
    l->head = s;
}

static void wl_remove(ix_waiter_t* s) {
  ix_wlist_t* l = s->wlist;
  if (!l) return;
  if (s->wprev)
    s->wprev->wnext = s->wnext;
  else
    l->head = s->wnext;
  if (s->wnext)
    s->wnext->wprev = s->wprev;
  else
    l->tail = s->wprev;
  s->wlist = NULL;
  s->wprev = s->wnext = NULL;
}

void ix_wake(ix_run_t* r, ix_waiter_t* s, ix_wake_t* w) {
  wl_remove(s);
  if (s->pprev)
    s->pprev->pnext = s->pnext;
  else
    r->parked = s->pnext;
  if (s->pnext) s->pnext->pprev = s->pprev;
  s->pprev = s->pnext = NULL;
  if (s->park.count) atomic_fetch_sub_explicit(s->park.count, 1, memory_order_relaxed);
  memset(&s->park, 0, sizeof s->park);
  r->active++;
  s->task.next = NULL;
  if (w->last)
    w->last->next = &s->task;
  else
    w->first = &s->task;
  w->last = &s->task;
  w->n++;
}

void ix_wake_all(ix_run_t* r, ix_wlist_t* l, ix_wake_t* w) {
  while (l->head) ix_wake(r, l->head, w);
}

void ix_fail_locked(ix_run_t* r, air_status_t st, ix_wake_t* w) {
  if (ix_failing(r)) {
    air_status_free(st);
    return;
  }
  r->status = st;
  atomic_store_explicit(&r->failing, 1, memory_order_release);
  while (r->parked) ix_wake(r, r->parked, w);
}

void ix_fail(ix_run_t* r, air_status_t st) {
  ix_wake_t w = {0};
  ix_lock(r);
  ix_fail_locked(r, st, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

bool ix_park_locked(ix_run_t* r, ix_waiter_t* s, ix_wlist_t* l, ix_wake_t* w) {
  if (ix_failing(r)) return false;
  if (s->park.why == IX_WHY_PUT || s->park.why == IX_WHY_GET)
    wl_insert(l, s);
  else
    wl_push(l, s);
  s->pprev = NULL;
  s->pnext = r->parked;
  if (r->parked) r->parked->pprev = s;
  r->parked = s;
  if (--r->active == 0) r->hooks->stalled(r, w);
  return true;
}

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

ix_tok_t* ix_tok_new(ix_run_t* r, const air_op_t* op, ix_tok_t* parent) {
  ix_tok_t* t = ix_cache_get_zero(r->cache, &r->alloc, sizeof *t);
  if (!t) return NULL;
  atomic_init(&t->refs, 1);
  atomic_init(&t->fired, 0);
  t->op = op;
  if (parent) {
    ix_tok_ref(parent);
    t->parent = parent;
    ix_lock(r);
    parent->pending++;
    ix_unlock(r);
  }
  return t;
}

ix_tok_t* ix_tok_new_unlocked(ix_run_t* r, const air_op_t* op, ix_tok_t* parent,
                              uint32_t pending) {
  ix_tok_t* t = ix_cache_get_zero(r->cache, &r->alloc, sizeof *t);
  if (!t) return NULL;
  atomic_init(&t->refs, 1);
  atomic_init(&t->fired, 0);
  t->op = op;
  t->pending = pending;
  if (parent) {
    ix_tok_ref(parent);
    t->parent = parent;
  }
  return t;
}

void ix_tok_ref(ix_tok_t* t) { atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed); }

void ix_tok_unref(ix_run_t* r, ix_tok_t* t) {
  while (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
    for (uint32_t i = 0; i < t->n_held; ++i) ix_tok_unref(r, t->held[i]);
    air_mem_free(&r->alloc, t->held);
    ix_tok_t* parent = t->parent;
    ix_cache_put(r->cache, &r->alloc, t, sizeof *t);
    t = parent;
  }
}

static void tok_fire(ix_run_t* r, ix_tok_t* t, ix_wake_t* w) {
  atomic_store_explicit(&t->fired, 1, memory_order_release);
  ix_wake_all(r, &t->waiters, w);
  for (uint32_t i = 0; i < t->n_held; ++i) {
    ix_tok_t* a = t->held[i];
    a->aff_holder = NULL;
    ix_wake_all(r, &a->aff_waiters, w);
    ix_tok_unref(r, a);
  }
  t->n_held = 0;
  if (t->on_fire) t->on_fire(r, t, w);
}

/* Drops one pending count of `t`; fires it and, in turn, its parents. */
void ix_tok_unhold_locked(ix_run_t* r, ix_tok_t* t, ix_wake_t* w) {
  ix_tok_t* hold = NULL;
  while (t && --t->pending == 0) {
    tok_fire(r, t, w);
    ix_tok_t* p = t->parent;
    t->parent = NULL;
    if (hold) ix_tok_unref(r, hold);
    hold = p;
    t = p;
  }
  if (hold) ix_tok_unref(r, hold);
}

void ix_tok_hold(ix_run_t* r, ix_tok_t* t) {
  ix_lock(r);
  t->pending++;
  ix_unlock(r);
}

void ix_tok_unhold(ix_run_t* r, ix_tok_t* t) {
  ix_wake_t w = {0};
  ix_lock(r);
  ix_tok_unhold_locked(r, t, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
}


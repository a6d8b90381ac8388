/* interp_sched.c - scheduling primitives of the CPU executor: wait lists,
 * parking and waking strands, failing a run, the deadlock report, tokens and
 * their completion tree, and strands joining and leaving a run.
 *
 * Everything here runs under the run lock unless it says otherwise. A strand
 * parks only after re-checking its condition under the lock, and whoever makes
 * the condition true wakes it under the same lock, so no wake is lost; the run
 * deadlocks exactly when live strands exist and none is queued or running. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "runtime/base/status_util.h"

/*---------------------------------------------------------------------------*/
/* Lock, wait lists, parking                                                 */
/*---------------------------------------------------------------------------*/

void ix_lock(ix_run_t* r) { pthread_mutex_lock(&r->lock); }
void ix_unlock(ix_run_t* r) { pthread_mutex_unlock(&r->lock); }

void ix_wake_flush(ix_run_t* r, ix_wake_t* w) {
  if (!w->n) return;
  air_pool_submit_chain(r->pool, w->first, w->last, w->n);
  w->first = w->last = NULL;
  w->n = 0;
}

static void wl_push(ix_wlist_t* l, ix_strand_t* s) {
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
static void wl_insert(ix_wlist_t* l, ix_strand_t* s) {
  ix_strand_t* after = l->tail;
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

static void wl_remove(ix_strand_t* s) {
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

void ix_wake(ix_run_t* r, ix_strand_t* s, ix_wake_t* w) {
  wl_remove(s);
  if (s->pprev)
    s->pprev->pnext = s->pnext;
  else
    r->parked = s->pnext;
  if (s->pnext) s->pnext->pprev = s->pprev;
  s->pprev = s->pnext = NULL;
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

static void deadlock(ix_run_t* r, ix_wake_t* w);

bool ix_park_locked(ix_strand_t* s, ix_wlist_t* l, ix_wake_t* w) {
  ix_run_t* r = s->run;
  if (ix_failing(r)) return false;
  if (s->park.why == IX_WHY_PUT || s->park.why == IX_WHY_GET)
    wl_insert(l, s);
  else
    wl_push(l, s);
  s->pprev = NULL;
  s->pnext = r->parked;
  if (r->parked) r->parked->pprev = s;
  r->parked = s;
  if (--r->active == 0) deadlock(r, w);
  return true;
}

/*---------------------------------------------------------------------------*/
/* Deadlock report                                                           */
/*---------------------------------------------------------------------------*/

typedef struct line_t {
  uint32_t line, col;
  char* text;
} line_t;

static int line_cmp(const void* a, const void* b) {
  const line_t *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return strcmp(x->text, y->text);
}

static void describe_tok(ix_run_t* r, air_sb_t* sb, ix_tok_t* t) {
  if (t && t->op)
    air_sb_printf(sb, "%s at %s:%u:%u has not finished", ix_opname(t->op), r->p->filename,
                  t->op->line, t->op->col);
  else
    air_sb_puts(sb, "not fired");
}

static void describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->park;
  const air_op_t* op = k->op;
  char nb[64];
  if (k->why == IX_WHY_PUT || k->why == IX_WHY_GET) {
    ix_chan_describe(r, s, sb);
    return;
  }
  if (k->why == IX_WHY_WAVE) {
    ix_sched_describe(r, sb);
    return;
  }
  air_sb_printf(sb, "%s:%u:%u: %s", r->p->filename, op ? op->line : 0, op ? op->col : 0,
                op ? ix_opname(op) : "?");
  if (op && op->sym && op->kind != AIR_OP_CALL) air_sb_printf(sb, " @%s", op->sym);
  if (s->pe) air_sb_printf(sb, " (%s)", s->pe->track);
  switch (k->why) {
    case IX_WHY_DEP:
      air_sb_printf(sb, " blocked on %s (", ix_vname(r, k->vid, nb, sizeof nb));
      describe_tok(r, sb, k->tok);
      air_sb_putc(sb, ')');
      break;
    case IX_WHY_VALUE:
      air_sb_printf(sb, " blocked on %s (", ix_vname(r, k->vid, nb, sizeof nb));
      describe_tok(r, sb, k->tok);
      air_sb_puts(sb, ", so its results are not available)");
      break;
    case IX_WHY_INIT:
      air_sb_puts(sb, " blocked on an init token of the enclosing scf.parallel (");
      describe_tok(r, sb, k->tok);
      air_sb_putc(sb, ')');
      break;
    case IX_WHY_JOIN:
      air_sb_puts(sb, " blocked: waiting for the work nested in it to finish");
      break;
    case IX_WHY_EDGE:
      if (k->tok && k->tok->op)
        air_sb_printf(sb, " blocked: the schedule runs it after %s at %s:%u:%u (same wave), "
                      "which has not finished", ix_opname(k->tok->op), r->p->filename,
                      k->tok->op->line, k->tok->op->col);
      else
        air_sb_puts(sb, " blocked: the schedule runs it after another op of its wave");
      break;
    case IX_WHY_AFFINITY:
      air_sb_printf(sb, " blocked on affinity %s: the group is held by ",
                    ix_vname(r, k->vid, nb, sizeof nb));
      if (k->tok && k->tok->aff_holder && k->tok->aff_holder->op)
        air_sb_printf(sb, "%s at %s:%u:%u", ix_opname(k->tok->aff_holder->op), r->p->filename,
                      k->tok->aff_holder->op->line, k->tok->aff_holder->op->col);
      else
        air_sb_puts(sb, "another op");
      break;
    default: air_sb_puts(sb, " blocked"); break;
  }
}

/* Called under the lock when live strands exist and none can run: fails the run
 * with one line per blocked op. */
static void deadlock(ix_run_t* r, ix_wake_t* w) {
  uint32_t n = 0;
  for (ix_strand_t* s = r->parked; s; s = s->pnext) ++n;
  line_t* lines = ix_calloc(r, n ? n : 1, sizeof(line_t));
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  uint32_t m = 0;
  for (ix_strand_t* s = r->parked; s && lines; s = s->pnext) {
    describe(r, s, &sb);
    lines[m].line = s->park.op ? s->park.op->line : 0;
    lines[m].col = s->park.op ? s->park.op->col : 0;
    lines[m].text = air_sb_take(&sb, NULL);
    if (lines[m].text) ++m;
  }
  if (m) qsort(lines, m, sizeof *lines, line_cmp);
  enum { MAX_LINES = 64 };
  air_sb_printf(&sb, "deadlock: no operation can make progress; %u blocked:", n);
  uint32_t shown = 0;
  for (uint32_t i = 0; i < m; ++i) {
    uint32_t same = 1;
    while (i + same < m && !strcmp(lines[i].text, lines[i + same].text)) ++same;
    if (shown < MAX_LINES) {
      air_sb_printf(&sb, "\n  %s", lines[i].text);
      if (same > 1) air_sb_printf(&sb, " [x%u]", same);
    }
    ++shown;
    i += same - 1;
  }
  if (shown > MAX_LINES) air_sb_printf(&sb, "\n  ... and %u more", shown - MAX_LINES);
  for (uint32_t i = 0; i < m; ++i) ix_free(r, lines[i].text);
  ix_free(r, lines);
  char* text = air_sb_take(&sb, NULL);
  air_status_t st = air_status_make(&r->alloc, AIR_STATUS_ABORTED, __FILE__, __LINE__,
                                    text ? text : "deadlock (out of memory describing it)");
  ix_free(r, text);
  ix_fail_locked(r, st, w);
}

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

ix_tok_t* ix_tok_new(ix_run_t* r, const air_op_t* op, ix_tok_t* parent) {
  ix_tok_t* t = ix_calloc(r, 1, sizeof *t);
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

void ix_tok_ref(ix_tok_t* t) { atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed); }

/* Never takes the run lock: callable with or without it. */
void ix_tok_unref(ix_run_t* r, ix_tok_t* t) {
  while (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
    for (uint32_t i = 0; i < t->n_held; ++i) ix_tok_unref(r, t->held[i]);
    ix_free(r, t->held);
    ix_tok_t* parent = t->parent;
    ix_free(r, t);
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
  if (t->wave) ix_wave_done_locked(r, t->wave - 1, w);
}

/* Drops one pending count of `t`; fires it and, in turn, its parents. Under lock. */
static void tok_release_pending(ix_run_t* r, ix_tok_t* t, ix_wake_t* w) {
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

void ix_tok_done(ix_run_t* r, ix_tok_t* t) {
  ix_wake_t w = {0};
  ix_lock(r);
  tok_release_pending(r, t, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

/*---------------------------------------------------------------------------*/
/* Strands                                                                   */
/*---------------------------------------------------------------------------*/

ix_strand_t* ix_strand_new(ix_run_t* r, ix_tok_t* join, ix_tok_t* scope, ix_pe_t* pe,
                           ix_space_t* space) {
  ix_strand_t* s = ix_calloc(r, 1, sizeof *s);
  if (!s) return NULL;
  s->run = r;
  s->task.fn = ix_strand_task;
  s->join = join;
  s->scope = scope;
  s->pe = pe;
  s->space = space;
  if (join) ix_tok_ref(join);
  if (scope) ix_tok_ref(scope);
  return s;
}

bool ix_strand_extra(ix_strand_t* c, const ix_strand_t* from, ix_tok_t* const* more, uint32_t n) {
  uint32_t have = from ? from->n_extra : 0;
  if (!have && !n) return true;
  c->extra = ix_alloc(c->run, (have + n) * sizeof(ix_tok_t*));
  if (!c->extra) return false;
  for (uint32_t i = 0; i < have + n; ++i) {
    c->extra[i] = i < have ? from->extra[i] : more[i - have];
    ix_tok_ref(c->extra[i]);
  }
  c->n_extra = have + n;
  return true;
}

void ix_strand_free(ix_strand_t* s) {
  ix_run_t* r = s->run;
  while (s->n) ix_pop(s);
  for (uint32_t i = 0; i < s->n_extra; ++i) ix_tok_unref(r, s->extra[i]);
  ix_free(r, s->extra);
  if (s->join) ix_tok_unref(r, s->join);
  if (s->scope) ix_tok_unref(r, s->scope);
  ix_free(r, s->frames);
  ix_free(r, s);
}

void ix_spawn(ix_run_t* r, ix_strand_t* s) {
  ix_lock(r);
  if (s->join) s->join->pending++;
  r->live++;
  r->active++;
  ix_unlock(r);
  air_pool_submit(r->pool, &s->task);
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
 * lock is released. */
void ix_strand_exit(ix_strand_t* s) {
  ix_run_t* r = s->run;
  ix_wake_t w = {0};
  air_status_t early = NULL;
  air_interp_done_fn_t done = r->done;
  void* user = r->user;
  while (s->n) ix_pop(s);
  ix_lock(r);
  if (s->join) tok_release_pending(r, s->join, &w);
  if (s->abandoned) r->abandoned--;
  ix_strand_free(s);
  r->live--;
  r->active--;
  bool call_done = ix_take_early_done(r, &early);
  bool last = r->live == 0;
  if (!last && r->active == 0 && !ix_failing(r)) deadlock(r, &w);
  ix_wake_flush(r, &w);
  if (last) {
    r->wd_stop = true;
    pthread_cond_signal(&r->wd_cond);
  }
  ix_unlock(r);
  if (call_done) done(user, early);
  if (!last) return;
  if (r->wd_running) {
    r->wd_running = false;
    pthread_join(r->wd_thread, NULL);
  }
  ix_run_unref(r);
}

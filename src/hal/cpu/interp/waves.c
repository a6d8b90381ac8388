/* waves.c - the schedule path of the CPU executor: the host level run from a
 * compiled schedule's partition (bound into a plan, plan.h) instead of by a
 * strand walking the body.
 *
 * Every wave has a completion token, made at the start with one pending count
 * (the opening). Opening a wave makes each of its commands a strand of its own
 * whose token counts toward the wave's (a command is done when it and everything
 * it started are), then drops that count, so the wave fires once all of them have.
 * Its firing (the token's on_fire hook, under the run lock) opens one gate of
 * each wave that waits for it: the next wave of its queue and the waves whose
 * kept waits name it. A wave whose gates are all open goes on the ready list,
 * and the opener - the host strand, parked while the list is empty - opens it.
 * Nothing blocks a thread and nothing polls; a run where nothing can progress
 * is reported like any other deadlock, the opener's line saying which waves
 * wait for what.
 *
 * Inside a wave, commands still wait for their program tokens (as dispatched ops
 * do on the dynamic path) and for the in-wave predecessors the plan lists. An
 * async command's token is bound to its result when the wave opens, before any
 * later wave can read it. Channel ops take their tickets at opening, in op order.
 *
 * Host-level allocs the memory plan places take their bytes from the transient
 * arena (zeroed, as memref.alloc's are); their dealloc frees nothing. */
#include "hal/cpu/interp/waves.h"

#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/plan.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* A run's state on the schedule path. The opener (the host strand) opens waves
 * whose gates have all opened and parks on `opener` when none is ready. */
typedef struct ix_waves_t {
  const air_interp_plan_t* plan;
  air_interp_plan_t* owned;        /* made for this run from desc->schedule */
  uint32_t* gates;                 /* per wave: gates still closed */
  uint32_t* done;                  /* per queue: waves completed */
  uint32_t* ready;                 /* waves ready to open, in the order they became so */
  uint32_t n_ready, n_taken;
  int64_t* t_open;                 /* per wave: when it opened (traces) */
  ix_tok_t** scratch;              /* the opener's: tokens of the wave being opened */
  ix_tok_t** wave_tok;             /* per wave until it has opened (refs) */
  ix_tok_t** early_tok;            /* per plan->early index (refs) */
  ix_wlist_t opener;
  uint32_t n_waves, n_early;       /* copies: the plan may be gone when the run is freed */
  char* arena;                     /* L3 transients */
  void* arena_raw;                 /* when the run allocated it */
  air_ptrmap_t live;               /* arena address -> 1 (under mem_lock) */
} ix_waves_t;

static void wave_fired(ix_run_t* r, ix_tok_t* t, ix_wake_t* wk);

air_status_t ix_waves_init(ix_run_t* r, const air_interp_desc_t* d) {
  if (!d->plan && !d->schedule) return NULL;
  ix_waves_t* ws = air_mem_calloc(&r->alloc, 1, sizeof *ws);
  if (!ws) return AIR_STATUS_OOM(&r->alloc, "schedule state");
  r->waves = ws;
  const air_interp_plan_t* pl = d->plan;
  if (!pl) {
    AIR_RETURN_IF_ERROR(air_interp_plan_build(&r->alloc, r->p, d->schedule, &ws->owned));
    pl = ws->owned;
  }
  if (pl->entry != d->entry || pl->program != r->p)
    return ix_err(r, d->entry, AIR_STATUS_INVALID_ARGUMENT,
                  "the schedule is for @%s of another program or entry, not @%s",
                  pl->schedule->entry, d->entry->sym ? d->entry->sym : "?");
  ws->plan = pl;
  uint32_t nw = pl->n_waves, nq = pl->part->n_queues;
  ws->n_waves = nw;
  ws->n_early = pl->n_early;
  ws->gates = air_mem_calloc(&r->alloc, nw ? nw : 1, sizeof *ws->gates);
  ws->done = air_mem_calloc(&r->alloc, nq ? nq : 1, sizeof *ws->done);
  ws->ready = air_mem_calloc(&r->alloc, nw ? nw : 1, sizeof *ws->ready);
  ws->t_open = air_mem_calloc(&r->alloc, nw ? nw : 1, sizeof *ws->t_open);
  ws->scratch = air_mem_calloc(&r->alloc, pl->max_width ? pl->max_width : 1, sizeof *ws->scratch);
  ws->wave_tok = air_mem_calloc(&r->alloc, nw ? nw : 1, sizeof *ws->wave_tok);
  ws->early_tok = air_mem_calloc(&r->alloc, pl->n_early ? pl->n_early : 1, sizeof *ws->early_tok);
  if (!ws->gates || !ws->done || !ws->ready || !ws->t_open || !ws->scratch || !ws->wave_tok ||
      !ws->early_tok)
    return AIR_STATUS_OOM(&r->alloc, "schedule state");
  for (uint32_t w = 0; w < nw; ++w) {
    ix_tok_t* t = ix_tok_new(r, pl->entry, NULL);
    if (!t) return AIR_STATUS_OOM(&r->alloc, "wave tokens");
    t->pending = 1; /* the opening */
    t->on_fire = wave_fired;
    t->tag = w;
    ws->wave_tok[w] = t;
    ws->gates[w] = pl->gates[w];
    if (!ws->gates[w]) ws->ready[ws->n_ready++] = w;
  }
  for (uint32_t c = 0; c < pl->n_cmds; ++c) {
    if (pl->early[c] == PLAN_NONE) continue;
    ix_tok_t* t = ix_tok_new(r, pl->ops[c], ws->wave_tok[pl->part->node_wave[c]]);
    if (!t) return AIR_STATUS_OOM(&r->alloc, "wave tokens");
    ws->early_tok[pl->early[c]] = t;
  }
  if (pl->transient_size) {
    uint64_t size = pl->transient_size, align = pl->alignment;
    if (d->transient) {
      if (d->transient_size < size || (uintptr_t)d->transient % align)
        return ix_err(r, d->entry, AIR_STATUS_INVALID_ARGUMENT,
                      "the transient arena is %llu bytes at an address aligned to %llu; @%s "
                      "needs %llu bytes aligned to %llu",
                      (unsigned long long)d->transient_size,
                      (unsigned long long)((uintptr_t)d->transient & -(uintptr_t)d->transient),
                      d->entry->sym ? d->entry->sym : "?", (unsigned long long)size,
                      (unsigned long long)align);
      ws->arena = d->transient;
    } else {
      if (size > SIZE_MAX - align)
        return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "transient arena too large");
      ws->arena_raw = air_mem_alloc(&r->alloc, (size_t)(size + align - 1));
      if (!ws->arena_raw)
        return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                          "out of memory for a %llu-byte transient arena",
                          (unsigned long long)size);
      ws->arena = (char*)(((uintptr_t)ws->arena_raw + align - 1) & ~(uintptr_t)(align - 1));
    }
  }
  return NULL;
}

void ix_waves_free(ix_run_t* r) {
  ix_waves_t* ws = r->waves;
  if (!ws) return;
  for (uint32_t k = 0; ws->early_tok && k < ws->n_early; ++k)
    if (ws->early_tok[k]) ix_tok_unref(r, ws->early_tok[k]);
  for (uint32_t w = 0; ws->wave_tok && w < ws->n_waves; ++w)
    if (ws->wave_tok[w]) ix_tok_unref(r, ws->wave_tok[w]);
  air_mem_free(&r->alloc, ws->gates);
  air_mem_free(&r->alloc, ws->done);
  air_mem_free(&r->alloc, ws->ready);
  air_mem_free(&r->alloc, ws->t_open);
  air_mem_free(&r->alloc, ws->scratch);
  air_mem_free(&r->alloc, ws->wave_tok);
  air_mem_free(&r->alloc, ws->early_tok);
  air_ptrmap_free(&ws->live, &r->alloc);
  air_mem_free(&r->alloc, ws->arena_raw);
  if (ws->owned) air_interp_plan_free(ws->owned);
  air_mem_free(&r->alloc, ws);
  r->waves = NULL;
}

/*---------------------------------------------------------------------------*/
/* Opening waves                                                             */
/*---------------------------------------------------------------------------*/

/* Starts command `c` (position `pos` of its wave) as a strand of its own. */
static int open_cmd(ix_strand_t* s, ix_frame_t* f, ix_tok_t* wave, uint32_t c, uint32_t pos) {
  ix_run_t* r = s->run;
  ix_waves_t* ws = r->waves;
  const air_interp_plan_t* pl = ws->plan;
  const air_op_t* op = pl->ops[c];
  ix_tok_t* t = NULL;
  if (pl->early[c] != PLAN_NONE) {
    t = ws->early_tok[pl->early[c]];
    ix_tok_ref(t);
  } else {
    t = ix_tok_new(r, op, wave);
  }
  if (!t) return ix_oom(s);
  uint32_t np = pl->pred_off[c + 1] - pl->pred_off[c];
  ix_tok_t** wait = np ? air_mem_alloc(&r->alloc, np * sizeof *wait) : NULL;
  ix_strand_t* cs = ix_strand_new(r, t, t, NULL, s->space);
  ix_frame_t cf = {.kind = IX_F_OP, .owner = op, .pc = op, .env = f->env};
  if (cs && air_opkind_class(op->kind) == AIR_OPC_CHANNEL_IO &&
      ix_chan_issue(s, f->env, op, &cf, NULL))
    cf.tk_op = op;
  if (!cs || (np && !wait) || !ix_push(cs, &cf)) {
    if (cs) {
      if (cs->n) cs->frames[0].env = NULL;
      ix_strand_free(cs);
    }
    air_mem_free(&r->alloc, wait);
    ix_tok_unref(r, t);
    return ix_oom(s);
  }
  ix_env_ref(f->env);
  if (np) {
    for (uint32_t k = 0; k < np; ++k) {
      uint32_t e = pl->pred[pl->pred_off[c] + k];
      wait[k] = e & PLAN_WATCH ? ws->early_tok[pl->early[e & ~PLAN_WATCH]] : ws->scratch[e];
      ix_tok_ref(wait[k]);
    }
    ix_frame_t wf = {.kind = IX_F_WAIT, .flags = IX_FL_EDGE, .owner = op, .state = wait,
                     .n_wait = np};
    if (!ix_push(cs, &wf)) {
      for (uint32_t k = 0; k < np; ++k) ix_tok_unref(r, wait[k]);
      air_mem_free(&r->alloc, wait);
      ix_strand_free(cs);
      ix_tok_unref(r, t);
      return ix_oom(s);
    }
  }
  if (ix_is_async(op)) ix_set(r, f->env, op->results[0], (ix_val_t){.p = t});
  ws->scratch[pos] = t; /* our reference, until the whole wave is open */
  ix_spawn(r, cs);
  return IX_CONT;
}

static int open_wave(ix_strand_t* s, ix_frame_t* f, uint32_t w) {
  ix_run_t* r = s->run;
  ix_waves_t* ws = r->waves;
  const air_interp_plan_t* pl = ws->plan;
  ix_tok_t* wave = ws->wave_tok[w];
  ws->wave_tok[w] = NULL;
  ws->t_open[w] = air_time_now_ns();
  uint32_t b = pl->wave_cmd[w], e = pl->wave_cmd[w + 1];
  int rc = IX_CONT;
  for (uint32_t k = b; k < e && rc == IX_CONT; ++k) rc = open_cmd(s, f, wave, pl->cmds[k], k - b);
  for (uint32_t k = 0; k < e - b; ++k)
    if (ws->scratch[k]) {
      ix_tok_unref(r, ws->scratch[k]);
      ws->scratch[k] = NULL;
    }
  ix_tok_unhold(r, wave); /* the opening's count: the wave may complete from here on */
  ix_tok_unref(r, wave);
  return rc;
}

int ix_step_open(ix_strand_t* s, ix_frame_t* f) {
  ix_run_t* r = s->run;
  ix_waves_t* ws = r->waves;
  ix_wake_t w = {0};
  ix_lock(r);
  if (ws->n_taken == ws->n_ready) {
    if (ws->n_taken == ws->plan->n_waves) {
      ix_unlock(r);
      ix_pop(s);
      return IX_CONT;
    }
    s->w.park = (ix_park_t){.why = IX_WHY_GATE, .op = f->owner};
    bool parked = ix_park_locked(r, &s->w, &ws->opener, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  /* Entries below n_ready are final once written (under the lock, read after it). */
  uint32_t from = ws->n_taken, to = ws->n_ready;
  ws->n_taken = to;
  ix_unlock(r);
  for (uint32_t i = from; i < to; ++i) {
    int rc = open_wave(s, f, ws->ready[i]);
    if (rc != IX_CONT) return rc;
  }
  return IX_CONT;
}

static const char* queue_kind(const air_interp_plan_t* pl, uint32_t q) {
  const air_schedule_t* sc = pl->schedule;
  return air_sched_queue_kind_name(q < sc->n_queues ? sc->queue_kind[q] : UINT32_MAX);
}

/* A wave's token fired: open a gate of each wave after it. After a failure the
 * executable (and the plan) may already be gone when an abandoned kernel's
 * strand finally leaves: touch nothing of it then. */
static void wave_fired(ix_run_t* r, ix_tok_t* t, ix_wake_t* wk) {
  ix_waves_t* ws = r->waves;
  uint32_t w = t->tag;
  if (ix_failing(r) || !ws->plan) return;
  const air_interp_plan_t* pl = ws->plan;
  const air_partition_wave_t* W = &pl->part->waves[w];
  ws->done[W->queue]++;
  if (r->trace) {
    char track[64], name[48];
    snprintf(track, sizeof track, "schedule: queue %u (%s)", W->queue, queue_kind(pl, W->queue));
    snprintf(name, sizeof name, "wave %u (%u commands)",
             w - pl->part->queues[W->queue].wave_begin, pl->wave_cmd[w + 1] - pl->wave_cmd[w]);
    air_trace_record(r->trace, AIR_TRACK_HOST, track, name, ws->t_open[w], air_time_now_ns());
  }
  bool any = false;
  for (uint32_t k = pl->succ_off[w]; k < pl->succ_off[w + 1]; ++k) {
    uint32_t x = pl->succ[k];
    if (--ws->gates[x] == 0) {
      ws->ready[ws->n_ready++] = x;
      any = true;
    }
  }
  if (any) ix_wake_all(r, &ws->opener, wk);
}

void ix_waves_describe(ix_run_t* r, air_sb_t* sb) {
  ix_waves_t* ws = r->waves;
  const air_interp_plan_t* pl = ws->plan;
  const air_partition_t* P = pl->part;
  const air_op_t* e = pl->entry;
  air_sb_printf(sb, "%s:%u:%u: func.func @%s: the schedule has %u of %u waves not started",
                r->p->filename, e->line, e->col, e->sym ? e->sym : "?", pl->n_waves - ws->n_ready,
                pl->n_waves);
  uint32_t shown = 0;
  for (uint32_t q = 0; q < P->n_queues && shown < 8; ++q) {
    uint32_t w = P->queues[q].wave_begin;
    while (w < P->queues[q].wave_end && !ws->gates[w]) ++w;
    if (w == P->queues[q].wave_end) continue;
    uint32_t k = w - P->queues[q].wave_begin;
    air_sb_printf(sb, "%s queue %u (%s) wave %u waits for", shown++ ? ";" : ":", q,
                  queue_kind(pl, q), k);
    const char* sep = " ";
    if (k && ws->done[q] < k) {
      air_sb_printf(sb, "%sits wave %u", sep, k - 1);
      sep = ", ";
    }
    for (uint32_t j = P->waves[w].wait_begin; j < P->waves[w].wait_end; ++j) {
      const air_partition_wait_t* x = &P->waits[j];
      if (ws->done[x->queue] >= x->value) continue;
      air_sb_printf(sb, "%squeue %u (%s) wave %u", sep, x->queue, queue_kind(pl, x->queue),
                    x->value - 1);
      sep = ", ";
    }
  }
}

/*---------------------------------------------------------------------------*/
/* Planned L3 allocs                                                         */
/*---------------------------------------------------------------------------*/

static const ix_l3_t* find_l3(const air_interp_plan_t* pl, const air_op_t* op) {
  uint32_t lo = 0, hi = pl->n_l3;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (pl->l3[mid].op == op) return &pl->l3[mid];
    if ((uintptr_t)pl->l3[mid].op < (uintptr_t)op)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

bool ix_arena_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st) {
  air_memref_t m;
  if (!ix_arena_alloc_view(r, op, &m, st)) return false;
  if (!*st) ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return true;
}

bool ix_arena_alloc_view(ix_run_t* r, const air_op_t* op, air_memref_t* out, air_status_t* st) {
  ix_waves_t* ws = r->waves;
  if (!ws || !ws->arena) return false;
  const ix_l3_t* b = find_l3(ws->plan, op);
  if (!b) return false;
  const air_type_info_t* t = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.elem = t->elem;
  m.rank = t->rank;
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    m.sizes[k] = t->shape[k];
    m.strides[k] = stride;
    stride *= t->shape[k];
  }
  char* data = ws->arena + b->offset;
  pthread_mutex_lock(&r->mem_lock);
  bool fresh = !air_ptrmap_get(&ws->live, data);
  bool ok = fresh && air_ptrmap_put(&ws->live, &r->alloc, data, (void*)(uintptr_t)1);
  pthread_mutex_unlock(&r->mem_lock);
  if (!fresh) {
    *st = ix_err(r, op, AIR_STATUS_INTERNAL,
                 "memref.alloc: the memory plan places it over a buffer still in use");
  } else if (!ok) {
    *st = ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory");
  } else {
    memset(data, 0, (size_t)b->bytes);
    m.data = data;
    *out = m;
    *st = NULL;
  }
  return true;
}

bool ix_arena_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st) {
  ix_waves_t* ws = r->waves;
  if (!ws || !ws->arena || !op->n_operands) return false;
  air_memref_t* v;
  air_status_t gs = ix_get_view(r, e, op, op->operands[0], &v);
  if (gs) { /* reported again by the generic path */
    air_status_free(gs);
    return false;
  }
  return ix_arena_dealloc_view(r, op, v, st);
}

bool ix_arena_dealloc_view(ix_run_t* r, const air_op_t* op, const air_memref_t* v,
                           air_status_t* st) {
  ix_waves_t* ws = r->waves;
  if (!ws || !ws->arena) return false;
  uintptr_t d = (uintptr_t)v->data, base = (uintptr_t)ws->arena;
  if (d < base || d - base >= ws->plan->transient_size) return false;
  pthread_mutex_lock(&r->mem_lock);
  bool had = air_ptrmap_del(&ws->live, v->data);
  pthread_mutex_unlock(&r->mem_lock);
  *st = had ? NULL
            : ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                     "memref.dealloc of memory that memref.alloc did not return or that was "
                     "already freed");
  return true;
}

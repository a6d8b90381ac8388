/* interp_wave.c - the schedule path of the CPU executor: the host level run from
 * a compiled schedule's partition instead of by a strand walking the body.
 *
 * Every wave has a completion token, made at the start with one pending count
 * (the opening). Opening a wave makes each of its commands a strand of its own
 * whose token counts toward the wave's (a command is done when it and everything
 * it started are), then drops that count, so the wave fires once all of them have.
 * Its firing (under the run lock) opens one gate of each wave that waits for it:
 * the next wave of its queue and the waves whose kept waits name it. A wave whose
 * gates are all open goes on the ready list, and the driver - the host strand,
 * parked while the list is empty - opens it. Nothing blocks a thread and nothing
 * polls; a run where nothing can progress is reported like any other deadlock,
 * the driver's line saying which waves wait for what.
 *
 * Inside a wave, commands still wait for their program tokens (as dispatched ops
 * do on the dynamic path) and for the in-wave predecessors the plan lists. An
 * async command's token is bound to its result when the wave opens, before any
 * later wave can read it. Channel ops take their tickets at opening, in op order.
 *
 * Host-level allocs the memory plan places take their bytes from the transient
 * arena (zeroed, as memref.alloc's are); their dealloc frees nothing. */
#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/status_util.h"

#define PLAN_WATCH (1u << 31)
#define PLAN_NONE UINT32_MAX

air_status_t ix_sched_init(ix_run_t* r, const air_interp_desc_t* d) {
  ix_sched_t* sc = &r->sched;
  if (!d->plan && !d->schedule) return NULL;
  const air_interp_plan_t* pl = d->plan;
  if (!pl) {
    AIR_RETURN_IF_ERROR(air_interp_plan_build(&r->alloc, r->p, d->schedule, &sc->owned));
    pl = sc->owned;
  }
  if (pl->entry != d->entry || pl->program != r->p)
    return ix_err(r, d->entry, AIR_STATUS_INVALID_ARGUMENT,
                  "the schedule is for @%s of another program or entry, not @%s",
                  pl->schedule->entry, d->entry->sym ? d->entry->sym : "?");
  sc->plan = pl;
  uint32_t nw = pl->n_waves, nq = pl->part->n_queues;
  sc->n_waves = nw;
  sc->n_early = pl->n_early;
  sc->gates = ix_calloc(r, nw ? nw : 1, sizeof *sc->gates);
  sc->done = ix_calloc(r, nq ? nq : 1, sizeof *sc->done);
  sc->ready = ix_calloc(r, nw ? nw : 1, sizeof *sc->ready);
  sc->t_open = ix_calloc(r, nw ? nw : 1, sizeof *sc->t_open);
  sc->scratch = ix_calloc(r, pl->max_width ? pl->max_width : 1, sizeof *sc->scratch);
  sc->wave_tok = ix_calloc(r, nw ? nw : 1, sizeof *sc->wave_tok);
  sc->early_tok = ix_calloc(r, pl->n_early ? pl->n_early : 1, sizeof *sc->early_tok);
  if (!sc->gates || !sc->done || !sc->ready || !sc->t_open || !sc->scratch || !sc->wave_tok ||
      !sc->early_tok)
    return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t w = 0; w < nw; ++w) {
    ix_tok_t* t = ix_tok_new(r, pl->entry, NULL);
    if (!t) return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    t->pending = 1; /* the opening */
    t->wave = w + 1;
    sc->wave_tok[w] = t;
    sc->gates[w] = pl->gates[w];
    if (!sc->gates[w]) sc->ready[sc->n_ready++] = w;
  }
  for (uint32_t c = 0; c < pl->n_cmds; ++c) {
    if (pl->early[c] == PLAN_NONE) continue;
    ix_tok_t* t = ix_tok_new(r, pl->ops[c], sc->wave_tok[pl->part->node_wave[c]]);
    if (!t) return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    sc->early_tok[pl->early[c]] = t;
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
      sc->arena = d->transient;
    } else {
      if (size > SIZE_MAX - align)
        return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "transient arena too large");
      sc->arena_raw = ix_alloc(r, (size_t)(size + align - 1));
      if (!sc->arena_raw)
        return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                          "out of memory for a %llu-byte transient arena",
                          (unsigned long long)size);
      sc->arena = (char*)(((uintptr_t)sc->arena_raw + align - 1) & ~(uintptr_t)(align - 1));
    }
  }
  return NULL;
}

void ix_sched_free(ix_run_t* r) {
  ix_sched_t* sc = &r->sched;
  for (uint32_t k = 0; sc->early_tok && k < sc->n_early; ++k)
    if (sc->early_tok[k]) ix_tok_unref(r, sc->early_tok[k]);
  for (uint32_t w = 0; sc->wave_tok && w < sc->n_waves; ++w)
    if (sc->wave_tok[w]) ix_tok_unref(r, sc->wave_tok[w]);
  ix_free(r, sc->gates);
  ix_free(r, sc->done);
  ix_free(r, sc->ready);
  ix_free(r, sc->t_open);
  ix_free(r, sc->scratch);
  ix_free(r, sc->wave_tok);
  ix_free(r, sc->early_tok);
  ix_free(r, sc->live.keys);
  ix_free(r, sc->live.vals);
  ix_free(r, sc->arena_raw);
  if (sc->owned) air_interp_plan_free(sc->owned);
  memset(sc, 0, sizeof *sc);
}

/*---------------------------------------------------------------------------*/
/* Opening waves                                                             */
/*---------------------------------------------------------------------------*/

/* Starts command `c` (position `pos` of its wave) as a strand of its own. */
static int open_cmd(ix_strand_t* s, ix_frame_t* f, ix_tok_t* wave, uint32_t c, uint32_t pos) {
  ix_run_t* r = s->run;
  ix_sched_t* sc = &r->sched;
  const air_interp_plan_t* pl = sc->plan;
  const air_op_t* op = pl->ops[c];
  ix_tok_t* t = NULL;
  if (pl->early[c] != PLAN_NONE) {
    t = sc->early_tok[pl->early[c]];
    ix_tok_ref(t);
  } else {
    t = ix_tok_new(r, op, wave);
  }
  if (!t) return ix_oom(s);
  uint32_t np = pl->pred_off[c + 1] - pl->pred_off[c];
  ix_tok_t** wait = np ? ix_alloc(r, np * sizeof *wait) : NULL;
  ix_strand_t* cs = ix_strand_new(r, t, t, NULL, s->space);
  ix_frame_t cf = {.kind = IX_F_OP, .owner = op, .pc = op, .env = f->env};
  if (cs && air_opkind_class(op->kind) == AIR_OPC_CHANNEL_IO &&
      ix_chan_issue(s, f->env, op, &cf.ticket))
    cf.tk_op = op;
  if (!cs || (np && !wait) || !ix_push(cs, &cf)) {
    if (cs) {
      if (cs->n) cs->frames[0].env = NULL;
      ix_strand_free(cs);
    }
    ix_free(r, wait);
    ix_tok_unref(r, t);
    return ix_oom(s);
  }
  ix_env_ref(f->env);
  if (np) {
    for (uint32_t k = 0; k < np; ++k) {
      uint32_t e = pl->pred[pl->pred_off[c] + k];
      wait[k] = e & PLAN_WATCH ? sc->early_tok[pl->early[e & ~PLAN_WATCH]] : sc->scratch[e];
      ix_tok_ref(wait[k]);
    }
    ix_frame_t wf = {.kind = IX_F_WAIT, .flags = IX_FL_EDGE, .owner = op, .state = wait,
                     .n_wait = np};
    if (!ix_push(cs, &wf)) {
      for (uint32_t k = 0; k < np; ++k) ix_tok_unref(r, wait[k]);
      ix_free(r, wait);
      ix_strand_free(cs);
      ix_tok_unref(r, t);
      return ix_oom(s);
    }
  }
  if (ix_is_async(op)) ix_set(r, f->env, op->results[0], (ix_val_t){.p = t});
  sc->scratch[pos] = t; /* our reference, until the whole wave is open */
  ix_spawn(r, cs);
  return IX_CONT;
}

static int open_wave(ix_strand_t* s, ix_frame_t* f, uint32_t w) {
  ix_run_t* r = s->run;
  ix_sched_t* sc = &r->sched;
  const air_interp_plan_t* pl = sc->plan;
  ix_tok_t* wave = sc->wave_tok[w];
  sc->wave_tok[w] = NULL;
  sc->t_open[w] = air_time_now_ns();
  uint32_t b = pl->wave_cmd[w], e = pl->wave_cmd[w + 1];
  int rc = IX_CONT;
  for (uint32_t k = b; k < e && rc == IX_CONT; ++k) rc = open_cmd(s, f, wave, pl->cmds[k], k - b);
  for (uint32_t k = 0; k < e - b; ++k)
    if (sc->scratch[k]) {
      ix_tok_unref(r, sc->scratch[k]);
      sc->scratch[k] = NULL;
    }
  ix_tok_done(r, wave); /* the opening's count: the wave may complete from here on */
  ix_tok_unref(r, wave);
  return rc;
}

int ix_step_sched(ix_strand_t* s, ix_frame_t* f) {
  ix_run_t* r = s->run;
  ix_sched_t* sc = &r->sched;
  ix_wake_t w = {0};
  ix_lock(r);
  if (sc->n_taken == sc->n_ready) {
    if (sc->n_taken == sc->plan->n_waves) {
      ix_unlock(r);
      ix_pop(s);
      return IX_CONT;
    }
    s->park = (ix_park_t){.why = IX_WHY_WAVE, .op = f->owner};
    bool parked = ix_park_locked(s, &sc->driver, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  /* Entries below n_ready are final once written (under the lock, read after it). */
  uint32_t from = sc->n_taken, to = sc->n_ready;
  sc->n_taken = to;
  ix_unlock(r);
  for (uint32_t i = from; i < to; ++i) {
    int rc = open_wave(s, f, sc->ready[i]);
    if (rc != IX_CONT) return rc;
  }
  return IX_CONT;
}

static const char* queue_kind(const air_interp_plan_t* pl, uint32_t q) {
  const air_schedule_t* sc = pl->schedule;
  return air_sched_queue_kind_name(q < sc->n_queues ? sc->queue_kind[q] : UINT32_MAX);
}

/* After a failure the executable (and the plan) may already be gone when an
 * abandoned kernel's strand finally leaves: touch nothing of it then. */
void ix_wave_done_locked(ix_run_t* r, uint32_t w, ix_wake_t* wk) {
  ix_sched_t* sc = &r->sched;
  if (ix_failing(r) || !sc->plan) return;
  const air_interp_plan_t* pl = sc->plan;
  const air_partition_wave_t* W = &pl->part->waves[w];
  sc->done[W->queue]++;
  if (r->trace) {
    char track[64], name[48];
    snprintf(track, sizeof track, "schedule: queue %u (%s)", W->queue, queue_kind(pl, W->queue));
    snprintf(name, sizeof name, "wave %u (%u commands)",
             w - pl->part->queues[W->queue].wave_begin, pl->wave_cmd[w + 1] - pl->wave_cmd[w]);
    air_trace_record(r->trace, AIR_TRACK_HOST, track, name, sc->t_open[w], air_time_now_ns());
  }
  bool any = false;
  for (uint32_t k = pl->succ_off[w]; k < pl->succ_off[w + 1]; ++k) {
    uint32_t x = pl->succ[k];
    if (--sc->gates[x] == 0) {
      sc->ready[sc->n_ready++] = x;
      any = true;
    }
  }
  if (any) ix_wake_all(r, &sc->driver, wk);
}

void ix_sched_describe(ix_run_t* r, air_sb_t* sb) {
  ix_sched_t* sc = &r->sched;
  const air_interp_plan_t* pl = sc->plan;
  const air_partition_t* P = pl->part;
  const air_op_t* e = pl->entry;
  air_sb_printf(sb, "%s:%u:%u: func.func @%s: the schedule has %u of %u waves not started",
                r->p->filename, e->line, e->col, e->sym ? e->sym : "?", pl->n_waves - sc->n_ready,
                pl->n_waves);
  uint32_t shown = 0;
  for (uint32_t q = 0; q < P->n_queues && shown < 8; ++q) {
    uint32_t w = P->queues[q].wave_begin;
    while (w < P->queues[q].wave_end && !sc->gates[w]) ++w;
    if (w == P->queues[q].wave_end) continue;
    uint32_t k = w - P->queues[q].wave_begin;
    air_sb_printf(sb, "%s queue %u (%s) wave %u waits for", shown++ ? ";" : ":", q,
                  queue_kind(pl, q), k);
    const char* sep = " ";
    if (k && sc->done[q] < k) {
      air_sb_printf(sb, "%sits wave %u", sep, k - 1);
      sep = ", ";
    }
    for (uint32_t j = P->waves[w].wait_begin; j < P->waves[w].wait_end; ++j) {
      const air_partition_wait_t* x = &P->waits[j];
      if (sc->done[x->queue] >= x->value) continue;
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

bool ix_sched_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st) {
  ix_sched_t* sc = &r->sched;
  if (!sc->arena) return false;
  const ix_l3_t* b = find_l3(sc->plan, op);
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
  char* data = sc->arena + b->offset;
  pthread_mutex_lock(&r->mem_lock);
  bool fresh = !ix_map_get(&sc->live, data);
  bool ok = fresh && ix_map_put(r, &sc->live, data, (void*)(uintptr_t)1);
  pthread_mutex_unlock(&r->mem_lock);
  if (!fresh) {
    *st = ix_err(r, op, AIR_STATUS_INTERNAL,
                 "memref.alloc: the memory plan places it over a buffer still in use");
  } else if (!ok) {
    *st = ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory");
  } else {
    memset(data, 0, (size_t)b->bytes);
    m.data = data;
    ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
    *st = NULL;
  }
  return true;
}

bool ix_sched_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st) {
  ix_sched_t* sc = &r->sched;
  if (!sc->arena || !op->n_operands) return false;
  air_memref_t* v;
  air_status_t gs = ix_get_view(r, e, op, op->operands[0], &v);
  if (gs) { /* reported again by the generic path */
    air_status_free(gs);
    return false;
  }
  uintptr_t d = (uintptr_t)v->data, base = (uintptr_t)sc->arena;
  if (d < base || d - base >= sc->plan->transient_size) return false;
  pthread_mutex_lock(&r->mem_lock);
  bool had = ix_map_del(&sc->live, v->data);
  pthread_mutex_unlock(&r->mem_lock);
  *st = had ? NULL
            : ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                     "memref.dealloc of memory that memref.alloc did not return or that was "
                     "already freed");
  return true;
}

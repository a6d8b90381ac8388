/* loop.c - the strand loop: runs a strand's top frame step by step, dispatches
 * async ops as strands of their own, holds every op until its dependencies have
 * fired and the air.execute results it reads exist, and hands each op to its
 * family.
 *
 * An op handler either completes the op (ix_next and IX_CONT), pushes a frame
 * (IX_CONT; the frame's end completes the op), parks (IX_PARKED: the strand may
 * already be running elsewhere, touch nothing), or fails (IX_FAILED). Handlers
 * park only before their first side effect, so re-running an op from the start
 * after a wake is safe.
 *
 * Extension point: a new op family is one case in exec() (a compute handler
 * returning a status, run under the watchdog like linalg, or a step handler
 * returning IX_*), and its ops in tables.c's pure_block when they cannot park. */
#include "hal/cpu/interp/loop.h"

#include "hal/cpu/interp/call.h"
#include "hal/cpu/interp/chain.h"
#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/control.h"
#include "hal/cpu/interp/dma.h"
#include "hal/cpu/interp/flat.h"
#include "hal/cpu/interp/hier.h"
#include "hal/cpu/interp/linalg.h"
#include "hal/cpu/interp/memref.h"
#include "hal/cpu/interp/parallel.h"
#include "hal/cpu/interp/rank.h"
#include "hal/cpu/interp/scalar.h"
#include "hal/cpu/interp/trace.h"
#include "hal/cpu/interp/unit.h"
#include "hal/cpu/interp/views.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/cpu/interp/waves.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

static int guard(ix_strand_t* s, ix_env_t* e, const air_op_t* op, air_vid_t v) {
  ix_run_t* r = s->run;
  if (!v || v >= r->tab.n_values || !r->tab.vinfo[v].guard) return IX_CONT;
  ix_tok_t* t;
  air_status_t st = ix_get_tok(r, e, op, r->tab.vinfo[v].guard, &t);
  if (st) return ix_failed(s, st);
  return ix_tok_fired(t) ? IX_CONT : ix_park_tok(s, t, IX_WHY_VALUE, op, v);
}

/* Dependencies fired and every air.execute result the op reads available (its
 * record's guarded values). A compiled unit `u` reads what every op under it
 * reads, and may touch memory. */
static int wait_ready(ix_strand_t* s, ix_env_t* e, const air_op_t* op, const ix_oprec_t* rec,
                      const air_cg_unit_t* u) {
  ix_run_t* r = s->run;
  if (s->n_extra && (u || !ix_init_free(op))) {
    while (s->n_extra) {
      ix_tok_t* t = s->extra[s->n_extra - 1];
      if (!ix_tok_fired(t)) {
        int rc = ix_park_tok(s, t, IX_WHY_INIT, op, 0);
        if (rc != IX_CONT) return rc;
      }
      s->n_extra--;
      ix_tok_unref(r, t);
    }
  }
  const air_vlist_t* deps = &op->toks[AIR_TOK_DEP];
  for (uint32_t i = 0; i < deps->n; ++i) {
    ix_tok_t* t;
    air_status_t st = ix_get_tok(r, e, op, deps->items[i], &t);
    if (st) return ix_failed(s, st);
    if (!ix_tok_fired(t)) {
      int rc = ix_park_tok(s, t, IX_WHY_DEP, op, deps->items[i]);
      if (rc != IX_CONT) return rc;
    }
  }
  int rc;
  /* Every op under the module body has one (oprec.c, built with the tables). */
  if (!rec)
    return ix_failed(s, AIR_STATUS(&r->alloc, AIR_STATUS_INTERNAL,
                                   "interpreter: no op record for '%s'", air_opkind_name(op->kind)));
  for (uint32_t i = 0; i < rec->n_guarded; ++i)
    if ((rc = guard(s, e, op, rec->guarded[i])) != IX_CONT) return rc;
  for (uint32_t i = 0; u && i < u->n_in; ++i) {
    rc = guard(s, e, op, u->in[i]);
    if (rc != IX_CONT) return rc;
  }
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* Async dispatch                                                            */
/*---------------------------------------------------------------------------*/

/* Whether async op `op` may run right here, in its dispatcher's strand, instead
 * of on a strand of its own: everything it waits for has fired (dependencies,
 * the strand's scf.parallel init tokens, the air.execute results it reads) and
 * it completes without waiting - a wait_all, a DMA, a put whose slot is free or a
 * get whose transfer is there (`chan_now`, seen as its ticket was taken), an
 * air.execute whose region cannot park. Nothing can tell the difference except
 * the time it takes: the op would have run at once on its own strand too, and
 * its token fires only when it is done. What it saves is a strand, a spawn and
 * a wake per op. */
/* Everything async `op` waits for has fired: the strand's scf.parallel init
 * tokens, its dependencies, the air.execute results it reads (its record's
 * guarded values). */
static bool waits_fired(ix_strand_t* s, ix_env_t* e, const air_op_t* op,
                        const ix_oprec_t* rec) {
  ix_run_t* r = s->run;
  for (uint32_t i = 0; i < s->n_extra; ++i)
    if (!ix_tok_fired(s->extra[i])) return false;
  const air_vlist_t* deps = &op->toks[AIR_TOK_DEP];
  for (uint32_t i = 0; i < deps->n; ++i) {
    ix_val_t* x = ix_slot(r, e, deps->items[i]);
    if (!x || !x->p || !ix_tok_fired(x->p)) return false;
  }
  for (uint32_t i = 0; i < rec->n_guarded; ++i) {
    ix_val_t* g = ix_slot(r, e, r->tab.vinfo[rec->guarded[i]].guard);
    if (!g || !g->p || !ix_tok_fired(g->p)) return false;
  }
  return true;
}

/* Whether async op `op` may run right here, in its dispatcher's strand, instead
 * of on a strand of its own: everything it waits for has fired (waits_fired)
 * and it completes without waiting - a wait_all, a DMA, a put whose slot is
 * free or a get whose transfer is there (`chan_now`, seen as its ticket was
 * taken), an air.execute whose region cannot park. Nothing can tell the
 * difference except the time it takes: the op would have run at once on its
 * own strand too, and its token fires only when it is done. What it saves is a
 * strand, a spawn and a wake per op. */
static bool ready_now(ix_strand_t* s, ix_env_t* e, const air_op_t* op, bool have_ticket,
                      bool chan_now) {
  ix_run_t* r = s->run;
  if (r->trace || ix_failing(r)) return false;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_WAIT_ALL: case AIR_OPC_DMA: break;
    case AIR_OPC_CHANNEL_IO: if (!have_ticket || !chan_now) return false; break;
    case AIR_OPC_EXECUTE: {
      const ix_binfo_t* bi = op->n_regions && op->regions[0]
                                 ? air_ptrmap_get(&r->tab.blocks, op->regions[0])
                                 : NULL;
      if (!bi || !bi->pure) return false;
      break;
    }
    default: return false;
  }
  const ix_oprec_t* rec = ix_oprec(&r->tab, op);
  return rec && waits_fired(s, e, op, rec); /* without a record: wait_ready reports it */
}

/* Whether async `op` can run in its issuer's strand at all (chain.h): the run
 * chains, and the op is a wait_all, a DMA, a channel op whose ticket was taken
 * at issue, or an air.execute whose region cannot park. */
static bool chainable(ix_strand_t* s, const air_op_t* op, bool have_ticket) {
  ix_run_t* r = s->run;
  if (!ix_chain_on(r) || ix_failing(r)) return false;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_WAIT_ALL: case AIR_OPC_DMA: return true;
    case AIR_OPC_CHANNEL_IO: return have_ticket;
    case AIR_OPC_EXECUTE: {
      const ix_binfo_t* bi = op->n_regions && op->regions[0]
                                 ? air_ptrmap_get(&r->tab.blocks, op->regions[0])
                                 : NULL;
      return bi && bi->calm;
    }
    default: return false;
  }
}

/* Runs ready async `op` in this strand: its token (held until the op's frame
 * goes) to the result, the strand's own frame past the op, the op's frame on top. */
static int run_here(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_frame_t* cf) {
  ix_run_t* r = s->run;
  ix_env_t* env = f->env;
  ix_tok_t* t = ix_tok_new_unlocked(r, op, NULL, 1); /* nobody else sees it yet */
  if (!t) return ix_oom(s);
  ix_frame_t of = *cf;
  of.done = t; /* the frame's ref and pending count */
  ix_set(r, env, op->results[0], (ix_val_t){.p = t});
  ix_next(s);
  ix_env_ref(env);
  if (!ix_push(s, &of)) {
    ix_env_unref(r, env);
    ix_tok_unhold(r, t);
    ix_tok_unref(r, t);
    return ix_oom(s);
  }
  return IX_CONT;
}

/* A token new strand `c` would park on first when it runs `op` (its
 * scf.parallel init tokens, then `op`'s dependencies), with the park reason
 * wait_ready would give; NULL when all have fired or one is not known yet. */
static ix_tok_t* first_unfired(ix_strand_t* c, ix_env_t* e, const air_op_t* op, uint8_t* why,
                               air_vid_t* v) {
  ix_run_t* r = c->run;
  if (!ix_init_free(op))
    for (uint32_t i = c->n_extra; i-- > 0;)
      if (!ix_tok_fired(c->extra[i])) {
        *why = IX_WHY_INIT, *v = 0;
        return c->extra[i];
      }
  const air_vlist_t* deps = &op->toks[AIR_TOK_DEP];
  for (uint32_t i = 0; i < deps->n; ++i) {
    ix_val_t* x = ix_slot(r, e, deps->items[i]);
    if (!x || !x->p) return NULL;
    if (!ix_tok_fired(x->p)) {
      *why = IX_WHY_DEP, *v = deps->items[i];
      return x->p;
    }
  }
  return NULL;
}

/* Starts `op` on a strand of its own. Async: its token goes to the result and
 * this strand moves on (or the op runs here when ready_now). Sync (a hierarchy
 * op without result): this strand waits for the op's completion token. */
static int dispatch(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, bool sync) {
  ix_run_t* r = s->run;
  ix_env_t* env = f->env;
  ix_frame_t cf = {.kind = IX_F_OP, .owner = op, .pc = op, .env = env};
  bool io = air_opkind_class(op->kind) == AIR_OPC_CHANNEL_IO;
  const ix_oprec_t* rec = io ? ix_oprec(&r->tab, op) : NULL;
  if (rec && !sync && !(f->flags & IX_FL_SPREAD) && chainable(s, op, true) &&
      waits_fired(s, env, op, rec)) {
    /* A chain op with everything it waits for fired (in a chained strand its
     * dependencies are the earlier chain ops: nearly always): it runs now, so
     * its ticket is taken as it runs, in the same lane lock as its transfer
     * (ix_chan_io takes one for an op without), still in issue order, and
     * resolving the op, the lane lookup, the lock round trip of an issue and
     * the strand loop's pass over the op (wait_ready) happen once. Parked in
     * its transfer, it is where a chain op whose issue took the ticket parks. */
    int rc = ix_chain_push(s, f, op, &cf);
    return rc == IX_CONT ? ix_chan_run(s, ix_top(s), op, rec) : rc;
  }
  bool chan_now = false; /* the ticket's transfer could move at once (one lock with the issue) */
  if (io && ix_chan_issue(s, env, op, &cf, &chan_now)) cf.tk_op = op;
  if (!sync) {
    /* In its issuer's strand (chain.h): in order, parking there if it must wait,
     * unless one of this frame's chain ops was released; then only when ready. */
    bool chain = chainable(s, op, cf.tk_op == op);
    if (chain && !(f->flags & IX_FL_SPREAD)) return ix_chain_push(s, f, op, &cf);
    if (ready_now(s, env, op, cf.tk_op == op, chan_now))
      return chain ? ix_chain_push(s, f, op, &cf) : run_here(s, f, op, &cf);
  }
  ix_tok_t* parent = sync ? NULL : s->scope; /* its count taken in ix_spawn_new's lock */
  ix_tok_t* t = ix_tok_new_unlocked(r, op, parent, 0);
  ix_strand_t* c = t ? ix_strand_new(r, t, t, s->pe, s->space) : NULL;
  ix_tok_t** wt = sync && c ? air_mem_alloc(&r->alloc, sizeof(ix_tok_t*)) : NULL;
  if (!c || !ix_strand_extra(c, s, NULL, 0) || !ix_push(c, &cf) || (sync && !wt)) {
    if (c) {
      if (c->n) c->frames[0].env = NULL;
      ix_strand_free(c);
    }
    air_mem_free(&r->alloc, wt);
    if (t) ix_tok_unref(r, t);
    return ix_oom(s);
  }
  ix_env_ref(env);
  if (sync) {
    ix_tok_ref(t);
    wt[0] = t;
    ix_frame_t wf = {.kind = IX_F_WAIT, .owner = op, .after = IX_AFTER_NEXT, .state = wt,
                     .n_wait = 1};
    if (!ix_push(s, &wf)) {
      ix_tok_unref(r, t);
      air_mem_free(&r->alloc, wt);
      ix_strand_free(c);
      ix_tok_unref(r, t);
      return ix_oom(s);
    }
  } else {
    ix_set(r, env, op->results[0], (ix_val_t){.p = t});
    ix_next(s);
  }
  uint8_t why = 0;
  air_vid_t wv = 0;
  ix_tok_t* blocker = first_unfired(c, env, op, &why, &wv);
  ix_spawn_new(r, c, parent, blocker, why, op, wv);
  ix_tok_unref(r, t);
  return IX_CONT;
}

static int step_wait(ix_strand_t* s, ix_frame_t* f) {
  ix_tok_t** toks = f->state;
  while (f->k < f->n_wait) {
    ix_tok_t* t = toks[f->k];
    if (!ix_tok_fired(t)) {
      int rc = ix_park_tok(s, t, (f->flags & IX_FL_EDGE) ? IX_WHY_EDGE : IX_WHY_JOIN, f->owner, 0);
      if (rc != IX_CONT) return rc;
    }
    f->k++;
  }
  uint8_t after = f->after;
  ix_pop(s);
  if (after == IX_AFTER_NEXT) ix_next(s);
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* Block ends and the op switch                                              */
/*---------------------------------------------------------------------------*/

/* The terminator of the top frame's block was reached. */
static int block_end(ix_strand_t* s, ix_frame_t* f) {
  ix_run_t* r = s->run;
  const air_op_t* term = f->pc;
  const air_op_t* owner = f->owner;
  switch (owner->kind) {
    case AIR_OP_FOR:
    case AIR_OP_AFFINE_FOR: return ix_end_for(s, f, term);
    case AIR_OP_PARALLEL: return ix_end_instance(s, f, term);
    case AIR_OP_REDUCE: return ix_end_reduce_region(s, f, term);
    case AIR_OP_FORALL: return ix_end_forall(s, f, term);
    case AIR_OP_FUNC:
    case AIR_OP_LAUNCH:
    case AIR_OP_SEGMENT:
    case AIR_OP_HERD:
    case AIR_OP_RANK: ix_pop(s); return IX_CONT;
    case AIR_OP_CUSTOM: ix_pop(s); ix_next(s); return IX_CONT; /* no results to bind */
    default: break;
  }
  if (owner->kind == AIR_OP_EXECUTE && f->t0 && s->pe)
    ix_trace(s, AIR_TRACK_PE, s->pe->track, owner, f->t0);
  /* if / affine.if / execute / call: the terminator's values are the results. */
  const air_vid_t* res = owner->results;
  uint32_t nres = owner->n_results;
  if (owner->kind == AIR_OP_EXECUTE && nres) {
    res++;
    nres--;
  }
  if (term->n_operands != nres)
    return ix_failed(s, ix_err(r, term, AIR_STATUS_INTERNAL,
                               "%s yields %u values for %u results", ix_opname(term),
                               term->n_operands, nres));
  ix_tv_t small[IX_TV_SMALL];
  ix_tv_t* tv = ix_tv_get(r, small, nres);
  if (!tv) return ix_oom(s);
  air_status_t st = nres ? ix_capture(r, f->env, term, term->operands, nres, tv) : NULL;
  if (st) {
    ix_tv_put(r, small, tv);
    return ix_failed(s, st);
  }
  ix_pop(s);
  ix_bind(r, ix_top(s)->env, res, nres, tv);
  ix_tv_put(r, small, tv);
  ix_next(s);
  return IX_CONT;
}

static int watched(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  int64_t t0 = s->run->trace ? air_time_now_ns() : 0;
  ix_watchdog_enter(s, op, false);
  air_status_t st = air_opkind_class(op->kind) == AIR_OPC_LINALG ? ix_linalg(s, e, op)
                                                                : ix_mem_op(s, e, op);
  ix_watchdog_exit(s);
  if (st) return ix_failed(s, st);
  ix_trace(s, s->pe ? AIR_TRACK_PE : AIR_TRACK_HOST, s->pe ? s->pe->track : "host", op, t0);
  ix_next(s);
  return IX_CONT;
}

/* Tensor ops (tensor.*, bufferization casts) have value semantics and no memory:
 * what mlir-air bufferizes before its AIR passes. */
static bool uses_tensors(const ix_run_t* r, const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_operands + op->n_results; ++i) {
    air_vid_t v = i < op->n_operands ? op->operands[i] : op->results[i - op->n_operands];
    if (air_ir_type(r->p, air_ir_value_type(r->p, v))->kind == AIR_TYPE_TENSOR) return true;
  }
  return false;
}

static int exec(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  bool inplace = f->kind == IX_F_OP;
  air_opcls_t cls = air_opkind_class(op->kind);
  /* Every hierarchy op of a flat run runs here, to its end (flat.h). */
  if (cls == AIR_OPC_HIER && r->flat) return ix_flat_hier(s, f, op);
  if (!inplace && ix_is_async(op)) return dispatch(s, f, op, false);
  if (!inplace && cls == AIR_OPC_HIER) return dispatch(s, f, op, true);
  const air_cg_unit_t* u = NULL;
  switch (cls) {
    case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF: case AIR_OPC_AFFINE_IF:
    case AIR_OPC_LINALG:
      u = ix_unit_of(r, op);
      break;
    default: break;
  }
  const ix_oprec_t* rec = ix_oprec(&r->tab, op);
  int rc = wait_ready(s, f->env, op, rec, u);
  if (rc == IX_CONT && (f->flags & IX_FL_CHAIN) && op->kind == AIR_OP_EXECUTE && op->n_regions) {
    for (uint32_t i = 0; rc == IX_CONT && i < rec->n_rguarded; ++i) /* rec: wait_ready */
      rc = guard(s, f->env, op, rec->rguarded[i]);
  }
  if (rc != IX_CONT) return rc;
  if (u && (rc = ix_unit_run(s, f, op, u)) != IX_UNIT_FALLBACK) return rc;
  air_status_t st;
  switch (cls) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_TERNARY:
      st = ix_eval_scalar(r, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC: case AIR_OPC_LOAD: case AIR_OPC_STORE:
    case AIR_OPC_SUBVIEW: case AIR_OPC_RESHAPE:
      if ((op->kind == AIR_OP_ALLOC || op->kind == AIR_OP_DEALLOC) && ix_space_rank(s->space, NULL)) {
        /* Symmetric memrefs are collectives of the ranks (rank.c). */
        bool handled;
        rc = ix_rank_mem(s, f, op, &handled);
        if (handled) return rc;
      }
      if (!(op->kind == AIR_OP_ALLOC && ix_arena_alloc(r, f->env, op, &st)) &&
          !(op->kind == AIR_OP_DEALLOC && ix_arena_dealloc(r, f->env, op, &st)))
        st = ix_mem_op(s, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_GET_GLOBAL: case AIR_OPC_MEMREF_RESHAPE: case AIR_OPC_TRANSPOSE:
    case AIR_OPC_EXTRACT_META: case AIR_OPC_REINTERPRET:
      st = ix_view_op(s, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_COPY:
    case AIR_OPC_LINALG:
      if (op->n_results) /* results are tensors */
        return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                                   "%s on tensors is not executable: the CPU driver runs "
                                   "bufferized programs (memrefs)",
                                   ix_opname(op)));
      return watched(s, f->env, op);
    case AIR_OPC_SWITCH: return ix_op_switch(s, f, op);
    case AIR_OPC_FORALL: return ix_op_forall(s, f, op);
    case AIR_OPC_CUSTOM: return ix_op_call(s, f, op);
    case AIR_OPC_FOR:
    case AIR_OPC_AFFINE_FOR: return ix_op_for(s, f, op);
    case AIR_OPC_IF:
    case AIR_OPC_AFFINE_IF: return ix_op_if(s, f, op);
    case AIR_OPC_PARALLEL: return ix_op_parallel(s, f, op);
    case AIR_OPC_HIER: return ix_op_hier(s, f, op);
    case AIR_OPC_CHANNEL_IO: return ix_chan_run(s, f, op, rec);
    case AIR_OPC_DMA: return ix_dma(s, f, op);
    case AIR_OPC_CALL: return ix_op_call(s, f, op);
    case AIR_OPC_WAIT_ALL: ix_next(s); return IX_CONT;
    case AIR_OPC_UNIVERSE:
      st = ix_universe(r, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_EXECUTE: return ix_op_execute(s, f, op);
    case AIR_OPC_TOKEN_ALLOC: {
      ix_tok_t* t = op->n_results ? ix_tok_new(r, op, NULL) : NULL;
      if (!t) return ix_oom(s);
      atomic_store(&t->fired, 1);
      ix_set(r, f->env, op->results[0], (ix_val_t){.p = t});
      ix_tok_unref(r, t);
      ix_next(s);
      return IX_CONT;
    }
    default:
      if (uses_tensors(r, op))
        return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                                   "%s is not executable: tensors have no memory; the CPU "
                                   "driver runs bufferized programs (memrefs)",
                                   ix_opname(op)));
      return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                                 "%s is not supported by the CPU executor here", ix_opname(op)));
  }
}

static int step(ix_strand_t* s) {
  if (s->release) return ix_chain_release(s); /* a stall woke it (chain.h) */
  ix_frame_t* f = ix_top(s);
  if (f->kind == IX_F_WAIT) return step_wait(s, f);
  if (f->kind == IX_F_REDUCE) return ix_step_reduce(s, f);
  if (f->kind == IX_F_OPEN) return ix_step_open(s, f);
  if (f->flags & IX_FL_UNIT) { /* a herd body compiled whole (unit.c) */
    int rc = ix_unit_body(s, f);
    if (rc != IX_UNIT_FALLBACK) return rc;
    f->flags &= (uint8_t)~IX_FL_UNIT;
  }
  if (f->kind == IX_F_BODY && (!f->pc || !f->pc->next))
    return f->pc ? block_end(s, f) : (ix_pop(s), IX_CONT);
  return exec(s, f, f->pc);
}

static void strand_loop(ix_strand_t* s) {
  ix_run_t* r = s->run;
  uint32_t worker = s->worker;
  for (;;) {
    if (s->abandoned || ix_failing(r) || !s->n) {
      /* A strand the exit woke runs next on this worker (strand.c). */
      if (!(s = ix_strand_exit(s))) return;
      /* A strand with a task of its own (a proxy of another process's channel
       * op, channel.c) goes to the pool instead. */
      if (s->w.task.fn != ix_strand_task) {
        air_pool_submit(r->pool, &s->w.task);
        return;
      }
      s->worker = worker;
      continue;
    }
    int rc = step(s);
    if (rc == IX_PARKED) return;
    if (rc == IX_ABANDONED) s->abandoned = true;
  }
}

void ix_strand_run_inline(ix_strand_t* s) {
  while (s->n && !ix_failing(s->run)) step(s);
}

void ix_strand_task(air_task_t* t, uint32_t worker) {
  ix_strand_t* s = (ix_strand_t*)t;
  s->worker = worker;
  strand_loop(s);
}

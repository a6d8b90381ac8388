/* parallel.c - the parallel op family: scf.parallel's instances, init tokens
 * and scf.reduce.
 *
 * A body that cannot park runs in sequence, instance after instance, in the
 * reaching strand. So does a body that parks only in chain ops when the run
 * chains (ix_binfo_t.serial: its async ops run in the strand or on strands of
 * their own, nothing else can wait): a chain op that waits for something a
 * later instance (or anything else this strand would issue later) does is
 * released at the stall that wait ends in, exactly as in a strand's own ops
 * (chain.h), and the strand goes on with the next instance. The init tokens
 * then become the strand's extra tokens until the last instance is done, so
 * every op an instance runs or dispatches waits for them as on a strand of its
 * own; a body in which other ops than async ones would wait for them runs so
 * only once they have fired (such a wait could not be released). Otherwise
 * every instance is a strand of its own and the reaching strand waits for
 * them. Either way their scf.reduce values are then folded into the inits
 * through the reduce regions, in instance order, so the reduced token fires
 * when every instance's has. The op completes when the instances have run
 * their bodies, not when the async work they dispatched has (that is what the
 * reduced tokens are for), so instances dispatch in program order relative to
 * the ops around the scf.parallel. */
#include "hal/cpu/interp/parallel.h"

#include <string.h>

#include "hal/cpu/interp/chain.h"
#include "runtime/base/mem.h"

/* scf.parallel state shared by the instances and the reducing strand. */
typedef struct ix_par_t {
  ix_shared_t base;        /* first: frames hold it as their state */
  uint64_t n;
  uint32_t rank, n_inits;
  int64_t lb[AIR_MAX_RANK], step[AIR_MAX_RANK], trip[AIR_MAX_RANK];
  uint8_t* kinds;          /* per init */
  ix_val_t* vals;          /* n * n_inits instance values, then n_inits accumulators */
  air_memref_t* views;     /* same layout, for memref values */
  ix_env_t* body_env;      /* empty body env the reduce regions chain to */
  ix_tok_t* join;          /* instances' completion (NULL when run in sequence) */
} ix_par_t;

static void par_free(ix_run_t* r, ix_shared_t* x) {
  ix_par_t* p = (ix_par_t*)x;
  uint64_t total = (p->n + 1) * p->n_inits;
  for (uint64_t i = 0; i < total; ++i)
    if (p->kinds[i % p->n_inits] == IX_K_TOKEN && p->vals[i].p) ix_tok_unref(r, p->vals[i].p);
  if (p->body_env) ix_env_unref(r, p->body_env);
  if (p->join) ix_tok_unref(r, p->join);
  uint64_t slots = total ? total : 1;
  ix_cache_put(r->cache, &r->alloc, p->kinds, p->n_inits ? p->n_inits : 1);
  ix_cache_put(r->cache, &r->alloc, p->vals, slots * sizeof(ix_val_t));
  ix_cache_put(r->cache, &r->alloc, p->views, slots * sizeof(air_memref_t));
  ix_cache_put(r->cache, &r->alloc, p, sizeof *p);
}

static void par_store(ix_run_t* r, ix_par_t* p, uint64_t j, ix_val_t x) {
  uint8_t kind = p->kinds[j % p->n_inits];
  if (kind == IX_K_TOKEN) {
    if (x.p) ix_tok_ref(x.p);
    if (p->vals[j].p) ix_tok_unref(r, p->vals[j].p);
    p->vals[j] = x;
  } else if (kind == IX_K_MEMREF) {
    p->views[j] = *(const air_memref_t*)x.p;
    p->vals[j].p = &p->views[j];
  } else {
    p->vals[j] = x;
  }
}

static void par_ivs(ix_run_t* r, ix_par_t* p, ix_env_t* e, const air_block_t* body,
                    uint64_t inst) {
  for (uint32_t d = p->rank; d-- > 0;) {
    uint64_t t = (uint64_t)p->trip[d];
    ix_set(r, e, body->args[d], (ix_val_t){.i = p->lb[d] + (int64_t)(inst % t) * p->step[d]});
    inst /= t;
  }
}

int ix_op_parallel(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  uint32_t n = op->iaux[0];
  if (n > AIR_MAX_RANK || op->n_operands < 3 * n || !op->n_regions)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "malformed scf.parallel"));
  uint32_t ni = op->n_operands - 3 * n;
  const air_block_t* body = op->regions[0];
  const air_op_t* red = body->last;
  if (ni != op->n_results || body->n_args != n || !red || red->kind != AIR_OP_REDUCE ||
      red->n_operands != ni || red->n_regions != ni)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "malformed scf.parallel reduce"));
  int64_t lb[AIR_MAX_RANK], ub[AIR_MAX_RANK], st_[AIR_MAX_RANK], trip[AIR_MAX_RANK];
  uint64_t total = 1;
  for (uint32_t k = 0; k < n; ++k) {
    air_status_t st = ix_get_i(r, e, op, op->operands[k], &lb[k]);
    if (!st) st = ix_get_i(r, e, op, op->operands[n + k], &ub[k]);
    if (!st) st = ix_get_i(r, e, op, op->operands[2 * n + k], &st_[k]);
    if (st) return ix_failed(s, st);
    if (st_[k] <= 0)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                                 "scf.parallel: step #%u is %lld", k, (long long)st_[k]));
    trip[k] = ub[k] > lb[k] ? (int64_t)(((uint64_t)ub[k] - (uint64_t)lb[k] - 1) /
                                        (uint64_t)st_[k] + 1)
                            : 0;
    if (__builtin_mul_overflow(total, (uint64_t)trip[k], &total) || total > (UINT64_C(1) << 32))
      return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "scf.parallel is too large"));
  }
  const air_vid_t* inits = op->operands + 3 * n;
  if (!total) {
    int rc = ix_transfer(s, op, e, inits, e, op->results, ni);
    if (rc == IX_CONT) ix_next(s);
    return rc;
  }
  /* From the run's cache (cache.h): one scf.parallel per loop iteration is
   * common in herd code. */
  ix_par_t* p = ix_cache_get_zero(r->cache, &r->alloc, sizeof *p);
  if (!p) return ix_oom(s);
  atomic_init(&p->base.refs, 1);
  p->base.free = par_free;
  p->n = total;
  p->rank = n;
  p->n_inits = ni;
  memcpy(p->lb, lb, n * sizeof(int64_t));
  memcpy(p->step, st_, n * sizeof(int64_t));
  memcpy(p->trip, trip, n * sizeof(int64_t));
  uint64_t slots = (total + 1) * ni;
  if (slots > SIZE_MAX / sizeof(air_memref_t)) return ix_oom(s);
  p->kinds = ix_cache_get_zero(r->cache, &r->alloc, ni ? ni : 1);
  p->vals = ix_cache_get_zero(r->cache, &r->alloc, (slots ? slots : 1) * sizeof(ix_val_t));
  /* Only memref values are ever read from `views` (par_store writes them). */
  p->views = ix_cache_get(r->cache, &r->alloc, (slots ? slots : 1) * sizeof(air_memref_t));
  p->body_env = ix_env_new(r, body, e, false);
  if (!p->kinds || !p->vals || !p->views || !p->body_env) {
    ix_shared_unref(r, &p->base);
    return ix_oom(s);
  }
  uint32_t ntok = 0;
  for (uint32_t k = 0; k < ni; ++k) {
    p->kinds[k] = r->tab.vinfo[op->results[k]].kind;
    ix_val_t* v = ix_slot(r, e, inits[k]);
    if (!v || (p->kinds[k] != IX_K_SCALAR && !v->p)) {
      ix_shared_unref(r, &p->base);
      return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "scf.parallel init missing"));
    }
    par_store(r, p, total * ni + k, *v);
    ntok += p->kinds[k] == IX_K_TOKEN;
  }
  ix_frame_t rf = {.kind = IX_F_REDUCE, .owner = op, .env = e, .state = p};
  /* The spec: init tokens are a broadcast dependency of every instance, so
   * whatever an instance runs or dispatches waits for them first, while the
   * instance itself runs at once and dispatches in program order. */
  ix_tok_t* it[16];
  uint32_t nit = 0, unfired = 0;
  for (uint32_t k = 0; k < ni && nit < 16; ++k)
    if (p->kinds[k] == IX_K_TOKEN) {
      it[nit] = p->vals[total * ni + k].p;
      unfired += !ix_tok_fired(it[nit++]);
    }
  const ix_binfo_t* bi = air_ptrmap_get(&r->tab.blocks, body);
  if (bi && ((bi->pure && !ntok) ||
             (bi->serial && ix_chain_on(r) && !ix_failing(r) && (!unfired || !bi->serial_init)))) {
    /* In sequence, in order, in this strand: nothing in the body can park, or
     * only chain ops can (see the top of the file). */
    ix_env_t* be = ix_env_new(r, body, e, false);
    if (!be) {
      ix_shared_unref(r, &p->base);
      return ix_oom(s);
    }
    par_ivs(r, p, be, body, 0);
    /* `k`: the strand's own tokens, kept when the instances are done. */
    ix_frame_t bf = {.kind = IX_F_BODY, .flags = IX_FL_SEQ, .owner = op, .pc = body->first,
                     .env = be, .state = p, .k = s->n_extra};
    if ((unfired && !ix_strand_extra_push(s, it, nit)) || !ix_push(s, &bf)) {
      ix_strand_extra_trim(s, (uint32_t)bf.k);
      ix_env_unref(r, be);
      ix_shared_unref(r, &p->base);
      return ix_oom(s);
    }
    return IX_CONT;
  }
  /* Born with one pending count, held while spawning, so an early instance
   * finishing cannot fire it (no lock hold: nobody else sees it yet). */
  p->join = ix_tok_new_unlocked(r, op, NULL, 1);
  if (!p->join || !ix_push(s, &rf)) {
    ix_shared_unref(r, &p->base);
    return ix_oom(s);
  }
  ix_env_ref(e);
  for (uint64_t i = 0; i < total; ++i) {
    ix_env_t* be = ix_env_new(r, body, e, false);
    ix_strand_t* c = be ? ix_strand_new(r, p->join, s->scope, s->pe, s->space) : NULL;
    ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = be, .state = p,
                     .inst = i};
    if (!c || !ix_strand_extra(c, s, it, nit) || !ix_push(c, &bf)) {
      if (c) ix_strand_free(c);
      if (be) ix_env_unref(r, be);
      ix_tok_unhold(r, p->join);
      return ix_oom(s);
    }
    ix_shared_ref(&p->base);
    par_ivs(r, p, be, body, i);
    ix_spawn(r, c);
  }
  ix_tok_unhold(r, p->join);
  return IX_CONT;
}

/* An instance reached its scf.reduce: record the values it reduces. */
int ix_end_instance(ix_strand_t* s, ix_frame_t* f, const air_op_t* term) {
  ix_run_t* r = s->run;
  ix_par_t* p = f->state;
  for (uint32_t k = 0; k < p->n_inits; ++k) {
    ix_val_t* v = ix_slot(r, f->env, term->operands[k]);
    if (!v || (p->kinds[k] != IX_K_SCALAR && !v->p))
      return ix_failed(s, ix_err(r, term, AIR_STATUS_INTERNAL, "scf.reduce operand missing"));
    par_store(r, p, f->inst * p->n_inits + k, *v);
  }
  if (!(f->flags & IX_FL_SEQ)) {
    ix_pop(s);
    return IX_CONT;
  }
  const air_op_t* op = f->owner;
  const air_block_t* body = op->regions[0];
  if (++f->inst < p->n) {
    if (!ix_env_next(r, &f->env, body)) return ix_oom(s);
    par_ivs(r, p, f->env, body, f->inst);
    f->pc = body->first;
    return IX_CONT;
  }
  ix_shared_ref(&p->base);
  ix_strand_extra_trim(s, (uint32_t)f->k);
  ix_pop(s);
  ix_frame_t rf = {.kind = IX_F_REDUCE, .owner = op, .env = ix_top(s)->env, .state = p};
  ix_env_ref(rf.env);
  if (!ix_push(s, &rf)) {
    ix_env_unref(r, rf.env);
    ix_shared_unref(r, &p->base);
    return ix_oom(s);
  }
  return IX_CONT;
}

/* Whether init `k` folds to a fired token without running its region: the
 * region only joins two tokens (ix_binfo_t.join) and the init, every
 * instance's token and the strand's extra tokens have fired, so each region's
 * air.wait_all would complete at once as a chain op whose result is the run's
 * fired token (chain.h) - the value stored here. Other cases (a token not
 * fired, no chain) run the regions. */
static bool join_fired(ix_strand_t* s, ix_par_t* p, const air_block_t* rb, uint32_t k) {
  ix_run_t* r = s->run;
  if (p->kinds[k] != IX_K_TOKEN || !rb || !ix_chain_on(r) || ix_failing(r)) return false;
  const ix_binfo_t* bi = air_ptrmap_get(&r->tab.blocks, rb);
  if (!bi || !bi->join) return false;
  for (uint32_t i = 0; i < s->n_extra; ++i)
    if (!ix_tok_fired(s->extra[i])) return false;
  for (uint64_t i = 0; i <= p->n; ++i)
    if (!ix_tok_fired(p->vals[i * p->n_inits + k].p)) return false;
  par_store(r, p, p->n * p->n_inits + k, (ix_val_t){.p = r->fired});
  return true;
}

/* After every instance: fold each init with the instances' values through the
 * scf.reduce regions, in instance order. */
int ix_step_reduce(ix_strand_t* s, ix_frame_t* f) {
  ix_run_t* r = s->run;
  ix_par_t* p = f->state;
  const air_op_t* op = f->owner;
  if (p->join && !ix_tok_fired(p->join)) {
    int rc = ix_park_tok(s, p->join, IX_WHY_JOIN, op, 0);
    if (rc != IX_CONT) return rc;
  }
  const air_op_t* red = op->regions[0]->last;
  while (f->k < p->n_inits) {
    if (!f->inst && join_fired(s, p, red->regions[f->k], f->k)) {
      f->k++;
      continue;
    }
    if (f->inst < p->n) {
      const air_block_t* rb = red->regions[f->k];
      if (!rb || rb->n_args != 2 || !rb->first)
        return ix_failed(s, ix_err(r, red, AIR_STATUS_INTERNAL, "malformed scf.reduce region"));
      ix_env_t* re = ix_env_new(r, rb, p->body_env, false);
      if (!re) return ix_oom(s);
      uint64_t acc = p->n * p->n_inits + f->k;
      ix_set(r, re, rb->args[0], p->vals[acc]);
      ix_set(r, re, rb->args[1], p->vals[f->inst * p->n_inits + f->k]);
      f->inst++;
      /* A release in an earlier region (chain.h) holds for the later ones: one
       * stall per fold, not one per instance, while their tokens wait. */
      ix_frame_t bf = {.kind = IX_F_BODY, .flags = (uint8_t)(f->flags & IX_FL_SPREAD),
                       .owner = red, .pc = rb->first, .env = re};
      if (!ix_push(s, &bf)) {
        ix_env_unref(r, re);
        return ix_oom(s);
      }
      return IX_CONT;
    }
    f->k++;
    f->inst = 0;
  }
  for (uint32_t k = 0; k < p->n_inits; ++k)
    ix_set(r, f->env, op->results[k], p->vals[p->n * p->n_inits + k]);
  ix_pop(s);
  ix_next(s);
  return IX_CONT;
}

int ix_end_reduce_region(ix_strand_t* s, ix_frame_t* f, const air_op_t* term) {
  ix_run_t* r = s->run;
  ix_frame_t* rf = &s->frames[s->n - 2];
  ix_par_t* p = rf->state;
  ix_val_t* v = term->n_operands == 1 ? ix_slot(r, f->env, term->operands[0]) : NULL;
  if (!v || (p->kinds[rf->k] != IX_K_SCALAR && !v->p))
    return ix_failed(s, ix_err(r, term, AIR_STATUS_INTERNAL, "scf.reduce.return value missing"));
  par_store(r, p, p->n * p->n_inits + rf->k, *v);
  rf->flags |= f->flags & IX_FL_SPREAD;
  ix_pop(s);
  return IX_CONT;
}

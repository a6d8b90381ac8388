/* interp_exec.c - the strand loop: runs ops, dispatches async ones as strands,
 * drives loops, branches, scf.parallel, air.execute, calls and the hierarchy.
 *
 * An op handler either completes the op (ix_next and IX_CONT), pushes a frame
 * (IX_CONT; the frame's end completes the op), parks (IX_PARKED: the strand may
 * already be running elsewhere, touch nothing), or fails (IX_FAILED). Handlers
 * park only before their first side effect, so re-running an op from the start
 * after a wake is safe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/status_util.h"

int ix_failed(ix_strand_t* s, air_status_t st) {
  ix_fail(s->run, st);
  return IX_FAILED;
}

int ix_oom(ix_strand_t* s) {
  return ix_failed(s, AIR_STATUS(&s->run->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
}

bool ix_is_async(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_HIER: case AIR_OPC_CHANNEL_IO: case AIR_OPC_DMA: case AIR_OPC_WAIT_ALL:
    case AIR_OPC_EXECUTE:
      return op->n_results > 0;
    default: return false;
  }
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
  s->park = (ix_park_t){.why = why, .op = op, .vid = v, .tok = t};
  bool parked = ix_park_locked(s, &t->waiters, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return parked ? IX_PARKED : IX_FAILED;
}

static int guard(ix_strand_t* s, ix_env_t* e, const air_op_t* op, air_vid_t v) {
  ix_run_t* r = s->run;
  if (!v || v >= r->n_values || !r->vinfo[v].guard) return IX_CONT;
  ix_tok_t* t;
  air_status_t st = ix_get_tok(r, e, op, r->vinfo[v].guard, &t);
  if (st) return ix_failed(s, st);
  return ix_tok_fired(t) ? IX_CONT : ix_park_tok(s, t, IX_WHY_VALUE, op, v);
}

/* Ops that neither touch memory nor start work need not wait for an
 * scf.parallel's init tokens: only index math and control structure. */
static bool init_free(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_SUBVIEW:
    case AIR_OPC_RESHAPE: case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF:
    case AIR_OPC_AFFINE_IF: case AIR_OPC_PARALLEL:
      return true;
    default: return false;
  }
}

/* Dependencies fired and every air.execute result the op reads available. */
static int wait_ready(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  if (s->n_extra && !init_free(op)) {
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
  for (uint32_t i = 0; i < op->n_operands; ++i) {
    int rc = guard(s, e, op, op->operands[i]);
    if (rc != IX_CONT) return rc;
  }
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i) {
      int rc = guard(s, e, op, op->lists[l].items[i].value);
      if (rc != IX_CONT) return rc;
    }
  if (op->kind == AIR_OP_GENERIC && op->n_regions && op->regions[0])
    for (const air_op_t* o = op->regions[0]->first; o; o = o->next)
      for (uint32_t i = 0; i < o->n_operands; ++i) {
        int rc = guard(s, e, op, o->operands[i]);
        if (rc != IX_CONT) return rc;
      }
  return IX_CONT;
}

/* Small captured-value buffers live on the stack. */
ix_tv_t* ix_tv_get(ix_run_t* r, ix_tv_t* small, uint32_t n) {
  return n <= IX_TV_SMALL ? small : ix_calloc(r, n, sizeof(ix_tv_t));
}
void ix_tv_put(ix_run_t* r, ix_tv_t* small, ix_tv_t* tv) {
  if (tv != small) ix_free(r, tv);
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

/*---------------------------------------------------------------------------*/
/* Async dispatch                                                            */
/*---------------------------------------------------------------------------*/

/* Starts `op` on a strand of its own. Async: its token goes to the result and
 * this strand moves on. Sync (a hierarchy op without result): this strand waits
 * for the op's completion token. */
static int dispatch(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, bool sync) {
  ix_run_t* r = s->run;
  ix_env_t* env = f->env;
  ix_tok_t* t = ix_tok_new(r, op, sync ? NULL : s->scope);
  ix_strand_t* c = t ? ix_strand_new(r, t, t, s->pe, s->space) : NULL;
  ix_frame_t cf = {.kind = IX_F_OP, .owner = op, .pc = op, .env = env};
  bool io = air_opkind_class(op->kind) == AIR_OPC_CHANNEL_IO;
  if (c && io && ix_chan_issue(s, env, op, &cf.ticket)) cf.tk_op = op;
  ix_tok_t** wt = sync && c ? ix_alloc(r, sizeof(ix_tok_t*)) : NULL;
  if (!c || !ix_strand_extra(c, s, NULL, 0) || !ix_push(c, &cf) || (sync && !wt)) {
    if (c) {
      if (c->n) c->frames[0].env = NULL;
      ix_strand_free(c);
    }
    ix_free(r, wt);
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
      ix_free(r, wt);
      ix_strand_free(c);
      ix_tok_unref(r, t);
      return ix_oom(s);
    }
  } else {
    ix_set(r, env, op->results[0], (ix_val_t){.p = t});
    ix_next(s);
  }
  ix_spawn(r, c);
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
/* Hierarchy                                                                 */
/*---------------------------------------------------------------------------*/

static int tok_ptr_cmp(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)*(void* const*)a, y = (uintptr_t)*(void* const*)b;
  return x < y ? -1 : x > y;
}

/* Ops sharing an affinity token run one at a time: the op's completion token
 * holds each group until it fires. Groups are taken in address order, so two
 * ops never wait on each other's groups. */
static int acquire_affinity(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  const air_vlist_t* aff = &op->toks[AIR_TOK_AFF];
  if (!aff->n) return IX_CONT;
  enum { MAXA = 16 };
  struct {
    ix_tok_t* t;
    air_vid_t v;
  } a[MAXA];
  uint32_t n = 0;
  for (uint32_t i = 0; i < aff->n && n < MAXA; ++i) {
    air_status_t st = ix_get_tok(r, e, op, aff->items[i], &a[n].t);
    if (st) return ix_failed(s, st);
    a[n++].v = aff->items[i];
  }
  qsort(a, n, sizeof a[0], tok_ptr_cmp);
  ix_tok_t* me = s->join;
  ix_wake_t w = {0};
  ix_lock(r);
  for (uint32_t i = 0; i < n; ++i) {
    ix_tok_t* t = a[i].t;
    if (t->aff_holder == me) continue;
    if (!t->aff_holder) {
      if (me->n_held == me->cap_held) {
        uint32_t cap = me->cap_held ? me->cap_held * 2 : 4;
        ix_tok_t** h = r->alloc.realloc(r->alloc.self, me->held, cap * sizeof(*h));
        if (!h) {
          ix_unlock(r);
          return ix_oom(s);
        }
        me->held = h;
        me->cap_held = cap;
      }
      ix_tok_ref(t);
      me->held[me->n_held++] = t;
      t->aff_holder = me;
      continue;
    }
    s->park = (ix_park_t){.why = IX_WHY_AFFINITY, .op = op, .vid = a[i].v, .tok = t};
    bool parked = ix_park_locked(s, &t->aff_waiters, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  ix_unlock(r);
  return IX_CONT;
}

static const char* str_attr(const ix_run_t* r, const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  a = a ? air_ir_attr_resolve(r->p, a) : NULL;
  return a && a->kind == AIR_ATTR_STRING ? a->s : NULL;
}

/* Runs in the op's own strand: every instance becomes a strand joined to the
 * op's token, all started together (segment and herd instances are co-resident;
 * launch instances may as well run in parallel). */
static int op_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  uint32_t n = op->iaux[0];
  if (!op->n_regions || !op->regions[0])
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "%s @%s without a body is not supported by the CPU executor",
                               ix_opname(op), op->sym ? op->sym : "?"));
  const air_block_t* body = op->regions[0];
  if (n > AIR_MAX_RANK || op->n_operands < n || body->n_args != 2 * n + (op->n_operands - n))
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: malformed operands",
                               ix_opname(op)));
  int64_t sizes[AIR_MAX_RANK];
  uint64_t total = 1;
  for (uint32_t k = 0; k < n; ++k) {
    air_status_t st = ix_get_i(r, e, op, op->operands[k], &sizes[k]);
    if (st) return ix_failed(s, st);
    if (sizes[k] < 0 || __builtin_mul_overflow(total, (uint64_t)sizes[k], &total) ||
        total > (UINT64_C(1) << 24))
      return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                                 "%s: iteration space size #%u is %lld", ix_opname(op), k,
                                 (long long)sizes[k]));
  }
  int rc = acquire_affinity(s, e, op);
  if (rc != IX_CONT) return rc;
  uint32_t na = op->n_operands - n;
  bool herd = op->kind == AIR_OP_HERD;
  const char* link = herd ? str_attr(r, op, "link_with") : NULL;
  for (uint64_t i = 0; i < total; ++i) {
    int64_t id[AIR_MAX_RANK];
    uint64_t x = i;
    for (uint32_t k = n; k-- > 0;) {
      id[k] = (int64_t)(x % (uint64_t)sizes[k]);
      x /= (uint64_t)sizes[k];
    }
    ix_env_t* ie = ix_env_new(r, body, NULL, herd);
    if (!ie) return ix_oom(s);
    for (uint32_t k = 0; k < n; ++k) {
      ix_set(r, ie, body->args[k], (ix_val_t){.i = id[k]});
      ix_set(r, ie, body->args[n + k], (ix_val_t){.i = sizes[k]});
    }
    rc = na ? ix_transfer(s, op, e, op->operands + n, ie, body->args + 2 * n, na) : IX_CONT;
    if (rc != IX_CONT) {
      ix_env_unref(r, ie);
      return rc;
    }
    if (herd) {
      ix_pe_t* pe = ie->pe;
      pe->herd = op;
      pe->link_with = link;
      pe->rank = n < 4 ? n : 4;
      for (uint32_t k = 0; k < pe->rank; ++k) {
        pe->tile[k] = id[k];
        pe->sizes[k] = sizes[k];
      }
      int w = snprintf(pe->track, sizeof pe->track, "herd @%s [", op->sym ? op->sym : "?");
      for (uint32_t k = 0; k < n && w > 0 && (size_t)w < sizeof pe->track; ++k)
        w += snprintf(pe->track + w, sizeof pe->track - (size_t)w, "%s%lld", k ? ", " : "",
                      (long long)id[k]);
      if (w > 0 && (size_t)w < sizeof pe->track)
        snprintf(pe->track + w, sizeof pe->track - (size_t)w, "]");
    }
    ix_space_t* space = op->kind == AIR_OP_LAUNCH ? ix_space_new(r) : s->space;
    ix_strand_t* c = space ? ix_strand_new(r, s->join, s->join, herd ? ie->pe : s->pe, space)
                           : NULL;
    ix_frame_t cf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = ie};
    if (!c || !ix_push(c, &cf)) {
      if (c) ix_strand_free(c);
      ix_env_unref(r, ie);
      return ix_oom(s);
    }
    ix_spawn(r, c);
  }
  ix_next(s);
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* Loops and branches                                                        */
/*---------------------------------------------------------------------------*/

static int op_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  int64_t lb, ub, step;
  const air_vid_t* inits;
  uint32_t ni;
  air_status_t st = NULL;
  if (op->kind == AIR_OP_FOR) {
    if (op->n_operands < 3) return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "bad scf.for"));
    if (!st) st = ix_get_i(r, e, op, op->operands[0], &lb);
    if (!st) st = ix_get_i(r, e, op, op->operands[1], &ub);
    if (!st) st = ix_get_i(r, e, op, op->operands[2], &step);
    inits = op->operands + 3;
    ni = op->n_operands - 3;
  } else {
    if (op->n_lists < 1 || op->lists[0].n != 2)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "bad affine.for bounds"));
    st = ix_get_ix(r, e, op, &op->lists[0].items[0], &lb);
    if (!st) st = ix_get_ix(r, e, op, &op->lists[0].items[1], &ub);
    step = op->iaux[1];
    inits = op->operands;
    ni = op->n_operands;
  }
  if (st) return ix_failed(s, st);
  if (step <= 0)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: step %lld is not positive",
                               ix_opname(op), (long long)step));
  if (ni != op->n_results)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "%s: iter_args mismatch",
                               ix_opname(op)));
  if (lb >= ub) {
    int rc = ix_transfer(s, op, e, inits, e, op->results, ni);
    if (rc == IX_CONT) ix_next(s);
    return rc;
  }
  const air_block_t* body = op->regions[0];
  ix_env_t* be = ix_env_new(r, body, e, false);
  if (!be) return ix_oom(s);
  ix_set(r, be, body->args[0], (ix_val_t){.i = lb});
  int rc = ix_transfer(s, op, e, inits, be, body->args + 1, ni);
  ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = be, .iv = lb,
                   .ub = ub, .step = step};
  if (rc != IX_CONT || !ix_push(s, &bf)) {
    ix_env_unref(r, be);
    return rc != IX_CONT ? rc : ix_oom(s);
  }
  return IX_CONT;
}

static int end_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* term) {
  ix_run_t* r = s->run;
  const air_op_t* op = f->owner;
  uint32_t n = term->n_operands;
  if (n != op->n_results)
    return ix_failed(s, ix_err(r, term, AIR_STATUS_INTERNAL, "yield count mismatch"));
  ix_tv_t small[IX_TV_SMALL];
  ix_tv_t* tv = ix_tv_get(r, small, n);
  if (!tv) return ix_oom(s);
  air_status_t st = ix_capture(r, f->env, term, term->operands, n, tv);
  if (st) {
    ix_tv_put(r, small, tv);
    return ix_failed(s, st);
  }
  int64_t next;
  const air_block_t* body = op->regions[0];
  if (!__builtin_add_overflow(f->iv, f->step, &next) && next < f->ub) {
    if (atomic_load_explicit(&f->env->refs, memory_order_acquire) == 1) {
      ix_env_reset(r, f->env);
    } else {
      ix_env_t* be = ix_env_new(r, body, f->env->up, false);
      if (!be) {
        ix_tv_drop(r, tv, n);
        ix_tv_put(r, small, tv);
        return ix_oom(s);
      }
      ix_env_unref(r, f->env);
      f->env = be;
    }
    f->iv = next;
    f->pc = body->first;
    ix_set(r, f->env, body->args[0], (ix_val_t){.i = next});
    ix_bind(r, f->env, body->args + 1, n, tv);
  } else {
    ix_pop(s);
    ix_bind(r, ix_top(s)->env, op->results, n, tv);
    ix_next(s);
  }
  ix_tv_put(r, small, tv);
  return IX_CONT;
}

static bool affine_set_holds(ix_run_t* r, const air_op_t* op, ix_env_t* e, bool* out,
                             air_status_t* st) {
  const air_attr_t* a = air_ir_attr_resolve(r->p, &op->value);
  if (!a || a->kind != AIR_ATTR_SET || !a->set) {
    *st = ix_err(r, op, AIR_STATUS_INTERNAL, "affine.if without an affine set");
    return false;
  }
  const air_affine_set_t* set = a->set;
  uint32_t nd = op->iaux[0];
  if (nd != set->n_dims || op->n_operands != nd + set->n_syms) {
    *st = ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "affine.if operands do not match its set");
    return false;
  }
  int64_t vals[2 * AIR_MAX_RANK + 8];
  if (op->n_operands > sizeof vals / sizeof vals[0]) {
    *st = ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "affine.if with too many operands");
    return false;
  }
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if ((*st = ix_get_i(r, e, op, op->operands[i], &vals[i]))) return false;
  *out = true;
  for (uint32_t i = 0; i < set->n_constraints && *out; ++i) {
    int64_t x;
    if (!air_aff_eval(set->constraints[i], vals, vals + nd, &x)) {
      *st = ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "affine.if: division by zero or overflow");
      return false;
    }
    *out = set->is_eq[i] ? x == 0 : x >= 0;
  }
  return true;
}

/* Enters region block `b` of `op` in a new environment chained to the frame's. */
static int push_body(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const air_block_t* b) {
  ix_run_t* r = s->run;
  ix_env_t* be = ix_env_new(r, b, f->env, false);
  ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = b->first, .env = be};
  if (!be || !ix_push(s, &bf)) {
    if (be) ix_env_unref(r, be);
    return ix_oom(s);
  }
  return IX_CONT;
}

static int op_if(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  bool c = false;
  air_status_t st = NULL;
  if (op->kind == AIR_OP_IF) {
    int64_t x = 0;
    st = op->n_operands ? ix_get_i(r, f->env, op, op->operands[0], &x)
                        : ix_err(r, op, AIR_STATUS_INTERNAL, "scf.if without condition");
    c = x != 0;
  } else {
    affine_set_holds(r, op, f->env, &c, &st);
  }
  if (st) return ix_failed(s, st);
  const air_block_t* b = c ? (op->n_regions ? op->regions[0] : NULL)
                           : (op->n_regions > 1 ? op->regions[1] : NULL);
  if (!b || !b->first) {
    if (op->n_results)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "%s with results but no else",
                                 ix_opname(op)));
    ix_next(s);
    return IX_CONT;
  }
  return push_body(s, f, op, b);
}

/*---------------------------------------------------------------------------*/
/* Calls                                                                     */
/*---------------------------------------------------------------------------*/

static air_status_t find_kernel(ix_strand_t* s, const air_op_t* op, const air_op_t* decl,
                                air_kernel_fn_t* fn, void** ud) {
  ix_run_t* r = s->run;
  const char* names[3] = {op->sym, decl ? str_attr(r, decl, "link_with") : NULL,
                          s->pe ? s->pe->link_with : NULL};
  for (int i = 0; i < 3 && r->ctx; ++i) {
    if (!names[i]) continue;
    air_status_t st = air_context_find_kernel(r->ctx, names[i], fn, ud);
    if (!st) return NULL;
    air_status_free(st);
  }
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  air_sb_printf(&sb, "func.call @%s: no kernel registered as \"%s\"", op->sym, op->sym);
  if (names[1]) air_sb_printf(&sb, ", nor as its declaration's link_with \"%s\"", names[1]);
  if (names[2]) air_sb_printf(&sb, ", nor as the herd's link_with \"%s\"", names[2]);
  char* m = air_sb_take(&sb, NULL);
  air_status_t st = ix_err(r, op, AIR_STATUS_NOT_FOUND, "%s", m ? m : "no kernel");
  ix_free(r, m);
  return st;
}

static int call_kernel(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const air_op_t* decl) {
  ix_run_t* r = s->run;
  air_kernel_fn_t fn;
  void* ud;
  air_status_t st = find_kernel(s, op, decl, &fn, &ud);
  if (st) return ix_failed(s, st);
  uint32_t na = op->n_operands, nr = op->n_results;
  air_arg_t small[8];
  air_arg_t* args = na + nr <= 8 ? small : ix_calloc(r, na + nr, sizeof(air_arg_t));
  if (!args) return ix_oom(s);
  memset(args, 0, (na + nr) * sizeof(air_arg_t));
  for (uint32_t i = 0; i < na + nr && !st; ++i) {
    air_vid_t v = i < na ? op->operands[i] : op->results[i - na];
    const ix_vinfo_t* vi = &r->vinfo[v];
    air_arg_t* a = &args[i];
    a->elem = vi->elem;
    if (vi->kind == IX_K_MEMREF) {
      air_memref_t* m;
      if (!(st = ix_get_view(r, f->env, op, v, &m))) {
        a->kind = AIR_ARG_MEMREF;
        a->memref = *m;
      }
    } else if (vi->kind == IX_K_TOKEN) {
      st = ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "func.call @%s: a kernel takes no tokens",
                  op->sym);
    } else {
      bool fl = air_elem_is_float(vi->elem);
      a->kind = fl ? AIR_ARG_FLOAT : AIR_ARG_INT;
      if (i < na) {
        ix_val_t* x = ix_slot(r, f->env, v);
        if (!x)
          st = ix_err(r, op, AIR_STATUS_INTERNAL, "func.call @%s: argument missing", op->sym);
        else if (fl)
          a->f = x->f;
        else
          a->i = x->i;
      }
    }
  }
  if (st) {
    if (args != small) ix_free(r, args);
    return ix_failed(s, st);
  }
  air_kernel_call_t call = {.name = op->sym, .n_args = na, .args = args, .n_results = nr,
                            .results = args + na};
  if (s->pe) {
    call.tile_rank = s->pe->rank;
    memcpy(call.tile, s->pe->tile, sizeof call.tile);
    memcpy(call.tile_sizes, s->pe->sizes, sizeof call.tile_sizes);
  }
  int64_t t0 = air_time_now_ns();
  ix_watch_enter(s, op, true);
  st = fn(ud, &call);
  if (ix_watch_exit(s)) {
    /* The run has been reported; touch nothing of the program from here on. */
    air_status_free(st);
    if (args != small) ix_free(r, args);
    return IX_ABANDONED;
  }
  ix_trace(s, s->pe ? AIR_TRACK_PE : AIR_TRACK_HOST, s->pe ? s->pe->track : "host", op, t0);
  if (st) {
    air_status_t wrapped = ix_err(r, op, air_status_code(st), "func.call @%s failed: %s",
                                  op->sym, air_status_message(st));
    air_status_free(st);
    if (args != small) ix_free(r, args);
    return ix_failed(s, wrapped);
  }
  for (uint32_t i = 0; i < nr; ++i) {
    const air_arg_t* a = &args[na + i];
    uint32_t elem = r->vinfo[op->results[i]].elem;
    ix_val_t x = {0};
    if (air_elem_is_float(elem))
      x.f = ix_round_f(elem, a->kind == AIR_ARG_FLOAT ? a->f : (double)a->i);
    else
      x.i = ix_norm_i(elem, a->kind == AIR_ARG_INT ? a->i : (int64_t)a->f);
    ix_set(r, f->env, op->results[i], x);
  }
  if (args != small) ix_free(r, args);
  ix_next(s);
  return IX_CONT;
}

/* A func.call runs the callee's body if it has one, else a registered kernel:
 * looked up as the callee's name, then as the declaration's link_with, then as
 * the enclosing herd's link_with. */
static int op_call(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  const air_op_t* fn = op->sym ? ix_find_func(r, op->sym) : NULL;
  if (!fn || !fn->n_regions || !fn->regions[0]) return call_kernel(s, f, op, fn);
  const air_block_t* body = fn->regions[0];
  if (s->n > 4096)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED,
                               "func.call @%s: calls nested too deeply", op->sym));
  if (body->n_args != op->n_operands)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                               "func.call @%s: %u arguments for %u parameters", op->sym,
                               op->n_operands, body->n_args));
  ix_env_t* be = ix_env_new(r, body, NULL, false);
  if (!be) return ix_oom(s);
  int rc = ix_transfer(s, op, f->env, op->operands, be, body->args, op->n_operands);
  ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = be};
  if (rc != IX_CONT || !ix_push(s, &bf)) {
    ix_env_unref(r, be);
    return rc != IX_CONT ? rc : ix_oom(s);
  }
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* The loop                                                                  */
/*---------------------------------------------------------------------------*/

/* The terminator of the top frame's block was reached. */
static int block_end(ix_strand_t* s, ix_frame_t* f) {
  ix_run_t* r = s->run;
  const air_op_t* term = f->pc;
  const air_op_t* owner = f->owner;
  switch (owner->kind) {
    case AIR_OP_FOR:
    case AIR_OP_AFFINE_FOR: return end_for(s, f, term);
    case AIR_OP_PARALLEL: return ix_end_instance(s, f, term);
    case AIR_OP_REDUCE: return ix_end_reduce_region(s, f, term);
    case AIR_OP_FUNC:
    case AIR_OP_LAUNCH:
    case AIR_OP_SEGMENT:
    case AIR_OP_HERD: ix_pop(s); return IX_CONT;
    default: break;
  }
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
  int64_t t0 = air_time_now_ns();
  ix_watch_enter(s, op, false);
  air_status_t st = air_opkind_class(op->kind) == AIR_OPC_LINALG ? ix_linalg(s, e, op)
                                                                : ix_mem_op(s, e, op);
  ix_watch_exit(s);
  if (st) return ix_failed(s, st);
  ix_trace(s, s->pe ? AIR_TRACK_PE : AIR_TRACK_HOST, s->pe ? s->pe->track : "host", op, t0);
  ix_next(s);
  return IX_CONT;
}

static int exec(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  bool inplace = f->kind == IX_F_OP;
  air_opcls_t cls = air_opkind_class(op->kind);
  if (!inplace && ix_is_async(op)) return dispatch(s, f, op, false);
  if (!inplace && cls == AIR_OPC_HIER) return dispatch(s, f, op, true);
  int rc = wait_ready(s, f->env, op);
  if (rc != IX_CONT) return rc;
  air_status_t st;
  switch (cls) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY:
      st = ix_eval_scalar(r, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC: case AIR_OPC_LOAD: case AIR_OPC_STORE:
    case AIR_OPC_SUBVIEW: case AIR_OPC_RESHAPE:
      if (!(op->kind == AIR_OP_ALLOC && ix_sched_alloc(r, f->env, op, &st)) &&
          !(op->kind == AIR_OP_DEALLOC && ix_sched_dealloc(r, f->env, op, &st)))
        st = ix_mem_op(s, f->env, op);
      if (st) return ix_failed(s, st);
      ix_next(s);
      return IX_CONT;
    case AIR_OPC_COPY:
    case AIR_OPC_LINALG: return watched(s, f->env, op);
    case AIR_OPC_FOR:
    case AIR_OPC_AFFINE_FOR: return op_for(s, f, op);
    case AIR_OPC_IF:
    case AIR_OPC_AFFINE_IF: return op_if(s, f, op);
    case AIR_OPC_PARALLEL: return ix_op_parallel(s, f, op);
    case AIR_OPC_HIER: return op_hier(s, f, op);
    case AIR_OPC_CHANNEL_IO: return ix_chan_io(s, f, op);
    case AIR_OPC_DMA: return ix_dma(s, f, op);
    case AIR_OPC_CALL: return op_call(s, f, op);
    case AIR_OPC_WAIT_ALL: ix_next(s); return IX_CONT;
    case AIR_OPC_EXECUTE: {
      const air_block_t* b = op->n_regions ? op->regions[0] : NULL;
      if (!b || !b->first) {
        ix_next(s);
        return IX_CONT;
      }
      return push_body(s, f, op, b);
    }
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
      return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                                 "%s is not supported by the CPU executor here", ix_opname(op)));
  }
}

static int step(ix_strand_t* s) {
  ix_frame_t* f = ix_top(s);
  if (f->kind == IX_F_WAIT) return step_wait(s, f);
  if (f->kind == IX_F_REDUCE) return ix_step_reduce(s, f);
  if (f->kind == IX_F_SCHED) return ix_step_sched(s, f);
  if (f->kind == IX_F_BODY && (!f->pc || !f->pc->next))
    return f->pc ? block_end(s, f) : (ix_pop(s), IX_CONT);
  return exec(s, f, f->pc);
}

static void run(ix_strand_t* s) {
  ix_run_t* r = s->run;
  for (;;) {
    if (s->abandoned || ix_failing(r) || !s->n) {
      ix_strand_exit(s);
      return;
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
  run(s);
}

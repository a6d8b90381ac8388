/* control.c - the control op family: scf.for / affine.for, scf.forall on
 * memrefs, scf.if / affine.if, scf.index_switch and air.execute's region. A loop
 * runs its body in an environment per iteration (reused when nothing dispatched
 * from it still reads it). */
#include "hal/cpu/interp/control.h"

#include "hal/futex.h"

int ix_op_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
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

int ix_end_for(ix_strand_t* s, ix_frame_t* f, const air_op_t* term) {
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
    if (!ix_env_next(r, &f->env, body)) {
      ix_tv_drop(r, tv, n);
      ix_tv_put(r, small, tv);
      return ix_oom(s);
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

int ix_op_if(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
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

int ix_op_execute(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  const air_block_t* b = op->n_regions ? op->regions[0] : NULL;
  if (!b || !b->first) {
    ix_next(s);
    return IX_CONT;
  }
  int rc = push_body(s, f, op, b);
  /* The work a PE does in an air.execute is a span on its track, whatever ops it
   * holds (loads, stores and arith as much as linalg), ended in loop.c. */
  if (rc == IX_CONT && s->pe && s->run->trace) ix_top(s)->t0 = air_time_now_ns();
  return rc;
}

int ix_op_switch(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  int64_t x = 0;
  air_status_t st = op->n_operands && op->n_regions && op->value.kind == AIR_ATTR_DENSE
                        ? ix_get_i(r, f->env, op, op->operands[0], &x)
                        : ix_err(r, op, AIR_STATUS_INTERNAL, "malformed scf.index_switch");
  if (st) return ix_failed(s, st);
  uint32_t n_cases = op->n_regions - 1, k = 0;
  while (k < n_cases && (k >= op->value.n || op->value.ints[k] != x)) ++k;
  const air_block_t* b = op->regions[k]; /* the matching case, else the default */
  if (!b || !b->first) {
    if (op->n_results)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "scf.index_switch region empty"));
    ix_next(s);
    return IX_CONT;
  }
  return push_body(s, f, op, b);
}

/*---------------------------------------------------------------------------*/
/* scf.forall on memrefs                                                     */
/*---------------------------------------------------------------------------*/

/* scf.forall's iterations are independent (no order, no synchronisation between
 * them), so running them one after another is one of its schedules: the frame
 * counts the points of the iteration space in row-major order and the body's
 * ivs are recomputed from that count. */
typedef struct forall_space_t {
  uint32_t n;
  int64_t lb[AIR_MAX_RANK], step[AIR_MAX_RANK], trip[AIR_MAX_RANK], total;
} forall_space_t;

static air_status_t forall_space(ix_run_t* r, ix_env_t* e, const air_op_t* op,
                                 forall_space_t* sp) {
  sp->n = op->iaux[0];
  if (op->n_lists != 3 || sp->n > AIR_MAX_RANK || !op->n_regions)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "scf.forall of more than %d dimensions",
                  AIR_MAX_RANK);
  sp->total = 1;
  for (uint32_t k = 0; k < sp->n; ++k) {
    int64_t ub;
    air_status_t st;
    if ((st = ix_get_ix(r, e, op, &op->lists[0].items[k], &sp->lb[k])) ||
        (st = ix_get_ix(r, e, op, &op->lists[1].items[k], &ub)) ||
        (st = ix_get_ix(r, e, op, &op->lists[2].items[k], &sp->step[k])))
      return st;
    if (sp->step[k] <= 0)
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "scf.forall: step %lld is not positive",
                    (long long)sp->step[k]);
    sp->trip[k] = ub <= sp->lb[k] ? 0 : (ub - sp->lb[k] + sp->step[k] - 1) / sp->step[k];
    if (__builtin_mul_overflow(sp->total, sp->trip[k], &sp->total))
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "scf.forall: too many iterations");
  }
  return NULL;
}

/* Sets the body's ivs for point `p` of the space. */
static void forall_ivs(ix_run_t* r, ix_env_t* be, const air_op_t* op, const forall_space_t* sp,
                       int64_t p) {
  for (uint32_t k = sp->n; k-- > 0;) {
    int64_t i = p % sp->trip[k];
    p /= sp->trip[k];
    ix_set(r, be, op->regions[0]->args[k], (ix_val_t){.i = sp->lb[k] + i * sp->step[k]});
  }
}

int ix_op_forall(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  if (op->n_operands || op->n_results)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "scf.forall with shared_outs (tensors) is not executable: the CPU "
                               "driver runs bufferized programs"));
  forall_space_t sp;
  air_status_t st = forall_space(r, f->env, op, &sp);
  if (st) return ix_failed(s, st);
  const air_block_t* body = op->regions[0];
  if (!sp.total || !body) {
    ix_next(s);
    return IX_CONT;
  }
  ix_env_t* be = ix_env_new(r, body, f->env, false);
  if (!be) return ix_oom(s);
  forall_ivs(r, be, op, &sp, 0);
  ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = be, .iv = 0,
                   .ub = sp.total, .step = 1};
  if (!ix_push(s, &bf)) {
    ix_env_unref(r, be);
    return ix_oom(s);
  }
  return IX_CONT;
}

int ix_end_forall(ix_strand_t* s, ix_frame_t* f, const air_op_t* term) {
  ix_run_t* r = s->run;
  const air_op_t* op = f->owner;
  if (term->n_regions && term->regions[0] && term->regions[0]->first)
    return ix_failed(s, ix_err(r, term, AIR_STATUS_UNIMPLEMENTED,
                               "scf.forall.in_parallel with ops (tensors) is not executable"));
  if (f->iv + 1 >= f->ub) {
    ix_pop(s);
    ix_next(s);
    return IX_CONT;
  }
  forall_space_t sp;
  air_status_t st = forall_space(r, f->env->up, op, &sp);
  if (st) return ix_failed(s, st);
  const air_block_t* body = op->regions[0];
  if (!ix_env_next(r, &f->env, body)) return ix_oom(s);
  f->iv++;
  f->pc = body->first;
  forall_ivs(r, f->env, op, &sp, f->iv);
  return IX_CONT;
}

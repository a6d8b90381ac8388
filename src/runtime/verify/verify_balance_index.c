/* verify_balance_index.c - the balance pass's view of index values: what a
 * channel index, condition or bound evaluates to at the current point of the
 * enclosing binders (the variables they bind, in bal_t.env), and which binder
 * variables it depends on at all ("relevance": only those binders are
 * enumerated point by point; see verify_balance.c). Evaluation is exact or
 * refuses: an overflow, a division by zero or a value not static makes it
 * return false, never a guess. */
#include <stdint.h>

#include "runtime/verify/verify_balance_index.h"

/*---------------------------------------------------------------------------*/
/* Static evaluation of index values                                         */
/*---------------------------------------------------------------------------*/


static int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Like air_aff_eval, but checks positions and depth: maps may be hand-built. */
static bool aff_eval(const air_aff_t* e, const int64_t* d, uint32_t nd, const int64_t* s,
                     uint32_t ns, int64_t* out, int depth) {
  if (!e || depth > 64) return false;
  switch (e->kind) {
    case AIR_AFF_CONST: *out = e->value; return true;
    case AIR_AFF_DIM:
      if (e->value < 0 || (uint64_t)e->value >= nd) return false;
      *out = d[e->value];
      return true;
    case AIR_AFF_SYM:
      if (e->value < 0 || (uint64_t)e->value >= ns) return false;
      *out = s[e->value];
      return true;
    default: break;
  }
  int64_t l, r;
  if (!aff_eval(e->lhs, d, nd, s, ns, &l, depth + 1) ||
      !aff_eval(e->rhs, d, nd, s, ns, &r, depth + 1))
    return false;
  switch (e->kind) {
    case AIR_AFF_ADD: return !__builtin_add_overflow(l, r, out);
    case AIR_AFF_MUL: return !__builtin_mul_overflow(l, r, out);
    case AIR_AFF_MOD:
      if (r <= 0) return false;
      *out = ((l % r) + r) % r;
      return true;
    case AIR_AFF_FLOORDIV:
    case AIR_AFF_CEILDIV:
      if (r == 0 || (l == INT64_MIN && r == -1) || l == INT64_MIN) return false;
      *out = e->kind == AIR_AFF_FLOORDIV ? fdiv(l, r) : -fdiv(-l, r);
      return true;
    default: return false;
  }
}

/* Evaluates an op's operands [from, from + n) into vals. */
static bool ev_operands(bal_t* B, const air_op_t* o, uint32_t from, uint32_t n, int64_t* vals,
                        int depth) {
  if (n > 32 || from + n > o->n_operands) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (!air_vbal_eval(B, o->operands[from + i], &vals[i], depth + 1)) return false;
  return true;
}

static bool ev_binary(air_opkind_t k, int64_t a, int64_t b, int64_t* out) {
  switch (k) {
    case AIR_OP_ADDI: return !__builtin_add_overflow(a, b, out);
    case AIR_OP_SUBI: return !__builtin_sub_overflow(a, b, out);
    case AIR_OP_MULI: return !__builtin_mul_overflow(a, b, out);
    case AIR_OP_DIVSI:
    case AIR_OP_DIVUI:
    case AIR_OP_REMSI:
    case AIR_OP_REMUI:
    case AIR_OP_CEILDIVSI:
    case AIR_OP_FLOORDIVSI:
      if (b == 0 || (a == INT64_MIN && b == -1) || a == INT64_MIN) return false;
      if ((k == AIR_OP_DIVUI || k == AIR_OP_REMUI) && (a < 0 || b < 0)) return false;
      if (k == AIR_OP_DIVSI || k == AIR_OP_DIVUI)
        *out = a / b;
      else if (k == AIR_OP_REMSI || k == AIR_OP_REMUI)
        *out = a % b;
      else if (k == AIR_OP_FLOORDIVSI)
        *out = fdiv(a, b);
      else
        *out = -fdiv(-a, b);
      return true;
    case AIR_OP_MAXSI: *out = a > b ? a : b; return true;
    case AIR_OP_MINSI: *out = a < b ? a : b; return true;
    case AIR_OP_MAXUI: *out = (uint64_t)a > (uint64_t)b ? a : b; return true;
    case AIR_OP_MINUI: *out = (uint64_t)a < (uint64_t)b ? a : b; return true;
    case AIR_OP_ANDI: *out = a & b; return true;
    case AIR_OP_ORI: *out = a | b; return true;
    case AIR_OP_XORI: *out = a ^ b; return true;
    case AIR_OP_SHLI:
      if (b < 0 || b > 62 || a < 0 || a > (INT64_MAX >> b)) return false;
      *out = a << b;
      return true;
    case AIR_OP_SHRSI:
    case AIR_OP_SHRUI:
      if (b < 0 || b > 63 || (k == AIR_OP_SHRUI && a < 0)) return false;
      *out = a >> b;
      return true;
    default: return false;
  }
}

bool air_vbal_eval(bal_t* B, air_vid_t vid, int64_t* out, int depth) {
  air_vctx_t* v = B->v;
  if (!air_v_valid(v, vid) || depth > 64 || !air_vbal_step(B)) return false;
  if (B->bound[vid]) {
    *out = B->env[vid];
    return true;
  }
  const air_vval_t* vv = &v->vals[vid];
  if (vv->owner == AIR_V_NONE || v->ops[vv->owner].bad) return false;
  const air_op_t* o = v->ops[vv->owner].op;
  uint32_t i = vv->index;
  if (vv->is_arg) {
    /* Sizes and kernel args are the hierarchy op's operands; ids and induction
     * variables are known only while a binder enumerates them. */
    uint32_t n = o->iaux[0];
    if (!air_v_is_hier(o->kind) || i < n) return false;
    uint32_t k = i < 2 * n ? i - n : n + i - 2 * n;
    return k < o->n_operands && air_vbal_eval(B, o->operands[k], out, depth + 1);
  }
  int64_t x[32];
  switch (air_opkind_class(o->kind)) {
    case AIR_OPC_CONSTANT: return air_v_const(v, vid, out);
    case AIR_OPC_AFFINE_APPLY: {
      const air_attr_t* m = air_ir_attr_resolve(v->p, &o->value);
      if (!m || m->kind != AIR_ATTR_MAP || !m->map || !m->map->n_results || !m->map->results)
        return false;
      uint32_t nd = m->map->n_dims, ns = m->map->n_syms;
      if (!ev_operands(B, o, 0, nd + ns, x, depth)) return false;
      if (!aff_eval(m->map->results[0], x, nd, x + nd, ns, out, 0)) return false;
      /* affine.min / affine.max: the extreme of every result */
      for (uint32_t k = 1; k < m->map->n_results && o->kind != AIR_OP_AFFINE_APPLY; ++k) {
        int64_t y;
        if (!aff_eval(m->map->results[k], x, nd, x + nd, ns, &y, 0)) return false;
        if (o->kind == AIR_OP_AFFINE_MIN ? y < *out : y > *out) *out = y;
      }
      return true;
    }
    case AIR_OPC_BINARY:
      return ev_operands(B, o, 0, 2, x, depth) && ev_binary(o->kind, x[0], x[1], out);
    case AIR_OPC_CAST:
      if (o->kind == AIR_OP_INDEX_CAST || o->kind == AIR_OP_INDEX_CASTUI ||
          o->kind == AIR_OP_EXTSI || o->kind == AIR_OP_EXTUI)
        return ev_operands(B, o, 0, 1, out, depth);
      return false;
    case AIR_OPC_CMP:
      if (o->kind != AIR_OP_CMPI || !ev_operands(B, o, 0, 2, x, depth)) return false;
      *out = air_cmpi_eval(o->iaux[0], x[0], x[1], (uint64_t)x[0], (uint64_t)x[1]);
      return true;
    case AIR_OPC_SELECT:
      if (!ev_operands(B, o, 0, 1, x, depth)) return false;
      return x[0] ? ev_operands(B, o, 1, 1, out, depth) : ev_operands(B, o, 2, 1, out, depth);
    case AIR_OPC_EXECUTE: {
      const air_op_t* t = o->n_regions && o->regions[0] ? o->regions[0]->last : NULL;
      if (i < 1 || !t || t->kind != AIR_OP_EXECUTE_TERM || i - 1 >= t->n_operands) return false;
      return air_vbal_eval(B, t->operands[i - 1], out, depth + 1);
    }
    default: return false;
  }
}

int air_vbal_eval_set(bal_t* B, const air_op_t* o) {
  const air_attr_t* s = air_ir_attr_resolve(B->v->p, &o->value);
  if (!s || s->kind != AIR_ATTR_SET || !s->set) return -1;
  const air_affine_set_t* set = s->set;
  int64_t x[32];
  if (!ev_operands(B, o, 0, set->n_dims + set->n_syms, x, 0)) return -1;
  for (uint32_t c = 0; c < set->n_constraints; ++c) {
    int64_t r;
    if (!set->constraints || !set->is_eq ||
        !aff_eval(set->constraints[c], x, set->n_dims, x + set->n_dims, set->n_syms, &r, 0))
      return -1;
    if (set->is_eq[c] ? r != 0 : r < 0) return 0;
  }
  return 1;
}

/*---------------------------------------------------------------------------*/
/* Relevance: which binder variables the counts depend on                    */
/*---------------------------------------------------------------------------*/


static void push(bal_t* B, air_vid_t vid) {
  if (!air_v_valid(B->v, vid) || B->seen[vid]) return;
  if (!air_mem_grow(B->v->a, (void**)&B->stack, &B->cap_stack, (size_t)B->sp + 1,
                    sizeof(*B->stack))) {
    B->aborted = true;
    return;
  }
  B->seen[vid] = 1;
  B->stack[B->sp++] = vid;
}

static void mark(bal_t* B, air_vid_t root) {
  air_vctx_t* v = B->v;
  push(B, root);
  while (B->sp && !B->aborted) {
    air_vid_t vid = B->stack[--B->sp];
    const air_vval_t* vv = &v->vals[vid];
    if (vv->owner == AIR_V_NONE || v->ops[vv->owner].bad) continue;
    const air_op_t* o = v->ops[vv->owner].op;
    uint32_t i = vv->index, n = o->iaux[0];
    if (vv->is_arg) {
      if (air_v_is_hier(o->kind)) {
        if (i < n)
          B->rel[vv->owner] |= air_vbal_dim_bit(i);
        else if (i < 2 * n)
          push(B, o->operands[i - n]);
        else if (n + i - 2 * n < o->n_operands)
          push(B, o->operands[n + i - 2 * n]);
      } else if ((o->kind == AIR_OP_FOR || o->kind == AIR_OP_AFFINE_FOR) && i == 0) {
        B->rel[vv->owner] |= 1;
      } else if ((o->kind == AIR_OP_PARALLEL || o->kind == AIR_OP_FORALL) && i < n) {
        B->rel[vv->owner] |= air_vbal_dim_bit(i);
      }
      continue;
    }
    switch (air_opkind_class(o->kind)) {
      case AIR_OPC_AFFINE_APPLY:
      case AIR_OPC_BINARY:
      case AIR_OPC_UNARY:
      case AIR_OPC_CAST:
      case AIR_OPC_CMP:
      case AIR_OPC_SELECT:
        for (uint32_t k = 0; k < o->n_operands; ++k) push(B, o->operands[k]);
        break;
      case AIR_OPC_EXECUTE: {
        const air_op_t* t = o->n_regions && o->regions[0] ? o->regions[0]->last : NULL;
        if (i >= 1 && t && t->kind == AIR_OP_EXECUTE_TERM && i - 1 < t->n_operands)
          push(B, t->operands[i - 1]);
        break;
      }
      default: break;
    }
  }
}

void air_vbal_mark_relevant(bal_t* B) {
  air_vctx_t* v = B->v;
  for (uint32_t j = 0; j < v->n_ops && !B->aborted; ++j) {
    const air_vop_t* r = &v->ops[j];
    if (!r->has_chan || r->bad) continue;
    const air_op_t* o = r->op;
    uint32_t n = o->iaux[0], from = 0, cnt = 0;
    switch (o->kind) {
      case AIR_OP_PUT:
      case AIR_OP_GET: cnt = n; break;
      case AIR_OP_IF:
      case AIR_OP_AFFINE_IF: cnt = o->n_operands; break;
      case AIR_OP_FOR: cnt = 3; break;
      case AIR_OP_PARALLEL: cnt = 3 * n; break;
      case AIR_OP_LAUNCH:
      case AIR_OP_SEGMENT:
      case AIR_OP_HERD:
      case AIR_OP_RANK: cnt = n; break;
      case AIR_OP_AFFINE_FOR:
        for (uint32_t k = 0; k < 2 && o->n_lists; ++k) mark(B, o->lists[0].items[k].value);
        break;
      case AIR_OP_INDEX_SWITCH: cnt = o->n_operands; break;
      case AIR_OP_FORALL:
        for (uint32_t l = 0; l < 3 && l < o->n_lists; ++l)
          for (uint32_t k = 0; k < o->lists[l].n; ++k) mark(B, o->lists[l].items[k].value);
        break;
      default: break;
    }
    for (uint32_t k = from; k < cnt && k < o->n_operands; ++k) mark(B, o->operands[k]);
  }
}


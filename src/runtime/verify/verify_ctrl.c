/* verify_ctrl.c - [structure] of control flow and structured compute: scf (for,
 * parallel, reduce, if, index_switch, forall and its in_parallel), affine.for /
 * affine.if, and linalg (named ops, elementwise ops, generic, linalg.index). The
 * per-op pass (verify_ops.c) calls these by op class. */
#include "runtime/verify/verify_ctrl.h"

#include <string.h>

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/*---------------------------------------------------------------------------*/
/* scf and affine                                                            */
/*---------------------------------------------------------------------------*/

void air_v_check_for(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  if (op->n_operands < 3 || op->n_regions != 1) {
    ERR(id, "structure", "scf.for needs lower bound, upper bound, step and one body region");
    v->ops[id].bad = 1;
    return;
  }
  uint32_t ninit = op->n_operands - 3;
  const air_type_info_t* lt = air_v_type(v, op->operands[0]);
  static const char* const what[3] = {"the lower bound", "the upper bound", "the step"};
  for (int k = 0; k < 3; ++k) {
    const air_type_info_t* t = air_v_type(v, op->operands[k]);
    air_v_want(v, id, op->operands[k], "index (or one integer type for all three)",
              air_v_is_int_like(t) && t == lt, "%s", what[k]);
  }
  const air_block_t* b = op->regions[0];
  if (b->n_args != 1 + ninit || op->n_results != ninit) {
    ERR(id, "structure",
        "scf.for has %u iter_args inits but %u block arguments and %u results; expected %u "
        "and %u",
        ninit, b->n_args, op->n_results, 1 + ninit, ninit);
    v->ops[id].bad = 1;
    return;
  }
  air_tid_t lb = air_v_vtype(v, op->operands[0]);
  if (air_v_valid(v, op->operands[0])) air_v_match_args(v, id, b, 0, 1, NULL, &lb, "induction variable");
  air_v_match_args(v, id, b, 1, ninit, op->operands + 3, NULL, "iter_arg");
  for (uint32_t i = 0; i < ninit; ++i) {
    air_vid_t r = op->results[i], init = op->operands[3 + i];
    if (!air_v_valid(v, r) || !air_v_valid(v, init) ||
        air_v_same_type(v, air_v_vtype(v, r), air_v_vtype(v, init)))
      continue;
    char a[96], c[96];
    ERR(id, "structure", "result #%u of scf.for has type %s but its init has type %s", i,
        air_v_tname(v, air_v_vtype(v, r), a, sizeof a),
        air_v_tname(v, air_v_vtype(v, init), c, sizeof c));
  }
  const air_op_t* t = air_v_want_term(v, id, 0, AIR_OP_YIELD);
  if (t) air_v_match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}

void air_v_check_parallel(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t n = op->iaux[0];
  if (n > op->n_operands / 3 || op->n_regions != 1) {
    ERR(id, "structure",
        "scf.parallel with %u dimensions needs %u bound/step operands and one body", n, 3 * n);
    v->ops[id].bad = 1;
    return;
  }
  uint32_t ninit = op->n_operands - 3 * n;
  for (uint32_t k = 0; k < 3 * n; ++k)
    air_v_want_index(v, id, op->operands[k], "%s #%u",
                     k < n       ? "lower bound"
                     : k < 2 * n ? "upper bound"
                                 : "step",
                     k % (n ? n : 1));
  const air_block_t* b = op->regions[0];
  if (b->n_args != n || op->n_results != ninit) {
    ERR(id, "structure",
        "scf.parallel has %u dimensions and %u inits but %u block arguments and %u results", n,
        ninit, b->n_args, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t k = 0; k < n; ++k) air_v_want_index(v, id, b->args[k], "an induction variable");
  for (uint32_t i = 0; i < ninit; ++i) {
    air_vid_t r = op->results[i], init = op->operands[3 * n + i];
    if (air_v_valid(v, r) && air_v_valid(v, init) &&
        !air_v_same_type(v, air_v_vtype(v, r), air_v_vtype(v, init)))
      ERR(id, "structure", "result #%u of scf.parallel does not have its init's type", i);
  }
  const air_op_t* t = b->last;
  if (t && t->kind == AIR_OP_YIELD && ninit == 0 && t->n_operands == 0) return;
  t = air_v_want_term(v, id, 0, AIR_OP_REDUCE);
  if (t) air_v_match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}

void air_v_check_reduce(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t par = v->ops[id].parent;
  if (par == AIR_V_NONE || v->ops[par].op->kind != AIR_OP_PARALLEL || op->next)
    ERR(id, "structure", "scf.reduce must be the last op of an scf.parallel body");
  if (op->n_regions != op->n_operands) {
    ERR(id, "structure", "scf.reduce needs one region per reduced value (%u values, %u regions)",
        op->n_operands, op->n_regions);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_block_t* b = op->regions[r];
    air_tid_t t = air_v_vtype(v, op->operands[r]);
    if (b->n_args != 2) {
      ERR(id, "structure", "region #%u of scf.reduce must take two arguments (lhs, rhs)", r);
      continue;
    }
    if (air_v_valid(v, op->operands[r])) {
      air_tid_t two[2] = {t, t};
      air_v_match_args(v, id, b, 0, 2, NULL, two, "reduction operand");
    }
    const air_op_t* term = air_v_want_term(v, id, r, AIR_OP_REDUCE_RETURN);
    if (term && air_v_valid(v, op->operands[r]))
      air_v_match_yield(v, id, term, 1, NULL, &t, "structure", "reduces");
  }
}

void air_v_check_if(air_vctx_t* v, uint32_t id, bool affine) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  if (op->n_regions < 1 || op->n_regions > 2 || (op->n_results && op->n_regions != 2)) {
    ERR(id, "structure", "%s needs a then region and %s else region", on,
        op->n_results ? "an" : "at most one");
    v->ops[id].bad = 1;
    return;
  }
  if (!affine) {
    if (op->n_operands != 1) {
      ERR(id, "structure", "scf.if takes exactly one condition operand");
      v->ops[id].bad = 1;
      return;
    }
    air_v_want(v, id, op->operands[0], "i1", air_v_is_i1(air_v_type(v, op->operands[0])), "%s",
              "the condition");
  } else {
    const air_attr_t* s = air_ir_attr_resolve(v->p, &op->value);
    if (!s || s->kind != AIR_ATTR_SET || !s->set ||
        s->set->n_dims + s->set->n_syms != op->n_operands || op->iaux[0] != s->set->n_dims) {
      ERR(id, "structure",
          "affine.if needs an integer set whose dims and symbols match its %u operands",
          op->n_operands);
      v->ops[id].bad = 1;
      return;
    }
    for (uint32_t i = 0; i < op->n_operands; ++i)
      air_v_want_index(v, id, op->operands[i], "an operand");
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_op_t* t = air_v_want_term(v, id, r, affine ? AIR_OP_AFFINE_YIELD : AIR_OP_YIELD);
    if (t) air_v_match_yield(v, id, t, op->n_results, op->results, NULL, "structure", "has results:");
  }
}

void air_v_check_affine_for(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  if (op->n_lists < 1 || !op->lists || op->lists[0].n != 2 || !op->lists[0].items ||
      op->n_regions != 1) {
    ERR(id, "structure", "affine.for needs a lower and an upper bound and one body region");
    v->ops[id].bad = 1;
    return;
  }
  for (int k = 0; k < 2; ++k)
    if (op->lists[0].items[k].value)
      air_v_want_index(v, id, op->lists[0].items[k].value,
                       k ? "the upper bound" : "the lower bound");
  if (op->iaux[1] < 1) ERR(id, "structure", "affine.for needs a step >= 1");
  const air_block_t* b = op->regions[0];
  uint32_t ninit = op->n_operands;
  if (b->n_args != 1 + ninit || op->n_results != ninit) {
    ERR(id, "structure", "affine.for has %u inits but %u block arguments and %u results", ninit,
        b->n_args, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  air_v_want_index(v, id, b->args[0], "the induction variable");
  air_v_match_args(v, id, b, 1, ninit, op->operands, NULL, "iter_arg");
  const air_op_t* t = air_v_want_term(v, id, 0, AIR_OP_AFFINE_YIELD);
  if (t) air_v_match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}


void air_v_check_switch(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  if (op->n_operands != 1 || op->n_regions < 1 || op->value.kind != AIR_ATTR_DENSE ||
      op->value.n != op->n_regions - 1 || (op->value.n && !op->value.ints)) {
    ERR(id, "structure",
        "scf.index_switch needs one index operand and a region per case plus a default");
    v->ops[id].bad = 1;
    return;
  }
  air_v_want_index(v, id, op->operands[0], "the switch operand");
  for (uint32_t i = 0; i < op->value.n; ++i)
    for (uint32_t j = 0; j < i; ++j)
      if (op->value.ints[i] == op->value.ints[j])
        ERR(id, "structure", "scf.index_switch has case %lld twice", (long long)op->value.ints[i]);
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_op_t* t = air_v_want_term(v, id, r, AIR_OP_YIELD);
    if (t) air_v_match_yield(v, id, t, op->n_results, op->results, NULL, "structure", "has results:");
  }
}

void air_v_check_forall(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t n = op->iaux[0], no = op->n_operands;
  if (op->n_lists != 3 || op->n_regions != 1 || op->n_results != no || n == 0) {
    ERR(id, "structure", "scf.forall needs bounds, steps, one body and one result per shared out");
    v->ops[id].bad = 1;
    return;
  }
  static const char* const what[3] = {"lower bound", "upper bound", "step"};
  for (int k = 0; k < 3; ++k) {
    const air_ixlist_t* l = &op->lists[k];
    if (l->n != n || (n && !l->items)) {
      ERR(id, "structure", "scf.forall has %u induction variables but %u %ss", n, l->n, what[k]);
      v->ops[id].bad = 1;
      return;
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (l->items[i].value) air_v_want_index(v, id, l->items[i].value, "%s #%u", what[k], i);
      int64_t c;
      if (k == 2 && air_v_ix_const(v, &l->items[i], &c) && c <= 0)
        ERR(id, "structure", "step #%u of scf.forall is %lld; steps must be >= 1", i, (long long)c);
    }
  }
  const air_block_t* b = op->regions[0];
  if (b->n_args != n + no) {
    ERR(id, "structure", "scf.forall's body has %u arguments; expected %u (ivs, shared outs)",
        b->n_args, n + no);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t i = 0; i < n; ++i) air_v_want_index(v, id, b->args[i], "an induction variable");
  air_v_match_args(v, id, b, n, no, op->operands, NULL, "shared out");
  for (uint32_t i = 0; i < no; ++i) {
    air_v_want(v, id, op->operands[i], "a tensor",
               air_v_type(v, op->operands[i])->kind == AIR_TYPE_TENSOR, "shared out #%u", i);
    if (air_v_valid(v, op->results[i]) && air_v_valid(v, op->operands[i]) &&
        !air_v_same_type(v, air_v_vtype(v, op->results[i]), air_v_vtype(v, op->operands[i])))
      ERR(id, "structure", "result #%u of scf.forall does not have its shared out's type", i);
  }
  air_v_want_term(v, id, 0, AIR_OP_IN_PARALLEL);
}

/* scf.forall.in_parallel: the forall's terminator; its region holds only
 * tensor.parallel_insert_slice into the forall's shared outs. */
void air_v_check_in_parallel(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t par = v->ops[id].parent;
  const air_op_t* fa = par != AIR_V_NONE ? v->ops[par].op : NULL;
  if (!fa || fa->kind != AIR_OP_FORALL || op->next) {
    ERR(id, "structure", "scf.forall.in_parallel must end the body of an scf.forall");
    return;
  }
  if (op->n_regions != 1 || !op->regions[0]) {
    ERR(id, "structure", "scf.forall.in_parallel needs one region");
    v->ops[id].bad = 1;
    return;
  }
  const air_block_t* fb = fa->n_regions ? fa->regions[0] : NULL;
  for (const air_op_t* o = op->regions[0]->first; o; o = o->next) {
    if (o->kind != AIR_OP_PARALLEL_INSERT_SLICE) {
      air_v_error(v, o, "structure",
                  "scf.forall.in_parallel may hold only tensor.parallel_insert_slice, not %s",
                  air_v_opname(o));
      continue;
    }
    if (o->n_operands < 2 || !fb) continue;
    air_vid_t dst = o->operands[1];
    bool shared = false;
    for (uint32_t i = fa->iaux[0]; i < fb->n_args; ++i) shared |= fb->args[i] == dst;
    if (!shared)
      air_v_error(v, o, "structure",
                  "tensor.parallel_insert_slice must write into a shared out of the scf.forall");
  }
}

/*---------------------------------------------------------------------------*/
/* linalg                                                                    */
/*---------------------------------------------------------------------------*/

static bool is_shaped(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_MEMREF || t->kind == AIR_TYPE_TENSOR;
}

/* Shapes of two shaped types agree where both are static. */
static bool shapes_agree(const air_type_info_t* a, const air_type_info_t* b) {
  if (a->unranked || b->unranked) return true;
  if (a->rank != b->rank) return false;
  for (uint32_t i = 0; i < a->rank; ++i)
    if (a->shape[i] != AIR_DIM_DYNAMIC && b->shape[i] != AIR_DIM_DYNAMIC &&
        a->shape[i] != b->shape[i])
      return false;
  return true;
}

void air_v_check_linalg(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  uint32_t nin = op->iaux[0];
  if (nin > op->n_operands) {
    ERR(id, "structure", "%s declares %u inputs but has %u operands", on, nin, op->n_operands);
    v->ops[id].bad = 1;
    return;
  }
  uint32_t nout = op->n_operands - nin;
  uint32_t ew = air_opkind_elementwise_ins(op->kind);
  uint32_t want_in = op->kind == AIR_OP_MATMUL    ? 2
                     : op->kind == AIR_OP_GENERIC ? nin
                     : ew                         ? ew
                                                  : 1;
  if (nin != want_in || nout < 1 || (op->kind != AIR_OP_GENERIC && nout != 1)) {
    ERR(id, "structure", "%s takes %u ins and 1 outs (found %u and %u)", on, want_in, nin, nout);
    v->ops[id].bad = 1;
    return;
  }
  /* Operands are memrefs, or tensors with one result per outs operand. Scalars may
   * be inputs of linalg.fill (the value) and linalg.generic. */
  bool tensors = false;
  for (uint32_t i = 0; i < op->n_operands; ++i) {
    const air_type_info_t* t = air_v_type(v, op->operands[i]);
    bool scalar_ok = i < nin && (op->kind == AIR_OP_FILL || op->kind == AIR_OP_GENERIC);
    if (scalar_ok && t->kind == AIR_TYPE_SCALAR) continue;
    if (i >= nin && t->kind == AIR_TYPE_TENSOR) tensors = true;
    air_v_want(v, id, op->operands[i], scalar_ok ? "a scalar, memref or tensor"
                                                 : "a memref or tensor",
               is_shaped(t), "%s #%u", i < nin ? "input" : "output", i < nin ? i : i - nin);
    if (t->kind == AIR_TYPE_MEMREF && t->unranked)
      ERR(id, "structure", "%s needs ranked memrefs; cast %s #%u to a ranked type first", on,
          i < nin ? "input" : "output", i < nin ? i : i - nin);
  }
  uint32_t want_res = tensors ? nout : 0;
  if (op->n_results != want_res) {
    ERR(id, "structure", "%s on %s has %u results; expected %u", on,
        tensors ? "tensors" : "memrefs", op->n_results, want_res);
  } else {
    for (uint32_t i = 0; i < want_res; ++i)
      if (air_v_valid(v, op->results[i]) &&
          !air_v_same_type(v, air_v_vtype(v, op->results[i]), air_v_vtype(v, op->operands[nin + i])))
        ERR(id, "structure", "result #%u of %s does not have its outs operand's type", i, on);
  }
  if (ew) {
    /* Elementwise: every operand has the output's shape. */
    const air_type_info_t* o = air_v_type(v, op->operands[nin]);
    for (uint32_t i = 0; i < nin; ++i) {
      const air_type_info_t* t = air_v_type(v, op->operands[i]);
      if (is_shaped(t) && is_shaped(o) && !shapes_agree(t, o))
        ERR(id, "structure", "input #%u of elementwise %s does not have the output's shape", i, on);
    }
    const air_type_info_t* ot = o;
    bool fl = air_elem_is_float(ot->elem);
    bool need_float = op->kind >= AIR_OP_LINALG_POWF && op->kind != AIR_OP_LINALG_ABS &&
                      op->kind != AIR_OP_LINALG_SQUARE;
    if (is_shaped(ot) && need_float && !fl)
      ERR(id, "structure", "%s computes on floats, not %s", on, air_elem_name(ot->elem));
    if (is_shaped(ot) && op->kind == AIR_OP_LINALG_DIV_UNSIGNED && fl)
      ERR(id, "structure", "%s divides integers, not %s", on, air_elem_name(ot->elem));
  }
  if (op->kind == AIR_OP_GENERIC) {
    if (op->n_regions != 1 || op->regions[0]->n_args != op->n_operands) {
      ERR(id, "structure", "linalg.generic needs one region with one argument per operand");
      v->ops[id].bad = 1;
      return;
    }
    const air_op_t* t = air_v_want_term(v, id, 0, AIR_OP_LINALG_YIELD);
    if (t && t->n_operands != nout)
      ERR(id, "structure", "linalg.yield yields %u values but linalg.generic has %u outputs",
          t->n_operands, nout);
  }
}

/* The number of loops of a linalg op: its iterator_types, else the rank of its
 * first output. */
static uint32_t linalg_loops(const air_vctx_t* v, const air_op_t* g) {
  const air_attr_t* it = air_ir_attr_get(g, "iterator_types");
  if (it) it = air_ir_attr_resolve(v->p, it);
  if (it && it->kind == AIR_ATTR_ARRAY) return it->n;
  uint32_t nin = g->iaux[0];
  return nin < g->n_operands ? air_v_type(v, g->operands[nin])->rank : 0;
}

void air_v_check_linalg_index(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  air_v_want_index(v, id, op->n_results ? op->results[0] : 0, "the result");
  uint32_t g = v->ops[id].parent;
  while (g != AIR_V_NONE && air_opkind_class(v->ops[g].op->kind) != AIR_OPC_LINALG &&
         !air_v_is_hier(v->ops[g].op->kind) && v->ops[g].op->kind != AIR_OP_FUNC)
    g = v->ops[g].parent;
  if (g == AIR_V_NONE || air_opkind_class(v->ops[g].op->kind) != AIR_OPC_LINALG) {
    ERR(id, "structure", "linalg.index must be inside the region of a linalg op");
    return;
  }
  uint32_t loops = linalg_loops(v, v->ops[g].op);
  if (op->iaux[0] >= loops)
    ERR(id, "structure", "linalg.index %u names a loop the enclosing %s does not have (it has %u)",
        op->iaux[0], air_v_opname(v->ops[g].op), loops);
}

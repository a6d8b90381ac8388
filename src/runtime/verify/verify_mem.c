/* verify_mem.c - [structure], [symbol] and [nesting] of memref globals and views
 * (collapse/expand_shape, cast, memref.global / get_global, reshape, transpose,
 * extract_strided_metadata, reinterpret_cast), tensors and bufferization casts,
 * air.custom, and where unranked memrefs may go. The per-op pass (verify_ops.c)
 * calls these by op class. */
#include "runtime/verify/verify_mem.h"

#include <string.h>

#include "runtime/ir/dense.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/* Static element count of a ranked shape; false when a dimension is dynamic. */
static bool static_count(const air_type_info_t* t, uint64_t* out) {
  uint64_t n = 1;
  if (t->unranked) return false;
  for (uint32_t i = 0; i < t->rank; ++i) {
    if (t->shape[i] == AIR_DIM_DYNAMIC || t->shape[i] < 0 ||
        __builtin_mul_overflow(n, (uint64_t)t->shape[i], &n))
      return false;
  }
  *out = n;
  return true;
}

/* The result must be a memref of the source's element type and memory space. */
static bool same_elem_space(air_vctx_t* v, uint32_t id, const air_type_info_t* s,
                            const air_type_info_t* d) {
  if (s->kind != AIR_TYPE_MEMREF || d->kind != AIR_TYPE_MEMREF) return false;
  if (s->elem == d->elem && s->memspace == d->memspace) return true;
  ERR(id, "structure", "%s changes the element type or memory space (%s, space %d to %s, "
      "space %d)", air_v_opname(v->ops[id].op), air_elem_name(s->elem), (int)s->memspace,
      air_elem_name(d->elem), (int)d->memspace);
  return false;
}

/*---------------------------------------------------------------------------*/
/* Views of one memref                                                       */
/*---------------------------------------------------------------------------*/

/* collapse_shape / expand_shape / cast: same element type and memory space; the
 * groups partition the dimensions of the higher-rank side in order, one group per
 * dimension of the lower-rank side, and static sizes multiply up. */
void air_v_check_reshape(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  air_vid_t sv = op->operands[0], rv = op->results[0];
  air_v_want_memref(v, id, sv, "the source");
  air_v_want(v, id, rv, "a memref", air_v_type(v, rv)->kind == AIR_TYPE_MEMREF, "%s",
            "the result");
  const air_type_info_t* s = air_v_type(v, sv);
  const air_type_info_t* d = air_v_type(v, rv);
  if (s->kind != AIR_TYPE_MEMREF || d->kind != AIR_TYPE_MEMREF) return;
  if (s->elem != d->elem || s->memspace != d->memspace) {
    ERR(id, "structure", "%s changes the element type or memory space (%s, space %d to %s, "
        "space %d)", on, air_elem_name(s->elem), (int)s->memspace, air_elem_name(d->elem),
        (int)d->memspace);
    return;
  }
  if (op->kind == AIR_OP_MEMREF_CAST) {
    /* Casts between ranked types, or to / from an unranked one (MLIR does not
     * cast unranked to unranked). */
    if (s->unranked || d->unranked) {
      if (s->unranked && d->unranked)
        ERR(id, "structure", "%s from an unranked memref to an unranked one", on);
      return;
    }
    bool ok = s->rank == d->rank;
    for (uint32_t k = 0; ok && k < s->rank; ++k)
      ok = s->shape[k] == d->shape[k] || s->shape[k] == AIR_DIM_DYNAMIC ||
           d->shape[k] == AIR_DIM_DYNAMIC;
    if (!ok) ERR(id, "structure", "%s between incompatible shapes", on);
    return;
  }
  if (s->unranked || d->unranked) {
    ERR(id, "structure", "%s needs ranked memrefs", on);
    return;
  }
  bool collapse = op->kind == AIR_OP_COLLAPSE_SHAPE;
  const air_type_info_t* hi = collapse ? s : d; /* the side the groups index */
  const air_type_info_t* lo = collapse ? d : s;
  const air_ixlist_t* idx = &op->lists[0];
  const air_ixlist_t* groups = &op->lists[1];
  if (groups->n != lo->rank || idx->n != hi->rank) {
    ERR(id, "structure", "%s has %u groups over %u dimensions; the types need %u over %u", on,
        groups->n, idx->n, lo->rank, hi->rank);
    return;
  }
  uint32_t k = 0;
  for (uint32_t g = 0; g < groups->n; ++g) {
    int64_t n = groups->items[g].cst, prod = 1;
    bool dyn = false;
    if (n < 1 || n > (int64_t)(idx->n - k)) {
      ERR(id, "structure", "%s: reassociation group #%u is empty or too long", on, g);
      return;
    }
    for (int64_t j = 0; j < n; ++j, ++k) {
      if (idx->items[k].cst != (int64_t)k) {
        ERR(id, "structure", "%s: reassociation groups must list dimensions 0..%u in order", on,
            hi->rank - 1);
        return;
      }
      int64_t e = hi->shape[k];
      if (e == AIR_DIM_DYNAMIC || __builtin_mul_overflow(prod, e, &prod)) dyn = true;
    }
    if (!dyn && lo->shape[g] != AIR_DIM_DYNAMIC && lo->shape[g] != prod)
      ERR(id, "structure", "%s: dimension %u is %lld but its group multiplies to %lld", on, g,
          (long long)lo->shape[g], (long long)prod);
  }
  if (op->kind == AIR_OP_EXPAND_SHAPE && op->n_lists > 2) {
    const air_ixlist_t* os = &op->lists[2];
    if (os->n != d->rank) {
      ERR(id, "structure", "%s: output_shape has %u sizes for a rank-%u result", on, os->n,
          d->rank);
      return;
    }
    for (uint32_t i = 0; i < os->n; ++i) {
      if (os->items[i].value)
        air_v_want_index(v, id, os->items[i].value, "an output_shape size");
      else if (d->shape[i] != AIR_DIM_DYNAMIC && d->shape[i] != os->items[i].cst)
        ERR(id, "structure", "%s: output_shape size %u is %lld but the result type says %lld",
            on, i, (long long)os->items[i].cst, (long long)d->shape[i]);
    }
  }
}


/* memref.reshape: a contiguous source read with the shape another memref holds. */
static void check_memref_reshape(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_vid_t sv = op->operands[0], shv = op->operands[1], rv = op->results[0];
  air_v_want_memref(v, id, sv, "the source");
  air_v_want_memref(v, id, shv, "the shape operand");
  air_v_want(v, id, rv, "a memref", air_v_type(v, rv)->kind == AIR_TYPE_MEMREF, "%s",
             "the result");
  const air_type_info_t* s = air_v_type(v, sv);
  const air_type_info_t* sh = air_v_type(v, shv);
  const air_type_info_t* d = air_v_type(v, rv);
  if (!same_elem_space(v, id, s, d)) return;
  if (s->layout || d->layout)
    ERR(id, "structure", "memref.reshape needs identity layouts (a contiguous buffer)");
  if (sh->kind == AIR_TYPE_MEMREF) {
    if (sh->unranked || sh->rank != 1 || (sh->elem != AIR_ELEM_INDEX && !air_v_is_int_like(sh)) ||
        air_elem_is_float(sh->elem)) {
      ERR(id, "structure", "the shape operand of memref.reshape is a 1-D memref of integers or "
          "index");
      return;
    }
    if (!d->unranked && sh->shape[0] != AIR_DIM_DYNAMIC && sh->shape[0] != (int64_t)d->rank)
      ERR(id, "structure", "memref.reshape's shape operand holds %lld sizes for a rank-%u result",
          (long long)sh->shape[0], d->rank);
    if (d->unranked && sh->shape[0] == AIR_DIM_DYNAMIC)
      return;
  }
  uint64_t a, b;
  if (static_count(s, &a) && static_count(d, &b) && a != b)
    ERR(id, "structure", "memref.reshape of %llu elements into %llu", (unsigned long long)a,
        (unsigned long long)b);
}

/* memref.transpose: the map permutes the dimensions. */
static void check_transpose(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_v_want_memref(v, id, op->operands[0], "the source");
  const air_type_info_t* s = air_v_type(v, op->operands[0]);
  const air_type_info_t* d = air_v_type(v, op->results[0]);
  if (!same_elem_space(v, id, s, d)) return;
  const air_attr_t* m = air_ir_attr_resolve(v->p, &op->value);
  if (!m || m->kind != AIR_ATTR_MAP || !m->map || s->unranked ||
      m->map->n_dims != s->rank || m->map->n_results != s->rank || m->map->n_syms ||
      d->rank != s->rank) {
    ERR(id, "structure", "memref.transpose needs a permutation of the source's %u dimensions and "
        "a result of the same rank", s->rank);
    return;
  }
  uint64_t seen = 0;
  for (uint32_t i = 0; i < s->rank; ++i) {
    const air_aff_t* e = m->map->results[i];
    if (!e || e->kind != AIR_AFF_DIM || e->value < 0 || e->value >= 64 ||
        (seen >> e->value & 1)) {
      ERR(id, "structure", "memref.transpose's map is not a permutation");
      return;
    }
    seen |= 1ull << e->value;
    int64_t want = s->shape[e->value];
    if (want != AIR_DIM_DYNAMIC && d->shape[i] != AIR_DIM_DYNAMIC && d->shape[i] != want)
      ERR(id, "structure", "dimension %u of memref.transpose's result is %lld; the permutation "
          "makes it %lld", i, (long long)d->shape[i], (long long)want);
  }
}

static void check_extract_meta(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_v_want_memref(v, id, op->operands[0], "the source");
  const air_type_info_t* s = air_v_type(v, op->operands[0]);
  if (s->kind != AIR_TYPE_MEMREF) return;
  if (s->unranked) {
    ERR(id, "structure", "memref.extract_strided_metadata needs a ranked memref");
    return;
  }
  if (op->n_results != 2 + 2 * s->rank) {
    ERR(id, "structure", "memref.extract_strided_metadata of a rank-%u memref has %u results "
        "(base, offset, %u sizes, %u strides), not %u", s->rank, 2 + 2 * s->rank, s->rank,
        s->rank, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  const air_type_info_t* b = air_v_type(v, op->results[0]);
  if (b->kind != AIR_TYPE_MEMREF || b->unranked || b->rank != 0 || b->elem != s->elem ||
      b->memspace != s->memspace)
    ERR(id, "structure", "the base of memref.extract_strided_metadata is a 0-d memref of the "
        "source's element type and memory space");
  for (uint32_t i = 1; i < op->n_results; ++i)
    air_v_want_index(v, id, op->results[i], "result #%u", i);
}

static void check_reinterpret(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_v_want_memref(v, id, op->operands[0], "the source");
  const air_type_info_t* s = air_v_type(v, op->operands[0]);
  const air_type_info_t* d = air_v_type(v, op->results[0]);
  if (!same_elem_space(v, id, s, d)) return;
  const air_ixlist_t* l = op->lists;
  if (d->unranked || l[0].n != 1 || l[1].n != d->rank || l[2].n != d->rank) {
    ERR(id, "structure", "memref.reinterpret_cast needs one offset and %u sizes and strides for "
        "its rank-%u result", d->rank, d->rank);
    return;
  }
  static const char* const what[3] = {"offset", "size", "stride"};
  for (int k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < l[k].n; ++i) {
      if (l[k].items[i].value) air_v_want_index(v, id, l[k].items[i].value, "%s #%u", what[k], i);
      int64_t c;
      if (!air_v_ix_const(v, &l[k].items[i], &c)) continue;
      if (c < 0)
        ERR(id, "structure", "%s #%u of memref.reinterpret_cast is %lld", what[k], i, (long long)c);
      if (k == 1 && d->shape[i] != AIR_DIM_DYNAMIC && d->shape[i] != c)
        ERR(id, "structure", "size #%u of memref.reinterpret_cast is %lld but the result type "
            "says %lld", i, (long long)c, (long long)d->shape[i]);
    }
}

/*---------------------------------------------------------------------------*/
/* Globals                                                                   */
/*---------------------------------------------------------------------------*/

static void check_global(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  uint32_t par = v->ops[id].parent;
  if (par == AIR_V_NONE || v->ops[par].op->kind != AIR_OP_MODULE)
    ERR(id, "nesting", "memref.global @%s must be at module level", op->sym ? op->sym : "?");
  if (!op->sym || op->n_types != 1 || !op->types) {
    ERR(id, "structure", "memref.global needs a name and a memref type");
    v->ops[id].bad = 1;
    return;
  }
  const air_type_info_t* t = air_ir_type(v->p, op->types[0]);
  uint64_t n;
  if (t->kind != AIR_TYPE_MEMREF || !static_count(t, &n) || t->layout) {
    ERR(id, "structure", "memref.global @%s needs a memref type of static shape and identity "
        "layout", op->sym);
    return;
  }
  if ((op->iaux[1] & AIR_GLOBAL_CONSTANT) && !(op->iaux[1] & AIR_GLOBAL_INIT))
    ERR(id, "structure", "constant memref.global @%s needs an initial value", op->sym);
  if (!(op->iaux[1] & AIR_GLOBAL_INIT)) return;
  const air_attr_t* a = air_ir_attr_resolve(v->p, &op->value);
  char err[160];
  if (!a || a->kind != AIR_ATTR_OPAQUE || !a->s ||
      !air_ir_dense_decode(a->s, t->elem, n, NULL, err, sizeof err))
    ERR(id, "structure", "the initial value of memref.global @%s does not fit its type: %s",
        op->sym, a && a->kind == AIR_ATTR_OPAQUE ? err : "expected a dense<...> literal");
}

static void check_get_global(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  if (!op->sym) {
    ERR(id, "structure", "memref.get_global needs a symbol");
    v->ops[id].bad = 1;
    return;
  }
  uint32_t g = air_v_symbol(v, id, op->sym);
  const air_op_t* go = g != AIR_V_NONE ? v->ops[g].op : NULL;
  if (!go || go->kind != AIR_OP_GLOBAL || v->ops[g].bad) {
    ERR(id, "symbol", "memref.get_global names @%s, which is not a memref.global of this module",
        op->sym);
    return;
  }
  if (air_v_valid(v, op->results[0]) && go->n_types == 1 &&
      !air_v_same_type(v, air_v_vtype(v, op->results[0]), go->types[0])) {
    char a[96], b[96];
    ERR(id, "symbol", "memref.get_global @%s has type %s but the global is %s", op->sym,
        air_v_tname(v, air_v_vtype(v, op->results[0]), a, sizeof a),
        air_v_tname(v, go->types[0], b, sizeof b));
  }
}

/*---------------------------------------------------------------------------*/
/* Tensors                                                                   */
/*---------------------------------------------------------------------------*/

static void check_tensor_op(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  switch (op->kind) {
    case AIR_OP_TENSOR_EMPTY: {
      const air_type_info_t* t = air_v_type(v, op->results[0]);
      if (t->kind != AIR_TYPE_TENSOR || t->unranked) {
        ERR(id, "structure", "tensor.empty makes a ranked tensor");
        return;
      }
      uint32_t dyn = 0;
      for (uint32_t i = 0; i < t->rank; ++i) dyn += t->shape[i] == AIR_DIM_DYNAMIC;
      if (dyn != op->n_operands)
        ERR(id, "structure", "tensor.empty needs %u dynamic sizes, found %u", dyn, op->n_operands);
      for (uint32_t i = 0; i < op->n_operands; ++i)
        air_v_want_index(v, id, op->operands[i], "a dynamic size");
      return;
    }
    case AIR_OP_EXTRACT_SLICE:
    case AIR_OP_INSERT_SLICE:
    case AIR_OP_PARALLEL_INSERT_SLICE: {
      bool insert = op->kind != AIR_OP_EXTRACT_SLICE;
      air_vid_t big = insert ? op->operands[1] : op->operands[0];
      const air_type_info_t* bt = air_v_type(v, big);
      for (uint32_t i = 0; i < op->n_operands; ++i)
        air_v_want(v, id, op->operands[i], "a tensor",
                   air_v_type(v, op->operands[i])->kind == AIR_TYPE_TENSOR, "operand #%u", i);
      if (bt->kind != AIR_TYPE_TENSOR) return;
      for (int k = 0; k < 3; ++k) {
        if (op->lists[k].n != bt->rank)
          ERR(id, "structure", "%s of a rank-%u tensor needs %u offsets, sizes and strides", on,
              bt->rank, bt->rank);
        for (uint32_t i = 0; i < op->lists[k].n; ++i)
          if (op->lists[k].items[i].value)
            air_v_want_index(v, id, op->lists[k].items[i].value, "an offset, size or stride");
      }
      if (op->kind == AIR_OP_INSERT_SLICE && air_v_valid(v, op->results[0]) &&
          !air_v_same_type(v, air_v_vtype(v, op->results[0]), air_v_vtype(v, big)))
        ERR(id, "structure", "tensor.insert_slice returns its destination's type");
      if (op->kind == AIR_OP_PARALLEL_INSERT_SLICE) {
        uint32_t par = v->ops[id].parent;
        if (par == AIR_V_NONE || v->ops[par].op->kind != AIR_OP_IN_PARALLEL)
          ERR(id, "structure", "tensor.parallel_insert_slice must be inside "
              "scf.forall.in_parallel");
      }
      return;
    }
    default: {
      /* bufferization casts: the same shape and element type on both sides */
      const air_type_info_t* a = air_v_type(v, op->operands[0]);
      const air_type_info_t* b = air_v_type(v, op->results[0]);
      bool to_tensor = op->kind == AIR_OP_TO_TENSOR;
      const air_type_info_t* m = to_tensor ? a : b;
      const air_type_info_t* t = to_tensor ? b : a;
      if (m->kind != AIR_TYPE_MEMREF || t->kind != AIR_TYPE_TENSOR) {
        ERR(id, "structure", "%s converts between a memref and a tensor", on);
        return;
      }
      bool same = m->elem == t->elem && m->unranked == t->unranked && m->rank == t->rank;
      for (uint32_t i = 0; same && i < m->rank; ++i) same = m->shape[i] == t->shape[i];
      if (!same) ERR(id, "structure", "%s needs the same shape and element type on both sides", on);
      return;
    }
  }
}

/*---------------------------------------------------------------------------*/
/* Ranked operands, air.custom, dispatch                                     */
/*---------------------------------------------------------------------------*/

/* Unranked memrefs are passed around (func arguments and calls, execute results,
 * hierarchy args, air.custom) and cast back; ops that address elements need a
 * rank. */
void air_v_check_ranked(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_LOAD: case AIR_OPC_STORE: case AIR_OPC_COPY: case AIR_OPC_SUBVIEW:
    case AIR_OPC_DMA: case AIR_OPC_CHANNEL_IO: case AIR_OPC_ALLOC: break;
    default: return;
  }
  for (uint32_t i = 0; i < op->n_operands; ++i) {
    const air_type_info_t* t = air_v_type(v, op->operands[i]);
    if (t->kind == AIR_TYPE_MEMREF && t->unranked) {
      char nb[64];
      ERR(id, "structure", "%s needs a ranked memref, but %s is unranked; memref.cast it to a "
          "ranked type first", air_v_opname(op), air_v_vname(v, op->operands[i], nb, sizeof nb));
    }
  }
  for (uint32_t i = 0; i < op->n_results; ++i) {
    const air_type_info_t* t = air_v_type(v, op->results[i]);
    if (t->kind == AIR_TYPE_MEMREF && t->unranked)
      ERR(id, "structure", "%s cannot make an unranked memref", air_v_opname(op));
  }
}

bool air_v_check_mem(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  air_opcls_t cls = air_opkind_class(op->kind);
  static const struct {
    air_opcls_t cls;
    int8_t ops, res; /* -1: variable */
  } k_shape[] = {
      {AIR_OPC_GLOBAL, 0, 0},       {AIR_OPC_GET_GLOBAL, 0, 1},   {AIR_OPC_MEMREF_RESHAPE, 2, 1},
      {AIR_OPC_TRANSPOSE, 1, 1},    {AIR_OPC_EXTRACT_META, 1, -1}, {AIR_OPC_REINTERPRET, 1, 1},
      {AIR_OPC_TENSOR_EMPTY, -1, 1}, {AIR_OPC_SLICE, 1, 1},        {AIR_OPC_INSERT_SLICE, 2, -1},
      {AIR_OPC_BUFFERIZE, 1, 1},    {AIR_OPC_CUSTOM, -1, -1},
  };
  size_t k = 0, nk = sizeof k_shape / sizeof k_shape[0];
  while (k < nk && k_shape[k].cls != cls) ++k;
  if (k == nk) return false;
  bool lists_ok = (cls != AIR_OPC_SLICE && cls != AIR_OPC_INSERT_SLICE &&
                   cls != AIR_OPC_REINTERPRET) ||
                  (op->n_lists == 3 && op->lists);
  if ((k_shape[k].ops >= 0 && op->n_operands != (uint32_t)k_shape[k].ops) ||
      (k_shape[k].res >= 0 && op->n_results != (uint32_t)k_shape[k].res) || !lists_ok ||
      (op->kind == AIR_OP_INSERT_SLICE && op->n_results != 1) ||
      (op->kind == AIR_OP_PARALLEL_INSERT_SLICE && op->n_results != 0)) {
    ERR(id, "structure", "%s has %u operands and %u results, which its form does not allow",
        air_v_opname(op), op->n_operands, op->n_results);
    v->ops[id].bad = 1;
    return true;
  }
  switch (cls) {
    case AIR_OPC_GLOBAL: check_global(v, id); break;
    case AIR_OPC_GET_GLOBAL: check_get_global(v, id); break;
    case AIR_OPC_MEMREF_RESHAPE: check_memref_reshape(v, id); break;
    case AIR_OPC_TRANSPOSE: check_transpose(v, id); break;
    case AIR_OPC_EXTRACT_META: check_extract_meta(v, id); break;
    case AIR_OPC_REINTERPRET: check_reinterpret(v, id); break;
    case AIR_OPC_CUSTOM: air_v_check_async(v, id); break;
    default: check_tensor_op(v, id); break;
  }
  return true;
}

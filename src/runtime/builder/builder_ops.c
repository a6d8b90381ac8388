/* builder_ops.c - the builder's compute ops: arith, memref, affine values and
 * linalg (the built-in ops a herd body may hold besides control flow, which is
 * builder_flow.c). */
#include <string.h>

#include "runtime/builder/builder_core.h"
#include "runtime/builder/builder_types.h"

/* Public op enums map to IR kinds through tables, not offsets, so ir_ops.def may
 * be reordered freely. */
static const air_opkind_t k_binary[AIR_BINARY_COUNT] = {
    AIR_OP_ADDI,     AIR_OP_SUBI,     AIR_OP_MULI,     AIR_OP_DIVSI,    AIR_OP_DIVUI,
    AIR_OP_CEILDIVSI, AIR_OP_FLOORDIVSI, AIR_OP_REMSI, AIR_OP_REMUI,    AIR_OP_MAXSI,
    AIR_OP_MINSI,    AIR_OP_MAXUI,    AIR_OP_MINUI,    AIR_OP_ANDI,     AIR_OP_ORI,
    AIR_OP_XORI,     AIR_OP_SHLI,     AIR_OP_SHRSI,    AIR_OP_SHRUI,    AIR_OP_ADDF,
    AIR_OP_SUBF,     AIR_OP_MULF,     AIR_OP_DIVF,     AIR_OP_MAXIMUMF, AIR_OP_MINIMUMF,
    AIR_OP_MAXNUMF,  AIR_OP_MINNUMF,
};
static const air_opkind_t k_cast[AIR_CAST_COUNT] = {
    AIR_OP_INDEX_CAST, AIR_OP_INDEX_CASTUI, AIR_OP_EXTSI,  AIR_OP_EXTUI,
    AIR_OP_TRUNCI,     AIR_OP_EXTF,         AIR_OP_TRUNCF, AIR_OP_SITOFP,
    AIR_OP_UITOFP,     AIR_OP_FPTOSI,       AIR_OP_FPTOUI, AIR_OP_BITCAST,
};
_Static_assert((int)AIR_ICMP_COUNT == (int)AIR_CMPI_COUNT_ &&
                   (int)AIR_ICMP_UGE == (int)AIR_CMPI_UGE &&
                   (int)AIR_ICMP_SLT == (int)AIR_CMPI_SLT,
               "air_icmp_t must number like MLIR");
_Static_assert((int)AIR_FCMP_COUNT == (int)AIR_CMPF_COUNT_ &&
                   (int)AIR_FCMP_TRUE == (int)AIR_CMPF_TRUE &&
                   (int)AIR_FCMP_ULT == (int)AIR_CMPF_ULT,
               "air_fcmp_t must number like MLIR");

static const air_type_info_t* vtype(const air_builder_t* b, air_vid_t v) {
  return air_ir_type(b->p, air_ir_value_type(b->p, v));
}

/* A single-result op with `n` operands, appended; *out receives the result. */
static air_status_t simple(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n,
                           const air_vid_t* operands, air_tid_t result, air_op_t** op_out,
                           air_value_t* out) {
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, kind, n, result ? 1 : 0, 0, 0, &op));
  if (n) memcpy(op->operands, operands, n * sizeof(air_vid_t));
  if (result) AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, result));
  air_b_append(b, op);
  if (op_out) *op_out = op;
  if (out) *out = result ? op->results[0] : 0;
  return NULL;
}

static air_status_t need_out(const air_builder_t* b, const char* fn, const void* out) {
  return out ? NULL : AIR_B_INVALID(b, "%s: NULL out", fn);
}

/*---------------------------------------------------------------------------*/
/* arith                                                                     */
/*---------------------------------------------------------------------------*/

static air_status_t constant(air_builder_t* b, const char* fn, air_tid_t type,
                             const air_attr_t* value, air_value_t* out) {
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, AIR_OP_CONSTANT, 0, NULL, type, &op, out));
  op->value = *value;
  return NULL;
}

air_status_t air_builder_constant_int(air_builder_t* b, air_type_t type, int64_t value,
                                      air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "type", type, AIR_BW_INTLIKE));
  /* MLIR accepts a literal that fits the width either signed or unsigned. */
  uint32_t bits = air_elem_size(air_ir_type(b->p, type)->elem) * 8;
  if (air_ir_type(b->p, type)->elem == AIR_ELEM_I1) bits = 1;
  if (bits < 64 && (value < -((int64_t)1 << (bits - 1)) || value > ((int64_t)1 << bits) - 1))
    return AIR_B_INVALID(b, "%s: %lld does not fit in %u bits", fn, (long long)value, bits);
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.type = type;
  a.i = value;
  return constant(b, fn, type, &a, out);
}

air_status_t air_builder_constant_index(air_builder_t* b, int64_t value, air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(need_out(b, __func__, out));
  air_tid_t t = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!t) return AIR_B_OOM(b, __func__);
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.type = t;
  a.i = value;
  return constant(b, __func__, t, &a, out);
}

air_status_t air_builder_constant_float(air_builder_t* b, air_type_t type, double value,
                                        air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(need_out(b, __func__, out));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, __func__, "type", type, AIR_BW_FLOAT));
  air_attr_t a = {0};
  a.kind = AIR_ATTR_FLOAT;
  a.type = type;
  a.f = value;
  return constant(b, __func__, type, &a, out);
}

air_status_t air_builder_binary(air_builder_t* b, air_binary_op_t opc, air_value_t lhs,
                                air_value_t rhs, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if ((unsigned)opc >= AIR_BINARY_COUNT)
    return AIR_B_INVALID(b, "%s: unknown binary op %d", fn, (int)opc);
  air_opkind_t kind = k_binary[opc];
  air_bwant_t want = opc >= AIR_BINARY_ADDF ? AIR_BW_FLOAT : AIR_BW_INTLIKE;
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "lhs", lhs, want));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "rhs", rhs, want));
  air_tid_t t = air_ir_value_type(b->p, lhs);
  if (air_ir_value_type(b->p, rhs) != t)
    return AIR_B_INVALID(b, "%s: %s operands of different types", fn, air_opkind_name(kind));
  air_vid_t ops[2] = {lhs, rhs};
  return simple(b, fn, kind, 2, ops, t, NULL, out);
}

air_status_t air_builder_negf(air_builder_t* b, air_value_t x, air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(need_out(b, __func__, out));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "x", x, AIR_BW_FLOAT));
  return simple(b, __func__, AIR_OP_NEGF, 1, &x, air_ir_value_type(b->p, x), NULL, out);
}

static air_status_t cmp(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t pred,
                        uint32_t n_preds, air_bwant_t want, air_value_t lhs, air_value_t rhs,
                        air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if (pred >= n_preds) return AIR_B_INVALID(b, "%s: unknown predicate %u", fn, pred);
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "lhs", lhs, want));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "rhs", rhs, want));
  if (air_ir_value_type(b->p, lhs) != air_ir_value_type(b->p, rhs))
    return AIR_B_INVALID(b, "%s: operands of different types", fn);
  air_tid_t i1 = air_b_scalar_type(b, AIR_ELEM_I1);
  if (!i1) return AIR_B_OOM(b, fn);
  air_vid_t ops[2] = {lhs, rhs};
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, kind, 2, ops, i1, &op, out));
  op->iaux[0] = pred;
  return NULL;
}

air_status_t air_builder_cmpi(air_builder_t* b, air_icmp_t pred, air_value_t lhs,
                              air_value_t rhs, air_value_t* out) {
  return cmp(b, __func__, AIR_OP_CMPI, (uint32_t)pred, AIR_ICMP_COUNT, AIR_BW_INTLIKE, lhs,
             rhs, out);
}

air_status_t air_builder_cmpf(air_builder_t* b, air_fcmp_t pred, air_value_t lhs,
                              air_value_t rhs, air_value_t* out) {
  return cmp(b, __func__, AIR_OP_CMPF, (uint32_t)pred, AIR_FCMP_COUNT, AIR_BW_FLOAT, lhs, rhs,
             out);
}

air_status_t air_builder_select(air_builder_t* b, air_value_t cond, air_value_t x,
                                air_value_t y, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "cond", cond, AIR_BW_I1));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "a", x, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "b", y, AIR_BW_ANY));
  if (air_ir_value_type(b->p, x) != air_ir_value_type(b->p, y))
    return AIR_B_INVALID(b, "%s: a and b have different types", fn);
  air_vid_t ops[3] = {cond, x, y};
  return simple(b, fn, AIR_OP_SELECT, 3, ops, air_ir_value_type(b->p, x), NULL, out);
}

air_status_t air_builder_cast(air_builder_t* b, air_cast_op_t opc, air_value_t x,
                              air_type_t to, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if ((unsigned)opc >= AIR_CAST_COUNT)
    return AIR_B_INVALID(b, "%s: unknown cast %d", fn, (int)opc);
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "x", x, AIR_BW_SCALAR));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "to", to, AIR_BW_SCALAR));
  return simple(b, fn, k_cast[opc], 1, &x, to, NULL, out);
}

/*---------------------------------------------------------------------------*/
/* memref                                                                    */
/*---------------------------------------------------------------------------*/

air_status_t air_builder_memref_alloc(air_builder_t* b, air_type_t type, uint32_t n_dynamic,
                                      const air_value_t* dynamic_sizes, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "type", type, AIR_BW_MEMREF));
  const air_type_info_t* t = air_ir_type(b->p, type);
  uint32_t n_dyn = 0;
  for (uint32_t i = 0; i < t->rank; ++i) n_dyn += t->shape[i] == AIR_DIM_DYNAMIC;
  if (n_dynamic != n_dyn)
    return AIR_B_INVALID(b, "%s: %u dynamic sizes given, the type has %u `?`", fn, n_dynamic,
                         n_dyn);
  AIR_RETURN_IF_ERROR(
      air_b_check_values(b, fn, "dynamic_sizes", n_dynamic, dynamic_sizes, AIR_BW_INDEX));
  return simple(b, fn, AIR_OP_ALLOC, n_dynamic, dynamic_sizes, type, NULL, out);
}

air_status_t air_builder_memref_dealloc(air_builder_t* b, air_value_t memref) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "memref", memref, AIR_BW_MEMREF));
  return simple(b, __func__, AIR_OP_DEALLOC, 1, &memref, 0, NULL, NULL);
}

/* [first, memref, indices...] for load (no first) and store. With `map`
 * (affine.load/store) the indices are the map's operands and its results index. */
static air_status_t access(air_builder_t* b, const char* fn, air_opkind_t kind,
                           air_value_t value, air_value_t memref,
                           const air_affine_desc_t* map, uint32_t n,
                           const air_value_t* indices, air_value_t* out) {
  bool store = kind == AIR_OP_STORE || kind == AIR_OP_AFFINE_STORE;
  bool affine = kind == AIR_OP_AFFINE_LOAD || kind == AIR_OP_AFFINE_STORE;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!store) AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "memref", memref, AIR_BW_MEMREF));
  const air_type_info_t* t = vtype(b, memref);
  air_attr_t a;
  if (affine) {
    if (!map) return AIR_B_INVALID(b, "%s: NULL map", fn);
    if (map->n_exprs != t->rank)
      return AIR_B_INVALID(b, "%s: a map with %u results for a rank-%u memref", fn,
                           map->n_exprs, t->rank);
    if ((uint64_t)map->n_dims + map->n_syms != n)
      return AIR_B_INVALID(b, "%s: %u operands for a map of %u dims and %u symbols", fn, n,
                           map->n_dims, map->n_syms);
  } else if (n != t->rank) {
    return AIR_B_INVALID(b, "%s: %u indices for a rank-%u memref", fn, n, t->rank);
  }
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "indices", n, indices, AIR_BW_INDEX));
  if (affine) AIR_RETURN_IF_ERROR(air_b_affine(b, fn, map, 0, &a));
  t = vtype(b, memref); /* the type table may have grown */
  air_tid_t elem = air_b_scalar_type(b, t->elem);
  if (!elem) return AIR_B_OOM(b, fn);
  if (store) {
    AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "value", value, AIR_BW_SCALAR));
    if (air_ir_value_type(b->p, value) != elem)
      return AIR_B_INVALID(b, "%s: value is not of the memref's element type", fn);
  }
  if (n > UINT32_MAX - 2) return AIR_B_INVALID(b, "%s: too many indices", fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, kind, n + 1 + store, store ? 0 : 1, 0, 0, &op));
  if (affine) {
    op->value = a;
    op->iaux[0] = map->n_dims;
  }
  uint32_t k = 0;
  if (store) op->operands[k++] = value;
  op->operands[k++] = memref;
  if (n) memcpy(op->operands + k, indices, n * sizeof(air_vid_t));
  if (!store) AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, elem));
  air_b_append(b, op);
  if (!store) *out = op->results[0];
  return NULL;
}

air_status_t air_builder_memref_load(air_builder_t* b, air_value_t memref, uint32_t n_indices,
                                     const air_value_t* indices, air_value_t* out) {
  return access(b, __func__, AIR_OP_LOAD, 0, memref, NULL, n_indices, indices, out);
}

air_status_t air_builder_affine_load(air_builder_t* b, air_value_t memref,
                                     const air_affine_desc_t* map, uint32_t n_operands,
                                     const air_value_t* operands, air_value_t* out) {
  return access(b, __func__, AIR_OP_AFFINE_LOAD, 0, memref, map, n_operands, operands, out);
}

air_status_t air_builder_affine_store(air_builder_t* b, air_value_t value, air_value_t memref,
                                      const air_affine_desc_t* map, uint32_t n_operands,
                                      const air_value_t* operands) {
  return access(b, __func__, AIR_OP_AFFINE_STORE, value, memref, map, n_operands, operands,
                NULL);
}

air_status_t air_builder_memref_store(air_builder_t* b, air_value_t value, air_value_t memref,
                                      uint32_t n_indices, const air_value_t* indices) {
  return access(b, __func__, AIR_OP_STORE, value, memref, NULL, n_indices, indices, NULL);
}

air_status_t air_builder_memref_copy(air_builder_t* b, air_value_t src, air_value_t dst) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "src", src, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "dst", dst, AIR_BW_MEMREF));
  air_vid_t ops[2] = {src, dst};
  return simple(b, __func__, AIR_OP_COPY, 2, ops, 0, NULL, NULL);
}

air_status_t air_builder_memref_subview(air_builder_t* b, const air_slice_t* src,
                                        air_type_t result_type, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if (!src) return AIR_B_INVALID(b, "%s: NULL src", fn);
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "src.memref", src->memref, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "offsets", src->n_offsets, src->offsets));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "sizes", src->n_sizes, src->sizes));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "strides", src->n_strides, src->strides));
  uint32_t rank = vtype(b, src->memref)->rank;
  if (src->n_offsets != rank || src->n_sizes != rank || src->n_strides != rank)
    return AIR_B_INVALID(b, "%s: a subview of a rank-%u memref needs %u offsets, sizes and "
                         "strides", fn, rank, rank);
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "result_type", result_type, AIR_BW_MEMREF));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_SUBVIEW, 1, 1, 0, 3, &op));
  op->operands[0] = src->memref;
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[0], src->n_offsets, src->offsets));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[1], src->n_sizes, src->sizes));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[2], src->n_strides, src->strides));
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, result_type));
  air_b_append(b, op);
  *out = op->results[0];
  return NULL;
}

/* Group sizes of a reassociation: they must cover the `hi_rank` dimensions of the
 * higher-rank side in order, one group per dimension of the other side. */
static air_status_t reassoc(air_builder_t* b, const char* fn, air_op_t* op, uint32_t n_groups,
                            const uint32_t* group_sizes, uint32_t lo_rank, uint32_t hi_rank) {
  if (n_groups && !group_sizes) return AIR_B_INVALID(b, "%s: NULL group_sizes", fn);
  if (n_groups != lo_rank)
    return AIR_B_INVALID(b, "%s: %u groups where the types need %u", fn, n_groups, lo_rank);
  uint64_t sum = 0;
  for (uint32_t g = 0; g < n_groups; ++g) {
    if (!group_sizes[g]) return AIR_B_INVALID(b, "%s: group #%u is empty", fn, g);
    sum += group_sizes[g];
  }
  if (sum != hi_rank)
    return AIR_B_INVALID(b, "%s: the groups cover %llu dimensions, not %u", fn,
                         (unsigned long long)sum, hi_rank);
  if (!air_ir_list_init(b->p, &op->lists[0], hi_rank) ||
      !air_ir_list_init(b->p, &op->lists[1], n_groups))
    return AIR_B_OOM(b, fn);
  for (uint32_t k = 0; k < hi_rank; ++k) op->lists[0].items[k].cst = k;
  for (uint32_t g = 0; g < n_groups; ++g) op->lists[1].items[g].cst = group_sizes[g];
  return NULL;
}

/* Shared checks of the reshapes: a memref source and result of one element type. */
static air_status_t reshape_begin(air_builder_t* b, const char* fn, air_value_t src,
                                  air_type_t result_type, air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "src", src, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "result_type", result_type, AIR_BW_MEMREF));
  const air_type_info_t* s = vtype(b, src);
  const air_type_info_t* d = air_ir_type(b->p, result_type);
  if (s->elem != d->elem || s->memspace != d->memspace)
    return AIR_B_INVALID(b, "%s: result_type changes the element type or memory space", fn);
  return NULL;
}

static air_status_t reshape_end(air_builder_t* b, const char* fn, air_op_t* op, air_value_t src,
                                air_type_t result_type, air_value_t* out) {
  op->operands[0] = src;
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, result_type));
  air_b_append(b, op);
  *out = op->results[0];
  return NULL;
}

air_status_t air_builder_memref_collapse_shape(air_builder_t* b, air_value_t src,
                                               uint32_t n_groups, const uint32_t* group_sizes,
                                               air_type_t result_type, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(reshape_begin(b, fn, src, result_type, out));
  uint32_t hi = vtype(b, src)->rank, lo = air_ir_type(b->p, result_type)->rank;
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_COLLAPSE_SHAPE, 1, 1, 0, 2, &op));
  AIR_RETURN_IF_ERROR(reassoc(b, fn, op, n_groups, group_sizes, lo, hi));
  return reshape_end(b, fn, op, src, result_type, out);
}

air_status_t air_builder_memref_expand_shape(air_builder_t* b, air_value_t src,
                                             uint32_t n_groups, const uint32_t* group_sizes,
                                             uint32_t n_output_shape,
                                             const air_index_t* output_shape,
                                             air_type_t result_type, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(reshape_begin(b, fn, src, result_type, out));
  uint32_t lo = vtype(b, src)->rank, hi = air_ir_type(b->p, result_type)->rank;
  if (n_output_shape && n_output_shape != hi)
    return AIR_B_INVALID(b, "%s: %u output_shape sizes for a rank-%u result", fn,
                         n_output_shape, hi);
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "output_shape", n_output_shape, output_shape));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(
      air_b_op(b, fn, AIR_OP_EXPAND_SHAPE, 1, 1, 0, n_output_shape ? 3 : 2, &op));
  AIR_RETURN_IF_ERROR(reassoc(b, fn, op, n_groups, group_sizes, lo, hi));
  if (n_output_shape)
    AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[2], n_output_shape, output_shape));
  return reshape_end(b, fn, op, src, result_type, out);
}

air_status_t air_builder_memref_cast(air_builder_t* b, air_value_t src, air_type_t result_type,
                                     air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(reshape_begin(b, fn, src, result_type, out));
  const air_type_info_t* s = vtype(b, src);
  const air_type_info_t* d = air_ir_type(b->p, result_type);
  if (s->unranked && d->unranked)
    return AIR_B_INVALID(b, "%s: a cast from unranked to unranked (cast to a ranked type)", fn);
  bool ok = s->unranked || d->unranked || s->rank == d->rank;
  for (uint32_t k = 0; ok && !s->unranked && !d->unranked && k < s->rank; ++k)
    ok = s->shape[k] == d->shape[k] || s->shape[k] == AIR_DIM_DYNAMIC ||
         d->shape[k] == AIR_DIM_DYNAMIC;
  if (!ok) return AIR_B_INVALID(b, "%s: result_type has an incompatible shape", fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_MEMREF_CAST, 1, 1, 0, 0, &op));
  return reshape_end(b, fn, op, src, result_type, out);
}

/*---------------------------------------------------------------------------*/
/* Affine values                                                             */
/*---------------------------------------------------------------------------*/

/* affine.apply (one map result) and affine.min / affine.max (one or more). */
static air_status_t affine_value(air_builder_t* b, const char* fn, air_opkind_t kind,
                                 const air_affine_desc_t* map, uint32_t n_operands,
                                 const air_value_t* operands, air_value_t* out) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if (!map) return AIR_B_INVALID(b, "%s: NULL map", fn);
  if (kind == AIR_OP_AFFINE_APPLY && map->n_exprs != 1)
    return AIR_B_INVALID(b, "%s: affine.apply needs a map with one result, not %u", fn,
                         map->n_exprs);
  if (map->n_exprs == 0)
    return AIR_B_INVALID(b, "%s: %s needs a map with at least one result", fn,
                         air_opkind_name(kind));
  if ((uint64_t)map->n_dims + map->n_syms != n_operands)
    return AIR_B_INVALID(b, "%s: %u operands for a map of %u dims and %u symbols", fn,
                         n_operands, map->n_dims, map->n_syms);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "operands", n_operands, operands, AIR_BW_INDEX));
  air_attr_t a;
  AIR_RETURN_IF_ERROR(air_b_affine(b, fn, map, 0, &a));
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!index) return AIR_B_OOM(b, fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, kind, n_operands, operands, index, &op, out));
  op->value = a;
  op->iaux[0] = map->n_dims;
  return NULL;
}

air_status_t air_builder_affine_apply(air_builder_t* b, const air_affine_desc_t* map,
                                      uint32_t n_operands, const air_value_t* operands,
                                      air_value_t* out) {
  return affine_value(b, __func__, AIR_OP_AFFINE_APPLY, map, n_operands, operands, out);
}

air_status_t air_builder_affine_min(air_builder_t* b, const air_affine_desc_t* map,
                                    uint32_t n_operands, const air_value_t* operands,
                                    air_value_t* out) {
  return affine_value(b, __func__, AIR_OP_AFFINE_MIN, map, n_operands, operands, out);
}

air_status_t air_builder_affine_max(air_builder_t* b, const air_affine_desc_t* map,
                                    uint32_t n_operands, const air_value_t* operands,
                                    air_value_t* out) {
  return affine_value(b, __func__, AIR_OP_AFFINE_MAX, map, n_operands, operands, out);
}

/*---------------------------------------------------------------------------*/
/* linalg                                                                    */
/*---------------------------------------------------------------------------*/

static air_status_t linalg(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n_ins,
                           uint32_t n, const air_vid_t* operands) {
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, kind, n, operands, 0, &op, NULL));
  op->iaux[0] = n_ins;
  return NULL;
}

air_status_t air_builder_linalg_fill(air_builder_t* b, air_value_t value, air_value_t memref) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "value", value, AIR_BW_SCALAR));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "memref", memref, AIR_BW_MEMREF));
  air_vid_t ops[2] = {value, memref};
  return linalg(b, __func__, AIR_OP_FILL, 1, 2, ops);
}

air_status_t air_builder_linalg_copy(air_builder_t* b, air_value_t src, air_value_t dst) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "src", src, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "dst", dst, AIR_BW_MEMREF));
  air_vid_t ops[2] = {src, dst};
  return linalg(b, __func__, AIR_OP_LINALG_COPY, 1, 2, ops);
}

air_status_t air_builder_linalg_matmul(air_builder_t* b, air_value_t a, air_value_t bm,
                                       air_value_t c) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "a", a, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "b", bm, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "c", c, AIR_BW_MEMREF));
  air_vid_t ops[3] = {a, bm, c};
  return linalg(b, __func__, AIR_OP_MATMUL, 2, 3, ops);
}

air_status_t air_builder_linalg_generic_begin(air_builder_t* b, const air_generic_desc_t* d,
                                              air_value_t* out_block_args) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  if (d->flags) return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, d->flags);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "ins", d->n_ins, d->ins, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "outs", d->n_outs, d->outs, AIR_BW_MEMREF));
  if (d->n_ins > UINT32_MAX / 2 || d->n_outs > UINT32_MAX / 2)
    return AIR_B_INVALID(b, "%s: too many operands", fn);
  uint32_t n = d->n_ins + d->n_outs;
  if (n && !d->indexing_maps) return AIR_B_INVALID(b, "%s: NULL indexing_maps", fn);
  if (d->n_iterators && !d->iterators) return AIR_B_INVALID(b, "%s: NULL iterators", fn);
  for (uint32_t i = 0; i < d->n_iterators; ++i)
    if (d->iterators[i] != AIR_ITERATOR_PARALLEL && d->iterators[i] != AIR_ITERATOR_REDUCTION)
      return AIR_B_INVALID(b, "%s: iterators[%u] is not PARALLEL or REDUCTION", fn, i);
  for (uint32_t i = 0; i < n; ++i)
    if (d->indexing_maps[i].n_dims != d->n_iterators)
      return AIR_B_INVALID(b, "%s: indexing_maps[%u] has %u dims for %u iterators", fn, i,
                           d->indexing_maps[i].n_dims, d->n_iterators);
  for (uint32_t i = 0; i < d->n_ins; ++i)
    if (vtype(b, d->ins[i])->kind == AIR_TYPE_TOKEN)
      return AIR_B_INVALID(b, "%s: ins[%u] is a token", fn, i);

  /* indexing_maps = [maps...], iterator_types = ["parallel", ...]. */
  air_attr_t maps = {0}, iters = {0};
  maps.kind = iters.kind = AIR_ATTR_ARRAY;
  maps.n = n;
  iters.n = d->n_iterators;
  air_attr_t* me = n ? air_ir_alloc(b->p, n * sizeof(air_attr_t)) : NULL;
  air_attr_t* ie = d->n_iterators ? air_ir_alloc(b->p, d->n_iterators * sizeof(air_attr_t)) : NULL;
  air_tid_t* types = air_ir_alloc(b->p, (n + 1) * sizeof(air_tid_t));
  if ((n && !me) || (d->n_iterators && !ie) || !types) return AIR_B_OOM(b, fn);
  for (uint32_t i = 0; i < n; ++i)
    AIR_RETURN_IF_ERROR(air_b_affine(b, fn, &d->indexing_maps[i], 0, &me[i]));
  for (uint32_t i = 0; i < d->n_iterators; ++i) {
    const char* s = d->iterators[i] == AIR_ITERATOR_PARALLEL ? "parallel" : "reduction";
    ie[i].kind = AIR_ATTR_STRING;
    ie[i].s = s;
    ie[i].n = (uint32_t)strlen(s);
  }
  maps.elems = me;
  iters.elems = ie;
  for (uint32_t i = 0; i < n; ++i) {
    air_vid_t v = i < d->n_ins ? d->ins[i] : d->outs[i - d->n_ins];
    const air_type_info_t* t = vtype(b, v);
    types[i] = t->kind == AIR_TYPE_MEMREF ? air_b_scalar_type(b, t->elem)
                                          : air_ir_value_type(b->p, v);
    if (!types[i]) return AIR_B_OOM(b, fn);
  }
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_GENERIC, n, 0, 1, 0, &op));
  op->iaux[0] = d->n_ins;
  if (d->n_ins) memcpy(op->operands, d->ins, d->n_ins * sizeof(air_vid_t));
  if (d->n_outs) memcpy(op->operands + d->n_ins, d->outs, d->n_outs * sizeof(air_vid_t));
  if (!air_ir_attr_set(b->p, op, "indexing_maps", &maps) ||
      !air_ir_attr_set(b->p, op, "iterator_types", &iters))
    return AIR_B_OOM(b, fn);
  air_block_t* body;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, n, types, &body));
  air_b_push(b, op, body);
  if (out_block_args && n) memcpy(out_block_args, body->args, n * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_linalg_generic_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_GENERIC, AIR_OP_GENERIC, &op));
  /* One yielded value per out, typed like the out's block argument. */
  uint32_t n_outs = op->n_operands - op->iaux[0];
  air_block_t* body = op->regions[0];
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, n_outs, body->args + op->iaux[0]));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_LINALG_YIELD, n, vs, &term));
  air_b_pop(b, term);
  return NULL;
}

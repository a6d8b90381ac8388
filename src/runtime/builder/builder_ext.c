/* builder_ext.c - builder calls for the constructs of mlir-air's wider programs
 * (issue 12): math, the named elementwise linalg ops and linalg.index,
 * scf.index_switch, scf.forall on memrefs, memref.global / get_global, the
 * views (memref.reshape, transpose, extract_strided_metadata, reinterpret_cast) and
 * air.custom. Same conventions as builder_ops.c: checks first, so a failed call
 * leaves the program as it was. */
#include <stdio.h>
#include <string.h>

#include "runtime/builder/builder_core.h"
#include "runtime/builder/builder_types.h"

/* The public enums follow ir_ops.def's order (linalg) or index a table (math). */
_Static_assert(AIR_OP_LINALG_ADD + AIR_ELEMENTWISE_POWF == AIR_OP_LINALG_POWF &&
                   AIR_OP_LINALG_ADD + AIR_ELEMENTWISE_EXP == AIR_OP_LINALG_EXP &&
                   AIR_OP_LINALG_ADD + AIR_ELEMENTWISE_ERF == AIR_OP_LINALG_ERF,
               "air_elementwise_op_t must follow the linalg block of ir_ops.def");

static air_status_t need_out(const air_builder_t* b, const char* fn, const void* out) {
  return out ? NULL : AIR_B_INVALID(b, "%s: NULL out", fn);
}

/* An op with `n` operands and one result of type `result` (0: none), appended. */
static air_status_t simple(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n,
                           const air_vid_t* operands, air_tid_t result, air_op_t** op_out) {
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, kind, n, result ? 1 : 0, 0, 0, &op));
  if (n) memcpy(op->operands, operands, n * sizeof(air_vid_t));
  if (result) AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, result));
  air_b_append(b, op);
  if (op_out) *op_out = op;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* math                                                                      */
/*---------------------------------------------------------------------------*/

static const air_opkind_t k_math[AIR_MATH_COUNT] = {
    AIR_OP_MATH_ABSF,  AIR_OP_MATH_CEIL,  AIR_OP_MATH_FLOOR,    AIR_OP_MATH_ROUND,
    AIR_OP_MATH_ROUNDEVEN, AIR_OP_MATH_TRUNC, AIR_OP_MATH_SQRT, AIR_OP_MATH_RSQRT,
    AIR_OP_MATH_CBRT,  AIR_OP_MATH_EXP,   AIR_OP_MATH_EXP2,     AIR_OP_MATH_EXPM1,
    AIR_OP_MATH_LOG,   AIR_OP_MATH_LOG2,  AIR_OP_MATH_LOG10,    AIR_OP_MATH_LOG1P,
    AIR_OP_MATH_SIN,   AIR_OP_MATH_COS,   AIR_OP_MATH_TAN,      AIR_OP_MATH_TANH,
    AIR_OP_MATH_ASIN,  AIR_OP_MATH_ACOS,  AIR_OP_MATH_ATAN,     AIR_OP_MATH_SINH,
    AIR_OP_MATH_COSH,  AIR_OP_MATH_ERF,   AIR_OP_MATH_POWF,     AIR_OP_MATH_ATAN2,
    AIR_OP_MATH_COPYSIGN, AIR_OP_REMF,    AIR_OP_MATH_FMA,      AIR_OP_MATH_ABSI,
    AIR_OP_MATH_CTPOP, AIR_OP_MATH_CTLZ,  AIR_OP_MATH_CTTZ,
};

air_status_t air_builder_math(air_builder_t* b, air_math_op_t opc, uint32_t n,
                              const air_value_t* operands, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  if ((unsigned)opc >= AIR_MATH_COUNT) return AIR_B_INVALID(b, "%s: unknown op %d", fn, (int)opc);
  air_opkind_t kind = k_math[opc];
  uint32_t want_n = opc == AIR_MATH_FMA                                  ? 3
                    : opc >= AIR_MATH_POWF && opc <= AIR_MATH_REMF ? 2
                                                                       : 1;
  if (n != want_n || !operands)
    return AIR_B_INVALID(b, "%s: %s takes %u operand%s, not %u", fn, air_opkind_name(kind),
                         want_n, want_n == 1 ? "" : "s", n);
  air_bwant_t want = opc >= AIR_MATH_ABSI ? AIR_BW_INT : AIR_BW_FLOAT;
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "operands", n, operands, want));
  air_tid_t t = air_ir_value_type(b->p, operands[0]);
  for (uint32_t i = 1; i < n; ++i)
    if (air_ir_value_type(b->p, operands[i]) != t)
      return AIR_B_INVALID(b, "%s: %s operands of different types", fn, air_opkind_name(kind));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, kind, n, operands, t, &op));
  *out = op->results[0];
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* linalg                                                                    */
/*---------------------------------------------------------------------------*/

air_status_t air_builder_linalg_elementwise(air_builder_t* b, air_elementwise_op_t opc,
                                            uint32_t n_ins, const air_value_t* ins,
                                            air_value_t outv) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if ((unsigned)opc >= AIR_ELEMENTWISE_COUNT)
    return AIR_B_INVALID(b, "%s: unknown op %d", fn, (int)opc);
  air_opkind_t kind = (air_opkind_t)(AIR_OP_LINALG_ADD + (int)opc); /* the table's order */
  uint32_t want = air_opkind_elementwise_ins(kind);
  if (n_ins != want || !ins)
    return AIR_B_INVALID(b, "%s: %s takes %u input%s, not %u", fn, air_opkind_name(kind), want,
                         want == 1 ? "" : "s", n_ins);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "ins", n_ins, ins, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "out", outv, AIR_BW_MEMREF));
  const air_type_info_t* o = air_ir_type(b->p, air_ir_value_type(b->p, outv));
  for (uint32_t i = 0; i < n_ins; ++i) {
    const air_type_info_t* t = air_ir_type(b->p, air_ir_value_type(b->p, ins[i]));
    bool same = t->rank == o->rank && !t->unranked && !o->unranked;
    for (uint32_t k = 0; same && k < o->rank; ++k) same = t->shape[k] == o->shape[k];
    if (!same)
      return AIR_B_INVALID(b, "%s: input %u of %s does not have the output's shape", fn, i,
                           air_opkind_name(kind));
  }
  air_vid_t ops[3] = {ins[0], n_ins > 1 ? ins[1] : outv, outv};
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, kind, n_ins + 1, ops, 0, &op));
  op->iaux[0] = n_ins;
  return NULL;
}

air_status_t air_builder_linalg_index(air_builder_t* b, uint32_t dim, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  air_op_t* g;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_GENERIC, AIR_OP_GENERIC, &g));
  const air_attr_t* it = air_ir_attr_get(g, "iterator_types");
  if (it && it->kind == AIR_ATTR_ARRAY && dim >= it->n)
    return AIR_B_INVALID(b, "%s: the linalg.generic has %u loops, not %u", fn, it->n, dim + 1);
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!index) return AIR_B_OOM(b, fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, AIR_OP_LINALG_INDEX, 0, NULL, index, &op));
  op->iaux[0] = dim;
  *out = op->results[0];
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* scf.index_switch and scf.forall                                           */
/*---------------------------------------------------------------------------*/

air_status_t air_builder_scf_index_switch_begin(air_builder_t* b, air_value_t arg,
                                                uint32_t n_cases, const int64_t* cases,
                                                uint32_t n_results, const air_type_t* types,
                                                air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "arg", arg, AIR_BW_INDEX));
  if (n_cases && !cases) return AIR_B_INVALID(b, "%s: NULL cases", fn);
  for (uint32_t i = 0; i < n_cases; ++i)
    for (uint32_t j = 0; j < i; ++j)
      if (cases[i] == cases[j])
        return AIR_B_INVALID(b, "%s: case %lld given twice", fn, (long long)cases[i]);
  AIR_RETURN_IF_ERROR(air_b_check_types(b, fn, "result_types", n_results, types, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_INDEX_SWITCH, 1, n_results, n_cases + 1, 0, &op));
  op->operands[0] = arg;
  int64_t* vals = n_cases ? air_ir_alloc(b->p, n_cases * sizeof(int64_t)) : NULL;
  op->value.type = air_b_scalar_type(b, AIR_ELEM_I64);
  if ((n_cases && !vals) || !op->value.type) return AIR_B_OOM(b, fn);
  if (n_cases) memcpy(vals, cases, n_cases * sizeof(int64_t));
  op->value.kind = AIR_ATTR_DENSE;
  op->value.n = n_cases;
  op->value.ints = vals;
  for (uint32_t i = 0; i < n_results; ++i) AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, types[i]));
  air_block_t* first;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, 0, NULL, &first));
  op->n_regions = 1; /* regions open one at a time; n_cases + 1 are allocated */
  op->iaux[1] = n_cases + 1;
  air_b_push(b, op, first);
  if (out_results && n_results) memcpy(out_results, op->results, n_results * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_scf_index_switch_next(air_builder_t* b, uint32_t n,
                                               const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_INDEX_SWITCH, AIR_OP_INDEX_SWITCH, &op));
  if (op->n_regions >= op->iaux[1])
    return AIR_B_PRECOND(b, "%s: the default region is open; end the switch", fn);
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results, op->results));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_YIELD, n, vs, &term));
  air_block_t* next = air_ir_block_new(b->p, op, 0);
  if (!next) return AIR_B_OOM(b, fn);
  air_ir_block_append(op->regions[op->n_regions - 1], term);
  op->regions[op->n_regions++] = next;
  air_b_switch_block(b, next);
  return NULL;
}

air_status_t air_builder_scf_index_switch_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_INDEX_SWITCH, AIR_OP_INDEX_SWITCH, &op));
  if (op->n_regions != op->iaux[1])
    return AIR_B_PRECOND(b, "%s: %u of the %u case regions are still to open", fn,
                         op->iaux[1] - op->n_regions, op->iaux[1] - 1);
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results, op->results));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_YIELD, n, vs, &term));
  op->iaux[1] = 0;
  air_b_pop(b, term);
  return NULL;
}

air_status_t air_builder_scf_forall_begin(air_builder_t* b, uint32_t n, const air_index_t* lbs,
                                          const air_index_t* ubs, const air_index_t* steps,
                                          air_value_t* out_ivs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (n == 0 || n > 8 || !lbs || !ubs || !steps)
    return AIR_B_INVALID(b, "%s: 1 to 8 dimensions with their bounds and steps", fn);
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "lbs", n, lbs));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "ubs", n, ubs));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "steps", n, steps));
  for (uint32_t i = 0; i < n; ++i)
    if (!steps[i].value && steps[i].literal < 1)
      return AIR_B_INVALID(b, "%s: step %u is %lld, not >= 1", fn, i, (long long)steps[i].literal);
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!index) return AIR_B_OOM(b, fn);
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_FORALL, 0, 0, 1, 3, &op));
  op->iaux[0] = n;
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[0], n, lbs));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[1], n, ubs));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[2], n, steps));
  air_tid_t types[8];
  for (uint32_t i = 0; i < n; ++i) types[i] = index;
  air_block_t* body;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, n, types, &body));
  air_b_push(b, op, body);
  if (out_ivs) memcpy(out_ivs, body->args, n * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_scf_forall_end(air_builder_t* b) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_FORALL, AIR_OP_FORALL, &op));
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_IN_PARALLEL, 0, 0, 1, 0, &term));
  air_block_t* empty;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, term, 0, 0, NULL, &empty));
  air_b_pop(b, term);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* memref.global, air.custom                                                 */
/*---------------------------------------------------------------------------*/

air_status_t air_builder_memref_global(air_builder_t* b, const air_global_desc_t* d) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  if (d->flags & ~(uint32_t)(AIR_GLOBAL_PRIVATE_BIT | AIR_GLOBAL_CONSTANT_BIT))
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, d->flags);
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "global name", d->name));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "type", d->type, AIR_BW_MEMREF));
  if (b->depth != 1)
    return AIR_B_PRECOND(b, "%s: memref.global belongs at module level", fn);
  const air_type_info_t* t = air_ir_type(b->p, d->type);
  uint64_t count = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (t->shape[k] < 0 || __builtin_mul_overflow(count, (uint64_t)t->shape[k], &count))
      return AIR_B_INVALID(b, "%s: @%s needs a static shape", fn, d->name);
  }
  if (t->unranked || t->layout) return AIR_B_INVALID(b, "%s: @%s needs a static shape", fn, d->name);
  if ((d->flags & AIR_GLOBAL_CONSTANT_BIT) && !d->data)
    return AIR_B_INVALID(b, "%s: constant @%s needs data", fn, d->name);
  uint64_t bytes = count * air_elem_size(t->elem);
  if (d->data && d->data_bytes != bytes)
    return AIR_B_INVALID(b, "%s: @%s holds %llu bytes, not %llu", fn, d->name,
                         (unsigned long long)bytes, (unsigned long long)d->data_bytes);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_GLOBAL, 0, 0, 0, 0, &op));
  if (!(op->sym = air_ir_strndup(b->p, d->name, strlen(d->name))) ||
      !(op->types = air_ir_alloc(b->p, sizeof(air_tid_t))))
    return AIR_B_OOM(b, fn);
  op->types[0] = d->type;
  op->n_types = 1;
  op->iaux[0] = (d->flags & AIR_GLOBAL_PRIVATE_BIT) ? 1 : 0;
  op->iaux[1] = (d->flags & AIR_GLOBAL_CONSTANT_BIT) ? AIR_GLOBAL_CONSTANT : 0;
  if (d->data) {
    /* dense<"0x..."> holds the bytes as they are in memory (little-endian). */
    char* text = air_ir_alloc(b->p, 2 * bytes + 16);
    if (!text) return AIR_B_OOM(b, fn);
    size_t o = (size_t)snprintf(text, 16, "dense<\"0x");
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char* p = d->data;
    for (uint64_t i = 0; i < bytes; ++i) {
      text[o++] = hex[p[i] >> 4];
      text[o++] = hex[p[i] & 15];
    }
    memcpy(text + o, "\">", 3);
    op->value.kind = AIR_ATTR_OPAQUE;
    op->value.s = text;
    op->value.n = (uint32_t)(o + 2);
    op->iaux[1] |= AIR_GLOBAL_INIT;
  } else {
    op->iaux[1] |= AIR_GLOBAL_UNINIT;
  }
  air_b_append(b, op);
  return NULL;
}

air_status_t air_builder_memref_get_global(air_builder_t* b, const char* name, air_type_t type,
                                           air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "global name", name));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "type", type, AIR_BW_MEMREF));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_GET_GLOBAL, 0, 1, 0, 0, &op));
  if (!(op->sym = air_ir_strndup(b->p, name, strlen(name)))) return AIR_B_OOM(b, fn);
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, type));
  air_b_append(b, op);
  *out = op->results[0];
  return NULL;
}

air_status_t air_builder_custom(air_builder_t* b, const char* symbol, uint32_t flags,
                                uint32_t n_deps, const air_value_t* deps, uint32_t n_operands,
                                const air_value_t* operands, air_value_t* out_token) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (flags & ~(uint32_t)AIR_BUILD_ASYNC)
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, flags);
  bool async = flags & AIR_BUILD_ASYNC;
  if (async && !out_token) return AIR_B_INVALID(b, "%s: NULL out_token for an async op", fn);
  if (symbol) AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "symbol", symbol));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "deps", n_deps, deps, AIR_BW_TOKEN));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "operands", n_operands, operands, AIR_BW_ANY));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_CUSTOM, n_operands, async ? 1 : 0, 0, 0, &op));
  if (n_operands) memcpy(op->operands, operands, n_operands * sizeof(air_vid_t));
  if (symbol && !(op->sym = air_ir_strndup(b->p, symbol, strlen(symbol)))) return AIR_B_OOM(b, fn);
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &op->toks[AIR_TOK_DEP], n_deps, deps));
  if (async) {
    op->flags |= AIR_OPF_ASYNC;
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, air_b_token_type(b)));
  }
  air_b_append(b, op);
  if (out_token) *out_token = async ? op->results[0] : 0;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Views: reshape, transpose, extract_strided_metadata, reinterpret_cast     */
/*---------------------------------------------------------------------------*/

static const air_type_info_t* vinfo(const air_builder_t* b, air_vid_t v) {
  return air_ir_type(b->p, air_ir_value_type(b->p, v));
}

/* The source and result types of a view op: memrefs of one element type and
 * memory space; `ranked` asks both sides for a rank. */
static air_status_t view_types(air_builder_t* b, const char* fn, air_vid_t src, air_tid_t result,
                               bool ranked) {
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "src", src, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_type(b, fn, "result_type", result, AIR_BW_MEMREF));
  const air_type_info_t* s = vinfo(b, src);
  const air_type_info_t* d = air_ir_type(b->p, result);
  if (s->elem != d->elem || s->memspace != d->memspace)
    return AIR_B_INVALID(b, "%s: result_type changes the element type or memory space", fn);
  if (ranked && (s->unranked || d->unranked))
    return AIR_B_INVALID(b, "%s: needs ranked memrefs", fn);
  return NULL;
}

static bool static_count(const air_type_info_t* t, uint64_t* out) {
  uint64_t n = 1;
  for (uint32_t k = 0; k < t->rank; ++k)
    if (t->shape[k] < 0 || __builtin_mul_overflow(n, (uint64_t)t->shape[k], &n)) return false;
  *out = n;
  return !t->unranked;
}

air_status_t air_builder_memref_reshape(air_builder_t* b, air_value_t src, air_value_t shape,
                                        air_type_t result_type, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(view_types(b, fn, src, result_type, false));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "shape", shape, AIR_BW_MEMREF));
  const air_type_info_t* s = vinfo(b, src);
  const air_type_info_t* sh = vinfo(b, shape);
  const air_type_info_t* d = air_ir_type(b->p, result_type);
  if (s->unranked || s->layout || d->layout)
    return AIR_B_INVALID(b, "%s: memref.reshape needs ranked identity-layout memrefs", fn);
  if (sh->unranked || sh->rank != 1 || air_elem_is_float(sh->elem))
    return AIR_B_INVALID(b, "%s: the shape is a 1-d memref of index or integers", fn);
  if (!d->unranked && sh->shape[0] >= 0 && sh->shape[0] != (int64_t)d->rank)
    return AIR_B_INVALID(b, "%s: the shape holds %lld sizes for a rank-%u result", fn,
                         (long long)sh->shape[0], d->rank);
  uint64_t a, c;
  if (static_count(s, &a) && static_count(d, &c) && a != c)
    return AIR_B_INVALID(b, "%s: reshapes %llu elements into %llu", fn, (unsigned long long)a,
                         (unsigned long long)c);
  air_vid_t ops[2] = {src, shape};
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, AIR_OP_MEMREF_RESHAPE, 2, ops, result_type, &op));
  *out = op->results[0];
  return NULL;
}

air_status_t air_builder_memref_transpose(air_builder_t* b, air_value_t src, uint32_t rank,
                                          const uint32_t* perm, air_type_t result_type,
                                          air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(view_types(b, fn, src, result_type, true));
  const air_type_info_t* s = vinfo(b, src);
  const air_type_info_t* d = air_ir_type(b->p, result_type);
  if (rank != s->rank || d->rank != s->rank || (rank && !perm) || rank > 32)
    return AIR_B_INVALID(b, "%s: a permutation of the source's %u dimensions and a result of "
                         "that rank", fn, s->rank);
  uint32_t seen = 0;
  int64_t codes[64];
  for (uint32_t i = 0; i < rank; ++i) {
    if (perm[i] >= rank || (seen >> perm[i] & 1))
      return AIR_B_INVALID(b, "%s: perm is not a permutation of 0..%u", fn, rank - 1);
    seen |= 1u << perm[i];
  }
  for (uint32_t i = 0; i < rank; ++i) {
    int64_t want = s->shape[perm[i]];
    if (want >= 0 && d->shape[i] >= 0 && d->shape[i] != want)
      return AIR_B_INVALID(b, "%s: dimension %u of result_type is %lld; the permutation makes "
                           "it %lld", fn, i, (long long)d->shape[i], (long long)want);
    codes[2 * i] = AIR_AFFINE_DIM;
    codes[2 * i + 1] = perm[i];
  }
  air_affine_desc_t map = {0, rank, 0, rank, 2 * rank, codes};
  air_attr_t m;
  AIR_RETURN_IF_ERROR(air_b_affine(b, fn, &map, 0, &m));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(simple(b, fn, AIR_OP_TRANSPOSE, 1, &src, result_type, &op));
  op->value = m;
  *out = op->results[0];
  return NULL;
}

air_status_t air_builder_memref_extract_strided_metadata(air_builder_t* b, air_value_t src,
                                                         air_value_t* out_base,
                                                         air_value_t* out_offset,
                                                         air_value_t* out_sizes,
                                                         air_value_t* out_strides) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "src", src, AIR_BW_MEMREF));
  const air_type_info_t* s = vinfo(b, src);
  if (s->unranked) return AIR_B_INVALID(b, "%s: needs a ranked memref", fn);
  uint32_t rank = s->rank;
  if (!out_base || !out_offset || (rank && (!out_sizes || !out_strides)))
    return AIR_B_INVALID(b, "%s: NULL out", fn);
  air_tid_t base = air_ir_type_memref(b->p, s->elem, 0, NULL, s->memspace, NULL);
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!base || !index) return AIR_B_OOM(b, fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_EXTRACT_META, 1, 2 + 2 * rank, 0, 0, &op));
  op->operands[0] = src;
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, base));
  for (uint32_t i = 1; i < 2 + 2 * rank; ++i) AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, index));
  air_b_append(b, op);
  *out_base = op->results[0];
  *out_offset = op->results[1];
  if (rank) {
    memcpy(out_sizes, op->results + 2, rank * sizeof(air_vid_t));
    memcpy(out_strides, op->results + 2 + rank, rank * sizeof(air_vid_t));
  }
  return NULL;
}

air_status_t air_builder_memref_reinterpret_cast(air_builder_t* b, air_value_t src,
                                                 air_index_t offset, uint32_t rank,
                                                 const air_index_t* sizes,
                                                 const air_index_t* strides,
                                                 air_type_t result_type, air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(need_out(b, fn, out));
  AIR_RETURN_IF_ERROR(view_types(b, fn, src, result_type, false));
  const air_type_info_t* d = air_ir_type(b->p, result_type);
  if (d->unranked || rank != d->rank || (rank && (!sizes || !strides)))
    return AIR_B_INVALID(b, "%s: a ranked result_type and one size and stride per dimension", fn);
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "offset", 1, &offset));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "sizes", rank, sizes));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "strides", rank, strides));
  if (!offset.value && offset.literal < 0)
    return AIR_B_INVALID(b, "%s: offset %lld is negative", fn, (long long)offset.literal);
  for (uint32_t i = 0; i < rank; ++i) {
    if ((!sizes[i].value && sizes[i].literal < 0) || (!strides[i].value && strides[i].literal < 0))
      return AIR_B_INVALID(b, "%s: size or stride %u is negative", fn, i);
    if (!sizes[i].value && d->shape[i] >= 0 && d->shape[i] != sizes[i].literal)
      return AIR_B_INVALID(b, "%s: size %u is %lld but result_type says %lld", fn, i,
                           (long long)sizes[i].literal, (long long)d->shape[i]);
  }
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_REINTERPRET_CAST, 1, 1, 0, 3, &op));
  op->operands[0] = src;
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[0], 1, &offset));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[1], rank, sizes));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[2], rank, strides));
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, result_type));
  air_b_append(b, op);
  *out = op->results[0];
  return NULL;
}

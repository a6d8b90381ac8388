/* builder_flow.c - the builder's structured control flow: scf.for,
 * affine.for and scf.parallel (with its token merge), and scf.if / affine.if
 * with their else bodies. Each *_begin opens a body the following calls append
 * to; the matching *_end closes it with its terminator. Same conventions as
 * builder_ops.c: checks first, so a failed call leaves the program as it was. */
#include <string.h>

#include "runtime/builder/builder_core.h"
#include "runtime/builder/builder_types.h"

/*---------------------------------------------------------------------------*/
/* Loops                                                                     */
/*---------------------------------------------------------------------------*/

/* Results (one per init, same type) and the body [iv, iters...] of a for loop;
 * opens the body. */
static air_status_t loop_body(air_builder_t* b, const char* fn, air_op_t* op, air_tid_t iv_type,
                              uint32_t n_inits, const air_value_t* inits, air_value_t* out_iv,
                              air_value_t* out_iters, air_value_t* out_results) {
  air_tid_t* types = air_ir_alloc(b->p, (n_inits + 1) * sizeof(air_tid_t));
  if (!types) return AIR_B_OOM(b, fn);
  types[0] = iv_type;
  for (uint32_t i = 0; i < n_inits; ++i) {
    types[i + 1] = air_ir_value_type(b->p, inits[i]);
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, types[i + 1]));
  }
  air_block_t* body;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, n_inits + 1, types, &body));
  air_b_push(b, op, body);
  if (out_iv) *out_iv = body->args[0];
  if (out_iters && n_inits) memcpy(out_iters, body->args + 1, n_inits * sizeof(air_vid_t));
  if (out_results && n_inits) memcpy(out_results, op->results, n_inits * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_scf_for_begin(air_builder_t* b, air_value_t lb, air_value_t ub,
                                       air_value_t step, uint32_t n_inits,
                                       const air_value_t* inits, air_value_t* out_iv,
                                       air_value_t* out_iter_args, air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "lb", lb, AIR_BW_INTLIKE));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "ub", ub, AIR_BW_INTLIKE));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "step", step, AIR_BW_INTLIKE));
  air_tid_t t = air_ir_value_type(b->p, lb);
  if (air_ir_value_type(b->p, ub) != t || air_ir_value_type(b->p, step) != t)
    return AIR_B_INVALID(b, "%s: lb, ub and step have different types", fn);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "inits", n_inits, inits, AIR_BW_ANY));
  if (n_inits > UINT32_MAX - 3) return AIR_B_INVALID(b, "%s: too many inits", fn);
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_FOR, 3 + n_inits, n_inits, 1, 0, &op));
  op->operands[0] = lb;
  op->operands[1] = ub;
  op->operands[2] = step;
  if (n_inits) memcpy(op->operands + 3, inits, n_inits * sizeof(air_vid_t));
  return loop_body(b, fn, op, t, n_inits, inits, out_iv, out_iter_args, out_results);
}

/* Closes a loop or generic body with a terminator whose operands match the op's
 * results (or `like`). */
static air_status_t end_with(air_builder_t* b, const char* fn, air_opkind_t kind,
                             air_opkind_t term_kind, uint32_t n, const air_value_t* vs) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, kind, kind, &op));
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results, op->results));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, term_kind, n, vs, &term));
  air_b_pop(b, term);
  return NULL;
}

air_status_t air_builder_scf_for_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  return end_with(b, __func__, AIR_OP_FOR, AIR_OP_YIELD, n, vs);
}

air_status_t air_builder_affine_for_begin(air_builder_t* b, const air_index_t* lower,
                                          const air_index_t* upper, int64_t step,
                                          uint32_t n_inits, const air_value_t* inits,
                                          air_value_t* out_iv, air_value_t* out_iter_args,
                                          air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!lower || !upper) return AIR_B_INVALID(b, "%s: NULL bound", fn);
  air_index_t bounds[2] = {*lower, *upper};
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "bounds", 2, bounds));
  if (step < 1 || step > UINT32_MAX)
    return AIR_B_INVALID(b, "%s: step %lld is not in [1, 2^32)", fn, (long long)step);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "inits", n_inits, inits, AIR_BW_ANY));
  if (n_inits == UINT32_MAX) return AIR_B_INVALID(b, "%s: too many inits", fn);
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  if (!index) return AIR_B_OOM(b, fn);
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_AFFINE_FOR, n_inits, n_inits, 1, 1, &op));
  op->iaux[1] = (uint32_t)step;
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[0], 2, bounds));
  if (n_inits) memcpy(op->operands, inits, n_inits * sizeof(air_vid_t));
  return loop_body(b, fn, op, index, n_inits, inits, out_iv, out_iter_args, out_results);
}

air_status_t air_builder_affine_for_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  return end_with(b, __func__, AIR_OP_AFFINE_FOR, AIR_OP_AFFINE_YIELD, n, vs);
}

air_status_t air_builder_scf_parallel_begin(air_builder_t* b, uint32_t n_dims,
                                            const air_value_t* lbs, const air_value_t* ubs,
                                            const air_value_t* steps, uint32_t n_inits,
                                            const air_value_t* inits, air_value_t* out_ivs,
                                            air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (n_dims == 0) return AIR_B_INVALID(b, "%s: scf.parallel needs at least one dimension", fn);
  if (n_dims > (UINT32_MAX / 4) || n_inits > UINT32_MAX / 4)
    return AIR_B_INVALID(b, "%s: too many dimensions or inits", fn);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "lbs", n_dims, lbs, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "ubs", n_dims, ubs, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "steps", n_dims, steps, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "inits", n_inits, inits, AIR_BW_ANY));
  air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
  air_tid_t* types = air_ir_alloc(b->p, n_dims * sizeof(air_tid_t));
  if (!index || !types) return AIR_B_OOM(b, fn);
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(
      air_b_op(b, fn, AIR_OP_PARALLEL, 3 * n_dims + n_inits, n_inits, 1, 0, &op));
  op->iaux[0] = n_dims;
  memcpy(op->operands, lbs, n_dims * sizeof(air_vid_t));
  memcpy(op->operands + n_dims, ubs, n_dims * sizeof(air_vid_t));
  memcpy(op->operands + 2 * n_dims, steps, n_dims * sizeof(air_vid_t));
  if (n_inits) memcpy(op->operands + 3 * n_dims, inits, n_inits * sizeof(air_vid_t));
  for (uint32_t i = 0; i < n_inits; ++i)
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, air_ir_value_type(b->p, inits[i])));
  for (uint32_t i = 0; i < n_dims; ++i) types[i] = index;
  air_block_t* body;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, n_dims, types, &body));
  air_b_push(b, op, body);
  if (out_ivs) memcpy(out_ivs, body->args, n_dims * sizeof(air_vid_t));
  if (out_results && n_inits) memcpy(out_results, op->results, n_inits * sizeof(air_vid_t));
  return NULL;
}

/* The spec's token merge: ^bb0(%a, %b): %m = air.wait_all async [%a, %b];
 * scf.reduce.return %m. */
static air_status_t merge_region(air_builder_t* b, const char* fn, air_op_t* reduce,
                                 uint32_t r, air_tid_t tok) {
  air_tid_t types[2] = {tok, tok};
  air_block_t* blk;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, reduce, r, 2, types, &blk));
  air_op_t *wait, *ret;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_WAIT_ALL, 0, 1, 0, 0, &wait));
  wait->flags = AIR_OPF_ASYNC;
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &wait->toks[AIR_TOK_DEP], 2, blk->args));
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, wait, 0, tok));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_REDUCE_RETURN, 1, wait->results, &ret));
  air_ir_block_append(blk, wait);
  air_ir_block_append(blk, ret);
  return NULL;
}

air_status_t air_builder_scf_parallel_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *reduce;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_PARALLEL, AIR_OP_PARALLEL, &op));
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results, op->results));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "values", n, vs, AIR_BW_TOKEN));
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_REDUCE, n, 0, n, 0, &reduce));
  if (n) memcpy(reduce->operands, vs, n * sizeof(air_vid_t));
  for (uint32_t i = 0; i < n; ++i)
    AIR_RETURN_IF_ERROR(merge_region(b, fn, reduce, i, air_ir_value_type(b->p, vs[i])));
  air_b_pop(b, reduce);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Conditionals                                                              */
/*---------------------------------------------------------------------------*/

/* Creates the results and the then-body of an scf.if / affine.if, whose regions
 * array has room for the else-body (n_regions grows to 2 on else), and opens it. */
static air_status_t if_body(air_builder_t* b, const char* fn, air_op_t* op, uint32_t n_results,
                            const air_type_t* result_types, air_value_t* out_results) {
  for (uint32_t i = 0; i < n_results; ++i)
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, result_types[i]));
  air_block_t* then;
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, 0, NULL, &then));
  op->n_regions = 1;
  air_b_push(b, op, then);
  if (out_results && n_results) memcpy(out_results, op->results, n_results * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_scf_if_begin(air_builder_t* b, air_value_t cond, uint32_t n_results,
                                      const air_type_t* result_types, air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "cond", cond, AIR_BW_I1));
  AIR_RETURN_IF_ERROR(
      air_b_check_types(b, fn, "result_types", n_results, result_types, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_IF, 1, n_results, 2, 0, &op));
  op->operands[0] = cond;
  return if_body(b, fn, op, n_results, result_types, out_results);
}

air_status_t air_builder_affine_if_begin(air_builder_t* b, const air_affine_desc_t* set,
                                         uint32_t n_operands, const air_value_t* operands,
                                         uint32_t n_results, const air_type_t* result_types,
                                         air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!set) return AIR_B_INVALID(b, "%s: NULL set", fn);
  if ((uint64_t)set->n_dims + set->n_syms != n_operands)
    return AIR_B_INVALID(b, "%s: %u operands for a set of %u dims and %u symbols", fn,
                         n_operands, set->n_dims, set->n_syms);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "operands", n_operands, operands, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(
      air_b_check_types(b, fn, "result_types", n_results, result_types, AIR_BW_ANY));
  air_attr_t a;
  AIR_RETURN_IF_ERROR(air_b_affine(b, fn, set, 1, &a));
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_AFFINE_IF, n_operands, n_results, 2, 0, &op));
  op->value = a;
  op->iaux[0] = set->n_dims;
  if (n_operands) memcpy(op->operands, operands, n_operands * sizeof(air_vid_t));
  return if_body(b, fn, op, n_results, result_types, out_results);
}

air_status_t air_builder_else(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_IF, AIR_OP_AFFINE_IF, &op));
  if (op->n_regions != 1)
    return AIR_B_PRECOND(b, "%s: the %s already has its else-body open", fn,
                         air_opkind_name(op->kind));
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results, op->results));
  air_block_t* els;
  AIR_RETURN_IF_ERROR(
      air_b_term(b, fn, op->kind == AIR_OP_IF ? AIR_OP_YIELD : AIR_OP_AFFINE_YIELD, n, vs, &term));
  if (!(els = air_ir_block_new(b->p, op, 0))) return AIR_B_OOM(b, fn);
  air_ir_block_append(op->regions[0], term);
  op->regions[1] = els;
  op->n_regions = 2;
  air_b_switch_block(b, els);
  return NULL;
}

air_status_t air_builder_scf_if_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  return end_with(b, __func__, AIR_OP_IF, AIR_OP_YIELD, n, vs);
}

air_status_t air_builder_affine_if_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  return end_with(b, __func__, AIR_OP_AFFINE_IF, AIR_OP_AFFINE_YIELD, n, vs);
}

/* builder.c - the public builder calls for names, attributes, the module-level
 * ops (func, call, channel) and the AIR ops (hierarchy, channels, DMA, tokens,
 * execute). Every public call checks all its arguments before it allocates, and
 * links the new op into the IR only once it is complete, so a failed call leaves
 * the program as it was (at worst some unreachable arena bytes after an
 * out-of-memory failure). The helpers it shares with builder_ops.c are in
 * builder_core.c. */
#include <string.h>

#include "runtime/builder/builder_core.h"
#include "runtime/builder/builder_types.h"

/*---------------------------------------------------------------------------*/
/* Value names                                                               */
/*---------------------------------------------------------------------------*/

/* MLIR's suffix-id: [A-Za-z_$.-][A-Za-z0-9_$.-]* or digits. */
static bool valid_ssa_name(const char* s) {
  bool digits = true;
  for (const char* c = s; *c; ++c) {
    bool alpha = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
                 *c == '$' || *c == '.' || *c == '-';
    bool digit = *c >= '0' && *c <= '9';
    if (!alpha && !digit) return false;
    if (alpha && c == s) digits = false;
    if (alpha && digits) return false;
  }
  return s[0] != 0;
}

air_status_t air_builder_set_name(air_builder_t* b, air_value_t value, const char* name) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(air_b_check_value(b, __func__, "value", value, AIR_BW_ANY));
  if (name && !valid_ssa_name(name))
    return AIR_B_INVALID(b, "%s: \"%s\" is not a valid SSA name", __func__, name);
  const char* copy = name ? air_ir_strndup(b->p, name, strlen(name)) : NULL;
  if (name && !copy) return AIR_B_OOM(b, __func__);
  b->p->values[value].name = copy;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Attributes                                                                */
/*---------------------------------------------------------------------------*/

static air_status_t attr_target(air_builder_t* b, const char* fn, const char* name) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "attribute name", name));
  if (!b->current) return AIR_B_PRECOND(b, "%s: no op has been built yet", fn);
  return NULL;
}

static air_status_t attr_set(air_builder_t* b, const char* fn, const char* name,
                             const air_attr_t* value) {
  return air_ir_attr_set(b->p, b->current, name, value) ? NULL : AIR_B_OOM(b, fn);
}

air_status_t air_builder_set_attr_unit(air_builder_t* b, const char* name) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  air_attr_t a = {0};
  a.kind = AIR_ATTR_UNIT;
  return attr_set(b, __func__, name, &a);
}

air_status_t air_builder_set_attr_bool(air_builder_t* b, const char* name, bool value) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  air_attr_t a = {0};
  a.kind = AIR_ATTR_BOOL;
  a.i = value ? 1 : 0;
  return attr_set(b, __func__, name, &a);
}

air_status_t air_builder_set_attr_int(air_builder_t* b, const char* name, int64_t value,
                                      air_type_t type) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  if (type) AIR_RETURN_IF_ERROR(air_b_check_type(b, __func__, "type", type, AIR_BW_INTLIKE));
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.type = type;
  a.i = value;
  return attr_set(b, __func__, name, &a);
}

air_status_t air_builder_set_attr_float(air_builder_t* b, const char* name, double value,
                                        air_type_t type) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  if (type) AIR_RETURN_IF_ERROR(air_b_check_type(b, __func__, "type", type, AIR_BW_FLOAT));
  air_attr_t a = {0};
  a.kind = AIR_ATTR_FLOAT;
  a.type = type;
  a.f = value;
  return attr_set(b, __func__, name, &a);
}

static air_status_t string_attr(air_builder_t* b, const char* fn, const char* s,
                                air_attr_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = AIR_ATTR_STRING;
  out->n = (uint32_t)strlen(s);
  out->s = air_ir_strndup(b->p, s, out->n);
  return out->s ? NULL : AIR_B_OOM(b, fn);
}

air_status_t air_builder_set_attr_string(air_builder_t* b, const char* name,
                                         const char* value) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  if (!value) return AIR_B_INVALID(b, "%s: NULL value", __func__);
  air_attr_t a;
  AIR_RETURN_IF_ERROR(string_attr(b, __func__, value, &a));
  return attr_set(b, __func__, name, &a);
}

/* `[v0, v1, ...]` of untyped integers. */
static air_status_t ints_attr(air_builder_t* b, const char* fn, uint32_t n,
                              const int64_t* vs, air_attr_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = AIR_ATTR_ARRAY;
  out->n = n;
  if (!n) return NULL;
  air_attr_t* e = air_ir_alloc(b->p, n * sizeof(*e));
  if (!e) return AIR_B_OOM(b, fn);
  for (uint32_t i = 0; i < n; ++i) {
    e[i].kind = AIR_ATTR_INT;
    e[i].i = vs[i];
  }
  out->elems = e;
  return NULL;
}

air_status_t air_builder_set_attr_ints(air_builder_t* b, const char* name, uint32_t count,
                                       const int64_t* values) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  if (count && !values) return AIR_B_INVALID(b, "%s: NULL values", __func__);
  air_attr_t a;
  AIR_RETURN_IF_ERROR(ints_attr(b, __func__, count, values, &a));
  return attr_set(b, __func__, name, &a);
}

air_status_t air_builder_set_attr_dense(air_builder_t* b, const char* name, air_elem_t elem,
                                        uint32_t count, const int64_t* values) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  if (count && !values) return AIR_B_INVALID(b, "%s: NULL values", __func__);
  if ((unsigned)elem < AIR_ELEMENT_I1 || (unsigned)elem > AIR_ELEMENT_I64)
    return AIR_B_INVALID(b, "%s: dense arrays need an integer element type, not %d",
                         __func__, (int)elem);
  air_attr_t a = {0};
  a.kind = AIR_ATTR_DENSE;
  a.type = air_b_scalar_type(b, (air_elem_kind_t)elem);
  a.n = count;
  int64_t* copy = count ? air_ir_alloc(b->p, count * sizeof(int64_t)) : NULL;
  if (!a.type || (count && !copy)) return AIR_B_OOM(b, __func__);
  if (count) memcpy(copy, values, count * sizeof(int64_t));
  a.ints = copy;
  return attr_set(b, __func__, name, &a);
}

air_status_t air_builder_set_attr_affine(air_builder_t* b, const char* name,
                                         const air_affine_desc_t* desc) {
  AIR_RETURN_IF_ERROR(attr_target(b, __func__, name));
  air_attr_t a;
  AIR_RETURN_IF_ERROR(air_b_affine(b, __func__, desc, -1, &a));
  return attr_set(b, __func__, name, &a);
}

/*---------------------------------------------------------------------------*/
/* Module level: channels, functions, calls                                  */
/*---------------------------------------------------------------------------*/

static air_status_t at_module(const air_builder_t* b, const char* fn, const char* what) {
  if (b->depth != 1)
    return AIR_B_PRECOND(b, "%s: %s belongs at module level, not inside %s", fn, what,
                         air_opkind_name(b->frames[b->depth - 1].op->kind));
  return NULL;
}

air_status_t air_builder_channel(air_builder_t* b, const air_channel_desc_t* d) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  if (d->flags) return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, d->flags);
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "channel name", d->name));
  if ((d->rank && !d->dims) || (d->broadcast_rank && !d->broadcast_shape))
    return AIR_B_INVALID(b, "%s: NULL dims or broadcast_shape", fn);
  for (uint32_t i = 0; i < d->rank; ++i)
    if (d->dims[i] < 1)
      return AIR_B_INVALID(b, "%s: dimension %u of @%s is %lld, not >= 1", fn, i, d->name,
                           (long long)d->dims[i]);
  if (d->channel_type && !d->channel_type[0])
    return AIR_B_INVALID(b, "%s: empty channel_type (use NULL for the default)", fn);
  AIR_RETURN_IF_ERROR(at_module(b, fn, "air.channel"));

  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_CHANNEL, 0, 0, 0, 1, &op));
  if (!(op->sym = air_ir_strndup(b->p, d->name, strlen(d->name))) ||
      !air_ir_list_init(b->p, &op->lists[0], d->rank))
    return AIR_B_OOM(b, fn);
  for (uint32_t i = 0; i < d->rank; ++i) op->lists[0].items[i].cst = d->dims[i];
  air_attr_t a;
  if (d->broadcast_rank) {
    AIR_RETURN_IF_ERROR(ints_attr(b, fn, d->broadcast_rank, d->broadcast_shape, &a));
    if (!air_ir_attr_set(b->p, op, "broadcast_shape", &a)) return AIR_B_OOM(b, fn);
  }
  if (d->channel_type) {
    AIR_RETURN_IF_ERROR(string_attr(b, fn, d->channel_type, &a));
    if (!air_ir_attr_set(b->p, op, "channel_type", &a)) return AIR_B_OOM(b, fn);
  }
  if (d->depth) {
    memset(&a, 0, sizeof(a));
    a.kind = AIR_ATTR_INT;
    a.i = d->depth;
    if (!air_ir_attr_set(b->p, op, "depth", &a)) return AIR_B_OOM(b, fn);
  }
  air_b_append(b, op);
  return NULL;
}

static air_status_t check_func_desc(const air_builder_t* b, const char* fn,
                                    const air_func_desc_t* d) {
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  if (d->flags & ~(uint32_t)AIR_BUILD_PRIVATE)
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, d->flags);
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "function name", d->name));
  AIR_RETURN_IF_ERROR(air_b_check_types(b, fn, "inputs", d->n_inputs, d->inputs, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(air_b_check_types(b, fn, "results", d->n_results, d->results, AIR_BW_ANY));
  return at_module(b, fn, "func.func");
}

static air_status_t func_op(air_builder_t* b, const char* fn, const air_func_desc_t* d,
                            bool body, air_op_t** out) {
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_FUNC, 0, 0, body ? 1 : 0, 0, &op));
  uint32_t n = d->n_inputs + d->n_results;
  op->flags = d->flags & AIR_BUILD_PRIVATE ? AIR_OPF_PRIVATE : 0;
  op->iaux[0] = d->n_inputs;
  op->n_types = n;
  if (!(op->sym = air_ir_strndup(b->p, d->name, strlen(d->name))) ||
      (n && !(op->types = air_ir_alloc(b->p, n * sizeof(air_tid_t)))))
    return AIR_B_OOM(b, fn);
  if (d->n_inputs) memcpy(op->types, d->inputs, d->n_inputs * sizeof(air_tid_t));
  if (d->n_results)
    memcpy(op->types + d->n_inputs, d->results, d->n_results * sizeof(air_tid_t));
  if (body) AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, d->n_inputs, d->inputs, NULL));
  *out = op;
  return NULL;
}

air_status_t air_builder_func_begin(air_builder_t* b, const air_func_desc_t* d,
                                    air_value_t* out_args) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(check_func_desc(b, __func__, d));
  AIR_RETURN_IF_ERROR(air_b_reserve(b, __func__));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(func_op(b, __func__, d, true, &op));
  air_b_push(b, op, op->regions[0]);
  if (out_args && d->n_inputs)
    memcpy(out_args, op->regions[0]->args, d->n_inputs * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_func_declare(air_builder_t* b, const air_func_desc_t* d) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  AIR_RETURN_IF_ERROR(check_func_desc(b, __func__, d));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(func_op(b, __func__, d, false, &op));
  air_b_append(b, op);
  return NULL;
}

air_status_t air_builder_func_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t* op = NULL; /* gcc -O3 false maybe-uninitialized */
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_FUNC, AIR_OP_FUNC, &op));
  uint32_t n_res = op->n_types - op->iaux[0];
  if (n != n_res)
    return AIR_B_INVALID(b, "%s: %u values given, @%s returns %u", fn, n, op->sym, n_res);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "values", n, vs, AIR_BW_ANY));
  for (uint32_t i = 0; i < n; ++i)
    if (air_ir_value_type(b->p, vs[i]) != op->types[op->iaux[0] + i])
      return AIR_B_INVALID(b, "%s: values[%u] does not have the result type of @%s", fn, i,
                           op->sym);
  air_op_t* term;
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_RETURN, n, vs, &term));
  air_b_pop(b, term);
  return NULL;
}

air_status_t air_builder_call(air_builder_t* b, const char* callee, uint32_t n_args,
                              const air_value_t* args, uint32_t n_results,
                              const air_type_t* result_types, air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "callee", callee));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "args", n_args, args, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(
      air_b_check_types(b, fn, "result_types", n_results, result_types, AIR_BW_ANY));
  if (n_results && !out_results) return AIR_B_INVALID(b, "%s: NULL out_results", fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_CALL, n_args, n_results, 0, 0, &op));
  if (!(op->sym = air_ir_strndup(b->p, callee, strlen(callee)))) return AIR_B_OOM(b, fn);
  if (n_args) memcpy(op->operands, args, n_args * sizeof(air_vid_t));
  for (uint32_t i = 0; i < n_results; ++i)
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i, result_types[i]));
  air_b_append(b, op);
  if (n_results) memcpy(out_results, op->results, n_results * sizeof(air_vid_t));
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Tokens, wait_all, execute                                                 */
/*---------------------------------------------------------------------------*/

static air_status_t check_token_lists(const air_builder_t* b, const char* fn,
                                      const air_token_lists_t* t) {
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "deps", t->n_deps, t->deps, AIR_BW_TOKEN));
  AIR_RETURN_IF_ERROR(
      air_b_check_values(b, fn, "affinity", t->n_affinity, t->affinity, AIR_BW_TOKEN));
  return air_b_check_values(b, fn, "concurrency", t->n_concurrency, t->concurrency,
                            AIR_BW_TOKEN);
}

static air_status_t set_token_lists(air_builder_t* b, const char* fn, air_op_t* op,
                                    const air_token_lists_t* t) {
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &op->toks[AIR_TOK_DEP], t->n_deps, t->deps));
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &op->toks[AIR_TOK_AFF], t->n_affinity, t->affinity));
  return air_b_vlist(b, fn, &op->toks[AIR_TOK_CONC], t->n_concurrency, t->concurrency);
}

/* The token result of an async op: results[0]. */
static air_status_t async_result(air_builder_t* b, const char* fn, air_op_t* op,
                                 uint32_t flags) {
  if (!(flags & AIR_BUILD_ASYNC)) return NULL;
  op->flags |= AIR_OPF_ASYNC;
  return air_b_result(b, fn, op, 0, air_b_token_type(b));
}

air_status_t air_builder_token_alloc(air_builder_t* b, air_value_t* out_token) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  if (!out_token) return AIR_B_INVALID(b, "%s: NULL out_token", __func__);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, __func__, AIR_OP_TOKEN_ALLOC, 0, 1, 0, 0, &op));
  AIR_RETURN_IF_ERROR(air_b_result(b, __func__, op, 0, air_b_token_type(b)));
  air_b_append(b, op);
  *out_token = op->results[0];
  return NULL;
}

air_status_t air_builder_wait_all(air_builder_t* b, uint32_t flags, uint32_t n_deps,
                                  const air_value_t* deps, air_value_t* out_token) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (flags & ~(uint32_t)AIR_BUILD_ASYNC)
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, flags);
  if ((flags & AIR_BUILD_ASYNC) && !out_token)
    return AIR_B_INVALID(b, "%s: NULL out_token for an async wait_all", fn);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "deps", n_deps, deps, AIR_BW_TOKEN));
  air_op_t* op;
  bool async = flags & AIR_BUILD_ASYNC;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_WAIT_ALL, 0, async ? 1 : 0, 0, 0, &op));
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &op->toks[AIR_TOK_DEP], n_deps, deps));
  AIR_RETURN_IF_ERROR(async_result(b, fn, op, flags));
  air_b_append(b, op);
  if (out_token) *out_token = async ? op->results[0] : 0;
  return NULL;
}

air_status_t air_builder_execute_begin(air_builder_t* b, uint32_t n_deps,
                                       const air_value_t* deps, uint32_t n_results,
                                       const air_type_t* result_types, air_value_t* out_token,
                                       air_value_t* out_results) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "deps", n_deps, deps, AIR_BW_TOKEN));
  AIR_RETURN_IF_ERROR(
      air_b_check_types(b, fn, "result_types", n_results, result_types, AIR_BW_ANY));
  if (n_results == UINT32_MAX) return AIR_B_INVALID(b, "%s: too many results", fn);
  AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_EXECUTE, 0, n_results + 1, 1, 0, &op));
  op->flags = AIR_OPF_ASYNC;
  AIR_RETURN_IF_ERROR(air_b_vlist(b, fn, &op->toks[AIR_TOK_DEP], n_deps, deps));
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, air_b_token_type(b)));
  for (uint32_t i = 0; i < n_results; ++i)
    AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, i + 1, result_types[i]));
  AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, 0, NULL, NULL));
  air_b_push(b, op, op->regions[0]);
  if (out_token) *out_token = op->results[0];
  if (out_results && n_results) memcpy(out_results, op->results + 1, n_results * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_builder_execute_end(air_builder_t* b, uint32_t n, const air_value_t* vs) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t* op = NULL; /* set by air_b_top on success; gcc -O3 cannot see it */
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, AIR_OP_EXECUTE, AIR_OP_EXECUTE, &op));
  AIR_RETURN_IF_ERROR(air_b_check_yield(b, fn, n, vs, op->n_results - 1, op->results + 1));
  air_op_t* term;
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, AIR_OP_EXECUTE_TERM, n, vs, &term));
  air_b_pop(b, term);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Hierarchy                                                                 */
/*---------------------------------------------------------------------------*/

enum {
  HIER_FLAGS = AIR_BUILD_ASYNC | AIR_BUILD_SYNC | AIR_BUILD_X_LOC | AIR_BUILD_Y_LOC |
               AIR_BUILD_X_SIZE | AIR_BUILD_Y_SIZE
};

static air_status_t set_int_attr(air_builder_t* b, const char* fn, air_op_t* op,
                                 const char* name, int64_t v) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.i = v;
  return air_ir_attr_set(b->p, op, name, &a) ? NULL : AIR_B_OOM(b, fn);
}

static air_status_t set_str_attr(air_builder_t* b, const char* fn, air_op_t* op,
                                 const char* name, const char* v) {
  air_attr_t a;
  AIR_RETURN_IF_ERROR(string_attr(b, fn, v, &a));
  return air_ir_attr_set(b->p, op, name, &a) ? NULL : AIR_B_OOM(b, fn);
}

/* Builds a launch/segment/herd (with a body unless `body` is false) and appends
 * it; with a body it is opened. */
static air_status_t hier(air_builder_t* b, const char* fn, air_opkind_t kind,
                         const air_hier_desc_t* d, bool body, air_value_t* out_block_args,
                         air_value_t* out_token) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  if (d->flags & ~(uint32_t)HIER_FLAGS)
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, d->flags);
  if ((d->flags & AIR_BUILD_ASYNC) && (d->flags & AIR_BUILD_SYNC))
    return AIR_B_INVALID(b, "%s: AIR_BUILD_ASYNC and AIR_BUILD_SYNC together", fn);
  if (d->name) AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "name", d->name));
  if (!body && !d->name) return AIR_B_INVALID(b, "%s: a launch without body needs a name", fn);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "sizes", d->n_dims, d->sizes, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "args", d->n_args, d->args, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(check_token_lists(b, fn, &d->tokens));
  if (d->link_with && !d->link_with[0]) return AIR_B_INVALID(b, "%s: empty link_with", fn);
  if (d->backend_granularity && !d->backend_granularity[0])
    return AIR_B_INVALID(b, "%s: empty backend_granularity", fn);
  if (d->n_dims > (UINT32_MAX - d->n_args) / 2 - 1)
    return AIR_B_INVALID(b, "%s: too many dimensions and args", fn);
  if (kind == AIR_OP_RANK) {
    /* A rank is a process: no name, placement or shared-hardware tokens. */
    if (d->name || (d->flags & ~(uint32_t)(AIR_BUILD_ASYNC | AIR_BUILD_SYNC)) || d->link_with ||
        d->backend_granularity || d->tokens.n_affinity || d->tokens.n_concurrency)
      return AIR_B_INVALID(b,
                           "%s: air.rank takes no name, placement, link_with, "
                           "backend_granularity, affinity or concurrency",
                           fn);
    if (!d->n_dims) return AIR_B_INVALID(b, "%s: air.rank needs a rank space (n_dims >= 1)", fn);
    if (d->universe)
      AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "universe", d->universe, AIR_BW_UNIVERSE));
  } else if (d->universe) {
    return AIR_B_INVALID(b, "%s: only air.rank takes a universe", fn);
  }
  if (body) AIR_RETURN_IF_ERROR(air_b_reserve(b, fn));

  uint32_t n = d->n_dims, n_ops = n + d->n_args, n_bargs = 2 * n + d->n_args;
  bool async = d->flags & AIR_BUILD_ASYNC;
  air_op_t* op;
  AIR_RETURN_IF_ERROR(
      air_b_op(b, fn, kind, n_ops + (d->universe ? 1 : 0), async ? 1 : 0, body ? 1 : 0, 0, &op));
  op->iaux[0] = n;
  if (d->universe) {
    op->flags |= AIR_OPF_UNIVERSE;
    op->operands[n_ops] = d->universe;
  }
  if (d->flags & AIR_BUILD_SYNC) op->flags |= AIR_OPF_SYNC;
  if (d->name && !(op->sym = air_ir_strndup(b->p, d->name, strlen(d->name))))
    return AIR_B_OOM(b, fn);
  if (n) memcpy(op->operands, d->sizes, n * sizeof(air_vid_t));
  if (d->n_args) memcpy(op->operands + n, d->args, d->n_args * sizeof(air_vid_t));
  AIR_RETURN_IF_ERROR(set_token_lists(b, fn, op, &d->tokens));
  AIR_RETURN_IF_ERROR(async_result(b, fn, op, d->flags));
  static const struct {
    uint32_t flag;
    const char* name;
  } k_place[] = {{AIR_BUILD_X_LOC, "x_loc"},
                 {AIR_BUILD_Y_LOC, "y_loc"},
                 {AIR_BUILD_X_SIZE, "x_size"},
                 {AIR_BUILD_Y_SIZE, "y_size"}};
  const int64_t place[] = {d->x_loc, d->y_loc, d->x_size, d->y_size};
  for (int i = 0; i < 4; ++i)
    if (d->flags & k_place[i].flag)
      AIR_RETURN_IF_ERROR(set_int_attr(b, fn, op, k_place[i].name, place[i]));
  if (d->link_with) AIR_RETURN_IF_ERROR(set_str_attr(b, fn, op, "link_with", d->link_with));
  if (d->backend_granularity)
    AIR_RETURN_IF_ERROR(
        set_str_attr(b, fn, op, "backend-granularity", d->backend_granularity));
  if (!body) {
    air_b_append(b, op);
  } else {
    air_tid_t* types = n_bargs ? air_ir_alloc(b->p, n_bargs * sizeof(air_tid_t)) : NULL;
    air_tid_t index = air_b_scalar_type(b, AIR_ELEM_INDEX);
    if ((n_bargs && !types) || !index) return AIR_B_OOM(b, fn);
    for (uint32_t i = 0; i < 2 * n; ++i) types[i] = index;
    for (uint32_t i = 0; i < d->n_args; ++i)
      types[2 * n + i] = air_ir_value_type(b->p, d->args[i]);
    AIR_RETURN_IF_ERROR(air_b_region(b, fn, op, 0, n_bargs, types, NULL));
    air_b_push(b, op, op->regions[0]);
    if (out_block_args && n_bargs)
      memcpy(out_block_args, op->regions[0]->args, n_bargs * sizeof(air_vid_t));
  }
  if (out_token) *out_token = async ? op->results[0] : 0;
  return NULL;
}

static air_status_t hier_end(air_builder_t* b, const char* fn, air_opkind_t kind,
                             air_opkind_t term_kind) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  air_op_t *op, *term;
  AIR_RETURN_IF_ERROR(air_b_top(b, fn, kind, kind, &op));
  AIR_RETURN_IF_ERROR(air_b_term(b, fn, term_kind, 0, NULL, &term));
  air_b_pop(b, term);
  return NULL;
}

air_status_t air_builder_launch_begin(air_builder_t* b, const air_hier_desc_t* d,
                                      air_value_t* out_block_args, air_value_t* out_token) {
  return hier(b, __func__, AIR_OP_LAUNCH, d, true, out_block_args, out_token);
}
air_status_t air_builder_launch_ref(air_builder_t* b, const air_hier_desc_t* d,
                                    air_value_t* out_token) {
  return hier(b, __func__, AIR_OP_LAUNCH, d, false, NULL, out_token);
}
air_status_t air_builder_launch_end(air_builder_t* b) {
  return hier_end(b, __func__, AIR_OP_LAUNCH, AIR_OP_LAUNCH_TERM);
}
air_status_t air_builder_segment_begin(air_builder_t* b, const air_hier_desc_t* d,
                                       air_value_t* out_block_args, air_value_t* out_token) {
  return hier(b, __func__, AIR_OP_SEGMENT, d, true, out_block_args, out_token);
}
air_status_t air_builder_segment_end(air_builder_t* b) {
  return hier_end(b, __func__, AIR_OP_SEGMENT, AIR_OP_SEGMENT_TERM);
}
air_status_t air_builder_herd_begin(air_builder_t* b, const air_hier_desc_t* d,
                                    air_value_t* out_block_args, air_value_t* out_token) {
  return hier(b, __func__, AIR_OP_HERD, d, true, out_block_args, out_token);
}
air_status_t air_builder_herd_end(air_builder_t* b) {
  return hier_end(b, __func__, AIR_OP_HERD, AIR_OP_HERD_TERM);
}
air_status_t air_builder_rank_begin(air_builder_t* b, const air_hier_desc_t* d,
                                    air_value_t* out_block_args, air_value_t* out_token) {
  return hier(b, __func__, AIR_OP_RANK, d, true, out_block_args, out_token);
}
air_status_t air_builder_rank_end(air_builder_t* b) {
  return hier_end(b, __func__, AIR_OP_RANK, AIR_OP_RANK_TERM);
}

air_status_t air_builder_universe_alloc(air_builder_t* b, air_value_t n_ranks,
                                        air_value_t* out) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!out) return AIR_B_INVALID(b, "%s: NULL out_universe", fn);
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "n_ranks", n_ranks, AIR_BW_INDEX));
  air_tid_t t = air_ir_type_universe(b->p);
  if (!t) return AIR_B_OOM(b, fn);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_UNIVERSE_ALLOC, 1, 1, 0, 0, &op));
  op->operands[0] = n_ranks;
  AIR_RETURN_IF_ERROR(air_b_result(b, fn, op, 0, t));
  air_b_append(b, op);
  *out = op->results[0];
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Data movement                                                             */
/*---------------------------------------------------------------------------*/

static air_status_t check_slice(const air_builder_t* b, const char* fn, const char* what,
                                const air_slice_t* s) {
  AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, what, s->memref, AIR_BW_MEMREF));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "offsets", s->n_offsets, s->offsets));
  AIR_RETURN_IF_ERROR(air_b_check_ixs(b, fn, "sizes", s->n_sizes, s->sizes));
  return air_b_check_ixs(b, fn, "strides", s->n_strides, s->strides);
}

/* Fills lists[first..first+2] from a slice. */
static air_status_t slice_lists(air_builder_t* b, const char* fn, air_op_t* op, uint32_t first,
                                const air_slice_t* s) {
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[first], s->n_offsets, s->offsets));
  AIR_RETURN_IF_ERROR(air_b_ixlist(b, fn, &op->lists[first + 1], s->n_sizes, s->sizes));
  return air_b_ixlist(b, fn, &op->lists[first + 2], s->n_strides, s->strides);
}

static air_status_t check_async_out(const air_builder_t* b, const char* fn, uint32_t flags,
                                    air_value_t* out_token) {
  if (flags & ~(uint32_t)AIR_BUILD_ASYNC)
    return AIR_B_INVALID(b, "%s: unknown flags 0x%x", fn, flags);
  if ((flags & AIR_BUILD_ASYNC) && !out_token)
    return AIR_B_INVALID(b, "%s: NULL out_token for an async op", fn);
  return NULL;
}

static air_status_t channel_io(air_builder_t* b, const char* fn, air_opkind_t kind,
                               const air_channel_io_desc_t* d, air_value_t* out_token) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  AIR_RETURN_IF_ERROR(check_async_out(b, fn, d->flags, out_token));
  AIR_RETURN_IF_ERROR(air_b_check_sym(b, fn, "channel", d->channel));
  AIR_RETURN_IF_ERROR(
      air_b_check_values(b, fn, "indices", d->n_indices, d->indices, AIR_BW_INDEX));
  AIR_RETURN_IF_ERROR(check_slice(b, fn, "data.memref", &d->data));
  if (d->dest && kind != AIR_OP_PUT)
    return AIR_B_INVALID(b, "%s: dest is only for air.channel.put", fn);
  if (d->dest) AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "dest", d->dest, AIR_BW_ANY));
  AIR_RETURN_IF_ERROR(check_token_lists(b, fn, &d->tokens));
  if (d->n_indices > UINT32_MAX - 2) return AIR_B_INVALID(b, "%s: too many indices", fn);

  bool async = d->flags & AIR_BUILD_ASYNC;
  uint32_t n_ops = d->n_indices + 1 + (d->dest ? 1 : 0);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, kind, n_ops, async ? 1 : 0, 0, 3, &op));
  op->iaux[0] = d->n_indices;
  if (!(op->sym = air_ir_strndup(b->p, d->channel, strlen(d->channel)))) return AIR_B_OOM(b, fn);
  if (d->n_indices) memcpy(op->operands, d->indices, d->n_indices * sizeof(air_vid_t));
  op->operands[d->n_indices] = d->data.memref;
  if (d->dest) {
    op->operands[d->n_indices + 1] = d->dest;
    op->flags |= AIR_OPF_HAS_DEST;
  }
  AIR_RETURN_IF_ERROR(slice_lists(b, fn, op, 0, &d->data));
  AIR_RETURN_IF_ERROR(set_token_lists(b, fn, op, &d->tokens));
  AIR_RETURN_IF_ERROR(async_result(b, fn, op, d->flags));
  air_b_append(b, op);
  if (out_token) *out_token = async ? op->results[0] : 0;
  return NULL;
}

air_status_t air_builder_channel_put(air_builder_t* b, const air_channel_io_desc_t* d,
                                     air_value_t* out_token) {
  return channel_io(b, __func__, AIR_OP_PUT, d, out_token);
}

air_status_t air_builder_channel_get(air_builder_t* b, const air_channel_io_desc_t* d,
                                     air_value_t* out_token) {
  return channel_io(b, __func__, AIR_OP_GET, d, out_token);
}

air_status_t air_builder_dma_memcpy_nd(air_builder_t* b, const air_dma_desc_t* d,
                                       air_value_t* out_token) {
  const char* fn = __func__;
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, fn));
  if (!d) return AIR_B_INVALID(b, "%s: NULL desc", fn);
  AIR_RETURN_IF_ERROR(check_async_out(b, fn, d->flags, out_token));
  AIR_RETURN_IF_ERROR(check_slice(b, fn, "dst.memref", &d->dst));
  AIR_RETURN_IF_ERROR(check_slice(b, fn, "src.memref", &d->src));
  AIR_RETURN_IF_ERROR(check_token_lists(b, fn, &d->tokens));
  if (d->src_rank)
    AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "src_rank", d->src_rank, AIR_BW_INDEX));
  if (d->dst_rank)
    AIR_RETURN_IF_ERROR(air_b_check_value(b, fn, "dst_rank", d->dst_rank, AIR_BW_INDEX));
  bool async = d->flags & AIR_BUILD_ASYNC;
  uint32_t nr = (d->src_rank ? 1u : 0u) + (d->dst_rank ? 1u : 0u);
  air_op_t* op;
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, AIR_OP_DMA, 2 + nr, async ? 1 : 0, 0, 6, &op));
  op->operands[0] = d->dst.memref;
  op->operands[1] = d->src.memref;
  /* Operand order [dst, src, (src_rank), (dst_rank)] as ir.h lays out. */
  uint32_t ri = 2;
  if (d->src_rank) op->flags |= AIR_OPF_SRC_RANK, op->operands[ri++] = d->src_rank;
  if (d->dst_rank) op->flags |= AIR_OPF_DST_RANK, op->operands[ri++] = d->dst_rank;
  AIR_RETURN_IF_ERROR(slice_lists(b, fn, op, 0, &d->dst));
  AIR_RETURN_IF_ERROR(slice_lists(b, fn, op, 3, &d->src));
  AIR_RETURN_IF_ERROR(set_token_lists(b, fn, op, &d->tokens));
  AIR_RETURN_IF_ERROR(async_result(b, fn, op, d->flags));
  air_b_append(b, op);
  if (out_token) *out_token = async ? op->results[0] : 0;
  return NULL;
}

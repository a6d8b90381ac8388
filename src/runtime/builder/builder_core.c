/* builder_core.c - the builder object (create, destroy, finish) and what every
 * builder_*.c file uses: argument checks, op, result, region and list creation,
 * and the stack of open bodies that is the insertion point. */
#include "runtime/builder/builder_core.h"

#include <string.h>

/*---------------------------------------------------------------------------*/
/* Checks                                                                    */
/*---------------------------------------------------------------------------*/

air_status_t air_b_check_builder(const air_builder_t* b, const char* fn) {
  return b ? NULL : AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "%s: NULL builder", fn);
}

static bool type_matches(const air_type_info_t* t, air_bwant_t want) {
  switch (want) {
    case AIR_BW_ANY: return t->kind != AIR_TYPE_NONE;
    case AIR_BW_TOKEN: return t->kind == AIR_TYPE_TOKEN;
    case AIR_BW_INDEX: return t->kind == AIR_TYPE_SCALAR && t->elem == AIR_ELEM_INDEX;
    /* arith works on signless integers: siN/uiN are storage types (ir.h) */
    case AIR_BW_INTLIKE:
      return t->kind == AIR_TYPE_SCALAR && !air_elem_is_float(t->elem) &&
             !air_elem_is_signed_or_unsigned(t->elem);
    case AIR_BW_INT:
      return t->kind == AIR_TYPE_SCALAR && !air_elem_is_float(t->elem) &&
             t->elem != AIR_ELEM_INDEX && !air_elem_is_signed_or_unsigned(t->elem);
    case AIR_BW_FLOAT: return t->kind == AIR_TYPE_SCALAR && air_elem_is_float(t->elem);
    case AIR_BW_SCALAR: return t->kind == AIR_TYPE_SCALAR;
    case AIR_BW_MEMREF: return t->kind == AIR_TYPE_MEMREF;
    case AIR_BW_I1: return t->kind == AIR_TYPE_SCALAR && t->elem == AIR_ELEM_I1;
    case AIR_BW_UNIVERSE: return t->kind == AIR_TYPE_UNIVERSE;
  }
  return false;
}

static const char* want_name(air_bwant_t want) {
  switch (want) {
    case AIR_BW_ANY: return "a typed value";
    case AIR_BW_TOKEN: return "a token";
    case AIR_BW_INDEX: return "an index";
    case AIR_BW_INTLIKE: return "a signless integer or index";
    case AIR_BW_INT: return "a signless integer";
    case AIR_BW_FLOAT: return "a float";
    case AIR_BW_UNIVERSE: return "an !air.universe";
    case AIR_BW_SCALAR: return "a scalar";
    case AIR_BW_MEMREF: return "a memref";
    case AIR_BW_I1: return "an i1";
  }
  return "?";
}

air_status_t air_b_check_type(const air_builder_t* b, const char* fn, const char* what,
                              air_tid_t t, air_bwant_t want) {
  if (t == 0) return AIR_B_INVALID(b, "%s: %s is type 0", fn, what);
  if (t >= b->p->n_types)
    return AIR_B_INVALID(b, "%s: %s: %u is not a type of this program", fn, what, t);
  if (!type_matches(air_ir_type(b->p, t), want))
    return AIR_B_INVALID(b, "%s: %s must be %s type", fn, what, want_name(want));
  return NULL;
}

air_status_t air_b_check_value(const air_builder_t* b, const char* fn, const char* what,
                               air_vid_t v, air_bwant_t want) {
  if (v == 0) return AIR_B_INVALID(b, "%s: %s is value 0", fn, what);
  if (v >= b->p->n_values)
    return AIR_B_INVALID(b, "%s: %s: %u is not a value of this program", fn, what, v);
  if (!type_matches(air_ir_type(b->p, air_ir_value_type(b->p, v)), want))
    return AIR_B_INVALID(b, "%s: %s must be %s", fn, what, want_name(want));
  return NULL;
}

air_status_t air_b_check_values(const air_builder_t* b, const char* fn, const char* what,
                                uint32_t n, const air_value_t* vs, air_bwant_t want) {
  if (n && !vs) return AIR_B_INVALID(b, "%s: %s: NULL array of %u values", fn, what, n);
  for (uint32_t i = 0; i < n; ++i) {
    if (vs[i] == 0) return AIR_B_INVALID(b, "%s: %s[%u] is value 0", fn, what, i);
    if (vs[i] >= b->p->n_values)
      return AIR_B_INVALID(b, "%s: %s[%u]: %u is not a value of this program", fn, what, i,
                           vs[i]);
    if (!type_matches(air_ir_type(b->p, air_ir_value_type(b->p, vs[i])), want))
      return AIR_B_INVALID(b, "%s: %s[%u] must be %s", fn, what, i, want_name(want));
  }
  return NULL;
}

air_status_t air_b_check_types(const air_builder_t* b, const char* fn, const char* what,
                               uint32_t n, const air_type_t* ts, air_bwant_t want) {
  if (n && !ts) return AIR_B_INVALID(b, "%s: %s: NULL array of %u types", fn, what, n);
  for (uint32_t i = 0; i < n; ++i) {
    if (ts[i] == 0 || ts[i] >= b->p->n_types)
      return AIR_B_INVALID(b, "%s: %s[%u]: %u is not a type of this program", fn, what, i,
                           ts[i]);
    if (!type_matches(air_ir_type(b->p, ts[i]), want))
      return AIR_B_INVALID(b, "%s: %s[%u] must be %s type", fn, what, i, want_name(want));
  }
  return NULL;
}

air_status_t air_b_check_ixs(const air_builder_t* b, const char* fn, const char* what,
                             uint32_t n, const air_index_t* ixs) {
  if (n && !ixs) return AIR_B_INVALID(b, "%s: %s: NULL array of %u entries", fn, what, n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!ixs[i].value) continue;
    if (ixs[i].value >= b->p->n_values)
      return AIR_B_INVALID(b, "%s: %s[%u]: %u is not a value of this program", fn, what, i,
                           ixs[i].value);
    if (!type_matches(air_ir_type(b->p, air_ir_value_type(b->p, ixs[i].value)), AIR_BW_INDEX))
      return AIR_B_INVALID(b, "%s: %s[%u] must be an index", fn, what, i);
  }
  return NULL;
}

air_status_t air_b_check_sym(const air_builder_t* b, const char* fn, const char* what,
                             const char* s) {
  if (!s || !s[0]) return AIR_B_INVALID(b, "%s: %s must be a non-empty name", fn, what);
  return NULL;
}

air_status_t air_b_check_yield(const air_builder_t* b, const char* fn, uint32_t n,
                               const air_value_t* vs, uint32_t n_like, const air_vid_t* like) {
  if (n != n_like)
    return AIR_B_INVALID(b, "%s: %u values given, the op needs %u", fn, n, n_like);
  AIR_RETURN_IF_ERROR(air_b_check_values(b, fn, "values", n, vs, AIR_BW_ANY));
  for (uint32_t i = 0; i < n; ++i)
    if (air_ir_value_type(b->p, vs[i]) != air_ir_value_type(b->p, like[i]))
      return AIR_B_INVALID(b, "%s: values[%u] does not have the type the op yields there", fn, i);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Construction and the insertion point                                      */
/*---------------------------------------------------------------------------*/

air_status_t air_b_op(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n_operands,
                      uint32_t n_results, uint32_t n_regions, uint32_t n_lists,
                      air_op_t** out) {
  *out = air_ir_op_new(b->p, kind, 0, 0, n_operands, n_results, n_regions, n_lists);
  return *out ? NULL : AIR_B_OOM(b, fn);
}

air_status_t air_b_result(air_builder_t* b, const char* fn, air_op_t* op, uint32_t i,
                          air_tid_t t) {
  if (!t || !(op->results[i] = air_ir_value_new(b->p, t, op, NULL, i, NULL)))
    return AIR_B_OOM(b, fn);
  return NULL;
}

air_status_t air_b_region(air_builder_t* b, const char* fn, air_op_t* op, uint32_t r,
                          uint32_t n, const air_tid_t* types, air_block_t** out) {
  air_block_t* blk = air_ir_block_new(b->p, op, n);
  if (!blk) return AIR_B_OOM(b, fn);
  for (uint32_t i = 0; i < n; ++i)
    if (!types[i] || !(blk->args[i] = air_ir_value_new(b->p, types[i], NULL, blk, i, NULL)))
      return AIR_B_OOM(b, fn);
  op->regions[r] = blk;
  if (out) *out = blk;
  return NULL;
}

air_status_t air_b_vlist(air_builder_t* b, const char* fn, air_vlist_t* dst, uint32_t n,
                         const air_value_t* src) {
  if (!air_ir_vlist_init(b->p, dst, n)) return AIR_B_OOM(b, fn);
  if (n) memcpy(dst->items, src, n * sizeof(air_vid_t));
  return NULL;
}

air_status_t air_b_ixlist(air_builder_t* b, const char* fn, air_ixlist_t* dst, uint32_t n,
                          const air_index_t* src) {
  if (!air_ir_list_init(b->p, dst, n)) return AIR_B_OOM(b, fn);
  for (uint32_t i = 0; i < n; ++i) {
    dst->items[i].value = src[i].value;
    dst->items[i].cst = src[i].value ? 0 : src[i].literal;
  }
  return NULL;
}

air_tid_t air_b_token_type(air_builder_t* b) { return air_ir_type_token(b->p, false); }
air_tid_t air_b_scalar_type(air_builder_t* b, air_elem_kind_t e) {
  return air_ir_type_scalar(b->p, e);
}

air_status_t air_b_reserve(air_builder_t* b, const char* fn) {
  if (!air_mem_grow(&b->p->allocator, (void**)&b->frames, &b->cap, (size_t)b->depth + 1,
                    sizeof(*b->frames)))
    return AIR_B_OOM(b, fn);
  return NULL;
}

void air_b_append(air_builder_t* b, air_op_t* op) {
  air_ir_block_append(b->frames[b->depth - 1].block, op);
  b->current = op;
}

void air_b_push(air_builder_t* b, air_op_t* op, air_block_t* block) {
  air_b_append(b, op);
  b->frames[b->depth].op = op;
  b->frames[b->depth].block = block;
  b->depth++;
}

air_status_t air_b_top(const air_builder_t* b, const char* fn, air_opkind_t k1,
                       air_opkind_t k2, air_op_t** out) {
  if (b->depth <= 1)
    return AIR_B_PRECOND(b, "%s: no %s body is open", fn, air_opkind_name(k1));
  air_op_t* op = b->frames[b->depth - 1].op;
  if (op->kind != k1 && op->kind != k2)
    return AIR_B_PRECOND(b, "%s: the innermost open body is %s, not %s", fn,
                         air_opkind_name(op->kind), air_opkind_name(k1));
  *out = op;
  return NULL;
}

air_status_t air_b_term(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n,
                        const air_value_t* vs, air_op_t** out) {
  AIR_RETURN_IF_ERROR(air_b_op(b, fn, kind, n, 0, 0, 0, out));
  if (n) memcpy((*out)->operands, vs, n * sizeof(air_vid_t));
  return NULL;
}

void air_b_pop(air_builder_t* b, air_op_t* term) {
  air_bframe_t* f = &b->frames[--b->depth];
  air_ir_block_append(f->block, term);
  b->current = f->op;
}

void air_b_switch_block(air_builder_t* b, air_block_t* block) {
  b->frames[b->depth - 1].block = block;
}

/*---------------------------------------------------------------------------*/
/* The builder object                                                        */
/*---------------------------------------------------------------------------*/

air_status_t air_builder_create(air_program_t* program, air_builder_t** out_builder) {
  const air_allocator_t* a = program ? &program->allocator : NULL;
  if (!program || !out_builder)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_builder_create: NULL argument");
  *out_builder = NULL;
  air_builder_t* b = air_mem_alloc(a, sizeof(*b));
  air_bframe_t* f = air_mem_alloc(a, 8 * sizeof(*f));
  if (!b || !f) {
    air_mem_free(a, b);
    air_mem_free(a, f);
    return AIR_STATUS_OOM(a, "air_builder_create");
  }
  memset(b, 0, sizeof(*b));
  b->p = program;
  b->frames = f;
  b->cap = 8;
  b->depth = 1;
  f[0].op = program->module;
  f[0].block = program->module->regions[0];
  *out_builder = b;
  return NULL;
}

void air_builder_destroy(air_builder_t* b) {
  if (!b) return;
  air_allocator_t a = b->p->allocator;
  a.free(a.self, b->frames);
  a.free(a.self, b);
}

air_status_t air_builder_finish(const air_builder_t* b) {
  AIR_RETURN_IF_ERROR(air_b_check_builder(b, __func__));
  if (b->depth > 1)
    return AIR_B_PRECOND(b, "%s: %u bodies still open, the innermost a %s", __func__,
                         b->depth - 1, air_opkind_name(b->frames[b->depth - 1].op->kind));
  return NULL;
}

uint32_t air_builder_depth(const air_builder_t* b) { return b ? b->depth - 1 : 0; }

air_program_t* air_builder_program(const air_builder_t* b) { return b ? b->p : NULL; }

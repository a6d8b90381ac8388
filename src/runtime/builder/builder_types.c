/* builder_types.c - the public type handles (air/types.h) and the conversion of
 * the builder's flat affine encoding into IR affine maps and sets. */
#include <string.h>

#include "runtime/builder/builder_types.h"

/* The public enums are promised to number like the IR's, so handles and element
 * codes pass through unchanged. */
_Static_assert((int)AIR_ELEMENT_NONE == (int)AIR_ELEM_NONE &&
                   (int)AIR_ELEMENT_I1 == (int)AIR_ELEM_I1 &&
                   (int)AIR_ELEMENT_I8 == (int)AIR_ELEM_I8 &&
                   (int)AIR_ELEMENT_I16 == (int)AIR_ELEM_I16 &&
                   (int)AIR_ELEMENT_I32 == (int)AIR_ELEM_I32 &&
                   (int)AIR_ELEMENT_I64 == (int)AIR_ELEM_I64 &&
                   (int)AIR_ELEMENT_INDEX == (int)AIR_ELEM_INDEX &&
                   (int)AIR_ELEMENT_F16 == (int)AIR_ELEM_F16 &&
                   (int)AIR_ELEMENT_BF16 == (int)AIR_ELEM_BF16 &&
                   (int)AIR_ELEMENT_F32 == (int)AIR_ELEM_F32 &&
                   (int)AIR_ELEMENT_F64 == (int)AIR_ELEM_F64 &&
                   (int)AIR_ELEMENT_SI8 == (int)AIR_ELEM_SI8 &&
                   (int)AIR_ELEMENT_UI8 == (int)AIR_ELEM_UI8 &&
                   (int)AIR_ELEMENT_UI64 == (int)AIR_ELEM_UI64 &&
                   (int)AIR_ELEMENT_COUNT == (int)AIR_ELEM_COUNT_,
               "air_elem_t must number like air_elem_kind_t");
_Static_assert((int)AIR_TYPECLASS_NONE == (int)AIR_TYPE_NONE &&
                   (int)AIR_TYPECLASS_TOKEN == (int)AIR_TYPE_TOKEN &&
                   (int)AIR_TYPECLASS_SCALAR == (int)AIR_TYPE_SCALAR &&
                   (int)AIR_TYPECLASS_MEMREF == (int)AIR_TYPE_MEMREF &&
                   (int)AIR_TYPECLASS_UNIVERSE == (int)AIR_TYPE_UNIVERSE &&
                   (int)AIR_TYPECLASS_TENSOR == (int)AIR_TYPE_TENSOR,
               "air_typeclass_t must number like air_type_kind_t");
_Static_assert((int)AIR_MEMORY_L3 == (int)AIR_MEM_L3 &&
                   (int)AIR_MEMORY_L2 == (int)AIR_MEM_L2 &&
                   (int)AIR_MEMORY_L1 == (int)AIR_MEM_L1,
               "memory spaces must number like the IR's");
_Static_assert(AIR_SHAPE_DYNAMIC == AIR_DIM_DYNAMIC, "dynamic extent marker");

static bool elem_ok(air_elem_t e) {
  return (unsigned)e > AIR_ELEMENT_NONE && (unsigned)e < AIR_ELEMENT_COUNT;
}

air_status_t air_type_token(air_program_t* p, uint32_t flags, air_type_t* out) {
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_token: NULL argument");
  *out = 0;
  if (flags & ~(uint32_t)AIR_TOKEN_OLD_SPELLING)
    return AIR_STATUS(&p->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_token: unknown flags 0x%x", flags);
  if (!(*out = air_ir_type_token(p, (flags & AIR_TOKEN_OLD_SPELLING) != 0)))
    return AIR_STATUS_OOM(&p->allocator, "air_type_token");
  return NULL;
}

air_status_t air_type_universe(air_program_t* p, air_type_t* out) {
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_universe: NULL argument");
  if (!(*out = air_ir_type_universe(p))) return AIR_STATUS_OOM(&p->allocator, "air_type_universe");
  return NULL;
}

air_status_t air_type_scalar(air_program_t* p, air_elem_t elem, air_type_t* out) {
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_scalar: NULL argument");
  *out = 0;
  if (!elem_ok(elem))
    return AIR_STATUS(&p->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_scalar: bad element type %d", (int)elem);
  if (!(*out = air_ir_type_scalar(p, (air_elem_kind_t)elem)))
    return AIR_STATUS_OOM(&p->allocator, "air_type_scalar");
  return NULL;
}

air_status_t air_type_memref(air_program_t* p, air_elem_t elem, uint32_t rank,
                             const int64_t* shape, uint32_t memory_space, const char* layout,
                             air_type_t* out) {
  if (!p || !out || (rank && !shape))
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref: NULL argument");
  *out = 0;
  const air_allocator_t* a = &p->allocator;
  if (!elem_ok(elem))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_type_memref: bad element type %d",
                      (int)elem);
  if (memory_space > AIR_MEMORY_L1)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref: memory space %u is not L3 (0), L2 (1) or L1 (2)",
                      memory_space);
  for (uint32_t i = 0; i < rank; ++i)
    if (shape[i] < 0 && shape[i] != AIR_SHAPE_DYNAMIC)
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "air_type_memref: extent %u is negative (%lld)", i,
                        (long long)shape[i]);
  if (layout && !layout[0])
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref: empty layout (use NULL for the identity)");
  *out = air_ir_type_memref(p, (air_elem_kind_t)elem, rank, shape, (int32_t)memory_space,
                            layout);
  return *out ? NULL : AIR_STATUS_OOM(&p->allocator, "air_type_memref");
}

air_status_t air_type_memref_unranked(air_program_t* p, air_elem_t elem,
                                      uint32_t memory_space, air_type_t* out) {
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref_unranked: NULL argument");
  *out = 0;
  const air_allocator_t* a = &p->allocator;
  if (!elem_ok(elem))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref_unranked: bad element type %d", (int)elem);
  if (memory_space > AIR_MEMORY_L1)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_memref_unranked: memory space %u is not L3 (0), L2 (1) or "
                      "L1 (2)",
                      memory_space);
  *out = air_ir_type_memref_unranked(p, (air_elem_kind_t)elem, (int32_t)memory_space);
  return *out ? NULL : AIR_STATUS_OOM(a, "air_type_memref_unranked");
}

air_status_t air_type_describe(const air_program_t* p, air_type_t type,
                               air_type_details_t* out) {
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_describe: NULL argument");
  memset(out, 0, sizeof(*out));
  if (type == 0 || type >= p->n_types)
    return AIR_STATUS(&p->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_type_describe: %u is not a type of this program", type);
  const air_type_info_t* t = air_ir_type(p, type);
  out->typeclass = (air_typeclass_t)t->kind;
  out->elem = (air_elem_t)t->elem;
  out->rank = t->rank;
  out->shape = t->shape;
  out->memory_space = (uint32_t)t->memspace;
  out->layout = t->layout;
  out->flags = (t->old_spelling ? AIR_TOKEN_OLD_SPELLING : 0) | (t->unranked ? AIR_TYPE_UNRANKED : 0);
  return NULL;
}

air_type_t air_value_type(const air_program_t* p, air_value_t v) {
  if (!p || v == 0 || v >= p->n_values) return 0;
  return air_ir_value_type(p, v);
}

/*---------------------------------------------------------------------------*/
/* Affine descriptions                                                       */
/*---------------------------------------------------------------------------*/

/* Deeper nesting than this is not a real affine expression, and the bound keeps
 * the recursive reader's stack small on hostile input. */
enum { AFF_MAX_DEPTH = 256 };

typedef struct aff_reader_t {
  air_builder_t* b;
  const char* fn;
  const air_affine_desc_t* d;
  uint32_t pos;
  air_status_t err;
} aff_reader_t;

static const air_aff_t* aff_fail(aff_reader_t* r, const char* msg) {
  if (!r->err)
    r->err = AIR_B_INVALID(r->b, "%s: affine code %u: %s", r->fn, r->pos, msg);
  return NULL;
}

static const air_aff_t* aff_read(aff_reader_t* r, int depth) {
  const air_affine_desc_t* d = r->d;
  if (depth > AFF_MAX_DEPTH) return aff_fail(r, "expression nested too deeply");
  if (r->pos >= d->n_codes) return aff_fail(r, "codes end inside an expression");
  int64_t code = d->codes[r->pos++];
  air_aff_t* e = air_ir_alloc(r->b->p, sizeof(*e));
  if (!e) {
    if (!r->err) r->err = AIR_B_OOM(r->b, r->fn);
    return NULL;
  }
  switch (code) {
    case AIR_AFFINE_CONST:
    case AIR_AFFINE_DIM:
    case AIR_AFFINE_SYM:
      if (r->pos >= d->n_codes) return aff_fail(r, "leaf without its number");
      e->value = d->codes[r->pos++];
      e->kind = code == AIR_AFFINE_CONST ? AIR_AFF_CONST
                : code == AIR_AFFINE_DIM ? AIR_AFF_DIM
                                         : AIR_AFF_SYM;
      if (code == AIR_AFFINE_DIM && (e->value < 0 || e->value >= d->n_dims))
        return aff_fail(r, "dimension position out of range");
      if (code == AIR_AFFINE_SYM && (e->value < 0 || e->value >= d->n_syms))
        return aff_fail(r, "symbol position out of range");
      return e;
    case AIR_AFFINE_ADD: e->kind = AIR_AFF_ADD; break;
    case AIR_AFFINE_MUL: e->kind = AIR_AFF_MUL; break;
    case AIR_AFFINE_MOD: e->kind = AIR_AFF_MOD; break;
    case AIR_AFFINE_FLOORDIV: e->kind = AIR_AFF_FLOORDIV; break;
    case AIR_AFFINE_CEILDIV: e->kind = AIR_AFF_CEILDIV; break;
    default: --r->pos; return aff_fail(r, "not an expression code");
  }
  if (!(e->lhs = aff_read(r, depth + 1)) || !(e->rhs = aff_read(r, depth + 1))) return NULL;
  return e;
}

air_status_t air_b_affine(air_builder_t* b, const char* fn, const air_affine_desc_t* d,
                          int want, air_attr_t* out) {
  if (!d) return AIR_B_INVALID(b, "%s: NULL affine description", fn);
  if (d->flags) return AIR_B_INVALID(b, "%s: unknown affine flags 0x%x", fn, d->flags);
  if (d->n_codes && !d->codes) return AIR_B_INVALID(b, "%s: NULL affine codes", fn);
  bool is_set = want == 1 ||
                (want < 0 && d->n_codes &&
                 (d->codes[0] == AIR_AFFINE_GE0 || d->codes[0] == AIR_AFFINE_EQ0));
  uint32_t n = d->n_exprs;
  /* Every expression takes at least two codes; checking before allocating keeps
   * a bogus count from asking for gigabytes. */
  if (n > d->n_codes / 2)
    return AIR_B_INVALID(b, "%s: %u affine expressions cannot fit in %u codes", fn, n,
                         d->n_codes);
  const air_aff_t** exprs = n ? air_ir_alloc(b->p, n * sizeof(*exprs)) : NULL;
  bool* is_eq = n && is_set ? air_ir_alloc(b->p, n * sizeof(*is_eq)) : NULL;
  if (n && (!exprs || (is_set && !is_eq))) return AIR_B_OOM(b, fn);
  aff_reader_t r = {b, fn, d, 0, NULL};
  for (uint32_t i = 0; i < n; ++i) {
    if (is_set) {
      int64_t c = r.pos < d->n_codes ? d->codes[r.pos] : 0;
      if (c != AIR_AFFINE_GE0 && c != AIR_AFFINE_EQ0)
        return AIR_B_INVALID(b, "%s: affine code %u: constraint %u must start with GE0 or EQ0",
                             fn, r.pos, i);
      is_eq[i] = c == AIR_AFFINE_EQ0;
      r.pos++;
    }
    if (!(exprs[i] = aff_read(&r, 0))) return r.err;
  }
  if (r.pos != d->n_codes)
    return AIR_B_INVALID(b, "%s: %u affine codes left over after %u expressions", fn,
                         d->n_codes - r.pos, n);
  memset(out, 0, sizeof(*out));
  if (is_set) {
    air_affine_set_t* s = air_ir_alloc(b->p, sizeof(*s));
    if (!s) return AIR_B_OOM(b, fn);
    s->n_dims = d->n_dims;
    s->n_syms = d->n_syms;
    s->n_constraints = n;
    s->constraints = exprs;
    s->is_eq = is_eq;
    out->kind = AIR_ATTR_SET;
    out->set = s;
  } else {
    air_affine_map_t* m = air_ir_alloc(b->p, sizeof(*m));
    if (!m) return AIR_B_OOM(b, fn);
    m->n_dims = d->n_dims;
    m->n_syms = d->n_syms;
    m->n_results = n;
    m->results = exprs;
    out->kind = AIR_ATTR_MAP;
    out->map = m;
  }
  return NULL;
}

/* ir.c - construction and lookup for the program IR (see ir.h). */
#include "runtime/ir/ir.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/base/strbuf.h"
#include "runtime/ir/context_impl.h"

/*---------------------------------------------------------------------------*/
/* Tables                                                                    */
/*---------------------------------------------------------------------------*/

static const struct {
  const char* name;
} k_ops[AIR_OP_COUNT_] = {
#define X(e, name, cls) {name},
#include "runtime/ir/ir_ops.def"
#undef X
};

const char* air_opkind_name(air_opkind_t kind) {
  return (unsigned)kind < AIR_OP_COUNT_ ? k_ops[kind].name : "?";
}

const uint8_t air_opkind_classes_[AIR_OP_COUNT_] = {
#define X(e, name, cls) cls,
#include "runtime/ir/ir_ops.def"
#undef X
};

bool air_opkind_lookup(const char* name, size_t len, air_opkind_t* out_kind) {
  /* `return` is func.return written without its dialect, as MLIR prints it. */
  if (len == 6 && memcmp(name, "return", 6) == 0) {
    *out_kind = AIR_OP_RETURN;
    return true;
  }
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    const char* n = k_ops[k].name;
    if (n[0] && strlen(n) == len && memcmp(n, name, len) == 0) {
      *out_kind = (air_opkind_t)k;
      return true;
    }
  }
  return false;
}

air_opdomain_t air_opkind_domain(air_opkind_t k) {
  if ((k >= AIR_OP_ADDF && k <= AIR_OP_NEGF) || k == AIR_OP_REMF ||
      (k >= AIR_OP_MATH_ABSF && k <= AIR_OP_MATH_FMA))
    return AIR_DOMAIN_FLOAT;
  return AIR_DOMAIN_INT;
}

uint32_t air_opkind_elementwise_ins(air_opkind_t k) {
  if (k >= AIR_OP_LINALG_ADD && k <= AIR_OP_LINALG_POWF) return 2;
  if (k >= AIR_OP_LINALG_EXP && k <= AIR_OP_LINALG_ERF) return 1;
  return 0;
}

static const char* const k_cmpi[AIR_CMPI_COUNT_] = {"eq",  "ne",  "slt", "sle", "sgt",
                                                    "sge", "ult", "ule", "ugt", "uge"};
static const char* const k_cmpf[AIR_CMPF_COUNT_] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

const char* air_cmpi_pred_name(uint32_t pred) {
  return pred < AIR_CMPI_COUNT_ ? k_cmpi[pred] : "?";
}
const char* air_cmpf_pred_name(uint32_t pred) {
  return pred < AIR_CMPF_COUNT_ ? k_cmpf[pred] : "?";
}

bool air_cmpi_eval(uint32_t pred, int64_t a, int64_t b, uint64_t ua, uint64_t ub) {
  switch (pred) {
    case AIR_CMPI_EQ: return a == b;
    case AIR_CMPI_NE: return a != b;
    case AIR_CMPI_SLT: return a < b;
    case AIR_CMPI_SLE: return a <= b;
    case AIR_CMPI_SGT: return a > b;
    case AIR_CMPI_SGE: return a >= b;
    case AIR_CMPI_ULT: return ua < ub;
    case AIR_CMPI_ULE: return ua <= ub;
    case AIR_CMPI_UGT: return ua > ub;
    default: return ua >= ub;
  }
}

static int lookup_name(const char* const* names, int n, const char* s, size_t len) {
  for (int i = 0; i < n; ++i)
    if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0) return i;
  return -1;
}
int air_cmpi_pred_lookup(const char* s, size_t len) {
  return lookup_name(k_cmpi, AIR_CMPI_COUNT_, s, len);
}
int air_cmpf_pred_lookup(const char* s, size_t len) {
  return lookup_name(k_cmpf, AIR_CMPF_COUNT_, s, len);
}

static const struct {
  const char* name;
  uint32_t size;
  bool is_float;
} k_elems[AIR_ELEM_COUNT_] = {
    {"", 0, false},     {"i1", 1, false},    {"i8", 1, false},  {"i16", 2, false},
    {"i32", 4, false},  {"i64", 8, false},   {"index", 8, false}, {"f16", 2, true},
    {"bf16", 2, true},  {"f32", 4, true},    {"f64", 8, true},
    {"si8", 1, false},  {"si16", 2, false},  {"si32", 4, false}, {"si64", 8, false},
    {"ui8", 1, false},  {"ui16", 2, false},  {"ui32", 4, false}, {"ui64", 8, false},
};

const char* air_elem_name(air_elem_kind_t e) {
  return (unsigned)e < AIR_ELEM_COUNT_ ? k_elems[e].name : "";
}
uint32_t air_elem_size(air_elem_kind_t e) {
  return (unsigned)e < AIR_ELEM_COUNT_ ? k_elems[e].size : 0;
}
bool air_elem_is_float(air_elem_kind_t e) {
  return (unsigned)e < AIR_ELEM_COUNT_ && k_elems[e].is_float;
}
bool air_elem_is_signed_or_unsigned(air_elem_kind_t e) {
  return e >= AIR_ELEM_SI8 && e <= AIR_ELEM_UI64;
}
bool air_elem_is_unsigned(air_elem_kind_t e) { return e >= AIR_ELEM_UI8 && e <= AIR_ELEM_UI64; }
air_elem_kind_t air_elem_signless(air_elem_kind_t e) {
  static const air_elem_kind_t k_by_width[4] = {AIR_ELEM_I8, AIR_ELEM_I16, AIR_ELEM_I32,
                                                AIR_ELEM_I64};
  if (e >= AIR_ELEM_SI8 && e <= AIR_ELEM_SI64) return k_by_width[e - AIR_ELEM_SI8];
  if (e >= AIR_ELEM_UI8 && e <= AIR_ELEM_UI64) return k_by_width[e - AIR_ELEM_UI8];
  return e;
}

air_elem_kind_t air_elem_lookup(const char* s, size_t len) {
  for (int i = 1; i < AIR_ELEM_COUNT_; ++i)
    if (strlen(k_elems[i].name) == len && memcmp(k_elems[i].name, s, len) == 0)
      return (air_elem_kind_t)i;
  return AIR_ELEM_NONE;
}

/*---------------------------------------------------------------------------*/
/* Program and arena                                                         */
/*---------------------------------------------------------------------------*/

/* Grows a table of the program's allocator to hold at least `need` entries. */
static bool grow(air_program_t* p, void** data, uint32_t* cap, uint32_t need, size_t elem) {
  return air_mem_grow(&p->allocator, data, cap, need, elem);
}

air_status_t air_ir_program_new(air_context_t* context, const char* filename,
                                air_program_t** out) {
  const air_allocator_t* a = &context->allocator;
  *out = NULL;
  air_program_t* p = air_mem_calloc(a, 1, sizeof(*p));
  if (!p) return AIR_STATUS_OOM(a, "creating a program");
  p->context = context;
  p->allocator = *a;
  air_arena_init(&p->arena, a);
  bool ok = grow(p, (void**)&p->types, &p->cap_types, 1, sizeof(air_type_info_t)) &&
            grow(p, (void**)&p->values, &p->cap_values, 1, sizeof(air_value_info_t));
  if (ok) {
    memset(&p->types[0], 0, sizeof(p->types[0]));
    memset(&p->values[0], 0, sizeof(p->values[0]));
    p->n_types = p->n_values = 1;
    p->filename = air_ir_strndup(p, filename ? filename : "<input>",
                                 strlen(filename ? filename : "<input>"));
    p->module = air_ir_op_new(p, AIR_OP_MODULE, 0, 0, 0, 0, 1, 0);
    ok = p->filename && p->module &&
         (p->module->regions[0] = air_ir_block_new(p, p->module, 0)) != NULL;
  }
  if (!ok) {
    air_ir_program_free(p);
    return AIR_STATUS_OOM(a, "creating a program");
  }
  *out = p;
  return NULL;
}

void air_ir_program_free(air_program_t* p) {
  if (!p) return;
  air_allocator_t a = p->allocator;
  for (uint32_t i = 0; i < p->n_warnings; ++i) a.free(a.self, p->warnings[i]);
  a.free(a.self, p->warnings);
  a.free(a.self, p->types);
  a.free(a.self, p->type_index);
  a.free(a.self, p->values);
  a.free(a.self, p->aliases);
  air_arena_deinit(&p->arena);
  a.free(a.self, p);
}

void* air_ir_alloc(air_program_t* p, size_t size) { return air_arena_alloc(&p->arena, size); }

char* air_ir_strndup(air_program_t* p, const char* s, size_t len) {
  char* d = air_ir_alloc(p, len + 1);
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = 0;
  return d;
}

/*---------------------------------------------------------------------------*/
/* Types                                                                     */
/*---------------------------------------------------------------------------*/

static bool same_str(const char* a, const char* b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static uint64_t type_hash(const air_type_info_t* t) {
  uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
  MIX(t->kind);
  MIX(t->elem);
  MIX(t->old_spelling);
  MIX(t->rank);
  MIX(t->unranked);
  MIX((uint32_t)t->memspace);
  for (uint32_t i = 0; i < t->rank; ++i) MIX(t->shape[i]);
  for (const char* c = t->layout; c && *c; ++c) MIX(*c);
#undef MIX
  return h ^ (h >> 29);
}

static bool type_equal(const air_type_info_t* u, const air_type_info_t* t) {
  return u->kind == t->kind && u->elem == t->elem && u->old_spelling == t->old_spelling &&
         u->rank == t->rank && u->unranked == t->unranked && u->memspace == t->memspace &&
         same_str(u->layout, t->layout) &&
         (!t->rank || memcmp(u->shape, t->shape, t->rank * sizeof(int64_t)) == 0);
}

/* Rebuilds the hash index at twice the size: lookups stay O(1) however many
 * distinct types a program spells. */
static bool type_index_grow(air_program_t* p) {
  uint32_t cap = p->cap_type_index ? p->cap_type_index * 2 : 64;
  uint32_t* idx = air_mem_calloc(&p->allocator, cap, sizeof(uint32_t));
  if (!idx) return false;
  for (uint32_t id = 1; id < p->n_types; ++id) {
    uint32_t k = (uint32_t)type_hash(&p->types[id]) & (cap - 1);
    while (idx[k]) k = (k + 1) & (cap - 1);
    idx[k] = id;
  }
  air_mem_free(&p->allocator, p->type_index);
  p->type_index = idx;
  p->cap_type_index = cap;
  return true;
}

static air_tid_t intern(air_program_t* p, const air_type_info_t* t) {
  if ((uint64_t)(p->n_types + 1) * 2 > p->cap_type_index && !type_index_grow(p)) return 0;
  uint32_t mask = p->cap_type_index - 1;
  uint32_t k = (uint32_t)type_hash(t) & mask;
  for (; p->type_index[k]; k = (k + 1) & mask)
    if (type_equal(&p->types[p->type_index[k]], t)) return p->type_index[k];
  if (!grow(p, (void**)&p->types, &p->cap_types, p->n_types + 1, sizeof(*t))) return 0;
  air_type_info_t copy = *t;
  if (t->rank) {
    int64_t* shape = air_ir_alloc(p, t->rank * sizeof(int64_t));
    if (!shape) return 0;
    memcpy(shape, t->shape, t->rank * sizeof(int64_t));
    copy.shape = shape;
  } else {
    copy.shape = NULL;
  }
  if (t->layout && !(copy.layout = air_ir_strndup(p, t->layout, strlen(t->layout)))) return 0;
  p->types[p->n_types] = copy;
  p->type_index[k] = p->n_types;
  return p->n_types++;
}

air_tid_t air_ir_type_token(air_program_t* p, bool old_spelling) {
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_TOKEN;
  t.old_spelling = old_spelling;
  return intern(p, &t);
}

air_tid_t air_ir_type_universe(air_program_t* p) {
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_UNIVERSE;
  return intern(p, &t);
}

air_tid_t air_ir_type_scalar(air_program_t* p, air_elem_kind_t elem) {
  if (elem <= AIR_ELEM_NONE || elem >= AIR_ELEM_COUNT_) return 0;
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_SCALAR;
  t.elem = elem;
  return intern(p, &t);
}

air_tid_t air_ir_type_memref(air_program_t* p, air_elem_kind_t elem, uint32_t rank,
                             const int64_t* shape, int32_t memspace, const char* layout) {
  if (elem <= AIR_ELEM_NONE || elem >= AIR_ELEM_COUNT_ || (rank && !shape)) return 0;
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_MEMREF;
  t.elem = elem;
  t.rank = rank;
  t.shape = shape;
  t.memspace = memspace;
  t.layout = layout;
  return intern(p, &t);
}

air_tid_t air_ir_type_memref_unranked(air_program_t* p, air_elem_kind_t elem,
                                      int32_t memspace) {
  if (elem <= AIR_ELEM_NONE || elem >= AIR_ELEM_COUNT_) return 0;
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_MEMREF;
  t.elem = elem;
  t.unranked = true;
  t.memspace = memspace;
  return intern(p, &t);
}

air_tid_t air_ir_type_tensor(air_program_t* p, air_elem_kind_t elem, bool unranked,
                             uint32_t rank, const int64_t* shape, const char* encoding) {
  if (elem <= AIR_ELEM_NONE || elem >= AIR_ELEM_COUNT_ || (rank && !shape) ||
      (unranked && (rank || encoding)))
    return 0;
  air_type_info_t t = {0};
  t.kind = AIR_TYPE_TENSOR;
  t.elem = elem;
  t.unranked = unranked;
  t.rank = rank;
  t.shape = shape;
  t.layout = encoding;
  return intern(p, &t);
}

/*---------------------------------------------------------------------------*/
/* Values, ops, blocks                                                       */
/*---------------------------------------------------------------------------*/

air_vid_t air_ir_value_new(air_program_t* p, air_tid_t type, air_op_t* def,
                           air_block_t* block, uint32_t index, const char* name) {
  if (!grow(p, (void**)&p->values, &p->cap_values, p->n_values + 1, sizeof(air_value_info_t)))
    return 0;
  air_value_info_t* v = &p->values[p->n_values];
  v->type = type;
  v->def = def;
  v->block = block;
  v->index = index;
  v->name = NULL;
  if (name && !(v->name = air_ir_strndup(p, name, strlen(name)))) return 0;
  return p->n_values++;
}

air_op_t* air_ir_op_new(air_program_t* p, air_opkind_t kind, uint32_t line, uint32_t col,
                        uint32_t n_operands, uint32_t n_results, uint32_t n_regions,
                        uint32_t n_lists) {
  air_op_t* op = air_ir_alloc(p, sizeof(*op));
  if (!op) return NULL;
  op->kind = kind;
  op->line = line;
  op->col = col;
  op->n_operands = n_operands;
  op->n_results = n_results;
  op->n_regions = n_regions;
  op->n_lists = n_lists;
  if ((n_operands && !(op->operands = air_ir_alloc(p, n_operands * sizeof(air_vid_t)))) ||
      (n_results && !(op->results = air_ir_alloc(p, n_results * sizeof(air_vid_t)))) ||
      (n_regions && !(op->regions = air_ir_alloc(p, n_regions * sizeof(air_block_t*)))) ||
      (n_lists && !(op->lists = air_ir_alloc(p, n_lists * sizeof(air_ixlist_t)))))
    return NULL;
  return op;
}

air_block_t* air_ir_block_new(air_program_t* p, air_op_t* parent, uint32_t n_args) {
  air_block_t* b = air_ir_alloc(p, sizeof(*b));
  if (!b) return NULL;
  b->parent = parent;
  b->n_args = n_args;
  if (n_args && !(b->args = air_ir_alloc(p, n_args * sizeof(air_vid_t)))) return NULL;
  return b;
}

void air_ir_block_insert(air_block_t* block, air_op_t* before, air_op_t* op) {
  op->parent = block;
  if (!before) {
    op->prev = block->last;
    op->next = NULL;
    if (block->last)
      block->last->next = op;
    else
      block->first = op;
    block->last = op;
    return;
  }
  op->next = before;
  op->prev = before->prev;
  if (before->prev)
    before->prev->next = op;
  else
    block->first = op;
  before->prev = op;
}

void air_ir_block_append(air_block_t* block, air_op_t* op) {
  air_ir_block_insert(block, NULL, op);
}

bool air_ir_list_init(air_program_t* p, air_ixlist_t* list, uint32_t n) {
  list->n = n;
  list->items = NULL;
  return !n || (list->items = air_ir_alloc(p, n * sizeof(air_ix_t))) != NULL;
}

bool air_ir_vlist_init(air_program_t* p, air_vlist_t* list, uint32_t n) {
  list->n = n;
  list->items = NULL;
  return !n || (list->items = air_ir_alloc(p, n * sizeof(air_vid_t))) != NULL;
}

/*---------------------------------------------------------------------------*/
/* Attributes and aliases                                                    */
/*---------------------------------------------------------------------------*/

const air_attr_t* air_ir_attr_get(const air_op_t* op, const char* name) {
  for (uint32_t i = 0; i < op->n_attrs; ++i)
    if (strcmp(op->attrs[i].name, name) == 0) return &op->attrs[i].value;
  return NULL;
}

bool air_ir_attr_set(air_program_t* p, air_op_t* op, const char* name,
                     const air_attr_t* value) {
  for (uint32_t i = 0; i < op->n_attrs; ++i) {
    if (strcmp(op->attrs[i].name, name) == 0) {
      op->attrs[i].value = *value;
      return true;
    }
  }
  /* Arena arrays cannot grow in place: copy into a new one. Attribute counts are
   * small, so the copy is cheap. */
  air_named_attr_t* a = air_ir_alloc(p, (op->n_attrs + 1) * sizeof(*a));
  char* n = air_ir_strndup(p, name, strlen(name));
  if (!a || !n) return false;
  if (op->n_attrs) memcpy(a, op->attrs, op->n_attrs * sizeof(*a));
  a[op->n_attrs].name = n;
  a[op->n_attrs].value = *value;
  op->attrs = a;
  op->n_attrs++;
  return true;
}

const air_attr_t* air_ir_attr_resolve(const air_program_t* p, const air_attr_t* a) {
  /* An alias may name another alias; the bound stops a malformed cycle. */
  for (int hops = 0; a && a->kind == AIR_ATTR_ALIAS && hops < 64; ++hops) {
    if (a->i < 0 || (uint64_t)a->i >= p->n_aliases) return NULL;
    a = &p->aliases[a->i].value;
  }
  return a && a->kind == AIR_ATTR_ALIAS ? NULL : a;
}

bool air_ir_attr_ints(const air_program_t* p, const air_attr_t* a, uint32_t max, int64_t* out,
                      uint32_t* n) {
  a = air_ir_attr_resolve(p, a);
  if (!a) return false;
  if (a->kind == AIR_ATTR_DENSE) {
    if (a->n > max || (a->n && !a->ints)) return false;
    for (uint32_t i = 0; i < a->n; ++i) out[i] = a->ints[i];
    *n = a->n;
    return true;
  }
  if (a->kind != AIR_ATTR_ARRAY || a->n > max || (a->n && !a->elems)) return false;
  for (uint32_t i = 0; i < a->n; ++i) {
    const air_attr_t* e = air_ir_attr_resolve(p, &a->elems[i]);
    if (!e || e->kind != AIR_ATTR_INT) return false;
    out[i] = e->i;
  }
  *n = a->n;
  return true;
}

int32_t air_ir_alias_find(const air_program_t* p, const char* name, size_t len) {
  for (uint32_t i = 0; i < p->n_aliases; ++i)
    if (strlen(p->aliases[i].name) == len && memcmp(p->aliases[i].name, name, len) == 0)
      return (int32_t)i;
  return -1;
}

int32_t air_ir_alias_add(air_program_t* p, const char* name, const air_attr_t* value) {
  if (!grow(p, (void**)&p->aliases, &p->cap_aliases, p->n_aliases + 1, sizeof(air_alias_t)))
    return -1;
  char* n = air_ir_strndup(p, name, strlen(name));
  if (!n) return -1;
  p->aliases[p->n_aliases].name = n;
  p->aliases[p->n_aliases].value = *value;
  return (int32_t)p->n_aliases++;
}

/*---------------------------------------------------------------------------*/
/* Walks, affine evaluation, diagnostics                                     */
/*---------------------------------------------------------------------------*/

bool air_ir_walk(air_op_t* op, air_ir_walk_fn fn, void* user) {
  if (!fn(op, user)) return false;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_block_t* b = op->regions[r];
    if (!b) continue;
    for (air_op_t* o = b->first; o; o = o->next)
      if (!air_ir_walk(o, fn, user)) return false;
  }
  return true;
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool air_aff_eval(const air_aff_t* e, const int64_t* dims, const int64_t* syms, int64_t* out) {
  int64_t l, r;
  switch (e->kind) {
    case AIR_AFF_CONST: *out = e->value; return true;
    case AIR_AFF_DIM: *out = dims[e->value]; return true;
    case AIR_AFF_SYM: *out = syms[e->value]; return true;
    default: break;
  }
  if (!air_aff_eval(e->lhs, dims, syms, &l) || !air_aff_eval(e->rhs, dims, syms, &r))
    return false;
  switch (e->kind) {
    case AIR_AFF_ADD: return !__builtin_add_overflow(l, r, out);
    case AIR_AFF_MUL: return !__builtin_mul_overflow(l, r, out);
    case AIR_AFF_MOD:
      if (r <= 0) return false;
      *out = l % r;
      if (*out < 0) *out += r;
      return true;
    case AIR_AFF_FLOORDIV:
      if (r == 0 || (l == INT64_MIN && r == -1)) return false;
      *out = floordiv64(l, r);
      return true;
    case AIR_AFF_CEILDIV:
      if (r == 0 || (l == INT64_MIN && r == -1)) return false;
      *out = -floordiv64(-l, r);
      if (l == INT64_MIN) return false;
      return true;
    default: return false;
  }
}

bool air_aff_linearize(const air_aff_t* e, uint32_t n_dims, int64_t* coef, int64_t* c) {
  memset(coef, 0, n_dims * sizeof(int64_t));
  *c = 0;
  if (!e || n_dims > AIR_AFF_MAX_LINEAR_DIMS) return false;
  switch (e->kind) {
    case AIR_AFF_CONST: *c = e->value; return true;
    case AIR_AFF_DIM:
      if (e->value < 0 || (uint64_t)e->value >= n_dims) return false;
      coef[e->value] = 1;
      return true;
    case AIR_AFF_ADD:
    case AIR_AFF_MUL: {
      int64_t lc[AIR_AFF_MAX_LINEAR_DIMS], rc[AIR_AFF_MAX_LINEAR_DIMS], l0, r0;
      if (!air_aff_linearize(e->lhs, n_dims, lc, &l0) || !air_aff_linearize(e->rhs, n_dims, rc, &r0))
        return false;
      bool lconst = true, rconst = true;
      for (uint32_t d = 0; d < n_dims; ++d) {
        lconst = lconst && !lc[d];
        rconst = rconst && !rc[d];
      }
      if (e->kind == AIR_AFF_ADD) {
        for (uint32_t d = 0; d < n_dims; ++d) coef[d] = (int64_t)((uint64_t)lc[d] + (uint64_t)rc[d]);
        *c = (int64_t)((uint64_t)l0 + (uint64_t)r0);
        return true;
      }
      if (!lconst && !rconst) return false;
      uint64_t k = (uint64_t)(lconst ? l0 : r0);
      const int64_t* v = lconst ? rc : lc;
      for (uint32_t d = 0; d < n_dims; ++d) coef[d] = (int64_t)((uint64_t)v[d] * k);
      *c = (int64_t)((uint64_t)l0 * (uint64_t)r0);
      return true;
    }
    default: return false;
  }
}

/* `file:line:col: <severity>: <message>` on the program's allocator, or NULL. Each
 * line is cut at AIR_IR_MAX_DIAG bytes, whatever a message quotes. */
static char* format_diag(const air_program_t* p, const char* severity, uint32_t line,
                         uint32_t col, const char* fmt, va_list ap) {
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_sb_printf(&sb, "%s:%u:%u: %s: ", p->filename, line, col, severity);
  air_sb_vprintf(&sb, fmt, ap);
  if (!sb.oom && sb.len > AIR_IR_MAX_DIAG) {
    size_t at = 0, start = 0, out = 0;
    for (; at <= sb.len; ++at) { /* keep the head of every line */
      if (at < sb.len && sb.data[at] != '\n') continue;
      size_t n = at - start;
      size_t keep = n > AIR_IR_MAX_DIAG + 3 ? AIR_IR_MAX_DIAG : n;
      memmove(sb.data + out, sb.data + start, keep);
      out += keep;
      if (keep < n) {
        memcpy(sb.data + out, "...", 3); /* fits: more than 3 bytes were cut */
        out += 3;
      }
      if (at < sb.len) sb.data[out++] = '\n';
      start = at + 1;
    }
    sb.len = out;
    sb.data[out] = 0;
  }
  return air_sb_take(&sb, NULL);
}

void air_ir_warn(air_program_t* p, uint32_t line, uint32_t col, const char* fmt, ...) {
  if (p->n_warnings >= AIR_IR_MAX_WARNINGS) {
    ++p->n_warnings_dropped;
    return;
  }
  if (!grow(p, (void**)&p->warnings, &p->cap_warnings, p->n_warnings + 1, sizeof(char*)))
    return;
  va_list ap;
  va_start(ap, fmt);
  char* s = format_diag(p, "warning", line, col, fmt, ap);
  va_end(ap);
  if (s) p->warnings[p->n_warnings++] = s;
}

void air_ir_warn_finish(air_program_t* p) {
  if (!p->n_warnings_dropped ||
      !grow(p, (void**)&p->warnings, &p->cap_warnings, p->n_warnings + 1, sizeof(char*)))
    return;
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_sb_printf(&sb, "%s: warning: ... and %llu more warning%s", p->filename,
                (unsigned long long)p->n_warnings_dropped, p->n_warnings_dropped == 1 ? "" : "s");
  char* s = air_sb_take(&sb, NULL);
  if (s) p->warnings[p->n_warnings++] = s;
  p->n_warnings_dropped = 0;
}

air_status_t air_ir_error_at(const air_program_t* p, air_status_code_t code, uint32_t line,
                             uint32_t col, const char* src_file, uint32_t src_line,
                             const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char* s = format_diag(p, "error", line, col, fmt, ap);
  va_end(ap);
  air_status_t st = air_status_make(&p->allocator, code, src_file, src_line,
                                    s ? s : "out of memory formatting an error");
  if (s) p->allocator.free(p->allocator.self, s);
  return st;
}

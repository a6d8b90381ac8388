/* views.c - memref globals and views.
 *
 * A memref.global has one buffer per run, made at its first memref.get_global
 * (row-major, filled from its dense<...> initial value or zeroed) and freed when
 * the run ends: every get_global of the run, on any PE, sees that one buffer (an
 * L1 constant table is the same data on every tile). memref.dealloc cannot free
 * it: it is not a memref.alloc.
 *
 * memref.reinterpret_cast may not reach past the memory the view it starts from
 * reaches (MLIR leaves that undefined; a runtime must not read it): the 0-d base
 * buffer memref.extract_strided_metadata returns remembers the span of the view
 * it came from in its unused size slots (BASE_MARK below). */
#include "hal/cpu/interp/views.h"

#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/memref.h"
#include "runtime/base/mem.h"
#include "runtime/ir/dense.h"

/* A 0-d base view carrying a span: sizes[LO..HI] = [lo, hi] of the elements the
 * original view reached (relative to data), strides[MARK] = BASE_MARK. */
enum { SPAN_LO = AIR_MAX_RANK - 2, SPAN_HI = AIR_MAX_RANK - 1, SPAN_MARK = AIR_MAX_RANK - 1 };
#define BASE_MARK INT64_C(0x4149524241534521) /* "AIRBASE!" */

/* The elements [lo, hi] (relative to data) a view reaches; false when empty. */
static bool span_of(const air_memref_t* v, int64_t* lo, int64_t* hi) {
  if (v->rank == 0 && v->strides[SPAN_MARK] == BASE_MARK) {
    *lo = v->sizes[SPAN_LO];
    *hi = v->sizes[SPAN_HI];
    return *lo <= *hi;
  }
  *lo = *hi = v->offset;
  for (uint32_t k = 0; k < v->rank; ++k) {
    if (v->sizes[k] <= 0) return false;
    int64_t ext = (v->sizes[k] - 1) * v->strides[k];
    if (ext < 0) *lo += ext; else *hi += ext;
  }
  return true;
}

static void row_major(air_memref_t* m) {
  int64_t stride = 1;
  for (uint32_t k = m->rank; k-- > 0;) {
    m->strides[k] = stride;
    stride *= m->sizes[k] ? m->sizes[k] : 1;
  }
}

static const air_type_info_t* result_type(const ix_run_t* r, const air_op_t* op, uint32_t i) {
  return air_ir_type(r->p, air_ir_value_type(r->p, op->results[i]));
}

/*---------------------------------------------------------------------------*/
/* Globals                                                                   */
/*---------------------------------------------------------------------------*/

/* The memref.global `name` of the module enclosing `op`. */
static const air_op_t* find_global(const air_op_t* op, const char* name) {
  const air_op_t* m = op;
  while (m && m->kind != AIR_OP_MODULE) m = air_ir_parent_op(m);
  if (!m || !m->n_regions || !m->regions[0]) return NULL;
  for (const air_op_t* g = m->regions[0]->first; g; g = g->next)
    if (g->kind == AIR_OP_GLOBAL && g->sym && strcmp(g->sym, name) == 0) return g;
  return NULL;
}

static char* aligned(void* raw) { return (char*)(((uintptr_t)raw + 63) & ~(uintptr_t)63); }

static air_status_t op_get_global(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  const air_op_t* g = op->sym ? find_global(op, op->sym) : NULL;
  if (!g || g->n_types != 1)
    return ix_err(r, op, AIR_STATUS_NOT_FOUND, "memref.get_global: no memref.global @%s",
                  op->sym ? op->sym : "?");
  const air_type_info_t* t = air_ir_type(r->p, g->types[0]);
  if (t->kind != AIR_TYPE_MEMREF || t->unranked || t->rank > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "memref.get_global of this type");
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.elem = t->elem;
  m.rank = t->rank;
  uint64_t count = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (t->shape[k] < 0 || __builtin_mul_overflow(count, (uint64_t)t->shape[k], &count) ||
        count > (UINT64_C(1) << 40))
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                    "memref.get_global @%s: the global needs a static shape", g->sym);
    m.sizes[k] = t->shape[k];
  }
  row_major(&m);
  size_t bytes = (size_t)count * air_elem_size(t->elem);
  air_status_t st = NULL;
  pthread_mutex_lock(&r->mem_lock);
  void* raw = air_ptrmap_get(&r->globals, g);
  if (!raw) {
    raw = air_mem_alloc(&r->alloc, bytes + 64);
    char err[160];
    if (!raw) {
      st = ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.get_global: out of memory");
    } else if (g->iaux[1] & AIR_GLOBAL_INIT) {
      const air_attr_t* v = air_ir_attr_resolve(r->p, &g->value);
      if (!v || v->kind != AIR_ATTR_OPAQUE || !v->s ||
          !air_ir_dense_decode(v->s, t->elem, count, aligned(raw), err, sizeof err))
        st = ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "memref.get_global @%s: its initial value cannot be read: %s", g->sym,
                    v && v->kind == AIR_ATTR_OPAQUE ? err : "not a dense<...> literal");
    } else {
      memset(aligned(raw), 0, bytes);
    }
    if (!st && !air_ptrmap_put(&r->globals, &r->alloc, g, raw))
      st = ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.get_global: out of memory");
    if (st) {
      air_mem_free(&r->alloc, raw);
      raw = NULL;
    }
  }
  pthread_mutex_unlock(&r->mem_lock);
  if (st) return st;
  m.data = aligned(raw);
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

void ix_globals_free(ix_run_t* r) {
  air_ptrmap_t* m = &r->globals;
  for (uint32_t i = 0; i < m->cap; ++i) { /* live keys: neither NULL nor (void*)1 (ptrmap.h) */
    const void* k = m->keys[i];
    if (k && k != (const void*)(uintptr_t)1) air_mem_free(&r->alloc, m->vals[i]);
  }
  air_ptrmap_free(m, &r->alloc);
}

/*---------------------------------------------------------------------------*/
/* Views                                                                     */
/*---------------------------------------------------------------------------*/

/* memref.reshape: the source's elements in row-major order, with the shape the
 * shape operand holds. */
static air_status_t op_reshape(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t *src, *shape;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (!st) st = ix_get_view(r, e, op, op->operands[1], &shape);
  if (st) return st;
  if (!ix_view_contiguous(src))
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.reshape needs a contiguous source");
  if (shape->rank != 1 || shape->sizes[0] > AIR_MAX_RANK ||
      air_elem_is_float((air_elem_kind_t)shape->elem))
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.reshape: the shape is a 1-D memref of at most %d integers",
                  AIR_MAX_RANK);
  const air_type_info_t* rt = result_type(r, op, 0);
  air_memref_t m = *src;
  m.rank = (uint32_t)shape->sizes[0];
  if (!rt->unranked && m.rank != rt->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.reshape: the shape holds %u sizes for a rank-%u result", m.rank,
                  rt->rank);
  int64_t count = 1, have = 1;
  for (uint32_t k = 0; k < src->rank; ++k) have *= src->sizes[k];
  uint32_t es = air_elem_size((air_elem_kind_t)shape->elem);
  for (uint32_t k = 0; k < m.rank; ++k) {
    const char* p = (const char*)shape->data + (shape->offset + (int64_t)k * shape->strides[0]) * es;
    int64_t d = ix_load_i(p, shape->elem);
    if (d < 0 || (!rt->unranked && rt->shape[k] != AIR_DIM_DYNAMIC && rt->shape[k] != d) ||
        __builtin_mul_overflow(count, d, &count))
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "memref.reshape: size %lld of dimension %u does not fit the result type",
                    (long long)d, k);
    m.sizes[k] = d;
  }
  if (count != have)
    return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                  "memref.reshape of %lld elements into a shape of %lld", (long long)have,
                  (long long)count);
  row_major(&m);
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

static air_status_t op_transpose(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_attr_t* a = air_ir_attr_resolve(r->p, &op->value);
  if (!a || a->kind != AIR_ATTR_MAP || !a->map || a->map->n_results != src->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.transpose needs a permutation of its source's dimensions");
  air_memref_t m = *src;
  uint32_t seen = 0;
  for (uint32_t i = 0; i < src->rank; ++i) {
    const air_aff_t* x = a->map->results[i];
    if (!x || x->kind != AIR_AFF_DIM || x->value < 0 || (uint64_t)x->value >= src->rank ||
        (seen >> x->value & 1))
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "memref.transpose: not a permutation");
    seen |= 1u << x->value;
    m.sizes[i] = src->sizes[x->value];
    m.strides[i] = src->strides[x->value];
  }
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

static air_status_t op_extract_meta(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  if (op->n_results != 2 + 2 * src->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.extract_strided_metadata of a rank-%u memref has %u results",
                  src->rank, 2 + 2 * src->rank);
  air_memref_t base;
  memset(&base, 0, sizeof base);
  base.data = src->data;
  base.elem = src->elem;
  int64_t lo = 0, hi = -1;
  span_of(src, &lo, &hi);
  base.sizes[SPAN_LO] = lo;
  base.sizes[SPAN_HI] = hi;
  base.strides[SPAN_MARK] = BASE_MARK;
  ix_set(r, e, op->results[0], (ix_val_t){.p = &base});
  ix_set(r, e, op->results[1], (ix_val_t){.i = src->offset});
  for (uint32_t k = 0; k < src->rank; ++k) {
    ix_set(r, e, op->results[2 + k], (ix_val_t){.i = src->sizes[k]});
    ix_set(r, e, op->results[2 + src->rank + k], (ix_val_t){.i = src->strides[k]});
  }
  return NULL;
}

static air_status_t op_reinterpret(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_type_info_t* rt = result_type(r, op, 0);
  const air_ixlist_t* l = op->lists;
  if (op->n_lists != 3 || rt->unranked || rt->rank > AIR_MAX_RANK || l[0].n != 1 ||
      l[1].n != rt->rank || l[2].n != rt->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.reinterpret_cast needs one offset and a size and stride per result "
                  "dimension");
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.data = src->data;
  m.elem = src->elem;
  m.rank = rt->rank;
  if ((st = ix_get_ix(r, e, op, &l[0].items[0], &m.offset))) return st;
  for (uint32_t k = 0; k < m.rank; ++k)
    if ((st = ix_get_ix(r, e, op, &l[1].items[k], &m.sizes[k])) ||
        (st = ix_get_ix(r, e, op, &l[2].items[k], &m.strides[k])))
      return st;
  int64_t slo, shi, lo, hi;
  bool src_ok = span_of(src, &slo, &shi), empty = !span_of(&m, &lo, &hi);
  for (uint32_t k = 0; k < m.rank; ++k)
    if (m.sizes[k] < 0)
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "memref.reinterpret_cast: size %lld < 0",
                    (long long)m.sizes[k]);
  if (!empty && (!src_ok || lo < slo || hi > shi))
    return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                  "memref.reinterpret_cast reaches elements [%lld, %lld] outside [%lld, %lld], "
                  "the memory its source reaches",
                  (long long)lo, (long long)hi, (long long)slo, (long long)shi);
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

air_status_t ix_view_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_GET_GLOBAL: return op_get_global(r, e, op);
    case AIR_OPC_MEMREF_RESHAPE: return op_reshape(r, e, op);
    case AIR_OPC_TRANSPOSE: return op_transpose(r, e, op);
    case AIR_OPC_EXTRACT_META: return op_extract_meta(r, e, op);
    case AIR_OPC_REINTERPRET: return op_reinterpret(r, e, op);
    default: return ix_err(r, op, AIR_STATUS_INTERNAL, "not a view op");
  }
}

/* memref.c - the memref op family: alloc, dealloc, load, store (and their
 * affine forms), subview, collapse_shape/expand_shape/cast and memref.copy. */
#include "hal/cpu/interp/memref.h"

#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/pattern.h"
#include "hal/spin.h"
#include "runtime/base/mem.h"

/* Element address of `v` at `idx` after bounds checks; NULL when out of range. */
static void* elem_ptr(const air_memref_t* v, const int64_t* idx, uint32_t n) {
  if (n != v->rank || !v->data) return NULL;
  int64_t off = v->offset;
  for (uint32_t k = 0; k < n; ++k) {
    if (idx[k] < 0 || idx[k] >= v->sizes[k]) return NULL;
    off += idx[k] * v->strides[k];
  }
  return (char*)v->data + off * (int64_t)air_elem_size((air_elem_kind_t)v->elem);
}

/*---------------------------------------------------------------------------*/
/* Memory                                                                    */
/*---------------------------------------------------------------------------*/

/* Every memref.alloc is recorded so a program that forgets to dealloc (or fails
 * half-way) still frees it when the run ends, and a dealloc of anything else is
 * an error. The bytes come from the run's cache (cache.h): a run recycled by its
 * prep finds its buffers already mapped and touched. The block's size sits in
 * the 8 bytes before the 64-byte-aligned data. */
static size_t alloc_block(size_t bytes) { return bytes + 72; }

static void alloc_put(ix_run_t* r, void* data, void* raw) {
  uint64_t bytes;
  memcpy(&bytes, (char*)data - 8, 8);
  ix_cache_put(r->cache, &r->alloc, raw, alloc_block((size_t)bytes));
}

/* The record of live allocs (issue 14, session 8). A run has a few live at a
 * time (an elementwise herd tile 3, matmul_4x4's k-steps a dozen or two), and
 * deallocs come mostly in reverse order: the first IX_LIVE sit in a small table
 * in the run, searched from its end, the rest in the `allocs` map. Both under a
 * spinlock held for a few dozen instructions (the map's growth aside, which
 * only runs beyond IX_LIVE live allocs): the pthread mutex and the map's hashing
 * had cost ~220 instructions per alloc/dealloc pair. */
static void live_lock(ix_run_t* r) { air_spin_lock(&r->held_lock); }
static void live_unlock(ix_run_t* r) { air_spin_unlock(&r->held_lock); }

static bool live_add(ix_run_t* r, void* data, void* raw) {
  live_lock(r);
  bool ok = true;
  if (r->n_held < IX_LIVE)
    r->held[r->n_held++] = (ix_live_t){data, raw};
  else
    ok = air_ptrmap_put(&r->allocs, &r->alloc, data, raw);
  live_unlock(r);
  return ok;
}

/* Takes `data` off the record: its block, or NULL when it is not live. */
static void* live_take(ix_run_t* r, const void* data) {
  void* raw = NULL;
  live_lock(r);
  for (uint32_t i = r->n_held; i-- > 0;)
    if (r->held[i].data == data) {
      raw = r->held[i].raw;
      r->held[i] = r->held[--r->n_held];
      break;
    }
  if (!raw && r->allocs.n) {
    raw = air_ptrmap_get(&r->allocs, data);
    if (raw) air_ptrmap_del(&r->allocs, data);
  }
  live_unlock(r);
  return raw;
}

/* The view and byte count a memref.alloc makes (also rank.c's symmetric alloc). */
air_status_t ix_alloc_shape(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_memref_t* out,
                            size_t* out_bytes) {
  const air_type_info_t* t = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  if (t->kind != AIR_TYPE_MEMREF || t->rank > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "memref.alloc of this type");
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.elem = t->elem;
  m.rank = t->rank;
  uint32_t dyn = 0;
  uint64_t count = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    int64_t d = t->shape[k];
    if (d == AIR_DIM_DYNAMIC) {
      air_status_t st = dyn < op->n_operands
                            ? ix_get_i(r, e, op, op->operands[dyn++], &d)
                            : ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "missing dynamic size");
      if (st) return st;
    }
    if (d < 0 || __builtin_mul_overflow(count, (uint64_t)d, &count) ||
        count > (UINT64_C(1) << 40))
      return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: size %lld is invalid",
                    (long long)d);
    m.sizes[k] = d;
  }
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    m.strides[k] = stride;
    stride *= m.sizes[k] ? m.sizes[k] : 1;
  }
  *out = m;
  *out_bytes = (size_t)count * air_elem_size(t->elem);
  return NULL;
}

static air_status_t op_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t m;
  air_status_t st = ix_alloc_view(r, e, op, &m);
  if (!st) ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return st;
}

/* The view is written into `out` at once (it is ~150 bytes), data last: a
 * failed alloc leaves `out` unspecified. A static shape comes from the tables
 * (tables.c build_shapes), not from the type each time. */
air_status_t ix_alloc_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_memref_t* out) {
  size_t bytes;
  const ix_vinfo_t* vi = &r->tab.vinfo[op->results[0]];
  if (vi->shape) {
    const ix_shape_t* sh = &r->tab.shapes[vi->shape - 1];
    *out = sh->view;
    bytes = sh->bytes;
  } else {
    air_status_t st = ix_alloc_shape(r, e, op, out, &bytes);
    if (st) return st;
  }
  char* raw = ix_cache_get(r->cache, &r->alloc, alloc_block(bytes));
  if (!raw)
    return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory (%zu bytes)",
                  bytes);
  char* data = (char*)(((uintptr_t)raw + 8 + 63) & ~(uintptr_t)63);
  uint64_t size64 = bytes;
  memcpy(data - 8, &size64, 8);
  /* Fresh memory reads as zeros, unless the program writes it all before any
   * read (tables.c, overwrite.h). */
  if (!vi->overwritten) memset(data, 0, bytes);
  if (!live_add(r, data, raw)) {
    alloc_put(r, data, raw);
    return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory");
  }
  out->data = data;
  return NULL;
}

static air_status_t op_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* v;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &v);
  return st ? st : ix_dealloc_view(r, op, v);
}

air_status_t ix_dealloc_view(ix_run_t* r, const air_op_t* op, const air_memref_t* v) {
  void* raw = v->data ? live_take(r, v->data) : NULL;
  if (!raw)
    return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "memref.dealloc of memory that memref.alloc did not return or that was "
                  "already freed");
  alloc_put(r, v->data, raw);
  return NULL;
}

void ix_allocs_free(ix_run_t* r) {
  for (uint32_t i = 0; i < r->n_held; ++i) alloc_put(r, r->held[i].data, r->held[i].raw);
  r->n_held = 0;
  air_ptrmap_t* m = &r->allocs;
  for (uint32_t i = 0; i < m->cap; ++i) { /* live keys: neither NULL nor (void*)1 (ptrmap.h) */
    const void* k = m->keys[i];
    if (k && k != (const void*)(uintptr_t)1) alloc_put(r, (void*)(uintptr_t)k, m->vals[i]);
  }
  air_ptrmap_free(m, &r->alloc);
}

/* affine.load/store: the indices are the results of the op's map applied to the
 * operands from `first` on. */
static air_status_t affine_indices(ix_run_t* r, ix_env_t* e, const air_op_t* op, uint32_t first,
                                   int64_t* idx, uint32_t* n) {
  const air_attr_t* m = air_ir_attr_resolve(r->p, &op->value);
  uint32_t nd = op->iaux[0], nops = op->n_operands - first;
  if (!m || m->kind != AIR_ATTR_MAP || !m->map || (m->map->n_results && !m->map->results) ||
      nops > 32 || nd != m->map->n_dims || nops != nd + m->map->n_syms)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s operands do not match its map",
                  ix_opname(op));
  if (m->map->n_results > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s of rank %u (at most %d)", ix_opname(op),
                  m->map->n_results, AIR_MAX_RANK);
  int64_t vals[32];
  air_status_t st;
  for (uint32_t i = 0; i < nops; ++i)
    if ((st = ix_get_i(r, e, op, op->operands[first + i], &vals[i]))) return st;
  for (uint32_t k = 0; k < m->map->n_results; ++k)
    if (!air_aff_eval(m->map->results[k], vals, vals + nd, &idx[k]))
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: division by zero or overflow",
                    ix_opname(op));
  *n = m->map->n_results;
  return NULL;
}

static air_status_t op_access(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  bool load = air_opkind_class(op->kind) == AIR_OPC_LOAD;
  uint32_t first = load ? 1 : 2;
  if (op->n_operands < first)
    return ix_err(r, op, AIR_STATUS_INTERNAL, "malformed %s", ix_opname(op));
  air_memref_t* v;
  air_status_t st = ix_get_view(r, e, op, op->operands[first - 1], &v);
  if (st) return st;
  int64_t idx[AIR_MAX_RANK];
  uint32_t n = op->n_operands - first;
  if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE) {
    if ((st = affine_indices(r, e, op, first, idx, &n))) return st;
  } else {
    if (n > AIR_MAX_RANK) n = AIR_MAX_RANK + 1;
    for (uint32_t k = 0; k < n && k < AIR_MAX_RANK; ++k)
      if ((st = ix_get_i(r, e, op, op->operands[first + k], &idx[k]))) return st;
  }
  void* p = elem_ptr(v, idx, n);
  if (!p) {
    char nb[64];
    return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: index out of bounds of %s",
                  ix_opname(op), ix_vname(r, op->operands[first - 1], nb, sizeof nb));
  }
  bool fl = air_elem_is_float((air_elem_kind_t)v->elem);
  if (load) {
    ix_val_t x;
    if (fl)
      x.f = ix_load_f(p, v->elem);
    else
      x.i = ix_load_i(p, v->elem);
    ix_set(r, e, op->results[0], x);
  } else {
    ix_val_t* x = ix_slot(r, e, op->operands[0]);
    if (!x) return ix_err(r, op, AIR_STATUS_INTERNAL, "memref.store: value missing");
    if (fl)
      ix_store_f(p, v->elem, x->f);
    else
      ix_store_i(p, v->elem, x->i);
  }
  return NULL;
}

/* Result rank below the size count drops unit dimensions (MLIR rank reduction):
 * sizes of 1 that the result type does not keep. */
static air_status_t op_subview(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_type_info_t* rt = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  uint32_t n = src->rank;
  if (op->n_lists < 3 || op->lists[0].n != n || op->lists[1].n != n || op->lists[2].n != n ||
      rt->kind != AIR_TYPE_MEMREF || rt->rank > n)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.subview needs one offset, size and stride per source dimension");
  air_memref_t m = *src;
  m.rank = 0;
  uint32_t keep_left = rt->rank, j = 0;
  for (uint32_t k = 0; k < n; ++k) {
    int64_t o, s, t;
    if ((st = ix_get_ix(r, e, op, &op->lists[0].items[k], &o)) ||
        (st = ix_get_ix(r, e, op, &op->lists[1].items[k], &s)) ||
        (st = ix_get_ix(r, e, op, &op->lists[2].items[k], &t)))
      return st;
    if (o < 0 || s < 0 || t < 1 || (s && o + (s - 1) * t >= src->sizes[k]))
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "memref.subview: dimension #%u [%lld, size %lld, stride %lld] exceeds %lld",
                    k, (long long)o, (long long)s, (long long)t, (long long)src->sizes[k]);
    m.offset += o * src->strides[k];
    bool keep = j < rt->rank && (rt->shape[j] == s || rt->shape[j] == AIR_DIM_DYNAMIC) &&
                (s != 1 || n - k <= keep_left);
    if (!keep && s != 1)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "memref.subview: size %lld of dimension #%u does not match the result type",
                    (long long)s, k);
    if (keep) {
      m.sizes[m.rank] = s;
      m.strides[m.rank] = src->strides[k] * t;
      m.rank++;
      j++;
      keep_left--;
    }
  }
  if (m.rank != rt->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.subview: result rank does not match its type");
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

bool ix_view_contiguous(const air_memref_t* m) {
  int64_t stride = 1;
  for (uint32_t k = m->rank; k-- > 0;) {
    if (m->sizes[k] != 1 && m->strides[k] != stride) return false;
    stride *= m->sizes[k];
  }
  return true;
}

/* collapse_shape / expand_shape / cast make a new view of the same memory. The
 * reshapes are implemented for contiguous identity-layout sources, where the
 * result is again row-major; MLIR also allows some strided ones. */
static air_status_t op_reshape(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_type_info_t* st_t = air_ir_type(r->p, air_ir_value_type(r->p, op->operands[0]));
  const air_type_info_t* rt = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  if (rt->kind != AIR_TYPE_MEMREF || rt->rank > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s needs a memref result of rank <= %d",
                  ix_opname(op), AIR_MAX_RANK);
  air_memref_t m = *src;
  if (op->kind == AIR_OP_MEMREF_CAST) {
    /* To an unranked memref the view keeps its rank and shape; back from one, the
     * result type says what rank and shape it must have. */
    if (rt->unranked) {
      ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
      return NULL;
    }
    if (rt->rank != src->rank)
      return ix_err(r, op, st_t->unranked ? AIR_STATUS_FAILED_PRECONDITION
                                          : AIR_STATUS_INVALID_ARGUMENT,
                    "memref.cast: the memref has rank %u, not %u", src->rank, rt->rank);
    for (uint32_t k = 0; k < rt->rank; ++k)
      if (rt->shape[k] != AIR_DIM_DYNAMIC && rt->shape[k] != src->sizes[k])
        return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                      "memref.cast: dimension %u is %lld, not %lld", k,
                      (long long)src->sizes[k], (long long)rt->shape[k]);
    ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
    return NULL;
  }
  if (st_t->layout || !ix_view_contiguous(src))
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                  "%s of a strided or non-contiguous memref (only contiguous identity-layout "
                  "sources are supported)",
                  ix_opname(op));
  bool collapse = op->kind == AIR_OP_COLLAPSE_SHAPE;
  const air_ixlist_t* groups = op->n_lists > 1 ? &op->lists[1] : NULL;
  uint32_t lo_rank = collapse ? rt->rank : src->rank, hi_rank = collapse ? src->rank : rt->rank;
  if (!groups || groups->n != lo_rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: reassociation does not match the types",
                  ix_opname(op));
  m.rank = rt->rank;
  uint32_t k = 0;
  for (uint32_t g = 0; g < groups->n; ++g) {
    int64_t n = groups->items[g].cst, prod = 1;
    if (n < 1 || n > (int64_t)(hi_rank - k))
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: malformed reassociation",
                    ix_opname(op));
    int64_t dyn_at = -1;
    for (int64_t j = 0; j < n; ++j, ++k) {
      int64_t sz;
      if (collapse) {
        sz = src->sizes[k];
      } else if (op->n_lists > 2 && k < op->lists[2].n) {
        if ((st = ix_get_ix(r, e, op, &op->lists[2].items[k], &sz))) return st;
      } else if (rt->shape[k] != AIR_DIM_DYNAMIC) {
        sz = rt->shape[k];
      } else if (dyn_at < 0) {
        /* one `?` per group without output_shape: what the source size leaves */
        dyn_at = k;
        sz = 1;
      } else {
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                      "memref.expand_shape: dynamic sizes need output_shape");
      }
      if (sz < 0 || __builtin_mul_overflow(prod, sz, &prod))
        return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: size %lld is invalid",
                      ix_opname(op), (long long)sz);
      if (!collapse) m.sizes[k] = sz;
    }
    if (collapse) {
      m.sizes[g] = prod;
    } else if (dyn_at >= 0 && prod > 0 && src->sizes[g] % prod == 0) {
      m.sizes[dyn_at] = src->sizes[g] / prod;
    } else if (prod != src->sizes[g]) {
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "memref.expand_shape: group #%u has %lld elements but source dimension %u "
                    "has %lld",
                    g, (long long)prod, g, (long long)src->sizes[g]);
    }
  }
  if (collapse)
    for (uint32_t i = 0; i < rt->rank; ++i)
      if (rt->shape[i] != AIR_DIM_DYNAMIC && rt->shape[i] != m.sizes[i])
        return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                      "memref.collapse_shape: dimension %u is %lld, not %lld", i,
                      (long long)m.sizes[i], (long long)rt->shape[i]);
  int64_t stride = 1;
  for (uint32_t i = m.rank; i-- > 0;) {
    m.strides[i] = stride;
    stride *= m.sizes[i] ? m.sizes[i] : 1;
  }
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

static air_status_t op_copy(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t *s, *d;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &s);
  if (!st) st = ix_get_view(r, e, op, op->operands[1], &d);
  if (st) return st;
  bool same = s->rank == d->rank && s->elem == d->elem;
  for (uint32_t k = 0; same && k < s->rank; ++k) same = s->sizes[k] == d->sizes[k];
  if (!same)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.copy needs source and target of the same shape and element type");
  ix_pat_t sp, dp;
  uint32_t es = air_elem_size((air_elem_kind_t)s->elem);
  const char* why = ix_pat_make(s, es, 0, NULL, 0, NULL, NULL, &sp);
  if (!why) why = ix_pat_make(d, es, 0, NULL, 0, NULL, NULL, &dp);
  if (why) return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "memref.copy: %s", why);
  ix_pat_copy(&dp, &sp);
  return NULL;
}

air_status_t ix_mem_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  switch (op->kind) {
    case AIR_OP_ALLOC: return op_alloc(r, e, op);
    case AIR_OP_DEALLOC: return op_dealloc(r, e, op);
    case AIR_OP_LOAD:
    case AIR_OP_STORE:
    case AIR_OP_AFFINE_LOAD:
    case AIR_OP_AFFINE_STORE: return op_access(r, e, op);
    case AIR_OP_SUBVIEW: return op_subview(r, e, op);
    case AIR_OP_COLLAPSE_SHAPE:
    case AIR_OP_EXPAND_SHAPE:
    case AIR_OP_MEMREF_CAST: return op_reshape(r, e, op);
    case AIR_OP_COPY: return op_copy(r, e, op);
    default: return ix_err(r, op, AIR_STATUS_INTERNAL, "not a memref op");
  }
}

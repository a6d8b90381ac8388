/* env.c - environments (the value slots of one block execution), captured
 * values and typed reads of operands. */
#include "hal/cpu/interp/env.h"

#include <string.h>

#include "runtime/base/mem.h"

/* The header is written field by field; the slots, views and PE state after it
 * are cleared (token slots are dropped by value). */
static ix_env_t* env_init(void* mem, size_t size, const ix_binfo_t* bi, ix_env_t* up, bool pe,
                          uint32_t refs) {
  ix_env_t* e = mem;
  if (size > sizeof *e) memset(e->slots, 0, size - sizeof *e);
  atomic_init(&e->refs, refs);
  e->bi = bi;
  e->depth = bi->depth;
  e->views = (air_memref_t*)((char*)e->slots + bi->n_slots * sizeof(ix_val_t));
  e->pe = pe ? (ix_pe_t*)((char*)e->views + bi->n_views * sizeof(air_memref_t)) : NULL;
  e->up = up;
  if (up) ix_env_ref(up);
  return e;
}

ix_env_t* ix_env_new(ix_run_t* r, const air_block_t* b, ix_env_t* up, bool pe) {
  const ix_binfo_t* bi = air_ptrmap_get(&r->tab.blocks, b);
  if (!bi) return NULL;
  size_t size = ix_env_size(bi, pe);
  void* mem = ix_cache_get(r->cache, &r->alloc, size);
  return mem ? env_init(mem, size, bi, up, pe, 1) : NULL;
}

ix_env_t* ix_env_at(void* mem, const ix_binfo_t* bi) {
  return env_init(mem, ix_env_size(bi, false), bi, NULL, false, 2);
}

void ix_env_ref(ix_env_t* e) { atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed); }

static void drop_tokens(ix_run_t* r, ix_env_t* e) {
  const ix_binfo_t* bi = e->bi;
  for (uint32_t i = 0; i < bi->n_slots; ++i)
    if (bi->kinds[i] == IX_K_TOKEN && e->slots[i].p) {
      ix_tok_unref(r, e->slots[i].p);
      e->slots[i].p = NULL;
    }
}

void ix_env_unref(ix_run_t* r, ix_env_t* e) {
  while (e && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1) {
    ix_env_t* up = e->up;
    drop_tokens(r, e);
    ix_cache_put(r->cache, &r->alloc, e, ix_env_size(e->bi, e->pe != NULL));
    e = up;
  }
}

bool ix_env_release_at(ix_run_t* r, ix_env_t* e) {
  if (atomic_load_explicit(&e->refs, memory_order_acquire) != 1) return false;
  drop_tokens(r, e);
  return true;
}

void ix_env_reset(ix_run_t* r, ix_env_t* e) {
  drop_tokens(r, e);
  memset(e->slots, 0, e->bi->n_slots * sizeof(ix_val_t));
}

bool ix_env_next(ix_run_t* r, ix_env_t** e, const air_block_t* body) {
  if (atomic_load_explicit(&(*e)->refs, memory_order_acquire) == 1) {
    ix_env_reset(r, *e);
    return true;
  }
  ix_env_t* be = ix_env_new(r, body, (*e)->up, false);
  if (!be) return false;
  ix_env_unref(r, *e);
  *e = be;
  return true;
}

void ix_set(ix_run_t* r, ix_env_t* e, air_vid_t v, ix_val_t x) {
  ix_val_t* s = ix_slot(r, e, v);
  if (!s) return;
  const ix_vinfo_t* vi = &r->tab.vinfo[v];
  if (vi->kind == IX_K_TOKEN) {
    if (x.p) ix_tok_ref(x.p);
    if (s->p) ix_tok_unref(r, s->p);
    *s = x;
  } else if (vi->kind == IX_K_MEMREF) {
    /* The slot sits in v's own env: find that env for its view storage. */
    while (e->depth > vi->depth) e = e->up;
    air_memref_t* m = &e->views[vi->view];
    if (x.p && x.p != m) *m = *(const air_memref_t*)x.p;
    s->p = x.p ? m : NULL;
  } else {
    *s = x;
  }
}

air_status_t ix_capture(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_vid_t* vids,
                        uint32_t n, ix_tv_t* out) {
  for (uint32_t i = 0; i < n; ++i) {
    ix_val_t* s = ix_slot(r, e, vids[i]);
    uint8_t kind = vids[i] < r->tab.n_values ? r->tab.vinfo[vids[i]].kind : IX_K_SCALAR;
    if (!s || (kind != IX_K_SCALAR && !s->p)) {
      ix_tv_drop(r, out, i);
      char nb[64];
      return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION, "%s: %s has no value here",
                    ix_opname(op), ix_vname(r, vids[i], nb, sizeof nb));
    }
    out[i].kind = kind;
    out[i].v = *s;
    if (kind == IX_K_TOKEN) ix_tok_ref(s->p);
    if (kind == IX_K_MEMREF) out[i].m = *(const air_memref_t*)s->p;
  }
  return NULL;
}

void ix_bind(ix_run_t* r, ix_env_t* e, const air_vid_t* vids, uint32_t n, ix_tv_t* tv) {
  for (uint32_t i = 0; i < n; ++i) {
    if (tv[i].kind == IX_K_MEMREF) tv[i].v.p = &tv[i].m;
    ix_set(r, e, vids[i], tv[i].v);
    if (tv[i].kind == IX_K_TOKEN) ix_tok_unref(r, tv[i].v.p);
    tv[i].kind = IX_K_SCALAR;
  }
}

air_status_t ix_pass(ix_run_t* r, ix_env_t* se, const air_op_t* op, const air_vid_t* src,
                     ix_env_t* de, const air_vid_t* dst, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    ix_val_t* s = ix_slot(r, se, src[i]);
    uint8_t kind = src[i] < r->tab.n_values ? r->tab.vinfo[src[i]].kind : IX_K_SCALAR;
    if (!s || (kind != IX_K_SCALAR && !s->p)) {
      char nb[64];
      return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION, "%s: %s has no value here",
                    ix_opname(op), ix_vname(r, src[i], nb, sizeof nb));
    }
    /* A memref slot points at its env's view, which ix_set copies into de's. */
    ix_set(r, de, dst[i], *s);
  }
  return NULL;
}

void ix_tv_drop(ix_run_t* r, ix_tv_t* tv, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (tv[i].kind == IX_K_TOKEN && tv[i].v.p) {
      ix_tok_unref(r, tv[i].v.p);
      tv[i].kind = IX_K_SCALAR;
    }
}

/* Small captured-value buffers live on the stack. */
ix_tv_t* ix_tv_get(ix_run_t* r, ix_tv_t* small, uint32_t n) {
  return n <= IX_TV_SMALL ? small : air_mem_calloc(&r->alloc, n, sizeof(ix_tv_t));
}

void ix_tv_put(ix_run_t* r, ix_tv_t* small, ix_tv_t* tv) {
  if (tv != small) air_mem_free(&r->alloc, tv);
}

/*---------------------------------------------------------------------------*/
/* Typed reads                                                               */
/*---------------------------------------------------------------------------*/

static air_status_t missing(ix_run_t* r, const air_op_t* op, air_vid_t v, const char* what) {
  char nb[64];
  return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION, "%s: operand %s has no %s value here",
                ix_opname(op), ix_vname(r, v, nb, sizeof nb), what);
}

air_status_t ix_get_i(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v, int64_t* out) {
  ix_val_t* s = ix_slot(r, e, v);
  if (!s || !r->tab.vinfo[v].is_int) return missing(r, op, v, "integer");
  *out = s->i;
  return NULL;
}

air_status_t ix_get_ix(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_ix_t* x,
                       int64_t* out) {
  if (!x->value) {
    *out = x->cst;
    return NULL;
  }
  return ix_get_i(r, e, op, x->value, out);
}

air_status_t ix_get_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                         air_memref_t** out) {
  ix_val_t* s = ix_slot(r, e, v);
  if (!s || r->tab.vinfo[v].kind != IX_K_MEMREF || !s->p) return missing(r, op, v, "memref");
  *out = s->p;
  return NULL;
}

air_status_t ix_get_tok(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                        ix_tok_t** out) {
  ix_val_t* s = ix_slot(r, e, v);
  if (!s || r->tab.vinfo[v].kind != IX_K_TOKEN || !s->p) return missing(r, op, v, "token");
  *out = s->p;
  return NULL;
}

/* Appends `text` to out[*w] (cap bytes, always terminated; the end is cut). */
static void put_str(char* out, size_t cap, size_t* w, const char* text) {
  while (*text && *w + 1 < cap) out[(*w)++] = *text++;
  out[*w] = 0;
}

/* "herd @sym [i, j]": every PE's name for traces and reports, made at a herd
 * instance's start (or when a compiled unit falls back, ix_pe_name). By hand,
 * not snprintf: a herd of 4 tiles per 128-block made this ~1 % of a 256^3 tiled
 * matmul's run (issue 14). It lives here, beside the PE's allocation, so hier.c
 * and unit.c both reach it downward. */
static void pe_track(char* out, size_t cap, const char* sym, const int64_t* id, uint32_t n) {
  size_t w = 0;
  put_str(out, cap, &w, "herd @");
  put_str(out, cap, &w, sym);
  put_str(out, cap, &w, " [");
  for (uint32_t k = 0; k < n; ++k) {
    char num[24], *p = num + sizeof num;
    *--p = 0;
    uint64_t v = id[k] < 0 ? 0 - (uint64_t)id[k] : (uint64_t)id[k];
    do *--p = (char)('0' + v % 10); while (v /= 10);
    if (id[k] < 0) *--p = '-';
    if (k) put_str(out, cap, &w, ", ");
    put_str(out, cap, &w, p);
  }
  put_str(out, cap, &w, "]");
}

void ix_pe_name_at(ix_pe_t* pe, const air_op_t* herd, const int64_t* id, uint32_t n) {
  pe_track(pe->track, sizeof pe->track, herd->sym ? herd->sym : "?", id, n);
}

void ix_pe_name(ix_pe_t* pe) {
  if (!pe->track[0] && pe->herd) ix_pe_name_at(pe, pe->herd, pe->tile, pe->rank);
}

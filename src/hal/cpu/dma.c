/* dma.c - access patterns (the rule is in dma_internal.h), the copy between two
 * of them, and air.dma_memcpy_nd.
 *
 * The copy walks both patterns in row-major order with an odometer each and
 * moves, at every step, the longest run that is contiguous on both sides: a
 * whole contiguous transfer is one memcpy, a strided one a memcpy per innermost
 * row, and only non-unit innermost strides go element by element. */
#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"

static bool span(uint32_t n, const int64_t* size, const int64_t* stride, int64_t start,
                 int64_t* lo, int64_t* hi) {
  *lo = *hi = start;
  for (uint32_t k = 0; k < n; ++k) {
    int64_t ext;
    if (size[k] <= 0) continue;
    if (__builtin_mul_overflow(size[k] - 1, stride[k], &ext)) return false;
    if (ext < 0 ? __builtin_add_overflow(*lo, ext, lo) : __builtin_add_overflow(*hi, ext, hi))
      return false;
  }
  return true;
}

const char* ix_pat_make(const air_memref_t* v, uint32_t esize, uint32_t n_off,
                        const int64_t* off, uint32_t n, const int64_t* sizes,
                        const int64_t* strides, ix_pat_t* out) {
  memset(out, 0, sizeof *out);
  out->base = v->data;
  out->esize = esize;
  if (v->rank > AIR_MAX_RANK) return "the memref has too many dimensions";
  if (!n) {
    out->n = v->rank;
    out->start = v->offset;
    memcpy(out->size, v->sizes, v->rank * sizeof(int64_t));
    memcpy(out->stride, v->strides, v->rank * sizeof(int64_t));
  } else {
    if (n > IX_MAX_PAT) return "the access pattern has more than 16 dimensions";
    if (n_off > n) return "there are more offsets than sizes";
    out->n = n;
    int64_t start = v->offset;
    for (uint32_t k = 0; k < n; ++k) {
      if (sizes[k] < 0) return "a size is negative";
      out->size[k] = sizes[k];
      out->stride[k] = strides[k];
      int64_t o = k < n - n_off ? 0 : off[k - (n - n_off)];
      /* The list's last entries index the memref's last dimensions. */
      int64_t mdim = (int64_t)k - ((int64_t)n - (int64_t)v->rank);
      int64_t w = mdim >= 0 ? v->strides[mdim] : strides[k];
      int64_t d;
      if (__builtin_mul_overflow(o, w, &d) || __builtin_add_overflow(start, d, &start))
        return "the offsets overflow";
    }
    out->start = start;
  }
  if (!ix_pat_count(out)) return NULL;
  int64_t lo, hi, vlo, vhi;
  if (!span(out->n, out->size, out->stride, out->start, &lo, &hi) ||
      !span(v->rank, v->sizes, v->strides, v->offset, &vlo, &vhi))
    return "the access pattern overflows";
  for (uint32_t k = 0; k < v->rank; ++k)
    if (v->sizes[k] <= 0) return "the memref is empty";
  if (lo < vlo || hi > vhi) return "the access pattern reaches outside the memref";
  if (!v->data) return "the memref has no data";
  return NULL;
}

int64_t ix_pat_count(const ix_pat_t* p) {
  int64_t c = 1;
  for (uint32_t k = 0; k < p->n; ++k)
    if (__builtin_mul_overflow(c, p->size[k], &c)) return 0;
  return c;
}

void ix_pat_canon(ix_pat_t* p) {
  if (!ix_pat_count(p)) return;
  uint32_t m = 0;
  for (uint32_t k = 0; k < p->n; ++k) {
    if (p->size[k] == 1) continue;
    if (m && p->stride[m - 1] == p->stride[k] * p->size[k]) {
      p->size[m - 1] *= p->size[k];
      p->stride[m - 1] = p->stride[k];
      continue;
    }
    p->size[m] = p->size[k];
    p->stride[m] = p->stride[k];
    ++m;
  }
  p->n = m;
}

typedef struct cur_t {
  const ix_pat_t* p;
  int64_t idx[IX_MAX_PAT];
  int64_t off;
} cur_t;

/* Elements left in the current contiguous run (1 for a strided innermost). */
static inline int64_t cur_run(const cur_t* c) {
  uint32_t n = c->p->n;
  if (!n) return 1;
  return c->p->stride[n - 1] == 1 ? c->p->size[n - 1] - c->idx[n - 1] : 1;
}

static inline void cur_adv(cur_t* c, int64_t k) {
  const ix_pat_t* p = c->p;
  if (!p->n) return;
  uint32_t d = p->n - 1;
  c->idx[d] += k;
  c->off += k * p->stride[d];
  while (d > 0 && c->idx[d] == p->size[d]) {
    c->off -= p->size[d] * p->stride[d];
    c->idx[d] = 0;
    --d;
    c->idx[d]++;
    c->off += p->stride[d];
  }
}

static inline void copy_elem(char* d, const char* s, uint32_t esize) {
  switch (esize) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, esize); break;
  }
}

void ix_pat_copy(const ix_pat_t* dst, const ix_pat_t* src) {
  ix_pat_t d = *dst, s = *src;
  ix_pat_canon(&d);
  ix_pat_canon(&s);
  int64_t total = ix_pat_count(&s);
  uint32_t es = s.esize;
  if (total <= 0 || total != ix_pat_count(&d)) return;
  char* db = d.base + d.start * (int64_t)es;
  const char* sb = s.base + s.start * (int64_t)es;
  bool dc = d.n == 0 || (d.n == 1 && d.stride[0] == 1);
  bool sc = s.n == 0 || (s.n == 1 && s.stride[0] == 1);
  if (dc && sc) {
    memmove(db, sb, (size_t)total * es);
    return;
  }
  cur_t cd = {.p = &d}, cs = {.p = &s};
  while (total > 0) {
    int64_t a = cur_run(&cs), b = cur_run(&cd);
    int64_t m = a < b ? a : b;
    if (m > total) m = total;
    if (m > 1)
      memmove(db + cd.off * es, sb + cs.off * es, (size_t)m * es);
    else
      copy_elem(db + cd.off * es, sb + cs.off * es, es);
    cur_adv(&cs, m);
    cur_adv(&cd, m);
    total -= m;
  }
}

void ix_pat_linear(ix_pat_t* p, void* buf, uint32_t esize, int64_t count) {
  memset(p, 0, sizeof *p);
  p->base = buf;
  p->esize = esize;
  p->n = 1;
  p->size[0] = count;
  p->stride[0] = 1;
}

void ix_pat_gather(void* buf, const ix_pat_t* src) {
  ix_pat_t d;
  ix_pat_linear(&d, buf, src->esize, ix_pat_count(src));
  ix_pat_copy(&d, src);
}

void ix_pat_scatter(const ix_pat_t* dst, const void* buf) {
  ix_pat_t s;
  ix_pat_linear(&s, (void*)buf, dst->esize, ix_pat_count(dst));
  ix_pat_copy(dst, &s);
}

air_status_t ix_pat_of(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_memref_t* v,
                       const air_ixlist_t* lists, ix_pat_t* out) {
  int64_t vals[3][IX_MAX_PAT];
  for (int l = 0; l < 3; ++l) {
    if (lists[l].n > IX_MAX_PAT)
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                    "%s: more than %d offsets/sizes/strides are not supported", ix_opname(op),
                    IX_MAX_PAT);
    for (uint32_t i = 0; i < lists[l].n; ++i) {
      air_status_t st = ix_get_ix(r, e, op, &lists[l].items[i], &vals[l][i]);
      if (st) return st;
    }
  }
  if (lists[1].n != lists[2].n)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "%s: %u sizes but %u strides", ix_opname(op), lists[1].n, lists[2].n);
  uint32_t es = air_elem_size((air_elem_kind_t)v->elem);
  const char* why =
      ix_pat_make(v, es, lists[0].n, vals[0], lists[1].n, vals[1], vals[2], out);
  if (why) return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: %s", ix_opname(op), why);
  return NULL;
}

int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  if (op->n_operands != 2 || op->n_lists < 6)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "malformed %s",
                               ix_opname(op)));
  if (air_ir_attr_get(op, "src_rank") || air_ir_attr_get(op, "dst_rank"))
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "%s: src_rank/dst_rank (air.rank) are not supported",
                               ix_opname(op)));
  air_memref_t *dv, *sv;
  ix_pat_t dp, sp;
  air_status_t st = ix_get_view(r, f->env, op, op->operands[0], &dv);
  if (!st) st = ix_get_view(r, f->env, op, op->operands[1], &sv);
  if (!st) st = ix_pat_of(r, f->env, op, dv, op->lists, &dp);
  if (!st) st = ix_pat_of(r, f->env, op, sv, op->lists + 3, &sp);
  if (!st && dv->elem != sv->elem)
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "%s copies %s elements into %s elements; the types must match", ix_opname(op),
                air_elem_name((air_elem_kind_t)sv->elem), air_elem_name((air_elem_kind_t)dv->elem));
  if (!st && ix_pat_count(&dp) != ix_pat_count(&sp))
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "%s moves %lld elements out of the source but %lld into the destination",
                ix_opname(op), (long long)ix_pat_count(&sp), (long long)ix_pat_count(&dp));
  if (st) return ix_failed(s, st);
  int64_t t0 = air_time_now_ns();
  ix_watch_enter(s, op, false);
  ix_pat_copy(&dp, &sp);
  ix_watch_exit(s);
  if (r->trace) {
    char track[128];
    snprintf(track, sizeof track, "dma %s", s->pe ? s->pe->track : "host");
    ix_trace(s, AIR_TRACK_DMA, track, op, t0);
  }
  ix_next(s);
  return IX_CONT;
}

/* pattern.c - access patterns (the rule is in pattern.h) and the copy between
 * two of them.
 *
 * A DMA whose two sides are rows of a matrix (a tile) or one run skips all of
 * this: ix_copy_rows reads the rows straight off the views and lists.
 *
 * The copy brings both patterns to canonical form (unit dimensions dropped,
 * contiguous neighbours merged) and then, in row-major order:
 *   - both contiguous: one memmove;
 *   - otherwise, when the two places do not overlap and both can be seen as rows
 *     of the same length (a contiguous side is reshaped into rows of the other's
 *     innermost length; an innermost dimension a multiple of the other's is
 *     split), a row loop: pointer steps along the dimension outside the row, an
 *     odometer per side over the rest; a row is a memcpy (inlined up to 64
 *     bytes) or a strided element loop specialised by element size;
 *   - else a walk that moves, at every step, the longest run contiguous on both
 *     sides, with memmove.
 * Patterns are large structs (16 dimensions); the hot path never copies or clears
 * one whole, only its used entries: at 4 KiB a transfer is ~50 ns, so a few
 * hundred bytes of struct traffic would show (bench: air-bench dma-copy). */
#include "hal/cpu/interp/pattern.h"

#include <string.h>

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

/* Only the used entries are written, and the view's span is computed once: the
 * whole-view form (n == 0) is its own pattern, so one span serves both checks.
 * At 4 KiB a transfer is ~55 ns, so every few ns here show (bench: dma-copy). */
const char* ix_pat_make(const air_memref_t* v, uint32_t esize, uint32_t n_off,
                        const int64_t* off, uint32_t n, const int64_t* sizes,
                        const int64_t* strides, ix_pat_t* out) {
  uint32_t rank = v->rank;
  out->base = v->data;
  out->start = 0;
  out->esize = esize;
  out->n = 0;
  if (rank > AIR_MAX_RANK) return "the memref has too many dimensions";
  if (!n) {
    out->n = rank;
    out->start = v->offset;
    for (uint32_t k = 0; k < rank; ++k) {
      out->size[k] = v->sizes[k];
      out->stride[k] = v->strides[k];
    }
  } else {
    if (n > IX_MAX_PAT) return "the access pattern has more than 16 dimensions";
    if (n_off > n) return "there are more offsets than sizes";
    out->n = n;
    int64_t start = v->offset;
    uint32_t first_off = n - n_off;
    for (uint32_t k = 0; k < n; ++k) {
      if (sizes[k] < 0) return "a size is negative";
      out->size[k] = sizes[k];
      out->stride[k] = strides[k];
      if (k < first_off) continue; /* offset 0 */
      int64_t o = off[k - first_off];
      /* The list's last entries index the memref's last dimensions. */
      int64_t mdim = (int64_t)k - ((int64_t)n - (int64_t)rank);
      int64_t w = mdim >= 0 ? v->strides[mdim] : strides[k];
      int64_t d;
      if (__builtin_mul_overflow(o, w, &d) || __builtin_add_overflow(start, d, &start))
        return "the offsets overflow";
    }
    out->start = start;
  }
  if (!ix_pat_count(out)) return NULL;
  int64_t lo, hi, vlo, vhi;
  if (!span(rank, v->sizes, v->strides, v->offset, &vlo, &vhi))
    return "the access pattern overflows";
  if (!n) {
    lo = vlo, hi = vhi;
  } else if (!span(out->n, out->size, out->stride, out->start, &lo, &hi)) {
    return "the access pattern overflows";
  }
  for (uint32_t k = 0; k < rank; ++k)
    if (v->sizes[k] <= 0) return "the memref is empty";
  if (lo < vlo || hi > vhi) return "the access pattern reaches outside the memref";
  if (!v->data) return "the memref has no data";
  return NULL;
}

/* Each size-1 dimension is skipped; the others, innermost first, must have
 * stride 1, then the product of the sizes inside them, so the run is [start,
 * start + count). */
ix_flat_t ix_flat_side(const air_memref_t* v, const ix_lists_t* l) {
  ix_flat_t no = {0, 0, IX_FLAT_NO};
  uint32_t rank = v->rank, n = l->n;
  if (rank > AIR_MAX_RANK || !v->data || n > IX_MAX_PAT || l->n_off > n) return no;
  const int64_t *size = n ? l->size : v->sizes, *stride = n ? l->stride : v->strides;
  uint32_t m = n ? n : rank;
  int64_t c = 1, s = v->offset;
  for (uint32_t k = m; k-- > 0;) {
    if (size[k] <= 0) return no; /* empty or negative: the general path decides */
    if (size[k] != 1 && (stride[k] != c || __builtin_mul_overflow(c, size[k], &c))) return no;
  }
  for (uint32_t i = 0; i < l->n_off; ++i) { /* offsets line up with the last entries */
    uint32_t k = n - l->n_off + i;
    int64_t mdim = (int64_t)k - ((int64_t)n - (int64_t)rank);
    int64_t w = mdim >= 0 ? v->strides[mdim] : l->stride[k], d;
    if (__builtin_mul_overflow(l->off[i], w, &d) || __builtin_add_overflow(s, d, &s)) return no;
  }
  int64_t lo, hi, last;
  for (uint32_t k = 0; k < rank; ++k)
    if (v->sizes[k] <= 0) return no;
  if (!span(rank, v->sizes, v->strides, v->offset, &lo, &hi) ||
      __builtin_add_overflow(s, c - 1, &last) || s < lo || last > hi)
    return no;
  return (ix_flat_t){s, c, IX_FLAT_YES};
}

/* As ix_flat_side, with one more dimension allowed outside the contiguous run:
 * the rows' (stride >= the run's length). */
ix_rows_t ix_rows_side(const air_memref_t* v, const ix_lists_t* l) {
  ix_rows_t no = {0, 0, 0, 0, false};
  uint32_t rank = v->rank, n = l->n;
  if (rank > AIR_MAX_RANK || !v->data || n > IX_MAX_PAT || l->n_off > n) return no;
  const int64_t *size = n ? l->size : v->sizes, *stride = n ? l->stride : v->strides;
  uint32_t m = n ? n : rank;
  int64_t c = 1, rows = 1, step = 0, s = v->offset;
  for (uint32_t k = m; k-- > 0;) {
    if (size[k] <= 0) return no; /* empty or negative: the general path decides */
    if (size[k] == 1) continue;
    if (rows == 1 && stride[k] == c) {
      if (__builtin_mul_overflow(c, size[k], &c)) return no;
    } else if (rows == 1 && stride[k] >= c) {
      rows = size[k], step = stride[k];
    } else {
      return no;
    }
  }
  for (uint32_t i = 0; i < l->n_off; ++i) { /* offsets line up with the last entries */
    uint32_t k = n - l->n_off + i;
    int64_t mdim = (int64_t)k - ((int64_t)n - (int64_t)rank);
    int64_t w = mdim >= 0 ? v->strides[mdim] : l->stride[k], d;
    if (__builtin_mul_overflow(l->off[i], w, &d) || __builtin_add_overflow(s, d, &s)) return no;
  }
  int64_t lo, hi, ext, last;
  for (uint32_t k = 0; k < rank; ++k)
    if (v->sizes[k] <= 0) return no;
  if (!span(rank, v->sizes, v->strides, v->offset, &lo, &hi) ||
      __builtin_mul_overflow(rows - 1, step, &ext) || __builtin_add_overflow(s, ext, &last) ||
      __builtin_add_overflow(last, c - 1, &last) || s < lo || last > hi)
    return no;
  return (ix_rows_t){s, rows, c, rows > 1 ? step : c, true};
}

int64_t ix_pat_count(const ix_pat_t* p) {
  int64_t c = 1;
  for (uint32_t k = 0; k < p->n; ++k)
    if (__builtin_mul_overflow(c, p->size[k], &c)) return 0;
  return c;
}

/* The canonical form of p into c (c may be p): reads only p's used entries. */
static void canon_into(ix_pat_t* c, const ix_pat_t* p) {
  c->base = p->base;
  c->start = p->start;
  c->esize = p->esize;
  uint32_t m = 0, n = p->n;
  for (uint32_t k = 0; k < n; ++k) {
    int64_t size = p->size[k], stride = p->stride[k];
    if (size == 1) continue;
    if (m && c->stride[m - 1] == stride * size) {
      c->size[m - 1] *= size;
      c->stride[m - 1] = stride;
      continue;
    }
    c->size[m] = size;
    c->stride[m] = stride;
    ++m;
  }
  c->n = m;
}

void ix_pat_canon(ix_pat_t* p) {
  if (ix_pat_count(p)) canon_into(p, p);
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

/* A run of n bytes between disjoint places. Rows of up to 64 bytes (a 4-d block's
 * rows, narrow tiles) are inlined as fixed-size moves (two overlapping halves):
 * a libc call per short row would cost more than the row. */
static inline void copy_run(char* d, const char* s, size_t n) {
  if (n > 64) {
    memcpy(d, s, n);
  } else if (n >= 32) {
    memcpy(d, s, 32);
    memcpy(d + n - 32, s + n - 32, 32);
  } else if (n >= 16) {
    memcpy(d, s, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    memcpy(d, s, 8);
    memcpy(d + n - 8, s + n - 8, 8);
  } else {
    memcpy(d, s, n);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
enum { ROWS_WIDE_MAX = 1024 };

/* k rows of n bytes (64 < n <= ROWS_WIDE_MAX), rows ds / ss bytes apart, 64
 * bytes per move and the row's last 64 bytes as one move that may overlap the
 * one before (the same bytes again: the places are apart). A libc memcpy per row
 * paid its call and size dispatch on every 128-1024 byte row of a tile (the
 * tiled matmul's L2 -> L1 DMAs: 64 rows of 256 bytes per operand per k step);
 * on 64 such rows held in L2 this loop took 165-405 ns against memcpy's 376-640
 * (docs/performance.md, session 6, cpu-tile2). Rows that overlap each other on
 * the destination are still written in order, so the last row wins as before. */
__attribute__((target("avx512f"))) static void copy_rows_wide(char* d, int64_t ds,
                                                              const char* s, int64_t ss,
                                                              int64_t k, size_t n) {
  for (int64_t i = 0; i < k; ++i, d += ds, s += ss) {
    size_t j = 0;
    for (; j + 256 <= n; j += 256) {
      __m512i a = _mm512_loadu_si512((const void*)(s + j));
      __m512i b = _mm512_loadu_si512((const void*)(s + j + 64));
      __m512i c = _mm512_loadu_si512((const void*)(s + j + 128));
      __m512i e = _mm512_loadu_si512((const void*)(s + j + 192));
      _mm512_storeu_si512((void*)(d + j), a);
      _mm512_storeu_si512((void*)(d + j + 64), b);
      _mm512_storeu_si512((void*)(d + j + 128), c);
      _mm512_storeu_si512((void*)(d + j + 192), e);
    }
    for (; j + 64 <= n; j += 64)
      _mm512_storeu_si512((void*)(d + j), _mm512_loadu_si512((const void*)(s + j)));
    if (j < n)
      _mm512_storeu_si512((void*)(d + n - 64), _mm512_loadu_si512((const void*)(s + n - 64)));
  }
}
#define HAVE_ROWS_AVX512 1

#else
static void copy_rows_wide(char* d, int64_t ds, const char* s, int64_t ss, int64_t k, size_t n) {
  for (int64_t i = 0; i < k; ++i, d += ds, s += ss) memcpy(d, s, n); /* never chosen */
}
#endif

/* Whether rows of n bytes take copy_rows_wide: the CPU has AVX-512 and the rows
 * are longer than copy_run inlines but short enough that memcpy's long-copy path
 * (ERMS) does not win. */
static inline bool rows_wide(size_t n) {
#ifdef HAVE_ROWS_AVX512
  return n > 64 && n <= ROWS_WIDE_MAX && __builtin_cpu_supports("avx512f");
#else
  (void)n;
  return false;
#endif
}

/* n elements with byte strides ds / ss, in order. */
#define STRIDED_LOOP(bytes)                             \
  for (int64_t i = 0; i < n; ++i, d += ds, s += ss) {   \
    char t_[bytes];                                     \
    memcpy(t_, s, bytes);                               \
    memcpy(d, t_, bytes);                               \
  }
static void copy_strided(char* d, int64_t ds, const char* s, int64_t ss, int64_t n,
                         uint32_t es) {
  switch (es) {
    case 1: STRIDED_LOOP(1) break;
    case 2: STRIDED_LOOP(2) break;
    case 4: STRIDED_LOOP(4) break;
    case 8: STRIDED_LOOP(8) break;
    default:
      for (int64_t i = 0; i < n; ++i, d += ds, s += ss) memmove(d, s, es);
      break;
  }
}
#undef STRIDED_LOOP

static inline bool is_linear(const ix_pat_t* p) {
  return p->n == 0 || (p->n == 1 && p->stride[0] == 1);
}

/* Makes the innermost dimension `len` long: a linear pattern becomes [total/len,
 * len] rows; an innermost dimension that is a multiple of len is split. Returns
 * false when that is not possible. */
static bool shape_rows(ix_pat_t* p, int64_t len, int64_t total) {
  if (is_linear(p)) {
    p->n = 2;
    p->size[0] = total / len;
    p->stride[0] = len;
    p->size[1] = len;
    p->stride[1] = 1;
    return true;
  }
  uint32_t n = p->n;
  int64_t in = p->size[n - 1];
  if (in == len) return true;
  if (in % len || n >= IX_MAX_PAT) return false;
  int64_t t = p->stride[n - 1];
  p->size[n - 1] = in / len;
  p->stride[n - 1] = t * len;
  p->size[n] = len;
  p->stride[n] = t;
  p->n = n + 1;
  return true;
}

/* Advances an odometer over dimensions [0, top) (the ones outside the inner loop). */
static inline void next_block(const ix_pat_t* p, int top, int64_t* idx, int64_t* off) {
  for (int k = top - 1; k >= 0; --k) {
    *off += p->stride[k];
    if (++idx[k] < p->size[k]) return;
    *off -= p->size[k] * p->stride[k];
    idx[k] = 0;
  }
}

/* One side of copy_rows: rows run along dimension n-2 (`count` rows `step` bytes
 * apart) inside an odometer over the dimensions before it. */
typedef struct rows_t {
  int64_t idx[IX_MAX_PAT];
  int64_t off;         /* elements, of the current run of rows */
  int64_t pos, count;  /* row within the run, rows per run */
  int64_t step;        /* bytes between rows */
} rows_t;

static inline void rows_init(rows_t* r, const ix_pat_t* p) {
  for (uint32_t k = 0; k + 2 < p->n; ++k) r->idx[k] = 0;
  r->off = r->pos = 0;
  r->count = p->n >= 2 ? p->size[p->n - 2] : 1;
  r->step = p->n >= 2 ? p->stride[p->n - 2] * (int64_t)p->esize : 0;
}

static inline void rows_take(rows_t* r, const ix_pat_t* p, int64_t k) {
  r->pos += k;
  if (r->pos < r->count) return;
  r->pos = 0;
  next_block(p, (int)p->n - 2, r->idx, &r->off);
}

/* Both patterns have the same innermost length; rows in row-major order. The inner
 * loop is pure pointer arithmetic over as many rows as both sides have left in
 * their current run; the odometers move only between runs. */
static void copy_rows(const ix_pat_t* d, const ix_pat_t* s, char* db, const char* sb,
                      int64_t total) {
  uint32_t es = s->esize;
  int64_t len = s->size[s->n - 1];
  int64_t dst_step = d->stride[d->n - 1] * es, src_step = s->stride[s->n - 1] * es;
  bool contiguous = d->stride[d->n - 1] == 1 && s->stride[s->n - 1] == 1;
  size_t bytes = (size_t)len * es;
  bool wide = contiguous && rows_wide(bytes);
  rows_t rd, rs;
  rows_init(&rd, d);
  rows_init(&rs, s);
  for (int64_t left = total / len; left > 0;) {
    int64_t k = rd.count - rd.pos;
    if (rs.count - rs.pos < k) k = rs.count - rs.pos;
    if (left < k) k = left;
    char* dp = db + rd.off * es + rd.pos * rd.step;
    const char* sp = sb + rs.off * es + rs.pos * rs.step;
    if (wide)
      copy_rows_wide(dp, rd.step, sp, rs.step, k, bytes);
    else if (contiguous)
      for (int64_t i = 0; i < k; ++i, dp += rd.step, sp += rs.step) copy_run(dp, sp, bytes);
    else
      for (int64_t i = 0; i < k; ++i, dp += rd.step, sp += rs.step)
        copy_strided(dp, dst_step, sp, src_step, len, es);
    left -= k;
    rows_take(&rd, d, k);
    rows_take(&rs, s, k);
  }
}

/* Elements of a pattern that is one contiguous run as given (at most one
 * dimension, unit stride or length 1), else -1. */
static inline int64_t flat_run(const ix_pat_t* p) {
  if (p->n == 0) return 1;
  if (p->n == 1 && (p->stride[0] == 1 || p->size[0] == 1)) return p->size[0];
  return -1;
}

void ix_pat_copy(const ix_pat_t* dst, const ix_pat_t* src) {
  /* The common DMA, whole buffer to a contiguous range, skips canonical forms. */
  int64_t fd = flat_run(dst), fs = flat_run(src);
  if (fd >= 0 && fs >= 0) {
    if (fs > 0 && fs == fd)
      memmove(dst->base + dst->start * (int64_t)dst->esize,
              src->base + src->start * (int64_t)src->esize, (size_t)fs * src->esize);
    return;
  }
  int64_t total = ix_pat_count(src);
  if (total <= 0 || total != ix_pat_count(dst)) return;
  ix_pat_t d, s;
  canon_into(&d, dst);
  canon_into(&s, src);
  uint32_t es = s.esize;
  char* db = d.base + d.start * (int64_t)es;
  const char* sb = s.base + s.start * (int64_t)es;
  bool dl = is_linear(&d), sl = is_linear(&s);
  if (dl && sl) {
    memmove(db, sb, (size_t)total * es);
    return;
  }
  /* The row loop reorders nothing but moves rows as plain copies, so it needs the
   * two places apart; overlapping ones (a copy within one buffer) take the walk
   * below, which moves every run with memmove. */
  int64_t dlo, dhi, slo, shi;
  span(d.n, d.size, d.stride, d.start, &dlo, &dhi);
  span(s.n, s.size, s.stride, s.start, &slo, &shi);
  uintptr_t db0 = (uintptr_t)d.base, sb0 = (uintptr_t)s.base;
  uintptr_t d0 = db0 + (uintptr_t)(dlo * es), d1 = db0 + (uintptr_t)((dhi + 1) * es);
  uintptr_t s0 = sb0 + (uintptr_t)(slo * es), s1 = sb0 + (uintptr_t)((shi + 1) * es);
  bool apart = d1 <= s0 || s1 <= d0;
  int64_t dlen = dl ? total : d.size[d.n - 1], slen = sl ? total : s.size[s.n - 1];
  int64_t len = dlen < slen ? dlen : slen;
  if (apart && shape_rows(&d, len, total) && shape_rows(&s, len, total)) {
    copy_rows(&d, &s, db, sb, total);
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

bool ix_copy_rows(const air_memref_t* dv, const ix_lists_t* dl, const air_memref_t* sv,
                  const ix_lists_t* sl, uint32_t esize) {
  if (dv->elem != sv->elem) return false;
  ix_rows_t d = ix_rows_side(dv, dl), s = ix_rows_side(sv, sl);
  if (!d.ok || !s.ok) return false;
  int64_t count;
  if (__builtin_mul_overflow(d.rows, d.len, &count) || count != s.rows * s.len) return false;
  if (d.len != s.len) { /* a single run takes the other side's rows */
    ix_rows_t* one = d.rows == 1 ? &d : s.rows == 1 ? &s : NULL;
    const ix_rows_t* other = one == &d ? &s : &d;
    if (!one) return false;
    one->rows = other->rows, one->len = other->len, one->step = other->len;
  }
  char* db = (char*)dv->data + d.start * (int64_t)esize;
  const char* sb = (const char*)sv->data + s.start * (int64_t)esize;
  /* The rows move as plain copies, so the two places must be apart. */
  size_t dspan = (size_t)((d.rows - 1) * d.step + d.len) * esize;
  size_t sspan = (size_t)((s.rows - 1) * s.step + s.len) * esize;
  uintptr_t d0 = (uintptr_t)db, s0 = (uintptr_t)sb;
  if (!(d0 + dspan <= s0 || s0 + sspan <= d0)) return false;
  size_t bytes = (size_t)d.len * esize;
  int64_t dstep = d.step * (int64_t)esize, sstep = s.step * (int64_t)esize;
  if (rows_wide(bytes))
    copy_rows_wide(db, dstep, sb, sstep, d.rows, bytes);
  else
    for (int64_t i = 0; i < d.rows; ++i, db += dstep, sb += sstep) copy_run(db, sb, bytes);
  return true;
}

void ix_pat_linear(ix_pat_t* p, void* buf, uint32_t esize, int64_t count) {
  p->base = buf;
  p->start = 0;
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

int64_t ix_pat_padded_count(const ix_pat_t* p, const int64_t* pb, const int64_t* pa) {
  int64_t c = 1, d;
  for (uint32_t k = 0; k < p->n; ++k)
    if (__builtin_add_overflow(p->size[k], pb[k], &d) || __builtin_add_overflow(d, pa[k], &d) ||
        __builtin_mul_overflow(c, d, &c))
      return -1;
  return c;
}

/* Element by element: padded transfers are rare (mem-tile tiling with halos),
 * and a plain walk keeps the zero fill obviously right. */
void ix_pat_gather_padded(void* buf, const ix_pat_t* src, const int64_t* pb, const int64_t* pa) {
  uint32_t n = src->n, es = src->esize;
  memset(buf, 0, (size_t)ix_pat_padded_count(src, pb, pa) * es);
  if (!ix_pat_count(src)) return;
  int64_t ps[IX_MAX_PAT], idx[IX_MAX_PAT], base = 0;
  for (uint32_t k = n; k-- > 0;) {
    ps[k] = k + 1 < n ? ps[k + 1] * (src->size[k + 1] + pb[k + 1] + pa[k + 1]) : 1;
    base += pb[k] * ps[k];
    idx[k] = 0;
  }
  for (;;) {
    int64_t so = src->start, po = base;
    for (uint32_t k = 0; k < n; ++k) {
      so += idx[k] * src->stride[k];
      po += idx[k] * ps[k];
    }
    memcpy((char*)buf + po * es, src->base + so * es, es);
    uint32_t k = n;
    while (k > 0 && ++idx[k - 1] == src->size[k - 1]) idx[--k] = 0;
    if (k == 0) break;
  }
}

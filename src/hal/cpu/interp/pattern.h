/* pattern.h - access patterns: the elements one side of an air.dma_memcpy_nd or
 * a channel put/get moves (also memref.copy and linalg.copy), and the copy
 * between two of them. No run, no IR values: the third floor of the executor;
 * tests and the dma-copy benchmark check it directly.
 *
 * The rule (mlir-air's), for a view V (data, offset, rank R, strides ms[]) and
 * lists offsets O (n_o entries), sizes S and strides T (N entries each):
 *   - N == 0 (`[] [] []`): the whole view: S = V.sizes, T = V.strides, start =
 *     V.offset (so a strided subview moves exactly its own elements);
 *   - otherwise O is padded on the left with zeros to N entries, and
 *       start = V.offset + sum_k O[k] * w[k],
 *     where w[k] is the memref stride of the dimension O[k] indexes: the lists'
 *     last min(N, R) entries line up with V's last dimensions (w[k] =
 *     ms[R - N + k]); entries before those (an access pattern with more
 *     dimensions than the memref) have no memref dimension and use T[k];
 *   - element (i_0, ..., i_{N-1}) (row-major, i_{N-1} fastest) is at linear
 *     index start + sum_k i_k * T[k] of V's memory: T counts elements of the
 *     underlying linear memory, not of the view's dimensions.
 * Every element touched must lie within the view's own span, else the op fails.
 * Two patterns are copied element by element in that row-major order; element
 * counts and types must match. */
#ifndef AIR_HAL_CPU_INTERP_PATTERN_H_
#define AIR_HAL_CPU_INTERP_PATTERN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "air/kernel.h"

#ifndef IX_MAX_PAT
#define IX_MAX_PAT 16
#endif

typedef struct ix_pat_t {
  char* base;          /* element 0 of the linear memory */
  int64_t start;       /* first element, in elements from base */
  uint32_t esize;      /* bytes per element */
  uint32_t n;
  int64_t size[IX_MAX_PAT];
  int64_t stride[IX_MAX_PAT];
} ix_pat_t;

/* Builds the pattern of `v` through the lists (see the rule above). Returns NULL
 * or a static message describing what is wrong. */
const char* ix_pat_make(const air_memref_t* v, uint32_t esize, uint32_t n_off,
                        const int64_t* off, uint32_t n, const int64_t* sizes,
                        const int64_t* strides, ix_pat_t* out);
/* The lists of one side of a transfer, in elements (see the rule above). */
typedef struct ix_lists_t {
  uint32_t n_off, n;
  const int64_t *off, *size, *stride;
} ix_lists_t;

/* One side of ix_copy_flat: IX_FLAT_YES when it is one nonempty contiguous run
 * [start, start + count) inside its view that ix_pat_make would accept. */
enum { IX_FLAT_NO = 0, IX_FLAT_YES = 1, IX_FLAT_ASK = 2 };
typedef struct ix_flat_t {
  int64_t start, count;
  int kind;
} ix_flat_t;

/* A whole view (`[] [] []`) that is dense row-major, of any rank: IX_FLAT_YES
 * with its run in a few compares (the whole view lies in its own span, so
 * ix_pat_make would accept it); IX_FLAT_ASK for anything else. */
static inline ix_flat_t ix_flat_whole(const air_memref_t* v) {
  ix_flat_t f = {0, 0, IX_FLAT_ASK};
  if (!v->data || v->rank > AIR_MAX_RANK) return f;
  int64_t c = 1, last;
  for (uint32_t k = v->rank; k-- > 0;) {
    if (v->sizes[k] <= 0) return f;
    if (v->sizes[k] != 1 && v->strides[k] != c) return f;
    if (__builtin_mul_overflow(c, v->sizes[k], &c)) return f;
  }
  if (__builtin_add_overflow(v->offset, c - 1, &last)) return f;
  f.start = v->offset;
  f.count = c;
  f.kind = IX_FLAT_YES;
  return f;
}

/* Any rank, any list length (out of line). */
ix_flat_t ix_flat_side(const air_memref_t* v, const ix_lists_t* l);

/* The commonest side, a dense 1-d view moved whole (`[] [] []`) or through
 * `[o] [n] [1]`, in a few compares; IX_FLAT_ASK for any other shape, which
 * ix_flat_side decides. At 4 KiB a transfer is ~50 ns, so the check may cost a
 * few ns only, and results stay in registers (bench: dma-copy). */
static inline ix_flat_t ix_flat_side_1d(const air_memref_t* v, const ix_lists_t* l) {
  ix_flat_t f = {0, 0, IX_FLAT_ASK};
  if (v->rank != 1 || v->strides[0] != 1 || l->n > 1 || l->n_off > l->n) return f;
  int64_t vs = v->sizes[0], off = v->offset, last, n = vs, o = 0;
  bool ok;
  if (l->n) {
    n = l->size[0];
    o = l->n_off ? l->off[0] : 0;
    /* n <= vs and 0 <= o <= vs - n, with vs - n >= 0 so the unsigned compare holds. */
    ok = n > 0 && n <= vs && (uint64_t)o <= (uint64_t)(vs - n) && (l->stride[0] == 1 || n == 1);
  } else {
    ok = vs > 0;
  }
  /* The view's own span must not overflow, as ix_pat_make checks. */
  ok = ok && v->data && !__builtin_add_overflow(off, vs - 1, &last);
  f.start = off + o;
  f.count = n;
  f.kind = ok ? IX_FLAT_YES : IX_FLAT_NO;
  return f;
}

/* The common transfer, both sides one contiguous run in row-major order (a dense
 * box, or a whole dense view), recognised straight from the views and lists
 * with no pattern built: when it is that, of elements of one type, of equal
 * nonzero counts, and passes every check ix_pat_make makes, moves it and returns
 * true. Otherwise moves nothing and returns false: the caller builds both
 * patterns, which also names any error. */
static inline bool ix_copy_flat(const air_memref_t* dv, const ix_lists_t* dl,
                                const air_memref_t* sv, const ix_lists_t* sl, uint32_t esize) {
  ix_flat_t d = ix_flat_side_1d(dv, dl), s = ix_flat_side_1d(sv, sl);
  if (__builtin_expect(d.kind == IX_FLAT_ASK, 0)) d = ix_flat_side(dv, dl);
  if (__builtin_expect(s.kind == IX_FLAT_ASK, 0)) s = ix_flat_side(sv, sl);
  if (d.kind != IX_FLAT_YES || s.kind != IX_FLAT_YES || d.count != s.count ||
      dv->elem != sv->elem)
    return false;
  memmove((char*)dv->data + d.start * (int64_t)esize,
          (const char*)sv->data + s.start * (int64_t)esize, (size_t)d.count * esize);
  return true;
}

/* One side as `rows` runs of `len` consecutive elements, `step` elements apart
 * (step >= len: runs in order, none overlapping), the first at `start`, inside
 * its view as ix_pat_make would accept it; ok false for any other shape. A tile
 * of a row-major matrix (`[o0, o1] [r, n] [ld, 1]`) or a dense buffer moved whole
 * (one run) is one. */
typedef struct ix_rows_t {
  int64_t start, rows, len, step;
  bool ok;
} ix_rows_t;
ix_rows_t ix_rows_side(const air_memref_t* v, const ix_lists_t* l);

/* The tile transfer: both sides rows (ix_rows_side) of the same length, or one
 * side a single run cut into the other's rows, of one element type, equal
 * nonzero counts, the two places apart. Moves it row by row with no pattern
 * built and returns true; otherwise moves nothing and returns false (the caller
 * takes the pattern path, which also names any error). */
bool ix_copy_rows(const air_memref_t* dv, const ix_lists_t* dl, const air_memref_t* sv,
                  const ix_lists_t* sl, uint32_t esize);

/* Number of elements (0 for an empty pattern). */
int64_t ix_pat_count(const ix_pat_t* p);
/* Drops unit dimensions and merges dimensions that are contiguous together. */
void ix_pat_canon(ix_pat_t* p);
/* Copies src's elements into dst's, in order; the counts must be equal. */
void ix_pat_copy(const ix_pat_t* dst, const ix_pat_t* src);
/* Packs src's elements contiguously into buf / unpacks buf into dst. */
void ix_pat_gather(void* buf, const ix_pat_t* src);
void ix_pat_scatter(const ix_pat_t* dst, const void* buf);
/* Padding (mlir-air's pad_before / pad_after on a transfer's source): dimension
 * k of the pattern gains pb[k] zero elements before its data and pa[k] after.
 * The padded count, or -1 when it overflows. */
int64_t ix_pat_padded_count(const ix_pat_t* p, const int64_t* pb, const int64_t* pa);
/* Packs src's elements row-major into buf as the padded box, the padding zero
 * (buf holds ix_pat_padded_count elements). */
void ix_pat_gather_padded(void* buf, const ix_pat_t* src, const int64_t* pb, const int64_t* pa);
/* The contiguous pattern over a buffer of `count` elements. */
void ix_pat_linear(ix_pat_t* p, void* buf, uint32_t esize, int64_t count);

#endif /* AIR_HAL_CPU_INTERP_PATTERN_H_ */

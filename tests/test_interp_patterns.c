/* Access patterns (src/hal/cpu/interp/pattern.h): ix_pat_make, ix_pat_copy and
 * the flat fast path ix_copy_flat checked element by element against the
 * spec's rule on random patterns, views with more or fewer dimensions than the
 * lists, strided views and reshapes; rows of 65-1100 bytes (the wide row copy)
 * against a plain element loop. No program runs here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/ir/ir.h"
#include "hal/cpu/interp/pattern.h"

/* The rule of pattern.h, element by element: the linear index of element
 * `e` (row-major over sizes), or -1 outside the view's span. */
static int64_t naive_index(const air_memref_t* v, uint32_t n_off, const int64_t* off, uint32_t n,
                           const int64_t* sz, const int64_t* st, int64_t e) {
  int64_t idx[IX_MAX_PAT], lin = v->offset;
  for (uint32_t k = n; k-- > 0;) {
    idx[k] = e % sz[k];
    e /= sz[k];
  }
  for (uint32_t k = 0; k < n; ++k) {
    int64_t o = k + n_off >= n ? off[k + n_off - n] : 0;
    int64_t md = (int64_t)k - (int64_t)n + (int64_t)v->rank;
    lin += o * (md >= 0 ? v->strides[md] : st[k]) + idx[k] * st[k];
  }
  int64_t lo = v->offset, hi = v->offset;
  for (uint32_t k = 0; k < v->rank; ++k) hi += (v->sizes[k] - 1) * v->strides[k];
  return lin < lo || lin > hi ? -1 : lin;
}

typedef struct rpat_t {
  uint32_t n_off, n;
  int64_t off[6], size[6], stride[6];
} rpat_t;

static uint32_t urand(uint32_t* seed, uint32_t n) {
  *seed = *seed * 1664525u + 1013904223u;
  return (*seed >> 8) % n;
}

static void random_pat(uint32_t* seed, rpat_t* p, int64_t count) {
  p->n = 1 + urand(seed, 4);
  p->n_off = urand(seed, p->n + 1);
  static const int64_t strides[] = {1, 1, 2, 3, 7, 16, 17, 64, 256, 0};
  int64_t left = count;
  for (uint32_t k = 0; k < p->n; ++k) {
    int64_t s = 1 + urand(seed, 6);
    if (count > 0) {
      /* Split `count` exactly: the last dimension takes what is left. */
      s = k + 1 == p->n ? left : (left % 2 == 0 ? 2 : 1);
      left /= s;
    }
    p->size[k] = s;
    p->stride[k] = strides[urand(seed, 10)];
    p->off[k] = urand(seed, 3) ? urand(seed, 5) : urand(seed, 64);
  }
}

/* ix_pat_make/ix_pat_copy agree with the naive rule on random patterns, views
 * with more or fewer dimensions than the lists, strided views and reshapes. */
static void test_access_patterns(void** state) {
  (void)state;
  enum { M = 4096 };
  static float src[M], dst[M], ref[M];
  for (int i = 0; i < M; ++i) src[i] = (float)i;
  uint32_t seed = 42;
  int copies = 0, rejected = 0, flats = 0, rowed = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    /* A view over the buffer: 1-d, 2-d 64x64, 3-d 16x16x16, or a strided 2-d view. */
    air_memref_t v;
    memset(&v, 0, sizeof v);
    v.elem = AIR_ELEM_F32;
    switch (urand(&seed, 4)) {
      case 0: v.rank = 1; v.sizes[0] = M; v.strides[0] = 1; break;
      case 1: v.rank = 2; v.sizes[0] = v.sizes[1] = 64; v.strides[0] = 64; v.strides[1] = 1; break;
      case 2:
        v.rank = 3;
        v.sizes[0] = v.sizes[1] = v.sizes[2] = 16;
        v.strides[0] = 256; v.strides[1] = 16; v.strides[2] = 1;
        break;
      default:
        v.rank = 2; v.offset = 130; v.sizes[0] = 20; v.sizes[1] = 30;
        v.strides[0] = 128; v.strides[1] = 2;
        break;
    }
    rpat_t a, b;
    random_pat(&seed, &a, -1);
    int64_t count = 1;
    for (uint32_t k = 0; k < a.n; ++k) count *= a.size[k];
    random_pat(&seed, &b, count);
    v.data = src;
    ix_pat_t pa, pb;
    const char* why = ix_pat_make(&v, 4, a.n_off, a.off, a.n, a.size, a.stride, &pa);
    bool inside = true;
    for (int64_t e = 0; e < count; ++e)
      inside = inside && naive_index(&v, a.n_off, a.off, a.n, a.size, a.stride, e) >= 0;
    assert_true(inside == (why == NULL));
    if (!inside) {
      ix_lists_t la = {a.n_off, a.n, a.off, a.size, a.stride}, whole = {0, 0, NULL, NULL, NULL};
      air_memref_t any = v; /* a destination that is one run of the same count */
      any.rank = 1, any.offset = 0, any.sizes[0] = count > 0 ? count : 1, any.strides[0] = 1;
      any.data = dst;
      assert_false(ix_copy_flat(&any, &whole, &v, &la, 4));
      assert_false(ix_copy_rows(&any, &whole, &v, &la, 4));
      ++rejected;
      continue;
    }
    /* Destination: the same view shape over dst, reshaped by `b`. */
    air_memref_t w = v;
    w.data = dst;
    why = ix_pat_make(&w, 4, b.n_off, b.off, b.n, b.size, b.stride, &pb);
    bool dinside = true;
    for (int64_t e = 0; e < count; ++e)
      dinside = dinside && naive_index(&w, b.n_off, b.off, b.n, b.size, b.stride, e) >= 0;
    assert_true(dinside == (why == NULL));
    if (!dinside) continue;
    assert_int_equal(ix_pat_count(&pa), count);
    assert_int_equal(ix_pat_count(&pb), count);
    for (int i = 0; i < M; ++i) dst[i] = ref[i] = -1;
    for (int64_t e = 0; e < count; ++e)
      ref[naive_index(&w, b.n_off, b.off, b.n, b.size, b.stride, e)] =
          src[naive_index(&v, a.n_off, a.off, a.n, a.size, a.stride, e)];
    ix_pat_copy(&pb, &pa);
    assert_memory_equal(dst, ref, sizeof dst);
    ++copies;
    /* The flat fast path moves exactly the transfers whose sides are both one
     * run of consecutive elements, and moves them right. */
    bool runs = count > 0;
    int64_t a0 = naive_index(&v, a.n_off, a.off, a.n, a.size, a.stride, 0);
    int64_t b0 = naive_index(&w, b.n_off, b.off, b.n, b.size, b.stride, 0);
    for (int64_t e = 1; runs && e < count; ++e)
      runs = naive_index(&v, a.n_off, a.off, a.n, a.size, a.stride, e) == a0 + e &&
             naive_index(&w, b.n_off, b.off, b.n, b.size, b.stride, e) == b0 + e;
    for (int i = 0; i < M; ++i) dst[i] = -1;
    ix_lists_t la = {a.n_off, a.n, a.off, a.size, a.stride};
    ix_lists_t lb = {b.n_off, b.n, b.off, b.size, b.stride};
    bool moved = ix_copy_flat(&w, &lb, &v, &la, 4);
    assert_true(moved == runs);
    if (moved) {
      assert_memory_equal(dst, ref, sizeof dst);
      ++flats;
    }
    /* The row fast path (tiles) moves every flat transfer and more, right. */
    for (int i = 0; i < M; ++i) dst[i] = -1;
    bool by_rows = ix_copy_rows(&w, &lb, &v, &la, 4);
    assert_true(by_rows || !runs);
    if (by_rows) {
      assert_memory_equal(dst, ref, sizeof dst);
      ++rowed;
    }
  }
  fprintf(stderr, "  %d copies checked (%d flat, %d by rows), %d patterns rejected\n", copies,
          flats, rowed, rejected);
  assert_true(copies > 500);
  assert_true(flats > 20);
  assert_true(rowed > flats + 20);
  assert_true(rejected > 50);
}

/* Element e's byte offset in a pattern (row-major over its sizes). */
static int64_t pat_at(const ix_pat_t* p, int64_t e) {
  int64_t lin = p->start;
  for (uint32_t k = p->n; k-- > 0;) {
    lin += (e % p->size[k]) * p->stride[k];
    e /= p->size[k];
  }
  return lin * (int64_t)p->esize;
}

static ix_pat_t pat3(void* base, uint32_t es, int64_t start, int64_t n0, int64_t s0, int64_t n1,
                     int64_t s1, int64_t n2, int64_t s2) {
  ix_pat_t p;
  memset(&p, 0, sizeof p);
  p.base = base, p.start = start, p.esize = es, p.n = 3;
  p.size[0] = n0, p.stride[0] = s0, p.size[1] = n1, p.stride[1] = s1, p.size[2] = n2,
  p.stride[2] = s2;
  return p;
}

/* Rows of 65-1100 bytes (copied 64 bytes at a time with an overlapping last move
 * on CPUs with AVX-512, by memcpy elsewhere: pattern.c copy_rows_wide) land as
 * the element-by-element rule says, for 1-, 2-, 4- and 8-byte elements (i8,
 * bf16, f32, f64), rows that are not a multiple of 64 bytes, strided rows on
 * either side, a 3-d box, destination rows that overlap (the last row wins) and a
 * transposed source; nothing outside the destination's elements is written. */
static void test_wide_rows(void** state) {
  (void)state;
  enum { CAP = 1 << 16 };
  static unsigned char src[CAP], dst[CAP], ref[CAP];
  uint32_t seed = 7;
  for (int i = 0; i < CAP; ++i) src[i] = (unsigned char)urand(&seed, 256);
  static const uint32_t sizes[] = {1, 2, 4, 8};
  static const int64_t row_bytes[] = {65, 96, 127, 128, 200, 256, 257, 320, 511, 512, 1000, 1024,
                                      1100};
  int checked = 0;
  for (int e = 0; e < 4; ++e)
    for (int r = 0; r < (int)(sizeof row_bytes / sizeof row_bytes[0]); ++r)
      for (int shape = 0; shape < 6; ++shape) {
        uint32_t es = sizes[e];
        int64_t len = (row_bytes[r] + es - 1) / es, rows = 1 + (shape + r) % 5;
        ix_pat_t d, s;
        switch (shape) {
          case 0: /* strided source rows into a dense destination */
            s = pat3(src, es, 3, 1, 0, rows, len + 5, len, 1);
            d = pat3(dst, es, 1, 1, 0, rows, len, len, 1);
            break;
          case 1: /* dense source into strided destination rows */
            s = pat3(src, es, 0, 1, 0, rows, len, len, 1);
            d = pat3(dst, es, 2, 1, 0, rows, len + 3, len, 1);
            break;
          case 2: /* a 3-d box on both sides, different pitches */
            s = pat3(src, es, 1, 2, rows * (len + 9) + 4, rows, len + 9, len, 1);
            d = pat3(dst, es, 5, 2, rows * (len + 1) + 7, rows, len + 1, len, 1);
            break;
          case 3: /* destination rows overlapping each other: the last row wins */
            s = pat3(src, es, 0, 1, 0, rows, len + 2, len, 1);
            d = pat3(dst, es, 0, 1, 0, rows, len / 2 + 1, len, 1);
            break;
          case 4: /* one dense run into strided rows (reshaped into rows of len) */
            s = pat3(src, es, 11, 1, 0, 1, 0, rows * len, 1);
            d = pat3(dst, es, 13, 1, 0, rows, len + 7, len, 1);
            break;
          default: /* a transposed source: its innermost dimension is strided */
            s = pat3(src, es, 0, 1, 0, rows, 1, len, rows + 1);
            d = pat3(dst, es, 0, 1, 0, rows, len + 1, len, 1);
            break;
        }
        int64_t count = ix_pat_count(&s);
        assert_int_equal(count, ix_pat_count(&d));
        assert_true(pat_at(&s, count - 1) + es <= CAP && pat_at(&d, count - 1) + es <= CAP);
        memset(dst, 0xa5, CAP);
        memset(ref, 0xa5, CAP);
        for (int64_t i = 0; i < count; ++i) memcpy(ref + pat_at(&d, i), src + pat_at(&s, i), es);
        ix_pat_copy(&d, &s);
        if (memcmp(dst, ref, CAP))
          fail_msg("es %u, row %lld bytes, shape %d, %lld rows: copy differs", es,
                   (long long)row_bytes[r], shape, (long long)rows);
        ++checked;
      }
  assert_int_equal(checked, 4 * 13 * 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_access_patterns),
      cmocka_unit_test(test_wide_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

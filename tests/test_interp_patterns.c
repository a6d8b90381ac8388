/* Access patterns (src/hal/cpu/interp/pattern.h): ix_pat_make, ix_pat_copy and
 * the flat fast path ix_copy_flat checked element by element against the
 * spec's rule on random patterns, views with more or fewer dimensions than the
 * lists, strided views and reshapes. No program runs here. */
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
  int copies = 0, rejected = 0, flats = 0;
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
  }
  fprintf(stderr, "  %d copies checked (%d flat), %d patterns rejected\n", copies, flats,
          rejected);
  assert_true(copies > 500);
  assert_true(flats > 20);
  assert_true(rejected > 50);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_access_patterns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* pack_inst.h - random packing instances shared by test_pack_sweep.c and
 * test_pack_window.c: n buffers over a number of time slots, a splitmix64
 * stream, the span type, and the plain reference placer both check against.
 * Include after <cmocka.h> (make() asserts its allocations). */
#ifndef AIR_TESTS_PACK_INST_H_
#define AIR_TESTS_PACK_INST_H_

#include <stdint.h>
#include <stdlib.h>

typedef struct inst_t {
  uint32_t n, slots;
  uint32_t *lo, *hi;
  uint64_t* sz;
} inst_t;

static inline uint64_t next(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* n buffers over `slots` slots; lifetimes up to max_len; sizes in 64 B units. */
static inline inst_t make(uint32_t n, uint32_t slots, uint32_t max_len, uint64_t seed) {
  inst_t in = {n, slots, calloc(n, 4), calloc(n, 4), calloc(n, 8)};
  assert_non_null(in.lo);
  assert_non_null(in.hi);
  assert_non_null(in.sz);
  uint64_t s = seed;
  for (uint32_t i = 0; i < n; ++i) {
    in.lo[i] = (uint32_t)(next(&s) % (slots - 1));
    uint32_t len = 1 + (uint32_t)(next(&s) % max_len);
    in.hi[i] = in.lo[i] + len > slots ? slots : in.lo[i] + len;
    /* Few distinct sizes: many equal gaps, so ties are exercised. */
    in.sz[i] = 64 * (1 + next(&s) % 6) * (next(&s) % 4 == 0 ? 16 : 1);
  }
  return in;
}

static inline void drop(inst_t* in) {
  free(in->lo);
  free(in->hi);
  free(in->sz);
}

typedef struct span_t {
  uint64_t off, end;
} span_t;

static inline int by_off(const void* a, const void* b) {
  const span_t *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Places order[0..count) one by one against every placed buffer of the list
 * whose lifetime overlaps: order[0..ff_until) by first-fit, the rest by
 * first-fit or best-fit (smallest gap, lowest on ties), else on top; returns the
 * arena. The plain reference the placers are checked against. */
static inline uint64_t inst_reference(const inst_t* in, const uint32_t* order, uint32_t count,
                                      uint32_t ff_until, int first_fit_rest, uint64_t* off) {
  span_t* sp = calloc(in->n + 1, sizeof *sp);
  char* placed = calloc(in->n, 1);
  uint64_t arena = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t b = order[k];
    int first_fit = k < ff_until || first_fit_rest;
    uint32_t m = 0;
    for (uint32_t j = 0; j < in->n; ++j)
      if (placed[j] && in->lo[j] < in->hi[b] && in->lo[b] < in->hi[j])
        sp[m++] = (span_t){off[j], off[j] + in->sz[j]};
    qsort(sp, m, sizeof *sp, by_off);
    uint64_t cur = 0, best = UINT64_MAX, best_gap = UINT64_MAX, s = in->sz[b];
    for (uint32_t i = 0; i < m; ++i) {
      if (sp[i].off >= cur && sp[i].off - cur >= s) {
        uint64_t gap = sp[i].off - cur;
        if (first_fit) {
          best = cur;
          break;
        }
        if (gap < best_gap) {
          best_gap = gap;
          best = cur;
        }
      }
      if (sp[i].end > cur) cur = sp[i].end;
    }
    off[b] = best != UINT64_MAX ? best : cur;
    placed[b] = 1;
    if (off[b] + s > arena) arena = off[b] + s;
  }
  free(sp);
  free(placed);
  return arena;
}

#endif

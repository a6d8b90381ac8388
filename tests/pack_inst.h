/* pack_inst.h - random packing instances shared by test_pack_sweep.c and
 * test_pack_window.c: n buffers over a number of time slots, a splitmix64
 * stream, and the span type their plain reference placers sort. Include after
 * <cmocka.h> (make() asserts its allocations). */
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

#endif

/* pack_internal.h - the packer's working form of an instance and the pieces the
 * planner (pack.c), the placement rules (pack_place.c) and the skyline search
 * (pack_search.c) share. Not for use outside src/scheduler/pack*.c. */
#ifndef AIR_SCHEDULER_PACK_INTERNAL_H_
#define AIR_SCHEDULER_PACK_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"

#define PK_UNSET UINT64_MAX

/* Only buffers that are live and non-empty take part ("active"); their times are
 * compressed to slot ranks, which keeps every overlap test exact and makes
 * per-slot arrays small. */
typedef struct pk_problem_t {
  const air_allocator_t* allocator;
  uint32_t n;     /* active buffers */
  uint32_t slots; /* distinct time points minus one */
  uint32_t* lo;   /* [n] first slot */
  uint32_t* hi;   /* [n] one past the last slot */
  uint64_t* sz;   /* [n] aligned size */
  uint64_t* raw;  /* [n] size as given, for the baselines' sort keys */
  uint64_t* len;  /* [n] upper - lower in the caller's time units */
  uint32_t* orig; /* [n] index in the caller's array */
  uint64_t lower_bound;
  uint64_t total;      /* sum of aligned sizes: no offset reaches it */
  uint32_t unit_shift; /* log2 of the alignment; every size is a multiple */
  uint32_t peak_slot;  /* a slot where the live bytes reach lower_bound */
  /* Ids are in start-time order. Neighbours (overlapping lifetimes) of b are
   * adj[adj_start[b] .. adj_start[b+1]) (those starting no later, ids < b)
   * and the ids b+1 .. later_end[b]-1. Present when small enough to hold;
   * without them placement scans every placed buffer. */
  uint32_t* adj_start; /* [n + 1] or NULL */
  uint32_t* adj;
  uint32_t* later_end; /* [n] */
  uint64_t pairs;      /* overlapping pairs (ties at equal starts counted twice) */
} pk_problem_t;

typedef enum pk_rule_e {
  PK_BEST_FIT,  /* smallest gap that fits, else on top (IREE, TFLite, XLA) */
  PK_FIRST_FIT, /* lowest gap that fits, else on top */
} pk_rule_t;

/* Scratch for the placement rules, reused across calls. */
typedef struct pk_place_t pk_place_t;

pk_place_t* pk_place_create(const pk_problem_t* p);
void pk_place_destroy(pk_place_t* pl);

/* Places the buffers in `order` (a permutation of 0..n-1) one by one under `rule`.
 * Writes off[i] per buffer and returns the arena size, or PK_UNSET when `cap`
 * (PK_UNSET for none) would be exceeded; off[] is then partial. */
uint64_t pk_place_order(pk_place_t* pl, const uint32_t* order, pk_rule_t rule, uint64_t cap,
                        uint64_t* off);

/* Work done so far, in neighbour visits (the search budget's unit). */
uint64_t pk_place_work(const pk_place_t* pl);

/* Improvement search over skyline placements for small instances: tries to find
 * a plan below `*arena` (offsets in `off`) spending about `budget` work units.
 * Returns nonzero when it improved `off` / `*arena`; 0 also on allocation
 * failure, since the caller already holds a valid plan. */
int pk_search(const pk_problem_t* p, uint64_t budget, uint64_t seed, uint64_t* off,
              uint64_t* arena);

/* Deterministic generator (splitmix64). */
static inline uint64_t pk_rand(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif /* AIR_SCHEDULER_PACK_INTERNAL_H_ */

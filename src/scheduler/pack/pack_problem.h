/* pack_problem.h - the packer's working form of an instance, which the planner
 * (pack_plan.c), the placement rules (pack_place.c) and the skyline search
 * (pack_search.c) share; built by pack_problem.c. Not for use outside
 * src/scheduler/pack/. */
#ifndef AIR_SCHEDULER_PACK_PACK_PROBLEM_H_
#define AIR_SCHEDULER_PACK_PACK_PROBLEM_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "scheduler/pack/pack.h"

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
   * and the ids b+1 .. later_end[b]-1. Built only for sparse instances (the
   * planner's neighbour passes); dense ones place by sweeps (pack_sweep.h). */
  uint32_t* adj_start; /* [n + 1] or NULL */
  uint32_t* adj;
  uint32_t* later_end; /* [n] */
  uint64_t pairs;      /* overlapping pairs (ties at equal starts counted twice) */
} pk_problem_t;

/* The working form with the scratch its builders share. */
typedef struct {
  pk_problem_t p;
  uint64_t* key;         /* [n] scratch for sort keys */
  uint32_t* tmp;         /* [4n] scratch for radix sort and counting */
  uint32_t* input_order; /* [n] ids in the caller's order: orders break ties by it */
} pk_prep_t;

/* Checks that the alignment is a power of two (INVALID_ARGUMENT otherwise). */
air_status_t pk_check_alignment(const air_allocator_t* a, uint64_t alignment);
/* Buffer i's size rounded up to the alignment (OUT_OF_RANGE when it overflows). */
air_status_t pk_aligned_size(const air_allocator_t* a, uint64_t size, uint64_t alignment,
                             size_t i, uint64_t* out);
/* Builds the active-buffer problem: aligned sizes, time ranks, lower bound. */
air_status_t pk_prepare(const air_allocator_t* a, const air_pack_buffer_t* buffers, size_t count,
                        uint64_t alignment, pk_prep_t* s);
/* Neighbour lists (adj_start, adj, later_end). */
air_status_t pk_build_adjacency(pk_prep_t* s);
void pk_prep_free(pk_prep_t* s);

/* Sorts idx[0..n) ascending by key[idx[i]], stably; tmp has room for n. */
void pk_radix_sort(uint32_t* idx, uint32_t n, const uint64_t* key, uint32_t* tmp);

/* Deterministic generator (splitmix64). */
static inline uint64_t pk_rand(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif /* AIR_SCHEDULER_PACK_PACK_PROBLEM_H_ */

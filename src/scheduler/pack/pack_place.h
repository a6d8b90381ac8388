/* pack_place.h - the greedy placement rules (pack_place.c): buffers in a given
 * order, each in the smallest (best-fit) or lowest (first-fit) gap. */
#ifndef AIR_SCHEDULER_PACK_PACK_PLACE_H_
#define AIR_SCHEDULER_PACK_PACK_PLACE_H_

#include <stdint.h>

#include "scheduler/pack/pack_problem.h"

typedef enum pk_rule_e {
  PK_BEST_FIT,  /* smallest gap that fits, else on top (IREE, TFLite, XLA) */
  PK_FIRST_FIT, /* lowest gap that fits, else on top */
} pk_rule_t;

/* Scratch for the placement rules, reused across calls. */
typedef struct pk_place_t pk_place_t;

/* Needs the problem's neighbour lists (pk_build_adjacency); NULL without them or
 * when out of memory. */
pk_place_t* pk_place_create(const pk_problem_t* p);
void pk_place_destroy(pk_place_t* pl);

/* Places the buffers in `order` (a permutation of 0..n-1) one by one under `rule`.
 * Writes off[i] per buffer and returns the arena size, or PK_UNSET when `cap`
 * (PK_UNSET for none) would be exceeded; off[] is then partial. */
uint64_t pk_place_order(pk_place_t* pl, const uint32_t* order, pk_rule_t rule, uint64_t cap,
                        uint64_t* off);

/* Work done so far, in neighbour visits (the search budget's unit). */
uint64_t pk_place_work(const pk_place_t* pl);

#endif /* AIR_SCHEDULER_PACK_PACK_PLACE_H_ */

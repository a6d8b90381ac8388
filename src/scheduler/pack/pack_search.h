/* pack_search.h - the improvement search over skyline placements (pack_search.c)
 * for small instances. */
#ifndef AIR_SCHEDULER_PACK_PACK_SEARCH_H_
#define AIR_SCHEDULER_PACK_PACK_SEARCH_H_

#include <stdint.h>

#include "scheduler/pack/pack_problem.h"

/* Improvement search over skyline placements for small instances: tries to find
 * a plan below `*arena` (offsets in `off`) spending about `budget` work units.
 * Returns nonzero when it improved `off` / `*arena`; 0 also on allocation
 * failure, since the caller already holds a valid plan. */
int pk_search(const pk_problem_t* p, uint64_t budget, uint64_t seed, uint64_t* off,
              uint64_t* arena);

#endif /* AIR_SCHEDULER_PACK_PACK_SEARCH_H_ */

/* alloc.h - a test allocator that counts live blocks and fails every allocation
 * once a budget is spent, for out-of-memory and leak tests. Thread-safe. */
#ifndef AIR_TESTS_SUPPORT_ALLOC_H_
#define AIR_TESTS_SUPPORT_ALLOC_H_

#include <stdatomic.h>

#include "air/allocator.h"

typedef struct test_budget_t {
  _Atomic long live;    /* blocks allocated and not yet freed */
  _Atomic long budget;  /* allocations (and reallocations) left; < 0: unlimited */
  air_allocator_t allocator; /* allocates through this budget */
} test_budget_t;

/* Starts with no live blocks and `budget` allocations (< 0: unlimited). */
void test_budget_init(test_budget_t* b, long budget);
void test_budget_set(test_budget_t* b, long budget);
long test_budget_live(test_budget_t* b);

#endif /* AIR_TESTS_SUPPORT_ALLOC_H_ */

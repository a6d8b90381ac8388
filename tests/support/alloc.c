/* alloc.c - the counting, budgeted test allocator (malloc underneath). */
#include "support/alloc.h"

#include <stdbool.h>
#include <stdlib.h>

static bool take(test_budget_t* b) {
  long left = atomic_load(&b->budget);
  while (left >= 0) {
    if (left == 0) return false;
    if (atomic_compare_exchange_weak(&b->budget, &left, left - 1)) return true;
  }
  return true;
}

static void* b_alloc(void* self, size_t n) {
  test_budget_t* b = self;
  if (!take(b)) return NULL;
  void* p = malloc(n ? n : 1);
  if (p) atomic_fetch_add(&b->live, 1);
  return p;
}

static void* b_realloc(void* self, void* ptr, size_t n) {
  test_budget_t* b = self;
  if (!take(b)) return NULL;
  void* p = realloc(ptr, n ? n : 1);
  if (p && !ptr) atomic_fetch_add(&b->live, 1);
  return p;
}

static void b_free(void* self, void* ptr) {
  test_budget_t* b = self;
  if (ptr) atomic_fetch_sub(&b->live, 1);
  free(ptr);
}

void test_budget_init(test_budget_t* b, long budget) {
  atomic_init(&b->live, 0);
  atomic_init(&b->budget, budget);
  b->allocator = (air_allocator_t){b, b_alloc, b_realloc, b_free};
}

void test_budget_set(test_budget_t* b, long budget) { atomic_store(&b->budget, budget); }

long test_budget_live(test_budget_t* b) { return atomic_load(&b->live); }

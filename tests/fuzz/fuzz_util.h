/* fuzz_util.h - what a fuzz target needs besides its input: a promise check that
 * traps (so libFuzzer saves the input) and an allocator that counts live blocks
 * (so a leak shows even without LeakSanitizer). Header-only: each target is one
 * translation unit in the libFuzzer build. */
#ifndef AIR_TESTS_FUZZ_UTIL_H_
#define AIR_TESTS_FUZZ_UTIL_H_

#include <stdio.h>
#include <stdlib.h>

#include "air/allocator.h"

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
      __builtin_trap();                                                             \
    }                                                                               \
  } while (0)

typedef struct fuzz_counter_t {
  size_t live;
} fuzz_counter_t;

static inline void* fuzz_counting_alloc(void* self, size_t size) {
  void* p = malloc(size ? size : 1);
  if (p) ((fuzz_counter_t*)self)->live++;
  return p;
}

static inline void* fuzz_counting_realloc(void* self, void* ptr, size_t size) {
  void* p = realloc(ptr, size ? size : 1);
  if (p && !ptr) ((fuzz_counter_t*)self)->live++;
  return p;
}

static inline void fuzz_counting_free(void* self, void* ptr) {
  if (!ptr) return;
  ((fuzz_counter_t*)self)->live--;
  free(ptr);
}

static inline air_allocator_t fuzz_counting_allocator(fuzz_counter_t* counter) {
  air_allocator_t a = {counter, fuzz_counting_alloc, fuzz_counting_realloc, fuzz_counting_free};
  return a;
}

#endif /* AIR_TESTS_FUZZ_UTIL_H_ */

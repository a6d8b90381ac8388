/* allocator.c - the C library heap as an air_allocator_t. */
#include <stdlib.h>

#include "air/allocator.h"

static void* system_alloc(void* self, size_t size) {
  (void)self;
  return malloc(size ? size : 1);
}

static void* system_realloc(void* self, void* ptr, size_t size) {
  (void)self;
  return realloc(ptr, size ? size : 1);
}

static void system_free(void* self, void* ptr) {
  (void)self;
  free(ptr);
}

void air_allocator_init_system(air_allocator_t* out) {
  out->self = NULL;
  out->alloc = system_alloc;
  out->realloc = system_realloc;
  out->free = system_free;
}

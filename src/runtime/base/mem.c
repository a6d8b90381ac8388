/* mem.c - checked allocation, array growth and the out-of-memory status. */
#include "runtime/base/mem.h"

#include <string.h>

#include "runtime/base/status_util.h"

const air_allocator_t* air_mem_or_system(const air_allocator_t* allocator,
                                         air_allocator_t* scratch) {
  if (allocator) return allocator;
  air_allocator_init_system(scratch);
  return scratch;
}

air_allocator_t air_mem_or_system_copy(const air_allocator_t* allocator) {
  air_allocator_t a;
  if (allocator)
    a = *allocator;
  else
    air_allocator_init_system(&a);
  return a;
}

void* air_mem_alloc(const air_allocator_t* a, size_t size) {
  return a->alloc(a->self, size ? size : 1);
}

void* air_mem_calloc(const air_allocator_t* a, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) return NULL;
  size_t bytes = n * size;
  void* p = air_mem_alloc(a, bytes);
  if (p) memset(p, 0, bytes ? bytes : 1);
  return p;
}

void air_mem_free(const air_allocator_t* a, void* p) {
  if (p) a->free(a->self, p);
}

bool air_mem_grow_z(const air_allocator_t* a, void** data, size_t* cap, size_t need,
                    size_t elem) {
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 16;
  while (c < need) {
    if (c > SIZE_MAX / 2) return false;
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem) return false;
  void* d = a->realloc(a->self, *data, c * elem);
  if (!d) return false;
  *data = d;
  *cap = c;
  return true;
}

bool air_mem_grow(const air_allocator_t* a, void** data, uint32_t* cap, size_t need,
                  size_t elem) {
  if (need > UINT32_MAX) return false;
  size_t c = *cap;
  if (!air_mem_grow_z(a, data, &c, need, elem)) return false;
  /* Doubling from 16 past 2^31 would leave uint32_t: clamp to the need. */
  *cap = c > UINT32_MAX ? (uint32_t)need : (uint32_t)c;
  return true;
}

air_status_t air_status_oom_at(const air_allocator_t* a, const char* what,
                               const char* src_file, uint32_t src_line) {
  return air_status_fmt(a, AIR_STATUS_RESOURCE_EXHAUSTED, src_file, src_line,
                        "out of memory (%s)", what ? what : "allocation");
}

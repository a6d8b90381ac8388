/* mem.h - the tree's one set of allocation helpers over an air_allocator_t:
 * overflow-checked zeroed allocation, geometric array growth, and the
 * out-of-memory status. Every layer uses these instead of a local copy.
 */
#ifndef AIR_RUNTIME_BASE_MEM_H_
#define AIR_RUNTIME_BASE_MEM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

/* Every public entry point takes a NULL allocator as "the system heap". These
 * two give the allocator to use: `air_mem_or_system` returns `allocator` itself
 * or, when it is NULL, `scratch` set to the system allocator (so the caller's
 * pointer stays valid while `scratch` lives); `air_mem_or_system_copy` returns
 * a copy, for objects that keep their allocator by value. */
const air_allocator_t* air_mem_or_system(const air_allocator_t* allocator,
                                         air_allocator_t* scratch);
air_allocator_t air_mem_or_system_copy(const air_allocator_t* allocator);

/* allocator->alloc(size), with size 0 taken as 1 so a non-NULL result always means
 * success. */
void* air_mem_alloc(const air_allocator_t* allocator, size_t size);

/* n * size zeroed bytes, or NULL when the product overflows or memory runs out. */
void* air_mem_calloc(const air_allocator_t* allocator, size_t n, size_t size);

/* allocator->free(p); p may be NULL. */
void air_mem_free(const air_allocator_t* allocator, void* p);

/* Grows the array *data of *cap elements of `elem` bytes so it holds at least
 * `need` elements: the capacity doubles from 16 (new elements are not zeroed).
 * Returns false, leaving *data and *cap unchanged, on overflow or out of memory. */
bool air_mem_grow(const air_allocator_t* allocator, void** data, uint32_t* cap,
                  size_t need, size_t elem);

/* As air_mem_grow, with a size_t capacity. */
bool air_mem_grow_z(const air_allocator_t* allocator, void** data, size_t* cap,
                    size_t need, size_t elem);

/* AIR_STATUS_RESOURCE_EXHAUSTED naming what could not be allocated ("out of memory
 * (what)"), made at the calling line. */
#define AIR_STATUS_OOM(allocator, what) \
  air_status_oom_at((allocator), (what), __FILE__, __LINE__)
air_status_t air_status_oom_at(const air_allocator_t* allocator, const char* what,
                               const char* src_file, uint32_t src_line);

#endif /* AIR_RUNTIME_BASE_MEM_H_ */

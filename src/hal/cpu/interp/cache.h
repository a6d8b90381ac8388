/* cache.h - the run's block cache: the memory a run takes and gives back
 * thousands of times (strands and their frame stacks, tokens, environments,
 * channel ring buffers, memref.alloc's buffers) comes from per-size free lists
 * kept with the run object, so a run in steady state calls no allocator, and the
 * next run of the same prep (runs are recycled per prep, tables.c) starts with
 * warm, already-touched blocks instead of fresh pages.
 *
 * Size classes: 32-byte steps up to 2 KiB, then powers of two up to 16 MiB;
 * larger requests go to the run's allocator. A small class keeps at most 16 MiB
 * of blocks, a large one at most 4096 blocks and 64 MiB; what is freed beyond
 * that goes back to the allocator. Each
 * pool worker has a front of its own before the classes (a short LIFO per
 * class, no lock); the classes behind it, each under a spinlock of its own,
 * trade whole lists of blocks with the fronts (cache.c). A run on the stack
 * (the inline path) uses its prep's cache, shared by the inline runs of that
 * prep (tables.h; never bound to a pool, so every thread goes to the classes),
 * or with no prep the allocator directly, as every run does under
 * AddressSanitizer (a use after free stays visible). The floor under the run
 * object: it knows allocators, and the pool only to ask which worker is calling. */
#ifndef AIR_HAL_CPU_INTERP_CACHE_H_
#define AIR_HAL_CPU_INTERP_CACHE_H_

#include <stdbool.h>
#include <stddef.h>

#include "air/allocator.h"

typedef struct ix_cache_t ix_cache_t;
struct air_pool_t;

/* A cache over allocator `a` (NULL when out of memory). */
ix_cache_t* ix_cache_new(const air_allocator_t* a);
/* Gives the workers of `pool` a front each (the first call only; later calls,
 * also with another pool, change nothing: threads that are not the first
 * pool's workers use the classes). Call before the pool's workers use `c`, as
 * a run does when it starts; NULL c or out of memory: no fronts. */
void ix_cache_bind(ix_cache_t* c, const air_allocator_t* a, const struct air_pool_t* pool);
/* Frees every cached block, the fronts' included, then the cache. */
void ix_cache_free(ix_cache_t* c, const air_allocator_t* a);

/* `size` bytes from `c` (NULL: straight from `a`), aligned as the allocator
 * aligns, or NULL; ix_cache_put takes it back with the same size and allocator. */
void* ix_cache_get(ix_cache_t* c, const air_allocator_t* a, size_t size);
void* ix_cache_get_zero(ix_cache_t* c, const air_allocator_t* a, size_t size);
void ix_cache_put(ix_cache_t* c, const air_allocator_t* a, void* p, size_t size);

#endif /* AIR_HAL_CPU_INTERP_CACHE_H_ */

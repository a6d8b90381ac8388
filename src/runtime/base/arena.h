/* arena.h - a bump allocator for objects that live exactly as long as their owner
 * (a program's IR, a schedule). Chunks come from the owner's air_allocator_t. */
#ifndef AIR_RUNTIME_BASE_ARENA_H_
#define AIR_RUNTIME_BASE_ARENA_H_

#include <stddef.h>

#include "air/allocator.h"

typedef struct air_arena_chunk_t air_arena_chunk_t;

typedef struct air_arena_t {
  air_allocator_t allocator;
  air_arena_chunk_t* head;
  size_t used;     /* bytes used in head */
  size_t capacity; /* bytes available in head */
  size_t total;    /* bytes handed out over the arena's life */
} air_arena_t;

void air_arena_init(air_arena_t* arena, const air_allocator_t* allocator);
/* Zeroed memory aligned for any type; NULL when the allocator fails. */
void* air_arena_alloc(air_arena_t* arena, size_t size);
/* Releases every chunk. */
void air_arena_deinit(air_arena_t* arena);

#endif /* AIR_RUNTIME_BASE_ARENA_H_ */

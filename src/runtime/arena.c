/* arena.c - chunked bump allocation. Chunks double up to 1 MiB; a request larger
 * than a chunk gets a chunk of its own so big objects never waste a chunk tail. */
#include "runtime/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

struct air_arena_chunk_t {
  air_arena_chunk_t* next;
  size_t size;
  alignas(max_align_t) unsigned char data[];
};

enum { ARENA_MIN_CHUNK = 4096, ARENA_MAX_CHUNK = 1 << 20 };

void air_arena_init(air_arena_t* arena, const air_allocator_t* allocator) {
  memset(arena, 0, sizeof(*arena));
  arena->allocator = *allocator;
}

void* air_arena_alloc(air_arena_t* arena, size_t size) {
  const size_t align = alignof(max_align_t);
  if (size > SIZE_MAX / 2) return NULL;
  size = (size + align - 1) & ~(align - 1);
  if (size == 0) size = align;
  if (!arena->head || arena->capacity - arena->used < size) {
    size_t chunk = arena->head ? arena->head->size * 2 : ARENA_MIN_CHUNK;
    if (chunk > ARENA_MAX_CHUNK) chunk = ARENA_MAX_CHUNK;
    if (chunk < size) chunk = size;
    air_arena_chunk_t* c =
        arena->allocator.alloc(arena->allocator.self, sizeof(air_arena_chunk_t) + chunk);
    if (!c) return NULL;
    c->size = chunk;
    if (arena->head && chunk == size && arena->capacity - arena->used > size / 4) {
      /* Oversized request: keep filling the current chunk afterwards. */
      c->next = arena->head->next;
      arena->head->next = c;
      memset(c->data, 0, size);
      arena->total += size;
      return c->data;
    }
    c->next = arena->head;
    arena->head = c;
    arena->used = 0;
    arena->capacity = chunk;
  }
  void* p = arena->head->data + arena->used;
  arena->used += size;
  arena->total += size;
  memset(p, 0, size);
  return p;
}

void air_arena_deinit(air_arena_t* arena) {
  air_arena_chunk_t* c = arena->head;
  while (c) {
    air_arena_chunk_t* next = c->next;
    arena->allocator.free(arena->allocator.self, c);
    c = next;
  }
  arena->head = NULL;
  arena->used = arena->capacity = 0;
}

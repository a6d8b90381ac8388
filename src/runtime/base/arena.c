/* arena.c - chunked bump allocation. Chunks double up to 1 MiB; a request larger
 * than a chunk gets a chunk of its own so big objects never waste a chunk tail. */
#include "runtime/base/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

/* Under AddressSanitizer every allocation is followed by a poisoned red zone and
 * the unused tail of a chunk stays poisoned, so writing past an arena object is
 * reported like a heap overflow instead of silently corrupting its neighbour. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
enum { ARENA_REDZONE = 16 };
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
enum { ARENA_REDZONE = 0 };
#endif

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
  const size_t want = size;
  size = (size + ARENA_REDZONE + align - 1) & ~(align - 1);
  if (size == 0) size = align;
  if (!arena->head || arena->capacity - arena->used < size) {
    size_t chunk = arena->head ? arena->head->size * 2 : ARENA_MIN_CHUNK;
    if (chunk > ARENA_MAX_CHUNK) chunk = ARENA_MAX_CHUNK;
    if (chunk < size) chunk = size;
    air_arena_chunk_t* c =
        arena->allocator.alloc(arena->allocator.self, sizeof(air_arena_chunk_t) + chunk);
    if (!c) return NULL;
    c->size = chunk;
    ARENA_POISON(c->data, chunk);
    if (arena->head && chunk == size && arena->capacity - arena->used > size / 4) {
      /* Oversized request: keep filling the current chunk afterwards. */
      c->next = arena->head->next;
      arena->head->next = c;
      ARENA_UNPOISON(c->data, want);
      memset(c->data, 0, want);
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
  ARENA_UNPOISON(p, want);
  memset(p, 0, want);
  return p;
}

void air_arena_deinit(air_arena_t* arena) {
  air_arena_chunk_t* c = arena->head;
  while (c) {
    air_arena_chunk_t* next = c->next;
    ARENA_UNPOISON(c->data, c->size);
    arena->allocator.free(arena->allocator.self, c);
    c = next;
  }
  arena->head = NULL;
  arena->used = arena->capacity = 0;
}

/* air/allocator.h - the host memory allocator every object allocates through.
 *
 * A caller may pass its own allocator to air_context_create(); NULL means the C
 * library heap. The context copies the struct, so it must stay valid only as long
 * as `self` does. Functions behave like malloc/realloc/free: memory is aligned to
 * alignof(max_align_t); alloc/realloc return NULL on failure; free(NULL) is a no-op.
 * All three must be safe to call from any thread if the context is used from
 * several threads.
 */
#ifndef AIR_ALLOCATOR_H_
#define AIR_ALLOCATOR_H_

#include "air/config.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_allocator_t {
  void* self;
  void* (*alloc)(void* self, size_t size);
  void* (*realloc)(void* self, void* ptr, size_t new_size);
  void (*free)(void* self, void* ptr);
} air_allocator_t;

/* Fills `out` with the C library heap allocator. */
AIR_API void air_allocator_init_system(air_allocator_t* out);

#ifdef __cplusplus
}
#endif
#endif /* AIR_ALLOCATOR_H_ */

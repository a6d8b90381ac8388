/* air/context.h - the root object: allocator, registered kernels, devices.
 *
 * Nothing in libairrt is process-global: two contexts in one process never share
 * state. A context is not thread-safe to create or destroy; the objects it makes
 * document their own thread-safety.
 */
#ifndef AIR_CONTEXT_H_
#define AIR_CONTEXT_H_

#include "air/config.h"

#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_context_t air_context_t;

/* Options for air_context_create; zero-initialised means defaults. */
typedef struct air_context_options_t {
  uint32_t flags; /* reserved, must be 0 */
} air_context_options_t;

/* Creates a context. `options` and `allocator` may be NULL (defaults, system heap). */
AIR_API air_status_t air_context_create(const air_context_options_t* options,
                                const air_allocator_t* allocator,
                                air_context_t** out_context);

/* Destroys a context. Every object made from it must be destroyed first. */
AIR_API void air_context_destroy(air_context_t* context);

/* The allocator the context uses (a copy of the one passed at creation). */
AIR_API const air_allocator_t* air_context_allocator(const air_context_t* context);

#ifdef __cplusplus
}
#endif
#endif /* AIR_CONTEXT_H_ */

/* context.c - context creation; the context owns nothing global. */
#include <string.h>

#include "runtime/context_impl.h"
#include "runtime/status_util.h"

air_status_t air_context_create(const air_context_options_t* options,
                                const air_allocator_t* allocator,
                                air_context_t** out_context) {
  air_allocator_t a;
  if (allocator) {
    if (!allocator->alloc || !allocator->realloc || !allocator->free)
      return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                        "air_context_create: allocator has a NULL function");
    a = *allocator;
  } else {
    air_allocator_init_system(&a);
  }
  if (!out_context)
    return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_context_create: out_context is NULL");
  *out_context = NULL;
  if (options && options->flags)
    return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_context_create: unknown flags 0x%x", options->flags);
  air_context_t* c = a.alloc(a.self, sizeof(*c));
  if (!c)
    return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "air_context_create: out of memory");
  memset(c, 0, sizeof(*c));
  c->allocator = a;
  *out_context = c;
  return NULL;
}

void air_context_destroy(air_context_t* context) {
  if (!context) return;
  air_allocator_t a = context->allocator;
  a.free(a.self, context);
}

const air_allocator_t* air_context_allocator(const air_context_t* context) {
  return context ? &context->allocator : NULL;
}

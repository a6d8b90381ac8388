/* context.c - context creation; the context owns nothing global. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/ir/context_impl.h"

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
  air_context_t* c = air_mem_calloc(&a, 1, sizeof(*c));
  if (!c) return AIR_STATUS_OOM(&a, "air_context_create");
  c->allocator = a;
  *out_context = c;
  return NULL;
}

void air_context_destroy(air_context_t* context) {
  if (!context) return;
  air_allocator_t a = context->allocator;
  for (uint32_t i = 0; i < context->n_kernels; ++i) a.free(a.self, context->kernels[i].name);
  a.free(a.self, context->kernels);
  a.free(a.self, context);
}

air_status_t air_context_register_kernel(air_context_t* context, const char* name,
                                         air_kernel_fn_t fn, void* user_data) {
  if (!context || !name || !name[0] || !fn)
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_context_register_kernel: NULL or empty argument");
  air_allocator_t* a = &context->allocator;
  for (uint32_t i = 0; i < context->n_kernels; ++i) {
    if (strcmp(context->kernels[i].name, name) == 0) {
      context->kernels[i].fn = fn;
      context->kernels[i].user_data = user_data;
      return NULL;
    }
  }
  if (!air_mem_grow(a, (void**)&context->kernels, &context->cap_kernels,
                    (size_t)context->n_kernels + 1, sizeof(*context->kernels)))
    return AIR_STATUS_OOM(a, "air_context_register_kernel");
  size_t n = strlen(name);
  char* copy = air_mem_alloc(a, n + 1);
  if (!copy) return AIR_STATUS_OOM(a, "air_context_register_kernel");
  memcpy(copy, name, n + 1);
  air_kernel_entry_t* e = &context->kernels[context->n_kernels++];
  e->name = copy;
  e->fn = fn;
  e->user_data = user_data;
  return NULL;
}

air_status_t air_context_find_kernel(const air_context_t* context, const char* name,
                                     air_kernel_fn_t* out_fn, void** out_user_data) {
  if (!context || !name || !out_fn)
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_context_find_kernel: NULL argument");
  for (uint32_t i = 0; i < context->n_kernels; ++i) {
    if (strcmp(context->kernels[i].name, name) == 0) {
      *out_fn = context->kernels[i].fn;
      if (out_user_data) *out_user_data = context->kernels[i].user_data;
      return NULL;
    }
  }
  return AIR_STATUS(&context->allocator, AIR_STATUS_NOT_FOUND,
                    "no kernel named '%s' is registered on the context "
                    "(air_context_register_kernel)", name);
}

const air_allocator_t* air_context_allocator(const air_context_t* context) {
  return context ? &context->allocator : NULL;
}

/* context_impl.h - the context's layout, for the runtime's own files. */
#ifndef AIR_RUNTIME_CONTEXT_IMPL_H_
#define AIR_RUNTIME_CONTEXT_IMPL_H_

#include "air/context.h"

struct air_context_t {
  air_allocator_t allocator;
  uint32_t flags;
};

#endif /* AIR_RUNTIME_CONTEXT_IMPL_H_ */

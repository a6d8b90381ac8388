/* context_impl.h - the context's layout, for the runtime's own files. */
#ifndef AIR_RUNTIME_IR_CONTEXT_IMPL_H_
#define AIR_RUNTIME_IR_CONTEXT_IMPL_H_

#include "air/context.h"
#include "air/kernel.h"

typedef struct air_kernel_entry_t {
  char* name;
  air_kernel_fn_t fn;
  void* user_data;
} air_kernel_entry_t;

struct air_context_t {
  air_allocator_t allocator;
  uint32_t flags;
  air_kernel_entry_t* kernels;
  uint32_t n_kernels, cap_kernels;
};

#endif /* AIR_RUNTIME_IR_CONTEXT_IMPL_H_ */

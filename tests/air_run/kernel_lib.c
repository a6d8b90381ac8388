/* A kernel library for air-run --kernels (the air/kernel.h convention): one kernel,
 * twice_plus_one, that maps every element x of an f32 memref to 2x + 1. */
#include "air/kernel.h"
#include "air/types.h"

static air_status_t twice_plus_one(void* user, const air_kernel_call_t* call) {
  (void)user;
  if (call->n_args != 1 || call->args[0].kind != AIR_ARG_MEMREF ||
      call->args[0].elem != AIR_ELEMENT_F32 || call->args[0].memref.rank != 1)
    return air_status_make(NULL, AIR_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__,
                           "twice_plus_one wants one 1-d f32 memref");
  const air_memref_t* m = &call->args[0].memref;
  float* d = (float*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[i * m->strides[0]] = d[i * m->strides[0]] * 2 + 1;
  return NULL;
}

AIR_KERNEL_LIBRARY_EXPORT air_status_t air_kernel_library_register(
    air_context_t* context, air_kernel_register_fn_t register_kernel) {
  return register_kernel(context, "twice_plus_one", twice_plus_one, NULL);
}

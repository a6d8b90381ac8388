/* kernarg.h - a kernel's argument segment packed from its code-object metadata:
 * the explicit arguments at their offsets, and the hidden ones the runtime owes the
 * kernel (workgroup counts, sizes and remainders, grid dimensions for code-object
 * v5; zero global offsets; zero padding) computed from the dispatch's shape. */
#ifndef AIR_AMDGPU_KERNARG_H_
#define AIR_AMDGPU_KERNARG_H_

#include <stddef.h>
#include <stdint.h>

#include "amdgpu/code_object.h"

typedef struct air_amdgpu_dims_t {
  uint32_t grid[3];      /* work-items per dimension (>= 1) */
  uint16_t workgroup[3]; /* work-items per workgroup (>= 1) */
  uint16_t dims;         /* 1..3 */
} air_amdgpu_dims_t;

/* Writes kernel `k`'s kernarg segment into `out` (`out_size` >= its
 * kernarg_segment_size; bytes no argument covers are zeroed). `values[i]` holds the
 * bytes of the i-th explicit (non-hidden) argument, exactly its metadata size: a
 * global_buffer is its 64-bit device address. INVALID_ARGUMENT when the count or a
 * size disagrees with the metadata; UNIMPLEMENTED for argument kinds this runtime
 * cannot supply (images, samplers, pipes, queues). */
air_status_t air_amdgpu_kernarg_pack(const air_allocator_t* allocator,
                                     const air_amdgpu_kernel_t* k, const void* const* values,
                                     const uint32_t* sizes, uint32_t n_values,
                                     const air_amdgpu_dims_t* dims, void* out, size_t out_size);

#endif /* AIR_AMDGPU_KERNARG_H_ */

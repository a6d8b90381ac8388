/* kernarg.c - packing a kernarg segment from the metadata (kernarg.h). The hidden
 * arguments follow LLVM's AMDGPUUsage for code-object v5 (hidden_block_count_*:
 * workgroups per dimension; hidden_group_size_*: work-items per workgroup;
 * hidden_remainder_*: work-items in the last, partial workgroup; hidden_grid_dims)
 * and v4 (hidden_global_offset_*: zero). Everything else hidden is zero. */
#include "amdgpu/kernarg.h"

#include <string.h>

#include "runtime/base/status_util.h"

static void put(void* out, uint32_t offset, uint32_t size, uint64_t v) {
  /* Little-endian, as the GPU reads it. */
  for (uint32_t i = 0; i < size && i < 8; ++i) ((uint8_t*)out)[offset + i] = (uint8_t)(v >> (8 * i));
}

air_status_t air_amdgpu_kernarg_pack(const air_allocator_t* a, const air_amdgpu_kernel_t* k,
                                     const void* const* values, const uint32_t* sizes,
                                     uint32_t n_values, const air_amdgpu_dims_t* dims, void* out,
                                     size_t out_size) {
  if (out_size < k->kernarg_segment_size)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "kernel '%s': %zu bytes for a %u-byte kernarg segment", k->name, out_size,
                      k->kernarg_segment_size);
  for (int d = 0; d < 3; ++d)
    if (!dims->grid[d] || !dims->workgroup[d])
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "kernel '%s': dispatch dimension %d is empty", k->name, d);
  memset(out, 0, k->kernarg_segment_size);
  uint32_t next = 0;
  for (uint32_t i = 0; i < k->n_args; ++i) {
    const air_amdgpu_arg_t* arg = &k->args[i];
    uint32_t d = 0;
    switch (arg->kind) {
      case AIR_AMDGPU_ARG_BY_VALUE:
      case AIR_AMDGPU_ARG_GLOBAL_BUFFER:
        if (next >= n_values)
          return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                            "kernel '%s' takes more than the %u arguments given", k->name,
                            n_values);
        if (sizes[next] != arg->size)
          return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                            "kernel '%s' argument %u (%s) is %u bytes, not %u", k->name, next,
                            arg->value_kind, arg->size, sizes[next]);
        memcpy((uint8_t*)out + arg->offset, values[next], arg->size);
        ++next;
        break;
      case AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X:
        put(out, arg->offset, arg->size,
            (dims->grid[d] + dims->workgroup[d] - 1u) / dims->workgroup[d]);
        break;
      case AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X:
        put(out, arg->offset, arg->size, dims->workgroup[d]);
        break;
      case AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Z: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Y: ++d; /* fall through */
      case AIR_AMDGPU_ARG_HIDDEN_REMAINDER_X:
        put(out, arg->offset, arg->size, dims->grid[d] % dims->workgroup[d]);
        break;
      case AIR_AMDGPU_ARG_HIDDEN_GRID_DIMS:
        put(out, arg->offset, arg->size, dims->dims);
        break;
      case AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_X:
      case AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Y:
      case AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Z:
      case AIR_AMDGPU_ARG_HIDDEN_NONE:
      case AIR_AMDGPU_ARG_HIDDEN_OTHER:
      case AIR_AMDGPU_ARG_DYNAMIC_SHARED_POINTER:
        break; /* zero: no offsets, no printf/hostcall buffers, no dynamic LDS */
      default:
        return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED,
                          "kernel '%s' argument %u is a %s, which this runtime cannot supply",
                          k->name, i, arg->value_kind);
    }
  }
  if (next != n_values)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "kernel '%s' takes %u arguments, not %u", k->name, next, n_values);
  return NULL;
}

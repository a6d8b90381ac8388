/* code_object.h - an AMDGPU HSA code object (an ELF file of LLVM's AMDGPU backend,
 * code-object versions 3 to 5) read into plain data: the target from the header's
 * e_flags and the metadata, and per kernel the metadata note's fields, its
 * arguments and its 64-byte kernel descriptor (the `<name>.kd` symbol).
 *
 * The reader (code_object.c, metadata.c) treats every byte as untrusted: any
 * inconsistency is an AIR_STATUS_DATA_LOSS naming the file and the field, and a
 * file that is not an AMDGPU HSA code object at all is INVALID_ARGUMENT. The
 * metadata's MessagePack is decoded by msgpack-c. */
#ifndef AIR_AMDGPU_CODE_OBJECT_H_
#define AIR_AMDGPU_CODE_OBJECT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "amdgpu/gfx.h"
#include "runtime/base/arena.h"

/* Argument kinds the runtime fills when it packs a kernarg segment (.value_kind). */
typedef enum air_amdgpu_arg_kind_e {
  AIR_AMDGPU_ARG_OTHER = 0,        /* a kind this runtime does not fill: zeroed */
  AIR_AMDGPU_ARG_BY_VALUE,
  AIR_AMDGPU_ARG_GLOBAL_BUFFER,
  AIR_AMDGPU_ARG_DYNAMIC_SHARED_POINTER,
  AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_X,
  AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Y,
  AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Z,
  AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X, /* v5: workgroups per dimension */
  AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y,
  AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z,
  AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X,  /* v5: work-items per workgroup (u16) */
  AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y,
  AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z,
  AIR_AMDGPU_ARG_HIDDEN_REMAINDER_X,   /* v5: size of the last partial workgroup (u16) */
  AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Y,
  AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Z,
  AIR_AMDGPU_ARG_HIDDEN_GRID_DIMS,     /* v5: number of grid dimensions (u16) */
  AIR_AMDGPU_ARG_HIDDEN_NONE,          /* padding, zeroed */
  AIR_AMDGPU_ARG_HIDDEN_OTHER,         /* other hidden_*: zeroed (printf, hostcall, ...) */
} air_amdgpu_arg_kind_t;

typedef struct air_amdgpu_arg_t {
  uint32_t offset;
  uint32_t size;
  uint32_t kind;           /* air_amdgpu_arg_kind_t */
  const char* value_kind;  /* the metadata's spelling, e.g. "global_buffer" */
  const char* name;        /* .name, or NULL */
  const char* type_name;   /* .type_name, or NULL */
  const char* address_space; /* .address_space, or NULL */
} air_amdgpu_arg_t;

/* The 64-byte kernel descriptor (LLVM's AMDHSA layout), as stored. */
typedef struct air_amdgpu_kd_t {
  uint32_t group_segment_fixed_size;
  uint32_t private_segment_fixed_size;
  uint32_t kernarg_size;
  int64_t kernel_code_entry_byte_offset; /* from the descriptor's own address */
  uint32_t compute_pgm_rsrc3;
  uint32_t compute_pgm_rsrc1;
  uint32_t compute_pgm_rsrc2;
  uint16_t kernel_code_properties;
} air_amdgpu_kd_t;

typedef struct air_amdgpu_kernel_t {
  const char* name;   /* .name */
  const char* symbol; /* .symbol: the descriptor's symbol, "<name>.kd" */
  uint32_t kernarg_segment_size;
  uint32_t kernarg_segment_align;
  uint32_t group_segment_fixed_size;
  uint32_t private_segment_fixed_size;
  uint32_t wavefront_size;
  uint32_t sgpr_count;
  uint32_t vgpr_count;
  uint32_t agpr_count;          /* 0 when absent */
  uint32_t max_flat_workgroup_size; /* 0 when absent */
  bool uses_dynamic_stack;
  uint32_t n_args;
  air_amdgpu_arg_t* args;       /* in metadata order */
  uint64_t kd_address;          /* the descriptor symbol's value (st_value) */
  uint64_t entry_address;       /* kd_address + kernel_code_entry_byte_offset */
  air_amdgpu_kd_t kd;
} air_amdgpu_kernel_t;

typedef struct air_amdgpu_code_object_t {
  air_arena_t arena;            /* owns every string and array below */
  uint32_t version;             /* code-object version: 3, 4 or 5 */
  uint32_t e_type;              /* ET_DYN (loadable) or ET_REL (not yet linked) */
  uint32_t e_flags;
  const air_gfx_info_t* gfx;    /* the processor from e_flags */
  air_gfx_feature_t xnack, sramecc;
  const char* target;           /* "amdgcn-amd-amdhsa--gfx90a[:features]" */
  uint32_t metadata_version[2]; /* amdhsa.version */
  uint32_t n_kernels;
  air_amdgpu_kernel_t* kernels; /* in metadata order */
} air_amdgpu_code_object_t;

/* True when `data` starts like an AMDGPU ELF file (ELF magic, EM_AMDGPU). */
bool air_amdgpu_code_object_sniff(const void* data, size_t size);

/* Reads `size` bytes (not retained). `name` names the input in messages. */
air_status_t air_amdgpu_code_object_read(const air_allocator_t* allocator, const void* data,
                                         size_t size, const char* name,
                                         air_amdgpu_code_object_t** out);
void air_amdgpu_code_object_free(air_amdgpu_code_object_t* co);

/* The kernel named `name` (its .name, or its .symbol), or NULL. */
const air_amdgpu_kernel_t* air_amdgpu_code_object_kernel(const air_amdgpu_code_object_t* co,
                                                         const char* name);

/* For the metadata reader (metadata.c): decodes the NT_AMDGPU_METADATA note's
 * MessagePack into co->target, co->metadata_version and co->kernels (descriptors
 * not yet attached). */
air_status_t air_amdgpu_metadata_decode(const air_allocator_t* allocator, const char* name,
                                        const uint8_t* data, size_t size,
                                        air_amdgpu_code_object_t* co);

#endif /* AIR_AMDGPU_CODE_OBJECT_H_ */

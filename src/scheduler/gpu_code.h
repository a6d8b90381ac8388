/* gpu_code.h - the GPU kernels of one entry, as plain data: the code objects the
 * code generator built for it (src/codegen/cg_gpu.h, at compile time) and, per
 * launch command of the schedule, the kernel that runs it, its work shape and
 * where each kernel argument comes from. A schedule carries them (schedule.h,
 * `gpu`), the .airbin stores them (docs/artifact.md: `.air.gpu` and one
 * `.air.hsaco.N` section per code object) and the hsa driver dispatches them
 * (docs/gpu.md). No LLVM and no HSA here. */
#ifndef AIR_SCHEDULER_GPU_CODE_H_
#define AIR_SCHEDULER_GPU_CODE_H_

#include <stdint.h>
#include <stddef.h>

/* Kernel arguments: every slot is 8 bytes at offset 8 * i (the layout both the
 * amdgcn kernels and the host workgroup simulator read). */
typedef enum air_gpu_arg_kind_e {
  AIR_GPU_ARG_MEMREF = 1, /* entry parameter `param`'s data address (offset applied) */
  AIR_GPU_ARG_SCALAR = 2, /* entry parameter `param`: int64 normal form or a double */
  AIR_GPU_ARG_SPILL = 3,  /* the per-dispatch L2 spill area (spill_bytes per workgroup) */
} air_gpu_arg_kind_t;

typedef struct air_gpu_arg_t {
  uint32_t kind;  /* air_gpu_arg_kind_t */
  uint32_t param; /* entry parameter index (MEMREF, SCALAR) */
} air_gpu_arg_t;

/* How a herd's PEs sit on the GPU (docs/gpu.md, "The mapping"). */
typedef enum air_gpu_mapping_e {
  AIR_GPU_MAP_THREADS = 1, /* PE -> work-item; segment code run by every work-item */
  AIR_GPU_MAP_WAVES = 2,   /* roles (launch body, segment body, PEs) -> waves */
} air_gpu_mapping_t;

/* A size of the grid: an entry parameter or a constant. */
typedef struct air_gpu_size_t {
  uint32_t param; /* UINT32_MAX: the constant */
  int64_t value;
} air_gpu_size_t;

typedef struct air_gpu_kernel_t {
  uint32_t cmd;            /* schedule command (entry body op index) */
  uint32_t object;         /* index into air_gpu_code_t.objects */
  char name[64];           /* kernel symbol (its descriptor is "<name>.kd") */
  uint32_t mapping;        /* air_gpu_mapping_t */
  uint32_t workgroup_size; /* work-items per workgroup */
  uint32_t wave_size;      /* 32 or 64 */
  /* Waves mapping: roles sit on lane 0 of waves 0 .. fixed_roles - 1 (the launch
   * body, the segment body), then PE p on wave fixed_roles + p / pes_per_wave,
   * lane p % pes_per_wave. */
  uint32_t fixed_roles, pes, pes_per_wave;
  uint32_t lds_bytes;      /* LDS the plan needs; the code object may declare more
                              (LLVM promotes private arrays), dispatch uses its */
  uint64_t spill_bytes;    /* L2 in global memory, per workgroup (0: none) */
  uint32_t n_grid;         /* launch dimensions, 0..3 */
  air_gpu_size_t grid[3];  /* launch instances = prod(grid) (1 when n_grid is 0) */
  /* Workgroups per launch instance: its segment instances (nested segments with
   * iteration spaces), padded to the XCD count when a segment has
   * backend-granularity = XCD; workgroups = prod(grid) * seg_workgroups. */
  uint32_t seg_workgroups;
  uint32_t n_args;         /* kernarg size = 8 * n_args */
  air_gpu_arg_t* args;
} air_gpu_kernel_t;

typedef struct air_gpu_object_t {
  const uint8_t* bytes;    /* an HSA code object (ELF, EM_AMDGPU) */
  uint64_t size;
} air_gpu_object_t;

typedef struct air_gpu_code_t {
  char processor[16];      /* "gfx90a" */
  uint32_t n_objects;
  air_gpu_object_t* objects;
  uint32_t n_kernels;
  air_gpu_kernel_t* kernels; /* ascending cmd */
} air_gpu_code_t;

#endif /* AIR_SCHEDULER_GPU_CODE_H_ */

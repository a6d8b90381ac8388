/* hsa_launch.h - an entry function planned for the GPU: each of its launches
 * becomes one kernel dispatch.
 *
 * Two kinds of launch run. A launch whose kernel the code generator built at
 * compile time (the schedule's `gpu` code, scheduler/gpu_code.h; `airc compile
 * --target gfxNNN`) dispatches that kernel: its code object from the artifact, one
 * workgroup per launch instance, every kernel argument an 8-byte slot (entry
 * parameters in order, then the L2 spill area). And a launch whose herd calls an
 * external kernel with `link_with` (the spec's GPU section: such a herd uses the
 * named code object). That launch
 * holds one segment, the segment one herd, the herd body one func.call; besides
 * those only constants. The dispatch's grid is the launch's iteration space times
 * the herd's (work-items), its workgroup the herd's; the kernel is the callee, found
 * as "<callee>.kd" in the code object `link_with` names (a path, tried as written
 * and then beside the program's file); the call's operands are the kernel's
 * explicit arguments, each traced back through the herd, segment and launch to an
 * entry parameter or a constant. Launch sizes may be entry parameters too. Any other
 * shape is refused with a message naming the op and what a GPU herd cannot do:
 * generating kernels from herd bodies is the code generator's job (docs/gpu.md). */
#ifndef AIR_HAL_HSA_HSA_LAUNCH_H_
#define AIR_HAL_HSA_HSA_LAUNCH_H_

#ifdef AIR_HAVE_HSA
#include <stdint.h>

#include "air/kernel.h"
#include "amdgpu/code_object.h"
#include "hal/driver.h"
#include "hal/hsa/hsa_system.h"

/* Where a value comes from at dispatch time. */
typedef struct air_hsa_src_t {
  uint32_t param;  /* entry parameter index, or UINT32_MAX for a constant */
  uint32_t elem;   /* air_elem_kind_t (scalars) */
  int64_t i;       /* the constant */
  double f;
  uint32_t memref; /* the value is a memref (a device address) */
  uint32_t spill;  /* generated kernels: the dispatch's L2 spill area */
} air_hsa_src_t;

typedef struct air_hsa_kernel_t {
  char* path;                     /* the code object file */
  uint8_t* bytes;                 /* its contents (ROCr reads them until freeze) */
  size_t size;
  air_amdgpu_code_object_t* co;
  hsa_code_object_reader_t reader;
  hsa_executable_t exe;
  bool loaded;
} air_hsa_kernel_t;

typedef struct air_hsa_launch_t {
  uint32_t cmd;                  /* the schedule command (entry body op index) */
  uint32_t rank;                 /* launch dims (0..2) */
  air_hsa_src_t size[2];         /* launch sizes */
  uint32_t herd[2];              /* herd sizes (constants) */
  uint32_t n_args;
  air_hsa_src_t* args;           /* the call's operands, in order */
  const air_amdgpu_kernel_t* meta;
  uint64_t kernel_object;
  uint32_t group_segment_size, private_segment_size;
  /* Generated kernels (NULL otherwise): one workgroup of gen->workgroup_size
   * work-items per launch instance; the grid's sizes from gen->grid. */
  const air_gpu_kernel_t* gen;
} air_hsa_launch_t;

typedef struct air_hsa_plan_t {
  uint32_t n_launches;
  air_hsa_launch_t* launches;    /* in body order */
  uint32_t n_kernels;
  air_hsa_kernel_t* kernels;     /* one per code object file */
} air_hsa_plan_t;

/* Plans entry `e` of a program for GPU `sys`: its launches, their code objects
 * read, checked against the GPU's processor and loaded (hsa_executable_*). A
 * refusal is UNIMPLEMENTED naming the op; a missing or foreign code object
 * NOT_FOUND / INVALID_ARGUMENT. */
air_status_t air_hsa_plan_create(const air_allocator_t* allocator, const air_hsa_system_t* sys,
                                 const air_program_t* program, const air_entry_t* e,
                                 air_hsa_plan_t** out);
void air_hsa_plan_free(const air_allocator_t* allocator, const air_hsa_system_t* sys,
                       air_hsa_plan_t* plan);

/* The kernel arguments of launch `l` with the dispatch's bound parameters `args`,
 * packed into `out` (at least the kernel's kernarg_segment_size bytes), and its
 * grid and workgroup. `spill` is the L2 spill area of a generated kernel that has
 * one (air_hsa_launch_spill_bytes). */
air_status_t air_hsa_launch_pack(const air_allocator_t* allocator, const air_hsa_launch_t* l,
                                 const air_arg_t* args, void* spill, void* out, uint32_t grid[3],
                                 uint16_t workgroup[3]);

/* Bytes of global memory a generated kernel needs for the L2 that did not fit its
 * LDS (0 for none), with this dispatch's arguments. */
uint64_t air_hsa_launch_spill_bytes(const air_hsa_launch_t* l, const air_arg_t* args);
#endif /* AIR_HAVE_HSA */
#endif /* AIR_HAL_HSA_HSA_LAUNCH_H_ */

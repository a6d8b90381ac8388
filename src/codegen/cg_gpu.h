/* cg_gpu.h - GPU kernels from AIR launches, built by the shared code generator
 * (docs/gpu.md "Kernel generation", docs/codegen.md "The amdgcn target").
 *
 * Each launch of an entry becomes one kernel: the launch's iteration space the
 * grid (one workgroup per launch instance), the segment body the workgroup's
 * code, the herd's PEs work-items (PE -> thread) or, when channels connect the
 * levels, whole wavefronts (PE -> wave) with the launch and segment bodies on
 * waves of their own. L2 is LDS (or, past the LDS, a per-workgroup slice of
 * global memory), L1 private memory, L3 global memory.
 *
 * Two targets share every emitter: amdgcn (code objects linked with lld at
 * compile time, stored in the .airbin) and the host workgroup simulator (the same
 * kernel JIT-compiled for this CPU, work-items as host threads; tests only). */
#ifndef AIR_CODEGEN_CG_GPU_H_
#define AIR_CODEGEN_CG_GPU_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "hal/compiled.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"
#include "scheduler/gpu_code.h"
#include "scheduler/schedule.h"

/* The tools that turn LLVM IR into a code object for one processor. */
typedef struct air_cg_gpu_toolchain_t {
  char processor[16];
  char compiler[512];   /* "" = this process's LLVM (C API); else a clang run on bitcode */
  char linker[512];     /* ld.lld */
  char describe[256];   /* for messages and reports */
} air_cg_gpu_toolchain_t;

/* Finds the toolchain for `processor` ("gfx90a"): a ROCm LLVM when present
 * ($AIR_ROCM_PATH, $ROCM_PATH, /opt/rocm: its llvm/bin/clang and ld.lld), else
 * this process's LLVM 16 with ld.lld-16 (or an ld.lld of release 16 or later).
 * UNAVAILABLE naming what is needed when none can build the processor (gfx942
 * needs LLVM 17, e.g. ROCm 6) or no linker is found. */
air_status_t air_cg_gpu_toolchain_find(const air_allocator_t* a, const char* processor,
                                       air_cg_gpu_toolchain_t* out);

/* air_cg_gpu_stats_t is the hook table's (hal/compiled.h). */

/* Builds one kernel per launch of the schedule's entry for GPU target `t` (a row
 * with `gfx`), links each into a code object and attaches them to `schedule->gpu`
 * (in its arena). What a GPU kernel cannot do is UNIMPLEMENTED at the op. */
air_status_t air_cg_gpu_compile(const air_allocator_t* a, const air_program_t* p,
                                air_schedule_t* schedule, const air_target_t* t,
                                const air_cg_gpu_toolchain_t* toolchain,
                                air_cg_gpu_stats_t* stats);

/* The gpu_compile hook (hal/compiled.h): the toolchain found for target->gfx,
 * then air_cg_gpu_compile. Without a toolchain for it, the program's own errors
 * (every launch planned) come before the toolchain's. */
air_status_t air_cg_gpu_compile_found(const air_allocator_t* a, const air_program_t* p,
                                      air_schedule_t* schedule, const air_target_t* t,
                                      air_cg_gpu_stats_t* stats);

/* Why a kernel failed (the simulator's fail callback; a trap on the GPU):
 * AIR_CG_OOB / AIR_CG_DIV / AIR_CG_STEP (hal/compiled.h) and these. */
enum {
  AIR_CG_DEADLOCK = 16, /* a channel or hierarchy wait gave up */
  AIR_CG_CHANNEL = 17,  /* a channel index out of range, or private memory on both sides */
};

/*--- the host workgroup simulator (tests) ------------------------------------*/

/* What one simulated work-item sees; the generated code reads the fields at
 * these offsets. */
typedef struct air_gpu_sim_ctx_t {
  uint32_t local_id;                  /* 0 */
  uint32_t group_id;                  /* 4 */
  uint8_t* lds;                       /* 8: the workgroup's LDS */
  void* user;                         /* 16 */
  void (*barrier)(void* user);        /* 24 */
  int32_t (*pause)(void* user);       /* 32: non-zero: give up */
  void (*fail)(void* user, int32_t code, uint32_t line); /* 40 */
} air_gpu_sim_ctx_t;

typedef void (*air_gpu_sim_fn)(const void* kernarg, air_gpu_sim_ctx_t* ctx);

typedef struct air_cg_gpu_sim_t air_cg_gpu_sim_t;
/* The kernels of every launch of entry `entry` (NULL: the first function with a
 * body) for target `t`, JIT-compiled for this CPU. */
air_status_t air_cg_gpu_sim_create(const air_allocator_t* a, const air_program_t* p,
                                   const char* entry, const air_target_t* t,
                                   air_cg_gpu_sim_t** out);
/* Kernel `name` and its description (the same an .airbin records). */
air_status_t air_cg_gpu_sim_lookup(air_cg_gpu_sim_t* sim, const char* name, air_gpu_sim_fn* fn,
                                   const air_gpu_kernel_t** info);
void air_cg_gpu_sim_free(air_cg_gpu_sim_t* sim);

#endif /* AIR_CODEGEN_CG_GPU_H_ */

/* codegen.h - libairrt's code generator: one IR builder (LLVM through its C API),
 * several targets. It turns the scalar and loop code of herd, segment, launch and
 * execute bodies (compiled units, hal/compiled.h) into machine code: in process
 * through ORC's LLJIT for the host CPU, or as an object file (host objects go into
 * the .airbin; amdgcn code objects are the hsa driver's). See docs/codegen.md.
 *
 * A target is a description plus hooks (cg_target.c): what differs between the
 * host and a GPU - triple, CPU, features, the address space memref data lives in,
 * the code model, how a function becomes an entry point - is asked of the target,
 * never tested by the emitter. The hsa driver adds amdgcn's hooks (kernel calling
 * convention, workitem ids) to the same table.
 *
 * Not thread-safe per module; modules and JITs are independent objects, so
 * separate threads may build separate ones. */
#ifndef AIR_CODEGEN_CODEGEN_H_
#define AIR_CODEGEN_CODEGEN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "hal/compiled.h"
#include "runtime/ir/ir.h"

typedef enum air_cg_arch_e {
  AIR_CG_ARCH_HOST = 0,   /* the CPU this process runs on (JIT) */
  AIR_CG_ARCH_X86_64,     /* a portable x86-64 object (artifacts) */
  AIR_CG_ARCH_AMDGCN,     /* AMD GPUs (the hsa driver's code objects) */
} air_cg_arch_t;

typedef struct air_cg_module_t air_cg_module_t;
typedef struct cg_fn_t cg_fn_t;

typedef struct air_cg_target_t {
  air_cg_arch_t arch;
  char triple[64];
  char cpu[64];
  char features[512];
  uint32_t data_as;       /* address space of memref data (0 on the host) */
  bool object_code;       /* emitted as a relocatable object, not JIT'd */
  bool large_code_model;  /* objects the core loader links: absolute relocations only */
  /* Hooks (NULL: the host's behaviour). `entry` makes `fn` (an LLVMValueRef) an
   * entry point of the target (a kernel on amdgcn); `workitem_id` returns dim
   * `d`'s id as an i64 LLVMValueRef at the emitter's insertion point. */
  void (*entry)(air_cg_module_t* m, void* fn);
  void* (*workitem_id)(cg_fn_t* f, uint32_t d);
} air_cg_target_t;

/* Fills `out` for `arch`. `cpu`/`features` NULL: the host's (ARCH_HOST), x86-64-v3
 * (ARCH_X86_64), or gfx942 (ARCH_AMDGCN). UNAVAILABLE when this LLVM lacks the
 * backend. */
air_status_t air_cg_target_init(air_cg_arch_t arch, const char* cpu, const char* features,
                                air_cg_target_t* out);

/* A module of compiled units for one target. */
air_status_t air_cg_module_create(const air_allocator_t* allocator, const air_cg_target_t* target,
                                  const char* name, air_cg_module_t** out);
void air_cg_module_free(air_cg_module_t* m);

/* True when `op` can be a compiled unit: a loop or branch whose whole body the
 * generator covers, with scalar results. */
bool air_cg_unit_candidate(const air_program_t* p, const air_op_t* op);

/* Emits unit `op` of program `p` as the function `name` (the unit ABI of
 * hal/compiled.h). UNIMPLEMENTED naming the op when something under it is not
 * covered; the module is then unchanged. */
air_status_t air_cg_module_add(air_cg_module_t* m, const air_program_t* p, const air_op_t* op,
                               const char* name);

/* The module's LLVM IR as text (for tests and `airc report`); caller frees with
 * the module's allocator. */
air_status_t air_cg_module_print(air_cg_module_t* m, char** out);

/* Runs the optimisation pipeline (O2 for the target). */
air_status_t air_cg_module_optimize(air_cg_module_t* m);

/* Emits the module as a relocatable object; the bytes are the allocator's. */
air_status_t air_cg_module_object(air_cg_module_t* m, void** bytes, size_t* size);

/* In-process JIT of a host module (consumed, even on failure). */
typedef struct air_cg_jit_t air_cg_jit_t;
air_status_t air_cg_jit_create(air_cg_module_t* m, air_cg_jit_t** out);
/* The address of function `name`, materialising it (machine code) on first use. */
air_status_t air_cg_jit_lookup(air_cg_jit_t* j, const char* name, void** out);
void air_cg_jit_free(air_cg_jit_t* j);

/* Time spent so far, for the compile-cost figures. */
void air_cg_module_times(const air_cg_module_t* m, int64_t* emit_ns);

/* The hook table the runtime calls (hal/compiled.h): whole-program JIT with a
 * cache per program inside the returned object. */
const air_cg_hooks_t* air_cg_hooks(void);

#endif /* AIR_CODEGEN_CODEGEN_H_ */

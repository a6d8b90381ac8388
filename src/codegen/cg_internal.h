/* cg_internal.h - the code generator's shared state: one LLVM module being built
 * for one target, and the per-function emitter that turns AIR ops into LLVM IR.
 * The emitter's files stand on each other in one direction:
 *   cg_value.c   types, the value table, memref inputs, failure exits
 *   cg_scalar.c  arith, casts, affine expressions, rounding of narrow floats
 *   cg_linalg.c  linalg.generic (its body through cg_fn_t.emit_block)
 *   cg_air.c     DMA, alloc/dealloc, air.execute, wait_all (executor hooks;
 *                an execute's body through cg_fn_t.emit_block)
 *   cg_emit.c    units, loops, branches, memory; what is covered
 * each calling only the ones above it in this list.
 *
 * Values keep the interpreter's semantics exactly (hal/cpu/interp/scalar.c, codec.h): integers
 * wrap at their width and divide in 64 bits with the same error checks, f16, bf16
 * and f32 arithmetic runs in float and rounds to the type (round to nearest even),
 * f64 in double, and every conversion goes through double where the interpreter's
 * does. A value is held in its natural LLVM type: iN for integers (index is i64),
 * float for f16/bf16/f32 (already rounded to the type), double for f64. */
#ifndef AIR_CODEGEN_CG_INTERNAL_H_
#define AIR_CODEGEN_CG_INTERNAL_H_

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "codegen/codegen.h"
#include "hal/compiled.h"
#include "runtime/ir/ir.h"

struct air_cg_module_t {
  air_allocator_t alloc;
  air_cg_target_t target;
  LLVMContextRef ctx;       /* owned unless `tsctx` owns it */
  void* tsctx;              /* LLVMOrcThreadSafeContextRef when made for the JIT */
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  /* Common types. */
  LLVMTypeRef i1, i8, i16, i32, i64, f16, f32, f64, ptr, gptr, voidt;
  LLVMTypeRef frame_t;      /* air_cg_frame_t */
  LLVMTypeRef fn_t;         /* int32_t (air_cg_frame_t*) */
  int64_t emit_ns;
  uint32_t n_funcs;
};

/* A memref input of the function being emitted: its fields, loaded once at entry
 * (or constants from its static type). */
typedef struct cg_mem_t {
  air_vid_t vid;
  uint32_t elem, rank;
  LLVMValueRef data;        /* gptr */
  LLVMValueRef offset;      /* i64 */
  LLVMValueRef sizes[AIR_MAX_RANK], strides[AIR_MAX_RANK];
  bool nonnull;             /* data is never null (no check; on a GPU, LDS and private
                               memory start at address 0) */
  LLVMValueRef desc;        /* ptr to its air_memref_t (the executor hooks take it);
                               NULL for the GPU's */
} cg_mem_t;

/* Entries of a DMA list the executor takes (IX_MAX_PAT, hal/cpu/interp/pattern.h). */
#define CG_MAX_PAT 16

typedef struct cg_fn_t {
  air_cg_module_t* m;
  const air_program_t* p;
  const air_op_t* unit;
  LLVMBuilderRef b;
  LLVMValueRef fn, frame;
  LLVMValueRef* vals;       /* per value id */
  cg_mem_t* mems;
  uint32_t n_mems, cap_mems;
  uint32_t op_index;        /* preorder index of the op being emitted */
  air_status_t st;          /* first failure (the unit is then dropped) */
  /* cg_emit.c's block emitter (set by air_cg_module_add): emits a block's ops up
   * to its terminator and returns it (or NULL). A hook, so cg_linalg.c can emit a
   * generic's body without calling up into cg_emit.c. */
  const air_op_t* (*emit_block)(struct cg_fn_t* f, const air_block_t* b);
  /* Extension hooks, NULL for compiled units. A generator layered on this emitter
   * (the GPU kernels of cg_gpu*.c) emits the ops the core does not know
   * (`ext_op` returns false for ops it does not know either), supplies values and
   * memrefs defined outside what it emits (`ext_value`, `ext_mem`: NULL when it
   * has none; `ext_op` sees every op first, so it may also wrap core ops) and emits the failure path of a check (`ext_fail`, which must end
   * the block) instead of the unit ABI's frame->fail_op and return code. */
  bool (*ext_op)(cg_fn_t* f, const air_op_t* op);
  LLVMValueRef (*ext_value)(cg_fn_t* f, air_vid_t v);
  cg_mem_t* (*ext_mem)(cg_fn_t* f, air_vid_t v);
  void (*ext_fail)(cg_fn_t* f, int32_t code);
  void* ext;                /* the extension's state */
} cg_fn_t;

static inline LLVMValueRef cg_ci64(cg_fn_t* f, int64_t v) {
  return LLVMConstInt(f->m->i64, (unsigned long long)v, 1);
}

/* cg_value.c */
/* The memref input `v` of the unit, or NULL. */
cg_mem_t* cg_mem_of(cg_fn_t* f, air_vid_t v);
/* A new (zeroed) memref entry for `v` defined in the unit, or NULL (the emission
 * fails: the table is sized for every memref a unit can define). */
cg_mem_t* cg_mem_new(cg_fn_t* f, air_vid_t v);
/* Fails the emission with UNIMPLEMENTED naming `op` (first failure wins). */
void cg_unsupported(cg_fn_t* f, const air_op_t* op, const char* why);
/* Branches to a new block that records fail_op and returns `code` when `bad`
 * holds; the builder continues on the good path. */
void cg_fail_if(cg_fn_t* f, LLVMValueRef bad, int32_t code);
LLVMValueRef cg_val(cg_fn_t* f, air_vid_t v);
void cg_set(cg_fn_t* f, air_vid_t v, LLVMValueRef x);
/* The LLVM type of a scalar element type. */
LLVMTypeRef cg_elem_type(air_cg_module_t* m, uint32_t elem);
/* The scalar element type of value v, or AIR_ELEM_NONE. */
uint32_t cg_value_elem(const air_program_t* p, air_vid_t v);
bool cg_is_memref(const air_program_t* p, air_vid_t v);
/* Calls an overloaded intrinsic. */
LLVMValueRef cg_intrinsic(cg_fn_t* f, const char* name, LLVMTypeRef* over, unsigned n_over,
                          LLVMValueRef* args, unsigned n_args);
int64_t cg_now_ns(void);

/* cg_emit.c, for the extensions layered on the emitter (cg_gpu*.c), which emit
 * bodies through it: one op (and its regions); the core's own emission of an op,
 * without asking the extension first; a block's ops up to its terminator, which
 * it returns (or NULL). */
void cg_emit_op(cg_fn_t* f, const air_op_t* op);
void cg_emit_core_op(cg_fn_t* f, const air_op_t* op);
const air_op_t* cg_emit_block(cg_fn_t* f, const air_block_t* b);

/* cg_air.c */
bool cg_is_token(const air_program_t* p, air_vid_t v);
/* air.dma_memcpy_nd, memref.alloc/dealloc, air.wait_all (an air.execute is
 * checked by cg_emit.c, which owns block coverage). */
bool cg_air_leaf_supported(const air_program_t* p, const air_op_t* op);
void cg_emit_air(cg_fn_t* f, const air_op_t* op);

/* cg_linalg.c */
/* linalg.generic with linear maps and a scalar body (what cg_linalg.c says). */
bool cg_generic_supported(const air_program_t* p, const air_op_t* op);
void cg_emit_generic(cg_fn_t* f, const air_op_t* op);

/* cg_scalar.c */
bool cg_scalar_supported(const air_program_t* p, const air_op_t* op);
/* constant, binary, unary, cmp, select, cast, affine.apply/min/max. */
void cg_emit_scalar(cg_fn_t* f, const air_op_t* op);
/* An affine expression over i64 dims/syms, failing like air_aff_eval. */
LLVMValueRef cg_affine(cg_fn_t* f, const air_aff_t* e, LLVMValueRef* dims, LLVMValueRef* syms);
/* Rounds a float-held value to `elem` (bf16 / f16; identity otherwise). */
LLVMValueRef cg_round(cg_fn_t* f, uint32_t elem, LLVMValueRef x);
/* Loads / stores one element of type `elem` at `addr` (held as described above). */
LLVMValueRef cg_load_elem(cg_fn_t* f, uint32_t elem, LLVMValueRef addr);
void cg_store_elem(cg_fn_t* f, uint32_t elem, LLVMValueRef addr, LLVMValueRef x);
/* Word <-> held value. */
LLVMValueRef cg_from_word(cg_fn_t* f, uint32_t elem, LLVMValueRef word_i64);
LLVMValueRef cg_to_word(cg_fn_t* f, uint32_t elem, LLVMValueRef x);

#endif /* AIR_CODEGEN_CG_INTERNAL_H_ */

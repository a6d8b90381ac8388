/* compiled.h - compiled bodies as the CPU executor sees them: the calling
 * convention between generated code and the runtime, and the hook table through
 * which the runtime reaches a code generator when one is linked or loaded.
 *
 * This header is all the core library knows of code generation. It has no LLVM in
 * it: the generator (src/codegen, its own library, built when LLVM is present)
 * implements the hooks, and a program run from an .airbin that carries objects
 * needs only the object loader, never the generator (docs/codegen.md).
 *
 * A compiled *unit* is one op of a herd, segment, launch or execute body - a loop
 * nest (scf.for, affine.for) or a branch (scf.if, affine.if) - together with
 * everything nested in it, all of it scalar and memory code the generator covers.
 * It becomes one function:
 *
 *     int32_t unit(air_cg_frame_t* frame);
 *
 * `frame->in` holds the unit's inputs (the values its ops use that are defined
 * outside it, in the order air_cg_unit_io lists them): integers and index as int64
 * normalised to their width (i1 is 0/1, iN sign-extended), floats as doubles
 * holding a value exact in their type, memrefs as pointers to views. The unit
 * writes its results (the op's results) to `frame->out`. It returns AIR_CG_OK, or
 * the error the interpreter would have raised at the op numbered frame->fail_op
 * in preorder (0 = the unit op; air_cg_op_at finds it), after the same side
 * effects; or AIR_CG_FALLBACK before any side effect when a view does not have the
 * static shape or layout its type promised, in which case the caller interprets. */
#ifndef AIR_HAL_COMPILED_H_
#define AIR_HAL_COMPILED_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/kernel.h"
#include "air/status.h"
#include "runtime/ir/ir.h"

typedef union air_cg_word_t {
  int64_t i;
  double f;
  const air_memref_t* m;
} air_cg_word_t;

struct air_cg_rt_t;

typedef struct air_cg_frame_t {
  const air_cg_word_t* in;
  air_cg_word_t* out;
  uint32_t fail_op;
  uint32_t reserved;
  /* The executor's hooks for the AIR ops a unit may hold (DMA, memref.alloc and
   * dealloc): NULL when the unit has none. `ctx` is the executor's. */
  const struct air_cg_rt_t* rt;
  void* ctx;
} air_cg_frame_t;

/* What generated code calls back into the executor for (lower layers never call
 * up: the executor hands these in through the frame). Each returns 0, or nonzero
 * after keeping the interpreter's error for op `op_index` (preorder under the
 * unit, air_cg_op_at) in its context, with the interpreter's side effects made;
 * the unit then returns AIR_CG_HOOK with frame->fail_op = op_index.
 *
 * `dma`: air.dma_memcpy_nd between views `dst` and `src` through their evaluated
 * lists, each side packed as { n_off, n, off[n_off], size[n], stride[n] }.
 * `alloc`: memref.alloc of a static shape; fills *out (data, offset 0, the type's
 * elem, rank, sizes and row-major strides). `dealloc`: memref.dealloc of `m`. */
typedef struct air_cg_rt_t {
  int32_t (*dma)(air_cg_frame_t* frame, uint32_t op_index, const air_memref_t* dst,
                 const int64_t* dst_lists, const air_memref_t* src, const int64_t* src_lists);
  int32_t (*alloc)(air_cg_frame_t* frame, uint32_t op_index, air_memref_t* out);
  int32_t (*dealloc)(air_cg_frame_t* frame, uint32_t op_index, const air_memref_t* m);
} air_cg_rt_t;

enum {
  AIR_CG_OK = 0,
  AIR_CG_OOB = 1,      /* memref access out of bounds (or of a view without data) */
  AIR_CG_DIV = 2,      /* division by zero or overflow (arith and affine) */
  AIR_CG_STEP = 3,     /* a loop step that is not positive */
  AIR_CG_FALLBACK = 4, /* a view differs from its static type: interpret instead */
  AIR_CG_HOOK = 5,     /* an executor hook (air_cg_rt_t) failed; its context has the error */
};

typedef int32_t (*air_cg_fn_t)(air_cg_frame_t* frame);

/* The op numbered `index` in preorder under `unit` (unit itself is 0; then each
 * region's ops in order, each followed by its own nested ops), or NULL. */
const air_op_t* air_cg_op_at(const air_op_t* unit, uint32_t index);

/* Inputs of unit `op`: every value used by an op under it (operands, index-list
 * values, operands of nested ops) that is not defined under it, each once, in
 * first-use preorder, written to `out`. For a herd body unit (`op` an air.herd:
 * its body, run once per PE) the herd's own operands are not inputs and its
 * body's arguments (tile ids, sizes, args) are. Returns the count, or UINT32_MAX
 * when there are more than `cap`. */
uint32_t air_cg_unit_inputs(const air_program_t* p, const air_op_t* op, air_vid_t* out,
                            uint32_t cap);

/* A program's compiled units as the executor reaches them: a lookup by op (the
 * CPU driver's, hal/cpu/cpu_code.c: JIT or linked from an artifact). Read-only;
 * shared by concurrent runs. */
typedef struct air_cg_code_t {
  const void* self;
  const struct air_cg_unit_t* (*find)(const void* self, const air_op_t* op);
} air_cg_code_t;

/*---------------------------------------------------------------------------*/
/* The hook table                                                            */
/*---------------------------------------------------------------------------*/

/* What a code generator compiled for one program: one entry point per unit. */
typedef struct air_cg_program_t air_cg_program_t;

typedef struct air_cg_unit_t {
  const air_op_t* op;
  air_cg_fn_t fn;
  uint32_t n_in, n_out;
  const air_vid_t* in;   /* n_in inputs, as air_cg_unit_inputs lists them */
  uint32_t index;        /* op's preorder index in the module (its symbol's number) */
  bool air_ops;          /* holds DMAs, allocs or air.executes (air_cg_unit_air_ops) */
  /* Every op under the unit in preorder (air_cg_unit_ops), so the executor finds
   * the op a hook or an error names in one step; NULL: use air_cg_op_at. */
  const air_op_t* const* ops;
  uint32_t n_ops;
} air_cg_unit_t;

/* The ops under unit `op` in preorder, `op` first (what air_cg_op_at numbers):
 * their count, and the ops written to `out` unless it is NULL. */
uint32_t air_cg_unit_ops(const air_op_t* op, const air_op_t** out);

/* Results a unit writes to frame->out: the op's, none for a herd body unit. */
static inline uint32_t air_cg_unit_n_out(const air_op_t* op) {
  return op->kind == AIR_OP_HERD ? 0 : op->n_results;
}

/* True when something under unit `op` is an AIR op (a DMA, memref.alloc/dealloc
 * or air.execute, run through the frame's hooks): the executor interprets such a
 * unit when it traces, so every op keeps its own span. */
bool air_cg_unit_air_ops(const air_op_t* op);

typedef struct air_cg_stats_t {
  uint32_t n_units;      /* compiled */
  uint32_t n_skipped;    /* candidate ops the generator does not cover (interpreted) */
  int64_t emit_ns;       /* AIR -> LLVM IR */
  int64_t opt_ns;        /* the optimisation pipeline */
  int64_t codegen_ns;    /* machine code (JIT materialisation or object emission) */
} air_cg_stats_t;

/* What one gpu_compile call used and cost. */
typedef struct air_cg_gpu_stats_t {
  uint32_t n_kernels;
  int64_t emit_ns, opt_ns, codegen_ns, link_ns;
  char toolchain[256];   /* e.g. "LLVM 16.0.6 C API + /usr/bin/ld.lld-16" */
} air_cg_gpu_stats_t;

struct air_schedule_t;
struct air_target_t;

typedef struct air_cg_hooks_t {
  uint32_t abi_version;  /* AIR_CG_ABI_VERSION */
  const char* name;      /* "llvm-16" */
  /* AIR_VERSION_STRING of the libairrt it was built with: the generator reads
   * the program's IR structures, so it must come from the same build. */
  const char* build;
  /* JIT-compiles every unit of `program` (which must outlive the result). An
   * op it does not cover is left out (the interpreter runs it), not an error. */
  air_status_t (*compile)(const air_allocator_t* allocator, const air_program_t* program,
                          air_cg_program_t** out);
  void (*release)(air_cg_program_t* compiled);
  /* The compiled unit for `op`, or NULL. */
  const air_cg_unit_t* (*find)(const air_cg_program_t* compiled, const air_op_t* op);
  void (*stats)(const air_cg_program_t* compiled, air_cg_stats_t* out);
  /* Emits every unit of `program` into one relocatable x86-64 object for an
   * artifact (the loader's rules: hal/host_object.h), each unit the function
   * "air_unit_<N>" where N is the unit op's preorder index in the module
   * (air_cg_op_at(program->module, N)). `*bytes` is NULL (and `*n_units` 0) when
   * the program has no unit; the bytes are the allocator's. */
  air_status_t (*emit_object)(const air_allocator_t* allocator, const air_program_t* program,
                              void** bytes, size_t* size, uint32_t* n_units);
  /* ABI 3. GPU kernels (docs/gpu.md): one per launch of `schedule`'s entry for
   * GPU target `target` (a row with a gfx processor), built with the toolchain
   * found for it and attached as code objects to schedule->gpu; `stats` (may be
   * NULL) says which toolchain and what it cost. What a GPU kernel cannot do is
   * UNIMPLEMENTED at the op; a processor no toolchain here can build is
   * UNAVAILABLE naming what is needed. */
  air_status_t (*gpu_compile)(const air_allocator_t* allocator, const air_program_t* program,
                              struct air_schedule_t* schedule, const struct air_target_t* target,
                              air_cg_gpu_stats_t* stats);
} air_cg_hooks_t;

#define AIR_CG_ABI_VERSION 3u

/* The C library functions generated code may call (libm for maxnumf/minnumf and
 * math ops, the mem* functions LLVM makes of loop idioms): the JIT resolves only
 * these, and the object loader (hal/host_object.c) links only these. X(name). */
#define AIR_CG_EXTERNALS(X)                                                                  \
  X(fmax) X(fmin) X(fmaxf) X(fminf) X(memcpy) X(memmove) X(memset) X(fma) X(fmaf) X(sqrt)     \
  X(sqrtf) X(cbrt) X(cbrtf) X(exp) X(expf) X(exp2) X(exp2f) X(expm1) X(expm1f) X(log) X(logf) \
  X(log2) X(log2f) X(log10) X(log10f) X(log1p) X(log1pf) X(pow) X(powf) X(sin) X(sinf)       \
  X(cos) X(cosf) X(tan) X(tanf) X(tanh) X(tanhf) X(atan) X(atanf) X(atan2) X(atan2f) X(erf)   \
  X(erff) X(floor) X(floorf) X(ceil) X(ceilf) X(round) X(roundf) X(rint) X(rintf) X(trunc)    \
  X(truncf) X(fabs) X(fabsf) X(copysign) X(copysignf)

/* The one symbol a code generator library exports: it returns its hook table. */
#define AIR_CG_ENTRY_SYMBOL "air_codegen_hooks"
typedef const air_cg_hooks_t* (*air_cg_entry_fn_t)(void);

#endif /* AIR_HAL_COMPILED_H_ */

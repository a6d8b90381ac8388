/* cg_gpu_kernel.h - GPU kernels from launch bodies, shared by the cg_gpu*.c
 * files (docs/gpu.md, "Kernel generation"):
 *
 *   cg_gpu_plan.c    one launch analysed: roles, the mapping, the memory plan
 *                    (LDS, L2 spill, private), channels, kernel arguments; what a
 *                    GPU kernel cannot do is refused here, at the op
 *   cg_gpu_grid.c    the segment chain: segment instances -> workgroups (the
 *                    MI3xx XCD mapping), checked against the target's XCDs/CUs
 *   cg_gpu_target.c  what differs between amdgcn and the host workgroup simulator
 *                    (ids, barriers, sleep-waits, traps, LDS) and the low-level
 *                    pieces built on it (atomics, access patterns, copy loops)
 *   cg_gpu_bind.c    values and memrefs a role uses but does not define
 *   cg_gpu_ops.c     the AIR ops the core emitter does not know (channels, DMA,
 *                    execute, wait_all, scf.parallel, linalg)
 *   cg_gpu_emit.c    the kernel function: prologue, roles, the op dispatcher
 *   cg_gpu_link.c    the toolchain: finding it, objects to code objects
 *   cg_gpu.c         cg_gpu.h: every launch of an entry, for a GPU or simulated
 *
 * Every op is emitted by the shared emitter (cg_emit.c, cg_scalar.c) or by
 * cg_gpu_ops.c through the emitter's extension hooks; the two targets differ only
 * in the hooks of cg_gpu_target.c. */
#ifndef AIR_CODEGEN_CG_GPU_KERNEL_H_
#define AIR_CODEGEN_CG_GPU_KERNEL_H_

#include "codegen/cg_gpu.h"
#include "codegen/cg_internal.h"
#include "runtime/target/target.h"
#include "scheduler/gpu_code.h"

/*--- the plan of one launch ----------------------------------------------------*/

enum { CG_GPU_LDS = 3, CG_GPU_SPILL = 1, CG_GPU_PRIVATE = 5 };
/* Where the role being emitted sits in the hierarchy. */
enum { CG_LVL_LAUNCH = 0, CG_LVL_SEGMENT = 1, CG_LVL_HERD = 2 };

typedef struct cg_gpu_buf_t {
  const air_op_t* alloc;
  uint32_t where;           /* CG_GPU_LDS, CG_GPU_SPILL or CG_GPU_PRIVATE */
  uint64_t offset, bytes;   /* in the LDS / the workgroup's spill slice */
} cg_gpu_buf_t;

typedef struct cg_gpu_chan_t {
  const air_op_t* decl;     /* the air.channel */
  uint32_t instances, depth;
  uint32_t offset;          /* of its state in LDS */
  uint32_t dims[4];
  uint32_t n_dims;
  bool put_herd, get_herd;  /* a PE puts / gets */
} cg_gpu_chan_t;

/* Channel state in LDS (per instance): tickets, then `depth` slots. */
enum {
  CG_CH_HEAD = 16,          /* u32 put_ticket, u32 get_ticket, 8 spare */
  CG_PAT_BYTES = 96,        /* ptr base, i64 start, i64 size[4], i64 stride[4], i32 esize, i32 priv */
  CG_SLOT_BYTES = 16 + 2 * CG_PAT_BYTES, /* u32 posted[2], u32 done, u32 pad, pats */
  CG_CTL_BYTES = 16,        /* u32 segment_started, herd_started, herd_done, segment_done */
};

/* One segment of the launch's chain of nested segments (outermost first); its
 * iteration space is static. The innermost segment's instance is one workgroup;
 * an outer instance spans the workgroups of every segment inside it. */
enum { CG_GPU_MAX_SEGS = 4 };
typedef struct cg_gpu_seg_t {
  const air_op_t* op;
  uint32_t n_dims;
  uint32_t size[4];
  uint32_t instances;       /* product of size */
  bool xcd;                 /* backend-granularity = XCD: one instance per XCD */
} cg_gpu_seg_t;

/* What the walk saw at each depth (0: the launch body, d: inside segs[d - 1])
 * that the segment chain decides on (cg_gpu_grid_finish). */
typedef struct cg_gpu_depth_use_t {
  const air_op_t* effect;   /* first op with effects (store, DMA, linalg, channel) */
  const air_op_t* l2;       /* first L2 allocation */
  const air_op_t* herd;     /* first herd */
} cg_gpu_depth_use_t;

typedef struct cg_gpu_plan_t {
  const air_program_t* p;
  const air_target_t* t;
  const air_op_t* func;
  const air_op_t* launch;
  const air_op_t* segment;  /* the innermost segment */
  const air_op_t* herd;     /* the (first) herd */
  uint32_t n_segs;
  cg_gpu_seg_t segs[CG_GPU_MAX_SEGS];
  uint32_t seg_instances;   /* segment instances per launch instance */
  int32_t xcd_seg;          /* index into segs of the XCD segment, or -1 */
  uint32_t xcds;            /* the target's XCDs (the grid's round-robin period) */
  uint32_t wg_per_launch;   /* workgroups per launch instance (XCD padding included) */
  uint32_t mapping;         /* air_gpu_mapping_t */
  uint32_t wave_size, workgroup;
  uint32_t fixed_roles, pes, pes_per_wave;
  bool launch_role, segment_role;
  uint32_t herd_size[2];
  uint32_t n_bufs;
  cg_gpu_buf_t* bufs;
  uint32_t n_chans;
  cg_gpu_chan_t* chans;
  uint32_t lds_bytes;       /* total, 16-aligned */
  uint32_t lds_init_bytes;  /* control words and channel state, zeroed at start */
  uint64_t spill_bytes;     /* per workgroup */
  air_gpu_size_t grid[3];
  uint32_t n_grid;
  uint32_t n_params;        /* entry parameters (kernel arguments 0..n-1) */
} cg_gpu_plan_t;

air_status_t cg_gpu_plan(const air_allocator_t* a, const air_program_t* p, const air_op_t* func,
                         const air_op_t* launch, const air_target_t* t, cg_gpu_plan_t* out);
void cg_gpu_plan_free(const air_allocator_t* a, cg_gpu_plan_t* plan);
const cg_gpu_buf_t* cg_gpu_plan_buf(const cg_gpu_plan_t* plan, const air_op_t* alloc);
const cg_gpu_chan_t* cg_gpu_plan_chan(const cg_gpu_plan_t* plan, const char* sym);
/* The HIER op whose body (directly or nested) holds `op`, or NULL. */
const air_op_t* cg_gpu_enclosing_hier(const air_op_t* op);

/* cg_gpu_grid.c: `seg`, met at `depth` (segments around it), added to the chain
 * (sizes, backend-granularity); then, after the walk, the chain's workgroups and
 * limits, and what the levels above the innermost segment may hold (`use` has
 * n_segs + 1 entries). */
air_status_t cg_gpu_grid_add(cg_gpu_plan_t* pl, const air_op_t* seg, uint32_t depth);
air_status_t cg_gpu_grid_finish(cg_gpu_plan_t* pl, const cg_gpu_depth_use_t* use,
                                const air_op_t* first_channel_op);
/* A size known at compile time: a constant, or a hierarchy size block argument
 * bound to one. */
bool cg_gpu_const_of(const air_program_t* p, air_vid_t v, int64_t* out);

/*--- the kernel being emitted ---------------------------------------------------*/

typedef enum { CG_GPU_TARGET_AMDGCN = 0, CG_GPU_TARGET_SIM = 1 } cg_gpu_target_kind_t;

typedef struct cg_gpu_t {
  cg_fn_t* f;
  const cg_gpu_plan_t* plan;
  cg_gpu_target_kind_t kind;
  LLVMValueRef kernarg;     /* sim: the kernarg pointer */
  LLVMValueRef simctx;      /* sim: the air_gpu_sim_ctx_t pointer */
  LLVMValueRef lid, wgid;   /* i32 */
  LLVMValueRef lds;         /* LDS base (addrspace 3 on amdgcn) */
  LLVMValueRef spill;       /* this workgroup's spill slice, or NULL */
  LLVMValueRef launch_ids[3];
  LLVMValueRef seg_ids[CG_GPU_MAX_SEGS][4]; /* i64, from the workgroup id */
  LLVMValueRef herd_ids[2]; /* set in a PE's code */
  LLVMValueRef pe;          /* i32 PE index (waves mapping, in a PE's code) */
  LLVMValueRef uniform_first; /* i1: the work-item that does single writes (threads mapping) */
  LLVMBasicBlockRef alloca_end; /* the entry's alloca block (no terminator until the end) */
  LLVMBasicBlockRef pro_end;  /* the current role's prologue (no terminator until its end) */
  LLVMValueRef* privates;   /* per buffer: its alloca, when private */
  uint32_t pro_depth;       /* > 0 while emitting into the prologue */
  uint32_t line;            /* source line of the op being emitted (failures) */
  uint32_t level;           /* CG_LVL_* of the code being emitted */
  bool all_items;           /* threads mapping outside a herd: every work-item runs this */
  uint32_t n_mems_cap;
} cg_gpu_t;

static inline cg_gpu_t* cg_gpu_of(cg_fn_t* f) { return (cg_gpu_t*)f->ext; }

/* cg_gpu_target.c */
LLVMTypeRef cg_gpu_ptr(cg_gpu_t* g, uint32_t as);       /* ptr in `as` (0 on the simulator) */
LLVMValueRef cg_gpu_i32(cg_gpu_t* g, int64_t v);
LLVMValueRef cg_gpu_i64(cg_gpu_t* g, int64_t v);
void cg_gpu_target_ids(cg_gpu_t* g);                      /* lid, wgid at the insertion point */
LLVMValueRef cg_gpu_target_kernarg(cg_gpu_t* g, uint32_t slot, bool pointer, uint32_t as);
LLVMValueRef cg_gpu_target_lds(cg_gpu_t* g);
void cg_gpu_target_barrier(cg_gpu_t* g);
/* One pause of a sleep-wait; returns i1 "give up" (the simulator's dispatch failed
 * or timed out; on amdgcn after about a minute of sleeping, which then traps). */
LLVMValueRef cg_gpu_target_pause(cg_gpu_t* g, LLVMValueRef count);
/* Ends the current block failing the dispatch with `code` at `op`'s line. */
void cg_gpu_target_fail(cg_gpu_t* g, int32_t code, uint32_t line);
/* Checks: fails when `bad` holds (the builder continues on the good path). */
void cg_gpu_fail_if(cg_gpu_t* g, LLVMValueRef bad, int32_t code, uint32_t line);
/* Atomic 32-bit accesses (sequentially consistent, system scope). */
LLVMValueRef cg_gpu_load32(cg_gpu_t* g, LLVMValueRef ptr);
void cg_gpu_store32(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef v);
LLVMValueRef cg_gpu_add32(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef v);
LLVMValueRef cg_gpu_gep(cg_gpu_t* g, LLVMValueRef base, LLVMValueRef byte_off);
/* Sleep-waits until the 32-bit word at `ptr` is >= `want`; gives up failing. */
void cg_gpu_wait_ge(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef want, uint32_t line);

/* An access pattern (the interpreter's, hal/cpu/interp/pattern.c) as values:
 * element (i0..i3) is at base[start + sum i_k * stride_k], 4 dims (leading ones
 * of size 1). */
typedef struct cg_gpu_pat_t {
  LLVMValueRef base;        /* pointer (any address space) */
  LLVMValueRef start;       /* i64 */
  LLVMValueRef size[4], stride[4];
  uint32_t esize;           /* static for own patterns; 0: `esize_v` */
  LLVMValueRef esize_v;     /* i32 */
  LLVMValueRef priv;        /* i32: 1 when the memory is one work-item's private */
} cg_gpu_pat_t;
/* Copies every element of src into dst (same count, checked) on work-items lane,
 * lane + lanes, ...; fails at `line` when the counts or element sizes differ. */
void cg_gpu_copy(cg_gpu_t* g, const cg_gpu_pat_t* dst, const cg_gpu_pat_t* src,
                 LLVMValueRef lane, LLVMValueRef lanes, uint32_t line);
/* A counted loop i = lo, lo + step, ... < hi (i64); returns the i64 index at the
 * body's start; cg_gpu_loop_end closes it. */
typedef struct cg_gpu_loop_t {
  LLVMBasicBlockRef pre, head, body, exit;
  LLVMValueRef i, step;
} cg_gpu_loop_t;
LLVMValueRef cg_gpu_loop_begin(cg_gpu_t* g, cg_gpu_loop_t* l, LLVMValueRef lo, LLVMValueRef hi,
                               LLVMValueRef step);
void cg_gpu_loop_end(cg_gpu_t* g, cg_gpu_loop_t* l);

/* cg_gpu_bind.c */
LLVMValueRef cg_gpu_value(cg_fn_t* f, air_vid_t v);       /* the ext_value hook */
cg_mem_t* cg_gpu_mem(cg_fn_t* f, air_vid_t v);            /* the ext_mem hook */
void cg_gpu_begin_role(cg_gpu_t* g, LLVMBasicBlockRef prologue);
/* Memory space (AIR_MEM_*) of a memref value. */
int32_t cg_gpu_memspace(const air_program_t* p, air_vid_t v);

/* cg_gpu_emit.c: the kernel of `plan` as function `name` of module `m`. */
air_status_t cg_gpu_emit(air_cg_module_t* m, const cg_gpu_plan_t* plan, cg_gpu_target_kind_t kind,
                         const char* name);

/* cg_gpu_link.c: the module's code object for `tc` (its bytes the allocator's). */
air_status_t cg_gpu_link(air_cg_module_t* m, const air_cg_gpu_toolchain_t* tc, void** out,
                         size_t* out_size, int64_t* codegen_ns, int64_t* link_ns);

/* cg_gpu_ops.c */
bool cg_gpu_op(cg_fn_t* f, const air_op_t* op);           /* ops beyond the core */
/* Before an op of the waves mapping: waits for the hierarchy tokens it names. */
void cg_gpu_wait_tokens(cg_gpu_t* g, const air_op_t* op);
/* The work-items that share the work of a DMA, linalg op or store here. */
void cg_gpu_share(cg_gpu_t* g, LLVMValueRef* lane, LLVMValueRef* lanes);

#endif /* AIR_CODEGEN_CG_GPU_KERNEL_H_ */

/* cg_gpu_emit.c - one launch as one kernel function (cg_gpu_kernel.h).
 *
 * The kernel: private buffers (allocas) first; then the work-item and workgroup
 * ids, the launch ids (workgroup id decomposed row-major over the launch's
 * iteration space), the LDS control words and channel state zeroed, a barrier.
 * Then, in the threads mapping, every work-item runs the launch body (segment
 * body inline, each herd a phase between barriers); in the waves mapping each
 * role runs on its own path: the launch body on lane 0 of one wave, the segment
 * body on lane 0 of the next, and each PE on a lane of the waves after them; the
 * segment starts when the launch body reaches it, the herd when the segment body
 * reaches it (LDS flags), and waits on their tokens wait for their completion
 * counters. Ops go through the shared emitter, which asks cg_gpu_op first. */
#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_gpu_kernel.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

static void fail_hook(cg_fn_t* f, int32_t code) {
  cg_gpu_target_fail(cg_gpu_of(f), code, cg_gpu_of(f)->line);
}

static void add_attr(air_cg_module_t* m, LLVMValueRef fn, const char* k, const char* v) {
  LLVMAttributeRef a = LLVMCreateStringAttribute(m->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
}

static LLVMValueRef make_function(cg_gpu_t* g, const char* name) {
  cg_fn_t* f = g->f;
  air_cg_module_t* m = f->m;
  const cg_gpu_plan_t* pl = g->plan;
  if (g->kind == CG_GPU_TARGET_SIM) {
    LLVMTypeRef ps[2] = {m->ptr, m->ptr};
    return LLVMAddFunction(m->mod, name, LLVMFunctionType(m->voidt, ps, 2, 0));
  }
  /* Kernel arguments: one 8-byte slot per entry parameter (memrefs as global
   * pointers, scalars as their 64-bit word), then the spill area. */
  LLVMTypeRef ps[65];
  uint32_t n = pl->n_params + (pl->spill_bytes ? 1 : 0);
  LLVMTypeRef gp = LLVMPointerTypeInContext(m->ctx, 1);
  for (uint32_t i = 0; i < pl->n_params; ++i)
    ps[i] = air_ir_type(pl->p, pl->func->types[i])->kind == AIR_TYPE_MEMREF ? gp : m->i64;
  if (pl->spill_bytes) ps[pl->n_params] = gp;
  LLVMValueRef fn = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->voidt, ps, n, 0));
  if (m->target.entry) m->target.entry(m, fn);
  char wg[32];
  snprintf(wg, sizeof wg, "%u,%u", pl->workgroup, pl->workgroup);
  add_attr(m, fn, "amdgpu-flat-work-group-size", wg);
  add_attr(m, fn, "uniform-work-group-size", "true");
  /* Only the explicit arguments: no hidden ones to fill at dispatch. */
  add_attr(m, fn, "amdgpu-implicitarg-num-bytes", "0");
  return fn;
}

/* True when `op` holds up the ops after it in program order: a synchronous AIR
 * op with effects, or a loop or branch holding one. */
static bool blocking(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CHANNEL_IO: case AIR_OPC_DMA: case AIR_OPC_EXECUTE: case AIR_OPC_WAIT_ALL:
    case AIR_OPC_HIER:
      return !(op->flags & AIR_OPF_ASYNC) && !op->n_results;
    case AIR_OPC_STORE: case AIR_OPC_LINALG: return true;
    case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF: case AIR_OPC_AFFINE_IF:
    case AIR_OPC_PARALLEL:
      for (uint32_t r = 0; r < op->n_regions; ++r)
        for (const air_op_t* o = op->regions[r]->first; o; o = o->next)
          if (blocking(o)) return true;
      return false;
    default: return false;
  }
}

/* The op of `child`'s block after which `child` (a segment or herd, its own role)
 * may start: the last one before it that blocks or that makes one of its
 * dependency tokens; NULL when it may start at once. Starting any later could
 * deadlock: async ops before it run concurrently with it in AIR. */
static const air_op_t* start_after(const air_program_t* p, const air_op_t* child) {
  const air_op_t* after = NULL;
  for (const air_op_t* o = child->parent->first; o && o != child; o = o->next) {
    bool makes = false;
    for (uint32_t i = 0; i < child->toks[AIR_TOK_DEP].n && !makes; ++i) {
      const air_value_info_t* vi = air_ir_value(p, child->toks[AIR_TOK_DEP].items[i]);
      makes = vi->def == o;
    }
    if (makes || blocking(o)) after = o;
  }
  return after;
}

/* The ops of a role's block, the child role started at its start point. */
static void emit_role_block(cg_gpu_t* g, const air_block_t* b, const air_op_t* child, int word) {
  cg_fn_t* f = g->f;
  const air_op_t* after = child ? start_after(f->p, child) : NULL;
  if (child && !after) cg_gpu_store32(g, cg_gpu_gep(g, g->lds, cg_gpu_i64(g, 4 * word)), cg_gpu_i32(g, 1));
  for (const air_op_t* o = b->first; o && !f->st; o = o->next) {
    if (air_opkind_class(o->kind) == AIR_OPC_TERMINATOR) break;
    cg_emit_op(f, o);
    if (child && o == after)
      cg_gpu_store32(g, cg_gpu_gep(g, g->lds, cg_gpu_i64(g, 4 * word)), cg_gpu_i32(g, 1));
  }
}

/* A role: its prologue (filled as the body asks for outside values) and body. */
typedef enum { ROLE_ALL, ROLE_LAUNCH, ROLE_SEGMENT, ROLE_HERD } role_t;

static void emit_role(cg_gpu_t* g, role_t role, LLVMBasicBlockRef pro, LLVMValueRef wave,
                      LLVMValueRef lane) {
  cg_fn_t* f = g->f;
  air_cg_module_t* m = f->m;
  LLVMBuilderRef B = f->b;
  const cg_gpu_plan_t* pl = g->plan;
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "role");
  cg_gpu_begin_role(g, pro);
  LLVMPositionBuilderAtEnd(B, body);
  LLVMValueRef ctl = g->lds;
  switch (role) {
    case ROLE_ALL:
      g->level = CG_LVL_LAUNCH;
      g->all_items = true;
      cg_emit_block(f, pl->launch->regions[0]);
      break;
    case ROLE_LAUNCH:
      g->level = CG_LVL_LAUNCH;
      emit_role_block(g, pl->launch->regions[0], pl->segment_role ? pl->segment : NULL, 0);
      break;
    case ROLE_SEGMENT:
      g->level = CG_LVL_SEGMENT;
      g->line = pl->segment->line;
      if (pl->launch_role) cg_gpu_wait_ge(g, cg_gpu_gep(g, ctl, cg_gpu_i64(g, 0)), cg_gpu_i32(g, 1), pl->segment->line);
      emit_role_block(g, pl->segment->regions[0], pl->herd, 1);
      cg_gpu_store32(g, cg_gpu_gep(g, ctl, cg_gpu_i64(g, 12)), cg_gpu_i32(g, 1));
      break;
    case ROLE_HERD: {
      g->level = CG_LVL_HERD;
      g->line = pl->herd->line;
      LLVMValueRef pe = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildSub(B, wave, cg_gpu_i32(g, pl->fixed_roles), ""),
                                                     cg_gpu_i32(g, pl->pes_per_wave), ""), lane, "pe");
      LLVMValueRef pe64 = LLVMBuildZExt(B, pe, m->i64, "");
      g->pe = pe;
      g->herd_ids[0] = LLVMBuildURem(B, pe64, cg_gpu_i64(g, pl->herd_size[0]), "tx");
      g->herd_ids[1] = LLVMBuildUDiv(B, pe64, cg_gpu_i64(g, pl->herd_size[0]), "ty");
      if (pl->segment_role) cg_gpu_wait_ge(g, cg_gpu_gep(g, ctl, cg_gpu_i64(g, 4)), cg_gpu_i32(g, 1), pl->herd->line);
      cg_emit_block(f, pl->herd->regions[0]);
      cg_gpu_add32(g, cg_gpu_gep(g, ctl, cg_gpu_i64(g, 8)), cg_gpu_i32(g, 1));
      break;
    }
  }
  LLVMBuildRetVoid(B);
  LLVMPositionBuilderAtEnd(B, g->pro_end);
  LLVMBuildBr(B, body);
}

/* Branches to a role's prologue when `cond` holds, continuing after it. */
static void role_if(cg_gpu_t* g, LLVMValueRef cond, role_t role, LLVMValueRef wave, LLVMValueRef lane) {
  air_cg_module_t* m = g->f->m;
  LLVMBasicBlockRef pro = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "role.pro");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "role.next");
  LLVMBuildCondBr(g->f->b, cond, pro, next);
  emit_role(g, role, pro, wave, lane);
  LLVMPositionBuilderAtEnd(g->f->b, next);
}

/* A linear index split row-major over `n` constant sizes (the last fastest). */
static LLVMValueRef split(cg_gpu_t* g, LLVMValueRef lin, uint32_t n, const uint32_t* size,
                          LLVMValueRef* ids) {
  LLVMBuilderRef B = g->f->b;
  for (uint32_t d = n; d-- > 0;) {
    ids[d] = LLVMBuildURem(B, lin, cg_gpu_i64(g, size[d]), "seg.id");
    lin = LLVMBuildUDiv(B, lin, cg_gpu_i64(g, size[d]), "");
  }
  return lin;
}

/* The launch and segment ids from the workgroup id (cg_gpu_grid.c): with an XCD
 * segment, its instance is the id modulo the XCD count (the round-robin order in
 * which the GPU hands workgroups to XCDs) and padding workgroups end here; the
 * rest, row-major over the launch's dimensions then the other segments',
 * innermost fastest. */
static void emit_ids(cg_gpu_t* g, LLVMValueRef wg64) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  const cg_gpu_plan_t* pl = g->plan;
  LLVMValueRef lin = wg64;
  if (pl->xcd_seg >= 0) {
    const cg_gpu_seg_t* x = &pl->segs[pl->xcd_seg];
    LLVMValueRef xi = LLVMBuildURem(B, lin, cg_gpu_i64(g, pl->xcds), "xcd");
    lin = LLVMBuildUDiv(B, lin, cg_gpu_i64(g, pl->xcds), "");
    if (x->instances < pl->xcds) {
      LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "xcd.pad");
      LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "xcd.run");
      LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, xi, cg_gpu_i64(g, x->instances), ""), go, pad);
      LLVMPositionBuilderAtEnd(B, pad);
      LLVMBuildRetVoid(B);
      LLVMPositionBuilderAtEnd(B, go);
    }
    split(g, xi, x->n_dims, x->size, g->seg_ids[pl->xcd_seg]);
  }
  for (uint32_t i = pl->n_segs; i-- > 0;)
    if ((int32_t)i != pl->xcd_seg) lin = split(g, lin, pl->segs[i].n_dims, pl->segs[i].size, g->seg_ids[i]);
  for (uint32_t d = pl->n_grid; d-- > 0;) {
    LLVMValueRef sz = pl->grid[d].param == UINT32_MAX ? cg_gpu_i64(g, pl->grid[d].value)
                                                      : cg_gpu_target_kernarg(g, pl->grid[d].param, false, 0);
    g->launch_ids[d] = d ? LLVMBuildURem(B, lin, sz, "") : lin;
    if (d) lin = LLVMBuildUDiv(B, lin, sz, "");
  }
}

static void emit_kernel(cg_gpu_t* g, const char* name) {
  cg_fn_t* f = g->f;
  air_cg_module_t* m = f->m;
  LLVMBuilderRef B = f->b;
  const cg_gpu_plan_t* pl = g->plan;
  f->fn = make_function(g, name);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "start");
  LLVMPositionBuilderAtEnd(B, entry);
  for (uint32_t i = 0; i < pl->n_bufs; ++i)
    if (pl->bufs[i].where == CG_GPU_PRIVATE) {
      LLVMValueRef a = LLVMBuildAlloca(B, LLVMArrayType(m->i8, (unsigned)pl->bufs[i].bytes), "l1");
      LLVMSetAlignment(a, 16);
      g->privates[i] = a;
    }
  LLVMBuildBr(B, start);
  LLVMPositionBuilderAtEnd(B, start);
  if (g->kind == CG_GPU_TARGET_SIM) {
    g->kernarg = LLVMGetParam(f->fn, 0);
    g->simctx = LLVMGetParam(f->fn, 1);
  }
  cg_gpu_target_ids(g);
  g->lds = cg_gpu_target_lds(g);
  LLVMValueRef wg64 = LLVMBuildZExt(B, g->wgid, m->i64, "");
  if (pl->spill_bytes)
    g->spill = cg_gpu_gep(g, cg_gpu_target_kernarg(g, pl->n_params, true, CG_GPU_SPILL),
                          LLVMBuildMul(B, wg64, cg_gpu_i64(g, (int64_t)pl->spill_bytes), ""));
  emit_ids(g, wg64);
  /* LDS control words and channel state start at zero. */
  if (pl->mapping == AIR_GPU_MAP_WAVES) {
  cg_gpu_loop_t l;
  LLVMValueRef w = cg_gpu_loop_begin(g, &l, LLVMBuildZExt(B, g->lid, m->i64, ""),
                                     cg_gpu_i64(g, pl->lds_init_bytes / 4), cg_gpu_i64(g, pl->workgroup));
  LLVMBuildStore(B, cg_gpu_i32(g, 0), cg_gpu_gep(g, g->lds, LLVMBuildMul(B, w, cg_gpu_i64(g, 4), "")));
  cg_gpu_loop_end(g, &l);
  cg_gpu_target_barrier(g);
  }
  if (pl->mapping == AIR_GPU_MAP_THREADS) {
    g->uniform_first = LLVMBuildICmp(B, LLVMIntEQ, g->lid, cg_gpu_i32(g, 0), "");
    LLVMBasicBlockRef pro = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "role.pro");
    LLVMBuildBr(B, pro);
    emit_role(g, ROLE_ALL, pro, NULL, NULL);
    return;
  }
  LLVMValueRef ws = cg_gpu_i32(g, pl->wave_size);
  LLVMValueRef wave = LLVMBuildUDiv(B, g->lid, ws, "wave"), lane = LLVMBuildURem(B, g->lid, ws, "lane");
  LLVMValueRef lane0 = LLVMBuildICmp(B, LLVMIntEQ, lane, cg_gpu_i32(g, 0), "");
  uint32_t r = 0;
  if (pl->launch_role && !f->st)
    role_if(g, LLVMBuildAnd(B, lane0, LLVMBuildICmp(B, LLVMIntEQ, wave, cg_gpu_i32(g, r++), ""), ""),
            ROLE_LAUNCH, wave, lane);
  if (pl->segment_role && !f->st)
    role_if(g, LLVMBuildAnd(B, lane0, LLVMBuildICmp(B, LLVMIntEQ, wave, cg_gpu_i32(g, r++), ""), ""),
            ROLE_SEGMENT, wave, lane);
  if (!f->st) {
    LLVMValueRef hw = LLVMBuildSub(B, wave, cg_gpu_i32(g, pl->fixed_roles), "");
    LLVMValueRef pe = LLVMBuildAdd(B, LLVMBuildMul(B, hw, cg_gpu_i32(g, pl->pes_per_wave), ""), lane, "");
    LLVMValueRef in = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntUGE, wave, cg_gpu_i32(g, pl->fixed_roles), ""),
                                   LLVMBuildICmp(B, LLVMIntULT, lane, cg_gpu_i32(g, pl->pes_per_wave), ""), "");
    in = LLVMBuildAnd(B, in, LLVMBuildICmp(B, LLVMIntULT, pe, cg_gpu_i32(g, pl->pes), ""), "");
    role_if(g, in, ROLE_HERD, wave, lane);
  }
  LLVMBuildRetVoid(B);
}

air_status_t cg_gpu_emit(air_cg_module_t* m, const cg_gpu_plan_t* pl, cg_gpu_target_kind_t kind,
                         const char* name) {
  const air_program_t* p = pl->p;
  int64_t t0 = cg_now_ns();
  cg_fn_t f;
  cg_gpu_t g;
  memset(&f, 0, sizeof f);
  memset(&g, 0, sizeof g);
  f.m = m;
  f.p = p;
  f.unit = pl->launch;
  f.emit_block = cg_emit_block;
  f.ext_op = cg_gpu_op;
  f.ext_value = cg_gpu_value;
  f.ext_mem = cg_gpu_mem;
  f.ext_fail = fail_hook;
  f.ext = &g;
  g.f = &f;
  g.plan = pl;
  g.kind = kind;
  g.n_mems_cap = p->n_values ? p->n_values : 1;
  if (pl->n_params > 64)
    return AIR_IR_ERROR(p, AIR_STATUS_UNIMPLEMENTED, pl->func->line, pl->func->col,
                        "a GPU kernel takes at most 64 entry parameters");
  f.vals = air_mem_calloc(&m->alloc, g.n_mems_cap, sizeof *f.vals);
  f.mems = air_mem_calloc(&m->alloc, g.n_mems_cap, sizeof *f.mems);
  g.privates = air_mem_calloc(&m->alloc, pl->n_bufs ? pl->n_bufs : 1, sizeof *g.privates);
  air_status_t st = NULL;
  if (!f.vals || !f.mems || !g.privates) {
    st = AIR_STATUS_OOM(&m->alloc, "GPU kernel emission");
  } else {
    f.b = LLVMCreateBuilderInContext(m->ctx);
    emit_kernel(&g, name);
    LLVMDisposeBuilder(f.b);
    st = f.st;
    if (!st && LLVMVerifyFunction(f.fn, LLVMReturnStatusAction)) {
      char* msg = NULL;
      LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg);
      st = AIR_STATUS(&m->alloc, AIR_STATUS_INTERNAL, "code generator made invalid IR for kernel %s: %s",
                      name, msg ? msg : "?");
      LLVMDisposeMessage(msg);
    }
    if (st && f.fn) LLVMDeleteFunction(f.fn);
  }
  air_mem_free(&m->alloc, f.vals);
  air_mem_free(&m->alloc, f.mems);
  air_mem_free(&m->alloc, g.privates);
  if (!st) m->n_funcs++;
  m->emit_ns += cg_now_ns() - t0;
  return st;
}

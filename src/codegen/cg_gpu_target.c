/* cg_gpu_target.c - what differs between the two GPU targets, and the low-level
 * pieces built on it (cg_gpu_kernel.h).
 *
 * amdgcn: work-item and workgroup ids from llvm.amdgcn.workitem.id.x /
 * workgroup.id.x, kernel arguments as the kernel's parameters, LDS as an
 * addrspace(3) global of the planned size (the code object's
 * group_segment_fixed_size), barriers as s_barrier between release and acquire
 * fences, sleep-waits as s_sleep, failures as a trap (the queue then reports the
 * dispatch as failed). The host workgroup simulator: the same from an
 * air_gpu_sim_ctx_t (cg_gpu.h) the simulator fills per work-item, failures as a
 * call that records the error followed by a return. Everything else is shared. */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_gpu_kernel.h"

/* About a minute of s_sleep 2 (~128 clocks each at ~2 GHz) before a wait gives up
 * and traps: a deadlocked kernel fails instead of hanging the GPU queue. */
#define CG_GPU_SPIN_LIMIT (1u << 30)

static LLVMTypeRef ptr_as(cg_gpu_t* g, uint32_t as) {
  return LLVMPointerTypeInContext(g->f->m->ctx, g->kind == CG_GPU_TARGET_SIM ? 0 : as);
}
LLVMTypeRef cg_gpu_ptr(cg_gpu_t* g, uint32_t as) { return ptr_as(g, as); }
LLVMValueRef cg_gpu_i32(cg_gpu_t* g, int64_t v) {
  return LLVMConstInt(g->f->m->i32, (unsigned long long)v, 1);
}
LLVMValueRef cg_gpu_i64(cg_gpu_t* g, int64_t v) {
  return LLVMConstInt(g->f->m->i64, (unsigned long long)v, 1);
}

LLVMValueRef cg_gpu_gep(cg_gpu_t* g, LLVMValueRef base, LLVMValueRef byte_off) {
  return LLVMBuildGEP2(g->f->b, g->f->m->i8, base, &byte_off, 1, "");
}

/* A field of the simulator's context. */
static LLVMValueRef sim_field(cg_gpu_t* g, int64_t off, LLVMTypeRef t) {
  return LLVMBuildLoad2(g->f->b, t, cg_gpu_gep(g, g->simctx, cg_gpu_i64(g, off)), "");
}

static LLVMValueRef call0(cg_gpu_t* g, const char* name, LLVMTypeRef ret) {
  LLVMModuleRef mod = g->f->m->mod;
  LLVMValueRef fn = LLVMGetNamedFunction(mod, name);
  LLVMTypeRef ft = LLVMFunctionType(ret, NULL, 0, 0);
  if (!fn) fn = LLVMAddFunction(mod, name, ft);
  return LLVMBuildCall2(g->f->b, ft, fn, NULL, 0, "");
}

void cg_gpu_target_ids(cg_gpu_t* g) {
  air_cg_module_t* m = g->f->m;
  if (g->kind == CG_GPU_TARGET_SIM) {
    g->lid = sim_field(g, 0, m->i32);
    g->wgid = sim_field(g, 4, m->i32);
  } else {
    g->lid = call0(g, "llvm.amdgcn.workitem.id.x", m->i32);
    g->wgid = call0(g, "llvm.amdgcn.workgroup.id.x", m->i32);
  }
}

LLVMValueRef cg_gpu_target_kernarg(cg_gpu_t* g, uint32_t slot, bool pointer, uint32_t as) {
  air_cg_module_t* m = g->f->m;
  if (g->kind == CG_GPU_TARGET_SIM) {
    LLVMValueRef w = LLVMBuildLoad2(g->f->b, m->i64, cg_gpu_gep(g, g->kernarg, cg_gpu_i64(g, 8 * (int64_t)slot)), "");
    return pointer ? LLVMBuildIntToPtr(g->f->b, w, ptr_as(g, as), "") : w;
  }
  LLVMValueRef v = LLVMGetParam(g->f->fn, slot);
  if (pointer) return LLVMTypeOf(v) == ptr_as(g, as) ? v : LLVMBuildAddrSpaceCast(g->f->b, v, ptr_as(g, as), "");
  return v;
}

LLVMValueRef cg_gpu_target_lds(cg_gpu_t* g) {
  air_cg_module_t* m = g->f->m;
  if (g->kind == CG_GPU_TARGET_SIM) return sim_field(g, 8, m->ptr);
  if (!g->plan->lds_bytes) return LLVMConstPointerNull(ptr_as(g, 3)); /* never used */
  char name[160];
  size_t n = 0;
  const char* fname = LLVMGetValueName2(g->f->fn, &n);
  snprintf(name, sizeof name, "%.*s.lds", (int)n, fname);
  LLVMTypeRef at = LLVMArrayType(m->i8, g->plan->lds_bytes);
  LLVMValueRef gv = LLVMAddGlobalInAddressSpace(m->mod, at, name, 3);
  LLVMSetInitializer(gv, LLVMGetUndef(at));
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetAlignment(gv, 16);
  return gv;
}

static void sim_call_user(cg_gpu_t* g, int64_t off, LLVMTypeRef ret, LLVMValueRef* extra,
                          unsigned n_extra, LLVMValueRef* out) {
  air_cg_module_t* m = g->f->m;
  LLVMValueRef fn = sim_field(g, off, m->ptr);
  LLVMValueRef args[4] = {sim_field(g, 16, m->ptr)};
  LLVMTypeRef tys[4] = {m->ptr};
  for (unsigned i = 0; i < n_extra; ++i) {
    args[1 + i] = extra[i];
    tys[1 + i] = LLVMTypeOf(extra[i]);
  }
  LLVMTypeRef ft = LLVMFunctionType(ret, tys, 1 + n_extra, 0);
  LLVMValueRef r = LLVMBuildCall2(g->f->b, ft, fn, args, 1 + n_extra, "");
  if (out) *out = r;
}

void cg_gpu_target_barrier(cg_gpu_t* g) {
  if (g->kind == CG_GPU_TARGET_SIM) {
    sim_call_user(g, 24, g->f->m->voidt, NULL, 0, NULL);
    return;
  }
  /* The LLVM 16 C API has no sync scopes, so the fences are system-scope: stronger
   * than the workgroup scope a barrier needs, never weaker. */
  LLVMBuildFence(g->f->b, LLVMAtomicOrderingRelease, 0, "");
  call0(g, "llvm.amdgcn.s.barrier", g->f->m->voidt);
  LLVMBuildFence(g->f->b, LLVMAtomicOrderingAcquire, 0, "");
}

LLVMValueRef cg_gpu_target_pause(cg_gpu_t* g, LLVMValueRef count) {
  air_cg_module_t* m = g->f->m;
  if (g->kind == CG_GPU_TARGET_SIM) {
    LLVMValueRef r;
    sim_call_user(g, 32, m->i32, NULL, 0, &r);
    return LLVMBuildICmp(g->f->b, LLVMIntNE, r, cg_gpu_i32(g, 0), "");
  }
  LLVMModuleRef mod = m->mod;
  LLVMTypeRef ft = LLVMFunctionType(m->voidt, &m->i32, 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(mod, "llvm.amdgcn.s.sleep");
  if (!fn) fn = LLVMAddFunction(mod, "llvm.amdgcn.s.sleep", ft);
  LLVMValueRef two = cg_gpu_i32(g, 2);
  LLVMBuildCall2(g->f->b, ft, fn, &two, 1, "");
  return LLVMBuildICmp(g->f->b, LLVMIntUGT, count, cg_gpu_i32(g, CG_GPU_SPIN_LIMIT), "");
}

void cg_gpu_target_fail(cg_gpu_t* g, int32_t code, uint32_t line) {
  air_cg_module_t* m = g->f->m;
  if (g->kind == CG_GPU_TARGET_SIM) {
    LLVMValueRef extra[2] = {cg_gpu_i32(g, code), cg_gpu_i32(g, line)};
    sim_call_user(g, 40, m->voidt, extra, 2, NULL);
    LLVMBuildRetVoid(g->f->b);
    return;
  }
  call0(g, "llvm.trap", m->voidt);
  LLVMBuildUnreachable(g->f->b);
}

void cg_gpu_fail_if(cg_gpu_t* g, LLVMValueRef bad, int32_t code, uint32_t line) {
  if (LLVMIsAConstantInt(bad) && !LLVMConstIntGetZExtValue(bad)) return;
  air_cg_module_t* m = g->f->m;
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "gpu.fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "gpu.ok");
  LLVMBuildCondBr(g->f->b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(g->f->b, fail);
  cg_gpu_target_fail(g, code, line);
  LLVMPositionBuilderAtEnd(g->f->b, ok);
}

/*--- atomics and waits ----------------------------------------------------------*/

LLVMValueRef cg_gpu_load32(cg_gpu_t* g, LLVMValueRef ptr) {
  LLVMValueRef v = LLVMBuildLoad2(g->f->b, g->f->m->i32, ptr, "");
  LLVMSetOrdering(v, LLVMAtomicOrderingSequentiallyConsistent);
  LLVMSetAlignment(v, 4);
  return v;
}

void cg_gpu_store32(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef v) {
  LLVMValueRef s = LLVMBuildStore(g->f->b, v, ptr);
  LLVMSetOrdering(s, LLVMAtomicOrderingSequentiallyConsistent);
  LLVMSetAlignment(s, 4);
}

LLVMValueRef cg_gpu_add32(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef v) {
  return LLVMBuildAtomicRMW(g->f->b, LLVMAtomicRMWBinOpAdd, ptr, v,
                            LLVMAtomicOrderingSequentiallyConsistent, 0);
}

void cg_gpu_wait_ge(cg_gpu_t* g, LLVMValueRef ptr, LLVMValueRef want, uint32_t line) {
  air_cg_module_t* m = g->f->m;
  LLVMBuilderRef B = g->f->b;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "wait");
  LLVMBasicBlockRef nap = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "wait.nap");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "wait.done");
  LLVMBuildBr(B, head);
  LLVMPositionBuilderAtEnd(B, head);
  LLVMValueRef cnt = LLVMBuildPhi(B, m->i32, "");
  LLVMValueRef v = cg_gpu_load32(g, ptr);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntUGE, v, want, ""), done, nap);
  LLVMPositionBuilderAtEnd(B, nap);
  cg_gpu_fail_if(g, cg_gpu_target_pause(g, cnt), AIR_CG_DEADLOCK, line);
  LLVMValueRef next = LLVMBuildAdd(B, cnt, cg_gpu_i32(g, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, head);
  LLVMValueRef zero = cg_gpu_i32(g, 0);
  LLVMAddIncoming(cnt, &zero, &pre, 1);
  LLVMAddIncoming(cnt, &next, &latch, 1);
  LLVMPositionBuilderAtEnd(B, done);
}

/*--- loops and copies -----------------------------------------------------------*/

LLVMValueRef cg_gpu_loop_begin(cg_gpu_t* g, cg_gpu_loop_t* l, LLVMValueRef lo, LLVMValueRef hi,
                               LLVMValueRef step) {
  air_cg_module_t* m = g->f->m;
  LLVMBuilderRef B = g->f->b;
  l->pre = LLVMGetInsertBlock(B);
  l->head = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "gl.head");
  l->body = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "gl.body");
  l->exit = LLVMAppendBasicBlockInContext(m->ctx, g->f->fn, "gl.exit");
  l->step = step;
  LLVMBuildBr(B, l->head);
  LLVMPositionBuilderAtEnd(B, l->head);
  l->i = LLVMBuildPhi(B, m->i64, "gl.i");
  LLVMAddIncoming(l->i, &lo, &l->pre, 1);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, l->i, hi, ""), l->body, l->exit);
  LLVMPositionBuilderAtEnd(B, l->body);
  return l->i;
}

void cg_gpu_loop_end(cg_gpu_t* g, cg_gpu_loop_t* l) {
  LLVMBuilderRef B = g->f->b;
  LLVMValueRef next = LLVMBuildAdd(B, l->i, l->step, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, l->head);
  LLVMAddIncoming(l->i, &next, &latch, 1);
  LLVMPositionBuilderAtEnd(B, l->exit);
}

static LLVMValueRef count_of(cg_gpu_t* g, const cg_gpu_pat_t* p) {
  LLVMValueRef n = p->size[0];
  for (int k = 1; k < 4; ++k) n = LLVMBuildMul(g->f->b, n, p->size[k], "");
  return n;
}

/* Element k (row-major over the pattern's sizes) -> its element offset. The
 * index arithmetic is 32-bit (copies are checked to move fewer than 2^31
 * elements): 64-bit division is a long instruction sequence on AMD GPUs. */
static LLVMValueRef offset_of(cg_gpu_t* g, const cg_gpu_pat_t* p, LLVMValueRef k64) {
  LLVMBuilderRef B = g->f->b;
  air_cg_module_t* m = g->f->m;
  LLVMValueRef off = p->start, k = LLVMBuildTrunc(B, k64, m->i32, "");
  for (int d = 3; d >= 0; --d) {
    LLVMValueRef sz = LLVMBuildTrunc(B, p->size[d], m->i32, "");
    LLVMValueRef i = d ? LLVMBuildURem(B, k, sz, "") : k;
    off = LLVMBuildAdd(B, off, LLVMBuildMul(B, LLVMBuildZExt(B, i, m->i64, ""), p->stride[d], ""), "");
    if (d) k = LLVMBuildUDiv(B, k, sz, "");
  }
  return off;
}

/* The copy loop as one function per element size and module (internal, never
 * inlined): a channel or DMA op calls it with both patterns, so a kernel with
 * many of them holds one loop, not one per op. Pointers are flat (generic), which
 * reach global, LDS and the calling work-item's private memory alike. */
static LLVMValueRef copy_fn(cg_gpu_t* g, uint32_t es) {
  cg_fn_t* f = g->f;
  air_cg_module_t* m = f->m;
  char name[32];
  snprintf(name, sizeof name, "air.gpu.copy%u", es);
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
  if (fn) return fn;
  LLVMTypeRef ps[22];
  ps[0] = m->ptr, ps[1] = m->i64;
  for (int i = 2; i < 10; ++i) ps[i] = m->i64;
  ps[10] = m->ptr, ps[11] = m->i64;
  for (int i = 12; i < 20; ++i) ps[i] = m->i64;
  ps[20] = m->i32, ps[21] = m->i32;
  fn = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->voidt, ps, 22, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, noinline, 0));
  /* Build the body with the emitter's helpers on a builder of its own. */
  LLVMBuilderRef saved_b = f->b;
  LLVMValueRef saved_fn = f->fn;
  f->b = LLVMCreateBuilderInContext(m->ctx);
  f->fn = fn;
  LLVMPositionBuilderAtEnd(f->b, LLVMAppendBasicBlockInContext(m->ctx, fn, "entry"));
  cg_gpu_pat_t d, sp;
  memset(&d, 0, sizeof d);
  memset(&sp, 0, sizeof sp);
  d.base = LLVMGetParam(fn, 0), d.start = LLVMGetParam(fn, 1);
  sp.base = LLVMGetParam(fn, 10), sp.start = LLVMGetParam(fn, 11);
  for (int k = 0; k < 4; ++k) {
    d.size[k] = LLVMGetParam(fn, 2 + k), d.stride[k] = LLVMGetParam(fn, 6 + k);
    sp.size[k] = LLVMGetParam(fn, 12 + k), sp.stride[k] = LLVMGetParam(fn, 16 + k);
  }
  LLVMBuilderRef B = f->b;
  LLVMTypeRef et = es == 1 ? m->i8 : es == 2 ? m->i16 : es == 4 ? m->i32 : m->i64;
  cg_gpu_loop_t l;
  LLVMValueRef k = cg_gpu_loop_begin(g, &l, LLVMBuildZExt(B, LLVMGetParam(fn, 20), m->i64, ""),
                                     count_of(g, &d), LLVMBuildZExt(B, LLVMGetParam(fn, 21), m->i64, ""));
  LLVMValueRef so = offset_of(g, &sp, k), d_o = offset_of(g, &d, k);
  LLVMValueRef x = LLVMBuildLoad2(B, et, LLVMBuildGEP2(B, et, sp.base, &so, 1, ""), "");
  LLVMBuildStore(B, x, LLVMBuildGEP2(B, et, d.base, &d_o, 1, ""));
  cg_gpu_loop_end(g, &l);
  LLVMBuildRetVoid(B);
  LLVMDisposeBuilder(f->b);
  f->b = saved_b;
  f->fn = saved_fn;
  return fn;
}

void cg_gpu_copy(cg_gpu_t* g, const cg_gpu_pat_t* dst, const cg_gpu_pat_t* src,
                 LLVMValueRef lane, LLVMValueRef lanes, uint32_t line) {
  air_cg_module_t* m = g->f->m;
  LLVMBuilderRef B = g->f->b;
  uint32_t es = dst->esize ? dst->esize : src->esize;
  LLVMValueRef total = count_of(g, dst);
  LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntNE, total, count_of(g, src), "");
  bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntUGE, total, cg_gpu_i64(g, INT32_MAX), ""), "");
  for (int d = 0; d < 4; ++d) /* each size fits 32 bits when the product does (sizes >= 0) */
    bad = LLVMBuildOr(B, bad, LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntUGE, dst->size[d], cg_gpu_i64(g, INT32_MAX), ""),
                                          LLVMBuildICmp(B, LLVMIntUGE, src->size[d], cg_gpu_i64(g, INT32_MAX), ""), ""), "");
  const cg_gpu_pat_t* dyn = !dst->esize ? dst : !src->esize ? src : NULL;
  if (dyn)
    bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntNE, dyn->esize_v, cg_gpu_i32(g, es), ""), "");
  else if (dst->esize != src->esize)
    bad = LLVMConstInt(m->i1, 1, 0);
  cg_gpu_fail_if(g, bad, AIR_CG_OOB, line);
  LLVMValueRef args[22];
  const cg_gpu_pat_t* ps[2] = {dst, src};
  for (int p = 0; p < 2; ++p) {
    LLVMValueRef base = ps[p]->base;
    if (LLVMTypeOf(base) != m->ptr) base = LLVMBuildAddrSpaceCast(B, base, m->ptr, "");
    args[10 * p] = base;
    args[10 * p + 1] = ps[p]->start;
    for (int k = 0; k < 4; ++k) args[10 * p + 2 + k] = ps[p]->size[k], args[10 * p + 6 + k] = ps[p]->stride[k];
  }
  args[20] = lane, args[21] = lanes;
  LLVMValueRef fn = copy_fn(g, es);
  LLVMBuildCall2(B, LLVMGlobalGetValueType(fn), fn, args, 22, "");
}

/* cg_air.c - the AIR ops a compiled unit may hold: air.dma_memcpy_nd,
 * memref.alloc / memref.dealloc, air.execute and air.wait_all.
 *
 * Tokens inside a unit are program order. A unit holds async ops only when no
 * token comes into it from outside (cg_emit.c checks its inputs), so every
 * dependency of every op is an op before it in the unit, and none of these ops
 * ever waits for anything but its dependencies (no channel op is covered). Then
 * running the ops one after another in program order is one of the schedules the
 * interpreter may take, and a token is only a placeholder value (an i1 0) that
 * loops carry and yield like any other.
 *
 * The copy and the allocator stay the executor's: generated code evaluates a
 * DMA's lists and calls the frame's `rt->dma` with both views and the values
 * (hal/compiled.h), and `rt->alloc` / `rt->dealloc` for memory; a hook that fails
 * keeps the interpreter's error, and the unit returns AIR_CG_HOOK at that op. So
 * transfers, their bounds checks, their messages and their side effects are the
 * interpreter's own, not a second implementation of them. */
#include <stddef.h>
#include <string.h>

#include "codegen/cg_internal.h"

/*---------------------------------------------------------------------------*/
/* What is covered                                                           */
/*---------------------------------------------------------------------------*/

bool cg_is_token(const air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v))->kind == AIR_TYPE_TOKEN;
}

/* A memref type the unit can hold a view of: ranked, rank <= AIR_MAX_RANK. */
static bool plain_memref(const air_program_t* p, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  return t->kind == AIR_TYPE_MEMREF && !t->unranked && t->rank <= AIR_MAX_RANK;
}

/* memref.alloc of a static shape with the identity layout. */
static bool alloc_supported(const air_program_t* p, const air_op_t* op) {
  if (op->n_operands || op->n_results != 1 || !plain_memref(p, op->results[0])) return false;
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, op->results[0]));
  if (t->layout || air_elem_size((air_elem_kind_t)t->elem) == 0) return false;
  for (uint32_t k = 0; k < t->rank; ++k)
    if (t->shape[k] < 0) return false;
  return true;
}

/* A DMA between two views with well-formed lists, no peer ranks and no padding:
 * everything ix_dma would refuse before moving a byte for a reason known from
 * the op alone stays interpreted, so what is left fails only at run time, in
 * the hook. */
static bool dma_supported(const air_program_t* p, const air_op_t* op) {
  if (op->n_operands != 2 || op->n_lists < 6 || op->n_results > 1 ||
      (op->flags & (AIR_OPF_SRC_RANK | AIR_OPF_DST_RANK)))
    return false;
  if (op->n_attrs && (air_ir_attr_get(op, "src_rank") || air_ir_attr_get(op, "dst_rank") ||
                      air_ir_attr_get(op, "pad_before") || air_ir_attr_get(op, "pad_after")))
    return false;
  if (!plain_memref(p, op->operands[0]) || !plain_memref(p, op->operands[1])) return false;
  const air_type_info_t* dt = air_ir_type(p, air_ir_value_type(p, op->operands[0]));
  const air_type_info_t* st = air_ir_type(p, air_ir_value_type(p, op->operands[1]));
  if (dt->elem != st->elem) return false; /* the interpreter's type error */
  for (uint32_t side = 0; side < 2; ++side) {
    const air_ixlist_t* l = op->lists + 3 * side;
    if (l[0].n > CG_MAX_PAT || l[1].n > CG_MAX_PAT || l[2].n > CG_MAX_PAT || l[1].n != l[2].n)
      return false;
    for (uint32_t k = 0; k < 3; ++k)
      for (uint32_t i = 0; i < l[k].n; ++i) {
        air_vid_t v = l[k].items[i].value;
        if (v && cg_value_elem(p, v) == AIR_ELEM_NONE) return false;
      }
  }
  return true;
}

bool cg_air_leaf_supported(const air_program_t* p, const air_op_t* op) {
  switch (op->kind) {
    case AIR_OP_DMA: return dma_supported(p, op);
    case AIR_OP_ALLOC: return alloc_supported(p, op);
    case AIR_OP_DEALLOC: return op->n_operands == 1 && plain_memref(p, op->operands[0]);
    case AIR_OP_WAIT_ALL: return op->n_operands == 0;
    default: return false;
  }
}

/*---------------------------------------------------------------------------*/
/* Emission                                                                  */
/*---------------------------------------------------------------------------*/

/* A token: ordering only, nothing at run time. */
static LLVMValueRef token_value(cg_fn_t* f) { return LLVMConstInt(f->m->i1, 0, 0); }

/* An alloca in the entry block (so a loop does not grow the stack). */
static LLVMValueRef entry_alloca(cg_fn_t* f, LLVMTypeRef t, const char* name) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(f->m->ctx);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f->fn);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first)
    LLVMPositionBuilderBefore(eb, first);
  else
    LLVMPositionBuilderAtEnd(eb, entry);
  LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
  LLVMSetAlignment(a, 16);
  LLVMDisposeBuilder(eb);
  return a;
}

/* Calls hook number `slot` of frame->rt (air_cg_rt_t's fields in order) and
 * fails the unit with AIR_CG_HOOK at the current op when it returns nonzero. */
static void call_hook(cg_fn_t* f, uint32_t slot, LLVMTypeRef* params, unsigned n,
                      LLVMValueRef* args) {
  air_cg_module_t* m = f->m;
  LLVMBuilderRef B = f->b;
  LLVMValueRef idx[2] = {LLVMConstInt(m->i32, 0, 0), LLVMConstInt(m->i32, 4, 0)};
  LLVMValueRef rt = LLVMBuildLoad2(B, m->ptr, LLVMBuildInBoundsGEP2(B, m->frame_t, f->frame, idx, 2, ""), "rt");
  LLVMValueRef o = LLVMConstInt(m->i64, 8u * slot, 0);
  LLVMValueRef fp = LLVMBuildLoad2(B, m->ptr, LLVMBuildInBoundsGEP2(B, m->i8, rt, &o, 1, ""), "hook");
  LLVMTypeRef ft = LLVMFunctionType(m->i32, params, n, 0);
  LLVMValueRef rc = LLVMBuildCall2(B, ft, fp, args, n, "");
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8); /* C hooks */
  LLVMAddCallSiteAttribute(rc, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(m->ctx, nounwind, 0));
  cg_fail_if(f, LLVMBuildICmp(B, LLVMIntNE, rc, LLVMConstInt(m->i32, 0, 0), ""), AIR_CG_HOOK);
}

static void emit_alloc(cg_fn_t* f, const air_op_t* op) {
  air_cg_module_t* m = f->m;
  const air_type_info_t* t = air_ir_type(f->p, air_ir_value_type(f->p, op->results[0]));
  LLVMValueRef desc = entry_alloca(f, LLVMArrayType(m->i8, sizeof(air_memref_t)), "view");
  LLVMTypeRef params[3] = {m->ptr, m->i32, m->ptr};
  LLVMValueRef args[3] = {f->frame, LLVMConstInt(m->i32, f->op_index, 0), desc};
  call_hook(f, 1, params, 3, args);
  cg_mem_t* mm = cg_mem_new(f, op->results[0]);
  if (!mm) return;
  mm->elem = t->elem;
  mm->rank = t->rank;
  mm->desc = desc;
  LLVMValueRef data = LLVMBuildLoad2(f->b, m->ptr, desc, "");
  mm->data = m->target.data_as ? LLVMBuildAddrSpaceCast(f->b, data, m->gptr, "") : data;
  mm->offset = cg_ci64(f, 0);
  mm->nonnull = true; /* the executor's allocations always have data */
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    mm->sizes[k] = cg_ci64(f, t->shape[k]);
    mm->strides[k] = cg_ci64(f, stride);
    stride *= t->shape[k] ? t->shape[k] : 1;
  }
}

static void emit_dealloc(cg_fn_t* f, const air_op_t* op) {
  cg_mem_t* mm = cg_mem_of(f, op->operands[0]);
  if (!mm || !mm->desc) {
    cg_unsupported(f, op, "a memref without a view here");
    return;
  }
  air_cg_module_t* m = f->m;
  LLVMTypeRef params[3] = {m->ptr, m->i32, m->ptr};
  LLVMValueRef args[3] = {f->frame, LLVMConstInt(m->i32, f->op_index, 0), mm->desc};
  call_hook(f, 2, params, 3, args);
}

/* One side's lists packed as { n_off, n, off..., size..., stride... }. */
static LLVMValueRef pack_lists(cg_fn_t* f, const air_ixlist_t* l) {
  air_cg_module_t* m = f->m;
  uint32_t n_off = l[0].n, n = l[1].n, total = 2 + n_off + 2 * n;
  LLVMValueRef a = entry_alloca(f, LLVMArrayType(m->i64, total), "lists");
  uint32_t at = 0;
  LLVMValueRef vals[2 + 3 * CG_MAX_PAT];
  vals[at++] = cg_ci64(f, n_off);
  vals[at++] = cg_ci64(f, n);
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < l[k].n; ++i) {
      const air_ix_t* x = &l[k].items[i];
      vals[at++] = x->value ? cg_val(f, x->value) : cg_ci64(f, x->cst);
    }
  for (uint32_t i = 0; i < total; ++i) {
    LLVMValueRef o = LLVMConstInt(m->i64, i, 0);
    LLVMBuildStore(f->b, vals[i], LLVMBuildInBoundsGEP2(f->b, m->i64, a, &o, 1, ""));
  }
  return a;
}

static void emit_dma(cg_fn_t* f, const air_op_t* op) {
  cg_mem_t* dm = cg_mem_of(f, op->operands[0]);
  cg_mem_t* sm = cg_mem_of(f, op->operands[1]);
  if (!dm || !sm || !dm->desc || !sm->desc) {
    cg_unsupported(f, op, "a memref without a view here");
    return;
  }
  air_cg_module_t* m = f->m;
  LLVMValueRef dl = pack_lists(f, op->lists), sl = pack_lists(f, op->lists + 3);
  LLVMTypeRef params[6] = {m->ptr, m->i32, m->ptr, m->ptr, m->ptr, m->ptr};
  LLVMValueRef args[6] = {f->frame, LLVMConstInt(m->i32, f->op_index, 0), dm->desc, dl,
                          sm->desc, sl};
  call_hook(f, 0, params, 6, args);
  if (op->n_results) cg_set(f, op->results[0], token_value(f));
}

/* air.execute: its region inline; results are the token and what the region
 * yields (memrefs become the views they name). */
static void emit_execute(cg_fn_t* f, const air_op_t* op) {
  uint32_t my_index = f->op_index;
  f->op_index = my_index + 1;
  const air_op_t* term = f->emit_block(f, op->regions[0]);
  if (f->st) return;
  if (op->n_results) cg_set(f, op->results[0], token_value(f));
  for (uint32_t i = 1; i < op->n_results; ++i) {
    air_vid_t y = term && i - 1 < term->n_operands ? term->operands[i - 1] : 0;
    if (!y) {
      cg_unsupported(f, op, "an air.execute without its yields");
      return;
    }
    if (cg_is_memref(f->p, op->results[i])) {
      cg_mem_t* from = cg_mem_of(f, y);
      cg_mem_t* to = from ? cg_mem_new(f, op->results[i]) : NULL;
      if (!from) cg_unsupported(f, op, "a memref yield without a view here");
      if (!to) return;
      from = cg_mem_of(f, y); /* cg_mem_new may have moved the table */
      air_vid_t v = op->results[i];
      *to = *from;
      to->vid = v;
    } else {
      cg_set(f, op->results[i], cg_val(f, y));
    }
  }
}

void cg_emit_air(cg_fn_t* f, const air_op_t* op) {
  if (f->ext_op) { /* a GPU kernel has no executor to call back */
    cg_unsupported(f, op, "an AIR op in a kernel");
    return;
  }
  switch (op->kind) {
    case AIR_OP_DMA: emit_dma(f, op); break;
    case AIR_OP_ALLOC: emit_alloc(f, op); break;
    case AIR_OP_DEALLOC: emit_dealloc(f, op); break;
    case AIR_OP_EXECUTE: emit_execute(f, op); break;
    case AIR_OP_WAIT_ALL:
      if (op->n_results) cg_set(f, op->results[0], token_value(f));
      break;
    default: cg_unsupported(f, op, "this op"); break;
  }
}

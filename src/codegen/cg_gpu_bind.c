/* cg_gpu_bind.c - the values and memrefs a kernel role uses but does not define
 * itself (the emitter's ext_value / ext_mem hooks, cg_gpu_kernel.h).
 *
 * A role (the launch body, the segment body, one PE) is emitted on its own path
 * of the kernel; what it takes from outside - launch and herd ids, sizes, entry
 * parameters, herd and segment arguments, values computed from those - is
 * recomputed in the role's prologue, a block that dominates the role's whole
 * body. Memrefs resolve to their planned place: an entry parameter's global
 * address, an L2 buffer's LDS (or spill) offset, an L1 buffer's private alloca.
 * A value that cannot be recomputed (one loaded from memory by another role, say)
 * is refused at its definition. */
#include <string.h>

#include "codegen/cg_gpu_kernel.h"

int32_t cg_gpu_memspace(const air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v))->memspace;
}

void cg_gpu_begin_role(cg_gpu_t* g, LLVMBasicBlockRef prologue) {
  cg_fn_t* f = g->f;
  memset(f->vals, 0, (size_t)f->p->n_values * sizeof *f->vals);
  f->n_mems = 0;
  g->pro_end = prologue;
  g->pro_depth = 0;
  g->herd_ids[0] = g->herd_ids[1] = NULL;
  g->pe = NULL;
}

/* Emission into the prologue, nested calls staying there. */
static void pro_enter(cg_gpu_t* g, LLVMBasicBlockRef* saved) {
  if (g->pro_depth++ == 0) {
    *saved = LLVMGetInsertBlock(g->f->b);
    LLVMPositionBuilderAtEnd(g->f->b, g->pro_end);
  }
}

static void pro_leave(cg_gpu_t* g, LLVMBasicBlockRef saved) {
  if (--g->pro_depth == 0) {
    g->pro_end = LLVMGetInsertBlock(g->f->b);
    LLVMPositionBuilderAtEnd(g->f->b, saved);
  }
}

static bool pure_scalar(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY:
      return true;
    default: return false;
  }
}

static const air_op_t* execute_term(const air_op_t* ex) {
  const air_block_t* b = ex->n_regions ? ex->regions[0] : NULL;
  return b ? b->last : NULL;
}

LLVMValueRef cg_gpu_value(cg_fn_t* f, air_vid_t v) {
  cg_gpu_t* g = cg_gpu_of(f);
  const air_program_t* p = f->p;
  if (air_ir_type_is_token(p, air_ir_value_type(p, v))) return LLVMConstInt(f->m->i64, 0, 0);
  const air_value_info_t* info = air_ir_value(p, v);
  if (!info->def) {
    const air_op_t* owner = info->block ? info->block->parent : NULL;
    if (owner && owner == g->plan->func) {
      uint32_t el = cg_value_elem(p, v);
      if (el == AIR_ELEM_NONE) return NULL;
      LLVMBasicBlockRef saved = NULL;
      pro_enter(g, &saved);
      LLVMValueRef w = cg_gpu_target_kernarg(g, info->index, false, 0);
      if (LLVMTypeOf(w) != f->m->i64) w = LLVMBuildPtrToInt(f->b, w, f->m->i64, "");
      LLVMValueRef x = cg_from_word(f, el, w);
      pro_leave(g, saved);
      return x;
    }
    if (owner && air_opkind_class(owner->kind) == AIR_OPC_HIER) {
      uint32_t n = owner->iaux[0], k = info->index;
      if (k < n) {
        if (owner->kind == AIR_OP_LAUNCH) return g->launch_ids[k];
        if (owner->kind == AIR_OP_SEGMENT) {
          for (uint32_t i = 0; i < g->plan->n_segs; ++i)
            if (g->plan->segs[i].op == owner && k < 4) return g->seg_ids[i][k];
          return NULL;
        }
        return g->level == CG_LVL_HERD && k < 2 ? g->herd_ids[k] : NULL;
      }
      return cg_val(f, k < 2 * n ? owner->operands[k - n] : owner->operands[n + (k - 2 * n)]);
    }
    return NULL;
  }
  const air_op_t* d = info->def;
  if (d->kind == AIR_OP_EXECUTE) {
    const air_op_t* term = execute_term(d);
    if (!term || info->index == 0 || info->index - 1 >= term->n_operands) return NULL;
    return cg_val(f, term->operands[info->index - 1]);
  }
  if (!pure_scalar(d)) {
    cg_unsupported(f, d, "its value is used by another part of the GPU kernel (the launch body, "
                         "the segment body and each PE run on waves of their own; only values "
                         "recomputable from constants, ids and parameters cross between them)");
    return NULL;
  }
  LLVMBasicBlockRef saved = NULL;
  pro_enter(g, &saved);
  cg_emit_core_op(f, d);
  pro_leave(g, saved);
  return f->vals[v];
}

cg_mem_t* cg_gpu_mem(cg_fn_t* f, air_vid_t v) {
  cg_gpu_t* g = cg_gpu_of(f);
  const air_program_t* p = f->p;
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  if (t->kind != AIR_TYPE_MEMREF || t->rank > AIR_MAX_RANK || f->n_mems >= g->n_mems_cap)
    return NULL;
  LLVMValueRef data = NULL;
  air_vid_t r = v;
  for (int guard = 0; guard < 1024 && !data; ++guard) {
    const air_value_info_t* info = air_ir_value(p, r);
    if (info->def && info->def->kind == AIR_OP_ALLOC) {
      const cg_gpu_buf_t* b = cg_gpu_plan_buf(g->plan, info->def);
      if (!b) return NULL;
      if (b->where == CG_GPU_PRIVATE) {
        data = g->privates[b - g->plan->bufs];
      } else {
        LLVMBasicBlockRef saved = NULL;
        pro_enter(g, &saved);
        data = cg_gpu_gep(g, b->where == CG_GPU_LDS ? g->lds : g->spill,
                          cg_gpu_i64(g, (int64_t)b->offset));
        pro_leave(g, saved);
      }
    } else if (info->def && info->def->kind == AIR_OP_EXECUTE && info->index > 0) {
      const air_op_t* term = execute_term(info->def);
      if (!term || info->index - 1 >= term->n_operands) return NULL;
      r = term->operands[info->index - 1];
    } else if (!info->def && info->block && info->block->parent == g->plan->func) {
      LLVMBasicBlockRef saved = NULL;
      pro_enter(g, &saved);
      data = cg_gpu_target_kernarg(g, info->index, true, CG_GPU_SPILL);
      pro_leave(g, saved);
    } else if (!info->def && info->block && info->block->parent &&
               air_opkind_class(info->block->parent->kind) == AIR_OPC_HIER &&
               info->index >= 2 * info->block->parent->iaux[0]) {
      const air_op_t* h = info->block->parent;
      r = h->operands[h->iaux[0] + (info->index - 2 * h->iaux[0])];
    } else {
      return NULL;
    }
  }
  if (!data) return NULL;
  cg_mem_t* mm = &f->mems[f->n_mems++];
  memset(mm, 0, sizeof *mm);
  mm->vid = v;
  mm->elem = t->elem;
  mm->rank = t->rank;
  mm->data = data;
  mm->nonnull = true;
  mm->offset = LLVMConstInt(f->m->i64, 0, 0);
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    mm->sizes[k] = LLVMConstInt(f->m->i64, (unsigned long long)t->shape[k], 1);
    mm->strides[k] = LLVMConstInt(f->m->i64, (unsigned long long)stride, 1);
    stride *= t->shape[k] ? t->shape[k] : 1;
  }
  return mm;
}

/* cg_value.c - the emitter's ground floor: LLVM types of element types, the
 * value table of the function being emitted, its memref inputs, and the failure
 * exits (an unsupported op, a runtime check that returns an error code). Every
 * other emitter file builds on these; none of them is called from here. */
#include <string.h>
#include <time.h>

#include "codegen/cg_internal.h"
#include "runtime/base/status_util.h"

LLVMTypeRef cg_elem_type(air_cg_module_t* m, uint32_t elem) {
  switch (elem) {
    case AIR_ELEM_I1: return m->i1;
    case AIR_ELEM_I8: return m->i8;
    case AIR_ELEM_I16: return m->i16;
    case AIR_ELEM_I32: return m->i32;
    case AIR_ELEM_I64: case AIR_ELEM_INDEX: return m->i64;
    case AIR_ELEM_F16: case AIR_ELEM_BF16: case AIR_ELEM_F32: return m->f32;
    case AIR_ELEM_F64: return m->f64;
    default: return m->i64;
  }
}

/* The scalar element type of value v, or NONE when it is not a scalar. */
uint32_t cg_value_elem(const air_program_t* p, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  /* siN/uiN (storage types, issue 12) stay with the interpreter. */
  return t->kind == AIR_TYPE_SCALAR && !air_elem_is_signed_or_unsigned(t->elem) ? t->elem
                                                                              : AIR_ELEM_NONE;
}

bool cg_is_memref(const air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v))->kind == AIR_TYPE_MEMREF;
}

void cg_unsupported(cg_fn_t* f, const air_op_t* op, const char* why) {
  if (f->st) return;
  f->st = air_ir_error_at(f->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col, __FILE__, __LINE__,
                          "%s: %s is not covered by the code generator", air_opkind_name(op->kind),
                          why);
}

void cg_fail_if(cg_fn_t* f, LLVMValueRef bad, int32_t code) {
  if (LLVMIsAConstantInt(bad) && !LLVMConstIntGetZExtValue(bad)) return;
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "ok");
  LLVMBuildCondBr(f->b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(f->b, fail);
  if (f->ext_fail) {
    f->ext_fail(f, code);
    LLVMPositionBuilderAtEnd(f->b, ok);
    return;
  }
  LLVMValueRef idx[2] = {LLVMConstInt(f->m->i32, 0, 0), LLVMConstInt(f->m->i32, 2, 0)};
  LLVMValueRef at = LLVMBuildInBoundsGEP2(f->b, f->m->frame_t, f->frame, idx, 2, "");
  LLVMBuildStore(f->b, LLVMConstInt(f->m->i32, f->op_index, 0), at);
  LLVMBuildRet(f->b, LLVMConstInt(f->m->i32, (unsigned long long)code, 0));
  LLVMPositionBuilderAtEnd(f->b, ok);
}

LLVMValueRef cg_val(cg_fn_t* f, air_vid_t v) {
  LLVMValueRef x = v < f->p->n_values ? f->vals[v] : NULL;
  if (!x && f->ext_value && v < f->p->n_values && (x = f->ext_value(f, v)) != NULL)
    f->vals[v] = x;
  if (!x) {
    if (!f->st)
      f->st = AIR_STATUS(&f->m->alloc, AIR_STATUS_INTERNAL,
                         "code generator: value %%%u has no definition in its unit", v);
    return LLVMGetUndef(f->m->i64);
  }
  return x;
}

void cg_set(cg_fn_t* f, air_vid_t v, LLVMValueRef x) {
  if (v < f->p->n_values) f->vals[v] = x;
}

cg_mem_t* cg_mem_of(cg_fn_t* f, air_vid_t v) {
  for (uint32_t i = 0; i < f->n_mems; ++i)
    if (f->mems[i].vid == v) return &f->mems[i];
  return f->ext_mem ? f->ext_mem(f, v) : NULL;
}

cg_mem_t* cg_mem_new(cg_fn_t* f, air_vid_t v) {
  if (f->n_mems == f->cap_mems) {
    if (!f->st)
      f->st = AIR_STATUS(&f->m->alloc, AIR_STATUS_INTERNAL,
                         "code generator: more memrefs in a unit than it counted");
    return NULL;
  }
  cg_mem_t* mm = &f->mems[f->n_mems++];
  memset(mm, 0, sizeof *mm);
  mm->vid = v;
  return mm;
}

int64_t cg_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

LLVMValueRef cg_intrinsic(cg_fn_t* f, const char* name, LLVMTypeRef* over, unsigned n_over,
                          LLVMValueRef* args, unsigned n_args) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(f->m->mod, id, over, n_over);
  LLVMTypeRef ty = LLVMIntrinsicGetType(f->m->ctx, id, over, n_over);
  return LLVMBuildCall2(f->b, ty, decl, args, n_args, "");
}

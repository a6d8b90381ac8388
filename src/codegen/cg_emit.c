/* cg_emit.c - one compiled unit (hal/compiled.h) as one LLVM function: the
 * frame's inputs unpacked at entry, loops and branches as LLVM control flow,
 * memref accesses with the interpreter's bounds checks, results written back.
 *
 * Loops are emitted counted: an scf.for / affine.for of lb < ub runs
 * n = (ub - lb - 1) / step + 1 iterations with iv = lb + k * step, which is exactly
 * the interpreter's "iv += step while no overflow and iv < ub" and gives LLVM a
 * canonical induction variable to vectorise. A memref input whose type has a
 * static shape (and, with the identity layout, static strides) is checked once
 * against its view at entry - a mismatch returns AIR_CG_FALLBACK before anything
 * ran - and its sizes and strides are then constants, so bounds checks in loops
 * with known trip counts fold away. */
#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/*---------------------------------------------------------------------------*/
/* What is covered                                                           */
/*---------------------------------------------------------------------------*/

static bool block_supported(const air_program_t* p, const air_block_t* b);

/* Scalar-typed values or tokens (program order inside a unit, cg_air.c); no
 * memrefs (loops and branches do not carry views). */
static bool scalar_results(const air_program_t* p, const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_results; ++i)
    if (cg_value_elem(p, op->results[i]) == AIR_ELEM_NONE && !cg_is_token(p, op->results[i]))
      return false;
  return true;
}

/* air.execute: a covered region ending in its terminator; results the token,
 * then scalars or memrefs. */
static bool execute_supported(const air_program_t* p, const air_op_t* op) {
  if (op->n_regions != 1 || !op->regions[0] || op->n_operands) return false;
  const air_op_t* last = op->regions[0]->last;
  uint32_t yields = last && last->kind == AIR_OP_EXECUTE_TERM ? last->n_operands : 0;
  if (yields + (op->n_results ? 1 : 0) != op->n_results) return false;
  for (uint32_t i = 1; i < op->n_results; ++i)
    if (cg_value_elem(p, op->results[i]) == AIR_ELEM_NONE && !cg_is_memref(p, op->results[i]))
      return false;
  return block_supported(p, op->regions[0]);
}

/* True when the generator covers `op` and everything nested in it. Tokens only
 * order the AIR ops that carry them (dependencies; no affinity or concurrency
 * groups). */
static bool op_supported(const air_program_t* p, const air_op_t* op) {
  if (op->toks[AIR_TOK_AFF].n || op->toks[AIR_TOK_CONC].n) return false;
  bool air_op = op->kind == AIR_OP_DMA || op->kind == AIR_OP_EXECUTE ||
                op->kind == AIR_OP_WAIT_ALL;
  if (op->toks[AIR_TOK_DEP].n && !air_op) return false;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_DMA: case AIR_OPC_WAIT_ALL: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC:
      return cg_air_leaf_supported(p, op);
    case AIR_OPC_EXECUTE: return op->kind == AIR_OP_EXECUTE && execute_supported(p, op);
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY:
      return cg_scalar_supported(p, op);
    case AIR_OPC_LOAD: case AIR_OPC_STORE: {
      bool load = air_opkind_class(op->kind) == AIR_OPC_LOAD;
      uint32_t first = load ? 1 : 2;
      if (op->n_operands < first || !cg_is_memref(p, op->operands[first - 1])) return false;
      const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, op->operands[first - 1]));
      if (t->rank > AIR_MAX_RANK || t->unranked || air_elem_is_signed_or_unsigned(t->elem))
        return false;
      for (uint32_t i = first; i < op->n_operands; ++i)
        if (cg_value_elem(p, op->operands[i]) == AIR_ELEM_NONE) return false;
      if (!load && cg_value_elem(p, op->operands[0]) == AIR_ELEM_NONE) return false;
      if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE) {
        const air_attr_t* m = air_ir_attr_resolve(p, &op->value);
        uint32_t nops = op->n_operands - first;
        if (!m || m->kind != AIR_ATTR_MAP || !m->map || nops > 32 ||
            op->iaux[0] != m->map->n_dims || nops != m->map->n_dims + m->map->n_syms ||
            m->map->n_results != t->rank)
          return false;
      } else if (op->n_operands - first != t->rank) {
        return false;
      }
      return !load || scalar_results(p, op);
    }
    case AIR_OPC_FOR:
      if (op->n_operands < 3 || op->n_regions != 1 || op->n_results != op->n_operands - 3)
        return false;
      return scalar_results(p, op) && block_supported(p, op->regions[0]);
    case AIR_OPC_AFFINE_FOR:
      if (op->n_lists < 1 || op->lists[0].n != 2 || op->n_regions != 1 ||
          op->n_results != op->n_operands)
        return false;
      return scalar_results(p, op) && block_supported(p, op->regions[0]);
    case AIR_OPC_IF:
      if (op->n_operands != 1 || op->n_regions < 1 || op->n_regions > 2) return false;
      if (op->n_results && op->n_regions != 2) return false;
      for (uint32_t r = 0; r < op->n_regions; ++r)
        if (!block_supported(p, op->regions[r])) return false;
      return scalar_results(p, op);
    case AIR_OPC_AFFINE_IF: {
      const air_attr_t* a = air_ir_attr_resolve(p, &op->value);
      if (!a || a->kind != AIR_ATTR_SET || !a->set || op->iaux[0] != a->set->n_dims ||
          op->n_operands != a->set->n_dims + a->set->n_syms || op->n_operands > 32 ||
          op->n_regions < 1 || op->n_regions > 2 || (op->n_results && op->n_regions != 2))
        return false;
      for (uint32_t r = 0; r < op->n_regions; ++r)
        if (!block_supported(p, op->regions[r])) return false;
      return scalar_results(p, op);
    }
    case AIR_OPC_TERMINATOR:
      return op->kind == AIR_OP_YIELD || op->kind == AIR_OP_AFFINE_YIELD ||
             op->kind == AIR_OP_EXECUTE_TERM || (op->kind == AIR_OP_HERD_TERM && !op->n_operands);
    case AIR_OPC_LINALG: return cg_generic_supported(p, op);
    default: return false;
  }
}

static bool block_supported(const air_program_t* p, const air_block_t* b) {
  if (!b) return false;
  for (const air_op_t* o = b->first; o; o = o->next)
    if (!op_supported(p, o)) return false;
  return true;
}

/* A unit's own results go to the frame: scalars only. Its inputs carry no token:
 * then every token inside is made inside, so program order keeps every
 * dependency (cg_air.c). */
static bool unit_boundary_ok(const air_program_t* p, const air_op_t* op) {
  for (uint32_t i = 0; i < air_cg_unit_n_out(op); ++i)
    if (cg_value_elem(p, op->results[i]) == AIR_ELEM_NONE) return false;
  air_vid_t ins[64];
  uint32_t n = air_cg_unit_inputs(p, op, ins, 64);
  if (n == UINT32_MAX) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (cg_is_token(p, ins[i])) return false;
  return true;
}

bool air_cg_unit_candidate(const air_program_t* p, const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF: case AIR_OPC_AFFINE_IF:
    case AIR_OPC_LINALG:
      return op_supported(p, op) && unit_boundary_ok(p, op);
    case AIR_OPC_HIER:
      /* A herd body, run once per PE (its instances are strands of their own). */
      return op->kind == AIR_OP_HERD && op->n_regions == 1 && op->regions[0] &&
             !op->toks[AIR_TOK_AFF].n && block_supported(p, op->regions[0]) &&
             unit_boundary_ok(p, op);
    default: return false;
  }
}

/*---------------------------------------------------------------------------*/
/* Emission                                                                  */
/*---------------------------------------------------------------------------*/

static void emit_op(cg_fn_t* f, const air_op_t* op);

/* Emits a block's ops up to its terminator; returns the terminator (or NULL).
 * cg_linalg.c reaches it through cg_fn_t.emit_block (a generic's body). */
static const air_op_t* emit_block(cg_fn_t* f, const air_block_t* b) {
  for (const air_op_t* o = b->first; o && !f->st; o = o->next) {
    if (air_opkind_class(o->kind) == AIR_OPC_TERMINATOR) {
      f->op_index++;
      return o;
    }
    emit_op(f, o);
  }
  return NULL;
}

static uint32_t count_results(const air_op_t* op) {
  uint32_t n = op->n_results;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r]->first; o; o = o->next) n += count_results(o);
  return n;
}

static uint32_t count_ops(const air_op_t* op) {
  uint32_t n = 1;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r]->first; o; o = o->next) n += count_ops(o);
  return n;
}

static void emit_access(cg_fn_t* f, const air_op_t* op) {
  bool load = air_opkind_class(op->kind) == AIR_OPC_LOAD;
  uint32_t first = load ? 1 : 2;
  cg_mem_t* mm = cg_mem_of(f, op->operands[first - 1]);
  if (!mm) {
    cg_unsupported(f, op, "a memref not passed into the unit");
    return;
  }
  LLVMValueRef idx[AIR_MAX_RANK];
  uint32_t n = op->n_operands - first;
  if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE) {
    const air_affine_map_t* map = air_ir_attr_resolve(f->p, &op->value)->map;
    LLVMValueRef vals[32];
    for (uint32_t i = 0; i < n; ++i) vals[i] = cg_val(f, op->operands[first + i]);
    for (uint32_t k = 0; k < map->n_results; ++k)
      idx[k] = cg_affine(f, map->results[k], vals, vals + op->iaux[0]);
    n = map->n_results;
  } else {
    for (uint32_t k = 0; k < n; ++k) idx[k] = cg_val(f, op->operands[first + k]);
  }
  LLVMBuilderRef B = f->b;
  LLVMValueRef bad = mm->nonnull ? LLVMConstInt(f->m->i1, 0, 0)
                                 : LLVMBuildICmp(B, LLVMIntEQ, mm->data,
                                                 LLVMConstPointerNull(LLVMTypeOf(mm->data)), "");
  LLVMValueRef off = mm->offset;
  for (uint32_t k = 0; k < n; ++k) {
    /* unsigned idx >= size covers idx < 0 too */
    bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntUGE, idx[k], mm->sizes[k], ""), "");
    off = LLVMBuildAdd(B, off, LLVMBuildMul(B, idx[k], mm->strides[k], ""), "");
  }
  cg_fail_if(f, bad, AIR_CG_OOB);
  uint32_t el = mm->elem;
  LLVMTypeRef et = el == AIR_ELEM_BF16 ? f->m->i16
                   : el == AIR_ELEM_F16 ? f->m->f16
                   : el == AIR_ELEM_I1  ? f->m->i8
                                        : cg_elem_type(f->m, el);
  LLVMValueRef addr = LLVMBuildGEP2(B, et, mm->data, &off, 1, "");
  if (load) {
    cg_set(f, op->results[0], cg_load_elem(f, el, addr));
  } else {
    LLVMValueRef x = cg_val(f, op->operands[0]);
    uint32_t xe = cg_value_elem(f->p, op->operands[0]);
    bool xf = air_elem_is_float((air_elem_kind_t)xe), mf = air_elem_is_float((air_elem_kind_t)el);
    if (xf != mf || (!xf && xe != el) || (xf && (xe == AIR_ELEM_F64) != (el == AIR_ELEM_F64))) {
      cg_unsupported(f, op, "a store of a value of another type");
      return;
    }
    if (xf && xe != el) x = cg_round(f, el, x); /* e.g. f32 value into bf16 memory */
    cg_store_elem(f, el, addr, x);
  }
}

/* Counted loop over [lb, ub) by step; the body block's args are (iv, iters...). */
static void emit_for(cg_fn_t* f, const air_op_t* op) {
  LLVMBuilderRef B = f->b;
  air_cg_module_t* m = f->m;
  LLVMValueRef lb, ub, step;
  const air_vid_t* inits;
  uint32_t ni = op->n_results;
  if (op->kind == AIR_OP_FOR) {
    lb = cg_val(f, op->operands[0]);
    ub = cg_val(f, op->operands[1]);
    step = cg_val(f, op->operands[2]);
    inits = op->operands + 3;
  } else {
    const air_ix_t* it = op->lists[0].items;
    lb = it[0].value ? cg_val(f, it[0].value) : cg_ci64(f, it[0].cst);
    ub = it[1].value ? cg_val(f, it[1].value) : cg_ci64(f, it[1].cst);
    step = cg_ci64(f, (int64_t)(int32_t)op->iaux[1]);
    inits = op->operands;
  }
  uint32_t my_index = f->op_index;
  cg_fail_if(f, LLVMBuildICmp(B, LLVMIntSLE, step, cg_ci64(f, 0), ""), AIR_CG_STEP);
  LLVMValueRef init_v[64];
  if (ni > 64) {
    cg_unsupported(f, op, "more than 64 loop-carried values");
    return;
  }
  for (uint32_t i = 0; i < ni; ++i) init_v[i] = cg_val(f, inits[i]);
  LLVMValueRef any = LLVMBuildICmp(B, LLVMIntSLT, lb, ub, "");
  /* n = (ub - lb - 1) / step + 1, unsigned: ub - lb fits in u64 when lb < ub. */
  LLVMValueRef span = LLVMBuildSub(B, LLVMBuildSub(B, ub, lb, ""), cg_ci64(f, 1), "");
  LLVMValueRef trips = LLVMBuildAdd(B, LLVMBuildUDiv(B, span, step, ""), cg_ci64(f, 1), "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "loop");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "loop.exit");
  LLVMBuildCondBr(B, any, body, exit);
  LLVMPositionBuilderAtEnd(B, body);
  LLVMValueRef k = LLVMBuildPhi(B, m->i64, "k");
  LLVMValueRef iters[64];
  for (uint32_t i = 0; i < ni; ++i) iters[i] = LLVMBuildPhi(B, LLVMTypeOf(init_v[i]), "");
  const air_block_t* bb = op->regions[0];
  /* iv = lb + k * step never overflows: it stays below ub. */
  LLVMValueRef iv = LLVMBuildNSWAdd(B, lb, LLVMBuildNSWMul(B, k, step, ""), "iv");
  cg_set(f, bb->args[0], iv);
  for (uint32_t i = 0; i < ni && i + 1 < bb->n_args; ++i) cg_set(f, bb->args[1 + i], iters[i]);
  f->op_index = my_index + 1;
  const air_op_t* term = emit_block(f, bb);
  if (f->st) return;
  LLVMValueRef yields[64];
  for (uint32_t i = 0; i < ni; ++i)
    yields[i] = term && i < term->n_operands ? cg_val(f, term->operands[i]) : init_v[i];
  LLVMValueRef next = LLVMBuildNUWAdd(B, k, cg_ci64(f, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, next, trips, ""), body, exit);
  LLVMValueRef zero = cg_ci64(f, 0);
  LLVMAddIncoming(k, &zero, &pre, 1);
  LLVMAddIncoming(k, &next, &latch, 1);
  for (uint32_t i = 0; i < ni; ++i) {
    LLVMAddIncoming(iters[i], &init_v[i], &pre, 1);
    LLVMAddIncoming(iters[i], &yields[i], &latch, 1);
  }
  LLVMPositionBuilderAtEnd(B, exit);
  for (uint32_t i = 0; i < ni; ++i) {
    LLVMValueRef r = LLVMBuildPhi(B, LLVMTypeOf(init_v[i]), "");
    LLVMAddIncoming(r, &init_v[i], &pre, 1);
    LLVMAddIncoming(r, &yields[i], &latch, 1);
    cg_set(f, op->results[i], r);
  }
}

static void emit_if(cg_fn_t* f, const air_op_t* op) {
  LLVMBuilderRef B = f->b;
  air_cg_module_t* m = f->m;
  uint32_t my_index = f->op_index;
  LLVMValueRef cond;
  if (op->kind == AIR_OP_IF) {
    cond = cg_val(f, op->operands[0]);
  } else {
    const air_affine_set_t* set = air_ir_attr_resolve(f->p, &op->value)->set;
    LLVMValueRef vals[32];
    for (uint32_t i = 0; i < op->n_operands; ++i) vals[i] = cg_val(f, op->operands[i]);
    cond = LLVMConstInt(m->i1, 1, 0);
    for (uint32_t c = 0; c < set->n_constraints; ++c) {
      LLVMValueRef x = cg_affine(f, set->constraints[c], vals, vals + op->iaux[0]);
      LLVMValueRef ok = LLVMBuildICmp(B, set->is_eq[c] ? LLVMIntEQ : LLVMIntSGE, x, cg_ci64(f, 0), "");
      cond = LLVMBuildAnd(B, cond, ok, "");
    }
  }
  LLVMBasicBlockRef then_bb = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "then");
  LLVMBasicBlockRef else_bb = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "else");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "join");
  LLVMBuildCondBr(B, cond, then_bb, else_bb);
  LLVMValueRef vals[2][64];
  LLVMBasicBlockRef from[2];
  uint32_t nr = op->n_results;
  if (nr > 64) {
    cg_unsupported(f, op, "more than 64 results");
    return;
  }
  f->op_index = my_index + 1;
  for (uint32_t r = 0; r < 2; ++r) {
    LLVMPositionBuilderAtEnd(B, r ? else_bb : then_bb);
    if (r < op->n_regions) {
      const air_op_t* term = emit_block(f, op->regions[r]);
      if (f->st) return;
      for (uint32_t i = 0; i < nr; ++i)
        vals[r][i] = term && i < term->n_operands ? cg_val(f, term->operands[i])
                                                  : LLVMGetUndef(m->i64);
    }
    from[r] = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, join);
  }
  LLVMPositionBuilderAtEnd(B, join);
  for (uint32_t i = 0; i < nr; ++i) {
    LLVMValueRef phi = LLVMBuildPhi(B, LLVMTypeOf(vals[0][i]), "");
    LLVMValueRef inc[2] = {vals[0][i], vals[1][i]};
    LLVMAddIncoming(phi, inc, from, 2);
    cg_set(f, op->results[i], phi);
  }
}

static void emit_core_op(cg_fn_t* f, const air_op_t* op);

/* An extension sees every op first (it may wrap or replace what the core does). */
static void emit_op(cg_fn_t* f, const air_op_t* op) {
  uint32_t start = f->op_index;
  if (f->ext_op && f->ext_op(f, op)) {
    f->op_index = start + count_ops(op);
    return;
  }
  emit_core_op(f, op);
}

static void emit_core_op(cg_fn_t* f, const air_op_t* op) {
  uint32_t start = f->op_index;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY:
      cg_emit_scalar(f, op);
      break;
    case AIR_OPC_LOAD: case AIR_OPC_STORE: emit_access(f, op); break;
    case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: emit_for(f, op); break;
    case AIR_OPC_IF: case AIR_OPC_AFFINE_IF: emit_if(f, op); break;
    case AIR_OPC_LINALG: cg_emit_generic(f, op); break;
    case AIR_OPC_DMA: case AIR_OPC_WAIT_ALL: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC:
    case AIR_OPC_EXECUTE:
      cg_emit_air(f, op);
      break;
    case AIR_OPC_HIER: /* a herd body unit: the body once, its arguments inputs */
      if (op == f->unit && op->kind == AIR_OP_HERD) {
        f->op_index = start + 1;
        emit_block(f, op->regions[0]);
        break;
      }
      cg_unsupported(f, op, "this op");
      break;
    default: cg_unsupported(f, op, "this op"); break;
  }
  f->op_index = start + count_ops(op);
}

void cg_emit_op(cg_fn_t* f, const air_op_t* op) { emit_op(f, op); }
void cg_emit_core_op(cg_fn_t* f, const air_op_t* op) { emit_core_op(f, op); }
const air_op_t* cg_emit_block(cg_fn_t* f, const air_block_t* b) { return emit_block(f, b); }

/*---------------------------------------------------------------------------*/
/* The unit function                                                         */
/*---------------------------------------------------------------------------*/

/* Field of air_memref_t at byte offset `off`, of type `t`. */
static LLVMValueRef desc_field(cg_fn_t* f, LLVMValueRef desc, size_t off, LLVMTypeRef t) {
  LLVMValueRef o = LLVMConstInt(f->m->i64, off, 0);
  LLVMValueRef p = LLVMBuildInBoundsGEP2(f->b, f->m->i8, desc, &o, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(f->b, t, p, "");
  return v;
}

/* Unpacks memref input `v` from `word` (a pointer to its view). */
static void bind_memref(cg_fn_t* f, air_vid_t v, LLVMValueRef desc, LLVMValueRef* mismatch) {
  LLVMBuilderRef B = f->b;
  air_cg_module_t* m = f->m;
  const air_type_info_t* t = air_ir_type(f->p, air_ir_value_type(f->p, v));
  cg_mem_t* mm = &f->mems[f->n_mems++];
  memset(mm, 0, sizeof *mm);
  mm->vid = v;
  mm->desc = desc;
  mm->elem = t->elem;
  mm->rank = t->rank;
  LLVMValueRef data = desc_field(f, desc, offsetof(air_memref_t, data), m->ptr);
  if (f->m->target.data_as)
    data = LLVMBuildAddrSpaceCast(B, data, m->gptr, "");
  mm->data = data;
  mm->offset = desc_field(f, desc, offsetof(air_memref_t, offset), m->i64);
  LLVMValueRef elem = desc_field(f, desc, offsetof(air_memref_t, elem), m->i32);
  LLVMValueRef rank = desc_field(f, desc, offsetof(air_memref_t, rank), m->i32);
  LLVMValueRef bad = LLVMBuildOr(
      B, LLVMBuildICmp(B, LLVMIntNE, elem, LLVMConstInt(m->i32, t->elem, 0), ""),
      LLVMBuildICmp(B, LLVMIntNE, rank, LLVMConstInt(m->i32, t->rank, 0), ""), "");
  bool static_shape = true;
  for (uint32_t k = 0; k < t->rank; ++k) static_shape = static_shape && t->shape[k] >= 0;
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    LLVMValueRef sz = desc_field(f, desc, offsetof(air_memref_t, sizes) + 8 * k, m->i64);
    LLVMValueRef st = desc_field(f, desc, offsetof(air_memref_t, strides) + 8 * k, m->i64);
    if (t->shape[k] >= 0) {
      bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntNE, sz, cg_ci64(f, t->shape[k]), ""), "");
      mm->sizes[k] = cg_ci64(f, t->shape[k]);
    } else {
      mm->sizes[k] = sz;
    }
    if (static_shape && !t->layout) {
      /* The identity layout: row-major strides (a size-1 dimension's stride is
       * never used with a nonzero index, so it is not checked). */
      if (t->shape[k] != 1)
        bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntNE, st, cg_ci64(f, stride), ""), "");
      mm->strides[k] = cg_ci64(f, stride);
      stride *= t->shape[k] ? t->shape[k] : 1;
    } else {
      mm->strides[k] = st;
    }
  }
  *mismatch = LLVMBuildOr(B, *mismatch, bad, "");
}

static air_status_t emit_unit(cg_fn_t* f, const char* name) {
  air_cg_module_t* m = f->m;
  const air_program_t* p = f->p;
  const air_op_t* op = f->unit;
  f->fn = LLVMAddFunction(m->mod, name, m->fn_t);
  if (m->target.entry) m->target.entry(m, f->fn);
  /* Nothing a unit calls unwinds (the C library, the executor's C hooks): said
   * here so an indirect call does not make LLVM emit unwind tables, which the
   * object loader does not take. */
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(f->fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(m->ctx, nounwind, 0));
  LLVMSetLinkage(f->fn, LLVMExternalLinkage);
  f->frame = LLVMGetParam(f->fn, 0);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "entry");
  LLVMPositionBuilderAtEnd(f->b, entry);
  LLVMBuilderRef B = f->b;

  air_vid_t ins_small[64];
  uint32_t n_in = air_cg_unit_inputs(p, op, ins_small, 64);
  if (n_in == UINT32_MAX) {
    cg_unsupported(f, op, "a unit with more than 64 inputs");
    return f->st;
  }
  /* Memrefs: the inputs, and at most one per result of an op under the unit. */
  f->cap_mems = n_in + count_results(op);
  f->mems = air_mem_calloc(&m->alloc, f->cap_mems ? f->cap_mems : 1, sizeof(cg_mem_t));
  if (!f->mems) return AIR_STATUS_OOM(&m->alloc, "code generator state");

  LLVMValueRef zero32 = LLVMConstInt(m->i32, 0, 0);
  LLVMValueRef idx0[2] = {zero32, zero32};
  LLVMValueRef in = LLVMBuildLoad2(B, m->ptr, LLVMBuildInBoundsGEP2(B, m->frame_t, f->frame, idx0, 2, ""), "in");
  LLVMValueRef idx1[2] = {zero32, LLVMConstInt(m->i32, 1, 0)};
  LLVMValueRef out = LLVMBuildLoad2(B, m->ptr, LLVMBuildInBoundsGEP2(B, m->frame_t, f->frame, idx1, 2, ""), "out");
  LLVMValueRef mismatch = LLVMConstInt(m->i1, 0, 0);
  for (uint32_t i = 0; i < n_in; ++i) {
    air_vid_t v = ins_small[i];
    LLVMValueRef o = LLVMConstInt(m->i64, i, 0);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(B, m->i64, in, &o, 1, "");
    if (cg_is_memref(p, v)) {
      bind_memref(f, v, LLVMBuildLoad2(B, m->ptr, slot, ""), &mismatch);
    } else {
      uint32_t el = cg_value_elem(p, v);
      if (el == AIR_ELEM_NONE) {
        cg_unsupported(f, op, "a token or other non-scalar input");
        return f->st;
      }
      /* An input made by arith.constant outside the unit is that constant: the
       * frame carries it all the same, but as an LLVM constant it lets loop
       * bounds, trip counts and bounds checks fold (and the loop vectorise). */
      const air_op_t* def = air_ir_value(p, v)->def;
      if (def && def->kind == AIR_OP_CONSTANT && def->n_results == 1 && def->results[0] == v) {
        cg_emit_scalar(f, def);
        if (f->st) return f->st;
        continue;
      }
      cg_set(f, v, cg_from_word(f, el, LLVMBuildLoad2(B, m->i64, slot, "")));
    }
  }
  if (!LLVMIsAConstantInt(mismatch) || LLVMConstIntGetZExtValue(mismatch)) {
    LLVMBasicBlockRef fb = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "fallback");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "run");
    LLVMBuildCondBr(B, mismatch, fb, go);
    LLVMPositionBuilderAtEnd(B, fb);
    LLVMBuildRet(B, LLVMConstInt(m->i32, AIR_CG_FALLBACK, 0));
    LLVMPositionBuilderAtEnd(B, go);
  }
  f->op_index = 0;
  emit_op(f, op);
  if (f->st) return f->st;
  for (uint32_t i = 0; i < air_cg_unit_n_out(op); ++i) {
    LLVMValueRef o = LLVMConstInt(m->i64, i, 0);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(B, m->i64, out, &o, 1, "");
    LLVMBuildStore(B, cg_to_word(f, cg_value_elem(p, op->results[i]), cg_val(f, op->results[i])), slot);
  }
  LLVMBuildRet(B, zero32);
  return f->st;
}

air_status_t air_cg_module_add(air_cg_module_t* m, const air_program_t* p, const air_op_t* op,
                               const char* name) {
  if (!air_cg_unit_candidate(p, op))
    return air_ir_error_at(p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col, __FILE__, __LINE__,
                           "%s is not a unit the code generator covers",
                           air_opkind_name(op->kind));
  int64_t t0 = cg_now_ns();
  cg_fn_t f;
  memset(&f, 0, sizeof f);
  f.m = m;
  f.p = p;
  f.unit = op;
  f.emit_block = emit_block;
  f.b = LLVMCreateBuilderInContext(m->ctx);
  f.vals = air_mem_calloc(&m->alloc, p->n_values ? p->n_values : 1, sizeof(LLVMValueRef));
  air_status_t st = f.vals ? emit_unit(&f, name) : AIR_STATUS_OOM(&m->alloc, "code generator state");
  LLVMDisposeBuilder(f.b);
  air_mem_free(&m->alloc, f.vals);
  air_mem_free(&m->alloc, f.mems);
  if (!st) {
    char* msg = NULL;
    if (LLVMVerifyFunction(f.fn, LLVMReturnStatusAction)) {
      LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg);
      st = AIR_STATUS(&m->alloc, AIR_STATUS_INTERNAL, "code generator made invalid IR for %s: %s",
                      name, msg ? msg : "?");
      LLVMDisposeMessage(msg);
    }
  }
  if (st) {
    if (f.fn) LLVMDeleteFunction(f.fn);
    return st;
  }
  m->n_funcs++;
  m->emit_ns += cg_now_ns() - t0;
  return NULL;
}

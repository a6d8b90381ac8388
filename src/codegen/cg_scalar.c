/* cg_scalar.c - arith, casts and affine expressions as LLVM IR, bit for bit what
 * the interpreter computes (hal/cpu/interp/scalar.c; cg_internal.h says how values are
 * held). */
#include <string.h>

#include "codegen/cg_internal.h"

static bool is_float(uint32_t e) { return air_elem_is_float((air_elem_kind_t)e); }
static uint32_t bits_of(uint32_t e) {
  return e == AIR_ELEM_I1 ? 1 : air_elem_size((air_elem_kind_t)e) * 8;
}

/*---------------------------------------------------------------------------*/
/* Narrow floats                                                             */
/*---------------------------------------------------------------------------*/

/* f32 -> bf16 bits, as codec.c's f32_to_bf16: NaN keeps its top bits and is made
 * quiet, everything else rounds to nearest even. */
static LLVMValueRef f32_to_bf16_bits(cg_fn_t* f, LLVMValueRef x) {
  LLVMBuilderRef b = f->b;
  air_cg_module_t* m = f->m;
  LLVMValueRef bits = LLVMBuildBitCast(b, x, m->i32, "");
  LLVMValueRef mag = LLVMBuildAnd(b, bits, LLVMConstInt(m->i32, 0x7fffffffu, 0), "");
  LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, mag, LLVMConstInt(m->i32, 0x7f800000u, 0), "");
  LLVMValueRef hi = LLVMBuildLShr(b, bits, LLVMConstInt(m->i32, 16, 0), "");
  LLVMValueRef qnan = LLVMBuildOr(b, hi, LLVMConstInt(m->i32, 0x40, 0), "");
  LLVMValueRef lsb = LLVMBuildAnd(b, hi, LLVMConstInt(m->i32, 1, 0), "");
  LLVMValueRef bias = LLVMBuildAdd(b, lsb, LLVMConstInt(m->i32, 0x7fff, 0), "");
  LLVMValueRef rounded = LLVMBuildLShr(b, LLVMBuildAdd(b, bits, bias, ""),
                                       LLVMConstInt(m->i32, 16, 0), "");
  LLVMValueRef r = LLVMBuildSelect(b, nan, qnan, rounded, "");
  return LLVMBuildTrunc(b, r, m->i16, "");
}

static LLVMValueRef bf16_bits_to_f32(cg_fn_t* f, LLVMValueRef h) {
  LLVMValueRef w = LLVMBuildShl(f->b, LLVMBuildZExt(f->b, h, f->m->i32, ""),
                                LLVMConstInt(f->m->i32, 16, 0), "");
  return LLVMBuildBitCast(f->b, w, f->m->f32, "");
}

LLVMValueRef cg_round(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  if (elem == AIR_ELEM_BF16) return bf16_bits_to_f32(f, f32_to_bf16_bits(f, x));
  if (elem == AIR_ELEM_F16)
    return LLVMBuildFPExt(f->b, LLVMBuildFPTrunc(f->b, x, f->m->f16, ""), f->m->f32, "");
  return x;
}

/* A double to the held form of float type `elem` (double rounding as the
 * interpreter: double -> float -> bf16/f16). */
static LLVMValueRef from_double(cg_fn_t* f, uint32_t elem, LLVMValueRef d) {
  if (elem == AIR_ELEM_F64) return d;
  return cg_round(f, elem, LLVMBuildFPTrunc(f->b, d, f->m->f32, ""));
}

static LLVMValueRef to_double(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  return elem == AIR_ELEM_F64 ? x : LLVMBuildFPExt(f->b, x, f->m->f64, "");
}

/* An integer held in iN to its int64 normal form (i1 0/1, else sign-extended). */
static LLVMValueRef to_i64(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  if (elem == AIR_ELEM_I64 || elem == AIR_ELEM_INDEX) return x;
  return elem == AIR_ELEM_I1 ? LLVMBuildZExt(f->b, x, f->m->i64, "")
                             : LLVMBuildSExt(f->b, x, f->m->i64, "");
}
/* ... zero-extended instead (codec.h's ix_mask_u). */
static LLVMValueRef to_u64(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  if (elem == AIR_ELEM_I64 || elem == AIR_ELEM_INDEX) return x;
  return LLVMBuildZExt(f->b, x, f->m->i64, "");
}
static LLVMValueRef from_i64(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  if (elem == AIR_ELEM_I64 || elem == AIR_ELEM_INDEX) return x;
  return LLVMBuildTrunc(f->b, x, cg_elem_type(f->m, elem), "");
}

LLVMValueRef cg_from_word(cg_fn_t* f, uint32_t elem, LLVMValueRef w) {
  if (is_float(elem)) {
    LLVMValueRef d = LLVMBuildBitCast(f->b, w, f->m->f64, "");
    return elem == AIR_ELEM_F64 ? d : LLVMBuildFPTrunc(f->b, d, f->m->f32, "");
  }
  return from_i64(f, elem, w);
}

LLVMValueRef cg_to_word(cg_fn_t* f, uint32_t elem, LLVMValueRef x) {
  if (is_float(elem)) return LLVMBuildBitCast(f->b, to_double(f, elem, x), f->m->i64, "");
  return to_i64(f, elem, x);
}

/* The interpreter holds every f16/bf16/f32 value it loads as a double, and the
 * float -> double conversion quiets a signalling NaN; LLVM keeps NaN payloads
 * unspecified through moves, so loads quiet them explicitly. */
static LLVMValueRef quiet(cg_fn_t* f, LLVMValueRef x) {
  LLVMBuilderRef B = f->b;
  air_cg_module_t* m = f->m;
  LLVMValueRef nan = LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
  LLVMValueRef bits = LLVMBuildOr(B, LLVMBuildBitCast(B, x, m->i32, ""),
                                  LLVMConstInt(m->i32, 0x00400000u, 0), "");
  return LLVMBuildSelect(B, nan, LLVMBuildBitCast(B, bits, m->f32, ""), x, "");
}

LLVMValueRef cg_load_elem(cg_fn_t* f, uint32_t elem, LLVMValueRef addr) {
  air_cg_module_t* m = f->m;
  switch (elem) {
    case AIR_ELEM_BF16:
      return quiet(f, bf16_bits_to_f32(f, LLVMBuildLoad2(f->b, m->i16, addr, "")));
    case AIR_ELEM_F16:
      return quiet(f, LLVMBuildFPExt(f->b, LLVMBuildLoad2(f->b, m->f16, addr, ""), m->f32, ""));
    case AIR_ELEM_F32: return quiet(f, LLVMBuildLoad2(f->b, m->f32, addr, ""));
    case AIR_ELEM_I1:
      return LLVMBuildTrunc(f->b, LLVMBuildLoad2(f->b, m->i8, addr, ""), m->i1, "");
    default: return LLVMBuildLoad2(f->b, cg_elem_type(m, elem), addr, "");
  }
}

void cg_store_elem(cg_fn_t* f, uint32_t elem, LLVMValueRef addr, LLVMValueRef x) {
  air_cg_module_t* m = f->m;
  switch (elem) {
    case AIR_ELEM_BF16: LLVMBuildStore(f->b, f32_to_bf16_bits(f, x), addr); break;
    case AIR_ELEM_F16: LLVMBuildStore(f->b, LLVMBuildFPTrunc(f->b, x, m->f16, ""), addr); break;
    case AIR_ELEM_I1: LLVMBuildStore(f->b, LLVMBuildZExt(f->b, x, m->i8, ""), addr); break;
    default: LLVMBuildStore(f->b, x, addr); break;
  }
}

/*---------------------------------------------------------------------------*/
/* Affine expressions                                                        */
/*---------------------------------------------------------------------------*/

static LLVMValueRef checked(cg_fn_t* f, const char* name, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = f->m->i64;
  LLVMValueRef args[2] = {a, b};
  LLVMValueRef r = cg_intrinsic(f, name, &t, 1, args, 2);
  cg_fail_if(f, LLVMBuildExtractValue(f->b, r, 1, ""), AIR_CG_DIV);
  return LLVMBuildExtractValue(f->b, r, 0, "");
}

/* floor(a / b) for b != 0, no INT64_MIN / -1 (checked by the caller). */
static LLVMValueRef floordiv(cg_fn_t* f, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef B = f->b;
  LLVMValueRef q = LLVMBuildSDiv(B, a, b, ""), r = LLVMBuildSRem(B, a, b, "");
  LLVMValueRef zero = cg_ci64(f, 0);
  LLVMValueRef inexact = LLVMBuildICmp(B, LLVMIntNE, r, zero, "");
  LLVMValueRef signs = LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, a, zero, ""),
                                    LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""), "");
  LLVMValueRef adj = LLVMBuildAnd(B, inexact, signs, "");
  return LLVMBuildSub(B, q, LLVMBuildZExt(B, adj, f->m->i64, ""), "");
}

static void check_div(cg_fn_t* f, LLVMValueRef l, LLVMValueRef r) {
  LLVMBuilderRef B = f->b;
  LLVMValueRef z = LLVMBuildICmp(B, LLVMIntEQ, r, cg_ci64(f, 0), "");
  LLVMValueRef ov = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, l, cg_ci64(f, INT64_MIN), ""),
                                 LLVMBuildICmp(B, LLVMIntEQ, r, cg_ci64(f, -1), ""), "");
  cg_fail_if(f, LLVMBuildOr(B, z, ov, ""), AIR_CG_DIV);
}

LLVMValueRef cg_affine(cg_fn_t* f, const air_aff_t* e, LLVMValueRef* dims, LLVMValueRef* syms) {
  switch (e->kind) {
    case AIR_AFF_CONST: return cg_ci64(f, e->value);
    case AIR_AFF_DIM: return dims[e->value];
    case AIR_AFF_SYM: return syms[e->value];
    default: break;
  }
  LLVMValueRef l = cg_affine(f, e->lhs, dims, syms), r = cg_affine(f, e->rhs, dims, syms);
  LLVMBuilderRef B = f->b;
  switch (e->kind) {
    case AIR_AFF_ADD: return checked(f, "llvm.sadd.with.overflow", l, r);
    case AIR_AFF_MUL: return checked(f, "llvm.smul.with.overflow", l, r);
    case AIR_AFF_MOD: {
      cg_fail_if(f, LLVMBuildICmp(B, LLVMIntSLE, r, cg_ci64(f, 0), ""), AIR_CG_DIV);
      LLVMValueRef m = LLVMBuildSRem(B, l, r, "");
      LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, m, cg_ci64(f, 0), "");
      return LLVMBuildSelect(B, neg, LLVMBuildAdd(B, m, r, ""), m, "");
    }
    case AIR_AFF_FLOORDIV:
      check_div(f, l, r);
      return floordiv(f, l, r);
    case AIR_AFF_CEILDIV: {
      check_div(f, l, r);
      cg_fail_if(f, LLVMBuildICmp(B, LLVMIntEQ, l, cg_ci64(f, INT64_MIN), ""), AIR_CG_DIV);
      return LLVMBuildNeg(B, floordiv(f, LLVMBuildNeg(B, l, ""), r), "");
    }
    default: return cg_ci64(f, 0);
  }
}

/*---------------------------------------------------------------------------*/
/* Ops                                                                       */
/*---------------------------------------------------------------------------*/

bool cg_scalar_supported(const air_program_t* p, const air_op_t* op) {
  air_opcls_t cls = air_opkind_class(op->kind);
  if (op->n_results != 1) return false;
  uint32_t el = cg_value_elem(p, op->results[0]);
  if (el == AIR_ELEM_NONE) return false;
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if (cg_value_elem(p, op->operands[i]) == AIR_ELEM_NONE) return false;
  switch (cls) {
    case AIR_OPC_CONSTANT: {
      const air_attr_t* c = air_ir_attr_resolve(p, &op->value);
      return c && (c->kind == AIR_ATTR_FLOAT || c->kind == AIR_ATTR_INT ||
                   c->kind == AIR_ATTR_BOOL);
    }
    /* arith's own ops: the math dialect and arith.remf (issue 12) run in the
     * interpreter (libm), which compiled code would have to call the same way. */
    case AIR_OPC_BINARY: return op->n_operands == 2 && op->kind <= AIR_OP_NEGF;
    case AIR_OPC_UNARY: return op->n_operands == 1 && is_float(el) && op->kind == AIR_OP_NEGF;
    case AIR_OPC_CMP: return op->n_operands == 2;
    case AIR_OPC_SELECT: return op->n_operands == 3;
    case AIR_OPC_CAST: {
      if (op->n_operands != 1) return false;
      uint32_t from = cg_value_elem(p, op->operands[0]);
      if ((op->kind == AIR_OP_FPTOSI || op->kind == AIR_OP_FPTOUI) && el == AIR_ELEM_I1)
        return false; /* the interpreter's saturation at width 1 is its own */
      if (op->kind == AIR_OP_BITCAST)
        return air_elem_size((air_elem_kind_t)from) == air_elem_size((air_elem_kind_t)el) &&
               from != AIR_ELEM_I1 && el != AIR_ELEM_I1;
      return true;
    }
    case AIR_OPC_AFFINE_APPLY: {
      const air_attr_t* m = air_ir_attr_resolve(p, &op->value);
      return m && m->kind == AIR_ATTR_MAP && m->map && m->map->n_results >= 1 &&
             op->iaux[0] == m->map->n_dims && op->n_operands == m->map->n_dims + m->map->n_syms &&
             (op->kind != AIR_OP_AFFINE_APPLY || m->map->n_results == 1) &&
             op->n_operands <= 32;
    }
    default: return false;
  }
}

static LLVMValueRef int_binary(cg_fn_t* f, const air_op_t* op, uint32_t el, LLVMValueRef a,
                               LLVMValueRef b) {
  LLVMBuilderRef B = f->b;
  uint32_t bits = bits_of(el);
  switch (op->kind) {
    case AIR_OP_ADDI: return LLVMBuildAdd(B, a, b, "");
    case AIR_OP_SUBI: return LLVMBuildSub(B, a, b, "");
    case AIR_OP_MULI: return LLVMBuildMul(B, a, b, "");
    case AIR_OP_ANDI: return LLVMBuildAnd(B, a, b, "");
    case AIR_OP_ORI: return LLVMBuildOr(B, a, b, "");
    case AIR_OP_XORI: return LLVMBuildXor(B, a, b, "");
    case AIR_OP_MAXSI: return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, a, b, ""), a, b, "");
    case AIR_OP_MINSI: return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a, b, ""), a, b, "");
    case AIR_OP_MAXUI: return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, a, b, ""), a, b, "");
    case AIR_OP_MINUI: return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, b, ""), a, b, "");
    default: break;
  }
  /* Division and shifts on the int64 normal forms, as scalar.c does. */
  LLVMValueRef sa = to_i64(f, el, a), sb = to_i64(f, el, b);
  LLVMValueRef ua = to_u64(f, el, a), ub = to_u64(f, el, b);
  LLVMValueRef x;
  switch (op->kind) {
    case AIR_OP_DIVSI: case AIR_OP_CEILDIVSI: case AIR_OP_FLOORDIVSI: case AIR_OP_REMSI: {
      check_div(f, sa, sb);
      LLVMValueRef q = LLVMBuildSDiv(B, sa, sb, ""), r = LLVMBuildSRem(B, sa, sb, "");
      if (op->kind == AIR_OP_REMSI) {
        x = r;
      } else if (op->kind == AIR_OP_DIVSI) {
        x = q;
      } else {
        LLVMValueRef inexact = LLVMBuildICmp(B, LLVMIntNE, r, cg_ci64(f, 0), "");
        LLVMValueRef same = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildICmp(B, LLVMIntSLT, sa, cg_ci64(f, 0), ""),
                                          LLVMBuildICmp(B, LLVMIntSLT, sb, cg_ci64(f, 0), ""), "");
        if (op->kind == AIR_OP_CEILDIVSI) {
          LLVMValueRef adj = LLVMBuildAnd(B, inexact, same, "");
          x = LLVMBuildAdd(B, q, LLVMBuildZExt(B, adj, f->m->i64, ""), "");
        } else {
          LLVMValueRef adj = LLVMBuildAnd(B, inexact, LLVMBuildNot(B, same, ""), "");
          x = LLVMBuildSub(B, q, LLVMBuildZExt(B, adj, f->m->i64, ""), "");
        }
      }
      break;
    }
    case AIR_OP_DIVUI: case AIR_OP_REMUI:
      cg_fail_if(f, LLVMBuildICmp(B, LLVMIntEQ, ub, cg_ci64(f, 0), ""), AIR_CG_DIV);
      x = op->kind == AIR_OP_DIVUI ? LLVMBuildUDiv(B, ua, ub, "") : LLVMBuildURem(B, ua, ub, "");
      break;
    case AIR_OP_SHLI: case AIR_OP_SHRUI: case AIR_OP_SHRSI: {
      LLVMValueRef big = LLVMBuildICmp(B, LLVMIntUGE, ub, cg_ci64(f, bits), "");
      LLVMValueRef amt = LLVMBuildSelect(B, big, cg_ci64(f, 0), ub, "");
      if (op->kind == AIR_OP_SHLI) {
        x = LLVMBuildSelect(B, big, cg_ci64(f, 0), LLVMBuildShl(B, ua, amt, ""), "");
      } else if (op->kind == AIR_OP_SHRUI) {
        x = LLVMBuildSelect(B, big, cg_ci64(f, 0), LLVMBuildLShr(B, ua, amt, ""), "");
      } else {
        LLVMValueRef fillv = LLVMBuildAShr(B, sa, cg_ci64(f, 63), "");
        x = LLVMBuildSelect(B, big, fillv, LLVMBuildAShr(B, sa, amt, ""), "");
      }
      break;
    }
    default:
      cg_unsupported(f, op, "integer op");
      return a;
  }
  return from_i64(f, el, x);
}

static LLVMValueRef call_libm(cg_fn_t* f, const char* name, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef params[2] = {f->m->f64, f->m->f64};
  LLVMTypeRef ty = LLVMFunctionType(f->m->f64, params, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(f->m->mod, name);
  if (!fn) fn = LLVMAddFunction(f->m->mod, name, ty);
  LLVMValueRef args[2] = {a, b};
  return LLVMBuildCall2(f->b, ty, fn, args, 2, "");
}

static LLVMValueRef float_binary(cg_fn_t* f, const air_op_t* op, uint32_t el, LLVMValueRef a,
                                 LLVMValueRef b) {
  LLVMBuilderRef B = f->b;
  switch (op->kind) {
    case AIR_OP_ADDF: return cg_round(f, el, LLVMBuildFAdd(B, a, b, ""));
    case AIR_OP_SUBF: return cg_round(f, el, LLVMBuildFSub(B, a, b, ""));
    case AIR_OP_MULF: return cg_round(f, el, LLVMBuildFMul(B, a, b, ""));
    case AIR_OP_DIVF: return cg_round(f, el, LLVMBuildFDiv(B, a, b, ""));
    default: break;
  }
  /* The rest pick one of the operands (or NaN), so the held type is enough;
   * maxnumf/minnumf call the same libm as the interpreter for signed zeros. */
  LLVMValueRef da = to_double(f, el, a), db = to_double(f, el, b), x;
  switch (op->kind) {
    case AIR_OP_MAXNUMF: x = call_libm(f, "fmax", da, db); break;
    case AIR_OP_MINNUMF: x = call_libm(f, "fmin", da, db); break;
    case AIR_OP_MAXIMUMF: case AIR_OP_MINIMUMF: {
      bool mx = op->kind == AIR_OP_MAXIMUMF;
      LLVMValueRef uno = LLVMBuildFCmp(B, LLVMRealUNO, da, db, "");
      LLVMValueRef eq = LLVMBuildFCmp(B, LLVMRealOEQ, da, db, "");
      LLVMValueRef sa = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildBitCast(B, da, f->m->i64, ""),
                                      cg_ci64(f, 0), "");
      /* equal: max picks b when a is -0 (signbit), min picks a when a is -0 */
      LLVMValueRef on_eq = mx ? LLVMBuildSelect(B, sa, db, da, "") : LLVMBuildSelect(B, sa, da, db, "");
      LLVMValueRef gt = LLVMBuildFCmp(B, mx ? LLVMRealOGT : LLVMRealOLT, da, db, "");
      LLVMValueRef pick = LLVMBuildSelect(B, gt, da, db, "");
      x = LLVMBuildSelect(B, eq, on_eq, pick, "");
      x = LLVMBuildSelect(B, uno, LLVMConstReal(f->m->f64, __builtin_nan("")), x, "");
      break;
    }
    default:
      cg_unsupported(f, op, "float op");
      return a;
  }
  return from_double(f, el, x);
}

static const LLVMRealPredicate k_fpred[AIR_CMPF_COUNT_] = {
    LLVMRealPredicateFalse, LLVMRealOEQ, LLVMRealOGT, LLVMRealOGE, LLVMRealOLT, LLVMRealOLE,
    LLVMRealONE, LLVMRealORD, LLVMRealUEQ, LLVMRealUGT, LLVMRealUGE, LLVMRealULT,
    LLVMRealULE, LLVMRealUNE, LLVMRealUNO, LLVMRealPredicateTrue};
static const LLVMIntPredicate k_ipred[AIR_CMPI_COUNT_] = {
    LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE,
    LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};

static LLVMValueRef cast(cg_fn_t* f, const air_op_t* op, uint32_t from, uint32_t to,
                         LLVMValueRef x) {
  LLVMBuilderRef B = f->b;
  air_cg_module_t* m = f->m;
  switch (op->kind) {
    case AIR_OP_INDEX_CAST: case AIR_OP_EXTSI: case AIR_OP_TRUNCI:
      return from_i64(f, to, to_i64(f, from, x));
    case AIR_OP_INDEX_CASTUI: case AIR_OP_EXTUI:
      return from_i64(f, to, to_u64(f, from, x));
    case AIR_OP_EXTF: case AIR_OP_TRUNCF: return from_double(f, to, to_double(f, from, x));
    case AIR_OP_SITOFP:
      return from_double(f, to, LLVMBuildSIToFP(B, to_i64(f, from, x), m->f64, ""));
    case AIR_OP_UITOFP:
      return from_double(f, to, LLVMBuildUIToFP(B, to_u64(f, from, x), m->f64, ""));
    case AIR_OP_FPTOSI: case AIR_OP_FPTOUI: {
      LLVMTypeRef over[2] = {cg_elem_type(m, to), m->f64};
      LLVMValueRef d = to_double(f, from, x);
      return cg_intrinsic(f, op->kind == AIR_OP_FPTOSI ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                          over, 2, &d, 1);
    }
    case AIR_OP_BITCAST: {
      /* Through the stored bit pattern, as the interpreter does. */
      LLVMValueRef raw;
      uint32_t sz = air_elem_size((air_elem_kind_t)from);
      LLVMTypeRef it = sz == 8 ? m->i64 : sz == 4 ? m->i32 : sz == 2 ? m->i16 : m->i8;
      if (from == AIR_ELEM_BF16) raw = f32_to_bf16_bits(f, x);
      else if (from == AIR_ELEM_F16) raw = LLVMBuildBitCast(B, LLVMBuildFPTrunc(B, x, m->f16, ""), m->i16, "");
      else if (is_float(from)) raw = LLVMBuildBitCast(B, x, it, "");
      else raw = x;
      if (to == AIR_ELEM_BF16) return bf16_bits_to_f32(f, raw);
      if (to == AIR_ELEM_F16) return LLVMBuildFPExt(B, LLVMBuildBitCast(B, raw, m->f16, ""), m->f32, "");
      if (is_float(to)) return LLVMBuildBitCast(B, raw, cg_elem_type(m, to), "");
      return raw;
    }
    default:
      cg_unsupported(f, op, "cast");
      return x;
  }
}

static LLVMValueRef constant(cg_fn_t* f, const air_op_t* op, uint32_t el) {
  const air_attr_t* c = air_ir_attr_resolve(f->p, &op->value);
  LLVMValueRef d;
  if (c->kind == AIR_ATTR_FLOAT) {
    d = LLVMConstReal(f->m->f64, c->f);
  } else if (is_float(el)) {
    /* A float written as its bit pattern: the element's bits. */
    uint32_t sz = air_elem_size((air_elem_kind_t)el);
    uint64_t bits = (uint64_t)c->i;
    if (sz == 8) {
      return LLVMConstBitCast(LLVMConstInt(f->m->i64, bits, 0), f->m->f64);
    } else if (sz == 4) {
      return LLVMConstBitCast(LLVMConstInt(f->m->i32, bits & 0xffffffffu, 0), f->m->f32);
    }
    LLVMValueRef h = LLVMConstInt(f->m->i16, bits & 0xffffu, 0);
    if (el == AIR_ELEM_BF16) return bf16_bits_to_f32(f, h);
    return LLVMBuildFPExt(f->b, LLVMBuildBitCast(f->b, h, f->m->f16, ""), f->m->f32, "");
  } else {
    int64_t v = c->i;
    if (el == AIR_ELEM_I1) v &= 1;
    return LLVMConstInt(cg_elem_type(f->m, el), (unsigned long long)v, 1);
  }
  return from_double(f, el, d);
}

void cg_emit_scalar(cg_fn_t* f, const air_op_t* op) {
  air_vid_t res = op->results[0];
  uint32_t el = cg_value_elem(f->p, res);
  LLVMBuilderRef B = f->b;
  LLVMValueRef x = NULL;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: x = constant(f, op, el); break;
    case AIR_OPC_BINARY: {
      LLVMValueRef a = cg_val(f, op->operands[0]), b = cg_val(f, op->operands[1]);
      x = is_float(el) ? float_binary(f, op, el, a, b) : int_binary(f, op, el, a, b);
      break;
    }
    case AIR_OPC_UNARY: x = LLVMBuildFNeg(B, cg_val(f, op->operands[0]), ""); break;
    case AIR_OPC_CMP: {
      LLVMValueRef a = cg_val(f, op->operands[0]), b = cg_val(f, op->operands[1]);
      uint32_t pred = op->iaux[0];
      if (op->kind == AIR_OP_CMPF) {
        if (pred >= AIR_CMPF_COUNT_) pred = AIR_CMPF_TRUE; /* scalar.c: true */
        x = LLVMBuildFCmp(B, k_fpred[pred], a, b, "");
      } else if (pred < AIR_CMPI_COUNT_) {
        x = LLVMBuildICmp(B, k_ipred[pred], a, b, "");
      } else {
        cg_unsupported(f, op, "cmpi predicate");
        return;
      }
      break;
    }
    case AIR_OPC_SELECT:
      x = LLVMBuildSelect(B, cg_val(f, op->operands[0]), cg_val(f, op->operands[1]),
                          cg_val(f, op->operands[2]), "");
      break;
    case AIR_OPC_CAST:
      x = cast(f, op, cg_value_elem(f->p, op->operands[0]), el, cg_val(f, op->operands[0]));
      break;
    case AIR_OPC_AFFINE_APPLY: {
      const air_affine_map_t* map = air_ir_attr_resolve(f->p, &op->value)->map;
      LLVMValueRef vals[32];
      for (uint32_t i = 0; i < op->n_operands; ++i) vals[i] = cg_val(f, op->operands[i]);
      uint32_t nd = op->iaux[0];
      x = cg_affine(f, map->results[0], vals, vals + nd);
      for (uint32_t k = 1; k < map->n_results; ++k) {
        LLVMValueRef y = cg_affine(f, map->results[k], vals, vals + nd);
        bool mn = op->kind == AIR_OP_AFFINE_MIN;
        x = LLVMBuildSelect(B, LLVMBuildICmp(B, mn ? LLVMIntSLT : LLVMIntSGT, y, x, ""), y, x, "");
      }
      break;
    }
    default: cg_unsupported(f, op, "scalar op"); return;
  }
  if (x) cg_set(f, res, x);
}

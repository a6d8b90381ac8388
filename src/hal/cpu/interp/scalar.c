/* scalar.c - the scalar op family: arith constants, binary and unary ops,
 * comparisons, select, casts, affine.apply/min/max, and the math dialect
 * (math.c computes its functions). Integers are int64
 * normalised to their width, floats are doubles rounded to their type
 * (codec.h); f16/bf16/f32 arithmetic runs in f32, f64 in double. */
#include "hal/cpu/interp/scalar.h"

#include <math.h>
#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/math.h"

bool ix_is_scalar_op(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_TERNARY:
      return true;
    default: return false;
  }
}

static air_status_t div0(ix_run_t* r, const air_op_t* op) {
  return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: division by zero or overflow",
                ix_opname(op));
}

static air_status_t int_binary(ix_run_t* r, const air_op_t* op, uint32_t el, int64_t a,
                               int64_t b, int64_t* out) {
  uint64_t ua = ix_mask_u(el, a), ub = ix_mask_u(el, b);
  uint32_t bits = ix_elem_bits(el);
  int64_t x = 0;
  switch (op->kind) {
    case AIR_OP_ADDI: x = (int64_t)((uint64_t)a + (uint64_t)b); break;
    case AIR_OP_SUBI: x = (int64_t)((uint64_t)a - (uint64_t)b); break;
    case AIR_OP_MULI: x = (int64_t)((uint64_t)a * (uint64_t)b); break;
    case AIR_OP_DIVSI:
    case AIR_OP_CEILDIVSI:
    case AIR_OP_FLOORDIVSI:
    case AIR_OP_REMSI:
      if (!b || (a == INT64_MIN && b == -1)) return div0(r, op);
      x = a / b;
      if (op->kind == AIR_OP_REMSI) x = a % b;
      if (op->kind == AIR_OP_CEILDIVSI && (a % b) && ((a < 0) == (b < 0))) ++x;
      if (op->kind == AIR_OP_FLOORDIVSI && (a % b) && ((a < 0) != (b < 0))) --x;
      break;
    case AIR_OP_DIVUI:
    case AIR_OP_REMUI:
      if (!ub) return div0(r, op);
      x = (int64_t)(op->kind == AIR_OP_DIVUI ? ua / ub : ua % ub);
      break;
    case AIR_OP_MAXSI: x = a > b ? a : b; break;
    case AIR_OP_MINSI: x = a < b ? a : b; break;
    case AIR_OP_MAXUI: x = (int64_t)(ua > ub ? ua : ub); break;
    case AIR_OP_MINUI: x = (int64_t)(ua < ub ? ua : ub); break;
    case AIR_OP_ANDI: x = a & b; break;
    case AIR_OP_ORI: x = a | b; break;
    case AIR_OP_XORI: x = a ^ b; break;
    case AIR_OP_SHLI: x = ub >= bits ? 0 : (int64_t)(ua << ub); break;
    case AIR_OP_SHRUI: x = ub >= bits ? 0 : (int64_t)(ua >> ub); break;
    case AIR_OP_SHRSI: x = ub >= bits ? (a < 0 ? -1 : 0) : a >> ub; break;
    default:
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s on integers", ix_opname(op));
  }
  *out = ix_norm_i(el, x);
  return NULL;
}

static double float_binary(const air_op_t* op, uint32_t el, double a, double b) {
  double ab[2] = {a, b}, m;
  if (ix_math_float(op->kind, el, ab, &m)) return m; /* math.powf, remf, ... */
  if (el != AIR_ELEM_F64) {
    float x = (float)a, y = (float)b, z;
    switch (op->kind) {
      case AIR_OP_ADDF: z = x + y; break;
      case AIR_OP_SUBF: z = x - y; break;
      case AIR_OP_MULF: z = x * y; break;
      case AIR_OP_DIVF: z = x / y; break;
      default: return ix_round_f(el, float_binary(op, AIR_ELEM_F64, a, b));
    }
    return ix_round_f(el, z);
  }
  switch (op->kind) {
    case AIR_OP_ADDF: return a + b;
    case AIR_OP_SUBF: return a - b;
    case AIR_OP_MULF: return a * b;
    case AIR_OP_DIVF: return a / b;
    case AIR_OP_MAXIMUMF:
      if (isnan(a) || isnan(b)) return NAN;
      if (a == b) return signbit(a) ? b : a;
      return a > b ? a : b;
    case AIR_OP_MINIMUMF:
      if (isnan(a) || isnan(b)) return NAN;
      if (a == b) return signbit(a) ? a : b;
      return a < b ? a : b;
    case AIR_OP_MAXNUMF: return fmax(a, b);
    case AIR_OP_MINNUMF: return fmin(a, b);
    default: return NAN;
  }
}

static bool cmpf(uint32_t pred, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (pred) {
    case AIR_CMPF_FALSE: return false;
    case AIR_CMPF_OEQ: return !uno && a == b;
    case AIR_CMPF_OGT: return !uno && a > b;
    case AIR_CMPF_OGE: return !uno && a >= b;
    case AIR_CMPF_OLT: return !uno && a < b;
    case AIR_CMPF_OLE: return !uno && a <= b;
    case AIR_CMPF_ONE: return !uno && a != b;
    case AIR_CMPF_ORD: return !uno;
    case AIR_CMPF_UEQ: return uno || a == b;
    case AIR_CMPF_UGT: return uno || a > b;
    case AIR_CMPF_UGE: return uno || a >= b;
    case AIR_CMPF_ULT: return uno || a < b;
    case AIR_CMPF_ULE: return uno || a <= b;
    case AIR_CMPF_UNE: return uno || a != b;
    case AIR_CMPF_UNO: return uno;
    default: return true;
  }
}

static bool cmpi(uint32_t pred, uint32_t el, int64_t a, int64_t b) {
  return air_cmpi_eval(pred, a, b, ix_mask_u(el, a), ix_mask_u(el, b));
}

/* fptosi/fptoui saturate (MLIR leaves out-of-range results undefined). */
static int64_t sat_i(uint32_t el, double x, bool is_unsigned) {
  if (isnan(x)) return 0;
  x = trunc(x);
  int bits = (int)ix_elem_bits(el);
  if (is_unsigned) {
    if (x <= 0) return 0;
    if (x >= ldexp(1, bits))
      return ix_norm_i(el, (int64_t)(bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1));
    return ix_norm_i(el, (int64_t)(uint64_t)x);
  }
  if (x < -ldexp(1, bits - 1)) return bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
  if (x >= ldexp(1, bits - 1)) return bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
  return ix_norm_i(el, (int64_t)x);
}

static air_status_t cast(ix_run_t* r, const air_op_t* op, uint32_t from, uint32_t to,
                         ix_val_t x, ix_val_t* out) {
  bool ff = air_elem_is_float((air_elem_kind_t)from), tf = air_elem_is_float((air_elem_kind_t)to);
  switch (op->kind) {
    case AIR_OP_INDEX_CAST: case AIR_OP_EXTSI: case AIR_OP_TRUNCI:
      out->i = ix_norm_i(to, x.i);
      return NULL;
    case AIR_OP_INDEX_CASTUI: case AIR_OP_EXTUI:
      out->i = ix_norm_i(to, (int64_t)ix_mask_u(from, x.i));
      return NULL;
    case AIR_OP_EXTF: case AIR_OP_TRUNCF: out->f = ix_round_f(to, x.f); return NULL;
    case AIR_OP_SITOFP: out->f = ix_round_f(to, (double)x.i); return NULL;
    case AIR_OP_UITOFP: out->f = ix_round_f(to, (double)ix_mask_u(from, x.i)); return NULL;
    case AIR_OP_FPTOSI: out->i = sat_i(to, x.f, false); return NULL;
    case AIR_OP_FPTOUI: out->i = sat_i(to, x.f, true); return NULL;
    case AIR_OP_BITCAST: {
      unsigned char buf[8] = {0};
      if (air_elem_size((air_elem_kind_t)from) != air_elem_size((air_elem_kind_t)to)) break;
      if (ff)
        ix_store_f(buf, from, x.f);
      else
        ix_store_i(buf, from, x.i);
      if (tf)
        out->f = ix_load_f(buf, to);
      else
        out->i = ix_load_i(buf, to);
      return NULL;
    }
    default: break;
  }
  return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s from %s to %s is not supported",
                ix_opname(op), air_elem_name((air_elem_kind_t)from),
                air_elem_name((air_elem_kind_t)to));
}

static air_status_t scalar(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                           ix_val_t* out) {
  ix_val_t* s = ix_slot(r, e, v);
  if (!s) {
    char nb[64];
    return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION, "%s: operand %s has no value here",
                  ix_opname(op), ix_vname(r, v, nb, sizeof nb));
  }
  *out = *s;
  return NULL;
}

air_status_t ix_eval_scalar(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  if (!op->n_results) return NULL;
  air_vid_t res = op->results[0];
  uint32_t el = r->tab.vinfo[res].elem;
  bool fl = air_elem_is_float((air_elem_kind_t)el);
  ix_val_t a = {0}, b = {0}, x = {0};
  air_status_t st = NULL;
  air_opcls_t cls = air_opkind_class(op->kind);
  if (cls == AIR_OPC_BINARY || cls == AIR_OPC_CMP) {
    if (op->n_operands != 2) return ix_err(r, op, AIR_STATUS_INTERNAL, "bad operands");
    if ((st = scalar(r, e, op, op->operands[0], &a)) ||
        (st = scalar(r, e, op, op->operands[1], &b)))
      return st;
  }
  switch (cls) {
    case AIR_OPC_CONSTANT: {
      const air_attr_t* c = air_ir_attr_resolve(r->p, &op->value);
      if (c && c->kind == AIR_ATTR_FLOAT)
        x.f = ix_round_f(el, c->f);
      else if (c && (c->kind == AIR_ATTR_INT || c->kind == AIR_ATTR_BOOL) && fl) {
        /* A float written as its bit pattern (0x7FC00000 : f32). */
        unsigned char buf[8];
        memcpy(buf, &c->i, 8);
        x.f = ix_load_f(buf, el);
      } else if (c && (c->kind == AIR_ATTR_INT || c->kind == AIR_ATTR_BOOL))
        x.i = ix_norm_i(el, c->i);
      else
        return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "unsupported constant");
      break;
    }
    case AIR_OPC_BINARY:
      if (fl)
        x.f = float_binary(op, el, a.f, b.f);
      else if ((st = int_binary(r, op, el, a.i, b.i, &x.i)))
        return st;
      break;
    case AIR_OPC_UNARY:
      if ((st = scalar(r, e, op, op->operands[0], &a))) return st;
      if (op->kind == AIR_OP_NEGF)
        x.f = -a.f;
      else if (!(fl ? ix_math_float(op->kind, el, &a.f, &x.f) : ix_math_int(op->kind, el, a.i, &x.i)))
        return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s on %s is not supported",
                      ix_opname(op), air_elem_name((air_elem_kind_t)el));
      break;
    case AIR_OPC_TERNARY: {
      double abc[3];
      for (uint32_t i = 0; i < 3; ++i) {
        if (op->n_operands != 3) return ix_err(r, op, AIR_STATUS_INTERNAL, "bad operands");
        if ((st = scalar(r, e, op, op->operands[i], &a))) return st;
        abc[i] = a.f;
      }
      if (!fl || !ix_math_float(op->kind, el, abc, &x.f))
        return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s on %s is not supported",
                      ix_opname(op), air_elem_name((air_elem_kind_t)el));
      break;
    }
    case AIR_OPC_CMP: {
      uint32_t oel = r->tab.vinfo[op->operands[0]].elem;
      bool t = op->kind == AIR_OP_CMPF ? cmpf(op->iaux[0], a.f, b.f)
                                       : cmpi(op->iaux[0], oel, a.i, b.i);
      x.i = t;
      break;
    }
    case AIR_OPC_SELECT: {
      ix_val_t c = {0}; /* always set by scalar() on success; gcc -O3 cannot see it */
      if (op->n_operands != 3 || (st = scalar(r, e, op, op->operands[0], &c))) return st;
      ix_val_t* pick = ix_slot(r, e, op->operands[c.i ? 1 : 2]);
      if (!pick) return ix_err(r, op, AIR_STATUS_INTERNAL, "select operand missing");
      ix_set(r, e, res, *pick);
      return NULL;
    }
    case AIR_OPC_CAST:
      if ((st = scalar(r, e, op, op->operands[0], &a))) return st;
      if ((st = cast(r, op, r->tab.vinfo[op->operands[0]].elem, el, a, &x))) return st;
      break;
    case AIR_OPC_AFFINE_APPLY: {
      const air_attr_t* m = air_ir_attr_resolve(r->p, &op->value);
      bool apply = op->kind == AIR_OP_AFFINE_APPLY;
      if (!m || m->kind != AIR_ATTR_MAP || !m->map || !m->map->results ||
          (apply ? m->map->n_results != 1 : m->map->n_results < 1))
        return ix_err(r, op, AIR_STATUS_INTERNAL, "%s needs a %s map", ix_opname(op),
                      apply ? "one-result" : "non-empty");
      int64_t vals[32];
      uint32_t nd = op->iaux[0];
      if (op->n_operands > 32 || nd != m->map->n_dims || op->n_operands != nd + m->map->n_syms)
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s operands do not match its map",
                      ix_opname(op));
      for (uint32_t i = 0; i < op->n_operands; ++i)
        if ((st = ix_get_i(r, e, op, op->operands[i], &vals[i]))) return st;
      if (!air_aff_eval(m->map->results[0], vals, vals + nd, &x.i)) return div0(r, op);
      /* affine.min / affine.max reduce every result of the map */
      for (uint32_t k = 1; k < m->map->n_results && !apply; ++k) {
        int64_t y;
        if (!air_aff_eval(m->map->results[k], vals, vals + nd, &y)) return div0(r, op);
        if (op->kind == AIR_OP_AFFINE_MIN ? y < x.i : y > x.i) x.i = y;
      }
      break;
    }
    default: return ix_err(r, op, AIR_STATUS_INTERNAL, "not a scalar op");
  }
  ix_set(r, e, res, x);
  return NULL;
}

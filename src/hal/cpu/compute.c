/* compute.c - built-in scalar ops (arith, affine.apply), element access with
 * f16/bf16 conversions, and the memref ops (alloc, dealloc, load, store, copy,
 * subview).
 *
 * Scalars: integers are int64 normalised to their width (i1 is 0/1, iN
 * sign-extended), floats are doubles holding a value exactly representable in
 * their type: f16/bf16/f32 arithmetic runs in f32 and rounds to the type (round
 * to nearest even), f64 in double. */
#include <math.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "runtime/base/status_util.h"

/*---------------------------------------------------------------------------*/
/* Element types                                                             */
/*---------------------------------------------------------------------------*/

static uint32_t f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}

static float bits_f32(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

static uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (h & 1))) ++h;
    return (uint16_t)(sign | h);
  }
  uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return (uint16_t)h;
}

static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (exp == 0) {
    if (!mant) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      x = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112) << 23) | (mant << 13);
  }
  return bits_f32(x);
}

double ix_round_f(uint32_t elem, double x) {
  switch (elem) {
    case AIR_ELEM_F64: return x;
    case AIR_ELEM_F32: return (float)x;
    case AIR_ELEM_BF16: return bf16_to_f32(f32_to_bf16((float)x));
    case AIR_ELEM_F16: return f16_to_f32(f32_to_f16((float)x));
    default: return x;
  }
}

int64_t ix_norm_i(uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: return x & 1;
    case AIR_ELEM_I8: return (int8_t)x;
    case AIR_ELEM_I16: return (int16_t)x;
    case AIR_ELEM_I32: return (int32_t)x;
    default: return x;
  }
}

static uint64_t mask_u(uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: return (uint64_t)x & 1;
    case AIR_ELEM_I8: return (uint64_t)x & 0xffu;
    case AIR_ELEM_I16: return (uint64_t)x & 0xffffu;
    case AIR_ELEM_I32: return (uint64_t)x & 0xffffffffu;
    default: return (uint64_t)x;
  }
}

static uint32_t bits_of(uint32_t elem) {
  return elem == AIR_ELEM_I1 ? 1 : air_elem_size((air_elem_kind_t)elem) * 8;
}

double ix_load_f(const void* p, uint32_t elem) {
  switch (elem) {
    case AIR_ELEM_F64: { double d; memcpy(&d, p, 8); return d; }
    case AIR_ELEM_F32: { float f; memcpy(&f, p, 4); return f; }
    case AIR_ELEM_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16_to_f32(h); }
    case AIR_ELEM_F16: { uint16_t h; memcpy(&h, p, 2); return f16_to_f32(h); }
    default: return (double)ix_load_i(p, elem);
  }
}

int64_t ix_load_i(const void* p, uint32_t elem) {
  switch (elem) {
    case AIR_ELEM_I1: return *(const uint8_t*)p & 1;
    case AIR_ELEM_I8: return *(const int8_t*)p;
    case AIR_ELEM_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case AIR_ELEM_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case AIR_ELEM_I64: case AIR_ELEM_INDEX: { int64_t v; memcpy(&v, p, 8); return v; }
    default: return (int64_t)ix_load_f(p, elem);
  }
}

void ix_store_f(void* p, uint32_t elem, double x) {
  switch (elem) {
    case AIR_ELEM_F64: memcpy(p, &x, 8); break;
    case AIR_ELEM_F32: { float f = (float)x; memcpy(p, &f, 4); break; }
    case AIR_ELEM_BF16: { uint16_t h = f32_to_bf16((float)x); memcpy(p, &h, 2); break; }
    case AIR_ELEM_F16: { uint16_t h = f32_to_f16((float)x); memcpy(p, &h, 2); break; }
    default: ix_store_i(p, elem, (int64_t)x); break;
  }
}

void ix_store_i(void* p, uint32_t elem, int64_t x) {
  switch (elem) {
    case AIR_ELEM_I1: *(uint8_t*)p = (uint8_t)(x & 1); break;
    case AIR_ELEM_I8: *(int8_t*)p = (int8_t)x; break;
    case AIR_ELEM_I16: { int16_t v = (int16_t)x; memcpy(p, &v, 2); break; }
    case AIR_ELEM_I32: { int32_t v = (int32_t)x; memcpy(p, &v, 4); break; }
    case AIR_ELEM_I64: case AIR_ELEM_INDEX: memcpy(p, &x, 8); break;
    default: ix_store_f(p, elem, (double)x); break;
  }
}

void* ix_elem_ptr(const air_memref_t* v, const int64_t* idx, uint32_t n) {
  if (n != v->rank || !v->data) return NULL;
  int64_t off = v->offset;
  for (uint32_t k = 0; k < n; ++k) {
    if (idx[k] < 0 || idx[k] >= v->sizes[k]) return NULL;
    off += idx[k] * v->strides[k];
  }
  return (char*)v->data + off * (int64_t)air_elem_size((air_elem_kind_t)v->elem);
}

/*---------------------------------------------------------------------------*/
/* Scalar ops                                                                */
/*---------------------------------------------------------------------------*/

bool ix_is_scalar_op(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY:
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
  uint64_t ua = mask_u(el, a), ub = mask_u(el, b);
  uint32_t bits = bits_of(el);
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
  return air_cmpi_eval(pred, a, b, mask_u(el, a), mask_u(el, b));
}

/* fptosi/fptoui saturate (MLIR leaves out-of-range results undefined). */
static int64_t sat_i(uint32_t el, double x, bool is_unsigned) {
  if (isnan(x)) return 0;
  x = trunc(x);
  int bits = (int)bits_of(el);
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
      out->i = ix_norm_i(to, (int64_t)mask_u(from, x.i));
      return NULL;
    case AIR_OP_EXTF: case AIR_OP_TRUNCF: out->f = ix_round_f(to, x.f); return NULL;
    case AIR_OP_SITOFP: out->f = ix_round_f(to, (double)x.i); return NULL;
    case AIR_OP_UITOFP: out->f = ix_round_f(to, (double)mask_u(from, x.i)); return NULL;
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
  uint32_t el = r->vinfo[res].elem;
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
      x.f = -a.f;
      break;
    case AIR_OPC_CMP: {
      uint32_t oel = r->vinfo[op->operands[0]].elem;
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
      if ((st = cast(r, op, r->vinfo[op->operands[0]].elem, el, a, &x))) return st;
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

/*---------------------------------------------------------------------------*/
/* Memory                                                                    */
/*---------------------------------------------------------------------------*/

/* Every memref.alloc is recorded so a program that forgets to dealloc (or fails
 * half-way) still frees it when the run ends. */
static air_status_t op_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  const air_type_info_t* t = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  if (t->kind != AIR_TYPE_MEMREF || t->rank > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "memref.alloc of this type");
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.elem = t->elem;
  m.rank = t->rank;
  uint32_t dyn = 0;
  uint64_t count = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    int64_t d = t->shape[k];
    if (d == AIR_DIM_DYNAMIC) {
      air_status_t st = dyn < op->n_operands
                            ? ix_get_i(r, e, op, op->operands[dyn++], &d)
                            : ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "missing dynamic size");
      if (st) return st;
    }
    if (d < 0 || __builtin_mul_overflow(count, (uint64_t)d, &count) ||
        count > (UINT64_C(1) << 40))
      return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: size %lld is invalid",
                    (long long)d);
    m.sizes[k] = d;
  }
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    m.strides[k] = stride;
    stride *= m.sizes[k] ? m.sizes[k] : 1;
  }
  size_t bytes = (size_t)count * air_elem_size(t->elem);
  char* raw = ix_alloc(r, bytes + 64);
  if (!raw)
    return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory (%zu bytes)",
                  bytes);
  char* data = (char*)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  memset(data, 0, bytes);
  pthread_mutex_lock(&r->mem_lock);
  bool ok = ix_map_put(r, &r->allocs, data, raw);
  pthread_mutex_unlock(&r->mem_lock);
  if (!ok) {
    ix_free(r, raw);
    return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "memref.alloc: out of memory");
  }
  m.data = data;
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

static air_status_t op_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* v;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &v);
  if (st) return st;
  pthread_mutex_lock(&r->mem_lock);
  void* raw = ix_map_get(&r->allocs, v->data);
  if (raw) ix_map_del(&r->allocs, v->data);
  pthread_mutex_unlock(&r->mem_lock);
  if (!raw)
    return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "memref.dealloc of memory that memref.alloc did not return or that was "
                  "already freed");
  ix_free(r, raw);
  return NULL;
}

void ix_allocs_free(ix_run_t* r) {
  for (uint32_t i = 0; i < r->allocs.cap; ++i) {
    const void* k = r->allocs.keys[i];
    if (k && k != (const void*)(uintptr_t)1) ix_free(r, r->allocs.vals[i]);
  }
}

/* affine.load/store: the indices are the results of the op's map applied to the
 * operands from `first` on. */
static air_status_t affine_indices(ix_run_t* r, ix_env_t* e, const air_op_t* op, uint32_t first,
                                   int64_t* idx, uint32_t* n) {
  const air_attr_t* m = air_ir_attr_resolve(r->p, &op->value);
  uint32_t nd = op->iaux[0], nops = op->n_operands - first;
  if (!m || m->kind != AIR_ATTR_MAP || !m->map || (m->map->n_results && !m->map->results) ||
      nops > 32 || nd != m->map->n_dims || nops != nd + m->map->n_syms)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s operands do not match its map",
                  ix_opname(op));
  if (m->map->n_results > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s of rank %u (at most %d)", ix_opname(op),
                  m->map->n_results, AIR_MAX_RANK);
  int64_t vals[32];
  air_status_t st;
  for (uint32_t i = 0; i < nops; ++i)
    if ((st = ix_get_i(r, e, op, op->operands[first + i], &vals[i]))) return st;
  for (uint32_t k = 0; k < m->map->n_results; ++k)
    if (!air_aff_eval(m->map->results[k], vals, vals + nd, &idx[k])) return div0(r, op);
  *n = m->map->n_results;
  return NULL;
}

static air_status_t op_access(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  bool load = air_opkind_class(op->kind) == AIR_OPC_LOAD;
  uint32_t first = load ? 1 : 2;
  if (op->n_operands < first)
    return ix_err(r, op, AIR_STATUS_INTERNAL, "malformed %s", ix_opname(op));
  air_memref_t* v;
  air_status_t st = ix_get_view(r, e, op, op->operands[first - 1], &v);
  if (st) return st;
  int64_t idx[AIR_MAX_RANK];
  uint32_t n = op->n_operands - first;
  if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE) {
    if ((st = affine_indices(r, e, op, first, idx, &n))) return st;
  } else {
    if (n > AIR_MAX_RANK) n = AIR_MAX_RANK + 1;
    for (uint32_t k = 0; k < n && k < AIR_MAX_RANK; ++k)
      if ((st = ix_get_i(r, e, op, op->operands[first + k], &idx[k]))) return st;
  }
  void* p = ix_elem_ptr(v, idx, n);
  if (!p) {
    char nb[64];
    return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: index out of bounds of %s",
                  ix_opname(op), ix_vname(r, op->operands[first - 1], nb, sizeof nb));
  }
  bool fl = air_elem_is_float((air_elem_kind_t)v->elem);
  if (load) {
    ix_val_t x;
    if (fl)
      x.f = ix_load_f(p, v->elem);
    else
      x.i = ix_load_i(p, v->elem);
    ix_set(r, e, op->results[0], x);
  } else {
    ix_val_t* x = ix_slot(r, e, op->operands[0]);
    if (!x) return ix_err(r, op, AIR_STATUS_INTERNAL, "memref.store: value missing");
    if (fl)
      ix_store_f(p, v->elem, x->f);
    else
      ix_store_i(p, v->elem, x->i);
  }
  return NULL;
}

/* Result rank below the size count drops unit dimensions (MLIR rank reduction):
 * sizes of 1 that the result type does not keep. */
static air_status_t op_subview(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_type_info_t* rt = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  uint32_t n = src->rank;
  if (op->n_lists < 3 || op->lists[0].n != n || op->lists[1].n != n || op->lists[2].n != n ||
      rt->kind != AIR_TYPE_MEMREF || rt->rank > n)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.subview needs one offset, size and stride per source dimension");
  air_memref_t m = *src;
  m.rank = 0;
  uint32_t keep_left = rt->rank, j = 0;
  for (uint32_t k = 0; k < n; ++k) {
    int64_t o, s, t;
    if ((st = ix_get_ix(r, e, op, &op->lists[0].items[k], &o)) ||
        (st = ix_get_ix(r, e, op, &op->lists[1].items[k], &s)) ||
        (st = ix_get_ix(r, e, op, &op->lists[2].items[k], &t)))
      return st;
    if (o < 0 || s < 0 || t < 1 || (s && o + (s - 1) * t >= src->sizes[k]))
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "memref.subview: dimension #%u [%lld, size %lld, stride %lld] exceeds %lld",
                    k, (long long)o, (long long)s, (long long)t, (long long)src->sizes[k]);
    m.offset += o * src->strides[k];
    bool keep = j < rt->rank && (rt->shape[j] == s || rt->shape[j] == AIR_DIM_DYNAMIC) &&
                (s != 1 || n - k <= keep_left);
    if (!keep && s != 1)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "memref.subview: size %lld of dimension #%u does not match the result type",
                    (long long)s, k);
    if (keep) {
      m.sizes[m.rank] = s;
      m.strides[m.rank] = src->strides[k] * t;
      m.rank++;
      j++;
      keep_left--;
    }
  }
  if (m.rank != rt->rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.subview: result rank does not match its type");
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

/* True when view `m` is row-major contiguous over its dimensions. */
static bool contiguous(const air_memref_t* m) {
  int64_t stride = 1;
  for (uint32_t k = m->rank; k-- > 0;) {
    if (m->sizes[k] != 1 && m->strides[k] != stride) return false;
    stride *= m->sizes[k];
  }
  return true;
}

/* collapse_shape / expand_shape / cast make a new view of the same memory. The
 * reshapes are implemented for contiguous identity-layout sources, where the
 * result is again row-major; MLIR also allows some strided ones. */
static air_status_t op_reshape(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* src;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &src);
  if (st) return st;
  const air_type_info_t* st_t = air_ir_type(r->p, air_ir_value_type(r->p, op->operands[0]));
  const air_type_info_t* rt = air_ir_type(r->p, air_ir_value_type(r->p, op->results[0]));
  if (rt->kind != AIR_TYPE_MEMREF || rt->rank > AIR_MAX_RANK)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s needs a memref result of rank <= %d",
                  ix_opname(op), AIR_MAX_RANK);
  air_memref_t m = *src;
  if (op->kind == AIR_OP_MEMREF_CAST) {
    if (rt->rank != src->rank)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "memref.cast changes the rank");
    for (uint32_t k = 0; k < rt->rank; ++k)
      if (rt->shape[k] != AIR_DIM_DYNAMIC && rt->shape[k] != src->sizes[k])
        return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                      "memref.cast: dimension %u is %lld, not %lld", k,
                      (long long)src->sizes[k], (long long)rt->shape[k]);
    ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
    return NULL;
  }
  if (st_t->layout || !contiguous(src))
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                  "%s of a strided or non-contiguous memref (only contiguous identity-layout "
                  "sources are supported)",
                  ix_opname(op));
  bool collapse = op->kind == AIR_OP_COLLAPSE_SHAPE;
  const air_ixlist_t* groups = op->n_lists > 1 ? &op->lists[1] : NULL;
  uint32_t lo_rank = collapse ? rt->rank : src->rank, hi_rank = collapse ? src->rank : rt->rank;
  if (!groups || groups->n != lo_rank)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: reassociation does not match the types",
                  ix_opname(op));
  m.rank = rt->rank;
  uint32_t k = 0;
  for (uint32_t g = 0; g < groups->n; ++g) {
    int64_t n = groups->items[g].cst, prod = 1;
    if (n < 1 || n > (int64_t)(hi_rank - k))
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: malformed reassociation",
                    ix_opname(op));
    int64_t dyn_at = -1;
    for (int64_t j = 0; j < n; ++j, ++k) {
      int64_t sz;
      if (collapse) {
        sz = src->sizes[k];
      } else if (op->n_lists > 2 && k < op->lists[2].n) {
        if ((st = ix_get_ix(r, e, op, &op->lists[2].items[k], &sz))) return st;
      } else if (rt->shape[k] != AIR_DIM_DYNAMIC) {
        sz = rt->shape[k];
      } else if (dyn_at < 0) {
        /* one `?` per group without output_shape: what the source size leaves */
        dyn_at = k;
        sz = 1;
      } else {
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                      "memref.expand_shape: dynamic sizes need output_shape");
      }
      if (sz < 0 || __builtin_mul_overflow(prod, sz, &prod))
        return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: size %lld is invalid",
                      ix_opname(op), (long long)sz);
      if (!collapse) m.sizes[k] = sz;
    }
    if (collapse) {
      m.sizes[g] = prod;
    } else if (dyn_at >= 0 && prod > 0 && src->sizes[g] % prod == 0) {
      m.sizes[dyn_at] = src->sizes[g] / prod;
    } else if (prod != src->sizes[g]) {
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "memref.expand_shape: group #%u has %lld elements but source dimension %u "
                    "has %lld",
                    g, (long long)prod, g, (long long)src->sizes[g]);
    }
  }
  if (collapse)
    for (uint32_t i = 0; i < rt->rank; ++i)
      if (rt->shape[i] != AIR_DIM_DYNAMIC && rt->shape[i] != m.sizes[i])
        return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                      "memref.collapse_shape: dimension %u is %lld, not %lld", i,
                      (long long)m.sizes[i], (long long)rt->shape[i]);
  int64_t stride = 1;
  for (uint32_t i = m.rank; i-- > 0;) {
    m.strides[i] = stride;
    stride *= m.sizes[i] ? m.sizes[i] : 1;
  }
  ix_set(r, e, op->results[0], (ix_val_t){.p = &m});
  return NULL;
}

static air_status_t op_copy(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t *s, *d;
  air_status_t st = ix_get_view(r, e, op, op->operands[0], &s);
  if (!st) st = ix_get_view(r, e, op, op->operands[1], &d);
  if (st) return st;
  bool same = s->rank == d->rank && s->elem == d->elem;
  for (uint32_t k = 0; same && k < s->rank; ++k) same = s->sizes[k] == d->sizes[k];
  if (!same)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "memref.copy needs source and target of the same shape and element type");
  ix_pat_t sp, dp;
  uint32_t es = air_elem_size((air_elem_kind_t)s->elem);
  const char* why = ix_pat_make(s, es, 0, NULL, 0, NULL, NULL, &sp);
  if (!why) why = ix_pat_make(d, es, 0, NULL, 0, NULL, NULL, &dp);
  if (why) return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "memref.copy: %s", why);
  ix_pat_copy(&dp, &sp);
  return NULL;
}

air_status_t ix_mem_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  switch (op->kind) {
    case AIR_OP_ALLOC: return op_alloc(r, e, op);
    case AIR_OP_DEALLOC: return op_dealloc(r, e, op);
    case AIR_OP_LOAD:
    case AIR_OP_STORE:
    case AIR_OP_AFFINE_LOAD:
    case AIR_OP_AFFINE_STORE: return op_access(r, e, op);
    case AIR_OP_SUBVIEW: return op_subview(r, e, op);
    case AIR_OP_COLLAPSE_SHAPE:
    case AIR_OP_EXPAND_SHAPE:
    case AIR_OP_MEMREF_CAST: return op_reshape(r, e, op);
    case AIR_OP_COPY: return op_copy(r, e, op);
    default: return ix_err(r, op, AIR_STATUS_INTERNAL, "not a memref op");
  }
}

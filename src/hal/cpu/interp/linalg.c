/* linalg.c - the linalg op family: fill, copy, matmul, generic (with
 * linalg.index in its body) and the named elementwise ops (linalg.add, ...).
 *
 * matmul computes C += A * B in an accumulator type picked from C (f32 for
 * f32/bf16/f16 outputs, f64, or int64 for integers); every C entry takes its
 * products in k order, f32 with one fused multiply-add each (fmaf). f32, bf16 ->
 * f32 and i8 -> i32 operands with unit inner strides go straight to the CPU
 * driver's kernels (kernels/gemm.h: libxsmm where it gives the same bits, else
 * the loops); other operands are packed into contiguous accumulator-type copies
 * first. fill and transposing copies of 2-d-foldable views use kernels/xform.h.
 * A run made with AIR_DISPATCH_INTERPRET (r->reference) takes the reference loops
 * everywhere; results are identical.
 *
 * generic runs its region once per point of the iteration space, loops nested in
 * dimension order (so reduction iterators accumulate in order). Affine maps that
 * are linear (no mod/floordiv/ceildiv) become a per-loop element stride for each
 * operand, checked against the operand's bounds once; other maps are evaluated and
 * bounds-checked per point. */
#include "hal/cpu/interp/linalg.h"

#include <math.h>
#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/math.h"
#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/scalar.h"
#include "hal/cpu/kernels/gemm.h"
#include "hal/cpu/kernels/xform.h"
#include "runtime/base/mem.h"

static air_status_t operand_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, uint32_t i,
                                 air_memref_t** v) {
  if (i >= op->n_operands)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: missing operand", ix_opname(op));
  return ix_get_view(r, e, op, op->operands[i], v);
}

/* Visits every element of `v` (row-major) with its byte address. */
#define FOR_EACH_ELEM(v, ptr, ...)                                                     \
  do {                                                                                  \
    const air_memref_t* v_ = (v);                                                       \
    uint32_t es_ = air_elem_size((air_elem_kind_t)v_->elem), n_ = v_->rank;             \
    int64_t cnt_ = 1, idx_[AIR_MAX_RANK] = {0}, off_ = v_->offset;                      \
    for (uint32_t k_ = 0; k_ < n_; ++k_) cnt_ *= v_->sizes[k_];                         \
    for (int64_t e_ = 0; e_ < cnt_; ++e_) {                                             \
      char* ptr = (char*)v_->data + off_ * (int64_t)es_;                                \
      __VA_ARGS__;                                                                      \
      for (uint32_t d_ = n_; d_-- > 0;) {                                               \
        off_ += v_->strides[d_];                                                        \
        if (++idx_[d_] < v_->sizes[d_]) break;                                          \
        off_ -= v_->sizes[d_] * v_->strides[d_];                                        \
        idx_[d_] = 0;                                                                   \
      }                                                                                 \
    }                                                                                   \
  } while (0)

static air_status_t check_view(ix_run_t* r, const air_op_t* op, const air_memref_t* v) {
  ix_pat_t p;
  const char* why =
      ix_pat_make(v, air_elem_size((air_elem_kind_t)v->elem), 0, NULL, 0, NULL, NULL, &p);
  return why ? ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: %s", ix_opname(op), why) : NULL;
}

static air_kern_impl_t impl_of(const ix_run_t* r) {
  return r->reference ? AIR_KERN_REFERENCE : AIR_KERN_AUTO;
}

/* A view as rows x cols elements with a unit inner stride and row stride ld
 * (dims folded where they are contiguous); false when it is not one. */
static bool fold2d(const air_memref_t* v, int64_t* rows, int64_t* cols, int64_t* ld) {
  uint32_t n = v->rank;
  if (n == 0) {
    *rows = *cols = *ld = 1;
    return true;
  }
  int64_t c = v->sizes[n - 1];
  if (c > 1 && v->strides[n - 1] != 1) return false;
  uint32_t k = n - 1;
  while (k > 0 && v->strides[k - 1] == c) c *= v->sizes[--k]; /* contiguous: fold in */
  int64_t r = 1, stride = c;
  if (k > 0) {
    stride = v->strides[k - 1];
    r = v->sizes[k - 1];
    for (uint32_t j = k - 1; j > 0; --j) {
      if (v->sizes[j - 1] > 1 && v->strides[j - 1] != v->sizes[j] * v->strides[j]) return false;
      r *= v->sizes[j - 1];
    }
  }
  if (r > 1 && stride < c) return false; /* rows overlap */
  *rows = r, *cols = c, *ld = r > 1 ? stride : c;
  return true;
}

static air_status_t fill(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t* out;
  air_status_t st = operand_view(r, e, op, 1, &out);
  if (st || (st = check_view(r, op, out))) return st;
  ix_val_t* x = ix_slot(r, e, op->operands[0]);
  if (!x || r->tab.vinfo[op->operands[0]].kind != IX_K_SCALAR)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "linalg.fill needs a scalar value");
  unsigned char bytes[8];
  bool xf = air_elem_is_float((air_elem_kind_t)r->tab.vinfo[op->operands[0]].elem);
  if (air_elem_is_float((air_elem_kind_t)out->elem))
    ix_store_f(bytes, out->elem, xf ? x->f : (double)x->i);
  else
    ix_store_i(bytes, out->elem, xf ? (int64_t)x->f : x->i);
  uint32_t es = air_elem_size((air_elem_kind_t)out->elem);
  int64_t rows, cols, ld;
  if (fold2d(out, &rows, &cols, &ld)) {
    air_kern_fill2d(rows, cols, (char*)out->data + out->offset * (int64_t)es, ld, bytes, es,
                    impl_of(r));
    return NULL;
  }
  FOR_EACH_ELEM(out, p, memcpy(p, bytes, es));
  return NULL;
}

/* The bytes two 2-d views with positive strides span do not overlap. */
static bool apart(const air_memref_t* x, const air_memref_t* y) {
  uint32_t es = air_elem_size((air_elem_kind_t)x->elem);
  const char* xl = (const char*)x->data + x->offset * (int64_t)es;
  const char* yl = (const char*)y->data + y->offset * (int64_t)es;
  const char* xh = xl + ((x->sizes[0] - 1) * x->strides[0] + (x->sizes[1] - 1) * x->strides[1] + 1) * (int64_t)es;
  const char* yh = yl + ((y->sizes[0] - 1) * y->strides[0] + (y->sizes[1] - 1) * y->strides[1] + 1) * (int64_t)es;
  return xh <= yl || yh <= xl;
}

static air_status_t copy(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t *in, *out;
  air_status_t st = operand_view(r, e, op, 0, &in);
  if (!st) st = operand_view(r, e, op, 1, &out);
  if (st || (st = check_view(r, op, in)) || (st = check_view(r, op, out))) return st;
  bool same = in->rank == out->rank;
  for (uint32_t k = 0; same && k < in->rank; ++k) same = in->sizes[k] == out->sizes[k];
  if (!same)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "linalg.copy needs equal shapes");
  /* A transposed 2-d view into a row-major one: the transpose kernel. */
  uint32_t tes = air_elem_size((air_elem_kind_t)in->elem);
  if (in->elem == out->elem && in->rank == 2 && out->strides[1] == 1 && in->strides[0] == 1 &&
      in->sizes[0] > 1 && in->sizes[1] > 1 && in->strides[1] >= in->sizes[0] &&
      out->strides[0] >= out->sizes[1] && apart(in, out)) {
    /* in[i][j] at j*ls + i: the source is the cols x rows row-major matrix
     * in^T, whose transpose is out. */
    air_kern_transpose2d(in->sizes[1], in->sizes[0], (const char*)in->data + in->offset * (int64_t)tes,
                         in->strides[1], (char*)out->data + out->offset * (int64_t)tes,
                         out->strides[0], tes, impl_of(r));
    return NULL;
  }
  if (in->elem == out->elem) {
    ix_pat_t s, d;
    uint32_t es = air_elem_size((air_elem_kind_t)in->elem);
    ix_pat_make(in, es, 0, NULL, 0, NULL, NULL, &s);
    ix_pat_make(out, es, 0, NULL, 0, NULL, NULL, &d);
    ix_pat_copy(&d, &s);
    return NULL;
  }
  /* Converting copy: walk the input, mirror the index into the output. */
  bool ff = air_elem_is_float((air_elem_kind_t)in->elem);
  uint32_t oes = air_elem_size((air_elem_kind_t)out->elem);
  int64_t idx[AIR_MAX_RANK] = {0};
  FOR_EACH_ELEM(in, p, {
    int64_t o = out->offset;
    for (uint32_t k = 0; k < out->rank; ++k) o += idx[k] * out->strides[k];
    char* q = (char*)out->data + o * (int64_t)oes;
    if (ff)
      ix_store_f(q, out->elem, ix_load_f(p, in->elem));
    else
      ix_store_i(q, out->elem, ix_load_i(p, in->elem));
    for (uint32_t d = out->rank; d-- > 0;) {
      if (++idx[d] < out->sizes[d]) break;
      idx[d] = 0;
    }
  });
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* matmul                                                                    */
/*---------------------------------------------------------------------------*/

static void mm_f64(int64_t M, int64_t N, int64_t K, const double* A, const double* B, double* C) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      const double aik = A[i * K + k];
      double* restrict c = C + i * N;
      const double* restrict b = B + k * N;
      for (int64_t j = 0; j < N; ++j) c[j] += aik * b[j];
    }
}

static void mm_i64(int64_t M, int64_t N, int64_t K, const int64_t* A, const int64_t* B,
                   int64_t* C) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      const uint64_t aik = (uint64_t)A[i * K + k];
      int64_t* restrict c = C + i * N;
      const int64_t* restrict b = B + k * N;
      for (int64_t j = 0; j < N; ++j) c[j] = (int64_t)((uint64_t)c[j] + aik * (uint64_t)b[j]);
    }
}

enum { ACC_F32, ACC_F64, ACC_I64 };

/* Packs a 2-d view row-major into `buf` as the accumulator type. */
static void pack(const air_memref_t* v, int acc, void* buf) {
  uint32_t es = air_elem_size((air_elem_kind_t)v->elem);
  bool fl = air_elem_is_float((air_elem_kind_t)v->elem);
  int64_t n = 0;
  for (int64_t i = 0; i < v->sizes[0]; ++i)
    for (int64_t j = 0; j < v->sizes[1]; ++j, ++n) {
      const char* p =
          (const char*)v->data + (v->offset + i * v->strides[0] + j * v->strides[1]) * (int64_t)es;
      if (acc == ACC_F32)
        ((float*)buf)[n] = (float)(fl ? ix_load_f(p, v->elem) : (double)ix_load_i(p, v->elem));
      else if (acc == ACC_F64)
        ((double*)buf)[n] = fl ? ix_load_f(p, v->elem) : (double)ix_load_i(p, v->elem);
      else
        ((int64_t*)buf)[n] = fl ? (int64_t)ix_load_f(p, v->elem) : ix_load_i(p, v->elem);
    }
}

static void unpack(const air_memref_t* v, int acc, const void* buf) {
  uint32_t es = air_elem_size((air_elem_kind_t)v->elem);
  int64_t n = 0;
  for (int64_t i = 0; i < v->sizes[0]; ++i)
    for (int64_t j = 0; j < v->sizes[1]; ++j, ++n) {
      char* p = (char*)v->data + (v->offset + i * v->strides[0] + j * v->strides[1]) * (int64_t)es;
      if (acc == ACC_F32)
        ix_store_f(p, v->elem, ((const float*)buf)[n]);
      else if (acc == ACC_F64)
        ix_store_f(p, v->elem, ((const double*)buf)[n]);
      else
        ix_store_i(p, v->elem, ((const int64_t*)buf)[n]);
    }
}

/* Rows of C per kernel call. A long matmul runs as panels of rows, and between
 * panels it looks whether the run is failing (the watchdog fired on it, another
 * strand failed): a linalg op cannot be abandoned, so without this the run's
 * report would wait for the whole product. Rows are independent - each C entry
 * still takes its products in k order - so the result is the same bits. A panel
 * is about 2^22 multiply-adds; with the library it is a multiple of the kernels'
 * 64-row block (a panel of a few rows would waste its register blocking). */
static int64_t panel_rows(int64_t M, int64_t N, int64_t K, bool lib) {
  int64_t per_row = N * K > 0 ? N * K : 1;
  int64_t rows = ((int64_t)1 << 22) / per_row;
  if (lib) rows = rows < 64 ? 64 : rows / 64 * 64;
  if (rows < 1) rows = 1;
  return rows < M ? rows : M;
}

/* C (M x N) += A * B on matrices whose rows are `es` bytes apart per element,
 * one panel of rows at a time; stops early (returning true, C partly done) when
 * the run is failing. false: out of scratch memory. */
enum { MM_F32, MM_BF16, MM_I8, MM_F64, MM_I64 };

static bool mm_panels(ix_run_t* r, int kind, int64_t M, int64_t N, int64_t K, air_kern_mat_t a,
                      air_kern_mat_t b, air_kern_mat_t c, size_t esa, size_t esc,
                      air_kern_impl_t impl) {
  bool lib = impl == AIR_KERN_AUTO && air_kern_library() != NULL;
  int64_t step = panel_rows(M, N, K, lib);
  for (int64_t i = 0; i < M; i += step) {
    if (i && ix_failing(r)) return true;
    int64_t m = M - i < step ? M - i : step;
    air_kern_mat_t ap = {(char*)a.p + (size_t)(i * a.ld) * esa, a.ld};
    air_kern_mat_t cp = {(char*)c.p + (size_t)(i * c.ld) * esc, c.ld};
    bool ok = true;
    switch (kind) {
      case MM_F32: ok = air_kern_sgemm(m, N, K, ap, b, cp, impl, &r->alloc); break;
      case MM_BF16: ok = air_kern_bgemm(m, N, K, ap, b, cp, impl, &r->alloc); break;
      case MM_I8: ok = air_kern_i8gemm(m, N, K, ap, b, cp, impl, &r->alloc); break;
      case MM_F64: mm_f64(m, N, K, ap.p, b.p, cp.p); break;
      default: mm_i64(m, N, K, ap.p, b.p, cp.p); break;
    }
    if (!ok) return false;
  }
  return true;
}

static air_status_t matmul(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  air_memref_t *A, *B, *C;
  air_status_t st = operand_view(r, e, op, 0, &A);
  if (!st) st = operand_view(r, e, op, 1, &B);
  if (!st) st = operand_view(r, e, op, 2, &C);
  if (st || (st = check_view(r, op, A)) || (st = check_view(r, op, B)) ||
      (st = check_view(r, op, C)))
    return st;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2 || A->sizes[1] != B->sizes[0] ||
      A->sizes[0] != C->sizes[0] || B->sizes[1] != C->sizes[1])
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "linalg.matmul needs A (MxK), B (KxN) and C (MxN) matrices");
  int64_t M = A->sizes[0], K = A->sizes[1], N = B->sizes[1];
  if (!M || !N || !K) return NULL;
  air_kern_impl_t impl = impl_of(r);
  /* Row-major operands (unit inner stride) of the kernels' types go straight in. */
  bool rows = (K == 1 || A->strides[1] == 1) && (N == 1 || B->strides[1] == 1) &&
              (N == 1 || C->strides[1] == 1);
  size_t esa = air_elem_size(A->elem), esc = air_elem_size(C->elem);
  air_kern_mat_t a = {(char*)A->data + A->offset * (int64_t)esa, A->strides[0]};
  air_kern_mat_t b = {(char*)B->data + B->offset * (int64_t)air_elem_size(B->elem), B->strides[0]};
  air_kern_mat_t c = {(char*)C->data + C->offset * (int64_t)esc, C->strides[0]};
  int kind = -1;
  if (rows && C->elem == AIR_ELEM_F32 && A->elem == B->elem &&
      (A->elem == AIR_ELEM_F32 || A->elem == AIR_ELEM_BF16))
    kind = A->elem == AIR_ELEM_F32 ? MM_F32 : MM_BF16;
  else if (rows && C->elem == AIR_ELEM_I32 && A->elem == AIR_ELEM_I8 && B->elem == AIR_ELEM_I8)
    kind = MM_I8;
  if (kind >= 0)
    return mm_panels(r, kind, M, N, K, a, b, c, esa, esc, impl)
               ? NULL
               : ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "linalg.matmul: out of memory");
  int acc = C->elem == AIR_ELEM_F64                        ? ACC_F64
            : air_elem_is_float((air_elem_kind_t)C->elem) ? ACC_F32
                                                           : ACC_I64;
  size_t es = acc == ACC_F32 ? sizeof(float) : 8;
  char* buf = air_mem_alloc(&r->alloc, ((size_t)M * K + (size_t)K * N + (size_t)M * N) * es);
  if (!buf) return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "linalg.matmul: out of memory");
  void *pa = buf, *pb = buf + (size_t)M * K * es, *pc = buf + ((size_t)M * K + (size_t)K * N) * es;
  pack(A, acc, pa);
  pack(B, acc, pb);
  pack(C, acc, pc);
  bool ok = mm_panels(r, acc == ACC_F32 ? MM_F32 : acc == ACC_F64 ? MM_F64 : MM_I64, M, N, K,
                      (air_kern_mat_t){pa, K}, (air_kern_mat_t){pb, N}, (air_kern_mat_t){pc, N},
                      es, es, impl);
  if (ok && !ix_failing(r)) unpack(C, acc, pc);
  air_mem_free(&r->alloc, buf);
  return ok ? NULL : ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "linalg.matmul: out of memory");
}

/*---------------------------------------------------------------------------*/
/* generic                                                                   */
/*---------------------------------------------------------------------------*/

#define MAX_LOOPS 8
#define MAX_OPS 16

typedef struct gop_t {
  const air_affine_map_t* map;
  air_memref_t* v;     /* NULL for a scalar operand */
  uint32_t es;
  bool lin;
  int64_t coef[MAX_LOOPS];
  int64_t base;
} gop_t;

static char* gaddr(const gop_t* g, const int64_t* iv, int64_t lin_off, bool* ok) {
  if (g->lin) return (char*)g->v->data + lin_off * (int64_t)g->es;
  int64_t off = g->v->offset;
  for (uint32_t k = 0; k < g->map->n_results; ++k) {
    int64_t x;
    if (!air_aff_eval(g->map->results[k], iv, NULL, &x) || x < 0 || x >= g->v->sizes[k]) {
      *ok = false;
      return NULL;
    }
    off += x * g->v->strides[k];
  }
  return (char*)g->v->data + off * (int64_t)g->es;
}

static air_status_t generic(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  uint32_t n = op->n_operands, n_in = op->iaux[0];
  const air_attr_t* ma = air_ir_attr_get(op, "indexing_maps");
  ma = ma ? air_ir_attr_resolve(r->p, ma) : NULL;
  const air_block_t* body = op->n_regions ? op->regions[0] : NULL;
  if (!ma || ma->kind != AIR_ATTR_ARRAY || ma->n != n || n > MAX_OPS || !body ||
      body->n_args != n || !body->last || body->last->n_operands != n - n_in)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "linalg.generic needs one indexing map and one block argument per operand "
                  "and a linalg.yield per output");
  for (const air_op_t* o = body->first; o != body->last; o = o->next)
    if (!ix_is_scalar_op(o) && o->kind != AIR_OP_LINALG_INDEX)
      return ix_err(r, o, AIR_STATUS_UNIMPLEMENTED,
                    "%s inside linalg.generic is not supported by the CPU executor",
                    ix_opname(o));
  gop_t g[MAX_OPS];
  memset(g, 0, sizeof g);
  uint32_t nl = 0;
  int64_t bound[MAX_LOOPS];
  bool have[MAX_LOOPS] = {0};
  for (uint32_t i = 0; i < n; ++i) {
    const air_attr_t* m = air_ir_attr_resolve(r->p, &ma->elems[i]);
    if (!m || m->kind != AIR_ATTR_MAP || !m->map || m->map->n_syms)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "linalg.generic: indexing map #%u is not an affine map without symbols", i);
    g[i].map = m->map;
    if (i == 0) nl = m->map->n_dims;
    if (m->map->n_dims != nl || nl > MAX_LOOPS)
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                    "linalg.generic: maps must share at most %d dimensions", MAX_LOOPS);
    if (r->tab.vinfo[op->operands[i]].kind != IX_K_MEMREF) {
      if (i >= n_in)
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "linalg.generic: outputs are memrefs");
      continue;
    }
    air_status_t st = ix_get_view(r, e, op, op->operands[i], &g[i].v);
    if (st || (st = check_view(r, op, g[i].v))) return st;
    if (m->map->n_results != g[i].v->rank)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "linalg.generic: map #%u has %u results for a rank-%u operand", i,
                    m->map->n_results, g[i].v->rank);
    g[i].es = air_elem_size((air_elem_kind_t)g[i].v->elem);
    for (uint32_t k = 0; k < m->map->n_results; ++k) {
      const air_aff_t* x = m->map->results[k];
      if (x && x->kind == AIR_AFF_DIM && x->value >= 0 && (uint64_t)x->value < nl &&
          !have[x->value]) {
        bound[x->value] = g[i].v->sizes[k];
        have[x->value] = true;
      }
    }
  }
  for (uint32_t d = 0; d < nl; ++d)
    if (!have[d])
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                    "linalg.generic: loop d%u is not the plain result of any indexing map", d);
  int64_t total = 1;
  for (uint32_t d = 0; d < nl; ++d) total *= bound[d];
  if (!total) return NULL;
  /* Linear maps: per-loop strides, bounds checked at the box corners. */
  for (uint32_t i = 0; i < n; ++i) {
    if (!g[i].v) continue;
    const air_affine_map_t* m = g[i].map;
    bool lin = true, inside = true;
    g[i].base = g[i].v->offset;
    for (uint32_t k = 0; k < m->n_results && lin; ++k) {
      int64_t c[MAX_LOOPS], c0;
      lin = air_aff_linearize(m->results[k], nl, c, &c0);
      if (!lin) break;
      int64_t lo = c0, hi = c0;
      for (uint32_t d = 0; d < nl; ++d) {
        int64_t ext = c[d] * (bound[d] - 1);
        if (ext < 0) lo += ext; else hi += ext;
        g[i].coef[d] += c[d] * g[i].v->strides[k];
      }
      inside = inside && lo >= 0 && hi < g[i].v->sizes[k];
      g[i].base += c0 * g[i].v->strides[k];
    }
    if (lin && !inside)
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "linalg.generic: indexing map #%u reaches outside its operand", i);
    g[i].lin = lin;
    if (!lin) memset(g[i].coef, 0, sizeof g[i].coef);
  }
  ix_env_t* be = ix_env_new(r, body, e, false);
  if (!be) return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t i = 0; i < n; ++i)
    if (!g[i].v) {
      ix_val_t* x = ix_slot(r, e, op->operands[i]);
      if (x) ix_set(r, be, body->args[i], *x);
    }
  int64_t iv[MAX_LOOPS] = {0}, off[MAX_OPS];
  for (uint32_t i = 0; i < n; ++i) off[i] = g[i].base;
  air_status_t st = NULL;
  const air_op_t* yield = body->last;
  for (int64_t p = 0; p < total && !st; ++p) {
    bool ok = true;
    char* addr[MAX_OPS] = {0};
    for (uint32_t i = 0; i < n; ++i) {
      if (!g[i].v) continue;
      addr[i] = gaddr(&g[i], iv, off[i], &ok);
      if (!ok) break;
      ix_val_t x;
      if (air_elem_is_float((air_elem_kind_t)g[i].v->elem))
        x.f = ix_load_f(addr[i], g[i].v->elem);
      else
        x.i = ix_load_i(addr[i], g[i].v->elem);
      ix_set(r, be, body->args[i], x);
    }
    if (!ok) {
      st = ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                  "linalg.generic: an indexing map reaches outside its operand");
      break;
    }
    for (const air_op_t* o = body->first; o != yield && !st; o = o->next) {
      if (o->kind != AIR_OP_LINALG_INDEX) {
        st = ix_eval_scalar(r, be, o);
      } else if (o->iaux[0] < nl && o->n_results == 1) {
        ix_set(r, be, o->results[0], (ix_val_t){.i = iv[o->iaux[0]]});
      } else {
        st = ix_err(r, o, AIR_STATUS_INVALID_ARGUMENT, "linalg.index %u of a %u-loop op",
                    o->iaux[0], nl);
      }
    }
    for (uint32_t j = 0; j < n - n_in && !st; ++j) {
      air_vid_t yv = yield->operands[j];
      ix_val_t* x = ix_slot(r, be, yv);
      const gop_t* go = &g[n_in + j];
      if (!x) {
        st = ix_err(r, yield, AIR_STATUS_INTERNAL, "linalg.yield value missing");
        break;
      }
      bool xf = air_elem_is_float((air_elem_kind_t)r->tab.vinfo[yv].elem);
      if (air_elem_is_float((air_elem_kind_t)go->v->elem))
        ix_store_f(addr[n_in + j], go->v->elem, xf ? x->f : (double)x->i);
      else
        ix_store_i(addr[n_in + j], go->v->elem, xf ? (int64_t)x->f : x->i);
    }
    for (uint32_t d = nl; d-- > 0;) {
      for (uint32_t i = 0; i < n; ++i) off[i] += g[i].coef[d];
      if (++iv[d] < bound[d]) break;
      for (uint32_t i = 0; i < n; ++i) off[i] -= g[i].coef[d] * bound[d];
      iv[d] = 0;
    }
  }
  ix_env_unref(r, be);
  return st;
}

/*---------------------------------------------------------------------------*/
/* Named elementwise ops                                                     */
/*---------------------------------------------------------------------------*/

/* One element of a named elementwise op, computed in the output's type: float
 * ops as arith/math would (f32 through float, f16/bf16 rounded), integer ops
 * wrapping at the output's width. Inputs are cast to the output's type first,
 * as the named ops' `cast_signed` does. */
static bool ew_float(air_opkind_t k, uint32_t el, double a, double b, double* out) {
  static const struct {
    air_opkind_t linalg, math;
  } k_math[] = {
      {AIR_OP_LINALG_POWF, AIR_OP_MATH_POWF},   {AIR_OP_LINALG_EXP, AIR_OP_MATH_EXP},
      {AIR_OP_LINALG_LOG, AIR_OP_MATH_LOG},     {AIR_OP_LINALG_ABS, AIR_OP_MATH_ABSF},
      {AIR_OP_LINALG_CEIL, AIR_OP_MATH_CEIL},   {AIR_OP_LINALG_FLOOR, AIR_OP_MATH_FLOOR},
      {AIR_OP_LINALG_ROUND, AIR_OP_MATH_ROUND}, {AIR_OP_LINALG_SQRT, AIR_OP_MATH_SQRT},
      {AIR_OP_LINALG_RSQRT, AIR_OP_MATH_RSQRT}, {AIR_OP_LINALG_TANH, AIR_OP_MATH_TANH},
      {AIR_OP_LINALG_ERF, AIR_OP_MATH_ERF},
  };
  for (size_t i = 0; i < sizeof k_math / sizeof k_math[0]; ++i)
    if (k_math[i].linalg == k) {
      double ab[2] = {a, b};
      return ix_math_float(k_math[i].math, el, ab, out);
    }
  bool f64 = el == AIR_ELEM_F64;
  float x = (float)a, y = (float)b;
  double v;
  switch (k) {
    case AIR_OP_LINALG_ADD: v = f64 ? a + b : (double)(x + y); break;
    case AIR_OP_LINALG_SUB: v = f64 ? a - b : (double)(x - y); break;
    case AIR_OP_LINALG_MUL: v = f64 ? a * b : (double)(x * y); break;
    case AIR_OP_LINALG_DIV: v = f64 ? a / b : (double)(x / y); break;
    case AIR_OP_LINALG_SQUARE: v = f64 ? a * a : (double)(x * x); break;
    case AIR_OP_LINALG_RECIPROCAL: v = f64 ? 1.0 / a : (double)(1.0f / x); break;
    case AIR_OP_LINALG_NEGF: v = -a; break;
    case AIR_OP_LINALG_MAX: /* arith.maximumf: NaN wins, +0 > -0 */
      v = isnan(a) || isnan(b) ? NAN : a == b ? (signbit(a) ? b : a) : a > b ? a : b;
      break;
    case AIR_OP_LINALG_MIN:
      v = isnan(a) || isnan(b) ? NAN : a == b ? (signbit(a) ? a : b) : a < b ? a : b;
      break;
    default: return false;
  }
  *out = ix_round_f(el, v);
  return true;
}

/* False with *why set when the op has no integer form or divides by zero. */
static bool ew_int(air_opkind_t k, uint32_t el, int64_t a, int64_t b, int64_t* out,
                   const char** why) {
  uint64_t ua = ix_mask_u(el, a), ub = ix_mask_u(el, b);
  int64_t v;
  switch (k) {
    case AIR_OP_LINALG_ADD: v = (int64_t)((uint64_t)a + (uint64_t)b); break;
    case AIR_OP_LINALG_SUB: v = (int64_t)((uint64_t)a - (uint64_t)b); break;
    case AIR_OP_LINALG_MUL: v = (int64_t)((uint64_t)a * (uint64_t)b); break;
    case AIR_OP_LINALG_SQUARE: v = (int64_t)((uint64_t)a * (uint64_t)a); break;
    case AIR_OP_LINALG_MAX: v = a > b ? a : b; break;
    case AIR_OP_LINALG_MIN: v = a < b ? a : b; break;
    case AIR_OP_LINALG_ABS: v = a < 0 ? (int64_t)(0 - (uint64_t)a) : a; break;
    case AIR_OP_LINALG_DIV:
      if (!b || (a == INT64_MIN && b == -1)) {
        *why = "division by zero or overflow";
        return false;
      }
      v = a / b;
      break;
    case AIR_OP_LINALG_DIV_UNSIGNED:
      if (!ub) {
        *why = "division by zero";
        return false;
      }
      v = (int64_t)(ua / ub);
      break;
    default: *why = "no integer form"; return false;
  }
  *out = ix_norm_i(el, v);
  return true;
}

static air_status_t elementwise(ix_run_t* r, ix_env_t* e, const air_op_t* op, uint32_t n_in) {
  air_memref_t* v[3];
  air_status_t st;
  for (uint32_t i = 0; i <= n_in; ++i)
    if ((st = operand_view(r, e, op, i, &v[i])) || (st = check_view(r, op, v[i]))) return st;
  air_memref_t* out = v[n_in];
  for (uint32_t i = 0; i < n_in; ++i) {
    bool same = v[i]->rank == out->rank;
    for (uint32_t k = 0; same && k < out->rank; ++k) same = v[i]->sizes[k] == out->sizes[k];
    if (!same)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "%s: input #%u does not have the output's shape", ix_opname(op), i);
  }
  uint32_t el = out->elem;
  bool fl = air_elem_is_float((air_elem_kind_t)el);
  int64_t cnt = 1, idx[AIR_MAX_RANK] = {0}, off[3];
  for (uint32_t k = 0; k < out->rank; ++k) cnt *= out->sizes[k];
  for (uint32_t i = 0; i <= n_in; ++i) off[i] = v[i]->offset;
  for (int64_t p = 0; p < cnt; ++p) {
    double fx[2] = {0, 0};
    int64_t ix[2] = {0, 0};
    for (uint32_t i = 0; i < n_in; ++i) {
      const char* a = (const char*)v[i]->data + off[i] * (int64_t)air_elem_size(
                                                    (air_elem_kind_t)v[i]->elem);
      bool inf = air_elem_is_float((air_elem_kind_t)v[i]->elem);
      if (fl)
        fx[i] = ix_round_f(el, inf ? ix_load_f(a, v[i]->elem) : (double)ix_load_i(a, v[i]->elem));
      else
        ix[i] = ix_norm_i(el, inf ? (int64_t)ix_load_f(a, v[i]->elem) : ix_load_i(a, v[i]->elem));
    }
    char* o = (char*)out->data + off[n_in] * (int64_t)air_elem_size((air_elem_kind_t)el);
    if (fl) {
      double y;
      if (!ew_float(op->kind, el, fx[0], fx[1], &y))
        return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s on %s", ix_opname(op),
                      air_elem_name((air_elem_kind_t)el));
      ix_store_f(o, el, y);
    } else {
      int64_t y;
      const char* why = NULL;
      if (!ew_int(op->kind, el, ix[0], ix[1], &y, &why))
        return ix_err(r, op, why[0] == 'n' ? AIR_STATUS_UNIMPLEMENTED : AIR_STATUS_OUT_OF_RANGE,
                      "%s on %s: %s", ix_opname(op), air_elem_name((air_elem_kind_t)el), why);
      ix_store_i(o, el, y);
    }
    for (uint32_t d = out->rank; d-- > 0;) {
      for (uint32_t i = 0; i <= n_in; ++i) off[i] += v[i]->strides[d];
      if (++idx[d] < out->sizes[d]) break;
      for (uint32_t i = 0; i <= n_in; ++i) off[i] -= v[i]->sizes[d] * v[i]->strides[d];
      idx[d] = 0;
    }
  }
  return NULL;
}

air_status_t ix_linalg(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  uint32_t n_in = op->iaux[0];
  if (op->kind != AIR_OP_GENERIC && op->n_operands != n_in + 1)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: unexpected operand count",
                  ix_opname(op));
  switch (op->kind) {
    case AIR_OP_FILL:
      return n_in == 1 ? fill(r, e, op)
                       : ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "linalg.fill takes one value");
    case AIR_OP_LINALG_COPY: return copy(r, e, op);
    case AIR_OP_MATMUL:
      return n_in == 2 ? matmul(r, e, op)
                       : ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "linalg.matmul takes A and B");
    case AIR_OP_GENERIC: return generic(r, e, op);
    default:
      if (air_opkind_elementwise_ins(op->kind) == n_in && n_in) return elementwise(r, e, op, n_in);
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED, "%s", ix_opname(op));
  }
}

/* gemm_libs.c - the measurement behind the choice of GEMM library for the CPU
 * driver's built-in linalg.matmul (issue 14): Debian's OpenBLAS, BLIS and libxsmm
 * on the shapes the executor meets, in one run, so the choice can be re-checked on
 * any machine (docs/performance.md, "GEMM library choice").
 *
 * Cases (each prints ns per call, GFLOP/s and the ratio to OpenBLAS's time):
 *   tile-f32     C += A*B, square 32/64/128, one thread, hot operands, in three
 *                layouts: contiguous tiles (`packed`), tiles of a 1024-wide matrix
 *                (`view`: leading dimension 1024), and A as a column-strided view
 *                (`colA`: A's unit stride runs down a column, as for a transposed
 *                subview). `gstride` is a view with no unit stride at all (A, B
 *                and C every other element of every other row): only BLIS takes
 *                it as is; the others pay a packing copy, which is timed too.
 *   tile-bf16    bf16 A and B, f32 C. libxsmm's bf16 kernel (AVX512-BF16 on this
 *                CPU) wants A in its VNNI pair layout, so the repack is timed;
 *                OpenBLAS (Debian builds it without sbgemm) and BLIS (no bf16 GEMM)
 *                convert to f32 and call sgemm, conversion timed.
 *   tile-i8      i8 A and B, i32 C: libxsmm's int8 kernel (VNNI) with its B
 *                repack; OpenBLAS and BLIS have no integer GEMM, so they convert
 *                to f64 (exact) and call dgemm, conversion timed.
 *   whole-f32    one whole C = A*B of 256^3 .. 2048^3 on --threads threads
 *                (default 2): OpenBLAS's own threading, BLIS with a per-call
 *                runtime object of that many threads. libxsmm has no threaded
 *                GEMM in its core library, so it has no row.
 * Every result is checked: integer cases exactly against a plain loop, float cases
 * against a double-precision reference with a relative tolerance; a mismatch
 * prints FAIL and exits 1.
 *
 * OpenBLAS and BLIS both export the reference BLAS and CBLAS names, so OpenBLAS is
 * opened with dlopen(RTLD_LOCAL) and called through pointers: each library runs its
 * own code whatever the link order. */
#define _GNU_SOURCE 1
#include <blis.h>
#include <libxsmm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air_bench_blas.h"
#include "air_bench_util.h"
#include "runtime/base/bf16.h"

/* OpenBLAS through dlopen (air_bench_blas.h). */
typedef ab_blas_t ob_t;
enum { CB_ROW = AB_CBLAS_ROW, CB_NOTRANS = AB_CBLAS_NOTRANS, CB_TRANS = AB_CBLAS_TRANS };

static uint64_t g_rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
static float rndf(void) { return (float)((double)(rnd() >> 11) / 9007199254740992.0 - 0.5); }

/* A strided 2-d operand: element (i, j) at p[i*rs + j*cs]. */
typedef struct mat_t {
  void* p;
  int64_t rs, cs;
} mat_t;
#define AT(T, m, i, j) (((T*)(m).p)[(i) * (m).rs + (j) * (m).cs])

static double now_s(void) { return (double)ab_now_ns() * 1e-9; }

/* Runs fn(ctx) until ~min_s elapsed (at least `min_reps`), returns ns per call
 * (median of 3 batches). */
typedef void (*body_fn)(void* ctx);
static double time_calls(body_fn fn, void* ctx, double min_s) {
  fn(ctx); /* warm: JIT, page faults, caches */
  int reps = 1;
  for (;;) {
    double t0 = now_s();
    for (int r = 0; r < reps; ++r) fn(ctx);
    double dt = now_s() - t0;
    if (dt >= min_s / 3 || reps >= (1 << 24)) break;
    reps *= 2;
  }
  double v[3];
  for (int b = 0; b < 3; ++b) {
    double t0 = now_s();
    for (int r = 0; r < reps; ++r) fn(ctx);
    v[b] = (now_s() - t0) * 1e9 / reps;
  }
  return ab_quantile(v, 3, 0.5);
}

/*---------------------------------------------------------------------------*/
/* Per-call bodies                                                           */
/*---------------------------------------------------------------------------*/

typedef struct call_t {
  ob_t* ob;
  int n;                 /* square tile side */
  mat_t a, b, c;         /* the operands as the executor sees them */
  void *pa, *pb, *pc;    /* contiguous scratch (packing / conversion) */
  void *pc2;
  libxsmm_smmfunction xs;
  libxsmm_bsmmfunction xb;
  libxsmm_usbimmfunction xi;
  int lib;               /* 0 openblas, 1 blis, 2 libxsmm */
} call_t;

/* f32: packs any operand without a unit stride into scratch first. */
static int unit_rows(const mat_t* m) { return m->cs == 1; }
static int unit_cols(const mat_t* m) { return m->rs == 1; }

static void pack_f32(const mat_t* m, int n, float* dst) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) dst[i * n + j] = AT(float, *m, i, j);
}
static void unpack_f32(mat_t* m, int n, const float* src) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) AT(float, *m, i, j) = src[i * n + j];
}

static void f32_openblas(void* v) {
  call_t* c = v;
  int n = c->n;
  mat_t a = c->a, b = c->b, cc = c->c;
  int ta = CB_NOTRANS, tb = CB_NOTRANS;
  int gen_c = !unit_rows(&cc);
  if (!unit_rows(&a) && unit_cols(&a)) ta = CB_TRANS;
  else if (!unit_rows(&a)) { pack_f32(&a, n, c->pa); a = (mat_t){c->pa, n, 1}; }
  if (!unit_rows(&b) && unit_cols(&b)) tb = CB_TRANS;
  else if (!unit_rows(&b)) { pack_f32(&b, n, c->pb); b = (mat_t){c->pb, n, 1}; }
  if (gen_c) { pack_f32(&cc, n, c->pc); cc = (mat_t){c->pc, n, 1}; }
  int lda = (int)(ta == CB_TRANS ? a.cs : a.rs), ldb = (int)(tb == CB_TRANS ? b.cs : b.rs);
  c->ob->sgemm(CB_ROW, ta, tb, n, n, n, 1.0f, a.p, lda, b.p, ldb, 1.0f, cc.p, (int)cc.rs);
  if (gen_c) unpack_f32(&c->c, n, c->pc);
}

static void f32_blis(void* v) {
  call_t* c = v;
  float one = 1.0f;
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, c->n, c->n, c->n, &one, c->a.p, c->a.rs,
               c->a.cs, c->b.p, c->b.rs, c->b.cs, &one, c->c.p, c->c.rs, c->c.cs, NULL, &rntm);
}

/* libxsmm is column-major: row-major C = A*B is C^T = B^T * A^T, i.e. the kernel
 * gets (m, n, k) = (N, M, K) with B first. Operands need a unit row stride. */
static void f32_xsmm(void* v) {
  call_t* c = v;
  int n = c->n;
  mat_t a = c->a, b = c->b, cc = c->c;
  int gen_c = !unit_rows(&cc);
  if (!unit_rows(&a)) { pack_f32(&a, n, c->pa); a = (mat_t){c->pa, n, 1}; }
  if (!unit_rows(&b)) { pack_f32(&b, n, c->pb); b = (mat_t){c->pb, n, 1}; }
  if (gen_c) { pack_f32(&cc, n, c->pc); cc = (mat_t){c->pc, n, 1}; }
  c->xs(b.p, a.p, cc.p);
  if (gen_c) unpack_f32(&c->c, n, c->pc);
}

static libxsmm_smmfunction xsmm_f32_kernel(int n, const mat_t* a, const mat_t* b,
                                           const mat_t* c) {
  libxsmm_blasint m = n, k = n;
  libxsmm_blasint lda = unit_rows(b) ? (libxsmm_blasint)b->rs : n;
  libxsmm_blasint ldb = unit_rows(a) ? (libxsmm_blasint)a->rs : n;
  libxsmm_blasint ldc = unit_rows(c) ? (libxsmm_blasint)c->rs : n;
  float alpha = 1, beta = 1;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  return libxsmm_smmdispatch(m, m, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
}

/* bf16: OpenBLAS / BLIS convert to f32 and call sgemm. */
static void bf16_convert(call_t* c) {
  int n = c->n;
  float *fa = c->pa, *fb = c->pb;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      fa[i * n + j] = air_bf16_to_f32(AT(uint16_t, c->a, i, j));
      fb[i * n + j] = air_bf16_to_f32(AT(uint16_t, c->b, i, j));
    }
}
static void bf16_openblas(void* v) {
  call_t* c = v;
  bf16_convert(c);
  c->ob->sgemm(CB_ROW, CB_NOTRANS, CB_NOTRANS, c->n, c->n, c->n, 1.0f, c->pa, c->n, c->pb, c->n,
               1.0f, c->c.p, (int)c->c.rs);
}
static void bf16_blis(void* v) {
  call_t* c = v;
  bf16_convert(c);
  float one = 1.0f;
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, c->n, c->n, c->n, &one, c->pa, c->n, 1,
               c->pb, c->n, 1, &one, c->c.p, c->c.rs, c->c.cs, NULL, &rntm);
}
/* libxsmm bf16: column-major "A" is row-major B (K x N); its VNNI layout keeps
 * pairs of consecutive k together: vnni[(k/2)][j][k%2]. */
static void bf16_xsmm(void* v) {
  call_t* c = v;
  int n = c->n;
  uint16_t* vb = c->pb;
  for (int k = 0; k < n; k += 2)
    for (int j = 0; j < n; ++j) {
      vb[(k / 2) * n * 2 + j * 2] = AT(uint16_t, c->b, k, j);
      vb[(k / 2) * n * 2 + j * 2 + 1] = AT(uint16_t, c->b, k + 1, j);
    }
  c->xb(vb, c->a.p, c->c.p);
}

/* i8: OpenBLAS / BLIS convert to f64 (exact for these sizes) and call dgemm. */
static void i8_convert(call_t* c) {
  int n = c->n;
  double *da = c->pa, *db = c->pb, *dc = c->pc;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      da[i * n + j] = AT(int8_t, c->a, i, j);
      db[i * n + j] = AT(int8_t, c->b, i, j);
      dc[i * n + j] = AT(int32_t, c->c, i, j);
    }
}
static void i8_back(call_t* c) {
  int n = c->n;
  const double* dc = c->pc;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) AT(int32_t, c->c, i, j) = (int32_t)dc[i * n + j];
}
static void i8_openblas(void* v) {
  call_t* c = v;
  i8_convert(c);
  c->ob->dgemm(CB_ROW, CB_NOTRANS, CB_NOTRANS, c->n, c->n, c->n, 1.0, c->pa, c->n, c->pb, c->n,
               1.0, c->pc, c->n);
  i8_back(c);
}
static void i8_blis(void* v) {
  call_t* c = v;
  i8_convert(c);
  double one = 1.0;
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, c->n, c->n, c->n, &one, c->pa, c->n, 1,
               c->pb, c->n, 1, &one, c->pc, c->n, 1, NULL, &rntm);
  i8_back(c);
}
/* libxsmm int8: the hardware dot product (VNNI) is unsigned x signed, and 1.17's
 * signed x signed kernel computes nothing here, so B goes in as B + 128 (unsigned,
 * in the VNNI layout vnni[k/4][j][k%4]) and 128 * rowsum(A) comes off C after. */
static void i8_xsmm(void* v) {
  call_t* c = v;
  int n = c->n;
  uint8_t* vb = c->pb;
  for (int k = 0; k < n; k += 4)
    for (int j = 0; j < n; ++j)
      for (int q = 0; q < 4; ++q)
        vb[(k / 4) * n * 4 + j * 4 + q] = (uint8_t)(AT(int8_t, c->b, k + q, j) + 128);
  c->xi(vb, (const char*)c->a.p, c->c.p);
  for (int i = 0; i < n; ++i) {
    int32_t s = 0;
    for (int k = 0; k < n; ++k) s += AT(int8_t, c->a, i, k);
    for (int j = 0; j < n; ++j) AT(int32_t, c->c, i, j) -= 128 * s;
  }
}

/*---------------------------------------------------------------------------*/
/* Checks                                                                    */
/*---------------------------------------------------------------------------*/

/* C_ref += A*B in double, for float kinds (0 f32, 1 bf16). */
static void ref_float(int kind, int n, const mat_t* a, const mat_t* b, double* cref) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      double x = kind ? air_bf16_to_f32(AT(uint16_t, *a, i, k)) : AT(float, *a, i, k);
      for (int j = 0; j < n; ++j)
        cref[i * n + j] +=
            x * (kind ? air_bf16_to_f32(AT(uint16_t, *b, k, j)) : AT(float, *b, k, j));
    }
}

static int check_float(const char* what, int n, const mat_t* c, const double* cref, int reps) {
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double want = cref[i * n + j] * reps, got = AT(float, *c, i, j);
      double err = fabs(got - want) / (fabs(want) + n * reps * 0.25);
      if (err > worst) worst = err;
    }
  if (worst > 1e-4 || isnan(worst)) {
    printf("FAIL %s: relative error %.3g\n", what, worst);
    return 0;
  }
  return 1;
}

/*---------------------------------------------------------------------------*/
/* Cases                                                                     */
/*---------------------------------------------------------------------------*/

static const char* k_lib[3] = {"openblas", "blis", "libxsmm"};

static void row(const ab_opts_t* o, const char* cs, const char* lib, int n, double ns,
                double ob_ns, const char* note) {
  double gf = 2.0 * n * n * (double)n / ns;
  double ratio = ns / ob_ns;
  if (o->json) {
    ab_emit(o, cs, lib, 1, "ns_per_call", ns, ratio, note);
  } else {
    printf("%-10s %-8s %4d  %-9s %12.0f %8.1f %8.2f\n", cs, note, n, lib, ns, gf, ratio);
  }
}

/* Sets up the three operand layouts inside a big buffer. */
static mat_t place(void* base, int es, int layout, int n, int which) {
  (void)es;
  const int64_t W = 1024;
  switch (layout) {
    case 0: return (mat_t){base, n, 1};                         /* packed */
    case 1: return (mat_t){base, W, 1};                         /* view */
    case 2: return which == 0 ? (mat_t){base, 1, W} : (mat_t){base, W, 1}; /* colA */
    default: return (mat_t){base, 2 * W, 2};                    /* gstride */
  }
}

static int run_tile_f32(const ab_opts_t* o, ob_t* ob) {
  static const char* lay[] = {"packed", "view", "colA", "gstride"};
  int sizes[] = {32, 64, 128};
  int ns_sz = o->quick ? 1 : 3;
  double min_s = o->quick ? 0.005 : 0.15;
  size_t big = (size_t)2 * 1024 * 2 * 128 + 4096;
  float *A = malloc(big * 4), *B = malloc(big * 4), *C = malloc(big * 4);
  float *pa = malloc(128 * 128 * 4), *pb = malloc(128 * 128 * 4), *pc = malloc(128 * 128 * 4);
  double* cref = malloc(128 * 128 * sizeof(double));
  int ok = A && B && C && pa && pb && pc && cref;
  for (size_t i = 0; ok && i < big; ++i) {
    A[i] = rndf();
    B[i] = rndf();
  }
  for (int si = 0; ok && si < ns_sz; ++si) {
    int n = sizes[si];
    for (int L = 0; ok && L < 4; ++L) {
      mat_t a = place(A, 4, L, n, 0), b = place(B, 4, L, n, 1), c = place(C, 4, L, n, 2);
      memset(cref, 0, (size_t)n * n * sizeof(double));
      ref_float(0, n, &a, &b, cref);
      double t[3] = {0};
      for (int lib = 0; lib < 3 && ok; ++lib) {
        call_t cl = {.ob = ob, .n = n, .a = a, .b = b, .c = c, .pa = pa, .pb = pb, .pc = pc,
                     .lib = lib};
        body_fn fn = lib == 0 ? f32_openblas : lib == 1 ? f32_blis : f32_xsmm;
        if (lib == 2 && !(cl.xs = xsmm_f32_kernel(n, &a, &b, &c))) {
          printf("FAIL libxsmm: no f32 kernel for %d\n", n);
          ok = 0;
          break;
        }
        /* Correctness: one call on a zeroed C. */
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) AT(float, c, i, j) = 0;
        fn(&cl);
        char what[64];
        snprintf(what, sizeof what, "tile-f32 %s %d %s", lay[L], n, k_lib[lib]);
        if (!check_float(what, n, &c, cref, 1)) ok = 0;
        t[lib] = time_calls(fn, &cl, min_s);
      }
      for (int lib = 0; lib < 3 && ok; ++lib) row(o, "tile-f32", k_lib[lib], n, t[lib], t[0], lay[L]);
    }
  }
  free(A), free(B), free(C), free(pa), free(pb), free(pc), free(cref);
  return ok;
}

static int run_tile_bf16(const ab_opts_t* o, ob_t* ob) {
  int sizes[] = {32, 64, 128};
  int ns_sz = o->quick ? 1 : 3;
  double min_s = o->quick ? 0.005 : 0.15;
  uint16_t *A = malloc(128 * 128 * 2), *B = malloc(128 * 128 * 2);
  float *C = malloc(128 * 128 * 4), *pa = malloc(128 * 128 * 4), *pb = malloc(128 * 128 * 4);
  double* cref = malloc(128 * 128 * sizeof(double));
  int ok = A && B && C && pa && pb && cref;
  for (int i = 0; ok && i < 128 * 128; ++i) {
    A[i] = air_bf16_from_f32(rndf());
    B[i] = air_bf16_from_f32(rndf());
  }
  for (int si = 0; ok && si < ns_sz; ++si) {
    int n = sizes[si];
    mat_t a = {A, n, 1}, b = {B, n, 1}, c = {C, n, 1};
    memset(cref, 0, (size_t)n * n * sizeof(double));
    ref_float(1, n, &a, &b, cref);
    double t[3] = {0};
    for (int lib = 0; lib < 3 && ok; ++lib) {
      call_t cl = {.ob = ob, .n = n, .a = a, .b = b, .c = c, .pa = pa, .pb = pb, .lib = lib};
      if (lib == 2) {
        libxsmm_blasint ld = n;
        float alpha = 1, beta = 1;
        int flags = LIBXSMM_GEMM_FLAG_VNNI_A, pf = LIBXSMM_PREFETCH_NONE;
        cl.xb = libxsmm_bsmmdispatch(n, n, n, &ld, &ld, &ld, &alpha, &beta, &flags, &pf);
        if (!cl.xb) {
          printf("FAIL libxsmm: no bf16 kernel for %d\n", n);
          ok = 0;
          break;
        }
      }
      body_fn fn = lib == 0 ? bf16_openblas : lib == 1 ? bf16_blis : bf16_xsmm;
      memset(C, 0, (size_t)n * n * 4);
      fn(&cl);
      char what[64];
      snprintf(what, sizeof what, "tile-bf16 %d %s", n, k_lib[lib]);
      if (!check_float(what, n, &c, cref, 1)) ok = 0;
      t[lib] = time_calls(fn, &cl, min_s);
    }
    for (int lib = 0; lib < 3 && ok; ++lib)
      row(o, "tile-bf16", k_lib[lib], n, t[lib], t[0], lib == 2 ? "vnni" : "to-f32");
  }
  free(A), free(B), free(C), free(pa), free(pb), free(cref);
  return ok;
}

static int run_tile_i8(const ab_opts_t* o, ob_t* ob) {
  int sizes[] = {32, 64, 128};
  int ns_sz = o->quick ? 1 : 3;
  double min_s = o->quick ? 0.005 : 0.15;
  int8_t *A = malloc(128 * 128), *B = malloc(128 * 128);
  int32_t *C = malloc(128 * 128 * 4), *want = malloc(128 * 128 * 4);
  double *pa = malloc(128 * 128 * 8), *pb = malloc(128 * 128 * 8), *pc = malloc(128 * 128 * 8);
  int ok = A && B && C && want && pa && pb && pc;
  for (int i = 0; ok && i < 128 * 128; ++i) {
    A[i] = (int8_t)(rnd() & 0xff);
    B[i] = (int8_t)(rnd() & 0xff);
  }
  for (int si = 0; ok && si < ns_sz; ++si) {
    int n = sizes[si];
    mat_t a = {A, n, 1}, b = {B, n, 1}, c = {C, n, 1};
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        int32_t s = 0;
        for (int k = 0; k < n; ++k) s += (int32_t)A[i * n + k] * B[k * n + j];
        want[i * n + j] = s;
      }
    double t[3] = {0};
    for (int lib = 0; lib < 3 && ok; ++lib) {
      call_t cl = {.ob = ob, .n = n, .a = a, .b = b, .c = c, .pa = pa, .pb = pb, .pc = pc,
                   .lib = lib};
      if (lib == 2) {
        libxsmm_blasint ld = n;
        int alpha = 1, beta = 1;
        int flags = LIBXSMM_GEMM_FLAG_VNNI_A, pf = LIBXSMM_PREFETCH_NONE;
        cl.xi = libxsmm_usbimmdispatch(n, n, n, &ld, &ld, &ld, &alpha, &beta, &flags, &pf);
        if (!cl.xi) {
          /* Not fatal: a row saying so is the finding. */
          if (!o->json) printf("%-10s %-8s %4d  %-9s  (no int8 kernel on this CPU)\n",
                               "tile-i8", "vnni", n, "libxsmm");
          t[2] = NAN;
          continue;
        }
      }
      body_fn fn = lib == 0 ? i8_openblas : lib == 1 ? i8_blis : i8_xsmm;
      memset(C, 0, (size_t)n * n * 4);
      fn(&cl);
      if (memcmp(C, want, (size_t)n * n * 4)) {
        printf("FAIL tile-i8 %d %s: not exact\n", n, k_lib[lib]);
        ok = 0;
        break;
      }
      t[lib] = time_calls(fn, &cl, min_s);
    }
    for (int lib = 0; lib < 3 && ok; ++lib)
      if (!isnan(t[lib])) row(o, "tile-i8", k_lib[lib], n, t[lib], t[0], lib == 2 ? "vnni" : "to-f64");
  }
  free(A), free(B), free(C), free(want), free(pa), free(pb), free(pc);
  return ok;
}

static int run_whole(const ab_opts_t* o, ob_t* ob, int threads) {
  int sizes[] = {256, 512, 1024, 2048};
  int ns_sz = o->quick ? 1 : 4;
  int ok = 1;
  for (int si = 0; si < ns_sz && ok; ++si) {
    int n = sizes[si];
    size_t nn = (size_t)n * n;
    float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = malloc(nn * 4);
    if (!A || !B || !C) {
      free(A), free(B), free(C);
      return 0;
    }
    for (size_t i = 0; i < nn; ++i) {
      A[i] = rndf();
      B[i] = rndf();
    }
    double t[2];
    float zero = 0, one = 1;
    for (int lib = 0; lib < 2 && ok; ++lib) {
      int reps = o->quick ? 1 : (n <= 512 ? 20 : n <= 1024 ? 5 : 3);
      double v[32];
      for (int r = 0; r <= reps; ++r) {
        memset(C, 0, nn * 4);
        double t0 = now_s();
        if (lib == 0) {
          ob->sgemm(CB_ROW, CB_NOTRANS, CB_NOTRANS, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
        } else {
          rntm_t rntm = BLIS_RNTM_INITIALIZER;
          bli_rntm_set_num_threads(threads, &rntm);
          bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, n, n, n, &one, A, n, 1, B, n, 1,
                       &zero, C, n, 1, NULL, &rntm);
        }
        if (r) v[r - 1] = (now_s() - t0) * 1e9;
      }
      t[lib] = ab_quantile(v, (size_t)reps, 0.5);
      /* Spot check 64 entries against double. */
      for (int s = 0; s < 64 && ok; ++s) {
        int i = (int)(rnd() % (uint64_t)n), j = (int)(rnd() % (uint64_t)n);
        double want = 0;
        for (int k = 0; k < n; ++k) want += (double)A[(size_t)i * n + k] * B[(size_t)k * n + j];
        if (fabs(C[(size_t)i * n + j] - want) > 1e-3 * (1 + sqrt((double)n))) {
          printf("FAIL whole-f32 %d %s at (%d, %d): %g vs %g\n", n, k_lib[lib], i, j,
                 C[(size_t)i * n + j], want);
          ok = 0;
        }
      }
    }
    for (int lib = 0; lib < 2 && ok; ++lib) {
      if (o->json) {
        ab_emit(o, "whole-f32", k_lib[lib], threads, "ns_per_call", t[lib], t[lib] / t[0], NULL);
      } else {
        printf("%-10s %-8s %4d  %-9s %12.0f %8.1f %8.2f\n", "whole-f32", "2-d", n, k_lib[lib],
               t[lib], 2.0 * n * n * (double)n / t[lib], t[lib] / t[0]);
      }
    }
    free(A), free(B), free(C);
  }
  return ok;
}

int air_bench_gemm_libs(int argc, char** argv) {
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o,
                    "  cases: tile-f32 tile-bf16 tile-i8 whole-f32 (OpenBLAS, BLIS, libxsmm)\n");
  if (rc >= 0) return rc;
  ob_t ob;
  char why[256];
  if (!ab_blas_open(&ob, why, sizeof why)) {
    fprintf(stderr, "%s: %s\n", o.bench, why);
    return 1;
  }
  int threads = o.threads ? o.threads : 2;
  libxsmm_init();
  bli_init();
  if (!o.json) {
    printf("# load average: ");
    FILE* f = fopen("/proc/loadavg", "r");
    char buf[128] = "?";
    if (f) {
      if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
      fclose(f);
    }
    printf("%s", buf);
    printf("# OpenBLAS core: %s (%s)\n", ob.core, ob.core_how);
    printf("%-10s %-8s %4s  %-9s %12s %8s %8s\n", "case", "layout", "n", "library", "ns/call",
           "GFLOP/s", "/openblas");
  }
  int ok = 1;
  ob.set_threads(1);
  if (ok && ab_want(&o, "tile-f32")) ok = run_tile_f32(&o, &ob);
  if (ok && ab_want(&o, "tile-bf16")) ok = run_tile_bf16(&o, &ob);
  if (ok && ab_want(&o, "tile-i8")) ok = run_tile_i8(&o, &ob);
  ob.set_threads(threads);
  if (ok && ab_want(&o, "whole-f32")) ok = run_whole(&o, &ob, threads);
  libxsmm_finalize();
  bli_finalize();
  return ok ? 0 : 1;
}

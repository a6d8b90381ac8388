/* cpu_matmul.c - the cpu-matmul benchmark (issue 14, PERFORMANCE.md "second
 * round"): whole matmuls written as AIR programs, run through the public API on
 * the cpu device, against OpenBLAS's cblas_sgemm of the same matrices on the same
 * number of threads, in one run.
 *
 * Programs (C = A x B, square N):
 *   tiled   the tiled DMA matmul: a 2x2 launch; each launch instance walks its
 *           quarter of C in 128x128 blocks; per block its segment DMAs A's
 *           128xN row panel, B's Nx128 column panel and the C block from L3 to
 *           L2, and a 2x2 herd computes it: each tile DMAs its 64x64 piece of C
 *           and, K step 64, the 64x64 pieces of A and B from L2 to L1, runs the
 *           built-in linalg.matmul on them, and DMAs its C piece back to L2; the
 *           segment then DMAs the block back to L3. N = 256 .. 2048.
 *   4x4     samples/matmul_4x4.mlir (512^3, 32x32 tiles, channels at every level,
 *           ~17k channel transfers), and its bf16 twin.
 * Element types: f32, and bf16 A and B with an f32 C. OpenBLAS has no bf16 GEMM
 * in Debian's build, so the bf16 rows are measured against sgemm of the same
 * values held as f32 (converted before timing).
 *
 * C is zeroed before every run (untimed); the runtime and OpenBLAS runs alternate.
 * Every runtime result is checked: 512 sampled entries must equal, bit for bit,
 * the f32 fused multiply-add chain over k in ascending order (the semantics of
 * the executor's linalg.matmul, docs/performance.md), and every entry must lie
 * within a tolerance of OpenBLAS's result. A mismatch prints FAIL and exits 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air_bench_blas.h"
#include "air_bench_prog.h"
#include "air_bench_util.h"
#include "tool_util.h"

#ifndef AIR_SAMPLES_DIR
#define AIR_SAMPLES_DIR "samples"
#endif

/* @N@ side, @T@ A/B element type, @NB@ 128-blocks per launch instance per side,
 * @HN@ = N / 2 (each launch instance's share of a side). */
static const char k_tiled[] =
    "module {\n"
    "  func.func @tiled(%A: memref<@N@x@N@x@T@>, %B: memref<@N@x@N@x@T@>, "
    "%C: memref<@N@x@N@xf32>) {\n"
    "    %c2 = arith.constant 2 : index\n"
    "    air.launch (%lx, %ly) in (%nlx=%c2, %nly=%c2) args(%a=%A, %b=%B, %c=%C) : "
    "memref<@N@x@N@x@T@>, memref<@N@x@N@x@T@>, memref<@N@x@N@xf32> {\n"
    "      air.segment @seg args(%sa=%a, %sb=%b, %sc=%c, %sx=%lx, %sy=%ly) : "
    "memref<@N@x@N@x@T@>, memref<@N@x@N@x@T@>, memref<@N@x@N@xf32>, index, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %c1 = arith.constant 1 : index\n"
    "        %c2s = arith.constant 2 : index\n"
    "        %c128 = arith.constant 128 : index\n"
    "        %cn = arith.constant @N@ : index\n"
    "        %nb = arith.constant @NB@ : index\n"
    "        %hn = arith.constant @HN@ : index\n"
    "        %r0 = arith.muli %sx, %hn : index\n"
    "        %q0 = arith.muli %sy, %hn : index\n"
    "        %pa = memref.alloc() : memref<128x@N@x@T@, 1>\n"
    "        %pb = memref.alloc() : memref<@N@x128x@T@, 1>\n"
    "        %pc = memref.alloc() : memref<128x128xf32, 1>\n"
    "        scf.for %bi = %c0 to %nb step %c1 {\n"
    "          %bi128 = arith.muli %bi, %c128 : index\n"
    "          %row = arith.addi %r0, %bi128 : index\n"
    "          air.dma_memcpy_nd (%pa[] [] [], %sa[%row, %c0] [%c128, %cn] [%cn, %c1]) : "
    "(memref<128x@N@x@T@, 1>, memref<@N@x@N@x@T@>)\n"
    "          scf.for %bj = %c0 to %nb step %c1 {\n"
    "            %bj128 = arith.muli %bj, %c128 : index\n"
    "            %col = arith.addi %q0, %bj128 : index\n"
    "            air.dma_memcpy_nd (%pb[] [] [], %sb[%c0, %col] [%cn, %c128] [%cn, %c1]) : "
    "(memref<@N@x128x@T@, 1>, memref<@N@x@N@x@T@>)\n"
    "            air.dma_memcpy_nd (%pc[] [] [], %sc[%row, %col] [%c128, %c128] [%cn, %c1]) : "
    "(memref<128x128xf32, 1>, memref<@N@x@N@xf32>)\n"
    "            air.herd @h tile (%tx, %ty) in (%hx=%c2s, %hy=%c2s) args(%ha=%pa, %hb=%pb, "
    "%hc=%pc) : memref<128x@N@x@T@, 1>, memref<@N@x128x@T@, 1>, memref<128x128xf32, 1> {\n"
    "              %z = arith.constant 0 : index\n"
    "              %one = arith.constant 1 : index\n"
    "              %c64 = arith.constant 64 : index\n"
    "              %c128h = arith.constant 128 : index\n"
    "              %k_end = arith.constant @N@ : index\n"
    "              %i0 = arith.muli %tx, %c64 : index\n"
    "              %j0 = arith.muli %ty, %c64 : index\n"
    "              %la = memref.alloc() : memref<64x64x@T@, 2>\n"
    "              %lb = memref.alloc() : memref<64x64x@T@, 2>\n"
    "              %lc = memref.alloc() : memref<64x64xf32, 2>\n"
    "              air.dma_memcpy_nd (%lc[] [] [], %hc[%i0, %j0] [%c64, %c64] [%c128h, %one]) : "
    "(memref<64x64xf32, 2>, memref<128x128xf32, 1>)\n"
    "              scf.for %k = %z to %k_end step %c64 {\n"
    "                air.dma_memcpy_nd (%la[] [] [], %ha[%i0, %k] [%c64, %c64] [%k_end, %one]) : "
    "(memref<64x64x@T@, 2>, memref<128x@N@x@T@, 1>)\n"
    "                air.dma_memcpy_nd (%lb[] [] [], %hb[%k, %j0] [%c64, %c64] [%c128h, %one]) : "
    "(memref<64x64x@T@, 2>, memref<@N@x128x@T@, 1>)\n"
    "                linalg.matmul ins(%la, %lb : memref<64x64x@T@, 2>, memref<64x64x@T@, 2>) "
    "outs(%lc : memref<64x64xf32, 2>)\n"
    "              }\n"
    "              air.dma_memcpy_nd (%hc[%i0, %j0] [%c64, %c64] [%c128h, %one], %lc[] [] []) : "
    "(memref<128x128xf32, 1>, memref<64x64xf32, 2>)\n"
    "              memref.dealloc %la : memref<64x64x@T@, 2>\n"
    "              memref.dealloc %lb : memref<64x64x@T@, 2>\n"
    "              memref.dealloc %lc : memref<64x64xf32, 2>\n"
    "            }\n"
    "            air.dma_memcpy_nd (%sc[%row, %col] [%c128, %c128] [%cn, %c1], %pc[] [] []) : "
    "(memref<@N@x@N@xf32>, memref<128x128xf32, 1>)\n"
    "          }\n"
    "        }\n"
    "        memref.dealloc %pa : memref<128x@N@x@T@, 1>\n"
    "        memref.dealloc %pb : memref<@N@x128x@T@, 1>\n"
    "        memref.dealloc %pc : memref<128x128xf32, 1>\n"
    "      }\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

static uint16_t f2bf(float f) { /* round to nearest even; inputs here are finite */
  uint32_t x;
  memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}
static float bf2f(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

typedef struct mm_case_t {
  char name[32];
  const char* program; /* "tiled", "4x4" */
  int n, bf16;
} mm_case_t;

typedef struct mm_data_t {
  int n, bf16;
  float *a, *b;      /* f32 values (for bf16: the bf16 values widened) */
  uint16_t *ha, *hb; /* bf16 inputs */
  float *c, *ref;    /* runtime result; OpenBLAS result */
} mm_data_t;

static void data_free(mm_data_t* d) {
  free(d->a), free(d->b), free(d->ha), free(d->hb), free(d->c), free(d->ref);
  memset(d, 0, sizeof *d);
}

static int data_make(mm_data_t* d, int n, int bf16) {
  memset(d, 0, sizeof *d);
  d->n = n, d->bf16 = bf16;
  size_t nn = (size_t)n * n;
  d->a = aligned_alloc(64, nn * 4), d->b = aligned_alloc(64, nn * 4);
  d->c = aligned_alloc(64, nn * 4), d->ref = aligned_alloc(64, nn * 4);
  if (bf16) d->ha = aligned_alloc(64, nn * 2), d->hb = aligned_alloc(64, nn * 2);
  if (!d->a || !d->b || !d->c || !d->ref || (bf16 && (!d->ha || !d->hb))) return 1;
  uint64_t s = 0x9e3779b97f4a7c15u + (uint64_t)n;
  for (size_t i = 0; i < 2 * nn; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    float x = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
    float* dst = i < nn ? d->a : d->b;
    if (bf16) {
      uint16_t h = f2bf(x);
      (i < nn ? d->ha : d->hb)[i % nn] = h;
      x = bf2f(h);
    }
    dst[i % nn] = x;
  }
  /* Touch the outputs now, so no run pays their first page faults. */
  memset(d->c, 0, nn * 4);
  memset(d->ref, 0, nn * 4);
  return 0;
}

/* Entry (i, j) as the executor defines linalg.matmul: fmaf over k ascending,
 * from 0 (every program here starts from a zeroed C). */
static float fma_chain(const mm_data_t* d, int i, int j) {
  float acc = 0;
  for (int k = 0; k < d->n; ++k)
    acc = fmaf(d->a[(size_t)i * d->n + k], d->b[(size_t)k * d->n + j], acc);
  return acc;
}

static int check_result(const char* bench, const mm_case_t* c, const mm_data_t* d) {
  int n = d->n;
  uint64_t s = 12345;
  for (int t = 0; t < 512; ++t) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    int i = (int)(s % (uint64_t)n), j = (int)((s >> 32) % (uint64_t)n);
    float want = fma_chain(d, i, j), got = d->c[(size_t)i * n + j];
    if (memcmp(&want, &got, 4)) {
      fprintf(stderr, "%s: FAIL: %s: C[%d][%d] = %.9g, the fused chain gives %.9g\n", bench,
              c->name, i, j, got, want);
      return 1;
    }
  }
  /* Sums of n products of values in [-0.5, 0.5): |C| ~ sqrt(n)/12; f32 errors
   * of either order stay far below this bound. */
  double tol = 1e-5 * n;
  for (size_t x = 0; x < (size_t)n * n; ++x)
    if (!(fabs((double)d->c[x] - d->ref[x]) <= tol)) {
      fprintf(stderr, "%s: FAIL: %s: C[%zu] = %.9g, OpenBLAS gives %.9g\n", bench, c->name, x,
              d->c[x], d->ref[x]);
      return 1;
    }
  return 0;
}

static int open_case(abp_t* r, const ab_opts_t* o, const mm_case_t* c, mm_data_t* d,
                     int threads, uint32_t dispatch_flags) {
  abp_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.bench = "air-bench cpu-matmul";
  desc.threads = threads;
  desc.dispatch_flags = dispatch_flags;
  desc.n_bufs = 3;
  size_t ab = (size_t)c->n * c->n * (c->bf16 ? 2 : 4);
  desc.host[0] = c->bf16 ? (void*)d->ha : (void*)d->a, desc.bytes[0] = ab;
  desc.host[1] = c->bf16 ? (void*)d->hb : (void*)d->b, desc.bytes[1] = ab;
  desc.host[2] = d->c, desc.bytes[2] = (size_t)c->n * c->n * 4;
  char path[512];
  char* text = NULL;
  if (!strcmp(c->program, "4x4")) {
    snprintf(path, sizeof path, "%s/%s", AIR_SAMPLES_DIR,
             c->bf16 ? "matmul_4x4_bf16.mlir" : "matmul_4x4.mlir");
    desc.path = path;
  } else {
    static const char* const keys[] = {"N", "NB", "HN", "T"};
    char v[3][24];
    snprintf(v[0], sizeof v[0], "%d", c->n);
    snprintf(v[1], sizeof v[1], "%d", c->n / 256);
    snprintf(v[2], sizeof v[2], "%d", c->n / 2);
    const char* vals[4] = {v[0], v[1], v[2], c->bf16 ? "bf16" : "f32"};
    text = abp_expand(k_tiled, keys, vals, 4);
    if (!text) {
      fprintf(stderr, "%s: out of memory\n", desc.bench);
      return 1;
    }
    desc.text = text, desc.len = strlen(text);
  }
  (void)o;
  int rc = abp_open(r, &desc);
  free(text);
  return rc;
}

static int run_case(const ab_opts_t* o, const ab_blas_t* ob, const mm_case_t* c, int threads,
                    int reps, uint32_t dispatch_flags) {
  mm_data_t d;
  if (data_make(&d, c->n, c->bf16)) {
    fprintf(stderr, "%s: out of memory\n", o->bench);
    data_free(&d);
    return 1;
  }
  abp_t r;
  int rc = open_case(&r, o, c, &d, threads, dispatch_flags);
  size_t bytes = (size_t)c->n * c->n * 4;
  double* t_rt = malloc((size_t)reps * sizeof *t_rt);
  double* t_ob = malloc((size_t)reps * sizeof *t_ob);
  if (!t_rt || !t_ob) {
    fprintf(stderr, "%s: out of memory\n", o->bench);
    rc = 1;
  }
  /* One untimed run of each first: JIT, kernels, caches, page faults. */
  double dummy;
  if (!rc) {
    ob->sgemm(AB_CBLAS_ROW, AB_CBLAS_NOTRANS, AB_CBLAS_NOTRANS, c->n, c->n, c->n, 1.0f, d.a,
              c->n, d.b, c->n, 0.0f, d.ref, c->n);
    rc = abp_run(&r, &dummy);
  }
  for (int rep = 0; rep < reps && !rc; ++rep) {
    int64_t t0 = ab_now_ns();
    ob->sgemm(AB_CBLAS_ROW, AB_CBLAS_NOTRANS, AB_CBLAS_NOTRANS, c->n, c->n, c->n, 1.0f, d.a,
              c->n, d.b, c->n, 0.0f, d.ref, c->n);
    t_ob[rep] = (double)(ab_now_ns() - t0) * 1e-9;
    memset(d.c, 0, bytes);
    rc = abp_run(&r, &t_rt[rep]) || check_result(o->bench, c, &d);
  }
  const char* variant = r.interpreted ? "interpreted" : NULL;
  abp_close(&r);
  data_free(&d);
  if (rc) {
    free(t_rt), free(t_ob);
    return 1;
  }
  double best_rt = ab_quantile(t_rt, (size_t)reps, 0), best_ob = ab_quantile(t_ob, (size_t)reps, 0);
  double rt = ab_quantile(t_rt, (size_t)reps, 0.5), obt = ab_quantile(t_ob, (size_t)reps, 0.5);
  double gf = 2.0 * c->n * (double)c->n * c->n * 1e-9;
  ab_emit(o, c->name, "airrt", threads, "seconds", rt, rt / obt, variant);
  ab_emit(o, c->name, "openblas", threads, "seconds", obt, NAN, NULL);
  ab_emit(o, c->name, "airrt", threads, "best_ratio", best_rt / best_ob, NAN, variant);
  if (!o->json) {
    double target = !strcmp(c->program, "4x4") ? 5.0 : 2.0;
    printf("%-14s %4d %7d %10.3f %10.3f %7.1f %7.1f %8.2f %8.2f  %s\n", c->name, c->n, threads,
           rt * 1e3, obt * 1e3, gf / rt, gf / obt, rt / obt, best_rt / best_ob,
           rt / obt <= target ? "ok" : "MISS");
    fflush(stdout);
  }
  free(t_rt), free(t_ob);
  return 0;
}

int air_bench_cpu_matmul(int argc, char** argv) {
  /* --no-compile is this bench's own option; the rest are the common ones. */
  uint32_t dispatch_flags = abp_take_no_compile(&argc, argv);
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o,
                    "  cases: tiled-f32-N, tiled-bf16-N (N = 256, 512, 1024, 2048), 4x4-f32,\n"
                    "  4x4-bf16: seconds through the runtime vs OpenBLAS sgemm, same threads\n"
                    "  (default 2). --reps N: timed runs per case (default 5, 3 at 2048;\n"
                    "  at most 10000).\n"
                    "  --no-compile: interpret herd code and run the built-in loops\n"
                    "  (AIR_DISPATCH_INTERPRET).\n");
  if (rc >= 0) return rc;
  ab_blas_t ob;
  char why[256];
  if (!ab_blas_open(&ob, why, sizeof why)) {
    fprintf(stderr, "%s: %s\n", o.bench, why);
    return 1;
  }
  int threads = o.threads ? o.threads : 2;
  ob.set_threads(threads);
  mm_case_t cases[16];
  int n_cases = 0;
  static const int k_sizes[] = {256, 512, 1024, 2048};
  for (int bf = 0; bf < 2; ++bf)
    for (int s = 0; s < 4; ++s) {
      if (o.quick && k_sizes[s] > 256) continue;
      mm_case_t* c = &cases[n_cases++];
      snprintf(c->name, sizeof c->name, "tiled-%s-%d", bf ? "bf16" : "f32", k_sizes[s]);
      c->program = "tiled", c->n = k_sizes[s], c->bf16 = bf;
    }
  for (int bf = 0; bf < 2; ++bf) {
    if (o.quick && bf) continue;
    mm_case_t* c = &cases[n_cases++];
    snprintf(c->name, sizeof c->name, "4x4-%s", bf ? "bf16" : "f32");
    c->program = "4x4", c->n = 512, c->bf16 = bf;
  }
  abp_code_t code;
  if (abp_code_probe(o.bench, dispatch_flags, &code)) return 1;
  if (!o.json) {
    char load[64];
    abp_loadavg(load, sizeof load);
    printf("cpu-matmul: C = A x B through the runtime vs OpenBLAS sgemm, %d threads, "
           "median of reps; %s; load average %s\n"
           "OpenBLAS core: %s (%s)\n"
           "%-14s %4s %7s %10s %10s %7s %7s %8s %8s  %s\n",
           threads, code.line, load, ob.core, ob.core_how, "case", "n", "threads", "airrt ms", "blas ms", "GF/s", "blas GF/s",
           "ratio", "best", "target (tiled <= 2, 4x4 <= 5)");
  }
  rc = 0;
  for (int i = 0; i < n_cases && !rc; ++i) {
    if (!ab_want(&o, cases[i].name)) continue;
    int reps = o.reps ? o.reps : o.quick ? 1 : cases[i].n >= 2048 ? 3 : 5;
    if (reps > 10000) reps = 10000;
    rc = run_case(&o, &ob, &cases[i], threads, reps, dispatch_flags);
  }
  return rc;
}

/* matmul.c - the matmul benchmark (PERFORMANCE.md): C = A x B, 1024^3 f32, in 64x64
 * tiles, through the runtime against the same tile kernel called directly.
 *
 *   airrt   an AIR program (text below) on the cpu device: a herd of T x 1 PEs
 *           (T = threads), PE t owning tile rows t, t+T, ...; for each C tile it
 *           DMAs the tile into L1, and for each k DMAs the A and B tiles into L1
 *           and calls the registered C kernel @mm64 on the three L1 tiles, then
 *           DMAs the C tile back. Timed: submit -> completion of the dispatch.
 *   direct  the same kernel function, called through the same air_kernel_call_t
 *           interface from a plain C loop over the same tiles in the same order,
 *           on T pthreads with the same split, straight on A, B and C (row stride
 *           1024, no copies);
 *   direct (variant packed)  the same loop, but copying every tile into private
 *           64x64 buffers with 64 row memcpys first, as the program's DMAs do:
 *           the floor the runtime can reach, so airrt / packed is the runtime's
 *           own overhead (interpretation, DMA decoding, scheduling).
 * C is zeroed before every run (untimed) and the kernel accumulates into it. Every
 * result is compared bit for bit with direct's and sampled entries against a
 * double-precision reference; a mismatch prints FAIL and exits 1. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air/buffer.h"
#include "air/command_buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air/kernel.h"
#include "air/types.h"
#include "air_bench_prog.h"
#include "air_bench_util.h"
#include "tool_util.h"

enum { TILE = 64 };

/* The tile kernel: C += A * B on 64x64 f32 views with unit inner stride. */
static air_status_t mm64(void* user, const air_kernel_call_t* call) {
  (void)user;
  if (call->n_args != 3)
    return air_status_make(NULL, AIR_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__,
                           "mm64 takes 3 memrefs");
  const air_memref_t* m[3];
  for (int i = 0; i < 3; ++i) {
    m[i] = &call->args[i].memref;
    if (call->args[i].kind != AIR_ARG_MEMREF || m[i]->rank != 2 || m[i]->sizes[0] != TILE ||
        m[i]->sizes[1] != TILE || m[i]->strides[1] != 1 || m[i]->elem != AIR_ELEMENT_F32)
      return air_status_make(NULL, AIR_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__,
                             "mm64 wants 64x64 f32 memrefs with unit inner stride");
  }
  const float* a = (const float*)m[0]->data + m[0]->offset;
  const float* b = (const float*)m[1]->data + m[1]->offset;
  float* c = (float*)m[2]->data + m[2]->offset;
  int64_t lda = m[0]->strides[0], ldb = m[1]->strides[0], ldc = m[2]->strides[0];
  for (int i = 0; i < TILE; ++i) {
    float* restrict cr = c + i * ldc;
    for (int k = 0; k < TILE; ++k) {
      float x = a[i * lda + k];
      const float* restrict br = b + k * ldb;
      for (int j = 0; j < TILE; ++j) cr[j] += x * br[j];
    }
  }
  return NULL;
}

/* @N@: matrix side, @T@: herd width (threads), @K@: tiles per side. */
static const char k_program[] =
    "module {\n"
    "  func.func private @mm64(memref<64x64xf32, 2>, memref<64x64xf32, 2>, "
    "memref<64x64xf32, 2>)\n"
    "  func.func @matmul(%A: memref<@N@x@N@xf32>, %B: memref<@N@x@N@xf32>, %C: memref<@N@x@N@xf32>) {\n"
    "    %c1 = arith.constant 1 : index\n"
    "    air.launch (%lx) in (%nlx=%c1) args(%a=%A, %b=%B, %c=%C) : memref<@N@x@N@xf32>, "
    "memref<@N@x@N@xf32>, memref<@N@x@N@xf32> {\n"
    "      air.segment @seg args(%sa=%a, %sb=%b, %sc=%c) : memref<@N@x@N@xf32>, "
    "memref<@N@x@N@xf32>, memref<@N@x@N@xf32> {\n"
    "        %ht = arith.constant @T@ : index\n"
    "        %h1 = arith.constant 1 : index\n"
    "        air.herd @h tile (%tx, %ty) in (%sx=%ht, %sy=%h1) args(%ha=%sa, %hb=%sb, "
    "%hc=%sc) : memref<@N@x@N@xf32>, memref<@N@x@N@xf32>, memref<@N@x@N@xf32> {\n"
    "          %c0 = arith.constant 0 : index\n"
    "          %one = arith.constant 1 : index\n"
    "          %c64 = arith.constant 64 : index\n"
    "          %cn = arith.constant @N@ : index\n"
    "          %nt = arith.constant @K@ : index\n"
    "          %la = memref.alloc() : memref<64x64xf32, 2>\n"
    "          %lb = memref.alloc() : memref<64x64xf32, 2>\n"
    "          %lc = memref.alloc() : memref<64x64xf32, 2>\n"
    "          scf.for %i = %tx to %nt step %sx {\n"
    "            %row = arith.muli %i, %c64 : index\n"
    "            scf.for %j = %c0 to %nt step %one {\n"
    "              %col = arith.muli %j, %c64 : index\n"
    "              air.dma_memcpy_nd (%lc[] [] [], %hc[%row, %col] [%c64, %c64] [%cn, %one]) "
    ": (memref<64x64xf32, 2>, memref<@N@x@N@xf32>)\n"
    "              scf.for %k = %c0 to %nt step %one {\n"
    "                %kk = arith.muli %k, %c64 : index\n"
    "                air.dma_memcpy_nd (%la[] [] [], %ha[%row, %kk] [%c64, %c64] [%cn, %one]) "
    ": (memref<64x64xf32, 2>, memref<@N@x@N@xf32>)\n"
    "                air.dma_memcpy_nd (%lb[] [] [], %hb[%kk, %col] [%c64, %c64] [%cn, %one]) "
    ": (memref<64x64xf32, 2>, memref<@N@x@N@xf32>)\n"
    "                func.call @mm64(%la, %lb, %lc) : (memref<64x64xf32, 2>, "
    "memref<64x64xf32, 2>, memref<64x64xf32, 2>) -> ()\n"
    "              }\n"
    "              air.dma_memcpy_nd (%hc[%row, %col] [%c64, %c64] [%cn, %one], %lc[] [] []) "
    ": (memref<@N@x@N@xf32>, memref<64x64xf32, 2>)\n"
    "            }\n"
    "          }\n"
    "          memref.dealloc %la : memref<64x64xf32, 2>\n"
    "          memref.dealloc %lb : memref<64x64xf32, 2>\n"
    "          memref.dealloc %lc : memref<64x64xf32, 2>\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

typedef struct direct_t {
  const float *a, *b;
  float* c;
  int n, t, threads, packed;
} direct_t;

static air_arg_t tile_arg(float* base, int64_t offset, int64_t ld) {
  air_arg_t x;
  memset(&x, 0, sizeof x);
  x.kind = AIR_ARG_MEMREF;
  x.elem = AIR_ELEMENT_F32;
  x.memref.data = base;
  x.memref.offset = offset;
  x.memref.elem = AIR_ELEMENT_F32;
  x.memref.rank = 2;
  x.memref.sizes[0] = x.memref.sizes[1] = TILE;
  x.memref.strides[0] = ld;
  x.memref.strides[1] = 1;
  return x;
}

static void copy_tile(float* d, int64_t ldd, const float* s, int64_t lds) {
  for (int r = 0; r < TILE; ++r) memcpy(d + r * ldd, s + r * lds, TILE * sizeof(float));
}

/* The direct loop: same tiles, same order, same kernel, same call interface. */
static void* direct_main(void* arg) {
  direct_t* d = arg;
  int n = d->n, nt = n / TILE;
  static _Thread_local float la[TILE * TILE], lb[TILE * TILE], lc[TILE * TILE];
  air_kernel_call_t call;
  memset(&call, 0, sizeof call);
  call.name = "mm64";
  call.n_args = 3;
  air_arg_t args[3];
  call.args = args;
  for (int i = d->t; i < nt; i += d->threads)
    for (int j = 0; j < nt; ++j) {
      int64_t coff = (int64_t)i * TILE * n + (int64_t)j * TILE;
      if (d->packed) copy_tile(lc, TILE, d->c + coff, n);
      for (int k = 0; k < nt; ++k) {
        int64_t aoff = (int64_t)i * TILE * n + (int64_t)k * TILE;
        int64_t boff = (int64_t)k * TILE * n + (int64_t)j * TILE;
        if (d->packed) {
          copy_tile(la, TILE, d->a + aoff, n);
          copy_tile(lb, TILE, d->b + boff, n);
          args[0] = tile_arg(la, 0, TILE);
          args[1] = tile_arg(lb, 0, TILE);
          args[2] = tile_arg(lc, 0, TILE);
        } else {
          args[0] = tile_arg((float*)d->a, aoff, n);
          args[1] = tile_arg((float*)d->b, boff, n);
          args[2] = tile_arg(d->c, coff, n);
        }
        air_status_free(mm64(NULL, &call));
      }
      if (d->packed) copy_tile(d->c + coff, n, lc, TILE);
    }
  return NULL;
}

static double run_direct(const float* a, const float* b, float* c, int n, int threads,
                         int packed) {
  direct_t d[64];
  pthread_t th[64];
  int64_t t0 = ab_now_ns();
  for (int t = 0; t < threads; ++t) {
    d[t] = (direct_t){a, b, c, n, t, threads, packed};
    if (t) pthread_create(&th[t], NULL, direct_main, &d[t]);
  }
  direct_main(&d[0]);
  for (int t = 1; t < threads; ++t) pthread_join(th[t], NULL);
  return (double)(ab_now_ns() - t0) * 1e-9;
}

/* Sampled double-precision reference; returns the largest |error|. */
static double sample_error(const float* a, const float* b, const float* c, int n) {
  double worst = 0;
  uint32_t seed = 7;
  for (int s = 0; s < 256; ++s) {
    seed = seed * 1664525u + 1013904223u;
    int i = (int)(seed >> 8) % n;
    seed = seed * 1664525u + 1013904223u;
    int j = (int)(seed >> 8) % n;
    double ref = 0;
    for (int k = 0; k < n; ++k) ref += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
    double e = ref - c[(size_t)i * n + j];
    if (e < 0) e = -e;
    if (!(e <= worst)) worst = e; /* NaN too */
  }
  return worst;
}

/* The program for side n on `threads` PEs, set up on the cpu device with a, b, c
 * imported; 0 or 1 after printing why (abp_close either way). */
static int rt_open(abp_t* r, float* a, float* b, float* c, int n, int threads,
                   uint32_t dispatch_flags) {
  char vn[16], vt[16], vk[16];
  snprintf(vn, sizeof vn, "%d", n);
  snprintf(vt, sizeof vt, "%d", threads);
  snprintf(vk, sizeof vk, "%d", n / TILE);
  static const char* const k_keys[] = {"N", "T", "K"};
  const char* const vals[] = {vn, vt, vk};
  char* text = abp_expand(k_program, k_keys, vals, 3);
  if (!text) {
    memset(r, 0, sizeof *r);
    fprintf(stderr, "matmul: out of memory\n");
    return 1;
  }
  abp_desc_t d;
  memset(&d, 0, sizeof d);
  d.bench = "matmul";
  d.text = text, d.len = strlen(text);
  d.entry = "matmul";
  d.threads = threads;
  d.dispatch_flags = dispatch_flags;
  d.kernel = "mm64", d.kernel_fn = mm64;
  d.n_bufs = 3;
  d.host[0] = a, d.host[1] = b, d.host[2] = c;
  d.bytes[0] = d.bytes[1] = d.bytes[2] = (size_t)n * n * sizeof(float);
  int rc = abp_open(r, &d);
  free(text);
  return rc;
}

/* One thread count: reps x (airrt, direct, packed), interleaved; checks results. */
static int bench_threads(const ab_opts_t* o, int n, int threads, int reps, uint32_t flags,
                         float* a, float* b, float* c, float* ref) {
  abp_t r;
  if (rt_open(&r, a, b, c, n, threads, flags)) {
    abp_close(&r);
    return 1;
  }
  size_t bytes = (size_t)n * n * sizeof(float);
  double t[3][16];
  int bad = 0;
  /* An untimed direct run (warm-up) gives the result every timed run must equal
   * bit for bit: same kernel, same summation order. */
  memset(ref, 0, bytes);
  run_direct(a, b, ref, n, threads, 0);
  static const char* k_what[3] = {"airrt", "direct", "packed"};
  for (int rep = 0; rep < reps && !bad; ++rep)
    for (int w = 0; w < 3 && !bad; ++w) {
      memset(c, 0, bytes);
      if (w == 0)
        bad = abp_run(&r, &t[0][rep]);
      else
        t[w][rep] = run_direct(a, b, c, n, threads, w == 2);
      if (!bad && memcmp(c, ref, bytes)) {
        fprintf(stderr, "matmul: FAIL: the %s result differs from direct's (threads %d)\n",
                k_what[w], threads);
        bad = 1;
      }
    }
  int interpreted = r.interpreted;
  abp_close(&r);
  if (bad) return 1;
  /* Medians are the figures; best-of ratios are printed beside them because on a
   * shared machine interference only ever adds time. */
  double best[3];
  for (int w = 0; w < 3; ++w) best[w] = ab_quantile(t[w], (size_t)reps, 0);
  double airrt = ab_quantile(t[0], (size_t)reps, 0.5), direct = ab_quantile(t[1], (size_t)reps, 0.5),
         packed = ab_quantile(t[2], (size_t)reps, 0.5);
  char case_name[32];
  snprintf(case_name, sizeof case_name, "%d_f32_tile64", n);
  /* JSON rows of interpreted herd code say so, as the issue-14 benches' do. */
  const char* variant = interpreted ? "interpreted" : NULL;
  ab_emit(o, case_name, "airrt", threads, "seconds", airrt, airrt / direct, variant);
  ab_emit(o, case_name, "direct", threads, "seconds", direct, NAN, NULL);
  ab_emit(o, case_name, "direct", threads, "seconds", packed, NAN, "packed");
  ab_emit(o, case_name, "airrt", threads, "ratio_to_packed", airrt / packed, NAN, variant);
  ab_emit(o, case_name, "airrt", threads, "best_ratio_to_direct", best[0] / best[1], NAN, variant);
  ab_emit(o, case_name, "airrt", threads, "best_ratio_to_packed", best[0] / best[2], NAN, variant);
  if (!o->json)
    printf("%-16s %7d %10.4f %10.4f %10.4f %11.3f %11.3f %6.3f %6.3f  %s\n", case_name, threads,
           airrt, direct, packed, airrt / direct, airrt / packed, best[0] / best[1],
           best[0] / best[2], airrt / direct <= 1.05 ? "ok" : "MISS");
  return 0;
}

int air_bench_matmul(int argc, char** argv) {
  ab_opts_t o;
  uint32_t flags = abp_take_no_compile(&argc, argv);
  int rc = ab_parse(argc, argv, &o,
                    "  case 1024_f32_tile64 (128 with --quick): seconds through the runtime vs the\n"
                    "  same tile kernel called directly; 1 and 2 threads unless --threads N.\n"
                    "  --reps N: timed runs per row (default 5, at most 16).\n"
                    "  --no-compile: the herd's loops interpreted (AIR_DISPATCH_INTERPRET).\n");
  if (rc >= 0) return rc;
  if (o.threads > 64) {
    return tool_error(TOOL_EXIT_USAGE, "air-bench matmul", "--threads is at most 64");
  }
  int n = o.quick ? 128 : 1024;
  int reps = o.reps ? o.reps : o.quick ? 1 : 5;
  if (reps > 16) reps = 16;
  char case_name[32];
  snprintf(case_name, sizeof case_name, "%d_f32_tile64", n);
  if (!ab_want(&o, case_name) && !ab_want(&o, "1024_f32_tile64")) return 0;
  size_t count = (size_t)n * n;
  float* a = aligned_alloc(64, count * 4);
  float* b = aligned_alloc(64, count * 4);
  float* c = aligned_alloc(64, count * 4);
  float* ref = aligned_alloc(64, count * 4);
  if (!a || !b || !c || !ref) {
    fprintf(stderr, "matmul: out of memory\n");
    free(a), free(b), free(c), free(ref);
    return 1;
  }
  uint32_t seed = 12345;
  for (size_t i = 0; i < 2 * count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    float x = (float)(seed >> 8) / 8388608.0f - 1.0f;
    (i < count ? a : b)[i % count] = x;
  }
  abp_code_t code;
  if (abp_code_probe("matmul", flags, &code)) {
    free(a), free(b), free(c), free(ref);
    return 1;
  }
  if (!o.json)
    printf("matmul: %d^3 f32, 64x64 tiles, median of %d runs; seconds; best/ = ratio of the "
           "fastest runs; %s\n"
           "%-16s %7s %10s %10s %10s %11s %11s %6s %6s  %s\n",
           n, reps, code.line, "case", "threads", "airrt", "direct", "packed", "airrt/direct",
           "airrt/packed", "best/d", "best/p", "target <= 1.05");
  int t_lo = o.threads ? o.threads : 1, t_hi = o.threads ? o.threads : 2;
  rc = 0;
  for (int t = t_lo; t <= t_hi && !rc; ++t) rc = bench_threads(&o, n, t, reps, flags, a, b, c, ref);
  if (!rc) {
    /* f32 sums of 1024 products in [-1, 1) are ~18 in size; f32 accumulation errs
     * by ~1e-4. */
    double err = sample_error(a, b, ref, n);
    if (!o.json) printf("check: 256 sampled entries vs double reference: max |error| %.3g\n", err);
    if (!(err <= 1e-2)) {
      fprintf(stderr, "matmul: FAIL: result off by %.3g from the double reference\n", err);
      rc = 1;
    }
  }
  free(a), free(b), free(c), free(ref);
  return rc;
}

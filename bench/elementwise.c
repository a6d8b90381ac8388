/* elementwise.c - the elementwise benchmark (issue 14): vector_add-style herd
 * code (scalar loops of memref.load / arith / memref.store in L1, fed and
 * drained by DMA) through the public API on the cpu device, against a C loop
 * over the same arrays, in one run.
 *
 *   airrt   c = a + b, f32, N elements: a T x 1 herd (T = threads), tile t owns
 *           N/T consecutive elements and walks them 1024 at a time: two DMAs
 *           bring a and b into L1, an scf.for of load/addf/store adds them, a
 *           DMA writes the sum back. Case `sample` is samples/vector_add.mlir
 *           itself (4096 elements on a 4x1 herd, 256 at a time).
 *   c-loop  `for (i) c[i] = a[i] + b[i]` over the same arrays, split the same way
 *           over T pthreads (row `c-loop`), and on one thread (`c-loop-1`).
 * Method, the same for the three rows: --reps rounds, each a batch of BATCH
 * runs of the runtime back to back, then a batch of the 2-thread C loop (its
 * helpers started before the batch and stopped after), then a batch of the
 * 1-thread C loop. Every run is timed alone and is preceded by c = 0 and
 * followed by the bit-for-bit check of c against a + b, in every row; the
 * figure is the median over all rounds' runs. So each side runs as an
 * application calling it in a loop does, and each batch starts after the other
 * rows have run in between (cold) - the runtime's pool sleeps across the C
 * loops' batches while the C loop's helpers spin through their own batch.
 * Ratio = airrt / the faster of the two C loops (one thread wins on small
 * arrays). Target (issue 14): <= 3x. The arrays are touched before timing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air_bench_prog.h"
#include "air_bench_util.h"

#ifndef AIR_SAMPLES_DIR
#define AIR_SAMPLES_DIR "samples"
#endif

static const char k_program[] =
    "module {\n"
    "  func.func @vadd(%A: memref<@N@xf32>, %B: memref<@N@xf32>, %C: memref<@N@xf32>) {\n"
    "    air.launch () in () args(%a=%A, %b=%B, %c=%C) : memref<@N@xf32>, memref<@N@xf32>, "
    "memref<@N@xf32> {\n"
    "      air.segment @seg args(%sa=%a, %sb=%b, %sc=%c) : memref<@N@xf32>, memref<@N@xf32>, "
    "memref<@N@xf32> {\n"
    "        %c1 = arith.constant 1 : index\n"
    "        %ct = arith.constant @T@ : index\n"
    "        air.herd @h tile (%tx, %ty) in (%sx=%ct, %sy=%c1) args(%ha=%sa, %hb=%sb, %hc=%sc) : "
    "memref<@N@xf32>, memref<@N@xf32>, memref<@N@xf32> {\n"
    "          %c0 = arith.constant 0 : index\n"
    "          %one = arith.constant 1 : index\n"
    "          %tile = arith.constant @TILE@ : index\n"
    "          %per = arith.constant @PER@ : index\n"
    "          %base = arith.muli %tx, %per : index\n"
    "          %la = memref.alloc() : memref<@TILE@xf32, 2>\n"
    "          %lb = memref.alloc() : memref<@TILE@xf32, 2>\n"
    "          %lc = memref.alloc() : memref<@TILE@xf32, 2>\n"
    "          scf.for %i = %c0 to %per step %tile {\n"
    "            %off = arith.addi %base, %i : index\n"
    "            air.dma_memcpy_nd (%la[] [] [], %ha[%off] [%tile] [%one]) : "
    "(memref<@TILE@xf32, 2>, memref<@N@xf32>)\n"
    "            air.dma_memcpy_nd (%lb[] [] [], %hb[%off] [%tile] [%one]) : "
    "(memref<@TILE@xf32, 2>, memref<@N@xf32>)\n"
    "            scf.for %j = %c0 to %tile step %one {\n"
    "              %x = memref.load %la[%j] : memref<@TILE@xf32, 2>\n"
    "              %y = memref.load %lb[%j] : memref<@TILE@xf32, 2>\n"
    "              %s = arith.addf %x, %y : f32\n"
    "              memref.store %s, %lc[%j] : memref<@TILE@xf32, 2>\n"
    "            }\n"
    "            air.dma_memcpy_nd (%hc[%off] [%tile] [%one], %lc[] [] []) : "
    "(memref<@N@xf32>, memref<@TILE@xf32, 2>)\n"
    "          }\n"
    "          memref.dealloc %la : memref<@TILE@xf32, 2>\n"
    "          memref.dealloc %lb : memref<@TILE@xf32, 2>\n"
    "          memref.dealloc %lc : memref<@TILE@xf32, 2>\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/* Runs per batch (see the method above). */
enum { BATCH = 8 };

typedef struct cl_t {
  const float *a, *b;
  float* c;
  size_t lo, hi;
} cl_t;

static void c_loop(const cl_t* x) {
  const float* restrict a = x->a;
  const float* restrict b = x->b;
  float* restrict c = x->c;
  for (size_t i = x->lo; i < x->hi; ++i) c[i] = a[i] + b[i];
}

/* The C loop on several threads: helpers started once and spinning between
 * runs (as an OpenMP team does), so a run pays the work and two flag hand-overs,
 * not thread creation. */
typedef struct team_t {
  int threads;
  pthread_t th[64];
  cl_t part[64];
  _Atomic long go, done;
  _Atomic int quit;
} team_t;

typedef struct helper_t {
  team_t* team;
  int t;
} helper_t;

static void* team_main(void* arg) {
  team_t* tm = ((helper_t*)arg)->team;
  int t = ((helper_t*)arg)->t;
  free(arg);
  long seen = 0;
  for (;;) {
    long g;
    while ((g = atomic_load_explicit(&tm->go, memory_order_acquire)) == seen)
      if (atomic_load_explicit(&tm->quit, memory_order_relaxed)) return NULL;
    seen = g;
    c_loop(&tm->part[t]);
    atomic_fetch_add_explicit(&tm->done, 1, memory_order_acq_rel);
  }
}

static int team_start(team_t* tm, int threads) {
  memset(tm, 0, sizeof *tm);
  tm->threads = 1;
  for (int t = 1; t < threads; ++t) {
    helper_t* h = malloc(sizeof *h);
    if (!h) return 1;
    h->team = tm, h->t = t;
    if (pthread_create(&tm->th[t], NULL, team_main, h)) {
      free(h);
      return 1;
    }
    tm->threads = t + 1;
  }
  return 0;
}

static void team_stop(team_t* tm) {
  atomic_store(&tm->quit, 1);
  for (int t = 1; t < tm->threads; ++t) pthread_join(tm->th[t], NULL);
}

static double run_c(team_t* tm, const float* a, const float* b, float* c, size_t n, int threads) {
  int64_t t0 = ab_now_ns();
  for (int t = 0; t < threads; ++t)
    tm->part[t] =
        (cl_t){a, b, c, n * (size_t)t / (size_t)threads, n * (size_t)(t + 1) / (size_t)threads};
  if (threads > 1) {
    atomic_store_explicit(&tm->done, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&tm->go, 1, memory_order_release);
  }
  c_loop(&tm->part[0]);
  if (threads > 1)
    while (atomic_load_explicit(&tm->done, memory_order_acquire) != threads - 1) {
    }
  return (double)(ab_now_ns() - t0) * 1e-9;
}

static int check(const char* bench, const char* what, const float* a, const float* b,
                 const float* c, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float want = a[i] + b[i];
    if (memcmp(&want, &c[i], 4)) {
      fprintf(stderr, "%s: FAIL: %s: c[%zu] = %.9g, a + b = %.9g\n", bench, what, i, c[i], want);
      return 1;
    }
  }
  return 0;
}

/* n == 0: the vector_add sample. */
static int run_case(const ab_opts_t* o, const char* name, size_t n, int threads, int reps,
                    uint32_t dispatch_flags) {
  int sample = n == 0;
  if (sample) n = 4096;
  float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4), *c = aligned_alloc(64, n * 4);
  if (!a || !b || !c) {
    fprintf(stderr, "%s: out of memory\n", o->bench);
    free(a), free(b), free(c);
    return 1;
  }
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < 2 * n; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    (i < n ? a : b)[i % n] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
  }
  memset(c, 0, n * 4);
  abp_desc_t d;
  memset(&d, 0, sizeof d);
  d.bench = "air-bench elementwise";
  d.threads = threads;
  d.dispatch_flags = dispatch_flags;
  d.n_bufs = 3;
  d.host[0] = a, d.host[1] = b, d.host[2] = c;
  d.bytes[0] = d.bytes[1] = d.bytes[2] = n * 4;
  char path[512];
  char* text = NULL;
  if (sample) {
    snprintf(path, sizeof path, "%s/vector_add.mlir", AIR_SAMPLES_DIR);
    d.path = path;
  } else {
    size_t tile = n < 1024 * (size_t)threads ? n / (size_t)threads : 1024;
    static const char* const keys[] = {"N", "T", "TILE", "PER"};
    char v[4][24];
    snprintf(v[0], sizeof v[0], "%zu", n);
    snprintf(v[1], sizeof v[1], "%d", threads);
    snprintf(v[2], sizeof v[2], "%zu", tile);
    snprintf(v[3], sizeof v[3], "%zu", n / (size_t)threads);
    const char* vals[4] = {v[0], v[1], v[2], v[3]};
    text = abp_expand(k_program, keys, vals, 4);
    if (!text) {
      fprintf(stderr, "%s: out of memory\n", o->bench);
      free(a), free(b), free(c);
      return 1;
    }
    d.text = text, d.len = strlen(text);
  }
  abp_t r;
  team_t team;
  int rc = abp_open(&r, &d);
  free(text);
  double t_rt[16 * BATCH], t_c[16 * BATCH], t_c1[16 * BATCH], warm;
  /* Three warm-up runs: the cpu device picks where a submission runs from its
   * first executions (workers, then the caller's thread when that is measured
   * cheaper), and the runs' caches fill on the first of each. */
  for (int w = 0; w < 3 && !rc; ++w)
    rc = abp_run(&r, &warm) || check(o->bench, name, a, b, c, n);
  size_t runs = 0;
  for (int rep = 0; rep < reps && !rc; ++rep) {
    for (int i = 0; i < BATCH && !rc; ++i) {
      memset(c, 0, n * 4);
      rc = abp_run(&r, &t_rt[runs + (size_t)i]) || check(o->bench, name, a, b, c, n);
    }
    /* The helpers spin only while the C loop is measured, never during a run
     * of the runtime. */
    if (!rc) {
      if (team_start(&team, threads)) {
        fprintf(stderr, "%s: cannot start threads\n", o->bench);
        rc = 1;
      } else {
        run_c(&team, a, b, c, n, threads); /* warm-up: the helpers are running */
        for (int i = 0; i < BATCH && !rc; ++i) {
          memset(c, 0, n * 4);
          t_c[runs + (size_t)i] = run_c(&team, a, b, c, n, threads);
          rc = check(o->bench, "the C loop", a, b, c, n);
        }
      }
      team_stop(&team);
    }
    for (int i = 0; i < BATCH && !rc; ++i) {
      memset(c, 0, n * 4);
      t_c1[runs + (size_t)i] = run_c(&team, a, b, c, n, 1);
      rc = check(o->bench, "the C loop on one thread", a, b, c, n);
    }
    runs += BATCH;
  }
  const char* variant = r.interpreted ? "interpreted" : NULL;
  abp_close(&r);
  free(a), free(b), free(c);
  if (rc) return 1;
  double rt = ab_quantile(t_rt, runs, 0.5), cl = ab_quantile(t_c, runs, 0.5),
         c1 = ab_quantile(t_c1, runs, 0.5);
  /* The anchor is the faster C loop: for small arrays one thread wins. */
  double best = cl < c1 ? cl : c1;
  ab_emit(o, name, "airrt", threads, "seconds", rt, rt / best, variant);
  ab_emit(o, name, "c-loop", threads, "seconds", cl, NAN, NULL);
  ab_emit(o, name, "c-loop-1", 1, "seconds", c1, NAN, NULL);
  if (!o->json) {
    printf("%-10s %9zu %7d %12.2f %12.2f %12.2f %8.2f  %s\n", name, n, threads, rt * 1e6,
           cl * 1e6, c1 * 1e6, rt / best, rt / best <= 3 ? "ok" : "MISS");
    fflush(stdout);
  }
  return 0;
}

int air_bench_elementwise(int argc, char** argv) {
  uint32_t dispatch_flags = abp_take_no_compile(&argc, argv);
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o,
                    "  cases: sample (samples/vector_add.mlir), 4K, 64K, 1M, 4M (f32 elements):\n"
                    "  c = a + b through herd code vs a C loop. --threads N (default 2),\n"
                    "  --reps N (default 7). --no-compile: interpret (AIR_DISPATCH_INTERPRET).\n");
  if (rc >= 0) return rc;
  int threads = o.threads ? o.threads : 2;
  if (threads > 64) threads = 64;
  int reps = o.reps ? o.reps : o.quick ? 1 : 7;
  if (reps > 16) reps = 16;
  static const struct {
    const char* name;
    size_t n;
  } k_cases[] = {{"sample", 0}, {"4K", 4096}, {"64K", 65536}, {"1M", 1u << 20}, {"4M", 4u << 20}};
  abp_code_t code;
  if (abp_code_probe(o.bench, dispatch_flags, &code)) return 1;
  if (!o.json) {
    char load[64];
    abp_loadavg(load, sizeof load);
    printf("elementwise: c = a + b (f32) through herd code vs a C loop, median of %d rounds "
           "x %d runs back to back; %s; load average %s\n%-10s %9s %7s %12s %12s %12s %8s  %s\n",
           reps, (int)BATCH, code.line, load, "case", "n", "threads", "airrt us", "c-loop us", "1 thr us", "ratio",
           "target <= 3");
  }
  rc = 0;
  for (int i = 0; i < 5 && !rc; ++i) {
    if (!ab_want(&o, k_cases[i].name) || (o.quick && k_cases[i].n > 65536)) continue;
    rc = run_case(&o, k_cases[i].name, k_cases[i].n, threads, reps, dispatch_flags);
  }
  return rc;
}

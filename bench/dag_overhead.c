/* dag_overhead.c - the dag-overhead benchmark (PERFORMANCE.md, TOOLS.md): the three
 * generated graphs (chain, indep, layered) run by every runtime at 1 and 2 threads:
 *   floor  - single-thread topological walk with atomic counters (dag_floor.c);
 *   airrt  - libairrt's compiled schedule: the graph partitioned once and replayed
 *            level by level on the calling thread plus helpers (dag_airrt.c);
 *   airrt-pool - libairrt's pool-level dependency-counting executor (dag_airrt.c),
 *            the baseline before the compiled schedule;
 *   tbb    - oneTBB flow graph (dag_tbb.cpp, when CMake found TBB);
 *   gomp   - OpenMP task depend, libgomp (dag_omp.c built with the C compiler);
 *   libomp - the same source built with clang against libomp, run as the child
 *            process air-bench-dag-libomp (so two OpenMP runtimes never share a
 *            process).
 * Figures are medians of --reps timed repetitions (after one untimed warm-up rep
 * that also checks every task ran after all its parents); every rep checks every
 * task ran exactly once. A failed check prints FAIL and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag_gen.h"
#include "tool_util.h"

#ifndef AIR_BENCH_VERSION
#define AIR_BENCH_VERSION "0.1"
#endif

enum { R_FLOOR, R_AIRRT, R_AIRRT_POOL, R_TBB, R_GOMP, R_LIBOMP, R_COUNT };
static const char* const kRuntime[R_COUNT] = {"floor", "airrt", "airrt-pool", "tbb", "gomp",
                                              "libomp"};
/* JSON keeps runtime "airrt" for both libairrt rows; the variant tells them apart. */
static const char* const kJsonRuntime[R_COUNT] = {"floor", "airrt", "airrt", "tbb", "gomp",
                                                  "libomp"};

typedef struct {
  int json;
  int reps;
  int failed;
} opts_t;

static void usage(FILE* f, const char* argv0) {
  fprintf(f,
          "usage: %s [--json] [--threads N] [--reps N] [--case chain|indep|layered]\n"
          "  Task-graph overhead: build (compile) and replay ns/task of libairrt's compiled\n"
          "  schedule and its pool-level executor beside oneTBB flow graph, OpenMP task\n"
          "  depend (libgomp, libomp) and the single-thread floor, at 1 and 2 threads\n"
          "  unless --threads is given.\n",
          argv0);
}

static void emit(const opts_t* o, const char* cas, const char* rt, unsigned threads,
                 const char* metric, double v, const char* variant) {
  if (!o->json || v < 0) return;
  printf("{\"bench\":\"dag-overhead\",\"case\":\"%s\",\"runtime\":\"%s\",\"threads\":%u,"
         "\"metric\":\"%s\",\"value\":%.4g",
         cas, rt, threads, metric, v);
  if (variant) printf(",\"variant\":\"%s\"", variant);
  printf("}\n");
  fflush(stdout);
}

/* Runs the libomp helper; 0 ok, -1 check failed, 1 not available. */
static int run_libomp(const dag_t* g, unsigned threads, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  const char* helper = getenv("AIR_BENCH_LIBOMP");
#ifdef AIR_BENCH_LIBOMP_HELPER
  if (!helper) helper = AIR_BENCH_LIBOMP_HELPER;
#endif
  if (!helper || !*helper) return 1;
  FILE* probe = fopen(helper, "rb");
  if (!probe) return 1;
  fclose(probe);
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "'%s' %s %u %d", helper, g->name, threads, reps);
  fflush(stdout);
  FILE* p = popen(cmd, "r");
  if (!p) return 1;
  char line[256];
  int rc = -1;
  while (fgets(line, sizeof(line), p)) {
    double v;
    if (sscanf(line, "libomp total_ns_per_task %lf", &v) == 1) {
      out->replay_ns = v;
      rc = 0;
    }
  }
  int st = pclose(p);
  return st == 0 ? rc : -1;
}

static const char* runtime_name(int rt) {
#ifdef AIR_BENCH_HAVE_OPENMP
  if (rt == R_GOMP) return dag_omp_runtime_name();
#endif
  return kRuntime[rt];
}

static int run_one(int rt, const dag_t* g, unsigned threads, int reps, dag_result_t* r) {
  switch (rt) {
    case R_FLOOR: return dag_run_floor(g, reps, r);
    case R_AIRRT: return dag_run_airrt(g, threads, reps, r);
    case R_AIRRT_POOL: return dag_run_airrt_pool(g, threads, reps, r);
#ifdef AIR_BENCH_HAVE_TBB
    case R_TBB: return dag_run_tbb(g, threads, reps, r);
#endif
#ifdef AIR_BENCH_HAVE_OPENMP
    case R_GOMP: return dag_run_omp(g, threads, reps, r);
#endif
    case R_LIBOMP: return run_libomp(g, threads, reps, r);
    default: r->build_ns = r->replay_ns = -1; return 1;
  }
}

static void cell(double v) {
  if (v < 0)
    printf(" %9s", "-");
  else
    printf(" %9.1f", v);
}

static void ratio(double v, double base) {
  if (v < 0 || base <= 0)
    printf(" %8s", "-");
  else
    printf(" %8.2f", v / base);
}

static void run_case(opts_t* o, dag_kind_t kind, const unsigned* threads, int nthreads) {
  dag_t g;
  if (dag_generate(kind, &g) != 0) {
    fprintf(stderr, "dag-overhead: out of memory generating %s\n", dag_kind_name(kind));
    o->failed = 1;
    return;
  }
  if (!o->json)
    printf("\n%s: %u tasks, %u edges\n  %-10s %3s %9s %9s %8s %8s\n", g.name, g.n, g.edges,
           "runtime", "thr", "build", "replay", "/tbb", "/floor");
  dag_result_t floor_r;
  int frc = dag_run_floor(&g, o->reps, &floor_r);
  if (frc != 0) {
    printf("FAIL: dag-overhead %s floor: a task did not run exactly once after its parents\n",
           g.name);
    o->failed = 1;
  }
  emit(o, g.name, "floor", 1, "replay_ns_per_task", floor_r.replay_ns, NULL);
  if (!o->json) {
    printf("  %-10s %3u", "floor", 1u);
    cell(floor_r.build_ns);
    cell(floor_r.replay_ns);
    printf(" %8s", "-");
    ratio(floor_r.replay_ns, floor_r.replay_ns);
    printf("\n");
  }
  for (int t = 0; t < nthreads; ++t) {
    dag_result_t res[R_COUNT];
    int rc[R_COUNT];
    for (int rt = R_AIRRT; rt < R_COUNT; ++rt) {
      rc[rt] = run_one(rt, &g, threads[t], o->reps, &res[rt]);
      if (rc[rt] < 0) {
        printf("FAIL: dag-overhead %s %s threads=%u: a task did not run exactly once after "
               "its parents\n",
               g.name, runtime_name(rt), threads[t]);
        o->failed = 1;
      }
    }
    double tbb = rc[R_TBB] == 0 ? res[R_TBB].replay_ns : -1;
    double tbb_total = rc[R_TBB] == 0 ? res[R_TBB].build_ns + res[R_TBB].replay_ns : -1;
    for (int rt = R_AIRRT; rt < R_COUNT; ++rt) {
      int omp = rt == R_GOMP || rt == R_LIBOMP;
      if (rc[rt] > 0 && rt == R_LIBOMP && strcmp(runtime_name(R_GOMP), "libomp") == 0)
        continue; /* built with clang: the in-process OpenMP row is libomp already */
      if (rc[rt] != 0) {
        if (!o->json)
          printf("  %-10s %3u   %s\n", runtime_name(rt), threads[t],
                 rc[rt] > 0 ? "(not built / not available)" : "FAIL");
        continue;
      }
      const char* variant = rt == R_AIRRT        ? "compiled-replay"
                            : rt == R_AIRRT_POOL ? "pool-executor"
                            : omp                ? "total"
                                                 : NULL;
      const char* jrt = rt == R_GOMP ? runtime_name(rt) : kJsonRuntime[rt];
      emit(o, g.name, jrt, threads[t], "build_ns_per_task", res[rt].build_ns, variant);
      emit(o, g.name, jrt, threads[t], "replay_ns_per_task", res[rt].replay_ns, variant);
      if (o->json) continue;
      printf("  %-10s %3u", runtime_name(rt), threads[t]);
      if (omp) {
        /* No replay in OpenMP: the total against TBB's build + replay. */
        printf(" %9s", "total");
        cell(res[rt].replay_ns);
        ratio(res[rt].replay_ns, tbb_total);
      } else {
        cell(res[rt].build_ns);
        cell(res[rt].replay_ns);
        ratio(res[rt].replay_ns, tbb);
      }
      ratio(res[rt].replay_ns, floor_r.replay_ns);
      printf("\n");
    }
  }
  dag_free(&g);
}

int air_bench_dag_overhead(int argc, char** argv) {
  opts_t o = {0, 3, 0};
  unsigned threads[2] = {1, 2};
  int nthreads = 2;
  int only = -1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--json") == 0) {
      o.json = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout, argv[0]);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("air-bench dag-overhead %s\n", AIR_BENCH_VERSION);
      return 0;
    } else if ((strcmp(a, "--threads") == 0 || strcmp(a, "--reps") == 0) && i + 1 < argc) {
      char* end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 1024) {
        return tool_error(TOOL_EXIT_USAGE, "air-bench dag-overhead",
                          "%s wants an integer in [1, 1024], got '%s'", a, argv[i]);
      }
      if (a[2] == 't') {
        threads[0] = (unsigned)v;
        nthreads = 1;
      } else {
        o.reps = (int)v;
      }
    } else if (strcmp(a, "--case") == 0 && i + 1 < argc) {
      ++i;
      for (int k = 0; k < DAG_KIND_COUNT; ++k)
        if (strcmp(argv[i], dag_kind_name((dag_kind_t)k)) == 0) only = k;
      if (only < 0) {
        return tool_error(TOOL_EXIT_USAGE, "air-bench dag-overhead",
                          "unknown case '%s' (chain, indep, layered)", argv[i]);
      }
    } else {
      tool_error(0, "air-bench dag-overhead", "unknown or incomplete option: %s", a);
      usage(stderr, argv[0]);
      return TOOL_EXIT_USAGE;
    }
  }
  if (!o.json)
    printf("dag-overhead: ns per task, median of %d reps (after a checked warm-up rep).\n"
           "airrt = compiled schedule (build = partition + replay plan, replay = level-\n"
           "synchronous run); airrt-pool = dependency counting on the CPU driver's pool.\n"
           "OpenMP cannot replay: its row is build+run ('total'), compared with TBB\n"
           "build+replay. Shared 2-core VM: compare ratios, not absolutes.\n",
           o.reps);
  for (int k = 0; k < DAG_KIND_COUNT; ++k)
    if (only < 0 || only == k) run_case(&o, (dag_kind_t)k, threads, nthreads);
  if (o.failed) {
    printf("FAIL\n");
    return 1;
  }
  return 0;
}

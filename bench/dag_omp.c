/* dag_omp.c - the OpenMP anchor: `task depend` over the same graph. Every task
 * carries depend(in:) on each parent's dependency object and depend(out:) on its
 * own; one thread of the team creates all tasks in topological (id) order. OpenMP
 * tasks cannot be replayed, so the figure is build + run in one ("total").
 *
 * The same source is built twice: with gcc -fopenmp (libgomp, linked into the
 * benchmark) and with clang -fopenmp (libomp) as the helper executable
 * air-bench-dag-libomp (DAG_OMP_MAIN), run as a child process so two OpenMP
 * runtimes never share one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag_gen.h"

const char* dag_omp_runtime_name(void) {
#if defined(__clang__)
  return "libomp";
#else
  return "gomp";
#endif
}

static int run_once(const dag_t* g, dag_ctx_t* c, char* d, unsigned threads) {
  int bad = 0;
  const uint32_t* po = g->par_off;
  const uint32_t* pa = g->par;
#pragma omp parallel num_threads(threads)
#pragma omp single
  {
    for (uint32_t i = 0; i < g->n; ++i) {
      const uint32_t* p = pa + po[i];
      switch (po[i + 1] - po[i]) {
        case 0:
#pragma omp task firstprivate(i) depend(out : d[i])
          dag_body(c, i);
          break;
        case 1:
#pragma omp task firstprivate(i) depend(in : d[p[0]]) depend(out : d[i])
          dag_body(c, i);
          break;
        case 2:
#pragma omp task firstprivate(i) depend(in : d[p[0]], d[p[1]]) depend(out : d[i])
          dag_body(c, i);
          break;
        case 3:
#pragma omp task firstprivate(i) depend(in : d[p[0]], d[p[1]], d[p[2]]) depend(out : d[i])
          dag_body(c, i);
          break;
        case 4:
#pragma omp task firstprivate(i) depend(in : d[p[0]], d[p[1]], d[p[2]], d[p[3]]) \
    depend(out : d[i])
          dag_body(c, i);
          break;
        default:
          bad = 1; /* the generator never makes more than 4 parents */
          break;
      }
    }
  }
  return bad ? -1 : 0;
}

int dag_run_omp(const dag_t* g, unsigned threads, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  if (g->max_parents > 4) return -1;
  dag_ctx_t c;
  if (dag_ctx_init(&c, g) != 0) return -1;
  char* d = calloc(g->n, 1);
  double* t = malloc((size_t)(reps + 1) * sizeof(double));
  int rc = d && t ? 0 : -1;
  for (int r = -1; r < reps && rc == 0; ++r) {
    dag_ctx_begin(&c, r < 0);
    double t0 = dag_now_ns();
    if (run_once(g, &c, d, threads) != 0) rc = -1;
    double t1 = dag_now_ns();
    if (dag_ctx_end(&c) != 0) rc = -1;
    if (r >= 0) t[r] = (t1 - t0) / g->n;
  }
  if (rc == 0) out->replay_ns = dag_median(t, reps);
  free(d);
  free(t);
  dag_ctx_free(&c);
  return rc;
}

#ifdef DAG_OMP_MAIN
/* air-bench-dag-libomp CASE THREADS REPS: prints "total_ns_per_task VALUE" or
 * "FAIL"; exit 0 / 1. The parent benchmark parses it. */
int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s chain|indep|layered THREADS REPS\n", argv[0]);
    return 2;
  }
  int kind = -1;
  for (int k = 0; k < DAG_KIND_COUNT; ++k)
    if (strcmp(argv[1], dag_kind_name((dag_kind_t)k)) == 0) kind = k;
  int threads = atoi(argv[2]), reps = atoi(argv[3]);
  if (kind < 0 || threads < 1 || reps < 1) {
    fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  dag_t g;
  if (dag_generate((dag_kind_t)kind, &g) != 0) return 1;
  dag_result_t res;
  int rc = dag_run_omp(&g, (unsigned)threads, reps, &res);
  dag_free(&g);
  if (rc != 0) {
    printf("FAIL\n");
    return 1;
  }
  printf("%s total_ns_per_task %.3f\n", dag_omp_runtime_name(), res.replay_ns);
  return 0;
}
#endif

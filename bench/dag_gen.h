/* dag_gen.h - the dag-overhead benchmark's task graphs (PERFORMANCE.md), generated
 * exactly as specified so figures compare across runtimes and runs:
 *   chain   : 1M tasks, task i depends on i-1;
 *   indep   : 1M tasks, no edges;
 *   layered : 100 layers x 1000 tasks; each task of layer l > 0 has 4 DISTINCT
 *             parents drawn uniformly from layer l-1 with splitmix64 seeded 42
 *             (draw = next() % 1000, redrawn on a duplicate, tasks in id order).
 * Task ids are a topological order. Both directions are kept as CSR arrays.
 *
 * Also the shared task body (one relaxed atomic increment of the task's run count)
 * and the correctness check every runtime uses. Written so C11 (gcc, clang) and the
 * C++ TBB anchor include the same header: the atomics are the GCC/clang __atomic
 * builtins on plain integers. */
#ifndef AIR_BENCH_DAG_GEN_H_
#define AIR_BENCH_DAG_GEN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DAG_CHAIN = 0, DAG_INDEP = 1, DAG_LAYERED = 2, DAG_KIND_COUNT = 3 } dag_kind_t;

typedef struct dag_t {
  dag_kind_t kind;
  const char* name;    /* "chain", "indep", "layered" */
  uint32_t n;          /* tasks */
  uint32_t edges;
  uint32_t max_parents;
  uint32_t* par_off;   /* n + 1: parents of i are par[par_off[i] .. par_off[i+1]) */
  uint32_t* par;
  uint32_t* kid_off;   /* n + 1: children of i are kid[kid_off[i] .. kid_off[i+1]) */
  uint32_t* kid;
  uint32_t nsources;   /* tasks without parents, ascending */
  uint32_t* sources;
} dag_t;

const char* dag_kind_name(dag_kind_t kind);
/* Returns 0 on success, -1 when out of memory. */
int dag_generate(dag_kind_t kind, dag_t* out);
void dag_free(dag_t* g);

/* The splitmix64 step the generator uses. */
uint64_t dag_splitmix64(uint64_t* state);

/* Run bookkeeping shared by every runtime: ran[i] counts the runs of task i. Before
 * rep r (0-based) every ran[i] == r; after it every ran[i] must be r + 1. In a
 * checking rep (the untimed warm-up), each body also verifies that all its parents
 * have already run in this rep. */
typedef struct dag_ctx_t {
  const dag_t* g;
  uint32_t* ran;    /* n run counters, accessed atomically */
  uint32_t epoch;   /* completed reps */
  int check;        /* verify parents inside the body */
  int bad;          /* set when a body saw a parent that had not run */
} dag_ctx_t;

int dag_ctx_init(dag_ctx_t* c, const dag_t* g);
void dag_ctx_free(dag_ctx_t* c);
/* Starts a rep: sets `check` for this rep and clears `bad`. */
void dag_ctx_begin(dag_ctx_t* c, int check);
/* Ends a rep: returns 0 when every task ran exactly once in it (and, in a
 * checking rep, after all its parents), -1 otherwise; advances the epoch. */
int dag_ctx_end(dag_ctx_t* c);

/* The empty task body: one relaxed atomic increment (plus the parent check in a
 * checking rep). */
static inline void dag_body(dag_ctx_t* c, uint32_t i) {
  if (__builtin_expect(c->check, 0)) {
    const dag_t* g = c->g;
    for (uint32_t k = g->par_off[i]; k < g->par_off[i + 1]; ++k)
      if (__atomic_load_n(&c->ran[g->par[k]], __ATOMIC_RELAXED) != c->epoch + 1)
        __atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&c->ran[i], 1u, __ATOMIC_RELAXED);
}

/* Monotonic clock in nanoseconds. */
double dag_now_ns(void);

/* The runtimes. Each returns 0 on success and -1 on a failed correctness check or
 * setup failure; times are nanoseconds per task, -1 where not applicable.
 * `reps` timed repetitions follow one untimed checking rep; the reported figure is
 * the median. */
typedef struct dag_result_t {
  double build_ns;   /* per task; -1 = not measured */
  double replay_ns;  /* per task; for OpenMP: build + run in one ("total") */
} dag_result_t;

int dag_run_floor(const dag_t* g, int reps, dag_result_t* out);
/* libairrt's compiled schedule (partition + replay), and the pool-level executor. */
int dag_run_airrt(const dag_t* g, unsigned threads, int reps, dag_result_t* out);
int dag_run_airrt_pool(const dag_t* g, unsigned threads, int reps, dag_result_t* out);
int dag_run_omp(const dag_t* g, unsigned threads, int reps, dag_result_t* out);
/* "gomp" or "libomp": the OpenMP runtime dag_omp.c was compiled against. */
const char* dag_omp_runtime_name(void);
int dag_run_tbb(const dag_t* g, unsigned threads, int reps, dag_result_t* out);

double dag_median(double* v, int n);

#ifdef __cplusplus
}
#endif
#endif /* AIR_BENCH_DAG_GEN_H_ */

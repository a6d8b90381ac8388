/* dag_gen.c - the dag-overhead task graphs and run bookkeeping (see dag_gen.h). */
#define _POSIX_C_SOURCE 200809L
#include "dag_gen.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CHAIN_TASKS = 1000000, INDEP_TASKS = 1000000, LAYERS = 100, LAYER_WIDTH = 1000,
       LAYER_PARENTS = 4 };

uint64_t dag_splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const char* dag_kind_name(dag_kind_t kind) {
  switch (kind) {
    case DAG_CHAIN: return "chain";
    case DAG_INDEP: return "indep";
    case DAG_LAYERED: return "layered";
    default: return "?";
  }
}

void dag_free(dag_t* g) {
  free(g->par_off);
  free(g->par);
  free(g->kid_off);
  free(g->kid);
  free(g->sources);
  memset(g, 0, sizeof(*g));
}

int dag_generate(dag_kind_t kind, dag_t* g) {
  memset(g, 0, sizeof(*g));
  g->kind = kind;
  g->name = dag_kind_name(kind);
  uint32_t n = kind == DAG_CHAIN ? CHAIN_TASKS : kind == DAG_INDEP ? INDEP_TASKS
                                                                   : LAYERS * LAYER_WIDTH;
  uint32_t edges = kind == DAG_CHAIN ? n - 1
                   : kind == DAG_INDEP ? 0
                                       : (LAYERS - 1) * LAYER_WIDTH * LAYER_PARENTS;
  g->n = n;
  g->edges = edges;
  g->par_off = calloc((size_t)n + 1, sizeof(uint32_t));
  g->kid_off = calloc((size_t)n + 1, sizeof(uint32_t));
  g->par = malloc(((size_t)edges + 1) * sizeof(uint32_t));
  g->kid = malloc(((size_t)edges + 1) * sizeof(uint32_t));
  g->sources = malloc((size_t)n * sizeof(uint32_t));
  if (!g->par_off || !g->kid_off || !g->par || !g->kid || !g->sources) {
    dag_free(g);
    return -1;
  }
  /* Parents, in task order (the generator's definition). */
  uint64_t rng = 42;
  uint32_t e = 0;
  for (uint32_t i = 0; i < n; ++i) {
    g->par_off[i] = e;
    if (kind == DAG_CHAIN) {
      if (i > 0) g->par[e++] = i - 1;
    } else if (kind == DAG_LAYERED) {
      uint32_t layer = i / LAYER_WIDTH;
      if (layer > 0) {
        uint32_t base = (layer - 1) * LAYER_WIDTH;
        uint32_t first = e;
        while (e - first < LAYER_PARENTS) {
          uint32_t p = base + (uint32_t)(dag_splitmix64(&rng) % LAYER_WIDTH);
          int dup = 0;
          for (uint32_t k = first; k < e; ++k) dup |= g->par[k] == p;
          if (!dup) g->par[e++] = p;
        }
      }
    }
    uint32_t np = e - g->par_off[i];
    if (np > g->max_parents) g->max_parents = np;
    if (np == 0) g->sources[g->nsources++] = i;
  }
  g->par_off[n] = e;
  /* Children: transpose of the parent lists (children ascending). */
  for (uint32_t k = 0; k < e; ++k) g->kid_off[g->par[k] + 1]++;
  for (uint32_t i = 0; i < n; ++i) g->kid_off[i + 1] += g->kid_off[i];
  uint32_t* fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
  if (!fill) {
    dag_free(g);
    return -1;
  }
  memcpy(fill, g->kid_off, ((size_t)n + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = g->par_off[i]; k < g->par_off[i + 1]; ++k) g->kid[fill[g->par[k]]++] = i;
  free(fill);
  return 0;
}

int dag_ctx_init(dag_ctx_t* c, const dag_t* g) {
  memset(c, 0, sizeof(*c));
  c->g = g;
  c->ran = calloc(g->n, sizeof(uint32_t));
  return c->ran ? 0 : -1;
}

void dag_ctx_free(dag_ctx_t* c) {
  free(c->ran);
  c->ran = NULL;
}

void dag_ctx_begin(dag_ctx_t* c, int check) {
  c->check = check;
  __atomic_store_n(&c->bad, 0, __ATOMIC_RELAXED);
}

int dag_ctx_end(dag_ctx_t* c) {
  int ok = !__atomic_load_n(&c->bad, __ATOMIC_ACQUIRE);
  uint32_t want = c->epoch + 1;
  for (uint32_t i = 0; i < c->g->n; ++i)
    if (__atomic_load_n(&c->ran[i], __ATOMIC_ACQUIRE) != want) ok = 0;
  c->epoch = want;
  c->check = 0;
  return ok ? 0 : -1;
}

double dag_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

double dag_median(double* v, int n) {
  if (n <= 0) return -1;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

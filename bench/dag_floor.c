/* dag_floor.c - the single-thread floor (PERFORMANCE.md): a topological walk with
 * atomic dependency counters and a FIFO ready list, no threads. Replay = reset the
 * counters from the in-degrees and walk: what any dependency-counting executor must
 * at least do, without any hand-over between threads. */
#include <stdlib.h>
#include <string.h>

#include "dag_gen.h"

static void walk(const dag_t* g, dag_ctx_t* c, uint32_t* remaining, const uint32_t* indeg,
                 uint32_t* ready) {
  memcpy(remaining, indeg, (size_t)g->n * sizeof(uint32_t));
  uint32_t head = 0, tail = 0;
  for (uint32_t s = 0; s < g->nsources; ++s) ready[tail++] = g->sources[s];
  while (head < tail) {
    uint32_t i = ready[head++];
    dag_body(c, i);
    for (uint32_t k = g->kid_off[i]; k < g->kid_off[i + 1]; ++k) {
      uint32_t child = g->kid[k];
      if (__atomic_sub_fetch(&remaining[child], 1u, __ATOMIC_ACQ_REL) == 0) ready[tail++] = child;
    }
  }
}

int dag_run_floor(const dag_t* g, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  dag_ctx_t c;
  uint32_t* remaining = malloc((size_t)g->n * sizeof(uint32_t));
  uint32_t* indeg = malloc((size_t)g->n * sizeof(uint32_t));
  uint32_t* ready = malloc((size_t)g->n * sizeof(uint32_t));
  double* t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof(double));
  int rc = -1;
  if (!remaining || !indeg || !ready || !t || dag_ctx_init(&c, g) != 0) goto done;
  for (uint32_t i = 0; i < g->n; ++i) indeg[i] = g->par_off[i + 1] - g->par_off[i];
  rc = 0;
  for (int r = -1; r < reps && rc == 0; ++r) {
    dag_ctx_begin(&c, r < 0);
    double t0 = dag_now_ns();
    walk(g, &c, remaining, indeg, ready);
    double t1 = dag_now_ns();
    if (dag_ctx_end(&c) != 0) rc = -1;
    if (r >= 0) t[r] = (t1 - t0) / g->n;
  }
  if (rc == 0) out->replay_ns = dag_median(t, reps);
  dag_ctx_free(&c);
done:
  free(remaining);
  free(indeg);
  free(ready);
  free(t);
  return rc;
}

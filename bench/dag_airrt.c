/* dag_airrt.c - libairrt on a task graph, two ways:
 *
 *  airrt      - the compiled schedule: build = dag -> air_partition_graph_t (one
 *               queue) -> air_partition_build -> air_sched_replay_create (the
 *               "compile"); replay = air_sched_replay_run with the shared task body.
 *               Level-synchronous replay of the partition (bench/sched_replay.h).
 *  airrt-pool - the pool-level dependency-counting executor on the CPU driver's worker
 *               pool (air_pool_t), kept as the baseline the replay had to beat. Each
 *               task is a node holding an intrusive pool task and an atomic count of
 *               parents still to finish; a finished task decrements its children's
 *               counts and submits the ones that reach zero (one chain per finishing
 *               task). Build = allocate and initialise the nodes and counters from
 *               the CSR; replay = reset the counters, submit the sources, wait.
 *
 * Both run each rep as build, a first (checked on the warm-up rep) run, then the
 * timed replay. */
#define _POSIX_C_SOURCE 200809L
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dag_gen.h"
#include "hal/cpu/pool.h"
#include "sched_replay.h"
#include "scheduler/partition.h"

typedef struct exec_t exec_t;

typedef struct node_t {
  air_task_t task; /* first: the pool's intrusive node */
  exec_t* ex;
  uint32_t id;
  _Atomic uint32_t remaining;
} node_t;

/* Per-worker completion count, one cache line each so workers never share one. */
typedef struct {
  alignas(64) _Atomic uint64_t done;
} done_t;

struct exec_t {
  const dag_t* g;
  dag_ctx_t* ctx;
  air_pool_t* pool;
  node_t* nodes;
  done_t* done; /* one per worker */
  uint32_t workers;
};

static void run_node(air_task_t* task, uint32_t worker) {
  node_t* node = (node_t*)task;
  exec_t* ex = node->ex;
  const dag_t* g = ex->g;
  uint32_t i = node->id;
  dag_body(ex->ctx, i);
  air_task_t* first = NULL;
  air_task_t* last = NULL;
  uint32_t count = 0;
  for (uint32_t k = g->kid_off[i]; k < g->kid_off[i + 1]; ++k) {
    node_t* child = &ex->nodes[g->kid[k]];
    if (atomic_fetch_sub_explicit(&child->remaining, 1, memory_order_acq_rel) == 1) {
      child->task.next = NULL;
      if (last)
        last->next = &child->task;
      else
        first = &child->task;
      last = &child->task;
      ++count;
    }
  }
  if (count) air_pool_submit_chain(ex->pool, first, last, count);
  atomic_fetch_add_explicit(&ex->done[worker].done, 1, memory_order_release);
}

static uint64_t completed(const exec_t* ex) {
  uint64_t s = 0;
  for (uint32_t w = 0; w < ex->workers; ++w)
    s += atomic_load_explicit(&ex->done[w].done, memory_order_acquire);
  return s;
}

/* Build: the nodes and their counters from the CSR. */
static int build(exec_t* ex) {
  const dag_t* g = ex->g;
  ex->nodes = malloc((size_t)g->n * sizeof(node_t));
  if (!ex->nodes) return -1;
  for (uint32_t i = 0; i < g->n; ++i) {
    node_t* nd = &ex->nodes[i];
    nd->task.next = NULL;
    nd->task.fn = run_node;
    nd->ex = ex;
    nd->id = i;
    atomic_init(&nd->remaining, g->par_off[i + 1] - g->par_off[i]);
  }
  return 0;
}

/* Replay: reset counters (all but the first run), submit the sources, wait. */
static void replay(exec_t* ex, int reset) {
  const dag_t* g = ex->g;
  if (reset)
    for (uint32_t i = 0; i < g->n; ++i)
      atomic_store_explicit(&ex->nodes[i].remaining, g->par_off[i + 1] - g->par_off[i],
                            memory_order_relaxed);
  uint64_t target = completed(ex) + g->n;
  node_t* first = &ex->nodes[g->sources[0]];
  for (uint32_t s = 0; s + 1 < g->nsources; ++s)
    ex->nodes[g->sources[s]].task.next = &ex->nodes[g->sources[s + 1]].task;
  ex->nodes[g->sources[g->nsources - 1]].task.next = NULL;
  air_pool_submit_chain(ex->pool, &first->task, &ex->nodes[g->sources[g->nsources - 1]].task,
                        g->nsources);
  /* The caller is not a worker: it must not take a core from them, so it spins
   * briefly and then naps 20 us at a time (a few tens of us on a run of
   * milliseconds). */
  for (int spin = 0; completed(ex) < target; ++spin) {
    if (spin > 200) {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
}

int dag_run_airrt_pool(const dag_t* g, unsigned threads, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  exec_t ex;
  memset(&ex, 0, sizeof(ex));
  ex.g = g;
  dag_ctx_t c;
  if (dag_ctx_init(&c, g) != 0) return -1;
  ex.ctx = &c;
  int rc = -1;
  double* tb = malloc((size_t)(reps + 1) * sizeof(double));
  double* tr = malloc((size_t)(reps + 1) * sizeof(double));
  ex.workers = threads;
  ex.done = aligned_alloc(64, threads * sizeof(done_t));
  if (!tb || !tr || !ex.done) goto done;
  for (uint32_t w = 0; w < threads; ++w) atomic_init(&ex.done[w].done, 0);
  air_status_t st = air_pool_create(NULL, threads, &ex.pool);
  if (st != AIR_STATUS_OK_VALUE) {
    air_status_free(st);
    goto done;
  }
  rc = 0;
  /* Each rep builds the graph and then replays it twice: the first run after the
   * build pays no counter reset; the replay figure is the second run. */
  for (int r = -1; r < reps && rc == 0; ++r) {
    double t0 = dag_now_ns();
    if (build(&ex) != 0) {
      rc = -1;
      break;
    }
    double t1 = dag_now_ns();
    dag_ctx_begin(&c, r < 0);
    replay(&ex, 0);
    if (dag_ctx_end(&c) != 0) rc = -1;
    dag_ctx_begin(&c, 0);
    double t2 = dag_now_ns();
    replay(&ex, 1);
    double t3 = dag_now_ns();
    if (dag_ctx_end(&c) != 0) rc = -1;
    free(ex.nodes);
    ex.nodes = NULL;
    if (r >= 0) {
      tb[r] = (t1 - t0) / g->n;
      tr[r] = (t3 - t2) / g->n;
    }
  }
  if (getenv("AIR_BENCH_DAG_STATS")) {
    air_pool_stats_t ps;
    air_pool_stats(ex.pool, &ps);
    fprintf(stderr, "airrt pool %s threads=%u: tasks_run=%llu sleeps=%llu wakes=%llu\n", g->name,
            threads, (unsigned long long)ps.tasks_run, (unsigned long long)ps.sleeps,
            (unsigned long long)ps.wakes);
  }
  air_pool_destroy(ex.pool);
  if (rc == 0) {
    out->build_ns = dag_median(tb, reps);
    out->replay_ns = dag_median(tr, reps);
  }
done:
  free(tb);
  free(tr);
  free(ex.done);
  dag_ctx_free(&c);
  return rc;
}

/* ---- the compiled schedule ---- */

static void replay_body(void* user, uint32_t node, uint32_t worker) {
  (void)worker;
  dag_body(user, node);
}

/* Compile: partition the graph (one queue) and build the replay plan. `part_ns`
 * receives the time the partition took (the rest is the plan and the helpers). */
static int compile(const dag_t* g, unsigned threads, air_sched_replay_t** out,
                   double* part_ns) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  air_partition_graph_t pg = {.n = g->n, .pred_off = g->par_off, .pred = g->par,
                              .queue = NULL, .n_queues = 1, .group = NULL};
  air_partition_t* P = NULL;
  double t0 = dag_now_ns();
  air_status_t st = air_partition_build(&a, &pg, &P);
  *part_ns = dag_now_ns() - t0;
  if (!st) {
    air_sched_replay_options_t o = {.threads = threads};
    st = air_sched_replay_create(&a, P, &o, out);
  }
  air_partition_free(P);
  if (st) {
    fprintf(stderr, "airrt compile: %s\n", air_status_message(st));
    air_status_free(st);
    return -1;
  }
  return 0;
}

static int run_replay(air_sched_replay_t* r, dag_ctx_t* c) {
  air_status_t st = air_sched_replay_run(r, replay_body, c);
  if (!st) return 0;
  fprintf(stderr, "airrt replay: %s\n", air_status_message(st));
  air_status_free(st);
  return -1;
}

int dag_run_airrt(const dag_t* g, unsigned threads, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  dag_ctx_t c;
  if (dag_ctx_init(&c, g) != 0) return -1;
  double* tb = malloc((size_t)(reps + 1) * sizeof(double));
  double* tr = malloc((size_t)(reps + 1) * sizeof(double));
  int rc = tb && tr ? 0 : -1;
  for (int r = -1; r < reps && rc == 0; ++r) {
    air_sched_replay_t* rp = NULL;
    double part_ns = 0;
    double t0 = dag_now_ns();
    if (compile(g, threads, &rp, &part_ns) != 0) {
      rc = -1;
      break;
    }
    double t1 = dag_now_ns();
    dag_ctx_begin(&c, r < 0);
    if (run_replay(rp, &c) != 0 || dag_ctx_end(&c) != 0) rc = -1;
    dag_ctx_begin(&c, 0);
    double t2 = dag_now_ns();
    if (run_replay(rp, &c) != 0) rc = -1;
    double t3 = dag_now_ns();
    if (dag_ctx_end(&c) != 0) rc = -1;
    if (getenv("AIR_BENCH_DAG_STATS")) {
      air_sched_replay_stats_t s;
      air_sched_replay_stats(rp, &s);
      fprintf(stderr,
              "airrt replay %s threads=%u: build %.1f ns/task of which partition %.1f; "
              "chunks=%u parallel_levels=%u serial_cmds=%llu helper_chunks=%llu "
              "helper_sleeps=%llu\n",
              g->name, threads, (t1 - t0) / g->n, part_ns / g->n, s.chunks, s.parallel_levels, (unsigned long long)s.serial_cmds,
              (unsigned long long)s.helper_chunks, (unsigned long long)s.helper_sleeps);
    }
    air_sched_replay_destroy(rp);
    if (r >= 0) {
      tb[r] = (t1 - t0) / g->n;
      tr[r] = (t3 - t2) / g->n;
    }
  }
  if (rc == 0) {
    out->build_ns = dag_median(tb, reps);
    out->replay_ns = dag_median(tr, reps);
  }
  free(tb);
  free(tr);
  dag_ctx_free(&c);
  return rc;
}

/* test_partition.c - the token-graph partitioner (src/scheduler/partition.c).
 *
 * Random graphs are checked against an independent model: the waves and the kept
 * waits form a graph (a wave follows its queue's previous wave and every wave its
 * waits name); every input edge must be a path in that graph (or lie inside one
 * ordered group wave), and no kept wait may be implied by the rest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"

#include "scheduler/partition.h"

typedef struct graph_t {
  uint32_t n, nq;
  uint32_t *off, *pred, *queue, *group;
} graph_t;

static uint64_t rnd(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void graph_free(graph_t* g) {
  free(g->off);
  free(g->pred);
  free(g->queue);
  free(g->group);
}

/* n nodes, each with up to `fan` distinct earlier predecessors within `window`. */
static graph_t random_graph(uint64_t seed, uint32_t n, uint32_t nq, uint32_t fan,
                            uint32_t window, uint32_t n_groups) {
  graph_t g = {.n = n, .nq = nq};
  g.off = calloc(n + 1, sizeof(uint32_t));
  g.pred = calloc((size_t)n * fan + 1, sizeof(uint32_t));
  g.queue = calloc(n, sizeof(uint32_t));
  g.group = n_groups ? calloc(n, sizeof(uint32_t)) : NULL;
  uint64_t s = seed;
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    g.off[i] = m;
    uint32_t k = i ? (uint32_t)(rnd(&s) % (fan + 1)) : 0;
    for (uint32_t j = 0; j < k; ++j) {
      uint32_t lo = i > window ? i - window : 0;
      uint32_t p = lo + (uint32_t)(rnd(&s) % (i - lo));
      bool dup = false;
      for (uint32_t x = g.off[i]; x < m; ++x) dup |= g.pred[x] == p;
      if (!dup) g.pred[m++] = p;
    }
    g.queue[i] = (uint32_t)(rnd(&s) % nq);
    if (g.group) g.group[i] = rnd(&s) % 8 == 0 ? (uint32_t)(rnd(&s) % n_groups) : AIR_PARTITION_NO_GROUP;
  }
  g.off[n] = m;
  return g;
}

static air_partition_graph_t view(const graph_t* g) {
  return (air_partition_graph_t){.n = g->n, .pred_off = g->off, .pred = g->pred,
                                 .queue = g->queue, .n_queues = g->nq, .group = g->group};
}

static air_allocator_t heap(void) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  return a;
}

/* Wave graph reachability: reach[x * nw + y] = wave y starts after wave x ends. */
static uint8_t* wave_reach(const air_partition_t* P, int64_t skip_wait) {
  uint32_t nw = P->n_waves;
  uint8_t* r = calloc((size_t)nw * nw, 1);
  /* Direct predecessors of each wave, then closure in level order (waves' levels
   * strictly increase along edges). */
  uint32_t* order = malloc(nw * sizeof(uint32_t));
  for (uint32_t i = 0; i < nw; ++i) order[i] = i;
  for (uint32_t i = 1; i < nw; ++i)
    for (uint32_t j = i; j > 0 && P->waves[order[j - 1]].level > P->waves[order[j]].level; --j) {
      uint32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (uint32_t oi = 0; oi < nw; ++oi) {
    uint32_t w = order[oi];
    const air_partition_wave_t* wv = &P->waves[w];
    uint32_t q = wv->queue;
    if (w > P->queues[q].wave_begin) {
      uint32_t p = w - 1;
      r[(size_t)p * nw + w] = 1;
      for (uint32_t x = 0; x < nw; ++x)
        if (r[(size_t)x * nw + p]) r[(size_t)x * nw + w] = 1;
    }
    for (uint32_t k = wv->wait_begin; k < wv->wait_end; ++k) {
      if ((int64_t)k == skip_wait) continue;
      const air_partition_wait_t* wt = &P->waits[k];
      uint32_t p = P->queues[wt->queue].wave_begin + wt->value - 1;
      r[(size_t)p * nw + w] = 1;
      for (uint32_t x = 0; x < nw; ++x)
        if (r[(size_t)x * nw + p]) r[(size_t)x * nw + w] = 1;
    }
  }
  free(order);
  return r;
}

static void check_partition(const graph_t* g, const air_partition_t* P) {
  uint32_t nw = P->n_waves;
  /* Every node in exactly one wave, on its queue. */
  uint32_t* seen = calloc(g->n, sizeof(uint32_t));
  for (uint32_t q = 0; q < P->n_queues; ++q)
    for (uint32_t w = P->queues[q].wave_begin; w < P->queues[q].wave_end; ++w) {
      assert_int_equal(P->waves[w].queue, q);
      if (w > P->queues[q].wave_begin) assert_true(P->waves[w].level > P->waves[w - 1].level);
      for (uint32_t c = P->waves[w].cmd_begin; c < P->waves[w].cmd_end; ++c) {
        uint32_t i = P->cmds[c];
        seen[i]++;
        assert_int_equal(P->node_wave[i], w);
        assert_int_equal(P->node_queue[i], q);
      }
    }
  for (uint32_t i = 0; i < g->n; ++i) assert_int_equal(seen[i], 1);
  free(seen);
  /* Groups share a wave. */
  for (uint32_t i = 0; g->group && i < g->n; ++i)
    for (uint32_t j = i + 1; j < g->n; ++j)
      if (g->group[i] != AIR_PARTITION_NO_GROUP && g->group[i] == g->group[j])
        assert_int_equal(P->node_wave[i], P->node_wave[j]);
  uint8_t* r = wave_reach(P, -1);
  for (uint32_t i = 0; i < g->n; ++i)
    for (uint32_t k = g->off[i]; k < g->off[i + 1]; ++k) {
      uint32_t p = g->pred[k], wp = P->node_wave[p], wi = P->node_wave[i];
      if (wp == wi) {
        assert_true(P->waves[wi].ordered);
      } else {
        assert_true(r[(size_t)wp * nw + wi]);
        assert_true(air_partition_orders(P, p, i));
      }
    }
  /* air_partition_orders agrees with the model on random pairs. */
  uint64_t s = 99;
  for (int t = 0; t < 2000 && g->n > 1; ++t) {
    uint32_t a = (uint32_t)(rnd(&s) % g->n), b = (uint32_t)(rnd(&s) % g->n);
    if (a == b) continue;
    uint32_t wa = P->node_wave[a], wb = P->node_wave[b];
    bool model = wa != wb && r[(size_t)wa * nw + wb];
    assert_int_equal(air_partition_orders(P, a, b), model);
  }
  free(r);
  /* Every kept wait is needed: without it, its wave no longer follows the waited one. */
  for (uint32_t k = 0; k < P->n_waits; ++k) {
    uint8_t* r2 = wave_reach(P, k);
    uint32_t w = 0;
    while (!(P->waves[w].wait_begin <= k && k < P->waves[w].wait_end)) ++w;
    uint32_t p = P->queues[P->waits[k].queue].wave_begin + P->waits[k].value - 1;
    assert_int_not_equal(P->waits[k].queue, P->waves[w].queue);
    assert_false(r2[(size_t)p * nw + w]);
    free(r2);
  }
}

static void test_random(void** state) {
  (void)state;
  air_allocator_t a = heap();
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    uint32_t n = 20 + (uint32_t)(seed * 7 % 150), nq = 1 + (uint32_t)(seed % 5);
    graph_t g = random_graph(seed, n, nq, 3, seed % 2 ? 6 : n, seed % 3 == 0 ? 6 : 0);
    air_partition_graph_t v = view(&g);
    air_partition_t* P = NULL;
    air_status_t s = air_partition_build(&a, &v, &P);
    if (s) fail_msg("seed %llu: %s", (unsigned long long)seed, air_status_message(s));
    check_partition(&g, P);
    if (nq > 1) assert_true(P->stats.waits_kept <= P->stats.waits_raw);
    air_partition_free(P);
    graph_free(&g);
  }
}

/* a -> b on queue 1 -> c on queue 0: c must not share a's wave (the ASAP-per-queue
 * trap that deadlocks), and the wait on queue 1 implies the wait on queue 0. */
static void test_cross_queue_levels(void** state) {
  (void)state;
  air_allocator_t a = heap();
  uint32_t off[] = {0, 0, 1, 2}, pred[] = {0, 1}, queue[] = {0, 1, 0};
  air_partition_graph_t v = {.n = 3, .pred_off = off, .pred = pred, .queue = queue, .n_queues = 2};
  air_partition_t* P = NULL;
  assert_null(air_partition_build(&a, &v, &P));
  assert_int_equal(P->n_waves, 3);
  assert_int_not_equal(P->node_wave[0], P->node_wave[2]);
  assert_true(air_partition_orders(P, 0, 2));
  assert_true(air_partition_orders(P, 1, 2));
  assert_false(air_partition_orders(P, 2, 0));
  /* Wave of node 2 waits on queue 1 only: queue 0's previous wave is its barrier. */
  const air_partition_wave_t* w2 = &P->waves[P->node_wave[2]];
  assert_int_equal(w2->wait_end - w2->wait_begin, 1);
  assert_int_equal(P->waits[w2->wait_begin].queue, 1);
  assert_int_equal(P->stats.cross_edges, 2);
  air_partition_free(P);
}

/* Node 3 waits on queues 1 and 2, but queue 2's node already waited on queue 1:
 * only the wait on queue 2 is kept. */
static void test_elision(void** state) {
  (void)state;
  air_allocator_t a = heap();
  /* 0:q1  1:q2 <- 0  2:q0 <- 0, 1 */
  uint32_t off[] = {0, 0, 1, 3}, pred[] = {0, 0, 1}, queue[] = {1, 2, 0};
  air_partition_graph_t v = {.n = 3, .pred_off = off, .pred = pred, .queue = queue, .n_queues = 3};
  air_partition_t* P = NULL;
  assert_null(air_partition_build(&a, &v, &P));
  const air_partition_wave_t* w = &P->waves[P->node_wave[2]];
  assert_int_equal(w->wait_end - w->wait_begin, 1);
  assert_int_equal(P->waits[w->wait_begin].queue, 2);
  assert_int_equal(P->stats.waits_raw, 3);
  assert_int_equal(P->stats.waits_kept, 2);
  air_partition_free(P);
}

/* 0 (group 2) -> 1 -> 2 (group 2): node 1 is on a path between members and joins. */
static void test_group_path(void** state) {
  (void)state;
  air_allocator_t a = heap();
  uint32_t off[] = {0, 0, 1, 2, 2}, pred[] = {0, 1};
  uint32_t group[] = {2, AIR_PARTITION_NO_GROUP, 2, AIR_PARTITION_NO_GROUP};
  air_partition_graph_t v = {.n = 4, .pred_off = off, .pred = pred, .n_queues = 1, .group = group};
  air_partition_t* P = NULL;
  assert_null(air_partition_build(&a, &v, &P));
  assert_int_equal(P->node_wave[0], P->node_wave[1]);
  assert_int_equal(P->node_wave[0], P->node_wave[2]);
  assert_true(P->waves[P->node_wave[0]].ordered);
  assert_int_equal(P->stats.grown, 1);
  assert_int_equal(P->stats.groups, 1);
  air_partition_free(P);
}

static void test_bad_graphs(void** state) {
  (void)state;
  air_allocator_t a = heap();
  air_partition_t* P = (air_partition_t*)1;
  uint32_t off[] = {0, 1}, pred[] = {0}, queue[] = {3};
  air_partition_graph_t v = {.n = 1, .pred_off = off, .pred = pred, .n_queues = 1};
  air_status_t s = air_partition_build(&a, &v, &P);
  assert_non_null(s);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(air_status_message(s), "not an earlier node"));
  assert_null(P);
  air_status_free(s);
  uint32_t off0[] = {0, 0};
  v = (air_partition_graph_t){.n = 1, .pred_off = off0, .queue = queue, .n_queues = 2};
  s = air_partition_build(&a, &v, &P);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "queue 3 of 2"));
  air_status_free(s);
  v.n_queues = 0;
  s = air_partition_build(&a, &v, &P);
  assert_non_null(s);
  air_status_free(s);
  /* An empty graph is fine. */
  v = (air_partition_graph_t){.n = 0, .pred_off = off0, .n_queues = 1};
  assert_null(air_partition_build(&a, &v, &P));
  assert_int_equal(P->n_waves, 0);
  air_partition_free(P);
}

/* A million nodes over three queues with cross-queue edges build in linear time. */
static void test_million(void** state) {
  (void)state;
  air_allocator_t a = heap();
  enum { N = 1000000 };
  graph_t g = {.n = N, .nq = 3};
  g.off = calloc(N + 1, sizeof(uint32_t));
  g.pred = calloc(2 * (size_t)N, sizeof(uint32_t));
  g.queue = calloc(N, sizeof(uint32_t));
  uint32_t m = 0;
  for (uint32_t i = 0; i < N; ++i) {
    g.off[i] = m;
    if (i) g.pred[m++] = i - 1;
    if (i > 7 && i % 5 == 0) g.pred[m++] = i - 7;
    g.queue[i] = (i / 3) % 3;
  }
  g.off[N] = m;
  air_partition_graph_t v = view(&g);
  air_partition_t* P = NULL;
  double t0 = test_cpu_seconds();
  assert_null(air_partition_build(&a, &v, &P));
  double dt = test_cpu_seconds() - t0;
  print_message("partitioned %d nodes, %u edges: %u waves, %llu waits kept of %llu in %.3f s\n",
                N, m, P->n_waves, (unsigned long long)P->stats.waits_kept,
                (unsigned long long)P->stats.waits_raw, dt);
  for (uint32_t i = 1; i < N; i += 9973) assert_true(air_partition_orders(P, i - 1, i));
  air_partition_free(P);
  graph_free(&g);
#ifndef TEST_SANITIZED
  assert_true(dt < 1.0);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random),       cmocka_unit_test(test_cross_queue_levels),
      cmocka_unit_test(test_elision),      cmocka_unit_test(test_group_path),
      cmocka_unit_test(test_bad_graphs),   cmocka_unit_test(test_million),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

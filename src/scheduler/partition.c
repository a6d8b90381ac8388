/* partition.c - levels, waves, waits and their elision (see partition.h).
 *
 * Passes, each linear unless groups are present:
 *  1. check the graph;
 *  2. groups: union members of one id, then the strongly connected components of
 *     the contracted graph (which pulls in nodes on member-to-member paths); the
 *     root of a set is its smallest node, whose queue the set takes;
 *  3. levels: in index order without groups, else Kahn's algorithm over the
 *     contracted graph (a group member's successor may precede a later member);
 *  4. waves: bucket the nodes by level, then per queue number its non-empty levels;
 *  5. waits: waves in level order, one candidate per source queue, dropped when the
 *     clock of the queue's previous wave or another candidate's clock implies it. */
#include "scheduler/partition.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/base/arena.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct work_t {
  const air_allocator_t* a;
  const air_partition_graph_t* g;
  uint32_t n, nq;
  uint32_t* root;     /* union-find parent; root = smallest member */
  uint32_t* level;    /* per node (groups: meaningful at roots, copied to members) */
  uint32_t* order;    /* nodes in a topological order of the contracted graph */
  uint32_t* succ_off; /* successors CSR, built only when groups exist */
  uint32_t* succ;
  uint32_t* queue;    /* per node, after group moves */
  bool groups;
} work_t;

static void* wz(const air_allocator_t* a, size_t n, size_t size) {
  return air_mem_calloc(a, n, size);
}

static void wfree(const air_allocator_t* a, void* p) { air_mem_free(a, p); }

static uint32_t find(uint32_t* root, uint32_t x) {
  while (root[x] != x) {
    root[x] = root[root[x]];
    x = root[x];
  }
  return x;
}

/* Union keeping the smaller index as the root. Returns true when they were apart. */
static bool unite(uint32_t* root, uint32_t x, uint32_t y) {
  x = find(root, x);
  y = find(root, y);
  if (x == y) return false;
  if (y < x) {
    uint32_t t = x;
    x = y;
    y = t;
  }
  root[y] = x;
  return true;
}

static air_status_t check_graph(const air_allocator_t* a, const air_partition_graph_t* g) {
  if (g->n_queues == 0 || g->n_queues > AIR_PARTITION_MAX_QUEUES)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "partition: %u queues; between 1 and %u are supported", g->n_queues,
                      AIR_PARTITION_MAX_QUEUES);
  if (g->n && (!g->pred_off || (g->pred_off[g->n] && !g->pred)))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "partition: missing predecessor arrays");
  if (g->n && g->pred_off[0] != 0)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "partition: pred_off[0] must be 0");
  for (uint32_t i = 0; i < g->n; ++i) {
    if (g->pred_off[i + 1] < g->pred_off[i])
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "partition: pred_off decreases at node %u", i);
    for (uint32_t k = g->pred_off[i]; k < g->pred_off[i + 1]; ++k)
      if (g->pred[k] >= i)
        return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                          "partition: node %u has predecessor %u, not an earlier node", i,
                          g->pred[k]);
    if (g->queue && g->queue[i] >= g->n_queues)
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "partition: node %u is on queue %u of %u", i, g->queue[i], g->n_queues);
    if (g->group && g->group[i] != AIR_PARTITION_NO_GROUP && g->group[i] >= g->n)
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "partition: node %u has group %u; group ids are node-sized", i,
                        g->group[i]);
  }
  return NULL;
}

static air_status_t build_succ(work_t* w) {
  const air_partition_graph_t* g = w->g;
  uint32_t n = w->n, m = n ? g->pred_off[n] : 0;
  w->succ_off = wz(w->a, (size_t)n + 1, sizeof(uint32_t));
  w->succ = wz(w->a, m, sizeof(uint32_t));
  if (!w->succ_off || !w->succ) return AIR_STATUS_OOM(w->a, "partition");
  for (uint32_t k = 0; k < m; ++k) w->succ_off[g->pred[k] + 1]++;
  for (uint32_t i = 0; i < n; ++i) w->succ_off[i + 1] += w->succ_off[i];
  uint32_t* fill = wz(w->a, n ? n : 1, sizeof(uint32_t));
  if (!fill) return AIR_STATUS_OOM(w->a, "partition");
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = g->pred_off[i]; k < g->pred_off[i + 1]; ++k) {
      uint32_t p = g->pred[k];
      w->succ[w->succ_off[p] + fill[p]++] = i;
    }
  wfree(w->a, fill);
  return NULL;
}

/* Unions nodes of one group id, then every strongly connected component of the
 * contracted graph: a node on a path between two members of a set forms a cycle
 * with it, so the condensation both closes the sets and leaves them acyclic.
 * Iterative Tarjan over set roots; a root's edges are its members' successors. */
static air_status_t close_groups(work_t* w, air_partition_stats_t* st) {
  const air_partition_graph_t* g = w->g;
  uint32_t n = w->n;
  uint32_t* first = wz(w->a, n, sizeof(uint32_t));
  uint32_t* next = wz(w->a, n, sizeof(uint32_t));   /* member lists */
  uint32_t* tail = wz(w->a, n, sizeof(uint32_t));
  uint32_t* index = wz(w->a, n, sizeof(uint32_t));  /* 0 = unvisited, else dfs number + 1 */
  uint32_t* low = wz(w->a, n, sizeof(uint32_t));
  uint32_t* stack = wz(w->a, n, sizeof(uint32_t));  /* Tarjan's stack of roots */
  uint32_t* cs_node = wz(w->a, n, sizeof(uint32_t)); /* call stack: root, member, succ idx */
  uint32_t* cs_mem = wz(w->a, n, sizeof(uint32_t));
  uint32_t* cs_k = wz(w->a, n, sizeof(uint32_t));
  uint8_t* on = wz(w->a, n, 1);
  air_status_t s = NULL;
  if (!first || !next || !tail || !index || !low || !stack || !cs_node || !cs_mem || !cs_k || !on) {
    s = AIR_STATUS_OOM(w->a, "partition");
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) first[i] = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t gid = g->group[i];
    if (gid == AIR_PARTITION_NO_GROUP) continue;
    if (first[gid] == UINT32_MAX) first[gid] = i;
    else unite(w->root, first[gid], i);
  }
  uint32_t* comp = first; /* reused: root's component representative */
  for (uint32_t i = 0; i < n; ++i) next[i] = UINT32_MAX, tail[i] = i, comp[i] = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t r = find(w->root, i);
    if (r != i) next[tail[r]] = i, tail[r] = i;
  }
  uint32_t counter = 0, sp = 0;
  for (uint32_t r0 = 0; r0 < n; ++r0) {
    if (find(w->root, r0) != r0 || index[r0]) continue;
    uint32_t top = 0;
    cs_node[0] = r0, cs_mem[0] = r0, cs_k[0] = w->succ_off[r0];
    index[r0] = low[r0] = ++counter;
    stack[sp++] = r0, on[r0] = 1;
    while (true) {
      uint32_t v = cs_node[top];
      /* Next edge of v: walk its members' successor lists. */
      uint32_t m = cs_mem[top], k = cs_k[top], t = UINT32_MAX;
      while (m != UINT32_MAX) {
        if (k < w->succ_off[m + 1]) {
          uint32_t x = find(w->root, w->succ[k++]);
          if (x != v) {
            t = x;
            break;
          }
        } else {
          m = next[m];
          if (m != UINT32_MAX) k = w->succ_off[m];
        }
      }
      cs_mem[top] = m, cs_k[top] = k;
      if (t != UINT32_MAX) {
        if (!index[t]) {
          index[t] = low[t] = ++counter;
          stack[sp++] = t, on[t] = 1;
          ++top;
          cs_node[top] = t, cs_mem[top] = t, cs_k[top] = w->succ_off[t];
        } else if (on[t] && index[t] < low[v]) {
          low[v] = index[t];
        }
        continue;
      }
      /* v is done. */
      if (low[v] == index[v]) {
        uint32_t x;
        do {
          x = stack[--sp];
          on[x] = 0;
          comp[x] = v;
        } while (x != v);
      }
      if (top == 0) break;
      --top;
      uint32_t u = cs_node[top];
      if (low[v] < low[u]) low[u] = low[v];
    }
  }
  for (uint32_t r = 0; r < n; ++r)
    if (comp[r] != UINT32_MAX && comp[r] != r) unite(w->root, comp[r], r);
  /* Nodes without a group id that ended up in a set of several: pulled in. */
  uint32_t* size = index;
  memset(size, 0, n * sizeof(uint32_t));
  for (uint32_t i = 0; i < n; ++i) size[find(w->root, i)]++;
  for (uint32_t i = 0; i < n; ++i)
    if (g->group[i] == AIR_PARTITION_NO_GROUP && size[find(w->root, i)] > 1) st->grown++;
done:
  wfree(w->a, first);
  wfree(w->a, next);
  wfree(w->a, tail);
  wfree(w->a, index);
  wfree(w->a, low);
  wfree(w->a, stack);
  wfree(w->a, cs_node);
  wfree(w->a, cs_mem);
  wfree(w->a, cs_k);
  wfree(w->a, on);
  return s;
}

/* Levels over the contracted graph (Kahn's algorithm on set roots). */
static air_status_t levels_grouped(work_t* w) {
  const air_partition_graph_t* g = w->g;
  uint32_t n = w->n;
  uint32_t* indeg = wz(w->a, n, sizeof(uint32_t));
  uint32_t* next = wz(w->a, n, sizeof(uint32_t)); /* member lists, root first */
  uint32_t* tail = wz(w->a, n, sizeof(uint32_t));
  uint32_t* ready = wz(w->a, n, sizeof(uint32_t));
  air_status_t s = NULL;
  if (!indeg || !next || !tail || !ready) {
    s = AIR_STATUS_OOM(w->a, "partition");
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) next[i] = UINT32_MAX, tail[i] = i;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t r = find(w->root, i);
    if (r != i) next[tail[r]] = i, tail[r] = i;
    for (uint32_t k = g->pred_off[i]; k < g->pred_off[i + 1]; ++k)
      if (find(w->root, g->pred[k]) != r) indeg[r]++;
  }
  uint32_t head = 0, end = 0, placed = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (find(w->root, i) == i && indeg[i] == 0) ready[end++] = i;
  while (head < end) {
    uint32_t r = ready[head++];
    for (uint32_t m = r; m != UINT32_MAX; m = next[m]) {
      w->order[placed++] = m;
      for (uint32_t k = w->succ_off[m]; k < w->succ_off[m + 1]; ++k) {
        uint32_t rs = find(w->root, w->succ[k]);
        if (rs == r) continue;
        if (w->level[rs] < w->level[r] + 1) w->level[rs] = w->level[r] + 1;
        if (--indeg[rs] == 0) ready[end++] = rs;
      }
    }
  }
  if (placed != n) {
    /* Cannot happen after the condensation; kept so a bug is an error, not a hang. */
    s = AIR_STATUS(w->a, AIR_STATUS_INTERNAL,
                   "partition: the contracted graph has a cycle (%u of %u nodes ordered)",
                   placed, n);
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) w->level[i] = w->level[find(w->root, i)];
done:
  wfree(w->a, indeg);
  wfree(w->a, next);
  wfree(w->a, tail);
  wfree(w->a, ready);
  return s;
}

static void levels_plain(work_t* w) {
  const air_partition_graph_t* g = w->g;
  for (uint32_t i = 0; i < w->n; ++i) {
    uint32_t l = 0;
    for (uint32_t k = g->pred_off[i]; k < g->pred_off[i + 1]; ++k)
      if (w->level[g->pred[k]] + 1 > l) l = w->level[g->pred[k]] + 1;
    w->level[i] = l;
    w->order[i] = i;
  }
}

#define NEW(arena, T, count) \
  ((T*)air_arena_alloc((arena), ((size_t)(count) > 0 ? (size_t)(count) : 1) * sizeof(T)))

/* Buckets nodes by level (topological order inside a level) and cuts waves. */
static air_status_t make_waves(work_t* w, air_partition_t* P, uint32_t** out_wave_order) {
  air_arena_t* ar = &P->arena;
  uint32_t n = w->n, nq = w->nq, nl = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (w->level[i] + 1 > nl) nl = w->level[i] + 1;
  P->n_levels = nl;
  P->levels = NEW(ar, air_partition_level_t, nl);
  P->level_cmds = NEW(ar, uint32_t, n);
  P->node_wave = NEW(ar, uint32_t, n);
  P->node_queue = NEW(ar, uint32_t, n);
  P->queues = NEW(ar, air_partition_queue_t, nq);
  if (!P->levels || !P->level_cmds || !P->node_wave || !P->node_queue || !P->queues)
    return AIR_STATUS_OOM(w->a, "partition");
  for (uint32_t i = 0; i < n; ++i) P->levels[w->level[i]].cmd_end++;
  for (uint32_t l = 0, at = 0; l < nl; ++l) {
    uint32_t c = P->levels[l].cmd_end;
    P->levels[l].cmd_begin = P->levels[l].cmd_end = at;
    at += c;
  }
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t i = w->order[k];
    P->level_cmds[P->levels[w->level[i]].cmd_end++] = i;
    P->node_queue[i] = w->queue[i];
  }
  /* Waves per queue: a new wave whenever a queue meets a new level. */
  uint32_t* last = wz(w->a, nq, sizeof(uint32_t));
  uint32_t* count = wz(w->a, nq, sizeof(uint32_t));
  if (!last || !count) {
    wfree(w->a, last);
    wfree(w->a, count);
    return AIR_STATUS_OOM(w->a, "partition");
  }
  for (uint32_t q = 0; q < nq; ++q) last[q] = UINT32_MAX;
  for (uint32_t l = 0; l < nl; ++l)
    for (uint32_t k = P->levels[l].cmd_begin; k < P->levels[l].cmd_end; ++k) {
      uint32_t q = w->queue[P->level_cmds[k]];
      if (last[q] != l) last[q] = l, count[q]++;
    }
  uint32_t nw = 0;
  for (uint32_t q = 0; q < nq; ++q) {
    P->queues[q].wave_begin = P->queues[q].wave_end = nw;
    nw += count[q];
  }
  P->n_waves = nw;
  P->waves = NEW(ar, air_partition_wave_t, nw);
  P->cmds = NEW(ar, uint32_t, n);
  uint32_t* order = wz(w->a, nw, sizeof(uint32_t));
  if (!P->waves || !P->cmds || !order) {
    wfree(w->a, last);
    wfree(w->a, count);
    wfree(w->a, order);
    return AIR_STATUS_OOM(w->a, "partition");
  }
  /* Wave records in level order; count each wave's commands. */
  uint32_t made = 0;
  for (uint32_t q = 0; q < nq; ++q) last[q] = UINT32_MAX;
  for (uint32_t l = 0; l < nl; ++l)
    for (uint32_t k = P->levels[l].cmd_begin; k < P->levels[l].cmd_end; ++k) {
      uint32_t i = P->level_cmds[k], q = w->queue[i];
      if (last[q] != l) {
        last[q] = l;
        uint32_t wi = P->queues[q].wave_end++;
        P->waves[wi].queue = q;
        P->waves[wi].level = l;
        order[made++] = wi;
      }
      uint32_t wi = P->queues[q].wave_end - 1;
      P->node_wave[i] = wi;
      P->waves[wi].cmd_end++;
    }
  for (uint32_t wi = 0, at = 0; wi < nw; ++wi) {
    uint32_t c = P->waves[wi].cmd_end;
    P->waves[wi].cmd_begin = P->waves[wi].cmd_end = at;
    at += c;
  }
  for (uint32_t l = 0; l < nl; ++l)
    for (uint32_t k = P->levels[l].cmd_begin; k < P->levels[l].cmd_end; ++k) {
      uint32_t i = P->level_cmds[k];
      P->cmds[P->waves[P->node_wave[i]].cmd_end++] = i;
    }
  wfree(w->a, last);
  wfree(w->a, count);
  *out_wave_order = order;
  return NULL;
}

/* Candidate waits of every wave, elided against vector clocks. */
static air_status_t make_waits(work_t* w, air_partition_t* P, const uint32_t* wave_order) {
  const air_partition_graph_t* g = w->g;
  uint32_t nq = w->nq, nw = P->n_waves;
  P->clocks = NEW(&P->arena, uint32_t, (size_t)nw * nq);
  uint32_t* best = wz(w->a, nq, sizeof(uint32_t));
  uint32_t* cand = wz(w->a, nq, sizeof(uint32_t));
  uint8_t* keep = wz(w->a, nq, 1);
  /* At most one kept wait per source queue per wave, so nw * (nq - 1) bounds them;
   * the array grows as needed instead of reserving that much. */
  uint32_t cap = 1024, nwaits = 0;
  air_partition_wait_t* waits = wz(w->a, cap, sizeof(*waits));
  air_status_t s = NULL;
  if (!P->clocks || !best || !cand || !keep || !waits) {
    s = AIR_STATUS_OOM(w->a, "partition");
    goto done;
  }
  for (uint32_t oi = 0; oi < nw; ++oi) {
    uint32_t wi = wave_order[oi];
    air_partition_wave_t* wv = &P->waves[wi];
    uint32_t q = wv->queue, k = wi - P->queues[q].wave_begin, nc = 0;
    uint32_t* clk = &P->clocks[(size_t)wi * nq];
    if (k > 0) memcpy(clk, &P->clocks[(size_t)(wi - 1) * nq], nq * sizeof(uint32_t));
    for (uint32_t c = wv->cmd_begin; c < wv->cmd_end; ++c) {
      uint32_t i = P->cmds[c];
      for (uint32_t e = g->pred_off[i]; e < g->pred_off[i + 1]; ++e) {
        uint32_t p = g->pred[e], pw = P->node_wave[p], pq = P->waves[pw].queue;
        P->stats.edges++;
        if (pw == wi) {
          wv->ordered = true;
          continue;
        }
        if (pq == q) continue; /* the barrier orders it */
        P->stats.cross_edges++;
        uint32_t v = pw - P->queues[pq].wave_begin + 1;
        if (best[pq] == 0) cand[nc++] = pq;
        if (v > best[pq]) best[pq] = v;
      }
    }
    P->stats.waits_raw += nc;
    /* A candidate is implied by the previous wave's clock or another's. */
    for (uint32_t a = 0; a < nc; ++a) {
      uint32_t qa = cand[a], va = best[qa];
      bool implied = clk[qa] >= va;
      for (uint32_t b = 0; !implied && b < nc; ++b) {
        if (b == a) continue;
        uint32_t qb = cand[b];
        const uint32_t* cb = &P->clocks[(size_t)(P->queues[qb].wave_begin + best[qb] - 1) * nq];
        implied = cb[qa] >= va;
      }
      keep[a] = !implied;
    }
    wv->wait_begin = nwaits;
    for (uint32_t a = 0; a < nc; ++a) {
      uint32_t qa = cand[a], va = best[qa];
      best[qa] = 0;
      if (!keep[a]) continue;
      if (!air_mem_grow(w->a, (void**)&waits, &cap, (size_t)nwaits + 1, sizeof *waits)) {
        s = AIR_STATUS_OOM(w->a, "partition");
        goto done;
      }
      waits[nwaits].queue = qa;
      waits[nwaits].value = va;
      nwaits++;
      const uint32_t* ca = &P->clocks[(size_t)(P->queues[qa].wave_begin + va - 1) * nq];
      for (uint32_t x = 0; x < nq; ++x)
        if (ca[x] > clk[x]) clk[x] = ca[x];
    }
    wv->wait_end = nwaits;
    clk[q] = k + 1;
  }
  P->stats.waits_kept = nwaits;
  P->n_waits = nwaits;
  P->waits = NEW(&P->arena, air_partition_wait_t, nwaits);
  if (!P->waits) {
    s = AIR_STATUS_OOM(w->a, "partition");
    goto done;
  }
  if (nwaits) memcpy(P->waits, waits, nwaits * sizeof(*waits));
done:
  wfree(w->a, best);
  wfree(w->a, cand);
  wfree(w->a, keep);
  wfree(w->a, waits);
  return s;
}

air_status_t air_partition_build(const air_allocator_t* allocator,
                                 const air_partition_graph_t* graph, air_partition_t** out) {
  *out = NULL;
  AIR_RETURN_IF_ERROR(check_graph(allocator, graph));
  air_partition_t* P = air_partition_new(allocator);
  if (!P) return AIR_STATUS_OOM(allocator, "partition");
  P->n_nodes = graph->n;
  P->n_queues = graph->n_queues;

  uint32_t n = graph->n;
  work_t w = {.a = allocator, .g = graph, .n = n, .nq = graph->n_queues};
  w.root = wz(allocator, n, sizeof(uint32_t));
  w.level = wz(allocator, n, sizeof(uint32_t));
  w.order = wz(allocator, n, sizeof(uint32_t));
  w.queue = wz(allocator, n, sizeof(uint32_t));
  uint32_t* wave_order = NULL;
  air_status_t s = NULL;
  if (!w.root || !w.level || !w.order || !w.queue) {
    s = AIR_STATUS_OOM(allocator, "partition");
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) {
    w.root[i] = i;
    w.queue[i] = graph->queue ? graph->queue[i] : 0;
  }
  for (uint32_t i = 0; graph->group && i < n; ++i)
    if (graph->group[i] != AIR_PARTITION_NO_GROUP) w.groups = true;
  if (w.groups) {
    if ((s = build_succ(&w)) || (s = close_groups(&w, &P->stats)) || (s = levels_grouped(&w)))
      goto done;
    for (uint32_t i = 0; i < n; ++i) w.queue[i] = w.queue[find(w.root, i)];
    /* Count sets with more than one member. */
    uint8_t* seen = wz(allocator, n, 1);
    if (!seen) {
      s = AIR_STATUS_OOM(allocator, "partition");
      goto done;
    }
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t r = find(w.root, i);
      if (r != i && seen[r] == 0) seen[r] = 1, P->stats.groups++;
    }
    wfree(allocator, seen);
  } else {
    levels_plain(&w);
  }
  if ((s = make_waves(&w, P, &wave_order)) || (s = make_waits(&w, P, wave_order))) goto done;
done:
  wfree(allocator, w.root);
  wfree(allocator, w.level);
  wfree(allocator, w.order);
  wfree(allocator, w.queue);
  wfree(allocator, w.succ_off);
  wfree(allocator, w.succ);
  wfree(allocator, wave_order);
  if (s) {
    air_partition_free(P);
    return s;
  }
  *out = P;
  return NULL;
}

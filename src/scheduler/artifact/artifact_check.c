/* artifact_check.c - the structural rules of a decoded .airbin schedule (the one
 * place a stored partition is checked: drivers read it as given), and the
 * partition fields the file does not store because they follow from the rest
 * (node_wave, node_queue, levels, level_cmds, clocks; partition.c's definitions).
 *
 * Ranges in messages are half-open, begin..end, as in the records. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact_internal.h"

#define BAD(...) return air_art_corrupt(a, name, __VA_ARGS__)
#define ARRAY(arena, T, n) ((T*)air_art_array((arena), (n), sizeof(T)))

static air_status_t check_cmds(const char* name, const air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  for (uint32_t i = 0; i < s->n_cmds; ++i) {
    if (s->cmds[i].op >= s->n_body_ops)
      BAD(".air.cmds[%u]: op %u outside 0..%u (n_body_ops)", i, s->cmds[i].op, s->n_body_ops);
    if (s->cmds[i].kind >= AIR_SCHED_CMD_COUNT)
      BAD(".air.cmds[%u]: kind %u is not a command kind (0..%u)", i, s->cmds[i].kind,
          AIR_SCHED_CMD_COUNT);
    if (s->cmds[i].op != i) BAD(".air.cmds[%u]: op %u; command i is body op i", i, s->cmds[i].op);
  }
  /* Queue numbering is fixed: host, dma, then compute queues. */
  for (uint32_t q = 0; q < s->n_queues; ++q) {
    uint32_t want = q < AIR_SCHED_Q_COMPUTE ? q : AIR_SCHED_Q_COMPUTE;
    if (s->queue_kind[q] != want)
      BAD(".air.queues[%u]: kind %s, the program's queue %u is %s", q,
          air_sched_queue_kind_name(s->queue_kind[q]), q, air_sched_queue_kind_name(want));
  }
  return NULL;
}

/* Queues own consecutive wave ranges; waves own consecutive, non-empty command
 * ranges, with levels rising along each queue. Wait ranges are stored in the order
 * the partitioner visits waves (by level), so they are only required to split the
 * waits between the waves: in range, disjoint, covering all of them. */
static air_status_t check_ranges(const char* name, air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  const air_partition_t* P = s->partition;
  uint32_t wave_at = 0, cmd_at = 0, waits_held = 0;
  uint32_t* wait_owner = ARRAY(&s->arena, uint32_t, P->n_waits);
  if (!wait_owner) return AIR_STATUS_OOM(a, name);
  for (uint32_t i = 0; i < P->n_waits; ++i) wait_owner[i] = UINT32_MAX;
  for (uint32_t q = 0; q < P->n_queues; ++q) {
    const air_partition_queue_t* Q = &P->queues[q];
    if (Q->wave_begin != wave_at || Q->wave_end < Q->wave_begin || Q->wave_end > P->n_waves)
      BAD(".air.queues[%u]: wave range %u..%u, expected one starting at %u inside 0..%u", q,
          Q->wave_begin, Q->wave_end, wave_at, P->n_waves);
    wave_at = Q->wave_end;
    for (uint32_t w = Q->wave_begin; w < Q->wave_end; ++w) {
      const air_partition_wave_t* W = &P->waves[w];
      if (W->queue != q) BAD(".air.waves[%u]: queue %u, but it is in queue %u's range", w, W->queue, q);
      if (W->level >= P->n_nodes)
        BAD(".air.waves[%u]: level %u outside 0..%u (n_cmds)", w, W->level, P->n_nodes);
      if (w > Q->wave_begin && W->level <= P->waves[w - 1].level)
        BAD(".air.waves[%u]: level %u is not above the previous wave's level %u", w, W->level,
            P->waves[w - 1].level);
      if (W->cmd_begin != cmd_at || W->cmd_end <= W->cmd_begin || W->cmd_end > P->n_nodes)
        BAD(".air.waves[%u]: cmd range %u..%u, expected a non-empty one starting at %u inside "
            "0..%u",
            w, W->cmd_begin, W->cmd_end, cmd_at, P->n_nodes);
      if (W->wait_end < W->wait_begin || W->wait_end > P->n_waits)
        BAD(".air.waves[%u]: wait range %u..%u outside 0..%u", w, W->wait_begin, W->wait_end,
            P->n_waits);
      for (uint32_t i = W->wait_begin; i < W->wait_end; ++i) {
        if (wait_owner[i] != UINT32_MAX)
          BAD(".air.waves[%u]: wait range %u..%u shares .air.waits[%u] with wave %u", w,
              W->wait_begin, W->wait_end, i, wait_owner[i]);
        wait_owner[i] = w;
      }
      cmd_at = W->cmd_end;
      waits_held += W->wait_end - W->wait_begin;
    }
  }
  if (wave_at != P->n_waves) BAD(".air.queues: the queues hold %u waves of %u", wave_at, P->n_waves);
  if (cmd_at != P->n_nodes) BAD(".air.waves: the waves hold %u commands of %u", cmd_at, P->n_nodes);
  if (waits_held != P->n_waits) BAD(".air.waves: the waves hold %u waits of %u", waits_held, P->n_waits);
  return NULL;
}

/* Each command in exactly one wave; fills node_wave and node_queue. */
static air_status_t check_wave_cmds(const char* name, air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  air_partition_t* P = s->partition;
  P->node_wave = ARRAY(&s->arena, uint32_t, P->n_nodes);
  P->node_queue = ARRAY(&s->arena, uint32_t, P->n_nodes);
  if (!P->node_wave || !P->node_queue) return AIR_STATUS_OOM(a, name);
  for (uint32_t i = 0; i < P->n_nodes; ++i) P->node_wave[i] = UINT32_MAX;
  for (uint32_t w = 0; w < P->n_waves; ++w)
    for (uint32_t c = P->waves[w].cmd_begin; c < P->waves[w].cmd_end; ++c) {
      uint32_t node = P->cmds[c];
      if (node >= P->n_nodes)
        BAD(".air.wave_cmds[%u]: node %u outside 0..%u (n_cmds)", c, node, P->n_nodes);
      if (P->node_wave[node] != UINT32_MAX)
        BAD(".air.wave_cmds[%u]: node %u is in waves %u and %u; a command is in exactly one", c,
            node, P->node_wave[node], w);
      P->node_wave[node] = w;
      P->node_queue[node] = P->waves[w].queue;
    }
  return NULL;
}

/* Waits name another queue and one of its waves at a lower level, which keeps the
 * waves acyclic whatever the queues. */
static air_status_t check_waits(const char* name, const air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  const air_partition_t* P = s->partition;
  for (uint32_t w = 0; w < P->n_waves; ++w) {
    const air_partition_wave_t* W = &P->waves[w];
    for (uint32_t i = W->wait_begin; i < W->wait_end; ++i) {
      air_partition_wait_t t = P->waits[i];
      if (t.queue >= P->n_queues)
        BAD(".air.waits[%u]: queue %u outside 0..%u (n_queues)", i, t.queue, P->n_queues);
      if (t.queue == W->queue) BAD(".air.waits[%u]: wave %u waits on its own queue %u", i, w, t.queue);
      const air_partition_queue_t* Q = &P->queues[t.queue];
      uint32_t count = Q->wave_end - Q->wave_begin;
      if (t.value == 0 || t.value > count)
        BAD(".air.waits[%u]: value %u outside 1..%u (queue %u has %u waves)", i, t.value,
            count + 1, t.queue, count);
      const air_partition_wave_t* T = &P->waves[Q->wave_begin + t.value - 1];
      if (T->level >= W->level)
        BAD(".air.waits[%u]: wave %u (level %u) waits for a wave at level %u, not an earlier one",
            i, w, W->level, T->level);
    }
  }
  return NULL;
}

/* levels/level_cmds (nodes in index order inside a level: a topological order),
 * then the vector clocks, waves taken in level order as partition.c does. */
static air_status_t derive_levels_and_clocks(const char* name, air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  air_partition_t* P = s->partition;
  uint32_t n = P->n_nodes, nq = P->n_queues, nl = 0;
  for (uint32_t w = 0; w < P->n_waves; ++w)
    if (P->waves[w].level + 1 > nl) nl = P->waves[w].level + 1;
  P->n_levels = nl;
  P->levels = ARRAY(&s->arena, air_partition_level_t, nl);
  P->level_cmds = ARRAY(&s->arena, uint32_t, n);
  P->clocks = ARRAY(&s->arena, uint32_t, (size_t)P->n_waves * nq);
  uint32_t* wave_at = ARRAY(&s->arena, uint32_t, nl + 1); /* waves by level, CSR */
  uint32_t* wave_order = ARRAY(&s->arena, uint32_t, P->n_waves);
  if (!P->levels || !P->level_cmds || !P->clocks || !wave_at || !wave_order) return AIR_STATUS_OOM(a, name);
  for (uint32_t i = 0; i < n; ++i) P->levels[P->waves[P->node_wave[i]].level].cmd_end++;
  for (uint32_t l = 0, at = 0; l < nl; ++l) {
    uint32_t c = P->levels[l].cmd_end;
    if (c == 0) BAD(".air.waves: no wave at level %u of 0..%u; levels have no gaps", l, nl);
    P->levels[l].cmd_begin = P->levels[l].cmd_end = at;
    at += c;
  }
  for (uint32_t i = 0; i < n; ++i) {
    air_partition_level_t* L = &P->levels[P->waves[P->node_wave[i]].level];
    P->level_cmds[L->cmd_end++] = i;
  }
  for (uint32_t w = 0; w < P->n_waves; ++w) wave_at[P->waves[w].level + 1]++;
  for (uint32_t l = 0; l < nl; ++l) wave_at[l + 1] += wave_at[l];
  for (uint32_t w = 0; w < P->n_waves; ++w) wave_order[wave_at[P->waves[w].level]++] = w;
  for (uint32_t o = 0; o < P->n_waves; ++o) {
    uint32_t w = wave_order[o];
    const air_partition_wave_t* W = &P->waves[w];
    uint32_t k = w - P->queues[W->queue].wave_begin;
    uint32_t* clk = &P->clocks[(size_t)w * nq];
    if (k > 0) memcpy(clk, clk - nq, nq * sizeof *clk);
    for (uint32_t i = W->wait_begin; i < W->wait_end; ++i) {
      air_partition_wait_t t = P->waits[i];
      const uint32_t* c = &P->clocks[(size_t)(P->queues[t.queue].wave_begin + t.value - 1) * nq];
      for (uint32_t x = 0; x < nq; ++x)
        if (c[x] > clk[x]) clk[x] = c[x];
    }
    clk[W->queue] = k + 1;
  }
  return NULL;
}

/* The contract's edges (schedule.h): ranges consecutive and in bounds; every
 * predecessor before its command, the in-wave ones first and only in an ordered
 * wave, ahead of it in the wave's order; every other edge implied by the barriers
 * and waits; channel-group members in one wave; affinity producers before the command and not held
 * back behind its wave (else the watch would wait forever). Needs the derived
 * fields (node_wave, clocks). */
static air_status_t check_edges(const char* name, air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  const air_partition_t* P = s->partition;
  uint32_t n = s->n_cmds, n_preds = s->pred_off[n], n_aff = s->aff_off[n];
  uint32_t* pos = ARRAY(&s->arena, uint32_t, n);
  uint32_t* group_first = ARRAY(&s->arena, uint32_t, n);
  if (!pos || !group_first) return AIR_STATUS_OOM(a, name);
  for (uint32_t c = 0; c < n; ++c) pos[P->cmds[c]] = c;
  for (uint32_t i = 0; i < n; ++i) group_first[i] = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t b = s->pred_off[i], m = s->wave_pred_end[i], e = s->pred_off[i + 1];
    if (b > m || m > e || e > n_preds)
      BAD(".air.cmd_edges[%u]: predecessors %u..%u with the in-wave ones up to %u, expected "
          "ranges in order inside 0..%u", i, b, e, m, n_preds);
    if (s->aff_off[i] > s->aff_off[i + 1] || s->aff_off[i + 1] > n_aff)
      BAD(".air.cmd_edges[%u]: affinity producers %u..%u, expected a range in order inside "
          "0..%u", i, s->aff_off[i], s->aff_off[i + 1], n_aff);
    uint32_t w = P->node_wave[i];
    for (uint32_t k = b; k < e; ++k) {
      uint32_t j = s->preds[k];
      if (j >= i) BAD(".air.preds[%u]: command %u is not before command %u", k, j, i);
      uint32_t pw = P->node_wave[j];
      if ((k < m) != (pw == w))
        BAD(".air.preds[%u]: command %u (wave %u) is %s command %u's in-wave predecessors "
            "(wave %u)", k, j, pw, k < m ? "among" : "after", i, w);
      bool ok = pw == w ? P->waves[w].ordered && pos[j] < pos[i] : air_partition_orders(P, j, i);
      if (!ok)
        BAD(".air.waves[%u]: command %u may start before command %u (wave %u) completes; the "
            "program orders them", w, i, j, pw);
    }
    for (uint32_t k = s->aff_off[i]; k < s->aff_off[i + 1]; ++k) {
      uint32_t j = s->aff[k];
      if (j >= i || (k > s->aff_off[i] && j <= s->aff[k - 1]))
        BAD(".air.affinity[%u]: command %u is not an earlier command in ascending order "
            "(command %u's producers)", k, j, i);
      if (air_partition_orders(P, i, j))
        BAD(".air.affinity[%u]: command %u needs the token of command %u, which the waves "
            "run after it", k, i, j);
    }
    uint32_t gid = s->group[i];
    if (gid == AIR_PARTITION_NO_GROUP) continue;
    if (gid >= n) BAD(".air.cmd_edges[%u]: group %u outside 0..%u (n_cmds)", i, gid, n);
    if (group_first[gid] == UINT32_MAX) group_first[gid] = i;
    else if (P->node_wave[group_first[gid]] != w)
      BAD(".air.waves[%u]: command %u must run at once with command %u (a channel group), which "
          "is in wave %u",
          w, i, group_first[gid], P->node_wave[group_first[gid]]);
  }
  return NULL;
}

static bool pow2(uint64_t x) { return x && !(x & (x - 1)); }

static air_status_t check_memplan(const char* name, const air_schedule_t* s) {
  const air_allocator_t* a = &s->allocator;
  const air_memplan_t* M = &s->memplan;
  uint64_t al = M->alignment;
  if (!pow2(al)) BAD(".air.meta: alignment %llu is not a power of two", (unsigned long long)al);
  if (M->n_arenas == 0) BAD(".air.memplan.arenas: empty; the L3 arena is always present");
  uint32_t at = 0;
  for (uint32_t r = 0; r < M->n_arenas; ++r) {
    const air_memplan_arena_t* R = &M->arenas[r];
    if (R->space > AIR_MEMPLAN_L1) BAD(".air.memplan.arenas[%u]: space %u is not L3, L2 or L1 (0..3)", r, R->space);
    if ((r == 0) != (R->space == AIR_MEMPLAN_L3))
      BAD(".air.memplan.arenas[%u]: space %u; the L3 arena comes first and only once", r, R->space);
    if (r > 0 && R->space < M->arenas[r - 1].space)
      BAD(".air.memplan.arenas[%u]: space %u after space %u; arenas go L3, L2, L1", r, R->space,
          M->arenas[r - 1].space);
    if ((R->space == AIR_MEMPLAN_L3) != (R->owner == UINT32_MAX))
      BAD(".air.memplan.arenas[%u]: owner %u; only the L3 arena has none (%u)", r, R->owner,
          UINT32_MAX);
    if (R->size % al || R->lower_bound > R->size || (R->capacity && R->size > R->capacity))
      BAD(".air.memplan.arenas[%u]: size %llu with lower bound %llu and capacity %llu (size must "
          "be a multiple of %llu, at least the lower bound, at most a non-zero capacity)",
          r, (unsigned long long)R->size, (unsigned long long)R->lower_bound,
          (unsigned long long)R->capacity, (unsigned long long)al);
    if (R->buffer_begin != at || R->buffer_end < R->buffer_begin || R->buffer_end > M->n_buffers)
      BAD(".air.memplan.arenas[%u]: buffer range %u..%u, expected one starting at %u inside 0..%u",
          r, R->buffer_begin, R->buffer_end, at, M->n_buffers);
    at = R->buffer_end;
    for (uint32_t b = R->buffer_begin; b < R->buffer_end; ++b) {
      const air_memplan_buffer_t* B = &M->buffers[b];
      if (B->arena != r) BAD(".air.memplan.buffers[%u]: arena %u, but it is in arena %u's range", b, B->arena, r);
      if (B->size % al || B->offset % al)
        BAD(".air.memplan.buffers[%u]: offset %llu and size %llu must be multiples of %llu", b,
            (unsigned long long)B->offset, (unsigned long long)B->size, (unsigned long long)al);
      if (B->offset > R->size || B->size > R->size - B->offset)
        BAD(".air.memplan.buffers[%u]: bytes %llu..+%llu outside arena %u's 0..%llu", b,
            (unsigned long long)B->offset, (unsigned long long)B->size, r,
            (unsigned long long)R->size);
      if (B->start > B->end) BAD(".air.memplan.buffers[%u]: lifetime %u..%u is reversed", b, B->start, B->end);
      /* Quadratic in an arena's buffers, which are few (allocs of one segment or herd). */
      for (uint32_t c = R->buffer_begin; c < b; ++c) {
        const air_memplan_buffer_t* C = &M->buffers[c];
        bool live = B->start < C->end && C->start < B->end;
        bool bytes = B->offset < C->offset + C->size && C->offset < B->offset + B->size;
        if (live && bytes)
          BAD(".air.memplan.buffers[%u]: shares bytes with buffers[%u] while both are live", b, c);
      }
    }
  }
  if (at != M->n_buffers) BAD(".air.memplan.arenas: the arenas hold %u buffers of %u", at, M->n_buffers);
  return NULL;
}

air_status_t air_art_check_structure(const char* name, air_schedule_t* s) {
  air_status_t st;
  if ((st = check_cmds(name, s)) || (st = check_ranges(name, s)) ||
      (st = check_wave_cmds(name, s)) || (st = check_waits(name, s)) ||
      (st = derive_levels_and_clocks(name, s)) || (st = check_edges(name, s)) ||
      (st = check_memplan(name, s)))
    return st;
  return NULL;
}

/* host_graph.c - the token graph of a block and the host-level graph of an
 * entry function (the tree's one host-graph builder; the compiler stores what it
 * gives in the schedule, so nothing downstream builds it again): queues from the placement, groups from shared channels (see
 * schedule.h and schedule_internal.h). Everything is linear in the ops walked:
 * value -> node lookups go through a per-value array, duplicates through a
 * per-node stamp, barriers through a chain. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/schedule_bind.h"
#include "scheduler/host_graph.h"

static void fill_none(uint32_t* a, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = AIR_SCHED_NONE;
}

bool air_sched_has_token_result(const air_program_t* p, const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_results; ++i)
    if (air_ir_type_is_token(p, air_ir_value_type(p, op->results[i]))) return true;
  return false;
}

/* Ops that only compute values (or make a buffer) and touch no shared state: they
 * order nothing by themselves. */
static bool is_pure(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_SUBVIEW:
    case AIR_OPC_RESHAPE: case AIR_OPC_TOKEN_ALLOC: case AIR_OPC_ALLOC: case AIR_OPC_OPAQUE:
    case AIR_OPC_CHANNEL: case AIR_OPC_FUNC: case AIR_OPC_TERMINATOR:
      return true;
    default:
      return false;
  }
}

/*---------------------------------------------------------------------------*/
/* Block graph                                                               */
/*---------------------------------------------------------------------------*/

typedef struct bg_t {
  const air_program_t* p;
  const air_allocator_t* a;
  const uint32_t* node_of;
  uint32_t* seen; /* per node: the node that last took it as a predecessor */
  uint32_t* pred;
  size_t n_pred, cap_pred;
  uint32_t cur;
  bool oom;
} bg_t;

static void add_pred(bg_t* g, uint32_t j) {
  if (j >= g->cur || g->seen[j] == g->cur) return;
  if (!air_mem_grow_z(g->a, (void**)&g->pred, &g->cap_pred, g->n_pred + 1, sizeof *g->pred)) {
    g->oom = true;
    return;
  }
  g->seen[j] = g->cur;
  g->pred[g->n_pred++] = j;
}

static void use_value(bg_t* g, air_vid_t v) {
  if (v < g->p->n_values) add_pred(g, g->node_of[v]);
}

/* Affinity and concurrency lists name partners, not predecessors: an edge from a
 * concurrency partner would serialise ops that must run together. */
static bool use_op(air_op_t* op, void* user) {
  bg_t* g = user;
  for (uint32_t i = 0; i < op->n_operands; ++i) use_value(g, op->operands[i]);
  for (uint32_t i = 0; i < op->toks[AIR_TOK_DEP].n; ++i)
    use_value(g, op->toks[AIR_TOK_DEP].items[i]);
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i) use_value(g, op->lists[l].items[i].value);
  return !g->oom;
}

static uint32_t block_ops(const air_block_t* b) {
  uint32_t n = 0;
  for (const air_op_t* op = b ? b->first : NULL; op; op = op->next)
    if (op != b->last || air_opkind_class(op->kind) != AIR_OPC_TERMINATOR) ++n;
  return n;
}

void air_sched_block_graph_free(const air_allocator_t* a, air_sched_block_graph_t* g) {
  a->free(a->self, g->ops);
  a->free(a->self, g->pred_off);
  a->free(a->self, g->pred);
  a->free(a->self, g->barrier);
  memset(g, 0, sizeof *g);
}

air_status_t air_sched_block_graph(const air_allocator_t* a, const air_program_t* p,
                                   const air_block_t* block, uint32_t* node_of,
                                   air_sched_block_graph_t* out) {
  memset(out, 0, sizeof *out);
  uint32_t n = block_ops(block);
  bg_t g = {.p = p, .a = a, .node_of = node_of};
  out->n = n;
  out->ops = air_mem_calloc(a, n, sizeof *out->ops);
  out->pred_off = air_mem_calloc(a, (size_t)n + 1, sizeof *out->pred_off);
  out->barrier = air_mem_calloc(a, n, 1);
  g.seen = air_mem_calloc(a, n, sizeof *g.seen);
  if (out->pred_off) out->pred_off[0] = 0;
  if (g.seen) fill_none(g.seen, n);
  uint32_t last_barrier = AIR_SCHED_NONE, since = 0, i = 0;
  for (const air_op_t* op = block->first; op && i < n && out->ops && out->pred_off &&
                                          out->barrier && g.seen && !g.oom;
       op = op->next, ++i) {
    out->ops[i] = op;
    g.cur = i;
    if (last_barrier != AIR_SCHED_NONE) add_pred(&g, last_barrier);
    air_ir_walk((air_op_t*)op, use_op, &g);
    if (!air_sched_has_token_result(p, op) && !is_pure(op)) {
      for (uint32_t j = since; j < i; ++j) add_pred(&g, j);
      out->barrier[i] = 1;
      last_barrier = i;
      since = i + 1;
    }
    out->pred_off[i + 1] = (uint32_t)g.n_pred;
    for (uint32_t r = 0; r < op->n_results; ++r)
      if (op->results[r] < p->n_values) node_of[op->results[r]] = i;
  }
  /* Restore the scratch for the next block. */
  for (uint32_t k = 0; k < i; ++k)
    for (uint32_t r = 0; r < out->ops[k]->n_results; ++r)
      if (out->ops[k]->results[r] < p->n_values) node_of[out->ops[k]->results[r]] = AIR_SCHED_NONE;
  a->free(a->self, g.seen);
  out->pred = g.pred;
  if (i < n || g.oom || g.n_pred > UINT32_MAX) {
    air_sched_block_graph_free(a, out);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory building a token graph");
  }
  return AIR_STATUS_OK_VALUE;
}

/*---------------------------------------------------------------------------*/
/* Small maps                                                                */
/*---------------------------------------------------------------------------*/

/* Open addressing, u64 key -> u32 value; keys are pointers or value ids + 1. */
typedef struct map_t {
  uint64_t* keys; /* 0 = empty */
  uint32_t* vals;
  size_t cap;     /* power of two */
} map_t;

static bool map_init(const air_allocator_t* a, map_t* m, size_t n) {
  m->cap = 16;
  while (m->cap < 2 * n + 2) m->cap *= 2;
  m->keys = air_mem_calloc(a, m->cap, sizeof *m->keys);
  m->vals = air_mem_calloc(a, m->cap, sizeof *m->vals);
  return m->keys && m->vals;
}

static void map_free(const air_allocator_t* a, map_t* m) {
  a->free(a->self, m->keys);
  a->free(a->self, m->vals);
}

static size_t map_slot(const map_t* m, uint64_t key) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

static uint32_t map_get(const map_t* m, uint64_t key) {
  size_t i = map_slot(m, key);
  return m->keys[i] ? m->vals[i] : AIR_SCHED_NONE;
}

/* Inserts unless present (the first value wins). The caller sized the map. */
static void map_put(map_t* m, uint64_t key, uint32_t val) {
  size_t i = map_slot(m, key);
  if (m->keys[i]) return;
  m->keys[i] = key;
  m->vals[i] = val;
}

static uint64_t str_key(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h ? h : 1;
}

static uint32_t uf_find(uint32_t* parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static void uf_unite(uint32_t* parent, uint32_t x, uint32_t y) {
  x = uf_find(parent, x);
  y = uf_find(parent, y);
  if (x != y) parent[x > y ? x : y] = x < y ? x : y;
}

/*---------------------------------------------------------------------------*/
/* Host graph                                                                */
/*---------------------------------------------------------------------------*/

typedef struct hg_t {
  const air_program_t* p;
  const air_allocator_t* a;
  const air_sched_block_graph_t* g;
  uint32_t* queue;
  uint32_t* group;
  uint32_t n_queues;
} hg_t;

/* Compute queues: the placement partition of a launch's first segment, dense in
 * order of first use and folded onto the available queues; launches sharing an
 * affinity token (transitively) take the queue of the first of them. */
static air_status_t assign_compute(hg_t* h, const air_placement_t* pl) {
  const air_allocator_t* a = h->a;
  const air_sched_block_graph_t* g = h->g;
  uint32_t n_compute = 0, n_aff = 0, max_part = 0;
  for (uint32_t i = 0; i < g->n; ++i) {
    air_opkind_t k = g->ops[i]->kind;
    n_compute += k == AIR_OP_LAUNCH || k == AIR_OP_SEGMENT || k == AIR_OP_HERD;
    if (k == AIR_OP_LAUNCH) n_aff += g->ops[i]->toks[AIR_TOK_AFF].n;
  }
  if (!n_compute) return AIR_STATUS_OK_VALUE;
  for (uint32_t i = 0; pl && i < pl->n_items; ++i)
    if (pl->items[i].partition > max_part) max_part = pl->items[i].partition;
  map_t seg = {0}, tok = {0};
  uint32_t* dense = air_mem_calloc(a, (size_t)max_part + 1, sizeof *dense);
  /* Union-find over nodes, only when some launch names an affinity token. */
  uint32_t* parent = n_aff ? air_mem_calloc(a, g->n, sizeof *parent) : NULL;
  bool ok = dense && (parent || !n_aff) && map_init(a, &seg, pl ? pl->n_items : 0) &&
            map_init(a, &tok, n_aff);
  if (ok) {
    fill_none(dense, (size_t)max_part + 1);
    for (uint32_t i = 0; pl && i < pl->n_items; ++i)
      if (pl->items[i].instance == 0 && pl->items[i].op->kind == AIR_OP_SEGMENT)
        map_put(&seg, (uint64_t)(uintptr_t)pl->items[i].op, pl->items[i].partition);
    for (uint32_t i = 0; parent && i < g->n; ++i) {
      parent[i] = i;
      const air_vlist_t* aff = &g->ops[i]->toks[AIR_TOK_AFF];
      if (g->ops[i]->kind != AIR_OP_LAUNCH) continue;
      for (uint32_t k = 0; k < aff->n; ++k) {
        uint32_t first = map_get(&tok, (uint64_t)aff->items[k] + 1);
        if (first == AIR_SCHED_NONE)
          map_put(&tok, (uint64_t)aff->items[k] + 1, i);
        else
          uf_unite(parent, i, first);
      }
    }
    uint32_t n_dense = 0, slots = AIR_PARTITION_MAX_QUEUES - AIR_SCHED_Q_COMPUTE;
    for (uint32_t i = 0; i < g->n; ++i) {
      const air_op_t* op = g->ops[i];
      if (op->kind != AIR_OP_LAUNCH && op->kind != AIR_OP_SEGMENT && op->kind != AIR_OP_HERD)
        continue;
      uint32_t root = parent ? uf_find(parent, i) : i;
      if (root != i) { /* an earlier affinity partner: its queue */
        h->queue[i] = h->queue[root];
        continue;
      }
      uint32_t part = AIR_SCHED_NONE;
      const air_block_t* body = op->kind == AIR_OP_LAUNCH && op->n_regions ? op->regions[0] : NULL;
      for (const air_op_t* c = body ? body->first : NULL; c; c = c->next)
        if (c->kind == AIR_OP_SEGMENT) {
          part = map_get(&seg, (uint64_t)(uintptr_t)c);
          break;
        }
      uint32_t c = 0;
      if (part != AIR_SCHED_NONE && part <= max_part) {
        if (dense[part] == AIR_SCHED_NONE) dense[part] = n_dense++;
        c = dense[part] % slots;
      }
      h->queue[i] = AIR_SCHED_Q_COMPUTE + c;
      if (AIR_SCHED_Q_COMPUTE + c + 1 > h->n_queues) h->n_queues = AIR_SCHED_Q_COMPUTE + c + 1;
    }
  }
  a->free(a->self, dense);
  a->free(a->self, parent);
  map_free(a, &seg);
  map_free(a, &tok);
  return ok ? AIR_STATUS_OK_VALUE
            : AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory assigning queues");
}

typedef struct chan_walk_t {
  const map_t* chans;
  uint32_t* parent; /* union-find over channel indices */
  uint32_t first;   /* the node's first channel */
} chan_walk_t;

static bool chan_op(air_op_t* op, void* user) {
  chan_walk_t* w = user;
  if ((op->kind != AIR_OP_PUT && op->kind != AIR_OP_GET) || !op->sym) return true;
  uint32_t c = map_get(w->chans, str_key(op->sym));
  if (c == AIR_SCHED_NONE) return true;
  if (w->first == AIR_SCHED_NONE)
    w->first = c;
  else
    uf_unite(w->parent, w->first, c);
  return true;
}

/* Host-level ops coupled through a channel: union the channels each op touches,
 * then ops whose channels meet form one group (when there are at least two). */
static air_status_t assign_groups(hg_t* h) {
  const air_allocator_t* a = h->a;
  const air_sched_block_graph_t* g = h->g;
  const air_block_t* mod = h->p->module->n_regions ? h->p->module->regions[0] : NULL;
  uint32_t nc = 0;
  for (const air_op_t* op = mod ? mod->first : NULL; op; op = op->next)
    nc += op->kind == AIR_OP_CHANNEL && op->sym;
  if (!nc) return AIR_STATUS_OK_VALUE;
  map_t chans = {0};
  uint32_t* parent = air_mem_calloc(a, nc, sizeof *parent);
  uint32_t* count = air_mem_calloc(a, nc, sizeof *count);
  uint32_t* dense = air_mem_calloc(a, nc, sizeof *dense);
  uint32_t* node_chan = air_mem_calloc(a, g->n, sizeof *node_chan);
  bool ok = parent && count && dense && node_chan && map_init(a, &chans, nc);
  if (ok) {
    uint32_t c = 0;
    for (const air_op_t* op = mod->first; op; op = op->next)
      if (op->kind == AIR_OP_CHANNEL && op->sym) {
        parent[c] = c;
        dense[c] = AIR_SCHED_NONE;
        map_put(&chans, str_key(op->sym), c++);
      }
    chan_walk_t w = {.chans = &chans, .parent = parent};
    for (uint32_t i = 0; i < g->n; ++i) {
      w.first = AIR_SCHED_NONE;
      air_ir_walk((air_op_t*)g->ops[i], chan_op, &w);
      node_chan[i] = w.first;
    }
    for (uint32_t i = 0; i < g->n; ++i)
      if (node_chan[i] != AIR_SCHED_NONE) ++count[uf_find(parent, node_chan[i])];
    uint32_t n_groups = 0;
    for (uint32_t i = 0; i < g->n; ++i) {
      if (node_chan[i] == AIR_SCHED_NONE) continue;
      uint32_t r = uf_find(parent, node_chan[i]);
      if (count[r] < 2) continue;
      if (dense[r] == AIR_SCHED_NONE) dense[r] = n_groups++;
      h->group[i] = dense[r];
    }
  }
  map_free(a, &chans);
  a->free(a->self, parent);
  a->free(a->self, count);
  a->free(a->self, dense);
  a->free(a->self, node_chan);
  return ok ? AIR_STATUS_OK_VALUE
            : AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory grouping channels");
}

static void* arena_copy(air_arena_t* arena, const void* src, size_t n, size_t size) {
  size_t bytes = n * size;
  void* d = air_arena_alloc(arena, bytes ? bytes : 1);
  if (d && bytes) memcpy(d, src, bytes);
  return d;
}

air_status_t air_sched_host_graph_placed(air_arena_t* arena, const air_allocator_t* a,
                                         const air_program_t* p, const air_op_t* entry,
                                         const air_placement_t* pl, air_sched_host_graph_t* out) {
  memset(out, 0, sizeof *out);
  if (!entry || entry->kind != AIR_OP_FUNC || !entry->n_regions || !entry->regions[0])
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "the entry is not a function with a body");
  uint32_t* node_of = air_mem_calloc(a, p->n_values, sizeof *node_of);
  if (!node_of)
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory building a token graph");
  fill_none(node_of, p->n_values);
  air_sched_block_graph_t g;
  air_status_t s = air_sched_block_graph(a, p, entry->regions[0], node_of, &g);
  a->free(a->self, node_of);
  if (s) return s;
  uint32_t n = g.n;
  hg_t h = {.p = p, .a = a, .g = &g, .n_queues = AIR_SCHED_Q_COMPUTE};
  h.queue = air_arena_alloc(arena, (size_t)n * sizeof *h.queue + 1);
  h.group = air_arena_alloc(arena, (size_t)n * sizeof *h.group + 1);
  out->kind = air_arena_alloc(arena, (size_t)n * sizeof *out->kind + 1);
  uint32_t* pred_off = arena_copy(arena, g.pred_off, (size_t)n + 1, sizeof *g.pred_off);
  uint32_t* pred = arena_copy(arena, g.pred, g.pred_off[n], sizeof *g.pred);
  if (!h.queue || !h.group || !out->kind || !pred_off || !pred)
    s = AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory building the host graph");
  for (uint32_t i = 0; !s && i < n; ++i) {
    out->kind[i] = air_sched_cmd_kind_of(g.ops[i]);
    h.group[i] = AIR_PARTITION_NO_GROUP;
    h.queue[i] = out->kind[i] == AIR_SCHED_CMD_DMA || out->kind[i] == AIR_SCHED_CMD_CHANNEL
                     ? AIR_SCHED_Q_DMA
                     : AIR_SCHED_Q_HOST;
  }
  if (!s) s = assign_compute(&h, pl);
  if (!s) s = assign_groups(&h);
  if (!s) {
    out->queue_kind = air_arena_alloc(arena, h.n_queues);
    if (!out->queue_kind)
      s = AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory building the host graph");
  }
  if (!s) {
    for (uint32_t q = 0; q < h.n_queues; ++q)
      out->queue_kind[q] = q < AIR_SCHED_Q_COMPUTE ? (uint8_t)q : AIR_SCHED_Q_COMPUTE;
    out->graph = (air_partition_graph_t){.n = n, .pred_off = pred_off, .pred = pred,
                                         .queue = h.queue, .n_queues = h.n_queues,
                                         .group = h.group};
  }
  air_sched_block_graph_free(a, &g);
  if (s) memset(out, 0, sizeof *out);
  return s;
}

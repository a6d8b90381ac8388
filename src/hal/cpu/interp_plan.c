/* interp_plan.c - a compiled schedule bound to its program for the CPU executor,
 * prepared once per executable so a run only reads it: each wave's commands in
 * ascending op order (channel tickets are then taken in program order, as the
 * dynamic path takes them), the gates between waves (the previous wave of the
 * queue plus the kept waits), the orderings the driver itself must honour inside
 * a wave, and where the memory plan puts host-level L3 allocs.
 *
 * Orderings inside a wave come from the host graph (schedule.h): an edge between
 * two commands of one wave (a channel group) makes the later wait for the earlier.
 * Every edge across waves must be implied by the partition, or the schedule does
 * not fit the program (DATA_LOSS). Affinity lists are not edges (they name
 * partners), yet the executor needs the token value: a command naming an affinity
 * token that no edge orders it after waits for the command that makes it
 * ("watch" entries: bit 31 set, the producer's command index below). */
#include <stdlib.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "runtime/base/status_util.h"
#include "runtime/target/target.h"

#define PLAN_NONE UINT32_MAX
#define PLAN_WATCH (1u << 31)

static void* zalloc(const air_allocator_t* a, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) return NULL;
  size_t bytes = n * size;
  void* p = a->alloc(a->self, bytes ? bytes : 1);
  if (p) memset(p, 0, bytes ? bytes : 1);
  return p;
}

static air_status_t oom(const air_allocator_t* a) {
  return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory preparing a schedule");
}

void air_interp_plan_free(air_interp_plan_t* pl) {
  if (!pl) return;
  air_allocator_t a = pl->alloc;
  void* arrays[] = {pl->ops, pl->wave_cmd, pl->cmds, pl->gates, pl->succ_off, pl->succ,
                    pl->pred_off, pl->pred, pl->pos, pl->early, pl->l3};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
    if (arrays[i]) a.free(a.self, arrays[i]);
  a.free(a.self, pl);
}

const air_op_t* air_interp_plan_entry(const air_interp_plan_t* pl) { return pl->entry; }

void air_interp_plan_transient(const air_interp_plan_t* pl, uint64_t* size, uint32_t* alignment) {
  if (size) *size = pl->transient_size;
  if (alignment) *alignment = pl->alignment;
}

static int u32_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : x > y;
}

/* The partition must describe exactly the body's ops; anything else is a schedule
 * for another program. */
static air_status_t check_partition(const air_allocator_t* a, const air_schedule_t* sc) {
  const air_partition_t* P = sc->partition;
  if (!P || P->n_nodes != sc->n_body_ops || !P->n_queues || P->n_waves > P->n_nodes)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                      "the schedule's partition does not cover the %u ops of @%s",
                      sc->n_body_ops, sc->entry);
  uint32_t next = 0;
  for (uint32_t q = 0; q < P->n_queues; ++q) {
    const air_partition_queue_t* Q = &P->queues[q];
    if (Q->wave_begin != next || Q->wave_end < Q->wave_begin || Q->wave_end > P->n_waves)
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule's queue %u has a bad wave range", q);
    next = Q->wave_end;
  }
  if (next != P->n_waves)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule's queues do not cover its waves");
  for (uint32_t w = 0; w < P->n_waves; ++w) {
    const air_partition_wave_t* W = &P->waves[w];
    if (W->cmd_begin >= W->cmd_end || W->cmd_end > P->n_nodes || W->wait_begin > W->wait_end ||
        W->wait_end > P->n_waits || W->queue >= P->n_queues ||
        w < P->queues[W->queue].wave_begin || w >= P->queues[W->queue].wave_end)
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule's wave %u is malformed", w);
    for (uint32_t k = W->cmd_begin; k < W->cmd_end; ++k)
      if (P->cmds[k] >= P->n_nodes || P->node_wave[P->cmds[k]] != w)
        return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                          "the schedule's wave %u lists a command of another wave", w);
    for (uint32_t k = W->wait_begin; k < W->wait_end; ++k) {
      const air_partition_wait_t* x = &P->waits[k];
      if (x->queue >= P->n_queues ||
          x->value > P->queues[x->queue].wave_end - P->queues[x->queue].wave_begin)
        return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                          "the schedule's wave %u waits for a wave that does not exist", w);
    }
  }
  return NULL;
}

/* Each wave's commands ascending; gates: previous wave of the queue + each wait. */
static air_status_t build_waves(air_interp_plan_t* pl) {
  const air_allocator_t* a = &pl->alloc;
  const air_partition_t* P = pl->part;
  uint32_t nw = P->n_waves;
  pl->wave_cmd = zalloc(a, (size_t)nw + 1, sizeof *pl->wave_cmd);
  pl->cmds = zalloc(a, pl->n_cmds, sizeof *pl->cmds);
  pl->pos = zalloc(a, pl->n_cmds, sizeof *pl->pos);
  pl->gates = zalloc(a, nw, sizeof *pl->gates);
  pl->succ_off = zalloc(a, (size_t)nw + 1, sizeof *pl->succ_off);
  if (!pl->wave_cmd || !pl->cmds || !pl->pos || !pl->gates || !pl->succ_off) return oom(a);
  uint32_t n = 0;
  for (uint32_t w = 0; w < nw; ++w) {
    const air_partition_wave_t* W = &P->waves[w];
    pl->wave_cmd[w] = n;
    uint32_t width = W->cmd_end - W->cmd_begin;
    if (n + width > pl->n_cmds)
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule lists a command twice");
    memcpy(pl->cmds + n, P->cmds + W->cmd_begin, width * sizeof *pl->cmds);
    qsort(pl->cmds + n, width, sizeof *pl->cmds, u32_cmp);
    for (uint32_t k = 0; k < width; ++k) pl->pos[pl->cmds[n + k]] = k;
    if (width > pl->max_width) pl->max_width = width;
    n += width;
  }
  pl->wave_cmd[nw] = n;
  if (n != pl->n_cmds)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule's waves miss some commands");
  /* Counting pass, then filling; `gate_of` says which wave opens gate (w, j). */
  for (int pass = 0; pass < 2; ++pass) {
    uint32_t* fill = NULL;
    if (pass == 1) {
      for (uint32_t w = 0; w < nw; ++w) pl->succ_off[w + 1] += pl->succ_off[w];
      pl->succ = zalloc(a, pl->succ_off[nw], sizeof *pl->succ);
      fill = zalloc(a, nw, sizeof *fill);
      if (!pl->succ || !fill) {
        a->free(a->self, fill);
        return oom(a);
      }
    }
    for (uint32_t w = 0; w < nw; ++w) {
      const air_partition_wave_t* W = &P->waves[w];
      uint32_t first = P->queues[W->queue].wave_begin;
      for (uint32_t j = W->wait_begin; j <= W->wait_end; ++j) {
        uint32_t from;
        if (j == W->wait_end) { /* the barrier: the queue's previous wave */
          if (w == first) continue;
          from = w - 1;
        } else {
          const air_partition_wait_t* x = &P->waits[j];
          if (!x->value) continue;
          from = P->queues[x->queue].wave_begin + x->value - 1;
        }
        if (pass == 0) {
          pl->succ_off[from + 1]++;
          pl->gates[w]++;
        } else {
          pl->succ[pl->succ_off[from] + fill[from]++] = w;
        }
      }
    }
    if (pass == 1) a->free(a->self, fill);
  }
  return NULL;
}

typedef struct vec_t {
  uint32_t* v;
  size_t n, cap;
} vec_t;

static bool vec_push(const air_allocator_t* a, vec_t* x, uint32_t v) {
  if (x->n == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    uint32_t* nv = a->realloc(a->self, x->v, cap * sizeof *nv);
    if (!nv) return false;
    x->v = nv;
    x->cap = cap;
  }
  x->v[x->n++] = v;
  return true;
}

typedef struct aff_walk_t {
  const air_interp_plan_t* pl;
  const uint32_t* cmd_of;  /* value -> body op defining it */
  uint32_t self;
  vec_t* out;
  bool oom;
} aff_walk_t;

static bool aff_op(air_op_t* op, void* user) {
  aff_walk_t* w = user;
  const air_vlist_t* aff = &op->toks[AIR_TOK_AFF];
  for (uint32_t k = 0; k < aff->n && !w->oom; ++k) {
    uint32_t j = aff->items[k] < w->pl->program->n_values ? w->cmd_of[aff->items[k]] : PLAN_NONE;
    if (j == PLAN_NONE || j == w->self || air_partition_orders(w->pl->part, j, w->self)) continue;
    if (!vec_push(&w->pl->alloc, w->out, j)) w->oom = true;
  }
  return !w->oom;
}

static const char* op_name(const air_op_t* op) { return air_opkind_name(op->kind); }

/* In-wave predecessors (positions) and watch entries, per command. */
static air_status_t build_preds(air_interp_plan_t* pl, const air_program_t* p) {
  const air_allocator_t* a = &pl->alloc;
  const air_partition_t* P = pl->part;
  const air_target_t* target = NULL;
  AIR_RETURN_IF_ERROR(air_target_lookup(a, pl->schedule->target, &target));
  air_arena_t arena;
  air_arena_init(&arena, a);
  air_sched_host_graph_t hg;
  air_status_t st = air_schedule_host_graph(&arena, a, p, pl->entry, target, &hg);
  if (!st && hg.graph.n != pl->n_cmds)
    st = AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule does not fit @%s", pl->schedule->entry);
  uint32_t* cmd_of = st ? NULL : zalloc(a, p->n_values ? p->n_values : 1, sizeof *cmd_of);
  if (!st && !cmd_of) st = oom(a);
  if (st) {
    air_arena_deinit(&arena);
    return st;
  }
  for (uint32_t v = 0; v < p->n_values; ++v) cmd_of[v] = PLAN_NONE;
  for (uint32_t i = 0; i < pl->n_cmds; ++i)
    for (uint32_t r = 0; r < pl->ops[i]->n_results; ++r)
      if (pl->ops[i]->results[r] < p->n_values) cmd_of[pl->ops[i]->results[r]] = i;
  pl->pred_off = zalloc(a, (size_t)pl->n_cmds + 1, sizeof *pl->pred_off);
  pl->early = zalloc(a, pl->n_cmds, sizeof *pl->early);
  vec_t preds = {0}, mine = {0};
  if (!pl->pred_off || !pl->early) st = oom(a);
  for (uint32_t i = 0; i < pl->n_cmds; ++i) pl->early[i] = PLAN_NONE;
  for (uint32_t i = 0; !st && i < pl->n_cmds; ++i) {
    mine.n = 0;
    for (uint32_t k = hg.graph.pred_off[i]; k < hg.graph.pred_off[i + 1]; ++k) {
      uint32_t j = hg.graph.pred[k];
      if (j >= i) {
        st = AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the host graph is not topological");
      } else if (P->node_wave[j] == P->node_wave[i]) {
        if (!vec_push(a, &mine, j)) st = oom(a);
      } else if (!air_partition_orders(P, j, i)) {
        const air_op_t *x = pl->ops[j], *y = pl->ops[i];
        st = air_ir_error_at(p, AIR_STATUS_DATA_LOSS, y->line, y->col, __FILE__, __LINE__,
                             "the schedule does not run %s after %s at %s:%u:%u, which it "
                             "depends on", op_name(y), op_name(x), p->filename, x->line, x->col);
      }
    }
    size_t edges = mine.n;
    aff_walk_t w = {.pl = pl, .cmd_of = cmd_of, .self = i, .out = &mine};
    if (!st) air_ir_walk((air_op_t*)pl->ops[i], aff_op, &w);
    if (!st && w.oom) st = oom(a);
    for (size_t k = edges; !st && k < mine.n; ++k) { /* affinity producers */
      uint32_t j = mine.v[k];
      if (P->node_wave[j] != P->node_wave[i]) {
        if (pl->early[j] == PLAN_NONE) pl->early[j] = pl->n_early++;
        mine.v[k] = PLAN_WATCH | j;
      }
    }
    if (st) break;
    if (mine.n > 1) qsort(mine.v, mine.n, sizeof *mine.v, u32_cmp);
    for (size_t k = 0; k < mine.n; ++k) {
      if (k && mine.v[k] == mine.v[k - 1]) continue;
      uint32_t e = mine.v[k] & PLAN_WATCH ? mine.v[k] : pl->pos[mine.v[k]];
      if (!vec_push(a, &preds, e)) {
        st = oom(a);
        break;
      }
    }
    if (preds.n > UINT32_MAX) st = oom(a);
    pl->pred_off[i + 1] = (uint32_t)preds.n;
  }
  a->free(a->self, mine.v);
  a->free(a->self, cmd_of);
  air_arena_deinit(&arena);
  pl->pred = preds.v;
  if (!st && !pl->pred) pl->pred = zalloc(a, 1, sizeof *pl->pred);
  return st ? st : pl->pred ? NULL : oom(a);
}

static int l3_cmp(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const ix_l3_t*)a)->op, y = (uintptr_t)((const ix_l3_t*)b)->op;
  return x < y ? -1 : x > y;
}

/* An alloc runs once per run when it is a body op or sits directly in the region
 * of a body-level air.execute; only those may keep one planned place (an alloc in
 * a loop gets a fresh buffer per iteration, as on the dynamic path). */
static bool runs_once(const air_op_t* entry, const air_op_t* op) {
  const air_op_t* up = air_ir_parent_op(op);
  if (up == entry) return true;
  return up && up->kind == AIR_OP_EXECUTE && air_ir_parent_op(up) == entry;
}

static air_status_t build_l3(air_interp_plan_t* pl) {
  const air_allocator_t* a = &pl->alloc;
  const air_memplan_t* M = &pl->schedule->memplan;
  pl->alignment = M->alignment ? M->alignment : AIR_MEMPLAN_DEFAULT_ALIGNMENT;
  if (pl->alignment & (pl->alignment - 1))
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the memory plan's alignment %u is not a power "
                      "of two", pl->alignment);
  const air_memplan_arena_t* A = M->n_arenas ? &M->arenas[0] : NULL;
  if (!A || A->space != AIR_MEMPLAN_L3 || A->buffer_begin == A->buffer_end) return NULL;
  if (A->buffer_end > M->n_buffers || A->buffer_begin > A->buffer_end)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the memory plan's L3 arena is malformed");
  const air_op_t** pre = NULL;
  uint32_t n_pre = 0;
  AIR_RETURN_IF_ERROR(air_schedule_preorder(a, pl->entry, &pre, &n_pre));
  pl->l3 = zalloc(a, A->buffer_end - A->buffer_begin, sizeof *pl->l3);
  air_status_t st = pl->l3 ? NULL : oom(a);
  for (uint32_t i = A->buffer_begin; !st && i < A->buffer_end; ++i) {
    const air_memplan_buffer_t* b = &M->buffers[i];
    const air_op_t* op = b->op < n_pre ? pre[b->op] : NULL;
    if (!op || op->kind != AIR_OP_ALLOC || !op->n_results || b->offset % pl->alignment ||
        b->offset > A->size || b->size > A->size - b->offset) {
      st = AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the memory plan's L3 buffer %u is malformed", i);
      break;
    }
    if (!runs_once(pl->entry, op)) continue;
    const air_type_info_t* t = air_ir_type(pl->program, air_ir_value_type(pl->program, op->results[0]));
    uint64_t bytes = air_elem_size(t->elem);
    bool fixed = t->kind == AIR_TYPE_MEMREF && t->rank <= AIR_MAX_RANK;
    for (uint32_t k = 0; fixed && k < t->rank; ++k)
      fixed = t->shape[k] >= 0 && !__builtin_mul_overflow(bytes, (uint64_t)t->shape[k], &bytes);
    if (!fixed || !bytes) continue; /* left to the dynamic allocator */
    if (bytes > b->size) {
      st = AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                      "the memory plan gives memref.alloc at %u:%u %llu bytes, it needs %llu",
                      op->line, op->col, (unsigned long long)b->size, (unsigned long long)bytes);
      break;
    }
    pl->l3[pl->n_l3++] = (ix_l3_t){.op = op, .offset = b->offset, .bytes = bytes};
    if (b->offset + b->size > pl->transient_size) pl->transient_size = b->offset + b->size;
  }
  a->free(a->self, pre);
  if (!st) qsort(pl->l3, pl->n_l3, sizeof *pl->l3, l3_cmp);
  return st;
}

air_status_t air_interp_plan_build(const air_allocator_t* a, const air_program_t* p,
                                   const air_schedule_t* sc, air_interp_plan_t** out) {
  *out = NULL;
  if (!a || !p || !sc)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_interp_plan_build: NULL argument");
  air_interp_plan_t* pl = zalloc(a, 1, sizeof *pl);
  if (!pl) return oom(a);
  pl->alloc = *a;
  pl->schedule = sc;
  pl->program = p;
  pl->part = sc->partition;
  pl->n_cmds = sc->n_body_ops;
  air_status_t st = air_schedule_bind(a, sc, p, &pl->entry, &pl->ops);
  if (!st) st = check_partition(a, sc);
  if (!st) {
    pl->n_waves = sc->partition->n_waves;
    st = build_waves(pl);
  }
  if (!st) st = build_preds(pl, p);
  if (!st) st = build_l3(pl);
  if (st) {
    air_interp_plan_free(pl);
    return st;
  }
  *out = pl;
  return NULL;
}

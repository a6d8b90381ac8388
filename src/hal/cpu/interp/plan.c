/* plan.c - a compiled schedule bound to its program for the CPU executor,
 * prepared once per executable so a run only reads it: each wave's commands in
 * ascending op order (channel tickets are then taken in program order, as the
 * dynamic path takes them), the gates between waves (the previous wave of the
 * queue plus the kept waits), the orderings the wave opener must honour inside
 * a wave, and where the memory plan puts host-level L3 allocs.
 *
 * Everything comes from the schedule (scheduler/schedule.h, the HAL contract),
 * which the compiler made or the artifact reader checked: nothing is analysed
 * again here. In-wave edges make the later command wait for the earlier.
 * Affinity lists are not edges (they name partners), yet the executor needs the
 * token value: an affinity producer in the command's own wave is one more in-wave
 * edge; one in another wave becomes a "watch" entry (bit 31 set, the producer's
 * command index below) and the run makes its token up front. */
#include "hal/cpu/interp/plan.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/schedule_bind.h"

static air_status_t oom(const air_allocator_t* a) {
  return AIR_STATUS_OOM(a, "preparing a schedule");
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

/* Each wave's commands ascending; gates: previous wave of the queue + each wait. */
static air_status_t build_waves(air_interp_plan_t* pl) {
  const air_allocator_t* a = &pl->alloc;
  const air_partition_t* P = pl->part;
  uint32_t nw = P->n_waves;
  pl->wave_cmd = air_mem_calloc(a, (size_t)nw + 1, sizeof *pl->wave_cmd);
  pl->cmds = air_mem_calloc(a, pl->n_cmds, sizeof *pl->cmds);
  pl->pos = air_mem_calloc(a, pl->n_cmds, sizeof *pl->pos);
  pl->gates = air_mem_calloc(a, nw, sizeof *pl->gates);
  pl->succ_off = air_mem_calloc(a, (size_t)nw + 1, sizeof *pl->succ_off);
  if (!pl->wave_cmd || !pl->cmds || !pl->pos || !pl->gates || !pl->succ_off) return oom(a);
  uint32_t n = 0;
  for (uint32_t w = 0; w < nw; ++w) {
    const air_partition_wave_t* W = &P->waves[w];
    pl->wave_cmd[w] = n;
    uint32_t width = W->cmd_end - W->cmd_begin;
    memcpy(pl->cmds + n, P->cmds + W->cmd_begin, width * sizeof *pl->cmds);
    qsort(pl->cmds + n, width, sizeof *pl->cmds, u32_cmp);
    for (uint32_t k = 0; k < width; ++k) pl->pos[pl->cmds[n + k]] = k;
    if (width > pl->max_width) pl->max_width = width;
    n += width;
  }
  pl->wave_cmd[nw] = n;
  /* Counting pass, then filling; `gate_of` says which wave opens gate (w, j). */
  for (int pass = 0; pass < 2; ++pass) {
    uint32_t* fill = NULL;
    if (pass == 1) {
      for (uint32_t w = 0; w < nw; ++w) pl->succ_off[w + 1] += pl->succ_off[w];
      pl->succ = air_mem_calloc(a, pl->succ_off[nw], sizeof *pl->succ);
      fill = air_mem_calloc(a, nw, sizeof *fill);
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

/* In-wave predecessors (positions) and watch entries, per command, read from the
 * schedule's in-wave edges and affinity producers. */
static air_status_t build_preds(air_interp_plan_t* pl) {
  const air_allocator_t* a = &pl->alloc;
  const air_schedule_t* sc = pl->schedule;
  const air_partition_t* P = pl->part;
  uint32_t n_edges = 0;
  for (uint32_t i = 0; i < pl->n_cmds; ++i)
    n_edges += (sc->wave_pred_end[i] - sc->pred_off[i]) + (sc->aff_off[i + 1] - sc->aff_off[i]);
  pl->pred_off = air_mem_calloc(a, (size_t)pl->n_cmds + 1, sizeof *pl->pred_off);
  pl->early = air_mem_calloc(a, pl->n_cmds, sizeof *pl->early);
  pl->pred = air_mem_calloc(a, n_edges, sizeof *pl->pred);
  uint32_t* mine = air_mem_calloc(a, n_edges, sizeof *mine);
  if (!pl->pred_off || !pl->early || !pl->pred || !mine) {
    air_mem_free(a, mine);
    return oom(a);
  }
  for (uint32_t i = 0; i < pl->n_cmds; ++i) pl->early[i] = PLAN_NONE;
  uint32_t n = 0;
  for (uint32_t i = 0; i < pl->n_cmds; ++i) {
    uint32_t m = 0;
    for (uint32_t k = sc->pred_off[i]; k < sc->wave_pred_end[i]; ++k) mine[m++] = sc->preds[k];
    for (uint32_t k = sc->aff_off[i]; k < sc->aff_off[i + 1]; ++k) {
      uint32_t j = sc->aff[k];
      if (P->node_wave[j] != P->node_wave[i]) { /* a watch: the run makes j's token early */
        if (pl->early[j] == PLAN_NONE) pl->early[j] = pl->n_early++;
        j |= PLAN_WATCH;
      }
      mine[m++] = j;
    }
    if (m > 1) qsort(mine, m, sizeof *mine, u32_cmp);
    for (uint32_t k = 0; k < m; ++k) {
      if (k && mine[k] == mine[k - 1]) continue;
      pl->pred[n++] = mine[k] & PLAN_WATCH ? mine[k] : pl->pos[mine[k]];
    }
    pl->pred_off[i + 1] = n;
  }
  air_mem_free(a, mine);
  return NULL;
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
  pl->l3 = air_mem_calloc(a, A->buffer_end - A->buffer_begin, sizeof *pl->l3);
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
  air_interp_plan_t* pl = air_mem_calloc(a, 1, sizeof *pl);
  if (!pl) return oom(a);
  pl->alloc = *a;
  pl->schedule = sc;
  pl->program = p;
  pl->part = sc->partition;
  pl->n_cmds = sc->n_body_ops;
  air_status_t st = air_schedule_bind(a, sc, p, &pl->entry, &pl->ops);
  if (!st) {
    pl->n_waves = sc->partition->n_waves;
    st = build_waves(pl);
  }
  if (!st) st = build_preds(pl);
  if (!st) st = build_l3(pl);
  if (st) {
    air_interp_plan_free(pl);
    return st;
  }
  *out = pl;
  return NULL;
}

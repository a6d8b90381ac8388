/* compile.c - air_schedule_compile: resources, placement, host graph, partition,
 * the contract's edges and affinity producers, memory plan, in that order (see
 * compile.h and schedule.h). Everything a driver needs is computed here, once. */
#include "scheduler/compile.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/memplan.h"
#include "scheduler/npu_l3.h"
#include "scheduler/schedule_bind.h"
#include "scheduler/host_graph.h"

static bool has_launch(const air_op_t* entry) {
  for (const air_op_t* op = entry->regions[0]->first; op; op = op->next)
    if (op->kind == AIR_OP_LAUNCH) return true;
  return false;
}

/* Resources, their check and the placement; `*placed` says whether `pl` holds
 * one (only programs with a launch need it, and large host bodies skip the cost). */
static air_status_t analyse(const air_program_t* p, const air_op_t* entry, const air_target_t* t,
                            bool check, air_placement_t* pl, bool* placed) {
  *placed = false;
  memset(pl, 0, sizeof *pl);
  if (!check && !has_launch(entry)) return AIR_STATUS_OK_VALUE;
  air_resources_t r;
  AIR_RETURN_IF_ERROR(air_resources_analyze(p, t, &r));
  air_status_t s = check ? air_resources_check(p, &r) : AIR_STATUS_OK_VALUE;
  if (!s) s = air_place(p, &r, pl);
  air_resources_free(&r);
  *placed = !s;
  return s;
}

air_status_t air_schedule_host_graph(air_arena_t* arena, const air_allocator_t* allocator,
                                     const air_program_t* program, const air_op_t* entry,
                                     const air_target_t* target, air_sched_host_graph_t* out) {
  memset(out, 0, sizeof *out);
  if (!entry || entry->kind != AIR_OP_FUNC || !entry->n_regions || !entry->regions[0])
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "the entry is not a function with a body");
  air_placement_t pl;
  bool placed;
  AIR_RETURN_IF_ERROR(analyse(program, entry, target, false, &pl, &placed));
  air_status_t s =
      air_sched_host_graph_placed(arena, allocator, program, entry, placed ? &pl : NULL, out);
  if (placed) air_placement_free(&pl);
  return s;
}

static char* arena_strdup(air_arena_t* arena, const char* s) {
  size_t n = strlen(s) + 1;
  char* d = air_arena_alloc(arena, n);
  if (d) memcpy(d, s, n);
  return d;
}

static void* arena_array(air_arena_t* arena, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) return NULL;
  return air_arena_alloc(arena, n ? n * size : 1);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int u32_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : x > y;
}

/* Affinity tokens named anywhere inside one command, as the producing commands. */
typedef struct aff_walk_t {
  const air_allocator_t* a;
  const air_program_t* p;
  const uint32_t* cmd_of;  /* value -> body op defining it */
  uint32_t* v;
  uint32_t n, cap;
  bool oom;
} aff_walk_t;

static bool aff_op(air_op_t* op, void* user) {
  aff_walk_t* w = user;
  const air_vlist_t* aff = &op->toks[AIR_TOK_AFF];
  for (uint32_t k = 0; k < aff->n && !w->oom; ++k) {
    uint32_t j = aff->items[k] < w->p->n_values ? w->cmd_of[aff->items[k]] : AIR_SCHED_NONE;
    if (j == AIR_SCHED_NONE) continue;
    if (!air_mem_grow(w->a, (void**)&w->v, &w->cap, (size_t)w->n + 1, sizeof *w->v))
      w->oom = true;
    else
      w->v[w->n++] = j;
  }
  return !w->oom;
}

/* The contract's edges (schedule.h): per command its host-graph predecessors with
 * those of its own wave first, its channel group, and the producers of the
 * affinity tokens it names that the partition does not already order before it. */
static air_status_t store_edges(air_schedule_t* sc, const air_sched_host_graph_t* hg,
                                const air_program_t* p, const air_op_t* entry) {
  const air_allocator_t* a = &sc->allocator;
  const air_partition_graph_t* g = &hg->graph;
  const air_partition_t* P = sc->partition;
  uint32_t n = g->n, n_preds = g->pred_off[n];
  air_arena_t* ar = &sc->arena;
  sc->pred_off = arena_array(ar, (size_t)n + 1, sizeof *sc->pred_off);
  sc->preds = arena_array(ar, n_preds, sizeof *sc->preds);
  sc->wave_pred_end = arena_array(ar, n, sizeof *sc->wave_pred_end);
  sc->group = arena_array(ar, n, sizeof *sc->group);
  sc->aff_off = arena_array(ar, (size_t)n + 1, sizeof *sc->aff_off);
  uint32_t* cmd_of = air_mem_alloc(a, (size_t)(p->n_values ? p->n_values : 1) * sizeof *cmd_of);
  if (!sc->pred_off || !sc->preds || !sc->wave_pred_end || !sc->group || !sc->aff_off || !cmd_of) {
    air_mem_free(a, cmd_of);
    return AIR_STATUS_OOM(a, "storing the schedule's edges");
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t w = P->node_wave[i], at = g->pred_off[i], end = g->pred_off[i + 1];
    sc->pred_off[i] = at;
    for (uint32_t k = g->pred_off[i]; k < end; ++k)
      if (P->node_wave[g->pred[k]] == w) sc->preds[at++] = g->pred[k];
    sc->wave_pred_end[i] = at;
    for (uint32_t k = g->pred_off[i]; k < end; ++k)
      if (P->node_wave[g->pred[k]] != w) sc->preds[at++] = g->pred[k];
    sc->group[i] = g->group ? g->group[i] : AIR_PARTITION_NO_GROUP;
  }
  sc->pred_off[n] = n_preds;
  for (uint32_t v = 0; v < p->n_values; ++v) cmd_of[v] = AIR_SCHED_NONE;
  const air_op_t* op = entry->regions[0]->first;
  for (uint32_t i = 0; i < n && op; ++i, op = op->next)
    for (uint32_t r = 0; r < op->n_results; ++r)
      if (op->results[r] < p->n_values) cmd_of[op->results[r]] = i;
  aff_walk_t w = {.a = a, .p = p, .cmd_of = cmd_of};
  uint32_t* out = NULL;
  uint32_t n_out = 0, cap_out = 0;
  op = entry->regions[0]->first;
  for (uint32_t i = 0; i < n && op && !w.oom; ++i, op = op->next) {
    sc->aff_off[i] = n_out;
    w.n = 0;
    air_ir_walk((air_op_t*)op, aff_op, &w);
    if (w.n > 1) qsort(w.v, w.n, sizeof *w.v, u32_cmp);
    for (uint32_t k = 0; k < w.n && !w.oom; ++k) {
      uint32_t j = w.v[k];
      if ((k && j == w.v[k - 1]) || j >= i || air_partition_orders(P, j, i)) continue;
      if (!air_mem_grow(a, (void**)&out, &cap_out, (size_t)n_out + 1, sizeof *out))
        w.oom = true;
      else
        out[n_out++] = j;
    }
  }
  sc->aff_off[n] = n_out;
  sc->aff = w.oom ? NULL : arena_array(ar, n_out, sizeof *sc->aff);
  if (sc->aff && n_out) memcpy(sc->aff, out, (size_t)n_out * sizeof *out);
  air_mem_free(a, w.v);
  air_mem_free(a, out);
  air_mem_free(a, cmd_of);
  return sc->aff ? AIR_STATUS_OK_VALUE : AIR_STATUS_OOM(a, "storing the affinity producers");
}

/* The NPU instruction stream of the entry's L3 transfers (npu_l3.h); a program
 * it cannot lower keeps the reason instead, so the schedule still serves reports
 * and the other drivers. */
static air_status_t store_npu_insts(air_schedule_t* sc, const air_program_t* p,
                                    const air_op_t* entry, const air_target_t* t) {
  uint32_t* w = NULL;
  size_t n = 0;
  air_status_t s = air_npu_l3_lower(&sc->allocator, p, entry, t, &w, &n);
  if (s) {
    if (air_status_code(s) == AIR_STATUS_RESOURCE_EXHAUSTED &&
        strstr(air_status_message(s), "out of memory")) return s;
    sc->npu_error = arena_strdup(&sc->arena, air_status_message(s));
    air_status_free(s);
    return sc->npu_error ? NULL : AIR_STATUS_OOM(&sc->allocator, "compiling");
  }
  if (n > UINT32_MAX || !(sc->npu_insts = arena_array(&sc->arena, n, sizeof *w))) {
    air_mem_free(&sc->allocator, w);
    return AIR_STATUS_OOM(&sc->allocator, "the NPU instruction stream");
  }
  memcpy(sc->npu_insts, w, n * sizeof *w);
  sc->n_npu_insts = (uint32_t)n;
  air_mem_free(&sc->allocator, w);
  return NULL;
}

air_status_t air_schedule_compile(const air_allocator_t* allocator, const air_program_t* program,
                                  const char* entry_name, const air_target_t* target,
                                  air_schedule_t** out) {
  *out = NULL;
  air_allocator_t heap;
  allocator = air_mem_or_system(allocator, &heap);
  uint64_t t0 = now_ns();
  const air_op_t* entry = air_schedule_find_entry(program, entry_name);
  if (!entry) {
    const char* file = program->filename ? program->filename : "<input>";
    if (entry_name)
      return AIR_STATUS(allocator, AIR_STATUS_NOT_FOUND, "%s: error: unknown entry function @%s",
                        file, entry_name);
    return AIR_STATUS(allocator, AIR_STATUS_NOT_FOUND,
                      "%s: error: no function with a body to compile", file);
  }
  air_schedule_t* sc = air_mem_calloc(allocator, 1, sizeof *sc);
  if (!sc) return AIR_STATUS_OOM(allocator, "compiling");
  sc->allocator = *allocator;
  air_arena_init(&sc->arena, allocator);
  air_placement_t pl;
  bool placed = false;
  air_status_t s = analyse(program, entry, target, true, &pl, &placed);
  /* The graph is scratch: its kinds, edges and groups are copied into the schedule. */
  air_arena_t scratch;
  air_arena_init(&scratch, allocator);
  air_sched_host_graph_t hg;
  if (!s) s = air_sched_host_graph_placed(&scratch, allocator, program, entry,
                                          placed ? &pl : NULL, &hg);
  if (placed) air_placement_free(&pl);
  if (!s) s = air_partition_build(allocator, &hg.graph, &sc->partition);
  if (!s) {
    sc->target = arena_strdup(&sc->arena, target->name);
    sc->entry = arena_strdup(&sc->arena, entry->sym ? entry->sym : "");
    sc->n_body_ops = sc->n_cmds = hg.graph.n;
    sc->n_queues = hg.graph.n_queues;
    sc->cmds = arena_array(&sc->arena, hg.graph.n, sizeof *sc->cmds);
    sc->queue_kind = air_arena_alloc(&sc->arena, sc->n_queues);
    if (!sc->target || !sc->entry || !sc->cmds || !sc->queue_kind)
      s = AIR_STATUS_OOM(allocator, "compiling");
  }
  if (!s) {
    for (uint32_t i = 0; i < hg.graph.n; ++i) sc->cmds[i] = (air_sched_cmd_t){i, hg.kind[i]};
    memcpy(sc->queue_kind, hg.queue_kind, sc->n_queues);
    s = store_edges(sc, &hg, program, entry);
  }
  air_arena_deinit(&scratch);
  if (!s)
    s = air_memplan_build(&sc->arena, allocator, program, entry, sc->partition, target,
                          AIR_MEMPLAN_DEFAULT_ALIGNMENT, &sc->memplan);
  if (!s && (target->flags & AIR_TARGET_F_NPU)) s = store_npu_insts(sc, program, entry, target);
  if (s) {
    air_schedule_free(sc);
    return s;
  }
  sc->compile_ns = now_ns() - t0;
  *out = sc;
  return AIR_STATUS_OK_VALUE;
}

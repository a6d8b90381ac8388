/* schedule.c - air_schedule_compile: resources, placement, host graph, partition,
 * memory plan, in that order (see schedule.h); binding a schedule back to a
 * program; the name tables. */
#include "scheduler/schedule.h"

#include <string.h>
#include <time.h>

#include "runtime/base/status_util.h"
#include "scheduler/schedule_internal.h"

static const char* const k_cmd_names[AIR_SCHED_CMD_COUNT] = {
    "other", "launch", "segment", "herd", "dma", "channel",
    "alloc", "dealloc", "execute", "wait_all", "call",
};

const char* air_sched_cmd_kind_name(uint32_t kind) {
  return kind < AIR_SCHED_CMD_COUNT ? k_cmd_names[kind] : "unknown";
}

const char* air_sched_queue_kind_name(uint32_t kind) {
  switch (kind) {
    case AIR_SCHED_Q_HOST: return "host";
    case AIR_SCHED_Q_DMA: return "dma";
    case AIR_SCHED_Q_COMPUTE: return "compute";
    default: return "unknown";
  }
}

static const air_op_t* find_entry(const air_program_t* p, const char* name) {
  const air_block_t* mod = p->module && p->module->n_regions ? p->module->regions[0] : NULL;
  for (const air_op_t* op = mod ? mod->first : NULL; op; op = op->next) {
    if (op->kind != AIR_OP_FUNC || !op->n_regions || !op->regions[0]) continue;
    if (!name || (op->sym && !strcmp(op->sym, name))) return op;
  }
  return NULL;
}

static air_status_t entry_not_found(const air_allocator_t* a, const air_program_t* p,
                                    const char* name) {
  if (name)
    return AIR_STATUS(a, AIR_STATUS_NOT_FOUND, "%s: error: unknown entry function @%s",
                      p->filename ? p->filename : "<input>", name);
  return AIR_STATUS(a, AIR_STATUS_NOT_FOUND, "%s: error: no function with a body to compile",
                    p->filename ? p->filename : "<input>");
}

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

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

air_status_t air_schedule_compile(const air_allocator_t* allocator, const air_program_t* program,
                                  const char* entry_name, const air_target_t* target,
                                  air_schedule_t** out) {
  *out = NULL;
  air_allocator_t heap;
  if (!allocator) {
    air_allocator_init_system(&heap);
    allocator = &heap;
  }
  uint64_t t0 = now_ns();
  const air_op_t* entry = find_entry(program, entry_name);
  if (!entry) return entry_not_found(allocator, program, entry_name);
  air_schedule_t* sc = air_sched_zalloc(allocator, 1, sizeof *sc);
  if (!sc) return AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory compiling");
  sc->allocator = *allocator;
  air_arena_init(&sc->arena, allocator);
  air_placement_t pl;
  bool placed = false;
  air_status_t s = analyse(program, entry, target, true, &pl, &placed);
  /* The graph is scratch: only the command kinds outlive the partition. */
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
    sc->cmds = air_arena_alloc(&sc->arena, (size_t)hg.graph.n * sizeof *sc->cmds + 1);
    sc->queue_kind = air_arena_alloc(&sc->arena, sc->n_queues);
    if (!sc->target || !sc->entry || !sc->cmds || !sc->queue_kind)
      s = AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory compiling");
  }
  if (!s) {
    for (uint32_t i = 0; i < hg.graph.n; ++i) sc->cmds[i] = (air_sched_cmd_t){i, hg.kind[i]};
    memcpy(sc->queue_kind, hg.queue_kind, sc->n_queues);
  }
  air_arena_deinit(&scratch);
  if (!s)
    s = air_memplan_build(&sc->arena, allocator, program, entry, sc->partition, target,
                          AIR_MEMPLAN_DEFAULT_ALIGNMENT, &sc->memplan);
  if (s) {
    air_schedule_free(sc);
    return s;
  }
  sc->compile_ns = now_ns() - t0;
  *out = sc;
  return AIR_STATUS_OK_VALUE;
}

void air_schedule_free(air_schedule_t* sc) {
  if (!sc) return;
  air_partition_free(sc->partition);
  air_arena_deinit(&sc->arena);
  air_allocator_t a = sc->allocator;
  a.free(a.self, sc);
}

air_status_t air_schedule_bind(const air_allocator_t* allocator, const air_schedule_t* sc,
                               const air_program_t* program, const air_op_t** out_entry,
                               const air_op_t*** out_ops) {
  *out_entry = NULL;
  *out_ops = NULL;
  const air_op_t* entry = find_entry(program, sc->entry);
  if (!entry) return entry_not_found(allocator, program, sc->entry);
  const air_block_t* body = entry->regions[0];
  uint32_t n = 0;
  for (const air_op_t* op = body->first; op && op != body->last; op = op->next) ++n;
  if (body->last && air_opkind_class(body->last->kind) != AIR_OPC_TERMINATOR) ++n;
  if (n != sc->n_body_ops)
    return AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                      "the schedule has %u commands but @%s has %u ops", sc->n_body_ops,
                      sc->entry, n);
  const air_op_t** ops = air_sched_zalloc(allocator, n, sizeof *ops);
  if (!ops) return AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory binding");
  uint32_t i = 0;
  for (const air_op_t* op = body->first; op && i < n; op = op->next) ops[i++] = op;
  *out_entry = entry;
  *out_ops = ops;
  return AIR_STATUS_OK_VALUE;
}

typedef struct pre_t {
  const air_op_t** ops;
  uint32_t n;
} pre_t;

static bool count_op(air_op_t* op, void* user) {
  (void)op;
  ++((pre_t*)user)->n;
  return true;
}

static bool put_op(air_op_t* op, void* user) {
  pre_t* w = user;
  w->ops[w->n++] = op;
  return true;
}

air_status_t air_schedule_preorder(const air_allocator_t* allocator, const air_op_t* entry,
                                   const air_op_t*** out_ops, uint32_t* out_n) {
  *out_ops = NULL;
  *out_n = 0;
  pre_t w = {0};
  const air_block_t* body = entry->n_regions ? entry->regions[0] : NULL;
  for (air_op_t* op = body ? body->first : NULL; op; op = op->next) air_ir_walk(op, count_op, &w);
  w.ops = air_sched_zalloc(allocator, w.n, sizeof *w.ops);
  if (!w.ops) return AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  uint32_t n = w.n;
  w.n = 0;
  for (air_op_t* op = body ? body->first : NULL; op; op = op->next) air_ir_walk(op, put_op, &w);
  *out_ops = w.ops;
  *out_n = n;
  return AIR_STATUS_OK_VALUE;
}

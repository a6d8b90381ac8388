/* artifact_bind.c - the rules of a loaded schedule that need its program: the
 * entry binds, commands are the entry's body ops with the program's kinds and
 * queues, the stored partition honours every edge and channel group of the
 * program's host-level token graph (air_schedule_host_graph), and the memory plan
 * names alloc ops inside the segment or herd that owns their arena. */
#include <string.h>

#include "runtime/ir/ir.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact_internal.h"

#define BAD(...) return air_art_corrupt(a, name, __VA_ARGS__)

static bool inside(const air_op_t* op, const air_op_t* owner) {
  for (const air_block_t* b = op->parent; b && b->parent; b = b->parent->parent)
    if (b->parent == owner) return true;
  return false;
}

typedef struct preorder_t {
  const air_op_t** ops;
  uint32_t n;
} preorder_t;

static air_status_t check_memplan_ops(const char* name, const air_schedule_t* s,
                                      const preorder_t* pre, air_arena_t* arena) {
  const air_allocator_t* a = &s->allocator;
  const air_memplan_t* M = &s->memplan;
  uint32_t* planned = air_arena_alloc(arena, ((size_t)pre->n + 1) * sizeof *planned);
  if (!planned) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", name);
  for (uint32_t r = 0; r < M->n_arenas; ++r) {
    const air_memplan_arena_t* R = &M->arenas[r];
    const air_op_t* owner = NULL;
    if (R->space != AIR_MEMPLAN_L3) {
      air_opkind_t want = R->space == AIR_MEMPLAN_L2 ? AIR_OP_SEGMENT : AIR_OP_HERD;
      if (R->owner >= pre->n)
        BAD(".air.memplan.arenas[%u]: owner op %u outside 0..%u (ops in the entry)", r, R->owner,
            pre->n);
      owner = pre->ops[R->owner];
      if (owner->kind != want)
        BAD(".air.memplan.arenas[%u]: owner op %u is %s, not %s", r, R->owner,
            air_opkind_name(owner->kind), air_opkind_name(want));
    }
    for (uint32_t b = R->buffer_begin; b < R->buffer_end; ++b) {
      uint32_t op = M->buffers[b].op;
      if (op >= pre->n)
        BAD(".air.memplan.buffers[%u]: op %u outside 0..%u (ops in the entry)", b, op, pre->n);
      if (air_opkind_class(pre->ops[op]->kind) != AIR_OPC_ALLOC)
        BAD(".air.memplan.buffers[%u]: op %u is %s, not an alloc", b, op,
            air_opkind_name(pre->ops[op]->kind));
      if (planned[op]) BAD(".air.memplan.buffers[%u]: op %u is planned twice (also buffers[%u])", b, op, planned[op] - 1);
      planned[op] = b + 1;
      if (owner && !inside(pre->ops[op], owner))
        BAD(".air.memplan.buffers[%u]: op %u is not inside arena %u's owner op %u", b, op, r,
            R->owner);
    }
  }
  return NULL;
}

/* Commands, queues, edges and groups against the host graph. */
static air_status_t check_graph(const char* name, const air_schedule_t* s,
                                const air_sched_host_graph_t* hg, air_arena_t* arena) {
  const air_allocator_t* a = &s->allocator;
  const air_partition_t* P = s->partition;
  const air_partition_graph_t* g = &hg->graph;
  if (g->n != s->n_cmds)
    BAD(".air.meta: n_cmds %u, the program's entry has %u host-level commands", s->n_cmds, g->n);
  if (g->n_queues != s->n_queues)
    BAD(".air.meta: n_queues %u, the program's schedule has %u queues", s->n_queues, g->n_queues);
  for (uint32_t q = 0; q < s->n_queues; ++q)
    if (s->queue_kind[q] != hg->queue_kind[q])
      BAD(".air.queues[%u]: kind %s, the program's queue %u is %s", q,
          air_sched_queue_kind_name(s->queue_kind[q]), q,
          air_sched_queue_kind_name(hg->queue_kind[q]));
  uint32_t* pos = air_arena_alloc(arena, ((size_t)P->n_nodes + 1) * sizeof *pos);
  uint32_t* group_first = air_arena_alloc(arena, ((size_t)P->n_nodes + 1) * sizeof *pos);
  if (!pos || !group_first) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", name);
  for (uint32_t c = 0; c < P->n_nodes; ++c) pos[P->cmds[c]] = c;
  for (uint32_t i = 0; i < P->n_nodes; ++i) group_first[i] = UINT32_MAX;
  for (uint32_t i = 0; i < g->n; ++i) {
    if (s->cmds[i].op != i) BAD(".air.cmds[%u]: op %u; command i is body op i", i, s->cmds[i].op);
    if (s->cmds[i].kind != hg->kind[i])
      BAD(".air.cmds[%u]: kind %s, the program's op is %s", i,
          air_sched_cmd_kind_name(s->cmds[i].kind), air_sched_cmd_kind_name(hg->kind[i]));
    uint32_t w = P->node_wave[i], want = g->queue ? g->queue[i] : 0;
    /* A node may move to a group's queue; groups make their wave ordered. */
    if (P->node_queue[i] != want && !P->waves[w].ordered)
      BAD(".air.wave_cmds[%u]: command %u on queue %u, the program puts it on queue %u", pos[i],
          i, P->node_queue[i], want);
    for (uint32_t k = g->pred_off[i]; k < g->pred_off[i + 1]; ++k) {
      uint32_t p = g->pred[k], pw = P->node_wave[p];
      bool ok = pw == w ? P->waves[w].ordered && pos[p] < pos[i] : air_partition_orders(P, p, i);
      if (!ok)
        BAD(".air.waves[%u]: command %u may start before command %u (wave %u) completes; the "
            "program orders them",
            w, i, p, pw);
    }
    uint32_t gid = g->group ? g->group[i] : AIR_PARTITION_NO_GROUP;
    if (gid == AIR_PARTITION_NO_GROUP || gid >= g->n) continue;
    if (group_first[gid] == UINT32_MAX) group_first[gid] = i;
    else if (P->node_wave[group_first[gid]] != w)
      BAD(".air.waves[%u]: command %u must run at once with command %u (a channel group), which "
          "is in wave %u",
          w, i, group_first[gid], P->node_wave[group_first[gid]]);
  }
  return NULL;
}

/* Statuses from the program side mean the file does not match its own program. */
static air_status_t as_loss(const air_allocator_t* a, const char* name, air_status_t st) {
  if (!st || air_status_code(st) == AIR_STATUS_RESOURCE_EXHAUSTED) return st;
  air_status_t loss = air_art_corrupt(a, name, "%s", air_status_message(st));
  air_status_free(st);
  return loss;
}

air_status_t air_art_check_program(const char* name, const air_schedule_t* s,
                                   const air_program_t* program, const air_target_t* target) {
  const air_allocator_t* a = &s->allocator;
  const air_op_t* entry = NULL;
  const air_op_t** ops = NULL;
  air_status_t st = as_loss(a, name, air_schedule_bind(a, s, program, &entry, &ops));
  if (st) return st;
  a->free(a->self, (void*)ops);
  air_arena_t arena;
  air_arena_init(&arena, a);
  air_sched_host_graph_t hg;
  preorder_t pre = {0};
  if (!(st = as_loss(a, name, air_schedule_host_graph(&arena, a, program, entry, target, &hg))) &&
      !(st = check_graph(name, s, &hg, &arena)) &&
      !(st = air_schedule_preorder(a, entry, &pre.ops, &pre.n)))
    st = check_memplan_ops(name, s, &pre, &arena);
  a->free(a->self, (void*)pre.ops);
  air_arena_deinit(&arena);
  return st;
}

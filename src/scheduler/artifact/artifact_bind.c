/* artifact_bind.c - the rules of a loaded schedule that need its program: the
 * entry binds, command i is body op i with that op's kind, and the memory plan
 * names alloc ops inside the segment or herd that owns their arena. Walks of the
 * program only: the edges, groups and queues the compiler stored are checked for
 * structure (artifact_check.c), never derived again. */
#include <string.h>

#include "runtime/ir/ir.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact_internal.h"
#include "scheduler/schedule_bind.h"

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
  if (!planned) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED,
                                  "%s: error: out of memory", name);
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

/* The queue a command of this kind goes on (compute: any queue from 2). */
static uint32_t kind_queue(uint32_t kind) {
  switch (kind) {
    case AIR_SCHED_CMD_LAUNCH: case AIR_SCHED_CMD_SEGMENT: case AIR_SCHED_CMD_HERD:
      return AIR_SCHED_Q_COMPUTE;
    case AIR_SCHED_CMD_DMA: case AIR_SCHED_CMD_CHANNEL: return AIR_SCHED_Q_DMA;
    default: return AIR_SCHED_Q_HOST;
  }
}

/* Command i is body op i, of the op's kind, on a queue for that kind unless a
 * channel group moved it (its wave is then ordered). */
static air_status_t check_kinds(const char* name, const air_schedule_t* s, const air_op_t** ops) {
  const air_allocator_t* a = &s->allocator;
  const air_partition_t* P = s->partition;
  if (s->n_cmds != s->n_body_ops)
    BAD(".air.meta: n_cmds %u, the program's entry has %u host-level commands", s->n_cmds,
        s->n_body_ops);
  for (uint32_t i = 0; i < s->n_cmds; ++i) {
    uint32_t want = air_sched_cmd_kind_of(ops[s->cmds[i].op]);
    if (s->cmds[i].kind != want)
      BAD(".air.cmds[%u]: kind %s, the program's op is %s", i,
          air_sched_cmd_kind_name(s->cmds[i].kind), air_sched_cmd_kind_name(want));
    uint32_t q = P->node_queue[i], w = P->node_wave[i];
    want = kind_queue(want);
    bool on_kind = want == AIR_SCHED_Q_COMPUTE ? q >= AIR_SCHED_Q_COMPUTE : q == want;
    if (!on_kind && !P->waves[w].ordered)
      BAD(".air.waves[%u]: command %u (%s) on queue %u (%s); its kind goes on a %s queue", w, i,
          air_sched_cmd_kind_name(s->cmds[i].kind), q,
          air_sched_queue_kind_name(s->queue_kind[q]), air_sched_queue_kind_name(want));
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
                                   const air_program_t* program) {
  const air_allocator_t* a = &s->allocator;
  const air_op_t* entry = NULL;
  const air_op_t** ops = NULL;
  air_status_t st = as_loss(a, name, air_schedule_bind(a, s, program, &entry, &ops));
  if (st) return st;
  air_arena_t arena;
  air_arena_init(&arena, a);
  preorder_t pre = {0};
  if (!(st = check_kinds(name, s, ops)) &&
      !(st = air_schedule_preorder(a, entry, &pre.ops, &pre.n)))
    st = check_memplan_ops(name, s, &pre, &arena);
  a->free(a->self, (void*)ops);
  a->free(a->self, (void*)pre.ops);
  air_arena_deinit(&arena);
  return st;
}

/* schedule_bind.c - a schedule's op indices bound to a program (schedule_bind.h):
 * finding the entry, the body ops in order, the pre-order walk, command kinds. */
#include "scheduler/schedule_bind.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

const air_op_t* air_schedule_find_entry(const air_program_t* p, const char* name) {
  const air_block_t* mod = p->module && p->module->n_regions ? p->module->regions[0] : NULL;
  for (const air_op_t* op = mod ? mod->first : NULL; op; op = op->next) {
    if (op->kind != AIR_OP_FUNC || !op->n_regions || !op->regions[0]) continue;
    if (!name || (op->sym && !strcmp(op->sym, name))) return op;
  }
  return NULL;
}

air_status_t air_schedule_bind(const air_allocator_t* allocator, const air_schedule_t* sc,
                               const air_program_t* program, const air_op_t** out_entry,
                               const air_op_t*** out_ops) {
  *out_entry = NULL;
  *out_ops = NULL;
  const air_op_t* entry = air_schedule_find_entry(program, sc->entry);
  if (!entry)
    return AIR_STATUS(allocator, AIR_STATUS_NOT_FOUND, "%s: error: unknown entry function @%s",
                      program->filename ? program->filename : "<input>", sc->entry);
  const air_block_t* body = entry->regions[0];
  uint32_t n = 0;
  for (const air_op_t* op = body->first; op && op != body->last; op = op->next) ++n;
  if (body->last && air_opkind_class(body->last->kind) != AIR_OPC_TERMINATOR) ++n;
  if (n != sc->n_body_ops)
    return AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                      "the schedule has %u commands but @%s has %u ops", sc->n_body_ops,
                      sc->entry, n);
  const air_op_t** ops = air_mem_calloc(allocator, n, sizeof *ops);
  if (!ops) return AIR_STATUS_OOM(allocator, "binding a schedule");
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
  w.ops = air_mem_calloc(allocator, w.n, sizeof *w.ops);
  if (!w.ops) return AIR_STATUS_OOM(allocator, "walking the entry");
  uint32_t n = w.n;
  w.n = 0;
  for (air_op_t* op = body ? body->first : NULL; op; op = op->next) air_ir_walk(op, put_op, &w);
  *out_ops = w.ops;
  *out_n = n;
  return AIR_STATUS_OK_VALUE;
}

uint32_t air_sched_cmd_kind_of(const air_op_t* op) {
  switch (op->kind) {
    case AIR_OP_LAUNCH: return AIR_SCHED_CMD_LAUNCH;
    case AIR_OP_SEGMENT: return AIR_SCHED_CMD_SEGMENT;
    case AIR_OP_HERD: return AIR_SCHED_CMD_HERD;
    case AIR_OP_DMA: return AIR_SCHED_CMD_DMA;
    case AIR_OP_PUT: case AIR_OP_GET: return AIR_SCHED_CMD_CHANNEL;
    case AIR_OP_ALLOC: return AIR_SCHED_CMD_ALLOC;
    case AIR_OP_DEALLOC: return AIR_SCHED_CMD_DEALLOC;
    case AIR_OP_EXECUTE: return AIR_SCHED_CMD_EXECUTE;
    case AIR_OP_WAIT_ALL: return AIR_SCHED_CMD_WAIT_ALL;
    case AIR_OP_CALL: return AIR_SCHED_CMD_CALL;
    default: return AIR_SCHED_CMD_OTHER;
  }
}

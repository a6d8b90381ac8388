/* schedule_bind.h - a schedule's indices read against the program it belongs to:
 * command i is body op i of the entry, memory-plan buffers and arena owners are op
 * indices in a pre-order walk of the entry. Walks only; nothing is analysed. Used
 * by the CPU driver (which runs the IR), the artifact reader's checks, the memory
 * planner and the reports. */
#ifndef AIR_SCHEDULER_SCHEDULE_BIND_H_
#define AIR_SCHEDULER_SCHEDULE_BIND_H_

#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/ir/ir.h"
#include "scheduler/schedule.h"

/* The func.func named `name` with a body (NULL = the first one), or NULL. */
const air_op_t* air_schedule_find_entry(const air_program_t* program, const char* name);

/* The entry function's op and the body ops in index order, for a schedule made from
 * (or loaded against) `program`. NOT_FOUND when the entry is absent; DATA_LOSS when
 * the body's op count differs from the schedule's. `out_ops` gets an array of
 * schedule->n_body_ops pointers from `allocator` (caller frees). */
air_status_t air_schedule_bind(const air_allocator_t* allocator, const air_schedule_t* schedule,
                               const air_program_t* program, const air_op_t** out_entry,
                               const air_op_t*** out_ops);

/* Every op nested in `entry` (the entry itself excluded) in pre-order, the order
 * the memory plan numbers buffers and arena owners by: (*out_ops)[k] is op k. The
 * array comes from `allocator` (caller frees). */
air_status_t air_schedule_preorder(const air_allocator_t* allocator, const air_op_t* entry,
                                   const air_op_t*** out_ops, uint32_t* out_n);

/* The command kind of a host-level op (air_sched_cmd_kind_t). */
uint32_t air_sched_cmd_kind_of(const air_op_t* op);

#endif /* AIR_SCHEDULER_SCHEDULE_BIND_H_ */

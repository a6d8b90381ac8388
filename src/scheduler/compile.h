/* compile.h - the schedule compiler's entry points: air_schedule_compile turns one
 * entry function of a verified program into the schedule (schedule.h), and
 * air_schedule_host_graph gives the host-level token graph it partitions, for
 * tests and tools that want the graph itself. */
#ifndef AIR_SCHEDULER_COMPILE_H_
#define AIR_SCHEDULER_COMPILE_H_

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/base/arena.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"
#include "scheduler/partition.h"
#include "scheduler/schedule.h"

/* The host-level token graph of `entry`, as air_schedule_compile partitions it:
 * node i = body op i (the terminator excluded), CSR predecessors from the program's
 * tokens and the sync-op barriers, a queue and a channel group per node. Arrays come
 * from `arena`. The compiler stores its edges and groups in the schedule, so nothing
 * downstream builds it again. */
typedef struct air_sched_host_graph_t {
  air_partition_graph_t graph;
  uint32_t* kind;          /* per node: air_sched_cmd_kind_t */
  uint8_t* queue_kind;     /* per queue: air_sched_queue_kind_t */
} air_sched_host_graph_t;

air_status_t air_schedule_host_graph(air_arena_t* arena, const air_allocator_t* allocator,
                                     const air_program_t* program, const air_op_t* entry,
                                     const air_target_t* target, air_sched_host_graph_t* out);

/* Compiles `entry` (NULL = the first func.func with a body) of a verified program
 * for target `t`: resource check, placement, the host-level token graph, the
 * partition, the in-wave edges and affinity producers, and the memory plan. Errors
 * name the op and the rule, as the verifier does (FAILED_PRECONDITION for a program
 * that does not fit the target). */
air_status_t air_schedule_compile(const air_allocator_t* allocator, const air_program_t* program,
                                  const char* entry, const air_target_t* target,
                                  air_schedule_t** out);

#endif /* AIR_SCHEDULER_COMPILE_H_ */

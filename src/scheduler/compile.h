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
#include "scheduler/host_graph.h"
#include "scheduler/schedule.h"

/* The host-level token graph of `entry` (host_graph.h) as air_schedule_compile
 * partitions it: placement first, when the entry has a launch. The compiler stores
 * its edges and groups in the schedule, so nothing downstream builds it again;
 * tests and tools that want the graph itself call this. */
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

/* host_graph.h - the token graph of one block, shared by the host-level graph of
 * the schedule and the L2/L1 lifetimes of the memory plan (memplan.c), so both read
 * the program's ordering the same way; and the host-level graph itself, built here
 * once for the whole tree (the compiler stores its edges in the schedule). */
#ifndef AIR_SCHEDULER_HOST_GRAPH_H_
#define AIR_SCHEDULER_HOST_GRAPH_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/ir/ir.h"
#include "scheduler/place.h"
#include "runtime/base/arena.h"
#include "scheduler/partition.h"

#define AIR_SCHED_NONE UINT32_MAX

/* Node i = op i of the block (its terminator excluded). Edge j -> i when op i (or
 * anything nested in it) uses a value op j defines (tokens in dependency lists,
 * wait_all operands, loop inits, memrefs), and around barriers: an op with no
 * token result that does real work runs after every earlier op and before every
 * later one (chained through the latest barrier, so edges stay linear). */
typedef struct air_sched_block_graph_t {
  uint32_t n;
  const air_op_t** ops;  /* n */
  uint32_t* pred_off;    /* n + 1 */
  uint32_t* pred;        /* pred_off[n], each < its node, no duplicates */
  uint8_t* barrier;      /* n: 1 for a barrier */
} air_sched_block_graph_t;

/* Builds the graph of `block` with arrays from `allocator`. `node_of` is scratch
 * of program->n_values entries, all AIR_SCHED_NONE on entry and again on return
 * (so one array serves many blocks). */
air_status_t air_sched_block_graph(const air_allocator_t* allocator, const air_program_t* program,
                                   const air_block_t* block, uint32_t* node_of,
                                   air_sched_block_graph_t* out);
void air_sched_block_graph_free(const air_allocator_t* allocator, air_sched_block_graph_t* g);

/* Whether `op` has an !air.token result. */
bool air_sched_has_token_result(const air_program_t* program, const air_op_t* op);

/* The host-level token graph of `entry`: node i = body op i (the terminator
 * excluded), CSR predecessors from the program's tokens and the sync-op barriers,
 * a queue and a channel group per node. Arrays come from an arena. */
typedef struct air_sched_host_graph_t {
  air_partition_graph_t graph;
  uint32_t* kind;          /* per node: air_sched_cmd_kind_t */
  uint8_t* queue_kind;     /* per queue: air_sched_queue_kind_t */
} air_sched_host_graph_t;

/* The host graph of `entry` (see schedule.h) given a placement (NULL: every
 * compute command on the first compute queue). */
air_status_t air_sched_host_graph_placed(air_arena_t* arena, const air_allocator_t* allocator,
                                         const air_program_t* program, const air_op_t* entry,
                                         const air_placement_t* placement,
                                         air_sched_host_graph_t* out);

#endif /* AIR_SCHEDULER_HOST_GRAPH_H_ */

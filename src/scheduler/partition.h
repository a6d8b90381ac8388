/* partition.h - a dependency graph cut into per-queue command buffers: waves of
 * concurrent commands separated by barriers, cross-queue edges as timepoint waits,
 * waits already implied by other waits elided.
 *
 * The result (air_partition_t) and the execution model a driver honours are in
 * schedule.h, the HAL contract; this header is the builder.
 *
 * Waves are global ASAP levels: level(v) = 1 + max level of its predecessors, and
 * wave (q, k) holds the commands of queue q at the k-th non-empty level of q. Every
 * edge goes from a lower level to a higher one, so the waves and their waits form
 * an acyclic graph and no choice of queues can deadlock. A driver may also simply
 * run level after level (`levels` below), which honours every barrier and wait.
 *
 * Groups: nodes with the same group id (not AIR_PARTITION_NO_GROUP) must run at once
 * (channel partners: a put blocks until its get runs). A group is contracted into
 * one node: its members take one level and the queue of its first member. A node on
 * a path between two members of a group joins it, so the contracted graph stays
 * acyclic.
 *
 * Elision: each wave carries a vector clock (per queue, the waves known complete
 * when it starts: its own queue's previous wave plus everything its waits imply,
 * transitively). A wait is dropped when the clock of the previous wave together with
 * the other waits already implies it. The result is the minimal set of waits given
 * the barriers.
 *
 * Cost: O(nodes + edges) plus O(waves x queues x waits per wave); a 1M-node graph
 * builds in well under a second. */
#ifndef AIR_SCHEDULER_PARTITION_H_
#define AIR_SCHEDULER_PARTITION_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "scheduler/schedule.h"

/* Input: nodes numbered in a topological order, predecessors in CSR form. */
typedef struct air_partition_graph_t {
  uint32_t n;                /* nodes */
  const uint32_t* pred_off;  /* n + 1 offsets into pred */
  const uint32_t* pred;      /* predecessors of i: pred[pred_off[i] .. pred_off[i+1]), each < i */
  const uint32_t* queue;     /* per node, < n_queues; NULL = every node on queue 0 */
  uint32_t n_queues;         /* 1 .. AIR_PARTITION_MAX_QUEUES */
  const uint32_t* group;     /* per node or NULL; AIR_PARTITION_NO_GROUP = none */
} air_partition_graph_t;

/* Builds the partition. INVALID_ARGUMENT for a malformed graph (a predecessor not
 * before its node, a queue out of range, too many queues), RESOURCE_EXHAUSTED when
 * out of memory. */
air_status_t air_partition_build(const air_allocator_t* allocator,
                                 const air_partition_graph_t* graph, air_partition_t** out);

#endif /* AIR_SCHEDULER_PARTITION_H_ */

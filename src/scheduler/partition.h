/* partition.h - a dependency graph cut into per-queue command buffers: waves of
 * concurrent commands separated by barriers, cross-queue edges as timepoint waits,
 * waits already implied by other waits elided.
 *
 * Execution model (what a driver must honour):
 *  - each queue runs its waves in order; a wave starts when the previous wave of
 *    its queue has completed (the barrier) and every wait (q, v) of the wave holds:
 *    queue q has completed at least v waves (a timeline semaphore per queue whose
 *    value is the number of completed waves);
 *  - the commands of one wave may run concurrently. Commands of one wave depend on
 *    each other only when they share a group (see below); a driver that runs the
 *    members of a group must order them by the original edges itself.
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

#define AIR_PARTITION_NO_GROUP UINT32_MAX
#define AIR_PARTITION_MAX_QUEUES 64u

/* Input: nodes numbered in a topological order, predecessors in CSR form. */
typedef struct air_partition_graph_t {
  uint32_t n;                /* nodes */
  const uint32_t* pred_off;  /* n + 1 offsets into pred */
  const uint32_t* pred;      /* predecessors of i: pred[pred_off[i] .. pred_off[i+1]), each < i */
  const uint32_t* queue;     /* per node, < n_queues; NULL = every node on queue 0 */
  uint32_t n_queues;         /* 1 .. AIR_PARTITION_MAX_QUEUES */
  const uint32_t* group;     /* per node or NULL; AIR_PARTITION_NO_GROUP = none */
} air_partition_graph_t;

/* Wait until `queue` has completed `value` waves. */
typedef struct air_partition_wait_t {
  uint32_t queue;
  uint32_t value;
} air_partition_wait_t;

typedef struct air_partition_wave_t {
  uint32_t queue;
  uint32_t level;            /* global level */
  uint32_t cmd_begin, cmd_end;    /* into cmds */
  uint32_t wait_begin, wait_end;  /* into waits (after elision) */
  bool ordered;              /* has edges between its commands (a group) */
} air_partition_wave_t;

typedef struct air_partition_queue_t {
  uint32_t wave_begin, wave_end;  /* into waves: wave k of the queue is waves[wave_begin + k] */
} air_partition_queue_t;

typedef struct air_partition_level_t {
  uint32_t cmd_begin, cmd_end;    /* into level_cmds: every command of the level */
} air_partition_level_t;

typedef struct air_partition_stats_t {
  uint64_t edges;            /* input edges */
  uint64_t cross_edges;      /* edges between queues */
  uint64_t waits_raw;        /* per wave, one wait per (source queue) before elision */
  uint64_t waits_kept;
  uint32_t groups;           /* groups after closure */
  uint32_t grown;            /* nodes that joined a group by the path rule */
} air_partition_stats_t;

typedef struct air_partition_t {
  air_allocator_t allocator;
  uint32_t n_nodes, n_queues, n_waves, n_waits, n_levels;
  air_partition_queue_t* queues;  /* n_queues */
  air_partition_wave_t* waves;    /* queue-major: queue 0's waves, then queue 1's, ... */
  uint32_t* cmds;                 /* node ids, grouped by wave, topological within one */
  air_partition_wait_t* waits;
  uint32_t* node_wave;            /* per node: index into waves */
  uint32_t* node_queue;           /* per node: its queue (groups may have moved it) */
  air_partition_level_t* levels;  /* n_levels */
  uint32_t* level_cmds;           /* node ids grouped by level */
  uint32_t* clocks;               /* n_waves x n_queues: clock at each wave's end */
  air_partition_stats_t stats;
} air_partition_t;

/* Builds the partition. INVALID_ARGUMENT for a malformed graph (a predecessor not
 * before its node, a queue out of range, too many queues), RESOURCE_EXHAUSTED when
 * out of memory. */
air_status_t air_partition_build(const air_allocator_t* allocator,
                                 const air_partition_graph_t* graph, air_partition_t** out);
void air_partition_free(air_partition_t* partition);

/* True when node a is guaranteed complete before node b starts under the
 * partition's barriers and waits (a != b). Used by tests and the memory planner. */
bool air_partition_orders(const air_partition_t* partition, uint32_t a, uint32_t b);

#endif /* AIR_SCHEDULER_PARTITION_H_ */

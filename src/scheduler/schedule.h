/* schedule.h - the compiled form of one entry function of a verified program: its
 * host-level token graph partitioned into per-queue command buffers (partition.h)
 * plus the memory plan (memplan.h). A plain data structure: built in process by
 * air_schedule_compile, or read back from an .airbin artifact (artifact.h); both
 * produce the same structure and the CPU driver runs from either.
 *
 * Commands are the ops of the entry function's body (the host level), identified by
 * their index in that body (the terminator excluded). Everything nested inside a
 * command (a launch's segments and herds, an execute region) is run by the driver
 * as one unit; the program's own tokens still order work inside it.
 *
 * Queues: 0 = host (allocs, deallocs, execute, wait_all, scalar ops), 1 = dma
 * (dma_memcpy_nd and channel put/get at the host level), 2.. = compute, one per
 * partition the placer gives the launch's first segment (launches sharing an
 * affinity token share a queue). Sync ops are barriers: the compiler adds edges
 * from everything before them and to everything after them. Host-level ops coupled
 * through a channel are one group (they must run at once). */
#ifndef AIR_SCHEDULER_SCHEDULE_H_
#define AIR_SCHEDULER_SCHEDULE_H_

#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/base/arena.h"
#include "runtime/ir/ir.h"
#include "scheduler/memplan.h"
#include "scheduler/partition.h"
#include "runtime/target/target.h"

typedef enum air_sched_queue_kind_e {
  AIR_SCHED_Q_HOST = 0,
  AIR_SCHED_Q_DMA = 1,
  AIR_SCHED_Q_COMPUTE = 2,
} air_sched_queue_kind_t;

typedef enum air_sched_cmd_kind_e {
  AIR_SCHED_CMD_OTHER = 0,   /* scalar/index ops, constants: run in place */
  AIR_SCHED_CMD_LAUNCH,
  AIR_SCHED_CMD_SEGMENT,     /* a segment outside any launch */
  AIR_SCHED_CMD_HERD,        /* a herd outside any segment */
  AIR_SCHED_CMD_DMA,
  AIR_SCHED_CMD_CHANNEL,     /* put or get */
  AIR_SCHED_CMD_ALLOC,
  AIR_SCHED_CMD_DEALLOC,
  AIR_SCHED_CMD_EXECUTE,
  AIR_SCHED_CMD_WAIT_ALL,
  AIR_SCHED_CMD_CALL,
  AIR_SCHED_CMD_COUNT,
} air_sched_cmd_kind_t;

typedef struct air_sched_cmd_t {
  uint32_t op;     /* index of the op in the entry body */
  uint32_t kind;   /* air_sched_cmd_kind_t */
} air_sched_cmd_t;

typedef struct air_schedule_t {
  air_allocator_t allocator;
  air_arena_t arena;          /* owns every array below except `partition` */
  char* target;               /* target name, e.g. "cpu" */
  char* entry;                /* entry function symbol */
  uint32_t n_body_ops;        /* ops in the entry body (terminator excluded) */
  uint32_t n_cmds;            /* = partition->n_nodes */
  air_sched_cmd_t* cmds;      /* node i of the partition is cmds[i] */
  uint32_t n_queues;
  uint8_t* queue_kind;        /* per queue: air_sched_queue_kind_t */
  air_partition_t* partition; /* owned */
  air_memplan_t memplan;      /* owned (its arrays live in `arena`) */
  uint64_t compile_ns;        /* wall time of air_schedule_compile */
} air_schedule_t;

/* The host-level token graph of `entry`, as air_schedule_compile partitions it:
 * node i = body op i (the terminator excluded), CSR predecessors from the program's
 * tokens and the sync-op barriers, a queue and a channel group per node. Arrays come
 * from `arena`. The artifact loader uses it to check that a stored partition honours
 * every edge of the program it is loaded with. */
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
 * partition and the memory plan. Errors name the op and the rule, as the verifier
 * does (FAILED_PRECONDITION for a program that does not fit the target). */
air_status_t air_schedule_compile(const air_allocator_t* allocator, const air_program_t* program,
                                  const char* entry, const air_target_t* target,
                                  air_schedule_t** out);
void air_schedule_free(air_schedule_t* schedule);

/* The entry function's op and the body ops in index order, for a schedule made from
 * (or loaded against) `program`. NOT_FOUND when the entry is absent; DATA_LOSS when
 * the body's op count differs from the schedule's. `out_ops` gets an array of
 * schedule->n_body_ops pointers from `allocator` (caller frees). */
air_status_t air_schedule_bind(const air_allocator_t* allocator, const air_schedule_t* schedule,
                               const air_program_t* program, const air_op_t** out_entry,
                               const air_op_t*** out_ops);

/* Every op nested in `entry` (the entry itself excluded) in pre-order, the order
 * memplan.h numbers buffers and arena owners by: (*out_ops)[k] is op k. The array
 * comes from `allocator` (caller frees). */
air_status_t air_schedule_preorder(const air_allocator_t* allocator, const air_op_t* entry,
                                   const air_op_t*** out_ops, uint32_t* out_n);

const char* air_sched_cmd_kind_name(uint32_t kind);
const char* air_sched_queue_kind_name(uint32_t kind);

#endif /* AIR_SCHEDULER_SCHEDULE_H_ */

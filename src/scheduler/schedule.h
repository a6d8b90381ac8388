/* schedule.h - the HAL contract: the compiled form of one entry function, as plain
 * data a driver reads and never recomputes. Built by air_schedule_compile
 * (compile.h) or read back from an .airbin artifact (artifact.h); both give the
 * same structure. Nothing here needs the IR or the scheduler's internals: a
 * driver includes this header only (docs/hal.md lists what it reads).
 *
 * Commands are the ops of the entry function's body (the host level), command i
 * being body op i (the terminator excluded). Everything nested inside a command (a
 * launch's segments and herds, an execute region) is run by the driver as one
 * unit; the program's own tokens still order work inside it.
 *
 * Queues: 0 = host (allocs, deallocs, execute, wait_all, scalar ops), 1 = dma
 * (dma_memcpy_nd and channel put/get at the host level), 2.. = compute, one per
 * partition the placer gives the launch's first segment (launches sharing an
 * affinity token share a queue). Sync ops are barriers: the compiler adds edges
 * from everything before them and to everything after them. Host-level ops coupled
 * through a channel are one group (they must run at once).
 *
 * Execution model (what a driver must honour):
 *  - each queue runs its waves in order; a wave starts when the previous wave of
 *    its queue has completed (the barrier) and every wait (q, v) of the wave holds:
 *    queue q has completed at least v waves (a timeline semaphore per queue whose
 *    value is the number of completed waves);
 *  - the commands of one wave may run concurrently, except along the in-wave
 *    edges: command i starts after each of preds[pred_off[i] .. wave_pred_end[i])
 *    (commands of its own wave, all with smaller ids; only an `ordered` wave, a
 *    channel group, has them);
 *  - a command that names affinity tokens (aff[aff_off[i] .. aff_off[i + 1]): the
 *    commands making them that the partition does not already order before it)
 *    needs those tokens' values: in its own wave that is one more in-wave edge,
 *    in another wave the driver waits for that command to have made its results.
 * A driver may also simply run level after level (partition->levels), which honours
 * every barrier and wait. The edges across waves (the rest of each pred list) are
 * implied by the barriers and waits; they are stored so a loader can check that,
 * and for reports.
 *
 * Waves are global ASAP levels: level(v) = 1 + max level of its predecessors, and
 * wave (q, k) holds the commands of queue q at the k-th non-empty level of q. Every
 * edge goes from a lower level to a higher one, so the waves and their waits form
 * an acyclic graph and no choice of queues can deadlock (partition.h builds them). */
#ifndef AIR_SCHEDULER_SCHEDULE_H_
#define AIR_SCHEDULER_SCHEDULE_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "runtime/base/arena.h"
#include "scheduler/gpu_code.h"

#define AIR_PARTITION_NO_GROUP UINT32_MAX
#define AIR_PARTITION_MAX_QUEUES 64u

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

/*--- the partition: waves, waits, levels ------------------------------------*/

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
  air_arena_t arena;              /* owns every array below */
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

/*--- the memory plan --------------------------------------------------------*/

#define AIR_MEMPLAN_DEFAULT_ALIGNMENT 64u

typedef enum air_memplan_space_e {
  AIR_MEMPLAN_L3 = 0,
  AIR_MEMPLAN_L2 = 1,
  AIR_MEMPLAN_L1 = 2,
} air_memplan_space_t;

/* One arena: the L3 transient arena, or the L2 of one segment, or the L1 of one
 * herd. `owner` is the pre-order op index of the segment / herd (UINT32_MAX for L3). */
typedef struct air_memplan_arena_t {
  uint32_t space;          /* air_memplan_space_t */
  uint32_t owner;
  uint64_t size;           /* bytes the arena needs (multiple of the alignment) */
  uint64_t lower_bound;    /* peak of live bytes: no plan can be smaller */
  uint64_t capacity;       /* what the target offers (0 = unlimited) */
  uint32_t buffer_begin, buffer_end;  /* into buffers */
} air_memplan_arena_t;

typedef struct air_memplan_buffer_t {
  uint32_t op;             /* pre-order index of the alloc op (see above) */
  uint32_t arena;          /* index into arenas */
  uint64_t size;           /* aligned bytes */
  uint64_t offset;         /* from the arena base; a multiple of the alignment */
  uint32_t start, end;     /* lifetime [start, end) in the arena's positions */
} air_memplan_buffer_t;

typedef struct air_memplan_t {
  uint32_t alignment;
  uint32_t n_arenas, n_buffers;
  air_memplan_arena_t* arenas;   /* L3 first (always present, maybe empty), then L2, L1 */
  air_memplan_buffer_t* buffers; /* grouped by arena */
} air_memplan_t;

/*--- the schedule -----------------------------------------------------------*/

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
  /* The host-level token graph the partition was cut from. Predecessors of
   * command i: preds[pred_off[i] .. pred_off[i + 1]), each < i, those in i's own
   * wave first: [pred_off[i], wave_pred_end[i]). */
  uint32_t* pred_off;         /* n_cmds + 1 */
  uint32_t* preds;
  uint32_t* wave_pred_end;    /* n_cmds */
  uint32_t* group;            /* per command: its channel group or AIR_PARTITION_NO_GROUP */
  /* Affinity producers of command i: aff[aff_off[i] .. aff_off[i + 1]), ascending,
   * each < i and not ordered before i by the partition. */
  uint32_t* aff_off;          /* n_cmds + 1 */
  uint32_t* aff;
  air_memplan_t memplan;      /* its arrays live in `arena` */
  /* NPU targets: the TXN instruction stream of the entry's L3 data movement
   * (npu/txn.h; in `arena`), or NULL with `npu_error` (in `arena`) saying why none
   * was made. Both NULL on other targets. */
  uint32_t* npu_insts;
  uint32_t n_npu_insts;
  char* npu_error;
  /* GPU targets: the entry's kernels (gpu_code.h; in `arena`) when the code
   * generator made them (airc compile --target gfxNNN) or an artifact carried
   * them; NULL otherwise. */
  air_gpu_code_t* gpu;
  uint64_t compile_ns;        /* wall time of air_schedule_compile */
} air_schedule_t;

void air_schedule_free(air_schedule_t* schedule);

/* An empty partition whose arrays the caller puts in its arena (the partitioner
 * and the artifact reader fill it); NULL when out of memory. */
air_partition_t* air_partition_new(const air_allocator_t* allocator);
void air_partition_free(air_partition_t* partition);

/* True when node a is guaranteed complete before node b starts under the
 * partition's barriers and waits (a != b): a reading of the clocks. */
bool air_partition_orders(const air_partition_t* partition, uint32_t a, uint32_t b);

const char* air_sched_cmd_kind_name(uint32_t kind);
const char* air_sched_queue_kind_name(uint32_t kind);

#endif /* AIR_SCHEDULER_SCHEDULE_H_ */

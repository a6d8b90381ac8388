/* sched_replay.h - replays a compiled partition (scheduler/partition.h) on the CPU:
 * every command once per run, after all its predecessors, through a caller-supplied
 * command body. Part of the dag-overhead benchmark (its "airrt" row), not of the
 * library: the CPU driver runs schedules through its executor (src/hal/cpu).
 *
 * Strategy: level-synchronous. The partition's global levels run in order, which
 * honours every barrier and wait (each wait names a lower level). At create time the
 * levels become a replay plan of chunks, each a run of commands one thread executes
 * back to back with no synchronization:
 *  - a level with fewer than `min_parallel` commands joins a serial chunk, together
 *    with the neighbouring small levels (a 1M-command chain is one chunk);
 *  - a larger level is cut into about 4 chunks per thread. An ordered wave (a group,
 *    with edges inside it) is never cut: its commands stay in one chunk, in the
 *    partition's topological order, so one thread runs them in node order.
 * A run hands out the chunks level by level from one shared claim word (the caller
 * from the front of each level, a helper from the back, so each keeps the same part
 * of every level and its data stays in that core's cache); a chunk starts once every
 * chunk of the earlier levels has completed (a shared done counter). Any thread may
 * take any chunk, so a helper that is slow to wake or descheduled costs parallelism,
 * never a stall: the caller takes the work.
 *
 * Threads: the calling thread (worker 0) plus threads - 1 helpers (workers 1..): the
 * workers of a pool of the library's (src/hal/cpu/pool.h, the CPU driver's) made at
 * create time. Only a plan with a parallel level has helpers; each run hands every
 * helper one pool task that takes chunks until none is left. Idle pool workers spin
 * briefly, then sleep on a futex: an idle replay burns no CPU.
 *
 * Thread safety: run may be called from any thread, but one run at a time per replay
 * object (a second concurrent call, including one from inside the body, fails with
 * FAILED_PRECONDITION). The body is called concurrently from up to `threads` threads
 * for different commands; `worker` < threads identifies the calling thread. Distinct
 * replay objects are independent. create and destroy must not race with run.
 *
 * Groups: the partition says group members must run "at once"; this executor runs
 * them in node order on one thread, so a body must not block on a later member of its
 * own group. */
#ifndef AIR_BENCH_SCHED_REPLAY_H_
#define AIR_BENCH_SCHED_REPLAY_H_

#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "scheduler/partition.h"

#define AIR_SCHED_REPLAY_MAX_THREADS 1024u

typedef struct air_sched_replay_t air_sched_replay_t;

/* Runs command `node` (a partition node id) on thread `worker`. */
typedef void (*air_sched_replay_fn_t)(void* user, uint32_t node, uint32_t worker);

typedef struct air_sched_replay_options_t {
  uint32_t threads;      /* caller included; 0 = one per online CPU */
  uint32_t min_parallel; /* smallest level split across threads; 0 = default (256):
                          * below it, handing chunks over costs more than it saves
                          * for bodies of a few ns. Use 1 for heavy bodies. */
  uint32_t max_chunk;    /* most commands in one chunk of a parallel level; 0 = 4096 */
  uint32_t idle_spin_ns; /* unused: idle helpers are pool workers, which spin the
                          * pool's while (about 2000 polls) before sleeping; kept so
                          * callers' options stay valid */
} air_sched_replay_options_t;

typedef struct air_sched_replay_stats_t {
  uint32_t threads;
  uint32_t chunks;          /* in the plan */
  uint32_t parallel_levels; /* levels split across threads */
  uint64_t serial_cmds;     /* commands in chunks that run alone */
  uint64_t runs;
  uint64_t helper_sleeps;   /* times a helper (a pool worker) went to sleep on the futex */
  uint64_t helper_chunks;   /* chunks run by helpers (the rest ran on the caller) */
} air_sched_replay_stats_t;

/* Compiles the plan and starts the helpers. The partition may be freed afterwards.
 * `options` may be NULL (defaults). INVALID_ARGUMENT for more than
 * AIR_SCHED_REPLAY_MAX_THREADS threads, RESOURCE_EXHAUSTED when out of memory or
 * threads. */
air_status_t air_sched_replay_create(const air_allocator_t* allocator,
                                     const air_partition_t* partition,
                                     const air_sched_replay_options_t* options,
                                     air_sched_replay_t** out);
/* Runs every command once and returns when all have completed. */
air_status_t air_sched_replay_run(air_sched_replay_t* replay, air_sched_replay_fn_t fn,
                                  void* user);
/* Stops the helpers and frees the replay. NULL is a no-op. */
void air_sched_replay_destroy(air_sched_replay_t* replay);
void air_sched_replay_stats(const air_sched_replay_t* replay, air_sched_replay_stats_t* out);

#endif /* AIR_BENCH_SCHED_REPLAY_H_ */

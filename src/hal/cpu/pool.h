/* pool.h - the CPU driver's worker threads. Tasks are intrusive nodes the caller
 * owns (no allocation per task). A task a worker submits stays on that worker
 * (newest first) unless another worker runs dry and steals it (oldest first);
 * tasks from other threads go to a shared FIFO. Workers spin a little when
 * there is nothing to take (so a producer on the other core hands work over
 * without a system call) and then sleep on a futex, so an idle pool burns no CPU.
 *
 * Thread-safe: any thread, workers included, may submit. */
#ifndef AIR_HAL_CPU_POOL_H_
#define AIR_HAL_CPU_POOL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef struct air_pool_t air_pool_t;
typedef struct air_task_t air_task_t;

/* Runs a task on a worker. `worker` is the worker's index in [0, threads). The task
 * node may be reused or freed from inside the callback. */
typedef void (*air_task_fn_t)(air_task_t* task, uint32_t worker);

struct air_task_t {
  air_task_t* next; /* a chain's link; the pool's own while queued */
  air_task_t* prev; /* the pool's, while queued */
  air_task_fn_t fn;
};

typedef struct air_pool_stats_t {
  uint64_t tasks_run;   /* tasks completed */
  uint64_t sleeps;      /* times a worker went to sleep on the futex */
  uint64_t wakes;       /* futex wake calls made by submitters */
  uint64_t steals;      /* tasks a worker took from another worker's queue */
} air_pool_stats_t;

/* Starts `threads` workers (0 = one per online CPU). */
air_status_t air_pool_create(const air_allocator_t* allocator, uint32_t threads,
                             air_pool_t** out_pool);
/* A pool with no threads of its own: its tasks run on whoever calls
 * air_pool_help (a caller running a short submission itself, cpu_queue.c).
 * air_pool_threads says 1 (the helper). */
air_status_t air_pool_create_local(const air_allocator_t* allocator, air_pool_t** out_pool);
/* Runs the pool's tasks on the calling thread, as worker `worker`, until *until
 * is true and the queue is empty; sleeps on the futex while the queue is empty
 * and *until is false (another thread may still submit). A thread other than
 * the helper may set *until without waking it: the helper re-reads it at least
 * every millisecond. */
void air_pool_help(air_pool_t* pool, const _Atomic bool* until, uint32_t worker);
/* Stops the workers after the queue drains and frees the pool. */
void air_pool_destroy(air_pool_t* pool);
uint32_t air_pool_threads(const air_pool_t* pool);
/* Whether every worker has stopped spinning and sleeps (or is about to) on the
 * futex (a snapshot; false for a thread-less pool): work submitted now pays a
 * futex wake and the sleeper's way back onto a core, which on an idle virtual
 * machine (halted vCPUs) is tens of microseconds, not the ~1 us of a spinner. */
bool air_pool_asleep(const air_pool_t* pool);
/* The index of the calling thread among `pool`'s workers, or UINT32_MAX when it
 * is none of them (a thread-local read: no lock, no shared line). Lets
 * per-worker state (the interpreter's block cache fronts) be touched by its
 * own thread alone. */
uint32_t air_pool_self(const air_pool_t* pool);
/* Tasks queued and not yet taken by a worker (a snapshot). */
uint32_t air_pool_queued(const air_pool_t* pool);

/* Queues one task: at the front of the submitting worker's own queue when a
 * worker of this pool submits it, else on the shared queue. The call touches the pool after the task is queued (to wake a
 * sleeper), so a submitter that is not itself a worker must keep the pool alive
 * until the call returns, even if the task has already run. */
void air_pool_submit(air_pool_t* pool, air_task_t* task);
/* Queues a chain first..last (linked through ->next) in one step. */
void air_pool_submit_chain(air_pool_t* pool, air_task_t* first, air_task_t* last,
                           uint32_t count);

/* Spin iterations an idle worker makes before sleeping (default 2000). Safe to
 * call while workers run: each worker reads the value (a relaxed atomic load)
 * when it finds the queue empty, so the new count applies from its next idle
 * spell; a spell already under way finishes with the count it read. */
void air_pool_set_spin(air_pool_t* pool, uint32_t spin_iterations);
void air_pool_stats(const air_pool_t* pool, air_pool_stats_t* out);

#endif /* AIR_HAL_CPU_POOL_H_ */

/* semaphore.h - timeline semaphores: the timepoints every queue waits on and
 * signals. A semaphore holds a monotonically increasing 64-bit value; a timepoint
 * is (semaphore, value) and is reached when the value is >= it. A semaphore can
 * instead fail: the first failure status is kept, every current and future waiter
 * receives a copy, and the timeline never advances again.
 *
 * Waiting spins briefly (a signal from another core is seen in well under a
 * microsecond with no system call) and then sleeps on a futex, so idle waiters burn
 * no CPU. Thread-safe: any thread may signal, fail, wait or register timepoints. */
#ifndef AIR_HAL_SEMAPHORE_H_
#define AIR_HAL_SEMAPHORE_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/semaphore.h"
#include "air/status.h"

/* A callback run once when a timepoint is reached or its semaphore fails.
 * `failure` is borrowed (NULL when reached). Runs on the signalling thread, or
 * inline in air_semaphore_notify when already resolved: keep it short. */
typedef void (*air_timepoint_fn_t)(void* user, air_status_t failure);

/* Caller-owned node for air_semaphore_notify: no allocation on the hot path. It
 * must stay valid until its callback has run. */
typedef struct air_timepoint_t {
  struct air_timepoint_t* next;
  uint64_t value;
  air_timepoint_fn_t fn;
  void* user;
} air_timepoint_t;

/* The public calls (create, retain, release, query, signal, fail, wait) are
 * declared in air/semaphore.h. Signalling a value not greater than the current one
 * is INVALID_ARGUMENT; signalling a failed semaphore returns a copy of its failure.
 * Drivers, which hold an allocator rather than a context, create semaphores here: */
air_status_t air_hal_semaphore_create(const air_allocator_t* allocator,
                                      uint64_t initial_value, air_semaphore_t** out);

/* Registers `tp` (with tp->value, tp->fn, tp->user set) to run when the timepoint
 * is reached or the semaphore fails. Runs it inline if already resolved. */
void air_semaphore_notify(air_semaphore_t* s, air_timepoint_t* tp);

/* System calls this semaphore has made, so benchmarks and tests can prove the
 * fast path makes none. Counted only next to the futex calls themselves. */
typedef struct air_semaphore_stats_t {
  uint64_t futex_waits; /* a waiter went to sleep (or tried to) */
  uint64_t futex_wakes; /* a signaller woke sleepers */
} air_semaphore_stats_t;
void air_semaphore_stats(const air_semaphore_t* s, air_semaphore_stats_t* out);

/* How many spin iterations a waiter makes before sleeping (default 4096, about a
 * few microseconds). 0 sleeps at once. */
void air_semaphore_set_spin(air_semaphore_t* s, uint32_t spin_iterations);

#endif /* AIR_HAL_SEMAPHORE_H_ */

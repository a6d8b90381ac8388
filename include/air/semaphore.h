/* air/semaphore.h - timeline semaphores: how queues order work and report failure.
 *
 * A semaphore carries a 64-bit value that only grows. A timepoint (semaphore,
 * value) is reached when the value is >= it. Queue submissions wait on timepoints
 * and signal timepoints when they complete. When work fails, its semaphores fail:
 * they keep the first failure status and every waiter, now or later, receives a
 * copy. All calls are thread-safe.
 */
#ifndef AIR_SEMAPHORE_H_
#define AIR_SEMAPHORE_H_

#include "air/config.h"

#include <stdint.h>

#include "air/context.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_semaphore_t air_semaphore_t;

/* A list of timepoints: semaphores[i] reaching values[i], for every i < count. */
typedef struct air_timepoint_list_t {
  uint32_t count;
  air_semaphore_t* const* semaphores;
  const uint64_t* values;
} air_timepoint_list_t;

/* Creates a semaphore at `initial_value`. */
AIR_API air_status_t air_semaphore_create(air_context_t* context, uint64_t initial_value,
                                          air_semaphore_t** out_semaphore);
AIR_API void air_semaphore_retain(air_semaphore_t* semaphore);
/* Drops a reference; the last one frees the semaphore (callbacks still pending are
 * cancelled with CANCELLED). */
AIR_API void air_semaphore_release(air_semaphore_t* semaphore);

/* The current value. When failed, returns UINT64_MAX and, if `out_failure` is not
 * NULL, a copy of the failure that the caller frees. */
AIR_API uint64_t air_semaphore_query(air_semaphore_t* semaphore, air_status_t* out_failure);

/* Raises the value to `value` (it must be greater than the current value). */
AIR_API air_status_t air_semaphore_signal(air_semaphore_t* semaphore, uint64_t value);

/* Fails the semaphore with `status` (ownership taken; the first failure wins). */
AIR_API void air_semaphore_fail(air_semaphore_t* semaphore, air_status_t status);

/* Waits until the value is >= `value` (NULL), the semaphore fails (a copy of the
 * failure) or `timeout_ns` passes (DEADLINE_EXCEEDED). timeout_ns < 0 waits
 * forever, 0 polls. Waiting spins briefly, then sleeps without using the CPU. */
AIR_API air_status_t air_semaphore_wait(air_semaphore_t* semaphore, uint64_t value,
                                        int64_t timeout_ns);

/* Waits for every timepoint of `list` (same results as air_semaphore_wait; the
 * timeout covers the whole list). */
AIR_API air_status_t air_timepoint_list_wait(const air_timepoint_list_t* list,
                                             int64_t timeout_ns);

#ifdef __cplusplus
}
#endif
#endif /* AIR_SEMAPHORE_H_ */

/* hsa_queue.h - one HSA queue as the hsa driver uses it: submissions of dispatch
 * and barrier operations turned into AQL packets, dependencies between them as
 * barrier-AND packets, and completion tracked by one signal per queue.
 *
 * Completion: the queue's epoch signal starts at AIR_HSA_EPOCH_INITIAL and the last
 * packet of every submission (a barrier-AND with the barrier bit, so it completes
 * after everything before it) decrements it by one, so "submission e is done" is
 * "epoch signal <= INITIAL - e". No signal per operation: an operation gets a
 * signal only when a later one depends on it other than by immediately following
 * it, and those come from a pool and are reused once their submission is done.
 * A completion thread waits on the epoch signal and runs each submission's
 * callback in order.
 *
 * Dependencies inside a submission: none -> the packet is free to overlap with the
 * ones before it; only the operation just before -> the AQL barrier bit; anything
 * else, or signals from elsewhere (another queue, a copy) -> barrier-AND packets
 * over those signals, five per packet, chained.
 *
 * Failure: the runtime's queue callback (a packet faulted), or an epoch signal
 * going negative (the software queue's rule for a failed packet), makes the queue
 * failed for good: every pending and later submission completes with that error,
 * and waiting never hangs on a dead queue. */
#ifndef AIR_HAL_HSA_HSA_QUEUE_H_
#define AIR_HAL_HSA_HSA_QUEUE_H_

#ifdef AIR_HAVE_HSA
#include <stdint.h>

#include "hal/hsa/hsa_api.h"

#define AIR_HSA_EPOCH_INITIAL (INT64_MAX / 2)
/* Dependency signals each queue creates up front. */
#define AIR_HSA_WARM_SIGNALS 16

typedef struct air_hsa_queue_t air_hsa_queue_t;

typedef enum air_hsa_op_kind_e {
  AIR_HSA_OP_DISPATCH = 0,
  AIR_HSA_OP_BARRIER, /* waits for its dependencies, does nothing */
} air_hsa_op_kind_t;

typedef struct air_hsa_op_t {
  uint32_t kind;
  uint16_t dims;                /* 1..3 */
  uint16_t workgroup[3];
  uint32_t grid[3];             /* work-items */
  uint32_t group_segment_size;  /* LDS bytes */
  uint32_t private_segment_size;
  uint64_t kernel_object;
  void* kernarg;
  const uint32_t* deps;         /* indices of earlier operations of the submission */
  uint32_t n_deps;
  const hsa_signal_t* waits;    /* signals from outside the submission */
  uint32_t n_waits;
  /* Another queue or a copy waits for this operation: it gets a signal, which
   * reaches 0 when it completes. The caller owns it from then on and gives it
   * back (air_hsa_queue_give_signal) once every waiter is done: reused earlier,
   * it would be reset under a waiter that has not looked yet. */
  uint32_t export_signal;
} air_hsa_op_t;

/* Runs on the completion thread when a submission is done (status NULL) or failed
 * (status borrowed for the call). */
typedef void (*air_hsa_done_fn)(void* arg, air_status_t status);

typedef struct air_hsa_queue_stats_t {
  uint64_t submissions, packets, barrier_packets, signals_created, full_waits;
} air_hsa_queue_stats_t;

air_status_t air_hsa_queue_create(const air_allocator_t* allocator, const air_hsa_api_t* api,
                                  hsa_agent_t agent, uint32_t size, const char* name,
                                  air_hsa_queue_t** out);
/* Waits for what was submitted, then releases everything. */
void air_hsa_queue_destroy(air_hsa_queue_t* queue);

/* Publishes `ops` and returns at once; `done` (may be NULL) runs when they are
 * complete. out_signals (NULL, or n_ops entries) receives the signal of each
 * operation with export_signal set (0 handles for the others); *out_epoch (may be
 * NULL) the submission's epoch. Fails without publishing anything when the queue
 * has failed already. */
air_status_t air_hsa_queue_submit(air_hsa_queue_t* queue, const air_hsa_op_t* ops, uint32_t n_ops,
                                  hsa_signal_t* out_signals, air_hsa_done_fn done, void* arg,
                                  uint64_t* out_epoch);

/* Blocks until submission `epoch` is complete: NULL, or the queue's error (a new
 * status the caller frees). */
air_status_t air_hsa_queue_wait(air_hsa_queue_t* queue, uint64_t epoch);

/* Returns an exported signal to the queue's pool (a 0 handle is ignored). Give
 * every exported signal back before destroying the queue. */
void air_hsa_queue_give_signal(air_hsa_queue_t* queue, hsa_signal_t signal);

void air_hsa_queue_stats(const air_hsa_queue_t* queue, air_hsa_queue_stats_t* out);

#endif /* AIR_HAVE_HSA */
#endif /* AIR_HAL_HSA_HSA_QUEUE_H_ */

/* soft_hsa.h - a software HSA runtime for tests and benchmarks: the subset of the
 * HSA API the hsa driver calls (src/hal/hsa/hsa_api.h), implemented in host memory
 * so the driver's whole path runs here except the silicon.
 *
 * One CPU agent and one GPU agent (its name, e.g. "gfx90a", chosen at creation),
 * three memory pools (GPU coarse-grained, CPU fine-grained, CPU kernarg; all plain
 * host memory), signals (an atomic 64-bit value; waiters spin, then sleep on a
 * futex), and queues: a ring of 64-byte AQL packets in host memory with a consumer
 * thread per queue that does what a packet processor does. It waits for each
 * packet's header to turn valid (acquire), then
 *   - BARRIER_AND: waits until every dependency signal is 0; a negative one fails
 *     the packet (HSA's rule), which is how an error crosses queues;
 *   - KERNEL_DISPATCH: calls the dispatch hook with the packet (the tests run the
 *     CPU implementation of the kernel there); a non-zero return fails the packet;
 *   - then decrements the completion signal (or, for a failed packet, stores -1 in
 *     it), writes INVALID back into the slot and advances the read index.
 * A failed packet puts its queue in error: the queue's callback runs (as ROCr's
 * does) and later packets are not processed. Packets run one at a time, in order:
 * stricter than a GPU, and every ordering a program relies on holds.
 * hsa_amd_memory_async_copy runs on an internal queue of its own.
 *
 * HSA's entry points take no context, so one soft runtime is current per process
 * (tests only): soft_hsa_create makes it current, soft_hsa_destroy ends it. */
#ifndef AIR_TESTS_SOFT_HSA_H_
#define AIR_TESTS_SOFT_HSA_H_

#include <stdint.h>

#include "hal/hsa/hsa_api.h"

typedef struct soft_hsa_t soft_hsa_t;

/* Runs one dispatch packet: `kernel_name` is the symbol the packet's kernel object
 * came from (without ".kd"), or NULL for an unknown object. Returns 0, or non-zero
 * to fail the packet. Called on the queue's consumer thread. */
typedef int (*soft_hsa_dispatch_fn)(void* user, const char* kernel_name,
                                    const hsa_kernel_dispatch_packet_t* packet);

typedef struct soft_hsa_options_t {
  const char* gpu_name;          /* default "gfx90a" */
  uint32_t compute_units;        /* default 104 */
  uint32_t queue_max_size;       /* default 4096 packets */
  int fail_init;                 /* hsa_init answers OUT_OF_RESOURCES, like ROCr without /dev/kfd */
  int no_gpu;                    /* hsa_init works but lists no GPU agent */
  soft_hsa_dispatch_fn dispatch; /* default: every dispatch succeeds doing nothing */
  void* dispatch_user;
} soft_hsa_options_t;

/* Creates the soft runtime, makes it current and fills `api` with its functions.
 * Returns NULL when one is already current. */
soft_hsa_t* soft_hsa_create(const soft_hsa_options_t* options, air_hsa_api_t* api);
void soft_hsa_destroy(soft_hsa_t* soft);

/* Counters (read after the queues went idle). */
typedef struct soft_hsa_stats_t {
  uint64_t dispatches, barriers, copies, failed_packets, signals_created, doorbells;
} soft_hsa_stats_t;
void soft_hsa_stats(const soft_hsa_t* soft, soft_hsa_stats_t* out);

/* Makes kernel `name` (without ".kd") known, so executables find "<name>.kd" even
 * without a code object that defines it; returns its kernel object. */
uint64_t soft_hsa_define_kernel(soft_hsa_t* soft, const char* name, uint32_t kernarg_size);

#endif /* AIR_TESTS_SOFT_HSA_H_ */

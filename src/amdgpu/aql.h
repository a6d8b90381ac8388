/* aql.h - HSA AQL packets (the 64-byte records a GPU's packet processor reads from
 * a queue) and the protocol for publishing them: reserve slots by bumping the
 * write index, wait until the ring has room, fill each packet's body, store its
 * header last with release ordering, ring the doorbell once per batch.
 *
 * The layouts are the HSA 1.2 ones (<hsa/hsa.h>); src/hal/hsa/aql_layout.c checks
 * them field by field at compile time. This file needs no HSA header: the ring
 * reaches its queue through three callbacks, so the same code publishes into a
 * ROCr queue (src/hal/hsa) and into the tests' software queue. */
#ifndef AIR_AMDGPU_AQL_H_
#define AIR_AMDGPU_AQL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

/* Packet types (header bits 0-7). */
enum {
  AIR_AQL_TYPE_VENDOR = 0,
  AIR_AQL_TYPE_INVALID = 1,
  AIR_AQL_TYPE_KERNEL_DISPATCH = 2,
  AIR_AQL_TYPE_BARRIER_AND = 3,
  AIR_AQL_TYPE_AGENT_DISPATCH = 4,
  AIR_AQL_TYPE_BARRIER_OR = 5,
};
/* Header bit positions and fence scopes. */
enum {
  AIR_AQL_HEADER_BARRIER = 8,       /* wait for every earlier packet of the queue */
  AIR_AQL_HEADER_ACQUIRE_SCOPE = 9, /* 2 bits */
  AIR_AQL_HEADER_RELEASE_SCOPE = 11,
  AIR_AQL_SCOPE_NONE = 0,
  AIR_AQL_SCOPE_AGENT = 1,
  AIR_AQL_SCOPE_SYSTEM = 2,
};
/* A barrier packet waits for at most this many signals. */
#define AIR_AQL_BARRIER_DEPS 5

typedef struct air_aql_dispatch_t {
  uint16_t header;
  uint16_t setup; /* bits 0-1: grid dimensions */
  uint16_t workgroup_size_x, workgroup_size_y, workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x, grid_size_y, grid_size_z; /* in work-items */
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;   /* address of the kernel descriptor */
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal; /* hsa_signal_t handle; 0 = none */
} air_aql_dispatch_t;

typedef struct air_aql_barrier_t {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[AIR_AQL_BARRIER_DEPS]; /* 0 = unused */
  uint64_t reserved2;
  uint64_t completion_signal;
} air_aql_barrier_t;

typedef union air_aql_packet_t {
  uint16_t header;
  uint32_t words[16];
  air_aql_dispatch_t dispatch;
  air_aql_barrier_t barrier;
} air_aql_packet_t;

_Static_assert(sizeof(air_aql_packet_t) == 64, "an AQL packet is 64 bytes");

static inline uint16_t air_aql_header(uint32_t type, bool barrier, uint32_t acquire,
                                      uint32_t release) {
  return (uint16_t)(type | (uint32_t)barrier << AIR_AQL_HEADER_BARRIER |
                    acquire << AIR_AQL_HEADER_ACQUIRE_SCOPE |
                    release << AIR_AQL_HEADER_RELEASE_SCOPE);
}
static inline uint32_t air_aql_header_type(uint16_t header) { return header & 0xffu; }

/* Makes the packet visible to the packet processor: header and setup stored as one
 * 32-bit word with release ordering, after every other field. */
static inline void air_aql_publish(air_aql_packet_t* p, uint16_t header, uint16_t setup) {
  __atomic_store_n(&p->words[0], (uint32_t)header | (uint32_t)setup << 16, __ATOMIC_RELEASE);
}
/* The consumer's side: the header word with acquire ordering. */
static inline uint32_t air_aql_load_header(const air_aql_packet_t* p) {
  return __atomic_load_n(&p->words[0], __ATOMIC_ACQUIRE);
}

/* Barrier-AND packets for `n_deps` signals: one per five, none for none. */
static inline uint32_t air_aql_barrier_count(uint32_t n_deps) {
  return (n_deps + AIR_AQL_BARRIER_DEPS - 1) / AIR_AQL_BARRIER_DEPS;
}

/* Fills the body of barrier packet `k` of a chain over `deps` (all but the header):
 * its up-to-five signals, and `completion` on the last packet of the chain only.
 * Packets of one queue are processed in order and a barrier packet holds back
 * every packet after it until its signals are 0, so consecutive barrier-AND
 * packets wait for all of `deps` together. */
void air_aql_fill_barrier_and(air_aql_packet_t* p, const uint64_t* deps, uint32_t n_deps,
                              uint32_t k, uint64_t completion);

/* The queue behind a ring. `add_write_index` bumps the write index by n and
 * returns its old value (relaxed; several producers may share a queue);
 * `load_read_index` reads the consumer's index (acquire); `doorbell` stores the
 * last published packet id (release). */
typedef struct air_aql_queue_ops_t {
  uint64_t (*add_write_index)(void* queue, uint64_t n);
  uint64_t (*load_read_index)(void* queue);
  void (*doorbell)(void* queue, uint64_t id);
} air_aql_queue_ops_t;

typedef struct air_aql_ring_t {
  air_aql_packet_t* base;
  uint32_t size; /* packets; a power of two */
  void* queue;
  const air_aql_queue_ops_t* ops;
  /* Non-zero once the queue is in error: waiting for room gives up. */
  const _Atomic(int)* failed;
  uint64_t full_waits; /* reservations that had to wait for room (statistics) */
} air_aql_ring_t;

/* Reserves `n` consecutive packet ids (n <= size) and waits until the ring has room
 * for all of them: first spinning, then yielding. Returns the first id, whose slots
 * may now be filled. UNAVAILABLE when the queue fails while waiting. */
air_status_t air_aql_ring_reserve(air_aql_ring_t* ring, uint32_t n, uint64_t* out_first);

static inline air_aql_packet_t* air_aql_ring_slot(const air_aql_ring_t* ring, uint64_t id) {
  return &ring->base[id & (ring->size - 1)];
}

static inline void air_aql_ring_doorbell(const air_aql_ring_t* ring, uint64_t last_id) {
  ring->ops->doorbell(ring->queue, last_id);
}

/* A ring's slots all start INVALID (the packet processor writes INVALID back after
 * it consumed one), so a reserved but unpublished slot is never taken for a packet. */
void air_aql_ring_clear(air_aql_packet_t* base, uint32_t size);

#endif /* AIR_AMDGPU_AQL_H_ */

/* aql.c - the AQL publication protocol's waiting part and barrier chains (aql.h). */
#include "amdgpu/aql.h"

#include <sched.h>
#include <string.h>

#include "runtime/base/status_util.h"

void air_aql_fill_barrier_and(air_aql_packet_t* p, const uint64_t* deps, uint32_t n_deps,
                              uint32_t k, uint64_t completion) {
  /* Everything but the first word: the header goes in last, by air_aql_publish. */
  memset(&p->words[1], 0, sizeof *p - sizeof p->words[0]);
  uint32_t first = k * AIR_AQL_BARRIER_DEPS;
  for (uint32_t i = 0; i < AIR_AQL_BARRIER_DEPS && first + i < n_deps; ++i)
    p->barrier.dep_signal[i] = deps[first + i];
  if (k + 1 >= air_aql_barrier_count(n_deps)) p->barrier.completion_signal = completion;
}

air_status_t air_aql_ring_reserve(air_aql_ring_t* ring, uint32_t n, uint64_t* out_first) {
  if (n == 0 || n > ring->size)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "AQL: %u packets cannot fit a ring of %u", n, ring->size);
  uint64_t first = ring->ops->add_write_index(ring->queue, n);
  /* Room: the last id reserved must be less than read index + size. */
  uint64_t end = first + n;
  if (end - ring->ops->load_read_index(ring->queue) > ring->size) {
    ring->full_waits++;
    for (uint32_t spins = 0; end - ring->ops->load_read_index(ring->queue) > ring->size; ++spins) {
      if (ring->failed && atomic_load_explicit(ring->failed, memory_order_acquire))
        return AIR_STATUS(NULL, AIR_STATUS_UNAVAILABLE,
                          "AQL: the queue failed while packets %llu..%llu waited for room",
                          (unsigned long long)first, (unsigned long long)(end - 1));
      if (spins >= 64) sched_yield();
    }
  }
  *out_first = first;
  return NULL;
}

void air_aql_ring_clear(air_aql_packet_t* base, uint32_t size) {
  memset(base, 0, (size_t)size * sizeof *base);
  for (uint32_t i = 0; i < size; ++i) base[i].header = AIR_AQL_TYPE_INVALID;
}

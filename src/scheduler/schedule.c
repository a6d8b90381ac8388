/* schedule.c - the few calls of the schedule contract (schedule.h): freeing a
 * schedule and the names of command and queue kinds. air_partition_orders lives
 * with the partitioner (partition.c), which defines the clocks it reads. */
#include "scheduler/schedule.h"

#include "scheduler/partition.h"

static const char* const k_cmd_names[AIR_SCHED_CMD_COUNT] = {
    "other", "launch", "segment", "herd", "dma", "channel",
    "alloc", "dealloc", "execute", "wait_all", "call",
};

const char* air_sched_cmd_kind_name(uint32_t kind) {
  return kind < AIR_SCHED_CMD_COUNT ? k_cmd_names[kind] : "unknown";
}

const char* air_sched_queue_kind_name(uint32_t kind) {
  switch (kind) {
    case AIR_SCHED_Q_HOST: return "host";
    case AIR_SCHED_Q_DMA: return "dma";
    case AIR_SCHED_Q_COMPUTE: return "compute";
    default: return "unknown";
  }
}

void air_schedule_free(air_schedule_t* sc) {
  if (!sc) return;
  air_partition_free(sc->partition);
  air_arena_deinit(&sc->arena);
  air_allocator_t a = sc->allocator;
  a.free(a.self, sc);
}

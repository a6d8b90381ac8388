/* schedule.c - the few calls of the schedule contract (schedule.h): making and
 * freeing a partition and a schedule, reading the partition's clocks, and the
 * names of command and queue kinds. The bottom of the scheduler: it calls nothing
 * above it. */
#include "scheduler/schedule.h"

#include "runtime/base/mem.h"

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

air_partition_t* air_partition_new(const air_allocator_t* allocator) {
  air_partition_t* P = air_mem_calloc(allocator, 1, sizeof *P);
  if (!P) return NULL;
  P->allocator = *allocator;
  air_arena_init(&P->arena, allocator);
  return P;
}

void air_partition_free(air_partition_t* P) {
  if (!P) return;
  air_allocator_t a = P->allocator;
  air_arena_deinit(&P->arena);
  air_mem_free(&a, P);
}

bool air_partition_orders(const air_partition_t* P, uint32_t a, uint32_t b) {
  if (a >= P->n_nodes || b >= P->n_nodes || a == b) return false;
  uint32_t wa = P->node_wave[a], wb = P->node_wave[b];
  if (wa == wb) return false;
  uint32_t qa = P->waves[wa].queue, qb = P->waves[wb].queue;
  uint32_t ka = wa - P->queues[qa].wave_begin;
  if (qa == qb) return wa < wb;
  return P->clocks[(size_t)wb * P->n_queues + qa] >= ka + 1;
}

void air_schedule_free(air_schedule_t* sc) {
  if (!sc) return;
  air_partition_free(sc->partition);
  air_arena_deinit(&sc->arena);
  air_allocator_t a = sc->allocator;
  a.free(a.self, sc);
}

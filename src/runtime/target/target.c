/* target.c - the target table. Numbers are the public device geometry: AIE-ML
 * npu1 (Phoenix: 4 columns x 4 compute rows, 64 KiB data memory per tile, one
 * 512 KiB mem tile per column, 2 S2MM + 2 MM2S channels per compute tile), npu2
 * (Strix: 8 columns), MI300X (8 XCDs x 38 CUs, 64 KiB LDS, 4 MiB L2 per XCD,
 * herds capped at 32 PEs), and the CPU backend (no hard limits). */
#include "runtime/target/target.h"

#include <string.h>

#include "runtime/base/status_util.h"

#define KIB 1024ull

static const air_target_t k_targets[] = {
    {"npu1", AIR_TARGET_NPU, 4, 4, 2, 64 * KIB, 4, 512 * KIB, 2, 2, 0, false},
    {"npu2", AIR_TARGET_NPU, 8, 4, 2, 64 * KIB, 8, 512 * KIB, 2, 2, 0, false},
    {"mi300x", AIR_TARGET_GPU, 8, 38, 0, 64 * KIB, 8, 4096 * KIB, 0, 0, 32, true},
    {"cpu", AIR_TARGET_CPU, 0, 0, 0, 0, 1, 0, 0, 0, 0, true},
};
static const uint32_t k_target_count = sizeof k_targets / sizeof k_targets[0];

const air_target_t* air_target_table(uint32_t* out_count) {
  *out_count = k_target_count;
  return k_targets;
}

air_status_t air_target_lookup(const air_allocator_t* allocator, const char* name,
                               const air_target_t** out) {
  *out = NULL;
  for (uint32_t i = 0; i < k_target_count; ++i) {
    if (name && !strcmp(name, k_targets[i].name)) {
      *out = &k_targets[i];
      return AIR_STATUS_OK_VALUE;
    }
  }
  /* Built from the table so the message can never disagree with it. */
  char known[128] = "";
  for (uint32_t i = 0; i < k_target_count; ++i) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, k_targets[i].name, sizeof known - strlen(known) - 1);
  }
  return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                    "unknown target '%s'; known targets: %s", name ? name : "(null)", known);
}

uint64_t air_target_tiles(const air_target_t* t) {
  return (uint64_t)t->cols * t->rows;
}

uint64_t air_target_l2_total(const air_target_t* t) {
  return t->l2_bytes * t->l2_units;
}

/* Compute tiles and mem tiles both carry DMA engines; a segment's own
 * transfers (L3<->L2<->L1) run on them. */
uint64_t air_target_dma_total(const air_target_t* t) {
  uint64_t per_tile = (uint64_t)t->dma_in + t->dma_out;
  return per_tile * (air_target_tiles(t) + (t->kind == AIR_TARGET_NPU ? t->l2_units : 0));
}

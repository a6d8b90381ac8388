/* target.h - the devices the scheduler knows, as data: one table row per target
 * (compute grid, memory per level, DMA channels, herd limits). Analyses and the
 * placer read geometry only from here, never from constants of their own. */
#ifndef AIR_RUNTIME_TARGET_TARGET_H_
#define AIR_RUNTIME_TARGET_TARGET_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef enum air_target_kind_e {
  AIR_TARGET_NPU, /* 2D tile array: columns x compute rows, a mem-tile row below */
  AIR_TARGET_GPU, /* XCDs x CUs; a herd is one workgroup on one CU */
  AIR_TARGET_CPU, /* worker groups; no hard per-level limits */
} air_target_kind_t;

typedef struct air_target_t {
  const char* name;
  air_target_kind_t kind;
  /* The partitionable grid. NPU: columns x compute rows; GPU: XCDs x CUs per
   * XCD; CPU: worker groups x 1. */
  uint32_t cols, rows;
  /* Device row of the first compute row, so x_loc/y_loc in device coordinates
   * (NPU row 0 = shim, row 1 = mem tiles) map onto the grid. */
  uint32_t first_row;
  uint64_t l1_bytes;       /* per compute tile / LDS per CU; 0 = unlimited */
  uint32_t l2_units;       /* NPU mem tiles, GPU XCD L2s, CPU 1 */
  uint64_t l2_bytes;       /* per L2 unit; 0 = unlimited */
  uint32_t dma_in, dma_out; /* DMA channels per tile (S2MM, MM2S); 0 = unlimited */
  uint32_t max_herd_pes;   /* PEs one herd may have; 0 = the grid bounds it */
  bool herd_is_one_tile;   /* GPU: a herd occupies one CU whatever its PE count */
} air_target_t;

/* Every known target, in a fixed order; *out_count gets the row count. */
const air_target_t* air_target_table(uint32_t* out_count);

/* Finds a target by name; INVALID_ARGUMENT listing the known names when absent. */
air_status_t air_target_lookup(const air_allocator_t* allocator, const char* name,
                               const air_target_t** out);

/* Derived totals: compute tiles, L2 bytes and DMA channels of the whole device
 * (0 = unlimited). */
uint64_t air_target_tiles(const air_target_t* t);
uint64_t air_target_l2_total(const air_target_t* t);
uint64_t air_target_dma_total(const air_target_t* t);

#endif /* AIR_RUNTIME_TARGET_TARGET_H_ */

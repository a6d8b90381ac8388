/* target.h - the devices libairrt can target, as data: one table row per target
 * (compute grid, memory per level, DMA channels, BDs, locks, herd limits), keyed
 * by name. The verifier, the scheduler's analyses and the placer read device
 * facts only from here, never from constants of their own. The AIE rows restate
 * mlir-aie's target models (docs/targets.md). */
#ifndef AIR_RUNTIME_TARGET_TARGET_H_
#define AIR_RUNTIME_TARGET_TARGET_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef enum air_target_kind_e {
  AIR_TARGET_NPU, /* AIE tile array: columns x core rows, shim row 0, mem-tile rows */
  AIR_TARGET_GPU, /* XCDs x CUs; a herd is one workgroup on one CU */
  AIR_TARGET_CPU, /* worker groups; no hard per-level limits */
} air_target_kind_t;

/* AIE generation of an NPU-kind row (AIR_ARCH_NONE elsewhere). */
typedef enum air_target_arch_e {
  AIR_ARCH_NONE = 0,
  AIR_ARCH_AIE1,  /* xcvc1902: no mem tiles, binary locks, 1-d BDs */
  AIR_ARCH_AIE2,  /* AIE-ML: xcve2302, xcve2802, npu1* */
  AIR_ARCH_AIE2P, /* npu2* */
} air_target_arch_t;

enum {
  AIR_TARGET_F_NPU = 1u << 0,         /* a Ryzen AI NPU (runs through XRT) */
  AIR_TARGET_F_VIRTUALIZED = 1u << 1, /* a column partition of a larger array */
};

/* Rows are written with designated initializers; fields after herd_is_one_tile
 * describe AIE arrays and stay zero for GPU and CPU rows. */
typedef struct air_target_t {
  const char* name;
  air_target_kind_t kind;
  /* The partitionable grid. NPU: columns x core (compute) rows; GPU: XCDs x CUs
   * per XCD; CPU: worker groups x 1. */
  uint32_t cols, rows;
  /* Device row of the first core row, so x_loc/y_loc in device coordinates (row
   * 0 = shim, then the mem-tile rows) map onto the grid. */
  uint32_t first_row;
  uint64_t l1_bytes;        /* per core tile / LDS per CU; 0 = unlimited */
  uint32_t l2_units;        /* mem tiles (cols x mem-tile rows), GPU XCD L2s, CPU 1;
                               0 on an NPU without mem tiles */
  uint64_t l2_bytes;        /* per L2 unit; 0 = unlimited (also: L2 off the array) */
  uint32_t dma_in, dma_out; /* DMA channels per core tile (S2MM, MM2S); 0 = unlimited */
  uint32_t max_herd_pes;    /* PEs one herd may have; 0 = the grid bounds it */
  bool herd_is_one_tile;    /* GPU: a herd occupies one CU whatever its PE count */

  /* ---- GPUs (docs/gpu.md) ---- */
  const char* gfx;          /* the AMDGPU processor kernels are built for ("gfx90a") */
  uint32_t wave_size;       /* work-items per wavefront: 64 (CDNA) or 32 (RDNA) */
  uint32_t wave_slots;      /* wavefronts one CU holds at once (herd PEs under the
                               wave mapping) */

  /* ---- AIE arrays ---- */
  const char* alias;        /* a second name for the same row (npu1_4col), or NULL */
  air_target_arch_t arch;
  uint32_t flags;           /* AIR_TARGET_F_* */
  uint32_t memtile_rows;    /* 0: no mem tiles; L2 then lives outside the array */
  /* Bit c set: the shim tile of column c has a DMA (a shim NOC tile). Only those
   * columns move data to and from L3 (and off-array L2). */
  uint64_t shim_dma_cols;
  uint32_t shim_dma_in, shim_dma_out; /* per shim DMA tile (S2MM, MM2S) */
  uint32_t l2_dma_in, l2_dma_out;     /* per mem tile (S2MM, MM2S) */
  uint32_t core_bds, core_locks;
  uint32_t l2_bds, l2_locks;          /* per mem tile */
  uint32_t shim_bds, shim_locks;
  uint32_t lock_max;        /* largest lock value: 1 (binary locks) or 63 */
  uint32_t bd_dims;         /* dimensions one buffer descriptor addresses */
  uint32_t l1_stack;        /* bytes of each core's L1 its stack takes (mlir-air: 1024) */
  uint32_t program_bytes;   /* program memory per core */
} air_target_t;

/* Every known target, in a fixed order; *out_count gets the row count. */
const air_target_t* air_target_table(uint32_t* out_count);

/* Finds a target by name or alias; INVALID_ARGUMENT listing the known names when
 * absent. */
air_status_t air_target_lookup(const air_allocator_t* allocator, const char* name,
                               const air_target_t** out);

/* Derived totals: compute tiles of the whole device, L2 bytes of the whole device
 * (0 = unlimited or off the array), core rows x columns. */
uint64_t air_target_tiles(const air_target_t* t);
uint64_t air_target_l2_total(const air_target_t* t);

/* L2 lives on the array (mem tiles, XCD L2s, the CPU's one unit)? False on an
 * AIE array without mem tiles, where L2 buffers are host memory reached through
 * the shim DMAs (mlir-air's airrt.alloc path). */
bool air_target_l2_on_array(const air_target_t* t);

/* Shim DMA tiles of the device, and whether column c has one. */
uint32_t air_target_shim_dma_count(const air_target_t* t);
bool air_target_shim_has_dma(const air_target_t* t, uint32_t col);

/* Mem tiles serving a segment that spans `cols` columns from column `x` (all mem
 * tiles of the device when cols is 0): the mem-tile rows of those columns. */
uint32_t air_target_memtiles_in(const air_target_t* t, uint32_t x, uint32_t cols);

/* L1 one herd tile may allocate: the data memory minus the stack (0 = unlimited). */
uint64_t air_target_l1_usable(const air_target_t* t);

const char* air_target_arch_name(air_target_arch_t arch);

#endif /* AIR_RUNTIME_TARGET_TARGET_H_ */

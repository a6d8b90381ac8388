/* target.c - the target table. The AIE rows restate ../shared/design/DEVICES.md
 * (mlir-aie's target models, as mlir-air compiles for them): geometry, which shim
 * columns have a DMA, per-tile memory, DMA channels, BDs and locks per
 * generation. Column variants (npu1_2col, ...) are the same model narrowed to N
 * columns 0..N-1. MI300X: 8 XCDs x 38 CUs, 64 KiB LDS, 4 MiB L2 per XCD, herds
 * capped at 32 PEs. The CPU backend has no hard limits. */
#include "runtime/target/target.h"

#include <string.h>

#include "runtime/base/status_util.h"

#define KIB 1024ull
#define COL(c) (1ull << (c))
#define ALL_COLS(n) ((n) >= 64 ? ~0ull : (1ull << (n)) - 1)

/* Per-generation tile facts (DEVICES.md section 3). AIE1 has no mem tiles, so
 * its mem-tile fields stay zero. */
#define AIE1_TILES                                                                    \
  .arch = AIR_ARCH_AIE1, .l1_bytes = 32 * KIB, .dma_in = 2, .dma_out = 2,             \
  .shim_dma_in = 2, .shim_dma_out = 2, .core_bds = 16, .core_locks = 16,              \
  .shim_bds = 16, .shim_locks = 16, .lock_max = 1, .bd_dims = 1, .l1_stack = 1024,    \
  .program_bytes = 16 * KIB
#define AIE2_TILES(a)                                                                 \
  .arch = (a), .l1_bytes = 64 * KIB, .dma_in = 2, .dma_out = 2, .l2_bytes = 512 * KIB,\
  .l2_dma_in = 6, .l2_dma_out = 6, .l2_bds = 48, .l2_locks = 64, .shim_dma_in = 2,    \
  .shim_dma_out = 2, .core_bds = 16, .core_locks = 16, .shim_bds = 16,                \
  .shim_locks = 16, .lock_max = 63, .bd_dims = 4, .l1_stack = 1024,                   \
  .program_bytes = 16 * KIB

/* An AIE array: `cols` columns, core rows first..first+rows-1, `mt` mem-tile rows. */
#define AIE_GRID(c, r, first, mt)                                                     \
  .kind = AIR_TARGET_NPU, .cols = (c), .rows = (r), .first_row = (first),             \
  .memtile_rows = (mt), .l2_units = (c) * (mt)

/* Ryzen AI NPUs: 4 core rows from row 2, one mem-tile row, a DMA in every shim. */
#define NPU(nm, al, a, c, fl)                                                         \
  {.name = (nm), .alias = (al), AIE_GRID(c, 4, 2, 1), AIE2_TILES(a),                  \
   .shim_dma_cols = ALL_COLS(c), .flags = AIR_TARGET_F_NPU | (fl)}
#define V AIR_TARGET_F_VIRTUALIZED
#define GPU(nm, xcds, cus, l2k, wave, slots)                                              \
  {.name = nm, .kind = AIR_TARGET_GPU, .cols = xcds, .rows = cus, .l1_bytes = 64 * KIB, \
   .l2_units = xcds, .l2_bytes = (l2k) * KIB, .max_herd_pes = 1024,                     \
   .herd_is_one_tile = true, .gfx = nm, .wave_size = wave, .wave_slots = slots}

static const air_target_t k_targets[] = {
    /* VCK190 / VCK5000, mlir-air's default device. */
    {.name = "xcvc1902", AIE_GRID(50, 8, 1, 0), AIE1_TILES,
     .shim_dma_cols = COL(2) | COL(3) | COL(6) | COL(7) | COL(10) | COL(11) | COL(18) |
                      COL(19) | COL(26) | COL(27) | COL(34) | COL(35) | COL(42) | COL(43) |
                      COL(46) | COL(47)},
    {.name = "xcve2302", AIE_GRID(17, 2, 2, 1), AIE2_TILES(AIR_ARCH_AIE2),
     .shim_dma_cols = COL(2) | COL(3) | COL(6) | COL(7) | COL(10) | COL(11)},
    {.name = "xcve2802", AIE_GRID(38, 8, 3, 2), AIE2_TILES(AIR_ARCH_AIE2),
     .shim_dma_cols = COL(2) | COL(3) | COL(6) | COL(7) | COL(14) | COL(15) | COL(22) |
                      COL(23) | COL(30) | COL(31) | COL(34) | COL(35)},
    /* Every npu1 model is virtualized, npu1 itself included (4 columns). */
    NPU("npu1", "npu1_4col", AIR_ARCH_AIE2, 4, V),
    NPU("npu1_1col", NULL, AIR_ARCH_AIE2, 1, V),
    NPU("npu1_2col", NULL, AIR_ARCH_AIE2, 2, V),
    NPU("npu1_3col", NULL, AIR_ARCH_AIE2, 3, V),
    NPU("npu2", NULL, AIR_ARCH_AIE2P, 8, 0),
    NPU("npu2_1col", NULL, AIR_ARCH_AIE2P, 1, V),
    NPU("npu2_2col", NULL, AIR_ARCH_AIE2P, 2, V),
    NPU("npu2_3col", NULL, AIR_ARCH_AIE2P, 3, V),
    NPU("npu2_4col", NULL, AIR_ARCH_AIE2P, 4, V),
    NPU("npu2_5col", NULL, AIR_ARCH_AIE2P, 5, V),
    NPU("npu2_6col", NULL, AIR_ARCH_AIE2P, 6, V),
    NPU("npu2_7col", NULL, AIR_ARCH_AIE2P, 7, V),
    {.name = "mi300x", .kind = AIR_TARGET_GPU, .cols = 8, .rows = 38, .l1_bytes = 64 * KIB,
     .l2_units = 8, .l2_bytes = 4096 * KIB, .max_herd_pes = 32, .herd_is_one_tile = true,
     .gfx = "gfx942", .wave_size = 64, .wave_slots = 32},
    /* AMDGPU processors, for `airc compile --target gfxNNN` (generated kernels,
     * docs/gpu.md). XCDs x CUs of the product named; LDS (l1_bytes) per workgroup;
     * L2 per XCD (or die); herds up to a workgroup's 1024 work-items (the wave
     * mapping's tighter limits are the generator's). */
    GPU("gfx908", 1, 120, 8192, 64, 40),   /* MI100 */
    GPU("gfx90a", 1, 110, 8192, 64, 32),   /* MI210/MI250X, one GCD */
    GPU("gfx940", 6, 38, 4096, 64, 32),    /* MI300A */
    GPU("gfx942", 8, 38, 4096, 64, 32),    /* MI300X */
    GPU("gfx1030", 1, 80, 4096, 32, 32),   /* RX 6800 XT / 6900 XT (Navi 21) */
    GPU("gfx1100", 1, 96, 6144, 32, 32),   /* RX 7900 XTX (Navi 31) */
    {.name = "cpu", .kind = AIR_TARGET_CPU, .l2_units = 1, .herd_is_one_tile = true},
};
static const uint32_t k_target_count = sizeof k_targets / sizeof k_targets[0];

const air_target_t* air_target_table(uint32_t* out_count) {
  *out_count = k_target_count;
  return k_targets;
}

air_status_t air_target_lookup(const air_allocator_t* allocator, const char* name,
                               const air_target_t** out) {
  *out = NULL;
  for (uint32_t i = 0; name && i < k_target_count; ++i) {
    const air_target_t* t = &k_targets[i];
    if (!strcmp(name, t->name) || (t->alias && !strcmp(name, t->alias))) {
      *out = t;
      return AIR_STATUS_OK_VALUE;
    }
  }
  /* Built from the table so the message can never disagree with it. */
  char known[512] = "";
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

bool air_target_l2_on_array(const air_target_t* t) {
  return t->kind != AIR_TARGET_NPU || t->memtile_rows > 0;
}

uint32_t air_target_shim_dma_count(const air_target_t* t) {
  return (uint32_t)__builtin_popcountll(t->shim_dma_cols);
}

bool air_target_shim_has_dma(const air_target_t* t, uint32_t col) {
  return col < 64 && col < t->cols && (t->shim_dma_cols >> col & 1u);
}

uint32_t air_target_memtiles_in(const air_target_t* t, uint32_t x, uint32_t cols) {
  if (t->kind != AIR_TARGET_NPU || !t->memtile_rows) return 0;
  if (x >= t->cols) return 0;
  if (!cols || cols > t->cols - x) cols = t->cols - x;
  return cols * t->memtile_rows;
}

uint64_t air_target_l1_usable(const air_target_t* t) {
  if (!t->l1_bytes) return 0;
  /* 0 means unlimited, so a memory the stack fills leaves 1 byte, not 0. */
  return t->l1_bytes > t->l1_stack ? t->l1_bytes - t->l1_stack : 1;
}

const char* air_target_arch_name(air_target_arch_t arch) {
  switch (arch) {
    case AIR_ARCH_AIE1: return "AIE1";
    case AIR_ARCH_AIE2: return "AIE2";
    case AIR_ARCH_AIE2P: return "AIE2P";
    default: return "-";
  }
}

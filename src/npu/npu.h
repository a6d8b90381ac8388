/* npu.h - AMD NPU (AIE2 "npu1", AIE2P "npu2") device facts as data: the device
 * names mlir-aie compiles for, their geometry and TXN header, and the register
 * map of the DMA pieces the instruction stream touches (BD blocks, channel
 * control and task-queue registers, absolute addresses).
 *
 * Facts: /work/shared/design/DEVICES.md §1-3 and NPU-DMA.md §1-2 (restated in
 * docs/npu.md). Everything here is pure computation; no file or device access. */
#ifndef AIR_NPU_NPU_H_
#define AIR_NPU_NPU_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "npu/txn.h"

typedef enum air_npu_arch_e { AIR_NPU_AIE2 = 2, AIR_NPU_AIE2P = 3 } air_npu_arch_t;

typedef struct air_npu_device_t {
  const char* name; /* as in aie.device(NAME) */
  air_npu_arch_t arch;
  uint8_t cols;     /* columns of the partition, each with a shim DMA */
  uint8_t rows;     /* 6: shim, mem tile, 4 core rows */
  uint8_t dev_gen;  /* TXN header: 3 npu1, 4 npu2 */
  uint8_t max_burst_code; /* shim burst-length code the default (0) selects */
} air_npu_device_t;

enum {
  AIR_NPU_SHIM_ROW = 0,
  AIR_NPU_MEM_ROW = 1,
  AIR_NPU_FIRST_CORE_ROW = 2,
};

/* Fills *out with the NPU model `name` (npu1, npu1_Ncol N=1..3, npu1_4col = npu1,
 * npu2, npu2_Ncol N=1..7: the target table's Ryzen AI rows); false when unknown. */
bool air_npu_device_find(const char* name, size_t len, air_npu_device_t* out);
/* The known names, comma separated, for messages (truncated to cap). */
void air_npu_device_names(char* buf, size_t cap);
air_txn_geom_t air_npu_device_geom(const air_npu_device_t* d);

typedef enum air_npu_tile_e {
  AIR_NPU_TILE_SHIM,
  AIR_NPU_TILE_MEM,
  AIR_NPU_TILE_CORE,
} air_npu_tile_t;

static inline air_npu_tile_t air_npu_tile_kind(uint32_t row) {
  return row == AIR_NPU_SHIM_ROW ? AIR_NPU_TILE_SHIM
         : row == AIR_NPU_MEM_ROW ? AIR_NPU_TILE_MEM
                                  : AIR_NPU_TILE_CORE;
}

/* DMA direction: S2MM (stream to memory, into a tile) or MM2S (out of it). */
typedef enum air_npu_dir_e { AIR_NPU_S2MM = 0, AIR_NPU_MM2S = 1 } air_npu_dir_t;

/* Absolute register address col<<25 | row<<20 | offset; false when col or row
 * exceed 7/5 bits of the address space or offset exceeds 20 bits. */
bool air_npu_tile_addr(uint32_t col, uint32_t row, uint32_t offset, uint32_t* out);

/* Per tile kind: BD count, BD block base, words per BD, DMA channels per
 * direction, and the offset of the BD word the DDR patch or buffer address goes in. */
uint32_t air_npu_bd_count(air_npu_tile_t kind);
uint32_t air_npu_bd_base(air_npu_tile_t kind);
uint32_t air_npu_bd_words(air_npu_tile_t kind);
uint32_t air_npu_channels(air_npu_tile_t kind);
uint32_t air_npu_bd_addr_word_offset(air_npu_tile_t kind);
/* Channel control register offset (the task queue is this + 4). */
uint32_t air_npu_channel_ctrl(air_npu_tile_t kind, air_npu_dir_t dir, uint32_t channel);

/* The task-queue word: BD id, repeat count (runs - 1) and whether the task
 * issues a completion token; `bd_mask` 0xF (shim, core) or 0x3F (mem tile). */
static inline uint32_t air_npu_queue_word(uint32_t bd_id, uint32_t repeat, bool token,
                                          air_npu_tile_t kind) {
  uint32_t mask = kind == AIR_NPU_TILE_MEM ? 0x3F : 0xF;
  return (bd_id & mask) | (repeat & 0xFF) << 16 | (token ? 0x80000000u : 0);
}

/* Describes an absolute register address for listings ("col 1 row 0 shim BD 2
 * word 1"); writes at most `cap` bytes including the NUL. */
void air_npu_describe_addr(uint64_t addr, char* buf, size_t cap);

#endif /* AIR_NPU_NPU_H_ */

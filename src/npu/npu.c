/* npu.c - NPU device table and register map (see npu.h). */
#include "npu/npu.h"

#include <stdio.h>
#include <string.h>

#include "runtime/target/target.h"

/* The NPU models are the Ryzen AI rows of the target table (src/runtime/target),
 * keyed by name: mlir-aie's enum integers change between versions. What the TXN
 * encoders need beyond the table follows from the AIE generation. */
bool air_npu_device_find(const char* name, size_t len, air_npu_device_t* out) {
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  for (uint32_t i = 0; i < n; ++i) {
    const air_target_t* t = &rows[i];
    if (!(t->flags & AIR_TARGET_F_NPU)) continue;
    bool hit = strlen(t->name) == len && memcmp(t->name, name, len) == 0;
    if (!hit && t->alias) hit = strlen(t->alias) == len && memcmp(t->alias, name, len) == 0;
    if (!hit) continue;
    bool p = t->arch == AIR_ARCH_AIE2P;
    memset(out, 0, sizeof *out);
    out->name = t->name;
    out->arch = p ? AIR_NPU_AIE2P : AIR_NPU_AIE2;
    out->cols = (uint8_t)t->cols;
    out->rows = (uint8_t)(t->first_row + t->rows); /* shim + mem-tile rows + core rows */
    out->dev_gen = p ? 4 : 3;
    out->max_burst_code = p ? 3 : 2; /* 512-byte bursts on AIE2P, 256 on AIE2 */
    return true;
  }
  return false;
}

void air_npu_device_names(char* buf, size_t cap) {
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  size_t at = 0;
  if (cap) buf[0] = 0;
  for (uint32_t i = 0; i < n && at < cap; ++i) {
    const air_target_t* t = &rows[i];
    if (!(t->flags & AIR_TARGET_F_NPU)) continue;
    int k = snprintf(buf + at, cap - at, "%s%s", at ? ", " : "", t->name);
    if (k < 0) break;
    at += (size_t)k;
  }
}

air_txn_geom_t air_npu_device_geom(const air_npu_device_t* d) {
  air_txn_geom_t g = {d->dev_gen, d->rows, d->cols, 1};
  return g;
}

bool air_npu_tile_addr(uint32_t col, uint32_t row, uint32_t offset, uint32_t* out) {
  if (col > 0x7F || row > 0x1F || offset > 0xFFFFF) return false;
  *out = col << 25 | row << 20 | offset;
  return true;
}

uint32_t air_npu_bd_count(air_npu_tile_t k) { return k == AIR_NPU_TILE_MEM ? 48 : 16; }
uint32_t air_npu_bd_base(air_npu_tile_t k) { return k == AIR_NPU_TILE_MEM ? 0xA0000 : 0x1D000; }
uint32_t air_npu_bd_words(air_npu_tile_t k) { return k == AIR_NPU_TILE_CORE ? 6 : 8; }
uint32_t air_npu_channels(air_npu_tile_t k) { return k == AIR_NPU_TILE_MEM ? 6 : 2; }
uint32_t air_npu_bd_addr_word_offset(air_npu_tile_t k) { return k == AIR_NPU_TILE_CORE ? 0 : 4; }

uint32_t air_npu_channel_ctrl(air_npu_tile_t k, air_npu_dir_t dir, uint32_t ch) {
  switch (k) {
    case AIR_NPU_TILE_SHIM: return (dir == AIR_NPU_S2MM ? 0x1D200u : 0x1D210u) + 8 * ch;
    case AIR_NPU_TILE_MEM: return (dir == AIR_NPU_S2MM ? 0xA0600u : 0xA0630u) + 8 * ch;
    default: return (dir == AIR_NPU_S2MM ? 0x1DE00u : 0x1DE10u) + 8 * ch;
  }
}

void air_npu_describe_addr(uint64_t addr, char* buf, size_t cap) {
  if (addr >> 32) {
    snprintf(buf, cap, "64-bit");
    return;
  }
  uint32_t col = (uint32_t)(addr >> 25) & 0x7F, row = (uint32_t)(addr >> 20) & 0x1F;
  uint32_t off = (uint32_t)addr & 0xFFFFF;
  air_npu_tile_t k = air_npu_tile_kind(row);
  const char* tile = k == AIR_NPU_TILE_SHIM ? "shim" : k == AIR_NPU_TILE_MEM ? "mem" : "core";
  int n = snprintf(buf, cap, "col %u row %u +0x%05x", col, row, off);
  if (n < 0 || (size_t)n >= cap) return;
  uint32_t base = air_npu_bd_base(k), count = air_npu_bd_count(k);
  if (off >= base && off < base + 0x20 * count) {
    uint32_t rel = off - base;
    uint32_t word = (rel % 0x20) / 4;
    if (word < air_npu_bd_words(k))
      snprintf(buf + n, cap - (size_t)n, " (%s BD %u word %u)", tile, rel / 0x20, word);
    return;
  }
  for (uint32_t d = 0; d < 2; ++d) {
    for (uint32_t ch = 0; ch < air_npu_channels(k); ++ch) {
      uint32_t ctrl = air_npu_channel_ctrl(k, (air_npu_dir_t)d, ch);
      if (off == ctrl || off == ctrl + 4) {
        snprintf(buf + n, cap - (size_t)n, " (%s %s%u %s)", tile, d ? "MM2S" : "S2MM", ch,
                 off == ctrl ? "control" : "task queue");
        return;
      }
    }
  }
}

/* bd.h - NPU DMA buffer descriptors: the fields as mlir-aie's `aiex.npu.writebd`
 * carries them (already hardware-encoded: wraps, steps = stride - 1, iteration
 * wrap = count - 1, length in 32-bit words), their packing into shim (8 words),
 * mem-tile (8 words) and core (6 words) BD registers with every field range
 * checked, and the lowering of an N-d access (offsets, sizes, strides in
 * elements, highest dimension first) to those fields.
 *
 * Layouts: NPU-DMA.md §3-§7 (restated in docs/npu.md). Failures are a short
 * reason in `why` (the caller adds the file position); nothing is ever masked to
 * fit, so an out-of-range field is an error, never a different stream. */
#ifndef AIR_NPU_BD_H_
#define AIR_NPU_BD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu/npu.h"

typedef struct air_npu_bd_t {
  uint32_t bd_id;
  uint32_t buffer_length; /* 32-bit words */
  uint32_t buffer_offset; /* bytes */
  uint32_t d0_size, d0_stride, d1_size, d1_stride, d2_size, d2_stride;
  uint32_t iteration_current, iteration_size, iteration_stride;
  uint32_t d0_zero_before, d0_zero_after, d1_zero_before, d1_zero_after;
  uint32_t d2_zero_before, d2_zero_after;
  uint32_t enable_packet, packet_id, packet_type, out_of_order_id;
  uint32_t lock_acq_enable, lock_acq_id, lock_rel_id;
  int32_t lock_acq_val, lock_rel_val;
  uint32_t next_bd, use_next_bd, valid_bd;
  uint32_t burst_length; /* bytes; 0 = the device's largest; shim only */
} air_npu_bd_t;

typedef char air_npu_why_t[160];

/* Packs `bd` for a tile of `kind` on `dev` into out[0..air_npu_bd_words(kind)).
 * False (and `why`) when a field does not fit or a rule is broken. */
bool air_npu_bd_encode(const air_npu_device_t* dev, air_npu_tile_t kind,
                       const air_npu_bd_t* bd, uint32_t out[8], air_npu_why_t why);

/* Shim burst-length code for `bytes` (0 = the device's default); false when the
 * device has no such burst. */
bool air_npu_burst_code(const air_npu_device_t* dev, uint32_t bytes, uint32_t* out_code);

/* An N-d access on a shim BD (`aiex.npu.dma_memcpy_nd` semantics): arrays are
 * highest dimension first, in elements of `elem_bits` bits. Fills the BD's
 * length and dimension fields, the byte offset the address patch adds, and the
 * repeat count for the queue push. */
typedef struct air_npu_nd_t {
  uint64_t offsets[4], sizes[4], strides[4];
  uint32_t elem_bits;
} air_npu_nd_t;

bool air_npu_nd_to_bd(const air_npu_nd_t* nd, air_npu_bd_t* bd, uint64_t* out_byte_offset,
                      uint32_t* out_repeat, air_npu_why_t why);

/* An `aie.dma_bd` of a DMA task: offset and length in elements, up to 4
 * dimensions `<size, stride>` highest first (in elements; n_dims 0 = linear),
 * and mem-tile padding per dimension (pad lists as written, highest first).
 * Fills the BD's length, offset (bytes, into buffer_offset), dimension,
 * iteration and padding fields the way mlir-aie's DMA-task lowering does
 * (NPU-DMA.md §6: hardware wraps/steps; dimension 3 a stepped iteration, or
 * with stride 0 nothing, the task's repeat_count repeating the BD). */
typedef struct air_npu_dims_t {
  uint64_t offset, len;
  uint32_t elem_bits;
  uint32_t n_dims, n_pads;
  uint64_t sizes[4], strides[4];
  uint64_t pad_before[4], pad_after[4];
} air_npu_dims_t;

bool air_npu_dims_to_bd(const air_npu_dims_t* d, air_npu_tile_t kind, air_npu_bd_t* bd,
                        air_npu_why_t why);

#endif /* AIR_NPU_BD_H_ */

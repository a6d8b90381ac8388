/* bd.c - buffer-descriptor packing and N-d access lowering (see bd.h). */
#include "npu/bd.h"

#include <stdio.h>
#include <string.h>

/* Field `name` must be <= max. */
#define FIT(name, value, max)                                                       \
  do {                                                                              \
    if ((uint64_t)(value) > (uint64_t)(max)) {                                      \
      snprintf(why, sizeof(air_npu_why_t), "%s %llu does not fit its field (at most %llu on a " \
               "%s BD)", name, (unsigned long long)(value), (unsigned long long)(max), tile); \
      return false;                                                                 \
    }                                                                               \
  } while (0)

/* A 7-bit signed lock value. */
#define LOCKVAL(name, v)                                                            \
  do {                                                                              \
    if ((v) < -64 || (v) > 63) {                                                    \
      snprintf(why, sizeof(air_npu_why_t), "%s %d does not fit its 7-bit signed field " \
               "(-64..63)", name, (int)(v));                                         \
      return false;                                                                 \
    }                                                                               \
  } while (0)

bool air_npu_burst_code(const air_npu_device_t* dev, uint32_t bytes, uint32_t* out) {
  switch (bytes) {
    case 0: *out = dev->max_burst_code; return true;
    case 64: *out = 0; return true;
    case 128: *out = 1; return true;
    case 256: *out = 2; return true;
    case 512: *out = 3; return dev->max_burst_code >= 3;
    default: return false;
  }
}

/* Fields every tile kind checks the same way. */
static bool common_checks(air_npu_tile_t kind, const air_npu_bd_t* b, const char* tile,
                          air_npu_why_t why) {
  uint32_t count = air_npu_bd_count(kind);
  if (b->bd_id >= count) {
    snprintf(why, sizeof(air_npu_why_t), "bd_id %u out of range: a %s tile has BDs 0..%u",
             b->bd_id, tile, count - 1);
    return false;
  }
  FIT("next_bd", b->next_bd, count - 1);
  FIT("use_next_bd", b->use_next_bd, 1);
  FIT("valid_bd", b->valid_bd, 1);
  FIT("enable_packet", b->enable_packet, 1);
  FIT("packet_id", b->packet_id, 31);
  FIT("packet_type", b->packet_type, 7);
  FIT("out_of_order_id", b->out_of_order_id, 63);
  FIT("lock_acq_enable", b->lock_acq_enable, 1);
  FIT("iteration_size", b->iteration_size, 63);
  FIT("iteration_current", b->iteration_current, 63);
  LOCKVAL("lock_acq_val", b->lock_acq_val);
  LOCKVAL("lock_rel_val", b->lock_rel_val);
  return true;
}

static bool no_padding(const air_npu_bd_t* b, const char* tile, air_npu_why_t why) {
  if (b->d0_zero_before | b->d0_zero_after | b->d1_zero_before | b->d1_zero_after |
      b->d2_zero_before | b->d2_zero_after) {
    snprintf(why, sizeof(air_npu_why_t), "a %s BD cannot zero-pad (only mem-tile BDs can)",
             tile);
    return false;
  }
  return true;
}

/* Shim/core lock word: acquire id, value, enable; release id, value; valid, next. */
static uint32_t lock_word(const air_npu_bd_t* b) {
  return (b->lock_acq_id & 0xF) | ((uint32_t)b->lock_acq_val & 0x7F) << 5 |
         b->lock_acq_enable << 12 | (b->lock_rel_id & 0xF) << 13 |
         ((uint32_t)b->lock_rel_val & 0x7F) << 18 | b->valid_bd << 25 | b->use_next_bd << 26 |
         (b->next_bd & 0xF) << 27;
}

static bool encode_shim(const air_npu_device_t* dev, const air_npu_bd_t* b, uint32_t* w,
                        air_npu_why_t why) {
  const char* tile = "shim";
  if (!common_checks(AIR_NPU_TILE_SHIM, b, tile, why) || !no_padding(b, tile, why)) return false;
  if (b->buffer_offset % 4) {
    snprintf(why, sizeof(air_npu_why_t), "buffer_offset %u is not a multiple of 4 bytes",
             b->buffer_offset);
    return false;
  }
  if (b->d2_size) {
    snprintf(why, sizeof(air_npu_why_t),
             "d2_size %u: a shim BD has no d2 wrap (d2 is bounded by the length); it must be 0",
             b->d2_size);
    return false;
  }
  FIT("d0_size", b->d0_size, 1023);
  FIT("d1_size", b->d1_size, 1023);
  FIT("d0_stride", b->d0_stride, 0xFFFFF);
  FIT("d1_stride", b->d1_stride, 0xFFFFF);
  FIT("d2_stride", b->d2_stride, 0xFFFFF);
  FIT("iteration_stride", b->iteration_stride, 0xFFFFF);
  FIT("lock_acq_id", b->lock_acq_id, 15);
  FIT("lock_rel_id", b->lock_rel_id, 15);
  uint32_t burst;
  if (!air_npu_burst_code(dev, b->burst_length, &burst)) {
    snprintf(why, sizeof(air_npu_why_t),
             "burst_length %u is not one of %s's shim bursts (0 = default, 64, 128, 256%s)",
             b->burst_length, dev->name, dev->max_burst_code >= 3 ? ", 512" : "");
    return false;
  }
  w[0] = b->buffer_length;
  w[1] = b->buffer_offset;
  w[2] = b->packet_type << 16 | b->packet_id << 19 | b->out_of_order_id << 24 |
         b->enable_packet << 30;
  w[3] = b->d0_stride | b->d0_size << 20;
  w[4] = b->d1_stride | b->d1_size << 20 | burst << 30;
  /* AxCache 2 lets the NoC upsize; mlir-aie writes it on every shim BD. */
  w[5] = b->d2_stride | 2u << 24;
  w[6] = b->iteration_stride | b->iteration_size << 20 | b->iteration_current << 26;
  w[7] = lock_word(b);
  return true;
}

static bool encode_mem(const air_npu_bd_t* b, uint32_t* w, air_npu_why_t why) {
  const char* tile = "mem-tile";
  if (!common_checks(AIR_NPU_TILE_MEM, b, tile, why)) return false;
  FIT("buffer_length", b->buffer_length, 0x1FFFF);
  FIT("buffer_offset", b->buffer_offset, 0x7FFFF);
  FIT("d0_size", b->d0_size, 1023);
  FIT("d1_size", b->d1_size, 1023);
  FIT("d2_size", b->d2_size, 1023);
  FIT("d0_stride", b->d0_stride, 0x1FFFF);
  FIT("d1_stride", b->d1_stride, 0x1FFFF);
  FIT("d2_stride", b->d2_stride, 0x1FFFF);
  FIT("iteration_stride", b->iteration_stride, 0x1FFFF);
  FIT("d0_zero_before", b->d0_zero_before, 63);
  FIT("d1_zero_before", b->d1_zero_before, 31);
  FIT("d2_zero_before", b->d2_zero_before, 15);
  FIT("d0_zero_after", b->d0_zero_after, 63);
  FIT("d1_zero_after", b->d1_zero_after, 31);
  FIT("d2_zero_after", b->d2_zero_after, 15);
  FIT("lock_acq_id", b->lock_acq_id, 255);
  FIT("lock_rel_id", b->lock_rel_id, 255);
  if (b->burst_length) {
    snprintf(why, sizeof(air_npu_why_t), "burst_length %u: only shim BDs take a burst length",
             b->burst_length);
    return false;
  }
  w[0] = b->buffer_length | b->out_of_order_id << 17 | b->packet_id << 23 |
         b->packet_type << 28 | b->enable_packet << 31;
  w[1] = b->buffer_offset | b->use_next_bd << 19 | b->next_bd << 20 | b->d0_zero_before << 26;
  w[2] = b->d0_stride | b->d0_size << 17;
  w[3] = b->d1_stride | b->d1_size << 17 | b->d1_zero_before << 27;
  w[4] = b->d2_stride | b->d2_size << 17 | b->d2_zero_before << 27;
  w[5] = b->d0_zero_after << 17 | b->d1_zero_after << 23 | b->d2_zero_after << 28;
  w[6] = b->iteration_stride | b->iteration_size << 17 | b->iteration_current << 23;
  w[7] = b->lock_acq_id | ((uint32_t)b->lock_acq_val & 0x7F) << 8 | b->lock_acq_enable << 15 |
         b->lock_rel_id << 16 | ((uint32_t)b->lock_rel_val & 0x7F) << 24 | b->valid_bd << 31;
  return true;
}

static bool encode_core(const air_npu_bd_t* b, uint32_t* w, air_npu_why_t why) {
  const char* tile = "core";
  if (!common_checks(AIR_NPU_TILE_CORE, b, tile, why) || !no_padding(b, tile, why)) return false;
  if (b->buffer_offset % 4) {
    snprintf(why, sizeof(air_npu_why_t), "buffer_offset %u is not a multiple of 4 bytes",
             b->buffer_offset);
    return false;
  }
  if (b->d2_size) {
    snprintf(why, sizeof(air_npu_why_t), "d2_size %u: a core BD has no d2 wrap; it must be 0",
             b->d2_size);
    return false;
  }
  FIT("buffer_length", b->buffer_length, 0x3FFF);
  FIT("buffer_offset / 4", b->buffer_offset / 4, 0x3FFF);
  FIT("d0_size", b->d0_size, 255);
  FIT("d1_size", b->d1_size, 255);
  FIT("d0_stride", b->d0_stride, 0x1FFF);
  FIT("d1_stride", b->d1_stride, 0x1FFF);
  FIT("d2_stride", b->d2_stride, 0x1FFF);
  FIT("iteration_stride", b->iteration_stride, 0x1FFF);
  FIT("lock_acq_id", b->lock_acq_id, 15);
  FIT("lock_rel_id", b->lock_rel_id, 15);
  if (b->burst_length) {
    snprintf(why, sizeof(air_npu_why_t), "burst_length %u: only shim BDs take a burst length",
             b->burst_length);
    return false;
  }
  w[0] = b->buffer_offset / 4 << 14 | b->buffer_length;
  w[1] = b->enable_packet << 30 | b->out_of_order_id << 24 | b->packet_id << 19 |
         b->packet_type << 16;
  w[2] = b->d1_stride << 13 | b->d0_stride;
  w[3] = b->d1_size << 21 | b->d0_size << 13 | b->d2_stride;
  w[4] = b->iteration_current << 19 | b->iteration_size << 13 | b->iteration_stride;
  w[5] = lock_word(b);
  return true;
}

bool air_npu_bd_encode(const air_npu_device_t* dev, air_npu_tile_t kind, const air_npu_bd_t* bd,
                       uint32_t out[8], air_npu_why_t why) {
  why[0] = 0;
  memset(out, 0, 8 * sizeof *out);
  switch (kind) {
    case AIR_NPU_TILE_SHIM: return encode_shim(dev, bd, out, why);
    case AIR_NPU_TILE_MEM: return encode_mem(bd, out, why);
    default: return encode_core(bd, out, why);
  }
}

#define NDFAIL(...)                                  \
  do {                                               \
    snprintf(why, sizeof(air_npu_why_t), __VA_ARGS__); \
    return false;                                    \
  } while (0)

bool air_npu_nd_to_bd(const air_npu_nd_t* nd, air_npu_bd_t* bd, uint64_t* out_off,
                      uint32_t* out_repeat, air_npu_why_t why) {
  why[0] = 0;
  uint64_t ew = nd->elem_bits;
  if (ew != 8 && ew != 16 && ew != 32)
    NDFAIL("element width %llu bits: the shim DMA moves 8-, 16- or 32-bit elements",
           (unsigned long long)ew);
  /* Index 0 is the innermost dimension from here on. */
  uint64_t s[4], t[4], o[4];
  for (int i = 0; i < 4; ++i) {
    s[i] = nd->sizes[3 - i];
    t[i] = nd->strides[3 - i];
    o[i] = nd->offsets[3 - i];
    /* 2^32 elements of any width is past every field below; bounding here keeps
     * the products that follow inside 64 bits. */
    if (s[i] == 0 || s[i] > UINT32_MAX) NDFAIL("size %llu of dimension %d must be 1..2^32-1",
                                               (unsigned long long)s[i], 3 - i);
    if (t[i] > UINT32_MAX || o[i] > UINT32_MAX)
      NDFAIL("stride or offset of dimension %d is over 2^32-1", 3 - i);
  }
  if (s[0] * ew % 32)
    NDFAIL("the innermost size %llu x %llu bits is not a whole number of 32-bit words",
           (unsigned long long)s[0], (unsigned long long)ew);
  for (int i = 0; i < 3; ++i)
    if (s[i] > 1 && t[i] == 0)
      NDFAIL("dimension %d has size %llu but stride 0", 3 - i, (unsigned long long)s[i]);
  for (int i = 0; i < 4; ++i) {
    if (i == 0 && t[0] == 1) continue;
    if (i == 3 && s[3] <= 1) continue;
    if (t[i] * ew % 32)
      NDFAIL("stride %llu of dimension %d is not a whole number of 32-bit words",
             (unsigned long long)t[i], 3 - i);
  }
  bool linear = t[0] == 1 && (s[1] == 1 || t[1] == s[0]) && (s[2] == 1 || t[2] == s[0] * s[1]);
  memset(bd, 0, sizeof *bd);
  uint64_t d0w = s[0] * ew / 32;
  uint64_t len = d0w * s[1] * s[2];
  if (len > UINT32_MAX) NDFAIL("the transfer is %llu words; a shim BD holds at most 2^32-1",
                               (unsigned long long)len);
  bd->buffer_length = (uint32_t)len;
  if (!linear) {
    uint64_t d0s = t[0] * ew < 32 ? 0 : t[0] * ew / 32 - 1;
    uint64_t d1s = s[1] > 1 ? t[1] * ew / 32 - 1 : 0;
    uint64_t d2s = s[2] > 1 ? t[2] * ew / 32 - 1 : 0;
    if (d0w > 1023) NDFAIL("innermost size is %llu words; an N-d shim BD wraps at most 1023",
                           (unsigned long long)d0w);
    if (s[1] > 1023) NDFAIL("size %llu of dimension 2 is over the 1023 a shim BD wraps",
                            (unsigned long long)s[1]);
    if (d0s > 0xFFFFF || d1s > 0xFFFFF || d2s > 0xFFFFF)
      NDFAIL("a stride is over the 2^20 words a shim BD steps");
    bd->d0_size = (uint32_t)d0w;
    bd->d0_stride = (uint32_t)d0s;
    bd->d1_size = (uint32_t)s[1];
    bd->d1_stride = (uint32_t)d1s;
    bd->d2_stride = (uint32_t)d2s;
  }
  uint32_t repeat = 0;
  if (s[3] > 1) {
    if (t[3] > 0) {
      if (s[3] > 64) NDFAIL("size %llu of dimension 0 is over the 64 iterations a BD steps",
                            (unsigned long long)s[3]);
      uint64_t is = t[3] * ew / 32 - 1;
      if (is > 0xFFFFF) NDFAIL("the dimension-0 stride is over the 2^20 words a shim BD steps");
      bd->iteration_size = (uint32_t)(s[3] - 1);
      bd->iteration_stride = (uint32_t)is;
    } else if (s[3] > 256) {
      NDFAIL("size %llu of dimension 0 is over the 256 runs a queue push repeats",
             (unsigned long long)s[3]);
    }
    repeat = (uint32_t)(s[3] - 1);
  }
  uint64_t off_bits = 0;
  for (int i = 0; i < 4; ++i) {
    uint64_t term;
    if (__builtin_mul_overflow(o[i], t[i], &term) || __builtin_mul_overflow(term, ew, &term) ||
        __builtin_add_overflow(off_bits, term, &off_bits) || off_bits / 8 > UINT32_MAX)
      NDFAIL("the offset is over the 4 GiB an address patch adds");
  }
  if (off_bits % 32)
    NDFAIL("the offset is %llu bits, not a multiple of 4 bytes", (unsigned long long)off_bits);
  bd->valid_bd = 1;
  *out_off = off_bits / 8;
  *out_repeat = repeat;
  return true;
}

bool air_npu_dims_to_bd(const air_npu_dims_t* d, air_npu_tile_t kind, air_npu_bd_t* bd,
                        air_npu_why_t why) {
  why[0] = 0;
  memset(bd, 0, sizeof *bd);
  uint64_t ew = d->elem_bits;
  if (ew != 8 && ew != 16 && ew != 32)
    NDFAIL("element width %llu bits: a DMA BD moves 8-, 16- or 32-bit elements",
           (unsigned long long)ew);
  if (d->n_dims > 4) NDFAIL("%u dimensions: a BD has at most 4", d->n_dims);
  if (d->n_pads > d->n_dims)
    NDFAIL("%u padding entries for %u dimensions", d->n_pads, d->n_dims);
  if (d->len > UINT32_MAX || d->offset > UINT32_MAX)
    NDFAIL("offset or length over 2^32-1 elements");
  if (d->len == 0) NDFAIL("the length is 0");
  if (d->len * ew % 32) NDFAIL("the length, %llu x %llu bits, is not a whole number of 32-bit words",
                               (unsigned long long)d->len, (unsigned long long)ew);
  if (d->offset * ew % 32) NDFAIL("the offset, %llu x %llu bits, is not a multiple of 4 bytes",
                                  (unsigned long long)d->offset, (unsigned long long)ew);
  uint64_t words = d->len * ew / 32, off = d->offset * ew / 8;
  if (words > UINT32_MAX || off > UINT32_MAX) NDFAIL("the transfer is over 2^32-1 words");
  bd->buffer_length = (uint32_t)words;
  bd->buffer_offset = (uint32_t)off;
  bd->valid_bd = 1;
  if (d->n_dims == 0) return true;
  /* Index 0 is the innermost dimension from here on. */
  uint64_t s[4] = {1, 1, 1, 1}, t[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < d->n_dims; ++i) {
    s[i] = d->sizes[d->n_dims - 1 - i];
    t[i] = d->strides[d->n_dims - 1 - i];
    if (s[i] == 0 || s[i] > UINT32_MAX || t[i] > UINT32_MAX)
      NDFAIL("dimension %u: size %llu, stride %llu (sizes 1..2^32-1, strides below 2^32)",
             d->n_dims - 1 - i, (unsigned long long)s[i], (unsigned long long)t[i]);
  }
  if (s[0] * ew % 32)
    NDFAIL("the innermost size %llu x %llu bits is not a whole number of 32-bit words",
           (unsigned long long)s[0], (unsigned long long)ew);
  for (int i = 0; i < 3; ++i)
    if (s[i] > 1 && t[i] == 0) NDFAIL("dimension %u has size %llu but stride 0",
                                      d->n_dims - 1 - (uint32_t)i, (unsigned long long)s[i]);
  for (int i = 0; i < 4; ++i) {
    if (s[i] <= 1 || (i == 0 && t[0] == 1) || (i == 3 && t[3] == 0)) continue;
    if (t[i] * ew % 32)
      NDFAIL("stride %llu of dimension %u is not a whole number of 32-bit words",
             (unsigned long long)t[i], d->n_dims - 1 - (uint32_t)i);
  }
  uint64_t hs0 = s[0] * ew / 32, moved;
  if (__builtin_mul_overflow(hs0, s[1], &moved) || __builtin_mul_overflow(moved, s[2], &moved))
    NDFAIL("the lowest three dimensions move more than 2^64 words");
  if (moved != words)
    NDFAIL("the length, %llu words, is not what the lowest three dimensions move (%llu words)",
           (unsigned long long)words, (unsigned long long)moved);
  /* A scan whose two middle sizes are 1 and whose innermost stride is 1 is
   * linear: the length alone describes it (and its d0 may pass 1023 words). */
  bool linear = s[1] == 1 && s[2] == 1 && (t[0] == 1 || s[0] == 1);
  if (!linear) {
    uint64_t max_wrap = kind == AIR_NPU_TILE_CORE ? 255 : 1023;
    if (hs0 > max_wrap || s[1] > max_wrap || (kind == AIR_NPU_TILE_MEM && s[2] > max_wrap))
      NDFAIL("a dimension wraps more than the %llu a BD counts", (unsigned long long)max_wrap);
    bd->d0_size = (uint32_t)hs0;
    bd->d0_stride = (uint32_t)(t[0] * ew < 32 ? 0 : t[0] * ew / 32 - 1);
    bd->d1_size = (uint32_t)s[1];
    bd->d1_stride = (uint32_t)(s[1] > 1 ? t[1] * ew / 32 - 1 : 0);
    bd->d2_stride = (uint32_t)(s[2] > 1 ? t[2] * ew / 32 - 1 : 0);
    if (t[0] * ew / 32 > UINT32_MAX || t[1] * ew / 32 > UINT32_MAX || t[2] * ew / 32 > UINT32_MAX)
      NDFAIL("a stride is over 2^32 words");
  }
  if (s[3] > 1 && t[3] > 0) {
    if (s[3] > 64) NDFAIL("size %llu of the iteration dimension is over the 64 a BD steps",
                          (unsigned long long)s[3]);
    bd->iteration_size = (uint32_t)(s[3] - 1);
    bd->iteration_stride = (uint32_t)(t[3] * ew / 32 - 1);
  }
  for (uint32_t i = 0; i < d->n_pads; ++i) {
    uint32_t k = d->n_pads - 1 - i; /* pad lists are highest first, like the dims */
    if (i > 2 && (d->pad_before[k] || d->pad_after[k]))
      NDFAIL("padding of the iteration dimension");
    if (d->pad_before[k] > UINT32_MAX || d->pad_after[k] > UINT32_MAX) NDFAIL("padding too large");
    uint32_t* before[3] = {&bd->d0_zero_before, &bd->d1_zero_before, &bd->d2_zero_before};
    uint32_t* after[3] = {&bd->d0_zero_after, &bd->d1_zero_after, &bd->d2_zero_after};
    if (i < 3) {
      *before[i] = (uint32_t)d->pad_before[k];
      *after[i] = (uint32_t)d->pad_after[k];
    }
  }
  return true;
}

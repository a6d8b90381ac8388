/* txn.c - TXN 0.1 encoder and decoder (see txn.h). */
#include "npu/txn.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* The stream must stay addressable by its 32-bit byte-size word. */
#define TXN_MAX_WORDS ((size_t)UINT32_MAX / 4)

void air_txn_init(air_txn_t* t, const air_allocator_t* allocator, air_txn_geom_t g) {
  memset(t, 0, sizeof *t);
  t->allocator = *allocator;
  if (!air_mem_grow_z(&t->allocator, (void**)&t->words, &t->cap_words, 64, sizeof(uint32_t))) {
    t->oom = true;
    return;
  }
  t->words[0] = 0u | 1u << 8 | (uint32_t)g.dev_gen << 16 | (uint32_t)g.rows << 24;
  t->words[1] = (uint32_t)g.cols | (uint32_t)g.mem_tile_rows << 8;
  t->words[2] = 0;
  t->words[3] = 0;
  t->n_words = AIR_TXN_HEADER_WORDS;
}

void air_txn_free(air_txn_t* t) {
  air_mem_free(&t->allocator, t->words);
  t->words = NULL;
  t->n_words = t->cap_words = 0;
}

/* Reserves `n` words for one op and returns where they go (NULL after a failure). */
static uint32_t* reserve(air_txn_t* t, size_t n) {
  if (t->oom) return NULL;
  if (n > TXN_MAX_WORDS - t->n_words || t->n_ops == UINT32_MAX ||
      !air_mem_grow_z(&t->allocator, (void**)&t->words, &t->cap_words, t->n_words + n,
                      sizeof(uint32_t))) {
    t->oom = true;
    return NULL;
  }
  uint32_t* w = t->words + t->n_words;
  t->n_words += n;
  t->n_ops++;
  return w;
}

air_status_t air_txn_finish(air_txn_t* t) {
  if (t->oom)
    return AIR_STATUS_OOM(&t->allocator, "NPU instruction stream (or over 4 GiB)");
  t->words[2] = t->n_ops;
  t->words[3] = (uint32_t)(t->n_words * 4);
  return NULL;
}

uint32_t* air_txn_take(air_txn_t* t, size_t* out_n_words) {
  uint32_t* w = t->words;
  *out_n_words = t->n_words;
  t->words = NULL;
  t->n_words = t->cap_words = 0;
  return w;
}

void air_txn_write32(air_txn_t* t, uint32_t addr, uint32_t value) {
  uint32_t* w = reserve(t, AIR_TXN_WRITE_WORDS);
  if (!w) return;
  w[0] = AIR_TXN_WRITE;
  w[1] = 0;
  w[2] = addr;
  w[3] = 0;
  w[4] = value;
  w[5] = AIR_TXN_WRITE_WORDS * 4;
}

void air_txn_maskwrite32(air_txn_t* t, uint32_t addr, uint32_t value, uint32_t mask) {
  uint32_t* w = reserve(t, AIR_TXN_MASKWRITE_WORDS);
  if (!w) return;
  w[0] = AIR_TXN_MASKWRITE;
  w[1] = 0;
  w[2] = addr;
  w[3] = 0;
  w[4] = value;
  w[5] = mask;
  w[6] = AIR_TXN_MASKWRITE_WORDS * 4;
}

void air_txn_blockwrite(air_txn_t* t, uint8_t col, uint8_t row, uint32_t addr,
                        const uint32_t* payload, uint32_t n) {
  /* 4 + n words must fit the op's byte-size word. */
  if (n == 0 || n > UINT32_MAX / 4 - 4) {
    t->oom = true;
    return;
  }
  uint32_t* w = reserve(t, 4 + (size_t)n);
  if (!w) return;
  w[0] = AIR_TXN_BLOCKWRITE;
  w[1] = (uint32_t)col | (uint32_t)row << 8;
  w[2] = addr;
  w[3] = (4 + n) * 4;
  memcpy(w + 4, payload, (size_t)n * 4);
}

void air_txn_sync(air_txn_t* t, uint8_t col, uint8_t row, uint8_t direction, uint8_t channel,
                  uint8_t col_num, uint8_t row_num) {
  uint32_t* w = reserve(t, AIR_TXN_TCT_WORDS);
  if (!w) return;
  w[0] = AIR_TXN_TCT;
  w[1] = AIR_TXN_TCT_WORDS * 4;
  w[2] = (uint32_t)direction | (uint32_t)row << 8 | (uint32_t)col << 16;
  w[3] = (uint32_t)row_num << 8 | (uint32_t)col_num << 16 | (uint32_t)channel << 24;
}

void air_txn_ddr_patch(air_txn_t* t, uint64_t reg, uint64_t arg_idx, uint64_t arg_plus) {
  uint32_t* w = reserve(t, AIR_TXN_PATCH_WORDS);
  if (!w) return;
  memset(w, 0, AIR_TXN_PATCH_WORDS * 4);
  w[0] = AIR_TXN_DDR_PATCH;
  w[1] = AIR_TXN_PATCH_WORDS * 4;
  /* w[2..4] reserved, w[5] action 0 = patch */
  w[6] = (uint32_t)reg;
  w[7] = (uint32_t)(reg >> 32);
  w[8] = (uint32_t)arg_idx;
  w[9] = (uint32_t)(arg_idx >> 32);
  w[10] = (uint32_t)arg_plus;
  w[11] = (uint32_t)(arg_plus >> 32);
}

void air_txn_load_pdi(air_txn_t* t, uint16_t id, uint32_t size, uint64_t address) {
  uint32_t* w = reserve(t, AIR_TXN_LOAD_PDI_WORDS);
  if (!w) return;
  w[0] = AIR_TXN_LOAD_PDI | (uint32_t)id << 16;
  w[1] = size;
  w[2] = (uint32_t)address;
  w[3] = (uint32_t)(address >> 32);
}

void air_txn_preempt(air_txn_t* t, uint8_t level) {
  uint32_t* w = reserve(t, AIR_TXN_PREEMPT_WORDS);
  if (w) w[0] = AIR_TXN_PREEMPT | (uint32_t)level << 8;
}

void air_txn_read_regs(air_txn_t* t, const uint32_t* addrs, uint32_t n) {
  if (n == 0 || n > UINT32_MAX / 4 - 3) {
    t->oom = true;
    return;
  }
  uint32_t* w = reserve(t, 3 + (size_t)n);
  if (!w) return;
  w[0] = AIR_TXN_READ_REGS;
  w[1] = (3 + n) * 4;
  w[2] = n;
  memcpy(w + 3, addrs, (size_t)n * 4);
}

uint64_t air_txn_patch_arg_plus(uint64_t arg_idx, uint64_t byte_offset, bool fold) {
  return fold && arg_idx >= 5 ? byte_offset + 0x80000000u : byte_offset;
}

const char* air_txn_opcode_name(uint32_t op) {
  switch (op) {
    case AIR_TXN_WRITE: return "write32";
    case AIR_TXN_BLOCKWRITE: return "blockwrite";
    case 0x02: return "blockset";
    case AIR_TXN_MASKWRITE: return "maskwrite32";
    case 0x04: return "maskpoll";
    case 0x05: return "noop";
    case AIR_TXN_PREEMPT: return "preempt";
    case 0x07: return "maskpoll_busy";
    case AIR_TXN_LOAD_PDI: return "load_pdi";
    case 0x09: return "load_pm_start";
    case 0x0A: return "create_scratchpad";
    case 0x0B: return "update_state_table";
    case 0x0C: return "update_reg";
    case 0x0D: return "update_scratch";
    case 0x0E: return "config_shimdma_bd";
    case 0x0F: return "config_shimdma_dmabuf_bd";
    case AIR_TXN_TCT: return "sync";
    case AIR_TXN_DDR_PATCH: return "address_patch";
    case AIR_TXN_READ_REGS: return "read_regs";
    case 0x83: return "record_timer";
    case 0x84: return "merge_sync";
    default: return NULL;
  }
}

/*--- decoding -----------------------------------------------------------------*/

#define BAD(...) AIR_STATUS(a, AIR_STATUS_DATA_LOSS, __VA_ARGS__)

/* Word `i` of the op at `at` must equal `want`. */
static air_status_t expect_word(const air_allocator_t* a, const char* name, const uint32_t* w,
                                size_t at, size_t i, uint32_t want, const char* what) {
  if (w[at + i] == want) return NULL;
  return BAD("%s: word %zu (%s op at word %zu): %s must be 0x%x, found 0x%08x", name, at + i,
             air_txn_opcode_name(w[at] & 0xFF), at, what, want, w[at + i]);
}

/* Decodes the op at word `at`; `left` words remain from there. */
static air_status_t decode_op(const air_allocator_t* a, const char* name, const uint32_t* w,
                              size_t at, size_t left, air_txn_op_t* op) {
  uint32_t code = w[at] & 0xFF;
  const char* opname = air_txn_opcode_name(code);
  size_t need = 0;
  memset(op, 0, sizeof *op);
  op->opcode = code;
  op->word = (uint32_t)at;
  switch (code) {
    case AIR_TXN_WRITE: need = AIR_TXN_WRITE_WORDS; break;
    case AIR_TXN_MASKWRITE: need = AIR_TXN_MASKWRITE_WORDS; break;
    case AIR_TXN_TCT: need = AIR_TXN_TCT_WORDS; break;
    case AIR_TXN_DDR_PATCH: need = AIR_TXN_PATCH_WORDS; break;
    case AIR_TXN_LOAD_PDI: need = AIR_TXN_LOAD_PDI_WORDS; break;
    case AIR_TXN_PREEMPT: need = AIR_TXN_PREEMPT_WORDS; break;
    case AIR_TXN_BLOCKWRITE:
    case AIR_TXN_READ_REGS:
      need = code == AIR_TXN_BLOCKWRITE ? 4 : 3;
      if (left >= need) {
        uint32_t bytes = w[at + (code == AIR_TXN_BLOCKWRITE ? 3 : 1)];
        size_t min = need + 1;
        if (bytes % 4 || bytes / 4 < min)
          return BAD("%s: word %zu (%s op at word %zu): size must be a multiple of 4 of at "
                     "least %zu bytes, found 0x%08x",
                     name, at + (code == AIR_TXN_BLOCKWRITE ? 3 : 1), opname, at, min * 4,
                     bytes);
        need = bytes / 4;
      }
      break;
    default:
      if (opname)
        return BAD("%s: word %zu: opcode 0x%02x (%s) is not supported by this decoder", name,
                   at, code, opname);
      return BAD("%s: word %zu: unknown opcode 0x%02x (word 0x%08x)", name, at, code, w[at]);
  }
  if (left < need)
    return BAD("%s: word %zu: %s op needs %zu words, the stream ends after %zu (truncated)",
               name, at, opname, need, left);
  op->n_words = (uint32_t)need;
  switch (code) {
    case AIR_TXN_WRITE:
    case AIR_TXN_MASKWRITE: {
      bool mask = code == AIR_TXN_MASKWRITE;
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 0, code, "the opcode word"));
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 1, 0, "the reserved word"));
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 3, 0, "the high address word"));
      AIR_RETURN_IF_ERROR(
          expect_word(a, name, w, at, mask ? 6 : 5, (uint32_t)need * 4, "the op size"));
      op->addr = w[at + 2];
      op->value = w[at + 4];
      op->mask = mask ? w[at + 5] : 0;
      break;
    }
    case AIR_TXN_BLOCKWRITE:
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 0, code, "the opcode word"));
      if (w[at + 1] >> 16)
        return BAD("%s: word %zu (blockwrite op at word %zu): column/row word must hold "
                   "only bits 0-15, found 0x%08x", name, at + 1, at, w[at + 1]);
      op->col = (uint8_t)w[at + 1];
      op->row = (uint8_t)(w[at + 1] >> 8);
      op->addr = w[at + 2];
      op->payload = w + at + 4;
      op->n_payload = (uint32_t)need - 4;
      break;
    case AIR_TXN_TCT:
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 0, code, "the opcode word"));
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 1, 16, "the op size"));
      if (w[at + 2] >> 24)
        return BAD("%s: word %zu (sync op at word %zu): bits 24-31 must be 0, found 0x%08x",
                   name, at + 2, at, w[at + 2]);
      if (w[at + 3] & 0xFF)
        return BAD("%s: word %zu (sync op at word %zu): bits 0-7 must be 0, found 0x%08x",
                   name, at + 3, at, w[at + 3]);
      op->direction = (uint8_t)w[at + 2];
      op->row = (uint8_t)(w[at + 2] >> 8);
      op->col = (uint8_t)(w[at + 2] >> 16);
      op->row_num = (uint8_t)(w[at + 3] >> 8);
      op->col_num = (uint8_t)(w[at + 3] >> 16);
      op->channel = (uint8_t)(w[at + 3] >> 24);
      break;
    case AIR_TXN_DDR_PATCH:
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 0, code, "the opcode word"));
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 1, 48, "the op size"));
      for (size_t i = 2; i <= 4; ++i)
        AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, i, 0, "a reserved word"));
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 5, 0, "the action (0 = patch)"));
      op->addr = w[at + 6] | (uint64_t)w[at + 7] << 32;
      op->arg_idx = w[at + 8] | (uint64_t)w[at + 9] << 32;
      op->arg_plus = w[at + 10] | (uint64_t)w[at + 11] << 32;
      break;
    case AIR_TXN_LOAD_PDI:
      if (w[at] & 0xFF00)
        return BAD("%s: word %zu (load_pdi op): bits 8-15 must be 0, found 0x%08x", name, at,
                   w[at]);
      op->pdi_id = (uint16_t)(w[at] >> 16);
      op->size = w[at + 1];
      op->addr = w[at + 2] | (uint64_t)w[at + 3] << 32;
      break;
    case AIR_TXN_PREEMPT:
      if (w[at] >> 16)
        return BAD("%s: word %zu (preempt op): bits 16-31 must be 0, found 0x%08x", name, at,
                   w[at]);
      op->level = (uint8_t)(w[at] >> 8);
      break;
    case AIR_TXN_READ_REGS:
      AIR_RETURN_IF_ERROR(expect_word(a, name, w, at, 0, code, "the opcode word"));
      AIR_RETURN_IF_ERROR(
          expect_word(a, name, w, at, 2, (uint32_t)need - 3, "the register count"));
      op->payload = w + at + 3;
      op->n_payload = (uint32_t)need - 3;
      break;
  }
  return NULL;
}

air_status_t air_txn_decode(const air_allocator_t* a, const uint32_t* w, size_t n,
                            const char* name, air_txn_view_t* out) {
  memset(out, 0, sizeof *out);
  if (n < AIR_TXN_HEADER_WORDS)
    return BAD("%s: a TXN stream starts with a 4-word header; the stream has %zu words",
               name, n);
  if ((w[0] & 0xFFFF) != 0x0100)
    return BAD("%s: word 0: not a TXN 0.1 header (version %u.%u in 0x%08x; expected 0.1)",
               name, w[0] & 0xFF, (w[0] >> 8) & 0xFF, w[0]);
  if (w[1] >> 16)
    return BAD("%s: word 1: header bits 16-31 must be 0, found 0x%08x", name, w[1]);
  if (n > TXN_MAX_WORDS || w[3] != n * 4)
    return BAD("%s: word 3: header says %u bytes, the stream has %zu bytes%s", name, w[3],
               n * 4, w[3] > n * 4 ? " (truncated)" : "");
  out->geom.dev_gen = (uint8_t)(w[0] >> 16);
  out->geom.rows = (uint8_t)(w[0] >> 24);
  out->geom.cols = (uint8_t)w[1];
  out->geom.mem_tile_rows = (uint8_t)(w[1] >> 8);
  uint32_t n_ops = w[2];
  /* Every op takes at least one word, so a count above that is malformed before
   * anything is allocated for it. */
  if (n_ops > n - AIR_TXN_HEADER_WORDS)
    return BAD("%s: word 2: header says %u ops, but only %zu words follow", name, n_ops,
               n - AIR_TXN_HEADER_WORDS);
  air_txn_op_t* ops = air_mem_calloc(a, n_ops ? n_ops : 1, sizeof *ops);
  if (!ops) return AIR_STATUS_OOM(a, "decoded TXN ops");
  size_t at = AIR_TXN_HEADER_WORDS;
  for (uint32_t i = 0; i < n_ops; ++i) {
    if (at >= n) {
      air_mem_free(a, ops);
      return BAD("%s: word 2: header says %u ops, the stream ends after %u", name, n_ops, i);
    }
    air_status_t s = decode_op(a, name, w, at, n - at, &ops[i]);
    if (s) {
      air_mem_free(a, ops);
      return s;
    }
    at += ops[i].n_words;
  }
  if (at != n) {
    air_mem_free(a, ops);
    return BAD("%s: word %zu: %zu words follow the last of the header's %u ops", name, at,
               n - at, n_ops);
  }
  out->n_ops = n_ops;
  out->ops = ops;
  return NULL;
}

void air_txn_view_free(const air_allocator_t* a, air_txn_view_t* v) {
  air_mem_free(a, v->ops);
  memset(v, 0, sizeof *v);
}

void air_txn_encode_op(air_txn_t* t, const air_txn_op_t* op) {
  switch (op->opcode) {
    case AIR_TXN_WRITE: air_txn_write32(t, (uint32_t)op->addr, op->value); break;
    case AIR_TXN_MASKWRITE: air_txn_maskwrite32(t, (uint32_t)op->addr, op->value, op->mask); break;
    case AIR_TXN_BLOCKWRITE:
      air_txn_blockwrite(t, op->col, op->row, (uint32_t)op->addr, op->payload, op->n_payload);
      break;
    case AIR_TXN_TCT:
      air_txn_sync(t, op->col, op->row, op->direction, op->channel, op->col_num, op->row_num);
      break;
    case AIR_TXN_DDR_PATCH: air_txn_ddr_patch(t, op->addr, op->arg_idx, op->arg_plus); break;
    case AIR_TXN_LOAD_PDI: air_txn_load_pdi(t, op->pdi_id, op->size, op->addr); break;
    case AIR_TXN_PREEMPT: air_txn_preempt(t, op->level); break;
    case AIR_TXN_READ_REGS: air_txn_read_regs(t, op->payload, op->n_payload); break;
    default: t->oom = true; break; /* the decoder never yields another opcode */
  }
}

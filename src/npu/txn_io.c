/* txn_io.c - TXN stream files (binary or hex text) and the readable listing
 * (see txn.h). */
#include <stdio.h>
#include <string.h>

#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/base/strbuf.h"

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* Hex text: every byte is a hex digit, whitespace, or part of "0x", "#...", "//...". */
static bool looks_hex(const unsigned char* p, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    int c = p[i];
    if (c == '#' || (c == '/' && i + 1 < n && p[i + 1] == '/')) {
      while (i < n && p[i] != '\n') ++i;
      continue;
    }
    if (!(hexval(c) >= 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 'x' ||
          c == 'X'))
      return false;
  }
  return true;
}

static air_status_t read_hex(const air_allocator_t* a, const unsigned char* p, size_t n,
                             const char* name, uint32_t** out, size_t* out_n) {
  uint32_t* words = NULL;
  size_t count = 0, cap = 0;
  uint32_t line = 1;
  for (size_t i = 0; i < n;) {
    int c = p[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#' || c == '/') {
      while (i < n && p[i] != '\n') ++i;
      continue;
    }
    size_t start = i;
    if (c == '0' && i + 1 < n && (p[i + 1] == 'x' || p[i + 1] == 'X')) i += 2;
    uint64_t v = 0;
    size_t digits = 0;
    while (i < n && hexval(p[i]) >= 0) {
      v = v << 4 | (uint64_t)hexval(p[i]);
      ++i;
      if (++digits > 8) break;
    }
    bool end_ok = i == n || p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n' ||
                  p[i] == '#' || p[i] == '/';
    if (digits == 0 || digits > 8 || !end_ok) {
      air_mem_free(a, words);
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                        "%s:%u: expected one 32-bit hex word (at most 8 digits), found '%.*s'",
                        name, line, (int)(i - start < 16 ? i - start + 1 : 16),
                        (const char*)p + start);
    }
    if (!air_mem_grow_z(a, (void**)&words, &cap, count + 1, sizeof *words)) {
      air_mem_free(a, words);
      return AIR_STATUS_OOM(a, "instruction words");
    }
    words[count++] = (uint32_t)v;
  }
  *out = words;
  *out_n = count;
  return NULL;
}

air_status_t air_txn_read_file_bytes(const air_allocator_t* a, const void* data, size_t size,
                                     const char* name, uint32_t** out_words,
                                     size_t* out_n_words) {
  *out_words = NULL;
  *out_n_words = 0;
  const unsigned char* p = data;
  if (looks_hex(p, size)) return read_hex(a, p, size, name, out_words, out_n_words);
  if (size == 0 || size % 4)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                      "%s: a binary instruction stream is a multiple of 4 bytes; this file "
                      "has %zu", name, size);
  uint32_t* w = air_mem_alloc(a, size);
  if (!w) return AIR_STATUS_OOM(a, "instruction words");
  for (size_t i = 0; i < size / 4; ++i)
    w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
           (uint32_t)p[4 * i + 3] << 24;
  *out_words = w;
  *out_n_words = size / 4;
  return NULL;
}

static void list_op(air_sb_t* sb, const air_txn_op_t* op) {
  char where[96];
  const char* name = air_txn_opcode_name(op->opcode);
  air_sb_printf(sb, "%6u  %-13s ", op->word, name);
  switch (op->opcode) {
    case AIR_TXN_WRITE:
    case AIR_TXN_MASKWRITE:
      air_npu_describe_addr(op->addr, where, sizeof where);
      air_sb_printf(sb, "addr 0x%08llx value 0x%08x", (unsigned long long)op->addr, op->value);
      if (op->opcode == AIR_TXN_MASKWRITE) air_sb_printf(sb, " mask 0x%08x", op->mask);
      air_sb_printf(sb, "  ; %s\n", where);
      break;
    case AIR_TXN_BLOCKWRITE:
      air_npu_describe_addr(op->addr, where, sizeof where);
      air_sb_printf(sb, "addr 0x%08llx col %u row %u words %u  ; %s\n",
                    (unsigned long long)op->addr, op->col, op->row, op->n_payload, where);
      for (uint32_t i = 0; i < op->n_payload; ++i)
        air_sb_printf(sb, "%s%08x%s", i % 8 == 0 ? "                      " : " ",
                      op->payload[i], i % 8 == 7 || i + 1 == op->n_payload ? "\n" : "");
      break;
    case AIR_TXN_TCT:
      air_sb_printf(sb, "col %u row %u %s channel %u col_num %u row_num %u\n", op->col, op->row,
                    op->direction == 0 ? "S2MM" : op->direction == 1 ? "MM2S" : "dir?",
                    op->channel, op->col_num, op->row_num);
      break;
    case AIR_TXN_DDR_PATCH:
      air_npu_describe_addr(op->addr, where, sizeof where);
      air_sb_printf(sb, "reg 0x%08llx arg %llu plus 0x%llx  ; %s\n", (unsigned long long)op->addr,
                    (unsigned long long)op->arg_idx, (unsigned long long)op->arg_plus, where);
      break;
    case AIR_TXN_LOAD_PDI:
      air_sb_printf(sb, "id %u size %u address 0x%llx\n", op->pdi_id, op->size,
                    (unsigned long long)op->addr);
      break;
    case AIR_TXN_PREEMPT: air_sb_printf(sb, "level %u\n", op->level); break;
    case AIR_TXN_READ_REGS:
      air_sb_printf(sb, "count %u\n", op->n_payload);
      for (uint32_t i = 0; i < op->n_payload; ++i) {
        air_npu_describe_addr(op->payload[i], where, sizeof where);
        air_sb_printf(sb, "                      0x%08x  ; %s\n", op->payload[i], where);
      }
      break;
  }
}

air_status_t air_txn_list(const air_allocator_t* a, const air_txn_view_t* v, char** out_text,
                          size_t* out_len) {
  air_sb_t sb;
  air_sb_init(&sb, a);
  const char* dev = v->geom.dev_gen == 3 ? " (npu1, AIE2)" : v->geom.dev_gen == 4 ? " (npu2, AIE2P)" : "";
  air_sb_printf(&sb,
                "; TXN 0.1 device generation %u%s, %u rows, %u columns, %u mem-tile rows, "
                "%u ops\n; word  op            fields\n",
                v->geom.dev_gen, dev, v->geom.rows, v->geom.cols, v->geom.mem_tile_rows,
                v->n_ops);
  for (uint32_t i = 0; i < v->n_ops; ++i) list_op(&sb, &v->ops[i]);
  if (sb.oom) {
    air_sb_free(&sb);
    return AIR_STATUS_OOM(a, "instruction listing");
  }
  *out_text = air_sb_take(&sb, out_len);
  return NULL;
}

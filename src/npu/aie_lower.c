/* aie_lower.c - an mlir-aie device module's runtime sequence to TXN (see insts.h).
 *
 * Two passes over the device's ops: the first collects what sequence ops refer
 * to (aie_sym.c: tiles, allocations, buffers, locks); the second lowers the
 * chosen sequence op by op, DMA tasks through aie_task.c. Per-op semantics follow
 * NPU-DMA.md §5-§11: dma_memcpy_nd becomes the BD blockwrite, then its address
 * patch, then (with a token and a controller id) the controller maskwrite, then
 * the queue push. */
#include <stddef.h>
#include <string.h>

#include "npu/aie_read.h"
#include "npu/aie_sym.h"
#include "npu/aie_task.h"
#include "npu/bd.h"
#include "npu/insts.h"
#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/*--- blockwrite data --------------------------------------------------------------*/

static int hexv(char ch) {
  return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static air_status_t dense_value(aie_lower_t* L, aie_cur_t* c, bool is_signed_ok, uint32_t** vals,
                                uint32_t* n, uint32_t* cap) {
  uint32_t line = c->tok.line, col = c->tok.col;
  int64_t v;
  AIR_RETURN_IF_ERROR(aie_cur_int(c, &v));
  if (v < (is_signed_ok ? INT32_MIN : 0) || v > (int64_t)UINT32_MAX)
    return AIE_ERR(L, line, col, "value %lld does not fit 32 bits", (long long)v);
  if (!air_mem_grow(L->a, (void**)vals, cap, (size_t)*n + 1, sizeof **vals))
    return AIR_STATUS_OOM(L->a, "blockwrite data");
  (*vals)[(*n)++] = (uint32_t)v;
  return NULL;
}

/* `memref.global ... @sym : memref<NxiK> = dense<...>` -> 32-bit words. */
static air_status_t global_words(aie_lower_t* L, uint32_t gop, uint32_t** out, uint32_t* out_n) {
  const aie_op_t* op = aie_op(L, gop);
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  while (!aie_cur_is(&c, AIR_TK_EOF) && !aie_cur_is(&c, AIR_TK_COLON)) aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COLON, "':' and the global's type"));
  uint32_t bits;
  bool is_int;
  uint64_t count;
  uint32_t tl = c.tok.line, tc = c.tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_memref(&c, &bits, &is_int, &count));
  if (bits != 32 || !is_int)
    return AIE_ERR(L, tl, tc, "blockwrite data must be a memref of 32-bit integers");
  if (count == 0 || count > (1u << 24))
    return AIE_ERR(L, tl, tc, "blockwrite data must have 1 to 2^24 words, not %llu", (unsigned long long)count);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_EQUAL, "'=' and the global's initial value"));
  if (!(aie_cur_is(&c, AIR_TK_BARE) && c.tok.len == 5 && memcmp(c.tok.s, "dense", 5) == 0))
    return aie_cur_expected(&c, "a dense<...> initial value");
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LESS, "'<'"));
  uint32_t* vals = NULL;
  uint32_t n = 0, cap = 0;
  air_status_t s = NULL;
  if (aie_cur_is(&c, AIR_TK_STRING)) { /* "0x..." raw little-endian bytes */
    const char* h = c.tok.s + 1;
    size_t hl = c.tok.len >= 2 ? c.tok.len - 2 : 0;
    if (hl < 2 || h[0] != '0' || (h[1] != 'x' && h[1] != 'X') || (hl - 2) % 8)
      return AIE_ERR(L, c.tok.line, c.tok.col, "hex dense data must be \"0x\" and whole 32-bit words");
    size_t words = (hl - 2) / 8;
    if (words != 1 && words != count)
      return AIE_ERR(L, c.tok.line, c.tok.col, "hex dense data has %zu words for %llu elements", words,
                 (unsigned long long)count);
    if (!(vals = air_mem_calloc(L->a, count, sizeof *vals))) return AIR_STATUS_OOM(L->a, "data");
    for (size_t w = 0; w < words; ++w) {
      uint32_t v = 0;
      for (int b = 0; b < 4; ++b) {
        int hi = hexv(h[2 + 8 * w + 2 * b]), lo = hexv(h[2 + 8 * w + 2 * b + 1]);
        if (hi < 0 || lo < 0) {
          air_mem_free(L->a, vals);
          return AIE_ERR(L, c.tok.line, c.tok.col, "bad hex digit in dense data");
        }
        v |= (uint32_t)(hi * 16 + lo) << (8 * b);
      }
      vals[w] = v;
    }
    for (size_t w = words; w < count; ++w) vals[w] = vals[0];
    n = (uint32_t)count;
    aie_cur_next(&c);
  } else if (aie_cur_is(&c, AIR_TK_LSQUARE)) {
    int depth = 0;
    do {
      if (aie_cur_accept(&c, AIR_TK_LSQUARE)) {
        ++depth;
      } else if (aie_cur_accept(&c, AIR_TK_RSQUARE)) {
        --depth;
      } else if (aie_cur_accept(&c, AIR_TK_COMMA)) {
      } else if (!(s = dense_value(L, &c, true, &vals, &n, &cap))) {
      } else {
        break;
      }
    } while (depth > 0);
    if (!s && n != count)
      s = AIE_ERR(L, tl, tc, "dense data has %u values for %llu elements", n, (unsigned long long)count);
  } else {
    s = dense_value(L, &c, true, &vals, &n, &cap); /* a splat */
    if (!s && !air_mem_grow(L->a, (void**)&vals, &cap, count, sizeof *vals))
      s = AIR_STATUS_OOM(L->a, "blockwrite data");
    for (uint32_t i = 1; !s && i < count; ++i) vals[i] = vals[0];
    n = (uint32_t)count;
  }
  if (!s) s = aie_cur_expect(&c, AIR_TK_GREATER, "'>'");
  if (s) {
    air_mem_free(L->a, vals);
    return s;
  }
  *out = vals;
  *out_n = n;
  return NULL;
}

/*--- sequence ops ----------------------------------------------------------------*/

static air_status_t lower_blockwrite(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "the data value");
  const aie_value_t* v = aie_find_val(L, aie_tok_name(&c.tok));
  if (!v || v->kind != AIE_VAL_GLOBAL)
    return AIE_ERR(L, c.tok.line, c.tok.col, "blockwrite data must come from memref.get_global");
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  uint32_t addr;
  AIR_RETURN_IF_ERROR(aie_op_address(L, &at, "address", &addr));
  int64_t col = 0, row = 0;
  if (aie_attrs_find(&at, "column")) {
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "column", true, 0, 0, 255, &col));
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "row", true, 0, 0, 255, &row));
  }
  uint32_t* words = NULL;
  uint32_t n = 0;
  AIR_RETURN_IF_ERROR(global_words(L, v->ref, &words, &n));
  air_txn_blockwrite(&L->txn, (uint8_t)col, (uint8_t)row, addr, words, n);
  air_mem_free(L->a, words);
  return NULL;
}

static air_status_t lower_writebd(aie_lower_t* L, const aie_attrs_t* at) {
  static const struct { const char* key; size_t off; } k_fields[] = {
#define F(name) {#name, offsetof(air_npu_bd_t, name)}
      F(bd_id), F(buffer_length), F(buffer_offset), F(d0_size), F(d0_stride), F(d1_size),
      F(d1_stride), F(d2_size), F(d2_stride), F(iteration_current), F(iteration_size),
      F(iteration_stride), F(d0_zero_before), F(d0_zero_after), F(d1_zero_before),
      F(d1_zero_after), F(d2_zero_before), F(d2_zero_after), F(enable_packet), F(packet_id),
      F(packet_type), F(out_of_order_id), F(lock_acq_enable), F(lock_acq_id), F(lock_rel_id),
      F(next_bd), F(use_next_bd), F(valid_bd), F(burst_length),
#undef F
  };
  air_npu_bd_t bd;
  memset(&bd, 0, sizeof bd);
  for (size_t i = 0; i < sizeof k_fields / sizeof k_fields[0]; ++i) {
    bool required = strcmp(k_fields[i].key, "bd_id") == 0 ||
                    strcmp(k_fields[i].key, "buffer_length") == 0;
    uint32_t v;
    AIR_RETURN_IF_ERROR(aie_attr_u32(L, at, k_fields[i].key, required, false, &v));
    memcpy((char*)&bd + k_fields[i].off, &v, sizeof v);
  }
  int64_t acq, rel, col, row;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "lock_acq_val", false, 0, -64, 63, &acq));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "lock_rel_val", false, 0, -64, 63, &rel));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "column", true, 0, 0, L->dev->cols - 1, &col));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "row", true, 0, 0, L->dev->rows - 1, &row));
  bd.lock_acq_val = (int32_t)acq;
  bd.lock_rel_val = (int32_t)rel;
  air_npu_tile_t kind = air_npu_tile_kind((uint32_t)row);
  uint32_t w[8];
  air_npu_why_t why;
  if (!air_npu_bd_encode(L->dev, kind, &bd, w, why)) return AIE_ERR(L, at->line, at->col, "%s", why);
  uint32_t addr;
  air_npu_tile_addr((uint32_t)col, (uint32_t)row, air_npu_bd_base(kind) + 0x20 * bd.bd_id, &addr);
  air_txn_blockwrite(&L->txn, 0, 0, addr, w, air_npu_bd_words(kind));
  return NULL;
}

/* `[a, b, c, d]` highest dimension first; fewer than 4 entries pad the high end. */
static air_status_t dims(aie_lower_t* L, aie_cur_t* c, uint64_t out[4], uint64_t pad) {
  uint64_t v[4];
  int n = 0;
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LSQUARE, "'['"));
  while (!aie_cur_accept(c, AIR_TK_RSQUARE)) {
    if (n == 4) return aie_cur_expected(c, "']' after at most 4 values");
    AIR_RETURN_IF_ERROR(aie_static_value(L, c, &v[n++]));
    if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_RSQUARE))
      return aie_cur_expected(c, "',' or ']'");
  }
  for (int i = 0; i < 4; ++i) out[i] = i < 4 - n ? pad : v[i - (4 - n)];
  return NULL;
}

static air_status_t lower_memcpy(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  /* Older form: (x, y, %buf[...][...][...]). */
  while (!(aie_cur_is(&c, AIR_TK_PERCENT) && c.lx.pos < c.end && c.m->text[c.lx.pos] == '[')) {
    if (aie_cur_is(&c, AIR_TK_EOF) || aie_cur_is(&c, AIR_TK_RPAREN))
      return aie_cur_expected(&c, "the memref operand %name[offsets][sizes][strides]");
    aie_cur_next(&c);
  }
  uint32_t vline = c.tok.line, vcol = c.tok.col;
  const aie_value_t* v = aie_find_val(L, aie_tok_name(&c.tok));
  if (!v || v->kind != AIE_VAL_MEMREF_ARG)
    return AIE_ERR(L, vline, vcol, "'%%%.*s' is not a memref argument of the runtime sequence",
               (int)c.tok.name_len, c.tok.name);
  aie_cur_next(&c);
  air_npu_nd_t nd;
  nd.elem_bits = v->elem_bits;
  AIR_RETURN_IF_ERROR(dims(L, &c, nd.offsets, 0));
  AIR_RETURN_IF_ERROR(dims(L, &c, nd.sizes, 1));
  AIR_RETURN_IF_ERROR(dims(L, &c, nd.strides, 0));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  int64_t id, burst;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "id", true, 0, 0, 15, &id));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "burst_length", false, 0, 0, 512, &burst));
  bool token;
  AIR_RETURN_IF_ERROR(aie_attrs_bool(L->m, &at, "issue_token", false, &token));
  const aie_attr_t* md = aie_attrs_find(&at, "metadata");
  if (!md || md->kind != AIE_ATTR_SYM)
    return AIE_ERR(L, at.line, at.col, "dma_memcpy_nd needs metadata = @shim_dma_allocation");
  const aie_alloc_t* al = NULL;
  AIR_RETURN_IF_ERROR(aie_lookup_alloc(L, md, &al));
  air_npu_bd_t bd;
  uint64_t off;
  uint32_t repeat;
  air_npu_why_t why;
  if (!air_npu_nd_to_bd(&nd, &bd, &off, &repeat, why)) return AIE_ERR(L, op->line, op->col, "%s", why);
  bd.bd_id = (uint32_t)id;
  bd.burst_length = (uint32_t)burst;
  const aie_attr_t* pk = aie_attrs_find(&at, "packet");
  if (pk) {
    if (pk->kind != AIE_ATTR_PACKET || pk->i > 7 || pk->j > 31)
      return AIE_ERR(L, pk->line, pk->col, "packet must be <pkt_type = 0..7, pkt_id = 0..31>");
    bd.enable_packet = 1;
    bd.packet_type = (uint32_t)pk->i;
    bd.packet_id = (uint32_t)pk->j;
  }
  uint32_t w[8], bd_addr;
  if (!air_npu_bd_encode(L->dev, AIR_NPU_TILE_SHIM, &bd, w, why))
    return AIE_ERR(L, op->line, op->col, "%s", why);
  air_npu_tile_addr(al->col, 0, air_npu_bd_base(AIR_NPU_TILE_SHIM) + 0x20 * bd.bd_id, &bd_addr);
  air_txn_blockwrite(&L->txn, 0, 0, bd_addr, w, 8);
  if (off + v->byte_off > UINT32_MAX || (off + v->byte_off) % 4)
    return AIE_ERR(L, op->line, op->col, "the offset with the view's, %llu bytes, is not a "
                   "4-byte aligned 32-bit value", (unsigned long long)(off + v->byte_off));
  air_txn_ddr_patch(&L->txn, bd_addr + 4, v->memref_idx,
                    air_txn_patch_arg_plus(v->memref_idx, off + v->byte_off, L->fold));
  /* S2MM tasks always issue a token: the host waits on their completion. */
  if (al->dir == AIR_NPU_S2MM) token = true;
  aie_task_push(L, al->col, 0, al->dir, al->channel, bd.bd_id, repeat, token);
  return NULL;
}

/* `aiex.npu.push_queue (col, row, DIR : channel) {bd_id, issue_token, repeat_count}`. */
static air_status_t lower_push_queue(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  int64_t col, row, ch;
  air_npu_dir_t dir;
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  uint32_t line = c.tok.line, ccol = c.tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &col));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &row));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  AIR_RETURN_IF_ERROR(aie_parse_dir(L, &c, &dir));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COLON, "':'"));
  uint32_t chl = c.tok.line, chc = c.tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &ch));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  if (col < 0 || col >= L->dev->cols || row < 0 || row >= L->dev->rows)
    return AIE_ERR(L, line, ccol, "tile (%lld, %lld) is outside %s", (long long)col,
                   (long long)row, L->dev->name);
  air_npu_tile_t kind = air_npu_tile_kind((uint32_t)row);
  if (ch < 0 || ch >= (int64_t)air_npu_channels(kind))
    return AIE_ERR(L, chl, chc, "channel %lld: the tile has channels 0..%u", (long long)ch,
                   air_npu_channels(kind) - 1);
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  int64_t bd, rep;
  bool token;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "bd_id", true, 0, 0, air_npu_bd_count(kind) - 1, &bd));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "repeat_count", false, 0, 0, 255, &rep));
  AIR_RETURN_IF_ERROR(aie_attrs_bool(L->m, &at, "issue_token", false, &token));
  aie_task_push(L, (uint32_t)col, (uint32_t)row, dir, (uint32_t)ch, (uint32_t)bd, (uint32_t)rep, token);
  return NULL;
}

/* `aiex.set_lock(%lock, V)`: a write of the lock's value register. */
static air_status_t lower_set_lock(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "the lock %name");
  const aie_lock_t* k = aie_find_lock(L, aie_tok_name(&c.tok));
  if (!k) return AIE_ERR(L, c.tok.line, c.tok.col, "'%%%.*s' is not an aie.lock of this device",
                         (int)c.tok.name_len, c.tok.name);
  if (k->id < 0)
    return AIE_ERR(L, c.tok.line, c.tok.col, "the lock has no id (give aie.lock one, or run "
                   "mlir-aie's lock assignment first)");
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  uint32_t vl = c.tok.line, vc = c.tok.col;
  int64_t v;
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &v));
  if (v < INT32_MIN || v > INT32_MAX) return AIE_ERR(L, vl, vc, "lock value %lld", (long long)v);
  const aie_tile_t* t = &L->tiles[k->tile];
  air_npu_tile_t kind = air_npu_tile_kind(t->row);
  uint32_t base = kind == AIR_NPU_TILE_SHIM ? 0x14000 : kind == AIR_NPU_TILE_MEM ? 0xC0000 : 0x1F000;
  uint32_t addr;
  air_npu_tile_addr(t->col, t->row, base + 0x10 * (uint32_t)k->id, &addr);
  air_txn_write32(&L->txn, addr, (uint32_t)(int32_t)v);
  return NULL;
}

/* `aiex.npu.rtp_write(@buf, index, value)`: a write of word `index` of the buffer. */
static air_status_t lower_rtp_write(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(&c, AIR_TK_AT)) return aie_cur_expected(&c, "the buffer's @name");
  uint32_t bl = c.tok.line, bc = c.tok.col;
  const aie_buffer_t* b = aie_find_buffer(L, aie_tok_name(&c.tok), true);
  if (!b) return AIE_ERR(L, bl, bc, "no aie.buffer with sym_name \"%.*s\" in this device",
                         (int)c.tok.name_len, c.tok.name);
  if (b->address < 0)
    return AIE_ERR(L, bl, bc, "the aie.buffer has no address (give it one, or run mlir-aie's "
                   "buffer-address assignment first)");
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  uint32_t il = c.tok.line, ic = c.tok.col;
  int64_t idx, v;
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &idx));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  uint32_t vl = c.tok.line, vc = c.tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &v));
  if (v < INT32_MIN || v > UINT32_MAX) return AIE_ERR(L, vl, vc, "value %lld does not fit 32 bits", (long long)v);
  const aie_tile_t* t = &L->tiles[b->tile];
  uint32_t addr;
  if (idx < 0 || idx > 0x40000 || !air_npu_tile_addr(t->col, t->row, (uint32_t)(b->address + 4 * idx), &addr))
    return AIE_ERR(L, il, ic, "index %lld is past the tile's memory", (long long)idx);
  air_txn_write32(&L->txn, addr, (uint32_t)v);
  return NULL;
}

static air_status_t lower_attr_op(aie_lower_t* L, const aie_op_t* op, const char* kind) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  if (aie_attrs_find(&at, "buffer"))
    return AIE_ERR(L, at.line, at.col, "'%.*s' relative to a buffer symbol is not supported",
               (int)op->name.len, op->name.s);
  if (!strcmp(kind, "write32") || !strcmp(kind, "maskwrite32")) {
    uint32_t addr, value, mask = 0;
    AIR_RETURN_IF_ERROR(aie_op_address(L, &at, "address", &addr));
    AIR_RETURN_IF_ERROR(aie_attr_u32(L, &at, "value", true, true, &value));
    if (kind[0] == 'm') {
      AIR_RETURN_IF_ERROR(aie_attr_u32(L, &at, "mask", true, true, &mask));
      air_txn_maskwrite32(&L->txn, addr, value, mask);
    } else {
      air_txn_write32(&L->txn, addr, value);
    }
  } else if (!strcmp(kind, "sync")) {
    int64_t f[6];
    static const char* const k_keys[6] = {"column", "row", "direction", "channel", "column_num", "row_num"};
    static const int64_t k_max[6] = {255, 255, 1, 255, 255, 255};
    for (int i = 0; i < 6; ++i)
      AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, k_keys[i], true, 0, 0, k_max[i], &f[i]));
    if (f[0] >= L->dev->cols || f[1] >= L->dev->rows)
      return AIE_ERR(L, at.line, at.col, "sync tile (%lld, %lld) is outside %s", (long long)f[0],
                 (long long)f[1], L->dev->name);
    air_txn_sync(&L->txn, (uint8_t)f[0], (uint8_t)f[1], (uint8_t)f[2], (uint8_t)f[3],
                 (uint8_t)f[4], (uint8_t)f[5]);
  } else if (!strcmp(kind, "address_patch")) {
    uint32_t addr, plus;
    int64_t idx;
    AIR_RETURN_IF_ERROR(aie_attr_u32(L, &at, "addr", true, false, &addr));
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "arg_idx", true, 0, 0, INT32_MAX, &idx));
    AIR_RETURN_IF_ERROR(aie_attr_u32(L, &at, "arg_plus", false, true, &plus));
    if ((uint64_t)idx >= L->n_memref_args) {
      const aie_attr_t* ia = aie_attrs_find(&at, "arg_idx");
      return AIE_ERR(L, ia->line, ia->col, "arg_idx %lld: the runtime sequence has %u memref "
                 "argument%s", (long long)idx, L->n_memref_args, L->n_memref_args == 1 ? "" : "s");
    }
    air_txn_ddr_patch(&L->txn, addr, (uint64_t)idx,
                      air_txn_patch_arg_plus((uint64_t)idx, plus, L->fold));
  } else if (!strcmp(kind, "load_pdi")) {
    int64_t id, size, address;
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "id", true, 0, 0, 0xFFFF, &id));
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "size", false, 0, 0, UINT32_MAX, &size));
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "address", false, 0, 0, INT64_MAX, &address));
    air_txn_load_pdi(&L->txn, (uint16_t)id, (uint32_t)size, (uint64_t)address);
  } else if (!strcmp(kind, "preempt")) {
    int64_t level;
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "level", true, 0, 0, 255, &level));
    air_txn_preempt(&L->txn, (uint8_t)level);
  } else if (!strcmp(kind, "read_reg")) {
    uint32_t addr;
    AIR_RETURN_IF_ERROR(aie_op_address(L, &at, "address", &addr));
    air_txn_read_regs(&L->txn, &addr, 1);
  } else if (!strcmp(kind, "writebd")) {
    return lower_writebd(L, &at);
  } else if (!strcmp(kind, "dma_wait")) {
    const aie_attr_t* sym = aie_attrs_find(&at, "symbol");
    if (!sym || sym->kind != AIE_ATTR_SYM)
      return AIE_ERR(L, at.line, at.col, "dma_wait needs symbol = @shim_dma_allocation");
    const aie_alloc_t* al = NULL;
    AIR_RETURN_IF_ERROR(aie_lookup_alloc(L, sym, &al));
    air_txn_sync(&L->txn, (uint8_t)al->col, 0, al->dir == AIR_NPU_MM2S ? 1 : 0,
                 (uint8_t)al->channel, 1, 1);
  }
  return NULL;
}

/* `%c = arith.constant 5 : i32` and `%g = memref.get_global @sym : memref<...>`. */
static air_status_t define_value(aie_lower_t* L, const aie_op_t* op, bool is_global) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_value_t v;
  memset(&v, 0, sizeof v);
  v.name = op->result;
  if (!op->result.len) return AIE_ERR(L, op->line, op->col, "'%.*s' needs a result", (int)op->name.len, op->name.s);
  if (is_global) {
    if (!aie_cur_is(&c, AIR_TK_AT)) return aie_cur_expected(&c, "@global");
    v.kind = AIE_VAL_GLOBAL;
    v.ref = aie_find_symbol_op(L, "memref.global", aie_tok_name(&c.tok));
    if (v.ref == AIE_NONE)
      return AIE_ERR(L, c.tok.line, c.tok.col, "no memref.global @%.*s in this device",
                 (int)c.tok.name_len, c.tok.name);
  } else {
    v.kind = AIE_VAL_CONST;
    if (aie_cur_is(&c, AIR_TK_BARE) && (aie_span_is((aie_span_t){c.tok.s, c.tok.len}, "true") ||
                                        aie_span_is((aie_span_t){c.tok.s, c.tok.len}, "false"))) {
      v.v = c.tok.s[0] == 't';
    } else if (aie_cur_is(&c, AIR_TK_INT) || aie_cur_is(&c, AIR_TK_MINUS)) {
      AIR_RETURN_IF_ERROR(aie_cur_int(&c, &v.v));
    } else {
      return NULL; /* a float constant: nothing in a sequence may use it */
    }
  }
  return AIE_PUSH(L, vals, &v);
}

/* `%v = memref.reinterpret_cast %a to offset: [N], ...`, `memref.subview %a[...]
 * ... to memref<..., strided<[...], offset: N>>` or `memref.cast %a ...` of a
 * sequence argument: the same argument, N elements further (both offsets are
 * from the argument's base, so they replace the source's, as in MLIR). */
static air_status_t define_view(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  if (!op->result.len) return AIE_ERR(L, op->line, op->col, "'%.*s' needs a result", (int)op->name.len, op->name.s);
  if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "the source memref");
  const aie_value_t* src = aie_find_val(L, aie_tok_name(&c.tok));
  if (!src || src->kind != AIE_VAL_MEMREF_ARG)
    return AIE_ERR(L, c.tok.line, c.tok.col, "'%%%.*s' is not a memref argument of the runtime "
                   "sequence (or a view of one)", (int)c.tok.name_len, c.tok.name);
  aie_value_t v = *src;
  v.name = op->result;
  if (!aie_span_is(op->name, "memref.cast")) {
    /* The static offset: after `offset:` (reinterpret_cast's operand list, or the
     * subview result type's strided layout); none in the type means 0. */
    const char* t = L->m->text + op->head;
    size_t n = op->head_end - op->head, k = 0;
    bool sub = aie_span_is(op->name, "memref.subview");
    if (sub) { /* the result type, after ` to ` */
      while (k + 4 <= n && memcmp(t + k, " to ", 4) != 0) ++k;
    }
    int64_t off = 0;
    for (; k + 7 <= n; ++k) {
      if (memcmp(t + k, "offset:", 7) != 0) continue;
      size_t j = k + 7;
      while (j < n && (t[j] == ' ' || t[j] == '[')) ++j;
      if (j >= n || t[j] < '0' || t[j] > '9')
        return AIE_ERR(L, op->line, op->col, "a view with a dynamic offset is not lowered");
      for (off = 0; j < n && t[j] >= '0' && t[j] <= '9'; ++j) {
        if (off > (INT64_MAX - 9) / 10) return AIE_ERR(L, op->line, op->col, "offset too large");
        off = off * 10 + (t[j] - '0');
      }
      break;
    }
    uint64_t bits = (uint64_t)off * v.elem_bits;
    if (off > (int64_t)UINT32_MAX || bits % 8)
      return AIE_ERR(L, op->line, op->col, "view offset %lld is not a whole byte count below 2^32",
                     (long long)off);
    v.byte_off = bits / 8;
  }
  return AIE_PUSH(L, vals, &v);
}

/* `[@name] (%a: memref<...>, %n: i32, ...)` of a runtime sequence. */
static air_status_t sequence_args(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_cur_accept(&c, AIR_TK_AT);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'(' and the sequence's arguments"));
  while (!aie_cur_accept(&c, AIR_TK_RPAREN)) {
    if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "an argument %name");
    aie_value_t v;
    memset(&v, 0, sizeof v);
    v.name = aie_tok_name(&c.tok);
    aie_cur_next(&c);
    AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COLON, "':' and the argument's type"));
    if (aie_cur_is(&c, AIR_TK_BARE) && c.tok.len == 6 && memcmp(c.tok.s, "memref", 6) == 0) {
      uint32_t line = c.tok.line, col = c.tok.col, bits;
      bool is_int;
      uint64_t count;
      AIR_RETURN_IF_ERROR(aie_cur_memref(&c, &bits, &is_int, &count));
      if (bits == 0 || bits > 32 || count * bits < 32)
        return AIE_ERR(L, line, col, "a sequence memref must hold elements of at most 32 bits and at "
                   "least 32 bits in all");
      v.kind = AIE_VAL_MEMREF_ARG;
      v.elem_bits = bits;
      v.memref_idx = L->n_memref_args++;
    } else {
      v.kind = AIE_VAL_SCALAR_ARG;
      while (!aie_cur_is(&c, AIR_TK_COMMA) && !aie_cur_is(&c, AIR_TK_RPAREN)) {
        if (aie_cur_is(&c, AIR_TK_EOF)) return aie_cur_expected(&c, "')'");
        AIR_RETURN_IF_ERROR(aie_cur_skip(&c));
      }
    }
    AIR_RETURN_IF_ERROR(AIE_PUSH(L, vals, &v));
    if (aie_cur_is(&c, AIR_TK_LBRACE)) AIR_RETURN_IF_ERROR(aie_cur_skip(&c)); /* {arg attrs} */
    if (!aie_cur_accept(&c, AIR_TK_COMMA) && !aie_cur_is(&c, AIR_TK_RPAREN))
      return aie_cur_expected(&c, "',' or ')'");
  }
  return NULL;
}

static air_status_t lower_sequence(aie_lower_t* L, uint32_t seq) {
  AIR_RETURN_IF_ERROR(sequence_args(L, aie_op(L, seq)));
  static const char k_npu[] = "aiex.npu.";
  for (uint32_t i = aie_op(L, seq)->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    const aie_op_t* op = aie_op(L, i);
    aie_span_t n = op->name;
    bool configure = aie_span_is(n, "aiex.dma_configure_task_for") ||
                     aie_span_is(n, "aiex.dma_configure_task");
    if (op->first_child != AIE_NONE && !configure)
      return AIE_ERR(L, op->line, op->col, "'%.*s' with a region in a runtime sequence is not lowered "
                 "to instructions", (int)n.len, n.s);
    if (configure || aie_span_is(n, "aiex.dma_start_bd_chain") ||
        aie_span_is(n, "aiex.dma_start_bd_chain_for")) {
      AIR_RETURN_IF_ERROR(aie_task_configure(L, op));
    } else if (aie_span_is(n, "aiex.dma_start_task") || aie_span_is(n, "aiex.dma_await_task") ||
               aie_span_is(n, "aiex.dma_free_task")) {
      AIR_RETURN_IF_ERROR(aie_task_use(L, op));
    } else if (aie_span_is(n, "aiex.npu.push_queue")) {
      AIR_RETURN_IF_ERROR(lower_push_queue(L, op));
    } else if (aie_span_is(n, "aiex.set_lock")) {
      AIR_RETURN_IF_ERROR(lower_set_lock(L, op));
    } else if (aie_span_is(n, "aiex.npu.rtp_write")) {
      AIR_RETURN_IF_ERROR(lower_rtp_write(L, op));
    } else if (aie_span_is(n, "arith.constant")) {
      AIR_RETURN_IF_ERROR(define_value(L, op, false));
    } else if (aie_span_is(n, "memref.reinterpret_cast") || aie_span_is(n, "memref.subview") ||
               aie_span_is(n, "memref.cast")) {
      AIR_RETURN_IF_ERROR(define_view(L, op));
    } else if (aie_span_is(n, "memref.get_global")) {
      AIR_RETURN_IF_ERROR(define_value(L, op, true));
    } else if (aie_span_is(n, "aiex.npu.dma_memcpy_nd")) {
      AIR_RETURN_IF_ERROR(lower_memcpy(L, op));
    } else if (aie_span_is(n, "aiex.npu.blockwrite")) {
      AIR_RETURN_IF_ERROR(lower_blockwrite(L, op));
    } else if (n.len > sizeof k_npu - 1 && memcmp(n.s, k_npu, sizeof k_npu - 1) == 0 &&
               (aie_span_is(n, "aiex.npu.write32") || aie_span_is(n, "aiex.npu.maskwrite32") ||
                aie_span_is(n, "aiex.npu.sync") || aie_span_is(n, "aiex.npu.address_patch") ||
                aie_span_is(n, "aiex.npu.load_pdi") || aie_span_is(n, "aiex.npu.preempt") ||
                aie_span_is(n, "aiex.npu.read_reg") || aie_span_is(n, "aiex.npu.writebd") ||
                aie_span_is(n, "aiex.npu.dma_wait"))) {
      char kind[32];
      size_t kl = n.len - (sizeof k_npu - 1);
      memcpy(kind, n.s + sizeof k_npu - 1, kl);
      kind[kl] = 0;
      AIR_RETURN_IF_ERROR(lower_attr_op(L, op, kind));
    } else if (!aie_span_is(n, "aie.end") && !aie_span_is(n, "aiex.end") &&
               !aie_span_is(n, "return") && !aie_span_is(n, "func.return")) {
      return AIE_ERR(L, op->line, op->col, "'%.*s' in a runtime sequence is not lowered to "
                 "instructions (lowered: aiex.npu.write32, maskwrite32, blockwrite, sync, "
                 "address_patch, load_pdi, preempt, read_reg, writebd, dma_memcpy_nd, "
                 "dma_wait, push_queue, rtp_write; aiex.dma_configure_task(_for), "
                 "dma_start_task, dma_await_task, dma_free_task, dma_start_bd_chain(_for), "
                 "set_lock; arith.constant, memref.get_global, memref.subview, "
                 "reinterpret_cast, cast)", (int)n.len, n.s);
    }
    if (L->txn.oom) break;
  }
  return NULL;
}

/* Is `op` a sequence: an aie./aiex.runtime_sequence, or (legacy, before
 * runtime_sequence existed: older mlir-air and mlir-aie outputs) a func.func
 * directly in aie.device whose body holds aiex ops? */
static bool is_sequence(const aie_module_t* m, const aie_op_t* op, bool legacy) {
  if (!legacy)
    return aie_span_is(op->name, "aie.runtime_sequence") ||
           aie_span_is(op->name, "aiex.runtime_sequence");
  if (!aie_span_is(op->name, "func.func") || op->parent == AIE_NONE ||
      !aie_span_is(m->ops[op->parent].name, "aie.device"))
    return false;
  for (uint32_t i = op->first_child; i != AIE_NONE; i = m->ops[i].next)
    if (m->ops[i].name.len > 5 && memcmp(m->ops[i].name.s, "aiex.", 5) == 0) return true;
  return false;
}

/* Finds the aie.device ops (at top level or inside `module`) and the sequence. */
static air_status_t pick(aie_lower_t* L, const air_npu_insts_options_t* o, uint32_t* out_seq) {
  const aie_module_t* m = L->m;
  uint32_t seq = AIE_NONE, n_seq = 0, dev_op = AIE_NONE;
  aie_span_t want = {o->sequence, o->sequence ? (uint32_t)strlen(o->sequence) : 0};
  for (int legacy = 0; legacy < 2 && seq == AIE_NONE; ++legacy)
    for (uint32_t i = 0; i < m->n_ops; ++i) {
      const aie_op_t* op = &m->ops[i];
      if (!is_sequence(m, op, legacy)) continue;
      uint32_t p = op->parent;
      if (p == AIE_NONE || !aie_span_is(m->ops[p].name, "aie.device"))
        return aie_error(m, op->line, op->col, "a runtime sequence must be directly inside aie.device");
      aie_cur_t c;
      aie_cur_init(&c, m, op);
      aie_span_t name = {"", 0};
      if (aie_cur_is(&c, AIR_TK_AT)) name = aie_tok_name(&c.tok);
      if (o->sequence && !aie_span_eq(name, want)) continue;
      if (++n_seq > 1)
        return aie_error(m, op->line, op->col, "the module has more than one runtime sequence%s; "
                         "name one (--sequence NAME)", o->sequence ? " of that name" : "");
      seq = i;
      dev_op = p;
    }
  if (seq == AIE_NONE) {
    if (o->sequence)
      return AIR_STATUS(L->a, AIR_STATUS_INVALID_ARGUMENT, "%s: error: no runtime sequence "
                        "named @%s", m->display, o->sequence);
    return AIR_STATUS(L->a, AIR_STATUS_INVALID_ARGUMENT,
                      "%s: error: no aie.device with an aie.runtime_sequence or "
                      "aiex.runtime_sequence (or a func.func of aiex ops) in this module",
                      m->display);
  }
  const aie_op_t* d = &m->ops[dev_op];
  aie_cur_t c;
  aie_cur_init(&c, m, d);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'(' and the device name"));
  if (!aie_cur_is(&c, AIR_TK_BARE)) return aie_cur_expected(&c, "a device name");
  if (!air_npu_device_find(c.tok.s, c.tok.len, &L->dev_model)) {
    char names[256];
    air_npu_device_names(names, sizeof names);
    return aie_error(m, c.tok.line, c.tok.col, "unknown NPU device '%.*s' (TXN streams are for: %s)",
                     (int)c.tok.len, c.tok.s, names);
  }
  L->dev = &L->dev_model;
  L->device_op = dev_op;
  *out_seq = seq;
  return NULL;
}

air_status_t air_npu_insts_from_module(const air_allocator_t* a, const char* text, size_t len,
                                       const char* display, const air_npu_insts_options_t* o,
                                       uint32_t** out_words, size_t* out_n_words) {
  static const air_npu_insts_options_t k_default = {false, NULL};
  if (!o) o = &k_default;
  *out_words = NULL;
  *out_n_words = 0;
  aie_module_t m;
  AIR_RETURN_IF_ERROR(aie_module_read(a, text, len, display, &m));
  aie_lower_t L;
  memset(&L, 0, sizeof L);
  L.m = &m;
  L.a = a;
  L.fold = !o->no_fold_ddr_offset;
  uint32_t seq = AIE_NONE;
  air_status_t s = pick(&L, o, &seq);
  if (!s) {
    air_txn_init(&L.txn, a, air_npu_device_geom(L.dev));
    s = aie_sym_collect(&L);
    if (!s) s = aie_task_reserve(&L, seq);
    if (!s) s = lower_sequence(&L, seq);
    if (!s) s = air_txn_finish(&L.txn);
    if (!s) *out_words = air_txn_take(&L.txn, out_n_words);
    air_txn_free(&L.txn);
  }
  aie_sym_free(&L);
  aie_module_free(&m);
  return s;
}

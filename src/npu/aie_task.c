/* aie_task.c - DMA tasks of a runtime sequence to TXN (see aie_task.h).
 *
 * A task is a tile, a direction, a channel and a chain of BDs, one per block of
 * the configure op's region (or of the started `aie.bd_chain`, its arguments
 * bound to the start's operands): `aie.dma_bd` optionally with
 * `aie.dma_bd_packet`, ended by `aie.next_bd ^bbN` (chain on) or `aie.end`.
 * Lowering follows mlir-aie's DMA-task passes: configure writes each BD
 * (blockwrite of the 8 or 6 words) then sets its address (a sequence argument on a
 * shim tile: address patch of word 1 with arg_plus = the byte offset; an
 * aie.buffer on a mem tile: maskwrite of word 1's 19-bit word address); start
 * pushes the first BD with the task's repeat_count and issue_token (after the
 * controller-id maskwrite when the tile has one); await syncs on the task's
 * channel and needs issue_token; free gives the BD ids back.
 *
 * BD ids. A BD without `bd_id` gets the lowest id of its tile that no live task
 * holds and no BD of the sequence names (on a mem tile: 0-23 for even channels,
 * 24-47 for odd ones), in sequence order; dma_free_task releases a task's ids, as
 * mlir-aie's runtime-sequence BD-id pass does. Locks inside task blocks are
 * refused, as mlir-aie refuses them. */
#include "npu/aie_task.h"

#include <string.h>

#include "npu/bd.h"
#include "runtime/base/status_util.h"

enum { MAX_BLOCKS = 48, MAX_PARAMS = 16 };

typedef struct site_t {
  uint32_t col, row, channel;
  air_npu_dir_t dir;
  bool token;
  uint32_t repeat;
  int32_t pkt_type, pkt_id; /* -1: none */
  uint32_t body;            /* the op whose children are the BD blocks */
  bool start;               /* a bd-chain start: push at once */
  aie_span_t params[MAX_PARAMS], actuals[MAX_PARAMS];
  uint32_t n_params;
} site_t;

static uint32_t tile_slot(uint32_t col, uint32_t row) { return col * 6 + row; }

static air_status_t check_channel(aie_lower_t* L, const aie_op_t* op, site_t* s) {
  air_npu_tile_t kind = air_npu_tile_kind(s->row);
  if (kind == AIR_NPU_TILE_CORE)
    return AIE_ERR(L, op->line, op->col, "a DMA task on core tile (%u, %u) is not lowered to "
                   "instructions (only shim and mem-tile tasks are)", s->col, s->row);
  if (s->col >= L->dev->cols || s->row >= L->dev->rows)
    return AIE_ERR(L, op->line, op->col, "tile (%u, %u) is outside %s", s->col, s->row,
                   L->dev->name);
  if (s->channel >= air_npu_channels(kind))
    return AIE_ERR(L, op->line, op->col, "channel %u: a %s tile has %s channels 0..%u", s->channel,
                   kind == AIR_NPU_TILE_MEM ? "mem" : "shim", s->dir == AIR_NPU_MM2S ? "MM2S" : "S2MM",
                   air_npu_channels(kind) - 1);
  return NULL;
}

/* issue_token, repeat_count and packet of a task. */
static air_status_t site_attrs(aie_lower_t* L, const aie_attrs_t* at, site_t* s) {
  int64_t rep;
  AIR_RETURN_IF_ERROR(aie_attrs_bool(L->m, at, "issue_token", false, &s->token));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "repeat_count", false, 0, 0, 255, &rep));
  s->repeat = (uint32_t)rep;
  const aie_attr_t* pk = aie_attrs_find(at, "packet");
  if (pk) {
    if (pk->kind != AIE_ATTR_PACKET || pk->i > 7 || pk->j > 31)
      return AIE_ERR(L, pk->line, pk->col, "packet must be <pkt_type = 0..7, pkt_id = 0..31>");
    s->pkt_type = (int32_t)pk->i;
    s->pkt_id = (int32_t)pk->j;
  }
  return NULL;
}

/* `(%tile, DIR, channel)` at the cursor. */
static air_status_t tile_dir_channel(aie_lower_t* L, aie_cur_t* c, site_t* s) {
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(c, AIR_TK_PERCENT)) return aie_cur_expected(c, "a tile %name");
  const aie_tile_t* t = aie_find_tile(L, aie_tok_name(&c->tok));
  if (!t) return AIE_ERR(L, c->tok.line, c->tok.col, "'%%%.*s' is not an aie.tile of this device",
                         (int)c->tok.name_len, c->tok.name);
  s->col = t->col;
  s->row = t->row;
  aie_cur_next(c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_COMMA, "','"));
  AIR_RETURN_IF_ERROR(aie_parse_dir(L, c, &s->dir));
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_COMMA, "','"));
  int64_t ch;
  uint32_t line = c->tok.line, col = c->tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_int(c, &ch));
  if (ch < 0 || ch > 255) return AIE_ERR(L, line, col, "channel %lld", (long long)ch);
  s->channel = (uint32_t)ch;
  return aie_cur_expect(c, AIR_TK_RPAREN, "')'");
}

/* `@alloc` at the cursor: the allocation's tile, direction and channel. */
static air_status_t alloc_site(aie_lower_t* L, aie_cur_t* c, site_t* s) {
  if (!aie_cur_is(c, AIR_TK_AT)) return aie_cur_expected(c, "@shim_dma_allocation");
  aie_attr_t sym;
  memset(&sym, 0, sizeof sym);
  sym.kind = AIE_ATTR_SYM;
  sym.sym = aie_tok_name(&c->tok);
  sym.line = c->tok.line;
  sym.col = c->tok.col;
  const aie_alloc_t* al = NULL;
  AIR_RETURN_IF_ERROR(aie_lookup_alloc(L, &sym, &al));
  s->col = al->col;
  s->row = al->row;
  s->dir = al->dir;
  s->channel = al->channel;
  s->pkt_type = al->pkt_type;
  s->pkt_id = al->pkt_id;
  aie_cur_next(c);
  return NULL;
}

/* `@chain(%a, %b) : (types) on (%tile, DIR, ch)` or `... for @alloc`. */
static air_status_t chain_site(aie_lower_t* L, const aie_op_t* op, aie_cur_t* c, site_t* s,
                               bool for_alloc) {
  if (!aie_cur_is(c, AIR_TK_AT)) return aie_cur_expected(c, "the @bd_chain");
  aie_span_t name = aie_tok_name(&c->tok);
  uint32_t cl = c->tok.line, cc = c->tok.col;
  s->body = aie_find_symbol_op(L, "aie.bd_chain", name);
  if (s->body == AIE_NONE)
    return AIE_ERR(L, cl, cc, "no aie.bd_chain named @%.*s in this device", (int)name.len, name.s);
  aie_cur_next(c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LPAREN, "'(' and the chain's operands"));
  uint32_t n = 0;
  while (!aie_cur_accept(c, AIR_TK_RPAREN)) {
    if (!aie_cur_is(c, AIR_TK_PERCENT)) return aie_cur_expected(c, "an operand %name");
    if (n == MAX_PARAMS) return aie_cur_expected(c, "at most 16 operands");
    s->actuals[n++] = aie_tok_name(&c->tok);
    aie_cur_next(c);
    if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_RPAREN))
      return aie_cur_expected(c, "',' or ')'");
  }
  if (aie_cur_accept(c, AIR_TK_COLON)) AIR_RETURN_IF_ERROR(aie_cur_skip(c)); /* (types) */
  if (!aie_cur_is(c, AIR_TK_BARE)) return aie_cur_expected(c, for_alloc ? "'for'" : "'on'");
  aie_cur_next(c);
  if (for_alloc) AIR_RETURN_IF_ERROR(alloc_site(L, c, s));
  else AIR_RETURN_IF_ERROR(tile_dir_channel(L, c, s));
  /* The chain's parameters, to bind to the operands. */
  aie_cur_t h;
  aie_cur_init(&h, L->m, aie_op(L, s->body));
  aie_cur_next(&h); /* @name */
  AIR_RETURN_IF_ERROR(aie_cur_expect(&h, AIR_TK_LPAREN, "'(' and the chain's arguments"));
  while (!aie_cur_accept(&h, AIR_TK_RPAREN)) {
    if (!aie_cur_is(&h, AIR_TK_PERCENT)) return aie_cur_expected(&h, "an argument %name");
    if (s->n_params == MAX_PARAMS) return aie_cur_expected(&h, "at most 16 arguments");
    s->params[s->n_params++] = aie_tok_name(&h.tok);
    aie_cur_next(&h);
    while (!aie_cur_is(&h, AIR_TK_COMMA) && !aie_cur_is(&h, AIR_TK_RPAREN)) {
      if (aie_cur_is(&h, AIR_TK_EOF)) return aie_cur_expected(&h, "')'");
      AIR_RETURN_IF_ERROR(aie_cur_skip(&h));
    }
    aie_cur_accept(&h, AIR_TK_COMMA);
  }
  if (s->n_params != n)
    return AIE_ERR(L, op->line, op->col, "@%.*s takes %u operands, %u given", (int)name.len,
                   name.s, s->n_params, n);
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, c, op, &at));
  return site_attrs(L, &at, s);
}

/* Where a configure op or chain start runs, and its BD blocks. */
static air_status_t task_site(aie_lower_t* L, const aie_op_t* op, site_t* s) {
  memset(s, 0, sizeof *s);
  s->pkt_type = s->pkt_id = -1;
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_span_t n = op->name;
  if (aie_span_is(n, "aiex.dma_start_bd_chain") || aie_span_is(n, "aiex.dma_start_bd_chain_for")) {
    s->start = true;
    AIR_RETURN_IF_ERROR(chain_site(L, op, &c, s, aie_span_is(n, "aiex.dma_start_bd_chain_for")));
  } else {
    if (aie_span_is(n, "aiex.dma_configure_task_for")) AIR_RETURN_IF_ERROR(alloc_site(L, &c, s));
    else AIR_RETURN_IF_ERROR(tile_dir_channel(L, &c, s));
    int32_t apt = s->pkt_type, api = s->pkt_id;
    s->pkt_type = s->pkt_id = -1;
    aie_cur_t t;
    aie_cur_init_tail(&t, L->m, op);
    aie_attrs_t at;
    AIR_RETURN_IF_ERROR(aie_op_attrs(L, &t, op, &at));
    AIR_RETURN_IF_ERROR(site_attrs(L, &at, s));
    if (s->pkt_id < 0) { /* the allocation's packet when the task names none */
      s->pkt_type = apt;
      s->pkt_id = api;
    }
    s->body = (uint32_t)(op - L->m->ops);
  }
  if (aie_op(L, s->body)->first_child == AIE_NONE)
    return AIE_ERR(L, op->line, op->col, "the task has no BDs (an empty region)");
  return check_channel(L, op, s);
}

/*--- BD blocks --------------------------------------------------------------------*/

typedef struct block_t {
  uint32_t bd, packet; /* ops: the aie.dma_bd, the aie.dma_bd_packet or AIE_NONE */
  aie_span_t label, next;
  uint32_t bd_id;
} block_t;

/* Splits the body's children into blocks, each one dma_bd and a terminator. */
static air_status_t blocks(aie_lower_t* L, const site_t* s, block_t* b, uint32_t* out_n) {
  uint32_t n = 0;
  bool open = false;
  for (uint32_t i = aie_op(L, s->body)->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    const aie_op_t* op = aie_op(L, i);
    if (!open || op->label.len) {
      if (open) return AIE_ERR(L, op->line, op->col, "the block before this one has no terminator");
      if (n == MAX_BLOCKS) return AIE_ERR(L, op->line, op->col, "more than %d BDs in one task", MAX_BLOCKS);
      memset(&b[n], 0, sizeof b[n]);
      b[n].bd = b[n].packet = AIE_NONE;
      b[n].label = op->label;
      ++n;
      open = true;
    }
    block_t* k = &b[n - 1];
    if (aie_span_is(op->name, "aie.dma_bd")) {
      if (k->bd != AIE_NONE) return AIE_ERR(L, op->line, op->col, "a second aie.dma_bd in one block");
      k->bd = i;
    } else if (aie_span_is(op->name, "aie.dma_bd_packet")) {
      k->packet = i;
    } else if (aie_span_is(op->name, "aie.end")) {
      open = false;
    } else if (aie_span_is(op->name, "aie.next_bd")) {
      aie_cur_t c;
      aie_cur_init(&c, L->m, op);
      if (!aie_cur_is(&c, AIR_TK_CARET)) return aie_cur_expected(&c, "the next block ^label");
      k->next = aie_tok_name(&c.tok);
      open = false;
    } else if (aie_span_is(op->name, "aie.use_lock")) {
      return AIE_ERR(L, op->line, op->col, "locks in a runtime DMA task are not lowered to "
                     "instructions (mlir-aie does not lower them either)");
    } else {
      return AIE_ERR(L, op->line, op->col, "'%.*s' in a DMA task's BD block is not lowered "
                     "(expected aie.dma_bd, aie.dma_bd_packet, aie.next_bd, aie.end)",
                     (int)op->name.len, op->name.s);
    }
    if (!open && k->bd == AIE_NONE)
      return AIE_ERR(L, op->line, op->col, "a BD block without an aie.dma_bd");
  }
  if (n == 0 || b[n - 1].bd == AIE_NONE) {
    const aie_op_t* body = aie_op(L, s->body);
    return AIE_ERR(L, body->line, body->col, "a BD block without an aie.dma_bd");
  }
  *out_n = n; /* a last block without a terminator ends the chain, as aie.end does */
  return NULL;
}

/* The `bd_id` attribute of a dma_bd, or -1. */
static air_status_t bd_id_attr(aie_lower_t* L, const site_t* s, uint32_t bd_op, int64_t* out) {
  const aie_op_t* op = aie_op(L, bd_op);
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  if (aie_cur_is(&c, AIR_TK_LPAREN)) AIR_RETURN_IF_ERROR(aie_cur_skip(&c));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  air_npu_tile_t kind = air_npu_tile_kind(s->row);
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "bd_id", false, -1, 0, air_npu_bd_count(kind) - 1, out));
  if (*out >= 0 && kind == AIR_NPU_TILE_MEM && (*out >= 24) != (s->channel % 2 == 1)) {
    const aie_attr_t* a = aie_attrs_find(&at, "bd_id");
    return AIE_ERR(L, a->line, a->col, "BD %lld is not reachable from mem-tile channel %u "
                   "(even channels use BDs 0-23, odd ones 24-47)", (long long)*out, s->channel);
  }
  return NULL;
}

air_status_t aie_task_reserve(aie_lower_t* L, uint32_t seq) {
  for (uint32_t i = aie_op(L, seq)->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    const aie_op_t* op = aie_op(L, i);
    if (!aie_span_is(op->name, "aiex.dma_configure_task_for") &&
        !aie_span_is(op->name, "aiex.dma_configure_task") &&
        !aie_span_is(op->name, "aiex.dma_start_bd_chain") &&
        !aie_span_is(op->name, "aiex.dma_start_bd_chain_for"))
      continue;
    site_t s;
    block_t b[MAX_BLOCKS];
    uint32_t n;
    AIR_RETURN_IF_ERROR(task_site(L, op, &s));
    AIR_RETURN_IF_ERROR(blocks(L, &s, b, &n));
    for (uint32_t k = 0; k < n; ++k) {
      int64_t id;
      AIR_RETURN_IF_ERROR(bd_id_attr(L, &s, b[k].bd, &id));
      if (id >= 0) L->bd_used[tile_slot(s.col, s.row)] |= 1ull << id;
    }
  }
  return NULL;
}

/* The lowest free BD id of the task's tile for its channel. */
static air_status_t take_bd(aie_lower_t* L, const site_t* s, const aie_op_t* op, uint32_t* out) {
  air_npu_tile_t kind = air_npu_tile_kind(s->row);
  uint32_t lo = 0, hi = air_npu_bd_count(kind);
  if (kind == AIR_NPU_TILE_MEM) {
    lo = s->channel % 2 ? 24 : 0;
    hi = lo + 24;
  }
  uint64_t* used = &L->bd_used[tile_slot(s->col, s->row)];
  for (uint32_t id = lo; id < hi; ++id)
    if (!(*used >> id & 1)) {
      *used |= 1ull << id;
      *out = id;
      return NULL;
    }
  return AIE_ERR(L, op->line, op->col, "no free BD id on tile (%u, %u) for channel %u: every "
                 "one is held by a task not yet freed (aiex.dma_free_task) or named by a BD",
                 s->col, s->row, s->channel);
}

/* A `[<k1 = v, k2 = v>, ...]` list at the cursor into up to 4 (a, b) pairs. */
static air_status_t pair_list(aie_lower_t* L, aie_cur_t* c, const char* k1, const char* k2,
                              uint64_t* a, uint64_t* b, uint32_t* out_n) {
  uint32_t n = 0;
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LSQUARE, "'['"));
  while (!aie_cur_accept(c, AIR_TK_RSQUARE)) {
    if (n == 4) return aie_cur_expected(c, "']' after at most 4 dimensions");
    AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LESS, "'<'"));
    a[n] = b[n] = 0;
    while (!aie_cur_accept(c, AIR_TK_GREATER)) {
      if (!aie_cur_is(c, AIR_TK_BARE)) return aie_cur_expected(c, k1);
      aie_span_t key = {c->tok.s, c->tok.len};
      if (!aie_span_is(key, k1) && !aie_span_is(key, k2)) return aie_cur_expected(c, k1);
      aie_cur_next(c);
      AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_EQUAL, "'='"));
      AIR_RETURN_IF_ERROR(aie_static_value(L, c, aie_span_is(key, k1) ? &a[n] : &b[n]));
      if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_GREATER))
        return aie_cur_expected(c, "',' or '>'");
    }
    ++n;
    if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_RSQUARE))
      return aie_cur_expected(c, "',' or ']'");
  }
  *out_n = n;
  return NULL;
}

/* What the BD's buffer operand is: a sequence argument or an aie.buffer. */
typedef struct bd_buf_t {
  const aie_value_t* arg;
  const aie_buffer_t* buf;
} bd_buf_t;

static air_status_t bd_buffer(aie_lower_t* L, const site_t* s, aie_cur_t* c, bd_buf_t* out) {
  if (!aie_cur_is(c, AIR_TK_PERCENT)) return aie_cur_expected(c, "the BD's buffer %name");
  aie_span_t name = aie_tok_name(&c->tok);
  for (uint32_t i = 0; i < s->n_params; ++i)
    if (aie_span_eq(s->params[i], name)) name = s->actuals[i];
  out->arg = aie_find_val(L, name);
  out->buf = out->arg ? NULL : aie_find_buffer(L, name, false);
  if (out->arg && out->arg->kind != AIE_VAL_MEMREF_ARG) out->arg = NULL;
  if (out->arg && out->arg->byte_off)
    return AIE_ERR(L, c->tok.line, c->tok.col, "a view of a sequence argument as a DMA task's "
                   "buffer is not lowered (use the argument and the BD's offset)");
  if (!out->arg && !out->buf)
    return AIE_ERR(L, c->tok.line, c->tok.col, "'%%%.*s' is neither a memref argument of the "
                   "runtime sequence nor an aie.buffer", (int)name.len, name.s);
  aie_cur_next(c);
  return NULL;
}

/* One BD: its words, then its address. */
static air_status_t lower_bd(aie_lower_t* L, const site_t* s, const block_t* b, uint32_t next) {
  const aie_op_t* op = aie_op(L, b->bd);
  air_npu_tile_t kind = air_npu_tile_kind(s->row);
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  uint32_t bl = c.tok.line, bc = c.tok.col;
  bd_buf_t buf = {NULL, NULL};
  AIR_RETURN_IF_ERROR(bd_buffer(L, s, &c, &buf));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COLON, "':' and the buffer's type"));
  uint32_t tl = c.tok.line, tc = c.tok.col, bits;
  bool is_int;
  uint64_t count;
  AIR_RETURN_IF_ERROR(aie_cur_memref(&c, &bits, &is_int, &count));
  if (bits == 0) return AIE_ERR(L, tl, tc, "the buffer's element type has no known width");
  air_npu_dims_t d;
  memset(&d, 0, sizeof d);
  d.elem_bits = bits;
  d.len = count;
  uint32_t field = 0;
  while (aie_cur_accept(&c, AIR_TK_COMMA)) {
    if (aie_cur_is(&c, AIR_TK_LSQUARE)) {
      uint64_t x[4], y[4];
      uint32_t n;
      if (field < 2) field = 2;
      if (field == 2) {
        AIR_RETURN_IF_ERROR(pair_list(L, &c, "size", "stride", x, y, &n));
        d.n_dims = n;
        memcpy(d.sizes, x, sizeof x);
        memcpy(d.strides, y, sizeof y);
      } else if (field == 3) {
        AIR_RETURN_IF_ERROR(pair_list(L, &c, "const_pad_before", "const_pad_after", x, y, &n));
        d.n_pads = n;
        memcpy(d.pad_before, x, sizeof x);
        memcpy(d.pad_after, y, sizeof y);
      } else {
        return aie_cur_expected(&c, "')'");
      }
      ++field;
    } else if (aie_cur_is(&c, AIR_TK_BARE)) { /* pad_value = V */
      aie_span_t key = {c.tok.s, c.tok.len};
      if (!aie_span_is(key, "pad_value")) return aie_cur_expected(&c, "pad_value");
      aie_cur_next(&c);
      AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_EQUAL, "'='"));
      uint32_t vl = c.tok.line, vc = c.tok.col;
      uint64_t v;
      AIR_RETURN_IF_ERROR(aie_static_value(L, &c, &v));
      if (v) return AIE_ERR(L, vl, vc, "a non-zero pad_value is not lowered to instructions");
    } else if (field < 2) {
      AIR_RETURN_IF_ERROR(aie_static_value(L, &c, field == 0 ? &d.offset : &d.len));
      ++field;
    } else {
      return aie_cur_expected(&c, "')'");
    }
  }
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "',' or ')'"));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  if (d.n_pads && (kind != AIR_NPU_TILE_MEM || s->dir != AIR_NPU_MM2S))
    return AIE_ERR(L, op->line, op->col, "padding is only for mem-tile MM2S BDs");
  air_npu_bd_t bd;
  air_npu_why_t why;
  if (!air_npu_dims_to_bd(&d, kind, &bd, why)) return AIE_ERR(L, op->line, op->col, "%s", why);
  if (d.offset + d.len > count && count)
    return AIE_ERR(L, op->line, op->col, "offset %llu + length %llu is past the buffer's %llu "
                   "elements", (unsigned long long)d.offset, (unsigned long long)d.len,
                   (unsigned long long)count);
  bd.bd_id = b->bd_id;
  int64_t v;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "burst_length", false, 0, 0, 512, &v));
  bd.burst_length = (uint32_t)v;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "next_bd_id", false, -1, 0,
                                    air_npu_bd_count(kind) - 1, &v));
  if (v >= 0 || next != UINT32_MAX) {
    bd.use_next_bd = 1;
    bd.next_bd = v >= 0 ? (uint32_t)v : next;
  }
  int32_t pt = s->pkt_type, pi = s->pkt_id;
  if (b->packet != AIE_NONE) { /* aie.dma_bd_packet(type, id) */
    aie_cur_t p;
    aie_cur_init(&p, L->m, aie_op(L, b->packet));
    int64_t t, i;
    AIR_RETURN_IF_ERROR(aie_cur_expect(&p, AIR_TK_LPAREN, "'('"));
    AIR_RETURN_IF_ERROR(aie_cur_int(&p, &t));
    AIR_RETURN_IF_ERROR(aie_cur_expect(&p, AIR_TK_COMMA, "','"));
    AIR_RETURN_IF_ERROR(aie_cur_int(&p, &i));
    if (t < 0 || t > 7 || i < 0 || i > 31)
      return AIE_ERR(L, p.tok.line, p.tok.col, "packet type 0..7 and id 0..31");
    pt = (int32_t)t;
    pi = (int32_t)i;
  }
  const aie_attr_t* pk = aie_attrs_find(&at, "packet");
  if (pk) {
    if (pk->kind != AIE_ATTR_PACKET || pk->i > 7 || pk->j > 31)
      return AIE_ERR(L, pk->line, pk->col, "packet must be <pkt_type = 0..7, pkt_id = 0..31>");
    pt = (int32_t)pk->i;
    pi = (int32_t)pk->j;
  }
  if (pi >= 0) {
    bd.enable_packet = 1;
    bd.packet_type = (uint32_t)pt;
    bd.packet_id = (uint32_t)pi;
  }
  /* Where the address goes, checked before anything is written. */
  uint64_t word_addr = 0;
  if (buf.arg && kind != AIR_NPU_TILE_SHIM)
    return AIE_ERR(L, bl, bc, "a runtime sequence argument (DDR) can only be the buffer of a "
                   "shim-tile BD");
  if (buf.buf) {
    const aie_tile_t* bt = &L->tiles[buf.buf->tile];
    if (kind != AIR_NPU_TILE_MEM || bt->row != s->row || bt->col + 1 < s->col || bt->col > s->col + 1)
      return AIE_ERR(L, bl, bc, "an aie.buffer can be the buffer of a mem-tile BD on its own tile "
                     "or a neighbour, not of this task's tile (%u, %u)", s->col, s->row);
    if (buf.buf->address < 0)
      return AIE_ERR(L, bl, bc, "the aie.buffer has no address (give it one, or run mlir-aie's "
                     "buffer-address assignment first)");
    uint64_t byte = (uint64_t)buf.buf->address + bd.buffer_offset;
    if (L->dev->arch == AIR_NPU_AIE2P) byte += bt->col < s->col ? 0 : bt->col == s->col ? 0x80000 : 0x100000;
    else if (bt->col != s->col)
      return AIE_ERR(L, bl, bc, "a neighbour's buffer on an AIE2 mem tile is not lowered");
    word_addr = byte / 4;
    if (word_addr > 0x7FFFF) return AIE_ERR(L, bl, bc, "buffer address 0x%llx is past the BD's "
                                            "19-bit word address", (unsigned long long)byte);
  }
  uint32_t w[8], bd_addr;
  if (!air_npu_bd_encode(L->dev, kind, &bd, w, why)) return AIE_ERR(L, op->line, op->col, "%s", why);
  air_npu_tile_addr(s->col, s->row, air_npu_bd_base(kind) + 0x20 * bd.bd_id, &bd_addr);
  air_txn_blockwrite(&L->txn, 0, 0, bd_addr, w, air_npu_bd_words(kind));
  uint32_t reg = bd_addr + air_npu_bd_addr_word_offset(kind);
  if (buf.arg)
    air_txn_ddr_patch(&L->txn, reg, buf.arg->memref_idx,
                      air_txn_patch_arg_plus(buf.arg->memref_idx, bd.buffer_offset, L->fold));
  else
    air_txn_maskwrite32(&L->txn, reg, (uint32_t)word_addr, 0x7FFFF);
  return NULL;
}

void aie_task_push(aie_lower_t* L, uint32_t col, uint32_t row, air_npu_dir_t dir,
                   uint32_t channel, uint32_t bd, uint32_t repeat, bool token) {
  air_npu_tile_t kind = air_npu_tile_kind(row);
  uint32_t ctrl;
  air_npu_tile_addr(col, row, air_npu_channel_ctrl(kind, dir, channel), &ctrl);
  const aie_tile_t* t = token ? aie_tile_at(L, col, row) : NULL;
  if (t && t->ctrl_pkt_id >= 0)
    air_txn_maskwrite32(&L->txn, ctrl, (uint32_t)t->ctrl_pkt_id << 8, 0x1F00);
  air_txn_write32(&L->txn, ctrl + 4, air_npu_queue_word(bd, repeat, token, kind));
}

air_status_t aie_task_configure(aie_lower_t* L, const aie_op_t* op) {
  site_t s;
  block_t b[MAX_BLOCKS];
  uint32_t n;
  AIR_RETURN_IF_ERROR(task_site(L, op, &s));
  AIR_RETURN_IF_ERROR(blocks(L, &s, b, &n));
  for (uint32_t k = 0; k < n; ++k) {
    int64_t id;
    AIR_RETURN_IF_ERROR(bd_id_attr(L, &s, b[k].bd, &id));
    if (id >= 0) {
      b[k].bd_id = (uint32_t)id;
      L->bd_used[tile_slot(s.col, s.row)] |= 1ull << id;
    } else {
      AIR_RETURN_IF_ERROR(take_bd(L, &s, aie_op(L, b[k].bd), &b[k].bd_id));
    }
  }
  aie_task_t task = {s.col, s.row, s.channel, s.dir, s.token, false, s.repeat, b[0].bd_id,
                     L->n_task_bds, n};
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t next = UINT32_MAX;
    if (b[k].next.len) {
      for (uint32_t j = 0; j < n; ++j)
        if (aie_span_eq(b[j].label, b[k].next)) next = b[j].bd_id;
      if (next == UINT32_MAX) {
        const aie_op_t* bo = aie_op(L, b[k].bd);
        return AIE_ERR(L, bo->line, bo->col, "the block's aie.next_bd names ^%.*s, which is not "
                       "a block of this task", (int)b[k].next.len, b[k].next.s);
      }
    }
    AIR_RETURN_IF_ERROR(lower_bd(L, &s, &b[k], next));
    AIR_RETURN_IF_ERROR(AIE_PUSH(L, task_bds, &b[k].bd_id));
  }
  AIR_RETURN_IF_ERROR(AIE_PUSH(L, tasks, &task));
  if (op->result.len) {
    aie_value_t v;
    memset(&v, 0, sizeof v);
    v.name = op->result;
    v.kind = AIE_VAL_TASK;
    v.ref = L->n_tasks - 1;
    AIR_RETURN_IF_ERROR(AIE_PUSH(L, vals, &v));
  }
  if (s.start) aie_task_push(L, s.col, s.row, s.dir, s.channel, task.first_bd, s.repeat, s.token);
  return NULL;
}

air_status_t aie_task_use(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'(' and the task"));
  if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "the task %name");
  const aie_value_t* v = aie_find_val(L, aie_tok_name(&c.tok));
  if (!v || v->kind != AIE_VAL_TASK)
    return AIE_ERR(L, c.tok.line, c.tok.col, "'%%%.*s' is not a DMA task configured earlier in "
                   "the sequence", (int)c.tok.name_len, c.tok.name);
  aie_task_t* t = &L->tasks[v->ref];
  if (t->freed)
    return AIE_ERR(L, op->line, op->col, "the task was freed by an earlier aiex.dma_free_task");
  if (aie_span_is(op->name, "aiex.dma_start_task")) {
    aie_task_push(L, t->col, t->row, t->dir, t->channel, t->first_bd, t->repeat, t->token);
  } else if (aie_span_is(op->name, "aiex.dma_await_task")) {
    if (!t->token)
      return AIE_ERR(L, op->line, op->col, "cannot wait on a task configured without "
                     "issue_token = true (it issues no completion token: the wait would hang)");
    air_txn_sync(&L->txn, (uint8_t)t->col, (uint8_t)t->row, t->dir == AIR_NPU_MM2S ? 1 : 0,
                 (uint8_t)t->channel, 1, 1);
  } else { /* dma_free_task */
    for (uint32_t k = 0; k < t->bd_n; ++k)
      L->bd_used[tile_slot(t->col, t->row)] &= ~(1ull << L->task_bds[t->bd_lo + k]);
    t->freed = true;
  }
  return NULL;
}

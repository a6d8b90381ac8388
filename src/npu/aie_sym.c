/* aie_sym.c - symbol tables of an mlir-aie device module (see aie_sym.h).
 *
 * Objectfifo allocations. A module straight from IRON or a hand-written design
 * names objectfifos where the lowered module names shim DMA allocations
 * (`metadata = @of`, `dma_configure_task_for @of`, `dma_wait {symbol = @of}`).
 * mlir-aie's objectfifo lowering gives each objectfifo with a shim end one
 * allocation under the fifo's own name: the shim tile, MM2S when the shim
 * produces, S2MM when it consumes, and the lowest channel of that tile and
 * direction not yet taken, objectfifos taken in the order they are written,
 * after the channels that explicit allocations and aie.shim_dma blocks use. This
 * reader applies the same rule; an explicit allocation of the same name wins. */
#include "npu/aie_sym.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

air_status_t aie_push(aie_lower_t* L, void** data, uint32_t* n, uint32_t* cap, size_t elem,
                      const void* item) {
  if (!air_mem_grow(L->a, data, cap, (size_t)*n + 1, elem))
    return AIR_STATUS_OOM(L->a, "mlir-aie symbol table");
  memcpy((char*)*data + (size_t)(*n)++ * elem, item, elem);
  return NULL;
}

const aie_value_t* aie_find_val(const aie_lower_t* L, aie_span_t name) {
  for (uint32_t i = L->n_vals; i-- > 0;)
    if (aie_span_eq(L->vals[i].name, name)) return &L->vals[i];
  return NULL;
}

const aie_tile_t* aie_tile_at(const aie_lower_t* L, uint32_t col, uint32_t row) {
  for (uint32_t i = 0; i < L->n_tiles; ++i)
    if (L->tiles[i].col == col && L->tiles[i].row == row) return &L->tiles[i];
  return NULL;
}

const aie_tile_t* aie_find_tile(const aie_lower_t* L, aie_span_t name) {
  for (uint32_t i = 0; i < L->n_tiles; ++i)
    if (aie_span_eq(L->tiles[i].name, name)) return &L->tiles[i];
  return NULL;
}

const aie_buffer_t* aie_find_buffer(const aie_lower_t* L, aie_span_t name, bool by_sym) {
  for (uint32_t i = 0; i < L->n_buffers; ++i)
    if (name.len && aie_span_eq(by_sym ? L->buffers[i].sym : L->buffers[i].name, name))
      return &L->buffers[i];
  return NULL;
}

const aie_lock_t* aie_find_lock(const aie_lower_t* L, aie_span_t name) {
  for (uint32_t i = 0; i < L->n_locks; ++i)
    if (name.len && aie_span_eq(L->locks[i].name, name)) return &L->locks[i];
  return NULL;
}

air_status_t aie_attr_u32(aie_lower_t* L, const aie_attrs_t* at, const char* key, bool required,
                          bool word, uint32_t* out) {
  int64_t v;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, key, required, 0, word ? INT32_MIN : 0,
                                    UINT32_MAX, &v));
  *out = (uint32_t)v;
  return NULL;
}

air_status_t aie_op_address(aie_lower_t* L, const aie_attrs_t* at, const char* key,
                            uint32_t* out) {
  uint32_t addr;
  AIR_RETURN_IF_ERROR(aie_attr_u32(L, at, key, true, false, &addr));
  const aie_attr_t* c = aie_attrs_find(at, "column");
  const aie_attr_t* r = aie_attrs_find(at, "row");
  if (!c && !r) {
    *out = addr;
    return NULL;
  }
  if (!c || !r) return AIE_ERR(L, at->line, at->col, "'column' and 'row' go together");
  int64_t col, row;
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "column", true, 0, 0, L->dev->cols - 1, &col));
  AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, at, "row", true, 0, 0, L->dev->rows - 1, &row));
  const aie_attr_t* k = aie_attrs_find(at, key);
  if (!air_npu_tile_addr((uint32_t)col, (uint32_t)row, addr, out))
    return AIE_ERR(L, k->line, k->col, "%s 0x%x is past a tile's 20-bit register space", key,
                   addr);
  return NULL;
}

air_status_t aie_op_attrs(aie_lower_t* L, aie_cur_t* c, const aie_op_t* op, aie_attrs_t* at) {
  (void)L;
  while (!aie_cur_is(c, AIR_TK_EOF) && !aie_cur_is(c, AIR_TK_LBRACE))
    AIR_RETURN_IF_ERROR(aie_cur_skip(c));
  if (aie_cur_is(c, AIR_TK_LBRACE)) return aie_cur_attrs(c, at);
  at->n = 0;
  at->line = op->line;
  at->col = op->col;
  return NULL;
}

air_status_t aie_static_value(aie_lower_t* L, aie_cur_t* c, uint64_t* out) {
  if (aie_cur_is(c, AIR_TK_PERCENT)) {
    const aie_value_t* v = aie_find_val(L, aie_tok_name(&c->tok));
    if (!v || v->kind != AIE_VAL_CONST)
      return AIE_ERR(L, c->tok.line, c->tok.col, "'%%%.*s' is not a constant: only static sizes, "
                     "strides and offsets are lowered", (int)c->tok.name_len, c->tok.name);
    if (v->v < 0) return AIE_ERR(L, c->tok.line, c->tok.col, "negative value %lld", (long long)v->v);
    *out = (uint64_t)v->v;
    aie_cur_next(c);
    return NULL;
  }
  int64_t i;
  uint32_t line = c->tok.line, col = c->tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_int(c, &i));
  if (i < 0) return AIE_ERR(L, line, col, "negative value %lld", (long long)i);
  *out = (uint64_t)i;
  return NULL;
}

air_status_t aie_parse_dir(aie_lower_t* L, aie_cur_t* c, air_npu_dir_t* out) {
  (void)L;
  if (aie_cur_is(c, AIR_TK_BARE)) {
    aie_span_t s = {c->tok.s, c->tok.len};
    if (aie_span_is(s, "MM2S") || aie_span_is(s, "S2MM")) {
      *out = aie_span_is(s, "MM2S") ? AIR_NPU_MM2S : AIR_NPU_S2MM;
      aie_cur_next(c);
      return NULL;
    }
  }
  return aie_cur_expected(c, "MM2S or S2MM");
}

uint32_t aie_find_symbol_op(const aie_lower_t* L, const char* name, aie_span_t sym) {
  for (uint32_t i = aie_op(L, L->device_op)->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    if (!aie_span_is(aie_op(L, i)->name, name)) continue;
    aie_cur_t c;
    aie_cur_init(&c, L->m, aie_op(L, i));
    while (!aie_cur_is(&c, AIR_TK_EOF) && !aie_cur_is(&c, AIR_TK_AT)) aie_cur_next(&c);
    if (aie_cur_is(&c, AIR_TK_AT) && aie_span_eq(aie_tok_name(&c.tok), sym)) return i;
  }
  return AIE_NONE;
}

/*--- device-level ops ------------------------------------------------------------*/

/* `(%tile` at the cursor: the tile, or a located error. */
static air_status_t tile_operand(aie_lower_t* L, aie_cur_t* c, uint32_t* out) {
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(c, AIR_TK_PERCENT)) return aie_cur_expected(c, "a tile %name");
  const aie_tile_t* t = aie_find_tile(L, aie_tok_name(&c->tok));
  if (!t) return AIE_ERR(L, c->tok.line, c->tok.col, "'%%%.*s' is not an aie.tile of this device",
                         (int)c->tok.name_len, c->tok.name);
  *out = (uint32_t)(t - L->tiles);
  aie_cur_next(c);
  return NULL;
}

static air_status_t collect_tile(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  int64_t col, row;
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &col));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
  AIR_RETURN_IF_ERROR(aie_cur_int(&c, &row));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  if (col < 0 || col >= L->dev->cols || row < 0 || row >= L->dev->rows)
    return AIE_ERR(L, op->line, op->col, "tile (%lld, %lld) is outside %s (%u columns, %u rows)",
                   (long long)col, (long long)row, L->dev->name, L->dev->cols, L->dev->rows);
  aie_tile_t t = {op->result, (uint32_t)col, (uint32_t)row, -1};
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  const aie_attr_t* ctrl = aie_attrs_find(&at, "controller_id");
  if (ctrl) {
    if (ctrl->kind != AIE_ATTR_PACKET || ctrl->j > 31)
      return AIE_ERR(L, ctrl->line, ctrl->col, "controller_id must be a packet info with pkt_id <= 31");
    t.ctrl_pkt_id = (int32_t)ctrl->j;
  }
  return AIE_PUSH(L, tiles, &t);
}

/* `@sym(DIR, channel, column)` (older) or `@sym(%tile, DIR, channel)`. */
static air_status_t collect_alloc(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  if (!aie_cur_is(&c, AIR_TK_AT)) return aie_cur_expected(&c, "the allocation's @symbol");
  aie_alloc_t al = {aie_tok_name(&c.tok), 0, 0, 0, AIR_NPU_MM2S, -1, -1};
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  int64_t ch, col = -1;
  uint32_t line = c.tok.line, ccol = c.tok.col;
  if (aie_cur_is(&c, AIR_TK_PERCENT)) {
    const aie_tile_t* t = aie_find_tile(L, aie_tok_name(&c.tok));
    if (!t) return AIE_ERR(L, line, ccol, "'%%%.*s' is not an aie.tile of this device",
                           (int)c.tok.name_len, c.tok.name);
    if (t->row != AIR_NPU_SHIM_ROW)
      return AIE_ERR(L, line, ccol, "a shim DMA allocation needs a shim tile (row 0), not row %u",
                     t->row);
    col = t->col;
    aie_cur_next(&c);
    AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
    AIR_RETURN_IF_ERROR(aie_parse_dir(L, &c, &al.dir));
    AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
    line = c.tok.line, ccol = c.tok.col;
    AIR_RETURN_IF_ERROR(aie_cur_int(&c, &ch));
  } else {
    AIR_RETURN_IF_ERROR(aie_parse_dir(L, &c, &al.dir));
    AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
    line = c.tok.line, ccol = c.tok.col;
    AIR_RETURN_IF_ERROR(aie_cur_int(&c, &ch));
    AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_COMMA, "','"));
    uint32_t l2 = c.tok.line, c2 = c.tok.col;
    AIR_RETURN_IF_ERROR(aie_cur_int(&c, &col));
    if (col < 0 || col >= L->dev->cols)
      return AIE_ERR(L, l2, c2, "column %lld is outside %s (columns 0..%u)", (long long)col,
                     L->dev->name, L->dev->cols - 1);
  }
  if (ch < 0 || ch >= 2)
    return AIE_ERR(L, line, ccol, "shim DMA channel %lld: a shim tile has channels 0 and 1",
                   (long long)ch);
  al.channel = (uint32_t)ch;
  al.col = (uint32_t)col;
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  const aie_attr_t* pk = aie_attrs_find(&at, "packet");
  if (pk) {
    if (pk->kind != AIE_ATTR_PACKET || pk->i > 7 || pk->j > 31)
      return AIE_ERR(L, pk->line, pk->col, "packet must be <pkt_type = 0..7, pkt_id = 0..31>");
    al.pkt_type = (int32_t)pk->i;
    al.pkt_id = (int32_t)pk->j;
  }
  return AIE_PUSH(L, allocs, &al);
}

/* `%b = aie.buffer(%tile) {address = A, sym_name = "s"} : memref<...>`. */
static air_status_t collect_buffer(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_buffer_t b = {op->result, {"", 0}, 0, -1};
  AIR_RETURN_IF_ERROR(tile_operand(L, &c, &b.tile));
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  aie_attrs_t at;
  AIR_RETURN_IF_ERROR(aie_op_attrs(L, &c, op, &at));
  const aie_attr_t* sn = aie_attrs_find(&at, "sym_name");
  if (sn && sn->kind == AIE_ATTR_STR && sn->sym.len >= 2) {
    b.sym.s = sn->sym.s + 1;
    b.sym.len = sn->sym.len - 2;
  }
  if (aie_attrs_find(&at, "address"))
    AIR_RETURN_IF_ERROR(aie_attrs_int(L->m, &at, "address", true, 0, 0, 0x7FFFF, &b.address));
  return AIE_PUSH(L, buffers, &b);
}

/* `%l = aie.lock(%tile, ID) {...}`; the id may be left to mlir-aie's pass. */
static air_status_t collect_lock(aie_lower_t* L, const aie_op_t* op) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  aie_lock_t k = {op->result, {"", 0}, 0, -1};
  AIR_RETURN_IF_ERROR(tile_operand(L, &c, &k.tile));
  if (aie_cur_accept(&c, AIR_TK_COMMA)) {
    uint32_t line = c.tok.line, col = c.tok.col;
    AIR_RETURN_IF_ERROR(aie_cur_int(&c, &k.id));
    uint32_t row = L->tiles[k.tile].row;
    int64_t max = air_npu_tile_kind(row) == AIR_NPU_TILE_MEM ? 63 : 15;
    if (k.id < 0 || k.id > max)
      return AIE_ERR(L, line, col, "lock id %lld: the tile has locks 0..%lld", (long long)k.id,
                     (long long)max);
  }
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_RPAREN, "')'"));
  return AIE_PUSH(L, locks, &k);
}

/*--- objectfifo allocations -------------------------------------------------------*/

/* Channels of each shim column and direction already taken (bit = channel). */
typedef struct chan_use_t {
  uint8_t used[8][2];
} chan_use_t;

/* Channels `aie.shim_dma(%tile) { aie.dma_start(DIR, ch, ...) }` uses. */
static air_status_t shim_dma_channels(aie_lower_t* L, const aie_op_t* op, chan_use_t* u) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  uint32_t t;
  AIR_RETURN_IF_ERROR(tile_operand(L, &c, &t));
  for (uint32_t i = op->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    if (!aie_span_is(aie_op(L, i)->name, "aie.dma_start")) continue;
    aie_cur_t d;
    aie_cur_init(&d, L->m, aie_op(L, i));
    air_npu_dir_t dir = AIR_NPU_S2MM; /* set below; gcc -O3 cannot see through the early returns */
    int64_t ch = -1;
    AIR_RETURN_IF_ERROR(aie_cur_expect(&d, AIR_TK_LPAREN, "'('"));
    AIR_RETURN_IF_ERROR(aie_parse_dir(L, &d, &dir));
    AIR_RETURN_IF_ERROR(aie_cur_expect(&d, AIR_TK_COMMA, "','"));
    AIR_RETURN_IF_ERROR(aie_cur_int(&d, &ch));
    if (ch >= 0 && ch < 8 && L->tiles[t].col < 8) u->used[L->tiles[t].col][dir] |= (uint8_t)(1u << ch);
  }
  return NULL;
}

static bool has_alloc(const aie_lower_t* L, aie_span_t sym) {
  for (uint32_t i = 0; i < L->n_allocs; ++i)
    if (aie_span_eq(L->allocs[i].sym, sym)) return true;
  return false;
}

/* One shim end of objectfifo `sym` on tile `t`. */
static air_status_t fifo_end(aie_lower_t* L, const aie_op_t* op, aie_span_t sym, uint32_t t,
                             air_npu_dir_t dir, chan_use_t* u) {
  const aie_tile_t* tile = &L->tiles[t];
  if (tile->row != AIR_NPU_SHIM_ROW) return NULL;
  uint8_t* used = &u->used[tile->col][dir];
  uint32_t ch = 0;
  while (ch < 2 && (*used >> ch & 1)) ++ch;
  if (ch == 2)
    return AIE_ERR(L, op->line, op->col, "objectfifo @%.*s needs a %s channel of the shim tile in "
                   "column %u, and both are taken", (int)sym.len, sym.s,
                   dir == AIR_NPU_MM2S ? "MM2S" : "S2MM", tile->col);
  *used |= (uint8_t)(1u << ch);
  aie_alloc_t al = {sym, tile->col, 0, ch, dir, -1, -1};
  return AIE_PUSH(L, allocs, &al);
}

/* `aie.objectfifo @of(%prod [dims], {%c1 [dims], %c2}, depth) ...`. */
static air_status_t collect_fifo(aie_lower_t* L, const aie_op_t* op, chan_use_t* u) {
  aie_cur_t c;
  aie_cur_init(&c, L->m, op);
  if (!aie_cur_is(&c, AIR_TK_AT)) return aie_cur_expected(&c, "the objectfifo's @name");
  aie_span_t sym = aie_tok_name(&c.tok);
  aie_cur_next(&c);
  if (has_alloc(L, sym)) return NULL; /* already lowered: the written allocation wins */
  /* A fifo whose tiles are not aie.tile ops of this device has no shim end this
   * reader can place; a lookup of it says so. */
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LPAREN, "'('"));
  if (!aie_cur_is(&c, AIR_TK_PERCENT)) return aie_cur_expected(&c, "the producer tile");
  const aie_tile_t* pt = aie_find_tile(L, aie_tok_name(&c.tok));
  if (!pt) return NULL;
  uint32_t prod = (uint32_t)(pt - L->tiles);
  aie_cur_next(&c);
  while (!aie_cur_is(&c, AIR_TK_COMMA)) { /* dimensionsToStream [...] */
    if (aie_cur_is(&c, AIR_TK_EOF)) return aie_cur_expected(&c, "',' and the consumer tiles");
    AIR_RETURN_IF_ERROR(aie_cur_skip(&c));
  }
  aie_cur_next(&c);
  AIR_RETURN_IF_ERROR(aie_cur_expect(&c, AIR_TK_LBRACE, "'{' and the consumer tiles"));
  uint32_t cons[16], n_cons = 0;
  while (!aie_cur_accept(&c, AIR_TK_RBRACE)) {
    if (aie_cur_is(&c, AIR_TK_EOF)) return aie_cur_expected(&c, "'}'");
    if (aie_cur_is(&c, AIR_TK_PERCENT)) {
      const aie_tile_t* t = aie_find_tile(L, aie_tok_name(&c.tok));
      if (!t) return NULL;
      if (n_cons == 16) return AIE_ERR(L, c.tok.line, c.tok.col, "more than 16 consumers");
      cons[n_cons++] = (uint32_t)(t - L->tiles);
      aie_cur_next(&c);
      continue;
    }
    AIR_RETURN_IF_ERROR(aie_cur_skip(&c));
  }
  AIR_RETURN_IF_ERROR(fifo_end(L, op, sym, prod, AIR_NPU_MM2S, u));
  for (uint32_t i = 0; i < n_cons; ++i)
    AIR_RETURN_IF_ERROR(fifo_end(L, op, sym, cons[i], AIR_NPU_S2MM, u));
  return NULL;
}

air_status_t aie_sym_collect(aie_lower_t* L) {
  const aie_op_t* dev = aie_op(L, L->device_op);
  for (uint32_t i = dev->first_child; i != AIE_NONE; i = aie_op(L, i)->next) {
    const aie_op_t* op = aie_op(L, i);
    if (aie_span_is(op->name, "aie.tile")) AIR_RETURN_IF_ERROR(collect_tile(L, op));
    else if (aie_span_is(op->name, "aie.shim_dma_allocation")) AIR_RETURN_IF_ERROR(collect_alloc(L, op));
    else if (aie_span_is(op->name, "aie.buffer")) AIR_RETURN_IF_ERROR(collect_buffer(L, op));
    else if (aie_span_is(op->name, "aie.lock")) AIR_RETURN_IF_ERROR(collect_lock(L, op));
  }
  chan_use_t u;
  memset(&u, 0, sizeof u);
  for (uint32_t i = 0; i < L->n_allocs; ++i)
    u.used[L->allocs[i].col][L->allocs[i].dir] |= (uint8_t)(1u << L->allocs[i].channel);
  for (uint32_t i = dev->first_child; i != AIE_NONE; i = aie_op(L, i)->next)
    if (aie_span_is(aie_op(L, i)->name, "aie.shim_dma"))
      AIR_RETURN_IF_ERROR(shim_dma_channels(L, aie_op(L, i), &u));
  for (uint32_t i = dev->first_child; i != AIE_NONE; i = aie_op(L, i)->next)
    if (aie_span_is(aie_op(L, i)->name, "aie.objectfifo"))
      AIR_RETURN_IF_ERROR(collect_fifo(L, aie_op(L, i), &u));
  return NULL;
}

void aie_sym_free(aie_lower_t* L) {
  air_mem_free(L->a, L->tiles);
  air_mem_free(L->a, L->allocs);
  air_mem_free(L->a, L->buffers);
  air_mem_free(L->a, L->locks);
  air_mem_free(L->a, L->vals);
  air_mem_free(L->a, L->tasks);
  air_mem_free(L->a, L->task_bds);
}

air_status_t aie_lookup_alloc(aie_lower_t* L, const aie_attr_t* at, const aie_alloc_t** out) {
  for (uint32_t i = 0; i < L->n_allocs; ++i)
    if (aie_span_eq(L->allocs[i].sym, at->sym)) {
      *out = &L->allocs[i];
      return NULL;
    }
  if (aie_find_symbol_op(L, "aie.objectfifo", at->sym) != AIE_NONE)
    return AIE_ERR(L, at->line, at->col, "objectfifo @%.*s has no shim end (no end on a shim "
                   "aie.tile of this device), so no shim DMA allocation", (int)at->sym.len, at->sym.s);
  return AIE_ERR(L, at->line, at->col, "no aie.shim_dma_allocation named @%.*s in this device",
                 (int)at->sym.len, at->sym.s);
}

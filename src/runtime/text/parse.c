/* parse.c - AIR text -> IR: the entry point, the module, regions and the op
 * dispatcher, plus the token and scratch helpers the other parse_*.c files use
 * (see parse_internal.h for the layout of the parser). */
#include "runtime/text/parse.h"

#include <stdio.h>
#include <string.h>

#include "runtime/text/parse_internal.h"

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

void air_parse_next(air_parser_t* P) { air_lex_next(&P->lx, &P->tok); }

air_token_t air_parse_peek(air_parser_t* P) {
  air_lexer_t save = P->lx;
  air_token_t t;
  air_lex_next(&P->lx, &t);
  P->lx = save;
  return t;
}

bool air_parse_accept(air_parser_t* P, air_tk_t kind) {
  if (P->tok.kind != kind) return false;
  air_parse_next(P);
  return true;
}

bool air_parse_is_kw(const air_parser_t* P, const char* kw) {
  size_t n = strlen(kw);
  return P->tok.kind == AIR_TK_BARE && P->tok.len == n && memcmp(P->tok.s, kw, n) == 0;
}

bool air_parse_accept_kw(air_parser_t* P, const char* kw) {
  if (!air_parse_is_kw(P, kw)) return false;
  air_parse_next(P);
  return true;
}

static const char* tokdesc(air_parser_t* P) {
  const air_token_t* t = &P->tok;
  if (t->kind == AIR_TK_EOF) return "end of input";
  char* d = P->desc;
  size_t o = 0;
  uint32_t n = 0;
  d[o++] = '\'';
  /* Room is kept for an escape (4), "..." (3), the quote and the NUL. */
  for (; n < t->len && n < 40 && o + 9 < sizeof P->desc; ++n) {
    unsigned char c = (unsigned char)t->s[n];
    if (c >= 0x20 && c < 0x7f) {
      d[o++] = (char)c;
    } else {
      snprintf(d + o, 5, "\\x%02x", c);
      o += 4;
    }
  }
  if (n < t->len) {
    memcpy(d + o, "...", 3);
    o += 3;
  }
  d[o++] = '\'';
  d[o] = 0;
  return d;
}

air_status_t air_parse_fail(air_parser_t* P, const char* what) {
  if (P->tok.kind == AIR_TK_ERROR) {
    if (strcmp(P->tok.err, "unexpected character") == 0)
      return PERR_TOK(P, "unexpected character %s", tokdesc(P));
    return PERR_TOK(P, "%s", P->tok.err);
  }
  return PERR_TOK(P, "expected %s, found %s", what, tokdesc(P));
}

air_status_t air_parse_expect(air_parser_t* P, air_tk_t kind, const char* what) {
  if (air_parse_accept(P, kind)) return NULL;
  return air_parse_fail(P, what);
}

air_status_t air_parse_expect_kw(air_parser_t* P, const char* kw) {
  if (air_parse_accept_kw(P, kw)) return NULL;
  char what[64];
  snprintf(what, sizeof what, "'%s'", kw);
  return air_parse_fail(P, what);
}

air_status_t air_parse_oom(air_parser_t* P) {
  return AIR_IR_ERROR(P->p, AIR_STATUS_RESOURCE_EXHAUSTED, P->tok.line, P->tok.col,
                      "out of memory while parsing");
}

/*---------------------------------------------------------------------------*/
/* Scratch stacks                                                            */
/*---------------------------------------------------------------------------*/

bool air_parse_grow(air_parser_t* P, void** data, uint32_t* cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t c = *cap ? *cap : 64;
  while (c < need) {
    if (c > UINT32_MAX / 2) return false;
    c *= 2;
  }
  void* d = P->p->allocator.realloc(P->p->allocator.self, *data, (size_t)c * elem);
  if (!d) return false;
  *data = d;
  *cap = c;
  return true;
}

air_status_t air_parse_push_ref(air_parser_t* P, const air_pref_t* r) {
  if (!air_parse_grow(P, (void**)&P->refs, &P->cap_refs, P->n_refs + 1, sizeof(*r)))
    return air_parse_oom(P);
  P->refs[P->n_refs++] = *r;
  return NULL;
}

air_status_t air_parse_push_ty(air_parser_t* P, air_tid_t t) {
  if (!air_parse_grow(P, (void**)&P->tys, &P->cap_tys, P->n_tys + 1, sizeof(t)))
    return air_parse_oom(P);
  P->tys[P->n_tys++] = t;
  return NULL;
}

air_status_t air_parse_push_ix(air_parser_t* P, air_vid_t v, int64_t cst) {
  if (!air_parse_grow(P, (void**)&P->ixs, &P->cap_ixs, P->n_ixs + 1, sizeof(air_ix_t)))
    return air_parse_oom(P);
  P->ixs[P->n_ixs].value = v;
  P->ixs[P->n_ixs].cst = cst;
  P->n_ixs++;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Operands                                                                  */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_ref(air_parser_t* P, air_pref_t* out) {
  if (P->tok.kind != AIR_TK_PERCENT) return air_parse_fail(P, "a value ('%name')");
  out->s = P->tok.name;
  out->len = P->tok.name_len;
  out->num = P->tok.resno;
  out->line = P->tok.line;
  out->col = P->tok.col;
  air_parse_next(P);
  return NULL;
}

air_status_t air_parse_binds(air_parser_t* P, air_pbinds_t* out) {
  out->base = P->n_refs;
  out->n = out->total = 0;
  do {
    if (P->tok.kind != AIR_TK_PERCENT) return air_parse_fail(P, "a result name");
    if (P->tok.resno >= 0)
      return PERR_TOK(P, "a result name cannot carry a result number ('#%d')", P->tok.resno);
    air_pref_t r;
    TRY(air_parse_ref(P, &r));
    r.num = 1;
    if (air_parse_accept(P, AIR_TK_COLON)) {
      if (P->tok.kind != AIR_TK_INT || P->tok.overflow || P->tok.u == 0 || P->tok.u > 4096)
        return air_parse_fail(P, "a result count (1 to 4096) after ':'");
      r.num = (int32_t)P->tok.u;
      air_parse_next(P);
    }
    TRY(air_parse_push_ref(P, &r));
    out->n++;
    out->total += (uint32_t)r.num;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return NULL;
}

air_status_t air_parse_operand(air_parser_t* P, air_tid_t type, air_vid_t* out) {
  air_pref_t r;
  TRY(air_parse_ref(P, &r));
  return air_parse_use(P, &r, type, out);
}

air_status_t air_parse_ixlist(air_parser_t* P, air_ixlist_t* out) {
  TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin an index list"));
  uint32_t mark = P->n_ixs;
  if (!air_parse_accept(P, AIR_TK_RSQUARE)) {
    do {
      if (P->tok.kind == AIR_TK_PERCENT) {
        air_vid_t v;
        TRY(air_parse_operand(P, P->t_index, &v));
        TRY(air_parse_push_ix(P, v, 0));
        continue;
      }
      bool neg = air_parse_accept(P, AIR_TK_MINUS);
      if (P->tok.kind != AIR_TK_INT) return air_parse_fail(P, "a value or an integer");
      if (P->tok.overflow || P->tok.u > (uint64_t)INT64_MAX)
        return PERR_TOK(P, "integer literal is out of range");
      TRY(air_parse_push_ix(P, 0, neg ? -(int64_t)P->tok.u : (int64_t)P->tok.u));
      air_parse_next(P);
    } while (air_parse_accept(P, AIR_TK_COMMA));
    TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' in an index list"));
  }
  uint32_t n = P->n_ixs - mark;
  if (!air_ir_list_init(P->p, out, n)) return air_parse_oom(P);
  if (n) memcpy(out->items, P->ixs + mark, n * sizeof(air_ix_t));
  P->n_ixs = mark;
  return NULL;
}

air_status_t air_parse_toklist(air_parser_t* P, air_vlist_t* list) {
  TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin a token list"));
  uint32_t mark = P->n_ixs;
  if (!air_parse_accept(P, AIR_TK_RSQUARE)) {
    do {
      air_vid_t v;
      if (P->tok.kind != AIR_TK_PERCENT) return air_parse_fail(P, "a token value");
      TRY(air_parse_operand(P, P->t_token, &v));
      TRY(air_parse_push_ix(P, v, 0));
    } while (air_parse_accept(P, AIR_TK_COMMA));
    TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' in a token list"));
  }
  uint32_t n = P->n_ixs - mark, old = list->n;
  if (n) {
    air_vid_t* items = air_ir_alloc(P->p, (old + n) * sizeof(air_vid_t));
    if (!items) return air_parse_oom(P);
    if (old) memcpy(items, list->items, old * sizeof(air_vid_t));
    for (uint32_t i = 0; i < n; ++i) items[old + i] = P->ixs[mark + i].value;
    list->items = items;
    list->n = old + n;
  }
  P->n_ixs = mark;
  return NULL;
}

air_status_t air_parse_ref_list(air_parser_t* P, air_tk_t close, uint32_t* n) {
  *n = 0;
  if (close != AIR_TK_EOF && air_parse_accept(P, close)) return NULL;
  do {
    air_pref_t r;
    TRY(air_parse_ref(P, &r));
    TRY(air_parse_push_ref(P, &r));
    ++*n;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  if (close == AIR_TK_EOF) return NULL;
  return air_parse_expect(P, close, close == AIR_TK_RPAREN ? "',' or ')' after the operands"
                                                           : "',' or ']' after the operands");
}

air_status_t air_parse_resolve(air_parser_t* P, uint32_t base, uint32_t n, uint32_t tbase,
                               air_tid_t type, air_vid_t* dst) {
  for (uint32_t i = 0; i < n; ++i) {
    air_pref_t r = P->refs[base + i];
    TRY(air_parse_use(P, &r, tbase == UINT32_MAX ? type : P->tys[tbase + i], &dst[i]));
  }
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Attributes on ops                                                         */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_flush_attrs(air_parser_t* P, air_op_t* op, uint32_t mark) {
  uint32_t add = P->n_nattrs - mark;
  if (!add) return NULL;
  air_named_attr_t* a = air_ir_alloc(P->p, (op->n_attrs + add) * sizeof(*a));
  if (!a) return air_parse_oom(P);
  uint32_t n = op->n_attrs;
  if (n) memcpy(a, op->attrs, n * sizeof(*a));
  for (uint32_t k = mark; k < P->n_nattrs; ++k) {
    uint32_t i = 0;
    while (i < n && strcmp(a[i].name, P->nattrs[k].name) != 0) ++i;
    a[i] = P->nattrs[k];
    if (i == n) ++n;
  }
  op->attrs = a;
  op->n_attrs = n;
  P->n_nattrs = mark;
  return NULL;
}

air_status_t air_parse_opt_attr_dict(air_parser_t* P) {
  if (P->tok.kind != AIR_TK_LBRACE) return NULL;
  return air_parse_dict_entries(P);
}

air_status_t air_parse_skip_op_flags(air_parser_t* P) {
  while (air_parse_is_kw(P, "overflow") || air_parse_is_kw(P, "fastmath")) {
    size_t at = (size_t)(P->tok.s - P->lx.text) + P->tok.len, end;
    if (at >= P->lx.len || P->lx.text[at] != '<') return NULL;
    if (!air_lex_balanced_end(&P->lx, at, &end))
      return PERR_TOK(P, "unbalanced '<' after '%.*s'", (int)P->tok.len, P->tok.s);
    air_lex_advance(&P->lx, end);
    air_parse_next(P);
  }
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Ops and results                                                           */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_new_op(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, uint32_t n_operands,
                              uint32_t n_results, uint32_t n_regions, uint32_t n_lists,
                              air_op_t** out) {
  air_op_t* last = blk->last;
  if (last && air_opkind_class(last->kind) == AIR_OPC_TERMINATOR)
    return PERR(P, at->line, at->col, "operation '%s' after the terminator '%s' (%u:%u)",
                air_opkind_name(kind), air_opkind_name(last->kind), last->line, last->col);
  air_op_t* op = air_ir_op_new(P->p, kind, at->line, at->col, n_operands, n_results,
                               n_regions, n_lists);
  if (!op) return air_parse_oom(P);
  air_ir_block_append(blk, op);
  *out = op;
  return NULL;
}

air_status_t air_parse_results(air_parser_t* P, air_op_t* op, const air_tid_t* types,
                               const air_pbinds_t* b) {
  if (b->n && b->total != op->n_results)
    return PERR(P, op->line, op->col, "'%s' produces %u result%s but %u %s bound",
                air_opkind_name(op->kind), op->n_results, op->n_results == 1 ? "" : "s",
                b->total, b->total == 1 ? "name is" : "names are");
  uint32_t k = 0;
  for (uint32_t i = 0; i < b->n; ++i) {
    air_pref_t r = P->refs[b->base + i];
    uint32_t c = (uint32_t)r.num;
    TRY(air_parse_bind(P, &r, op->results + k, c, types + k, op, NULL, k));
    k += c;
  }
  if (k < op->n_results)
    TRY(air_parse_bind(P, NULL, op->results + k, op->n_results - k, types + k, op, NULL, k));
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Regions                                                                   */
/*---------------------------------------------------------------------------*/

static air_status_t parse_op(air_parser_t* P, air_block_t* blk);

/* `^bb0(%a: T, ...):` — names and types pushed on the scratch stacks. */
static air_status_t parse_label(air_parser_t* P, uint32_t* n) {
  *n = 0;
  air_parse_next(P);
  if (air_parse_accept(P, AIR_TK_LPAREN) && !air_parse_accept(P, AIR_TK_RPAREN)) {
    do {
      air_pref_t r;
      TRY(air_parse_ref(P, &r));
      TRY(air_parse_push_ref(P, &r));
      TRY(air_parse_expect(P, AIR_TK_COLON, "':' and a type after the block argument"));
      air_tid_t t;
      TRY(air_parse_type(P, &t));
      TRY(air_parse_push_ty(P, t));
      ++*n;
    } while (air_parse_accept(P, AIR_TK_COMMA));
    TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after the block arguments"));
  }
  return air_parse_expect(P, AIR_TK_COLON, "':' after the block label");
}

static air_status_t end_region(air_parser_t* P, air_op_t* op, air_block_t* blk,
                               const air_region_spec_t* rs, const air_token_t* close) {
  if (rs->term == AIR_OP_COUNT_) return NULL;
  air_op_t* last = blk->last;
  if (last && last->kind == rs->term) return NULL;
  if (last && air_opkind_class(last->kind) == AIR_OPC_TERMINATOR)
    return PERR(P, last->line, last->col, "'%s' cannot end the body of '%s': expected '%s'",
                air_opkind_name(last->kind), air_opkind_name(op->kind),
                air_opkind_name(rs->term));
  if (!rs->implicit)
    return PERR(P, close->line, close->col, "the body of '%s' must end with '%s'",
                air_opkind_name(op->kind), air_opkind_name(rs->term));
  air_op_t* t = air_ir_op_new(P->p, rs->term, close->line, close->col, 0, 0, 0, 0);
  if (!t) return air_parse_oom(P);
  air_ir_block_append(blk, t);
  return NULL;
}

air_status_t air_parse_region(air_parser_t* P, air_op_t* op, uint32_t index,
                              const air_region_spec_t* rs) {
  air_token_t open = P->tok;
  TRY(air_parse_expect(P, AIR_TK_LBRACE, "'{' to begin a region"));
  if (++P->depth > AIR_PARSE_MAX_DEPTH)
    return PERR(P, open.line, open.col, "regions are nested more than %d deep",
                AIR_PARSE_MAX_DEPTH);
  TRY(air_parse_scope_push(P, rs->isolated));
  uint32_t rmark = P->n_refs, tmark = P->n_tys;
  uint32_t n = rs->n_args, ref_base = rs->ref_base, ty_base = rs->ty_base;
  if (P->tok.kind == AIR_TK_CARET) {
    air_token_t label = P->tok;
    uint32_t nl;
    TRY(parse_label(P, &nl));
    if (rs->label_args) {
      n = nl;
      ref_base = rmark;
      ty_base = tmark;
    } else if (nl || n) {
      return PERR(P, label.line, label.col,
                  "unexpected block arguments: the region of '%s' gets its arguments from "
                  "the operation",
                  air_opkind_name(op->kind));
    }
  } else if (rs->label_args) {
    n = 0;
  }
  air_block_t* blk = air_ir_block_new(P->p, op, n);
  if (!blk) return air_parse_oom(P);
  op->regions[index] = blk;
  for (uint32_t i = 0; i < n; ++i) {
    air_pref_t r = P->refs[ref_base + i];
    TRY(air_parse_bind(P, &r, &blk->args[i], 1, &P->tys[ty_base + i], NULL, blk, i));
  }
  P->n_refs = rmark;
  P->n_tys = tmark;
  while (P->tok.kind != AIR_TK_RBRACE) {
    if (P->tok.kind == AIR_TK_EOF)
      return PERR_TOK(P, "unexpected end of input: expected '}' to close the region opened "
                         "at %u:%u",
                      open.line, open.col);
    if (P->tok.kind == AIR_TK_CARET)
      return PERR_TOK(P, "a region may hold only one block; found block label '%.*s'",
                      (int)P->tok.len, P->tok.s);
    TRY(parse_op(P, blk));
  }
  air_token_t close = P->tok;
  air_parse_next(P);
  TRY(end_region(P, op, blk, rs, &close));
  TRY(air_parse_scope_pop(P));
  P->depth--;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Ops                                                                       */
/*---------------------------------------------------------------------------*/

/* An op of another dialect at module level: kept verbatim. Its extent is its
 * line, continued while brackets are open. */
static air_status_t parse_opaque(air_parser_t* P, air_block_t* blk, const air_token_t* at) {
  const char* end = at->s + at->len;
  uint32_t last_line = at->line;
  /* Open brackets, so the kept text is balanced: its extent must come out the same
   * when the printed program is parsed again. */
  air_tk_t open[AIR_PARSE_MAX_DEPTH];
  int depth = 0;
  air_parse_next(P);
  for (;;) {
    air_tk_t k = P->tok.kind;
    if (k == AIR_TK_ERROR) return air_parse_fail(P, "a token");
    if (k == AIR_TK_EOF || k == AIR_TK_FILE_META) {
      if (depth > 0) return PERR_TOK(P, "unexpected end of input inside '%.*s'", (int)at->len, at->s);
      break;
    }
    if (depth == 0 && (P->tok.line > last_line || k == AIR_TK_RBRACE)) break;
    if (k == AIR_TK_LPAREN || k == AIR_TK_LSQUARE || k == AIR_TK_LBRACE) {
      if (depth == AIR_PARSE_MAX_DEPTH) return PERR_TOK(P, "brackets are nested too deep");
      open[depth++] = k;
    } else if (k == AIR_TK_RPAREN || k == AIR_TK_RSQUARE || k == AIR_TK_RBRACE) {
      air_tk_t want = k == AIR_TK_RPAREN ? AIR_TK_LPAREN
                      : k == AIR_TK_RSQUARE ? AIR_TK_LSQUARE
                                            : AIR_TK_LBRACE;
      if (depth == 0 || open[depth - 1] != want)
        return PERR_TOK(P, "unbalanced '%.*s' in operation '%.*s'", (int)P->tok.len, P->tok.s,
                        (int)at->len, at->s);
      --depth;
    }
    end = P->tok.s + P->tok.len;
    last_line = P->tok.line;
    air_parse_next(P);
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, AIR_OP_OPAQUE, at, 0, 0, 0, 0, &op));
  if (!(op->text = air_ir_strndup(P->p, at->s, (size_t)(end - at->s)))) return air_parse_oom(P);
  air_ir_warn(P->p, at->line, at->col,
              "operation '%.*s' is not supported; kept as opaque text", (int)at->len, at->s);
  return NULL;
}

static air_parse_op_fn op_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_CHANNEL: return air_parse_op_channel;
    case AIR_OPC_HIER: return air_parse_op_hier;
    case AIR_OPC_CHANNEL_IO: return air_parse_op_channel_io;
    case AIR_OPC_DMA: return air_parse_op_dma;
    case AIR_OPC_WAIT_ALL: return air_parse_op_wait_all;
    case AIR_OPC_EXECUTE: return air_parse_op_execute;
    case AIR_OPC_TOKEN_ALLOC: return air_parse_op_token_alloc;
    default: return air_parse_std_op_fn(cls);
  }
}

static uint32_t op_hash(const char* s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return (h ^ (h >> 15)) & 255;
}

static void op_table_init(air_parser_t* P) {
  memset(P->op_slots, 0xff, sizeof(P->op_slots));
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    const char* n = air_opkind_name((air_opkind_t)k);
    size_t len = strlen(n);
    P->op_len[k] = (uint8_t)len;
    if (!len) continue;
    uint32_t i = op_hash(n, len);
    while (P->op_slots[i] >= 0) i = (i + 1) & 255;
    P->op_slots[i] = (int16_t)k;
  }
}

static bool op_lookup(const air_parser_t* P, const char* s, size_t len, air_opkind_t* out) {
  if ((len == 6 && memcmp(s, "return", 6) == 0) || (len == 4 && memcmp(s, "call", 4) == 0)) {
    *out = len == 6 ? AIR_OP_RETURN : AIR_OP_CALL; /* func ops as MLIR prints them */
    return true;
  }
  for (uint32_t i = op_hash(s, len); P->op_slots[i] >= 0; i = (i + 1) & 255) {
    int k = P->op_slots[i];
    if (P->op_len[k] == len && memcmp(air_opkind_name((air_opkind_t)k), s, len) == 0) {
      *out = (air_opkind_t)k;
      return true;
    }
  }
  return false;
}

static air_status_t parse_op(air_parser_t* P, air_block_t* blk) {
  air_token_t at = P->tok;
  uint32_t rmark = P->n_refs, tmark = P->n_tys, imark = P->n_ixs, amark = P->n_nattrs;
  uint32_t attr_mark = P->n_attrs;
  air_pbinds_t b = {P->n_refs, 0, 0};
  if (P->tok.kind == AIR_TK_PERCENT) {
    TRY(air_parse_binds(P, &b));
    TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the result names"));
  }
  air_token_t name = P->tok;
  if (name.kind == AIR_TK_STRING)
    return PERR_TOK(P, "unsupported operation %.*s: the generic operation form is not "
                       "supported",
                    (int)name.len, name.s);
  if (name.kind != AIR_TK_BARE) return air_parse_fail(P, "an operation name");
  air_opkind_t kind;
  bool known = op_lookup(P, name.s, name.len, &kind);
  if (known && kind == AIR_OP_MODULE)
    return PERR_TOK(P, "nested 'module' operations are not supported");
  if (!known) {
    bool top = blk == P->p->module->regions[0];
    bool air = name.len > 4 && memcmp(name.s, "air.", 4) == 0;
    if (top && !air && b.n == 0) return parse_opaque(P, blk, &name);
    return PERR_TOK(P, "unsupported operation '%.*s'", (int)name.len, name.s);
  }
  air_parse_next(P);
  air_parse_op_fn fn = op_fn(air_opkind_class(kind));
  if (!fn) return PERR(P, name.line, name.col, "unsupported operation '%.*s'", (int)name.len, name.s);
  TRY(fn(P, blk, kind, &at, &b));
  P->n_refs = rmark;
  P->n_tys = tmark;
  P->n_ixs = imark;
  P->n_nattrs = amark;
  P->n_attrs = attr_mark;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Module and entry point                                                    */
/*---------------------------------------------------------------------------*/

/* `{-# ... #-}`: MLIR's trailing dialect resources, of no use here. */
static air_status_t skip_file_meta(air_parser_t* P) {
  const char* t = P->lx.text;
  for (size_t i = P->lx.pos; i + 2 < P->lx.len; ++i) {
    if (t[i] == '#' && t[i + 1] == '-' && t[i + 2] == '}') {
      air_lex_advance(&P->lx, i + 3);
      air_parse_next(P);
      return NULL;
    }
  }
  return PERR_TOK(P, "unterminated '{-#' block: expected '#-}'");
}

static air_status_t parse_module(air_parser_t* P) {
  air_program_t* p = P->p;
  air_op_t* m = p->module;
  air_block_t* body = m->regions[0];
  air_token_t at = P->tok;
  air_parse_next(P);
  m->line = at.line;
  m->col = at.col;
  m->flags |= AIR_OPF_EXPLICIT_MODULE;
  if (P->tok.kind == AIR_TK_AT) {
    if (!(m->sym = air_parse_sym_dup(P, &P->tok))) return air_parse_oom(P);
    air_parse_next(P);
  }
  if (air_parse_accept_kw(P, "attributes")) {
    uint32_t mark = P->n_nattrs;
    TRY(air_parse_dict_entries(P));
    TRY(air_parse_flush_attrs(P, m, mark));
  }
  air_token_t open = P->tok;
  TRY(air_parse_expect(P, AIR_TK_LBRACE, "'{' to begin the module body"));
  while (P->tok.kind != AIR_TK_RBRACE) {
    if (P->tok.kind == AIR_TK_EOF)
      return PERR_TOK(P, "unexpected end of input: expected '}' to close the module opened "
                         "at %u:%u",
                      open.line, open.col);
    if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BANG)
      TRY(air_parse_alias_def(P));
    else
      TRY(parse_op(P, body));
  }
  air_parse_next(P);
  return NULL;
}

static air_status_t parse_top(air_parser_t* P) {
  air_block_t* body = P->p->module->regions[0];
  bool seen_module = false;
  TRY(air_parse_scope_push(P, true));
  while (P->tok.kind != AIR_TK_EOF) {
    if (P->tok.kind == AIR_TK_FILE_META) {
      TRY(skip_file_meta(P));
    } else if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BANG) {
      TRY(air_parse_alias_def(P));
    } else if (air_parse_is_kw(P, "module")) {
      if (seen_module || body->first)
        return PERR_TOK(P, "'module' must be the only top-level operation");
      TRY(parse_module(P));
      seen_module = true;
    } else if (seen_module) {
      return air_parse_fail(P, "end of input after the module");
    } else {
      TRY(parse_op(P, body));
    }
  }
  return air_parse_scope_pop(P);
}

static bool contains(const char* s, size_t n, const char* w) {
  size_t m = strlen(w);
  for (size_t i = 0; i + m <= n; ++i)
    if (s[i] == w[0] && memcmp(s + i, w, m) == 0) return true;
  return false;
}

char* air_parse_sym_dup(air_parser_t* P, const air_token_t* t) {
  if (!t->quoted) return air_ir_strndup(P->p, t->name, t->name_len);
  /* The quotes surround the name in the source, so the name plus its quotes is a
   * string token the string decoder reads as is. */
  air_token_t q = *t;
  q.s = t->name - 1;
  q.len = t->name_len + 2;
  char* d = air_ir_alloc(P->p, (size_t)t->name_len + 1);
  if (d) d[air_lex_decode_string(&q, d)] = 0;
  return d;
}

air_status_t air_parse(air_program_t* p, const char* text, size_t len, uint32_t first_line) {
  const air_allocator_t* a = &p->allocator;
  /* On the heap: the lookup caches are too big for a small thread stack. */
  air_parser_t* P = a->alloc(a->self, sizeof(*P));
  if (!P)
    return AIR_IR_ERROR(p, AIR_STATUS_RESOURCE_EXHAUSTED, first_line, 1,
                        "out of memory while parsing");
  memset(P, 0, sizeof(*P));
  P->p = p;
  P->free_sym = -1;
  if (!text) len = 0;
  air_lex_init(&P->lx, text ? text : "", len, first_line);
  /* Tokens the text never spells (op results) follow its spelling. */
  P->old_tokens = contains(P->lx.text, len, "!air.async.token") &&
                  !contains(P->lx.text, len, "!air.token");
  P->t_index = air_ir_type_scalar(p, AIR_ELEM_INDEX);
  P->t_i1 = air_ir_type_scalar(p, AIR_ELEM_I1);
  P->t_token = air_ir_type_token(p, P->old_tokens);
  op_table_init(P);
  air_parse_next(P);
  /* The type stack is addressed as `tys + mark` even when empty: keep it non-NULL
   * so that pointer arithmetic is always defined. */
  bool ok = P->t_index && P->t_i1 && P->t_token &&
            air_parse_grow(P, (void**)&P->tys, &P->cap_tys, 16, sizeof(air_tid_t));
  air_status_t s = ok ? parse_top(P) : air_parse_oom(P);
  a->free(a->self, P->refs);
  a->free(a->self, P->tys);
  a->free(a->self, P->ixs);
  a->free(a->self, P->attrs);
  a->free(a->self, P->nattrs);
  a->free(a->self, P->talias);
  a->free(a->self, P->alias_slots);
  air_parse_ssa_free(P);
  a->free(a->self, P);
  return s;
}

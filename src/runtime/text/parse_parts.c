/* parse_parts.c - the parts every op's syntax is made of: operands and their
 * resolution, index and token lists, attribute dictionaries, op creation,
 * results, and regions. A region's body is parsed through the `parse_op` hook
 * (parse.c's dispatcher), since the ops in it are above this file. */
#include "runtime/text/parse_parts.h"

#include <string.h>

#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

/*---------------------------------------------------------------------------*/
/* Operands                                                                  */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_operand(air_parser_t* P, air_tid_t type, air_vid_t* out) {
  air_pref_t r;
  TRY(air_parse_ref(P, &r));
  return air_parse_use(P, &r, type, out);
}

/* A mixed list between `open` and `close` (their messages `begin`, `end`). */
static air_status_t mixed_list(air_parser_t* P, air_tk_t open, const char* begin,
                               air_tk_t close, const char* end, air_ixlist_t* out) {
  TRY(air_parse_expect(P, open, begin));
  uint32_t mark = P->n_ixs;
  if (!air_parse_accept(P, close)) {
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
    TRY(air_parse_expect(P, close, end));
  }
  uint32_t n = P->n_ixs - mark;
  if (!air_ir_list_init(P->p, out, n)) return air_parse_oom(P);
  if (n) memcpy(out->items, P->ixs + mark, n * sizeof(air_ix_t));
  P->n_ixs = mark;
  return NULL;
}

air_status_t air_parse_ixlist(air_parser_t* P, air_ixlist_t* out) {
  return mixed_list(P, AIR_TK_LSQUARE, "'[' to begin an index list", AIR_TK_RSQUARE,
                    "',' or ']' in an index list", out);
}

air_status_t air_parse_ixgroup(air_parser_t* P, air_ixlist_t* out) {
  return mixed_list(P, AIR_TK_LPAREN, "'('", AIR_TK_RPAREN, "',' or ')'", out);
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
      return PERR_TOK(P, "unbalanced '<' after '%s'", air_parse_q(P, P->tok.s, P->tok.len));
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
      return PERR_TOK(P, "a region may hold only one block; found block label '%s'",
                      air_parse_q(P, P->tok.s, P->tok.len));
    TRY(P->parse_op(P, blk));
  }
  air_token_t close = P->tok;
  air_parse_next(P);
  TRY(end_region(P, op, blk, rs, &close));
  TRY(air_parse_scope_pop(P));
  P->depth--;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Types of operands                                                         */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_need_memref(air_parser_t* P, const air_token_t* at, air_tid_t t) {
  if (air_ir_type(P->p, t)->kind == AIR_TYPE_MEMREF) return NULL;
  char b[128];
  return PERR(P, at->line, at->col, "expected a memref type, found '%s'",
              air_parse_type_str(P, t, b, sizeof b));
}

air_status_t air_parse_colon_type(air_parser_t* P, air_tid_t* t, air_token_t* at) {
  TRY(air_parse_expect(P, AIR_TK_COLON, "':' and a type"));
  if (at) *at = P->tok;
  return air_parse_type(P, t);
}

air_status_t air_parse_colon_memref(air_parser_t* P, air_tid_t* t) {
  air_token_t at;
  TRY(air_parse_colon_type(P, t, &at));
  return air_parse_need_memref(P, &at, *t);
}

air_status_t air_parse_memref_to(air_parser_t* P, air_tid_t* from, air_tid_t* to) {
  TRY(air_parse_colon_memref(P, from));
  TRY(air_parse_expect_kw(P, "to"));
  air_token_t a2 = P->tok;
  TRY(air_parse_type(P, to));
  return air_parse_need_memref(P, &a2, *to);
}

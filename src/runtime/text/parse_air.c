/* parse_air.c - the air dialect's operations, in mlir-air's printed form and in
 * the spec's: `sync`, `[dependency = [...]] [affinity = [...]] [concurrency =
 * [...]]` anywhere between the op name and its operands or region, and inline
 * placement attributes (`x_loc=0 backend-granularity=XCD`). */
#include "runtime/text/parse_air.h"

#include <string.h>

#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

/* What the async clauses of an op gathered. */
typedef struct hdr_t {
  uint32_t flags;
  air_vlist_t toks[3];
  const char* sym;
} hdr_t;

static const char* const k_lists[3] = {"dependency", "affinity", "concurrency"};

static air_status_t inline_attr(air_parser_t* P);

/* Consumes one `async`, `sync`, `[%a, ...]` or `[name = [...]]`; *took tells.
 * With `attrs`, `[x_loc=0]` (the spec's notation, brackets kept) is an inline
 * attribute too. */
static air_status_t async_clause(air_parser_t* P, hdr_t* h, bool attrs, bool* took) {
  *took = true;
  if (air_parse_accept_kw(P, "async")) {
    h->flags |= AIR_OPF_ASYNC;
    return NULL;
  }
  if (air_parse_accept_kw(P, "sync")) {
    h->flags |= AIR_OPF_SYNC;
    return NULL;
  }
  if (P->tok.kind != AIR_TK_LSQUARE) {
    *took = false;
    return NULL;
  }
  air_token_t next = air_parse_peek(P);
  if (next.kind != AIR_TK_BARE) return air_parse_toklist(P, &h->toks[AIR_TOK_DEP]);
  air_parse_next(P);
  int which = -1;
  for (int i = 0; i < 3; ++i)
    if (air_parse_is_kw(P, k_lists[i])) which = i;
  if (which < 0 && attrs) {
    TRY(inline_attr(P));
    return air_parse_expect(P, AIR_TK_RSQUARE, "']' after the attribute");
  }
  if (which < 0) return air_parse_fail(P, "'dependency', 'affinity' or 'concurrency'");
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the token list name"));
  TRY(air_parse_toklist(P, &h->toks[which]));
  return air_parse_expect(P, AIR_TK_RSQUARE, "']' to close the token list");
}

static air_status_t clauses(air_parser_t* P, hdr_t* h) {
  bool took = true;
  while (took) TRY(async_clause(P, h, false, &took));
  return NULL;
}

static air_status_t sym_clause(air_parser_t* P, hdr_t* h) {
  if (h->sym) return PERR_TOK(P, "the operation already has a symbol name");
  if (!(h->sym = air_parse_sym_dup(P, &P->tok))) return air_parse_oom(P);
  air_parse_next(P);
  return NULL;
}

static void apply_hdr(air_op_t* op, const hdr_t* h) {
  op->flags |= h->flags;
  for (int i = 0; i < 3; ++i) op->toks[i] = h->toks[i];
  op->sym = h->sym;
}

/* The result types of an op that returns one token when async. */
static air_status_t token_results(air_parser_t* P, air_op_t* op, const air_pbinds_t* b) {
  air_tid_t t = P->t_token;
  return air_parse_results(P, op, &t, b);
}

/* The async form follows a bound result as well as the keyword. */
static air_status_t settle_async(air_parser_t* P, hdr_t* h, const air_token_t* at,
                                 const air_pbinds_t* b) {
  if (b->total) {
    if (h->flags & AIR_OPF_SYNC)
      return PERR(P, at->line, at->col, "a 'sync' operation has no result to bind");
    h->flags |= AIR_OPF_ASYNC;
  }
  if ((h->flags & AIR_OPF_SYNC) && (h->flags & AIR_OPF_ASYNC))
    return PERR(P, at->line, at->col, "an operation cannot be both 'async' and 'sync'");
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* air.channel                                                               */
/*---------------------------------------------------------------------------*/

static air_status_t op_channel(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b) {
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a channel name '@name'");
  hdr_t h = {0};
  TRY(sym_clause(P, &h));
  air_ixlist_t dims = {0, NULL};
  if (P->tok.kind == AIR_TK_LSQUARE) {
    TRY(air_parse_ixlist(P, &dims));
    for (uint32_t i = 0; i < dims.n; ++i)
      if (dims.items[i].value)
        return PERR(P, at->line, at->col, "channel dimensions must be integer constants");
  }
  uint32_t mark = P->n_nattrs;
  air_parse_accept_kw(P, "attributes");
  TRY(air_parse_opt_attr_dict(P));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 0, 0, 1, &op));
  op->sym = h.sym;
  op->lists[0] = dims;
  TRY(air_parse_flush_attrs(P, op, mark));
  return air_parse_results(P, op, NULL, b);
}

/*---------------------------------------------------------------------------*/
/* air.launch / air.segment / air.herd                                       */
/*---------------------------------------------------------------------------*/

/* `x_loc=0`, `link_with="k.o"`, `backend-granularity=XCD`: the name may hold '-'
 * and the value may be a bare word (kept as a string). */
static air_status_t inline_attr(air_parser_t* P) {
  const air_lexer_t* lx = &P->lx;
  size_t from = (size_t)(P->tok.s - lx->text), end = from + P->tok.len;
  while (end + 1 < lx->len && lx->text[end] == '-' &&
         ((lx->text[end + 1] >= 'a' && lx->text[end + 1] <= 'z') ||
          (lx->text[end + 1] >= 'A' && lx->text[end + 1] <= 'Z') || lx->text[end + 1] == '_')) {
    end += 2;
    while (end < lx->len && air_lex_is_id_char((unsigned char)lx->text[end])) ++end;
  }
  char* name = air_ir_strndup(P->p, lx->text + from, end - from);
  if (!name) return air_parse_oom(P);
  air_lex_advance(&P->lx, end);
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the attribute name"));
  air_named_attr_t na;
  memset(&na, 0, sizeof(na));
  na.name = name;
  const air_token_t* t = &P->tok;
  if (t->kind == AIR_TK_BARE && !air_parse_is_kw(P, "true") && !air_parse_is_kw(P, "false") &&
      air_parse_elem(t->s, t->len) == AIR_ELEM_NONE &&
      !((size_t)(t->s - lx->text) + t->len < lx->len && t->s[t->len] == '<')) {
    char* v = air_ir_strndup(P->p, t->s, t->len);
    if (!v) return air_parse_oom(P);
    na.value.kind = AIR_ATTR_STRING;
    na.value.s = v;
    na.value.n = t->len;
    air_parse_next(P);
  } else {
    TRY(air_parse_attr(P, &na.value));
  }
  TRY(air_parse_push_nattr(P, &na));
  return NULL;
}

static bool looks_like_inline_attr(air_parser_t* P) {
  if (P->tok.kind != AIR_TK_BARE) return false;
  air_token_t next = air_parse_peek(P);
  if (next.kind == AIR_TK_EQUAL) return true;
  return next.kind == AIR_TK_MINUS && next.s == P->tok.s + P->tok.len;
}

/* Where the name of block argument k (ids, sizes, args) of a hierarchy op sits
 * on the ref stack: ids and sizes in their lists, args as (name, value) pairs. */
static uint32_t hier_arg_ref(uint32_t k, uint32_t nd, uint32_t id_base, uint32_t size_base,
                             uint32_t arg_base) {
  if (k < nd) return id_base + k;
  if (k < 2 * nd) return size_base + (k - nd);
  return arg_base + 2 * (k - 2 * nd);
}

static air_status_t op_hier(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs;
  bool has_space = false, has_args = false, has_types = false;
  uint32_t nd = 0, id_base = 0, size_base = 0, size_ix = 0;
  uint32_t na = 0, arg_base = 0, ty_base = 0;
  bool has_universe = false;
  air_pref_t universe = {0};
  for (;;) {
    bool took;
    TRY(async_clause(P, &h, true, &took));
    if (took) continue;
    if (P->tok.kind == AIR_TK_AT) {
      TRY(sym_clause(P, &h));
    } else if (kind == AIR_OP_RANK && air_parse_is_kw(P, "universe")) {
      /* air.rank universe(%u): the ranks of an air.universe.alloc. */
      if (has_universe) return PERR_TOK(P, "'universe' is already given");
      has_universe = true;
      air_parse_next(P);
      TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'universe'"));
      TRY(air_parse_ref(P, &universe));
      TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the universe"));
    } else if (P->tok.kind == AIR_TK_LPAREN || air_parse_is_kw(P, "tile") ||
               air_parse_is_kw(P, "unroll")) {
      if (has_space) return PERR_TOK(P, "the iteration space is already given");
      has_space = true;
      if (P->tok.kind == AIR_TK_BARE) air_parse_next(P);
      TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the iteration ids"));
      id_base = P->n_refs;
      TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &nd));
      TRY(air_parse_expect_kw(P, "in"));
      TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the iteration sizes"));
      size_base = P->n_refs;
      size_ix = P->n_ixs;
      uint32_t ns = 0;
      if (!air_parse_accept(P, AIR_TK_RPAREN)) {
        do {
          air_pref_t r;
          TRY(air_parse_ref(P, &r));
          TRY(air_parse_push_ref(P, &r));
          TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' between the size name and its value"));
          air_vid_t v;
          TRY(air_parse_operand(P, P->t_index, &v));
          TRY(air_parse_push_ix(P, v, 0));
          ++ns;
        } while (air_parse_accept(P, AIR_TK_COMMA));
        TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after the iteration sizes"));
      }
      if (ns != nd)
        return PERR(P, at->line, at->col, "the iteration space has %u id%s but %u size%s", nd,
                    nd == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
    } else if (air_parse_is_kw(P, "args")) {
      if (has_args) return PERR_TOK(P, "'args' is already given");
      has_args = true;
      air_parse_next(P);
      TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'args'"));
      arg_base = P->n_refs; /* name, value, name, value, ... */
      if (!air_parse_accept(P, AIR_TK_RPAREN)) {
        do {
          air_pref_t r;
          TRY(air_parse_ref(P, &r));
          TRY(air_parse_push_ref(P, &r));
          TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' between the argument and its value"));
          TRY(air_parse_ref(P, &r));
          TRY(air_parse_push_ref(P, &r));
          ++na;
        } while (air_parse_accept(P, AIR_TK_COMMA));
        TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after the arguments"));
      }
      if (P->tok.kind == AIR_TK_COLON) {
        air_parse_next(P);
        ty_base = P->n_tys;
        uint32_t nt = 0;
        if (na) TRY(air_parse_type_list(P, &nt));
        if (nt != na)
          return PERR(P, at->line, at->col, "%u argument%s but %u type%s", na,
                      na == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
        has_types = true;
      }
    } else if (air_parse_is_kw(P, "attributes")) {
      air_parse_next(P);
      TRY(air_parse_dict_entries(P));
    } else if (looks_like_inline_attr(P)) {
      TRY(inline_attr(P));
    } else {
      break;
    }
  }
  TRY(settle_async(P, &h, at, b));
  bool body = P->tok.kind == AIR_TK_LBRACE;
  /* Without a body (a launch naming its symbol, or what fusion passes leave) the
   * op ends its line; anything else there is a missing '{'. air.rank always has
   * one. */
  if (!body && (kind == AIR_OP_RANK || !(P->tok.line > P->prev_line ||
                                          P->tok.kind == AIR_TK_RBRACE ||
                                          P->tok.kind == AIR_TK_EOF)))
    return air_parse_fail(P, kind == AIR_OP_HERD      ? "'{' to begin the body of 'air.herd'"
                             : kind == AIR_OP_SEGMENT ? "'{' to begin the body of 'air.segment'"
                             : kind == AIR_OP_RANK    ? "'{' to begin the body of 'air.rank'"
                                                      : "'{' to begin the body of 'air.launch'");
  air_op_t* op;
  bool async = h.flags & AIR_OPF_ASYNC;
  uint32_t nu = has_universe ? 1 : 0;
  TRY(air_parse_new_op(P, blk, kind, at, nd + na + nu, async ? 1 : 0, body ? 1 : 0, 0, &op));
  apply_hdr(op, &h);
  if (has_universe) {
    op->flags |= AIR_OPF_UNIVERSE;
    TRY(air_parse_use(P, &universe, air_ir_type_universe(P->p), &op->operands[nd + na]));
  }
  op->iaux[0] = nd;
  for (uint32_t i = 0; i < nd; ++i) op->operands[i] = P->ixs[size_ix + i].value;
  for (uint32_t i = 0; i < na; ++i) {
    air_pref_t r = P->refs[arg_base + 2 * i + 1];
    TRY(air_parse_use(P, &r, has_types ? P->tys[ty_base + i] : 0, &op->operands[nd + i]));
  }
  TRY(air_parse_flush_attrs(P, op, amark));
  if (!body && nd + na) {
    /* Keep the names written for the ids, sizes and args so the op prints back. */
    size_t len = 0;
    for (uint32_t k = 0; k < 2 * nd + na; ++k) len += P->refs[hier_arg_ref(k, nd, id_base,
                                                        size_base, arg_base)].len + 1;
    char* names = air_ir_alloc(P->p, len + 1);
    if (!names) return air_parse_oom(P);
    char* q = names;
    for (uint32_t k = 0; k < 2 * nd + na; ++k) {
      const air_pref_t* r = &P->refs[hier_arg_ref(k, nd, id_base, size_base, arg_base)];
      if (k) *q++ = ' ';
      memcpy(q, r->s, r->len);
      q += r->len;
    }
    *q = 0;
    op->text = names;
  }
  if (body) {
    /* Block arguments: ids, sizes, then args. */
    air_region_spec_t rs = {0};
    rs.n_args = 2 * nd + na;
    rs.ref_base = P->n_refs;
    rs.ty_base = P->n_tys;
    for (uint32_t i = 0; i < nd; ++i) {
      air_pref_t r = P->refs[id_base + i];
      TRY(air_parse_push_ref(P, &r));
      TRY(air_parse_push_ty(P, P->t_index));
    }
    for (uint32_t i = 0; i < nd; ++i) {
      air_pref_t r = P->refs[size_base + i];
      TRY(air_parse_push_ref(P, &r));
      TRY(air_parse_push_ty(P, P->t_index));
    }
    for (uint32_t i = 0; i < na; ++i) {
      air_pref_t r = P->refs[arg_base + 2 * i];
      TRY(air_parse_push_ref(P, &r));
      TRY(air_parse_push_ty(P, air_ir_value_type(P->p, op->operands[nd + i])));
    }
    rs.isolated = true;
    rs.term = kind == AIR_OP_LAUNCH    ? AIR_OP_LAUNCH_TERM
              : kind == AIR_OP_SEGMENT ? AIR_OP_SEGMENT_TERM
              : kind == AIR_OP_RANK    ? AIR_OP_RANK_TERM
                                       : AIR_OP_HERD_TERM;
    rs.implicit = true;
    TRY(air_parse_region(P, op, 0, &rs));
  }
  return token_results(P, op, b);
}

/*---------------------------------------------------------------------------*/
/* Data movement                                                             */
/*---------------------------------------------------------------------------*/

/* `%m[offsets] [sizes] [strides]`; lists not written are empty. */
static air_status_t memref_access(air_parser_t* P, air_pref_t* ref, air_ixlist_t* lists) {
  TRY(air_parse_ref(P, ref));
  for (int i = 0; i < 3; ++i) {
    if (P->tok.kind == AIR_TK_LSQUARE)
      TRY(air_parse_ixlist(P, &lists[i]));
    else
      lists[i].n = 0, lists[i].items = NULL;
  }
  return NULL;
}

/* `: (T)` / `: (T, T)` / `: T, T`; absent types leave tys empty. */
static air_status_t io_types(air_parser_t* P, uint32_t* n, uint32_t* base) {
  *n = 0;
  *base = P->n_tys;
  if (!air_parse_accept(P, AIR_TK_COLON)) return NULL;
  if (P->tok.kind == AIR_TK_LPAREN) return air_parse_paren_types(P, false, n);
  return air_parse_type_list(P, n);
}

static air_status_t op_channel_io(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                  const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs, ix_base = P->n_ixs, n_idx = 0;
  TRY(clauses(P, &h));
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a channel name '@name'");
  TRY(sym_clause(P, &h));
  if (P->tok.kind == AIR_TK_LSQUARE && air_parse_peek(P).kind != AIR_TK_BARE) {
    air_parse_next(P);
    if (!air_parse_accept(P, AIR_TK_RSQUARE)) {
      do {
        if (P->tok.kind != AIR_TK_PERCENT)
          return air_parse_fail(P, "a channel index value");
        air_vid_t v;
        TRY(air_parse_operand(P, P->t_index, &v));
        TRY(air_parse_push_ix(P, v, 0));
        ++n_idx;
      } while (air_parse_accept(P, AIR_TK_COMMA));
      TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' after the channel indices"));
    }
  }
  TRY(clauses(P, &h));
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' before the memref operand"));
  air_pref_t mref, dref = {0};
  air_ixlist_t lists[3];
  TRY(memref_access(P, &mref, lists));
  TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the memref's offsets, sizes and strides"));
  bool dest = false;
  if (air_parse_accept_kw(P, "dest")) {
    if (kind != AIR_OP_PUT) return PERR_TOK(P, "'dest' is only valid on 'air.channel.put'");
    TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'dest'"));
    TRY(air_parse_ref(P, &dref));
    TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the destination"));
    dest = true;
  }
  TRY(clauses(P, &h));
  TRY(air_parse_opt_attr_dict(P));
  uint32_t nt, tb;
  TRY(io_types(P, &nt, &tb));
  if (nt > 1u + dest)
    return PERR(P, at->line, at->col, "'%s' takes %u type%s, not %u", air_opkind_name(kind),
                1u + dest, dest ? "s" : "", nt);
  TRY(settle_async(P, &h, at, b));
  air_op_t* op;
  bool async = h.flags & AIR_OPF_ASYNC;
  if (dest) h.flags |= AIR_OPF_HAS_DEST;
  TRY(air_parse_new_op(P, blk, kind, at, n_idx + 1 + dest, async ? 1 : 0, 0, 3, &op));
  apply_hdr(op, &h);
  op->iaux[0] = n_idx;
  for (uint32_t i = 0; i < n_idx; ++i) op->operands[i] = P->ixs[ix_base + i].value;
  TRY(air_parse_use(P, &mref, nt > 0 ? P->tys[tb] : 0, &op->operands[n_idx]));
  if (dest) TRY(air_parse_use(P, &dref, nt > 1 ? P->tys[tb + 1] : 0, &op->operands[n_idx + 1]));
  for (int i = 0; i < 3; ++i) op->lists[i] = lists[i];
  TRY(air_parse_flush_attrs(P, op, amark));
  return token_results(P, op, b);
}

static air_status_t op_dma(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                           const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs;
  TRY(clauses(P, &h));
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' before the destination memref"));
  air_pref_t dst, src;
  air_ixlist_t lists[6];
  TRY(memref_access(P, &dst, lists));
  TRY(air_parse_expect(P, AIR_TK_COMMA, "',' between the destination and the source"));
  TRY(memref_access(P, &src, lists + 3));
  TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the source"));
  /* `src_rank(%r)` / `dst_rank(%r)`: a peer rank given by a value (issue 13);
   * the constant form is the attribute `{src_rank = 1 : i64}`. */
  air_pref_t rank_ref[2];
  bool has_rank[2] = {false, false};
  for (;;) {
    TRY(clauses(P, &h));
    int w = air_parse_is_kw(P, "src_rank") ? 0 : air_parse_is_kw(P, "dst_rank") ? 1 : -1;
    if (w < 0 || air_parse_peek(P).kind != AIR_TK_LPAREN) break;
    if (has_rank[w]) return PERR_TOK(P, "'%s' is already given", w ? "dst_rank" : "src_rank");
    has_rank[w] = true;
    air_parse_next(P);
    air_parse_next(P);
    TRY(air_parse_ref(P, &rank_ref[w]));
    TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the rank"));
  }
  TRY(air_parse_opt_attr_dict(P));
  uint32_t nt, tb;
  TRY(io_types(P, &nt, &tb));
  if (nt != 0 && nt != 2)
    return PERR(P, at->line, at->col, "'air.dma_memcpy_nd' takes 2 types, not %u", nt);
  TRY(settle_async(P, &h, at, b));
  air_op_t* op;
  bool async = h.flags & AIR_OPF_ASYNC;
  uint32_t nr = (uint32_t)has_rank[0] + (uint32_t)has_rank[1];
  TRY(air_parse_new_op(P, blk, kind, at, 2 + nr, async ? 1 : 0, 0, 6, &op));
  apply_hdr(op, &h);
  TRY(air_parse_use(P, &dst, nt ? P->tys[tb] : 0, &op->operands[0]));
  TRY(air_parse_use(P, &src, nt ? P->tys[tb + 1] : 0, &op->operands[1]));
  for (uint32_t w = 0, i = 2; w < 2; ++w) {
    if (!has_rank[w]) continue;
    op->flags |= w ? AIR_OPF_DST_RANK : AIR_OPF_SRC_RANK;
    TRY(air_parse_use(P, &rank_ref[w], P->t_index, &op->operands[i++]));
  }
  for (int i = 0; i < 6; ++i) op->lists[i] = lists[i];
  TRY(air_parse_flush_attrs(P, op, amark));
  return token_results(P, op, b);
}

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

/* `: !air.token` after ops whose only result is a token. */
static air_status_t opt_token_type(air_parser_t* P, air_tid_t* t) {
  if (!air_parse_accept(P, AIR_TK_COLON)) return NULL;
  air_token_t at = P->tok;
  TRY(air_parse_type(P, t));
  if (!air_ir_type_is_token(P->p, *t))
    return PERR(P, at.line, at.col, "expected a token type, found '%s'", air_parse_q(P, at.s, at.len));
  return NULL;
}

static air_status_t op_wait_all(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs;
  TRY(clauses(P, &h));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t = P->t_token;
  TRY(opt_token_type(P, &t));
  TRY(settle_async(P, &h, at, b));
  air_op_t* op;
  bool async = h.flags & AIR_OPF_ASYNC;
  TRY(air_parse_new_op(P, blk, kind, at, 0, async ? 1 : 0, 0, 0, &op));
  apply_hdr(op, &h);
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

static air_status_t op_token_alloc(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                   const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t = P->t_token;
  TRY(opt_token_type(P, &t));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 1, 0, 0, &op));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

static air_status_t op_execute(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs;
  TRY(clauses(P, &h));
  if (h.flags & AIR_OPF_SYNC) return PERR(P, at->line, at->col, "'air.execute' has no 'sync' form");
  uint32_t tb = P->n_tys, nt = 0;
  TRY(air_parse_push_ty(P, P->t_token));
  uint32_t n_extra;
  TRY(air_parse_opt_arrow_types(P, &n_extra));
  nt = 1 + n_extra;
  if (air_parse_accept_kw(P, "attributes")) TRY(air_parse_dict_entries(P));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, nt, 1, 0, &op));
  h.flags |= AIR_OPF_ASYNC;
  apply_hdr(op, &h);
  air_region_spec_t rs = {0};
  rs.term = AIR_OP_EXECUTE_TERM;
  rs.implicit = n_extra == 0;
  TRY(air_parse_region(P, op, 0, &rs));
  air_op_t* term = op->regions[0]->last;
  if (term->n_operands != n_extra)
    return PERR(P, term->line, term->col,
                "'air.execute_terminator' yields %u value%s but 'air.execute' has %u", term->n_operands,
                term->n_operands == 1 ? "" : "s", n_extra);
  for (uint32_t i = 0; i < n_extra; ++i) {
    air_tid_t have = air_ir_value_type(P->p, term->operands[i]);
    if (!air_parse_types_match(P, have, P->tys[tb + 1 + i])) {
      char a[128], c[128];
      return PERR(P, term->line, term->col,
                  "'air.execute_terminator' operand %u has type '%s' but the result has '%s'", i,
                  air_parse_type_str(P, have, a, sizeof a),
                  air_parse_type_str(P, P->tys[tb + 1 + i], c, sizeof c));
    }
  }
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/*---------------------------------------------------------------------------*/
/* air.custom                                                                */
/*---------------------------------------------------------------------------*/

/* [%t =] air.custom [@sym] [async] [[deps]] [operands (%a, ...) [: T, ...]] [{attrs}] */
static air_status_t op_custom(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  hdr_t h = {0};
  uint32_t amark = P->n_nattrs, rb = P->n_refs, n = 0, tb = P->n_tys, nt = 0;
  TRY(clauses(P, &h));
  if (P->tok.kind == AIR_TK_AT) TRY(sym_clause(P, &h));
  TRY(clauses(P, &h));
  if (air_parse_accept_kw(P, "operands")) {
    air_token_t ot = P->tok;
    TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'operands'"));
    TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
    if (air_parse_accept(P, AIR_TK_COLON)) {
      tb = P->n_tys;
      if (n) TRY(air_parse_type_list(P, &nt));
      if (nt != n)
        return PERR(P, ot.line, ot.col, "%u operand%s but %u type%s", n, n == 1 ? "" : "s", nt,
                    nt == 1 ? "" : "s");
    }
  }
  TRY(clauses(P, &h));
  air_parse_accept_kw(P, "attributes");
  TRY(air_parse_opt_attr_dict(P));
  TRY(settle_async(P, &h, at, b));
  air_op_t* op;
  bool async = h.flags & AIR_OPF_ASYNC;
  TRY(air_parse_new_op(P, blk, kind, at, n, async ? 1 : 0, 0, 0, &op));
  apply_hdr(op, &h);
  if (nt)
    TRY(air_parse_resolve(P, rb, n, tb, 0, op->operands));
  else
    TRY(air_parse_resolve(P, rb, n, UINT32_MAX, 0, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return token_results(P, op, b);
}

/* %u = air.universe.alloc(%n) [: !air.universe] */
static air_status_t op_universe(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' before the number of ranks"));
  air_pref_t n;
  TRY(air_parse_ref(P, &n));
  TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the number of ranks"));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t = air_ir_type_universe(P->p);
  if (!t) return air_parse_oom(P);
  if (air_parse_accept(P, AIR_TK_COLON)) {
    air_token_t tt = P->tok;
    air_tid_t w;
    TRY(air_parse_type(P, &w));
    if (w != t)
      return PERR(P, tt.line, tt.col, "expected '!air.universe', found '%.*s'", (int)tt.len, tt.s);
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 0, &op));
  TRY(air_parse_use(P, &n, P->t_index, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

air_parse_op_fn air_parse_air_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_CHANNEL: return op_channel;
    case AIR_OPC_HIER: return op_hier;
    case AIR_OPC_CHANNEL_IO: return op_channel_io;
    case AIR_OPC_DMA: return op_dma;
    case AIR_OPC_WAIT_ALL: return op_wait_all;
    case AIR_OPC_EXECUTE: return op_execute;
    case AIR_OPC_TOKEN_ALLOC: return op_token_alloc;
    case AIR_OPC_CUSTOM: return op_custom;
    case AIR_OPC_UNIVERSE: return op_universe;
    default: return NULL;
  }
}

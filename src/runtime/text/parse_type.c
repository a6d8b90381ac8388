/* parse_type.c - types: scalars, memrefs (shape, layout, memory space), tokens
 * and type aliases, plus the type text used in messages. */
#include "runtime/text/parse_type.h"

#include <stdio.h>
#include <string.h>

enum { MAX_RANK = 64 };

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/*---------------------------------------------------------------------------*/
/* Types                                                                     */
/*---------------------------------------------------------------------------*/

air_elem_kind_t air_parse_elem(const char* s, uint32_t len) {
  static const struct {
    char name[6];
    uint8_t len;
    air_elem_kind_t elem;
  } k[] = {{"index", 5, AIR_ELEM_INDEX}, {"f32", 3, AIR_ELEM_F32}, {"i32", 3, AIR_ELEM_I32},
           {"bf16", 4, AIR_ELEM_BF16},  {"i8", 2, AIR_ELEM_I8},   {"i16", 3, AIR_ELEM_I16},
           {"i64", 3, AIR_ELEM_I64},    {"f16", 3, AIR_ELEM_F16}, {"f64", 3, AIR_ELEM_F64},
           {"i1", 2, AIR_ELEM_I1},      {"ui8", 3, AIR_ELEM_UI8}, {"si8", 3, AIR_ELEM_SI8},
           {"ui16", 4, AIR_ELEM_UI16},  {"si16", 4, AIR_ELEM_SI16},
           {"ui32", 4, AIR_ELEM_UI32},  {"si32", 4, AIR_ELEM_SI32},
           {"ui64", 4, AIR_ELEM_UI64},  {"si64", 4, AIR_ELEM_SI64}};
  if (len < 2 || len > 5) return AIR_ELEM_NONE;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
    if (k[i].len == len && k[i].name[0] == s[0] && memcmp(k[i].name, s, len) == 0)
      return k[i].elem;
  return AIR_ELEM_NONE;
}

const char* air_parse_type_str(const air_parser_t* P, air_tid_t t, char* buf, size_t size) {
  const air_type_info_t* ti = air_ir_type(P->p, t);
  size_t n = 0;
#define OUT(...)                                                     \
  do {                                                               \
    if (n < size) {                                                  \
      int w_ = snprintf(buf + n, size - n, __VA_ARGS__);             \
      n = w_ < 0 ? size : n + (size_t)w_;                            \
    }                                                                \
  } while (0)
  buf[0] = 0;
  switch (ti->kind) {
    case AIR_TYPE_TOKEN: OUT("%s", ti->old_spelling ? "!air.async.token" : "!air.token"); break;
    case AIR_TYPE_SCALAR: OUT("%s", air_elem_name(ti->elem)); break;
    case AIR_TYPE_UNIVERSE: OUT("!air.universe"); break;
    case AIR_TYPE_MEMREF:
    case AIR_TYPE_TENSOR:
      OUT(ti->kind == AIR_TYPE_MEMREF ? "memref<" : "tensor<");
      if (ti->unranked) OUT("*x");
      for (uint32_t i = 0; i < ti->rank; ++i) {
        if (ti->shape[i] == AIR_DIM_DYNAMIC)
          OUT("?x");
        else
          OUT("%lldx", (long long)ti->shape[i]);
      }
      OUT("%s", air_elem_name(ti->elem));
      if (ti->layout) OUT(", %s", ti->layout);
      if (ti->memspace) OUT(", %d", (int)ti->memspace);
      OUT(">");
      break;
    default: OUT("<none>"); break;
  }
#undef OUT
  return buf;
}

bool air_parse_types_match(const air_parser_t* P, air_tid_t a, air_tid_t b) {
  return a == b || (air_ir_type_is_token(P->p, a) && air_ir_type_is_token(P->p, b));
}

/* Normalises layout text: single spaces, none inside brackets' edges or before
 * `,` `:` and closers, exactly one after `,` and `:`. The output can be longer than
 * the input (`[1,2]` becomes `[1, 2]`), never more than twice: at most one space is
 * written before each input character. */
static size_t norm_layout(const char* s, size_t n, char* out) {
  size_t o = 0;
  bool space = false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    /* A comment inside the brackets is whitespace: kept, it would swallow the rest
     * of the printed line once the layout is folded onto one. */
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i + 1 < n && s[i + 1] != '\n') ++i;
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (o > 0) {
      char prev = out[o - 1];
      bool drop = c == ',' || c == ')' || c == ']' || c == '>' || c == ':' || prev == '(' ||
                  prev == '[' || prev == '<';
      if (prev == '-' && c == '>') drop = true;
      if (!drop && (space || prev == ',' || prev == ':')) out[o++] = ' ';
    }
    out[o++] = c;
    space = false;
  }
  return o;
}

/* memref<...> and tensor<...>: `*x` (unranked) or dimensions, the element type,
 * then for a memref a layout and/or memory space, for a tensor an encoding. */
static air_status_t parse_shaped(air_parser_t* P, bool tensor, air_tid_t* out) {
  air_token_t start = P->tok;
  air_parse_next(P);
  if (P->tok.kind != AIR_TK_LESS)
    return air_parse_fail(P, tensor ? "'<' after 'tensor'" : "'<' after 'memref'");
  int64_t shape[MAX_RANK];
  uint32_t rank = 0;
  bool unranked = false;
  air_lexer_t* lx = &P->lx;
  air_lex_skip_space(lx);
  if (air_lex_peekc(lx, 0) == '*') {
    air_lex_advance(lx, lx->pos + 1);
    if (air_lex_peekc(lx, 0) != 'x')
      return PERR(P, lx->line, air_lex_col(lx), "expected 'x' after '*' in an unranked type");
    air_lex_advance(lx, lx->pos + 1);
    unranked = true;
  }
  /* Dimensions are read by hand: `64x64xf32` is not a token sequence. */
  while (!unranked) {
    air_lex_skip_space(lx);
    int c = air_lex_peekc(lx, 0);
    if (!is_digit(c) && c != '?') break;
    uint32_t line = lx->line, col = air_lex_col(lx);
    int64_t d = AIR_DIM_DYNAMIC;
    if (c == '?') {
      air_lex_advance(lx, lx->pos + 1);
    } else {
      d = 0;
      while (is_digit(air_lex_peekc(lx, 0))) {
        d = d * 10 + (air_lex_peekc(lx, 0) - '0');
        if (d > (INT64_C(1) << 48)) return PERR(P, line, col, "memref dimension is too large");
        air_lex_advance(lx, lx->pos + 1);
      }
    }
    if (air_lex_peekc(lx, 0) != 'x')
      return PERR(P, lx->line, air_lex_col(lx), "expected 'x' after a memref dimension");
    air_lex_advance(lx, lx->pos + 1);
    if (rank == MAX_RANK) return PERR(P, line, col, "memref rank exceeds %d", MAX_RANK);
    shape[rank++] = d;
  }
  air_parse_next(P);
  air_elem_kind_t elem = AIR_ELEM_NONE;
  if (P->tok.kind == AIR_TK_BARE) elem = air_parse_elem(P->tok.s, P->tok.len);
  if (elem == AIR_ELEM_NONE) {
    if (P->tok.kind == AIR_TK_BARE || P->tok.kind == AIR_TK_BANG)
      return PERR_TOK(P, "unsupported %s element type '%s'", tensor ? "tensor" : "memref",
                      air_parse_q(P, P->tok.s, P->tok.len));
    return air_parse_fail(P, tensor ? "a tensor element type" : "a memref element type");
  }
  air_parse_next(P);
  char* layout = NULL;
  int64_t space = 0;
  if (tensor) {
    if (air_parse_accept(P, AIR_TK_COMMA)) {
      /* An encoding attribute, kept as text. */
      size_t from = air_parse_tok_off(P), end = from + P->tok.len;
      if (unranked) return PERR_TOK(P, "an unranked tensor has no encoding");
      if ((P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BARE) &&
          air_parse_tok_followed_by(P, '<') && !air_lex_balanced_end(lx, end, &end))
        return PERR_TOK(P, "unbalanced brackets in tensor encoding");
      if (P->tok.kind != AIR_TK_HASH && P->tok.kind != AIR_TK_BARE &&
          P->tok.kind != AIR_TK_STRING && P->tok.kind != AIR_TK_INT)
        return air_parse_fail(P, "a tensor encoding");
      layout = air_ir_alloc(P->p, 2 * (end - from) + 1);
      if (!layout) return air_parse_oom(P);
      layout[norm_layout(lx->text + from, end - from, layout)] = 0;
      air_parse_resume_at(P, end);
    }
    TRY(air_parse_expect(P, AIR_TK_GREATER, "'>' to close the tensor type"));
    *out = air_ir_type_tensor(P->p, elem, unranked, rank, shape, layout);
    return *out ? NULL : air_parse_oom(P);
  }
  if (air_parse_accept(P, AIR_TK_COMMA)) {
    if (P->tok.kind != AIR_TK_INT) {
      size_t from = air_parse_tok_off(P), end;
      if (unranked) return PERR_TOK(P, "an unranked memref has no layout, only a memory space");
      if (P->tok.kind == AIR_TK_HASH && !air_parse_tok_followed_by(P, '<')) {
        end = from + P->tok.len;
      } else if (P->tok.kind == AIR_TK_BARE && air_parse_tok_followed_by(P, '<') &&
                 (air_parse_tok_is(&P->tok, "strided") ||
                  air_parse_tok_is(&P->tok, "affine_map"))) {
        if (!air_lex_balanced_end(lx, from + P->tok.len, &end))
          return PERR_TOK(P, "unbalanced brackets in memref layout");
      } else if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BARE) {
        return PERR_TOK(P, "unsupported memref layout or memory space '%s'",
                        air_parse_q(P, P->tok.s, P->tok.len));
      } else {
        return air_parse_fail(P, "a memref layout or memory space");
      }
      layout = air_ir_alloc(P->p, 2 * (end - from) + 1);
      if (!layout) return air_parse_oom(P);
      layout[norm_layout(lx->text + from, end - from, layout)] = 0;
      air_parse_resume_at(P, end);
      if (!air_parse_accept(P, AIR_TK_COMMA)) goto close;
    }
    if (P->tok.kind != AIR_TK_INT) {
      if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BARE)
        return PERR_TOK(P, "unsupported memory space '%s'", air_parse_q(P, P->tok.s, P->tok.len));
      return air_parse_fail(P, "a memory space");
    }
    if (P->tok.overflow || P->tok.u > INT32_MAX)
      return PERR_TOK(P, "memory space is out of range");
    space = (int64_t)P->tok.u;
    air_parse_next(P);
    if (air_parse_accept(P, AIR_TK_COLON)) {
      air_tid_t st;
      TRY(air_parse_type(P, &st));
      const air_type_info_t* ti = air_ir_type(P->p, st);
      if (ti->kind != AIR_TYPE_SCALAR || air_elem_is_float(ti->elem))
        return PERR(P, start.line, start.col, "memory space must be an integer");
    }
  }
close:
  TRY(air_parse_expect(P, AIR_TK_GREATER, "'>' to close the memref type"));
  *out = unranked ? air_ir_type_memref_unranked(P->p, elem, (int32_t)space)
                  : air_ir_type_memref(P->p, elem, rank, shape, (int32_t)space, layout);
  return *out ? NULL : air_parse_oom(P);
}

air_status_t air_parse_type(air_parser_t* P, air_tid_t* out) {
  const air_token_t* t = &P->tok;
  if (t->kind == AIR_TK_BARE) {
    air_elem_kind_t e = air_parse_elem(t->s, t->len);
    if (e != AIR_ELEM_NONE) {
      air_parse_next(P);
      *out = air_ir_type_scalar(P->p, e);
      return *out ? NULL : air_parse_oom(P);
    }
    if (air_parse_tok_is(t, "memref")) return parse_shaped(P, false, out);
    if (air_parse_tok_is(t, "tensor")) return parse_shaped(P, true, out);
    return PERR_TOK(P, "unsupported type '%s'", air_parse_q(P, t->s, t->len));
  }
  if (t->kind == AIR_TK_BANG) {
    if (t->name_len == 9 && memcmp(t->name, "air.token", 9) == 0) {
      *out = air_ir_type_token(P->p, false);
    } else if (t->name_len == 15 && memcmp(t->name, "air.async.token", 15) == 0) {
      *out = air_ir_type_token(P->p, true);
    } else if (t->name_len == 12 && memcmp(t->name, "air.universe", 12) == 0) {
      *out = air_ir_type_universe(P->p);
    } else {
      *out = 0;
      for (uint32_t i = 0; i < P->n_talias; ++i)
        if (P->talias[i].len == t->name_len && memcmp(P->talias[i].s, t->name, t->name_len) == 0)
          *out = P->talias[i].type;
      if (!*out) return PERR_TOK(P, "unsupported type '%s'", air_parse_q(P, t->s, t->len));
    }
    air_parse_next(P);
    return *out ? NULL : air_parse_oom(P);
  }
  return air_parse_fail(P, "a type");
}

air_status_t air_parse_type_list(air_parser_t* P, uint32_t* n) {
  *n = 0;
  do {
    air_tid_t t;
    TRY(air_parse_type(P, &t));
    TRY(air_parse_push_ty(P, t));
    ++*n;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return NULL;
}

air_status_t air_parse_paren_types(air_parser_t* P, bool paren_optional, uint32_t* n) {
  *n = 0;
  if (air_parse_accept(P, AIR_TK_LPAREN)) {
    if (air_parse_accept(P, AIR_TK_RPAREN)) return NULL;
    TRY(air_parse_type_list(P, n));
    return air_parse_expect(P, AIR_TK_RPAREN, "')' after the types");
  }
  if (!paren_optional) return air_parse_fail(P, "'(' to begin a type list");
  air_tid_t t;
  TRY(air_parse_type(P, &t));
  TRY(air_parse_push_ty(P, t));
  *n = 1;
  return NULL;
}

air_status_t air_parse_opt_arrow_types(air_parser_t* P, uint32_t* n) {
  *n = 0;
  if (!air_parse_accept(P, AIR_TK_ARROW)) return NULL;
  return air_parse_paren_types(P, true, n);
}

/* parse_attr.c - types, attributes, affine maps and sets, alias definitions.
 *
 * Attributes libairrt does not interpret (dialect attributes, dense<...>, types
 * it cannot represent) are kept as OPAQUE with their balanced source text, so
 * they print back unchanged; only malformed text is an error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/text/parse_internal.h"

enum { MAX_RANK = 64, MAX_AFFINE_IDS = 64 };

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool tok_is(const air_token_t* t, const char* s) {
  size_t n = strlen(s);
  return t->kind == AIR_TK_BARE && t->len == n && memcmp(t->s, s, n) == 0;
}

/* True when the byte right after the current token (no space) is `c`. */
static bool tok_followed_by(const air_parser_t* P, char c) {
  size_t e = (size_t)(P->tok.s - P->lx.text) + P->tok.len;
  return e < P->lx.len && P->lx.text[e] == c;
}

/* Moves the lexer to byte offset `to` and lexes the token there. */
static void resume_at(air_parser_t* P, size_t to) {
  air_lex_advance(&P->lx, to);
  air_parse_next(P);
}

static size_t tok_off(const air_parser_t* P) { return (size_t)(P->tok.s - P->lx.text); }

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
           {"i1", 2, AIR_ELEM_I1}};
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
    case AIR_TYPE_MEMREF:
      OUT("memref<");
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

static air_status_t parse_memref(air_parser_t* P, air_tid_t* out) {
  air_token_t start = P->tok;
  air_parse_next(P);
  if (P->tok.kind != AIR_TK_LESS) return air_parse_fail(P, "'<' after 'memref'");
  int64_t shape[MAX_RANK];
  uint32_t rank = 0;
  air_lexer_t* lx = &P->lx;
  /* Dimensions are read by hand: `64x64xf32` is not a token sequence. */
  for (;;) {
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
      return PERR_TOK(P, "unsupported memref element type '%.*s'", (int)P->tok.len, P->tok.s);
    return air_parse_fail(P, "a memref element type");
  }
  air_parse_next(P);
  char* layout = NULL;
  int64_t space = 0;
  if (air_parse_accept(P, AIR_TK_COMMA)) {
    if (P->tok.kind != AIR_TK_INT) {
      size_t from = tok_off(P), end;
      if (P->tok.kind == AIR_TK_HASH && !tok_followed_by(P, '<')) {
        end = from + P->tok.len;
      } else if (P->tok.kind == AIR_TK_BARE && tok_followed_by(P, '<') &&
                 (tok_is(&P->tok, "strided") || tok_is(&P->tok, "affine_map"))) {
        if (!air_lex_balanced_end(lx, from + P->tok.len, &end))
          return PERR_TOK(P, "unbalanced brackets in memref layout");
      } else if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BARE) {
        return PERR_TOK(P, "unsupported memref layout or memory space '%.*s'",
                        (int)P->tok.len, P->tok.s);
      } else {
        return air_parse_fail(P, "a memref layout or memory space");
      }
      layout = air_ir_alloc(P->p, 2 * (end - from) + 1);
      if (!layout) return air_parse_oom(P);
      layout[norm_layout(lx->text + from, end - from, layout)] = 0;
      resume_at(P, end);
      if (!air_parse_accept(P, AIR_TK_COMMA)) goto close;
    }
    if (P->tok.kind != AIR_TK_INT) {
      if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BARE)
        return PERR_TOK(P, "unsupported memory space '%.*s'", (int)P->tok.len, P->tok.s);
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
  *out = air_ir_type_memref(P->p, elem, rank, shape, (int32_t)space, layout);
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
    if (tok_is(t, "memref")) return parse_memref(P, out);
    return PERR_TOK(P, "unsupported type '%.*s'", (int)t->len, t->s);
  }
  if (t->kind == AIR_TK_BANG) {
    if (t->name_len == 9 && memcmp(t->name, "air.token", 9) == 0) {
      *out = air_ir_type_token(P->p, false);
    } else if (t->name_len == 15 && memcmp(t->name, "air.async.token", 15) == 0) {
      *out = air_ir_type_token(P->p, true);
    } else {
      *out = 0;
      for (uint32_t i = 0; i < P->n_talias; ++i)
        if (P->talias[i].len == t->name_len && memcmp(P->talias[i].s, t->name, t->name_len) == 0)
          *out = P->talias[i].type;
      if (!*out) return PERR_TOK(P, "unsupported type '%.*s'", (int)t->len, t->s);
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

/*---------------------------------------------------------------------------*/
/* Opaque text                                                               */
/*---------------------------------------------------------------------------*/

static size_t skip_ws(const air_lexer_t* lx, size_t i) {
  while (i < lx->len && (lx->text[i] == ' ' || lx->text[i] == '\t' || lx->text[i] == '\n' ||
                         lx->text[i] == '\r'))
    ++i;
  return i;
}

/* End of the type text starting at or after `i`, or 0 when there is none. */
static size_t type_text_end(const air_lexer_t* lx, size_t i) {
  i = skip_ws(lx, i);
  size_t e;
  if (i < lx->len && lx->text[i] == '(') {
    if (!air_lex_balanced_end(lx, i, &e)) return 0;
    size_t j = skip_ws(lx, e);
    if (j + 1 < lx->len && lx->text[j] == '-' && lx->text[j + 1] == '>') {
      size_t r = type_text_end(lx, j + 2);
      return r ? r : 0;
    }
    return e;
  }
  size_t s = i;
  if (i < lx->len && lx->text[i] == '!') ++i;
  while (i < lx->len && air_lex_is_id_char((unsigned char)lx->text[i])) ++i;
  if (i == s || (i == s + 1 && lx->text[s] == '!')) return 0;
  if (i < lx->len && lx->text[i] == '<') {
    if (!air_lex_balanced_end(lx, i, &e)) return 0;
    return e;
  }
  return i;
}

/* Copies source text kept verbatim (opaque attributes), dropping `//` comments
 * outside strings: the printer may put the text on a line with more after it. */
static size_t copy_without_comments(const char* s, size_t n, char* out) {
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '"') {
      out[o++] = s[i];
      for (++i; i < n && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < n) out[o++] = s[i++];
        out[o++] = s[i];
      }
      if (i < n) out[o++] = s[i];
      continue;
    }
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i + 1 < n && s[i + 1] != '\n') ++i;
      out[o++] = ' ';
      continue;
    }
    out[o++] = s[i];
  }
  return o;
}

air_status_t air_parse_opaque_attr(air_parser_t* P, air_attr_t* out) {
  const air_lexer_t* lx = &P->lx;
  size_t from = tok_off(P), end;
  if (P->tok.kind == AIR_TK_LPAREN) {
    end = type_text_end(lx, from);
    if (!end) return PERR_TOK(P, "unbalanced brackets in attribute");
  } else {
    end = from + P->tok.len;
    if (end < lx->len && lx->text[end] == '<' && !air_lex_balanced_end(lx, end, &end))
      return PERR_TOK(P, "unbalanced brackets in attribute '%.*s'", (int)P->tok.len, P->tok.s);
  }
  /* A typed attribute keeps its type: `dense<1.0> : tensor<4xf32>`. */
  size_t j = skip_ws(lx, end);
  if (j < lx->len && lx->text[j] == ':' && !(j + 1 < lx->len && lx->text[j + 1] == ':')) {
    size_t te = type_text_end(lx, j + 1);
    if (te) end = te;
  }
  memset(out, 0, sizeof(*out));
  out->kind = AIR_ATTR_OPAQUE;
  char* text = air_ir_alloc(P->p, end - from + 1);
  if (!text) return air_parse_oom(P);
  size_t n = copy_without_comments(lx->text + from, end - from, text);
  text[n] = 0;
  out->s = text;
  out->n = (uint32_t)n;
  resume_at(P, end);
  return NULL;
}

/* Parses a type where failure is not an error (attribute `: type` suffixes). */
static bool try_type(air_parser_t* P, air_tid_t* out) {
  air_lexer_t lx = P->lx;
  air_token_t tok = P->tok;
  air_status_t s = air_parse_type(P, out);
  if (!s) return true;
  if (air_status_code(s) == AIR_STATUS_RESOURCE_EXHAUSTED) {
    air_status_free(s);
    *out = 0;
    return true; /* reported by the caller's next allocation */
  }
  air_status_free(s);
  P->lx = lx;
  P->tok = tok;
  return false;
}

/*---------------------------------------------------------------------------*/
/* Attributes                                                                */
/*---------------------------------------------------------------------------*/

static double half_to_double(uint32_t h) {
  uint32_t sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 0)
    v = ldexp((double)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = ldexp((double)(m | 1024), (int)e - 25);
  return sign ? -v : v;
}

/* A float from the bit pattern of a hex literal of type `elem`. */
static bool float_from_bits(air_elem_kind_t elem, uint64_t u, double* out) {
  switch (elem) {
    case AIR_ELEM_F16:
      if (u >> 16) return false;
      *out = half_to_double((uint32_t)u);
      return true;
    case AIR_ELEM_BF16: {
      if (u >> 16) return false;
      uint32_t b = (uint32_t)u << 16;
      float f;
      memcpy(&f, &b, sizeof f);
      *out = f;
      return true;
    }
    case AIR_ELEM_F32: {
      if (u >> 32) return false;
      uint32_t b = (uint32_t)u;
      float f;
      memcpy(&f, &b, sizeof f);
      *out = f;
      return true;
    }
    case AIR_ELEM_F64: memcpy(out, &u, sizeof *out); return true;
    default: return false;
  }
}

/* A number with an optional `: type`, at the current INT/FLOAT/'-' token. */
static air_status_t parse_number(air_parser_t* P, air_attr_t* out) {
  air_token_t start = P->tok;
  bool neg = air_parse_accept(P, AIR_TK_MINUS);
  air_token_t num = P->tok;
  if (num.kind == AIR_TK_INT) {
    if (num.overflow || (neg && num.u > (uint64_t)INT64_MAX + 1))
      return PERR_TOK(P, "integer literal is out of range");
    out->kind = AIR_ATTR_INT;
    out->i = neg ? (int64_t)(0 - num.u) : (int64_t)num.u;
  } else if (num.kind == AIR_TK_FLOAT) {
    out->kind = AIR_ATTR_FLOAT;
    out->f = neg ? -num.f : num.f;
  } else {
    return air_parse_fail(P, "a number after '-'");
  }
  air_parse_next(P);
  if (P->tok.kind != AIR_TK_COLON) return NULL;
  air_token_t colon = P->tok;
  air_parse_next(P);
  air_tid_t t;
  if (!try_type(P, &t)) {
    /* A type we cannot represent (i4, ui8, ...): keep the literal as text. */
    size_t from = (size_t)(start.s - P->lx.text);
    size_t end = type_text_end(&P->lx, (size_t)(colon.s - P->lx.text) + 1);
    if (!end) return air_parse_fail(P, "a type after ':'");
    memset(out, 0, sizeof(*out));
    out->kind = AIR_ATTR_OPAQUE;
    out->s = air_ir_strndup(P->p, start.s, end - from);
    out->n = (uint32_t)(end - from);
    if (!out->s) return air_parse_oom(P);
    resume_at(P, end);
    return NULL;
  }
  if (!t) return air_parse_oom(P);
  const air_type_info_t* ti = air_ir_type(P->p, t);
  if (ti->kind != AIR_TYPE_SCALAR)
    return PERR(P, start.line, start.col, "a number cannot have a non-scalar type");
  bool is_float = air_elem_is_float(ti->elem);
  if (out->kind == AIR_ATTR_FLOAT && !is_float)
    return PERR(P, num.line, num.col, "floating point literal for integer type '%s'",
                air_elem_name(ti->elem));
  if (out->kind == AIR_ATTR_INT && is_float) {
    out->kind = AIR_ATTR_FLOAT;
    if (num.hex) {
      if (neg || !float_from_bits(ti->elem, num.u, &out->f))
        return PERR(P, num.line, num.col, "hexadecimal literal does not fit type '%s'",
                    air_elem_name(ti->elem));
    } else {
      out->f = (double)out->i;
    }
  }
  out->type = t;
  return NULL;
}

/* `array<i32: 1, 2>`; falls back to opaque text for element types it does not
 * hold as integers. */
static air_status_t parse_dense(air_parser_t* P, air_attr_t* out) {
  air_lexer_t lx0 = P->lx;
  air_token_t tok0 = P->tok;
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_LESS, "'<' after 'array'"));
  air_tid_t t;
  bool ok = try_type(P, &t) && t && air_ir_type(P->p, t)->kind == AIR_TYPE_SCALAR &&
            !air_elem_is_float(air_ir_type(P->p, t)->elem);
  uint32_t mark = P->n_ixs;
  if (ok && air_parse_accept(P, AIR_TK_COLON)) {
    do {
      bool neg = air_parse_accept(P, AIR_TK_MINUS);
      int64_t v;
      if (P->tok.kind == AIR_TK_INT && !P->tok.overflow) {
        v = neg ? (int64_t)(0 - P->tok.u) : (int64_t)P->tok.u;
      } else if (!neg && (tok_is(&P->tok, "true") || tok_is(&P->tok, "false"))) {
        v = tok_is(&P->tok, "true");
      } else {
        ok = false;
        break;
      }
      air_parse_next(P);
      TRY(air_parse_push_ix(P, 0, v));
    } while (air_parse_accept(P, AIR_TK_COMMA));
  }
  if (!ok || P->tok.kind != AIR_TK_GREATER) {
    P->n_ixs = mark;
    P->lx = lx0;
    P->tok = tok0;
    return air_parse_opaque_attr(P, out);
  }
  air_parse_next(P);
  uint32_t n = P->n_ixs - mark;
  int64_t* ints = n ? air_ir_alloc(P->p, n * sizeof(int64_t)) : NULL;
  if (n && !ints) return air_parse_oom(P);
  for (uint32_t i = 0; i < n; ++i) ints[i] = P->ixs[mark + i].cst;
  P->n_ixs = mark;
  out->kind = AIR_ATTR_DENSE;
  out->type = t;
  out->n = n;
  out->ints = ints;
  return NULL;
}

static air_status_t parse_array(air_parser_t* P, air_attr_t* out) {
  air_parse_next(P);
  uint32_t mark = P->n_attrs;
  if (!air_parse_accept(P, AIR_TK_RSQUARE)) {
    do {
      air_attr_t a;
      TRY(air_parse_attr(P, &a));
      if (!air_parse_grow(P, (void**)&P->attrs, &P->cap_attrs, P->n_attrs + 1,
                          sizeof(air_attr_t)))
        return air_parse_oom(P);
      P->attrs[P->n_attrs++] = a;
    } while (air_parse_accept(P, AIR_TK_COMMA));
    TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' in an array attribute"));
  }
  uint32_t n = P->n_attrs - mark;
  air_attr_t* e = n ? air_ir_alloc(P->p, n * sizeof(air_attr_t)) : NULL;
  if (n && !e) return air_parse_oom(P);
  if (n) memcpy(e, P->attrs + mark, n * sizeof(air_attr_t));
  P->n_attrs = mark;
  out->kind = AIR_ATTR_ARRAY;
  out->n = n;
  out->elems = e;
  return NULL;
}

air_status_t air_parse_dict_entries(air_parser_t* P) {
  TRY(air_parse_expect(P, AIR_TK_LBRACE, "'{' to begin an attribute dictionary"));
  if (air_parse_accept(P, AIR_TK_RBRACE)) return NULL;
  do {
    char* name;
    if (P->tok.kind == AIR_TK_BARE) {
      name = air_ir_strndup(P->p, P->tok.s, P->tok.len);
    } else if (P->tok.kind == AIR_TK_STRING) {
      name = air_ir_alloc(P->p, P->tok.len + 1);
      if (name) name[air_lex_decode_string(&P->tok, name)] = 0;
    } else {
      return air_parse_fail(P, "an attribute name");
    }
    if (!name) return air_parse_oom(P);
    air_parse_next(P);
    air_named_attr_t na;
    memset(&na, 0, sizeof(na));
    na.name = name;
    na.value.kind = AIR_ATTR_UNIT;
    if (air_parse_accept(P, AIR_TK_EQUAL)) TRY(air_parse_attr(P, &na.value));
    if (!air_parse_grow(P, (void**)&P->nattrs, &P->cap_nattrs, P->n_nattrs + 1,
                        sizeof(air_named_attr_t)))
      return air_parse_oom(P);
    P->nattrs[P->n_nattrs++] = na;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return air_parse_expect(P, AIR_TK_RBRACE, "',' or '}' in an attribute dictionary");
}

static air_status_t parse_dict(air_parser_t* P, air_attr_t* out) {
  uint32_t mark = P->n_nattrs;
  TRY(air_parse_dict_entries(P));
  uint32_t n = P->n_nattrs - mark;
  air_named_attr_t* d = n ? air_ir_alloc(P->p, n * sizeof(*d)) : NULL;
  if (n && !d) return air_parse_oom(P);
  if (n) memcpy(d, P->nattrs + mark, n * sizeof(*d));
  P->n_nattrs = mark;
  out->kind = AIR_ATTR_DICT;
  out->n = n;
  out->dict = d;
  return NULL;
}

/* Type names libairrt cannot represent but which are valid attribute values. */
static bool is_foreign_type_name(const air_token_t* t) {
  const char* s = t->s;
  uint32_t n = t->len, i = 0;
  if (tok_is(t, "none") || tok_is(t, "tf32")) return true;
  if (n > 1 && (s[0] == 's' || s[0] == 'u') && s[1] == 'i') i = 1;
  if (s[i] == 'i' && i + 1 < n) {
    for (uint32_t k = i + 1; k < n; ++k)
      if (!is_digit((unsigned char)s[k])) return false;
    return true;
  }
  return i == 0 && s[0] == 'f' && n > 1 && is_digit((unsigned char)s[1]); /* f8E4M3FN */
}

air_status_t air_parse_attr(air_parser_t* P, air_attr_t* out) {
  memset(out, 0, sizeof(*out));
  if (++P->depth > AIR_PARSE_MAX_DEPTH) return PERR_TOK(P, "attribute nesting is too deep");
  air_status_t s = NULL;
  const air_token_t* t = &P->tok;
  switch (t->kind) {
    case AIR_TK_INT:
    case AIR_TK_FLOAT:
    case AIR_TK_MINUS: s = parse_number(P, out); break;
    case AIR_TK_STRING: {
      char* d = air_ir_alloc(P->p, t->len + 1);
      if (!d) return air_parse_oom(P);
      out->kind = AIR_ATTR_STRING;
      out->n = (uint32_t)air_lex_decode_string(t, d);
      d[out->n] = 0;
      out->s = d;
      air_parse_next(P);
      break;
    }
    case AIR_TK_LSQUARE: s = parse_array(P, out); break;
    case AIR_TK_LBRACE: s = parse_dict(P, out); break;
    case AIR_TK_AT: {
      size_t i = skip_ws(&P->lx, P->lx.pos);
      size_t nested = i + 1 < P->lx.len && P->lx.text[i] == ':' && P->lx.text[i + 1] == ':'
                          ? skip_ws(&P->lx, i + 2)
                          : P->lx.len;
      if (nested < P->lx.len && P->lx.text[nested] == '@') {
        /* Nested reference @a::@b: kept as text. */
        size_t from = tok_off(P);
        while (i + 1 < P->lx.len && P->lx.text[i] == ':' && P->lx.text[i + 1] == ':') {
          /* `::` not followed by `@name` is not part of the reference: stop before it
           * (the caller then reports the stray `::`), so the kept text never ends in
           * a separator or the whitespace after it. */
          size_t at = skip_ws(&P->lx, i + 2);
          if (at >= P->lx.len || P->lx.text[at] != '@') break;
          i = at + 1;
          while (i < P->lx.len && (air_lex_is_id_char((unsigned char)P->lx.text[i]) ||
                                   P->lx.text[i] == '-'))
            ++i;
        }
        out->kind = AIR_ATTR_OPAQUE;
        out->s = air_ir_strndup(P->p, P->lx.text + from, i - from);
        out->n = (uint32_t)(i - from);
        if (!out->s) return air_parse_oom(P);
        resume_at(P, i);
        break;
      }
      out->kind = AIR_ATTR_SYMREF;
      out->s = air_parse_sym_dup(P, t);
      if (!out->s) return air_parse_oom(P);
      out->n = (uint32_t)strlen(out->s);
      air_parse_next(P);
      break;
    }
    case AIR_TK_HASH: {
      int32_t a = air_parse_alias_find(P, t->name, t->name_len);
      if (a >= 0 && !tok_followed_by(P, '<')) {
        out->kind = AIR_ATTR_ALIAS;
        out->i = a;
        air_parse_next(P);
      } else if (a < 0 && !tok_followed_by(P, '<') &&
                 !memchr(t->name, '.', t->name_len)) {
        s = PERR_TOK(P, "undefined attribute alias '#%.*s'", (int)t->name_len, t->name);
      } else {
        s = air_parse_opaque_attr(P, out);
      }
      break;
    }
    case AIR_TK_BANG: {
      air_tid_t ty;
      if (try_type(P, &ty)) {
        if (!ty) return air_parse_oom(P);
        out->kind = AIR_ATTR_TYPE;
        out->type = ty;
      } else {
        s = air_parse_opaque_attr(P, out);
      }
      break;
    }
    case AIR_TK_LPAREN: s = air_parse_opaque_attr(P, out); break;
    case AIR_TK_BARE:
      if (tok_is(t, "true") || tok_is(t, "false")) {
        out->kind = AIR_ATTR_BOOL;
        out->i = tok_is(t, "true");
        air_parse_next(P);
      } else if (tok_is(t, "unit")) {
        out->kind = AIR_ATTR_UNIT;
        air_parse_next(P);
      } else if (tok_is(t, "affine_map") || tok_is(t, "affine_set")) {
        s = air_parse_affine(P, out);
      } else if (tok_is(t, "array") && tok_followed_by(P, '<')) {
        s = parse_dense(P, out);
      } else if (air_parse_elem(t->s, t->len) != AIR_ELEM_NONE || tok_is(t, "memref")) {
        air_tid_t ty;
        if (try_type(P, &ty)) {
          if (!ty) return air_parse_oom(P);
          out->kind = AIR_ATTR_TYPE;
          out->type = ty;
        } else {
          s = air_parse_opaque_attr(P, out);
        }
      } else if (tok_followed_by(P, '<') || is_foreign_type_name(t)) {
        s = air_parse_opaque_attr(P, out);
      } else {
        s = PERR_TOK(P, "expected an attribute value, found '%.*s'", (int)t->len, t->s);
      }
      break;
    default: s = air_parse_fail(P, "an attribute value"); break;
  }
  P->depth--;
  return s;
}

/*---------------------------------------------------------------------------*/
/* Affine maps and sets                                                      */
/*---------------------------------------------------------------------------*/

/* Subscripts of affine.load/store name their dimensions and symbols by SSA value:
 * each distinct value becomes the next dimension (or symbol), in order of first
 * use, as MLIR numbers them. */
typedef struct affine_ssa_t {
  air_pref_t dims[MAX_AFFINE_IDS];
  uint32_t n_dims;
  air_pref_t syms[MAX_AFFINE_IDS];
  uint32_t n_syms;
} affine_ssa_t;

typedef struct affine_ids_t {
  const char* dims[MAX_AFFINE_IDS];
  uint32_t dlen[MAX_AFFINE_IDS];
  uint32_t n_dims;
  const char* syms[MAX_AFFINE_IDS];
  uint32_t slen[MAX_AFFINE_IDS];
  uint32_t n_syms;
  affine_ssa_t* ssa; /* non-NULL in subscripts: `%v` and `symbol(%v)` leaves */
} affine_ids_t;

static air_status_t aff_node(air_parser_t* P, air_aff_kind_t k, int64_t v, const air_aff_t* l,
                             const air_aff_t* r, const air_aff_t** out) {
  air_aff_t* e = air_ir_alloc(P->p, sizeof(*e));
  if (!e) return air_parse_oom(P);
  e->kind = k;
  e->value = v;
  e->lhs = l;
  e->rhs = r;
  *out = e;
  return NULL;
}

/* -a. Negated constants fold and double negations cancel, so text the printer wrote
 * (`a - -(b)`, `-5`) parses back to the tree it came from and printing is a fixed
 * point however many minus signs the input stacked up. */
static air_status_t aff_neg(air_parser_t* P, const air_aff_t* a, const air_aff_t** out) {
  if (a->kind == AIR_AFF_CONST && a->value != INT64_MIN)
    return aff_node(P, AIR_AFF_CONST, -a->value, NULL, NULL, out);
  if (a->kind == AIR_AFF_MUL && a->rhs->kind == AIR_AFF_CONST && a->rhs->value == -1) {
    *out = a->lhs;
    return NULL;
  }
  const air_aff_t* m = NULL;
  TRY(aff_node(P, AIR_AFF_CONST, -1, NULL, NULL, &m));
  return aff_node(P, AIR_AFF_MUL, 0, a, m, out);
}

/* a - b, as MLIR builds it: a + b * -1. */
static air_status_t aff_sub(air_parser_t* P, const air_aff_t* a, const air_aff_t* b,
                            const air_aff_t** out) {
  const air_aff_t* nb = NULL;
  TRY(aff_neg(P, b, &nb));
  return aff_node(P, AIR_AFF_ADD, 0, a, nb, out);
}

static air_status_t aff_expr(air_parser_t* P, const affine_ids_t* ids, const air_aff_t** out);

/* `%v` (a dimension) or, with `sym`, the `%v` of `symbol(%v)`; the current token
 * is the value. */
static air_status_t aff_ssa_leaf(air_parser_t* P, affine_ssa_t* ssa, bool sym,
                                 const air_aff_t** out) {
  air_pref_t r;
  TRY(air_parse_ref(P, &r));
  air_pref_t* list = sym ? ssa->syms : ssa->dims;
  uint32_t* n = sym ? &ssa->n_syms : &ssa->n_dims;
  uint32_t pos = 0;
  while (pos < *n && !(list[pos].len == r.len && list[pos].num == r.num &&
                       memcmp(list[pos].s, r.s, r.len) == 0))
    ++pos;
  if (pos == *n) {
    if (*n == MAX_AFFINE_IDS)
      return PERR(P, r.line, r.col, "more than %d distinct %s in affine subscripts",
                  MAX_AFFINE_IDS, sym ? "symbols" : "dimension values");
    list[(*n)++] = r;
  }
  return aff_node(P, sym ? AIR_AFF_SYM : AIR_AFF_DIM, pos, NULL, NULL, out);
}

static air_status_t aff_factor(air_parser_t* P, const affine_ids_t* ids,
                               const air_aff_t** out) {
  if (++P->depth > AIR_PARSE_MAX_DEPTH)
    return PERR_TOK(P, "affine expression nesting is too deep");
  air_status_t s = NULL;
  const air_token_t* t = &P->tok;
  if (t->kind == AIR_TK_MINUS) {
    air_parse_next(P);
    if (P->tok.kind == AIR_TK_INT) {
      if (P->tok.overflow || P->tok.u > (uint64_t)INT64_MAX)
        s = PERR_TOK(P, "integer literal is out of range");
      else
        s = aff_node(P, AIR_AFF_CONST, -(int64_t)P->tok.u, NULL, NULL, out);
      if (!s) air_parse_next(P);
    } else {
      const air_aff_t* a;
      s = aff_factor(P, ids, &a);
      if (!s) s = aff_neg(P, a, out);
    }
  } else if (t->kind == AIR_TK_LPAREN) {
    air_parse_next(P);
    s = aff_expr(P, ids, out);
    if (!s) s = air_parse_expect(P, AIR_TK_RPAREN, "')' in affine expression");
  } else if (t->kind == AIR_TK_INT) {
    if (t->overflow || t->u > (uint64_t)INT64_MAX)
      s = PERR_TOK(P, "integer literal is out of range");
    else
      s = aff_node(P, AIR_AFF_CONST, (int64_t)t->u, NULL, NULL, out);
    if (!s) air_parse_next(P);
  } else if (ids->ssa && t->kind == AIR_TK_PERCENT) {
    s = aff_ssa_leaf(P, ids->ssa, false, out);
  } else if (ids->ssa && tok_is(t, "symbol") && air_parse_peek(P).kind == AIR_TK_LPAREN) {
    air_parse_next(P);
    air_parse_next(P);
    s = aff_ssa_leaf(P, ids->ssa, true, out);
    if (!s) s = air_parse_expect(P, AIR_TK_RPAREN, "')' after the symbol value");
  } else if (t->kind == AIR_TK_BARE) {
    int64_t pos = -1;
    air_aff_kind_t k = AIR_AFF_DIM;
    for (uint32_t i = 0; i < ids->n_dims && pos < 0; ++i)
      if (ids->dlen[i] == t->len && memcmp(ids->dims[i], t->s, t->len) == 0) pos = i;
    for (uint32_t i = 0; i < ids->n_syms && pos < 0; ++i)
      if (ids->slen[i] == t->len && memcmp(ids->syms[i], t->s, t->len) == 0) {
        pos = i;
        k = AIR_AFF_SYM;
      }
    if (pos < 0)
      s = PERR_TOK(P, "use of undeclared identifier '%.*s' in affine expression", (int)t->len,
                   t->s);
    else
      s = aff_node(P, k, pos, NULL, NULL, out);
    if (!s) air_parse_next(P);
  } else {
    s = air_parse_fail(P, "an affine expression");
  }
  P->depth--;
  return s;
}

static air_status_t aff_term(air_parser_t* P, const affine_ids_t* ids, const air_aff_t** out) {
  TRY(aff_factor(P, ids, out));
  for (;;) {
    air_aff_kind_t k;
    if (P->tok.kind == AIR_TK_STAR)
      k = AIR_AFF_MUL;
    else if (tok_is(&P->tok, "floordiv"))
      k = AIR_AFF_FLOORDIV;
    else if (tok_is(&P->tok, "ceildiv"))
      k = AIR_AFF_CEILDIV;
    else if (tok_is(&P->tok, "mod"))
      k = AIR_AFF_MOD;
    else
      return NULL;
    air_parse_next(P);
    const air_aff_t* r;
    TRY(aff_factor(P, ids, &r));
    /* `x * -1` is a negation: folded like `-x`, or `-y * -1` would stay a double
     * negation that prints as `- -y` and parses back as `+ y`. */
    if (k == AIR_AFF_MUL && r->kind == AIR_AFF_CONST && r->value == -1)
      TRY(aff_neg(P, *out, out));
    else
      TRY(aff_node(P, k, 0, *out, r, out));
  }
}

static air_status_t aff_expr(air_parser_t* P, const affine_ids_t* ids, const air_aff_t** out) {
  TRY(aff_term(P, ids, out));
  for (;;) {
    bool minus = P->tok.kind == AIR_TK_MINUS;
    if (!minus && P->tok.kind != AIR_TK_PLUS) return NULL;
    air_parse_next(P);
    const air_aff_t* r;
    TRY(aff_term(P, ids, &r));
    if (minus)
      TRY(aff_sub(P, *out, r, out));
    else
      TRY(aff_node(P, AIR_AFF_ADD, 0, *out, r, out));
  }
}

static air_status_t aff_id_list(air_parser_t* P, air_tk_t close, const char** names,
                                uint32_t* lens, uint32_t* n) {
  *n = 0;
  air_parse_next(P); /* the opener */
  if (air_parse_accept(P, close)) return NULL;
  do {
    if (P->tok.kind != AIR_TK_BARE) return air_parse_fail(P, "a dimension or symbol name");
    if (*n == MAX_AFFINE_IDS)
      return PERR_TOK(P, "more than %d dimensions or symbols", MAX_AFFINE_IDS);
    names[*n] = P->tok.s;
    lens[(*n)++] = P->tok.len;
    air_parse_next(P);
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return air_parse_expect(P, close, close == AIR_TK_RPAREN ? "')' after the dimensions"
                                                           : "']' after the symbols");
}

air_status_t air_parse_affine(air_parser_t* P, air_attr_t* out) {
  bool is_set = tok_is(&P->tok, "affine_set");
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_LESS, is_set ? "'<' after 'affine_set'" : "'<' after 'affine_map'"));
  affine_ids_t ids;
  ids.ssa = NULL;
  if (P->tok.kind != AIR_TK_LPAREN) return air_parse_fail(P, "'(' to begin the dimensions");
  TRY(aff_id_list(P, AIR_TK_RPAREN, ids.dims, ids.dlen, &ids.n_dims));
  ids.n_syms = 0;
  if (P->tok.kind == AIR_TK_LSQUARE)
    TRY(aff_id_list(P, AIR_TK_RSQUARE, ids.syms, ids.slen, &ids.n_syms));
  TRY(air_parse_expect(P, is_set ? AIR_TK_COLON : AIR_TK_ARROW, is_set ? "':'" : "'->'"));
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the expressions"));
  uint32_t mark = P->n_ixs;
  /* Results are gathered as pointers in the ix stack's cst field, with the
   * constraint kind in `value`. */
  if (P->tok.kind != AIR_TK_RPAREN) {
    do {
      const air_aff_t* e;
      TRY(aff_expr(P, &ids, &e));
      bool eq = false;
      if (is_set) {
        air_token_t op = P->tok;
        air_parse_next(P);
        if (op.kind == AIR_TK_EQUAL) eq = true;
        else if (op.kind != AIR_TK_GREATER && op.kind != AIR_TK_LESS) {
          P->tok = op;
          return air_parse_fail(P, "'>=', '<=' or '==' in an affine constraint");
        }
        if (P->tok.kind != AIR_TK_EQUAL) return air_parse_fail(P, "'=' of a comparison");
        air_parse_next(P);
        const air_aff_t* r;
        TRY(aff_expr(P, &ids, &r));
        bool rzero = r->kind == AIR_AFF_CONST && r->value == 0;
        bool lzero = e->kind == AIR_AFF_CONST && e->value == 0;
        if (op.kind == AIR_TK_LESS) {
          if (!lzero) TRY(aff_sub(P, r, e, &e)); else e = r;
        } else if (!rzero) {
          TRY(aff_sub(P, e, r, &e));
        }
      }
      TRY(air_parse_push_ix(P, eq, (int64_t)(intptr_t)e));
    } while (air_parse_accept(P, AIR_TK_COMMA));
  }
  TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after an affine expression"));
  TRY(air_parse_expect(P, AIR_TK_GREATER, "'>' to close the affine map"));
  uint32_t n = P->n_ixs - mark;
  const air_aff_t** exprs = n ? air_ir_alloc(P->p, n * sizeof(*exprs)) : NULL;
  if (n && !exprs) return air_parse_oom(P);
  for (uint32_t i = 0; i < n; ++i) exprs[i] = (const air_aff_t*)(intptr_t)P->ixs[mark + i].cst;
  memset(out, 0, sizeof(*out));
  if (is_set) {
    air_affine_set_t* st = air_ir_alloc(P->p, sizeof(*st));
    bool* eqs = n ? air_ir_alloc(P->p, n * sizeof(bool)) : NULL;
    if (!st || (n && !eqs)) return air_parse_oom(P);
    for (uint32_t i = 0; i < n; ++i) eqs[i] = P->ixs[mark + i].value != 0;
    st->n_dims = ids.n_dims;
    st->n_syms = ids.n_syms;
    st->n_constraints = n;
    st->constraints = exprs;
    st->is_eq = eqs;
    out->kind = AIR_ATTR_SET;
    out->set = st;
  } else {
    air_affine_map_t* m = air_ir_alloc(P->p, sizeof(*m));
    if (!m) return air_parse_oom(P);
    m->n_dims = ids.n_dims;
    m->n_syms = ids.n_syms;
    m->n_results = n;
    m->results = exprs;
    out->kind = AIR_ATTR_MAP;
    out->map = m;
  }
  P->n_ixs = mark;
  return NULL;
}

air_status_t air_parse_affine_subscripts(air_parser_t* P, air_attr_t* out, uint32_t* n_dims,
                                         uint32_t* n_syms) {
  TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin the subscripts"));
  /* On the stack (a few KiB, like affine_ids_t): the arena would keep it for
   * every access of the program. */
  affine_ssa_t ssa_store;
  affine_ssa_t* ssa = &ssa_store;
  ssa->n_dims = ssa->n_syms = 0;
  affine_ids_t ids;
  ids.n_dims = ids.n_syms = 0;
  ids.ssa = ssa;
  uint32_t mark = P->n_ixs;
  if (P->tok.kind != AIR_TK_RSQUARE) {
    do {
      const air_aff_t* e;
      TRY(aff_expr(P, &ids, &e));
      /* Pointers ride in the ix stack's cst field, as in air_parse_affine. */
      TRY(air_parse_push_ix(P, 0, (int64_t)(intptr_t)e));
    } while (air_parse_accept(P, AIR_TK_COMMA));
  }
  TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' after a subscript"));
  uint32_t n = P->n_ixs - mark;
  const air_aff_t** exprs = n ? air_ir_alloc(P->p, n * sizeof(*exprs)) : NULL;
  air_affine_map_t* m = air_ir_alloc(P->p, sizeof(*m));
  if ((n && !exprs) || !m) return air_parse_oom(P);
  for (uint32_t i = 0; i < n; ++i) exprs[i] = (const air_aff_t*)(intptr_t)P->ixs[mark + i].cst;
  P->n_ixs = mark;
  m->n_dims = ssa->n_dims;
  m->n_syms = ssa->n_syms;
  m->n_results = n;
  m->results = exprs;
  memset(out, 0, sizeof(*out));
  out->kind = AIR_ATTR_MAP;
  out->map = m;
  for (uint32_t i = 0; i < ssa->n_dims; ++i) TRY(air_parse_push_ref(P, &ssa->dims[i]));
  for (uint32_t i = 0; i < ssa->n_syms; ++i) TRY(air_parse_push_ref(P, &ssa->syms[i]));
  *n_dims = ssa->n_dims;
  *n_syms = ssa->n_syms;
  return NULL;
}

air_status_t air_parse_map_ref(air_parser_t* P, air_attr_kind_t want, air_attr_t* out,
                               const air_attr_t** resolved) {
  const char* what = want == AIR_ATTR_MAP ? "an affine map" : "an integer set";
  air_token_t at = P->tok;
  if (P->tok.kind == AIR_TK_HASH) {
    int32_t a = air_parse_alias_find(P, P->tok.name, P->tok.name_len);
    if (a < 0)
      return PERR_TOK(P, "undefined attribute alias '#%.*s'", (int)P->tok.name_len,
                      P->tok.name);
    memset(out, 0, sizeof(*out));
    out->kind = AIR_ATTR_ALIAS;
    out->i = a;
    air_parse_next(P);
  } else if (tok_is(&P->tok, want == AIR_ATTR_MAP ? "affine_map" : "affine_set")) {
    TRY(air_parse_affine(P, out));
  } else {
    return air_parse_fail(P, what);
  }
  *resolved = air_ir_attr_resolve(P->p, out);
  if (!*resolved || (*resolved)->kind != want)
    return PERR(P, at.line, at.col, "'%.*s' is not %s", (int)at.len, at.s, what);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Alias definitions                                                         */
/*---------------------------------------------------------------------------*/

static uint32_t alias_hash(const char* s, uint32_t len) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h ^ (h >> 16);
}

int32_t air_parse_alias_find(const air_parser_t* P, const char* name, uint32_t len) {
  if (!P->cap_alias_slots) return -1;
  uint32_t mask = P->cap_alias_slots - 1;
  for (uint32_t i = alias_hash(name, len) & mask; P->alias_slots[i] >= 0; i = (i + 1) & mask) {
    const char* n = P->p->aliases[P->alias_slots[i]].name;
    if (strncmp(n, name, len) == 0 && n[len] == 0) return P->alias_slots[i];
  }
  return -1;
}

/* Records alias `index` in the name table, growing it to stay half empty. */
static bool alias_index(air_parser_t* P, int32_t index) {
  if ((uint32_t)index * 2 + 2 > P->cap_alias_slots) {
    uint32_t cap = P->cap_alias_slots ? P->cap_alias_slots * 2 : 64;
    int32_t* t = P->p->allocator.alloc(P->p->allocator.self, cap * sizeof(int32_t));
    if (!t) return false;
    memset(t, 0xff, cap * sizeof(int32_t));
    P->p->allocator.free(P->p->allocator.self, P->alias_slots);
    P->alias_slots = t;
    P->cap_alias_slots = cap;
    for (int32_t k = 0; k < index; ++k) {
      const char* n = P->p->aliases[k].name;
      uint32_t i = alias_hash(n, (uint32_t)strlen(n)) & (cap - 1);
      while (t[i] >= 0) i = (i + 1) & (cap - 1);
      t[i] = k;
    }
  }
  const char* n = P->p->aliases[index].name;
  uint32_t mask = P->cap_alias_slots - 1, i = alias_hash(n, (uint32_t)strlen(n)) & mask;
  while (P->alias_slots[i] >= 0) i = (i + 1) & mask;
  P->alias_slots[i] = index;
  return true;
}

air_status_t air_parse_alias_def(air_parser_t* P) {
  air_token_t name = P->tok;
  air_parse_next(P);
  if (P->tok.kind != AIR_TK_EQUAL)
    return air_parse_fail(P, name.kind == AIR_TK_HASH ? "'=' in an attribute alias definition"
                                                      : "'=' in a type alias definition");
  P->lx.keep_loc = true;
  air_parse_next(P);
  P->lx.keep_loc = false;
  if (name.kind == AIR_TK_BANG) {
    for (uint32_t i = 0; i < P->n_talias; ++i)
      if (P->talias[i].len == name.name_len &&
          memcmp(P->talias[i].s, name.name, name.name_len) == 0)
        return PERR(P, name.line, name.col, "redefinition of type alias '!%.*s'",
                    (int)name.name_len, name.name);
    air_tid_t t;
    TRY(air_parse_type(P, &t));
    if (!air_parse_grow(P, (void**)&P->talias, &P->cap_talias, P->n_talias + 1,
                        sizeof(air_ptalias_t)))
      return air_parse_oom(P);
    air_ptalias_t* a = &P->talias[P->n_talias++];
    a->s = name.name;
    a->len = name.name_len;
    a->type = t;
    return NULL;
  }
  if (tok_is(&P->tok, "loc") && tok_followed_by(P, '(')) {
    /* `#loc1 = loc(...)`: source locations are not kept. */
    size_t end;
    if (!air_lex_balanced_end(&P->lx, tok_off(P) + 3, &end))
      return PERR_TOK(P, "unterminated location 'loc(...)'");
    resume_at(P, end);
    return NULL;
  }
  if (air_parse_alias_find(P, name.name, name.name_len) >= 0)
    return PERR(P, name.line, name.col, "redefinition of attribute alias '#%.*s'",
                (int)name.name_len, name.name);
  air_attr_t v;
  TRY(air_parse_attr(P, &v));
  char buf[256];
  if (name.name_len >= sizeof buf)
    return PERR(P, name.line, name.col, "alias name is too long");
  memcpy(buf, name.name, name.name_len);
  buf[name.name_len] = 0;
  int32_t index = air_ir_alias_add(P->p, buf, &v);
  if (index < 0 || !alias_index(P, index)) return air_parse_oom(P);
  return NULL;
}

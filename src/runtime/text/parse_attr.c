/* parse_attr.c - attributes: numbers, strings, arrays, dictionaries, symbol
 * references, types as values, references to affine maps and sets, and the
 * `#name = ...` / `!name = ...` alias definitions.
 *
 * Attributes libairrt does not interpret (dialect attributes, dense<...>, types
 * it cannot represent) are kept as OPAQUE with their balanced source text, so
 * they print back unchanged; only malformed text is an error. */
#include "runtime/text/parse_attr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/text/parse_affine.h"
#include "runtime/text/parse_type.h"

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/*---------------------------------------------------------------------------*/
/* Alias names                                                               */
/*---------------------------------------------------------------------------*/

static uint32_t alias_hash(const char* s, uint32_t len) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h ^ (h >> 16);
}

/* The index of alias `#name` in program->aliases, or -1. */
static int32_t alias_find(const air_parser_t* P, const char* name, uint32_t len) {
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
    int32_t* t = air_mem_alloc(&P->p->allocator, cap * sizeof(int32_t));
    if (!t) return false;
    memset(t, 0xff, cap * sizeof(int32_t));
    air_mem_free(&P->p->allocator, P->alias_slots);
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

static air_status_t opaque_attr(air_parser_t* P, air_attr_t* out) {
  const air_lexer_t* lx = &P->lx;
  size_t from = air_parse_tok_off(P), end;
  if (P->tok.kind == AIR_TK_LPAREN) {
    end = type_text_end(lx, from);
    if (!end) return PERR_TOK(P, "unbalanced brackets in attribute");
  } else {
    end = from + P->tok.len;
    if (end < lx->len && lx->text[end] == '<' && !air_lex_balanced_end(lx, end, &end))
      return PERR_TOK(P, "unbalanced brackets in attribute '%s'", air_parse_q(P, P->tok.s, P->tok.len));
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
  air_parse_resume_at(P, end);
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

/* A type used as an attribute (`!air.token`, `f32`, `memref<4xf32>`); text that
 * does not parse as a type the parser knows is kept opaque. */
static air_status_t type_attr(air_parser_t* P, air_attr_t* out) {
  air_tid_t ty;
  if (!try_type(P, &ty)) return opaque_attr(P, out);
  if (!ty) return air_parse_oom(P);
  out->kind = AIR_ATTR_TYPE;
  out->type = ty;
  return NULL;
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
    air_parse_resume_at(P, end);
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
      } else if (!neg && (air_parse_tok_is(&P->tok, "true") ||
                          air_parse_tok_is(&P->tok, "false"))) {
        v = air_parse_tok_is(&P->tok, "true");
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
    return opaque_attr(P, out);
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
      TRY(air_parse_push_attr(P, &a));
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
    TRY(air_parse_push_nattr(P, &na));
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
  if (air_parse_tok_is(t, "none") || air_parse_tok_is(t, "tf32")) return true;
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
        size_t from = air_parse_tok_off(P);
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
        air_parse_resume_at(P, i);
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
      int32_t a = alias_find(P, t->name, t->name_len);
      if (a >= 0 && !air_parse_tok_followed_by(P, '<')) {
        out->kind = AIR_ATTR_ALIAS;
        out->i = a;
        air_parse_next(P);
      } else if (a < 0 && !air_parse_tok_followed_by(P, '<') &&
                 !memchr(t->name, '.', t->name_len)) {
        s = PERR_TOK(P, "undefined attribute alias '#%s'", air_parse_q(P, t->name, t->name_len));
      } else {
        s = opaque_attr(P, out);
      }
      break;
    }
    case AIR_TK_BANG: s = type_attr(P, out); break;
    case AIR_TK_LPAREN: s = opaque_attr(P, out); break;
    case AIR_TK_BARE:
      if (air_parse_tok_is(t, "true") || air_parse_tok_is(t, "false")) {
        out->kind = AIR_ATTR_BOOL;
        out->i = air_parse_tok_is(t, "true");
        air_parse_next(P);
      } else if (air_parse_tok_is(t, "unit")) {
        out->kind = AIR_ATTR_UNIT;
        air_parse_next(P);
      } else if (air_parse_tok_is(t, "affine_map") || air_parse_tok_is(t, "affine_set")) {
        s = air_parse_affine(P, out);
      } else if (air_parse_tok_is(t, "array") && air_parse_tok_followed_by(P, '<')) {
        s = parse_dense(P, out);
      } else if (air_parse_elem(t->s, t->len) != AIR_ELEM_NONE || air_parse_tok_is(t, "memref")) {
        s = type_attr(P, out);
      } else if (air_parse_tok_followed_by(P, '<') || is_foreign_type_name(t)) {
        s = opaque_attr(P, out);
      } else {
        s = PERR_TOK(P, "expected an attribute value, found '%s'", air_parse_q(P, t->s, t->len));
      }
      break;
    default: s = air_parse_fail(P, "an attribute value"); break;
  }
  P->depth--;
  return s;
}

air_status_t air_parse_map_ref(air_parser_t* P, air_attr_kind_t want, air_attr_t* out,
                               const air_attr_t** resolved) {
  const char* what = want == AIR_ATTR_MAP ? "an affine map" : "an integer set";
  air_token_t at = P->tok;
  if (P->tok.kind == AIR_TK_HASH) {
    int32_t a = alias_find(P, P->tok.name, P->tok.name_len);
    if (a < 0)
      return PERR_TOK(P, "undefined attribute alias '#%s'", air_parse_q(P, P->tok.name, P->tok.name_len));
    memset(out, 0, sizeof(*out));
    out->kind = AIR_ATTR_ALIAS;
    out->i = a;
    air_parse_next(P);
  } else if (air_parse_tok_is(&P->tok, want == AIR_ATTR_MAP ? "affine_map" : "affine_set")) {
    TRY(air_parse_affine(P, out));
  } else {
    return air_parse_fail(P, what);
  }
  *resolved = air_ir_attr_resolve(P->p, out);
  if (!*resolved || (*resolved)->kind != want)
    return PERR(P, at.line, at.col, "'%s' is not %s", air_parse_q(P, at.s, at.len), what);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Alias definitions                                                         */
/*---------------------------------------------------------------------------*/

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
        return PERR(P, name.line, name.col, "redefinition of type alias '!%s'",
                    air_parse_q(P, name.name, name.name_len));
    air_tid_t t;
    TRY(air_parse_type(P, &t));
    if (!air_mem_grow(&P->p->allocator, (void**)&P->talias, &P->cap_talias,
                      (size_t)P->n_talias + 1, sizeof(air_ptalias_t)))
      return air_parse_oom(P);
    air_ptalias_t* a = &P->talias[P->n_talias++];
    a->s = name.name;
    a->len = name.name_len;
    a->type = t;
    return NULL;
  }
  if (air_parse_tok_is(&P->tok, "loc") && air_parse_tok_followed_by(P, '(')) {
    /* `#loc1 = loc(...)`: source locations are not kept. */
    size_t end;
    if (!air_lex_balanced_end(&P->lx, air_parse_tok_off(P) + 3, &end))
      return PERR_TOK(P, "unterminated location 'loc(...)'");
    air_parse_resume_at(P, end);
    return NULL;
  }
  if (alias_find(P, name.name, name.name_len) >= 0)
    return PERR(P, name.line, name.col, "redefinition of attribute alias '#%s'",
                air_parse_q(P, name.name, name.name_len));
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

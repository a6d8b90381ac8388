/* lex.c - the tokenizer for AIR text (see lex.h). */
#include "runtime/text/lex.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BRACKET_DEPTH = 1024, MAX_FLOAT_CHARS = 127 };

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_hex(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int hex_val(int c) {
  return is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}
bool air_lex_is_id_char(int c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.';
}
/* Value and block names may also hold '-' and start with a digit. */
static bool is_suffix_char(int c) { return air_lex_is_id_char(c) || c == '-'; }

void air_lex_init(air_lexer_t* lx, const char* text, size_t len, uint32_t first_line) {
  memset(lx, 0, sizeof(*lx));
  lx->text = text;
  lx->len = len;
  lx->line = first_line ? first_line : 1;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte-order mark */
    lx->pos = lx->line_start = 3;
}

void air_lex_advance(air_lexer_t* lx, size_t to) {
  if (to > lx->len) to = lx->len;
  for (size_t i = lx->pos; i < to; ++i) {
    if (lx->text[i] == '\n') {
      lx->line++;
      lx->line_start = i + 1;
    }
  }
  if (to > lx->pos) lx->pos = to;
}

void air_lex_skip_space(air_lexer_t* lx) {
  const char* t = lx->text;
  size_t i = lx->pos, n = lx->len;
  for (;;) {
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n' ||
                     t[i] == '\f' || t[i] == '\v')) {
      if (t[i] == '\n') {
        lx->line++;
        lx->line_start = i + 1;
      }
      ++i;
    }
    if (i + 1 < n && t[i] == '/' && t[i + 1] == '/') {
      /* A NUL ends the comment so the lexer reports it: text holding NULs
       * could not be printed back. */
      while (i < n && t[i] != '\n' && t[i] != 0) ++i;
      continue;
    }
    break;
  }
  lx->pos = i;
}

/* Skips a string starting at the quote `i`; returns the index after the closing
 * quote, or SIZE_MAX when it is unterminated (strings do not span lines). */
static size_t skip_string(const char* t, size_t i, size_t n) {
  for (++i; i < n; ++i) {
    if (t[i] == '\\' && i + 1 < n && t[i + 1] != 0 && t[i + 1] != '\n') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    } else if (t[i] == '\n' || t[i] == 0) {
      return SIZE_MAX;
    }
  }
  return SIZE_MAX;
}

bool air_lex_balanced_end(const air_lexer_t* lx, size_t from, size_t* out_end) {
  const char* t = lx->text;
  size_t n = lx->len;
  char stack[MAX_BRACKET_DEPTH];
  int depth = 0;
  for (size_t i = from; i < n;) {
    char c = t[i];
    if (c == '"') {
      size_t e = skip_string(t, i, n);
      if (e == SIZE_MAX) return false;
      i = e;
      continue;
    }
    if (c == 0) return false;
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      while (i < n && t[i] != '\n' && t[i] != 0) ++i;
      continue;
    }
    if (c == '-' && i + 1 < n && t[i + 1] == '>') {
      i += 2;
      continue;
    }
    if (c == '<' && i + 1 < n && t[i + 1] == '=' && depth > 0) {
      i += 2; /* `<=` of an affine constraint */
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (depth == MAX_BRACKET_DEPTH) return false;
      stack[depth++] = c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == '>') {
      /* Only closes an angle bracket; inside (...) it is a comparison. */
      if (depth > 0 && stack[depth - 1] == '>') {
        if (--depth == 0) {
          *out_end = i + 1;
          return true;
        }
      }
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 || stack[depth - 1] != c) return false;
      if (--depth == 0) {
        *out_end = i + 1;
        return true;
      }
    } else if (depth == 0) {
      return false; /* must start with an opener */
    }
    ++i;
  }
  return false;
}

size_t air_lex_decode_string(const air_token_t* tok, char* dst) {
  const char* s = tok->s + 1;
  const char* e = tok->s + (tok->len >= 2 ? tok->len - 1 : 1);
  size_t n = 0;
  while (s < e) {
    char c = *s++;
    if (c != '\\' || s >= e) {
      dst[n++] = c;
      continue;
    }
    char d = *s++;
    if (d == 'n') {
      dst[n++] = '\n';
    } else if (d == 't') {
      dst[n++] = '\t';
    } else if (d == 'r') {
      dst[n++] = '\r';
    } else if (is_hex((unsigned char)d) && s < e && is_hex((unsigned char)*s)) {
      dst[n++] = (char)(hex_val((unsigned char)d) * 16 + hex_val((unsigned char)*s));
      ++s;
    } else {
      dst[n++] = d; /* \" \\ and anything else stand for themselves */
    }
  }
  return n;
}

static void set_error(air_token_t* out, const char* msg) {
  out->kind = AIR_TK_ERROR;
  out->err = msg;
}

static void lex_number(air_lexer_t* lx, air_token_t* out) {
  const char* t = lx->text;
  size_t i = lx->pos, n = lx->len;
  if (t[i] == '0' && i + 2 < n && (t[i + 1] == 'x' || t[i + 1] == 'X') &&
      is_hex((unsigned char)t[i + 2])) {
    uint64_t u = 0;
    i += 2;
    while (i < n && is_hex((unsigned char)t[i])) {
      if (u >> 60) out->overflow = true;
      u = (u << 4) | (uint64_t)hex_val((unsigned char)t[i]);
      ++i;
    }
    out->kind = AIR_TK_INT;
    out->hex = true;
    out->u = out->overflow ? UINT64_MAX : u;
    lx->pos = i;
    return;
  }
  uint64_t u = 0;
  while (i < n && is_digit((unsigned char)t[i])) {
    unsigned d = (unsigned)(t[i] - '0');
    if (u > (UINT64_MAX - d) / 10) out->overflow = true;
    u = u * 10 + d;
    ++i;
  }
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && is_digit((unsigned char)t[i])) ++i;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
      size_t j = i + 1;
      if (j < n && (t[j] == '+' || t[j] == '-')) ++j;
      if (j < n && is_digit((unsigned char)t[j])) {
        i = j;
        while (i < n && is_digit((unsigned char)t[i])) ++i;
      }
    }
    size_t len = i - lx->pos;
    lx->pos = i;
    if (len > MAX_FLOAT_CHARS) {
      set_error(out, "floating point literal is too long");
      return;
    }
    char buf[MAX_FLOAT_CHARS + 1];
    memcpy(buf, t + (i - len), len);
    buf[len] = 0;
    out->kind = AIR_TK_FLOAT;
    out->f = strtod(buf, NULL);
    return;
  }
  out->kind = AIR_TK_INT;
  out->u = out->overflow ? UINT64_MAX : u;
  lx->pos = i;
}

/* Lexes the name after a sigil at `i` into out->name; `suffix` allows value-name
 * characters ('-', leading digits). Returns the end index. */
static size_t lex_name(const char* t, size_t i, size_t n, bool suffix) {
  if (i >= n) return i;
  unsigned char c = (unsigned char)t[i];
  if (suffix && is_digit(c)) {
    while (i < n && is_digit((unsigned char)t[i])) ++i;
    return i;
  }
  if (!(is_alpha(c) || c == '_' || c == '$' || c == '.' || (suffix && c == '-'))) return i;
  while (i < n && (suffix ? is_suffix_char((unsigned char)t[i])
                          : air_lex_is_id_char((unsigned char)t[i])))
    ++i;
  return i;
}

void air_lex_next(air_lexer_t* lx, air_token_t* out) {
  const char* t = lx->text;
  size_t n = lx->len;
restart:
  air_lex_skip_space(lx);
  memset(out, 0, sizeof(*out));
  out->resno = -1;
  out->line = lx->line;
  out->col = air_lex_col(lx);
  size_t start = lx->pos;
  out->s = t + start;
  if (start >= n) {
    out->kind = AIR_TK_EOF;
    return;
  }
  unsigned char c = (unsigned char)t[start];
  size_t i = start + 1;
  if (is_alpha(c) || c == '_') {
    while (i < n && air_lex_is_id_char((unsigned char)t[i])) ++i;
    if (!lx->keep_loc && i - start == 3 && memcmp(t + start, "loc", 3) == 0 && i < n &&
        t[i] == '(') {
      size_t e;
      if (!air_lex_balanced_end(lx, i, &e)) {
        lx->pos = i;
        set_error(out, "unterminated location 'loc(...)'");
        out->len = 3;
        return;
      }
      air_lex_advance(lx, e);
      goto restart;
    }
    out->kind = AIR_TK_BARE;
    lx->pos = i;
  } else if (is_digit(c)) {
    lex_number(lx, out);
  } else if (c == '%' || c == '^' || c == '#' || c == '!' || c == '@') {
    bool suffix = c == '%' || c == '^' || c == '@';
    if (c == '@' && i < n && t[i] == '"') {
      size_t e = skip_string(t, i, n);
      if (e == SIZE_MAX) {
        lx->pos = n;
        set_error(out, "unterminated string");
        return;
      }
      out->name = t + i + 1;
      out->name_len = (uint32_t)(e - i - 2);
      out->quoted = true;
      i = e;
    } else {
      size_t e = lex_name(t, i, n, suffix);
      if (e == i) {
        lx->pos = i;
        set_error(out, c == '%'   ? "expected a value name after '%'"
                       : c == '^' ? "expected a block name after '^'"
                       : c == '@' ? "expected a symbol name after '@'"
                       : c == '#' ? "expected an attribute name after '#'"
                                  : "expected a type name after '!'");
        out->len = 1;
        return;
      }
      out->name = t + i;
      out->name_len = (uint32_t)(e - i);
      i = e;
    }
    out->kind = c == '%'   ? AIR_TK_PERCENT
                : c == '^' ? AIR_TK_CARET
                : c == '#' ? AIR_TK_HASH
                : c == '!' ? AIR_TK_BANG
                           : AIR_TK_AT;
    if (c == '%' && i + 1 < n && t[i] == '#' && is_digit((unsigned char)t[i + 1])) {
      uint64_t r = 0;
      for (++i; i < n && is_digit((unsigned char)t[i]); ++i) {
        r = r * 10 + (unsigned)(t[i] - '0');
        if (r > INT32_MAX) r = INT32_MAX;
      }
      out->resno = (int32_t)r;
    }
    lx->pos = i;
  } else if (c == '"') {
    size_t e = skip_string(t, start, n);
    if (e == SIZE_MAX) {
      lx->pos = n;
      set_error(out, "unterminated string");
      out->len = 1;
      return;
    }
    out->kind = AIR_TK_STRING;
    lx->pos = e;
  } else {
    air_tk_t k;
    switch (c) {
      case '(': k = AIR_TK_LPAREN; break;
      case ')': k = AIR_TK_RPAREN; break;
      case '[': k = AIR_TK_LSQUARE; break;
      case ']': k = AIR_TK_RSQUARE; break;
      case '{':
        k = AIR_TK_LBRACE;
        if (i + 1 < n && t[i] == '-' && t[i + 1] == '#') {
          k = AIR_TK_FILE_META;
          i += 2;
        }
        break;
      case '}': k = AIR_TK_RBRACE; break;
      case '<': k = AIR_TK_LESS; break;
      case '>': k = AIR_TK_GREATER; break;
      case ',': k = AIR_TK_COMMA; break;
      case ':': k = AIR_TK_COLON; break;
      case '=': k = AIR_TK_EQUAL; break;
      case '*': k = AIR_TK_STAR; break;
      case '+': k = AIR_TK_PLUS; break;
      case '?': k = AIR_TK_QUESTION; break;
      case '-':
        k = AIR_TK_MINUS;
        if (i < n && t[i] == '>') {
          k = AIR_TK_ARROW;
          ++i;
        }
        break;
      default:
        lx->pos = i;
        out->len = 1;
        set_error(out, "unexpected character");
        return;
    }
    out->kind = k;
    lx->pos = i;
  }
  out->len = (uint32_t)(lx->pos - start);
}

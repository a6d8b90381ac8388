/* aie_read.c - the generic op-tree reader for mlir-aie text (see aie_read.h). */
#include "npu/aie_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

enum { MAX_REGION_DEPTH = 128, MAX_BRACKETS = 256 };

bool aie_span_is(aie_span_t s, const char* lit) {
  size_t n = strlen(lit);
  return s.len == n && memcmp(s.s, lit, n) == 0;
}

bool aie_span_eq(aie_span_t a, aie_span_t b) {
  return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

air_status_t aie_error(const aie_module_t* m, uint32_t line, uint32_t col, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(m->allocator, AIR_STATUS_INVALID_ARGUMENT, "%s:%u:%u: error: %s",
                    m->display, line, col, msg);
}

/*--- the op tree ------------------------------------------------------------------*/

typedef struct reader_t {
  aie_module_t* m;
  air_lexer_t lx;
  air_token_t tok;
  aie_span_t label; /* a block label waiting for its first op */
} reader_t;

static uint32_t tok_col(const air_token_t* t) { return t->col; }

static void next(reader_t* r) { air_lex_next(&r->lx, &r->tok); }

/* The line of the token after the current one (EOF: UINT32_MAX). */
static uint32_t peek_line(const reader_t* r) {
  air_lexer_t copy = r->lx;
  air_token_t t;
  air_lex_next(&copy, &t);
  return t.kind == AIR_TK_EOF ? UINT32_MAX : t.line;
}

static air_status_t tok_error(reader_t* r, const char* fmt, const char* arg) {
  return aie_error(r->m, r->tok.line, tok_col(&r->tok), fmt, arg);
}

static air_status_t lex_error(reader_t* r) {
  return aie_error(r->m, r->tok.line, tok_col(&r->tok), "%s", r->tok.err ? r->tok.err : "bad token");
}

static air_status_t new_op(reader_t* r, uint32_t parent, uint32_t* prev, uint32_t* out) {
  aie_module_t* m = r->m;
  if (!air_mem_grow(m->allocator, (void**)&m->ops, &m->cap_ops, (size_t)m->n_ops + 1,
                    sizeof *m->ops))
    return AIR_STATUS_OOM(m->allocator, "mlir-aie operations");
  uint32_t i = m->n_ops++;
  aie_op_t* op = &m->ops[i];
  memset(op, 0, sizeof *op);
  op->parent = parent;
  op->first_child = op->next = AIE_NONE;
  if (*prev != AIE_NONE) {
    m->ops[*prev].next = i;
  } else if (parent != AIE_NONE) {
    m->ops[parent].first_child = i;
  } else {
    m->first = i;
  }
  *prev = i;
  *out = i;
  return NULL;
}

static air_status_t read_region(reader_t* r, uint32_t parent, int depth, uint32_t open_line,
                               uint32_t* prev, uint32_t* close_line);

static bool is_open(air_tk_t k) {
  return k == AIR_TK_LPAREN || k == AIR_TK_LSQUARE || k == AIR_TK_LBRACE;
}
static bool is_close(air_tk_t k) {
  return k == AIR_TK_RPAREN || k == AIR_TK_RSQUARE || k == AIR_TK_RBRACE;
}
static air_tk_t opener_of(air_tk_t k) {
  return k == AIR_TK_RPAREN ? AIR_TK_LPAREN : k == AIR_TK_RSQUARE ? AIR_TK_LSQUARE : AIR_TK_LBRACE;
}

static air_status_t read_op(reader_t* r, uint32_t parent, uint32_t* prev, int depth) {
  air_token_t start = r->tok;
  aie_span_t result = {NULL, 0};
  if (r->tok.kind == AIR_TK_PERCENT) { /* %a, %b:2 = */
    result.s = r->tok.name;
    result.len = r->tok.name_len;
    while (r->tok.kind == AIR_TK_PERCENT) {
      next(r);
      if (r->tok.kind == AIR_TK_COLON) {
        next(r);
        if (r->tok.kind != AIR_TK_INT) return tok_error(r, "expected a result count%s", "");
        next(r);
      }
      if (r->tok.kind != AIR_TK_COMMA) break;
      next(r);
    }
    if (r->tok.kind != AIR_TK_EQUAL) return tok_error(r, "expected '=' after the result names%s", "");
    next(r);
  }
  air_token_t name = r->tok;
  if (name.kind == AIR_TK_ERROR) return lex_error(r);
  if (name.kind != AIR_TK_BARE && name.kind != AIR_TK_STRING && name.kind != AIR_TK_HASH &&
      name.kind != AIR_TK_BANG)
    return aie_error(r->m, name.line, name.col, "expected an operation, found '%.*s'",
                     (int)(name.len > 40 ? 40 : name.len), name.s);
  uint32_t idx = 0;
  AIR_RETURN_IF_ERROR(new_op(r, parent, prev, &idx));
  aie_op_t* op = &r->m->ops[idx];
  op->name.s = name.s;
  op->name.len = name.len;
  op->result = result;
  op->label = r->label;
  r->label.s = NULL;
  r->label.len = 0;
  op->line = start.line;
  op->col = start.col;
  op->head = (size_t)(name.s + name.len - r->m->text);
  op->head_line = name.line;
  op->head_line_start = r->lx.line_start;
  size_t head_end = SIZE_MAX;
  uint32_t last_line = name.line;
  air_tk_t stack[MAX_BRACKETS];
  int sp = 0;
  uint32_t prev_child = AIE_NONE;
  next(r);
  for (;;) {
    air_tk_t k = r->tok.kind;
    if (k == AIR_TK_ERROR) return lex_error(r);
    if (k == AIR_TK_EOF || k == AIR_TK_FILE_META) {
      if (sp > 0)
        return aie_error(r->m, r->tok.line, r->tok.col, "unexpected end of input inside '%.*s' "
                         "(an open bracket is never closed)", (int)name.len, name.s);
      break;
    }
    if (sp == 0 && (r->tok.line > last_line || k == AIR_TK_RBRACE)) break;
    if (k == AIR_TK_LBRACE && peek_line(r) > r->tok.line) {
      /* A region: its ops are this op's children. */
      if (depth + 1 >= MAX_REGION_DEPTH) return tok_error(r, "regions are nested too deep%s", "");
      if (head_end == SIZE_MAX) head_end = (size_t)(r->tok.s - r->m->text);
      uint32_t open_line = r->tok.line;
      next(r);
      /* The ops of every region of this op are its children, in order. */
      uint32_t close_line;
      AIR_RETURN_IF_ERROR(read_region(r, idx, depth + 1, open_line, &prev_child, &close_line));
      last_line = close_line;
      op = &r->m->ops[idx];
      op->tail = (size_t)(r->tok.s - r->m->text);
      op->tail_line = r->tok.line;
      op->tail_line_start = r->lx.line_start;
      continue;
    }
    if (is_open(k)) {
      if (sp == MAX_BRACKETS) return tok_error(r, "brackets are nested too deep%s", "");
      stack[sp++] = k;
    } else if (is_close(k)) {
      if (sp == 0 || stack[sp - 1] != opener_of(k))
        return aie_error(r->m, r->tok.line, r->tok.col, "unbalanced '%.*s' in operation '%.*s'",
                         (int)r->tok.len, r->tok.s, (int)name.len, name.s);
      --sp;
    }
    last_line = r->tok.line;
    next(r);
  }
  op = &r->m->ops[idx];
  size_t op_end = (size_t)(r->tok.s - r->m->text);
  op->head_end = head_end != SIZE_MAX ? head_end : op_end;
  if (op->head_end < op->head) op->head_end = op->head;
  if (head_end == SIZE_MAX || op->tail > op_end) op->tail = op_end;
  op->tail_end = op_end;
  return NULL;
}

/* Reads ops up to the '}' closing a region (depth > 0) or the end of input. */
static air_status_t read_region(reader_t* r, uint32_t parent, int depth, uint32_t open_line,
                               uint32_t* prev, uint32_t* close_line) {
  for (;;) {
    air_tk_t k = r->tok.kind;
    if (k == AIR_TK_ERROR) return lex_error(r);
    if (k == AIR_TK_EOF || k == AIR_TK_FILE_META) {
      if (depth > 0)
        return aie_error(r->m, r->tok.line, r->tok.col,
                         "unexpected end of input: the region opened at line %u is not closed",
                         open_line);
      return NULL; /* a trailing {-# ... #-} resource block is not needed */
    }
    if (k == AIR_TK_RBRACE) {
      if (depth == 0) return tok_error(r, "unmatched '}'%s", "");
      *close_line = r->tok.line;
      next(r);
      return NULL;
    }
    if (k == AIR_TK_CARET) { /* ^bb1(%a: i32):  a block label */
      r->label.s = r->tok.name;
      r->label.len = r->tok.name_len;
      next(r);
      int sp = 0;
      while (r->tok.kind != AIR_TK_EOF && !(sp == 0 && r->tok.kind == AIR_TK_COLON)) {
        if (r->tok.kind == AIR_TK_ERROR) return lex_error(r);
        if (r->tok.kind == AIR_TK_LPAREN) ++sp;
        if (r->tok.kind == AIR_TK_RPAREN && --sp < 0) return tok_error(r, "unbalanced ')'%s", "");
        next(r);
      }
      if (r->tok.kind != AIR_TK_COLON) return tok_error(r, "expected ':' after a block label%s", "");
      next(r);
      continue;
    }
    AIR_RETURN_IF_ERROR(read_op(r, parent, prev, depth));
  }
}

air_status_t aie_module_read(const air_allocator_t* a, const char* text, size_t len,
                             const char* display, aie_module_t* out) {
  memset(out, 0, sizeof *out);
  out->allocator = a;
  out->text = text;
  out->len = len;
  out->display = display;
  out->first = AIE_NONE;
  reader_t r = {out, {0}, {0}, {NULL, 0}};
  air_lex_init(&r.lx, text, len, 1);
  next(&r);
  uint32_t prev = AIE_NONE, close_line = 0;
  air_status_t s = read_region(&r, AIE_NONE, 0, 0, &prev, &close_line);
  if (s) aie_module_free(out);
  return s;
}

void aie_module_free(aie_module_t* m) {
  if (m->allocator) air_mem_free(m->allocator, m->ops);
  m->ops = NULL;
  m->n_ops = m->cap_ops = 0;
}

/*--- cursor ---------------------------------------------------------------------*/

void aie_cur_init(aie_cur_t* c, const aie_module_t* m, const aie_op_t* op) {
  c->m = m;
  air_lex_init(&c->lx, m->text, op->head_end, op->head_line);
  c->lx.pos = op->head;
  c->lx.line_start = op->head_line_start;
  c->end = op->head_end;
  aie_cur_next(c);
}

void aie_cur_init_tail(aie_cur_t* c, const aie_module_t* m, const aie_op_t* op) {
  c->m = m;
  if (op->tail >= op->tail_end) { /* no tail: a cursor at once at its end */
    air_lex_init(&c->lx, m->text, op->head_end, op->head_line);
    c->lx.pos = op->head_end;
    c->lx.line_start = op->head_line_start;
    c->end = op->head_end;
  } else {
    air_lex_init(&c->lx, m->text, op->tail_end, op->tail_line);
    c->lx.pos = op->tail;
    c->lx.line_start = op->tail_line_start;
    c->end = op->tail_end;
  }
  aie_cur_next(c);
}

void aie_cur_next(aie_cur_t* c) { air_lex_next(&c->lx, &c->tok); }

bool aie_cur_is(const aie_cur_t* c, air_tk_t kind) { return c->tok.kind == kind; }

bool aie_cur_accept(aie_cur_t* c, air_tk_t kind) {
  if (c->tok.kind != kind) return false;
  aie_cur_next(c);
  return true;
}

air_status_t aie_cur_expected(const aie_cur_t* c, const char* what) {
  if (c->tok.kind == AIR_TK_EOF)
    return aie_error(c->m, c->tok.line, c->tok.col, "expected %s at the end of the operation",
                     what);
  if (c->tok.kind == AIR_TK_ERROR)
    return aie_error(c->m, c->tok.line, c->tok.col, "%s", c->tok.err ? c->tok.err : "bad token");
  return aie_error(c->m, c->tok.line, c->tok.col, "expected %s, found '%.*s'", what,
                   (int)(c->tok.len > 40 ? 40 : c->tok.len), c->tok.s);
}

air_status_t aie_cur_expect(aie_cur_t* c, air_tk_t kind, const char* what) {
  return aie_cur_accept(c, kind) ? NULL : aie_cur_expected(c, what);
}

air_status_t aie_cur_int(aie_cur_t* c, int64_t* out) {
  bool neg = aie_cur_accept(c, AIR_TK_MINUS);
  if (!aie_cur_is(c, AIR_TK_INT)) return aie_cur_expected(c, "an integer");
  if (c->tok.overflow || c->tok.u > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
    return aie_error(c->m, c->tok.line, c->tok.col, "integer '%.*s' is too large",
                     (int)c->tok.len, c->tok.s);
  *out = neg ? (int64_t)(0 - c->tok.u) : (int64_t)c->tok.u;
  aie_cur_next(c);
  return NULL;
}

air_status_t aie_cur_skip(aie_cur_t* c) {
  air_tk_t stack[MAX_BRACKETS];
  int sp = 0;
  do {
    air_tk_t k = c->tok.kind;
    if (k == AIR_TK_EOF) return aie_cur_expected(c, "a closing bracket");
    if (k == AIR_TK_ERROR) return aie_cur_expected(c, "a token");
    if (is_open(k)) {
      if (sp == MAX_BRACKETS) return aie_cur_expected(c, "less nesting");
      stack[sp++] = k;
    } else if (is_close(k)) {
      if (sp == 0 || stack[sp - 1] != opener_of(k)) return aie_cur_expected(c, "a matching bracket");
      --sp;
    }
    aie_cur_next(c);
  } while (sp > 0);
  return NULL;
}

/*--- attributes -----------------------------------------------------------------*/

/* `<pkt_type = T, pkt_id = I>` after `#aie.packet_info` or alone. */
static air_status_t packet_info(aie_cur_t* c, aie_attr_t* at) {
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LESS, "'<'"));
  at->kind = AIE_ATTR_PACKET;
  at->i = at->j = -1;
  while (!aie_cur_accept(c, AIR_TK_GREATER)) {
    if (!aie_cur_is(c, AIR_TK_BARE)) return aie_cur_expected(c, "pkt_type or pkt_id");
    air_token_t key = c->tok;
    aie_cur_next(c);
    AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_EQUAL, "'='"));
    int64_t v;
    AIR_RETURN_IF_ERROR(aie_cur_int(c, &v));
    if (key.len == 8 && memcmp(key.s, "pkt_type", 8) == 0) at->i = v;
    else if (key.len == 6 && memcmp(key.s, "pkt_id", 6) == 0) at->j = v;
    else return aie_error(c->m, key.line, key.col, "unknown packet field '%.*s'", (int)key.len, key.s);
    if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_GREATER))
      return aie_cur_expected(c, "',' or '>'");
  }
  if (at->i < 0 || at->j < 0)
    return aie_error(c->m, at->line, at->col, "packet info needs both pkt_type and pkt_id");
  return NULL;
}

/* Skips one attribute value of a kind not interpreted here, up to ',' or '}'. */
static air_status_t skip_value(aie_cur_t* c) {
  while (!aie_cur_is(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_RBRACE)) {
    if (aie_cur_is(c, AIR_TK_EOF)) return aie_cur_expected(c, "'}'");
    if (aie_cur_is(c, AIR_TK_LESS)) { /* <...> may hold commas */
      int depth = 0;
      do {
        if (aie_cur_is(c, AIR_TK_EOF) || aie_cur_is(c, AIR_TK_ERROR))
          return aie_cur_expected(c, "'>'");
        if (aie_cur_is(c, AIR_TK_LESS)) ++depth;
        if (aie_cur_is(c, AIR_TK_GREATER)) --depth;
        aie_cur_next(c);
      } while (depth > 0);
      continue;
    }
    AIR_RETURN_IF_ERROR(aie_cur_skip(c));
  }
  return NULL;
}

air_status_t aie_cur_attrs(aie_cur_t* c, aie_attrs_t* out) {
  out->n = 0;
  out->line = c->tok.line;
  out->col = c->tok.col;
  AIR_RETURN_IF_ERROR(aie_cur_expect(c, AIR_TK_LBRACE, "'{'"));
  while (!aie_cur_accept(c, AIR_TK_RBRACE)) {
    if (!aie_cur_is(c, AIR_TK_BARE) && !aie_cur_is(c, AIR_TK_STRING))
      return aie_cur_expected(c, "an attribute name");
    if (out->n == AIE_MAX_ATTRS)
      return aie_error(c->m, c->tok.line, c->tok.col, "more than %d attributes", AIE_MAX_ATTRS);
    aie_attr_t* at = &out->a[out->n++];
    memset(at, 0, sizeof *at);
    at->key.s = c->tok.s;
    at->key.len = c->tok.len;
    if (c->tok.kind == AIR_TK_STRING && c->tok.len >= 2) { /* "key" */
      at->key.s++;
      at->key.len -= 2;
    }
    aie_cur_next(c);
    at->line = c->tok.line;
    at->col = c->tok.col;
    if (!aie_cur_accept(c, AIR_TK_EQUAL)) { /* a unit attribute */
      at->kind = AIE_ATTR_BOOL;
      at->i = 1;
    } else {
      at->line = c->tok.line;
      at->col = c->tok.col;
      if (aie_cur_is(c, AIR_TK_INT) || aie_cur_is(c, AIR_TK_MINUS)) {
        at->kind = AIE_ATTR_INT;
        AIR_RETURN_IF_ERROR(aie_cur_int(c, &at->i));
      } else if (aie_cur_is(c, AIR_TK_BARE) && (c->tok.len == 4 && memcmp(c->tok.s, "true", 4) == 0)) {
        at->kind = AIE_ATTR_BOOL;
        at->i = 1;
        aie_cur_next(c);
      } else if (aie_cur_is(c, AIR_TK_BARE) && (c->tok.len == 5 && memcmp(c->tok.s, "false", 5) == 0)) {
        at->kind = AIE_ATTR_BOOL;
        aie_cur_next(c);
      } else if (aie_cur_is(c, AIR_TK_AT)) {
        at->kind = AIE_ATTR_SYM;
        at->sym.s = c->tok.name;
        at->sym.len = c->tok.name_len;
        aie_cur_next(c);
      } else if (aie_cur_is(c, AIR_TK_STRING)) {
        at->kind = AIE_ATTR_STR;
        at->sym.s = c->tok.s;
        at->sym.len = c->tok.len;
        aie_cur_next(c);
      } else if (aie_cur_is(c, AIR_TK_LESS) ||
                 (aie_cur_is(c, AIR_TK_HASH) && c->tok.name_len == 15 &&
                  memcmp(c->tok.name, "aie.packet_info", 15) == 0)) {
        aie_cur_accept(c, AIR_TK_HASH);
        AIR_RETURN_IF_ERROR(packet_info(c, at));
      } else {
        at->kind = AIE_ATTR_OTHER;
      }
      if (at->kind != AIE_ATTR_OTHER && aie_cur_accept(c, AIR_TK_COLON)) {
        /* `: i32` after a literal */
        if (!aie_cur_is(c, AIR_TK_BARE)) return aie_cur_expected(c, "a type");
        aie_cur_next(c);
      }
      AIR_RETURN_IF_ERROR(skip_value(c));
    }
    if (!aie_cur_accept(c, AIR_TK_COMMA) && !aie_cur_is(c, AIR_TK_RBRACE))
      return aie_cur_expected(c, "',' or '}'");
  }
  return NULL;
}

const aie_attr_t* aie_attrs_find(const aie_attrs_t* attrs, const char* key) {
  for (uint32_t i = 0; i < attrs->n; ++i)
    if (aie_span_is(attrs->a[i].key, key)) return &attrs->a[i];
  return NULL;
}

air_status_t aie_attrs_int(const aie_module_t* m, const aie_attrs_t* attrs, const char* key,
                           bool required, int64_t dflt, int64_t lo, int64_t hi, int64_t* out) {
  const aie_attr_t* at = aie_attrs_find(attrs, key);
  if (!at) {
    if (required)
      return aie_error(m, attrs->line, attrs->col, "missing integer attribute '%s'", key);
    *out = dflt;
    return NULL;
  }
  if (at->kind != AIE_ATTR_INT && at->kind != AIE_ATTR_BOOL)
    return aie_error(m, at->line, at->col, "attribute '%s' must be an integer", key);
  if (at->i < lo || at->i > hi)
    return aie_error(m, at->line, at->col, "attribute '%s' = %lld is out of range [%lld, %lld]",
                     key, (long long)at->i, (long long)lo, (long long)hi);
  *out = at->i;
  return NULL;
}

air_status_t aie_attrs_bool(const aie_module_t* m, const aie_attrs_t* attrs, const char* key,
                            bool dflt, bool* out) {
  int64_t v;
  AIR_RETURN_IF_ERROR(aie_attrs_int(m, attrs, key, false, dflt, 0, 1, &v));
  *out = v != 0;
  return NULL;
}

/*--- types ----------------------------------------------------------------------*/

air_status_t aie_cur_memref(aie_cur_t* c, uint32_t* out_bits, bool* out_is_int,
                            uint64_t* out_count) {
  if (!(aie_cur_is(c, AIR_TK_BARE) && c->tok.len == 6 && memcmp(c->tok.s, "memref", 6) == 0))
    return aie_cur_expected(c, "a memref type");
  uint32_t line = c->tok.line, col = c->tok.col;
  /* The shape is not made of tokens (64x64xi32): read the characters. */
  size_t p = (size_t)(c->tok.s + c->tok.len - c->m->text), end;
  c->lx.pos = p;
  if (p >= c->end || c->m->text[p] != '<' || !air_lex_balanced_end(&c->lx, p, &end) || end > c->end)
    return aie_error(c->m, line, col, "malformed memref type");
  const char* s = c->m->text + p + 1;
  const char* e = c->m->text + end - 1;
  uint64_t count = 1;
  for (;;) {
    if (s < e && *s >= '0' && *s <= '9') {
      uint64_t d = 0;
      while (s < e && *s >= '0' && *s <= '9') {
        if (d > (UINT64_MAX - 9) / 10) return aie_error(c->m, line, col, "memref dimension too large");
        d = d * 10 + (uint64_t)(*s++ - '0');
      }
      if (s >= e || *s != 'x') return aie_error(c->m, line, col, "malformed memref shape");
      ++s;
      if (d && count > UINT64_MAX / d) return aie_error(c->m, line, col, "memref too large");
      count *= d;
      continue;
    }
    if (s < e && *s == '?') return aie_error(c->m, line, col, "dynamic memref shapes are not supported");
    break;
  }
  const char* t = s;
  while (t < e && *t != ',' && *t != '>' && *t != ' ') ++t;
  size_t tl = (size_t)(t - s);
  uint32_t bits = 0;
  bool is_int = false;
  if (tl >= 2 && (s[0] == 'i' || (tl >= 3 && (s[0] == 'u' || s[0] == 's') && s[1] == 'i'))) {
    const char* d = s[0] == 'i' ? s + 1 : s + 2;
    uint32_t v = 0;
    bool ok = d < t;
    for (; d < t; ++d) {
      if (*d < '0' || *d > '9' || v > 100000) ok = false;
      else v = v * 10 + (uint32_t)(*d - '0');
    }
    if (ok) {
      bits = v;
      is_int = true;
    }
  } else if (tl == 3 && (memcmp(s, "f32", 3) == 0)) {
    bits = 32;
  } else if (tl == 4 && (memcmp(s, "bf16", 4) == 0)) {
    bits = 16;
  } else if (tl == 3 && (memcmp(s, "f16", 3) == 0)) {
    bits = 16;
  } else if (tl == 3 && (memcmp(s, "f64", 3) == 0)) {
    bits = 64;
  }
  air_lex_advance(&c->lx, end);
  aie_cur_next(c);
  *out_bits = bits;
  *out_is_int = is_int;
  *out_count = count;
  return NULL;
}

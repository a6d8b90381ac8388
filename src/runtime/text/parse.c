/* parse.c - AIR text -> IR: the entry point, the top level and the module, ops
 * of other dialects kept as text, and the op dispatcher, which hands each op to
 * its family's parser (see parse_core.h for the parser's layout). */
#include "runtime/text/parse.h"

#include <stdio.h>
#include <string.h>

#include "runtime/text/parse_air.h"
#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_core.h"
#include "runtime/text/parse_ctrl.h"
#include "runtime/text/parse_linalg.h"
#include "runtime/text/parse_mem.h"
#include "runtime/text/parse_ops.h"
#include "runtime/text/parse_parts.h"
#include "runtime/text/parse_ssa.h"

/*---------------------------------------------------------------------------*/
/* Ops                                                                       */
/*---------------------------------------------------------------------------*/

/* `%a, %b:2 =`, pushed on refs. */
static air_status_t parse_binds(air_parser_t* P, air_pbinds_t* out) {
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
      if (depth > 0) return PERR_TOK(P, "unexpected end of input inside '%s'", air_parse_q(P, at->s, at->len));
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
        return PERR_TOK(P, "unbalanced '%s' in operation '%s'", air_parse_q(P, P->tok.s, P->tok.len),
                        air_parse_q(P, at->s, at->len));
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
              "operation '%s' is not supported; kept as opaque text", air_parse_q(P, at->s, at->len));
  return NULL;
}

static air_parse_op_fn op_fn(air_opcls_t cls) {
  air_parse_op_fn fn = air_parse_air_fn(cls);
  if (!fn) fn = air_parse_ops_fn(cls);
  if (!fn) fn = air_parse_ctrl_fn(cls);
  if (!fn) fn = air_parse_linalg_fn(cls);
  if (!fn) fn = air_parse_mem_fn(cls);
  return fn;
}

static uint32_t op_hash(const char* s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return (h ^ (h >> 15)) & (AIR_PARSE_OP_SLOTS - 1);
}

_Static_assert(2 * AIR_OP_COUNT_ <= AIR_PARSE_OP_SLOTS, "op-name table must stay half empty");

static void op_table_init(air_parser_t* P) {
  memset(P->op_slots, 0xff, sizeof(P->op_slots));
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    const char* n = air_opkind_name((air_opkind_t)k);
    size_t len = strlen(n);
    P->op_len[k] = (uint8_t)len;
    if (!len) continue;
    uint32_t i = op_hash(n, len);
    while (P->op_slots[i] >= 0) i = (i + 1) & (AIR_PARSE_OP_SLOTS - 1);
    P->op_slots[i] = (int16_t)k;
  }
}

static bool op_lookup(const air_parser_t* P, const char* s, size_t len, air_opkind_t* out) {
  if ((len == 6 && memcmp(s, "return", 6) == 0) || (len == 4 && memcmp(s, "call", 4) == 0)) {
    *out = len == 6 ? AIR_OP_RETURN : AIR_OP_CALL; /* func ops as MLIR prints them */
    return true;
  }
  for (uint32_t i = op_hash(s, len); P->op_slots[i] >= 0; i = (i + 1) & (AIR_PARSE_OP_SLOTS - 1)) {
    int k = P->op_slots[i];
    if (P->op_len[k] == len && memcmp(air_opkind_name((air_opkind_t)k), s, len) == 0) {
      *out = (air_opkind_t)k;
      return true;
    }
  }
  return false;
}

static air_status_t parse_module(air_parser_t* P, air_block_t* blk);

/* Whether a word is spelled like an operation of some dialect, `dialect.op`: an
 * identifier, a dot, more name. Only such words are kept as another dialect's
 * opaque operations; "hello world" is not a program. */
static bool looks_like_op_name(const char* s, size_t n) {
  size_t dot = 0;
  if (n < 3 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
    return false;
  for (size_t i = 1; i < n; ++i) {
    char c = s[i];
    bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '$';
    if (c == '.') {
      if (s[i - 1] == '.') return false;
      if (!dot) dot = i;
    } else if (!ident) {
      return false;
    }
  }
  return dot > 0 && s[n - 1] != '.';
}

static air_status_t parse_op(air_parser_t* P, air_block_t* blk) {
  air_token_t at = P->tok;
  uint32_t rmark = P->n_refs, tmark = P->n_tys, imark = P->n_ixs, amark = P->n_nattrs;
  uint32_t attr_mark = P->n_attrs;
  air_pbinds_t b = {P->n_refs, 0, 0};
  if (P->tok.kind == AIR_TK_PERCENT) {
    TRY(parse_binds(P, &b));
    TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the result names"));
  }
  air_token_t name = P->tok;
  if (name.kind == AIR_TK_STRING)
    return PERR_TOK(P, "unsupported operation %s: the generic operation form is not "
                       "supported",
                    air_parse_q(P, name.s, name.len));
  if (name.kind != AIR_TK_BARE) return air_parse_fail(P, "an operation name");
  air_opkind_t kind;
  bool known = op_lookup(P, name.s, name.len, &kind);
  if (known && kind == AIR_OP_MODULE) {
    if (b.n) return PERR_TOK(P, "'module' has no results");
    if (!blk->parent || blk->parent->kind != AIR_OP_MODULE)
      return PERR_TOK(P, "a 'module' may only appear at module level");
    return parse_module(P, blk);
  }
  if (!known) {
    bool top = blk->parent && blk->parent->kind == AIR_OP_MODULE;
    bool air = name.len > 4 && memcmp(name.s, "air.", 4) == 0;
    bool op_like = looks_like_op_name(name.s, name.len);
    if (top && !air && b.n == 0 && op_like) return parse_opaque(P, blk, &name);
    if (!op_like)
      return PERR_TOK(P, "expected an operation, found '%s' (operations are named dialect.op, "
                         "e.g. func.func or air.channel)",
                      air_parse_q(P, name.s, name.len));
    return PERR_TOK(P, "unsupported operation '%s'", air_parse_q(P, name.s, name.len));
  }
  air_parse_next(P);
  air_parse_op_fn fn = op_fn(air_opkind_class(kind));
  if (!fn) return PERR(P, name.line, name.col, "unsupported operation '%s'", air_parse_q(P, name.s, name.len));
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

/* `module [@name] [attributes {...}] { ... }` as an op of `blk` (nested modules
 * and the several modules of a file with implicit top module). */
static air_status_t parse_module(air_parser_t* P, air_block_t* blk) {
  air_program_t* p = P->p;
  air_token_t at = P->tok;
  air_parse_next(P);
  air_op_t* m;
  TRY(air_parse_new_op(P, blk, AIR_OP_MODULE, &at, 0, 0, 1, 0, &m));
  if (!(m->regions[0] = air_ir_block_new(p, m, 0))) return air_parse_oom(P);
  air_block_t* body = m->regions[0];
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
  if (++P->depth > AIR_PARSE_MAX_DEPTH)
    return PERR(P, open.line, open.col, "modules are nested more than %d deep",
                AIR_PARSE_MAX_DEPTH);
  TRY(air_parse_scope_push(P, true)); /* a module is IsolatedFromAbove */
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
  TRY(air_parse_scope_pop(P));
  P->depth--;
  return NULL;
}

/* A file holding exactly one operation, a module, is that module; any other
 * set of top-level operations (several modules among them, as MLIR allows) is
 * the body of an implicit module. */
static void adopt_single_module(air_program_t* p) {
  air_op_t* top = p->module;
  air_block_t* body = top->regions[0];
  air_op_t* only = body->first;
  if (!only || only != body->last || only->kind != AIR_OP_MODULE) return;
  top->line = only->line;
  top->col = only->col;
  top->flags |= only->flags;
  top->sym = only->sym;
  top->attrs = only->attrs;
  top->n_attrs = only->n_attrs;
  top->regions[0] = only->regions[0];
  top->regions[0]->parent = top;
}

static air_status_t parse_top(air_parser_t* P) {
  air_block_t* body = P->p->module->regions[0];
  TRY(air_parse_scope_push(P, true));
  while (P->tok.kind != AIR_TK_EOF) {
    if (P->tok.kind == AIR_TK_FILE_META) {
      TRY(skip_file_meta(P));
    } else if (P->tok.kind == AIR_TK_HASH || P->tok.kind == AIR_TK_BANG) {
      TRY(air_parse_alias_def(P));
    } else {
      TRY(parse_op(P, body));
    }
  }
  TRY(air_parse_scope_pop(P));
  adopt_single_module(P->p);
  return NULL;
}

static bool contains(const char* s, size_t n, const char* w) {
  size_t m = strlen(w);
  for (size_t i = 0; i + m <= n; ++i)
    if (s[i] == w[0] && memcmp(s + i, w, m) == 0) return true;
  return false;
}

air_status_t air_parse(air_program_t* p, const char* text, size_t len, uint32_t first_line) {
  const air_allocator_t* a = &p->allocator;
  /* On the heap: the lookup caches are too big for a small thread stack. */
  air_parser_t* P = air_mem_calloc(a, 1, sizeof(*P));
  if (!P) return AIR_STATUS_OOM(a, "parsing");
  P->p = p;
  P->parse_op = parse_op;
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
            air_mem_grow(a, (void**)&P->tys, &P->cap_tys, 16, sizeof(air_tid_t));
  air_status_t s = ok ? parse_top(P) : air_parse_oom(P);
  if (!s) air_ir_warn_finish(p);
  air_mem_free(a, P->refs);
  air_mem_free(a, P->tys);
  air_mem_free(a, P->ixs);
  air_mem_free(a, P->attrs);
  air_mem_free(a, P->nattrs);
  air_mem_free(a, P->talias);
  air_mem_free(a, P->alias_slots);
  air_parse_ssa_free(P);
  air_mem_free(a, P);
  return s;
}

/* parse_core.c - the parser's floor: tokens, error statuses, the scratch stacks
 * and names read from tokens (see parse_core.h for the parser's layout). */
#include "runtime/text/parse_core.h"

#include <stdio.h>
#include <string.h>

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

void air_parse_next(air_parser_t* P) {
  P->prev_line = P->tok.line;
  air_lex_next(&P->lx, &P->tok);
}

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

bool air_parse_tok_is(const air_token_t* t, const char* s) {
  size_t n = strlen(s);
  return t->kind == AIR_TK_BARE && t->len == n && memcmp(t->s, s, n) == 0;
}

bool air_parse_tok_followed_by(const air_parser_t* P, char c) {
  size_t e = (size_t)(P->tok.s - P->lx.text) + P->tok.len;
  return e < P->lx.len && P->lx.text[e] == c;
}

size_t air_parse_tok_off(const air_parser_t* P) { return (size_t)(P->tok.s - P->lx.text); }

void air_parse_resume_at(air_parser_t* P, size_t to) {
  air_lex_advance(&P->lx, to);
  uint32_t line = P->lx.line; /* where the skipped text ended */
  air_lex_next(&P->lx, &P->tok);
  P->prev_line = line;
}

const char* air_parse_q(air_parser_t* P, const char* s, size_t n) {
  char* q = P->quotes[P->next_quote++ % 4];
  return air_quote(q, sizeof P->quotes[0], s, n);
}

static const char* tokdesc(air_parser_t* P) {
  const air_token_t* t = &P->tok;
  if (t->kind == AIR_TK_EOF) return "end of input";
  /* Quoted, in the buffer after the quote's own. */
  char* d = P->quotes[P->next_quote++ % 4];
  d[0] = '\'';
  air_quote(d + 1, sizeof P->quotes[0] - 2, t->s, t->len);
  strcat(d, "'");
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
  char what[192];
  snprintf(what, sizeof what, "parsing %s at %u:%u", P->p->filename, P->tok.line, P->tok.col);
  return AIR_STATUS_OOM(&P->p->allocator, what);
}

/*---------------------------------------------------------------------------*/
/* Scratch stacks                                                            */
/*---------------------------------------------------------------------------*/

air_status_t air_parse_push_ref(air_parser_t* P, const air_pref_t* r) {
  if (!air_mem_grow(&P->p->allocator, (void**)&P->refs, &P->cap_refs, (size_t)P->n_refs + 1,
                    sizeof(*r)))
    return air_parse_oom(P);
  P->refs[P->n_refs++] = *r;
  return NULL;
}

air_status_t air_parse_push_ty(air_parser_t* P, air_tid_t t) {
  if (!air_mem_grow(&P->p->allocator, (void**)&P->tys, &P->cap_tys, (size_t)P->n_tys + 1,
                    sizeof(t)))
    return air_parse_oom(P);
  P->tys[P->n_tys++] = t;
  return NULL;
}

air_status_t air_parse_push_attr(air_parser_t* P, const air_attr_t* a) {
  if (!air_mem_grow(&P->p->allocator, (void**)&P->attrs, &P->cap_attrs, (size_t)P->n_attrs + 1,
                    sizeof(*a)))
    return air_parse_oom(P);
  P->attrs[P->n_attrs++] = *a;
  return NULL;
}

air_status_t air_parse_push_nattr(air_parser_t* P, const air_named_attr_t* na) {
  if (!air_mem_grow(&P->p->allocator, (void**)&P->nattrs, &P->cap_nattrs,
                    (size_t)P->n_nattrs + 1, sizeof(*na)))
    return air_parse_oom(P);
  P->nattrs[P->n_nattrs++] = *na;
  return NULL;
}

air_status_t air_parse_push_ix(air_parser_t* P, air_vid_t v, int64_t cst) {
  if (!air_mem_grow(&P->p->allocator, (void**)&P->ixs, &P->cap_ixs, (size_t)P->n_ixs + 1,
                    sizeof(air_ix_t)))
    return air_parse_oom(P);
  P->ixs[P->n_ixs].value = v;
  P->ixs[P->n_ixs].cst = cst;
  P->n_ixs++;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Names in tokens                                                           */
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

/* parse_affine.c - affine maps and integer sets (`affine_map<...>`,
 * `affine_set<...>`) and the SSA subscripts of affine.load/store, built into the
 * IR's affine expression trees as MLIR builds them. */
#include "runtime/text/parse_affine.h"

#include <string.h>

enum { MAX_AFFINE_IDS = 64 };

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
  } else if (ids->ssa && air_parse_tok_is(t, "symbol") && air_parse_peek(P).kind == AIR_TK_LPAREN) {
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
      s = PERR_TOK(P, "use of undeclared identifier '%s' in affine expression", air_parse_q(P, t->s, t->len));
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
    else if (air_parse_tok_is(&P->tok, "floordiv"))
      k = AIR_AFF_FLOORDIV;
    else if (air_parse_tok_is(&P->tok, "ceildiv"))
      k = AIR_AFF_CEILDIV;
    else if (air_parse_tok_is(&P->tok, "mod"))
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

/* The map or set after `affine_map<` / `affine_set<`, or a bare map (`bare`:
 * no closing '>'), from the '(' of its dimensions. */
static air_status_t affine_body(air_parser_t* P, bool is_set, bool bare, air_attr_t* out) {
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
  if (!bare) TRY(air_parse_expect(P, AIR_TK_GREATER, "'>' to close the affine map"));
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

air_status_t air_parse_affine(air_parser_t* P, air_attr_t* out) {
  bool is_set = air_parse_tok_is(&P->tok, "affine_set");
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_LESS, is_set ? "'<' after 'affine_set'" : "'<' after 'affine_map'"));
  return affine_body(P, is_set, false, out);
}

air_status_t air_parse_affine_map_bare(air_parser_t* P, air_attr_t* out) {
  return affine_body(P, false, true, out);
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

/* parse_ctrl.c - control flow in MLIR's pretty syntax: scf (for, parallel,
 * reduce, if, index_switch, forall) and affine (apply, if, for). */
#include "runtime/text/parse_ctrl.h"

#include <string.h>

#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

static void unlink_op(air_block_t* b, air_op_t* op) {
  if (op->prev)
    op->prev->next = op->next;
  else
    b->first = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    b->last = op->prev;
  op->prev = op->next = NULL;
  op->parent = NULL;
}

/* The yield ending region `r` must carry one value per result of `op`. */
static air_status_t check_yield(air_parser_t* P, air_op_t* op, uint32_t r,
                                const air_tid_t* types) {
  air_op_t* t = op->regions[r]->last;
  if (t->n_operands != op->n_results)
    return PERR(P, t->line, t->col, "'%s' yields %u value%s but '%s' has %u result%s",
                air_opkind_name(t->kind), t->n_operands, t->n_operands == 1 ? "" : "s",
                air_opkind_name(op->kind), op->n_results, op->n_results == 1 ? "" : "s");
  for (uint32_t i = 0; i < t->n_operands; ++i) {
    air_tid_t have = air_ir_value_type(P->p, t->operands[i]);
    if (!air_parse_types_match(P, have, types[i])) {
      char a[128], c[128];
      return PERR(P, t->line, t->col, "'%s' operand %u has type '%s' but result %u is '%s'",
                  air_opkind_name(t->kind), i, air_parse_type_str(P, have, a, sizeof a), i,
                  air_parse_type_str(P, types[i], c, sizeof c));
    }
  }
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* scf                                                                       */
/*---------------------------------------------------------------------------*/

/* `(%a = %b, ...)`: pushes name, value pairs on refs, counting them in *n;
 * `open` and `end` are the messages for its parentheses. */
static air_status_t ref_pairs(air_parser_t* P, const char* open, const char* end, uint32_t* n) {
  TRY(air_parse_expect(P, AIR_TK_LPAREN, open));
  if (air_parse_accept(P, AIR_TK_RPAREN)) return NULL;
  do {
    air_pref_t r;
    TRY(air_parse_ref(P, &r));
    TRY(air_parse_push_ref(P, &r));
    TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' and the initial value"));
    TRY(air_parse_ref(P, &r));
    TRY(air_parse_push_ref(P, &r));
    ++*n;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return air_parse_expect(P, AIR_TK_RPAREN, end);
}

/* `iter_args(%a = %b, ...) -> (T, ...)`: names then values on refs. */
static air_status_t iter_args(air_parser_t* P, uint32_t* n, uint32_t* names, uint32_t* vals,
                              uint32_t* tb) {
  *n = 0;
  *tb = P->n_tys;
  if (!air_parse_accept_kw(P, "iter_args")) return NULL;
  uint32_t base = P->n_refs;
  TRY(ref_pairs(P, "'(' after 'iter_args'", "',' or ')' after the iteration arguments", n));
  /* Reorder to names then values so both are contiguous. */
  uint32_t k = *n;
  for (uint32_t i = 0; i < k; ++i) {
    air_pref_t v = P->refs[base + 2 * i + 1];
    TRY(air_parse_push_ref(P, &v));
  }
  for (uint32_t i = 0; i < k; ++i) P->refs[base + i] = P->refs[base + 2 * i];
  memmove(P->refs + base + k, P->refs + base + 2 * k, k * sizeof(air_pref_t));
  P->n_refs = base + 2 * k;
  *names = base;
  *vals = base + k;
  uint32_t nt;
  *tb = P->n_tys;
  TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the types of the iteration arguments"));
  TRY(air_parse_paren_types(P, true, &nt));
  if (nt != k)
    return PERR_TOK(P, "%u iteration argument%s but %u type%s", k, k == 1 ? "" : "s", nt,
                    nt == 1 ? "" : "s");
  return NULL;
}

/* Region arguments: one induction variable, then the iteration arguments. */
static air_status_t loop_region(air_parser_t* P, air_op_t* op, const air_pref_t* iv,
                                air_tid_t ivt, uint32_t ni, uint32_t names, uint32_t tb,
                                air_opkind_t term) {
  air_region_spec_t rs = {0};
  rs.ref_base = P->n_refs;
  rs.ty_base = P->n_tys;
  rs.n_args = 1 + ni;
  TRY(air_parse_push_ref(P, iv));
  TRY(air_parse_push_ty(P, ivt));
  for (uint32_t i = 0; i < ni; ++i) {
    air_pref_t r = P->refs[names + i];
    TRY(air_parse_push_ref(P, &r));
    TRY(air_parse_push_ty(P, P->tys[tb + i]));
  }
  rs.term = term;
  rs.implicit = ni == 0;
  TRY(air_parse_region(P, op, 0, &rs));
  return check_yield(P, op, 0, P->tys + tb);
}

static air_status_t op_for(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                           const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t iv, lb, ub, st;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &iv));
  TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the induction variable"));
  TRY(air_parse_ref(P, &lb));
  TRY(air_parse_expect_kw(P, "to"));
  TRY(air_parse_ref(P, &ub));
  TRY(air_parse_expect_kw(P, "step"));
  TRY(air_parse_ref(P, &st));
  uint32_t ni, names = 0, vals = 0, tb;
  TRY(iter_args(P, &ni, &names, &vals, &tb));
  air_tid_t ivt = P->t_index;
  if (air_parse_accept(P, AIR_TK_COLON)) TRY(air_parse_type(P, &ivt));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 3 + ni, ni, 1, 0, &op));
  TRY(air_parse_use(P, &lb, ivt, &op->operands[0]));
  TRY(air_parse_use(P, &ub, ivt, &op->operands[1]));
  TRY(air_parse_use(P, &st, ivt, &op->operands[2]));
  TRY(air_parse_resolve(P, vals, ni, tb, 0, op->operands + 3));
  TRY(loop_region(P, op, &iv, ivt, ni, names, tb, AIR_OP_YIELD));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/* `( %a, %b )` of values resolved as index into ixs. */
static air_status_t index_group(air_parser_t* P, uint32_t* n) {
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'('"));
  *n = 0;
  if (air_parse_accept(P, AIR_TK_RPAREN)) return NULL;
  do {
    air_vid_t v;
    TRY(air_parse_operand(P, P->t_index, &v));
    TRY(air_parse_push_ix(P, v, 0));
    ++*n;
  } while (air_parse_accept(P, AIR_TK_COMMA));
  return air_parse_expect(P, AIR_TK_RPAREN, "',' or ')'");
}

/* Brings the body of an scf.parallel to the current form: the old one wrote one
 * `scf.reduce(%x) : T {...}` per value, followed by an implicit `scf.yield`; the
 * new one ends the body with a single scf.reduce holding every value. */
static air_status_t normalize_parallel(air_parser_t* P, air_op_t* op, uint32_t n_init) {
  air_block_t* body = op->regions[0];
  air_op_t* last = body->last;
  if (last && last->kind == AIR_OP_YIELD) {
    if (last->n_operands)
      return PERR(P, last->line, last->col, "'scf.yield' in 'scf.parallel' cannot yield values");
    unlink_op(body, last);
  } else if (last && air_opkind_class(last->kind) == AIR_OPC_TERMINATOR) {
    return PERR(P, last->line, last->col, "'%s' cannot end the body of 'scf.parallel'",
                air_opkind_name(last->kind));
  }
  uint32_t count = 0, n_ops = 0;
  air_op_t* first = NULL;
  for (air_op_t* o = body->first; o; o = o->next) {
    if (o->kind != AIR_OP_REDUCE) continue;
    if (!first) first = o;
    ++count;
    n_ops += o->n_operands;
  }
  if (n_ops != n_init) {
    const air_op_t* where = first ? first : op;
    return PERR(P, where->line, where->col,
                "'scf.parallel' has %u init value%s but its body reduces %u", n_init,
                n_init == 1 ? "" : "s", n_ops);
  }
  if (count == 1 && body->last == first) return NULL;
  air_op_t* red = air_ir_op_new(P->p, AIR_OP_REDUCE, first ? first->line : op->line,
                                first ? first->col : op->col, n_ops, 0, n_ops, 0);
  if (!red) return air_parse_oom(P);
  uint32_t k = 0;
  for (air_op_t *o = body->first, *next; o; o = next) {
    next = o->next;
    if (o->kind != AIR_OP_REDUCE) continue;
    for (uint32_t i = 0; i < o->n_operands; ++i, ++k) {
      red->operands[k] = o->operands[i];
      red->regions[k] = o->regions[i];
      red->regions[k]->parent = red;
    }
    if (o->n_attrs && !red->n_attrs) {
      red->attrs = o->attrs;
      red->n_attrs = o->n_attrs;
    }
    unlink_op(body, o);
  }
  air_ir_block_append(body, red);
  return NULL;
}

static air_status_t op_parallel(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs, ivb = P->n_refs, n;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the induction variables"));
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
  TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' and the lower bounds"));
  uint32_t ixb = P->n_ixs, nl, nu, ns;
  TRY(index_group(P, &nl));
  TRY(air_parse_expect_kw(P, "to"));
  TRY(index_group(P, &nu));
  TRY(air_parse_expect_kw(P, "step"));
  TRY(index_group(P, &ns));
  if (nl != n || nu != n || ns != n)
    return PERR(P, at->line, at->col,
                "'scf.parallel' has %u induction variable%s but %u/%u/%u bounds/steps", n,
                n == 1 ? "" : "s", nl, nu, ns);
  uint32_t vb = P->n_refs, ni = 0, tb = P->n_tys, nt = 0;
  if (air_parse_accept_kw(P, "init")) {
    TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'init'"));
    TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &ni));
    TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the result types"));
    TRY(air_parse_paren_types(P, true, &nt));
    if (nt != ni)
      return PERR(P, at->line, at->col, "%u init value%s but %u type%s", ni, ni == 1 ? "" : "s",
                  nt, nt == 1 ? "" : "s");
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 3 * n + ni, ni, 1, 0, &op));
  op->iaux[0] = n;
  for (uint32_t i = 0; i < 3 * n; ++i) op->operands[i] = P->ixs[ixb + i].value;
  TRY(air_parse_resolve(P, vb, ni, tb, 0, op->operands + 3 * n));
  air_region_spec_t rs = {0};
  rs.n_args = n;
  rs.ref_base = ivb;
  rs.ty_base = P->n_tys;
  for (uint32_t i = 0; i < n; ++i) TRY(air_parse_push_ty(P, P->t_index));
  rs.term = AIR_OP_COUNT_;
  TRY(air_parse_region(P, op, 0, &rs));
  TRY(normalize_parallel(P, op, ni));
  for (uint32_t i = 0; i < ni; ++i) {
    air_tid_t have = air_ir_value_type(P->p, op->regions[0]->last->operands[i]);
    if (!air_parse_types_match(P, have, P->tys[tb + i])) {
      char a[128], c[128];
      const air_op_t* r = op->regions[0]->last;
      return PERR(P, r->line, r->col, "'scf.reduce' operand %u has type '%s' but result is '%s'",
                  i, air_parse_type_str(P, have, a, sizeof a),
                  air_parse_type_str(P, P->tys[tb + i], c, sizeof c));
    }
  }
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

static air_status_t op_reduce(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  if (!blk->parent || blk->parent->kind != AIR_OP_PARALLEL)
    return PERR(P, at->line, at->col, "'scf.reduce' must be directly inside 'scf.parallel'");
  uint32_t rb = P->n_refs, n = 0, tb = P->n_tys, nt = 0, amark = P->n_nattrs;
  if (air_parse_accept(P, AIR_TK_LPAREN)) {
    if (!air_parse_accept(P, AIR_TK_RPAREN)) {
      TRY(air_parse_ref_list(P, AIR_TK_EOF, &n));
      if (air_parse_accept(P, AIR_TK_COLON)) TRY(air_parse_type_list(P, &nt));
      TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the reduced values"));
    }
  }
  if (n && !nt) {
    TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the types of the reduced values"));
    TRY(air_parse_type_list(P, &nt));
  }
  if (nt != n)
    return PERR(P, at->line, at->col, "%u reduced value%s but %u type%s", n, n == 1 ? "" : "s",
                nt, nt == 1 ? "" : "s");
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, 0, n, 0, &op));
  TRY(air_parse_resolve(P, rb, n, tb, 0, op->operands));
  for (uint32_t i = 0; i < n; ++i) {
    if (i) air_parse_accept(P, AIR_TK_COMMA);
    air_token_t rt = P->tok;
    air_region_spec_t rs = {0};
    rs.label_args = true;
    rs.term = AIR_OP_REDUCE_RETURN;
    TRY(air_parse_region(P, op, i, &rs));
    const air_block_t* rbk = op->regions[i];
    if (rbk->n_args != 2)
      return PERR(P, rt.line, rt.col,
                  "the reduction region needs two arguments '^bb0(%%lhs: T, %%rhs: T)', found %u",
                  rbk->n_args);
    const air_op_t* ret = rbk->last;
    if (ret->n_operands != 1)
      return PERR(P, ret->line, ret->col, "'scf.reduce.return' must return one value");
  }
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, NULL, b);
}

/* The then/else regions of scf.if and affine.if; the result types are P->tys
 * from `tb` on. An index, not a pointer: parsing a region pushes types, and the
 * stack may move (a fuzzer found the use after free). */
static air_status_t if_regions(air_parser_t* P, air_op_t* op, air_opkind_t term, uint32_t tb) {
  air_region_spec_t rs = {0};
  rs.term = term;
  rs.implicit = op->n_results == 0;
  TRY(air_parse_region(P, op, 0, &rs));
  TRY(check_yield(P, op, 0, P->tys + tb));
  if (air_parse_accept_kw(P, "else")) {
    op->n_regions = 2;
    TRY(air_parse_region(P, op, 1, &rs));
    TRY(check_yield(P, op, 1, P->tys + tb));
  } else if (op->n_results) {
    return PERR(P, op->line, op->col, "'%s' with results needs an 'else' region",
                air_opkind_name(op->kind));
  }
  return air_parse_opt_attr_dict(P);
}

static air_status_t op_if(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                          const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t c;
  uint32_t amark = P->n_nattrs, tb = P->n_tys, nr;
  TRY(air_parse_ref(P, &c));
  TRY(air_parse_opt_arrow_types(P, &nr));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, nr, 2, 0, &op));
  op->n_regions = 1;
  TRY(air_parse_use(P, &c, P->t_i1, &op->operands[0]));
  TRY(if_regions(P, op, AIR_OP_YIELD, tb));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/* scf.index_switch %arg [{attrs}] [-> T, ...]
 *   case 2 { ... } case 5 { ... } ... default { ... } */
static air_status_t op_switch(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t arg;
  uint32_t amark = P->n_nattrs, tb = P->n_tys, nr;
  TRY(air_parse_ref(P, &arg));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_opt_arrow_types(P, &nr));
  /* Case values go on the index stack while the regions are parsed into a
   * growing region array. */
  uint32_t mark = P->n_ixs, nc = 0, cap = 4;
  air_block_t** regions = air_ir_alloc(P->p, cap * sizeof(air_block_t*));
  if (!regions) return air_parse_oom(P);
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, nr, 0, 0, &op));
  TRY(air_parse_use(P, &arg, P->t_index, &op->operands[0]));
  air_region_spec_t rs = {0};
  rs.term = AIR_OP_YIELD;
  rs.implicit = nr == 0;
  for (;;) {
    bool is_default = air_parse_is_kw(P, "default");
    if (!is_default && !air_parse_is_kw(P, "case"))
      return air_parse_fail(P, "'case' or 'default' in 'scf.index_switch'");
    air_parse_next(P);
    if (!is_default) {
      bool neg = air_parse_accept(P, AIR_TK_MINUS);
      if (P->tok.kind != AIR_TK_INT || P->tok.overflow || P->tok.u > (uint64_t)INT64_MAX)
        return air_parse_fail(P, "an integer case value");
      int64_t cv = neg ? -(int64_t)P->tok.u : (int64_t)P->tok.u;
      for (uint32_t i = 0; i < nc; ++i)
        if (P->ixs[mark + i].cst == cv)
          return PERR_TOK(P, "case value %lld appears twice in 'scf.index_switch'",
                          (long long)cv);
      TRY(air_parse_push_ix(P, 0, cv));
      air_parse_next(P);
    }
    if (nc + 1 > cap) {
      air_block_t** r2 = air_ir_alloc(P->p, 2 * cap * sizeof(air_block_t*));
      if (!r2) return air_parse_oom(P);
      memcpy(r2, regions, cap * sizeof(air_block_t*));
      regions = r2;
      cap *= 2;
    }
    op->regions = regions;
    op->n_regions = nc + 1;
    TRY(air_parse_region(P, op, nc, &rs));
    TRY(check_yield(P, op, nc, P->tys + tb));
    ++nc;
    if (is_default) break;
  }
  uint32_t ncase = nc - 1;
  int64_t* cases = ncase ? air_ir_alloc(P->p, ncase * sizeof(int64_t)) : NULL;
  if (ncase && !cases) return air_parse_oom(P);
  for (uint32_t i = 0; i < ncase; ++i) cases[i] = P->ixs[mark + i].cst;
  P->n_ixs = mark;
  op->value.kind = AIR_ATTR_DENSE;
  op->value.type = air_ir_type_scalar(P->p, AIR_ELEM_I64);
  op->value.n = ncase;
  op->value.ints = cases;
  if (!op->value.type) return air_parse_oom(P);
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/* A list of n constants `v`. */
static air_status_t const_list(air_parser_t* P, air_ixlist_t* out, uint32_t n, int64_t v) {
  if (!air_ir_list_init(P->p, out, n)) return air_parse_oom(P);
  for (uint32_t i = 0; i < n; ++i) out->items[i].cst = v;
  return NULL;
}

/* scf.forall (%i, ...) in (ubs) | = (lbs) to (ubs) step (steps)
 *     [shared_outs(%o = %init, ...) -> (T, ...)] { ... } [{attrs}] */
static air_status_t op_forall(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs, ivb = P->n_refs, n;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the induction variables"));
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
  air_ixlist_t lists[3];
  bool normal = air_parse_accept_kw(P, "in");
  if (normal) {
    TRY(air_parse_ixgroup(P, &lists[1]));
    TRY(const_list(P, &lists[0], lists[1].n, 0));
    TRY(const_list(P, &lists[2], lists[1].n, 1));
  } else {
    TRY(air_parse_expect(P, AIR_TK_EQUAL, "'in' or '=' and the lower bounds"));
    TRY(air_parse_ixgroup(P, &lists[0]));
    TRY(air_parse_expect_kw(P, "to"));
    TRY(air_parse_ixgroup(P, &lists[1]));
    TRY(air_parse_expect_kw(P, "step"));
    TRY(air_parse_ixgroup(P, &lists[2]));
  }
  if (lists[0].n != n || lists[1].n != n || lists[2].n != n)
    return PERR(P, at->line, at->col,
                "'scf.forall' has %u induction variable%s but %u/%u/%u bounds/steps", n,
                n == 1 ? "" : "s", lists[0].n, lists[1].n, lists[2].n);
  uint32_t no = 0, names = 0, vals = 0, tb = P->n_tys;
  if (air_parse_accept_kw(P, "shared_outs")) {
    uint32_t base = P->n_refs;
    TRY(ref_pairs(P, "'(' after 'shared_outs'", "',' or ')' after the shared outputs", &no));
    names = base;
    vals = base + 1; /* pairs: name, value */
    uint32_t nt;
    tb = P->n_tys;
    TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the types of the shared outputs"));
    TRY(air_parse_paren_types(P, true, &nt));
    if (nt != no)
      return PERR_TOK(P, "%u shared output%s but %u type%s", no, no == 1 ? "" : "s", nt,
                      nt == 1 ? "" : "s");
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, no, no, 1, 3, &op));
  op->iaux[0] = n;
  op->iaux[1] = normal;
  for (int i = 0; i < 3; ++i) op->lists[i] = lists[i];
  for (uint32_t i = 0; i < no; ++i) {
    air_pref_t r = P->refs[vals + 2 * i];
    TRY(air_parse_use(P, &r, P->tys[tb + i], &op->operands[i]));
  }
  air_region_spec_t rs = {0};
  rs.n_args = n + no;
  rs.ref_base = P->n_refs;
  rs.ty_base = P->n_tys;
  for (uint32_t i = 0; i < n; ++i) {
    air_pref_t r = P->refs[ivb + i];
    TRY(air_parse_push_ref(P, &r));
    TRY(air_parse_push_ty(P, P->t_index));
  }
  for (uint32_t i = 0; i < no; ++i) {
    air_pref_t r = P->refs[names + 2 * i];
    TRY(air_parse_push_ref(P, &r));
    TRY(air_parse_push_ty(P, P->tys[tb + i]));
  }
  rs.term = AIR_OP_IN_PARALLEL;
  rs.implicit = true;
  TRY(air_parse_region(P, op, 0, &rs));
  air_op_t* term = op->regions[0]->last;
  if (term->n_regions == 0) {
    /* The materialised terminator gets its (empty) region. */
    if (!(term->regions = air_ir_alloc(P->p, sizeof(air_block_t*))) ||
        !(term->regions[0] = air_ir_block_new(P->p, term, 0)))
      return air_parse_oom(P);
    term->n_regions = 1;
  }
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/* scf.forall.in_parallel { tensor.parallel_insert_slice ... } */
static air_status_t op_in_parallel(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                   const air_token_t* at, const air_pbinds_t* b) {
  if (!blk->parent || blk->parent->kind != AIR_OP_FORALL)
    return PERR(P, at->line, at->col, "'scf.forall.in_parallel' must end an 'scf.forall' body");
  uint32_t amark = P->n_nattrs;
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 0, 1, 0, &op));
  air_region_spec_t rs = {0};
  rs.term = AIR_OP_COUNT_;
  TRY(air_parse_region(P, op, 0, &rs));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, NULL, b);
}

/*---------------------------------------------------------------------------*/
/* affine                                                                    */
/*---------------------------------------------------------------------------*/

/* `(%d, ...)[%s, ...]` after an affine map or set; refs pushed, dims first. */
static air_status_t affine_operands(air_parser_t* P, const air_token_t* mt, uint32_t want_d,
                                    uint32_t want_s, uint32_t* nd, uint32_t* ns) {
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' and the dimension operands"));
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, nd));
  *ns = 0;
  if (air_parse_accept(P, AIR_TK_LSQUARE)) TRY(air_parse_ref_list(P, AIR_TK_RSQUARE, ns));
  if (*nd != want_d || *ns != want_s)
    return PERR(P, mt->line, mt->col,
                "'%s' takes %u dimension%s and %u symbol%s, but %u and %u are given",
                air_parse_q(P, mt->s, mt->len), want_d, want_d == 1 ? "" : "s", want_s,
                want_s == 1 ? "" : "s", *nd, *ns);
  return NULL;
}

static air_status_t op_affine_apply(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                    const air_token_t* at, const air_pbinds_t* b) {
  air_token_t mt = P->tok;
  air_attr_t m;
  const air_attr_t* r;
  uint32_t rb = P->n_refs, nd, ns, amark = P->n_nattrs;
  TRY(air_parse_map_ref(P, AIR_ATTR_MAP, &m, &r));
  if (kind == AIR_OP_AFFINE_APPLY && r->map->n_results != 1)
    return PERR(P, mt.line, mt.col, "'affine.apply' needs a map with one result, not %u",
                r->map->n_results);
  if (r->map->n_results == 0)
    return PERR(P, mt.line, mt.col, "'%s' needs a map with at least one result",
                air_opkind_name(kind));
  TRY(affine_operands(P, &mt, r->map->n_dims, r->map->n_syms, &nd, &ns));
  TRY(air_parse_opt_attr_dict(P));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, nd + ns, 1, 0, 0, &op));
  op->value = m;
  op->iaux[0] = nd;
  TRY(air_parse_resolve(P, rb, nd + ns, UINT32_MAX, P->t_index, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &P->t_index, b);
}

static air_status_t op_affine_if(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                 const air_token_t* at, const air_pbinds_t* b) {
  air_token_t mt = P->tok;
  air_attr_t s;
  const air_attr_t* r;
  uint32_t rb = P->n_refs, nd, ns, amark = P->n_nattrs, tb = P->n_tys, nr;
  TRY(air_parse_map_ref(P, AIR_ATTR_SET, &s, &r));
  TRY(affine_operands(P, &mt, r->set->n_dims, r->set->n_syms, &nd, &ns));
  tb = P->n_tys;
  TRY(air_parse_opt_arrow_types(P, &nr));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, nd + ns, nr, 2, 0, &op));
  op->n_regions = 1;
  op->value = s;
  op->iaux[0] = nd;
  TRY(air_parse_resolve(P, rb, nd + ns, UINT32_MAX, P->t_index, op->operands));
  TRY(if_regions(P, op, AIR_OP_AFFINE_YIELD, tb));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

static air_status_t affine_bound(air_parser_t* P, air_ix_t* out) {
  out->value = 0;
  out->cst = 0;
  if (P->tok.kind == AIR_TK_PERCENT) return air_parse_operand(P, P->t_index, &out->value);
  bool neg = false;
  if (P->tok.kind == AIR_TK_MINUS && air_parse_peek(P).kind == AIR_TK_INT) {
    neg = true;
    air_parse_next(P);
  }
  if (P->tok.kind == AIR_TK_INT) {
    if (P->tok.overflow || P->tok.u > (uint64_t)INT64_MAX)
      return PERR_TOK(P, "integer literal is out of range");
    out->cst = neg ? -(int64_t)P->tok.u : (int64_t)P->tok.u;
    air_parse_next(P);
    return NULL;
  }
  if (air_parse_is_kw(P, "max") || air_parse_is_kw(P, "min") || P->tok.kind == AIR_TK_HASH ||
      air_parse_is_kw(P, "affine_map") || P->tok.kind == AIR_TK_LPAREN)
    return PERR_TOK(P, "unsupported 'affine.for' bound: only constants and values are "
                       "supported, not affine maps");
  return air_parse_fail(P, "a constant or a value as the loop bound");
}

static air_status_t op_affine_for(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                  const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t iv;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &iv));
  TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after the induction variable"));
  air_ix_t lb, ub;
  TRY(affine_bound(P, &lb));
  TRY(air_parse_expect_kw(P, "to"));
  TRY(affine_bound(P, &ub));
  int64_t step = 1;
  if (air_parse_accept_kw(P, "step")) {
    if (P->tok.kind != AIR_TK_INT || P->tok.overflow || P->tok.u == 0 || P->tok.u > INT32_MAX)
      return air_parse_fail(P, "a positive constant step");
    step = (int64_t)P->tok.u;
    air_parse_next(P);
  }
  uint32_t ni, names = 0, vals = 0, tb;
  TRY(iter_args(P, &ni, &names, &vals, &tb));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, ni, ni, 1, 1, &op));
  if (!air_ir_list_init(P->p, &op->lists[0], 2)) return air_parse_oom(P);
  op->lists[0].items[0] = lb;
  op->lists[0].items[1] = ub;
  op->iaux[1] = (uint32_t)step;
  TRY(air_parse_resolve(P, vals, ni, tb, 0, op->operands));
  TRY(loop_region(P, op, &iv, P->t_index, ni, names, tb, AIR_OP_AFFINE_YIELD));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

air_parse_op_fn air_parse_ctrl_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_FOR: return op_for;
    case AIR_OPC_PARALLEL: return op_parallel;
    case AIR_OPC_REDUCE: return op_reduce;
    case AIR_OPC_IF: return op_if;
    case AIR_OPC_AFFINE_APPLY: return op_affine_apply;
    case AIR_OPC_AFFINE_IF: return op_affine_if;
    case AIR_OPC_AFFINE_FOR: return op_affine_for;
    case AIR_OPC_SWITCH: return op_switch;
    case AIR_OPC_FORALL: return op_forall;
    case AIR_OPC_IN_PARALLEL: return op_in_parallel;
    default: return NULL;
  }
}

/* parse_ops.c - func, arith and memref operations (affine.load/store included)
 * in MLIR's pretty syntax. Operands are read first and resolved once their types
 * are known (types come last in MLIR's forms). */
#include "runtime/text/parse_ops.h"

#include <string.h>

#include "runtime/text/parse_affine.h"
#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

/*---------------------------------------------------------------------------*/
/* func                                                                      */
/*---------------------------------------------------------------------------*/

static air_status_t op_func(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  uint32_t flags = 0;
  if (air_parse_accept_kw(P, "private"))
    flags |= AIR_OPF_PRIVATE;
  else if (!air_parse_accept_kw(P, "public"))
    air_parse_accept_kw(P, "nested");
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a function name '@name'");
  air_token_t name = P->tok;
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the function arguments"));
  uint32_t rb = P->n_refs, tb = P->n_tys, ni = 0, nr = 0, amark = P->n_nattrs;
  int named = -1;
  if (!air_parse_accept(P, AIR_TK_RPAREN)) {
    do {
      bool is_named = P->tok.kind == AIR_TK_PERCENT;
      if (named >= 0 && is_named != (bool)named)
        return PERR_TOK(P, "function arguments must be all named or all unnamed");
      named = is_named;
      if (is_named) {
        air_pref_t r;
        TRY(air_parse_ref(P, &r));
        TRY(air_parse_push_ref(P, &r));
        TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the argument type"));
      }
      air_tid_t t;
      TRY(air_parse_type(P, &t));
      TRY(air_parse_push_ty(P, t));
      TRY(air_parse_opt_attr_dict(P)); /* argument attributes are not kept */
      P->n_nattrs = amark;
      ++ni;
    } while (air_parse_accept(P, AIR_TK_COMMA));
    TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after the function arguments"));
  }
  if (air_parse_accept(P, AIR_TK_ARROW)) {
    if (air_parse_accept(P, AIR_TK_LPAREN)) {
      if (!air_parse_accept(P, AIR_TK_RPAREN)) {
        do {
          air_tid_t t;
          TRY(air_parse_type(P, &t));
          TRY(air_parse_push_ty(P, t));
          TRY(air_parse_opt_attr_dict(P));
          P->n_nattrs = amark;
          ++nr;
        } while (air_parse_accept(P, AIR_TK_COMMA));
        TRY(air_parse_expect(P, AIR_TK_RPAREN, "',' or ')' after the result types"));
      }
    } else {
      air_tid_t t;
      TRY(air_parse_type(P, &t));
      TRY(air_parse_push_ty(P, t));
      nr = 1;
    }
  }
  if (air_parse_accept_kw(P, "attributes")) TRY(air_parse_dict_entries(P));
  bool body = P->tok.kind == AIR_TK_LBRACE;
  if (body && ni && named != 1)
    return PERR(P, name.line, name.col, "a function with a body needs named arguments");
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 0, body ? 1 : 0, 0, &op));
  op->flags |= flags;
  op->iaux[0] = ni;
  op->n_types = ni + nr;
  if (ni + nr) {
    if (!(op->types = air_ir_alloc(P->p, (ni + nr) * sizeof(air_tid_t)))) return air_parse_oom(P);
    memcpy(op->types, P->tys + tb, (ni + nr) * sizeof(air_tid_t));
  }
  if (!(op->sym = air_parse_sym_dup(P, &name))) return air_parse_oom(P);
  TRY(air_parse_flush_attrs(P, op, amark));
  if (body) {
    air_region_spec_t rs = {0};
    rs.n_args = ni;
    rs.ref_base = rb;
    rs.ty_base = tb;
    rs.isolated = true;
    rs.term = AIR_OP_RETURN;
    TRY(air_parse_region(P, op, 0, &rs));
  }
  return air_parse_results(P, op, NULL, b);
}

static air_status_t op_call(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a callee '@name'");
  air_token_t callee = P->tok;
  air_parse_next(P);
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' to begin the call arguments"));
  uint32_t rb = P->n_refs, n, amark = P->n_nattrs;
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the callee's function type"));
  uint32_t tb = P->n_tys, ni, nr;
  TRY(air_parse_paren_types(P, false, &ni));
  TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the result types"));
  TRY(air_parse_paren_types(P, true, &nr));
  if (ni != n)
    return PERR(P, at->line, at->col, "the call passes %u argument%s but its type lists %u", n,
                n == 1 ? "" : "s", ni);
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, nr, 0, 0, &op));
  if (!(op->sym = air_parse_sym_dup(P, &callee))) return air_parse_oom(P);
  TRY(air_parse_resolve(P, rb, n, tb, 0, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb + ni, b);
}

static air_status_t op_term(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  uint32_t rb = P->n_refs, n = 0, tb = P->n_tys, nt = 0, amark = P->n_nattrs;
  /* `%x = ...` starting the next line is an op after the terminator, not an
   * operand of it. */
  bool next_op = P->tok.kind == AIR_TK_PERCENT && P->tok.line > at->line &&
                 air_parse_peek(P).kind == AIR_TK_EQUAL;
  if (P->tok.kind == AIR_TK_PERCENT && !next_op) TRY(air_parse_ref_list(P, AIR_TK_EOF, &n));
  TRY(air_parse_opt_attr_dict(P));
  if (n) {
    TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the types of the operands"));
    TRY(air_parse_type_list(P, &nt));
    if (nt != n)
      return PERR(P, at->line, at->col, "%u operand%s but %u type%s", n, n == 1 ? "" : "s", nt,
                  nt == 1 ? "" : "s");
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, 0, 0, 0, &op));
  TRY(air_parse_resolve(P, rb, n, tb, 0, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, NULL, b);
}

/*---------------------------------------------------------------------------*/
/* arith                                                                     */
/*---------------------------------------------------------------------------*/

static air_status_t op_constant(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_opt_attr_dict(P));
  air_token_t vt = P->tok;
  air_attr_t v;
  memset(&v, 0, sizeof(v));
  if (air_parse_is_kw(P, "true") || air_parse_is_kw(P, "false")) {
    v.kind = AIR_ATTR_INT;
    v.i = air_parse_is_kw(P, "true");
    v.type = P->t_i1;
    air_parse_next(P);
    if (air_parse_accept(P, AIR_TK_COLON)) {
      air_tid_t t;
      air_token_t tt = P->tok;
      TRY(air_parse_type(P, &t));
      if (t != P->t_i1) return PERR(P, tt.line, tt.col, "a boolean constant must have type 'i1'");
    }
  } else if (vt.kind == AIR_TK_INT || vt.kind == AIR_TK_FLOAT || vt.kind == AIR_TK_MINUS) {
    TRY(air_parse_attr(P, &v));
    if (v.kind == AIR_ATTR_OPAQUE)
      return PERR(P, vt.line, vt.col, "unsupported constant '%s'", v.s);
    if (!v.type) return air_parse_fail(P, "':' and the type of the constant");
  } else if (vt.kind == AIR_TK_BARE) {
    return PERR_TOK(P, "unsupported constant value '%s'", air_parse_q(P, vt.s, vt.len));
  } else {
    return air_parse_fail(P, "a constant value");
  }
  const air_type_info_t* ti = air_ir_type(P->p, v.type);
  if (v.kind == AIR_ATTR_INT && ti->elem != AIR_ELEM_INDEX) {
    uint32_t bits = air_elem_size(ti->elem) * 8;
    if (ti->elem == AIR_ELEM_I1) bits = 1;
    if (bits < 64) {
      int64_t lo = -(INT64_C(1) << (bits - 1)), hi = (INT64_C(1) << bits) - 1;
      if (v.i < lo || v.i > hi)
        return PERR(P, vt.line, vt.col, "integer constant %lld does not fit in type '%s'",
                    (long long)v.i, air_elem_name(ti->elem));
    }
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 1, 0, 0, &op));
  op->value = v;
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &v.type, b);
}

/* Binary, unary, ternary (math.fma), compare and select: `[pred,] %a, %b ... : T`. */
static air_status_t op_arith(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                             const air_token_t* at, const air_pbinds_t* b) {
  air_opcls_t cls = air_opkind_class(kind);
  int pred = 0;
  if (cls == AIR_OPC_CMP) {
    air_token_t pt = P->tok;
    if (pt.kind != AIR_TK_BARE) return air_parse_fail(P, "a comparison predicate");
    pred = kind == AIR_OP_CMPI ? air_cmpi_pred_lookup(pt.s, pt.len)
                               : air_cmpf_pred_lookup(pt.s, pt.len);
    if (pred < 0)
      return PERR_TOK(P, "unknown predicate '%s' for '%s'", air_parse_q(P, pt.s, pt.len),
                      air_opkind_name(kind));
    air_parse_next(P);
    TRY(air_parse_expect(P, AIR_TK_COMMA, "',' after the predicate"));
  }
  uint32_t n = cls == AIR_OPC_UNARY ? 1 : cls == AIR_OPC_SELECT || cls == AIR_OPC_TERNARY ? 3 : 2;
  uint32_t rb = P->n_refs, amark = P->n_nattrs;
  for (uint32_t i = 0; i < n; ++i) {
    if (i) TRY(air_parse_expect(P, AIR_TK_COMMA, "',' between the operands"));
    air_pref_t r;
    TRY(air_parse_ref(P, &r));
    TRY(air_parse_push_ref(P, &r));
  }
  TRY(air_parse_skip_op_flags(P));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t, cond = P->t_i1;
  TRY(air_parse_colon_type(P, &t, NULL));
  if (cls == AIR_OPC_SELECT && air_parse_accept(P, AIR_TK_COMMA)) {
    cond = t;
    TRY(air_parse_type(P, &t));
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, 1, 0, 0, &op));
  op->iaux[0] = (uint32_t)pred;
  for (uint32_t i = 0; i < n; ++i) {
    air_pref_t r = P->refs[rb + i];
    TRY(air_parse_use(P, &r, cls == AIR_OPC_SELECT && i == 0 ? cond : t, &op->operands[i]));
  }
  TRY(air_parse_flush_attrs(P, op, amark));
  air_tid_t rt = cls == AIR_OPC_CMP ? P->t_i1 : t;
  return air_parse_results(P, op, &rt, b);
}

static air_status_t op_cast(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t r;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &r));
  TRY(air_parse_skip_op_flags(P));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t from, to;
  TRY(air_parse_colon_type(P, &from, NULL));
  TRY(air_parse_expect_kw(P, "to"));
  TRY(air_parse_type(P, &to));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 0, &op));
  TRY(air_parse_use(P, &r, from, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &to, b);
}

/*---------------------------------------------------------------------------*/
/* memref                                                                    */
/*---------------------------------------------------------------------------*/

static air_status_t op_alloc(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                             const air_token_t* at, const air_pbinds_t* b) {
  uint32_t rb = P->n_refs, n, amark = P->n_nattrs;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'memref.alloc'"));
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
  if (P->tok.kind == AIR_TK_LSQUARE)
    return PERR_TOK(P, "symbol operands of 'memref.alloc' are not supported");
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t;
  TRY(air_parse_colon_memref(P, &t));
  const air_type_info_t* ti = air_ir_type(P->p, t);
  uint32_t dyn = 0;
  for (uint32_t i = 0; i < ti->rank; ++i) dyn += ti->shape[i] == AIR_DIM_DYNAMIC;
  if (dyn != n)
    return PERR(P, at->line, at->col,
                "'memref.alloc' has %u dynamic size%s but the type has %u '?' dimension%s", n,
                n == 1 ? "" : "s", dyn, dyn == 1 ? "" : "s");
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, 1, 0, 0, &op));
  TRY(air_parse_resolve(P, rb, n, UINT32_MAX, P->t_index, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

/* dealloc, load and store: `[%v,] %m[indices] : memref<...>`; affine.load/store
 * write affine subscripts in the brackets (`%m[%i, %j + 1]`). */
static air_status_t op_mem(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                           const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t val = {0}, mem;
  uint32_t rb, n = 0, nd = 0, amark = P->n_nattrs;
  bool store = kind == AIR_OP_STORE || kind == AIR_OP_AFFINE_STORE;
  bool affine = kind == AIR_OP_AFFINE_LOAD || kind == AIR_OP_AFFINE_STORE;
  air_attr_t map;
  if (store) {
    TRY(air_parse_ref(P, &val));
    TRY(air_parse_expect(P, AIR_TK_COMMA, "',' between the value and the memref"));
  }
  TRY(air_parse_ref(P, &mem));
  rb = P->n_refs;
  air_token_t st = P->tok;
  if (affine) {
    uint32_t ns;
    TRY(air_parse_affine_subscripts(P, &map, &nd, &ns));
    n = nd + ns;
  } else if (kind != AIR_OP_DEALLOC) {
    TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin the indices"));
    TRY(air_parse_ref_list(P, AIR_TK_RSQUARE, &n));
  }
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t;
  TRY(air_parse_colon_memref(P, &t));
  const air_type_info_t* ti = air_ir_type(P->p, t);
  if (affine && map.map->n_results != ti->rank)
    return PERR(P, st.line, st.col, "'%s' of a rank-%u memref needs %u subscripts, found %u",
                air_opkind_name(kind), ti->rank, ti->rank, map.map->n_results);
  air_tid_t elem = air_ir_type_scalar(P->p, ti->elem);
  if (!elem) return air_parse_oom(P);
  uint32_t extra = store ? 1 : 0;
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, extra + 1 + n,
                       kind == AIR_OP_LOAD || kind == AIR_OP_AFFINE_LOAD ? 1 : 0, 0, 0, &op));
  if (affine) {
    op->value = map;
    op->iaux[0] = nd;
  }
  if (extra) TRY(air_parse_use(P, &val, elem, &op->operands[0]));
  TRY(air_parse_use(P, &mem, t, &op->operands[extra]));
  TRY(air_parse_resolve(P, rb, n, UINT32_MAX, P->t_index, op->operands + extra + 1));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &elem, b);
}

static air_status_t op_copy(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                            const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src, dst;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  TRY(air_parse_expect(P, AIR_TK_COMMA, "',' between the source and the target"));
  TRY(air_parse_ref(P, &dst));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  TRY(air_parse_memref_to(P, &ts, &td));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 2, 0, 0, 0, &op));
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  TRY(air_parse_use(P, &dst, td, &op->operands[1]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, NULL, b);
}

static air_status_t op_subview(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  air_ixlist_t lists[3];
  for (int i = 0; i < 3; ++i) TRY(air_parse_ixlist(P, &lists[i]));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  TRY(air_parse_memref_to(P, &ts, &td));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 3, &op));
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  for (int i = 0; i < 3; ++i) op->lists[i] = lists[i];
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &td, b);
}

/* `[[0, 1], [2]]` into lists[0] (indices) and lists[1] (group sizes). */
static air_status_t reassociation(air_parser_t* P, air_ixlist_t* idx, air_ixlist_t* groups) {
  int64_t sizes[AIR_PARSE_MAX_GROUPS];
  uint32_t ng = 0, mark = P->n_ixs;
  TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin the reassociation"));
  if (P->tok.kind != AIR_TK_RSQUARE) {
    do {
      if (ng == AIR_PARSE_MAX_GROUPS)
        return PERR_TOK(P, "more than %d reassociation groups", AIR_PARSE_MAX_GROUPS);
      uint32_t before = P->n_ixs;
      TRY(air_parse_expect(P, AIR_TK_LSQUARE, "'[' to begin a reassociation group"));
      if (P->tok.kind != AIR_TK_RSQUARE) {
        do {
          if (P->tok.kind != AIR_TK_INT || P->tok.overflow || P->tok.u > INT32_MAX)
            return air_parse_fail(P, "a dimension number");
          TRY(air_parse_push_ix(P, 0, (int64_t)P->tok.u));
          air_parse_next(P);
        } while (air_parse_accept(P, AIR_TK_COMMA));
      }
      TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' in a reassociation group"));
      sizes[ng++] = P->n_ixs - before;
    } while (air_parse_accept(P, AIR_TK_COMMA));
  }
  TRY(air_parse_expect(P, AIR_TK_RSQUARE, "',' or ']' after a reassociation group"));
  uint32_t n = P->n_ixs - mark;
  if (!air_ir_list_init(P->p, idx, n) || !air_ir_list_init(P->p, groups, ng))
    return air_parse_oom(P);
  if (n) memcpy(idx->items, P->ixs + mark, n * sizeof(air_ix_t));
  for (uint32_t i = 0; i < ng; ++i) groups->items[i].cst = sizes[i];
  P->n_ixs = mark;
  return NULL;
}

/* memref.collapse_shape %m [[0, 1], [2]] : T into U
 * memref.expand_shape %m [[0, 1], [2]] output_shape [4, 8, 16] : T into U
 * memref.cast %m : T to U */
static air_status_t op_reshape(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs, nl = 0;
  air_ixlist_t lists[3];
  memset(lists, 0, sizeof lists);
  TRY(air_parse_ref(P, &src));
  if (kind != AIR_OP_MEMREF_CAST) {
    TRY(reassociation(P, &lists[0], &lists[1]));
    nl = 2;
    if (kind == AIR_OP_EXPAND_SHAPE && air_parse_accept_kw(P, "output_shape")) {
      TRY(air_parse_ixlist(P, &lists[2]));
      nl = 3;
    }
  }
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  air_token_t a1, a2;
  TRY(air_parse_colon_type(P, &ts, &a1));
  TRY(air_parse_need_memref(P, &a1, ts));
  TRY(air_parse_expect_kw(P, kind == AIR_OP_MEMREF_CAST ? "to" : "into"));
  a2 = P->tok;
  TRY(air_parse_type(P, &td));
  TRY(air_parse_need_memref(P, &a2, td));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, nl, &op));
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  for (uint32_t i = 0; i < nl; ++i) op->lists[i] = lists[i];
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &td, b);
}

air_parse_op_fn air_parse_ops_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_FUNC: return op_func;
    case AIR_OPC_CALL: return op_call;
    case AIR_OPC_TERMINATOR: return op_term;
    case AIR_OPC_CONSTANT: return op_constant;
    case AIR_OPC_BINARY:
    case AIR_OPC_UNARY:
    case AIR_OPC_CMP:
    case AIR_OPC_SELECT:
    case AIR_OPC_TERNARY: return op_arith;
    case AIR_OPC_CAST: return op_cast;
    case AIR_OPC_ALLOC: return op_alloc;
    case AIR_OPC_DEALLOC:
    case AIR_OPC_LOAD:
    case AIR_OPC_STORE: return op_mem;
    case AIR_OPC_COPY: return op_copy;
    case AIR_OPC_SUBVIEW: return op_subview;
    case AIR_OPC_RESHAPE: return op_reshape;
    default: return NULL;
  }
}

/* parse_linalg.c - linalg in MLIR's pretty syntax: fill, copy, matmul, generic
 * (with linalg.index in its body) and the named elementwise ops (linalg.add,
 * linalg.exp, ...), on memrefs or, with `-> T` results, on tensors. */
#include "runtime/text/parse_linalg.h"

#include <string.h>

#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

/* `ins(%a, %b : T, T)`; refs and types pushed. */
static air_status_t linalg_operands(air_parser_t* P, const char* kw, uint32_t* n) {
  *n = 0;
  if (!air_parse_accept_kw(P, kw)) return NULL;
  air_token_t at = P->tok;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'ins'/'outs'"));
  if (air_parse_accept(P, AIR_TK_RPAREN)) return NULL;
  TRY(air_parse_ref_list(P, AIR_TK_EOF, n));
  TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the operand types"));
  uint32_t nt;
  TRY(air_parse_type_list(P, &nt));
  if (nt != *n)
    return PERR(P, at.line, at.col, "%u operand%s but %u type%s", *n, *n == 1 ? "" : "s", nt,
                nt == 1 ? "" : "s");
  return air_parse_expect(P, AIR_TK_RPAREN, "')' after the operand types");
}

/* `-> T` / `-> (T, ...)` results of an op on tensors: one per outs operand, each
 * of that operand's type. */
static air_status_t tensor_results(air_parser_t* P, air_opkind_t kind, uint32_t tb2,
                                   uint32_t nout, uint32_t* nr) {
  *nr = 0;
  air_token_t arrow = P->tok;
  if (!air_parse_accept(P, AIR_TK_ARROW)) return NULL;
  TRY(air_parse_paren_types(P, true, nr));
  uint32_t base = P->n_tys - *nr;
  if (*nr != nout)
    return PERR(P, arrow.line, arrow.col, "'%s' has %u outs operand%s but %u result type%s",
                air_opkind_name(kind), nout, nout == 1 ? "" : "s", *nr, *nr == 1 ? "" : "s");
  for (uint32_t i = 0; i < *nr; ++i) {
    if (air_ir_type(P->p, P->tys[base + i])->kind != AIR_TYPE_TENSOR ||
        !air_parse_types_match(P, P->tys[base + i], P->tys[tb2 + i])) {
      char a[128];
      return PERR(P, arrow.line, arrow.col,
                  "result %u of '%s' must be a tensor of its outs operand's type '%s'", i,
                  air_opkind_name(kind), air_parse_type_str(P, P->tys[tb2 + i], a, sizeof a));
    }
  }
  return NULL;
}

static air_status_t op_linalg(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  bool generic = kind == AIR_OP_GENERIC;
  for (;;) {
    if (P->tok.kind == AIR_TK_LBRACE) {
      TRY(air_parse_dict_entries(P));
    } else if (P->tok.kind == AIR_TK_BARE && !air_parse_is_kw(P, "ins") &&
               !air_parse_is_kw(P, "outs") && air_parse_peek(P).kind == AIR_TK_EQUAL) {
      /* `indexing_maps = [...]` written before the operands. */
      air_named_attr_t na;
      memset(&na, 0, sizeof(na));
      if (!(na.name = air_ir_strndup(P->p, P->tok.s, P->tok.len))) return air_parse_oom(P);
      air_parse_next(P);
      air_parse_next(P);
      TRY(air_parse_attr(P, &na.value));
      TRY(air_parse_push_nattr(P, &na));
    } else {
      break;
    }
  }
  uint32_t rb = P->n_refs, tb = P->n_tys, nin, nout;
  TRY(linalg_operands(P, "ins", &nin));
  uint32_t rb2 = P->n_refs, tb2 = P->n_tys;
  if (!air_parse_is_kw(P, "outs")) return air_parse_fail(P, "'outs(...)'");
  TRY(linalg_operands(P, "outs", &nout));
  if (air_parse_accept_kw(P, "attrs")) {
    TRY(air_parse_expect(P, AIR_TK_EQUAL, "'=' after 'attrs'"));
    TRY(air_parse_dict_entries(P));
  }
  uint32_t nr = 0, rtb = P->n_tys;
  if (!generic) {
    TRY(air_parse_opt_attr_dict(P));
    TRY(tensor_results(P, kind, tb2, nout, &nr));
  }
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, nin + nout, nr, generic ? 1 : 0, 0, &op));
  op->iaux[0] = nin;
  TRY(air_parse_resolve(P, rb, nin, tb, 0, op->operands));
  TRY(air_parse_resolve(P, rb2, nout, tb2, 0, op->operands + nin));
  if (generic) {
    air_token_t rt = P->tok;
    air_region_spec_t rs = {0};
    rs.label_args = true;
    rs.term = AIR_OP_LINALG_YIELD;
    TRY(air_parse_region(P, op, 0, &rs));
    if (op->regions[0]->n_args != nin + nout)
      return PERR(P, rt.line, rt.col,
                  "the region of 'linalg.generic' needs %u arguments (one per operand), found %u",
                  nin + nout, op->regions[0]->n_args);
    rtb = P->n_tys;
    TRY(tensor_results(P, kind, tb2, nout, &nr));
    if (nr) {
      /* The result count is known only now: give the op its result slots. */
      if (!(op->results = air_ir_alloc(P->p, nr * sizeof(air_vid_t)))) return air_parse_oom(P);
      op->n_results = nr;
    }
    TRY(air_parse_opt_attr_dict(P));
  }
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + rtb, b);
}

/* %i = linalg.index 0 : index */
static air_status_t op_index(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                             const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  if (P->tok.kind != AIR_TK_INT || P->tok.overflow || P->tok.u > 255)
    return air_parse_fail(P, "a loop dimension (0 to 255)");
  uint32_t dim = (uint32_t)P->tok.u;
  air_parse_next(P);
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t;
  air_token_t tt;
  TRY(air_parse_colon_type(P, &t, &tt));
  if (t != P->t_index) return PERR(P, tt.line, tt.col, "'linalg.index' has type 'index'");
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 1, 0, 0, &op));
  op->iaux[0] = dim;
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

air_parse_op_fn air_parse_linalg_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_LINALG: return op_linalg;
    case AIR_OPC_LINALG_INDEX: return op_index;
    default: return NULL;
  }
}

/* parse_mem.c - memref globals (memref.global / get_global), the views mlir-air's
 * lowerings write (memref.reshape, transpose, extract_strided_metadata,
 * reinterpret_cast), and the tensor ops scf.forall's shared_outs need
 * (tensor.empty, extract_slice, insert_slice, parallel_insert_slice) with the
 * bufferization casts between tensors and memrefs, in MLIR's pretty syntax. */
#include "runtime/text/parse_mem.h"

#include <string.h>

#include "runtime/text/parse_affine.h"
#include "runtime/text/parse_attr.h"
#include "runtime/text/parse_ssa.h"
#include "runtime/text/parse_type.h"

static air_status_t need_kind(air_parser_t* P, const air_token_t* at, air_tid_t t,
                              air_type_kind_t kind) {
  if (air_ir_type(P->p, t)->kind == kind) return NULL;
  char b[128];
  return PERR(P, at->line, at->col, "expected a %s type, found '%s'",
              kind == AIR_TYPE_TENSOR ? "tensor" : "memref", air_parse_type_str(P, t, b, sizeof b));
}

/*---------------------------------------------------------------------------*/
/* memref.global / memref.get_global                                         */
/*---------------------------------------------------------------------------*/

/* memref.global ["private"|"nested"|"public"] [constant] @name : T
 *     [= dense<...> | = uninitialized] [{attrs}] */
static air_status_t op_global(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b) {
  uint32_t vis = 0, flags = 0, amark = P->n_nattrs;
  if (P->tok.kind == AIR_TK_STRING) {
    const air_token_t* t = &P->tok;
    if (t->len == 9 && memcmp(t->s, "\"private\"", 9) == 0)
      vis = 1;
    else if (t->len == 8 && memcmp(t->s, "\"nested\"", 8) == 0)
      vis = 2;
    else if (!(t->len == 8 && memcmp(t->s, "\"public\"", 8) == 0))
      return PERR_TOK(P, "unknown symbol visibility %s (private, nested or public)",
                      air_parse_q(P, P->tok.s, P->tok.len));
    air_parse_next(P);
  }
  if (air_parse_accept_kw(P, "constant")) flags |= AIR_GLOBAL_CONSTANT;
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a global name '@name'");
  air_token_t name = P->tok;
  air_parse_next(P);
  air_tid_t t;
  TRY(air_parse_colon_memref(P, &t));
  air_attr_t init;
  memset(&init, 0, sizeof init);
  if (air_parse_accept(P, AIR_TK_EQUAL)) {
    if (air_parse_accept_kw(P, "uninitialized")) {
      flags |= AIR_GLOBAL_UNINIT;
    } else {
      TRY(air_parse_attr(P, &init));
      flags |= AIR_GLOBAL_INIT;
    }
  }
  TRY(air_parse_opt_attr_dict(P));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 0, 0, 0, &op));
  if (!(op->sym = air_parse_sym_dup(P, &name)) || !(op->types = air_ir_alloc(P->p, sizeof t)))
    return air_parse_oom(P);
  op->types[0] = t;
  op->n_types = 1;
  op->iaux[0] = vis;
  op->iaux[1] = flags;
  op->value = init;
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, NULL, b);
}

/* %m = memref.get_global @name : T */
static air_status_t op_get_global(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                  const air_token_t* at, const air_pbinds_t* b) {
  uint32_t amark = P->n_nattrs;
  if (P->tok.kind != AIR_TK_AT) return air_parse_fail(P, "a global name '@name'");
  air_token_t name = P->tok;
  air_parse_next(P);
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t;
  TRY(air_parse_colon_memref(P, &t));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 0, 1, 0, 0, &op));
  if (!(op->sym = air_parse_sym_dup(P, &name))) return air_parse_oom(P);
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

/*---------------------------------------------------------------------------*/
/* Views                                                                     */
/*---------------------------------------------------------------------------*/

/* %r = memref.reshape %src(%shape) : (T, S) -> U */
static air_status_t op_reshape(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src, shape;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' and the shape operand"));
  TRY(air_parse_ref(P, &shape));
  TRY(air_parse_expect(P, AIR_TK_RPAREN, "')' after the shape operand"));
  TRY(air_parse_opt_attr_dict(P));
  TRY(air_parse_expect(P, AIR_TK_COLON, "':' and the operand types"));
  air_token_t tt = P->tok;
  uint32_t tb = P->n_tys, n;
  TRY(air_parse_paren_types(P, false, &n));
  if (n != 2) return PERR(P, tt.line, tt.col, "'memref.reshape' takes 2 operand types, not %u", n);
  TRY(air_parse_need_memref(P, &tt, P->tys[tb]));
  TRY(air_parse_need_memref(P, &tt, P->tys[tb + 1]));
  TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the result type"));
  air_token_t rt = P->tok;
  air_tid_t r;
  TRY(air_parse_type(P, &r));
  TRY(air_parse_need_memref(P, &rt, r));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 2, 1, 0, 0, &op));
  TRY(air_parse_use(P, &src, P->tys[tb], &op->operands[0]));
  TRY(air_parse_use(P, &shape, P->tys[tb + 1], &op->operands[1]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &r, b);
}

/* %t = memref.transpose %m (d0, d1) -> (d1, d0) : T to U */
static air_status_t op_transpose(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                 const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  air_token_t mt = P->tok;
  air_attr_t perm;
  if (P->tok.kind == AIR_TK_LPAREN) {
    TRY(air_parse_affine_map_bare(P, &perm));
  } else {
    const air_attr_t* r;
    TRY(air_parse_map_ref(P, AIR_ATTR_MAP, &perm, &r));
  }
  const air_attr_t* m = air_ir_attr_resolve(P->p, &perm);
  if (!m || m->kind != AIR_ATTR_MAP || m->map->n_syms)
    return PERR(P, mt.line, mt.col, "'memref.transpose' needs a permutation map");
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  TRY(air_parse_memref_to(P, &ts, &td));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 0, &op));
  op->value = perm;
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &td, b);
}

/* %base, %off, %sizes:N, %strides:N = memref.extract_strided_metadata %m
 *     : T -> memref<E>, index, ... */
static air_status_t op_extract_meta(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                    const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts;
  TRY(air_parse_colon_memref(P, &ts));
  TRY(air_parse_expect(P, AIR_TK_ARROW, "'->' and the result types"));
  uint32_t tb = P->n_tys, nr;
  TRY(air_parse_type_list(P, &nr));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, nr, 0, 0, &op));
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, P->tys + tb, b);
}

/* `name: [list]` of reinterpret_cast. */
static air_status_t labelled_list(air_parser_t* P, const char* kw, air_ixlist_t* out) {
  TRY(air_parse_expect_kw(P, kw));
  TRY(air_parse_expect(P, AIR_TK_COLON, "':' after the list name"));
  return air_parse_ixlist(P, out);
}

/* %v = memref.reinterpret_cast %m to offset: [o], sizes: [..], strides: [..] : T to U */
static air_status_t op_reinterpret(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                   const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  TRY(air_parse_expect_kw(P, "to"));
  air_ixlist_t lists[3];
  air_token_t lt = P->tok;
  TRY(labelled_list(P, "offset", &lists[0]));
  if (lists[0].n != 1) return PERR(P, lt.line, lt.col, "'offset' takes exactly one value");
  TRY(air_parse_expect(P, AIR_TK_COMMA, "',' before 'sizes'"));
  TRY(labelled_list(P, "sizes", &lists[1]));
  TRY(air_parse_expect(P, AIR_TK_COMMA, "',' before 'strides'"));
  TRY(labelled_list(P, "strides", &lists[2]));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  TRY(air_parse_memref_to(P, &ts, &td));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 3, &op));
  for (int i = 0; i < 3; ++i) op->lists[i] = lists[i];
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &td, b);
}

/*---------------------------------------------------------------------------*/
/* Tensors and bufferization                                                 */
/*---------------------------------------------------------------------------*/

/* %t = tensor.empty(%d, ...) : tensor<?x4xf32> */
static air_status_t op_tensor_empty(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                    const air_token_t* at, const air_pbinds_t* b) {
  uint32_t rb = P->n_refs, n, amark = P->n_nattrs;
  TRY(air_parse_expect(P, AIR_TK_LPAREN, "'(' after 'tensor.empty'"));
  TRY(air_parse_ref_list(P, AIR_TK_RPAREN, &n));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t;
  air_token_t tt;
  TRY(air_parse_colon_type(P, &t, &tt));
  TRY(need_kind(P, &tt, t, AIR_TYPE_TENSOR));
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, n, 1, 0, 0, &op));
  TRY(air_parse_resolve(P, rb, n, UINT32_MAX, P->t_index, op->operands));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &t, b);
}

/* tensor.extract_slice %t[o] [s] [st] : T to U
 * tensor.insert_slice %s into %t[o] [s] [st] : S into T   (and parallel_) */
static air_status_t op_slice(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                             const air_token_t* at, const air_pbinds_t* b) {
  bool insert = kind != AIR_OP_EXTRACT_SLICE;
  air_pref_t src, dst = {0};
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  if (insert) {
    TRY(air_parse_expect_kw(P, "into"));
    TRY(air_parse_ref(P, &dst));
  }
  air_ixlist_t lists[3];
  for (int i = 0; i < 3; ++i) TRY(air_parse_ixlist(P, &lists[i]));
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t ts, td;
  air_token_t a1, a2;
  TRY(air_parse_colon_type(P, &ts, &a1));
  TRY(need_kind(P, &a1, ts, AIR_TYPE_TENSOR));
  TRY(air_parse_expect_kw(P, insert ? "into" : "to"));
  a2 = P->tok;
  TRY(air_parse_type(P, &td));
  TRY(need_kind(P, &a2, td, AIR_TYPE_TENSOR));
  bool result = kind != AIR_OP_PARALLEL_INSERT_SLICE;
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, insert ? 2 : 1, result ? 1 : 0, 0, 3, &op));
  for (int i = 0; i < 3; ++i) op->lists[i] = lists[i];
  TRY(air_parse_use(P, &src, ts, &op->operands[0]));
  if (insert) TRY(air_parse_use(P, &dst, td, &op->operands[1]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &td, b);
}

/* The tensor type a memref type reads as (bufferization.to_tensor without `to`). */
static air_tid_t tensor_of(air_parser_t* P, air_tid_t m) {
  const air_type_info_t* t = air_ir_type(P->p, m);
  return air_ir_type_tensor(P->p, t->elem, t->unranked, t->rank, t->shape, NULL);
}

/* bufferization.to_tensor %m [restrict] [writable] : M [to T]
 * bufferization.to_memref %t [read_only] : [T to] M */
static air_status_t op_bufferize(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                 const air_token_t* at, const air_pbinds_t* b) {
  air_pref_t src;
  uint32_t amark = P->n_nattrs;
  TRY(air_parse_ref(P, &src));
  static const char* const k_units[3] = {"restrict", "writable", "read_only"};
  uint32_t units = 0;
  for (bool took = true; took;) {
    took = false;
    for (uint32_t k = 0; k < 3; ++k) {
      if (!air_parse_is_kw(P, k_units[k])) continue;
      units |= 1u << k;
      air_parse_next(P);
      took = true;
    }
  }
  TRY(air_parse_opt_attr_dict(P));
  air_tid_t t1, t2 = 0;
  air_token_t a1, a2;
  TRY(air_parse_colon_type(P, &t1, &a1));
  bool two = air_parse_accept_kw(P, "to");
  if (two) {
    a2 = P->tok;
    TRY(air_parse_type(P, &t2));
  }
  bool to_tensor = kind == AIR_OP_TO_TENSOR;
  air_tid_t from, to;
  if (to_tensor) {
    TRY(air_parse_need_memref(P, &a1, t1));
    from = t1;
    to = two ? t2 : tensor_of(P, t1);
    if (two) TRY(need_kind(P, &a2, t2, AIR_TYPE_TENSOR));
  } else if (two) {
    TRY(need_kind(P, &a1, t1, AIR_TYPE_TENSOR));
    TRY(air_parse_need_memref(P, &a2, t2));
    from = t1;
    to = t2;
  } else {
    TRY(air_parse_need_memref(P, &a1, t1));
    from = tensor_of(P, t1);
    to = t1;
  }
  if (!from || !to) return air_parse_oom(P);
  air_op_t* op;
  TRY(air_parse_new_op(P, blk, kind, at, 1, 1, 0, 0, &op));
  op->iaux[0] = two;
  op->iaux[1] = units;
  TRY(air_parse_use(P, &src, from, &op->operands[0]));
  TRY(air_parse_flush_attrs(P, op, amark));
  return air_parse_results(P, op, &to, b);
}

air_parse_op_fn air_parse_mem_fn(air_opcls_t cls) {
  switch (cls) {
    case AIR_OPC_GLOBAL: return op_global;
    case AIR_OPC_GET_GLOBAL: return op_get_global;
    case AIR_OPC_MEMREF_RESHAPE: return op_reshape;
    case AIR_OPC_TRANSPOSE: return op_transpose;
    case AIR_OPC_EXTRACT_META: return op_extract_meta;
    case AIR_OPC_REINTERPRET: return op_reinterpret;
    case AIR_OPC_TENSOR_EMPTY: return op_tensor_empty;
    case AIR_OPC_SLICE:
    case AIR_OPC_INSERT_SLICE: return op_slice;
    case AIR_OPC_BUFFERIZE: return op_bufferize;
    default: return NULL;
  }
}

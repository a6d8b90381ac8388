/* parse_parts.h - the parts of an op's syntax (parse_parts.c) and the signature
 * of the per-family op parsers built from them (parse_air.c, parse_ops.c,
 * parse_ctrl.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_PARTS_H_
#define AIR_RUNTIME_TEXT_PARSE_PARTS_H_

#include "runtime/text/parse_core.h"

/* Reads one operand and resolves it at once with the type it must have. */
air_status_t air_parse_operand(air_parser_t* P, air_tid_t type, air_vid_t* out);
/* `[%a, 0, %b]`: a mixed static/dynamic index list, values of type index. */
air_status_t air_parse_ixlist(air_parser_t* P, air_ixlist_t* out);
/* The same list in parentheses: `(%a, 4, ...)` (scf.forall's bounds). */
air_status_t air_parse_ixgroup(air_parser_t* P, air_ixlist_t* out);
/* `[%a, %b]` of tokens, appended to *list. */
air_status_t air_parse_toklist(air_parser_t* P, air_vlist_t* list);
/* `( %a, %b )` or `%a, %b` refs pushed on refs (no resolution); `close` is the
 * closing token or AIR_TK_EOF for an unbracketed list. */
air_status_t air_parse_ref_list(air_parser_t* P, air_tk_t close, uint32_t* n);
/* Resolves refs[base..base+n) with tys[tbase..] (or all with `type` when tbase
 * is UINT32_MAX) into dst. */
air_status_t air_parse_resolve(air_parser_t* P, uint32_t base, uint32_t n, uint32_t tbase,
                               air_tid_t type, air_vid_t* dst);
/* Copies nattrs[mark..] onto op->attrs (a written name replaces an earlier one)
 * and pops them. */
air_status_t air_parse_flush_attrs(air_parser_t* P, air_op_t* op, uint32_t mark);
/* Parses an optional `{...}` dictionary onto the nattrs stack. */
air_status_t air_parse_opt_attr_dict(air_parser_t* P);
/* Skips MLIR's `overflow<...>` / `fastmath<...>` flags, which carry no meaning here. */
air_status_t air_parse_skip_op_flags(air_parser_t* P);

/* A new op appended to `blk`, with its location. */
air_status_t air_parse_new_op(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, uint32_t n_operands,
                              uint32_t n_results, uint32_t n_regions, uint32_t n_lists,
                              air_op_t** out);
/* Creates op's results (types[n_results]) and binds the written names. */
air_status_t air_parse_results(air_parser_t* P, air_op_t* op, const air_tid_t* types,
                               const air_pbinds_t* b);

/* How a region's block gets its arguments and terminator. */
typedef struct air_region_spec_t {
  uint32_t n_args;     /* arguments declared by the op: names refs[ref_base..], */
  uint32_t ref_base;   /* types tys[ty_base..] */
  uint32_t ty_base;
  bool isolated;
  bool label_args;     /* arguments come from a `^bb0(...)` label instead */
  air_opkind_t term;   /* required terminator, AIR_OP_COUNT_ for none */
  bool implicit;       /* create `term` (no operands) when the text omits it */
} air_region_spec_t;
air_status_t air_parse_region(air_parser_t* P, air_op_t* op, uint32_t index,
                              const air_region_spec_t* rs);

/* `: T`, with the type's token in *at (may be NULL) for messages. */
air_status_t air_parse_colon_type(air_parser_t* P, air_tid_t* t, air_token_t* at);
/* An error at `at` unless t is a memref type. */
air_status_t air_parse_need_memref(air_parser_t* P, const air_token_t* at, air_tid_t t);
/* `: T` with T a memref type. */
air_status_t air_parse_colon_memref(air_parser_t* P, air_tid_t* t);
/* `: T to U`, both memref types (a copy's, a view's source and result). */
air_status_t air_parse_memref_to(air_parser_t* P, air_tid_t* from, air_tid_t* to);

/* Per-class op parsers: the op name is consumed; `at` is the op's start. */
typedef air_status_t (*air_parse_op_fn)(air_parser_t* P, air_block_t* blk,
                                        air_opkind_t kind, const air_token_t* at,
                                        const air_pbinds_t* b);

#endif /* AIR_RUNTIME_TEXT_PARSE_PARTS_H_ */

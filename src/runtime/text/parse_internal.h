/* parse_internal.h - state and helpers shared by the parser's files:
 *   parse.c       entry point, module, regions, op dispatch, token helpers
 *   parse_ssa.c   scopes and SSA names (hash table, forward references)
 *   parse_attr.c  types, attributes, affine maps and sets
 *   parse_air.c   the air dialect's operations
 *   parse_ops.c   func, arith, memref, scf, affine and linalg operations
 *
 * Parsing is recursive descent over one lookahead token (P->tok). Every
 * function that can fail returns an air_status_t; the first error ends the parse.
 * Lists of unknown length are gathered on scratch stacks in the parser (reset by
 * the caller that pushed them, so nesting keeps stack discipline) and copied
 * into the program arena once complete. */
#ifndef AIR_RUNTIME_TEXT_PARSE_INTERNAL_H_
#define AIR_RUNTIME_TEXT_PARSE_INTERNAL_H_

#include "runtime/ir/ir.h"
#include "runtime/text/lex.h"
#include "runtime/base/status_util.h"

/* Nesting of regions, attributes and affine expressions; deeper input is refused
 * so hostile text cannot exhaust the C stack. */
enum { AIR_PARSE_MAX_DEPTH = 256, AIR_PARSE_RECENT = 4096 };
/* Reassociation groups of collapse_shape/expand_shape (one per result dimension). */
enum { AIR_PARSE_MAX_GROUPS = 64 };

#define TRY(expr) AIR_RETURN_IF_ERROR(expr)
#define PERR(P, line, col, ...) \
  AIR_IR_ERROR((P)->p, AIR_STATUS_INVALID_ARGUMENT, (line), (col), __VA_ARGS__)
#define PERR_TOK(P, ...) PERR((P), (P)->tok.line, (P)->tok.col, __VA_ARGS__)

/* A written SSA name: a use (`num` = result number or -1) or a binding (`num` =
 * number of results it binds, as in %r:2). `s` excludes the '%'. */
typedef struct air_pref_t {
  const char* s;
  uint32_t len;
  int32_t num;
  uint32_t line, col;
} air_pref_t;

/* One visible SSA name (see parse_ssa.c). */
typedef struct air_psym_t {
  const char* s;
  uint32_t len;
  uint32_t hash;
  int32_t shadowed;    /* entry this one hides, or -1 */
  uint32_t level;      /* scope depth */
  air_vid_t* vids;     /* values by result number */
  uint32_t n;          /* #values (forward refs: capacity of vids) */
  bool fwd;            /* used before being defined */
  uint32_t line, col;  /* definition, or first use for a forward reference */
} air_psym_t;

typedef struct air_pslot_t {
  int32_t e;  /* entry index, -1 empty, -2 deleted */
  uint32_t h; /* its name's hash */
} air_pslot_t;

typedef struct air_pscope_t {
  uint32_t undo_mark; /* P->undo entries at push */
  bool isolated;
  uint32_t prev_iso;
} air_pscope_t;

typedef struct air_ptalias_t {
  const char* s;
  uint32_t len;
  air_tid_t type;
} air_ptalias_t;

/* Result names bound before an op's `=`: refs[base .. base+n), `total` values. */
typedef struct air_pbinds_t {
  uint32_t base, n, total;
} air_pbinds_t;

typedef struct air_parser_t {
  air_program_t* p;
  air_lexer_t lx;
  air_token_t tok; /* the current token */
  int depth;
  bool old_tokens; /* implied token types use !air.async.token */
  air_tid_t t_index, t_i1, t_token;
  char desc[96];   /* scratch for token descriptions in messages */

  /* Scratch stacks. */
  air_pref_t* refs;
  uint32_t n_refs, cap_refs;
  air_tid_t* tys;
  uint32_t n_tys, cap_tys;
  air_ix_t* ixs;
  uint32_t n_ixs, cap_ixs;
  air_attr_t* attrs;
  uint32_t n_attrs, cap_attrs;
  air_named_attr_t* nattrs;
  uint32_t n_nattrs, cap_nattrs;

  /* SSA names. */
  air_psym_t* syms;
  uint32_t n_syms, cap_syms;
  int32_t free_sym;
  air_pslot_t* slots; /* open addressing */
  uint32_t cap_slots, used_slots;
  uint32_t* undo; /* live entries in scope order */
  uint32_t n_undo, cap_undo;
  air_pscope_t* scopes;
  uint32_t n_scopes, cap_scopes;
  uint32_t iso_level; /* level of the innermost isolated scope */
  air_pslot_t recent[AIR_PARSE_RECENT]; /* visible entries by hash, see parse_ssa.c */

  air_ptalias_t* talias;
  uint32_t n_talias, cap_talias;

  /* Attribute aliases by name hash: program->aliases indices, -1 empty. */
  int32_t* alias_slots;
  uint32_t cap_alias_slots;

  /* Op names by hash (ir.c's lookup scans every name). */
  int16_t op_slots[256];
  uint8_t op_len[AIR_OP_COUNT_];
} air_parser_t;

/*--- parse.c: tokens, scratch, regions, ops ---*/
void air_parse_next(air_parser_t* P);
air_token_t air_parse_peek(air_parser_t* P);
bool air_parse_accept(air_parser_t* P, air_tk_t kind);
bool air_parse_is_kw(const air_parser_t* P, const char* kw);
bool air_parse_accept_kw(air_parser_t* P, const char* kw);
/* "expected WHAT, found 'tok'" at the current token (or the lexer's message). */
air_status_t air_parse_fail(air_parser_t* P, const char* what);
air_status_t air_parse_expect(air_parser_t* P, air_tk_t kind, const char* what);
air_status_t air_parse_expect_kw(air_parser_t* P, const char* kw);
air_status_t air_parse_oom(air_parser_t* P);
/* The symbol name of an AT token in the arena, escapes of @"..." decoded; NULL
 * when out of memory. */
char* air_parse_sym_dup(air_parser_t* P, const air_token_t* t);
/* Grows a scratch array to hold `need` items of `elem` bytes. */
bool air_parse_grow(air_parser_t* P, void** data, uint32_t* cap, uint32_t need, size_t elem);
air_status_t air_parse_push_ref(air_parser_t* P, const air_pref_t* r);
air_status_t air_parse_push_ty(air_parser_t* P, air_tid_t t);
air_status_t air_parse_push_ix(air_parser_t* P, air_vid_t v, int64_t cst);
/* Reads `%name` (with optional #N) into *out. */
air_status_t air_parse_ref(air_parser_t* P, air_pref_t* out);
/* `%a, %b:2 =`, pushed on refs. */
air_status_t air_parse_binds(air_parser_t* P, air_pbinds_t* out);
/* Reads one operand and resolves it at once with the type it must have. */
air_status_t air_parse_operand(air_parser_t* P, air_tid_t type, air_vid_t* out);
/* `[%a, 0, %b]`: a mixed static/dynamic index list, values of type index. */
air_status_t air_parse_ixlist(air_parser_t* P, air_ixlist_t* out);
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

/* Per-class op parsers: the op name is consumed; `at` is the op's start. */
typedef air_status_t (*air_parse_op_fn)(air_parser_t* P, air_block_t* blk,
                                        air_opkind_t kind, const air_token_t* at,
                                        const air_pbinds_t* b);

/*--- parse_ssa.c ---*/
air_status_t air_parse_scope_push(air_parser_t* P, bool isolated);
air_status_t air_parse_scope_pop(air_parser_t* P);
/* Resolves a use; `type` 0 means "whatever it is" (the value must exist). */
air_status_t air_parse_use(air_parser_t* P, const air_pref_t* r, air_tid_t type,
                           air_vid_t* out);
/* Defines `n` values in slots[] (results of `def` or arguments of `blk` from
 * `first`), named by `name` (NULL: unnamed). */
air_status_t air_parse_bind(air_parser_t* P, const air_pref_t* name, air_vid_t* slots,
                            uint32_t n, const air_tid_t* types, air_op_t* def,
                            air_block_t* blk, uint32_t first);
void air_parse_ssa_free(air_parser_t* P);

/*--- parse_attr.c ---*/
/* "f32", "index", ... without scanning a name table; AIR_ELEM_NONE if unknown. */
air_elem_kind_t air_parse_elem(const char* s, uint32_t len);
air_status_t air_parse_type(air_parser_t* P, air_tid_t* out);
/* `T, T, ...` (count unknown) pushed on tys. */
air_status_t air_parse_type_list(air_parser_t* P, uint32_t* n);
/* `(T, ...)` or a single T when `paren_optional`. */
air_status_t air_parse_paren_types(air_parser_t* P, bool paren_optional, uint32_t* n);
/* `-> T` or `-> (T, ...)`, when present. */
air_status_t air_parse_opt_arrow_types(air_parser_t* P, uint32_t* n);
air_status_t air_parse_attr(air_parser_t* P, air_attr_t* out);
/* `{ name [= attr], ... }` entries pushed on nattrs. */
air_status_t air_parse_dict_entries(air_parser_t* P);
/* `[expr, ...]` subscripts of affine.load/store: SSA values are dimensions and
 * `symbol(%v)` symbols. Sets out to the map and pushes one ref per dimension then
 * per symbol. */
air_status_t air_parse_affine_subscripts(air_parser_t* P, air_attr_t* out, uint32_t* n_dims,
                                         uint32_t* n_syms);
/* `affine_map<...>` or `affine_set<...>`; the current token is the keyword. */
air_status_t air_parse_affine(air_parser_t* P, air_attr_t* out);
/* `#alias` (resolved) or an inline map/set; `want` is AIR_ATTR_MAP or _SET. */
air_status_t air_parse_map_ref(air_parser_t* P, air_attr_kind_t want, air_attr_t* out,
                               const air_attr_t** resolved);
/* Formats a type for messages into buf. */
const char* air_parse_type_str(const air_parser_t* P, air_tid_t t, char* buf, size_t size);
bool air_parse_types_match(const air_parser_t* P, air_tid_t a, air_tid_t b);
/* The index of alias `#name` in program->aliases, or -1. */
int32_t air_parse_alias_find(const air_parser_t* P, const char* name, uint32_t len);
/* Parses a top-level `#name = attr` or `!name = type` definition. */
air_status_t air_parse_alias_def(air_parser_t* P);
/* Captures the balanced source text at the current token as an OPAQUE attribute
 * (optionally followed by `: type`). */
air_status_t air_parse_opaque_attr(air_parser_t* P, air_attr_t* out);

/*--- parse_air.c, parse_ops.c ---*/
air_status_t air_parse_op_channel(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                  const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_hier(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                               const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_channel_io(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                     const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_dma(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                              const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_wait_all(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                   const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_execute(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                  const air_token_t* at, const air_pbinds_t* b);
air_status_t air_parse_op_token_alloc(air_parser_t* P, air_block_t* blk, air_opkind_t kind,
                                      const air_token_t* at, const air_pbinds_t* b);
air_parse_op_fn air_parse_std_op_fn(air_opcls_t cls);

#endif /* AIR_RUNTIME_TEXT_PARSE_INTERNAL_H_ */

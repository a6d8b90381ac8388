/* parse_core.h - the parser's floor: its state, error macros, and the token,
 * error and scratch-stack helpers every parse_*.c file uses (parse_core.c).
 *
 * The parser's files, bottom up (each uses only files listed before it):
 *   parse_core.c    tokens, errors, scratch stacks (this header)
 *   parse_type.c    types
 *   parse_affine.c  affine maps, sets and subscripts
 *   parse_attr.c    attributes, opaque text, alias definitions
 *   parse_ssa.c     scopes and SSA names (hash table, forward references)
 *   parse_parts.c   the parts of an op's syntax: operands, lists, attribute
 *                   dictionaries, results, regions
 *   parse_air.c     the air dialect's operations
 *   parse_ops.c     func, arith and memref operations
 *   parse_ctrl.c    scf and affine operations
 *   parse_linalg.c  linalg operations
 *   parse_mem.c     memref globals and views, tensors, bufferization casts
 *   parse.c         the entry point, the module and the op dispatcher
 * A region holds ops, so the region parser (parse_parts.c) reaches the
 * dispatcher above it through the `parse_op` hook that parse.c installs.
 *
 * Parsing is recursive descent over one lookahead token (P->tok). Every
 * function that can fail returns an air_status_t; the first error ends the parse.
 * Lists of unknown length are gathered on scratch stacks in the parser (reset by
 * the caller that pushed them, so nesting keeps stack discipline) and copied
 * into the program arena once complete. */
#ifndef AIR_RUNTIME_TEXT_PARSE_CORE_H_
#define AIR_RUNTIME_TEXT_PARSE_CORE_H_

#include "runtime/base/mem.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/status_util.h"
#include "runtime/ir/ir.h"
#include "runtime/text/lex.h"

/* Nesting of regions, attributes and affine expressions; deeper input is refused
 * so hostile text cannot exhaust the C stack. */
enum { AIR_PARSE_MAX_DEPTH = 256, AIR_PARSE_RECENT = 4096 };
/* Slots of the op-name hash table: a power of two, well above the op count. */
enum { AIR_PARSE_OP_SLOTS = 1024 };
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

typedef struct air_parser_t air_parser_t;
/* Parses one op (with its result names) into `blk`. */
typedef air_status_t (*air_parse_op_hook_t)(air_parser_t* P, air_block_t* blk);

struct air_parser_t {
  air_program_t* p;
  air_parse_op_hook_t parse_op; /* parse.c's dispatcher, for the bodies of regions */
  air_lexer_t lx;
  air_token_t tok; /* the current token */
  uint32_t prev_line; /* line of the token consumed last */
  int depth;
  bool old_tokens; /* implied token types use !air.async.token */
  air_tid_t t_index, t_i1, t_token;
  /* Scratch for input echoed in messages (air_parse_q): a few at once, since one
   * message may quote two tokens. */
  char quotes[4][AIR_QUOTE_BUF];
  uint32_t next_quote;

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
  int16_t op_slots[AIR_PARSE_OP_SLOTS];
  uint8_t op_len[AIR_OP_COUNT_];
};

/* The next token becomes the current one. */
void air_parse_next(air_parser_t* P);
/* The token after the current one, without consuming anything. */
air_token_t air_parse_peek(air_parser_t* P);
bool air_parse_accept(air_parser_t* P, air_tk_t kind);
bool air_parse_is_kw(const air_parser_t* P, const char* kw);
bool air_parse_accept_kw(air_parser_t* P, const char* kw);
/* True when `t` is the bare word `s`. */
bool air_parse_tok_is(const air_token_t* t, const char* s);
/* True when the byte right after the current token (no space) is `c`. */
bool air_parse_tok_followed_by(const air_parser_t* P, char c);
/* Byte offset of the current token in the text. */
size_t air_parse_tok_off(const air_parser_t* P);
/* Moves the lexer to byte offset `to` and lexes the token there. */
void air_parse_resume_at(air_parser_t* P, size_t to);
/* "expected WHAT, found 'tok'" at the current token (or the lexer's message). */
air_status_t air_parse_fail(air_parser_t* P, const char* what);
/* `n` bytes of input as a message may quote them (air_quote: short, printable).
 * Valid until four more quotes are made. */
const char* air_parse_q(air_parser_t* P, const char* s, size_t n);
air_status_t air_parse_expect(air_parser_t* P, air_tk_t kind, const char* what);
air_status_t air_parse_expect_kw(air_parser_t* P, const char* kw);
/* The out-of-memory status, naming the input position. */
air_status_t air_parse_oom(air_parser_t* P);
/* The symbol name of an AT token in the arena, escapes of @"..." decoded; NULL
 * when out of memory. */
char* air_parse_sym_dup(air_parser_t* P, const air_token_t* t);
/* Pushes onto the scratch stacks (out of memory is a status). */
air_status_t air_parse_push_ref(air_parser_t* P, const air_pref_t* r);
air_status_t air_parse_push_ty(air_parser_t* P, air_tid_t t);
air_status_t air_parse_push_ix(air_parser_t* P, air_vid_t v, int64_t cst);
air_status_t air_parse_push_attr(air_parser_t* P, const air_attr_t* a);
air_status_t air_parse_push_nattr(air_parser_t* P, const air_named_attr_t* na);
/* Reads `%name` (with optional #N) into *out. */
air_status_t air_parse_ref(air_parser_t* P, air_pref_t* out);

#endif /* AIR_RUNTIME_TEXT_PARSE_CORE_H_ */

/* aie_read.h - reads the text of an mlir-aie module into a tree of operations
 * without knowing the ops: each op keeps its name, first result, position and
 * the byte range of its operands/attributes ("head"); its regions become its
 * children. Any op of any dialect is kept, so a whole mlir-aie output file
 * (tiles, locks, buffers, cores, flows, objectfifos, ...) goes through and the
 * lowering (aie_lower.c) interprets only what it needs.
 *
 * The op grammar is MLIR's as its printer writes it: an op ends at the end of
 * its line unless a bracket is open; a `{` that ends a line opens a region whose
 * ops run to the matching `}`; text after that `}` on its line continues the op
 * (`} else {`, `} {attrs}`). Block labels (`^bb1:`) are skipped. Tokens come
 * from the AIR lexer (runtime/lex.h), so strings, comments and loc(...) behave
 * the same as in AIR text.
 *
 * The cursor helpers below read an op's head token by token, with errors that
 * carry `FILE:LINE:COL: error:`. */
#ifndef AIR_NPU_AIE_READ_H_
#define AIR_NPU_AIE_READ_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/text/lex.h"

typedef struct aie_span_t {
  const char* s;
  uint32_t len;
} aie_span_t;

#define AIE_NONE UINT32_MAX

typedef struct aie_op_t {
  aie_span_t name;
  aie_span_t result; /* first result's name without '%', or len 0 */
  uint32_t line, col;
  /* Head: from just after the name to the first region (or the op's end). */
  size_t head, head_end;
  uint32_t head_line;
  size_t head_line_start;
  /* Tail: what follows the last region on its closing line (`} {attrs}`); empty
   * (tail == tail_end) for an op without regions. */
  size_t tail, tail_end;
  uint32_t tail_line;
  size_t tail_line_start;
  /* The block label (`^bb1:`, without the caret) that precedes this op, if any:
   * the first op of a labelled block. */
  aie_span_t label;
  uint32_t parent, first_child, next; /* indices into the module's ops, or AIE_NONE */
} aie_op_t;

typedef struct aie_module_t {
  const air_allocator_t* allocator;
  const char* text;
  size_t len;
  const char* display; /* file name for messages */
  aie_op_t* ops;       /* pre-order */
  uint32_t n_ops, cap_ops;
  uint32_t first; /* first top-level op, or AIE_NONE */
} aie_module_t;

/* Reads `text`; on failure nothing needs freeing. */
air_status_t aie_module_read(const air_allocator_t* a, const char* text, size_t len,
                             const char* display, aie_module_t* out);
void aie_module_free(aie_module_t* m);

bool aie_span_is(aie_span_t s, const char* lit);
bool aie_span_eq(aie_span_t a, aie_span_t b);

/* An error at (line, col) of the module: `DISPLAY:LINE:COL: error: ...`. */
air_status_t aie_error(const aie_module_t* m, uint32_t line, uint32_t col, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*--- reading an op's head ------------------------------------------------------*/

typedef struct aie_cur_t {
  const aie_module_t* m;
  air_lexer_t lx;
  size_t end;
  air_token_t tok; /* current token (EOF past the head) */
} aie_cur_t;

void aie_cur_init(aie_cur_t* c, const aie_module_t* m, const aie_op_t* op);
/* A cursor over the op's tail (text after its last region). */
void aie_cur_init_tail(aie_cur_t* c, const aie_module_t* m, const aie_op_t* op);
void aie_cur_next(aie_cur_t* c);
bool aie_cur_is(const aie_cur_t* c, air_tk_t kind);
/* Consumes the current token when it is `kind`. */
bool aie_cur_accept(aie_cur_t* c, air_tk_t kind);
/* Error at the current token: "expected WHAT, found '...'". */
air_status_t aie_cur_expected(const aie_cur_t* c, const char* what);
air_status_t aie_cur_expect(aie_cur_t* c, air_tk_t kind, const char* what);
/* An optionally negative integer literal. */
air_status_t aie_cur_int(aie_cur_t* c, int64_t* out);
/* Skips a balanced bracket group starting at the current opener (or one token). */
air_status_t aie_cur_skip(aie_cur_t* c);

/*--- attribute dictionaries ------------------------------------------------------*/

typedef enum aie_attr_kind_e {
  AIE_ATTR_INT, AIE_ATTR_BOOL, AIE_ATTR_SYM, AIE_ATTR_STR, AIE_ATTR_PACKET, AIE_ATTR_OTHER,
} aie_attr_kind_t;

typedef struct aie_attr_t {
  aie_span_t key;
  aie_attr_kind_t kind;
  int64_t i;          /* INT, BOOL; PACKET: pkt_type */
  int64_t j;          /* PACKET: pkt_id */
  aie_span_t sym;     /* SYM name, STR raw text */
  uint32_t line, col; /* of the value */
} aie_attr_t;

enum { AIE_MAX_ATTRS = 48 };

typedef struct aie_attrs_t {
  uint32_t n;
  aie_attr_t a[AIE_MAX_ATTRS];
  uint32_t line, col; /* of the op, for "missing attribute" */
} aie_attrs_t;

/* Parses `{k = v, ...}` at the cursor (the current token must be '{'). */
air_status_t aie_cur_attrs(aie_cur_t* c, aie_attrs_t* out);
const aie_attr_t* aie_attrs_find(const aie_attrs_t* attrs, const char* key);
/* An integer attribute in [lo, hi]: missing -> `dflt` unless `required`. Out of
 * range or not an integer is an error at the value. */
air_status_t aie_attrs_int(const aie_module_t* m, const aie_attrs_t* attrs, const char* key,
                           bool required, int64_t dflt, int64_t lo, int64_t hi, int64_t* out);
/* A boolean (true/false, 0/1, unit attribute). */
air_status_t aie_attrs_bool(const aie_module_t* m, const aie_attrs_t* attrs, const char* key,
                            bool dflt, bool* out);

/*--- types ---------------------------------------------------------------------*/

/* A memref type at the cursor (`memref<4x8xi32>` or with a layout): element
 * width in bits (0 for non-integer/float types) and element count. Consumes it. */
air_status_t aie_cur_memref(aie_cur_t* c, uint32_t* out_elem_bits, bool* out_is_int,
                            uint64_t* out_count);

#endif /* AIR_NPU_AIE_READ_H_ */

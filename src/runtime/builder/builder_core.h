/* builder_core.h - the builder's floor: its state and the helpers every builder
 * file uses (builder_core.c). Above it: builder_types.c (type handles, affine
 * descriptions), then builder.c (names, attributes, module-level and AIR ops),
 * builder_ops.c (arith, memref, scf, affine, linalg) and builder_ext.c (math,
 * elementwise linalg, index_switch, forall, globals, views, air.custom). */
#ifndef AIR_RUNTIME_BUILDER_BUILDER_CORE_H_
#define AIR_RUNTIME_BUILDER_BUILDER_CORE_H_

#include "air/builder.h"
#include "air/types.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/ir/ir.h"

/* One open body: the op that owns it and the block ops are appended to. */
typedef struct air_bframe_t {
  air_op_t* op;
  air_block_t* block;
} air_bframe_t;

struct air_builder_t {
  air_program_t* p;
  air_bframe_t* frames; /* frames[0] is the module body */
  uint32_t depth, cap;  /* depth counts frames[0] */
  air_op_t* current;    /* target of the set_attr calls; NULL before any op */
};

static inline const air_allocator_t* air_b_alloc(const air_builder_t* b) {
  return b ? &b->p->allocator : NULL;
}

/* Statuses carry the public function's name (pass __func__ as `fn`). */
#define AIR_B_INVALID(b, ...) AIR_STATUS(air_b_alloc(b), AIR_STATUS_INVALID_ARGUMENT, __VA_ARGS__)
#define AIR_B_PRECOND(b, ...) \
  AIR_STATUS(air_b_alloc(b), AIR_STATUS_FAILED_PRECONDITION, __VA_ARGS__)
#define AIR_B_OOM(b, fn) AIR_STATUS_OOM(air_b_alloc(b), (fn))

/* What a value or type must be. */
typedef enum air_bwant_e {
  AIR_BW_ANY,
  AIR_BW_TOKEN,
  AIR_BW_INDEX,
  AIR_BW_INTLIKE, /* integer or index */
  AIR_BW_INT,     /* integer (not index) */
  AIR_BW_FLOAT,
  AIR_BW_SCALAR,
  AIR_BW_MEMREF,
  AIR_BW_I1,
  AIR_BW_UNIVERSE,
} air_bwant_t;

/* INVALID_ARGUMENT unless `b` is usable (non-NULL). */
air_status_t air_b_check_builder(const air_builder_t* b, const char* fn);
/* `t` is a type of the program matching `want`. */
air_status_t air_b_check_type(const air_builder_t* b, const char* fn, const char* what,
                              air_tid_t t, air_bwant_t want);
/* `v` is a value of the program (non-zero) whose type matches `want`. */
air_status_t air_b_check_value(const air_builder_t* b, const char* fn, const char* what,
                               air_vid_t v, air_bwant_t want);
/* An array of n values, each checked as above. */
air_status_t air_b_check_values(const air_builder_t* b, const char* fn, const char* what,
                                uint32_t n, const air_value_t* vs, air_bwant_t want);
/* An array of n types, each checked as above. */
air_status_t air_b_check_types(const air_builder_t* b, const char* fn, const char* what,
                               uint32_t n, const air_type_t* ts, air_bwant_t want);
/* A mixed literal/value list: value entries must be index values. */
air_status_t air_b_check_ixs(const air_builder_t* b, const char* fn, const char* what,
                             uint32_t n, const air_index_t* ixs);
/* A symbol name: non-NULL, non-empty. */
air_status_t air_b_check_sym(const air_builder_t* b, const char* fn, const char* what,
                             const char* s);
/* n values whose types equal those of `like` (n_like of them). */
air_status_t air_b_check_yield(const air_builder_t* b, const char* fn, uint32_t n,
                               const air_value_t* vs, uint32_t n_like,
                               const air_vid_t* like);

/* A new op (not yet in any block); results and blocks are made by the helpers
 * below. */
air_status_t air_b_op(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n_operands,
                      uint32_t n_results, uint32_t n_regions, uint32_t n_lists,
                      air_op_t** out);
/* Creates op->results[i] of type t. */
air_status_t air_b_result(air_builder_t* b, const char* fn, air_op_t* op, uint32_t i,
                          air_tid_t t);
/* Creates op->regions[r] with n block arguments of the given types. */
air_status_t air_b_region(air_builder_t* b, const char* fn, air_op_t* op, uint32_t r,
                          uint32_t n, const air_tid_t* types, air_block_t** out);
/* Copies n values into a list owned by the program. */
air_status_t air_b_vlist(air_builder_t* b, const char* fn, air_vlist_t* dst, uint32_t n,
                         const air_value_t* src);
/* Copies a mixed list. */
air_status_t air_b_ixlist(air_builder_t* b, const char* fn, air_ixlist_t* dst, uint32_t n,
                          const air_index_t* src);
/* The token / index / i1 type (0 on OOM). */
air_tid_t air_b_token_type(air_builder_t* b);
air_tid_t air_b_scalar_type(air_builder_t* b, air_elem_kind_t e);

/* Makes room for one more open body (call before appending a region op, so the
 * push cannot fail after the op is in the IR). */
air_status_t air_b_reserve(air_builder_t* b, const char* fn);
/* Appends `op` at the insertion point and makes it the current op. */
void air_b_append(air_builder_t* b, air_op_t* op);
/* Appends `op` and opens `block` (one of its bodies). Needs air_b_reserve first. */
void air_b_push(air_builder_t* b, air_op_t* op, air_block_t* block);
/* FAILED_PRECONDITION unless the innermost open body belongs to an op of kind
 * `k1` or `k2`; on success *out is that op. */
air_status_t air_b_top(const air_builder_t* b, const char* fn, air_opkind_t k1,
                       air_opkind_t k2, air_op_t** out);
/* A terminator of `kind` with operands `vs` (not yet appended). */
air_status_t air_b_term(air_builder_t* b, const char* fn, air_opkind_t kind, uint32_t n,
                        const air_value_t* vs, air_op_t** out);
/* Appends `term` to the innermost body and closes it. */
void air_b_pop(air_builder_t* b, air_op_t* term);
/* Replaces the innermost open body's block (for else-bodies). */
void air_b_switch_block(air_builder_t* b, air_block_t* block);

#endif /* AIR_RUNTIME_BUILDER_BUILDER_CORE_H_ */

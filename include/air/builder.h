/* air/builder.h - building an AIR program op by op.
 *
 * The builder mirrors AIR text. Ops are appended at the end of the current block.
 * Ops with a body are begin/end pairs (air_builder_herd_begin ... _herd_end): the
 * begin call appends the op, returns its block arguments and results and opens its
 * body; the end call checks that the innermost open body is that kind, appends the
 * terminator (with the values it yields, where the op has some) and returns to the
 * enclosing block. Every other op is a single call.
 *
 * Conventions:
 * - Values and types are the integer handles of air/types.h; 0 is never valid.
 * - Arrays are (count, pointer); a pointer may be NULL only when its count is 0.
 * - Out-pointers documented "may be NULL" are optional; every other one is required.
 * - On failure nothing is appended and the insertion point is unchanged; the status
 *   is INVALID_ARGUMENT for bad arguments and FAILED_PRECONDITION for a call that
 *   does not fit the builder's state (an end without its begin, a func.func inside
 *   a herd). The builder checks shapes and cheap type facts; the spec's rules are
 *   checked by air_program_verify().
 * - Names are optional: the printer names unnamed values.
 *
 * A builder is not thread-safe. It must not outlive its program, and nothing else
 * may modify the program while it is in use.
 */
#ifndef AIR_BUILDER_H_
#define AIR_BUILDER_H_

#include "air/config.h"

#include <stdbool.h>
#include <stdint.h>

#include "air/program.h"
#include "air/status.h"
#include "air/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_builder_t air_builder_t;

/* Flags of the descriptions and calls below; each documents the ones it takes and
 * rejects the others. */
enum {
  AIR_BUILD_ASYNC = 1u << 0,   /* the op returns a token (`async`) */
  AIR_BUILD_SYNC = 1u << 1,    /* hierarchy op: write the `sync` keyword */
  AIR_BUILD_X_LOC = 1u << 2,   /* hierarchy op: desc.x_loc is set */
  AIR_BUILD_Y_LOC = 1u << 3,   /* hierarchy op: desc.y_loc is set */
  AIR_BUILD_X_SIZE = 1u << 4,  /* hierarchy op: desc.x_size is set */
  AIR_BUILD_Y_SIZE = 1u << 5,  /* hierarchy op: desc.y_size is set */
  AIR_BUILD_PRIVATE = 1u << 6, /* func.func: `private` */
};

/*---------------------------------------------------------------------------*/
/* The builder                                                               */
/*---------------------------------------------------------------------------*/

/* Creates a builder whose insertion point is the end of the program's module. */
AIR_API air_status_t air_builder_create(air_program_t* program, air_builder_t** out_builder);

/* Destroys a builder; NULL is accepted. Bodies still open stay unterminated (the
 * verifier rejects them): call air_builder_finish() first to be told. */
AIR_API void air_builder_destroy(air_builder_t* builder);

/* FAILED_PRECONDITION when a body is still open, naming the innermost one. */
AIR_API air_status_t air_builder_finish(const air_builder_t* builder);

/* Number of bodies open (0 at module level). */
AIR_API uint32_t air_builder_depth(const air_builder_t* builder);

/* The program being built. */
AIR_API air_program_t* air_builder_program(const air_builder_t* builder);

/* Names a value (printed `%name`, without the '%'); NULL removes the name. The
 * name must be unique in its scope for the text to parse back. */
AIR_API air_status_t air_builder_set_name(air_builder_t* builder, air_value_t value,
                                          const char* name);

/*---------------------------------------------------------------------------*/
/* Attributes of the current op                                              */
/*---------------------------------------------------------------------------*/
/* The current op is the op last appended or begun, or the op last closed by an
 * end call (so attributes can be set on a herd after its body). Setting a name
 * again replaces the value. FAILED_PRECONDITION before any op was built. */

/* `name` (unit attribute, e.g. air.symmetric). */
AIR_API air_status_t air_builder_set_attr_unit(air_builder_t* builder, const char* name);
/* `name = true|false`. */
AIR_API air_status_t air_builder_set_attr_bool(air_builder_t* builder, const char* name,
                                               bool value);
/* `name = value` (type 0) or `name = value : type` with an integer/index type. */
AIR_API air_status_t air_builder_set_attr_int(air_builder_t* builder, const char* name,
                                              int64_t value, air_type_t type);
/* `name = value` (type 0, f64) or `name = value : type` with a float type. */
AIR_API air_status_t air_builder_set_attr_float(air_builder_t* builder, const char* name,
                                                double value, air_type_t type);
/* `name = "value"` (UTF-8; escaped by the printer). */
AIR_API air_status_t air_builder_set_attr_string(air_builder_t* builder, const char* name,
                                                 const char* value);
/* `name = [v0, v1, ...]`, an array of untyped integers. */
AIR_API air_status_t air_builder_set_attr_ints(air_builder_t* builder, const char* name,
                                               uint32_t count, const int64_t* values);
/* `name = array<elem: v0, v1, ...>` (dense array; elem an integer type). */
AIR_API air_status_t air_builder_set_attr_dense(air_builder_t* builder, const char* name,
                                                air_elem_t elem, uint32_t count,
                                                const int64_t* values);

/*---------------------------------------------------------------------------*/
/* Affine maps and sets                                                      */
/*---------------------------------------------------------------------------*/
/* An affine map or set is a flat array of int64 codes holding its expressions in
 * prefix order: a leaf is a code and its number, an operator is its code followed
 * by its two operands.
 *
 *   AIR_AFFINE_CONST c     the constant c
 *   AIR_AFFINE_DIM i       d<i>          (i < n_dims)
 *   AIR_AFFINE_SYM i       s<i>          (i < n_syms)
 *   AIR_AFFINE_ADD a b     a + b         (a - b is ADD a MUL b CONST -1)
 *   AIR_AFFINE_MUL a b     a * b
 *   AIR_AFFINE_MOD a b     a mod b
 *   AIR_AFFINE_FLOORDIV    a floordiv b
 *   AIR_AFFINE_CEILDIV     a ceildiv b
 *
 * A map holds n_exprs result expressions back to back. A set holds n_exprs
 * constraints, each AIR_AFFINE_GE0 (expr >= 0) or AIR_AFFINE_EQ0 (expr == 0)
 * followed by its expression. For example
 *   affine_map<(d0)[s0] -> (d0 * 64 + s0)>:
 *     n_dims 1, n_syms 1, n_exprs 1,
 *     codes {ADD, MUL, DIM, 0, CONST, 64, SYM, 0}
 *   affine_set<(d0, d1) : (d0 == 0, d1 - 1 >= 0)>:
 *     n_dims 2, n_syms 0, n_exprs 2,
 *     codes {EQ0, DIM, 0, GE0, ADD, DIM, 1, CONST, -1}
 * Every code must be consumed. */
typedef enum air_affine_code_e {
  AIR_AFFINE_CONST = 1,
  AIR_AFFINE_DIM,
  AIR_AFFINE_SYM,
  AIR_AFFINE_ADD,
  AIR_AFFINE_MUL,
  AIR_AFFINE_MOD,
  AIR_AFFINE_FLOORDIV,
  AIR_AFFINE_CEILDIV,
  AIR_AFFINE_GE0,
  AIR_AFFINE_EQ0,
} air_affine_code_t;

typedef struct air_affine_desc_t {
  uint32_t flags; /* reserved, must be 0 */
  uint32_t n_dims;
  uint32_t n_syms;
  uint32_t n_exprs;
  uint32_t n_codes;
  const int64_t* codes;
} air_affine_desc_t;

/* `name = affine_map<...>` or, when the codes hold constraints, `affine_set<...>`. */
AIR_API air_status_t air_builder_set_attr_affine(air_builder_t* builder, const char* name,
                                                 const air_affine_desc_t* desc);

/*---------------------------------------------------------------------------*/
/* Module level: channels and functions                                      */
/*---------------------------------------------------------------------------*/

/* air.channel @name [dims] {channel_type, depth, broadcast_shape}. */
typedef struct air_channel_desc_t {
  uint32_t flags;               /* reserved, must be 0 */
  const char* name;             /* required, without '@' */
  uint32_t rank;                /* 0 for `[]` */
  const int64_t* dims;          /* rank extents, each >= 1 */
  const char* channel_type;     /* NULL: not written (means "npu_dma_stream") */
  uint32_t depth;               /* 0: not written (means 1) */
  uint32_t broadcast_rank;      /* 0: no broadcast_shape */
  const int64_t* broadcast_shape;
} air_channel_desc_t;

/* Declares a channel; only at module level. */
AIR_API air_status_t air_builder_channel(air_builder_t* builder, const air_channel_desc_t* desc);

/* func.func @name(inputs) -> results. */
typedef struct air_func_desc_t {
  uint32_t flags;               /* AIR_BUILD_PRIVATE */
  const char* name;             /* required, without '@' */
  uint32_t n_inputs;
  const air_type_t* inputs;
  uint32_t n_results;
  const air_type_t* results;
} air_func_desc_t;

/* Opens a function body (only at module level). `out_args` (may be NULL) receives
 * the n_inputs arguments. */
AIR_API air_status_t air_builder_func_begin(air_builder_t* builder, const air_func_desc_t* desc,
                                            air_value_t* out_args);
/* Closes the function with `func.return values` (as many as desc.n_results). */
AIR_API air_status_t air_builder_func_end(air_builder_t* builder, uint32_t n_values,
                                          const air_value_t* values);
/* A function without body, e.g. `func.func private @kernel(...)` for an external
 * kernel (only at module level). */
AIR_API air_status_t air_builder_func_declare(air_builder_t* builder,
                                              const air_func_desc_t* desc);
/* func.call @callee(args) : (...) -> (result_types). `out_results` receives
 * n_results values (may be NULL when n_results is 0). */
AIR_API air_status_t air_builder_call(air_builder_t* builder, const char* callee,
                                      uint32_t n_args, const air_value_t* args,
                                      uint32_t n_results, const air_type_t* result_types,
                                      air_value_t* out_results);

/*---------------------------------------------------------------------------*/
/* Tokens                                                                    */
/*---------------------------------------------------------------------------*/

/* The three token lists an AIR op may carry (see the spec, section 1.5). */
typedef struct air_token_lists_t {
  uint32_t n_deps;
  const air_value_t* deps;        /* `[...]` / dependency = [...] */
  uint32_t n_affinity;
  const air_value_t* affinity;    /* affinity = [...] */
  uint32_t n_concurrency;
  const air_value_t* concurrency; /* concurrency = [...] */
} air_token_lists_t;

/* %t = air.token.alloc : !air.token. */
AIR_API air_status_t air_builder_token_alloc(air_builder_t* builder, air_value_t* out_token);

/* [%t =] air.wait_all [async] [deps]. flags: AIR_BUILD_ASYNC, and then `out_token`
 * is required (else it may be NULL and receives 0). */
AIR_API air_status_t air_builder_wait_all(air_builder_t* builder, uint32_t flags,
                                          uint32_t n_deps, const air_value_t* deps,
                                          air_value_t* out_token);

/* %t, %r... = air.execute [deps] -> (result_types) { ... }. Opens the body.
 * `out_token` (may be NULL) receives the token, `out_results` (may be NULL) the
 * n_results values. */
AIR_API air_status_t air_builder_execute_begin(air_builder_t* builder, uint32_t n_deps,
                                               const air_value_t* deps, uint32_t n_results,
                                               const air_type_t* result_types,
                                               air_value_t* out_token,
                                               air_value_t* out_results);
/* Closes it with `air.execute_terminator values` (one per result, same types). */
AIR_API air_status_t air_builder_execute_end(air_builder_t* builder, uint32_t n_values,
                                             const air_value_t* values);

/*---------------------------------------------------------------------------*/
/* Hierarchy: launch, segment, herd                                          */
/*---------------------------------------------------------------------------*/

typedef struct air_hier_desc_t {
  uint32_t flags;            /* AIR_BUILD_ASYNC | AIR_BUILD_SYNC | AIR_BUILD_X_LOC...*/
  const char* name;          /* optional symbol, without '@' */
  uint32_t n_dims;           /* iteration-space rank; 0 for none */
  const air_value_t* sizes;  /* n_dims index values */
  uint32_t n_args;
  const air_value_t* args;   /* `args(...)`: the values passed into the body */
  air_token_lists_t tokens;
  int64_t x_loc, y_loc;      /* placement, each used when its flag is set */
  int64_t x_size, y_size;
  const char* link_with;     /* NULL: none; else `link_with = "..."` */
  const char* backend_granularity; /* NULL: none; else e.g. "XCD" */
  air_value_t universe;      /* air.rank only: `universe(%u)`, 0 for none */
} air_hier_desc_t;

/* Each begin appends the op and opens its body. `out_block_args` (may be NULL)
 * receives the 2 * n_dims + n_args body arguments in body order: ids, sizes,
 * args. `out_token` (may be NULL) receives the token (0 unless AIR_BUILD_ASYNC). */
AIR_API air_status_t air_builder_launch_begin(air_builder_t* builder,
                                              const air_hier_desc_t* desc,
                                              air_value_t* out_block_args,
                                              air_value_t* out_token);
AIR_API air_status_t air_builder_launch_end(air_builder_t* builder);
/* `air.launch @name ...` without a body (desc.name required). */
AIR_API air_status_t air_builder_launch_ref(air_builder_t* builder, const air_hier_desc_t* desc,
                                            air_value_t* out_token);

AIR_API air_status_t air_builder_segment_begin(air_builder_t* builder,
                                               const air_hier_desc_t* desc,
                                               air_value_t* out_block_args,
                                               air_value_t* out_token);
AIR_API air_status_t air_builder_segment_end(air_builder_t* builder);

AIR_API air_status_t air_builder_herd_begin(air_builder_t* builder, const air_hier_desc_t* desc,
                                            air_value_t* out_block_args,
                                            air_value_t* out_token);
AIR_API air_status_t air_builder_herd_end(air_builder_t* builder);

/*---------------------------------------------------------------------------*/
/* Ranks: scale-out above the launch (docs/scale-out.md)                     */
/*---------------------------------------------------------------------------*/

/* %u = air.universe.alloc(n_ranks) : !air.universe (n_ranks an index value). */
AIR_API air_status_t air_builder_universe_alloc(air_builder_t* builder, air_value_t n_ranks,
                                                air_value_t* out_universe);

/* [%t =] air.rank [async] [deps] [universe(%u)] (ids) in (sizes) args(...) {...}.
 * Takes desc.flags AIR_BUILD_ASYNC/SYNC, sizes, args, tokens.n_deps and
 * desc.universe; a name, placement, link_with, backend_granularity, affinity and
 * concurrency lists are rejected. Block arguments as for the other levels. A
 * symmetric allocation is memref.alloc with the unit attribute `air.symmetric`
 * (air_builder_set_attr_unit); a cross-rank dma names its peer with
 * air_dma_desc_t.src_rank/dst_rank or with the integer attribute
 * `src_rank`/`dst_rank` (air_builder_set_attr_int with an i64 type). */
AIR_API air_status_t air_builder_rank_begin(air_builder_t* builder, const air_hier_desc_t* desc,
                                            air_value_t* out_block_args,
                                            air_value_t* out_token);
AIR_API air_status_t air_builder_rank_end(air_builder_t* builder);

/*---------------------------------------------------------------------------*/
/* Data movement                                                             */
/*---------------------------------------------------------------------------*/

/* One entry of an offsets/sizes/strides list: an SSA index value, or (when value
 * is 0) the integer `literal`. */
typedef struct air_index_t {
  air_value_t value;
  int64_t literal;
} air_index_t;

/* A memref and its `[offsets] [sizes] [strides]`; all three empty address the
 * whole memref. */
typedef struct air_slice_t {
  air_value_t memref;
  uint32_t n_offsets;
  const air_index_t* offsets;
  uint32_t n_sizes;
  const air_index_t* sizes;
  uint32_t n_strides;
  const air_index_t* strides;
} air_slice_t;

typedef struct air_channel_io_desc_t {
  uint32_t flags;              /* AIR_BUILD_ASYNC */
  const char* channel;         /* required, without '@' */
  uint32_t n_indices;
  const air_value_t* indices;  /* index values selecting a channel of the array */
  air_slice_t data;            /* put: the source; get: the destination */
  air_value_t dest;            /* put only: `dest(value)`; 0: none */
  air_token_lists_t tokens;
} air_channel_io_desc_t;

/* air.channel.put / air.channel.get. `out_token` receives the token; it is
 * required with AIR_BUILD_ASYNC and may be NULL otherwise. */
AIR_API air_status_t air_builder_channel_put(air_builder_t* builder,
                                             const air_channel_io_desc_t* desc,
                                             air_value_t* out_token);
AIR_API air_status_t air_builder_channel_get(air_builder_t* builder,
                                             const air_channel_io_desc_t* desc,
                                             air_value_t* out_token);

typedef struct air_dma_desc_t {
  uint32_t flags;              /* AIR_BUILD_ASYNC */
  air_slice_t dst;
  air_slice_t src;
  air_token_lists_t tokens;
  air_value_t src_rank;        /* `src_rank(%r)`: the source is rank r's symmetric memref */
  air_value_t dst_rank;        /* `dst_rank(%r)`: likewise the destination; 0 for none */
} air_dma_desc_t;

/* air.dma_memcpy_nd (dst..., src...). `out_token` as for channel put. */
AIR_API air_status_t air_builder_dma_memcpy_nd(air_builder_t* builder,
                                               const air_dma_desc_t* desc,
                                               air_value_t* out_token);

/*---------------------------------------------------------------------------*/
/* arith                                                                     */
/*---------------------------------------------------------------------------*/

/* arith.constant value : type (an integer or index type). */
AIR_API air_status_t air_builder_constant_int(air_builder_t* builder, air_type_t type,
                                              int64_t value, air_value_t* out);
/* arith.constant value : index. */
AIR_API air_status_t air_builder_constant_index(air_builder_t* builder, int64_t value,
                                                air_value_t* out);
/* arith.constant value : type (a float type). */
AIR_API air_status_t air_builder_constant_float(air_builder_t* builder, air_type_t type,
                                                double value, air_value_t* out);

/* Binary arith ops; both operands have the same type (integer/index for the
 * integer ops, float for the float ops), which is the result's type. */
typedef enum air_binary_op_e {
  AIR_BINARY_ADDI, AIR_BINARY_SUBI, AIR_BINARY_MULI, AIR_BINARY_DIVSI,
  AIR_BINARY_DIVUI, AIR_BINARY_CEILDIVSI, AIR_BINARY_FLOORDIVSI, AIR_BINARY_REMSI,
  AIR_BINARY_REMUI, AIR_BINARY_MAXSI, AIR_BINARY_MINSI, AIR_BINARY_MAXUI,
  AIR_BINARY_MINUI, AIR_BINARY_ANDI, AIR_BINARY_ORI, AIR_BINARY_XORI,
  AIR_BINARY_SHLI, AIR_BINARY_SHRSI, AIR_BINARY_SHRUI,
  AIR_BINARY_ADDF, AIR_BINARY_SUBF, AIR_BINARY_MULF, AIR_BINARY_DIVF,
  AIR_BINARY_MAXIMUMF, AIR_BINARY_MINIMUMF, AIR_BINARY_MAXNUMF, AIR_BINARY_MINNUMF,
  AIR_BINARY_COUNT
} air_binary_op_t;

AIR_API air_status_t air_builder_binary(air_builder_t* builder, air_binary_op_t op,
                                        air_value_t lhs, air_value_t rhs, air_value_t* out);
/* arith.negf. */
AIR_API air_status_t air_builder_negf(air_builder_t* builder, air_value_t x, air_value_t* out);

/* arith.cmpi predicates, in MLIR's numbering. */
typedef enum air_icmp_e {
  AIR_ICMP_EQ, AIR_ICMP_NE, AIR_ICMP_SLT, AIR_ICMP_SLE, AIR_ICMP_SGT, AIR_ICMP_SGE,
  AIR_ICMP_ULT, AIR_ICMP_ULE, AIR_ICMP_UGT, AIR_ICMP_UGE, AIR_ICMP_COUNT
} air_icmp_t;
/* arith.cmpf predicates, in MLIR's numbering. */
typedef enum air_fcmp_e {
  AIR_FCMP_FALSE, AIR_FCMP_OEQ, AIR_FCMP_OGT, AIR_FCMP_OGE, AIR_FCMP_OLT, AIR_FCMP_OLE,
  AIR_FCMP_ONE, AIR_FCMP_ORD, AIR_FCMP_UEQ, AIR_FCMP_UGT, AIR_FCMP_UGE, AIR_FCMP_ULT,
  AIR_FCMP_ULE, AIR_FCMP_UNE, AIR_FCMP_UNO, AIR_FCMP_TRUE, AIR_FCMP_COUNT
} air_fcmp_t;

/* arith.cmpi / arith.cmpf; the result is i1. */
AIR_API air_status_t air_builder_cmpi(air_builder_t* builder, air_icmp_t pred,
                                      air_value_t lhs, air_value_t rhs, air_value_t* out);
AIR_API air_status_t air_builder_cmpf(air_builder_t* builder, air_fcmp_t pred,
                                      air_value_t lhs, air_value_t rhs, air_value_t* out);
/* arith.select cond (i1), a, b (same type). */
AIR_API air_status_t air_builder_select(air_builder_t* builder, air_value_t cond,
                                        air_value_t a, air_value_t b, air_value_t* out);

/* Casts; the scalar types say from and to. */
typedef enum air_cast_op_e {
  AIR_CAST_INDEX_CAST, AIR_CAST_INDEX_CASTUI, AIR_CAST_EXTSI, AIR_CAST_EXTUI,
  AIR_CAST_TRUNCI, AIR_CAST_EXTF, AIR_CAST_TRUNCF, AIR_CAST_SITOFP, AIR_CAST_UITOFP,
  AIR_CAST_FPTOSI, AIR_CAST_FPTOUI, AIR_CAST_BITCAST, AIR_CAST_COUNT
} air_cast_op_t;

AIR_API air_status_t air_builder_cast(air_builder_t* builder, air_cast_op_t op, air_value_t x,
                                      air_type_t to, air_value_t* out);

/*---------------------------------------------------------------------------*/
/* memref                                                                    */
/*---------------------------------------------------------------------------*/

/* memref.alloc(dynamic sizes) : type; one index value per `?` extent. */
AIR_API air_status_t air_builder_memref_alloc(air_builder_t* builder, air_type_t type,
                                              uint32_t n_dynamic,
                                              const air_value_t* dynamic_sizes,
                                              air_value_t* out);
AIR_API air_status_t air_builder_memref_dealloc(air_builder_t* builder, air_value_t memref);
/* memref.load memref[indices]; one index value per dimension. */
AIR_API air_status_t air_builder_memref_load(air_builder_t* builder, air_value_t memref,
                                             uint32_t n_indices, const air_value_t* indices,
                                             air_value_t* out);
/* memref.store value, memref[indices]. */
AIR_API air_status_t air_builder_memref_store(air_builder_t* builder, air_value_t value,
                                              air_value_t memref, uint32_t n_indices,
                                              const air_value_t* indices);
/* memref.copy src, dst. */
AIR_API air_status_t air_builder_memref_copy(air_builder_t* builder, air_value_t src,
                                             air_value_t dst);
/* memref.subview src[offsets] [sizes] [strides] : ... to result_type. The caller
 * gives the result type (usually with a strided layout). */
AIR_API air_status_t air_builder_memref_subview(air_builder_t* builder,
                                                const air_slice_t* src,
                                                air_type_t result_type, air_value_t* out);
/* memref.collapse_shape src [[...], ...] : ... into result_type. Group g merges
 * the next group_sizes[g] source dimensions (in order) into result dimension g:
 * n_groups = result rank and the sizes add up to the source rank. */
AIR_API air_status_t air_builder_memref_collapse_shape(air_builder_t* builder,
                                                       air_value_t src, uint32_t n_groups,
                                                       const uint32_t* group_sizes,
                                                       air_type_t result_type,
                                                       air_value_t* out);
/* memref.expand_shape src [[...], ...] output_shape [...] : ... into result_type.
 * Group g splits source dimension g into the next group_sizes[g] result
 * dimensions. `output_shape` (one entry per result dimension) may be omitted
 * with n_output_shape = 0. */
AIR_API air_status_t air_builder_memref_expand_shape(air_builder_t* builder, air_value_t src,
                                                     uint32_t n_groups,
                                                     const uint32_t* group_sizes,
                                                     uint32_t n_output_shape,
                                                     const air_index_t* output_shape,
                                                     air_type_t result_type,
                                                     air_value_t* out);
/* memref.cast src : ... to result_type (same rank; static and `?` sizes may
 * trade places), or between a ranked and an unranked memref (`memref<*xT>`) of
 * one element type and memory space (not unranked to unranked, as MLIR). */
AIR_API air_status_t air_builder_memref_cast(air_builder_t* builder, air_value_t src,
                                             air_type_t result_type, air_value_t* out);

/*---------------------------------------------------------------------------*/
/* scf and affine control flow                                               */
/*---------------------------------------------------------------------------*/

/* scf.for %iv = lb to ub step step iter_args(inits) -> (types of inits). Opens the
 * body. `out_iv`, `out_iter_args` (n_inits) and `out_results` (n_inits) may be
 * NULL. */
AIR_API air_status_t air_builder_scf_for_begin(air_builder_t* builder, air_value_t lb,
                                               air_value_t ub, air_value_t step,
                                               uint32_t n_inits, const air_value_t* inits,
                                               air_value_t* out_iv,
                                               air_value_t* out_iter_args,
                                               air_value_t* out_results);
/* Closes it with `scf.yield values` (one per init, same types). */
AIR_API air_status_t air_builder_scf_for_end(air_builder_t* builder, uint32_t n_values,
                                             const air_value_t* values);

/* scf.parallel (ivs) = (lbs) to (ubs) step (steps) init (inits) -> types. Opens
 * the body. `out_ivs` (n_dims) and `out_results` (n_inits) may be NULL. */
AIR_API air_status_t air_builder_scf_parallel_begin(air_builder_t* builder, uint32_t n_dims,
                                                    const air_value_t* lbs,
                                                    const air_value_t* ubs,
                                                    const air_value_t* steps,
                                                    uint32_t n_inits,
                                                    const air_value_t* inits,
                                                    air_value_t* out_ivs,
                                                    air_value_t* out_results);
/* Closes it with `scf.reduce(values)`, one token per init. Each value gets the
 * merge region of the spec:
 *   ^bb0(%a: !air.token, %b: !air.token):
 *     %m = air.wait_all async [%a, %b]
 *     scf.reduce.return %m : !air.token
 * Only token reductions are supported. */
AIR_API air_status_t air_builder_scf_parallel_end(air_builder_t* builder, uint32_t n_values,
                                                  const air_value_t* values);

/* scf.if cond (i1) -> (result_types). Opens the then-body. `out_results` may be
 * NULL. */
AIR_API air_status_t air_builder_scf_if_begin(air_builder_t* builder, air_value_t cond,
                                              uint32_t n_results,
                                              const air_type_t* result_types,
                                              air_value_t* out_results);
/* Closes the then-body of the innermost scf.if or affine.if with its yield of
 * `values` (one per result) and opens the else-body. */
AIR_API air_status_t air_builder_else(air_builder_t* builder, uint32_t n_values,
                                      const air_value_t* values);
/* Closes the scf.if (its then- or else-body) with `scf.yield values`. */
AIR_API air_status_t air_builder_scf_if_end(air_builder_t* builder, uint32_t n_values,
                                            const air_value_t* values);

/* %r = affine.apply map(dims)[syms]: `map` has one result; `operands` are
 * n_dims dim values then n_syms symbol values, all index. */
AIR_API air_status_t air_builder_affine_apply(air_builder_t* builder,
                                              const air_affine_desc_t* map,
                                              uint32_t n_operands, const air_value_t* operands,
                                              air_value_t* out);

/* %r = affine.min / affine.max map(dims)[syms]: the least / greatest of the
 * map's results (one or more); operands as for affine.apply. */
AIR_API air_status_t air_builder_affine_min(air_builder_t* builder,
                                            const air_affine_desc_t* map,
                                            uint32_t n_operands, const air_value_t* operands,
                                            air_value_t* out);
AIR_API air_status_t air_builder_affine_max(air_builder_t* builder,
                                            const air_affine_desc_t* map,
                                            uint32_t n_operands, const air_value_t* operands,
                                            air_value_t* out);
/* %v = affine.load memref[map(dims)[syms]]: `map` has one result per memref
 * dimension; `operands` are its n_dims dim values then n_syms symbol values. */
AIR_API air_status_t air_builder_affine_load(air_builder_t* builder, air_value_t memref,
                                             const air_affine_desc_t* map,
                                             uint32_t n_operands, const air_value_t* operands,
                                             air_value_t* out);
/* affine.store value, memref[map(dims)[syms]]. */
AIR_API air_status_t air_builder_affine_store(air_builder_t* builder, air_value_t value,
                                              air_value_t memref,
                                              const air_affine_desc_t* map,
                                              uint32_t n_operands,
                                              const air_value_t* operands);

/* affine.if set(dims)[syms] -> (result_types). Opens the then-body. */
AIR_API air_status_t air_builder_affine_if_begin(air_builder_t* builder,
                                                 const air_affine_desc_t* set,
                                                 uint32_t n_operands,
                                                 const air_value_t* operands,
                                                 uint32_t n_results,
                                                 const air_type_t* result_types,
                                                 air_value_t* out_results);
/* Closes the affine.if with `affine.yield values`. */
AIR_API air_status_t air_builder_affine_if_end(air_builder_t* builder, uint32_t n_values,
                                               const air_value_t* values);

/* affine.for %iv = lower to upper step step iter_args(inits). Bounds are
 * literals or index values; step >= 1. Outputs as for scf.for. */
AIR_API air_status_t air_builder_affine_for_begin(air_builder_t* builder,
                                                  const air_index_t* lower,
                                                  const air_index_t* upper, int64_t step,
                                                  uint32_t n_inits, const air_value_t* inits,
                                                  air_value_t* out_iv,
                                                  air_value_t* out_iter_args,
                                                  air_value_t* out_results);
/* Closes it with `affine.yield values`. */
AIR_API air_status_t air_builder_affine_for_end(air_builder_t* builder, uint32_t n_values,
                                                const air_value_t* values);

/*---------------------------------------------------------------------------*/
/* linalg (on memrefs)                                                       */
/*---------------------------------------------------------------------------*/

/* linalg.fill ins(value) outs(memref). */
AIR_API air_status_t air_builder_linalg_fill(air_builder_t* builder, air_value_t value,
                                             air_value_t memref);
/* linalg.copy ins(src) outs(dst). */
AIR_API air_status_t air_builder_linalg_copy(air_builder_t* builder, air_value_t src,
                                             air_value_t dst);
/* linalg.matmul ins(a, b) outs(c). */
AIR_API air_status_t air_builder_linalg_matmul(air_builder_t* builder, air_value_t a,
                                               air_value_t b, air_value_t c);

/* Iterator types of linalg.generic. */
typedef enum air_iterator_e {
  AIR_ITERATOR_PARALLEL = 1,
  AIR_ITERATOR_REDUCTION = 2,
} air_iterator_t;

typedef struct air_generic_desc_t {
  uint32_t flags;                          /* reserved, must be 0 */
  uint32_t n_ins;
  const air_value_t* ins;                  /* memrefs or scalars */
  uint32_t n_outs;
  const air_value_t* outs;                 /* memrefs */
  const air_affine_desc_t* indexing_maps;  /* n_ins + n_outs maps */
  uint32_t n_iterators;                    /* = every map's n_dims */
  const air_iterator_t* iterators;
} air_generic_desc_t;

/* linalg.generic {indexing_maps, iterator_types} ins(...) outs(...). Opens the
 * body; `out_block_args` (may be NULL) receives one scalar per operand (the
 * element type of a memref operand, the type of a scalar one). */
AIR_API air_status_t air_builder_linalg_generic_begin(air_builder_t* builder,
                                                      const air_generic_desc_t* desc,
                                                      air_value_t* out_block_args);
/* Closes it with `linalg.yield values` (one per out). */
AIR_API air_status_t air_builder_linalg_generic_end(air_builder_t* builder, uint32_t n_values,
                                                    const air_value_t* values);


/*---------------------------------------------------------------------------*/
/* mlir-air's wider op set (issue 12): math, elementwise linalg, index_switch, */
/* forall, memref globals, air.custom                                         */
/*---------------------------------------------------------------------------*/

/* The math dialect, and arith.remf. Unary, binary and ternary (fma) float ops
 * take float operands of one type; the integer ops one signless integer. The
 * result has the operands' type. */
typedef enum air_math_op_e {
  AIR_MATH_ABSF, AIR_MATH_CEIL, AIR_MATH_FLOOR, AIR_MATH_ROUND, AIR_MATH_ROUNDEVEN,
  AIR_MATH_TRUNC, AIR_MATH_SQRT, AIR_MATH_RSQRT, AIR_MATH_CBRT, AIR_MATH_EXP, AIR_MATH_EXP2,
  AIR_MATH_EXPM1, AIR_MATH_LOG, AIR_MATH_LOG2, AIR_MATH_LOG10, AIR_MATH_LOG1P, AIR_MATH_SIN,
  AIR_MATH_COS, AIR_MATH_TAN, AIR_MATH_TANH, AIR_MATH_ASIN, AIR_MATH_ACOS, AIR_MATH_ATAN,
  AIR_MATH_SINH, AIR_MATH_COSH, AIR_MATH_ERF,                 /* unary float */
  AIR_MATH_POWF, AIR_MATH_ATAN2, AIR_MATH_COPYSIGN, AIR_MATH_REMF, /* binary float */
  AIR_MATH_FMA,                                                    /* a * b + c */
  AIR_MATH_ABSI, AIR_MATH_CTPOP, AIR_MATH_CTLZ, AIR_MATH_CTTZ,     /* unary integer */
  AIR_MATH_COUNT
} air_math_op_t;

AIR_API air_status_t air_builder_math(air_builder_t* builder, air_math_op_t op,
                                      uint32_t n_operands, const air_value_t* operands,
                                      air_value_t* out);

/* Named elementwise linalg ops: `n_ins` (1 or 2, as the op takes) memrefs and
 * one output memref, all of one shape. */
typedef enum air_elementwise_op_e {
  AIR_ELEMENTWISE_ADD, AIR_ELEMENTWISE_SUB, AIR_ELEMENTWISE_MUL, AIR_ELEMENTWISE_DIV,
  AIR_ELEMENTWISE_DIV_UNSIGNED, AIR_ELEMENTWISE_MAX, AIR_ELEMENTWISE_MIN,
  AIR_ELEMENTWISE_POWF,                                  /* binary */
  AIR_ELEMENTWISE_EXP, AIR_ELEMENTWISE_LOG, AIR_ELEMENTWISE_ABS, AIR_ELEMENTWISE_CEIL,
  AIR_ELEMENTWISE_FLOOR, AIR_ELEMENTWISE_NEGF, AIR_ELEMENTWISE_RECIPROCAL,
  AIR_ELEMENTWISE_ROUND, AIR_ELEMENTWISE_SQRT, AIR_ELEMENTWISE_RSQRT, AIR_ELEMENTWISE_SQUARE,
  AIR_ELEMENTWISE_TANH, AIR_ELEMENTWISE_ERF,             /* unary */
  AIR_ELEMENTWISE_COUNT
} air_elementwise_op_t;

AIR_API air_status_t air_builder_linalg_elementwise(air_builder_t* builder,
                                                    air_elementwise_op_t op, uint32_t n_ins,
                                                    const air_value_t* ins, air_value_t out);
/* linalg.index dim : index, inside an open linalg.generic body. */
AIR_API air_status_t air_builder_linalg_index(air_builder_t* builder, uint32_t dim,
                                              air_value_t* out);

/* scf.index_switch arg (an index): opens the region of cases[0] (the default
 * when n_cases is 0). Each _next ends the open region with `scf.yield values` and
 * opens the next (the cases in order, then the default); _end ends the default. */
AIR_API air_status_t air_builder_scf_index_switch_begin(air_builder_t* builder, air_value_t arg,
                                                        uint32_t n_cases, const int64_t* cases,
                                                        uint32_t n_results,
                                                        const air_type_t* result_types,
                                                        air_value_t* out_results);
AIR_API air_status_t air_builder_scf_index_switch_next(air_builder_t* builder,
                                                       uint32_t n_values,
                                                       const air_value_t* values);
AIR_API air_status_t air_builder_scf_index_switch_end(air_builder_t* builder, uint32_t n_values,
                                                      const air_value_t* values);

/* scf.forall (%i...) = (lbs) to (ubs) step (steps) on memrefs (no shared_outs):
 * opens the body; `out_ivs` receives n_dims induction variables. Steps must be
 * literals >= 1 or index values. */
AIR_API air_status_t air_builder_scf_forall_begin(air_builder_t* builder, uint32_t n_dims,
                                                  const air_index_t* lbs,
                                                  const air_index_t* ubs,
                                                  const air_index_t* steps, air_value_t* out_ivs);
AIR_API air_status_t air_builder_scf_forall_end(air_builder_t* builder);

/* memref.global at module level: `type` a memref of static shape; `data`
 * (count elements of its element type, little-endian, or NULL for an
 * uninitialised global) becomes its dense initial value. */
enum {
  AIR_GLOBAL_PRIVATE_BIT = 1u << 0,  /* "private" visibility */
  AIR_GLOBAL_CONSTANT_BIT = 1u << 1, /* constant (needs data) */
};
typedef struct air_global_desc_t {
  uint32_t flags; /* AIR_GLOBAL_*_BIT */
  const char* name;
  air_type_t type;
  const void* data;
  uint64_t data_bytes; /* the type's element count times the element size */
} air_global_desc_t;

AIR_API air_status_t air_builder_memref_global(air_builder_t* builder,
                                               const air_global_desc_t* desc);
/* memref.get_global @name : type. */
AIR_API air_status_t air_builder_memref_get_global(air_builder_t* builder, const char* name,
                                                   air_type_t type, air_value_t* out);

/* Views (memrefs of one element type and memory space on both sides):
 * memref.reshape src(shape) : (T, S) -> result_type, `shape` a 1-d memref of
 * index or integers holding the result's sizes (src and result: identity
 * layouts). */
AIR_API air_status_t air_builder_memref_reshape(air_builder_t* builder, air_value_t src,
                                                air_value_t shape, air_type_t result_type,
                                                air_value_t* out);
/* memref.transpose src (d0, ...) -> (d<perm[0]>, ...) : T to result_type: result
 * dimension i is source dimension perm[i] (rank = the source's rank). The caller
 * gives the result type, usually with a strided layout. */
AIR_API air_status_t air_builder_memref_transpose(air_builder_t* builder, air_value_t src,
                                                  uint32_t rank, const uint32_t* perm,
                                                  air_type_t result_type, air_value_t* out);
/* %base, %offset, %sizes..., %strides... = memref.extract_strided_metadata src:
 * `out_base` gets the 0-d memref of the buffer, `out_offset` the offset,
 * `out_sizes` and `out_strides` one index each per dimension of src (ranked). */
AIR_API air_status_t air_builder_memref_extract_strided_metadata(air_builder_t* builder,
                                                                 air_value_t src,
                                                                 air_value_t* out_base,
                                                                 air_value_t* out_offset,
                                                                 air_value_t* out_sizes,
                                                                 air_value_t* out_strides);
/* memref.reinterpret_cast src to offset: [offset], sizes: [...], strides: [...]
 * : T to result_type (ranked; `rank` sizes and strides, literals >= 0 or index
 * values). */
AIR_API air_status_t air_builder_memref_reinterpret_cast(air_builder_t* builder,
                                                         air_value_t src, air_index_t offset,
                                                         uint32_t rank,
                                                         const air_index_t* sizes,
                                                         const air_index_t* strides,
                                                         air_type_t result_type,
                                                         air_value_t* out);

/* air.custom @symbol [async] [deps] operands(...): a user op the executor runs
 * as the function or kernel `symbol` names. */
AIR_API air_status_t air_builder_custom(air_builder_t* builder, const char* symbol,
                                        uint32_t flags, uint32_t n_deps, const air_value_t* deps,
                                        uint32_t n_operands, const air_value_t* operands,
                                        air_value_t* out_token);

#ifdef __cplusplus
}
#endif
#endif /* AIR_BUILDER_H_ */

/* ir.h - the program IR shared by the builder, parser, printer, verifier and
 * scheduler. Internal: nothing here is exported.
 *
 * A program owns everything below it. Ops, blocks, lists, attributes and strings
 * live in the program's arena and die with it; types and values live in growable
 * tables indexed by small integers (0 is "none"), so handles stay valid while the
 * tables grow and can be handed across the C ABI as plain integers.
 *
 * Every region has exactly one block, and every block of a region-holding op other
 * than `module` ends with its terminator (the parser materialises implicit ones;
 * the builder adds them on end_*). The printer elides the terminators MLIR elides.
 *
 * Operand layouts per op class (n = op->iaux[0] unless said otherwise):
 *   MODULE      regions[0] = body. sym = optional module name. attrs = module attrs.
 *   OPAQUE      text = the op's source text, kept verbatim (module level only).
 *   FUNC        sym = name; types = [inputs..., results...], iaux[0] = #inputs;
 *               regions[0] = body (absent for a declaration); block args = inputs.
 *               flag AIR_OPF_PRIVATE for `private`. attrs = `attributes {...}`.
 *   CALL        sym = callee; operands = args; results = call results.
 *   TERMINATOR  operands = the values it yields/returns.
 *   CHANNEL     sym = name; lists[0] = dimensions (static). attrs = channel_type,
 *               broadcast_shape, depth, ... (kept as written).
 *   HIER        launch/segment/herd. sym optional. iaux[0] = n = #dims.
 *               operands = [sizes(n)..., args...]; block args = [ids(n),
 *               sizes(n), args...]; results = [token] when AIR_OPF_ASYNC.
 *               toks[DEP/AFF/CONC]. attrs = x_loc, y_loc, x_size, y_size,
 *               link_with, backend-granularity, id, ... . AIR_OPF_SYNC when the
 *               `sync` keyword was written. A launch @sym without region has
 *               n_regions = 0.
 *   CHANNEL_IO  put/get. sym = channel; iaux[0] = n = #indices;
 *               operands = [indices(n)..., memref, (dest)] (AIR_OPF_HAS_DEST);
 *               lists[0..2] = offsets, sizes, strides; results = [token] if async.
 *   DMA         operands = [dst, src]; lists[0..2] = dst offsets/sizes/strides,
 *               lists[3..5] = src offsets/sizes/strides; results = [token] if async.
 *   WAIT_ALL    toks[DEP] = the tokens joined; results = [token] if async.
 *   EXECUTE     results = [token, values...]; toks[DEP]; regions[0] ends with
 *               EXECUTE_TERM whose operands match results[1..].
 *   TOKEN_ALLOC results = [token].
 *   CONSTANT    value = the attribute (INT with an int/index type, FLOAT with a
 *               float type); results = [v].
 *   BINARY      operands = [lhs, rhs]; results = [v].   UNARY: operands = [x].
 *   CMP         iaux[0] = predicate (air_cmpi_pred_t / air_cmpf_pred_t);
 *               operands = [lhs, rhs]; results = [i1].
 *   SELECT      operands = [cond, a, b].
 *   CAST        operands = [x]; results = [y] (types say from/to).
 *   ALLOC       operands = dynamic sizes (one per `?` dim); results = [memref].
 *   DEALLOC     operands = [memref].
 *   LOAD        operands = [memref, indices...]; results = [v].
 *   STORE       operands = [value, memref, indices...].
 *               affine.load / affine.store use the same layout, but the values
 *               after the memref are the operands of the affine map in `value`
 *               (one result per memref dimension): iaux[0] = #dim operands,
 *               operands = [(value,) memref, dims..., symbols...]. Indices are
 *               the map's results.
 *   COPY        operands = [src, dst].
 *   SUBVIEW     operands = [src]; lists[0..2] = offsets, sizes, strides.
 *   RESHAPE     collapse_shape / expand_shape / cast: views of one memref.
 *               operands = [src]; results = [view]. collapse/expand: the
 *               reassociation `[[0, 1], [2]]` is lists[0] = the indices in order
 *               (0, 1, 2) and lists[1] = the group sizes (2, 1); the groups index
 *               the dimensions of the higher-rank side. expand: lists[2] =
 *               output_shape when written (n_lists = 3). cast: no lists.
 *   FOR         operands = [lb, ub, step, inits...]; block args = [iv, iters...];
 *               results = one per init.
 *   PARALLEL    iaux[0] = n = #dims; operands = [lbs(n), ubs(n), steps(n),
 *               inits...]; block args = ivs(n); results = one per init; the body
 *               ends with a REDUCE (its terminator) holding one operand per init.
 *   REDUCE      operands = values reduced; regions = one per operand, each with
 *               block args (lhs, rhs) and ending in REDUCE_RETURN.
 *   IF          operands = [cond]; regions = [then, (else)]; results.
 *   AFFINE_APPLY value = affine map attribute (inline or alias); iaux[0] = #dim
 *               operands; operands = [dims..., symbols...]. affine.apply needs one
 *               map result; affine.min / affine.max (same layout) take one or
 *               more and yield their minimum / maximum.
 *   AFFINE_IF   value = affine set attribute; iaux[0] = #dim operands;
 *               operands = [dims..., symbols...]; regions = [then, (else)].
 *   AFFINE_FOR  lists[0] = [lower, upper] (constants or values); iaux[1] = step;
 *               operands = [inits...]; block args = [iv, iters...]; results.
 *   LINALG      fill/copy/matmul/generic and the named elementwise ops
 *               (linalg.add, linalg.exp, ...). iaux[0] = #ins; operands = [ins...,
 *               outs...]; attrs = everything in the attribute dictionary
 *               (indexing_maps, iterator_types, ...); generic: regions[0] with one
 *               block arg per operand, ending in LINALG_YIELD. On tensors the ops
 *               have one result per outs operand.
 *
 * Classes added for issue 12 (mlir-air's programs beyond the core set):
 *   TERNARY     math.fma: operands = [a, b, c], one type; results = [v].
 *   SWITCH      scf.index_switch: operands = [arg]; value = DENSE (i64) case
 *               values; regions = [case_0..case_{n-1}, default], each ending in
 *               scf.yield; results.
 *   FORALL      scf.forall: iaux[0] = n = #ivs; iaux[1] = 1 when written in the
 *               normalised form `in (ubs)` (lbs 0, steps 1); lists[0..2] = lower
 *               bounds, upper bounds, steps (mixed static/dynamic);
 *               operands = shared_outs inits; block args = [ivs(n), outs...];
 *               results = one per shared_out; the body ends with IN_PARALLEL.
 *   IN_PARALLEL scf.forall.in_parallel: the terminator of scf.forall; regions[0]
 *               holds parallel_insert_slice ops and no terminator.
 *   LINALG_INDEX linalg.index: iaux[0] = the loop dimension; results = [index].
 *   GLOBAL      memref.global: sym; types[0] = the memref type (n_types 1);
 *               iaux[0] = visibility (0 public, 1 private, 2 nested), iaux[1] =
 *               flags AIR_GLOBAL_*; value = the initial value (kept as written,
 *               dense<...> is OPAQUE text) when AIR_GLOBAL_INIT.
 *   GET_GLOBAL  memref.get_global: sym; results = [memref].
 *   MEMREF_RESHAPE memref.reshape: operands = [src, shape]; results = [view].
 *   TRANSPOSE   memref.transpose: operands = [src]; value = the permutation map;
 *               results = [view].
 *   EXTRACT_META memref.extract_strided_metadata: operands = [src]; results =
 *               [base (0-d memref), offset, sizes(rank), strides(rank)].
 *   REINTERPRET memref.reinterpret_cast: operands = [src]; lists[0..2] = offset
 *               (one entry), sizes, strides; results = [view].
 *   CUSTOM      air.custom: sym optional; operands = the custom operands;
 *               toks[DEP]; results = [token] if async.
 *   TENSOR_EMPTY tensor.empty: operands = dynamic sizes; results = [tensor].
 *   SLICE       tensor.extract_slice: operands = [src]; lists[0..2] = offsets,
 *               sizes, strides; results = [tensor].
 *   INSERT_SLICE tensor.insert_slice / parallel_insert_slice: operands = [src,
 *               dest]; lists[0..2]; results = [tensor] (insert_slice only).
 *   BUFFERIZE   bufferization.to_tensor / to_memref: operands = [x]; results =
 *               [y]; iaux[0] = 1 when both types were written (`: T to U`);
 *               iaux[1] = keywords written: 1 restrict, 2 writable, 4 read_only.
 * A bodiless air.launch/segment/herd (n_regions 0) keeps the names written for
 * its ids and sizes in `text`, space separated (ids first), so it prints back.
 * A `module` op may also appear inside the top module when a file holds several
 * top-level operations (MLIR's implicit module).
 *
 * Ranks (issue 13, scale-out above the launch):
 *   HIER        air.rank shares the launch/segment/herd layout (ids, sizes,
 *               args; isolated body ending in RANK_TERM) and adds an optional
 *               universe: with AIR_OPF_UNIVERSE the last operand is the
 *               `universe(%u)` value, which is not a block argument. Use
 *               air_ir_hier_nargs() for the number of args of any HIER op.
 *   UNIVERSE    air.universe.alloc: operands = [size (index)]; results =
 *               [!air.universe].
 *   DMA         src_rank / dst_rank written as attributes (`{src_rank = 1 :
 *               i64}`) stay in attrs; written as operands (`src_rank(%r)`) they
 *               follow [dst, src]: AIR_OPF_SRC_RANK adds the source's rank,
 *               then AIR_OPF_DST_RANK the destination's (air_ir_dma_rank()).
 *   ALLOC       `{air.symmetric}` (unit attribute) marks a symmetric-heap
 *               allocation.
 */
#ifndef AIR_RUNTIME_IR_IR_H_
#define AIR_RUNTIME_IR_IR_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/context.h"
#include "air/status.h"
#include "runtime/base/arena.h"

/*---------------------------------------------------------------------------*/
/* Operation kinds                                                           */
/*---------------------------------------------------------------------------*/

typedef enum air_opcls_e {
  AIR_OPC_MODULE, AIR_OPC_OPAQUE, AIR_OPC_FUNC, AIR_OPC_CALL, AIR_OPC_TERMINATOR,
  AIR_OPC_CHANNEL, AIR_OPC_HIER, AIR_OPC_CHANNEL_IO, AIR_OPC_DMA, AIR_OPC_WAIT_ALL,
  AIR_OPC_EXECUTE, AIR_OPC_TOKEN_ALLOC, AIR_OPC_CONSTANT, AIR_OPC_BINARY,
  AIR_OPC_UNARY, AIR_OPC_CMP, AIR_OPC_SELECT, AIR_OPC_CAST, AIR_OPC_ALLOC,
  AIR_OPC_DEALLOC, AIR_OPC_LOAD, AIR_OPC_STORE, AIR_OPC_COPY, AIR_OPC_SUBVIEW,
  AIR_OPC_FOR, AIR_OPC_PARALLEL, AIR_OPC_REDUCE, AIR_OPC_IF, AIR_OPC_AFFINE_APPLY,
  AIR_OPC_AFFINE_IF, AIR_OPC_AFFINE_FOR, AIR_OPC_LINALG, AIR_OPC_RESHAPE,
  /* ranks (issue 13) */
  AIR_OPC_UNIVERSE,
  /* coverage (issue 12) */
  AIR_OPC_TERNARY, AIR_OPC_SWITCH, AIR_OPC_FORALL, AIR_OPC_IN_PARALLEL,
  AIR_OPC_LINALG_INDEX, AIR_OPC_GLOBAL, AIR_OPC_GET_GLOBAL, AIR_OPC_MEMREF_RESHAPE,
  AIR_OPC_TRANSPOSE, AIR_OPC_EXTRACT_META, AIR_OPC_REINTERPRET, AIR_OPC_CUSTOM,
  AIR_OPC_TENSOR_EMPTY, AIR_OPC_SLICE, AIR_OPC_INSERT_SLICE, AIR_OPC_BUFFERIZE,
} air_opcls_t;

typedef enum air_opkind_e {
#define X(e, name, cls) AIR_OP_##e,
#include "runtime/ir/ir_ops.def"
#undef X
  AIR_OP_COUNT_
} air_opkind_t;

/* memref.global flags (iaux[1]). */
enum { AIR_GLOBAL_CONSTANT = 1u << 0, AIR_GLOBAL_INIT = 1u << 1, AIR_GLOBAL_UNINIT = 1u << 2 };

/* "arith.addi" etc. ("" for OPAQUE). */
const char* air_opkind_name(air_opkind_t kind);
/* Inline: the executor asks it several times per op it runs (issue 14). */
extern const uint8_t air_opkind_classes_[AIR_OP_COUNT_];
static inline air_opcls_t air_opkind_class(air_opkind_t kind) {
  return (unsigned)kind < AIR_OP_COUNT_ ? (air_opcls_t)air_opkind_classes_[kind] : AIR_OPC_OPAQUE;
}
/* Looks an op name up; returns false when it is not one we support. */
bool air_opkind_lookup(const char* name, size_t len, air_opkind_t* out_kind);

/* What the operands of a BINARY/UNARY/TERNARY op must be. */
typedef enum air_opdomain_e { AIR_DOMAIN_INT, AIR_DOMAIN_FLOAT } air_opdomain_t;
air_opdomain_t air_opkind_domain(air_opkind_t kind);
/* linalg.add etc.: the number of ins (1 or 2); 0 for other ops. */
uint32_t air_opkind_elementwise_ins(air_opkind_t kind);

/* arith.cmpi predicates, in MLIR's numbering. */
typedef enum air_cmpi_pred_e {
  AIR_CMPI_EQ, AIR_CMPI_NE, AIR_CMPI_SLT, AIR_CMPI_SLE, AIR_CMPI_SGT, AIR_CMPI_SGE,
  AIR_CMPI_ULT, AIR_CMPI_ULE, AIR_CMPI_UGT, AIR_CMPI_UGE, AIR_CMPI_COUNT_
} air_cmpi_pred_t;
/* arith.cmpf predicates, in MLIR's numbering. */
typedef enum air_cmpf_pred_e {
  AIR_CMPF_FALSE, AIR_CMPF_OEQ, AIR_CMPF_OGT, AIR_CMPF_OGE, AIR_CMPF_OLT,
  AIR_CMPF_OLE, AIR_CMPF_ONE, AIR_CMPF_ORD, AIR_CMPF_UEQ, AIR_CMPF_UGT,
  AIR_CMPF_UGE, AIR_CMPF_ULT, AIR_CMPF_ULE, AIR_CMPF_UNE, AIR_CMPF_UNO,
  AIR_CMPF_TRUE, AIR_CMPF_COUNT_
} air_cmpf_pred_t;
const char* air_cmpi_pred_name(uint32_t pred);
const char* air_cmpf_pred_name(uint32_t pred);
/* Returns the predicate index or -1. */
int air_cmpi_pred_lookup(const char* s, size_t len);
/* Evaluates arith.cmpi `pred` on a and b (sign-extended values); the unsigned
 * predicates compare ua and ub, the same values zero-extended from their width. */
bool air_cmpi_eval(uint32_t pred, int64_t a, int64_t b, uint64_t ua, uint64_t ub);
int air_cmpf_pred_lookup(const char* s, size_t len);

/*---------------------------------------------------------------------------*/
/* Types                                                                     */
/*---------------------------------------------------------------------------*/

typedef uint32_t air_tid_t; /* index into program->types; 0 = none */
typedef uint32_t air_vid_t; /* index into program->values; 0 = none */

typedef enum air_type_kind_e {
  AIR_TYPE_NONE = 0,
  AIR_TYPE_TOKEN,  /* !air.token, or !air.async.token when `old_spelling` */
  AIR_TYPE_SCALAR, /* index, iN, siN, uiN, f16, bf16, f32, f64 */
  AIR_TYPE_MEMREF,
  AIR_TYPE_TENSOR, /* tensor<4x?xf32> / tensor<*xf32>: value semantics, no memory
                      space; `layout` holds an encoding when one is written */
  AIR_TYPE_UNIVERSE, /* !air.universe: a set of ranks (air.universe.alloc) */
} air_type_kind_t;

/* Scalar element types. Matches the public air_elem_t of air/types.h. */
typedef enum air_elem_e {
  AIR_ELEM_NONE = 0,
  AIR_ELEM_I1, AIR_ELEM_I8, AIR_ELEM_I16, AIR_ELEM_I32, AIR_ELEM_I64,
  AIR_ELEM_INDEX, AIR_ELEM_F16, AIR_ELEM_BF16, AIR_ELEM_F32, AIR_ELEM_F64,
  /* Signed / unsigned integers (`si8`, `ui8`, ...): storage types of memrefs and
   * function boundaries. arith works on signless integers only, so values of these
   * types are loaded, stored, copied and passed, and loads extend them by their
   * signedness. */
  AIR_ELEM_SI8, AIR_ELEM_SI16, AIR_ELEM_SI32, AIR_ELEM_SI64,
  AIR_ELEM_UI8, AIR_ELEM_UI16, AIR_ELEM_UI32, AIR_ELEM_UI64,
  AIR_ELEM_COUNT_
} air_elem_kind_t;

/* Memory spaces of the spec: L3 = 0 (system), L2 = 1 (segment), L1 = 2 (tile). */
enum { AIR_MEM_L3 = 0, AIR_MEM_L2 = 1, AIR_MEM_L1 = 2 };

#define AIR_DIM_DYNAMIC INT64_MIN /* a `?` in a memref shape */

typedef struct air_type_info_t {
  air_type_kind_t kind;
  air_elem_kind_t elem;   /* SCALAR: the type; MEMREF: the element type */
  bool old_spelling;      /* TOKEN: written !air.async.token */
  uint32_t rank;          /* MEMREF/TENSOR (0 when unranked) */
  bool unranked;          /* MEMREF/TENSOR: `memref<*xf32>` (no rank, no shape) */
  const int64_t* shape;   /* MEMREF/TENSOR: rank dims, AIR_DIM_DYNAMIC for `?` */
  int32_t memspace;       /* MEMREF: 0, 1, 2 (other values kept for the verifier) */
  const char* layout;     /* MEMREF: layout text (e.g. "strided<[64, 1], offset: ?>"
                             or "#map"), NULL for the identity layout */
} air_type_info_t;

const char* air_elem_name(air_elem_kind_t elem);  /* "f32", "index", ... */
/* Size in bytes of an element (i1 counts as 1; index as 8). */
uint32_t air_elem_size(air_elem_kind_t elem);
bool air_elem_is_float(air_elem_kind_t elem);
/* Parses "f32", "i8", "index", ...; returns AIR_ELEM_NONE when unknown. */
air_elem_kind_t air_elem_lookup(const char* s, size_t len);
/* siN / uiN. */
bool air_elem_is_signed_or_unsigned(air_elem_kind_t elem);
bool air_elem_is_unsigned(air_elem_kind_t elem);
/* The signless integer of the same width (si8 -> i8, ui32 -> i32); others as is. */
air_elem_kind_t air_elem_signless(air_elem_kind_t elem);

/*---------------------------------------------------------------------------*/
/* Affine maps and sets                                                      */
/*---------------------------------------------------------------------------*/

typedef enum air_aff_kind_e {
  AIR_AFF_CONST, AIR_AFF_DIM, AIR_AFF_SYM, /* leaves: value = constant / position */
  AIR_AFF_ADD, AIR_AFF_MUL, AIR_AFF_MOD, AIR_AFF_FLOORDIV, AIR_AFF_CEILDIV,
} air_aff_kind_t;

/* `a - b` is ADD(a, MUL(b, -1)) and `-a` is MUL(a, -1), as in MLIR. */
typedef struct air_aff_t {
  air_aff_kind_t kind;
  int64_t value;
  const struct air_aff_t* lhs;
  const struct air_aff_t* rhs;
} air_aff_t;

typedef struct air_affine_map_t {
  uint32_t n_dims, n_syms, n_results;
  const air_aff_t** results;
} air_affine_map_t;

typedef struct air_affine_set_t {
  uint32_t n_dims, n_syms, n_constraints;
  const air_aff_t** constraints;   /* each `expr >= 0` or `expr == 0` */
  const bool* is_eq;
} air_affine_set_t;

/* Evaluates an expression; false on division by zero or overflow. */
bool air_aff_eval(const air_aff_t* e, const int64_t* dims, const int64_t* syms,
                  int64_t* out);

/* `e` as sum_d coef[d] * d_d + *c over `n_dims` dims (at most
 * AIR_AFF_MAX_LINEAR_DIMS); false when it is not linear (mod, floordiv, ceildiv,
 * a symbol, a product of two dims). Arithmetic wraps like the executor's. Used
 * by linalg.generic's strided walk in the executor and the code generator. */
#define AIR_AFF_MAX_LINEAR_DIMS 8
bool air_aff_linearize(const air_aff_t* e, uint32_t n_dims, int64_t* coef, int64_t* c);

/*---------------------------------------------------------------------------*/
/* Attributes                                                                */
/*---------------------------------------------------------------------------*/

typedef enum air_attr_kind_e {
  AIR_ATTR_UNIT,       /* a name with no value */
  AIR_ATTR_BOOL,       /* true / false; i = 0/1 */
  AIR_ATTR_INT,        /* i; type = int/index type or 0 for an untyped literal */
  AIR_ATTR_FLOAT,      /* f; type = float type or 0 */
  AIR_ATTR_STRING,     /* s (decoded bytes, n = length) */
  AIR_ATTR_TYPE,       /* type */
  AIR_ATTR_SYMREF,     /* s = symbol without '@' */
  AIR_ATTR_ARRAY,      /* elems[n] */
  AIR_ATTR_DENSE,      /* array<i32: 1, 2>: type = element type, ints[n] */
  AIR_ATTR_DICT,       /* dict[n] */
  AIR_ATTR_MAP,        /* affine_map<...>: map */
  AIR_ATTR_SET,        /* affine_set<...>: set */
  AIR_ATTR_ALIAS,      /* #name: i = index into program->aliases */
  AIR_ATTR_OPAQUE,     /* anything else, kept as its source text in s */
} air_attr_kind_t;

typedef struct air_named_attr_t air_named_attr_t;

typedef struct air_attr_t {
  air_attr_kind_t kind;
  air_tid_t type;
  uint32_t n;
  int64_t i;
  double f;
  const char* s;
  const struct air_attr_t* elems;
  const int64_t* ints;
  const air_named_attr_t* dict;
  const air_affine_map_t* map;
  const air_affine_set_t* set;
} air_attr_t;

struct air_named_attr_t {
  const char* name;
  air_attr_t value;
};

typedef struct air_alias_t {
  const char* name; /* without '#' */
  air_attr_t value;
} air_alias_t;

/*---------------------------------------------------------------------------*/
/* Values, lists, blocks, ops                                                */
/*---------------------------------------------------------------------------*/

typedef struct air_op_t air_op_t;
typedef struct air_block_t air_block_t;

typedef struct air_value_info_t {
  air_tid_t type;
  air_op_t* def;        /* defining op, or NULL for a block argument */
  air_block_t* block;   /* owning block for a block argument */
  uint32_t index;       /* result number or argument number */
  const char* name;     /* name as written (without '%'), or NULL */
} air_value_info_t;

/* One entry of a mixed static/dynamic index list: a literal or an SSA value. */
typedef struct air_ix_t {
  air_vid_t value; /* 0 when the entry is the literal `cst` */
  int64_t cst;
} air_ix_t;

typedef struct air_ixlist_t {
  uint32_t n;
  air_ix_t* items;
} air_ixlist_t;

typedef struct air_vlist_t {
  uint32_t n;
  air_vid_t* items;
} air_vlist_t;

enum { AIR_TOK_DEP = 0, AIR_TOK_AFF = 1, AIR_TOK_CONC = 2 };

enum {
  AIR_OPF_ASYNC = 1u << 0,    /* produces a token (async form) */
  AIR_OPF_SYNC = 1u << 1,     /* `sync` keyword written */
  AIR_OPF_HAS_DEST = 1u << 2, /* put with `dest(...)` */
  AIR_OPF_PRIVATE = 1u << 3,  /* func.func private */
  AIR_OPF_EXPLICIT_MODULE = 1u << 4, /* `module { }` written */
  /* ranks (issue 13) */
  AIR_OPF_UNIVERSE = 1u << 8,  /* air.rank: last operand is `universe(%u)` */
  AIR_OPF_SRC_RANK = 1u << 9,  /* dma: `src_rank(%r)` operand */
  AIR_OPF_DST_RANK = 1u << 10, /* dma: `dst_rank(%r)` operand */
};

struct air_block_t {
  air_op_t* parent;       /* the op whose region this block is */
  uint32_t n_args;
  air_vid_t* args;
  air_op_t* first;
  air_op_t* last;
};

struct air_op_t {
  air_opkind_t kind;
  uint32_t flags;
  uint32_t line, col;     /* source location (0 when built) */
  air_block_t* parent;    /* enclosing block (NULL for the module) */
  air_op_t* prev;
  air_op_t* next;

  uint32_t n_operands;
  air_vid_t* operands;
  uint32_t n_results;
  air_vid_t* results;
  uint32_t n_regions;
  air_block_t** regions;
  uint32_t n_lists;
  air_ixlist_t* lists;
  air_vlist_t toks[3];    /* dependency, affinity, concurrency */

  const char* sym;        /* symbol (without '@'), see the layouts above */
  const char* text;       /* OPAQUE: source text */
  uint32_t n_types;
  air_tid_t* types;       /* FUNC signature */
  uint32_t iaux[2];
  air_attr_t value;       /* CONSTANT value; AFFINE_* map or set */
  uint32_t n_attrs;
  air_named_attr_t* attrs;
};

/*---------------------------------------------------------------------------*/
/* Program                                                                   */
/*---------------------------------------------------------------------------*/

struct air_program_t {
  air_context_t* context;
  air_allocator_t allocator;
  air_arena_t arena;
  const char* filename;

  air_type_info_t* types;   /* types[0] is NONE */
  uint32_t n_types, cap_types;
  uint32_t* type_index;     /* open-addressed hash of types: slot -> id (0 empty) */
  uint32_t cap_type_index;  /* power of two, > 2 * n_types */
  air_value_info_t* values; /* values[0] is unused */
  uint32_t n_values, cap_values;
  air_alias_t* aliases;
  uint32_t n_aliases, cap_aliases;
  char** warnings;
  uint32_t n_warnings, cap_warnings;
  uint64_t n_warnings_dropped; /* past AIR_IR_MAX_WARNINGS: counted, not kept */

  air_op_t* module;         /* kind MODULE, regions[0] is the body */
};

typedef struct air_program_t air_program_t;

/* Creates an empty program (module with an empty body). */
air_status_t air_ir_program_new(air_context_t* context, const char* filename,
                                air_program_t** out);
void air_ir_program_free(air_program_t* p);

/* Arena memory, zeroed; NULL when out of memory. */
void* air_ir_alloc(air_program_t* p, size_t size);
/* Copies `len` bytes into the arena and NUL-terminates. */
char* air_ir_strndup(air_program_t* p, const char* s, size_t len);

/* Interned types; 0 when out of memory. */
air_tid_t air_ir_type_token(air_program_t* p, bool old_spelling);
air_tid_t air_ir_type_universe(air_program_t* p);
air_tid_t air_ir_type_scalar(air_program_t* p, air_elem_kind_t elem);
air_tid_t air_ir_type_memref(air_program_t* p, air_elem_kind_t elem, uint32_t rank,
                             const int64_t* shape, int32_t memspace,
                             const char* layout);
/* `memref<*xT, space>`. */
air_tid_t air_ir_type_memref_unranked(air_program_t* p, air_elem_kind_t elem,
                                      int32_t memspace);
/* `tensor<shape x T>` (`encoding` may be NULL), or `tensor<*xT>` when unranked. */
air_tid_t air_ir_type_tensor(air_program_t* p, air_elem_kind_t elem, bool unranked,
                             uint32_t rank, const int64_t* shape, const char* encoding);
static inline const air_type_info_t* air_ir_type(const air_program_t* p, air_tid_t t) {
  return &p->types[t < p->n_types ? t : 0];
}
static inline bool air_ir_type_is_token(const air_program_t* p, air_tid_t t) {
  return air_ir_type(p, t)->kind == AIR_TYPE_TOKEN;
}

/* A new value; 0 when out of memory. */
air_vid_t air_ir_value_new(air_program_t* p, air_tid_t type, air_op_t* def,
                           air_block_t* block, uint32_t index, const char* name);
static inline const air_value_info_t* air_ir_value(const air_program_t* p, air_vid_t v) {
  return &p->values[v < p->n_values ? v : 0];
}
static inline air_tid_t air_ir_value_type(const air_program_t* p, air_vid_t v) {
  return air_ir_value(p, v)->type;
}

/* A new op with zeroed operand/result/region/list arrays of the given sizes
 * (results are not created: call air_ir_value_new for each). NULL on OOM. */
air_op_t* air_ir_op_new(air_program_t* p, air_opkind_t kind, uint32_t line,
                        uint32_t col, uint32_t n_operands, uint32_t n_results,
                        uint32_t n_regions, uint32_t n_lists);
/* A new block with `n_args` argument slots (values not created). NULL on OOM. */
air_block_t* air_ir_block_new(air_program_t* p, air_op_t* parent, uint32_t n_args);
/* Appends `op` at the end of `block`. */
void air_ir_block_append(air_block_t* block, air_op_t* op);
/* Inserts `op` before `before` (which is in `block`); NULL `before` appends. */
void air_ir_block_insert(air_block_t* block, air_op_t* before, air_op_t* op);
/* Allocates a list of n items (zeroed). false on OOM. */
bool air_ir_list_init(air_program_t* p, air_ixlist_t* list, uint32_t n);
bool air_ir_vlist_init(air_program_t* p, air_vlist_t* list, uint32_t n);
/* Adds or replaces attribute `name` on op. false on OOM. */
bool air_ir_attr_set(air_program_t* p, air_op_t* op, const char* name,
                     const air_attr_t* value);
/* The attribute `name` of op, or NULL. */
const air_attr_t* air_ir_attr_get(const air_op_t* op, const char* name);
/* Resolves aliases: returns the attribute an alias names (or `a` itself). */
const air_attr_t* air_ir_attr_resolve(const air_program_t* p, const air_attr_t* a);
/* An integer list attribute (`array<i32: ...>` or `[1, 2]`, aliases resolved)
 * into out (at most `max` entries); false when `a` is not one or is longer. */
bool air_ir_attr_ints(const air_program_t* p, const air_attr_t* a, uint32_t max, int64_t* out,
                      uint32_t* n);
/* Adds an alias; returns its index or -1 on OOM. */
int32_t air_ir_alias_add(air_program_t* p, const char* name, const air_attr_t* value);
/* Finds an alias by name (without '#'); -1 when absent. */
int32_t air_ir_alias_find(const air_program_t* p, const char* name, size_t len);

/* The last op of a block (its terminator when it has one), or NULL. */
static inline air_op_t* air_ir_block_terminator(const air_block_t* b) {
  return b ? b->last : NULL;
}
/* The number of `args(...)` of a launch/segment/herd/rank (operands after the
 * sizes, less an air.rank's universe). */
static inline uint32_t air_ir_hier_nargs(const air_op_t* op) {
  uint32_t skip = op->iaux[0] + (op->kind == AIR_OP_RANK && (op->flags & AIR_OPF_UNIVERSE) ? 1u : 0u);
  return op->n_operands > skip ? op->n_operands - skip : 0;
}
/* air.rank's universe operand, or 0. */
static inline air_vid_t air_ir_rank_universe(const air_op_t* op) {
  return op->kind == AIR_OP_RANK && (op->flags & AIR_OPF_UNIVERSE) && op->n_operands
             ? op->operands[op->n_operands - 1]
             : 0;
}
/* A dma's `src_rank(%r)` (dst = false) or `dst_rank(%r)` operand, or 0. */
static inline air_vid_t air_ir_dma_rank(const air_op_t* op, bool dst) {
  uint32_t i = 2;
  if (op->kind != AIR_OP_DMA) return 0;
  if (!dst) return (op->flags & AIR_OPF_SRC_RANK) && op->n_operands > i ? op->operands[i] : 0;
  if (op->flags & AIR_OPF_SRC_RANK) ++i;
  return (op->flags & AIR_OPF_DST_RANK) && op->n_operands > i ? op->operands[i] : 0;
}

/* The innermost op that encloses `op` (NULL at module level). */
static inline air_op_t* air_ir_parent_op(const air_op_t* op) {
  return op->parent ? op->parent->parent : NULL;
}

/* Pre-order walk of op and everything nested in it. The callback returns false
 * to stop the walk; air_ir_walk then returns false. */
typedef bool (*air_ir_walk_fn)(air_op_t* op, void* user);
bool air_ir_walk(air_op_t* op, air_ir_walk_fn fn, void* user);

/* Records a parse-time warning `file:line:col: warning: msg`. The first
 * AIR_IR_MAX_WARNINGS are kept; later ones are only counted, so a million unknown
 * lines cost a counter, not a million messages. */
enum { AIR_IR_MAX_WARNINGS = 10 };
void air_ir_warn(air_program_t* p, uint32_t line, uint32_t col, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* After parsing: when warnings were dropped, one last `file: warning: ... and N
 * more warnings` says how many. */
void air_ir_warn_finish(air_program_t* p);

/* The longest diagnostic line kept (bytes); the rest of a longer one is cut with
 * "...", a safety net under the parser's own shortening of echoed input. */
enum { AIR_IR_MAX_DIAG = 2000 };

/* A status `file:line:col: error: msg` for a location in this program. */
air_status_t air_ir_error_at(const air_program_t* p, air_status_code_t code,
                             uint32_t line, uint32_t col, const char* src_file,
                             uint32_t src_line, const char* fmt, ...)
    __attribute__((format(printf, 7, 8)));
#define AIR_IR_ERROR(p, code, line, col, ...) \
  air_ir_error_at((p), (code), (line), (col), __FILE__, __LINE__, __VA_ARGS__)

#endif /* AIR_RUNTIME_IR_IR_H_ */

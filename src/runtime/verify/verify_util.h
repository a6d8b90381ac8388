/* verify_util.h - the verifier's floor: the state every pass reads (the op index,
 * value owners, channels, diagnostics) and the helpers they share (errors, scratch
 * memory, names for messages, constants, symbol lookup, operand-kind checks).
 * Nothing here runs a rule of its own except [async-result], which several passes
 * apply to the ops they own.
 *
 * verify_index.c first indexes the program: every op reachable through well-formed
 * links gets a pre-order id, so a subtree is the id range [id, end) and later
 * passes iterate arrays instead of chasing pointers. Values get an owner record
 * (defining op or region-owning op). Everything here is scratch memory from the
 * program's allocator, freed before air_verify returns.
 */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_UTIL_H_
#define AIR_RUNTIME_VERIFY_VERIFY_UTIL_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/mem.h"
#include "runtime/base/ptrmap.h"
#include "runtime/base/strbuf.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"

#define AIR_V_NONE UINT32_MAX
/* Deeper nesting is reported and not analysed, so every pass may recurse. */
#define AIR_V_MAX_DEPTH 400
/* Like a compiler's error limit: the first this many errors by location are
 * reported, then a count of the rest. */
#define AIR_V_MAX_ERRORS 100

/* The class of target the program is checked for (runtime/target: every AIE
 * device is one class, every GPU another). */
typedef enum air_vtarget_e {
  AIR_VT_ANY = 0,
  AIR_VT_CPU,
  AIR_VT_AIE,
  AIR_VT_GPU
} air_vtarget_t;

typedef enum air_vchtype_e {
  AIR_VCH_STREAM = 0,
  AIR_VCH_PACKET,
  AIR_VCH_CASCADE,
  AIR_VCH_MMIO,
  AIR_VCH_SYMHEAP,
  AIR_VCH_UNKNOWN
} air_vchtype_t;

typedef struct air_vop_t {
  air_op_t* op;
  uint32_t parent; /* enclosing op id; NONE for the module */
  uint32_t end;    /* one past the last id of the subtree */
  uint32_t region; /* which region of the parent holds the op */
  uint32_t scope;  /* innermost enclosing isolated op (module/func/launch/segment/herd) */
  uint32_t hier;   /* innermost enclosing launch/segment/herd/rank */
  uint32_t exec;   /* innermost enclosing air.execute */
  uint32_t chan;   /* put/get: index into chans; NONE when undeclared */
  uint16_t depth;
  uint8_t bad;      /* shape broken: later passes must not interpret the op */
  uint8_t has_chan; /* the subtree holds a put/get of a declared channel */
} air_vop_t;

typedef struct air_vval_t {
  uint32_t owner;  /* defining op id, or the id of the op owning the block */
  uint32_t index;  /* result number or argument number */
  uint32_t region; /* block arguments: region of the owner */
  uint8_t is_arg;
} air_vval_t;

typedef struct air_vchan_t {
  uint32_t op; /* id of the air.channel op */
  uint32_t rank;
  int64_t* dims;    /* put side */
  int64_t* bdims;   /* get side: broadcast_shape, else dims */
  uint64_t npoints; /* product of bdims; 0 when invalid or too large to track */
  int64_t depth;
  air_vchtype_t type;
  bool bad; /* declaration errors: channel-level analyses skip it */
  bool broadcast;
} air_vchan_t;

typedef struct air_vdiag_t {
  uint32_t line, col, seq;
  size_t off, len;
} air_vdiag_t;

typedef struct air_vctx_t {
  const air_program_t* p;
  const air_allocator_t* a;
  air_vtarget_t target;
  const air_target_t* target_row; /* NULL without a target */
  air_vop_t* ops;
  uint32_t n_ops, cap_ops;
  air_vval_t* vals; /* p->n_values entries */
  uint32_t* uses;   /* use count per value */
  air_vchan_t* chans;
  uint32_t n_chans;
  uint32_t* syms; /* open-addressing table of module-level symbol op ids, keyed by
                     (enclosing module, name) */
  uint32_t sym_cap;
  air_ptrmap_t blocks; /* visited blocks (key and value: the block) */
  air_sb_t text; /* diagnostic bodies */
  air_vdiag_t* diags;
  uint32_t n_diags, cap_diags, n_dropped, n_seq;
  uint64_t* seen; /* hashes of the facts reported so far (open addressing, 0 empty) */
  uint32_t n_seen, cap_seen;
  size_t garbage; /* bytes of `text` that replaced diagnostics no longer use */
  bool oom;
  bool too_deep;
} air_vctx_t;

/* Records `[rule] message` at op's location (module location when op is NULL). */
void air_v_error(air_vctx_t* v, const air_op_t* op, const char* rule, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* air_mem_calloc on the program's allocator that also sets v->oom on failure, so
 * every pass stops at the next check. Free with air_mem_free(v->a, ...). */
void* air_v_calloc(air_vctx_t* v, size_t n, size_t size);
/* "%name" or "value #id" in buf. */
const char* air_v_vname(const air_vctx_t* v, air_vid_t vid, char* buf, size_t n);
/* Short op name for messages ("air.herd", "arith.constant", "operation"). */
const char* air_v_opname(const air_op_t* op);
/* The innermost module enclosing op `id` (0, the top module, when none other). */
uint32_t air_v_module_of(const air_vctx_t* v, uint32_t id);
/* Symbol lookup as MLIR resolves `@name`: in the nearest module (symbol table)
 * enclosing op `from`. Op id of the func / channel / memref.global, or NONE. */
uint32_t air_v_symbol(const air_vctx_t* v, uint32_t from, const char* name);
/* The same in module `module` (an op id). */
uint32_t air_v_symbol_in(const air_vctx_t* v, uint32_t module, const char* name);
/* Enters op id `j` (whose name is not in its module's table yet). */
void air_v_symbol_add(air_vctx_t* v, uint32_t j);

static inline bool air_v_valid(const air_vctx_t* v, air_vid_t vid) {
  return vid != 0 && vid < v->p->n_values;
}
static inline const air_type_info_t* air_v_type(const air_vctx_t* v, air_vid_t vid) {
  return air_ir_type(v->p, air_v_valid(v, vid) ? v->p->values[vid].type : 0);
}
static inline bool air_v_is_index(const air_vctx_t* v, air_vid_t vid) {
  const air_type_info_t* t = air_v_type(v, vid);
  return t->kind == AIR_TYPE_SCALAR && t->elem == AIR_ELEM_INDEX;
}
static inline bool air_v_is_token(const air_vctx_t* v, air_vid_t vid) {
  return air_v_type(v, vid)->kind == AIR_TYPE_TOKEN;
}
static inline bool air_v_is_memref(const air_vctx_t* v, air_vid_t vid) {
  return air_v_type(v, vid)->kind == AIR_TYPE_MEMREF;
}
/* The hierarchy chain (air_vop_t.hier) holds launch/segment/herd and, above
 * them, air.rank: all share the ids/sizes/args layout and are isolated. */
static inline bool air_v_is_hier(air_opkind_t k) {
  return k == AIR_OP_LAUNCH || k == AIR_OP_SEGMENT || k == AIR_OP_HERD || k == AIR_OP_RANK;
}
static inline bool air_v_is_chan_io(air_opkind_t k) {
  return k == AIR_OP_PUT || k == AIR_OP_GET;
}
/* The first child of `id` in region r, iterating siblings with ops[j].end. */
static inline uint32_t air_v_first_child(const air_vctx_t* v, uint32_t id, uint32_t r) {
  uint32_t j = id + 1;
  while (j < v->ops[id].end && v->ops[j].region < r) j = v->ops[j].end;
  return j < v->ops[id].end && v->ops[j].region == r ? j : AIR_V_NONE;
}
static inline uint32_t air_v_next_sibling(const air_vctx_t* v, uint32_t parent, uint32_t j) {
  uint32_t k = v->ops[j].end;
  return k < v->ops[parent].end && v->ops[k].region == v->ops[j].region ? k : AIR_V_NONE;
}
static inline air_tid_t air_v_vtype(const air_vctx_t* v, air_vid_t vid) {
  return air_v_valid(v, vid) ? v->p->values[vid].type : 0;
}
/* Resolves a value to an integer constant when an arith.constant defines it. */
bool air_v_const(const air_vctx_t* v, air_vid_t vid, int64_t* out);
/* An index-list entry as a constant (literal, or a constant value). */
bool air_v_ix_const(const air_vctx_t* v, const air_ix_t* ix, int64_t* out);

/* Shared by the per-op passes (verify_ops.c, verify_data.c). */
const char* air_v_tname(const air_vctx_t* v, air_tid_t t, char* buf, size_t n);
const char* air_v_space_name(int32_t space); /* "L1", "L2", "L3" */
const char* air_v_target_name(const air_vctx_t* v);
/* The innermost enclosing op of kind k on the launch/segment/herd chain. */
uint32_t air_v_enclosing(const air_vctx_t* v, uint32_t id, air_opkind_t k);
/* [structure] unless `ok`: the operand (fmt names it, formatted only then) must be
 * `want` ("index", "a memref", ...). Invalid value ids are left to the scope pass,
 * which reports every use once. */
void air_v_want(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* want, bool ok,
                const char* fmt, ...) __attribute__((format(printf, 6, 7)));
/* air_v_want for an index / a memref operand. */
void air_v_want_index(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
void air_v_want_memref(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Interned ids make equal types equal ids; the two token spellings are one type. */
bool air_v_same_type(const air_vctx_t* v, air_tid_t a, air_tid_t b);
/* Signless integer or index (what arith computes on); float; i1. */
bool air_v_is_int_like(const air_type_info_t* t);
bool air_v_is_float(const air_type_info_t* t);
bool air_v_is_i1(const air_type_info_t* t);
/* The terminator of region r when it is of kind k; reports [structure] otherwise. */
const air_op_t* air_v_want_term(air_vctx_t* v, uint32_t id, uint32_t r, air_opkind_t k);
/* A terminator's operands must match n values (`vals`) or types (`tids`). */
void air_v_match_yield(air_vctx_t* v, uint32_t id, const air_op_t* t, uint32_t n,
                       const air_vid_t* vals, const air_tid_t* tids, const char* rule,
                       const char* what);
/* Block arguments [from, from + n) of b must have the types of `vals` or `tids`. */
void air_v_match_args(air_vctx_t* v, uint32_t id, const air_block_t* b, uint32_t from,
                      uint32_t n, const air_vid_t* vals, const air_tid_t* tids,
                      const char* what);
/* Channel indices (docs/design.md "Channel indices"): a put indexes the channel's
 * own dimensions and may omit its indices when they are all 1; a get indexes the
 * broadcast_shape and may omit them when it is all ones. */
bool air_v_chan_may_omit(const air_vchan_t* ch, bool put);
/* A get's index on dimension k of a broadcast channel where both the channel and
 * the broadcast dimension are 1 selects nothing (mlir-air's lowering ignores it;
 * programs pass the tile's own coordinates there): it is read as 0. */
bool air_v_chan_index_ignored(const air_vchan_t* ch, bool put, uint32_t k);
/* [async-result]: async form <=> exactly one token result. */
void air_v_check_async(air_vctx_t* v, uint32_t id);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_UTIL_H_ */

/* print_core.h - the printer's state and the pieces every op printer uses
 * (print_core.c). Internal to the printer: print.c (dispatcher, func, air,
 * arith, memref basics), print_ctrl.c (scf, affine, linalg) and print_mem.c
 * (memref views and globals, tensors) print ops with these; print_attr.h prints
 * the leaves (types, attributes, affine maps).
 * Nothing here fails loudly: out of memory sets `out->oom`, and broken IR
 * prints as `<<null>>`. */
#ifndef AIR_RUNTIME_TEXT_PRINT_CORE_H_
#define AIR_RUNTIME_TEXT_PRINT_CORE_H_

#include "runtime/base/mem.h"
#include "runtime/base/strbuf.h"
#include "runtime/ir/ir.h"

/* The naming tables (print_core.c). */
typedef struct air_pr_vname_t air_pr_vname_t;
typedef struct air_pr_slot_t air_pr_slot_t;
typedef struct air_pr_undo_t air_pr_undo_t;

typedef struct air_printer_t air_printer_t;
/* Prints one op (with its results and regions) at indentation `level`. */
typedef void (*air_pr_op_fn)(air_printer_t* pr, const air_op_t* op, int level);

struct air_printer_t {
  const air_program_t* p;
  air_pr_op_fn print_op; /* print.c's dispatcher, for the ops inside regions */
  air_sb_t* out;
  air_pr_vname_t* names; /* per value: its printed name */
  air_pr_slot_t* slots;  /* written names taken in the current scopes */
  uint32_t mask;
  air_pr_undo_t* undo; /* a claim per value at most, so n_values entries suffice */
  uint32_t n_undo, cap_undo;
  uint8_t* taken; /* bitmap: decimal names written somewhere, below `limit` */
  uint32_t limit;
  uint32_t scope, n_scopes, next_num;
};

/* Names every value of `p` (the first pass); false when out of memory. Call
 * air_pr_end afterwards in either case. */
bool air_pr_begin(air_printer_t* pr, const air_program_t* p, air_sb_t* out);
void air_pr_end(air_printer_t* pr);

/* Bounds-checked access to an op's parts: 0 / NULL / an empty list when absent. */
extern const air_ixlist_t air_pr_empty_list;
static inline bool air_pr_ok_vid(const air_printer_t* pr, air_vid_t v) {
  return v && v < pr->p->n_values;
}
static inline air_vid_t air_pr_opnd(const air_op_t* op, uint32_t i) {
  return i < op->n_operands && op->operands ? op->operands[i] : 0;
}
static inline air_vid_t air_pr_res(const air_op_t* op, uint32_t i) {
  return i < op->n_results && op->results ? op->results[i] : 0;
}
static inline const air_block_t* air_pr_region(const air_op_t* op, uint32_t i) {
  return i < op->n_regions && op->regions ? op->regions[i] : NULL;
}
static inline air_vid_t air_pr_barg(const air_block_t* b, uint32_t i) {
  return b && i < b->n_args && b->args ? b->args[i] : 0;
}
static inline const air_ixlist_t* air_pr_list(const air_op_t* op, uint32_t i) {
  return i < op->n_lists && op->lists ? &op->lists[i] : &air_pr_empty_list;
}

void air_pr_put(air_printer_t* pr, const char* s);
void air_pr_put_indent(air_printer_t* pr, int level);
void air_pr_put_u32(air_printer_t* pr, uint32_t v);
/* A value's printed name (`%x`, `%3`, `%r#1`). */
void air_pr_put_val(air_printer_t* pr, air_vid_t v);
/* `%a, %b, ...`. */
void air_pr_put_vals(air_printer_t* pr, const air_vid_t* v, uint32_t n);
/* Operands [from, to) of op, clamped. */
void air_pr_put_opnds(air_printer_t* pr, const air_op_t* op, uint32_t from, uint32_t to);
void air_pr_put_type(air_printer_t* pr, air_tid_t t);
void air_pr_put_vtype(air_printer_t* pr, air_vid_t v);
void air_pr_put_vtypes(air_printer_t* pr, const air_vid_t* v, uint32_t n);
/* The types of operands [from, to), comma separated. */
void air_pr_put_opnd_types(air_printer_t* pr, const air_op_t* op, uint32_t from,
                           uint32_t to);
/* ` -> T` or ` -> (T, ...)` when op has results. */
void air_pr_put_arrow_results(air_printer_t* pr, const air_op_t* op);
/* ` {attrs}`, and ` attributes {attrs}` for ops whose syntax needs the keyword. */
void air_pr_put_attrs(air_printer_t* pr, const air_op_t* op);
void air_pr_put_attrs_kw(air_printer_t* pr, const air_op_t* op);
/* The tail most ops end with: ` {attrs} : T` (T: the type of `v`), and the
 * same with ` to T2` for conversions (casts, copies, subviews). */
void air_pr_put_attrs_type(air_printer_t* pr, const air_op_t* op, air_vid_t v);
void air_pr_put_attrs_cast(air_printer_t* pr, const air_op_t* op, air_vid_t from, air_vid_t to);
/* `[%a, 0, %b]`. */
void air_pr_put_ixlist(air_printer_t* pr, const air_ixlist_t* l);
/* `%m[offsets] [sizes] [strides]` from lists[first..first+2]. */
void air_pr_put_memref_slice(air_printer_t* pr, air_vid_t m, const air_op_t* op,
                             uint32_t first);
/* `[%t0, %t1]`. */
void air_pr_put_tok_list(air_printer_t* pr, const air_vlist_t* l);
/* ` async` / ` sync` and the dependency list. */
void air_pr_put_async(air_printer_t* pr, const air_op_t* op);
/* The spec's affinity and concurrency lists. */
void air_pr_put_aff_conc(air_printer_t* pr, const air_op_t* op);
/* `%r = `, `%r:N = ` or `%a, %b = ` when op has results. */
void air_pr_put_results(air_printer_t* pr, const air_op_t* op);

/* `{`, the ops one level deeper (terminators MLIR elides left out), `}` at
 * `level`. `label` prints `^bb0(args):` for regions whose arguments have no
 * other syntax (scf.reduce, linalg.generic). */
void air_pr_put_region(air_printer_t* pr, const air_op_t* owner, const air_block_t* b,
                       int level, bool label);

#endif /* AIR_RUNTIME_TEXT_PRINT_CORE_H_ */

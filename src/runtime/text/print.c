/* print.c - IR -> AIR text, in MLIR's pretty form as mlir-air prints it.
 *
 * Two passes. The first names every value in program order. A written name is
 * kept when it is a valid SSA id not taken in scope: by an earlier value of the
 * same region or of an enclosing one, up to the nearest launch, segment, herd,
 * func or module, which opens a fresh scope (they are IsolatedFromAbove, so MLIR
 * lets names repeat there). Any other value gets `%N`, skipping every number
 * written anywhere in the program, so a generated name never meets a written
 * one. The second pass prints. As every printed name is free where it is
 * defined, printing the parsed output again keeps all of them: the text is a
 * fixed point.
 */
#include "runtime/text/print.h"

#include <string.h>

#include "runtime/base/status_util.h"
#include "runtime/text/print_attr.h"
#include "runtime/text/print_core.h"

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/*---------------------------------------------------------------------------*/
/* Ops and regions                                                           */
/*---------------------------------------------------------------------------*/

static void print_op(air_printer_t* pr, const air_op_t* op, int level);

/* The terminator MLIR materialises when a region of `owner` omits it. */
static int implicit_terminator(const air_op_t* owner) {
  switch (owner->kind) {
    case AIR_OP_LAUNCH: return AIR_OP_LAUNCH_TERM;
    case AIR_OP_SEGMENT: return AIR_OP_SEGMENT_TERM;
    case AIR_OP_HERD: return AIR_OP_HERD_TERM;
    case AIR_OP_RANK: return AIR_OP_RANK_TERM;
    case AIR_OP_EXECUTE: return AIR_OP_EXECUTE_TERM;
    case AIR_OP_FOR: case AIR_OP_IF: return AIR_OP_YIELD;
    case AIR_OP_AFFINE_FOR: case AIR_OP_AFFINE_IF: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_PARALLEL: return AIR_OP_REDUCE;
    default: return -1;
  }
}

static bool elided(const air_op_t* owner, const air_op_t* op) {
  return !op->next && (int)op->kind == implicit_terminator(owner) && !op->n_operands &&
         !op->n_regions && !op->n_attrs;
}

/* `{`, the ops one level deeper, `}` at `level`. `label` prints `^bb0(args):`
 * for regions whose arguments have no other syntax (scf.reduce, linalg.generic). */
static void print_region(air_printer_t* pr, const air_op_t* owner, const air_block_t* b,
                         int level, bool label) {
  air_pr_put(pr, "{\n");
  if (b) {
    if (label && b->n_args) {
      air_pr_put_indent(pr, level);
      air_pr_put(pr, "^bb0(");
      for (uint32_t i = 0; i < b->n_args; ++i) {
        if (i) air_pr_put(pr, ", ");
        air_pr_put_val(pr, air_pr_barg(b, i));
        air_pr_put(pr, ": ");
        air_pr_put_vtype(pr, air_pr_barg(b, i));
      }
      air_pr_put(pr, "):\n");
    }
    for (const air_op_t* op = b->first; op && !pr->out->oom; op = op->next)
      if (!elided(owner, op)) print_op(pr, op, level + 1);
  }
  air_pr_put_indent(pr, level);
  air_sb_putc(pr->out, '}');
}

static void print_module(air_printer_t* pr, const air_op_t* op, int level) {
  air_pr_put(pr, "module");
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  air_pr_put_attrs_kw(pr, op);
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, air_pr_region(op, 0), level, false);
}

static void print_func(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* body = air_pr_region(op, 0);
  uint32_t n_in = min_u32(op->iaux[0], op->n_types);
  air_pr_put(pr, op->flags & AIR_OPF_PRIVATE ? "func.func private " : "func.func ");
  air_print_symbol(pr->out, op->sym);
  air_sb_putc(pr->out, '(');
  if (body) {
    for (uint32_t i = 0; i < body->n_args; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(body, i));
      air_pr_put(pr, ": ");
      air_pr_put_vtype(pr, air_pr_barg(body, i));
    }
  } else {
    for (uint32_t i = 0; i < n_in; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_type(pr, op->types[i]);
    }
  }
  air_sb_putc(pr->out, ')');
  uint32_t n_out = op->n_types - n_in;
  if (n_out) {
    air_pr_put(pr, n_out == 1 ? " -> " : " -> (");
    for (uint32_t i = 0; i < n_out; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_type(pr, op->types[n_in + i]);
    }
    if (n_out > 1) air_sb_putc(pr->out, ')');
  }
  air_pr_put_attrs_kw(pr, op);
  if (body) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, body, level, false);
  }
}

static void print_hier(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = air_pr_region(op, 0);
  uint32_t n = min_u32(op->iaux[0], op->n_operands);
  air_pr_put(pr, air_opkind_name(op->kind));
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  air_pr_put_async(pr, op);
  air_vid_t universe = air_ir_rank_universe(op);
  if (universe) {
    air_pr_put(pr, " universe(");
    air_pr_put_val(pr, universe);
    air_sb_putc(pr->out, ')');
  }
  uint32_t end = n + air_ir_hier_nargs(op);
  if (op->kind != AIR_OP_SEGMENT || n) {
    air_pr_put(pr, op->kind == AIR_OP_LAUNCH || op->kind == AIR_OP_RANK ? " ("
                   : op->kind == AIR_OP_HERD                            ? " tile ("
                                                                        : " unroll(");
    for (uint32_t i = 0; i < n; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, i));
    }
    air_pr_put(pr, ") in (");
    for (uint32_t i = 0; i < n; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, n + i));
      air_sb_putc(pr->out, '=');
      air_pr_put_val(pr, air_pr_opnd(op, i));
    }
    air_sb_putc(pr->out, ')');
  }
  if (end > n) {
    air_pr_put(pr, " args(");
    for (uint32_t i = n; i < end; ++i) {
      if (i > n) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, n + i));
      air_sb_putc(pr->out, '=');
      air_pr_put_val(pr, air_pr_opnd(op, i));
    }
    air_pr_put(pr, ") : ");
    air_pr_put_opnd_types(pr, op, n, end);
  }
  air_pr_put_aff_conc(pr, op);
  air_pr_put_attrs_kw(pr, op);
  if (b) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, b, level, false);
  }
}

static void print_channel_io(air_printer_t* pr, const air_op_t* op) {
  uint32_t n = min_u32(op->iaux[0], op->n_operands);
  air_pr_put(pr, air_opkind_name(op->kind));
  air_pr_put_async(pr, op);
  air_pr_put_aff_conc(pr, op);
  air_sb_putc(pr->out, ' ');
  air_print_symbol(pr->out, op->sym);
  air_sb_putc(pr->out, '[');
  air_pr_put_opnds(pr, op, 0, n);
  air_pr_put(pr, "] (");
  air_pr_put_memref_slice(pr, air_pr_opnd(op, n), op, 0);
  air_sb_putc(pr->out, ')');
  if (op->flags & AIR_OPF_HAS_DEST) {
    air_pr_put(pr, " dest(");
    air_pr_put_val(pr, air_pr_opnd(op, n + 1));
    air_sb_putc(pr->out, ')');
  }
  air_pr_put_attrs(pr, op);
  air_pr_put(pr, " : (");
  air_pr_put_vtype(pr, air_pr_opnd(op, n));
  air_sb_putc(pr->out, ')');
}

static void print_dma(air_printer_t* pr, const air_op_t* op) {
  air_pr_put(pr, "air.dma_memcpy_nd");
  air_pr_put_async(pr, op);
  air_pr_put_aff_conc(pr, op);
  air_pr_put(pr, " (");
  air_pr_put_memref_slice(pr, air_pr_opnd(op, 0), op, 0);
  air_pr_put(pr, ", ");
  air_pr_put_memref_slice(pr, air_pr_opnd(op, 1), op, 3);
  air_sb_putc(pr->out, ')');
  for (int w = 0; w < 2; ++w) {
    air_vid_t r = air_ir_dma_rank(op, w == 1);
    if (!r) continue;
    air_pr_put(pr, w ? " dst_rank(" : " src_rank(");
    air_pr_put_val(pr, r);
    air_sb_putc(pr->out, ')');
  }
  air_pr_put_attrs(pr, op);
  air_pr_put(pr, " : (");
  air_pr_put_opnd_types(pr, op, 0, 2);
  air_sb_putc(pr->out, ')');
}

static void print_execute(air_printer_t* pr, const air_op_t* op, int level) {
  air_pr_put(pr, "air.execute");
  if (op->toks[AIR_TOK_DEP].n) {
    air_sb_putc(pr->out, ' ');
    air_pr_put_tok_list(pr, &op->toks[AIR_TOK_DEP]);
  }
  air_pr_put_aff_conc(pr, op);
  if (op->n_results > 1) {
    air_pr_put(pr, " -> (");
    air_pr_put_vtypes(pr, op->results + 1, op->n_results - 1);
    air_sb_putc(pr->out, ')');
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, air_pr_region(op, 0), level, false);
  air_pr_put_attrs(pr, op);
}

static void print_terminator(air_printer_t* pr, const air_op_t* op) {
  const air_op_t* owner = air_ir_parent_op(op);
  /* MLIR drops the `func.` of return inside a func.func */
  bool bare = op->kind == AIR_OP_RETURN && owner && owner->kind == AIR_OP_FUNC;
  air_pr_put(pr, bare ? "return" : air_opkind_name(op->kind));
  air_pr_put_attrs(pr, op);
  if (!op->n_operands) return;
  air_sb_putc(pr->out, ' ');
  air_pr_put_vals(pr, op->operands, op->n_operands);
  air_pr_put(pr, " : ");
  air_pr_put_vtypes(pr, op->operands, op->n_operands);
}

static void print_for(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = air_pr_region(op, 0);
  air_pr_put(pr, "scf.for ");
  air_pr_put_val(pr, air_pr_barg(b, 0));
  air_pr_put(pr, " = ");
  air_pr_put_val(pr, air_pr_opnd(op, 0));
  air_pr_put(pr, " to ");
  air_pr_put_val(pr, air_pr_opnd(op, 1));
  air_pr_put(pr, " step ");
  air_pr_put_val(pr, air_pr_opnd(op, 2));
  if (op->n_operands > 3) {
    air_pr_put(pr, " iter_args(");
    for (uint32_t i = 3; i < op->n_operands; ++i) {
      if (i > 3) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, i - 2));
      air_pr_put(pr, " = ");
      air_pr_put_val(pr, air_pr_opnd(op, i));
    }
    air_pr_put(pr, ") -> (");
    if (op->n_results)
      air_pr_put_vtypes(pr, op->results, op->n_results);
    else
      air_pr_put_opnd_types(pr, op, 3, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_tid_t ivt = air_ir_value_type(pr->p, air_pr_barg(b, 0));
  const air_type_info_t* ti = air_ir_type(pr->p, ivt);
  if (b && b->n_args && !(ti->kind == AIR_TYPE_SCALAR && ti->elem == AIR_ELEM_INDEX)) {
    air_pr_put(pr, " : ");
    air_pr_put_type(pr, ivt);
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  air_pr_put_attrs(pr, op);
}

static void print_parallel(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = air_pr_region(op, 0);
  uint32_t n = min_u32(op->iaux[0], op->n_operands / 3);
  air_pr_put(pr, "scf.parallel (");
  for (uint32_t i = 0; i < n; ++i) {
    if (i) air_pr_put(pr, ", ");
    air_pr_put_val(pr, air_pr_barg(b, i));
  }
  air_pr_put(pr, ") = (");
  air_pr_put_opnds(pr, op, 0, n);
  air_pr_put(pr, ") to (");
  air_pr_put_opnds(pr, op, n, 2 * n);
  air_pr_put(pr, ") step (");
  air_pr_put_opnds(pr, op, 2 * n, 3 * n);
  air_sb_putc(pr->out, ')');
  if (op->n_operands > 3 * n) {
    air_pr_put(pr, " init (");
    air_pr_put_opnds(pr, op, 3 * n, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_pr_put_arrow_results(pr, op);
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  air_pr_put_attrs(pr, op);
}

static void print_reduce(air_printer_t* pr, const air_op_t* op, int level) {
  air_pr_put(pr, "scf.reduce");
  if (op->n_operands) {
    air_sb_putc(pr->out, '(');
    air_pr_put_vals(pr, op->operands, op->n_operands);
    air_pr_put(pr, " : ");
    air_pr_put_vtypes(pr, op->operands, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_pr_put(pr, r ? ", " : " ");
    print_region(pr, op, air_pr_region(op, r), level, true);
  }
  air_pr_put_attrs(pr, op);
}

/* scf.if and affine.if: then/else regions after the header. */
static void print_branches(air_printer_t* pr, const air_op_t* op, int level) {
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, air_pr_region(op, 0), level, false);
  if (air_pr_region(op, 1)) {
    air_pr_put(pr, " else ");
    print_region(pr, op, air_pr_region(op, 1), level, false);
  }
  air_pr_put_attrs(pr, op);
}

/* affine.apply / affine.if operands: `(dims)[symbols]`. */
static void put_dims_syms(air_printer_t* pr, const air_op_t* op) {
  uint32_t nd = min_u32(op->iaux[0], op->n_operands);
  air_sb_putc(pr->out, '(');
  air_pr_put_opnds(pr, op, 0, nd);
  air_sb_putc(pr->out, ')');
  if (op->n_operands > nd) {
    air_sb_putc(pr->out, '[');
    air_pr_put_opnds(pr, op, nd, op->n_operands);
    air_sb_putc(pr->out, ']');
  }
}

typedef struct subscript_ctx_t {
  air_printer_t* pr;
  const air_op_t* op;
  uint32_t first, nd; /* operand of d0; #dims */
} subscript_ctx_t;

static void put_subscript_leaf(void* user, bool is_sym, int64_t pos) {
  const subscript_ctx_t* c = user;
  uint64_t i = (uint64_t)c->first + (uint64_t)pos + (is_sym ? c->nd : 0);
  if (pos < 0 || i >= c->op->n_operands) {
    air_pr_put(c->pr, "<<null>>");
    return;
  }
  if (is_sym) air_pr_put(c->pr, "symbol(");
  air_pr_put_val(c->pr, air_pr_opnd(c->op, (uint32_t)i));
  if (is_sym) air_sb_putc(c->pr->out, ')');
}

/* affine.load/store subscripts: the map's results with the operands written in
 * place of its dimensions and symbols, as MLIR prints them. */
static void put_subscripts(air_printer_t* pr, const air_op_t* op, uint32_t first) {
  const air_attr_t* m = air_ir_attr_resolve(pr->p, &op->value);
  if (!m || m->kind != AIR_ATTR_MAP || !m->map) {
    air_pr_put(pr, "<<null>>");
    return;
  }
  subscript_ctx_t c = {pr, op, first, op->iaux[0]};
  for (uint32_t i = 0; i < m->map->n_results && m->map->results; ++i) {
    if (i) air_pr_put(pr, ", ");
    if (m->map->results[i])
      air_print_aff(pr->out, m->map->results[i], put_subscript_leaf, &c);
    else
      air_pr_put(pr, "<<null>>");
  }
}

static void put_bound(air_printer_t* pr, const air_ixlist_t* l, uint32_t i) {
  if (i >= l->n || !l->items)
    air_pr_put(pr, "<<null>>");
  else if (l->items[i].value)
    air_pr_put_val(pr, l->items[i].value);
  else
    air_print_i64(pr->out, l->items[i].cst);
}

/* collapse_shape / expand_shape / cast; see the RESHAPE layout in ir.h. */
static void print_reshape(air_printer_t* pr, const air_op_t* op) {
  air_pr_put(pr, air_opkind_name(op->kind));
  air_sb_putc(pr->out, ' ');
  air_pr_put_val(pr, air_pr_opnd(op, 0));
  if (op->kind != AIR_OP_MEMREF_CAST) {
    const air_ixlist_t* idx = air_pr_list(op, 0);
    const air_ixlist_t* groups = air_pr_list(op, 1);
    uint32_t k = 0;
    air_pr_put(pr, " [");
    for (uint32_t g = 0; g < groups->n && groups->items; ++g) {
      if (g) air_pr_put(pr, ", ");
      air_sb_putc(pr->out, '[');
      /* bounded by the index list: broken sizes must not print forever */
      for (int64_t j = 0; j < groups->items[g].cst && k < idx->n && idx->items; ++j, ++k) {
        if (j) air_pr_put(pr, ", ");
        air_print_i64(pr->out, idx->items[k].cst);
      }
      air_sb_putc(pr->out, ']');
    }
    air_sb_putc(pr->out, ']');
    if (op->kind == AIR_OP_EXPAND_SHAPE && op->n_lists > 2) {
      air_pr_put(pr, " output_shape ");
      air_pr_put_ixlist(pr, air_pr_list(op, 2));
    }
  }
  air_pr_put_attrs(pr, op);
  air_pr_put(pr, " : ");
  air_pr_put_vtype(pr, air_pr_opnd(op, 0));
  air_pr_put(pr, op->kind == AIR_OP_MEMREF_CAST ? " to " : " into ");
  air_pr_put_vtype(pr, air_pr_res(op, 0));
}

static void print_affine_for(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = air_pr_region(op, 0);
  air_pr_put(pr, "affine.for ");
  air_pr_put_val(pr, air_pr_barg(b, 0));
  air_pr_put(pr, " = ");
  put_bound(pr, air_pr_list(op, 0), 0);
  air_pr_put(pr, " to ");
  put_bound(pr, air_pr_list(op, 0), 1);
  if (op->iaux[1] != 1) {
    air_pr_put(pr, " step ");
    air_pr_put_u32(pr, op->iaux[1]);
  }
  if (op->n_operands) {
    air_pr_put(pr, " iter_args(");
    for (uint32_t i = 0; i < op->n_operands; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, i + 1));
      air_pr_put(pr, " = ");
      air_pr_put_val(pr, op->operands[i]);
    }
    air_pr_put(pr, ") -> (");
    if (op->n_results)
      air_pr_put_vtypes(pr, op->results, op->n_results);
    else
      air_pr_put_vtypes(pr, op->operands, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  air_pr_put_attrs(pr, op);
}

static void print_linalg(air_printer_t* pr, const air_op_t* op, int level) {
  uint32_t n_in = min_u32(op->iaux[0], op->n_operands);
  bool generic = op->kind == AIR_OP_GENERIC;
  air_pr_put(pr, air_opkind_name(op->kind));
  if (generic) {
    air_sb_putc(pr->out, ' ');
    air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
  } else {
    air_pr_put_attrs(pr, op);
  }
  if (n_in) {
    air_pr_put(pr, " ins(");
    air_pr_put_opnds(pr, op, 0, n_in);
    air_pr_put(pr, " : ");
    air_pr_put_opnd_types(pr, op, 0, n_in);
    air_sb_putc(pr->out, ')');
  }
  if (op->n_operands > n_in) {
    air_pr_put(pr, " outs(");
    air_pr_put_opnds(pr, op, n_in, op->n_operands);
    air_pr_put(pr, " : ");
    air_pr_put_opnd_types(pr, op, n_in, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  if (generic && air_pr_region(op, 0)) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, air_pr_region(op, 0), level, true);
  }
  air_pr_put_arrow_results(pr, op);
}

static void print_op(air_printer_t* pr, const air_op_t* op, int level) {
  const char* name = air_opkind_name(op->kind);
  air_pr_put_indent(pr, level);
  air_pr_put_results(pr, op);
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_MODULE: print_module(pr, op, level); break;
    case AIR_OPC_OPAQUE: air_pr_put(pr, op->text ? op->text : "<<null>>"); break;
    case AIR_OPC_FUNC: print_func(pr, op, level); break;
    case AIR_OPC_CALL:
      air_pr_put(pr, "func.call ");
      air_print_symbol(pr->out, op->sym);
      air_sb_putc(pr->out, '(');
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : (");
      air_pr_put_vtypes(pr, op->operands, op->n_operands);
      air_pr_put(pr, op->n_results == 1 ? ") -> " : ") -> (");
      air_pr_put_vtypes(pr, op->results, op->n_results);
      if (op->n_results != 1) air_sb_putc(pr->out, ')');
      break;
    case AIR_OPC_TERMINATOR: print_terminator(pr, op); break;
    case AIR_OPC_CHANNEL:
      air_pr_put(pr, "air.channel ");
      air_print_symbol(pr->out, op->sym);
      air_sb_putc(pr->out, ' ');
      air_pr_put_ixlist(pr, air_pr_list(op, 0));
      air_pr_put_attrs(pr, op);
      break;
    case AIR_OPC_HIER: print_hier(pr, op, level); break;
    case AIR_OPC_CHANNEL_IO: print_channel_io(pr, op); break;
    case AIR_OPC_DMA: print_dma(pr, op); break;
    case AIR_OPC_WAIT_ALL:
      air_pr_put(pr, name);
      air_pr_put_async(pr, op);
      air_pr_put_aff_conc(pr, op);
      air_pr_put_attrs(pr, op);
      break;
    case AIR_OPC_EXECUTE: print_execute(pr, op, level); break;
    case AIR_OPC_UNIVERSE:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, '(');
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_TOKEN_ALLOC:
      air_pr_put(pr, name);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_CONSTANT:
      air_pr_put(pr, name);
      air_pr_put_attrs(pr, op);
      air_sb_putc(pr->out, ' ');
      air_print_attr_typed(pr->out, pr->p, &op->value, air_ir_value_type(pr->p, air_pr_res(op, 0)));
      break;
    case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_SELECT:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_CMP:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put(pr, op->kind == AIR_OP_CMPF ? air_cmpf_pred_name(op->iaux[0])
                                      : air_cmpi_pred_name(op->iaux[0]));
      air_pr_put(pr, ", ");
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 0));
      break;
    case AIR_OPC_CAST:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 0));
      air_pr_put(pr, " to ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_ALLOC:
      air_pr_put(pr, "memref.alloc(");
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_DEALLOC:
      air_pr_put(pr, "memref.dealloc ");
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 0));
      break;
    case AIR_OPC_LOAD: case AIR_OPC_STORE: {
      uint32_t m = air_opkind_class(op->kind) == AIR_OPC_STORE;
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      if (m) {
        air_pr_put_val(pr, air_pr_opnd(op, 0));
        air_pr_put(pr, ", ");
      }
      air_pr_put_val(pr, air_pr_opnd(op, m));
      air_sb_putc(pr->out, '[');
      if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE)
        put_subscripts(pr, op, m + 1);
      else
        air_pr_put_opnds(pr, op, m + 1, op->n_operands);
      air_sb_putc(pr->out, ']');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, m));
      break;
    }
    case AIR_OPC_COPY:
      air_pr_put(pr, "memref.copy ");
      air_pr_put_opnds(pr, op, 0, 2);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 0));
      air_pr_put(pr, " to ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 1));
      break;
    case AIR_OPC_SUBVIEW:
      air_pr_put(pr, "memref.subview ");
      air_pr_put_memref_slice(pr, air_pr_opnd(op, 0), op, 0);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_vtype(pr, air_pr_opnd(op, 0));
      air_pr_put(pr, " to ");
      air_pr_put_vtype(pr, air_pr_res(op, 0));
      break;
    case AIR_OPC_RESHAPE: print_reshape(pr, op); break;
    case AIR_OPC_FOR: print_for(pr, op, level); break;
    case AIR_OPC_PARALLEL: print_parallel(pr, op, level); break;
    case AIR_OPC_REDUCE: print_reduce(pr, op, level); break;
    case AIR_OPC_IF:
      air_pr_put(pr, "scf.if ");
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      if (op->n_results) {
        air_pr_put(pr, " -> (");
        air_pr_put_vtypes(pr, op->results, op->n_results);
        air_sb_putc(pr->out, ')');
      }
      print_branches(pr, op, level);
      break;
    case AIR_OPC_AFFINE_APPLY:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      air_pr_put_attrs(pr, op);
      break;
    case AIR_OPC_AFFINE_IF:
      air_pr_put(pr, "affine.if ");
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      air_pr_put_arrow_results(pr, op);
      print_branches(pr, op, level);
      break;
    case AIR_OPC_AFFINE_FOR: print_affine_for(pr, op, level); break;
    case AIR_OPC_LINALG: print_linalg(pr, op, level); break;
    default: air_pr_put(pr, "<<unknown op>>"); break;
  }
  air_sb_putc(pr->out, '\n');
}

/*---------------------------------------------------------------------------*/
/* Entry point                                                               */
/*---------------------------------------------------------------------------*/

static void print_program(air_printer_t* pr) {
  const air_program_t* p = pr->p;
  for (uint32_t i = 0; i < p->n_aliases; ++i) {
    air_sb_putc(pr->out, '#');
    air_pr_put(pr, p->aliases[i].name ? p->aliases[i].name : "<<null>>");
    air_pr_put(pr, " = ");
    air_print_attr(pr->out, p, &p->aliases[i].value);
    air_sb_putc(pr->out, '\n');
  }
  const air_op_t* m = p->module;
  if (!m) return;
  /* A name or attributes need the explicit form, or they would be lost. */
  if ((m->flags & AIR_OPF_EXPLICIT_MODULE) || m->sym || m->n_attrs) {
    print_op(pr, m, 0);
    return;
  }
  const air_block_t* body = air_pr_region(m, 0);
  for (const air_op_t* op = body ? body->first : NULL; op && !pr->out->oom; op = op->next)
    print_op(pr, op, 0);
}

air_status_t air_print(const air_program_t* p, uint32_t flags, air_sb_t* out) {
  (void)flags; /* none defined yet */
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_print: NULL argument");
  air_printer_t pr;
  bool ok = air_pr_begin(&pr, p, out);
  if (ok) print_program(&pr);
  air_pr_end(&pr);
  if (!ok || out->oom) return AIR_STATUS_OOM(&p->allocator, "printing a program");
  return NULL;
}

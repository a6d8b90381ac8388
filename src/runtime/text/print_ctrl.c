/* print_ctrl.c - control flow and structured compute as MLIR prints them: scf
 * (for, parallel, reduce, if, index_switch, forall), affine (apply, if, for) and
 * linalg (named ops, generic, linalg.index). */
#include "runtime/text/print_ctrl.h"

#include "runtime/text/print_attr.h"

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

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
  air_pr_put_region(pr, op, b, level, false);
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
  air_pr_put_region(pr, op, b, level, false);
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
    air_pr_put_region(pr, op, air_pr_region(op, r), level, true);
  }
  air_pr_put_attrs(pr, op);
}

/* scf.if and affine.if: then/else regions after the header. */
static void print_branches(air_printer_t* pr, const air_op_t* op, int level) {
  air_sb_putc(pr->out, ' ');
  air_pr_put_region(pr, op, air_pr_region(op, 0), level, false);
  if (air_pr_region(op, 1)) {
    air_pr_put(pr, " else ");
    air_pr_put_region(pr, op, air_pr_region(op, 1), level, false);
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

static void put_bound(air_printer_t* pr, const air_ixlist_t* l, uint32_t i) {
  if (i >= l->n || !l->items)
    air_pr_put(pr, "<<null>>");
  else if (l->items[i].value)
    air_pr_put_val(pr, l->items[i].value);
  else
    air_print_i64(pr->out, l->items[i].cst);
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
  air_pr_put_region(pr, op, b, level, false);
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
    air_pr_put_region(pr, op, air_pr_region(op, 0), level, true);
  }
  air_pr_put_arrow_results(pr, op);
}


/* scf.index_switch: cases and the default region at the op's own indentation. */
static void print_switch(air_printer_t* pr, const air_op_t* op, int level) {
  air_pr_put(pr, "scf.index_switch ");
  air_pr_put_val(pr, air_pr_opnd(op, 0));
  air_pr_put_attrs(pr, op);
  if (op->n_results) {
    air_pr_put(pr, " -> ");
    air_pr_put_vtypes(pr, op->results, op->n_results);
  }
  uint32_t ncase = op->n_regions ? op->n_regions - 1 : 0;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_sb_putc(pr->out, '\n');
    air_pr_put_indent(pr, level);
    if (r < ncase) {
      air_pr_put(pr, "case ");
      if (op->value.ints && r < op->value.n)
        air_print_i64(pr->out, op->value.ints[r]);
      else
        air_pr_put(pr, "<<null>>");
      air_sb_putc(pr->out, ' ');
    } else {
      air_pr_put(pr, "default ");
    }
    air_pr_put_region(pr, op, air_pr_region(op, r), level, false);
  }
}

/* `(a, %b)` of a mixed static/dynamic list. */
static void put_mixed_paren(air_printer_t* pr, const air_ixlist_t* l) {
  air_sb_putc(pr->out, '(');
  for (uint32_t i = 0; i < l->n && l->items; ++i) {
    if (i) air_pr_put(pr, ", ");
    put_bound(pr, l, i);
  }
  air_sb_putc(pr->out, ')');
}

static void print_forall(air_printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = air_pr_region(op, 0);
  uint32_t n = op->iaux[0];
  air_pr_put(pr, "scf.forall (");
  for (uint32_t i = 0; i < n; ++i) {
    if (i) air_pr_put(pr, ", ");
    air_pr_put_val(pr, air_pr_barg(b, i));
  }
  air_sb_putc(pr->out, ')');
  if (op->iaux[1]) {
    air_pr_put(pr, " in ");
    put_mixed_paren(pr, air_pr_list(op, 1));
  } else {
    air_pr_put(pr, " = ");
    put_mixed_paren(pr, air_pr_list(op, 0));
    air_pr_put(pr, " to ");
    put_mixed_paren(pr, air_pr_list(op, 1));
    air_pr_put(pr, " step ");
    put_mixed_paren(pr, air_pr_list(op, 2));
  }
  if (op->n_operands) {
    air_pr_put(pr, " shared_outs(");
    for (uint32_t i = 0; i < op->n_operands; ++i) {
      if (i) air_pr_put(pr, ", ");
      air_pr_put_val(pr, air_pr_barg(b, n + i));
      air_pr_put(pr, " = ");
      air_pr_put_val(pr, op->operands[i]);
    }
    air_pr_put(pr, ") -> (");
    air_pr_put_opnd_types(pr, op, 0, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_sb_putc(pr->out, ' ');
  air_pr_put_region(pr, op, b, level, false);
  air_pr_put_attrs(pr, op);
}

bool air_print_ctrl_op(air_printer_t* pr, const air_op_t* op, int level) {
  const char* name = air_opkind_name(op->kind);
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_FOR: print_for(pr, op, level); return true;
    case AIR_OPC_PARALLEL: print_parallel(pr, op, level); return true;
    case AIR_OPC_REDUCE: print_reduce(pr, op, level); return true;
    case AIR_OPC_IF:
      air_pr_put(pr, "scf.if ");
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      if (op->n_results) {
        air_pr_put(pr, " -> (");
        air_pr_put_vtypes(pr, op->results, op->n_results);
        air_sb_putc(pr->out, ')');
      }
      print_branches(pr, op, level);
      return true;
    case AIR_OPC_SWITCH: print_switch(pr, op, level); return true;
    case AIR_OPC_FORALL: print_forall(pr, op, level); return true;
    case AIR_OPC_IN_PARALLEL:
      air_pr_put(pr, "scf.forall.in_parallel ");
      air_pr_put_region(pr, op, air_pr_region(op, 0), level, false);
      air_pr_put_attrs(pr, op);
      return true;
    case AIR_OPC_AFFINE_APPLY:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      air_pr_put_attrs(pr, op);
      return true;
    case AIR_OPC_AFFINE_IF:
      air_pr_put(pr, "affine.if ");
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      air_pr_put_arrow_results(pr, op);
      print_branches(pr, op, level);
      return true;
    case AIR_OPC_AFFINE_FOR: print_affine_for(pr, op, level); return true;
    case AIR_OPC_LINALG: print_linalg(pr, op, level); return true;
    case AIR_OPC_LINALG_INDEX:
      air_pr_put(pr, "linalg.index ");
      air_pr_put_u32(pr, op->iaux[0]);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : index");
      return true;
    default: return false;
  }
}

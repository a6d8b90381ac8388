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
#include "runtime/text/print_ctrl.h"
#include "runtime/text/print_mem.h"

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/*---------------------------------------------------------------------------*/
/* Ops and regions                                                           */
/*---------------------------------------------------------------------------*/

static void print_op(air_printer_t* pr, const air_op_t* op, int level);

static void print_module(air_printer_t* pr, const air_op_t* op, int level) {
  air_pr_put(pr, "module");
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  air_pr_put_attrs_kw(pr, op);
  air_sb_putc(pr->out, ' ');
  air_pr_put_region(pr, op, air_pr_region(op, 0), level, false);
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
    air_pr_put_region(pr, op, body, level, false);
  }
}

/* Block argument `i` of a hierarchy op's body (ids, sizes, then args); a
 * bodiless op prints the names it was written with (ir.h), or `%argN`. */
static void put_hier_arg(air_printer_t* pr, const air_op_t* op, const air_block_t* b,
                         uint32_t i) {
  if (b) {
    air_pr_put_val(pr, air_pr_barg(b, i));
    return;
  }
  const char* t = op->text;
  for (uint32_t k = 0; t && *t && k < i; ++k) {
    while (*t && *t != ' ') ++t;
    if (*t) ++t;
  }
  air_sb_putc(pr->out, '%');
  if (t && *t) {
    const char* e = t;
    while (*e && *e != ' ') ++e;
    air_sb_append(pr->out, t, (size_t)(e - t));
  } else {
    air_pr_put(pr, "arg");
    air_pr_put_u32(pr, i);
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
      put_hier_arg(pr, op, b, i);
    }
    air_pr_put(pr, ") in (");
    for (uint32_t i = 0; i < n; ++i) {
      if (i) air_pr_put(pr, ", ");
      put_hier_arg(pr, op, b, n + i);
      air_sb_putc(pr->out, '=');
      air_pr_put_val(pr, air_pr_opnd(op, i));
    }
    air_sb_putc(pr->out, ')');
  }
  if (end > n) {
    air_pr_put(pr, " args(");
    for (uint32_t i = n; i < end; ++i) {
      if (i > n) air_pr_put(pr, ", ");
      put_hier_arg(pr, op, b, n + i);
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
    air_pr_put_region(pr, op, b, level, false);
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

static void print_custom(air_printer_t* pr, const air_op_t* op) {
  air_pr_put(pr, "air.custom");
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  air_pr_put_async(pr, op);
  air_pr_put_aff_conc(pr, op);
  if (op->n_operands) {
    air_pr_put(pr, " operands (");
    air_pr_put_vals(pr, op->operands, op->n_operands);
    air_pr_put(pr, ") : ");
    air_pr_put_opnd_types(pr, op, 0, op->n_operands);
  }
  air_pr_put_attrs(pr, op);
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
  air_pr_put_region(pr, op, air_pr_region(op, 0), level, false);
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

static void print_op(air_printer_t* pr, const air_op_t* op, int level) {
  const char* name = air_opkind_name(op->kind);
  air_pr_put_indent(pr, level);
  air_pr_put_results(pr, op);
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_MODULE: print_module(pr, op, level); break;
    case AIR_OPC_OPAQUE: air_pr_put(pr, op->text ? op->text : "<<null>>"); break;
    case AIR_OPC_FUNC: print_func(pr, op, level); break;
    case AIR_OPC_CALL:
      /* func.func makes `func` the default dialect of its body: MLIR drops the
       * prefix of ops directly in it (return, call). */
      air_pr_put(pr, air_ir_parent_op(op) && air_ir_parent_op(op)->kind == AIR_OP_FUNC
                         ? "call "
                         : "func.call ");
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
      air_pr_put_attrs_type(pr, op, air_pr_res(op, 0));
      break;
    case AIR_OPC_TOKEN_ALLOC:
      air_pr_put(pr, name);
      air_pr_put_attrs_type(pr, op, air_pr_res(op, 0));
      break;
    case AIR_OPC_CONSTANT:
      air_pr_put(pr, name);
      air_pr_put_attrs(pr, op);
      air_sb_putc(pr->out, ' ');
      air_print_attr_typed(pr->out, pr->p, &op->value, air_ir_value_type(pr->p, air_pr_res(op, 0)));
      break;
    case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_SELECT: case AIR_OPC_TERNARY:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_pr_put_attrs_type(pr, op, air_pr_res(op, 0));
      break;
    case AIR_OPC_CMP:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put(pr, op->kind == AIR_OP_CMPF ? air_cmpf_pred_name(op->iaux[0])
                                      : air_cmpi_pred_name(op->iaux[0]));
      air_pr_put(pr, ", ");
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_pr_put_attrs_type(pr, op, air_pr_opnd(op, 0));
      break;
    case AIR_OPC_CAST:
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      air_pr_put_attrs_cast(pr, op, air_pr_opnd(op, 0), air_pr_res(op, 0));
      break;
    case AIR_OPC_ALLOC:
      air_pr_put(pr, "memref.alloc(");
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs_type(pr, op, air_pr_res(op, 0));
      break;
    case AIR_OPC_DEALLOC:
      air_pr_put(pr, "memref.dealloc ");
      air_pr_put_val(pr, air_pr_opnd(op, 0));
      air_pr_put_attrs_type(pr, op, air_pr_opnd(op, 0));
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
      air_pr_put_attrs_type(pr, op, air_pr_opnd(op, m));
      break;
    }
    case AIR_OPC_COPY:
      air_pr_put(pr, "memref.copy ");
      air_pr_put_opnds(pr, op, 0, 2);
      air_pr_put_attrs_cast(pr, op, air_pr_opnd(op, 0), air_pr_opnd(op, 1));
      break;
    case AIR_OPC_SUBVIEW:
      air_pr_put(pr, "memref.subview ");
      air_pr_put_memref_slice(pr, air_pr_opnd(op, 0), op, 0);
      air_pr_put_attrs_cast(pr, op, air_pr_opnd(op, 0), air_pr_res(op, 0));
      break;
    case AIR_OPC_CUSTOM: print_custom(pr, op); break;
    default:
      if (!air_print_ctrl_op(pr, op, level) && !air_print_mem_op(pr, op, level))
        air_pr_put(pr, "<<unknown op>>");
      break;
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
  pr.print_op = print_op;
  if (ok) print_program(&pr);
  air_pr_end(&pr);
  if (!ok || out->oom) return AIR_STATUS_OOM(&p->allocator, "printing a program");
  return NULL;
}

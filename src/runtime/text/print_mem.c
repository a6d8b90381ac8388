/* print_mem.c - memref views and globals, tensors and the bufferization casts as
 * MLIR prints them: collapse_shape / expand_shape / cast, memref.global /
 * get_global, reshape, transpose, extract_strided_metadata, reinterpret_cast,
 * tensor.empty / extract_slice / insert_slice / parallel_insert_slice,
 * bufferization.to_tensor / to_memref. */
#include "runtime/text/print_mem.h"

#include "runtime/text/print_attr.h"

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
  air_pr_put_attrs_type(pr, op, air_pr_opnd(op, 0));
  air_pr_put(pr, op->kind == AIR_OP_MEMREF_CAST ? " to " : " into ");
  air_pr_put_vtype(pr, air_pr_res(op, 0));
}


static void print_global(air_printer_t* pr, const air_op_t* op) {
  air_pr_put(pr, "memref.global ");
  if (op->iaux[0] == 1) air_pr_put(pr, "\"private\" ");
  if (op->iaux[0] == 2) air_pr_put(pr, "\"nested\" ");
  if (op->iaux[1] & AIR_GLOBAL_CONSTANT) air_pr_put(pr, "constant ");
  air_print_symbol(pr->out, op->sym);
  air_pr_put(pr, " : ");
  air_pr_put_type(pr, op->n_types && op->types ? op->types[0] : 0);
  if (op->iaux[1] & AIR_GLOBAL_UNINIT) air_pr_put(pr, " = uninitialized");
  if (op->iaux[1] & AIR_GLOBAL_INIT) {
    air_pr_put(pr, " = ");
    air_print_attr(pr->out, pr->p, &op->value);
  }
  air_pr_put_attrs(pr, op);
}

/* `name: [list]` of reinterpret_cast. */
static void put_labelled(air_printer_t* pr, const char* name, const air_ixlist_t* l) {
  air_pr_put(pr, name);
  air_pr_put(pr, ": ");
  air_pr_put_ixlist(pr, l);
}

/* `%a : T to U` / `%a : T into U` after the op's own syntax. */
static void put_from_to(air_printer_t* pr, const air_op_t* op, air_vid_t from, const char* kw,
                        air_tid_t to) {
  air_pr_put_attrs_type(pr, op, from);
  air_pr_put(pr, kw);
  air_pr_put_type(pr, to);
}

bool air_print_mem_op(air_printer_t* pr, const air_op_t* op, int level) {
  (void)level;
  const char* name = air_opkind_name(op->kind);
  air_vid_t src = air_pr_opnd(op, 0);
  air_tid_t rt = air_ir_value_type(pr->p, air_pr_res(op, 0));
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_RESHAPE: print_reshape(pr, op); return true;
    case AIR_OPC_GLOBAL: print_global(pr, op); return true;
    case AIR_OPC_GET_GLOBAL:
      air_pr_put(pr, "memref.get_global ");
      air_print_symbol(pr->out, op->sym);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_type(pr, rt);
      return true;
    case AIR_OPC_MEMREF_RESHAPE:
      air_pr_put(pr, "memref.reshape ");
      air_pr_put_val(pr, src);
      air_sb_putc(pr->out, '(');
      air_pr_put_val(pr, air_pr_opnd(op, 1));
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : (");
      air_pr_put_opnd_types(pr, op, 0, 2);
      air_pr_put(pr, ") -> ");
      air_pr_put_type(pr, rt);
      return true;
    case AIR_OPC_TRANSPOSE: {
      air_pr_put(pr, "memref.transpose ");
      air_pr_put_val(pr, src);
      air_sb_putc(pr->out, ' ');
      const air_attr_t* m = air_ir_attr_resolve(pr->p, &op->value);
      if (op->value.kind == AIR_ATTR_ALIAS || !m || m->kind != AIR_ATTR_MAP)
        air_print_attr(pr->out, pr->p, &op->value);
      else
        air_print_map_bare(pr->out, m->map);
      put_from_to(pr, op, src, " to ", rt);
      return true;
    }
    case AIR_OPC_EXTRACT_META:
      air_pr_put(pr, "memref.extract_strided_metadata ");
      air_pr_put_val(pr, src);
      air_pr_put_attrs_type(pr, op, src);
      air_pr_put(pr, " -> ");
      air_pr_put_vtypes(pr, op->results, op->n_results);
      return true;
    case AIR_OPC_REINTERPRET:
      air_pr_put(pr, "memref.reinterpret_cast ");
      air_pr_put_val(pr, src);
      air_pr_put(pr, " to ");
      put_labelled(pr, "offset", air_pr_list(op, 0));
      air_pr_put(pr, ", ");
      put_labelled(pr, "sizes", air_pr_list(op, 1));
      air_pr_put(pr, ", ");
      put_labelled(pr, "strides", air_pr_list(op, 2));
      put_from_to(pr, op, src, " to ", rt);
      return true;
    case AIR_OPC_TENSOR_EMPTY:
      air_pr_put(pr, "tensor.empty(");
      air_pr_put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      air_pr_put_type(pr, rt);
      return true;
    case AIR_OPC_SLICE:
      air_pr_put(pr, "tensor.extract_slice ");
      air_pr_put_memref_slice(pr, src, op, 0);
      put_from_to(pr, op, src, " to ", rt);
      return true;
    case AIR_OPC_INSERT_SLICE: {
      air_vid_t dst = air_pr_opnd(op, 1);
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_val(pr, src);
      air_pr_put(pr, " into ");
      air_pr_put_memref_slice(pr, dst, op, 0);
      put_from_to(pr, op, src, " into ", air_ir_value_type(pr->p, dst));
      return true;
    }
    case AIR_OPC_BUFFERIZE: {
      static const char* const k_units[3] = {" restrict", " writable", " read_only"};
      air_pr_put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_pr_put_val(pr, src);
      for (int k = 0; k < 3; ++k)
        if (op->iaux[1] & (1u << k)) air_pr_put(pr, k_units[k]);
      air_pr_put_attrs(pr, op);
      air_pr_put(pr, " : ");
      if (op->iaux[0]) {
        air_pr_put_vtype(pr, src);
        air_pr_put(pr, " to ");
        air_pr_put_type(pr, rt);
      } else {
        air_pr_put_type(pr, op->kind == AIR_OP_TO_TENSOR ? air_ir_value_type(pr->p, src) : rt);
      }
      return true;
    }
    default: return false;
  }
}

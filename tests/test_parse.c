/* test_parse.c - the AIR text parser on its program corpus: every program of
 * tests/data/programs parses and builds the IR ir.h describes, checked op by op
 * on several of them. Inline cases of the spec's forms are test_parse_forms.c,
 * bad input test_parse_errors.c; the helpers they share are parse_test.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "parse_test.h"

/*---------------------------------------------------------------------------*/
/* The program corpus                                                        */
/*---------------------------------------------------------------------------*/

static bool no_terminator_gaps(air_op_t* op, void* user) {
  (void)user;
  /* Every region of every op but the module ends with a terminator (REDUCE ends
   * scf.parallel). */
  if (op->kind == AIR_OP_MODULE) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_op_t* t = op->regions[r]->last;
    assert_non_null(t);
    if (op->kind == AIR_OP_PARALLEL)
      assert_int_equal(t->kind, AIR_OP_REDUCE);
    else
      assert_int_equal(air_opkind_class(t->kind), AIR_OPC_TERMINATOR);
    assert_ptr_equal(op->regions[r]->parent, op);
  }
  return true;
}

static void test_programs_parse(void** state) {
  names_t files;
  list_dir(PROGRAMS, &files);
  assert_true(files.n >= 12);
  for (int i = 0; i < files.n; ++i) {
    air_program_t* p = parse_file_ok(*state, files.name[i]);
    assert_int_equal(p->n_warnings, 0);
    assert_true(air_ir_walk(p->module, no_terminator_gaps, NULL));
    air_ir_program_free(p);
  }
}

static void test_matmul_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "matmul_4x4_channels.mlir");
  assert_true(p->module->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_int_equal(p->n_aliases, 1);
  assert_string_equal(p->aliases[0].name, "map");
  assert_int_equal(count_ops(p, AIR_OP_CHANNEL), 6);
  air_op_t* ch = nth_op(p, AIR_OP_CHANNEL, 3);
  assert_string_equal(ch->sym, "channel_3");
  check_ix(p, &ch->lists[0], 0, NULL, 4);
  check_ix(p, &ch->lists[0], 1, NULL, 4);
  assert_int_equal(attr(ch, "depth")->i, 2);
  assert_int_equal(air_ir_type(p, attr(ch, "depth")->type)->elem, AIR_ELEM_I64);

  /* launch: 2 dims, 3 args, async, attributes {id = 1 : i32}, implicit terminator */
  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_int_equal(launch->iaux[0], 2);
  assert_int_equal(launch->n_operands, 5);
  assert_true(launch->flags & AIR_OPF_ASYNC);
  assert_int_equal(launch->n_results, 1);
  assert_string_equal(vname(p, launch->results[0]), "0");
  assert_true(air_ir_type_is_token(p, air_ir_value_type(p, launch->results[0])));
  air_block_t* lb = launch->regions[0];
  assert_int_equal(lb->n_args, 7);
  assert_string_equal(vname(p, lb->args[0]), "arg3");
  assert_string_equal(vname(p, lb->args[2]), "arg5");
  assert_string_equal(vname(p, lb->args[6]), "arg9");
  assert_int_equal(vtype(p, lb->args[6])->kind, AIR_TYPE_MEMREF);
  assert_int_equal(lb->last->kind, AIR_OP_LAUNCH_TERM);
  assert_int_equal(launch->n_attrs, 1);
  assert_string_equal(launch->attrs[0].name, "id");

  /* segment without an iteration space; herd 4x4 with its terminator created */
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(seg->sym, "segment_0");
  assert_int_equal(seg->iaux[0], 0);
  assert_int_equal(seg->n_operands, 0);
  assert_int_equal(seg->regions[0]->last->kind, AIR_OP_SEGMENT_TERM);
  air_op_t* herd = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(herd->iaux[0], 2);
  assert_string_equal(vname(p, herd->operands[0]), "c4");
  assert_int_equal(herd->toks[AIR_TOK_DEP].n, 1);
  assert_string_equal(vname(p, herd->toks[AIR_TOK_DEP].items[0]), "async_token_3");
  assert_int_equal(herd->regions[0]->n_args, 4);
  assert_int_equal(herd->regions[0]->last->kind, AIR_OP_HERD_TERM);

  /* put with a mixed offset list [%15, %arg10] and its channel indices */
  air_op_t* put = nth_op(p, AIR_OP_PUT, 2);
  assert_string_equal(put->sym, "channel_3");
  assert_int_equal(put->iaux[0], 2);
  assert_int_equal(put->n_operands, 3);
  assert_string_equal(vname(p, put->operands[0]), "arg12");
  assert_string_equal(vname(p, put->operands[2]), "results");
  check_ix(p, &put->lists[0], 0, "15", 0);
  check_ix(p, &put->lists[0], 1, "arg10", 0);
  check_ix(p, &put->lists[1], 1, "c32", 0);
  check_ix(p, &put->lists[2], 0, "c128", 0);
  assert_string_equal(vname(p, put->toks[AIR_TOK_DEP].items[0]), "arg11");
  assert_int_equal(attr(put, "id")->i, 6);

  /* herd's k loop: %17:2 with two iter_args; %17#1 feeds the output put */
  air_op_t* loop = nth_op(p, AIR_OP_FOR, 1);
  assert_int_equal(loop->n_results, 2);
  assert_int_equal(loop->n_operands, 5);
  assert_string_equal(vname(p, loop->results[0]), "17");
  assert_string_equal(vname(p, loop->results[1]), "17");
  assert_int_equal(loop->regions[0]->n_args, 3);
  air_op_t* yield = loop->regions[0]->last;
  assert_int_equal(yield->kind, AIR_OP_YIELD);
  assert_int_equal(yield->n_operands, 2);
  air_op_t* out = nth_op(p, AIR_OP_PUT, 4);
  assert_string_equal(out->sym, "channel_5");
  assert_int_equal(out->toks[AIR_TOK_DEP].items[0], loop->results[1]);

  /* scf.parallel with init: the body ends with one scf.reduce(lhs, rhs) */
  air_op_t* par = nth_op(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 2);
  assert_int_equal(par->n_operands, 7);
  air_op_t* red = par->regions[0]->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_int_equal(red->n_regions, 1);
  assert_int_equal(red->regions[0]->n_args, 2);
  assert_int_equal(red->regions[0]->last->kind, AIR_OP_REDUCE_RETURN);
  assert_int_equal(count_ops(p, AIR_OP_YIELD), 2);

  /* execute with a result, explicit terminator; linalg.matmul ins/outs */
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(ex->n_results, 2);
  assert_string_equal(vname(p, ex->results[1]), "results");
  assert_int_equal(vtype(p, ex->results[1])->memspace, AIR_MEM_L2);
  assert_int_equal(ex->regions[0]->last->n_operands, 1);
  air_op_t* mm = nth_op(p, AIR_OP_MATMUL, 0);
  assert_int_equal(mm->iaux[0], 2);
  assert_int_equal(mm->n_operands, 3);
  air_op_t* wait = nth_op(p, AIR_OP_WAIT_ALL, count_ops(p, AIR_OP_WAIT_ALL) - 1);
  assert_false(wait->flags & AIR_OPF_ASYNC);
  assert_int_equal(wait->n_results, 0);
  assert_int_equal(wait->toks[AIR_TOK_DEP].items[0], launch->results[0]);
  air_ir_program_free(p);
}

static void test_old_token_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "old_async_token.mlir");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_null(seg->sym);
  const air_type_info_t* tt = vtype(p, seg->results[0]);
  assert_int_equal(tt->kind, AIR_TYPE_TOKEN);
  assert_true(tt->old_spelling);
  /* written terminators are kept, not doubled */
  assert_int_equal(count_ops(p, AIR_OP_HERD_TERM), 1);
  assert_int_equal(count_ops(p, AIR_OP_SEGMENT_TERM), 1);
  assert_int_equal(nth_op(p, AIR_OP_HERD, 0)->regions[0]->last->kind, AIR_OP_HERD_TERM);
  /* `1 : i32` memory space */
  air_op_t* dma = nth_op(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->n_lists, 6);
  assert_int_equal(vtype(p, dma->operands[0])->memspace, AIR_MEM_L2);
  assert_int_equal(vtype(p, dma->operands[1])->memspace, AIR_MEM_L3);
  /* old scf.reduce + scf.yield normalised: the body ends with the reduce */
  air_op_t* par = nth_op(p, AIR_OP_PARALLEL, 0);
  air_op_t* red = par->regions[0]->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_ptr_equal(red->regions[0]->parent, red);
  assert_true(vtype(p, red->regions[0]->args[0])->old_spelling);
  for (air_op_t* o = par->regions[0]->first; o; o = o->next)
    assert_int_not_equal(o->kind, AIR_OP_YIELD);
  /* execute_terminator with no operands stays explicit */
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(ex->n_results, 1);
  assert_int_equal(ex->regions[0]->last->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(count_ops(p, AIR_OP_EXECUTE_TERM), 5);
  air_ir_program_free(p);
}

static void test_spec_forms_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "spec_token_lists.mlir");
  air_op_t* alloc = nth_op(p, AIR_OP_TOKEN_ALLOC, 0);
  assert_int_equal(alloc->n_results, 1);
  assert_string_equal(vname(p, alloc->results[0]), "part");
  assert_false(vtype(p, alloc->results[0])->old_spelling);

  air_op_t* l0 = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_true(l0->flags & AIR_OPF_ASYNC); /* a bound result means async */
  assert_int_equal(l0->toks[AIR_TOK_AFF].n, 1);
  assert_int_equal(l0->toks[AIR_TOK_AFF].items[0], alloc->results[0]);
  assert_int_equal(l0->toks[AIR_TOK_DEP].n, 0);

  air_op_t* xcd = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(xcd->sym, "xcd");
  assert_int_equal(xcd->iaux[0], 1);
  assert_int_equal(xcd->n_operands, 2);
  assert_int_equal(xcd->toks[AIR_TOK_CONC].n, 1);
  assert_string_equal(vname(p, xcd->toks[AIR_TOK_CONC].items[0]), "co");
  assert_int_equal(xcd->n_attrs, 5);
  static const char* const names[] = {"x_loc", "y_loc", "x_size", "y_size",
                                      "backend-granularity"};
  for (int i = 0; i < 5; ++i) assert_string_equal(xcd->attrs[i].name, names[i]);
  assert_int_equal(xcd->attrs[0].value.kind, AIR_ATTR_INT);
  assert_int_equal(xcd->attrs[4].value.kind, AIR_ATTR_STRING);
  assert_string_equal(xcd->attrs[4].value.s, "XCD");
  /* the token arg of the segment is typed by `: !air.token` */
  assert_true(air_ir_type_is_token(p, air_ir_value_type(p, xcd->regions[0]->args[2])));

  air_op_t* warps = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(warps->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(warps->toks[AIR_TOK_AFF].n, 1);
  air_op_t* more = nth_op(p, AIR_OP_HERD, 1);
  assert_true(more->flags & AIR_OPF_SYNC);
  assert_int_equal(more->n_results, 0);
  assert_int_equal(more->toks[AIR_TOK_DEP].items[0], warps->results[0]);
  /* an empty body still gets its terminator */
  assert_ptr_equal(more->regions[0]->first, more->regions[0]->last);
  assert_int_equal(more->regions[0]->last->kind, AIR_OP_HERD_TERM);

  air_op_t* get = nth_op(p, AIR_OP_GET, 0);
  assert_true(get->flags & AIR_OPF_ASYNC);
  assert_int_equal(get->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(get->lists[0].n, 0);

  air_op_t* l1 = nth_op(p, AIR_OP_LAUNCH, 1);
  assert_true(l1->flags & AIR_OPF_SYNC);
  assert_int_equal(l1->iaux[0], 0);
  assert_int_equal(l1->n_operands, 1);
  assert_int_equal(l1->regions[0]->n_args, 1);
  air_op_t* one = nth_op(p, AIR_OP_HERD, 2);
  assert_int_equal(one->iaux[0], 1);
  assert_string_equal(attr(one, "link_with")->s, "kernel.o");
  air_op_t* decl = nth_op(p, AIR_OP_FUNC, 0);
  assert_true(decl->flags & AIR_OPF_PRIVATE);
  assert_int_equal(decl->n_regions, 0);
  assert_int_equal(decl->iaux[0], 1);
  assert_int_equal(decl->n_types, 1);
  air_ir_program_free(p);
}

static void test_attribute_kinds(void** state) {
  air_program_t* p = parse_file_ok(*state, "module_attrs_opaque.mlir");
  air_op_t* m = p->module;
  assert_true(m->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_string_equal(m->sym, "annotated");
  assert_int_equal(m->n_attrs, 3);
  assert_string_equal(m->attrs[2].name, "transform.with_named_sequence");
  assert_int_equal(m->attrs[2].value.kind, AIR_ATTR_UNIT);

  air_op_t* fn = nth_op(p, AIR_OP_FUNC, 0);
  const air_attr_t* note = attr(fn, "air.note");
  assert_int_equal(note->kind, AIR_ATTR_STRING);
  assert_int_equal(note->n, 18);
  assert_memory_equal(note->s, "line\nnext \"quoted\"", 18);

  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  const air_attr_t* tags = attr(launch, "tags");
  assert_int_equal(tags->kind, AIR_ATTR_ARRAY);
  assert_int_equal(tags->n, 2);
  assert_string_equal(tags->elems[1].s, "b");
  const air_attr_t* opts = attr(launch, "opts");
  assert_int_equal(opts->kind, AIR_ATTR_DICT);
  assert_int_equal(opts->n, 3);
  assert_int_equal(opts->dict[1].value.kind, AIR_ATTR_FLOAT);
  assert_true(opts->dict[1].value.f == 0.5);
  assert_int_equal(air_ir_type(p, opts->dict[1].value.type)->elem, AIR_ELEM_F32);
  assert_int_equal(opts->dict[2].value.kind, AIR_ATTR_DICT);
  assert_int_equal(opts->dict[2].value.dict[0].value.kind, AIR_ATTR_BOOL);
  assert_int_equal(opts->dict[2].value.dict[0].value.i, 1);

  air_op_t* put = nth_op(p, AIR_OP_PUT, 0);
  const air_attr_t* pad = attr(put, "pad_before");
  assert_int_equal(pad->kind, AIR_ATTR_DENSE);
  assert_int_equal(air_ir_type(p, pad->type)->elem, AIR_ELEM_I32);
  assert_int_equal(pad->n, 2); /* zeros: the CPU driver runs padding (dma_padding.mlir) */
  assert_int_equal(pad->ints[1], 0);
  assert_int_equal(attr(put, "pad_after")->kind, AIR_ATTR_DENSE);
  assert_int_equal(attr(put, "pad_after")->n, 0);
  assert_int_equal(attr(put, "meta")->kind, AIR_ATTR_OPAQUE);
  assert_string_equal(attr(put, "meta")->s, "dense<[1, 2]> : tensor<2xi32>");
  assert_string_equal(attr(put, "kind")->s, "#linalg.type_fn<cast_signed>");
  /* an index operand from the launch id on a 1-d channel */
  assert_int_equal(put->iaux[0], 1);

  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(attr(seg, "map")->kind, AIR_ATTR_ALIAS);
  const air_attr_t* set = air_ir_attr_resolve(p, attr(seg, "set"));
  assert_int_equal(set->kind, AIR_ATTR_SET);
  assert_int_equal(set->set->n_dims, 1);
  assert_int_equal(set->set->n_syms, 1);
  assert_int_equal(set->set->n_constraints, 2);
  assert_false(set->set->is_eq[0]);
  /* d0 - s0 >= 0 is ADD(d0, MUL(s0, -1)) */
  const air_aff_t* c0 = set->set->constraints[0];
  assert_int_equal(c0->kind, AIR_AFF_ADD);
  assert_int_equal(c0->lhs->kind, AIR_AFF_DIM);
  assert_int_equal(c0->rhs->kind, AIR_AFF_MUL);
  assert_int_equal(c0->rhs->lhs->kind, AIR_AFF_SYM);
  assert_int_equal(c0->rhs->rhs->value, -1);
  int64_t dims[1] = {9}, syms[1] = {4}, v;
  assert_true(air_aff_eval(set->set->constraints[1], dims, syms, &v));
  assert_int_equal(v, -2); /* -d0 + 7 */
  assert_int_equal(attr(seg, "ref")->kind, AIR_ATTR_SYMREF);
  assert_string_equal(attr(seg, "ref")->s, "annotated");
  assert_int_equal(attr(seg, "ty")->kind, AIR_ATTR_TYPE);
  assert_int_equal(air_ir_type(p, attr(seg, "ty")->type)->memspace, 1);
  assert_int_equal(air_ir_type(p, attr(seg, "elem")->type)->elem, AIR_ELEM_F32);
  assert_int_equal(attr(seg, "unit_flag")->kind, AIR_ATTR_UNIT);
  assert_int_equal(attr(seg, "neg")->i, -4);
  assert_int_equal(attr(seg, "big")->i, INT64_C(4294967296));
  assert_int_equal(attr(nth_op(p, AIR_OP_ALLOC, 0), "air.pinned")->kind, AIR_ATTR_UNIT);
  air_op_t* wait = nth_op(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(attr(wait, "id")->i, 5);
  air_ir_program_free(p);
}

static void test_scalar_ops(void** state) {
  air_program_t* p = parse_file_ok(*state, "scalar_control.mlir");
  air_op_t* clamp = nth_op(p, AIR_OP_FUNC, 1);
  assert_string_equal(clamp->sym, "clamp");
  assert_int_equal(clamp->iaux[0], 2);
  assert_int_equal(clamp->n_types, 4);
  assert_int_equal(air_ir_type(p, clamp->types[3])->elem, AIR_ELEM_F32);
  air_op_t* ret = clamp->regions[0]->last;
  assert_int_equal(ret->kind, AIR_OP_RETURN);
  assert_int_equal(ret->n_operands, 2);

  air_op_t* c;
  c = nth_op(p, AIR_OP_CONSTANT, 3); /* 1.000000e+00 : f32 */
  assert_int_equal(c->value.kind, AIR_ATTR_FLOAT);
  assert_true(c->value.f == 1.0);
  c = nth_op(p, AIR_OP_CONSTANT, 4); /* 0x7FC00000 : f32 */
  assert_int_equal(c->value.kind, AIR_ATTR_FLOAT);
  assert_true(isnan(c->value.f));
  c = nth_op(p, AIR_OP_CONSTANT, 5); /* -2.500000e-01 : f64 */
  assert_true(c->value.f == -0.25);
  assert_int_equal(air_ir_type(p, c->value.type)->elem, AIR_ELEM_F64);
  c = nth_op(p, AIR_OP_CONSTANT, 6); /* true */
  assert_int_equal(c->value.kind, AIR_ATTR_INT);
  assert_int_equal(c->value.i, 1);
  assert_int_equal(vtype(p, c->results[0])->elem, AIR_ELEM_I1);
  c = nth_op(p, AIR_OP_CONSTANT, 8); /* -1 : i32 */
  assert_int_equal(c->value.i, -1);
  assert_string_equal(vname(p, c->results[0]), "c-1_i32");

  air_op_t* cmp = nth_op(p, AIR_OP_CMPI, 0);
  assert_int_equal(cmp->iaux[0], AIR_CMPI_SLT);
  assert_int_equal(vtype(p, cmp->results[0])->elem, AIR_ELEM_I1);
  assert_int_equal(nth_op(p, AIR_OP_CMPF, 1)->iaux[0], AIR_CMPF_UNO);
  air_op_t* sel = nth_op(p, AIR_OP_SELECT, 0);
  assert_int_equal(sel->n_operands, 3);
  assert_int_equal(sel->operands[0], cmp->results[0]);
  air_op_t* cast = nth_op(p, AIR_OP_EXTUI, 0);
  assert_int_equal(vtype(p, cast->operands[0])->elem, AIR_ELEM_I8);
  assert_int_equal(vtype(p, cast->results[0])->elem, AIR_ELEM_I32);

  air_op_t* iff = nth_op(p, AIR_OP_IF, 0);
  assert_int_equal(iff->n_regions, 2);
  assert_int_equal(iff->n_results, 1);
  air_op_t* iff2 = nth_op(p, AIR_OP_IF, 1);
  assert_int_equal(iff2->n_regions, 1);
  assert_int_equal(iff2->regions[0]->last->kind, AIR_OP_YIELD); /* created */
  assert_int_equal(iff2->regions[0]->last->n_operands, 0);

  air_op_t* call = nth_op(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "clamp");
  assert_int_equal(call->n_results, 2);
  assert_string_equal(vname(p, call->results[1]), "0");

  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_int_equal(launch->iaux[0], 0); /* () in () */
  assert_int_equal(launch->n_operands, 1);

  air_op_t* ap = nth_op(p, AIR_OP_AFFINE_APPLY, 1);
  assert_int_equal(ap->value.kind, AIR_ATTR_MAP);
  assert_int_equal(ap->iaux[0], 1);
  assert_int_equal(ap->n_operands, 2);
  int64_t d[1] = {3}, s[1] = {5}, v;
  assert_true(air_aff_eval(ap->value.map->results[0], d, s, &v));
  assert_int_equal(v, 3 * 16 + 5);

  air_op_t* sv = nth_op(p, AIR_OP_SUBVIEW, 0);
  const air_type_info_t* st = vtype(p, sv->results[0]);
  assert_string_equal(st->layout, "strided<[32, 1], offset: ?>");
  assert_int_equal(st->memspace, AIR_MEM_L1);
  check_ix(p, &sv->lists[0], 0, "4", 0);
  check_ix(p, &sv->lists[1], 1, NULL, 16);
  check_ix(p, &sv->lists[2], 0, NULL, 1);

  air_op_t* af = nth_op(p, AIR_OP_AFFINE_FOR, 0);
  check_ix(p, &af->lists[0], 0, NULL, 0);
  check_ix(p, &af->lists[0], 1, NULL, 16);
  assert_int_equal(af->iaux[1], 4);
  assert_int_equal(af->n_results, 1);
  assert_int_equal(af->regions[0]->n_args, 2);
  air_op_t* af2 = nth_op(p, AIR_OP_AFFINE_FOR, 1);
  check_ix(p, &af2->lists[0], 1, "c0_0", 0);
  assert_int_equal(af2->iaux[1], 1);
  assert_int_equal(af2->regions[0]->last->kind, AIR_OP_AFFINE_YIELD);
  air_op_t* cp = nth_op(p, AIR_OP_COPY, 0);
  assert_int_equal(cp->n_operands, 2);
  air_ir_program_free(p);
}

static void test_linalg_and_bf16(void** state) {
  air_program_t* p = parse_file_ok(*state, "linalg_generic_bf16.mlir");
  assert_int_equal(p->n_aliases, 5);
  air_op_t* g = nth_op(p, AIR_OP_GENERIC, 0);
  assert_int_equal(g->iaux[0], 2);
  assert_int_equal(g->n_operands, 3);
  const air_attr_t* maps = attr(g, "indexing_maps");
  assert_int_equal(maps->kind, AIR_ATTR_ARRAY);
  assert_int_equal(maps->n, 3);
  assert_int_equal(maps->elems[1].kind, AIR_ATTR_ALIAS);
  assert_int_equal(air_ir_attr_resolve(p, &maps->elems[1])->map->n_dims, 3);
  assert_string_equal(attr(g, "iterator_types")->elems[2].s, "reduction");
  air_block_t* body = g->regions[0];
  assert_int_equal(body->n_args, 3);
  assert_int_equal(vtype(p, body->args[0])->elem, AIR_ELEM_BF16);
  assert_int_equal(vtype(p, body->args[2])->elem, AIR_ELEM_F32);
  assert_int_equal(body->last->kind, AIR_OP_LINALG_YIELD);
  assert_int_equal(vtype(p, g->operands[0])->elem, AIR_ELEM_BF16);
  air_op_t* fill = nth_op(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->iaux[0], 1);
  assert_int_equal(nth_op(p, AIR_OP_LINALG_COPY, 0)->iaux[0], 1);
  air_op_t* mm = nth_op(p, AIR_OP_MATMUL, 0);
  assert_int_equal(attr(mm, "cast")->kind, AIR_ATTR_OPAQUE);
  air_op_t* bc = nth_op(p, AIR_OP_CONSTANT, 7); /* 1.000000e+00 : bf16 */
  assert_int_equal(air_ir_type(p, bc->value.type)->elem, AIR_ELEM_BF16);
  air_ir_program_free(p);
}

static void test_execute_results(void** state) {
  air_program_t* p = parse_file_ok(*state, "execute_results.mlir");
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 1);
  assert_int_equal(ex->n_results, 3);
  for (int i = 0; i < 3; ++i) assert_string_equal(vname(p, ex->results[i]), "r");
  assert_int_equal(air_ir_value(p, ex->results[2])->index, 2);
  assert_ptr_equal(air_ir_value(p, ex->results[2])->def, ex);
  assert_int_equal(vtype(p, ex->results[2])->elem, AIR_ELEM_I32);
  assert_int_equal(ex->regions[0]->last->n_operands, 2);
  assert_int_equal(attr(nth_op(p, AIR_OP_ALLOC, 1), "alignment")->i, 64);
  air_op_t* ex2 = nth_op(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(ex2->toks[AIR_TOK_DEP].items[0], ex->results[0]);
  air_op_t* fill = nth_op(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->operands[1], ex->results[1]);
  air_op_t* blocking = nth_op(p, AIR_OP_WAIT_ALL, 1);
  assert_int_equal(blocking->n_results, 0);
  assert_int_equal(blocking->toks[AIR_TOK_DEP].n, 1);
  air_ir_program_free(p);
}

static void test_dma_and_segments(void** state) {
  air_program_t* p = parse_file_ok(*state, "vector_add_dma.mlir");
  air_op_t* dma = nth_op(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->toks[AIR_TOK_DEP].n, 2);
  for (int i = 0; i < 3; ++i) assert_int_equal(dma->lists[i].n, 0);
  check_ix(p, &dma->lists[3], 0, "results", 0);
  check_ix(p, &dma->lists[4], 0, "c256", 0);
  check_ix(p, &dma->lists[5], 0, "c1_1", 0);
  air_op_t* herd = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(herd->n_operands, 2 + 3);
  assert_int_equal(herd->regions[0]->n_args, 2 * 2 + 3);
  assert_string_equal(vname(p, herd->regions[0]->args[4]), "arg15");
  air_ir_program_free(p);

  p = parse_file_ok(*state, "segment_unroll_kernel.mlir");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(seg->iaux[0], 2);
  assert_int_equal(seg->n_operands, 3);
  assert_string_equal(seg->attrs[1].name, "x_size");
  assert_string_equal(attr(nth_op(p, AIR_OP_HERD, 0), "link_with")->s, "scale.o");
  air_ir_program_free(p);

  p = parse_file_ok(*state, "segment_pipeline.mlir");
  assert_int_equal(count_ops(p, AIR_OP_SEGMENT), 2);
  assert_int_equal(count_ops(p, AIR_OP_NEGF), 1);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "no_module_wrapper.mlir");
  assert_false(p->module->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_int_equal(p->module->regions[0]->first->kind, AIR_OP_CHANNEL);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "affine_if_broadcast.mlir");
  air_op_t* aif = nth_op(p, AIR_OP_AFFINE_IF, 0);
  assert_int_equal(aif->iaux[0], 0);
  assert_int_equal(aif->n_operands, 2);
  assert_int_equal(aif->n_regions, 2);
  assert_int_equal(aif->value.kind, AIR_ATTR_ALIAS);
  assert_int_equal(aif->regions[1]->last->kind, AIR_OP_AFFINE_YIELD);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_IF, 1)->iaux[0], 2);
  const air_attr_t* bs = attr(nth_op(p, AIR_OP_CHANNEL, 0), "broadcast_shape");
  assert_int_equal(bs->kind, AIR_ATTR_ARRAY);
  assert_int_equal(bs->elems[1].i, 4);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "parallel_reduce_tokens.mlir");
  air_op_t* inner = nth_op(p, AIR_OP_PARALLEL, 1);
  assert_int_equal(inner->n_results, 0);
  assert_int_equal(inner->regions[0]->last->kind, AIR_OP_REDUCE);
  assert_int_equal(inner->regions[0]->last->n_operands, 0);
  air_ir_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_programs_parse, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_matmul_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_old_token_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_spec_forms_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_attribute_kinds, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_scalar_ops, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_linalg_and_bf16, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_execute_results, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_dma_and_segments, test_context_setup, test_context_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

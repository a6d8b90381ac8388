/* The builder API, structure: complete programs built op by op
 * (tests/builder_programs.c) checked against the IR layouts of ir.h, and what
 * single calls build (launch references, names, put with dest, types). */
#include "builder_test.h"

/*---------------------------------------------------------------------------*/
/* Structure of the built programs                                           */
/*---------------------------------------------------------------------------*/

static void test_vector_add(void** state) {
  air_program_t* p = build(*state, 0);
  air_block_t* mod = module_body(p);
  assert_int_equal(block_len(mod), 1);
  air_op_t* fn = nth(mod, 0);
  assert_int_equal(fn->kind, AIR_OP_FUNC);
  assert_string_equal(fn->sym, "vector_add");
  assert_int_equal(fn->iaux[0], 3);
  assert_int_equal(fn->n_types, 3);
  assert_int_equal(fn->n_regions, 1);
  air_block_t* body = fn->regions[0];
  assert_int_equal(body->n_args, 3);
  assert_int_equal(block_len(body), 3);
  assert_int_equal(nth(body, 0)->kind, AIR_OP_CONSTANT);
  assert_int_equal(nth(body, 2)->kind, AIR_OP_RETURN);
  assert_int_equal(nth(body, 2)->n_operands, 0);

  air_op_t* launch = nth(body, 1);
  assert_int_equal(launch->kind, AIR_OP_LAUNCH);
  assert_int_equal(launch->iaux[0], 1);
  assert_int_equal(launch->n_operands, 4);
  assert_int_equal(launch->operands[0], nth(body, 0)->results[0]);
  assert_int_equal(launch->operands[1], body->args[0]);
  assert_int_equal(launch->operands[3], body->args[2]);
  assert_int_equal(launch->n_results, 0);
  assert_int_equal(launch->flags & (AIR_OPF_ASYNC | AIR_OPF_SYNC), 0);
  assert_null(launch->sym);
  air_block_t* lb = launch->regions[0];
  assert_int_equal(lb->n_args, 5);
  assert_int_equal(value_elem(p, lb->args[0]), AIR_ELEM_INDEX);
  assert_int_equal(value_elem(p, lb->args[1]), AIR_ELEM_INDEX);
  assert_int_equal(air_ir_value_type(p, lb->args[2]), fn->types[0]);
  assert_ptr_equal(air_ir_value(p, lb->args[2])->block, lb);
  assert_int_equal(air_ir_value(p, lb->args[4])->index, 4);

  air_op_t* seg = find(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(seg->sym, "vadd_seg");
  assert_ptr_equal(air_ir_parent_op(seg), launch);
  assert_int_equal(seg->iaux[0], 0);
  assert_int_equal(seg->n_operands, 3);
  assert_int_equal(seg->operands[0], lb->args[2]);
  assert_int_equal(seg->regions[0]->n_args, 3);

  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_ptr_equal(air_ir_parent_op(herd), seg);
  assert_string_equal(herd->sym, "vadd_herd");
  assert_int_equal(herd->iaux[0], 1);
  assert_int_equal(herd->n_operands, 4);
  air_block_t* hb = herd->regions[0];
  assert_int_equal(hb->n_args, 5);

  assert_int_equal(count(p, AIR_OP_DMA), 3);
  air_op_t* muli = find(p, AIR_OP_MULI, 0);
  assert_int_equal(muli->operands[0], hb->args[0]);
  air_op_t* d0 = find(p, AIR_OP_DMA, 0);
  assert_true(d0->flags & AIR_OPF_ASYNC);
  assert_int_equal(d0->n_results, 1);
  assert_true(value_is_token(p, d0->results[0]));
  assert_int_equal(d0->n_operands, 2);
  assert_int_equal(air_ir_value(p, d0->operands[0])->def->kind, AIR_OP_ALLOC);
  assert_int_equal(d0->operands[1], hb->args[2]);
  assert_int_equal(d0->n_lists, 6);
  assert_int_equal(d0->lists[0].n, 0);
  assert_int_equal(d0->lists[3].n, 1);
  assert_int_equal(d0->lists[3].items[0].value, muli->results[0]);
  assert_int_equal(d0->lists[4].items[0].value, 0);
  assert_int_equal(d0->lists[4].items[0].cst, 256);
  assert_int_equal(d0->lists[5].items[0].cst, 1);
  air_op_t* d2 = find(p, AIR_OP_DMA, 2);
  assert_int_equal(d2->flags & AIR_OPF_ASYNC, 0);
  assert_int_equal(d2->n_results, 0);
  assert_int_equal(d2->operands[0], hb->args[4]);
  assert_int_equal(d2->lists[0].n, 1);
  assert_int_equal(d2->lists[3].n, 0);

  air_op_t* w = find(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(w->n_results, 0);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], d0->results[0]);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[1], find(p, AIR_OP_DMA, 1)->results[0]);

  air_op_t* loop = find(p, AIR_OP_FOR, 0);
  assert_int_equal(loop->n_operands, 3);
  assert_int_equal(loop->n_results, 0);
  assert_int_equal(loop->regions[0]->n_args, 1);
  assert_int_equal(loop->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(loop->regions[0]->last->n_operands, 0);
  air_op_t* ld = find(p, AIR_OP_LOAD, 0);
  assert_int_equal(ld->n_operands, 2);
  assert_int_equal(ld->operands[1], loop->regions[0]->args[0]);
  assert_int_equal(value_elem(p, ld->results[0]), AIR_ELEM_F32);
  air_op_t* st = find(p, AIR_OP_STORE, 0);
  assert_int_equal(st->operands[0], find(p, AIR_OP_ADDF, 0)->results[0]);
  assert_int_equal(count(p, AIR_OP_LOAD), 2);
  assert_int_equal(count(p, AIR_OP_ALLOC), 3);
  assert_int_equal(count(p, AIR_OP_DEALLOC), 3);
  assert_int_equal(hb->last->kind, AIR_OP_HERD_TERM);
}

static void test_matmul(void** state) {
  air_program_t* p = build(*state, 1);
  air_block_t* mod = module_body(p);
  assert_int_equal(block_len(mod), 6);
  air_op_t* ch = nth(mod, 1);
  assert_int_equal(ch->kind, AIR_OP_CHANNEL);
  assert_string_equal(ch->sym, "L2ToL1A");
  assert_int_equal(ch->n_lists, 1);
  assert_int_equal(ch->lists[0].n, 2);
  assert_int_equal(ch->lists[0].items[0].cst, 4);
  assert_int_equal(ch->lists[0].items[1].cst, 4);
  assert_int_equal(ch->n_attrs, 0);
  assert_int_equal(nth(mod, 0)->lists[0].items[0].cst, 1);
  air_op_t* decl = nth(mod, 4);
  assert_int_equal(decl->kind, AIR_OP_FUNC);
  assert_true(decl->flags & AIR_OPF_PRIVATE);
  assert_int_equal(decl->n_regions, 0);
  assert_int_equal(decl->iaux[0], 3);
  assert_int_equal(decl->n_types, 3);

  air_op_t* launch = find(p, AIR_OP_LAUNCH, 0);
  assert_true(launch->flags & AIR_OPF_ASYNC);
  assert_int_equal(launch->n_results, 1);
  assert_int_equal(launch->iaux[0], 2);
  assert_int_equal(launch->regions[0]->n_args, 6);
  assert_int_equal(count(p, AIR_OP_PUT), 5);
  assert_int_equal(count(p, AIR_OP_GET), 5);
  air_op_t* put0 = find(p, AIR_OP_PUT, 0);
  assert_string_equal(put0->sym, "L3ToL2A");
  assert_int_equal(put0->iaux[0], 2);
  assert_int_equal(put0->n_operands, 3);
  assert_int_equal(put0->operands[2], launch->regions[0]->args[4]);
  assert_int_equal(put0->n_lists, 3);
  assert_int_equal(put0->lists[0].n + put0->lists[1].n + put0->lists[2].n, 0);
  air_op_t* put1 = find(p, AIR_OP_PUT, 1);
  assert_string_equal(put1->sym, "L2ToL1A");
  assert_int_equal(put1->lists[0].n, 2);
  assert_int_equal(put1->lists[2].items[0].cst, 128);
  assert_int_equal(put1->toks[AIR_TOK_DEP].n, 1);

  air_op_t* par = find(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 2);
  assert_int_equal(par->n_operands, 7);
  assert_int_equal(par->n_results, 1);
  assert_int_equal(count(p, AIR_OP_PARALLEL), 2);
  assert_int_equal(count(p, AIR_OP_REDUCE), 2);

  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_string_equal(herd->sym, "matmul_herd");
  assert_true(herd->flags & AIR_OPF_ASYNC);
  assert_int_equal(herd->n_results, 1);
  assert_int_equal(herd->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(herd->toks[AIR_TOK_DEP].items[0], par->results[0]);
  assert_string_equal(attr(herd, "link_with", AIR_ATTR_STRING)->s, "mm.o");
  const air_attr_t* id = attr(herd, "id", AIR_ATTR_INT);
  assert_int_equal(id->i, 1);
  assert_int_equal(air_ir_type(p, id->type)->elem, AIR_ELEM_I32);
  air_block_t* hb = herd->regions[0];
  assert_int_equal(hb->n_args, 4);

  air_op_t* hfor = find(p, AIR_OP_FOR, 1);
  assert_ptr_equal(air_ir_parent_op(hfor), herd);
  assert_int_equal(hfor->n_operands, 5);
  assert_int_equal(hfor->n_results, 2);
  assert_true(value_is_token(p, hfor->results[0]) && value_is_token(p, hfor->results[1]));
  air_block_t* fb = hfor->regions[0];
  assert_int_equal(fb->n_args, 3);
  assert_int_equal(value_elem(p, fb->args[0]), AIR_ELEM_INDEX);
  assert_true(value_is_token(p, fb->args[1]) && value_is_token(p, fb->args[2]));
  air_op_t* ex0 = find(p, AIR_OP_EXECUTE, 0);
  assert_ptr_equal(air_ir_parent_op(ex0), herd);
  assert_int_equal(hfor->operands[3], ex0->results[0]);
  air_op_t* y = fb->last;
  assert_int_equal(y->kind, AIR_OP_YIELD);
  assert_int_equal(y->n_operands, 2);
  air_op_t* call = find(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "matmul_tile");
  assert_int_equal(call->n_operands, 3);
  assert_int_equal(call->n_results, 0);
  air_op_t* call_ex = air_ir_parent_op(call);
  assert_int_equal(call_ex->kind, AIR_OP_EXECUTE);
  assert_int_equal(call_ex->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(y->operands[0], call_ex->results[0]);
  air_op_t* g = find(p, AIR_OP_GET, 2);
  assert_int_equal(g->operands[0], hb->args[0]);
  assert_int_equal(g->operands[1], hb->args[1]);
  assert_int_equal(g->toks[AIR_TOK_DEP].items[0], fb->args[1]);

  assert_int_equal(ex0->n_results, 2);
  assert_true(value_is_token(p, ex0->results[0]));
  const air_type_info_t* bt = air_ir_type(p, air_ir_value_type(p, ex0->results[1]));
  assert_int_equal(bt->kind, AIR_TYPE_MEMREF);
  assert_int_equal(bt->elem, AIR_ELEM_BF16);
  assert_int_equal(bt->memspace, AIR_MEM_L1);
  air_op_t* et = ex0->regions[0]->last;
  assert_int_equal(et->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(et->n_operands, 1);
  assert_int_equal(air_ir_value_type(p, et->operands[0]), air_ir_value_type(p, ex0->results[1]));
  assert_int_equal(ex0->regions[0]->first->kind, AIR_OP_ALLOC);

  air_op_t* mm = find(p, AIR_OP_MATMUL, 0);
  assert_int_equal(mm->iaux[0], 2);
  assert_int_equal(mm->n_operands, 3);
  air_op_t* fill = find(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->iaux[0], 1);
  assert_int_equal(fill->n_operands, 2);
}

static void test_parallel(void** state) {
  air_program_t* p = build(*state, 2);
  air_op_t* par = find(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 1);
  assert_int_equal(par->n_operands, 4);
  assert_int_equal(par->n_results, 1);
  assert_true(value_is_token(p, par->results[0]));
  assert_int_equal(air_ir_value(p, par->operands[3])->def->kind, AIR_OP_WAIT_ALL);
  air_block_t* body = par->regions[0];
  assert_int_equal(body->n_args, 1);
  air_op_t* dma = find(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->toks[AIR_TOK_DEP].items[0], par->operands[3]);
  air_op_t* red = body->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_int_equal(red->operands[0], dma->results[0]);
  assert_int_equal(red->n_regions, 1);
  air_block_t* rb = red->regions[0];
  assert_int_equal(rb->n_args, 2);
  assert_true(value_is_token(p, rb->args[0]) && value_is_token(p, rb->args[1]));
  assert_int_equal(block_len(rb), 2);
  air_op_t* w = nth(rb, 0);
  assert_int_equal(w->kind, AIR_OP_WAIT_ALL);
  assert_true(w->flags & AIR_OPF_ASYNC);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], rb->args[0]);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[1], rb->args[1]);
  air_op_t* ret = nth(rb, 1);
  assert_int_equal(ret->kind, AIR_OP_REDUCE_RETURN);
  assert_int_equal(ret->n_operands, 1);
  assert_int_equal(ret->operands[0], w->results[0]);

  air_op_t* par2 = find(p, AIR_OP_PARALLEL, 1);
  assert_int_equal(par2->n_results, 0);
  assert_int_equal(par2->n_operands, 3);
  assert_int_equal(par2->regions[0]->last->kind, AIR_OP_REDUCE);
  assert_int_equal(par2->regions[0]->last->n_operands, 0);
  assert_int_equal(par2->regions[0]->last->n_regions, 0);
}

static void test_execute(void** state) {
  air_program_t* p = build(*state, 3);
  air_op_t* e0 = find(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(e0->n_results, 3);
  assert_true(e0->flags & AIR_OPF_ASYNC);
  assert_true(value_is_token(p, e0->results[0]));
  assert_int_equal(air_ir_type(p, air_ir_value_type(p, e0->results[1]))->kind, AIR_TYPE_MEMREF);
  assert_int_equal(value_elem(p, e0->results[2]), AIR_ELEM_INDEX);
  assert_int_equal(e0->toks[AIR_TOK_DEP].n, 0);
  air_op_t* term = e0->regions[0]->last;
  assert_int_equal(term->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(term->n_operands, 2);
  assert_int_equal(air_ir_value(p, term->operands[0])->def->kind, AIR_OP_ALLOC);
  assert_int_equal(air_ir_value(p, term->operands[1])->def->kind, AIR_OP_CONSTANT);
  assert_int_equal(air_ir_value(p, term->operands[1])->def->value.i, 7);
  air_op_t* e1 = find(p, AIR_OP_EXECUTE, 1);
  assert_int_equal(e1->n_results, 1);
  assert_int_equal(e1->toks[AIR_TOK_DEP].items[0], e0->results[0]);
  assert_int_equal(e1->regions[0]->last->n_operands, 0);
  air_op_t* e2 = find(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(e2->n_results, 2);
  assert_int_equal(value_elem(p, e2->results[1]), AIR_ELEM_I32);
  air_op_t* ld = find(p, AIR_OP_LOAD, 0);
  assert_int_equal(ld->operands[0], e0->results[1]);
  assert_int_equal(ld->operands[1], e0->results[2]);
  air_op_t* fn = nth(module_body(p), 0);
  assert_int_equal(fn->n_types, 2);
  assert_int_equal(fn->iaux[0], 1);
  air_op_t* ret = fn->regions[0]->last;
  assert_int_equal(ret->kind, AIR_OP_RETURN);
  assert_int_equal(ret->operands[0], e2->results[1]);
}

static void test_tokens(void** state) {
  air_program_t* p = build(*state, 4);
  assert_int_equal(count(p, AIR_OP_TOKEN_ALLOC), 2);
  air_op_t* ta = find(p, AIR_OP_TOKEN_ALLOC, 0);
  air_op_t* tc = find(p, AIR_OP_TOKEN_ALLOC, 1);
  assert_true(value_is_token(p, ta->results[0]));
  air_op_t* sa = find(p, AIR_OP_SEGMENT, 0);
  air_op_t* sb = find(p, AIR_OP_SEGMENT, 1);
  air_op_t* sc = find(p, AIR_OP_SEGMENT, 2);
  assert_string_equal(sa->sym, "seg_a");
  assert_int_equal(sa->toks[AIR_TOK_AFF].n, 1);
  assert_int_equal(sa->toks[AIR_TOK_AFF].items[0], ta->results[0]);
  assert_int_equal(sa->toks[AIR_TOK_CONC].n, 1);
  assert_int_equal(sa->toks[AIR_TOK_CONC].items[0], tc->results[0]);
  assert_int_equal(sa->toks[AIR_TOK_DEP].n, 0);
  assert_int_equal(sb->toks[AIR_TOK_DEP].items[0], sa->results[0]);
  assert_int_equal(sb->toks[AIR_TOK_AFF].items[0], ta->results[0]);
  assert_int_equal(sb->toks[AIR_TOK_CONC].n, 0);
  assert_int_equal(sc->toks[AIR_TOK_CONC].items[0], tc->results[0]);
  assert_int_equal(attr(sc, "x_loc", AIR_ATTR_INT)->i, 0);
  assert_int_equal(attr(sc, "y_loc", AIR_ATTR_INT)->i, 2);
  assert_int_equal(attr(sc, "x_size", AIR_ATTR_INT)->i, 4);
  assert_int_equal(attr(sc, "y_size", AIR_ATTR_INT)->i, 4);
  assert_int_equal(attr(sc, "x_loc", AIR_ATTR_INT)->type, 0);
  assert_int_equal(sa->n_attrs, 0);
  air_op_t* hc = find(p, AIR_OP_HERD, 1);
  assert_int_equal(hc->n_attrs, 2);
  assert_int_equal(attr(hc, "y_loc", AIR_ATTR_INT)->i, 3);
  air_op_t* w = find(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 3);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[2], sc->results[0]);
}

static void test_elements(void** state) {
  air_program_t* p = build(*state, 5);
  enum { NE = AIR_ELEMENT_COUNT - 1 }; /* element types, i1 to ui64 */
  assert_int_equal(count(p, AIR_OP_ALLOC), 3 * NE);
  for (uint32_t i = 0; i < 3 * NE; ++i) {
    air_op_t* a = find(p, AIR_OP_ALLOC, i);
    air_type_details_t d;
    OK(air_type_describe(p, air_value_type(p, a->results[0]), &d));
    assert_int_equal(d.typeclass, AIR_TYPECLASS_MEMREF);
    assert_int_equal(d.elem, AIR_ELEMENT_I1 + i % NE);
    assert_int_equal(d.memory_space, i / NE);
    assert_int_equal(d.rank, 2);
    assert_int_equal(d.shape[0], 4);
    assert_int_equal(d.shape[1], 8);
    assert_null(d.layout);
  }
  /* The ten signless scalar constants follow the herd's size constant (arith has
   * no constants of siN/uiN types). */
  assert_int_equal(count(p, AIR_OP_CONSTANT), 11);
  for (uint32_t i = 0; i < 10; ++i) {
    air_op_t* c = find(p, AIR_OP_CONSTANT, i + 1);
    assert_int_equal(value_elem(p, c->results[0]), AIR_ELEM_I1 + i);
    assert_int_equal(c->value.type, air_ir_value_type(p, c->results[0]));
    assert_int_equal(c->value.kind, i >= 6 ? AIR_ATTR_FLOAT : AIR_ATTR_INT);
  }
}

static void test_broadcast(void** state) {
  air_program_t* p = build(*state, 6);
  air_op_t* ch = nth(module_body(p), 0);
  assert_int_equal(ch->kind, AIR_OP_CHANNEL);
  assert_string_equal(ch->sym, "bcast");
  const air_attr_t* bs = attr(ch, "broadcast_shape", AIR_ATTR_ARRAY);
  assert_int_equal(bs->n, 2);
  assert_int_equal(bs->elems[0].kind, AIR_ATTR_INT);
  assert_int_equal(bs->elems[0].i, 4);
  assert_int_equal(bs->elems[1].i, 1);
  assert_string_equal(attr(ch, "channel_type", AIR_ATTR_STRING)->s, "npu_dma_stream");
  assert_int_equal(attr(ch, "depth", AIR_ATTR_INT)->i, 2);
  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  air_op_t* get = find(p, AIR_OP_GET, 0);
  assert_int_equal(get->flags, 0);
  assert_int_equal(get->n_results, 0);
  assert_int_equal(get->operands[0], herd->regions[0]->args[0]);
  assert_int_equal(get->operands[1], herd->regions[0]->args[1]);
  air_op_t* put = find(p, AIR_OP_PUT, 0);
  assert_int_equal(put->toks[AIR_TOK_DEP].items[0], find(p, AIR_OP_DMA, 0)->results[0]);
}

static void test_compute(void** state) {
  air_program_t* p = build(*state, 7);
  air_op_t* ap = find(p, AIR_OP_AFFINE_APPLY, 0);
  assert_int_equal(ap->value.kind, AIR_ATTR_MAP);
  assert_int_equal(ap->iaux[0], 1);
  assert_int_equal(ap->n_operands, 2);
  const air_affine_map_t* m = ap->value.map;
  assert_int_equal(m->n_dims, 1);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 1);
  int64_t dims[1] = {3}, syms[1] = {5}, r = 0;
  assert_true(air_aff_eval(m->results[0], dims, syms, &r));
  assert_int_equal(r, 3 * 64 + 5);
  assert_int_equal(value_elem(p, ap->results[0]), AIR_ELEM_INDEX);
  air_op_t* cmpi = find(p, AIR_OP_CMPI, 0);
  assert_int_equal(cmpi->iaux[0], AIR_CMPI_SLT);
  assert_int_equal(value_elem(p, cmpi->results[0]), AIR_ELEM_I1);
  assert_int_equal(find(p, AIR_OP_CMPF, 0)->iaux[0], AIR_CMPF_OLT);
  assert_int_equal(find(p, AIR_OP_SELECT, 0)->n_operands, 3);
  assert_int_equal(value_elem(p, find(p, AIR_OP_INDEX_CAST, 0)->results[0]), AIR_ELEM_I32);
  assert_int_equal(count(p, AIR_OP_DIVSI) + count(p, AIR_OP_REMSI) + count(p, AIR_OP_SUBI), 3);
  air_op_t* sv = find(p, AIR_OP_SUBVIEW, 0);
  assert_int_equal(sv->n_lists, 3);
  assert_int_equal(sv->lists[0].items[0].value, find(p, AIR_OP_CONSTANT, 1)->results[0]);
  assert_int_equal(sv->lists[0].items[1].cst, 32);
  assert_string_equal(air_ir_type(p, air_ir_value_type(p, sv->results[0]))->layout,
                      "strided<[64, 1], offset: ?>");

  air_op_t* if0 = find(p, AIR_OP_IF, 0);
  assert_int_equal(if0->n_regions, 2);
  assert_int_equal(if0->n_results, 1);
  assert_int_equal(if0->operands[0], cmpi->results[0]);
  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_int_equal(if0->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(if0->regions[0]->last->operands[0], herd->regions[0]->args[0]);
  assert_int_equal(if0->regions[1]->last->operands[0], herd->regions[0]->args[1]);
  assert_int_equal(if0->regions[0]->first->kind, AIR_OP_LINALG_COPY);
  assert_int_equal(if0->regions[1]->first->kind, AIR_OP_COPY);
  air_op_t* if1 = find(p, AIR_OP_IF, 1);
  assert_int_equal(if1->n_regions, 1);
  assert_int_equal(if1->n_results, 0);

  air_op_t* aif = find(p, AIR_OP_AFFINE_IF, 0);
  assert_int_equal(aif->value.kind, AIR_ATTR_SET);
  assert_int_equal(aif->iaux[0], 2);
  assert_int_equal(aif->n_regions, 2);
  const air_affine_set_t* s = aif->value.set;
  assert_int_equal(s->n_constraints, 2);
  assert_true(s->is_eq[0]);
  assert_false(s->is_eq[1]);
  int64_t d2[2] = {0, 1};
  assert_true(air_aff_eval(s->constraints[1], d2, NULL, &r));
  assert_int_equal(r, 0);
  assert_int_equal(aif->regions[1]->last->kind, AIR_OP_AFFINE_YIELD);

  air_op_t* af = find(p, AIR_OP_AFFINE_FOR, 0);
  assert_int_equal(af->lists[0].n, 2);
  assert_int_equal(af->lists[0].items[1].cst, 32);
  assert_int_equal(af->iaux[1], 1);
  assert_int_equal(count(p, AIR_OP_NEGF), 1);

  air_op_t* al = find(p, AIR_OP_AFFINE_LOAD, 0);
  assert_int_equal(al->n_operands, 3);
  assert_int_equal(al->iaux[0], 2);
  assert_int_equal(al->value.map->n_results, 2);
  air_op_t* as = find(p, AIR_OP_AFFINE_STORE, 0);
  assert_int_equal(as->n_operands, 5);
  assert_int_equal(as->operands[0], al->results[0]);
  assert_int_equal(as->value.map->n_syms, 1);
  int64_t dd[2] = {2, 3}, ss[1] = {10};
  assert_true(air_aff_eval(as->value.map->results[1], dd, ss, &r));
  assert_int_equal(r, 12);
  assert_int_equal(find(p, AIR_OP_AFFINE_MIN, 0)->value.map->n_results, 2);
  assert_int_equal(find(p, AIR_OP_AFFINE_MAX, 0)->iaux[0], 1);
  air_op_t* co = find(p, AIR_OP_COLLAPSE_SHAPE, 0);
  assert_int_equal(co->n_lists, 2);
  assert_int_equal(co->lists[0].n, 2);
  assert_int_equal(co->lists[0].items[1].cst, 1);
  assert_int_equal(co->lists[1].items[0].cst, 2);
  air_op_t* ex = find(p, AIR_OP_EXPAND_SHAPE, 0);
  assert_int_equal(ex->n_lists, 3);
  assert_int_equal(ex->lists[2].items[0].value, find(p, AIR_OP_AFFINE_MIN, 0)->results[0]);
  assert_int_equal(find(p, AIR_OP_MEMREF_CAST, 0)->n_lists, 0);

  air_op_t* g = find(p, AIR_OP_GENERIC, 0);
  assert_int_equal(g->iaux[0], 1);
  assert_int_equal(g->n_operands, 2);
  const air_attr_t* maps = attr(g, "indexing_maps", AIR_ATTR_ARRAY);
  assert_int_equal(maps->n, 2);
  assert_int_equal(maps->elems[1].kind, AIR_ATTR_MAP);
  assert_int_equal(maps->elems[1].map->n_results, 2);
  const air_attr_t* its = attr(g, "iterator_types", AIR_ATTR_ARRAY);
  assert_int_equal(its->n, 2);
  assert_string_equal(its->elems[0].s, "parallel");
  air_block_t* gb = g->regions[0];
  assert_int_equal(gb->n_args, 2);
  assert_int_equal(value_elem(p, gb->args[0]), AIR_ELEM_F32);
  assert_int_equal(gb->last->kind, AIR_OP_LINALG_YIELD);
  assert_int_equal(gb->last->operands[0], find(p, AIR_OP_ADDF, 0)->results[0]);
}

static void test_gpu(void** state) {
  air_program_t* p = build(*state, 8);
  air_op_t* xcd = find(p, AIR_OP_SEGMENT, 0);
  air_op_t* cu = find(p, AIR_OP_SEGMENT, 1);
  assert_string_equal(attr(xcd, "backend-granularity", AIR_ATTR_STRING)->s, "XCD");
  assert_null(air_ir_attr_get(cu, "backend-granularity"));
  assert_ptr_equal(air_ir_parent_op(cu), xcd);
  assert_int_equal(xcd->iaux[0], 1);
  assert_int_equal(xcd->regions[0]->n_args, 2);
  assert_ptr_equal(air_ir_parent_op(find(p, AIR_OP_HERD, 0)), cu);
}

static void test_attrs(void** state) {
  fixture_t* f = *state;
  air_program_t* p = build(f, 9);
  air_op_t* launch = find(p, AIR_OP_LAUNCH, 0);
  assert_true(launch->flags & AIR_OPF_SYNC);
  assert_int_equal(launch->n_results, 0);
  assert_true(find(p, AIR_OP_SEGMENT, 0)->flags & AIR_OPF_SYNC);
  air_op_t* h = find(p, AIR_OP_HERD, 0);
  assert_true(h->flags & AIR_OPF_SYNC);
  assert_int_equal(h->n_attrs, 9);
  const air_attr_t* pad = attr(h, "pad_before", AIR_ATTR_DENSE);
  assert_int_equal(pad->n, 2);
  assert_int_equal(pad->ints[1], 1);
  assert_int_equal(air_ir_type(p, pad->type)->elem, AIR_ELEM_I32);
  const air_attr_t* shape = attr(h, "shape", AIR_ATTR_ARRAY);
  assert_int_equal(shape->n, 3);
  assert_int_equal(shape->elems[2].i, 4);
  assert_int_equal(attr(h, "flag", AIR_ATTR_BOOL)->i, 1);
  assert_string_equal(attr(h, "note", AIR_ATTR_STRING)->s, "say \"hi\"\n");
  attr(h, "marked", AIR_ATTR_UNIT);
  const air_attr_t* sc = attr(h, "scale", AIR_ATTR_FLOAT);
  assert_true(sc->f == 0.5);
  assert_int_equal(air_ir_type(p, sc->type)->elem, AIR_ELEM_F32);
  assert_int_equal(attr(h, "a_map", AIR_ATTR_MAP)->map->n_dims, 1);
  assert_int_equal(attr(h, "broadcast_set", AIR_ATTR_SET)->set->n_constraints, 2);
  attr(find(p, AIR_OP_ALLOC, 0), "air.symmetric", AIR_ATTR_UNIT);

  /* Setting a name again replaces its value; the current op after an end is the
   * closed op. */
  OK(air_builder_set_attr_int(f->b, "answer", 41, 0));
  OK(air_builder_set_attr_int(f->b, "answer", 42, 0));
  air_op_t* fn = nth(module_body(p), 0);
  assert_int_equal(fn->n_attrs, 1);
  assert_int_equal(attr(fn, "answer", AIR_ATTR_INT)->i, 42);
}

static void test_launch_ref_and_names(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "host";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c2 = cidx(b, 2), tok = 0;
  air_hier_desc_t d = {0};
  d.flags = AIR_BUILD_ASYNC;
  d.name = "outlined";
  d.n_dims = 1;
  d.sizes = &c2;
  OK(air_builder_launch_ref(b, &d, &tok));
  OK(air_builder_set_name(b, tok, "t0"));
  OK(air_builder_set_name(b, c2, "c2"));
  OK(air_builder_set_name(b, c2, "2"));
  OK(air_builder_wait_all(b, 0, 1, &tok, NULL));
  OK(air_builder_func_end(b, 0, NULL));
  air_op_t* l = find(f->p, AIR_OP_LAUNCH, 0);
  assert_int_equal(l->n_regions, 0);
  assert_string_equal(l->sym, "outlined");
  assert_int_equal(l->n_results, 1);
  assert_int_equal(l->results[0], tok);
  assert_string_equal(air_ir_value(f->p, tok)->name, "t0");
  assert_string_equal(air_ir_value(f->p, c2)->name, "2");
  OK(air_builder_set_name(b, c2, NULL));
  assert_null(air_ir_value(f->p, c2)->name);
}

/* put with dest(...): the dest operand follows the memref and sets the flag. */
static void test_put_dest(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t c0 = cidx(b, 0), tok = 0;
  air_value_t src = alloc(b, t_memref2(b, AIR_ELEMENT_I16, 8, 8, AIR_MEMORY_L3));
  air_value_t dst = alloc(b, t_memref2(b, AIR_ELEMENT_I16, 8, 8, AIR_MEMORY_L3));
  air_index_t offs[2] = {{c0, 0}, {0, 4}}, szs[2] = {{0, 4}, {0, 4}}, strs[2] = {{0, 8}, {0, 1}};
  air_channel_io_desc_t io = {0};
  io.flags = AIR_BUILD_ASYNC;
  io.channel = "ch";
  io.n_indices = 1;
  io.indices = &c0;
  io.data = (air_slice_t){src, 2, offs, 2, szs, 2, strs};
  io.dest = dst;
  OK(air_builder_channel_put(b, &io, &tok));
  air_op_t* put = find(f->p, AIR_OP_PUT, 0);
  assert_true(put->flags & AIR_OPF_HAS_DEST);
  assert_true(put->flags & AIR_OPF_ASYNC);
  assert_int_equal(put->n_operands, 3);
  assert_int_equal(put->operands[0], c0);
  assert_int_equal(put->operands[1], src);
  assert_int_equal(put->operands[2], dst);
  assert_int_equal(put->results[0], tok);
  assert_int_equal(put->lists[0].items[0].value, c0);
  assert_int_equal(put->lists[0].items[1].value, 0);
  assert_int_equal(put->lists[0].items[1].cst, 4);
  assert_int_equal(put->lists[2].items[0].cst, 8);
  io.dest = 0;
  io.flags = 0;
  OK(air_builder_channel_put(b, &io, &tok));
  assert_int_equal(tok, 0);
  assert_int_equal(find(f->p, AIR_OP_PUT, 1)->flags, 0);
  assert_int_equal(find(f->p, AIR_OP_PUT, 1)->n_operands, 2);
}

static void test_types(void** state) {
  fixture_t* f = *state;
  air_program_t* p = f->p;
  air_type_t a, b2, t_new, t_old;
  OK(air_type_scalar(p, AIR_ELEMENT_BF16, &a));
  OK(air_type_scalar(p, AIR_ELEMENT_BF16, &b2));
  assert_int_equal(a, b2);
  OK(air_type_token(p, 0, &t_new));
  OK(air_type_token(p, AIR_TOKEN_OLD_SPELLING, &t_old));
  assert_int_not_equal(t_new, t_old);
  air_type_details_t d;
  OK(air_type_describe(p, t_old, &d));
  assert_int_equal(d.typeclass, AIR_TYPECLASS_TOKEN);
  assert_int_equal(d.flags, AIR_TOKEN_OLD_SPELLING);
  int64_t shape[3] = {2, AIR_SHAPE_DYNAMIC, 4};
  air_type_t m1, m2, m3;
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, NULL, &m1));
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, NULL, &m2));
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, "#map", &m3));
  assert_int_equal(m1, m2);
  assert_int_not_equal(m1, m3);
  OK(air_type_describe(p, m3, &d));
  assert_int_equal(d.shape[1], AIR_SHAPE_DYNAMIC);
  assert_string_equal(d.layout, "#map");
  /* A `?` extent takes one dynamic size at alloc. */
  air_builder_t* b = f->b;
  air_value_t n = cidx(b, 5), v;
  FAILS(air_builder_memref_alloc(b, m1, 0, NULL, &v), INVALID);
  OK(air_builder_memref_alloc(b, m1, 1, &n, &v));
  assert_int_equal(air_value_type(p, v), m1);
  air_op_t* al = find(p, AIR_OP_ALLOC, 0);
  assert_int_equal(al->n_operands, 1);
  assert_int_equal(al->operands[0], n);
  /* A rank-0 memref. */
  air_type_t m0;
  OK(air_type_memref(p, AIR_ELEMENT_F64, 0, NULL, AIR_MEMORY_L1, NULL, &m0));
  OK(air_type_describe(p, m0, &d));
  assert_int_equal(d.rank, 0);
  assert_int_equal(d.memory_space, AIR_MEMORY_L1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_vector_add),
      T(test_matmul),
      T(test_parallel),
      T(test_execute),
      T(test_tokens),
      T(test_elements),
      T(test_broadcast),
      T(test_compute),
      T(test_gpu),
      T(test_attrs),
      T(test_launch_ref_and_names),
      T(test_types),
      T(test_put_dest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

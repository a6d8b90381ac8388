/* test_print.c - the AIR text printer on hand-built IR, the core op classes:
 * module forms, func and arith, the AIR hierarchy and its data movement,
 * memref and scf. Exact text for each. */
#include "print_test.h"

/*---------------------------------------------------------------------------*/
/* Module, func, arith                                                       */
/*---------------------------------------------------------------------------*/

static void test_module_forms(void** state) {
  air_program_t* p = P(state);
  expect(p, "");
  p->module->flags |= AIR_OPF_EXPLICIT_MODULE;
  expect(p, "module {\n}\n");
  p->module->sym = "m";
  air_attr_t unit = {0};
  assert_true(air_ir_attr_set(p, p->module, "air.unit", &unit));
  expect(p, "module @m attributes {air.unit} {\n}\n");
  cst(p, top(p), 3, idx_t(p), "c3");
  air_op_t* inner = mk(p, top(p), AIR_OP_MODULE, 0, NULL, 0, 1, 0);
  reg(p, inner, 0, 0);
  expect(p,
         "module @m attributes {air.unit} {\n"
         "  %c3 = arith.constant 3 : index\n"
         "  module {\n"
         "  }\n"
         "}\n");
}

static void test_func_arith(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p), i1 = air_ir_type_scalar(p, AIR_ELEM_I1);
  air_tid_t i32 = air_ir_type_scalar(p, AIR_ELEM_I32);

  air_op_t* f = mk(p, top(p), AIR_OP_FUNC, 0, NULL, 0, 1, 0);
  f->sym = "f";
  f->n_types = 3;
  f->types = air_ir_alloc(p, 3 * sizeof(air_tid_t));
  f->types[0] = idx, f->types[1] = f32, f->types[2] = f32;
  f->iaux[0] = 2;
  air_block_t* b = reg(p, f, 0, 2);
  air_vid_t a = arg(p, b, 0, idx, "a"), x = arg(p, b, 1, f32, "x");
  air_vid_t c0 = cst(p, b, 0, idx, "c0");
  air_op_t* one = mk(p, b, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  one->value.kind = AIR_ATTR_FLOAT;
  one->value.f = 1.0;
  air_vid_t c1f = res(p, one, 0, f32, "cst");
  air_op_t* t = mk(p, b, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  t->value.kind = AIR_ATTR_BOOL;
  t->value.i = 1;
  res(p, t, 0, i1, "true");
  air_vid_t s = res(p, mk(p, b, AIR_OP_ADDI, 2, (air_vid_t[]){a, c0}, 1, 0, 0), 0, idx, "s");
  air_vid_t m = res(p, mk(p, b, AIR_OP_MULF, 2, (air_vid_t[]){x, c1f}, 1, 0, 0), 0, f32, "m");
  air_vid_t n = res(p, mk(p, b, AIR_OP_NEGF, 1, &m, 1, 0, 0), 0, f32, "n");
  air_op_t* ci = mk(p, b, AIR_OP_CMPI, 2, (air_vid_t[]){s, a}, 1, 0, 0);
  ci->iaux[0] = AIR_CMPI_SLT;
  air_vid_t lt = res(p, ci, 0, i1, "lt");
  air_op_t* cf = mk(p, b, AIR_OP_CMPF, 2, (air_vid_t[]){x, n}, 1, 0, 0);
  cf->iaux[0] = AIR_CMPF_OLT;
  res(p, cf, 0, i1, "flt");
  air_vid_t sel =
      res(p, mk(p, b, AIR_OP_SELECT, 3, (air_vid_t[]){lt, x, n}, 1, 0, 0), 0, f32, "sel");
  air_vid_t ic = res(p, mk(p, b, AIR_OP_INDEX_CAST, 1, &s, 1, 0, 0), 0, i32, "ic");
  air_op_t* call = mk(p, b, AIR_OP_CALL, 2, (air_vid_t[]){sel, ic}, 1, 0, 0);
  call->sym = "g";
  air_vid_t r = res(p, call, 0, f32, "r");
  mk(p, b, AIR_OP_CALL, 0, NULL, 0, 0, 0)->sym = "h";
  air_op_t* two = mk(p, b, AIR_OP_CALL, 0, NULL, 2, 0, 0);
  two->sym = "two";
  res(p, two, 0, f32, "p");
  res(p, two, 1, i32, "q");
  term1(p, b, AIR_OP_RETURN, r);

  air_op_t* g = mk(p, top(p), AIR_OP_FUNC, 0, NULL, 0, 0, 0);
  g->sym = "g";
  g->flags = AIR_OPF_PRIVATE;
  g->n_types = 4;
  g->types = air_ir_alloc(p, 4 * sizeof(air_tid_t));
  g->types[0] = f32, g->types[1] = i32, g->types[2] = f32, g->types[3] = i32;
  g->iaux[0] = 2;
  air_op_t* h = mk(p, top(p), AIR_OP_FUNC, 0, NULL, 0, 1, 0);
  h->sym = "h";
  air_attr_t unit = {0};
  assert_true(air_ir_attr_set(p, h, "llvm.emit_c_interface", &unit));
  term(p, reg(p, h, 0, 0), AIR_OP_RETURN);

  expect(p,
         "func.func @f(%a: index, %x: f32) -> f32 {\n"
         "  %c0 = arith.constant 0 : index\n"
         "  %cst = arith.constant 1.000000e+00 : f32\n"
         "  %true = arith.constant true\n"
         "  %s = arith.addi %a, %c0 : index\n"
         "  %m = arith.mulf %x, %cst : f32\n"
         "  %n = arith.negf %m : f32\n"
         "  %lt = arith.cmpi slt, %s, %a : index\n"
         "  %flt = arith.cmpf olt, %x, %n : f32\n"
         "  %sel = arith.select %lt, %x, %n : f32\n"
         "  %ic = arith.index_cast %s : index to i32\n"
         "  %r = call @g(%sel, %ic) : (f32, i32) -> f32\n"
         "  call @h() : () -> ()\n"
         "  %p, %q = call @two() : () -> (f32, i32)\n"
         "  return %r : f32\n"
         "}\n"
         "func.func private @g(f32, i32) -> (f32, i32)\n"
         "func.func @h() attributes {llvm.emit_c_interface} {\n"
         "  return\n"
         "}\n");
}

/*---------------------------------------------------------------------------*/
/* AIR hierarchy and data movement                                           */
/*---------------------------------------------------------------------------*/

static void test_hierarchy(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), tok = tok_t(p), m64 = memref1(p, AIR_ELEM_F32, 64, 0);
  air_block_t* t = top(p);
  air_vid_t c1 = cst(p, t, 1, idx, "c1"), c2 = cst(p, t, 2, idx, "c2");
  air_vid_t m = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m64, "m");
  air_op_t* w = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  w->flags = AIR_OPF_ASYNC;
  air_vid_t t0 = res(p, w, 0, tok, "t0");

  air_op_t* l = mk(p, t, AIR_OP_LAUNCH, 3, (air_vid_t[]){c1, c2, m}, 1, 1, 0);
  l->flags = AIR_OPF_ASYNC;
  l->iaux[0] = 2;
  set_toks(p, &l->toks[AIR_TOK_DEP], 1, &t0);
  air_attr_t id = int_attr(1, air_ir_type_scalar(p, AIR_ELEM_I32));
  assert_true(air_ir_attr_set(p, l, "id", &id));
  res(p, l, 0, tok, "t");
  air_block_t* lb = reg(p, l, 0, 5);
  arg(p, lb, 0, idx, "lx"), arg(p, lb, 1, idx, "ly");
  arg(p, lb, 2, idx, "nx"), arg(p, lb, 3, idx, "ny");
  air_vid_t a = arg(p, lb, 4, m64, "a");
  air_vid_t c2l = cst(p, lb, 2, idx, "c2"); /* a fresh scope: the name is kept */
  air_op_t* ta = mk(p, lb, AIR_OP_TOKEN_ALLOC, 0, NULL, 1, 0, 0);
  air_vid_t tav = res(p, ta, 0, tok, "ta");

  air_op_t* s = mk(p, lb, AIR_OP_SEGMENT, 2, (air_vid_t[]){c2l, a}, 1, 1, 0);
  s->sym = "seg";
  s->flags = AIR_OPF_ASYNC;
  s->iaux[0] = 1;
  set_toks(p, &s->toks[AIR_TOK_AFF], 1, &tav);
  air_attr_t xcd = str_attr("XCD"), zero = int_attr(0, air_ir_type_scalar(p, AIR_ELEM_I64));
  assert_true(air_ir_attr_set(p, s, "backend-granularity", &xcd));
  assert_true(air_ir_attr_set(p, s, "x_loc", &zero));
  res(p, s, 0, tok, "s");
  air_block_t* sb = reg(p, s, 0, 3);
  arg(p, sb, 0, idx, "sx"), arg(p, sb, 1, idx, "ssx");
  air_vid_t bb = arg(p, sb, 2, m64, "b");
  air_vid_t c1s = cst(p, sb, 1, idx, "c1");
  air_op_t* tc = mk(p, sb, AIR_OP_TOKEN_ALLOC, 0, NULL, 1, 0, 0);
  air_vid_t tcv = res(p, tc, 0, air_ir_type_token(p, true), "tc");

  air_op_t* h0 = mk(p, sb, AIR_OP_HERD, 0, NULL, 0, 1, 0);
  h0->sym = "h0";
  term(p, reg(p, h0, 0, 0), AIR_OP_HERD_TERM);
  air_op_t* h = mk(p, sb, AIR_OP_HERD, 3, (air_vid_t[]){c1s, c1s, bb}, 1, 1, 0);
  h->flags = AIR_OPF_ASYNC;
  h->iaux[0] = 2;
  set_toks(p, &h->toks[AIR_TOK_CONC], 1, &tcv);
  set_toks(p, &h->toks[AIR_TOK_AFF], 1, &tcv);
  air_attr_t lw = str_attr("k.o");
  assert_true(air_ir_attr_set(p, h, "link_with", &lw));
  res(p, h, 0, tok, "h");
  air_block_t* hb = reg(p, h, 0, 5);
  arg(p, hb, 0, idx, "x"), arg(p, hb, 1, idx, "y");
  arg(p, hb, 2, idx, "hx"), arg(p, hb, 3, idx, "hy");
  arg(p, hb, 4, m64, "k");
  term(p, hb, AIR_OP_HERD_TERM);
  term(p, sb, AIR_OP_SEGMENT_TERM);
  term(p, lb, AIR_OP_LAUNCH_TERM);

  air_op_t* ls = mk(p, t, AIR_OP_LAUNCH, 0, NULL, 0, 1, 0);
  ls->flags = AIR_OPF_SYNC;
  set_toks(p, &ls->toks[AIR_TOK_DEP], 1, &t0);
  reg(p, ls, 0, 0);
  air_op_t* sg = mk(p, t, AIR_OP_SEGMENT, 0, NULL, 0, 1, 0);
  term(p, reg(p, sg, 0, 0), AIR_OP_SEGMENT_TERM);
  mk(p, t, AIR_OP_LAUNCH, 0, NULL, 0, 0, 0)->sym = "decl";

  expect(p,
         "%c1 = arith.constant 1 : index\n"
         "%c2 = arith.constant 2 : index\n"
         "%m = memref.alloc() : memref<64xf32>\n"
         "%t0 = air.wait_all async\n"
         "%t = air.launch async [%t0] (%lx, %ly) in (%nx=%c1, %ny=%c2) args(%a=%m) : "
         "memref<64xf32> attributes {id = 1 : i32} {\n"
         "  %c2 = arith.constant 2 : index\n"
         "  %ta = air.token.alloc : !air.token\n"
         "  %s = air.segment @seg async unroll(%sx) in (%ssx=%c2) args(%b=%a) : "
         "memref<64xf32> [affinity = [%ta]] attributes {\"backend-granularity\" = \"XCD\", "
         "x_loc = 0 : i64} {\n"
         "    %c1 = arith.constant 1 : index\n"
         "    %tc = air.token.alloc : !air.async.token\n"
         "    air.herd @h0 tile () in () {\n"
         "    }\n"
         "    %h = air.herd async tile (%x, %y) in (%hx=%c1, %hy=%c1) args(%k=%b) : "
         "memref<64xf32> [affinity = [%tc]] [concurrency = [%tc]] attributes "
         "{link_with = \"k.o\"} {\n"
         "    }\n"
         "  }\n"
         "}\n"
         "air.launch sync [%t0] () in () {\n"
         "}\n"
         "air.segment {\n"
         "}\n"
         "air.launch @decl () in ()\n");
}

static void test_data_movement(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), tok = tok_t(p);
  air_tid_t l1 = memref2(p, AIR_ELEM_BF16, 64, 64, 2, NULL);
  air_tid_t l2 = memref2(p, AIR_ELEM_BF16, 128, 128, 1, NULL);
  air_tid_t v1 = memref1(p, AIR_ELEM_F32, 64, 2);
  air_block_t* t = top(p);

  air_op_t* ch = mk(p, t, AIR_OP_CHANNEL, 0, NULL, 0, 0, 1);
  ch->sym = "ch";
  set_list(p, &ch->lists[0], 2, (air_ix_t[]){{0, 2}, {0, 2}});
  air_attr_t bs = {0}, el[2] = {int_attr(2, 0), int_attr(1, 0)};
  bs.kind = AIR_ATTR_ARRAY;
  bs.n = 2;
  bs.elems = el;
  air_attr_t ct = str_attr("npu_dma_stream");
  assert_true(air_ir_attr_set(p, ch, "broadcast_shape", &bs));
  assert_true(air_ir_attr_set(p, ch, "channel_type", &ct));
  air_op_t* c0d = mk(p, t, AIR_OP_CHANNEL, 0, NULL, 0, 0, 1);
  c0d->sym = "c0";

  air_vid_t c0 = cst(p, t, 0, idx, "c0"), c1 = cst(p, t, 1, idx, "c1");
  air_vid_t a = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, l1, "a");
  air_vid_t b = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, l2, "b");
  air_op_t* w = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  w->flags = AIR_OPF_ASYNC;
  air_vid_t t0 = res(p, w, 0, tok, "t0");

  air_op_t* put = mk(p, t, AIR_OP_PUT, 3, (air_vid_t[]){c0, c1, a}, 1, 0, 3);
  put->sym = "ch";
  put->flags = AIR_OPF_ASYNC;
  put->iaux[0] = 2;
  set_toks(p, &put->toks[AIR_TOK_DEP], 1, &t0);
  air_vid_t p0 = res(p, put, 0, tok, "p0");

  air_op_t* get = mk(p, t, AIR_OP_GET, 1, &b, 0, 0, 3);
  get->sym = "c0";
  set_list(p, &get->lists[0], 2, (air_ix_t[]){{c0, 0}, {0, 0}});
  set_list(p, &get->lists[1], 2, (air_ix_t[]){{0, 64}, {0, 64}});
  set_list(p, &get->lists[2], 2, (air_ix_t[]){{0, 128}, {c1, 0}});
  air_attr_t id3 = int_attr(3, air_ir_type_scalar(p, AIR_ELEM_I32));
  assert_true(air_ir_attr_set(p, get, "id", &id3));

  air_op_t* pd = mk(p, t, AIR_OP_PUT, 4, (air_vid_t[]){c0, c0, a, b}, 1, 0, 3);
  pd->sym = "ch";
  pd->flags = AIR_OPF_ASYNC | AIR_OPF_HAS_DEST;
  pd->iaux[0] = 2;
  air_vid_t p1 = res(p, pd, 0, tok, "p1");

  air_op_t* dma = mk(p, t, AIR_OP_DMA, 2, (air_vid_t[]){a, b}, 1, 0, 6);
  dma->flags = AIR_OPF_ASYNC;
  set_toks(p, &dma->toks[AIR_TOK_DEP], 2, (air_vid_t[]){p0, p1});
  set_list(p, &dma->lists[3], 2, (air_ix_t[]){{c0, 0}, {c0, 0}});
  set_list(p, &dma->lists[4], 2, (air_ix_t[]){{0, 64}, {0, 64}});
  set_list(p, &dma->lists[5], 2, (air_ix_t[]){{0, 128}, {0, 1}});
  air_vid_t d = res(p, dma, 0, tok, "d");
  air_op_t* dma2 = mk(p, t, AIR_OP_DMA, 2, (air_vid_t[]){a, b}, 0, 0, 6);
  set_toks(p, &dma2->toks[AIR_TOK_DEP], 1, &d);

  air_op_t* wa = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  wa->flags = AIR_OPF_ASYNC;
  set_toks(p, &wa->toks[AIR_TOK_DEP], 3, (air_vid_t[]){p0, p1, d});
  air_attr_t id9 = int_attr(9, air_ir_type_scalar(p, AIR_ELEM_I32));
  assert_true(air_ir_attr_set(p, wa, "id", &id9));
  air_vid_t t2 = res(p, wa, 0, tok, "t2");
  air_op_t* wb = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 0, 0, 0);
  set_toks(p, &wb->toks[AIR_TOK_DEP], 1, &t2);

  air_op_t* ex = mk(p, t, AIR_OP_EXECUTE, 0, NULL, 2, 1, 0);
  ex->flags = AIR_OPF_ASYNC;
  set_toks(p, &ex->toks[AIR_TOK_DEP], 1, &t2);
  res(p, ex, 0, tok, "et");
  res(p, ex, 1, v1, "buf");
  air_block_t* eb = reg(p, ex, 0, 0);
  air_vid_t al = res(p, mk(p, eb, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, v1, "al");
  term1(p, eb, AIR_OP_EXECUTE_TERM, al);
  air_op_t* ex2 = mk(p, t, AIR_OP_EXECUTE, 0, NULL, 1, 1, 0);
  ex2->flags = AIR_OPF_ASYNC;
  res(p, ex2, 0, tok, "e2");
  air_block_t* eb2 = reg(p, ex2, 0, 0);
  mk(p, eb2, AIR_OP_DEALLOC, 1, &a, 0, 0, 0);
  term(p, eb2, AIR_OP_EXECUTE_TERM);
  air_attr_t id4 = int_attr(4, air_ir_type_scalar(p, AIR_ELEM_I32));
  assert_true(air_ir_attr_set(p, ex2, "id", &id4));

  expect(p,
         "air.channel @ch [2, 2] {broadcast_shape = [2, 1], channel_type = "
         "\"npu_dma_stream\"}\n"
         "air.channel @c0 []\n"
         "%c0 = arith.constant 0 : index\n"
         "%c1 = arith.constant 1 : index\n"
         "%a = memref.alloc() : memref<64x64xbf16, 2>\n"
         "%b = memref.alloc() : memref<128x128xbf16, 1>\n"
         "%t0 = air.wait_all async\n"
         "%p0 = air.channel.put async [%t0] @ch[%c0, %c1] (%a[] [] []) : "
         "(memref<64x64xbf16, 2>)\n"
         "air.channel.get @c0[] (%b[%c0, 0] [64, 64] [128, %c1]) {id = 3 : i32} : "
         "(memref<128x128xbf16, 1>)\n"
         "%p1 = air.channel.put async @ch[%c0, %c0] (%a[] [] []) dest(%b) : "
         "(memref<64x64xbf16, 2>)\n"
         "%d = air.dma_memcpy_nd async [%p0, %p1] (%a[] [] [], %b[%c0, %c0] [64, 64] "
         "[128, 1]) : (memref<64x64xbf16, 2>, memref<128x128xbf16, 1>)\n"
         "air.dma_memcpy_nd [%d] (%a[] [] [], %b[] [] []) : (memref<64x64xbf16, 2>, "
         "memref<128x128xbf16, 1>)\n"
         "%t2 = air.wait_all async [%p0, %p1, %d] {id = 9 : i32}\n"
         "air.wait_all [%t2]\n"
         "%et, %buf = air.execute [%t2] -> (memref<64xf32, 2>) {\n"
         "  %al = memref.alloc() : memref<64xf32, 2>\n"
         "  air.execute_terminator %al : memref<64xf32, 2>\n"
         "}\n"
         "%e2 = air.execute {\n"
         "  memref.dealloc %a : memref<64x64xbf16, 2>\n"
         "} {id = 4 : i32}\n");
}

/*---------------------------------------------------------------------------*/
/* memref, scf                                                              */
/*---------------------------------------------------------------------------*/

static void test_memref(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p);
  air_tid_t dyn = memref2(p, AIR_ELEM_F32, AIR_DIM_DYNAMIC, 64, 0, NULL);
  air_tid_t sv = memref2(p, AIR_ELEM_F32, 4, 4, 2, "strided<[64, 1], offset: ?>");
  air_tid_t r0 = air_ir_type_memref(p, AIR_ELEM_I8, 0, NULL, 1, NULL);
  air_block_t* t = top(p);
  air_vid_t d = cst(p, t, 8, idx, "d");
  air_op_t* al = mk(p, t, AIR_OP_ALLOC, 1, &d, 1, 0, 0);
  air_attr_t align = int_attr(64, air_ir_type_scalar(p, AIR_ELEM_I64));
  assert_true(air_ir_attr_set(p, al, "alignment", &align));
  air_vid_t m = res(p, al, 0, dyn, "m");
  air_vid_t v = res(p, mk(p, t, AIR_OP_LOAD, 3, (air_vid_t[]){m, d, d}, 1, 0, 0), 0, f32, "v");
  mk(p, t, AIR_OP_STORE, 4, (air_vid_t[]){v, m, d, d}, 0, 0, 0);
  air_op_t* s = mk(p, t, AIR_OP_SUBVIEW, 1, &m, 1, 0, 3);
  set_list(p, &s->lists[0], 2, (air_ix_t[]){{d, 0}, {0, 0}});
  set_list(p, &s->lists[1], 2, (air_ix_t[]){{0, 4}, {0, 4}});
  set_list(p, &s->lists[2], 2, (air_ix_t[]){{0, 1}, {0, 1}});
  air_vid_t svv = res(p, s, 0, sv, "sv");
  mk(p, t, AIR_OP_COPY, 2, (air_vid_t[]){svv, svv}, 0, 0, 0);
  mk(p, t, AIR_OP_DEALLOC, 1, &m, 0, 0, 0);
  res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, r0, "z");
  expect(p,
         "%d = arith.constant 8 : index\n"
         "%m = memref.alloc(%d) {alignment = 64 : i64} : memref<?x64xf32>\n"
         "%v = memref.load %m[%d, %d] : memref<?x64xf32>\n"
         "memref.store %v, %m[%d, %d] : memref<?x64xf32>\n"
         "%sv = memref.subview %m[%d, 0] [4, 4] [1, 1] : memref<?x64xf32> to "
         "memref<4x4xf32, strided<[64, 1], offset: ?>, 2>\n"
         "memref.copy %sv, %sv : memref<4x4xf32, strided<[64, 1], offset: ?>, 2> to "
         "memref<4x4xf32, strided<[64, 1], offset: ?>, 2>\n"
         "memref.dealloc %m : memref<?x64xf32>\n"
         "%z = memref.alloc() : memref<i8, 1>\n");
}

static void test_scf(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), tok = tok_t(p), i32 = air_ir_type_scalar(p, AIR_ELEM_I32);
  air_tid_t i1 = air_ir_type_scalar(p, AIR_ELEM_I1);
  air_block_t* t = top(p);
  air_vid_t c0 = cst(p, t, 0, idx, "c0"), c1 = cst(p, t, 1, idx, "c1");
  air_vid_t c4 = cst(p, t, 4, idx, "c4"), n = cst(p, t, 4, i32, "n");
  air_vid_t cond = cst(p, t, 1, i1, "cond");
  air_op_t* w = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  w->flags = AIR_OPF_ASYNC;
  air_vid_t t0 = res(p, w, 0, tok, "t0");

  air_op_t* f = mk(p, t, AIR_OP_FOR, 4, (air_vid_t[]){c0, c4, c1, t0}, 1, 1, 0);
  res(p, f, 0, tok, "r");
  air_block_t* fb = reg(p, f, 0, 2);
  arg(p, fb, 0, idx, "i");
  air_vid_t it = arg(p, fb, 1, tok, "it");
  air_op_t* fw = mk(p, fb, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  fw->flags = AIR_OPF_ASYNC;
  set_toks(p, &fw->toks[AIR_TOK_DEP], 1, &it);
  term1(p, fb, AIR_OP_YIELD, res(p, fw, 0, tok, "w"));

  air_op_t* f2 = mk(p, t, AIR_OP_FOR, 3, (air_vid_t[]){n, n, n}, 0, 1, 0);
  air_block_t* f2b = reg(p, f2, 0, 1);
  arg(p, f2b, 0, i32, "j");
  term(p, f2b, AIR_OP_YIELD);

  air_op_t* par = mk(p, t, AIR_OP_PARALLEL, 7, (air_vid_t[]){c0, c0, c4, c4, c1, c1, t0}, 1, 1, 0);
  par->iaux[0] = 2;
  res(p, par, 0, tok, "pr");
  air_block_t* pb = reg(p, par, 0, 2);
  arg(p, pb, 0, idx, "x"), arg(p, pb, 1, idx, "y");
  air_op_t* pw = mk(p, pb, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  pw->flags = AIR_OPF_ASYNC;
  air_vid_t pwv = res(p, pw, 0, tok, "w");
  air_op_t* red = mk(p, pb, AIR_OP_REDUCE, 1, &pwv, 0, 1, 0);
  air_block_t* rb = reg(p, red, 0, 2);
  air_vid_t l = arg(p, rb, 0, tok, "l"), r = arg(p, rb, 1, tok, "r");
  air_op_t* rw = mk(p, rb, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
  rw->flags = AIR_OPF_ASYNC;
  set_toks(p, &rw->toks[AIR_TOK_DEP], 2, (air_vid_t[]){l, r});
  term1(p, rb, AIR_OP_REDUCE_RETURN, res(p, rw, 0, tok, "m"));

  air_op_t* par2 = mk(p, t, AIR_OP_PARALLEL, 3, (air_vid_t[]){c0, c4, c1}, 0, 1, 0);
  par2->iaux[0] = 1;
  air_block_t* p2b = reg(p, par2, 0, 1);
  arg(p, p2b, 0, idx, "x"); /* a sibling region may reuse the name */
  term(p, p2b, AIR_OP_REDUCE);

  air_op_t* iff = mk(p, t, AIR_OP_IF, 1, &cond, 1, 2, 0);
  res(p, iff, 0, idx, "sel");
  term1(p, reg(p, iff, 0, 0), AIR_OP_YIELD, c0);
  term1(p, reg(p, iff, 1, 0), AIR_OP_YIELD, c1);
  air_op_t* if2 = mk(p, t, AIR_OP_IF, 1, &cond, 0, 1, 0);
  air_block_t* ib = reg(p, if2, 0, 0);
  mk(p, ib, AIR_OP_WAIT_ALL, 0, NULL, 0, 0, 0);
  term(p, ib, AIR_OP_YIELD);

  expect(p,
         "%c0 = arith.constant 0 : index\n"
         "%c1 = arith.constant 1 : index\n"
         "%c4 = arith.constant 4 : index\n"
         "%n = arith.constant 4 : i32\n"
         "%cond = arith.constant true\n"
         "%t0 = air.wait_all async\n"
         "%r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %t0) -> (!air.token) {\n"
         "  %w = air.wait_all async [%it]\n"
         "  scf.yield %w : !air.token\n"
         "}\n"
         "scf.for %j = %n to %n step %n : i32 {\n"
         "}\n"
         "%pr = scf.parallel (%x, %y) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init (%t0) "
         "-> !air.token {\n"
         "  %w = air.wait_all async\n"
         "  scf.reduce(%w : !air.token) {\n"
         "  ^bb0(%l: !air.token, %0: !air.token):\n"
         "    %m = air.wait_all async [%l, %0]\n"
         "    scf.reduce.return %m : !air.token\n"
         "  }\n"
         "}\n"
         "scf.parallel (%x) = (%c0) to (%c4) step (%c1) {\n"
         "}\n"
         "%sel = scf.if %cond -> (index) {\n"
         "  scf.yield %c0 : index\n"
         "} else {\n"
         "  scf.yield %c1 : index\n"
         "}\n"
         "scf.if %cond {\n"
         "  air.wait_all\n"
         "}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_module_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_func_arith, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hierarchy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_movement, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memref, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scf, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

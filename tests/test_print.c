/* test_print.c - the AIR text printer on hand-built IR: exact text for every op
 * class, types, attributes, affine precedence, value naming, broken IR, speed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"

#include "air/context.h"
#include "runtime/ir/ir.h"
#include "runtime/text/print.h"
#include "runtime/text/print_attr.h"
#include "support/alloc.h"

/*---------------------------------------------------------------------------*/
/* IR building shorthands                                                    */
/*---------------------------------------------------------------------------*/

typedef struct fx_t {
  air_context_t* ctx;
  air_program_t* p;
} fx_t;

static int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  if (!f || air_context_create(NULL, NULL, &f->ctx)) return -1;
  if (air_ir_program_new(f->ctx, "test.mlir", &f->p)) return -1;
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fx_t* f = *state;
  air_ir_program_free(f->p);
  air_context_destroy(f->ctx);
  free(f);
  return 0;
}

static air_program_t* P(void** state) { return ((fx_t*)*state)->p; }
static air_block_t* top(air_program_t* p) { return p->module->regions[0]; }

/* An op appended to `b` (when not NULL) with operands copied from `ops`. */
static air_op_t* mk(air_program_t* p, air_block_t* b, air_opkind_t k, uint32_t n_ops,
                    const air_vid_t* ops, uint32_t n_res, uint32_t n_reg, uint32_t n_lists) {
  air_op_t* op = air_ir_op_new(p, k, 0, 0, n_ops, n_res, n_reg, n_lists);
  assert_non_null(op);
  for (uint32_t i = 0; i < n_ops; ++i) op->operands[i] = ops[i];
  if (b) air_ir_block_append(b, op);
  return op;
}

static air_vid_t res(air_program_t* p, air_op_t* op, uint32_t i, air_tid_t t, const char* name) {
  air_vid_t v = air_ir_value_new(p, t, op, NULL, i, name);
  assert_true(v != 0);
  op->results[i] = v;
  return v;
}

static air_block_t* reg(air_program_t* p, air_op_t* op, uint32_t i, uint32_t n_args) {
  air_block_t* b = air_ir_block_new(p, op, n_args);
  assert_non_null(b);
  op->regions[i] = b;
  return b;
}

static air_vid_t arg(air_program_t* p, air_block_t* b, uint32_t i, air_tid_t t,
                     const char* name) {
  air_vid_t v = air_ir_value_new(p, t, NULL, b, i, name);
  assert_true(v != 0);
  b->args[i] = v;
  return v;
}

/* A zero-operand terminator at the end of `b`. */
static air_op_t* term(air_program_t* p, air_block_t* b, air_opkind_t k) {
  return mk(p, b, k, 0, NULL, 0, 0, 0);
}

static air_op_t* term1(air_program_t* p, air_block_t* b, air_opkind_t k, air_vid_t v) {
  return mk(p, b, k, 1, &v, 0, 0, 0);
}

static air_attr_t int_attr(int64_t v, air_tid_t t) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.i = v;
  a.type = t;
  return a;
}

static air_attr_t str_attr(const char* s) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_STRING;
  a.s = s;
  a.n = (uint32_t)strlen(s);
  return a;
}

static air_vid_t cst(air_program_t* p, air_block_t* b, int64_t v, air_tid_t t,
                     const char* name) {
  air_op_t* op = mk(p, b, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  op->value = int_attr(v, t);
  return res(p, op, 0, t, name);
}

static void set_list(air_program_t* p, air_ixlist_t* l, uint32_t n, const air_ix_t* items) {
  assert_true(air_ir_list_init(p, l, n));
  for (uint32_t i = 0; i < n; ++i) l->items[i] = items[i];
}

static void set_toks(air_program_t* p, air_vlist_t* l, uint32_t n, const air_vid_t* v) {
  assert_true(air_ir_vlist_init(p, l, n));
  for (uint32_t i = 0; i < n; ++i) l->items[i] = v[i];
}

static air_tid_t idx_t(air_program_t* p) { return air_ir_type_scalar(p, AIR_ELEM_INDEX); }
static air_tid_t f32_t(air_program_t* p) { return air_ir_type_scalar(p, AIR_ELEM_F32); }
static air_tid_t tok_t(air_program_t* p) { return air_ir_type_token(p, false); }
static air_tid_t memref1(air_program_t* p, air_elem_kind_t e, int64_t n, int32_t space) {
  return air_ir_type_memref(p, e, 1, &n, space, NULL);
}
static air_tid_t memref2(air_program_t* p, air_elem_kind_t e, int64_t a, int64_t b,
                         int32_t space, const char* layout) {
  int64_t s[2] = {a, b};
  return air_ir_type_memref(p, e, 2, s, space, layout);
}

static char* print_text(air_program_t* p) {
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_status_t s = air_print(p, 0, &sb);
  if (s) fail_msg("air_print: %s", air_status_message(s));
  char* t = air_sb_take(&sb, NULL);
  assert_non_null(t);
  return t;
}

static void expect(air_program_t* p, const char* want) {
  char* got = print_text(p);
  if (strcmp(got, want) != 0) print_message("--- got:\n%s--- want:\n%s---\n", got, want);
  assert_string_equal(got, want);
  p->allocator.free(p->allocator.self, got);
}

static void expect_attr(air_program_t* p, const air_attr_t* a, const char* want) {
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_print_attr(&sb, p, a);
  char* got = air_sb_take(&sb, NULL);
  assert_non_null(got);
  assert_string_equal(got, want);
  p->allocator.free(p->allocator.self, got);
}

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
/* memref, scf, affine, linalg                                               */
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

static air_aff_t* aff(air_program_t* p, air_aff_kind_t k, int64_t v, const air_aff_t* l,
                      const air_aff_t* r) {
  air_aff_t* e = air_ir_alloc(p, sizeof *e);
  assert_non_null(e);
  e->kind = k, e->value = v, e->lhs = l, e->rhs = r;
  return e;
}
#define D(i) aff(p, AIR_AFF_DIM, (i), NULL, NULL)
#define S(i) aff(p, AIR_AFF_SYM, (i), NULL, NULL)
#define C(v) aff(p, AIR_AFF_CONST, (v), NULL, NULL)
#define ADD(a, b) aff(p, AIR_AFF_ADD, 0, (a), (b))
#define MUL(a, b) aff(p, AIR_AFF_MUL, 0, (a), (b))
#define MOD(a, b) aff(p, AIR_AFF_MOD, 0, (a), (b))
#define FDIV(a, b) aff(p, AIR_AFF_FLOORDIV, 0, (a), (b))
#define CDIV(a, b) aff(p, AIR_AFF_CEILDIV, 0, (a), (b))

static air_attr_t map_attr(air_program_t* p, uint32_t nd, uint32_t ns, uint32_t nr,
                           const air_aff_t** results) {
  air_affine_map_t* m = air_ir_alloc(p, sizeof *m);
  const air_aff_t** r = air_ir_alloc(p, (nr ? nr : 1) * sizeof *r);
  assert_true(m && r);
  for (uint32_t i = 0; i < nr; ++i) r[i] = results[i];
  m->n_dims = nd, m->n_syms = ns, m->n_results = nr, m->results = r;
  air_attr_t a = {0};
  a.kind = AIR_ATTR_MAP;
  a.map = m;
  return a;
}

static void expect_aff(air_program_t* p, const air_aff_t* e, const char* want) {
  air_attr_t a = map_attr(p, 3, 1, 1, &e);
  char buf[256];
  snprintf(buf, sizeof buf, "affine_map<(d0, d1, d2)[s0] -> (%s)>", want);
  expect_attr(p, &a, buf);
}

static void test_affine_precedence(void** state) {
  air_program_t* p = P(state);
  expect_aff(p, ADD(D(0), MUL(D(1), C(-1))), "d0 - d1");
  expect_aff(p, ADD(MUL(D(0), C(64)), S(0)), "d0 * 64 + s0");
  expect_aff(p, MUL(ADD(D(0), D(1)), C(2)), "(d0 + d1) * 2");
  expect_aff(p, ADD(D(0), MUL(ADD(D(1), D(2)), C(-1))), "d0 - (d1 + d2)");
  expect_aff(p, ADD(D(0), MUL(D(1), C(-3))), "d0 - d1 * 3");
  expect_aff(p, ADD(D(0), MUL(ADD(D(1), D(2)), C(-3))), "d0 - (d1 + d2) * 3");
  expect_aff(p, ADD(D(0), C(-5)), "d0 - 5");
  expect_aff(p, ADD(D(0), C(5)), "d0 + 5");
  expect_aff(p, MUL(D(0), C(-1)), "-d0");
  expect_aff(p, MUL(ADD(D(0), D(1)), C(-1)), "-(d0 + d1)");
  expect_aff(p, MUL(D(0), C(-2)), "d0 * -2");
  expect_aff(p, C(-7), "-7");
  expect_aff(p, MOD(FDIV(D(0), C(2)), C(3)), "(d0 floordiv 2) mod 3");
  expect_aff(p, CDIV(D(0), ADD(S(0), C(1))), "d0 ceildiv (s0 + 1)");
  expect_aff(p, ADD(D(0), ADD(D(1), D(2))), "d0 + d1 + d2");
  expect_aff(p, ADD(ADD(D(0), D(1)), D(2)), "d0 + d1 + d2");
  expect_aff(p, MUL(D(0), MUL(D(1), D(2))), "d0 * (d1 * d2)");
  expect_aff(p, ADD(D(0), MUL(MUL(D(1), C(-1)), C(-1))), "d0 - -d1");
  expect_aff(p, ADD(D(0), C(INT64_MIN)), "d0 + -9223372036854775808");
  expect_aff(p, ADD(D(0), NULL), "d0 + <<null>>");
  expect_aff(p, NULL, "<<null>>");

  /* a left-deep chain far deeper than any C stack would allow recursively */
  const air_aff_t* e = D(0);
  enum { N = 200000 };
  for (int i = 0; i < N; ++i) e = ADD(e, D(1));
  air_attr_t a = map_attr(p, 2, 0, 1, &e);
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_print_attr(&sb, p, &a);
  assert_false(sb.oom);
  assert_int_equal(sb.len, strlen("affine_map<(d0, d1) -> (d0)>") + (size_t)N * 5);
  assert_memory_equal(sb.data + sb.len - 14, "d1 + d1 + d1)>", 14);
  air_sb_free(&sb);

  /* maps without results or symbols, sets */
  air_attr_t m0 = map_attr(p, 0, 0, 1, (const air_aff_t*[]){C(0)});
  expect_attr(p, &m0, "affine_map<() -> (0)>");
  air_affine_set_t* st = air_ir_alloc(p, sizeof *st);
  const air_aff_t** cs = air_ir_alloc(p, 2 * sizeof *cs);
  bool* eq = air_ir_alloc(p, 2);
  cs[0] = ADD(D(0), C(-1)), cs[1] = ADD(D(1), MUL(S(0), C(-1)));
  eq[1] = true;
  st->n_dims = 2, st->n_syms = 1, st->n_constraints = 2, st->constraints = cs, st->is_eq = eq;
  air_attr_t sa = {0};
  sa.kind = AIR_ATTR_SET;
  sa.set = st;
  expect_attr(p, &sa, "affine_set<(d0, d1)[s0] : (d0 - 1 >= 0, d1 - s0 == 0)>");
}

static void test_affine_ops(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p);
  air_attr_t m = map_attr(p, 1, 1, 1, (const air_aff_t*[]){ADD(MUL(D(0), C(64)), S(0))});
  int32_t map_id = air_ir_alias_add(p, "map", &m);
  air_affine_set_t* st = air_ir_alloc(p, sizeof *st);
  const air_aff_t** cs = air_ir_alloc(p, sizeof *cs);
  cs[0] = ADD(D(0), C(-1));
  st->n_dims = 2, st->n_constraints = 1, st->constraints = cs;
  air_attr_t sa = {0};
  sa.kind = AIR_ATTR_SET;
  sa.set = st;
  int32_t set_id = air_ir_alias_add(p, "set", &sa);
  assert_true(map_id == 0 && set_id == 1);
  air_attr_t map_ref = {0}, set_ref = {0};
  map_ref.kind = set_ref.kind = AIR_ATTR_ALIAS;
  map_ref.i = map_id, set_ref.i = set_id;

  air_block_t* t = top(p);
  air_vid_t x = cst(p, t, 1, idx, "x"), y = cst(p, t, 2, idx, "y");
  air_op_t* ap = mk(p, t, AIR_OP_AFFINE_APPLY, 2, (air_vid_t[]){x, y}, 1, 0, 0);
  ap->value = map_ref;
  ap->iaux[0] = 1;
  res(p, ap, 0, idx, "a");
  air_op_t* ap0 = mk(p, t, AIR_OP_AFFINE_APPLY, 0, NULL, 1, 0, 0);
  ap0->value = map_attr(p, 0, 0, 1, (const air_aff_t*[]){C(0)});
  res(p, ap0, 0, idx, "b");
  air_op_t* ai = mk(p, t, AIR_OP_AFFINE_IF, 2, (air_vid_t[]){x, y}, 0, 2, 0);
  ai->value = set_ref;
  ai->iaux[0] = 2;
  term(p, reg(p, ai, 0, 0), AIR_OP_AFFINE_YIELD);
  term(p, reg(p, ai, 1, 0), AIR_OP_AFFINE_YIELD);
  air_op_t* fc = mk(p, t, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  fc->value.kind = AIR_ATTR_FLOAT;
  fc->value.f = 1.5;
  fc->value.type = f32;
  air_vid_t f = res(p, fc, 0, f32, "f");
  air_op_t* ai2 = mk(p, t, AIR_OP_AFFINE_IF, 2, (air_vid_t[]){x, y}, 1, 2, 0);
  ai2->value = set_ref;
  ai2->iaux[0] = 2;
  res(p, ai2, 0, f32, "r");
  term1(p, reg(p, ai2, 0, 0), AIR_OP_AFFINE_YIELD, f);
  term1(p, reg(p, ai2, 1, 0), AIR_OP_AFFINE_YIELD, f);
  air_op_t* af = mk(p, t, AIR_OP_AFFINE_FOR, 0, NULL, 0, 1, 1);
  set_list(p, &af->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 64}});
  af->iaux[1] = 2;
  arg(p, reg(p, af, 0, 1), 0, idx, "i");
  term(p, af->regions[0], AIR_OP_AFFINE_YIELD);
  air_op_t* af2 = mk(p, t, AIR_OP_AFFINE_FOR, 1, &f, 1, 1, 1);
  set_list(p, &af2->lists[0], 2, (air_ix_t[]){{x, 0}, {0, 128}});
  af2->iaux[1] = 1;
  res(p, af2, 0, f32, "s");
  air_block_t* b2 = reg(p, af2, 0, 2);
  arg(p, b2, 0, idx, "i");
  term1(p, b2, AIR_OP_AFFINE_YIELD, arg(p, b2, 1, f32, "acc"));

  expect(p,
         "#map = affine_map<(d0)[s0] -> (d0 * 64 + s0)>\n"
         "#set = affine_set<(d0, d1) : (d0 - 1 >= 0)>\n"
         "%x = arith.constant 1 : index\n"
         "%y = arith.constant 2 : index\n"
         "%a = affine.apply #map(%x)[%y]\n"
         "%b = affine.apply affine_map<() -> (0)>()\n"
         "affine.if #set(%x, %y) {\n"
         "} else {\n"
         "}\n"
         "%f = arith.constant 1.500000e+00 : f32\n"
         "%r = affine.if #set(%x, %y) -> f32 {\n"
         "  affine.yield %f : f32\n"
         "} else {\n"
         "  affine.yield %f : f32\n"
         "}\n"
         "affine.for %i = 0 to 64 step 2 {\n"
         "}\n"
         "%s = affine.for %i = %x to 128 iter_args(%acc = %f) -> (f32) {\n"
         "  affine.yield %acc : f32\n"
         "}\n");
}

/* affine.load/store print their map inline with the operands in place of d0/s0
 * (a map alias too); min/max print like affine.apply; reshapes print their
 * reassociation from the index list and group sizes. */
static void test_affine_access_and_reshape(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p), m = memref2(p, AIR_ELEM_F32, 4, 8, 2, NULL);
  air_tid_t flat = memref1(p, AIR_ELEM_F32, 32, 2);
  air_tid_t dyn = memref2(p, AIR_ELEM_F32, AIR_DIM_DYNAMIC, 8, 2, NULL);
  air_block_t* t = top(p);
  air_vid_t i = cst(p, t, 1, idx, "i"), j = cst(p, t, 2, idx, "j");
  air_vid_t a = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "a");
  /* (d0, d1)[s0] -> (d1 * 2 - d0, s0 + 1) over (%i, %j)[%i] */
  air_op_t* ld = mk(p, t, AIR_OP_AFFINE_LOAD, 4, (air_vid_t[]){a, i, j, i}, 1, 0, 0);
  ld->value = map_attr(p, 2, 1, 2,
                       (const air_aff_t*[]){ADD(MUL(D(1), C(2)), MUL(D(0), C(-1))),
                                            ADD(S(0), C(1))});
  ld->iaux[0] = 2;
  air_vid_t v = res(p, ld, 0, f32, "v");
  air_attr_t tr = map_attr(p, 2, 0, 2, (const air_aff_t*[]){D(1), D(0)});
  air_attr_t ref = {0};
  ref.kind = AIR_ATTR_ALIAS;
  ref.i = air_ir_alias_add(p, "tr", &tr);
  air_op_t* sto = mk(p, t, AIR_OP_AFFINE_STORE, 4, (air_vid_t[]){v, a, i, j}, 0, 0, 0);
  sto->value = ref;
  sto->iaux[0] = 2;
  air_op_t* mn = mk(p, t, AIR_OP_AFFINE_MIN, 2, (air_vid_t[]){i, j}, 1, 0, 0);
  mn->value = map_attr(p, 1, 1, 2, (const air_aff_t*[]){ADD(D(0), C(4)), S(0)});
  mn->iaux[0] = 1;
  res(p, mn, 0, idx, "lo");
  air_op_t* mx = mk(p, t, AIR_OP_AFFINE_MAX, 1, (air_vid_t[]){j}, 1, 0, 0);
  mx->value = map_attr(p, 1, 0, 2, (const air_aff_t*[]){D(0), C(2)});
  mx->iaux[0] = 1;
  res(p, mx, 0, idx, "hi");
  air_op_t* co = mk(p, t, AIR_OP_COLLAPSE_SHAPE, 1, &a, 1, 0, 2);
  set_list(p, &co->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 1}});
  set_list(p, &co->lists[1], 1, (air_ix_t[]){{0, 2}});
  air_vid_t c = res(p, co, 0, flat, "c");
  air_op_t* ex = mk(p, t, AIR_OP_EXPAND_SHAPE, 1, &c, 1, 0, 3);
  set_list(p, &ex->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 1}});
  set_list(p, &ex->lists[1], 1, (air_ix_t[]){{0, 2}});
  set_list(p, &ex->lists[2], 2, (air_ix_t[]){{j, 0}, {0, 8}});
  res(p, ex, 0, dyn, "e");
  res(p, mk(p, t, AIR_OP_MEMREF_CAST, 1, &a, 1, 0, 0), 0, dyn, "d");

  expect(p,
         "#tr = affine_map<(d0, d1) -> (d1, d0)>\n"
         "%i = arith.constant 1 : index\n"
         "%j = arith.constant 2 : index\n"
         "%a = memref.alloc() : memref<4x8xf32, 2>\n"
         "%v = affine.load %a[%j * 2 - %i, symbol(%i) + 1] : memref<4x8xf32, 2>\n"
         "affine.store %v, %a[%j, %i] : memref<4x8xf32, 2>\n"
         "%lo = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%j]\n"
         "%hi = affine.max affine_map<(d0) -> (d0, 2)>(%j)\n"
         "%c = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32, 2> into memref<32xf32, 2>\n"
         "%e = memref.expand_shape %c [[0, 1]] output_shape [%j, 8] : memref<32xf32, 2> into "
         "memref<?x8xf32, 2>\n"
         "%d = memref.cast %a : memref<4x8xf32, 2> to memref<?x8xf32, 2>\n");
}

static void test_linalg(void** state) {
  air_program_t* p = P(state);
  air_tid_t f32 = f32_t(p), m = memref2(p, AIR_ELEM_F32, 64, 64, 2, NULL);
  air_attr_t id = map_attr(p, 2, 0, 2, (const air_aff_t*[]){D(0), D(1)});
  air_attr_t ref = {0};
  ref.kind = AIR_ATTR_ALIAS;
  ref.i = air_ir_alias_add(p, "map1", &id);
  air_block_t* t = top(p);
  air_op_t* z = mk(p, t, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  z->value.kind = AIR_ATTR_FLOAT;
  air_vid_t c = res(p, z, 0, f32, "cst");
  air_vid_t a = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "a");
  air_vid_t b = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "b");
  air_vid_t o = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "c");
  mk(p, t, AIR_OP_FILL, 2, (air_vid_t[]){c, a}, 0, 0, 0)->iaux[0] = 1;
  mk(p, t, AIR_OP_MATMUL, 3, (air_vid_t[]){a, b, o}, 0, 0, 0)->iaux[0] = 2;
  air_op_t* cp = mk(p, t, AIR_OP_LINALG_COPY, 2, (air_vid_t[]){a, b}, 0, 0, 0);
  cp->iaux[0] = 1;
  air_attr_t op = {0};
  op.kind = AIR_ATTR_OPAQUE;
  op.s = "#linalg.type_fn<cast_signed>";
  assert_true(air_ir_attr_set(p, cp, "cast", &op));
  air_op_t* g = mk(p, t, AIR_OP_GENERIC, 2, (air_vid_t[]){a, b}, 0, 1, 0);
  g->iaux[0] = 1;
  air_attr_t maps = {0}, iters = {0}, me[2] = {ref, ref};
  air_attr_t ie[2] = {str_attr("parallel"), str_attr("parallel")};
  maps.kind = iters.kind = AIR_ATTR_ARRAY;
  maps.n = iters.n = 2;
  maps.elems = me, iters.elems = ie;
  assert_true(air_ir_attr_set(p, g, "indexing_maps", &maps));
  assert_true(air_ir_attr_set(p, g, "iterator_types", &iters));
  air_block_t* gb = reg(p, g, 0, 2);
  air_vid_t in = arg(p, gb, 0, f32, "in"), out = arg(p, gb, 1, f32, "out");
  air_vid_t s = res(p, mk(p, gb, AIR_OP_ADDF, 2, (air_vid_t[]){in, out}, 1, 0, 0), 0, f32, NULL);
  term1(p, gb, AIR_OP_LINALG_YIELD, s);
  expect(p,
         "#map1 = affine_map<(d0, d1) -> (d0, d1)>\n"
         "%cst = arith.constant 0.000000e+00 : f32\n"
         "%a = memref.alloc() : memref<64x64xf32, 2>\n"
         "%b = memref.alloc() : memref<64x64xf32, 2>\n"
         "%c = memref.alloc() : memref<64x64xf32, 2>\n"
         "linalg.fill ins(%cst : f32) outs(%a : memref<64x64xf32, 2>)\n"
         "linalg.matmul ins(%a, %b : memref<64x64xf32, 2>, memref<64x64xf32, 2>) "
         "outs(%c : memref<64x64xf32, 2>)\n"
         "linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%a : memref<64x64xf32, 2>) "
         "outs(%b : memref<64x64xf32, 2>)\n"
         "linalg.generic {indexing_maps = [#map1, #map1], iterator_types = [\"parallel\", "
         "\"parallel\"]} ins(%a : memref<64x64xf32, 2>) outs(%b : memref<64x64xf32, 2>) {\n"
         "^bb0(%in: f32, %out: f32):\n"
         "  %0 = arith.addf %in, %out : f32\n"
         "  linalg.yield %0 : f32\n"
         "}\n");
}

/*---------------------------------------------------------------------------*/
/* Attributes and literals                                                   */
/*---------------------------------------------------------------------------*/

static air_attr_t flt(double f, air_tid_t t) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_FLOAT;
  a.f = f;
  a.type = t;
  return a;
}

static void expect_flt(air_program_t* p, double f, air_tid_t t, const char* want) {
  air_attr_t a = flt(f, t);
  expect_attr(p, &a, want);
}

static void test_attrs(void** state) {
  air_program_t* p = P(state);
  air_tid_t f32 = f32_t(p), f64 = air_ir_type_scalar(p, AIR_ELEM_F64);
  air_tid_t f16 = air_ir_type_scalar(p, AIR_ELEM_F16), bf16 = air_ir_type_scalar(p, AIR_ELEM_BF16);
  air_tid_t i1 = air_ir_type_scalar(p, AIR_ELEM_I1), i32 = air_ir_type_scalar(p, AIR_ELEM_I32);
  air_tid_t i64 = air_ir_type_scalar(p, AIR_ELEM_I64);

  air_attr_t a = {0};
  expect_attr(p, &a, "unit");
  a.kind = AIR_ATTR_BOOL;
  expect_attr(p, &a, "false");
  a = int_attr(64, i64);
  expect_attr(p, &a, "64 : i64");
  a = int_attr(-3, 0);
  expect_attr(p, &a, "-3");
  a = int_attr(INT64_MIN, idx_t(p));
  expect_attr(p, &a, "-9223372036854775808 : index");
  a = int_attr(1, i1);
  expect_attr(p, &a, "true");

  expect_flt(p, 1.0, f32, "1.000000e+00 : f32");
  expect_flt(p, 0.1, f64, "1.000000e-01 : f64");
  expect_flt(p, 1.0 / 3.0, 0, "3.333333333333333e-01");
  expect_flt(p, -0.0, 0, "-0.000000e+00");
  expect_flt(p, 2.5, 0, "2.500000e+00");
  expect_flt(p, 1e300, 0, "1.000000e+300");
  expect_flt(p, 123456.789, 0, "1.23456789e+05");
  expect_flt(p, 5e-324, 0, "4.940656e-324");
  expect_flt(p, INFINITY, f32, "0x7F800000 : f32");
  expect_flt(p, -INFINITY, f64, "0xFFF0000000000000 : f64");
  expect_flt(p, -INFINITY, 0, "0xFFF0000000000000 : f64");
  expect_flt(p, NAN, f32, "0x7FC00000 : f32");
  expect_flt(p, INFINITY, bf16, "0x7F80 : bf16");
  expect_flt(p, NAN, bf16, "0x7FC0 : bf16");
  expect_flt(p, -INFINITY, f16, "0xFC00 : f16");
  expect_flt(p, NAN, f16, "0x7E00 : f16");
  /* every printed float parses back to the same bits */
  const double samples[] = {0.1, 1.0 / 3.0, 3.14159e-20, 6.02214076e23, 1e-310, 0.3, 2.0 / 7.0};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i) {
    air_attr_t fa = flt(samples[i], 0);
    air_sb_t sb;
    air_sb_init(&sb, &p->allocator);
    air_print_attr(&sb, p, &fa);
    double back = strtod(sb.data, NULL);
    assert_memory_equal(&back, &samples[i], sizeof back);
    air_sb_free(&sb);
  }

  a = str_attr("a\"b\\c\n\x01\xc3\xa9 ok");
  expect_attr(p, &a, "\"a\\\"b\\\\c\\0A\\01\\C3\\A9 ok\"");
  air_attr_t nul = {0};
  nul.kind = AIR_ATTR_STRING;
  nul.s = "x\0y";
  nul.n = 3;
  expect_attr(p, &nul, "\"x\\00y\"");
  a = (air_attr_t){0};
  a.kind = AIR_ATTR_TYPE;
  a.type = air_ir_type_memref(p, AIR_ELEM_I8, 2, (int64_t[]){2, AIR_DIM_DYNAMIC}, 1, NULL);
  expect_attr(p, &a, "memref<2x?xi8, 1>");
  a.type = air_ir_type_token(p, true);
  expect_attr(p, &a, "!air.async.token");
  a.kind = AIR_ATTR_SYMREF;
  a.s = "foo";
  expect_attr(p, &a, "@foo");
  a.s = "a-b";
  expect_attr(p, &a, "@\"a-b\"");

  air_attr_t el[3] = {int_attr(1, 0), int_attr(2, i32), {0}};
  el[2].kind = AIR_ATTR_BOOL;
  el[2].i = 1;
  air_attr_t arr = {0};
  arr.kind = AIR_ATTR_ARRAY;
  arr.n = 3;
  arr.elems = el;
  expect_attr(p, &arr, "[1, 2 : i32, true]");
  arr.n = 0;
  expect_attr(p, &arr, "[]");

  int64_t ints[2] = {1, -2};
  air_attr_t dn = {0};
  dn.kind = AIR_ATTR_DENSE;
  dn.type = i32;
  dn.n = 2;
  dn.ints = ints;
  expect_attr(p, &dn, "array<i32: 1, -2>");
  dn.type = i1;
  expect_attr(p, &dn, "array<i1: true, true>");
  dn.type = i64;
  dn.n = 0;
  expect_attr(p, &dn, "array<i64>");

  air_named_attr_t d[4] = {{"a", int_attr(1, i64)}, {"b", {0}}, {"c-d", str_attr("x")},
                           {"e", {0}}};
  d[3].value.kind = AIR_ATTR_DICT;
  air_attr_t dict = {0};
  dict.kind = AIR_ATTR_DICT;
  dict.n = 4;
  dict.dict = d;
  expect_attr(p, &dict, "{a = 1 : i64, b, \"c-d\" = \"x\", e = {}}");

  air_attr_t al = {0};
  al.kind = AIR_ATTR_ALIAS;
  al.i = 7;
  expect_attr(p, &al, "<<null>>");
  assert_true(air_ir_alias_add(p, "map", &arr) == 0);
  al.i = 0;
  expect_attr(p, &al, "#map");
  air_attr_t op = {0};
  op.kind = AIR_ATTR_OPAQUE;
  op.s = "#air.foo<bar>";
  expect_attr(p, &op, "#air.foo<bar>");

  /* nesting beyond any real program stops instead of exhausting the stack */
  enum { DEEP = 100000 };
  air_attr_t* chain = air_ir_alloc(p, DEEP * sizeof *chain);
  assert_non_null(chain);
  for (int i = 0; i < DEEP - 1; ++i) {
    chain[i].kind = AIR_ATTR_ARRAY;
    chain[i].n = 1;
    chain[i].elems = &chain[i + 1];
  }
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_print_attr(&sb, p, &chain[0]);
  assert_non_null(strstr(sb.data, "[<<null>>]"));
  air_sb_free(&sb);
}

/*---------------------------------------------------------------------------*/
/* Value naming                                                              */
/*---------------------------------------------------------------------------*/

static air_op_t* call_n(air_program_t* p, air_block_t* b, const char* const* names, uint32_t n) {
  air_op_t* c = mk(p, b, AIR_OP_CALL, 0, NULL, n, 0, 0);
  c->sym = "two";
  for (uint32_t i = 0; i < n; ++i) res(p, c, i, idx_t(p), names[i]);
  return c;
}

static void test_naming(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), tok = tok_t(p);
  air_block_t* t = top(p);
  cst(p, t, 5, idx, "5");
  for (int i = 0; i < 6; ++i) cst(p, t, i, idx, NULL);
  air_vid_t c = cst(p, t, 1, idx, "c");
  cst(p, t, 2, idx, "c");
  cst(p, t, 3, idx, "a b");
  cst(p, t, 4, idx, "1x");
  cst(p, t, 5, idx, "");
  cst(p, t, 6, idx, "-x.$_");

  /* sibling regions reuse names; an inner region cannot hide an outer name, but
   * its names end with it */
  for (int k = 0; k < 2; ++k) {
    air_op_t* f = mk(p, t, AIR_OP_FOR, 3, (air_vid_t[]){c, c, c}, 0, 1, 0);
    air_block_t* b = reg(p, f, 0, 1);
    arg(p, b, 0, idx, "i");
    cst(p, b, 7, idx, "v");
    if (k == 0) cst(p, b, 8, idx, "c");
    if (k == 1) cst(p, b, 9, idx, "late");
  }
  cst(p, t, 10, idx, "late"); /* free again once the loop above is closed */

  air_op_t* g = call_n(p, t, (const char* const[]){"r", "r"}, 2);
  mk(p, t, AIR_OP_ADDI, 2, (air_vid_t[]){g->results[1], g->results[0]}, 0, 0, 0);
  air_op_t* u = call_n(p, t, (const char* const[]){NULL, NULL, NULL}, 3);
  mk(p, t, AIR_OP_ADDI, 2, (air_vid_t[]){u->results[2], 0}, 0, 0, 0);
  call_n(p, t, (const char* const[]){"t", NULL}, 2);
  call_n(p, t, (const char* const[]){"c", "c"}, 2);

  /* func and herd open fresh scopes; a value captured across one keeps its name */
  air_op_t* fn = mk(p, t, AIR_OP_FUNC, 0, NULL, 0, 1, 0);
  fn->sym = "f";
  air_block_t* fb = reg(p, fn, 0, 0);
  air_vid_t fc = cst(p, fb, 0, idx, "c");
  cst(p, fb, 1, idx, "5");
  cst(p, fb, 2, idx, NULL);
  air_op_t* h = mk(p, fb, AIR_OP_HERD, 0, NULL, 0, 1, 0);
  air_block_t* hb = reg(p, h, 0, 0);
  mk(p, hb, AIR_OP_ADDI, 2, (air_vid_t[]){fc, c}, 0, 0, 0);
  air_vid_t ghost = air_ir_value_new(p, tok, NULL, NULL, 0, "ghost");
  air_vid_t anon = air_ir_value_new(p, tok, NULL, NULL, 0, NULL);
  air_op_t* w = mk(p, hb, AIR_OP_WAIT_ALL, 0, NULL, 0, 0, 0);
  set_toks(p, &w->toks[AIR_TOK_DEP], 3, (air_vid_t[]){ghost, anon, 12345});
  term(p, fb, AIR_OP_RETURN);

  char want[2048];
  snprintf(want, sizeof want,
           "%%5 = arith.constant 5 : index\n"
           "%%0 = arith.constant 0 : index\n"
           "%%1 = arith.constant 1 : index\n"
           "%%2 = arith.constant 2 : index\n"
           "%%3 = arith.constant 3 : index\n"
           "%%4 = arith.constant 4 : index\n"
           "%%6 = arith.constant 5 : index\n"
           "%%c = arith.constant 1 : index\n"
           "%%7 = arith.constant 2 : index\n"
           "%%8 = arith.constant 3 : index\n"
           "%%9 = arith.constant 4 : index\n"
           "%%10 = arith.constant 5 : index\n"
           "%%-x.$_ = arith.constant 6 : index\n"
           "scf.for %%i = %%c to %%c step %%c {\n"
           "  %%v = arith.constant 7 : index\n"
           "  %%11 = arith.constant 8 : index\n"
           "}\n"
           "scf.for %%i = %%c to %%c step %%c {\n"
           "  %%v = arith.constant 7 : index\n"
           "  %%late = arith.constant 9 : index\n"
           "}\n"
           "%%late = arith.constant 10 : index\n"
           "%%r:2 = func.call @two() : () -> (index, index)\n"
           "arith.addi %%r#1, %%r#0 : <<null>>\n"
           "%%12:3 = func.call @two() : () -> (index, index, index)\n"
           "arith.addi %%12#2, <<null>> : <<null>>\n"
           "%%t, %%13 = func.call @two() : () -> (index, index)\n"
           "%%14:2 = func.call @two() : () -> (index, index)\n"
           "func.func @f() {\n"
           "  %%c = arith.constant 0 : index\n"
           "  %%5 = arith.constant 1 : index\n"
           "  %%0 = arith.constant 2 : index\n"
           "  air.herd tile () in () {\n"
           "    arith.addi %%c, %%c : <<null>>\n"
           "    air.wait_all [%%ghost, %%<<v%u>>, <<null>>]\n"
           "  }\n"
           "  return\n"
           "}\n",
           (unsigned)anon);
  expect(p, want);
}

/*---------------------------------------------------------------------------*/
/* Broken IR, determinism, out of memory, speed                              */
/*---------------------------------------------------------------------------*/

static void test_broken_ir(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p);
  air_block_t* t = top(p);
  air_vid_t c = cst(p, t, 1, idx, "c");
  air_op_t* h = mk(p, t, AIR_OP_HERD, 0, NULL, 0, 0, 0);
  h->iaux[0] = 5; /* more dims than operands */
  air_op_t* l = mk(p, t, AIR_OP_LAUNCH, 1, &c, 0, 1, 0);
  l->iaux[0] = 1;
  reg(p, l, 0, 0); /* no block arguments, no terminator */
  air_vid_t bad = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, 999, "bad");
  mk(p, t, AIR_OP_IF, 1, &bad, 0, 1, 0); /* region slot left NULL */
  air_op_t* k = mk(p, t, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  k->value.kind = AIR_ATTR_OPAQUE;
  air_op_t* ci = mk(p, t, AIR_OP_CMPI, 2, (air_vid_t[]){c, c}, 0, 0, 0);
  ci->iaux[0] = 99;
  air_op_t* f = mk(p, t, AIR_OP_FUNC, 0, NULL, 0, 0, 0);
  f->iaux[0] = 3; /* more inputs than types */
  mk(p, t, (air_opkind_t)(AIR_OP_COUNT_ + 5), 0, NULL, 0, 0, 0);
  air_op_t* fr = mk(p, t, AIR_OP_FOR, 3, (air_vid_t[]){c, c, c}, 0, 1, 0);
  air_block_t* fb = reg(p, fr, 0, 1);
  arg(p, fb, 0, idx, "i");
  term(p, fb, AIR_OP_YIELD); /* a terminator in the middle is printed */
  cst(p, fb, 2, idx, "after");
  air_tid_t odd = air_ir_type_memref(p, AIR_ELEM_F32, 1, (int64_t[]){4}, -1, NULL);
  res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, odd, "neg");
  air_op_t* wa = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 0, 0, 0);
  air_attr_t unit = {0};
  assert_true(air_ir_attr_set(p, wa, "x", &unit));
  wa->attrs[0].name = NULL;
  air_op_t* dma = mk(p, t, AIR_OP_DMA, 0, NULL, 0, 0, 0);
  (void)dma;
  air_op_t* red = mk(p, t, AIR_OP_REDUCE, 0, NULL, 0, 2, 0);
  (void)red;
  expect(p,
         "%c = arith.constant 1 : index\n"
         "air.herd tile () in ()\n"
         "air.launch (<<null>>) in (<<null>>=%c) {\n"
         "}\n"
         "%bad = memref.alloc() : <<null>>\n"
         "scf.if %bad {\n"
         "}\n"
         "<<null>> = arith.constant <<null>>\n"
         "arith.cmpi ?, %c, %c : index\n"
         "func.func @<<null>>()\n"
         "<<null>>\n"
         "scf.for %i = %c to %c step %c {\n"
         "  scf.yield\n"
         "  %after = arith.constant 2 : index\n"
         "}\n"
         "%neg = memref.alloc() : memref<4xf32, -1>\n"
         "air.wait_all {<<null>>}\n"
         "air.dma_memcpy_nd (<<null>>[] [] [], <<null>>[] [] []) : (<<null>>, <<null>>)\n"
         "scf.reduce {\n"
         "}, {\n"
         "}\n");
}

static void test_deterministic(void** state) {
  air_program_t* p = P(state);
  for (int i = 0; i < 50; ++i) cst(p, top(p), i, idx_t(p), i % 3 ? NULL : "x");
  char* a = print_text(p);
  char* b = print_text(p);
  assert_string_equal(a, b);
  p->allocator.free(p->allocator.self, a);
  p->allocator.free(p->allocator.self, b);
}

static void test_out_of_memory(void** state) {
  air_program_t* p = P(state);
  for (int i = 0; i < 200; ++i) cst(p, top(p), i, idx_t(p), NULL);
  test_budget_t b;
  test_budget_init(&b, -1);
  air_allocator_t a = b.allocator;
  air_allocator_t saved = p->allocator;
  bool failed = false, passed = false;
  for (long n = 0; n < 40 && !passed; ++n) {
    test_budget_set(&b, n);
    p->allocator = a; /* the printer's scratch tables */
    air_sb_t sb;
    air_sb_init(&sb, &a); /* and the output */
    air_status_t s = air_print(p, 0, &sb);
    p->allocator = saved;
    if (s) {
      assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
      air_status_free(s);
      failed = true;
    } else {
      passed = true;
    }
    air_sb_free(&sb);
  }
  assert_true(failed && passed);
}

/* A million ops print in linear time, well under a second. */
static void test_speed(void** state) {
  air_program_t* p = P(state);
  enum { N = 1000000 };
  air_tid_t idx = idx_t(p), tok = tok_t(p);
  air_block_t* t = top(p);
  air_vid_t prev = cst(p, t, 1, idx, "c1");
  air_vid_t tk = 0;
  for (int i = 0; i < N - 1; ++i) {
    if (i % 4 == 3) {
      air_op_t* w = mk(p, t, AIR_OP_WAIT_ALL, 0, NULL, 1, 0, 0);
      w->flags = AIR_OPF_ASYNC;
      if (tk) set_toks(p, &w->toks[AIR_TOK_DEP], 1, &tk);
      tk = res(p, w, 0, tok, i % 8 == 3 ? "t" : NULL);
      continue;
    }
    air_op_t* op = mk(p, t, AIR_OP_ADDI, 2, (air_vid_t[]){prev, prev}, 1, 0, 0);
    prev = res(p, op, 0, idx, i % 2 ? "v" : NULL);
  }
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  double t0 = test_cpu_seconds();
  assert_null(air_print(p, 0, &sb));
  double dt = test_cpu_seconds() - t0;
  print_message("printed %d ops, %zu bytes in %.3f s\n", N, sb.len, dt);
  size_t lines = 0;
  for (size_t i = 0; i < sb.len; ++i) lines += sb.data[i] == '\n';
  assert_int_equal(lines, N);
#ifndef TEST_SANITIZED
  assert_true(dt < 1.0);
#endif
  air_sb_free(&sb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_module_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_func_arith, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hierarchy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_movement, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memref, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scf, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_precedence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_access_and_reshape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_linalg, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attrs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_naming, setup, teardown),
      cmocka_unit_test_setup_teardown(test_broken_ir, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_speed, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

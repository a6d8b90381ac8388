/* test_print_robust.c - the AIR text printer on what goes wrong and on size:
 * broken IR prints without crashing, the same program prints the same text,
 * running out of memory is reported as RESOURCE_EXHAUSTED, a million ops print
 * in linear time. */
#include "print_test.h"

#include "support/alloc.h"
#include "test_clock.h"

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
      cmocka_unit_test_setup_teardown(test_broken_ir, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_speed, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

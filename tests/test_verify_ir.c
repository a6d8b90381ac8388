/* The verifier on hand-built IR, for what text cannot express: a valid program
 * using most op classes, then one edit each breaking [structure], [dominance],
 * [async-result] and [token-list] of builder IR. Shares tests/verify_test.h
 * with test_verify_robust.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "verify_test.h"

static void test_handbuilt_valid(void** state) {
  hb_t h;
  hb_init(&h, *state);
  hb_valid(&h);
  expect(&h, NULL);
}

static void test_structure(void** state) {
  hb_t h;
  /* arith.addi with one operand. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_vid_t c = hb_const(&h, fb, 1);
  air_op_t* add = hb_op(&h, fb, AIR_OP_ADDI, 1, 1, 0, 0);
  add->operands[0] = c;
  hb_res(&h, add, 0, h.index, "x");
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "structure");

  /* A segment body without its terminator. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  air_block_t* sb = seg->regions[0];
  sb->last = sb->last->prev;
  sb->last->next = NULL;
  expect(&h, "structure");

  /* Zero and out-of-range value ids. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* get = find_op(h.p->module, AIR_OP_GET);
  get->operands[0] = 0;
  get->operands[1] = h.p->n_values + 100;
  expect(&h, "structure");

  /* A herd body ended by segment_terminator. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->regions[0]->last->kind = AIR_OP_SEGMENT_TERM;
  expect(&h, "structure");

  /* The get's data operand is an index, not a memref. */
  hb_init(&h, *state);
  hb_valid(&h);
  get = find_op(h.p->module, AIR_OP_GET);
  get->operands[1] = get->operands[0];
  expect(&h, "structure");

  /* Function body arguments that do not match the signature. */
  hb_init(&h, *state);
  air_op_t* f;
  fb = hb_func(&h, &f);
  hb_term(&h, fb, AIR_OP_RETURN);
  f->iaux[0] = 0;
  f->n_types = 0;
  expect(&h, "structure");

  /* An execute whose terminator yields an index for a memref result. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  c = hb_const(&h, fb, 1);
  air_op_t* ex = hb_op(&h, fb, AIR_OP_EXECUTE, 0, 2, 1, 0);
  hb_res(&h, ex, 0, h.token, "t");
  hb_res(&h, ex, 1, h.l3, "m");
  air_block_t* eb = hb_region(&h, ex, 0, 0, NULL);
  air_op_t* et = hb_op(&h, eb, AIR_OP_EXECUTE_TERM, 1, 0, 0, 0);
  et->operands[0] = c;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "execute-region");

  /* A herd size that is not an index, and a hierarchy op with fewer operands
   * than dimensions. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  herd->operands[0] = find_op(h.p->module, AIR_OP_FUNC)->regions[0]->args[0];
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->iaux[0] = 5;
  expect(&h, "structure");
}

static void test_dominance(void** state) {
  hb_t h;
  /* %y = addi %x, %x before %x = constant. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_op_t* add = hb_op(&h, fb, AIR_OP_ADDI, 2, 1, 0, 0);
  hb_res(&h, add, 0, h.index, "y");
  air_vid_t x = hb_const(&h, fb, 1);
  add->operands[0] = add->operands[1] = x;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "dominance");

  /* A value of the then-region used in the else-region. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  air_op_t* cst = hb_op(&h, fb, AIR_OP_CONSTANT, 0, 1, 0, 0);
  cst->value.kind = AIR_ATTR_INT;
  cst->value.i = 1;
  air_vid_t cond = hb_res(&h, cst, 0, air_ir_type_scalar(h.p, AIR_ELEM_I1), "cond");
  air_op_t* iff = hb_op(&h, fb, AIR_OP_IF, 1, 0, 2, 0);
  iff->operands[0] = cond;
  air_block_t* tb = hb_region(&h, iff, 0, 0, NULL);
  air_block_t* eb = hb_region(&h, iff, 1, 0, NULL);
  air_vid_t inner = hb_const(&h, tb, 3);
  hb_term(&h, tb, AIR_OP_YIELD);
  air_op_t* use = hb_op(&h, eb, AIR_OP_ADDI, 2, 1, 0, 0);
  use->operands[0] = use->operands[1] = inner;
  hb_res(&h, use, 0, h.index, NULL);
  hb_term(&h, eb, AIR_OP_YIELD);
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "dominance");

  /* An op using its own result inside its region. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* launch = find_op(h.p->module, AIR_OP_LAUNCH);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  assert_true(air_ir_vlist_init(h.p, &seg->toks[AIR_TOK_DEP], 1));
  seg->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  expect(&h, "dominance");
}

static void test_async_result(void** state) {
  hb_t h;
  /* async without a token result. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0)->flags |= AIR_OPF_ASYNC;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");

  /* A token result without async. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  air_vid_t t = hb_res(&h, w, 0, h.token, "t");
  air_op_t* w2 = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w2->toks[AIR_TOK_DEP], 1));
  w2->toks[AIR_TOK_DEP].items[0] = t;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");

  /* An async token that is neither named nor used ... */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  w->flags |= AIR_OPF_ASYNC;
  hb_res(&h, w, 0, h.token, NULL);
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");
  /* ... is fine once named. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  w->flags |= AIR_OPF_ASYNC;
  hb_res(&h, w, 0, h.token, "done");
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, NULL);
}

static void test_token_list(void** state) {
  hb_t h;
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_vid_t c = hb_const(&h, fb, 1);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = c;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "token-list");

  /* A dependency list on an arith op. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* launch = find_op(h.p->module, AIR_OP_LAUNCH);
  air_op_t* wait = find_op(h.p->module, AIR_OP_WAIT_ALL);
  air_op_t* cst = find_op(launch, AIR_OP_CONSTANT);
  cst->toks[AIR_TOK_DEP] = wait->toks[AIR_TOK_DEP];
  expect(&h, "token-list");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_handbuilt_valid), cmocka_unit_test(test_structure),
      cmocka_unit_test(test_dominance),       cmocka_unit_test(test_async_result),
      cmocka_unit_test(test_token_list),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

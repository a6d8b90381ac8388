/* print_test.h - what the printer tests (test_print.c, test_print_affine.c,
 * test_print_attrs.c, test_print_robust.c) share: the fixture (a context and an
 * empty program), shorthands that build IR by hand (ops, results, regions,
 * block arguments, terminators, constants, lists, types), and the checks on the
 * printed text of a program or an attribute. Header-only (static inline);
 * include after <cmocka.h>. */
#ifndef AIR_TESTS_PRINT_TEST_H_
#define AIR_TESTS_PRINT_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/context.h"
#include "runtime/ir/ir.h"
#include "runtime/text/print.h"
#include "runtime/text/print_attr.h"

/*---------------------------------------------------------------------------*/
/* IR building shorthands                                                    */
/*---------------------------------------------------------------------------*/

typedef struct fx_t {
  air_context_t* ctx;
  air_program_t* p;
} fx_t;

static inline int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  if (!f || air_context_create(NULL, NULL, &f->ctx)) return -1;
  if (air_ir_program_new(f->ctx, "test.mlir", &f->p)) return -1;
  *state = f;
  return 0;
}

static inline int teardown(void** state) {
  fx_t* f = *state;
  air_ir_program_free(f->p);
  air_context_destroy(f->ctx);
  free(f);
  return 0;
}

static inline air_program_t* P(void** state) { return ((fx_t*)*state)->p; }
static inline air_block_t* top(air_program_t* p) { return p->module->regions[0]; }

/* An op appended to `b` (when not NULL) with operands copied from `ops`. */
static inline air_op_t* mk(air_program_t* p, air_block_t* b, air_opkind_t k, uint32_t n_ops,
                           const air_vid_t* ops, uint32_t n_res, uint32_t n_reg, uint32_t n_lists) {
  air_op_t* op = air_ir_op_new(p, k, 0, 0, n_ops, n_res, n_reg, n_lists);
  assert_non_null(op);
  for (uint32_t i = 0; i < n_ops; ++i) op->operands[i] = ops[i];
  if (b) air_ir_block_append(b, op);
  return op;
}

static inline air_vid_t res(air_program_t* p, air_op_t* op, uint32_t i, air_tid_t t,
                            const char* name) {
  air_vid_t v = air_ir_value_new(p, t, op, NULL, i, name);
  assert_true(v != 0);
  op->results[i] = v;
  return v;
}

static inline air_block_t* reg(air_program_t* p, air_op_t* op, uint32_t i, uint32_t n_args) {
  air_block_t* b = air_ir_block_new(p, op, n_args);
  assert_non_null(b);
  op->regions[i] = b;
  return b;
}

static inline air_vid_t arg(air_program_t* p, air_block_t* b, uint32_t i, air_tid_t t,
                            const char* name) {
  air_vid_t v = air_ir_value_new(p, t, NULL, b, i, name);
  assert_true(v != 0);
  b->args[i] = v;
  return v;
}

/* A zero-operand terminator at the end of `b`. */
static inline air_op_t* term(air_program_t* p, air_block_t* b, air_opkind_t k) {
  return mk(p, b, k, 0, NULL, 0, 0, 0);
}

static inline air_op_t* term1(air_program_t* p, air_block_t* b, air_opkind_t k, air_vid_t v) {
  return mk(p, b, k, 1, &v, 0, 0, 0);
}

static inline air_attr_t int_attr(int64_t v, air_tid_t t) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_INT;
  a.i = v;
  a.type = t;
  return a;
}

static inline air_attr_t str_attr(const char* s) {
  air_attr_t a = {0};
  a.kind = AIR_ATTR_STRING;
  a.s = s;
  a.n = (uint32_t)strlen(s);
  return a;
}

static inline air_vid_t cst(air_program_t* p, air_block_t* b, int64_t v, air_tid_t t,
                            const char* name) {
  air_op_t* op = mk(p, b, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  op->value = int_attr(v, t);
  return res(p, op, 0, t, name);
}

static inline void set_list(air_program_t* p, air_ixlist_t* l, uint32_t n, const air_ix_t* items) {
  assert_true(air_ir_list_init(p, l, n));
  for (uint32_t i = 0; i < n; ++i) l->items[i] = items[i];
}

static inline void set_toks(air_program_t* p, air_vlist_t* l, uint32_t n, const air_vid_t* v) {
  assert_true(air_ir_vlist_init(p, l, n));
  for (uint32_t i = 0; i < n; ++i) l->items[i] = v[i];
}

static inline air_tid_t idx_t(air_program_t* p) { return air_ir_type_scalar(p, AIR_ELEM_INDEX); }
static inline air_tid_t f32_t(air_program_t* p) { return air_ir_type_scalar(p, AIR_ELEM_F32); }
static inline air_tid_t tok_t(air_program_t* p) { return air_ir_type_token(p, false); }
static inline air_tid_t memref1(air_program_t* p, air_elem_kind_t e, int64_t n, int32_t space) {
  return air_ir_type_memref(p, e, 1, &n, space, NULL);
}
static inline air_tid_t memref2(air_program_t* p, air_elem_kind_t e, int64_t a, int64_t b,
                                int32_t space, const char* layout) {
  int64_t s[2] = {a, b};
  return air_ir_type_memref(p, e, 2, s, space, layout);
}

static inline char* print_text(air_program_t* p) {
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_status_t s = air_print(p, 0, &sb);
  if (s) fail_msg("air_print: %s", air_status_message(s));
  char* t = air_sb_take(&sb, NULL);
  assert_non_null(t);
  return t;
}

static inline void expect(air_program_t* p, const char* want) {
  char* got = print_text(p);
  if (strcmp(got, want) != 0) print_message("--- got:\n%s--- want:\n%s---\n", got, want);
  assert_string_equal(got, want);
  p->allocator.free(p->allocator.self, got);
}

static inline void expect_attr(air_program_t* p, const air_attr_t* a, const char* want) {
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_print_attr(&sb, p, a);
  char* got = air_sb_take(&sb, NULL);
  assert_non_null(got);
  assert_string_equal(got, want);
  p->allocator.free(p->allocator.self, got);
}

#endif /* AIR_TESTS_PRINT_TEST_H_ */

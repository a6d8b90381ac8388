/* test_print_attrs.c - the AIR text printer on hand-built IR: attributes and
 * literals (unit, bool, integers, floats of every width, strings, arrays,
 * dictionaries, dense, types, symbol references, aliases) and how values are
 * named in the text. */
#include <math.h>

#include "print_test.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_attrs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_naming, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_parse_forms.c - the AIR text parser on inline cases: implicit
 * terminators, SSA scoping, first-line offsets, affine expressions, opaque and
 * skipped text, nesting limits, scaling, spellings of types and tokens,
 * placements and the other spec forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "parse_test.h"

/*---------------------------------------------------------------------------*/
/* Inline cases                                                              */
/*---------------------------------------------------------------------------*/

static void test_implicit_terminators(void** state) {
  air_program_t* p = parse_ok(*state,
                              "func.func @f(%lb: index, %c: i1) {\n"
                              "  scf.for %i = %lb to %lb step %lb {\n"
                              "  }\n"
                              "  affine.for %j = 0 to 4 {\n"
                              "  }\n"
                              "  scf.if %c {\n"
                              "  } else {\n"
                              "  }\n"
                              "  %t = air.execute {\n"
                              "  }\n"
                              "  scf.parallel (%k) = (%lb) to (%lb) step (%lb) {\n"
                              "  }\n"
                              "  return\n"
                              "}\n");
  assert_int_equal(nth_op(p, AIR_OP_FOR, 0)->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_FOR, 0)->regions[0]->last->kind,
                   AIR_OP_AFFINE_YIELD);
  air_op_t* iff = nth_op(p, AIR_OP_IF, 0);
  assert_int_equal(iff->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(iff->regions[1]->last->kind, AIR_OP_YIELD);
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(ex->regions[0]->last->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(ex->regions[0]->last->line, 10);
  assert_int_equal(nth_op(p, AIR_OP_PARALLEL, 0)->regions[0]->last->kind, AIR_OP_REDUCE);
  air_ir_program_free(p);

  /* iter_args need their yield; results of scf.if need both branches */
  expect_error_at(*state,
                  "func.func @f(%lb: index) {\n"
                  "  %r = scf.for %i = %lb to %lb step %lb iter_args(%a = %lb) -> (index) {\n"
                  "  }\n  return\n}\n",
                  3, 3, "the body of 'scf.for' must end with 'scf.yield'");
  expect_error_at(*state,
                  "func.func @f(%lb: index) {\n"
                  "  %r = scf.for %i = %lb to %lb step %lb iter_args(%a = %lb) -> (index) {\n"
                  "    scf.yield\n  }\n  return\n}\n",
                  3, 5, "'scf.yield' yields 0 values but 'scf.for' has 1 result");
}

static void test_ssa_scoping(void** state) {
  /* Isolated bodies may reuse outer names; outer values used inside still
   * resolve (the verifier reports the isolation breach, not the parser). */
  air_program_t* p = parse_ok(*state,
                              "func.func @f(%a: memref<4xf32>) {\n"
                              "  %c1 = arith.constant 1 : index\n"
                              "  air.launch (%x) in (%n=%c1) args(%a=%a) : memref<4xf32> {\n"
                              "    %c1 = arith.constant 1 : index\n"
                              "    %u = arith.addi %c1, %c1 : index\n"
                              "  }\n"
                              "  air.launch (%x) in (%n=%c1) {\n"
                              "    %v = arith.addi %c1, %c1 : index\n"
                              "  }\n"
                              "  return\n"
                              "}\n");
  air_op_t* l0 = nth_op(p, AIR_OP_LAUNCH, 0);
  air_op_t* outer_c1 = nth_op(p, AIR_OP_CONSTANT, 0);
  air_op_t* inner_c1 = nth_op(p, AIR_OP_CONSTANT, 1);
  assert_ptr_equal(air_ir_value(p, l0->operands[1])->block, nth_op(p, AIR_OP_FUNC, 0)->regions[0]);
  assert_string_equal(vname(p, l0->regions[0]->args[2]), "a");
  assert_int_not_equal(l0->regions[0]->args[2], l0->operands[1]);
  assert_int_equal(nth_op(p, AIR_OP_ADDI, 0)->operands[0], inner_c1->results[0]);
  assert_int_equal(nth_op(p, AIR_OP_ADDI, 1)->operands[0], outer_c1->results[0]);
  air_ir_program_free(p);

  /* Names of sibling regions are independent; results live after their op. */
  p = parse_ok(*state,
               "func.func @g(%c: i1) {\n"
               "  scf.if %c {\n    %x = arith.constant 1 : index\n  }\n"
               "  scf.if %c {\n    %x = arith.constant 2 : index\n  }\n"
               "  %x = arith.constant 3 : index\n"
               "  return\n}\n");
  assert_int_equal(count_ops(p, AIR_OP_CONSTANT), 3);
  air_ir_program_free(p);

  /* A forward reference becomes the definition itself. */
  p = parse_ok(*state,
               "func.func @h() {\n"
               "  %w = air.wait_all async [%t]\n"
               "  %t = air.wait_all async\n"
               "  return\n}\n");
  air_op_t* w = nth_op(p, AIR_OP_WAIT_ALL, 0);
  air_op_t* t = nth_op(p, AIR_OP_WAIT_ALL, 1);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], t->results[0]);
  assert_ptr_equal(air_ir_value(p, t->results[0])->def, t);
  air_ir_program_free(p);

  expect_error_at(*state,
                  "func.func @h() {\n  %w = air.wait_all async [%t]\n  return\n}\n"
                  "func.func @k() {\n  %t = air.wait_all async\n  return\n}\n",
                  2, 28, "use of undefined value '%t'");
  expect_error_at(*state,
                  "func.func @h(%a: index) {\n"
                  "  %s = arith.addi %b#2, %a : index\n"
                  "  %b:2 = air.execute -> (index) {\n"
                  "    air.execute_terminator %a : index\n  }\n  return\n}\n",
                  2, 19, "use of '%b#2', but its definition at 3:3 has 2 values");
}

static void test_first_line_offset(void** state) {
  const char* text = "func.func @f() {\n  %0 = foo.bar\n}\n";
  air_program_t* p;
  air_status_t s = parse_n(*state, text, strlen(text), 41, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:42:8: error: unsupported operation"));
  air_status_free(s);
  /* a byte-order mark is skipped and not counted in columns */
  s = parse_n(*state, "\xEF\xBB\xBF$", 4, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:1:1: error: unexpected character '$'"));
  air_status_free(s);
  /* ops carry offset locations too */
  s = parse_n(*state, "\n  %c = arith.constant 0 : index\n", 32, 10, &p);
  assert_null(s);
  air_op_t* c = nth_op(p, AIR_OP_CONSTANT, 0);
  assert_int_equal(c->line, 11);
  assert_int_equal(c->col, 3);
  air_ir_program_free(p);
}

static void test_affine_expressions(void** state) {
  air_program_t* p = parse_ok(*state,
                              "#m = affine_map<(d0, d1)[s0] -> (d0 - d1, -d0, (d0 + 3) floordiv 2, "
                              "d1 ceildiv 4, d0 mod 5, d0 * -3 + s0, -7)>\n"
                              "#s = affine_set<(i) : (i <= 5, i == 2, 3 >= i)>\n");
  const air_affine_map_t* m = p->aliases[0].value.map;
  assert_int_equal(m->n_dims, 2);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 7);
  const air_aff_t* sub = m->results[0];
  assert_int_equal(sub->kind, AIR_AFF_ADD);
  assert_int_equal(sub->rhs->kind, AIR_AFF_MUL);
  assert_int_equal(sub->rhs->lhs->kind, AIR_AFF_DIM);
  assert_int_equal(sub->rhs->lhs->value, 1);
  assert_int_equal(sub->rhs->rhs->value, -1);
  assert_int_equal(m->results[1]->kind, AIR_AFF_MUL);
  assert_int_equal(m->results[2]->kind, AIR_AFF_FLOORDIV);
  assert_int_equal(m->results[3]->kind, AIR_AFF_CEILDIV);
  assert_int_equal(m->results[4]->kind, AIR_AFF_MOD);
  assert_int_equal(m->results[6]->kind, AIR_AFF_CONST);
  assert_int_equal(m->results[6]->value, -7);
  int64_t d[2] = {-7, 10}, s[1] = {100}, want[7] = {-17, 7, -2, 3, 3, 121, -7}, v;
  for (int i = 0; i < 7; ++i) {
    assert_true(air_aff_eval(m->results[i], d, s, &v));
    assert_int_equal(v, want[i]);
  }
  const air_affine_set_t* st = p->aliases[1].value.set;
  assert_int_equal(st->n_constraints, 3);
  assert_false(st->is_eq[0]);
  assert_true(st->is_eq[1]);
  int64_t di[1] = {2};
  for (int i = 0; i < 3; ++i) {
    assert_true(air_aff_eval(st->constraints[i], di, NULL, &v));
    assert_true(i == 1 ? v == 0 : v >= 0);
  }
  air_ir_program_free(p);
}

static void test_opaque_and_skipped_text(void** state) {
  air_program_t* p = parse_ok(*state,
                              "#loc = loc(\"x.py\":1:2)\n"
                              "ml_program.global private @g(dense<[1.0,\n"
                              "    2.0]> : tensor<2xf32>) : tensor<2xf32>\n"
                              "func.func @f() {\n  return loc(#loc)\n} loc(#loc)\n"
                              "{-# dialect_resources: { builtin: { } } #-}\n");
  air_op_t* op = p->module->regions[0]->first;
  assert_int_equal(op->kind, AIR_OP_OPAQUE);
  assert_string_equal(op->text, "ml_program.global private @g(dense<[1.0,\n    2.0]> : "
                                "tensor<2xf32>) : tensor<2xf32>");
  assert_int_equal(p->n_warnings, 1);
  assert_non_null(strstr(p->warnings[0], "<input>:2:1: warning:"));
  assert_int_equal(p->n_aliases, 0);
  assert_int_equal(op->next->kind, AIR_OP_FUNC);
  air_ir_program_free(p);
  /* inside a region another dialect is an error, as is an unknown air op */
  expect_error_at(*state, "func.func @f() {\n  ml_program.global @g : memref<2xf32>\n}\n", 2, 3,
                  "unsupported operation 'ml_program.global'");
  expect_error_at(*state, "air.bogus @r {\n}\n", 1, 1, "unsupported operation 'air.bogus'");
  /* kept text must be balanced, or its extent would change when printed back */
  expect_error_at(*state, "foo.bar(1))\n", 1, 11, "unbalanced ')' in operation 'foo.bar'");
  expect_error_at(*state, "foo.bar(1]\n", 1, 10, "unbalanced ']' in operation 'foo.bar'");
}

static void test_nesting_limits(void** state) {
  enum { DEEP = 300 };
  char* text = malloc(DEEP * 64 + 64);
  assert_non_null(text);
  size_t n = 0;
  n += (size_t)sprintf(text + n, "func.func @f(%%c: i1) {\n");
  for (int i = 0; i < DEEP; ++i) n += (size_t)sprintf(text + n, "scf.if %%c {\n");
  for (int i = 0; i < DEEP; ++i) n += (size_t)sprintf(text + n, "}\n");
  n += (size_t)sprintf(text + n, "return\n}\n");
  air_program_t* p;
  air_status_t s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "nested more than 256 deep"));
  air_status_free(s);
  free(text);

  enum { BRACKETS = 100000 };
  text = malloc(BRACKETS + 64);
  assert_non_null(text);
  n = (size_t)sprintf(text, "air.channel @c [1] {a = ");
  memset(text + n, '[', BRACKETS);
  n += BRACKETS;
  s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "attribute nesting is too deep"));
  air_status_free(s);
  n = (size_t)sprintf(text, "#m = affine_map<(d0) -> (");
  memset(text + n, '(', BRACKETS);
  n += BRACKETS;
  s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "affine expression nesting is too deep"));
  air_status_free(s);
  free(text);
}

/* Linear time: a large program parses, and 4x the ops costs well under 16x. */
static double parse_time(air_context_t* ctx, int n_ops) {
  size_t cap = (size_t)n_ops * 64 + 256, n = 0;
  char* text = malloc(cap);
  assert_non_null(text);
  n += (size_t)sprintf(text + n, "func.func @big() {\n  %%c1 = arith.constant 1 : index\n"
                                 "  %%t0 = air.wait_all async\n");
  for (int i = 1; i < n_ops / 2; ++i)
    n += (size_t)sprintf(text + n, "  %%v%d = arith.addi %%c1, %%c1 : index\n"
                                   "  %%t%d = air.wait_all async [%%t%d]\n",
                         i, i, i - 1);
  n += (size_t)sprintf(text + n, "  return\n}\n");
  air_program_t* p;
  clock_t t0 = clock();
  air_status_t s = parse_n(ctx, text, n, 1, &p);
  double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
  assert_null(s);
  assert_int_equal(p->n_values, (uint32_t)(2 + 2 * (n_ops / 2 - 1) + 1));
  air_ir_program_free(p);
  free(text);
  return dt;
}

static void test_scaling(void** state) {
  double small = parse_time(*state, 50000);
  double big = parse_time(*state, 200000);
  if (small > 0.01) assert_true(big < small * 16);
}

static void test_type_and_token_spellings(void** state) {
  air_program_t* p = parse_ok(*state,
                              "!t = !air.token\n"
                              "func.func @f(%a: !t, %b: !air.async.token,\n"
                              "    %m: memref<?x8xbf16, 2 : i32>, %n: memref<f16>, %k: i16) {\n"
                              "  %w = air.wait_all async [%a, %b]\n"
                              "  %o = arith.constant 1 : index\n"
                              "  %x = memref.alloc(%o) : memref<?x8xbf16, 2>\n"
                              "  %y = memref.load %x[%o, %o] : memref<?x8xbf16, 2>\n"
                              "  return\n}\n");
  air_op_t* fn = nth_op(p, AIR_OP_FUNC, 0);
  const air_type_info_t* a = air_ir_type(p, fn->types[0]);
  const air_type_info_t* b = air_ir_type(p, fn->types[1]);
  assert_int_equal(a->kind, AIR_TYPE_TOKEN);
  assert_false(a->old_spelling);
  assert_true(b->old_spelling);
  const air_type_info_t* m = air_ir_type(p, fn->types[2]);
  assert_int_equal(m->rank, 2);
  assert_true(m->shape[0] == AIR_DIM_DYNAMIC);
  assert_int_equal(m->shape[1], 8);
  assert_int_equal(m->elem, AIR_ELEM_BF16);
  assert_int_equal(m->memspace, 2);
  assert_null(m->layout);
  assert_int_equal(air_ir_type(p, fn->types[3])->rank, 0);
  assert_int_equal(fn->types[2], air_ir_value_type(p, nth_op(p, AIR_OP_ALLOC, 0)->results[0]));
  assert_int_equal(nth_op(p, AIR_OP_ALLOC, 0)->n_operands, 1);
  assert_int_equal(vtype(p, nth_op(p, AIR_OP_LOAD, 0)->results[0])->elem, AIR_ELEM_BF16);
  air_ir_program_free(p);
}

static void test_bracketed_placement(void** state) {
  /* The spec writes optional parts in brackets; `[x_loc=0]` is taken as written. */
  air_program_t* p = parse_ok(*state,
                              "func.func @f() {\n"
                              "  %c2 = arith.constant 2 : index\n"
                              "  air.launch {\n"
                              "    air.segment @s [x_loc=1] [y_loc=2] [backend-granularity=XCD] {\n"
                              "      %c1 = arith.constant 1 : index\n"
                              "      air.herd @h tile (%x) in (%sx=%c1) [link_with=\"k.o\"] {\n"
                              "      }\n    }\n  }\n  return\n}\n");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(seg->n_attrs, 3);
  assert_int_equal(attr(seg, "y_loc")->i, 2);
  assert_string_equal(attr(seg, "backend-granularity")->s, "XCD");
  assert_string_equal(attr(nth_op(p, AIR_OP_HERD, 0), "link_with")->s, "k.o");
  assert_int_equal(nth_op(p, AIR_OP_LAUNCH, 0)->regions[0]->last->kind, AIR_OP_LAUNCH_TERM);
  air_ir_program_free(p);
}

static void test_misc_forms(void** state) {
  air_program_t* p = parse_ok(*state,
                              "air.channel @c []\n"
                              "func.func private @k(memref<4xf32>) -> i32\n"
                              "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {\n"
                              "  air.launch @remote\n"
                              "  %t = air.channel.put async @c[] (%a[] [] []) dest(%b) "
                              ": (memref<4xf32>, memref<4xf32>)\n"
                              "  %g = air.channel.get [%t] @c (%b) : (memref<4xf32>)\n"
                              "  %r = call @k(%a) : (memref<4xf32>) -> i32\n"
                              "  %s = arith.addi %r, %r overflow<nsw> : i32\n"
                              "  return\n}\n");
  air_op_t* l = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_string_equal(l->sym, "remote");
  assert_int_equal(l->n_regions, 0);
  assert_int_equal(l->n_results, 0);
  air_op_t* put = nth_op(p, AIR_OP_PUT, 0);
  assert_true(put->flags & AIR_OPF_HAS_DEST);
  assert_int_equal(put->n_operands, 2);
  assert_string_equal(vname(p, put->operands[1]), "b");
  assert_int_equal(put->iaux[0], 0);
  air_op_t* get = nth_op(p, AIR_OP_GET, 0);
  assert_true(get->flags & AIR_OPF_ASYNC);
  for (int i = 0; i < 3; ++i) assert_int_equal(get->lists[i].n, 0);
  air_op_t* call = nth_op(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "k");
  assert_int_equal(vtype(p, call->results[0])->elem, AIR_ELEM_I32);
  assert_int_equal(nth_op(p, AIR_OP_FUNC, 0)->n_types, 2);
  assert_int_equal(nth_op(p, AIR_OP_CHANNEL, 0)->lists[0].n, 0);
  assert_int_equal(nth_op(p, AIR_OP_RETURN, 0)->n_operands, 0);
  air_ir_program_free(p);
}

/* affine.load/store subscripts become a map over the distinct SSA values (dims in
 * order of first use, then `symbol(...)` values); min/max keep multi-result maps;
 * reshapes keep their reassociation as indices plus group sizes. */
static void test_affine_access_and_reshape(void** state) {
  air_program_t* p = parse_ok(
      *state,
      "func.func @f(%m: memref<4x8xf32, 2>, %i: index, %j: index, %s: index) {\n"
      "  %v = affine.load %m[%j * 2 + %i, symbol(%s) - %j] : memref<4x8xf32, 2>\n"
      "  affine.store %v, %m[%i, 3] : memref<4x8xf32, 2>\n"
      "  %a = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%s]\n"
      "  %b = affine.max affine_map<(d0) -> (d0, 2)>(%j)\n"
      "  %c = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32, 2> into memref<32xf32, 2>\n"
      "  %e = memref.expand_shape %c [[0, 1]] output_shape [%i, 8] : memref<32xf32, 2> into "
      "memref<?x8xf32, 2>\n"
      "  %d = memref.cast %m : memref<4x8xf32, 2> to memref<?x8xf32, 2>\n"
      "  return\n}\n");
  air_op_t* ld = nth_op(p, AIR_OP_AFFINE_LOAD, 0);
  assert_int_equal(air_opkind_class(ld->kind), AIR_OPC_LOAD);
  assert_int_equal(ld->n_operands, 4); /* memref, %j, %i, %s */
  assert_int_equal(ld->iaux[0], 2);
  assert_string_equal(vname(p, ld->operands[1]), "j");
  assert_string_equal(vname(p, ld->operands[2]), "i");
  assert_string_equal(vname(p, ld->operands[3]), "s");
  const air_affine_map_t* m = ld->value.map;
  assert_int_equal(ld->value.kind, AIR_ATTR_MAP);
  assert_int_equal(m->n_dims, 2);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 2);
  int64_t dims[2] = {5, 1}, syms[1] = {7}, out;
  assert_true(air_aff_eval(m->results[0], dims, syms, &out));
  assert_int_equal(out, 11);
  assert_true(air_aff_eval(m->results[1], dims, syms, &out));
  assert_int_equal(out, 2);
  assert_int_equal(ld->n_results, 1);
  air_op_t* stv = nth_op(p, AIR_OP_AFFINE_STORE, 0);
  assert_int_equal(stv->n_operands, 3); /* value, memref, %i */
  assert_int_equal(stv->value.map->n_results, 2);
  assert_int_equal(stv->value.map->results[1]->kind, AIR_AFF_CONST);
  air_op_t* mn = nth_op(p, AIR_OP_AFFINE_MIN, 0);
  assert_int_equal(mn->value.map->n_results, 2);
  assert_int_equal(mn->iaux[0], 1);
  assert_int_equal(mn->n_operands, 2);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_MAX, 0)->n_operands, 1);
  air_op_t* co = nth_op(p, AIR_OP_COLLAPSE_SHAPE, 0);
  assert_int_equal(co->n_lists, 2);
  assert_int_equal(co->lists[0].n, 2);
  assert_int_equal(co->lists[1].n, 1);
  assert_int_equal(co->lists[1].items[0].cst, 2);
  air_op_t* ex = nth_op(p, AIR_OP_EXPAND_SHAPE, 0);
  assert_int_equal(ex->n_lists, 3);
  assert_string_equal(vname(p, ex->lists[2].items[0].value), "i");
  assert_int_equal(ex->lists[2].items[1].cst, 8);
  air_op_t* ca = nth_op(p, AIR_OP_MEMREF_CAST, 0);
  assert_int_equal(ca->n_lists, 0);
  assert_int_equal(vtype(p, ca->results[0])->shape[0], AIR_DIM_DYNAMIC);
  air_ir_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_implicit_terminators, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_ssa_scoping, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_first_line_offset, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_affine_expressions, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_opaque_and_skipped_text, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_nesting_limits, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_scaling, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_type_and_token_spellings, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_bracketed_placement, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_misc_forms, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_affine_access_and_reshape, test_context_setup, test_context_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

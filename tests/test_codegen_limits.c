/* test_codegen_limits.c - where compiled code stops or stays out: errors that
 * stop at the op the interpreter names after the same stores, a unit declining a
 * view its static type does not describe (the caller interprets), what the
 * compiled set leaves to the interpreter and the compile cost it reports, and
 * the same units as x86-64 objects and amdgcn IR. Shares tests/codegen_test.h
 * with test_codegen.c (the compiled-vs-interpreter value cases). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen_test.h"

/* Errors stop at the op the interpreter names, after the same stores. */
static void test_errors(void** state) {
  const char* oob =
      "func.func @f(%n: index, %a: memref<16xi32>, %r: memref<1xindex>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  scf.for %i = %c0 to %n step %c1 {\n"
      "    %v = arith.index_cast %i : index to i32\n"
      "    memref.store %v, %a[%i] : memref<16xi32>\n"
      "  }\n"
      "  return\n"
      "}\n";
  static int32_t a[16];
  static int64_t r[1];
  int64_t n16 = 16, n1 = 1;
  case_t c = {.text = oob, .n_args = 3, .want_code = AIR_CG_OOB, .fail_kind = AIR_OP_STORE};
  c.args[0] = iarg(AIR_ELEM_INDEX, 20);
  c.args[1] = mref(a, AIR_ELEM_I32, 1, &n16, NULL, 0);
  c.args[2] = mref(r, AIR_ELEM_INDEX, 1, &n1, NULL, 0);
  c.bytes[1] = sizeof a;
  c.bytes[2] = sizeof r;
  run_case(*state, &c);

  const char* div =
      "func.func @f(%n: index, %a: memref<16xi32>, %r: memref<1xindex>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %c5 = arith.constant 5 : i32\n"
      "  scf.for %i = %c0 to %n step %c1 {\n"
      "    %v = memref.load %a[%i] : memref<16xi32>\n"
      "    %q = arith.divsi %c5, %v : i32\n"
      "    memref.store %q, %a[%i] : memref<16xi32>\n"
      "  }\n"
      "  return\n"
      "}\n";
  for (int i = 0; i < 16; ++i) a[i] = i == 9 ? 0 : i + 1;
  c.text = div;
  c.args[0] = iarg(AIR_ELEM_INDEX, 16);
  c.want_code = AIR_CG_DIV;
  c.fail_kind = AIR_OP_DIVSI;
  run_case(*state, &c);

  const char* step =
      "func.func @f(%s: index, %a: memref<16xi32>, %r: memref<1xindex>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c9 = arith.constant 9 : index\n"
      "  scf.for %i = %c0 to %c9 step %s {\n"
      "    %v = arith.index_cast %i : index to i32\n"
      "    memref.store %v, %a[%i] : memref<16xi32>\n"
      "  }\n"
      "  return\n"
      "}\n";
  c.text = step;
  c.args[0] = iarg(AIR_ELEM_INDEX, 0);
  c.want_code = AIR_CG_STEP;
  c.fail_kind = AIR_OP_FOR;
  run_case(*state, &c);
}

/* A view whose shape differs from its static type: the unit declines before any
 * side effect, so the caller can interpret. */
static void test_fallback(void** state) {
  fx_t* f = *state;
  air_program_t* p = load_text(
      f,
      "func.func @f(%a: memref<8xf32>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c8 = arith.constant 8 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %k = arith.constant 2.0 : f32\n"
      "  scf.for %i = %c0 to %c8 step %c1 {\n"
      "    memref.store %k, %a[%i] : memref<8xf32>\n"
      "  }\n"
      "  return\n"
      "}\n");
  const air_op_t* unit = first_unit(p, test_find_func(p, "f"));
  assert_non_null(unit);
  const air_cg_hooks_t* h = air_cg_hooks();
  air_allocator_t al;
  air_allocator_init_system(&al);
  air_cg_program_t* cp = NULL;
  test_check(h->compile(&al, p, &cp));
  const air_cg_unit_t* u = h->find(cp, unit);
  assert_non_null(u);
  float data[16] = {0};
  int64_t n8 = 8, n16 = 16;
  air_arg_t good = mref(data, AIR_ELEM_F32, 1, &n8, NULL, 0);
  air_arg_t wrong = mref(data, AIR_ELEM_F32, 1, &n16, NULL, 0);
  air_arg_t strided = good;
  strided.memref.strides[0] = 2;
  air_cg_word_t in[8], out[1];
  /* Inputs: a, then the constants (defined outside the loop). */
  for (uint32_t i = 0; i < u->n_in; ++i) {
    const air_op_t* def = air_ir_value(p, u->in[i])->def;
    if (!def) {
      in[i].m = &good.memref;
    } else {
      const air_attr_t* v = air_ir_attr_resolve(p, &def->value);
      if (v->kind == AIR_ATTR_FLOAT) in[i].f = v->f;
      else in[i].i = v->i;
    }
  }
  air_cg_frame_t fr = {.in = in, .out = out};
  assert_int_equal(u->fn(&fr), AIR_CG_OK);
  for (int i = 0; i < 8; ++i) assert_true(data[i] == 2.0f);
  assert_true(data[8] == 0.0f);
  memset(data, 0, sizeof data);
  for (uint32_t i = 0; i < u->n_in; ++i)
    if (!air_ir_value(p, u->in[i])->def) in[i].m = &wrong.memref;
  assert_int_equal(u->fn(&fr), AIR_CG_FALLBACK);
  for (uint32_t i = 0; i < u->n_in; ++i)
    if (!air_ir_value(p, u->in[i])->def) in[i].m = &strided.memref;
  assert_int_equal(u->fn(&fr), AIR_CG_FALLBACK);
  for (int i = 0; i < 16; ++i) assert_true(data[i] == 0.0f);
  h->release(cp);
  air_program_destroy(p);
}

/* What is not covered stays out of the compiled set (the interpreter runs it),
 * and the compile cost is reported. */
static void test_coverage_and_stats(void** state) {
  fx_t* f = *state;
  air_program_t* p = load_text(
      f,
      "func.func @f(%a: memref<8xf32>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c8 = arith.constant 8 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  scf.for %i = %c0 to %c8 step %c1 {\n"
      "    %b = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>\n"
      "  }\n"
      "  scf.for %i = %c0 to %c8 step %c1 {\n"
      "    %x = memref.load %a[%i] : memref<8xf32>\n"
      "    memref.store %x, %a[%i] : memref<8xf32>\n"
      "  }\n"
      "  return\n"
      "}\n");
  const air_op_t* fn = test_find_func(p, "f");
  const air_op_t* loops[2];
  int n = 0;
  for (const air_op_t* o = fn->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_FOR) loops[n++] = o;
  assert_int_equal(n, 2);
  assert_false(air_cg_unit_candidate(p, loops[0]));
  assert_true(air_cg_unit_candidate(p, loops[1]));
  const air_cg_hooks_t* h = air_cg_hooks();
  air_allocator_t al;
  air_allocator_init_system(&al);
  air_cg_program_t* cp = NULL;
  test_check(h->compile(&al, p, &cp));
  assert_null(h->find(cp, loops[0]));
  assert_non_null(h->find(cp, loops[1]));
  air_cg_stats_t s;
  h->stats(cp, &s);
  assert_int_equal(s.n_units, 1);
  assert_true(s.emit_ns > 0 && s.opt_ns > 0);
  h->release(cp);
  air_program_destroy(p);
}

/* The same units as objects for the portable x86-64 target (only absolute
 * relocations: large code model) and for amdgcn (memref data in address space 1). */
static void test_objects(void** state) {
  fx_t* f = *state;
  air_program_t* p = load_text(
      f,
      "func.func @f(%n: index, %a: memref<?xf32>, %b: memref<?xbf16>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  scf.for %i = %c0 to %n step %c1 {\n"
      "    %x = memref.load %a[%i] : memref<?xf32>\n"
      "    %y = arith.truncf %x : f32 to bf16\n"
      "    memref.store %y, %b[%i] : memref<?xbf16>\n"
      "  }\n"
      "  return\n"
      "}\n");
  const air_op_t* unit = first_unit(p, test_find_func(p, "f"));
  air_cg_arch_t archs[2] = {AIR_CG_ARCH_X86_64, AIR_CG_ARCH_AMDGCN};
  for (int k = 0; k < 2; ++k) {
    air_cg_target_t t;
    air_status_t st = air_cg_target_init(archs[k], NULL, NULL, &t);
    if (st && air_status_code(st) == AIR_STATUS_UNAVAILABLE) {
      air_status_free(st); /* this LLVM lacks the backend */
      continue;
    }
    test_check(st);
    air_cg_module_t* m = NULL;
    test_check(air_cg_module_create(NULL, &t, "obj", &m));
    test_check(air_cg_module_add(m, p, unit, "air_unit_0"));
    char* ir = NULL;
    test_check(air_cg_module_print(m, &ir));
    assert_non_null(strstr(ir, "define"));
    if (k == 1) assert_non_null(strstr(ir, "addrspace(1)"));
    air_allocator_t al;
    air_allocator_init_system(&al);
    al.free(al.self, ir);
    test_check(air_cg_module_optimize(m));
    void* obj = NULL;
    size_t n = 0;
    if (k == 1) {
      /* amdgcn objects wait for the hsa driver's kernel ABI (entry and
       * workitem_id hooks): refused cleanly until then. */
      st = air_cg_module_object(m, &obj, &n);
      assert_int_equal(air_status_code(st), AIR_STATUS_UNIMPLEMENTED);
      air_status_free(st);
      air_cg_module_free(m);
      continue;
    }
    test_check(air_cg_module_object(m, &obj, &n));
    assert_true(n > 64);
    assert_memory_equal(obj, "\x7f" "ELF", 4);
    al.free(al.self, obj);
    air_cg_module_free(m);
  }
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fallback, setup, teardown),
      cmocka_unit_test_setup_teardown(test_coverage_and_stats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_objects, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

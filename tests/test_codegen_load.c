/* test_codegen_load.c - the runtime finding the code generator at run time: this
 * test links libairrt only (no LLVM, as an application would), loads
 * libairrt_codegen.so through hal/codegen_load.h, compiles a program through the
 * hook table and runs the unit; and an object for artifacts comes out of the same
 * table. */
#define _GNU_SOURCE 1 /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/program.h"
#include "hal/codegen_load.h"
#include "hal/compiled.h"
#include "runtime/ir/ir.h"

static const char k_text[] =
    "func.func @f(%m: memref<16xi32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  scf.for %i = %c0 to %n step %c1 {\n"
    "    %v = arith.index_cast %i : index to i32\n"
    "    %w = arith.muli %v, %v : i32\n"
    "    memref.store %w, %m[%i] : memref<16xi32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_load_compile_run(void** state) {
  (void)state;
  air_allocator_t al;
  air_allocator_init_system(&al);
  const air_cg_hooks_t* h = NULL;
  air_status_t st = air_cg_load(&al, &h);
  if (st) fail_msg("%s", air_status_message(st));
  assert_non_null(h);
  assert_int_equal(h->abi_version, AIR_CG_ABI_VERSION);
  assert_string_equal(h->name, "llvm-16");

  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  air_parse_options_t o = {.filename = "load.mlir"};
  air_program_t* p = NULL;
  assert_null(air_program_parse(ctx, k_text, strlen(k_text), &o, &p));
  air_cg_program_t* cp = NULL;
  st = h->compile(&al, p, &cp);
  if (st) fail_msg("%s", air_status_message(st));
  air_cg_stats_t stats;
  h->stats(cp, &stats);
  assert_int_equal(stats.n_units, 1);

  /* The unit is the scf.for: find it and call it on a buffer. */
  const air_op_t* fn = p->module->regions[0]->first;
  const air_op_t* loop = fn->regions[0]->first->next->next;
  assert_int_equal(loop->kind, AIR_OP_FOR);
  const air_cg_unit_t* u = h->find(cp, loop);
  assert_non_null(u);
  assert_int_equal(u->n_in, 4); /* %c0, %n, %c1, %m in first-use order */
  int32_t buf[16];
  memset(buf, 0x55, sizeof buf);
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.data = buf, m.elem = AIR_ELEM_I32, m.rank = 1, m.sizes[0] = 16, m.strides[0] = 1;
  air_cg_word_t in[4];
  for (uint32_t i = 0; i < u->n_in; ++i) {
    const air_value_info_t* vi = air_ir_value(p, u->in[i]);
    if (u->in[i] == fn->regions[0]->args[0]) in[i].m = &m;
    else if (u->in[i] == fn->regions[0]->args[1]) in[i].i = 10;
    else in[i].i = vi->def && vi->def->kind == AIR_OP_CONSTANT ? vi->def->value.i : -1;
  }
  air_cg_frame_t frame = {.in = in, .out = NULL};
  assert_int_equal(u->fn(&frame), AIR_CG_OK);
  for (int i = 0; i < 16; ++i) assert_int_equal(buf[i], i < 10 ? i * i : 0x55555555);
  h->release(cp);

  /* An x86-64 object with the unit named by its preorder index. */
  void* obj = NULL;
  size_t size = 0;
  uint32_t n_units = 0;
  st = h->emit_object(&al, p, &obj, &size, &n_units);
  if (st) fail_msg("%s", air_status_message(st));
  assert_int_equal(n_units, 1);
  assert_true(size > 64 && !memcmp(obj, "\x7f" "ELF", 4));
  assert_non_null(memmem(obj, size, "air_unit_4", 11)); /* module, func, c0, c1, for */
  al.free(al.self, obj);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_load_compile_run)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

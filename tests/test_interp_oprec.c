/* test_interp_oprec.c - what op records (src/hal/cpu/interp/oprec.c) work out
 * once per program must stay right on every run of an op: channel put/get
 * lists with their constants folded and everything else read each time, the
 * one-run (flat) shortcut taken only for sides that are one contiguous run, and
 * the guarded values (air.execute results) an op waits for.
 *
 * One herd puts an 8x16 matrix through a channel in pieces whose offsets come
 * from a loop variable or an air.execute result, with constant sizes and
 * strides (arith.constant values: folded): two whole rows (one run), an 8x4
 * column block (strided: never one run), two rows at an offset an air.execute
 * computes (a guard), the whole matrix (`[] [] []` on a dense 2-d view: one
 * run) and a strided subview moved whole (not dense: the general pattern).
 * Another herd gets every transfer into a 1-d output at offsets from its own
 * loop variable. A record frozen at its first run (an offset), a block taken
 * for one run, or a guard not waited for gives other data. Two workers and
 * one; every executor path (air_add_path_tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

enum { ROWS = 8, COLS = 16, OUT = 4 * 96 + ROWS * COLS + 32 };

static const char k_prog[] =
    "air.channel @c [1] {depth = 2}\n"
    "func.func @f(%a: memref<8x16xi32>, %o: memref<544xi32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%la=%a, %lo=%o) : memref<8x16xi32>, memref<544xi32> {\n"
    "    air.segment @s args(%sa=%la, %so=%lo) : memref<8x16xi32>, memref<544xi32> {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %co = air.token.alloc : !air.token\n"
    "      %hp = air.herd @p async tile (%x) in (%sx=%c1s) args(%ha=%sa) : memref<8x16xi32> "
    "[concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %two = arith.constant 2 : index\n"
    "        %four = arith.constant 4 : index\n"
    "        %six = arith.constant 6 : index\n"
    "        %eight = arith.constant 8 : index\n"
    "        %c16 = arith.constant 16 : index\n"
    "        scf.for %k = %c0 to %four step %one {\n"
    "          %r = arith.muli %k, %two : index\n"
    "          air.channel.put @c[%c0] (%ha[%r, %c0] [%two, %c16] [%c16, %one]) : "
    "(memref<8x16xi32>)\n"
    "          %q = arith.muli %k, %four : index\n"
    "          air.channel.put @c[%c0] (%ha[%c0, %q] [%eight, %four] [%c16, %one]) : "
    "(memref<8x16xi32>)\n"
    "          %t, %e = air.execute -> (index) {\n"
    "            %v = arith.subi %six, %r : index\n"
    "            air.execute_terminator %v : index\n"
    "          }\n"
    "          air.channel.put @c[%c0] (%ha[%e, %c0] [%two, %c16] [%c16, %one]) : "
    "(memref<8x16xi32>)\n"
    "        }\n"
    "        air.channel.put @c[%c0] (%ha[] [] []) : (memref<8x16xi32>)\n"
    "        %sv = memref.subview %ha[0, 12] [8, 4] [1, 1] : memref<8x16xi32> to "
    "memref<8x4xi32, strided<[16, 1], offset: 12>>\n"
    "        air.channel.put @c[%c0] (%sv[] [] []) : (memref<8x4xi32, strided<[16, 1], offset: "
    "12>>)\n"
    "      }\n"
    "      %hg = air.herd @g async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<544xi32> "
    "[concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %four = arith.constant 4 : index\n"
    "        %c32 = arith.constant 32 : index\n"
    "        %c64 = arith.constant 64 : index\n"
    "        %c96 = arith.constant 96 : index\n"
    "        %c128 = arith.constant 128 : index\n"
    "        %c384 = arith.constant 384 : index\n"
    "        %c512 = arith.constant 512 : index\n"
    "        scf.for %k = %c0 to %four step %one {\n"
    "          %b = arith.muli %k, %c96 : index\n"
    "          air.channel.get @c[%c0] (%ho[%b] [%c32] [%one]) : (memref<544xi32>)\n"
    "          %b1 = arith.addi %b, %c32 : index\n"
    "          air.channel.get @c[%c0] (%ho[%b1] [%c32] [%one]) : (memref<544xi32>)\n"
    "          %b2 = arith.addi %b, %c64 : index\n"
    "          air.channel.get @c[%c0] (%ho[%b2] [%c32] [%one]) : (memref<544xi32>)\n"
    "        }\n"
    "        air.channel.get @c[%c0] (%ho[%c384] [%c128] [%one]) : (memref<544xi32>)\n"
    "        air.channel.get @c[%c0] (%ho[%c512] [%c32] [%one]) : (memref<544xi32>)\n"
    "      }\n"
    "      air.wait_all [%hp, %hg]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

/* What the program must write, from the rule the comment above gives. */
static void expect(const int32_t a[ROWS][COLS], int32_t* want) {
  int32_t* w = want;
  for (int k = 0; k < 4; ++k) {
    for (int r = 2 * k; r < 2 * k + 2; ++r)
      for (int c = 0; c < COLS; ++c) *w++ = a[r][c];
    for (int r = 0; r < ROWS; ++r)
      for (int c = 4 * k; c < 4 * k + 4; ++c) *w++ = a[r][c];
    for (int r = 6 - 2 * k; r < 8 - 2 * k; ++r)
      for (int c = 0; c < COLS; ++c) *w++ = a[r][c];
  }
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) *w++ = a[r][c];
  for (int r = 0; r < ROWS; ++r)
    for (int c = 12; c < 16; ++c) *w++ = a[r][c];
  assert_int_equal(w - want, OUT);
}

static void test_lists_patterns_guards(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "oprec.mlir", k_prog);
  int32_t a[ROWS][COLS], out[OUT], want[OUT];
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) a[r][c] = r * 1000 + c * 7 + 3;
  expect(a, want);
  air_pool_t* one = NULL;
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 3; ++rep) {
      memset(out, 0xff, sizeof out);
      air_arg_t args[2] = {test_mref(a, AIR_ELEM_I32, 2, (int64_t)ROWS, (int64_t)COLS),
                           test_mref(out, AIR_ELEM_I32, 1, (int64_t)OUT)};
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "f", args, 2));
      assert_memory_equal(out, want, sizeof out);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lists_patterns_guards, test_exec_setup,
                                      test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

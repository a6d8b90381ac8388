/* test_interp_chain.c - async ops run in their issuer's strand (chain.h,
 * issue 14), each case checked for exact results or an exact report:
 *  - a PE whose get is issued before the put that feeds it, round after
 *    round: run in program order the get would wait forever; a stall releases
 *    it to a strand of its own and the PE issues the put, so the run ends with
 *    the exact sums;
 *  - a producer herd feeding two consumer PEs over a depth-2 channel: their
 *    gets, and the executes after them (which read an air.execute's result,
 *    waited for before the region starts), run in the PE's strand, some at
 *    once and some after parking there;
 *  - a get no put ever feeds: the deadlock report still names the get (moved
 *    to a strand of its own by the release) and the wait after it.
 * Every program runs on the pool of two workers and on a pool of one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

/* Shared head: a launch and segment around herd bodies, passing %src, %out
 * and %n on as %ss, %so and %sn. */
#define LAUNCH_HEAD(SRC, N)                                                           \
  "  %c1 = arith.constant 1 : index\n"                                                \
  "  air.launch (%l) in (%nl=%c1) args(%ls=%src, %lo=%out, %ln=%n) : " SRC            \
  ", memref<8xi32>, index {\n"                                                        \
  "    air.segment @s args(%ss=%ls, %so=%lo, %sn=%ln) : " SRC ", memref<8xi32>, index {\n" \
  "      %c0s = arith.constant 0 : index\n"                                           \
  "      %c1s = arith.constant 1 : index\n"                                           \
  "      %c2s = arith.constant 2 : index\n"                                           \
  "      %c4s = arith.constant 4 : index\n"

/* The segment's tail: gets each PE's 4 results from @back into %out. */
#define BACK_TAIL                                                     \
  "      scf.for %y = %c0s to %c2s step %c1s {\n"                     \
  "        %o = arith.muli %y, %c4s : index\n"                        \
  "        air.channel.get @back[%y] (%so[%o] [%c4s] [%c1s]) : (memref<8xi32>)\n" \
  "      }\n"

/* Each of two PEs, %n rounds: get into its L1 buffer, then put its slice of
 * %src into the same channel index, then add the buffer into its accumulator;
 * at the end the accumulators go back to %out: out[i] = n * src[i]. */
static const char k_order[] =
    "air.channel @c [2]\n"
    "air.channel @back [2]\n"
    "func.func @order(%src: memref<8xi32>, %out: memref<8xi32>, %n: index) {\n"
    LAUNCH_HEAD("memref<8xi32>", "")
    "      %h = air.herd @h async tile (%x) in (%sx=%c2s) args(%hs=%ss, %hn=%sn) : "
    "memref<8xi32>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c4 = arith.constant 4 : index\n"
    "        %z = arith.constant 0 : i32\n"
    "        %off = arith.muli %x, %c4 : index\n"
    "        %ta, %buf = air.execute -> (memref<4xi32, 2>) {\n"
    "          %a = memref.alloc() : memref<4xi32, 2>\n"
    "          air.execute_terminator %a : memref<4xi32, 2>\n"
    "        }\n"
    "        %tc, %acc = air.execute -> (memref<4xi32, 2>) {\n"
    "          %a = memref.alloc() : memref<4xi32, 2>\n"
    "          scf.for %i = %c0 to %c4 step %one {\n"
    "            memref.store %z, %a[%i] : memref<4xi32, 2>\n"
    "          }\n"
    "          air.execute_terminator %a : memref<4xi32, 2>\n"
    "        }\n"
    "        %t0 = air.wait_all async [%ta, %tc]\n"
    "        %r = scf.for %k = %c0 to %hn step %one iter_args(%t = %t0) -> (!air.token) {\n"
    "          %g = air.channel.get async [%t] @c[%x] (%buf[] [] []) : (memref<4xi32, 2>)\n"
    "          %p = air.channel.put async [%t] @c[%x] (%hs[%off] [%c4] [%one]) : "
    "(memref<8xi32>)\n"
    "          %e = air.execute [%g, %p] {\n"
    "            scf.for %i = %c0 to %c4 step %one {\n"
    "              %v = memref.load %buf[%i] : memref<4xi32, 2>\n"
    "              %o = memref.load %acc[%i] : memref<4xi32, 2>\n"
    "              %s = arith.addi %o, %v : i32\n"
    "              memref.store %s, %acc[%i] : memref<4xi32, 2>\n"
    "            }\n"
    "          }\n"
    "          scf.yield %e : !air.token\n"
    "        }\n"
    "        %pb = air.channel.put async [%r] @back[%x] (%acc[] [] []) : (memref<4xi32, 2>)\n"
    "        air.wait_all [%pb]\n"
    "      }\n"
    BACK_TAIL
    "      air.wait_all [%h]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_get_before_its_put(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "order.mlir", k_order);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 10; ++rep) {
      int32_t src[8], out[8];
      for (int i = 0; i < 8; ++i) src[i] = 3 * i + rep - 5, out[i] = 0;
      int64_t n = 1 + rep % 4;
      air_arg_t args[3] = {test_mref(src, AIR_ELEM_I32, 1, (int64_t)8),
                           test_mref(out, AIR_ELEM_I32, 1, (int64_t)8), {0}};
      args[2].kind = AIR_ARG_INT;
      args[2].elem = AIR_ELEM_INDEX;
      args[2].i = n;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "order", args, 3));
      for (int i = 0; i < 8; ++i) assert_int_equal(out[i], (int32_t)n * src[i]);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Herd @prod puts %n rounds of 4 values per consumer (src[(k*2+y)*4 ..]) into
 * @d (depth 2); each PE of @cons gets them into its buffer and an execute adds
 * the buffer into its accumulator (air.execute results both), which it puts
 * back at the end: out[y*4+i] = sum over k of src[(k*2+y)*4+i]. */
static const char k_feed[] =
    "air.channel @d [2] {depth = 2}\n"
    "air.channel @back [2]\n"
    "func.func @feed(%src: memref<64xi32>, %out: memref<8xi32>, %n: index) {\n"
    LAUNCH_HEAD("memref<64xi32>", "")
    "      %hp = air.herd @prod async tile (%x) in (%sx=%c1s) args(%hs=%ss, %hn=%sn) : "
    "memref<64xi32>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c2 = arith.constant 2 : index\n"
    "        %c4 = arith.constant 4 : index\n"
    "        scf.for %k = %c0 to %hn step %one {\n"
    "          scf.for %y = %c0 to %c2 step %one {\n"
    "            %a = arith.muli %k, %c2 : index\n"
    "            %b = arith.addi %a, %y : index\n"
    "            %o = arith.muli %b, %c4 : index\n"
    "            air.channel.put @d[%y] (%hs[%o] [%c4] [%one]) : (memref<64xi32>)\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "      %hc = air.herd @cons async tile (%y) in (%sy=%c2s) args(%hn=%sn) : index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c4 = arith.constant 4 : index\n"
    "        %z = arith.constant 0 : i32\n"
    "        %t1, %ping = air.execute -> (memref<4xi32, 2>) {\n"
    "          %a = memref.alloc() : memref<4xi32, 2>\n"
    "          air.execute_terminator %a : memref<4xi32, 2>\n"
    "        }\n"
    "        %t3, %acc = air.execute -> (memref<4xi32, 2>) {\n"
    "          %a = memref.alloc() : memref<4xi32, 2>\n"
    "          scf.for %i = %c0 to %c4 step %one {\n"
    "            memref.store %z, %a[%i] : memref<4xi32, 2>\n"
    "          }\n"
    "          air.execute_terminator %a : memref<4xi32, 2>\n"
    "        }\n"
    "        %ready = air.wait_all async [%t1, %t3]\n"
    "        %r = scf.for %k = %c0 to %hn step %one iter_args(%t = %ready) -> (!air.token) {\n"
    "          %g = air.channel.get async [%t] @d[%y] (%ping[] [] []) : (memref<4xi32, 2>)\n"
    "          %e = air.execute [%g] {\n"
    "            scf.for %i = %c0 to %c4 step %one {\n"
    "              %v = memref.load %ping[%i] : memref<4xi32, 2>\n"
    "              %o = memref.load %acc[%i] : memref<4xi32, 2>\n"
    "              %s = arith.addi %o, %v : i32\n"
    "              memref.store %s, %acc[%i] : memref<4xi32, 2>\n"
    "            }\n"
    "          }\n"
    "          scf.yield %e : !air.token\n"
    "        }\n"
    "        %pb = air.channel.put async [%r] @back[%y] (%acc[] [] []) : (memref<4xi32, 2>)\n"
    "        air.wait_all [%pb]\n"
    "      }\n"
    BACK_TAIL
    "      air.wait_all [%hp, %hc]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_feed_inline_and_parked(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "feed.mlir", k_feed);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 10; ++rep) {
      int32_t src[64], out[8];
      for (int i = 0; i < 64; ++i) src[i] = 7 * i - rep * 3 + 1;
      for (int i = 0; i < 8; ++i) out[i] = -1;
      int64_t n = 1 + rep % 8;
      air_arg_t args[3] = {test_mref(src, AIR_ELEM_I32, 1, (int64_t)64),
                           test_mref(out, AIR_ELEM_I32, 1, (int64_t)8), {0}};
      args[2].kind = AIR_ARG_INT;
      args[2].elem = AIR_ELEM_INDEX;
      args[2].i = n;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "feed", args, 3));
      for (int y = 0; y < 2; ++y)
        for (int i = 0; i < 4; ++i) {
          int32_t want = 0;
          for (int64_t r = 0; r < n; ++r) want += src[(r * 2 + y) * 4 + i];
          assert_int_equal(out[y * 4 + i], want);
        }
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* A PE's get, fed by a put the segment makes %n times, then waits for it: with
 * %n = 1 it runs; with %n = 0 a deadlock names the get and the waits. */
static const char k_dead[] =
    "air.channel @c [1]\n"
    "func.func @dead(%src: memref<4xi32>, %n: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%ls=%src, %ln=%n) : memref<4xi32>, index {\n"
    "    air.segment @s args(%ss=%ls, %sn=%ln) : memref<4xi32>, index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %c0s = arith.constant 0 : index\n"
    "      %h = air.herd @h async tile (%x) in (%sx=%c1s) {\n"
    "        %b = memref.alloc() : memref<4xi32, 2>\n"
    "        %g = air.channel.get async @c[%x] (%b[] [] []) : (memref<4xi32, 2>)\n"
    "        %w = air.wait_all async [%g]\n"
    "        air.wait_all [%w]\n"
    "      }\n"
    "      scf.for %k = %c0s to %sn step %c1s {\n"
    "        air.channel.put @c[%c0s] (%ss[] [] []) : (memref<4xi32>)\n"
    "      }\n"
    "      air.wait_all [%h]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_deadlock_names_the_get(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "dead.mlir", k_dead);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 5; ++rep) {
      int32_t src[4] = {1, 2, 3, 4};
      air_arg_t args[2] = {test_mref(src, AIR_ELEM_I32, 1, (int64_t)4), {0}};
      args[1].kind = AIR_ARG_INT;
      args[1].elem = AIR_ELEM_INDEX;
      args[1].i = 1;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "dead", args, 2));
      args[1].i = 0;
      air_status_t st = test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "dead", args, 2);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      const char* msg = air_status_message(st);
      test_expect_in(msg, "%s", "deadlock");
      test_expect_in(msg, "%s", "dead.mlir:10:9: air.channel.get @c[0] blocked: no put");
      test_expect_in(msg, "%s", "dead.mlir:11:9: air.wait_all");
      test_expect_in(msg, "%s",
                     "blocked on %g (air.channel.get at dead.mlir:10:9 has not finished)");
      air_status_free(st);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_get_before_its_put, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_feed_inline_and_parked, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_deadlock_names_the_get, test_exec_setup,
                                      test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_interp_lane.c - channel lanes with a lock of their own (issue 14,
 * chan_lane.h): transfers move under the lane's lock, waits park under the run
 * lock with a count of parked ops per lane, and a wake-up must never be lost
 * between the two. Each case is checked for exact results; a lost wake-up
 * shows as a deadlock report (the run fails), a wrong order as wrong data:
 *  - a depth-1 ping-pong whose sides are slowed by turns (a loop of a varying
 *    length between ops), so the partner's wait ends sometimes in the spin and
 *    sometimes parked, both ways, many rounds;
 *  - four PEs putting to one lane (depth 2) and one get draining it: putters
 *    park on a full lane and are woken as it drains; the sum of what arrived
 *    and the per-PE order are checked;
 *  - a blocked put with no get named in the deadlock report.
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

static air_arg_t index_arg(int64_t v) {
  air_arg_t a = {0};
  a.kind = AIR_ARG_INT;
  a.elem = AIR_ELEM_INDEX;
  a.i = v;
  return a;
}

/*---------------------------------------------------------------------------*/

/* Round i: @a puts in[i] on @ping and gets @pong into oa[i]; @b gets @ping into
 * ob[i] and puts it back. Before its op, each side spins (i * 37 mod 11) * %w
 * (a) or (i * 53 mod 13) * %w (b) loop iterations. */
static const char k_pingpong[] =
    "air.channel @ping [1]\n"
    "air.channel @pong [1]\n"
    "func.func @pp(%in: memref<256xi32>, %oa: memref<256xi32>, %ob: memref<256xi32>, "
    "%w: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%li=%in, %la=%oa, %lb=%ob, %lw=%w) : memref<256xi32>, "
    "memref<256xi32>, memref<256xi32>, index {\n"
    "    air.segment @s args(%si=%li, %sa=%la, %sb=%lb, %sw=%lw) : memref<256xi32>, "
    "memref<256xi32>, memref<256xi32>, index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %co = air.token.alloc : !air.token\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%hi=%si, %ho=%sa, %hw=%sw) : "
    "memref<256xi32>, memref<256xi32>, index [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 256 : index\n"
    "        %k = arith.constant 37 : index\n"
    "        %m = arith.constant 11 : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %ik = arith.muli %i, %k : index\n"
    "          %r = arith.remui %ik, %m : index\n"
    "          %spin = arith.muli %r, %hw : index\n"
    "          scf.for %j = %c0 to %spin step %one {\n"
    "            %z = arith.addi %j, %one : index\n"
    "          }\n"
    "          air.channel.put @ping[%c0] (%hi[%i] [%one] [%one]) : (memref<256xi32>)\n"
    "          air.channel.get @pong[%c0] (%ho[%i] [%one] [%one]) : (memref<256xi32>)\n"
    "        }\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x) in (%sx=%c1s) args(%ho=%sb, %hw=%sw) : "
    "memref<256xi32>, index [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 256 : index\n"
    "        %k = arith.constant 53 : index\n"
    "        %m = arith.constant 13 : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %ik = arith.muli %i, %k : index\n"
    "          %r = arith.remui %ik, %m : index\n"
    "          %spin = arith.muli %r, %hw : index\n"
    "          scf.for %j = %c0 to %spin step %one {\n"
    "            %z = arith.addi %j, %one : index\n"
    "          }\n"
    "          air.channel.get @ping[%c0] (%ho[%i] [%one] [%one]) : (memref<256xi32>)\n"
    "          air.channel.put @pong[%c0] (%ho[%i] [%one] [%one]) : (memref<256xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_pingpong_spin_and_park(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "pp.mlir", k_pingpong);
  int32_t in[256], oa[256], ob[256];
  for (int i = 0; i < 256; ++i) in[i] = i * 7919 + 13;
  /* 0: nothing between ops (waits end in the spin); larger: waits that
   * outlast the spin and park. */
  static const int64_t k_work[] = {0, 3, 40, 400};
  for (int k = 0; k < 2; ++k)
    for (size_t w = 0; w < sizeof k_work / sizeof *k_work; ++w)
      for (int rep = 0; rep < 3; ++rep) {
        memset(oa, 0, sizeof oa), memset(ob, 0, sizeof ob);
        air_arg_t args[4] = {test_mref(in, AIR_ELEM_I32, 1, (int64_t)256),
                             test_mref(oa, AIR_ELEM_I32, 1, (int64_t)256),
                             test_mref(ob, AIR_ELEM_I32, 1, (int64_t)256), index_arg(k_work[w])};
        test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "pp", args, 4));
        assert_memory_equal(oa, in, sizeof in);
        assert_memory_equal(ob, in, sizeof in);
      }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Four PEs of @a each put 100 values (pe * 1000 + i) on @c[0] (depth 2); @b
 * gets all 400 in turn into %o. Which PE's put goes first is not fixed, but
 * each PE's values arrive in its own order, each exactly once. */
static const char k_fan_in[] =
    "air.channel @c [1] {depth = 2}\n"
    "func.func @fan(%o: memref<400xi32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%lo=%o) : memref<400xi32> {\n"
    "    air.segment @s args(%so=%lo) : memref<400xi32> {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %c4s = arith.constant 4 : index\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c4s) {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 100 : index\n"
    "        %k = arith.constant 1000 : index\n"
    "        %buf = memref.alloc() : memref<1xi32, 2>\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %b = arith.muli %x, %k : index\n"
    "          %v = arith.addi %b, %i : index\n"
    "          %vi = arith.index_cast %v : index to i32\n"
    "          memref.store %vi, %buf[%c0] : memref<1xi32, 2>\n"
    "          air.channel.put @c[%c0] (%buf[] [] []) : (memref<1xi32, 2>)\n"
    "        }\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<400xi32> {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 400 : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          air.channel.get @c[%c0] (%ho[%i] [%one] [%one]) : (memref<400xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_fan_in(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "fan.mlir", k_fan_in);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 10; ++rep) {
      int32_t o[400];
      memset(o, 0xff, sizeof o);
      air_arg_t args[1] = {test_mref(o, AIR_ELEM_I32, 1, (int64_t)400)};
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "fan", args, 1));
      int next[4] = {0, 0, 0, 0};
      for (int i = 0; i < 400; ++i) {
        int pe = o[i] / 1000, v = o[i] % 1000;
        assert_true(pe >= 0 && pe < 4);
        assert_int_equal(v, next[pe]); /* in the PE's order, none lost or doubled */
        next[pe]++;
      }
      for (int pe = 0; pe < 4; ++pe) assert_int_equal(next[pe], 100);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* %n puts on a depth-2 channel and no get: with %n = 3 the third parks on the
 * full lane and the deadlock report names it. */
static const char k_full[] =
    "air.channel @c [1] {depth = 2}\n"
    "func.func @full(%a: memref<4xi32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  scf.for %i = %c0 to %n step %c1 {\n"
    "    air.channel.put @c[%c0] (%a[] [] []) : (memref<4xi32>)\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_full_lane_report(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "full.mlir", k_full);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 3; ++rep) {
      int32_t a[4] = {1, 2, 3, 4};
      air_arg_t args[2] = {test_mref(a, AIR_ELEM_I32, 1, (int64_t)4), index_arg(3)};
      air_status_t st = test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "full", args, 2);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      test_expect_in(air_status_message(st), "%s",
                     "full.mlir:6:5: air.channel.put @c[0] blocked: channel full (depth 2), no "
                     "get pending");
      air_status_free(st);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_pingpong_spin_and_park, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_fan_in, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_full_lane_report, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_interp_lane.c - channel lanes with a lock of their own (issue 14,
 * chan_lane.h): transfers move under the lane's lock, waits park under the run
 * lock with a count of parked ops per lane, and a wake-up must never be lost
 * between the two. Each case is checked for exact results; a lost wake-up
 * shows as a deadlock report (the run fails), a wrong order as wrong data:
 *  - a depth-1 ping-pong whose sides are slowed by turns (a loop of a varying
 *    length between ops), so the partner's wait ends sometimes in the spin and
 *    sometimes parked, both ways, many rounds;
 *  - four PEs putting to one lane (depth 1 and 2) and one get draining it: putters
 *    park on a full lane and are woken as it drains; the sum of what arrived
 *    and the per-PE order are checked;
 *  - a put copying straight into a waiting get's strided destination (and a
 *    strided put source), depth 1 and 2, waits ending spun, offered or parked;
 *  - a blocked put with no get named in the deadlock report, and a blocked get;
 *  - channels resolved once per op: two programs binding their ops to
 *    channels differently, run in turn, prepared and not, at two indices.
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
#include "support/pingpong.h"
#include "support/programs.h"
#include "support/status.h"

/*---------------------------------------------------------------------------*/

/* A depth-1 ping-pong of single elements (support/pingpong.h), 256 rounds: with
 * nothing between ops waits end in the spin; with more, they outlast it and
 * park. */
static void test_pingpong_spin_and_park(void** state) {
  test_pingpong_check(*state, &(test_pingpong_t){.depth = 0, .rows = 1, .cols = 256}, 3);
}

/*---------------------------------------------------------------------------*/

/* Four PEs of @a each put 100 values (pe * 1000 + i) on @c[0] (depth 2); @b
 * gets all 400 in turn into %o. Which PE's put goes first is not fixed, but
 * each PE's values arrive in its own order, each exactly once. */
static const char k_fan_in[] =
    "air.channel @c [1] {depth = @DEPTH@}\n"
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
  for (int d = 1; d <= 2; ++d) { /* depth 1 and 2 */
    char text[sizeof k_fan_in + 16];
    static const char* const k_key[] = {"@DEPTH@"};
    const char* val[] = {d == 1 ? "1" : "2"};
    test_text_subst(text, sizeof text, k_fan_in, k_key, val, 1);
    air_program_t* p = test_load_text(x->ctx, "fan.mlir", text);
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
    air_program_destroy(p);
  }
  if (one) air_pool_destroy(one);
}

/*---------------------------------------------------------------------------*/

/* Straight into a waiting get (channel.c: a get whose transfer is next offers
 * its destination while it spins, and the put copies into it): the ping-pong of
 * support/pingpong.h with 4 elements a round, 64 rounds, so the gets' and @b's
 * puts' columns are strided; depth 1 and 2. */
static void test_straight_into_get_strided(void** state) {
  for (int d = 1; d <= 2; ++d)
    test_pingpong_check(*state, &(test_pingpong_t){.depth = d, .rows = 4, .cols = 64}, 3);
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
      air_arg_t args[2] = {test_mref(a, AIR_ELEM_I32, 1, (int64_t)4), test_index(3)};
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

/* One put and %n gets on a depth-1 channel, in two herds: with %n = 2 the first
 * get takes the put's transfer (straight, when it waits first) and the second
 * waits for a put that never comes, spinning with its offer open, then parked
 * with it withdrawn: the deadlock report names the empty lane. */
static const char k_empty[] =
    "air.channel @c [1]\n"
    "func.func @empty(%a: memref<4xi32>, %b: memref<4xi32>, %n: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%la=%a, %lb=%b, %ln=%n) : memref<4xi32>, "
    "memref<4xi32>, index {\n"
    "    air.segment @s args(%sa=%la, %sb=%lb, %sn=%ln) : memref<4xi32>, memref<4xi32>, index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%ha2=%sa) : memref<4xi32> {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        air.channel.put @c[%c0] (%ha2[] [] []) : (memref<4xi32>)\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x) in (%sx=%c1s) args(%hb2=%sb, %hn=%sn) : "
    "memref<4xi32>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        scf.for %i = %c0 to %hn step %one {\n"
    "          air.channel.get @c[%c0] (%hb2[] [] []) : (memref<4xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_empty_lane_report(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "empty.mlir", k_empty);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 3; ++rep) {
      int32_t a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
      air_arg_t args[3] = {test_mref(a, AIR_ELEM_I32, 1, (int64_t)4),
                           test_mref(b, AIR_ELEM_I32, 1, (int64_t)4), test_index(2)};
      air_status_t st = test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "empty", args, 3);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      test_expect_in(air_status_message(st), "%s",
                     "empty.mlir:15:11: air.channel.get @c[0] blocked: no put");
      air_status_free(st);
      assert_memory_equal(b, a, sizeof a); /* the first get's transfer arrived */
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Channels resolved once per op (tables.c: put/get op -> channel, built with
 * the program's tables, which a prep shares between runs). Three channels
 * declared out of name order; @a puts a[0], a[1], a[2] on @zz, @aa, @mm at
 * index %k (deep enough not to wait), @b gets @mm, @aa, @zz into o[0], o[1], o[2]:
 * o = {a[2], a[1], a[0]}.
 * The second program binds the puts the other way round (@mm, @aa, @zz), so
 * o = {a[0], a[1], a[2]}. Both run in turn, prepared and not, at both indices,
 * on both pools: an op resolved to another op's channel, or to the other
 * program's, gives wrong data or a deadlock. */
static const char k_route[] =
    "air.channel @zz [2] {depth = 2}\n"
    "air.channel @aa [2] {depth = 2}\n"
    "air.channel @mm [2] {depth = 3}\n"
    "func.func @route(%a: memref<3xi32>, %o: memref<3xi32>, %k: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%la=%a, %lo=%o, %lk=%k) : memref<3xi32>, "
    "memref<3xi32>, index {\n"
    "    air.segment @s args(%sa=%la, %so=%lo, %sk=%lk) : memref<3xi32>, memref<3xi32>, "
    "index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%h=%sa, %hk=%sk) : "
    "memref<3xi32>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c2 = arith.constant 2 : index\n"
    "        air.channel.put @P0[%hk] (%h[%c0] [%one] [%one]) : (memref<3xi32>)\n"
    "        air.channel.put @aa[%hk] (%h[%one] [%one] [%one]) : (memref<3xi32>)\n"
    "        air.channel.put @P2[%hk] (%h[%c2] [%one] [%one]) : (memref<3xi32>)\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x) in (%sx=%c1s) args(%h=%so, %hk=%sk) : "
    "memref<3xi32>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c2 = arith.constant 2 : index\n"
    "        scf.for %i = %c0 to %one step %one {\n"
    "          air.channel.get @mm[%hk] (%h[%c0] [%one] [%one]) : (memref<3xi32>)\n"
    "          air.channel.get @aa[%hk] (%h[%one] [%one] [%one]) : (memref<3xi32>)\n"
    "          air.channel.get @zz[%hk] (%h[%c2] [%one] [%one]) : (memref<3xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

/* k_route with @P0 / @P2 bound to `p0` / `p2` (both two letters). */
static void route_text(char* out, size_t cap, const char* p0, const char* p2) {
  snprintf(out, cap, "%s", k_route);
  for (char* at; (at = strstr(out, "@P0")) || (at = strstr(out, "@P2"));)
    memcpy(at + 1, at[2] == '0' ? p0 : p2, 2);
}

static void test_channel_resolved_once(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  char ta[sizeof k_route], tb[sizeof k_route];
  route_text(ta, sizeof ta, "zz", "mm");
  route_text(tb, sizeof tb, "mm", "zz");
  air_program_t* p[2] = {test_load_text(x->ctx, "route_a.mlir", ta),
                         test_load_text(x->ctx, "route_b.mlir", tb)};
  air_allocator_t sys;
  air_allocator_init_system(&sys);
  air_interp_prep_t* prep[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i) test_check(air_interp_prepare(&sys, p[i], &prep[i]));
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 3; ++rep)
      for (int64_t at = 0; at < 2; ++at)
        for (int i = 0; i < 2; ++i)
          for (int prepared = 0; prepared < 2; ++prepared) {
            int32_t a[3] = {11 + rep, 22 + (int32_t)at, 33 + i}, o[3] = {0, 0, 0};
            air_arg_t args[3] = {test_mref(a, AIR_ELEM_I32, 1, (int64_t)3),
                                 test_mref(o, AIR_ELEM_I32, 1, (int64_t)3), test_index(at)};
            air_interp_desc_t d = test_exec_desc(x, p[i], test_find_func(p[i], "route"), args, 3);
            d.pool = test_exec_pool_of(x, k, &one);
            d.prep = prepared ? prep[i] : NULL;
            test_check(air_interp_run(&d));
            int32_t want[3] = {i ? a[0] : a[2], a[1], i ? a[2] : a[0]};
            assert_memory_equal(o, want, sizeof want);
          }
  for (int i = 0; i < 2; ++i) {
    air_interp_prep_release(prep[i]);
    air_program_destroy(p[i]);
  }
  if (one) air_pool_destroy(one);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_pingpong_spin_and_park, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_fan_in, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_straight_into_get_strided, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_full_lane_report, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_empty_lane_report, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_channel_resolved_once, test_exec_setup,
                                      test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

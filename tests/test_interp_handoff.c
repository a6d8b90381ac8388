/* test_interp_handoff.c - the CPU executor's rendezvous and hand-off path
 * (issue 14), each case checked for exact results or an exact report:
 *  - an async op whose dependency has not fired is spawned already parked on
 *    it: a deadlock still names it (blocked on its dependency, or on the init
 *    token of its scf.parallel), and once the dependency fires it runs;
 *  - small transfers (filled and read out under the run lock) next to larger
 *    ones (copied outside it), with depth 2 and a broadcast channel whose
 *    transfers free only when every receiver has read them, many rounds, on
 *    two workers;
 *  - a long chain of async ops, each woken by the exit of the one before (the
 *    woken strand runs next on the same worker);
 *  - a dispatched op's token takes its parent's pending count only when its
 *    strand is spawned (one lock hold for both): scf.parallel instances (whose
 *    scope is not their join) dispatching executes spawned parked, round after
 *    round, all run exactly once.
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

/*---------------------------------------------------------------------------*/

/* A get %g, an execute after it, and an scf.parallel whose init token follows
 * %g, all dispatched before %g completes: with %n = 1 a put later feeds %g and
 * everything runs; with %n = 0 nothing does, and the deadlock report names the
 * execute and the instances' executes as blocked. */
static const char k_parked[] =
    "air.channel @ch [1]\n"
    "func.func @parked(%n: index, %out: memref<4xi32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c2 = arith.constant 2 : index\n"
    "  %c7 = arith.constant 7 : i32\n"
    "  %src = memref.alloc() : memref<1xi32>\n"
    "  %dst = memref.alloc() : memref<1xi32>\n"
    "  memref.store %c7, %src[%c0] : memref<1xi32>\n"
    "  %g = air.channel.get async @ch[%c0] (%dst[] [] []) : (memref<1xi32>)\n"
    "  %e = air.execute async [%g] {\n"
    "    %v = memref.load %dst[%c0] : memref<1xi32>\n"
    "    memref.store %v, %out[%c0] : memref<4xi32>\n"
    "  }\n"
    "  %w = air.wait_all async [%g]\n"
    "  %r = scf.parallel (%i) = (%c0) to (%c2) step (%c1) init (%w) -> !air.token {\n"
    "    %x = air.execute async {\n"
    "      %v = memref.load %src[%c0] : memref<1xi32>\n"
    "      %j = arith.addi %i, %c1 : index\n"
    "      memref.store %v, %out[%j] : memref<4xi32>\n"
    "    }\n"
    "    scf.reduce(%x : !air.token) {\n"
    "    ^bb0(%lhs: !air.token, %rhs: !air.token):\n"
    "      %both = air.wait_all async [%lhs, %rhs]\n"
    "      scf.reduce.return %both : !air.token\n"
    "    }\n"
    "  }\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    air.channel.put @ch[%c0] (%src[] [] []) : (memref<1xi32>)\n"
    "  }\n"
    "  air.wait_all [%e, %r]\n"
    "  return\n"
    "}\n";

static void test_parked_dependents(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "parked.mlir", k_parked);
  for (int k = 0; k < 2; ++k) {
    air_pool_t* pool = test_exec_pool_of(x, k, &one);
    for (int rep = 0; rep < 20; ++rep) {
      int32_t out[4] = {-1, -1, -1, -1};
      air_arg_t args[2] = {{0}, test_mref(out, AIR_ELEM_I32, 1, (int64_t)4)};
      args[0].kind = AIR_ARG_INT;
      args[0].elem = AIR_ELEM_INDEX;
      args[0].i = 1;
      test_check(test_exec_run_on(x, pool, p, "parked", args, 2));
      assert_int_equal(out[0], 7);
      assert_int_equal(out[1], 7);
      assert_int_equal(out[2], 7);
      assert_int_equal(out[3], -1);

      args[0].i = 0;
      air_status_t st = test_exec_run_on(x, pool, p, "parked", args, 2);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      const char* msg = air_status_message(st);
      test_expect_in(msg, "%s", "parked.mlir:10:3: air.channel.get @ch[0] blocked: no put");
      test_expect_in(msg, "%s", "parked.mlir:11:3: air.execute blocked on %g (air.channel.get at "
                                "parked.mlir:10:3 has not finished)");
      test_expect_in(msg, "%s", "parked.mlir:17:5: air.execute blocked on an init token of the "
                                "enclosing scf.parallel (air.wait_all at parked.mlir:15:3 has not "
                                "finished) [x2]");
      air_status_free(st);
    }
  }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Herd @a sends %n rounds of %b bytes per channel: @uni (depth 2, to @b) and
 * @bc (broadcast to both tiles of @b). @b's tiles copy what they receive into
 * their rows of %o. Sizes straddle the 512-byte line between transfers copied
 * under the lock and those copied outside it. */
static const char k_sizes[] =
    "air.channel @uni [1] {depth = 2}\n"
    "air.channel @bc [1, 1] {broadcast_shape = [1, 2], depth = 2}\n"
    "func.func @sizes(%in: memref<64x1040xi8>, %o: memref<3x64x1040xi8>, %b: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%li=%in, %lo=%o, %lb=%b) : memref<64x1040xi8>, "
    "memref<3x64x1040xi8>, index {\n"
    "    air.segment @s args(%si=%li, %so=%lo, %sb=%lb) : memref<64x1040xi8>, "
    "memref<3x64x1040xi8>, index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %c2s = arith.constant 2 : index\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%hi=%si, %hb=%sb) : "
    "memref<64x1040xi8>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c64 = arith.constant 64 : index\n"
    "        %c1040 = arith.constant 1040 : index\n"
    "        scf.for %i = %c0 to %c64 step %one {\n"
    "          air.channel.put @uni[%c0] (%hi[%i, %c0] [%one, %hb] [%c1040, %one]) : "
    "(memref<64x1040xi8>)\n"
    "          air.channel.put @bc[%c0, %c0] (%hi[%i, %c0] [%one, %hb] [%c1040, %one]) : "
    "(memref<64x1040xi8>)\n"
    "        }\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x, %y) in (%sx=%c1s, %sy=%c2s) args(%ho=%so, %hbb=%sb) "
    ": memref<3x64x1040xi8>, index {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %c64 = arith.constant 64 : index\n"
    "        %c1040 = arith.constant 1040 : index\n"
    "        %plane = arith.constant 66560 : index\n"
    "        %y1 = arith.addi %y, %one : index\n"
    "        scf.for %i = %c0 to %c64 step %one {\n"
    "          %is0 = arith.cmpi eq, %y, %c0 : index\n"
    "          scf.if %is0 {\n"
    "            air.channel.get @uni[%c0] (%ho[%c0, %i, %c0] [%one, %one, %hbb] [%plane, %c1040, "
    "%one]) : (memref<3x64x1040xi8>)\n"
    "          }\n"
    "          air.channel.get @bc[%x, %y] (%ho[%y1, %i, %c0] [%one, %one, %hbb] [%plane, "
    "%c1040, %one]) : (memref<3x64x1040xi8>)\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_small_and_large_transfers(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "sizes.mlir", k_sizes);
  enum { ROWS = 64, W = 1040 };
  uint8_t* in = malloc(ROWS * W);
  uint8_t* out = malloc(3 * ROWS * W);
  assert_true(in && out);
  for (int i = 0; i < ROWS * W; ++i) in[i] = (uint8_t)(i * 131 + 7);
  static const int64_t k_bytes[] = {1, 64, 511, 512, 513, 1040};
  for (int k = 0; k < 2; ++k) {
    air_pool_t* pool = test_exec_pool_of(x, k, &one);
    for (size_t s = 0; s < sizeof k_bytes / sizeof *k_bytes; ++s)
      for (int rep = 0; rep < 3; ++rep) {
        memset(out, 0xee, 3 * ROWS * W);
        air_arg_t args[3] = {test_mref(in, AIR_ELEM_I8, 2, (int64_t)ROWS, (int64_t)W),
                             test_mref(out, AIR_ELEM_I8, 3, (int64_t)3, (int64_t)ROWS, (int64_t)W),
                             {0}};
        args[2].kind = AIR_ARG_INT;
        args[2].elem = AIR_ELEM_INDEX;
        args[2].i = k_bytes[s];
        test_check(test_exec_run_on(x, pool, p, "sizes", args, 3));
        for (int plane = 0; plane < 3; ++plane)
          for (int i = 0; i < ROWS; ++i) {
            const uint8_t* row = out + ((size_t)plane * ROWS + (size_t)i) * W;
            assert_memory_equal(row, in + (size_t)i * W, (size_t)k_bytes[s]);
            for (int64_t j = k_bytes[s]; j < W; ++j) assert_int_equal(row[j], 0xee);
          }
      }
  }
  free(in);
  free(out);
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* 3000 async executes, each after the one before, each adding its index. */
static const char k_chain[] =
    "func.func @chain(%out: memref<1xi64>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %n = arith.constant 3000 : index\n"
    "  %t0 = air.wait_all async\n"
    "  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (!air.token) {\n"
    "    %e = air.execute async [%t] {\n"
    "      %v = memref.load %out[%c0] : memref<1xi64>\n"
    "      %k = arith.index_cast %i : index to i64\n"
    "      %m = arith.constant 3 : i64\n"
    "      %a = arith.muli %v, %m : i64\n"
    "      %w = arith.addi %a, %k : i64\n"
    "      memref.store %w, %out[%c0] : memref<1xi64>\n"
    "    }\n"
    "    scf.yield %e : !air.token\n"
    "  }\n"
    "  air.wait_all [%last]\n"
    "  return\n"
    "}\n";

static void test_chain(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "chain.mlir", k_chain);
  /* Order matters: v = 3v + i is not commutative across steps. */
  uint64_t want = 0;
  for (uint64_t i = 0; i < 3000; ++i) want = want * 3 + i;
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 5; ++rep) {
      int64_t out[1] = {0};
      air_arg_t args[1] = {test_mref(out, AIR_ELEM_I64, 1, (int64_t)1)};
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "chain", args, 1));
      assert_int_equal((uint64_t)out[0], want);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* %n rounds, each an execute %w after the round before, then an scf.parallel of
 * 8 instances, each dispatching an execute after %w (dispatched before %w has
 * run, so spawned parked) that adds 1 to its cell. Nothing waits for the last
 * round: the run still runs every one of them. */
static const char k_nested[] =
    "func.func @nested(%o: memref<8xi32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %one = arith.constant 1 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %k1 = arith.constant 1 : i32\n"
    "  %t0 = air.wait_all async\n"
    "  %last = scf.for %r = %c0 to %n step %one iter_args(%t = %t0) -> (!air.token) {\n"
    "    %w = air.execute async [%t] {\n"
    "      %v = memref.load %o[%c0] : memref<8xi32>\n"
    "      memref.store %v, %o[%c0] : memref<8xi32>\n"
    "    }\n"
    "    %p = scf.parallel (%i) = (%c0) to (%c8) step (%one) init (%w) -> !air.token {\n"
    "      %e = air.execute async [%w] {\n"
    "        %v = memref.load %o[%i] : memref<8xi32>\n"
    "        %a = arith.addi %v, %k1 : i32\n"
    "        memref.store %a, %o[%i] : memref<8xi32>\n"
    "      }\n"
    "      scf.reduce(%e : !air.token) {\n"
    "      ^bb0(%lhs: !air.token, %rhs: !air.token):\n"
    "        %both = air.wait_all async [%lhs, %rhs]\n"
    "        scf.reduce.return %both : !air.token\n"
    "      }\n"
    "    }\n"
    "    scf.yield %p : !air.token\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_nested_completion(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "nested.mlir", k_nested);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 20; ++rep) {
      int32_t out[8] = {0};
      air_arg_t args[2] = {test_mref(out, AIR_ELEM_I32, 1, (int64_t)8), {0}};
      args[1].kind = AIR_ARG_INT;
      args[1].elem = AIR_ELEM_INDEX;
      args[1].i = 50;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "nested", args, 2));
      for (int i = 0; i < 8; ++i) assert_int_equal(out[i], 50);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_parked_dependents, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_small_and_large_transfers, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_chain, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_nested_completion, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

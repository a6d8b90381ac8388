/* test_interp_chanrun.c - a channel op that is ready when its strand issues it
 * runs right there with its ticket taken in its transfer's lane lock (loop.c
 * dispatch, issue 14 session 8): the tickets must still follow program order,
 * the data must be exact, and a get no put feeds must still be named by the
 * deadlock report.
 *
 * A 2x2 herd fed the way samples/matmul_4x4.mlir feeds its PEs: the segment
 * puts, step after step, one row piece per PE through scf.parallel loops of
 * async puts chained by their tokens (each PE's piece at another column block);
 * every PE gets its pieces with async gets chained by tokens, each into the next
 * row of an L1 buffer, and puts the buffer back; the segment gets the four
 * buffers into the output through another scf.parallel. With depth 1 the puts
 * park in their transfer, with depth 2 they run ahead. A mixed-up ticket, lane
 * or row shows in the data. Pools of one, two and three workers; every executor
 * path (air_add_path_tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

enum { STEPS = 8, W = 16, PES = 4 };

/* %n: the pieces the segment puts per PE; each PE gets STEPS. */
#define PROG(DEPTH)                                                                          \
  "air.channel @t [2, 2] {depth = " DEPTH "}\n"                                            \
  "air.channel @back [2, 2]\n"                                                              \
  "func.func @f(%src: memref<8x64xi32>, %out: memref<32x16xi32>, %n: index) {\n"            \
  "  %c1 = arith.constant 1 : index\n"                                                      \
  "  air.launch (%l) in (%nl=%c1) args(%ls=%src, %lo=%out, %ln=%n) : memref<8x64xi32>, "    \
  "memref<32x16xi32>, index {\n"                                                            \
  "    air.segment @s args(%ss=%ls, %so=%lo, %sn=%ln) : memref<8x64xi32>, "                 \
  "memref<32x16xi32>, index {\n"                                                            \
  "      %c0 = arith.constant 0 : index\n"                                                  \
  "      %c1s = arith.constant 1 : index\n"                                                 \
  "      %c2 = arith.constant 2 : index\n"                                                  \
  "      %c8 = arith.constant 8 : index\n"                                                  \
  "      %c16 = arith.constant 16 : index\n"                                                \
  "      %c64 = arith.constant 64 : index\n"                                                \
  "      %h = air.herd @h async tile (%tx, %ty) in (%sx=%c2, %sy=%c2) {\n"                  \
  "        %z = arith.constant 0 : index\n"                                                 \
  "        %one = arith.constant 1 : index\n"                                               \
  "        %eight = arith.constant 8 : index\n"                                             \
  "        %w = arith.constant 16 : index\n"                                                \
  "        %t1, %b = air.execute -> (memref<8x16xi32, 2>) {\n"                              \
  "          %a = memref.alloc() : memref<8x16xi32, 2>\n"                                   \
  "          air.execute_terminator %a : memref<8x16xi32, 2>\n"                             \
  "        }\n"                                                                             \
  "        %r = scf.for %k = %z to %eight step %one iter_args(%g = %t1) -> (!air.token) {\n" \
  "          %gk = air.channel.get async [%g] @t[%tx, %ty] (%b[%k, %z] [%one, %w] [%w, "      \
  "%one]) : (memref<8x16xi32, 2>)\n"                                                        \
  "          scf.yield %gk : !air.token\n"                                                  \
  "        }\n"                                                                             \
  "        %o = air.channel.put async [%r] @back[%tx, %ty] (%b[] [] []) : (memref<8x16xi32, "  \
  "2>)\n"                                                                                   \
  "        %d = air.execute [%o] {\n"                                                       \
  "          memref.dealloc %b : memref<8x16xi32, 2>\n"                                     \
  "        }\n"                                                                             \
  "      }\n"                                                                               \
  "      %start = air.wait_all async\n"                                                     \
  "      %s = scf.for %k = %c0 to %sn step %c1s iter_args(%t = %start) -> (!air.token) {\n"  \
  "        %pk = scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1s, %c1s) init "   \
  "(%t) -> !air.token {\n"                                                                  \
  "          %i2 = arith.muli %i, %c2 : index\n"                                            \
  "          %pe = arith.addi %i2, %j : index\n"                                            \
  "          %col = arith.muli %pe, %c16 : index\n"                                         \
  "          %p = air.channel.put async [%t] @t[%i, %j] (%ss[%k, %col] [%c1s, %c16] [%c64, "  \
  "%c1s]) : (memref<8x64xi32>)\n"                                                           \
  "          scf.reduce(%p : !air.token) {\n"                                               \
  "          ^bb0(%lhs: !air.token, %rhs: !air.token):\n"                                   \
  "            %both = air.wait_all async [%lhs, %rhs]\n"                                   \
  "            scf.reduce.return %both : !air.token\n"                                      \
  "          }\n"                                                                           \
  "        }\n"                                                                             \
  "        scf.yield %pk : !air.token\n"                                                    \
  "      }\n"                                                                               \
  "      %gc = scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1s, %c1s) init "     \
  "(%start) -> !air.token {\n"                                                              \
  "        %i2 = arith.muli %i, %c2 : index\n"                                              \
  "        %pe = arith.addi %i2, %j : index\n"                                              \
  "        %row = arith.muli %pe, %c8 : index\n"                                            \
  "        %g = air.channel.get async [%start] @back[%i, %j] (%so[%row, %c0] [%c8, %c16] "    \
  "[%c16, %c1s]) : (memref<32x16xi32>)\n"                                                   \
  "        scf.reduce(%g : !air.token) {\n"                                                 \
  "        ^bb0(%lhs: !air.token, %rhs: !air.token):\n"                                     \
  "          %both = air.wait_all async [%lhs, %rhs]\n"                                     \
  "          scf.reduce.return %both : !air.token\n"                                        \
  "        }\n"                                                                             \
  "      }\n"                                                                               \
  "      air.wait_all [%gc, %s, %h]\n"                                                      \
  "    }\n"                                                                                 \
  "  }\n"                                                                                   \
  "  return\n"                                                                              \
  "}\n"

static const char k_depth1[] = PROG("1");
static const char k_depth2[] = PROG("2");

/* Pools of one, two and three workers: k = 0..2 (the fixture's is two). */
static air_pool_t* pool_of(const test_exec_t* x, int k, air_pool_t** one, air_pool_t** three) {
  if (k == 1) return x->pool;
  if (k == 0) return test_exec_pool_of(x, 1, one);
  if (!*three) test_check(air_pool_create(NULL, 3, three));
  return *three;
}

static air_status_t run(const test_exec_t* x, air_pool_t* pool, const air_program_t* p,
                        int32_t* src, int32_t* out, int64_t n) {
  air_arg_t args[3] = {test_mref(src, AIR_ELEM_I32, 2, (int64_t)STEPS, (int64_t)(PES * W)),
                       test_mref(out, AIR_ELEM_I32, 2, (int64_t)(PES * STEPS), (int64_t)W),
                       test_index(n)};
  return test_exec_run_on(x, pool, p, "f", args, 3);
}

static void check_depth(void** state, const char* name, const char* text) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, name, text);
  static int32_t src[STEPS][PES * W], out[PES * STEPS][W];
  for (int k = 0; k < STEPS; ++k)
    for (int c = 0; c < PES * W; ++c) src[k][c] = k * 1000 + c + 1;
  air_pool_t *one = NULL, *three = NULL;
  for (int k = 0; k < 3; ++k)
    for (int rep = 0; rep < 4; ++rep) {
      memset(out, 0xff, sizeof out);
      test_check(run(x, pool_of(x, k, &one, &three), p, &src[0][0], &out[0][0], STEPS));
      /* PE pe's row k is piece k of its column block. */
      for (int pe = 0; pe < PES; ++pe)
        for (int s = 0; s < STEPS; ++s)
          for (int c = 0; c < W; ++c) assert_int_equal(out[pe * STEPS + s][c], src[s][pe * W + c]);
    }
  if (one) air_pool_destroy(one);
  if (three) air_pool_destroy(three);
  air_program_destroy(p);
}

static void test_fed_depth1(void** state) { check_depth(state, "chanrun1.mlir", k_depth1); }
static void test_fed_depth2(void** state) { check_depth(state, "chanrun2.mlir", k_depth2); }

/* One piece short: every PE's last get waits for a put that never comes; the
 * report names it (and the run ends). */
static void test_short_names_the_get(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "short.mlir", k_depth2);
  static int32_t src[STEPS][PES * W], out[PES * STEPS][W];
  memset(src, 0, sizeof src);
  air_pool_t *one = NULL, *three = NULL;
  for (int k = 0; k < 3; ++k)
    for (int rep = 0; rep < 2; ++rep) {
      air_status_t st = run(x, pool_of(x, k, &one, &three), p, &src[0][0], &out[0][0], STEPS - 1);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      const char* msg = air_status_message(st);
      test_expect_in(msg, "%s", "deadlock");
      test_expect_in(msg, "%s", "short.mlir:23:11: air.channel.get @t[0, 0] blocked: no put");
      test_expect_in(msg, "%s", "short.mlir:23:11: air.channel.get @t[1, 1] blocked: no put");
      air_status_free(st);
    }
  if (one) air_pool_destroy(one);
  if (three) air_pool_destroy(three);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fed_depth1, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_fed_depth2, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_short_names_the_get, test_exec_setup,
                                      test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

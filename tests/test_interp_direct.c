/* test_interp_direct.c - a channel transfer copied once, straight from the put's
 * source into a waiting get's destination, at every size (issue 14, channel.c:
 * a get whose transfer is the lane's next offers its destination while it
 * spins; a put that finds the offer copies into it, under the lane lock up to
 * IX_LANE_SMALL bytes and outside it beyond, while the get waits for it).
 * Exact data is checked in every case:
 *  - sizes around every threshold: 16 B, 512 B (IX_LANE_SMALL), 516 B, 4 KiB,
 *    16 KiB + 4 B and 1 MiB + 4 B (IX_SPLIT_MIN, a split copy), each with
 *    strided destinations and a strided source;
 *  - both orders: each side first works a varying number of loop iterations, so
 *    the get is found waiting (straight), or the put comes first (through the
 *    ring), or a wait outlasts the spin and parks;
 *  - depth 1 and 2, a pool of two workers and one;
 *  - a broadcast channel (two receivers: always through the ring) at the same
 *    sizes.
 * Runs on every executor path (air_add_path_tests: interpreted and compiled). */
#include <setjmp.h>
#include <stdbool.h>
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

/* Elements per transfer (R) and rounds (C) of each size. */
typedef struct size_case_t {
  int64_t rows, cols;
} size_case_t;

static const size_case_t k_sizes[] = {
    {4, 64},      /* 16 B */
    {128, 64},    /* 512 B: the largest copied under the lane lock */
    {129, 64},    /* 516 B: the smallest copied outside it */
    {1024, 32},   /* 4 KiB: the sample's tiles */
    {4097, 8},    /* 16 KiB + 4 B */
    {262145, 2},  /* 1 MiB + 4 B: a split copy */
};

static void fill_in(int32_t* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) in[i] = (int32_t)(i * 7919 + 13);
}

/* The ping-pong of support/pingpong.h (R elements a round, put from a
 * contiguous source, gotten into strided columns and put back from them) at
 * each size, depth 1 and 2; the 1 MiB case once per pool and work, the others
 * three times. */
static void test_sizes_both_orders(void** state) {
  for (size_t zi = 0; zi < sizeof k_sizes / sizeof *k_sizes; ++zi) {
    const size_case_t* z = &k_sizes[zi];
    bool big = z->rows * z->cols * 4 > (1 << 16);
    for (int d = 1; d <= 2; ++d)
      test_pingpong_check(*state, &(test_pingpong_t){.depth = d, .rows = z->rows, .cols = z->cols},
                          big ? 1 : 3);
  }
}

/*---------------------------------------------------------------------------*/

/* A broadcast channel: @a puts in[R*i .. R*i + R) on @b[0] each round; two PEs
 * of @g (@b broadcast to [2]) each get it into column i of their half of %o
 * (strided). Both halves must hold in[R*i + r] at row r, column i. */
static const char k_bcast[] =
    "air.channel @b [1] {broadcast_shape = [2], depth = @DEPTH@}\n"
    "func.func @bc(%in: memref<@N@xi32>, %o: memref<@N2@xi32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%li=%in, %lo=%o) : memref<@N@xi32>, memref<@N2@xi32> {\n"
    "    air.segment @s args(%si=%li, %so=%lo) : memref<@N@xi32>, memref<@N2@xi32> {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %c2s = arith.constant 2 : index\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%hi=%si) : memref<@N@xi32> {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %rows = arith.constant @R@ : index\n"
    "        %n = arith.constant @C@ : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %off = arith.muli %i, %rows : index\n"
    "          air.channel.put @b[%c0] (%hi[%off] [%rows] [%one]) : (memref<@N@xi32>)\n"
    "        }\n"
    "      }\n"
    "      %hg = air.herd @g async tile (%x) in (%sx=%c2s) args(%ho=%so) : memref<@N2@xi32> {\n"
    "        %one = arith.constant 1 : index\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %half = arith.constant @N@ : index\n"
    "        %n = arith.constant @C@ : index\n"
    "        %rows = arith.constant @R@ : index\n"
    "        %base = arith.muli %x, %half : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %at = arith.addi %base, %i : index\n"
    "          air.channel.get @b[%x] (%ho[%at] [%rows] [%n]) : (memref<@N2@xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hg]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_broadcast_sizes(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  static const char* const k_keys[] = {"@DEPTH@", "@N2@", "@N@", "@R@", "@C@"};
  for (size_t zi = 0; zi < sizeof k_sizes / sizeof *k_sizes; ++zi) {
    const size_case_t* z = &k_sizes[zi];
    int64_t n = z->rows * z->cols;
    int32_t* in = malloc((size_t)n * 4 * 4);
    assert_non_null(in);
    int32_t *o = in + n, *want = in + 3 * n;
    fill_in(in, n);
    for (int64_t r = 0; r < z->rows; ++r)
      for (int64_t i = 0; i < z->cols; ++i) want[r * z->cols + i] = in[z->rows * i + r];
    char sn[24], sn2[24], sr[24], sc[24];
    snprintf(sn, sizeof sn, "%lld", (long long)n);
    snprintf(sn2, sizeof sn2, "%lld", (long long)(2 * n));
    snprintf(sr, sizeof sr, "%lld", (long long)z->rows);
    snprintf(sc, sizeof sc, "%lld", (long long)z->cols);
    for (int d = 1; d <= 2; ++d) {
      const char* vals[5] = {d == 1 ? "1" : "2", sn2, sn, sr, sc};
      char text[sizeof k_bcast + 256];
      test_text_subst(text, sizeof text, k_bcast, k_keys, vals, 5);
      air_program_t* p = test_load_text(x->ctx, "bcast.mlir", text);
      for (int k = 0; k < 2; ++k) {
        memset(o, 0, (size_t)n * 2 * sizeof *o);
        air_arg_t args[2] = {test_mref(in, AIR_ELEM_I32, 1, n),
                             test_mref(o, AIR_ELEM_I32, 1, 2 * n)};
        test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "bc", args, 2));
        assert_memory_equal(o, want, (size_t)n * sizeof *o);
        assert_memory_equal(o + n, want, (size_t)n * sizeof *o);
      }
      air_program_destroy(p);
    }
    free(in);
  }
  if (one) air_pool_destroy(one);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sizes_both_orders, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_broadcast_sizes, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

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

/* `text` with each @KEY@ of keys[] replaced by vals[] (a caller's buffer: the
 * programs here are small). */
static void subst(char* out, size_t cap, const char* text, const char* const* keys,
                  const char* const* vals, int n) {
  size_t o = 0;
  for (const char* t = text; *t && o + 32 < cap;) {
    int k = 0;
    while (k < n && strncmp(t, keys[k], strlen(keys[k]))) ++k;
    if (k < n) {
      o += (size_t)snprintf(out + o, cap - o, "%s", vals[k]);
      t += strlen(keys[k]);
    } else {
      out[o++] = *t++;
    }
  }
  out[o] = 0;
}

/* Round i of @C@: @a puts in[R*i .. R*i + R) (contiguous) on @ping and gets @pong
 * into column i of %oa, an R x C row-major matrix (R elements C apart: a
 * strided destination); @b gets @ping into column i of %ob and puts that
 * column back (a strided source). Before each round a side works
 * (i * 37 mod 11) * %w (a) or (i * 53 mod 13) * %w (b) loop iterations, so
 * either may come first. Both outputs must hold in[R*i + r] at row r, column i. */
static const char k_sized[] =
    "air.channel @ping [1] {depth = @DEPTH@}\n"
    "air.channel @pong [1] {depth = @DEPTH@}\n"
    "func.func @sz(%in: memref<@N@xi32>, %oa: memref<@N@xi32>, %ob: memref<@N@xi32>, "
    "%w: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%li=%in, %la=%oa, %lb=%ob, %lw=%w) : memref<@N@xi32>, "
    "memref<@N@xi32>, memref<@N@xi32>, index {\n"
    "    air.segment @s args(%si=%li, %sa=%la, %sb=%lb, %sw=%lw) : memref<@N@xi32>, "
    "memref<@N@xi32>, memref<@N@xi32>, index {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %co = air.token.alloc : !air.token\n"
    "      %ha = air.herd @a async tile (%x) in (%sx=%c1s) args(%hi=%si, %ho=%sa, %hw=%sw) : "
    "memref<@N@xi32>, memref<@N@xi32>, index [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %rows = arith.constant @R@ : index\n"
    "        %n = arith.constant @C@ : index\n"
    "        %k = arith.constant 37 : index\n"
    "        %m = arith.constant 11 : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %ik = arith.muli %i, %k : index\n"
    "          %r = arith.remui %ik, %m : index\n"
    "          %spin = arith.muli %r, %hw : index\n"
    "          scf.for %j = %c0 to %spin step %one {\n"
    "            %z = arith.addi %j, %one : index\n"
    "          }\n"
    "          %off = arith.muli %i, %rows : index\n"
    "          air.channel.put @ping[%c0] (%hi[%off] [%rows] [%one]) : (memref<@N@xi32>)\n"
    "          air.channel.get @pong[%c0] (%ho[%i] [%rows] [%n]) : (memref<@N@xi32>)\n"
    "        }\n"
    "      }\n"
    "      %hb = air.herd @b async tile (%x) in (%sx=%c1s) args(%ho=%sb, %hw=%sw) : "
    "memref<@N@xi32>, index [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %rows = arith.constant @R@ : index\n"
    "        %n = arith.constant @C@ : index\n"
    "        %k = arith.constant 53 : index\n"
    "        %m = arith.constant 13 : index\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          %ik = arith.muli %i, %k : index\n"
    "          %r = arith.remui %ik, %m : index\n"
    "          %spin = arith.muli %r, %hw : index\n"
    "          scf.for %j = %c0 to %spin step %one {\n"
    "            %z = arith.addi %j, %one : index\n"
    "          }\n"
    "          air.channel.get @ping[%c0] (%ho[%i] [%rows] [%n]) : (memref<@N@xi32>)\n"
    "          air.channel.put @pong[%c0] (%ho[%i] [%rows] [%n]) : (memref<@N@xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

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

/* Runs `fn` of `p` (the k_sized argument list) and checks both outputs. */
static void run_sized(test_exec_t* x, air_pool_t* pool, air_program_t* p, const char* fn,
                      const size_case_t* z, int64_t work, const int32_t* in, int32_t* oa,
                      int32_t* ob, const int32_t* want) {
  int64_t n = z->rows * z->cols;
  memset(oa, 0, (size_t)n * sizeof *oa), memset(ob, 0, (size_t)n * sizeof *ob);
  air_arg_t args[4] = {test_mref((void*)in, AIR_ELEM_I32, 1, n), test_mref(oa, AIR_ELEM_I32, 1, n),
                       test_mref(ob, AIR_ELEM_I32, 1, n), index_arg(work)};
  test_check(test_exec_run_on(x, pool, p, fn, args, 4));
  assert_memory_equal(ob, want, (size_t)n * sizeof *ob);
  assert_memory_equal(oa, want, (size_t)n * sizeof *oa);
}

static void test_sizes_both_orders(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  static const char* const k_keys[] = {"@DEPTH@", "@N@", "@R@", "@C@"};
  for (size_t zi = 0; zi < sizeof k_sizes / sizeof *k_sizes; ++zi) {
    const size_case_t* z = &k_sizes[zi];
    int64_t n = z->rows * z->cols;
    bool big = n * 4 > (1 << 16);
    int32_t* in = malloc((size_t)n * 4 * 4);
    assert_non_null(in);
    int32_t *oa = in + n, *ob = in + 2 * n, *want = in + 3 * n;
    fill_in(in, n);
    for (int64_t r = 0; r < z->rows; ++r)
      for (int64_t i = 0; i < z->cols; ++i) want[r * z->cols + i] = in[z->rows * i + r];
    char sn[24], sr[24], sc[24];
    snprintf(sn, sizeof sn, "%lld", (long long)n);
    snprintf(sr, sizeof sr, "%lld", (long long)z->rows);
    snprintf(sc, sizeof sc, "%lld", (long long)z->cols);
    for (int d = 1; d <= 2; ++d) {
      const char* vals[4] = {d == 1 ? "1" : "2", sn, sr, sc};
      char text[sizeof k_sized + 256];
      subst(text, sizeof text, k_sized, k_keys, vals, 4);
      air_program_t* p = test_load_text(x->ctx, "sized.mlir", text);
      /* 0: both sides run at once (a waiting get is usual); 40 and 400: one
       * side lags, the other waits in the spin or parks. */
      static const int64_t k_work[] = {0, 3, 40, 400};
      for (int k = 0; k < 2; ++k)
        for (size_t w = 0; w < sizeof k_work / sizeof *k_work; ++w)
          for (int rep = 0; rep < (big ? 1 : 3); ++rep)
            run_sized(x, test_exec_pool_of(x, k, &one), p, "sz", z, k_work[w], in, oa, ob, want);
      air_program_destroy(p);
    }
    free(in);
  }
  if (one) air_pool_destroy(one);
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
      subst(text, sizeof text, k_bcast, k_keys, vals, 5);
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

/* pingpong.c - see pingpong.h. */
#include "support/pingpong.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/programs.h"
#include "support/status.h"

/* Before round %i a side works (i * %k mod %m) * %w loop iterations. */
#define WORK                                                                   \
  "          %ik = arith.muli %i, %k : index\n"                                \
  "          %r = arith.remui %ik, %m : index\n"                               \
  "          %spin = arith.muli %r, %hw : index\n"                             \
  "          scf.for %j = %c0 to %spin step %one {\n"                          \
  "            %z = arith.addi %j, %one : index\n"                             \
  "          }\n"

/* @GS@: the stride of a column access, %n (C) or, for single elements, %one. */
static const char k_pingpong[] =
    "air.channel @ping [1]@DEPTH@\n"
    "air.channel @pong [1]@DEPTH@\n"
    "func.func @pp(%in: memref<@N@xi32>, %oa: memref<@N@xi32>, %ob: memref<@N@xi32>, "
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
    WORK
    "          %off = arith.muli %i, %rows : index\n"
    "          air.channel.put @ping[%c0] (%hi[%off] [%rows] [%one]) : (memref<@N@xi32>)\n"
    "          air.channel.get @pong[%c0] (%ho[%i] [%rows] [@GS@]) : (memref<@N@xi32>)\n"
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
    WORK
    "          air.channel.get @ping[%c0] (%ho[%i] [%rows] [@GS@]) : (memref<@N@xi32>)\n"
    "          air.channel.put @pong[%c0] (%ho[%i] [%rows] [@GS@]) : (memref<@N@xi32>)\n"
    "        }\n"
    "      }\n"
    "      air.wait_all [%ha, %hb]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

char* test_pingpong_text(const test_pingpong_t* pp) {
  static const char* const k_keys[] = {"@DEPTH@", "@N@", "@R@", "@C@", "@GS@"};
  char depth[32] = "", n[24], r[24], c[24];
  if (pp->depth) snprintf(depth, sizeof depth, " {depth = %d}", pp->depth);
  snprintf(n, sizeof n, "%lld", (long long)(pp->rows * pp->cols));
  snprintf(r, sizeof r, "%lld", (long long)pp->rows);
  snprintf(c, sizeof c, "%lld", (long long)pp->cols);
  const char* vals[5] = {depth, n, r, c, pp->rows == 1 ? "%one" : "%n"};
  size_t cap = sizeof k_pingpong + 512;
  char* text = malloc(cap);
  assert_non_null(text);
  test_text_subst(text, cap, k_pingpong, k_keys, vals, 5);
  return text;
}

void test_pingpong_check(test_exec_t* x, const test_pingpong_t* pp, int reps) {
  int64_t n = pp->rows * pp->cols;
  int32_t* in = malloc((size_t)n * 4 * sizeof *in);
  assert_non_null(in);
  int32_t *oa = in + n, *ob = in + 2 * n, *want = in + 3 * n;
  for (int64_t i = 0; i < n; ++i) in[i] = (int32_t)(i * 7919 + 13);
  for (int64_t r = 0; r < pp->rows; ++r)
    for (int64_t i = 0; i < pp->cols; ++i) want[r * pp->cols + i] = in[pp->rows * i + r];
  char* text = test_pingpong_text(pp);
  air_program_t* p = test_load_text(x->ctx, "pingpong.mlir", text);
  free(text);
  air_pool_t* one = NULL;
  static const int64_t k_work[] = {0, 3, 40, 400};
  for (int k = 0; k < 2; ++k)
    for (size_t w = 0; w < sizeof k_work / sizeof *k_work; ++w)
      for (int rep = 0; rep < reps; ++rep) {
        memset(oa, 0, (size_t)n * sizeof *oa), memset(ob, 0, (size_t)n * sizeof *ob);
        air_arg_t args[4] = {test_mref(in, AIR_ELEM_I32, 1, n), test_mref(oa, AIR_ELEM_I32, 1, n),
                             test_mref(ob, AIR_ELEM_I32, 1, n), test_index(k_work[w])};
        test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "pp", args, 4));
        assert_memory_equal(ob, want, (size_t)n * sizeof *ob);
        assert_memory_equal(oa, want, (size_t)n * sizeof *oa);
      }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
  free(in);
}

/* test_interp_speed.c - what the CPU executor does to run fast (issue 14), each
 * checked for its results against a C reference or the reference path:
 *  - copies of 1 MiB and more split across the pool's workers: a contiguous DMA,
 *    a 2-d tile DMA out of a wider matrix, a channel transfer of 2 MiB;
 *  - async ops that are ready run in their dispatcher's strand (wait_all, DMA,
 *    execute, put/get), and their tokens still order what follows;
 *  - a ping-pong over depth-1 channels between two running herds (the spin
 *    before parking), many rounds;
 *  - compiled units inside a run: results equal the reference path's, an out of
 *    bounds store in a compiled loop fails the run at the store with the
 *    interpreter's message and leaves the same memory behind;
 *  - tile DMAs with rows of 65-1024 bytes (the wide row copy) in a herd body, for
 *    i8, bf16 and f32, land exactly where the access patterns say.
 * Every program runs three ways (AIR_TEST_PATH is ignored here): interpreted with
 * the reference loops, with library kernels only, and with compiled units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal/cpu/cpu_code.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

/*---------------------------------------------------------------------------*/

static const char k_big_dma[] =
    "func.func @big(%a: memref<1048576xf32>, %b: memref<1048576xf32>, %m: memref<1024x1024xf32>, "
    "%t: memref<512x512xf32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c256 = arith.constant 256 : index\n"
    "  %c512 = arith.constant 512 : index\n"
    "  %c1024 = arith.constant 1024 : index\n"
    "  air.dma_memcpy_nd (%b[] [] [], %a[] [] []) : (memref<1048576xf32>, memref<1048576xf32>)\n"
    "  air.dma_memcpy_nd (%t[] [] [], %m[%c256, %c512] [%c512, %c512] [%c1024, %c1]) : "
    "(memref<512x512xf32>, memref<1024x1024xf32>)\n"
    "  return\n"
    "}\n";

static void test_large_dma_split(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "big.mlir", k_big_dma);
  size_t n = 1u << 20;
  float *a = malloc(n * 4), *b = malloc(n * 4), *m = malloc(n * 4), *t = malloc(n);
  assert_true(a && b && m && t);
  for (size_t i = 0; i < n; ++i) a[i] = (float)i * 0.5f, m[i] = (float)(i % 9973);
  for (int way = 0; way < TEST_N_WAYS; ++way) {
    memset(b, 0, n * 4);
    memset(t, 0, n);
    air_arg_t args[4] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)n),
                         test_mref(b, AIR_ELEM_F32, 1, (int64_t)n),
                         test_mref(m, AIR_ELEM_F32, 2, (int64_t)1024, (int64_t)1024),
                         test_mref(t, AIR_ELEM_F32, 2, (int64_t)512, (int64_t)512)};
    test_check(test_exec_run_way(x, p, "big", args, 4, way));
    assert_memory_equal(a, b, n * 4);
    for (int i = 0; i < 512; ++i)
      assert_memory_equal(t + (size_t)i * 512, m + (size_t)(256 + i) * 1024 + 512, 512 * 4);
  }
  free(a), free(b), free(m), free(t);
  air_program_destroy(p);
}

/* 2 MiB over a channel from one herd to another, and back out through L3. */
static const char k_big_chan[] =
    "air.channel @c [1, 1]\n"
    "func.func @big(%in: memref<512x1024xf32>, %out: memref<512x1024xf32>) {\n"
    "  air.launch () in () args(%li=%in, %lo=%out) : memref<512x1024xf32>, memref<512x1024xf32> {\n"
    "    air.segment @s args(%si=%li, %so=%lo) : memref<512x1024xf32>, memref<512x1024xf32> {\n"
    "      %c1 = arith.constant 1 : index\n"
    "      %h0 = air.herd @p async tile (%x) in (%nx=%c1) args(%hi=%si) : memref<512x1024xf32> {\n"
    "        air.channel.put @c[] (%hi[] [] []) : (memref<512x1024xf32>)\n"
    "      }\n"
    "      %h1 = air.herd @g async tile (%x) in (%nx=%c1) args(%ho=%so) : memref<512x1024xf32> {\n"
    "        air.channel.get @c[] (%ho[] [] []) : (memref<512x1024xf32>)\n"
    "      }\n"
    "      air.wait_all [%h0, %h1]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_large_channel_split(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "chan.mlir", k_big_chan);
  size_t n = 512 * 1024;
  float *in = malloc(n * 4), *out = malloc(n * 4);
  for (size_t i = 0; i < n; ++i) in[i] = (float)(i * 7 % 1001);
  for (int way = 0; way < TEST_N_WAYS; ++way) {
    memset(out, 0, n * 4);
    air_arg_t args[2] = {test_mref(in, AIR_ELEM_F32, 2, (int64_t)512, (int64_t)1024),
                         test_mref(out, AIR_ELEM_F32, 2, (int64_t)512, (int64_t)1024)};
    test_check(test_exec_run_way(x, p, "big", args, 2, way));
    assert_memory_equal(in, out, n * 4);
  }
  free(in), free(out);
  air_program_destroy(p);
}

/* Ready async ops in a row: each reads what the one before wrote, so running one
 * before its predecessor finished would show in `out`. */
static const char k_ready[] =
    "func.func @chain(%a: memref<64xi32>, %out: memref<64xi32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c64 = arith.constant 64 : index\n"
    "  %two = arith.constant 2 : i32\n"
    "  %t0 = air.wait_all async\n"
    "  %tb, %buf = air.execute [%t0] -> (memref<64xi32>) {\n"
    "    %m = memref.alloc() : memref<64xi32>\n"
    "    air.execute_terminator %m : memref<64xi32>\n"
    "  }\n"
    "  %t1 = air.dma_memcpy_nd async [%tb] (%buf[] [] [], %a[] [] []) : (memref<64xi32>, memref<64xi32>)\n"
    "  %t2 = air.execute [%t1] {\n"
    "    scf.for %i = %c0 to %c64 step %c1 {\n"
    "      %v = memref.load %buf[%i] : memref<64xi32>\n"
    "      %w = arith.muli %v, %two : i32\n"
    "      memref.store %w, %buf[%i] : memref<64xi32>\n"
    "    }\n"
    "  }\n"
    "  %t3 = air.wait_all async [%t2]\n"
    "  %t4 = air.dma_memcpy_nd async [%t3] (%out[] [] [], %buf[] [] []) : (memref<64xi32>, memref<64xi32>)\n"
    "  air.wait_all [%t4]\n"
    "  memref.dealloc %buf : memref<64xi32>\n"
    "  return\n"
    "}\n";

static void test_ready_async_ops(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "ready.mlir", k_ready);
  int32_t a[64], out[64];
  for (int i = 0; i < 64; ++i) a[i] = i * 3 - 50;
  for (int way = 0; way < TEST_N_WAYS; ++way)
    for (int rep = 0; rep < 20; ++rep) { /* runs recycled by the prep, caches warm */
      memset(out, 0, sizeof out);
      air_arg_t args[2] = {test_mref(a, AIR_ELEM_I32, 1, (int64_t)64),
                           test_mref(out, AIR_ELEM_I32, 1, (int64_t)64)};
      test_check(test_exec_run_way(x, p, "chain", args, 2, way));
      for (int i = 0; i < 64; ++i) assert_int_equal(out[i], a[i] * 2);
    }
  air_program_destroy(p);
}

/* Two herds trade a counter 2000 times over depth-1 channels. */
static const char k_pingpong[] =
    "air.channel @ab [1]\n"
    "air.channel @ba [1]\n"
    "func.func @pp(%out: memref<2xi32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%o=%out) : memref<2xi32> {\n"
    "    air.segment @s args(%so=%o) : memref<2xi32> {\n"
    "      %c1s = arith.constant 1 : index\n"
    "      %co = air.token.alloc : !air.token\n"
    "      %h0 = air.herd @a async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<2xi32> [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 2000 : index\n"
    "        %b = memref.alloc() : memref<1xi32, 2>\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          air.channel.put @ab[%c0] (%b[] [] []) : (memref<1xi32, 2>)\n"
    "          air.channel.get @ba[%c0] (%b[] [] []) : (memref<1xi32, 2>)\n"
    "        }\n"
    "        %c1h = arith.constant 1 : index\n"
    "        air.dma_memcpy_nd (%ho[%c0] [%c1h] [%c1h], %b[] [] []) : (memref<2xi32>, memref<1xi32, 2>)\n"
    "        memref.dealloc %b : memref<1xi32, 2>\n"
    "      }\n"
    "      %h1 = air.herd @b async tile (%x) in (%sx=%c1s) [concurrency = [%co]] {\n"
    "        %c0 = arith.constant 0 : index\n"
    "        %one = arith.constant 1 : index\n"
    "        %n = arith.constant 2000 : index\n"
    "        %k = arith.constant 1 : i32\n"
    "        %b = memref.alloc() : memref<1xi32, 2>\n"
    "        scf.for %i = %c0 to %n step %one {\n"
    "          air.channel.get @ab[%c0] (%b[] [] []) : (memref<1xi32, 2>)\n"
    "          %v = memref.load %b[%c0] : memref<1xi32, 2>\n"
    "          %w = arith.addi %v, %k : i32\n"
    "          memref.store %w, %b[%c0] : memref<1xi32, 2>\n"
    "          air.channel.put @ba[%c0] (%b[] [] []) : (memref<1xi32, 2>)\n"
    "        }\n"
    "        memref.dealloc %b : memref<1xi32, 2>\n"
    "      }\n"
    "      air.wait_all [%h0, %h1]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_pingpong(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "pp.mlir", k_pingpong);
  for (int way = 0; way < TEST_N_WAYS; ++way) {
    int32_t out[2] = {-1, -1};
    air_arg_t args[1] = {test_mref(out, AIR_ELEM_I32, 1, (int64_t)2)};
    test_check(test_exec_run_way(x, p, "pp", args, 1, way));
    assert_int_equal(out[0], 2000);
  }
  air_program_destroy(p);
}

/* A compiled loop that stores past the end: the run fails at the store with the
 * interpreter's message, after the same stores, on every path. */
static const char k_oob[] =
    "func.func @oob(%m: memref<16xi32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  scf.for %i = %c0 to %n step %c1 {\n"
    "    %v = arith.index_cast %i : index to i32\n"
    "    memref.store %v, %m[%i] : memref<16xi32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_compiled_failure(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "oob.mlir", k_oob);
  int32_t ref[16], got[16];
  char msg_ref[512] = "";
  for (int way = 0; way < TEST_N_WAYS; ++way) {
    int32_t* m = way ? got : ref;
    memset(m, 0x11, 16 * sizeof *m);
    air_arg_t args[2] = {test_mref(m, AIR_ELEM_I32, 1, (int64_t)16), {0}};
    args[1].kind = AIR_ARG_INT;
    args[1].elem = AIR_ELEM_INDEX;
    args[1].i = 20;
    air_status_t st = test_exec_run_way(x, p, "oob", args, 2, way);
    assert_non_null(st);
    assert_int_equal(air_status_code(st), AIR_STATUS_OUT_OF_RANGE);
    test_expect_in(air_status_message(st), "%s", "oob.mlir:6:5: error: memref.store: index out of bounds of %m");
    if (!way) snprintf(msg_ref, sizeof msg_ref, "%s", air_status_message(st));
    else assert_string_equal(air_status_message(st), msg_ref);
    air_status_free(st);
    if (way) assert_memory_equal(ref, got, sizeof ref);
  }
  air_program_destroy(p);
}

/* Tile DMAs whose rows are 65-1024 bytes (pattern.c's wide row copy) in a herd
 * body, for i8, bf16 and f32: an 8-row box out of a wider matrix into L1 and
 * back into another place of an output matrix; the rest of the output keeps
 * its fill. Row widths 261 B, 262 B (131 bf16) and 268 B (67 f32): not
 * multiples of 64. */
#define WIDE_SIDE(T, W, L)                                                             \
  "    %l" #T " = memref.alloc() : memref<8x" #L "x" #T ", 2>\n"                       \
  "    air.dma_memcpy_nd (%l" #T "[] [] [], %h" #T "[%c3, %c5] [%c8, %cl" #L "] [%cw" #W \
  ", %one]) : (memref<8x" #L "x" #T ", 2>, memref<24x" #W "x" #T ">)\n"                \
  "    air.dma_memcpy_nd (%ho" #T "[%c5, %c7] [%c8, %cl" #L "] [%cw" #W ", %one], %l" #T \
  "[] [] []) : (memref<24x" #W "x" #T ">, memref<8x" #L "x" #T ", 2>)\n"             \
  "    memref.dealloc %l" #T " : memref<8x" #L "x" #T ", 2>\n"
#define WIDE_TYPES                                                                  \
  "memref<24x300xi8>, memref<24x300xi8>, memref<24x150xbf16>, memref<24x150xbf16>, " \
  "memref<24x75xf32>, memref<24x75xf32>"
static const char k_wide[] =
    "func.func @wide(%a: memref<24x300xi8>, %oa: memref<24x300xi8>, %b: memref<24x150xbf16>, "
    "%ob: memref<24x150xbf16>, %c: memref<24x75xf32>, %oc: memref<24x75xf32>) {\n"
    "  air.launch () in () args(%la=%a, %loa=%oa, %lb=%b, %lob=%ob, %lc=%c, %loc=%oc) : "
    WIDE_TYPES " {\n"
    "  air.segment @s args(%sa=%la, %soa=%loa, %sb=%lb, %sob=%lob, %sc=%lc, %soc=%loc) : "
    WIDE_TYPES " {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%hi8=%sa, %hoi8=%soa, %hbf16=%sb, "
    "%hobf16=%sob, %hf32=%sc, %hof32=%soc) : " WIDE_TYPES " {\n"
    "    %one = arith.constant 1 : index\n"
    "    %c3 = arith.constant 3 : index\n"
    "    %c5 = arith.constant 5 : index\n"
    "    %c7 = arith.constant 7 : index\n"
    "    %c8 = arith.constant 8 : index\n"
    "    %cl261 = arith.constant 261 : index\n"
    "    %cl131 = arith.constant 131 : index\n"
    "    %cl67 = arith.constant 67 : index\n"
    "    %cw300 = arith.constant 300 : index\n"
    "    %cw150 = arith.constant 150 : index\n"
    "    %cw75 = arith.constant 75 : index\n"
    WIDE_SIDE(i8, 300, 261) WIDE_SIDE(bf16, 150, 131) WIDE_SIDE(f32, 75, 67)
    "  }\n"
    "  }\n"
    "  }\n"
    "  return\n"
    "}\n";
#undef WIDE_SIDE
#undef WIDE_TYPES

static void test_wide_tile_dmas(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "wide.mlir", k_wide);
  static uint8_t a[24][300], oa[24][300], ra[24][300];
  static uint16_t b[24][150], ob[24][150], rb[24][150];
  static float c[24][75], oc[24][75], rc[24][75];
  for (int i = 0; i < 24; ++i) {
    for (int j = 0; j < 300; ++j) a[i][j] = (uint8_t)(i * 31 + j * 7);
    for (int j = 0; j < 150; ++j) b[i][j] = (uint16_t)(0x3f80 + i * 150 + j);
    for (int j = 0; j < 75; ++j) c[i][j] = (float)(i * 75 + j) + 0.25f;
  }
  memset(ra, 0xee, sizeof ra), memset(rb, 0xee, sizeof rb), memset(rc, 0xee, sizeof rc);
  for (int i = 0; i < 8; ++i) {
    memcpy(&ra[5 + i][7], &a[3 + i][5], 261);
    memcpy(&rb[5 + i][7], &b[3 + i][5], 131 * 2);
    memcpy(&rc[5 + i][7], &c[3 + i][5], 67 * 4);
  }
  for (int way = 0; way < TEST_N_WAYS; ++way)
    for (int rep = 0; rep < 2; ++rep) {
      memset(oa, 0xee, sizeof oa), memset(ob, 0xee, sizeof ob), memset(oc, 0xee, sizeof oc);
      air_arg_t args[6] = {test_mref(a, AIR_ELEM_I8, 2, (int64_t)24, (int64_t)300),
                           test_mref(oa, AIR_ELEM_I8, 2, (int64_t)24, (int64_t)300),
                           test_mref(b, AIR_ELEM_BF16, 2, (int64_t)24, (int64_t)150),
                           test_mref(ob, AIR_ELEM_BF16, 2, (int64_t)24, (int64_t)150),
                           test_mref(c, AIR_ELEM_F32, 2, (int64_t)24, (int64_t)75),
                           test_mref(oc, AIR_ELEM_F32, 2, (int64_t)24, (int64_t)75)};
      test_check(test_exec_run_way(x, p, "wide", args, 6, way));
      if (memcmp(oa, ra, sizeof oa)) fail_msg("way %d: the i8 tile differs", way);
      if (memcmp(ob, rb, sizeof ob)) fail_msg("way %d: the bf16 tile differs", way);
      if (memcmp(oc, rc, sizeof oc)) fail_msg("way %d: the f32 tile differs", way);
    }
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_large_dma_split, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_large_channel_split, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_ready_async_ops, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_pingpong, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_compiled_failure, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_wide_tile_dmas, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

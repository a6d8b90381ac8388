/* test_codegen.c - the code generator (src/codegen) against the interpreter:
 * values computed by compiled units must match the interpreter's bit for bit.
 *
 * Each case is a function whose body is one compiled unit (a loop or branch) and
 * then stores of the unit's results. The interpreter runs the whole function on
 * one copy of the buffers; the compiled unit runs on another, with its inputs
 * taken from the same arguments and its results stored the way memref.store
 * would; the buffers must then be identical, bit for bit (run_case,
 * tests/codegen_test.h). Errors, fallback, coverage and objects are in
 * test_codegen_limits.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen_test.h"

/*---------------------------------------------------------------------------*/
/* Cases                                                                     */
/*---------------------------------------------------------------------------*/

/* One random sequence for the whole file: every rnd() user is in this file and
 * runs in this order, so each case sees the same inputs as before the split. */
static uint32_t g_seed = 12345;
static uint32_t rnd(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return g_seed >> 8;
}

/* vector add with a running sum in iter_args (f32), and its result stored. */
static void test_vector_add_sum(void** state) {
  static float a[256], b[256], c[256], r[2];
  for (int i = 0; i < 256; ++i) {
    a[i] = (float)(rnd() % 1000) / 7.0f;
    b[i] = (float)(rnd() % 1000) / 3.0f;
  }
  case_t cs = {
      .text =
          "func.func @f(%lo: index, %hi: index, %st: index, %a: memref<256xf32>, "
          "%b: memref<256xf32>, %c: memref<256xf32>, %z: index, %r: memref<2xf32>) {\n"
          "  %s = scf.for %i = %lo to %hi step %st iter_args(%acc = %lo) -> (index) {\n"
          "    %x = memref.load %a[%i] : memref<256xf32>\n"
          "    %y = memref.load %b[%i] : memref<256xf32>\n"
          "    %v = arith.addf %x, %y : f32\n"
          "    memref.store %v, %c[%i] : memref<256xf32>\n"
          "    %n = arith.addi %acc, %i : index\n"
          "    scf.yield %n : index\n"
          "  }\n"
          "  %sf = arith.index_cast %s : index to i64\n"
          "  %sv = arith.sitofp %sf : i64 to f32\n"
          "  memref.store %sv, %r[%z] : memref<2xf32>\n"
          "  return\n"
          "}\n",
      .n_args = 8,
  };
  int64_t n256 = 256, n2 = 2;
  cs.args[0] = iarg(AIR_ELEM_INDEX, 3);
  cs.args[1] = iarg(AIR_ELEM_INDEX, 250);
  cs.args[2] = iarg(AIR_ELEM_INDEX, 2);
  cs.args[3] = mref(a, AIR_ELEM_F32, 1, &n256, NULL, 0);
  cs.args[4] = mref(b, AIR_ELEM_F32, 1, &n256, NULL, 0);
  cs.args[5] = mref(c, AIR_ELEM_F32, 1, &n256, NULL, 0);
  cs.args[6] = iarg(AIR_ELEM_INDEX, 0);
  cs.args[7] = mref(r, AIR_ELEM_F32, 1, &n2, NULL, 0);
  cs.bytes[3] = cs.bytes[4] = cs.bytes[5] = sizeof a;
  cs.bytes[7] = sizeof r;
  /* The result goes through sitofp outside the unit, so r is written by the
   * interpreter only; the compiled path writes the index result as f32 bits.
   * Compare the loop's memory effects only: make r the same on both sides. */
  (void)cs;
  case_t c2 = cs;
  c2.text =
      "func.func @f(%lo: index, %hi: index, %st: index, %a: memref<256xf32>, "
      "%b: memref<256xf32>, %c: memref<256xf32>, %z: index, %r: memref<2xindex>) {\n"
      "  %s = scf.for %i = %lo to %hi step %st iter_args(%acc = %lo) -> (index) {\n"
      "    %x = memref.load %a[%i] : memref<256xf32>\n"
      "    %y = memref.load %b[%i] : memref<256xf32>\n"
      "    %v = arith.addf %x, %y : f32\n"
      "    memref.store %v, %c[%i] : memref<256xf32>\n"
      "    %n = arith.addi %acc, %i : index\n"
      "    scf.yield %n : index\n"
      "  }\n"
      "  memref.store %s, %r[%z] : memref<2xindex>\n"
      "  return\n"
      "}\n";
  static int64_t ri[2];
  c2.args[7] = mref(ri, AIR_ELEM_INDEX, 1, &n2, NULL, 0);
  c2.bytes[7] = sizeof ri;
  run_case(*state, &c2);
  /* An empty range: the results are the inits. */
  c2.args[1] = iarg(AIR_ELEM_INDEX, 3);
  run_case(*state, &c2);
}

/* Integer ops at widths 8/16/32/64 over a table of operand pairs, every result
 * stored; divisors are never zero here. */
static void test_integer_ops(void** state) {
  static const char* types[] = {"i8", "i16", "i32", "i64"};
  static const uint32_t elems[] = {AIR_ELEM_I8, AIR_ELEM_I16, AIR_ELEM_I32, AIR_ELEM_I64};
  for (int t = 0; t < 4; ++t) {
    char text[4096];
    const char* T = types[t];
    snprintf(text, sizeof text,
             "func.func @f(%%n: index, %%a: memref<64x%s>, %%b: memref<64x%s>, "
             "%%o: memref<64x20x%s>, %%r: memref<1xindex>) {\n"
             "  affine.for %%i = 0 to 64 {\n"
             "    %%x = memref.load %%a[%%i] : memref<64x%s>\n"
             "    %%y = memref.load %%b[%%i] : memref<64x%s>\n"
             "    %%r0 = arith.addi %%x, %%y : %s\n"
             "    %%r1 = arith.subi %%x, %%y : %s\n"
             "    %%r2 = arith.muli %%x, %%y : %s\n"
             "    %%r3 = arith.divsi %%x, %%y : %s\n"
             "    %%r4 = arith.remsi %%x, %%y : %s\n"
             "    %%r5 = arith.ceildivsi %%x, %%y : %s\n"
             "    %%r6 = arith.floordivsi %%x, %%y : %s\n"
             "    %%r7 = arith.divui %%x, %%y : %s\n"
             "    %%r8 = arith.remui %%x, %%y : %s\n"
             "    %%r9 = arith.maxsi %%x, %%y : %s\n"
             "    %%r10 = arith.minui %%x, %%y : %s\n"
             "    %%r11 = arith.xori %%x, %%y : %s\n"
             "    %%r12 = arith.shli %%x, %%y : %s\n"
             "    %%r13 = arith.shrsi %%x, %%y : %s\n"
             "    %%r14 = arith.shrui %%x, %%y : %s\n"
             "    %%c = arith.cmpi ult, %%x, %%y : %s\n"
             "    %%r15 = arith.select %%c, %%x, %%y : %s\n"
             "    %%w = arith.extsi %%x : %s to i64\n"
             "    %%u = arith.extui %%y : %s to i64\n"
             "    %%s = arith.addi %%w, %%u : i64\n"
             "    %%r16 = arith.trunci %%s : i64 to %s\n"
             "    %%r17 = arith.andi %%x, %%y : %s\n"
             "    %%r18 = arith.ori %%x, %%y : %s\n"
             "    %%r19 = arith.minsi %%x, %%y : %s\n"
             "    %%c0 = arith.constant 0 : index\n"
             "    %%c1 = arith.constant 1 : index\n"
             "    %%c2 = arith.constant 2 : index\n"
             "    %%c3 = arith.constant 3 : index\n"
             "    %%c4 = arith.constant 4 : index\n"
             "    %%c5 = arith.constant 5 : index\n"
             "    %%c6 = arith.constant 6 : index\n"
             "    %%c7 = arith.constant 7 : index\n"
             "    %%c8 = arith.constant 8 : index\n"
             "    %%c9 = arith.constant 9 : index\n"
             "    %%c10 = arith.constant 10 : index\n"
             "    %%c11 = arith.constant 11 : index\n"
             "    %%c12 = arith.constant 12 : index\n"
             "    %%c13 = arith.constant 13 : index\n"
             "    %%c14 = arith.constant 14 : index\n"
             "    %%c15 = arith.constant 15 : index\n"
             "    %%c16 = arith.constant 16 : index\n"
             "    %%c17 = arith.constant 17 : index\n"
             "    %%c18 = arith.constant 18 : index\n"
             "    %%c19 = arith.constant 19 : index\n"
             "    memref.store %%r0, %%o[%%i, %%c0] : memref<64x20x%s>\n"
             "    memref.store %%r1, %%o[%%i, %%c1] : memref<64x20x%s>\n"
             "    memref.store %%r2, %%o[%%i, %%c2] : memref<64x20x%s>\n"
             "    memref.store %%r3, %%o[%%i, %%c3] : memref<64x20x%s>\n"
             "    memref.store %%r4, %%o[%%i, %%c4] : memref<64x20x%s>\n"
             "    memref.store %%r5, %%o[%%i, %%c5] : memref<64x20x%s>\n"
             "    memref.store %%r6, %%o[%%i, %%c6] : memref<64x20x%s>\n"
             "    memref.store %%r7, %%o[%%i, %%c7] : memref<64x20x%s>\n"
             "    memref.store %%r8, %%o[%%i, %%c8] : memref<64x20x%s>\n"
             "    memref.store %%r9, %%o[%%i, %%c9] : memref<64x20x%s>\n"
             "    memref.store %%r10, %%o[%%i, %%c10] : memref<64x20x%s>\n"
             "    memref.store %%r11, %%o[%%i, %%c11] : memref<64x20x%s>\n"
             "    memref.store %%r12, %%o[%%i, %%c12] : memref<64x20x%s>\n"
             "    memref.store %%r13, %%o[%%i, %%c13] : memref<64x20x%s>\n"
             "    memref.store %%r14, %%o[%%i, %%c14] : memref<64x20x%s>\n"
             "    memref.store %%r15, %%o[%%i, %%c15] : memref<64x20x%s>\n"
             "    memref.store %%r16, %%o[%%i, %%c16] : memref<64x20x%s>\n"
             "    memref.store %%r17, %%o[%%i, %%c17] : memref<64x20x%s>\n"
             "    memref.store %%r18, %%o[%%i, %%c18] : memref<64x20x%s>\n"
             "    memref.store %%r19, %%o[%%i, %%c19] : memref<64x20x%s>\n"
             "  }\n"
             "  return\n"
             "}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);
    int64_t buf_a[64], buf_b[64], buf_o[64 * 20], res[1] = {0};
    uint32_t es = air_elem_size(elems[t]);
    for (int i = 0; i < 64; ++i) {
      int64_t x = (int64_t)((uint64_t)rnd() << 40 ^ rnd() << 20 ^ rnd()), y;
      do y = (int64_t)((uint64_t)rnd() << 40 ^ rnd()) >> (rnd() % 60);
      while ((y & ((es == 8) ? -1 : ((INT64_C(1) << (es * 8)) - 1))) == 0);
      if (i % 4 == 0) y = (int64_t)(rnd() % (es * 8 + 3)); /* shift amounts near the width */
      if (!y) y = 1;
      memcpy((char*)buf_a + i * es, &x, es);
      memcpy((char*)buf_b + i * es, &y, es);
    }
    memset(buf_o, 0, sizeof buf_o);
    case_t c = {.text = text, .n_args = 5};
    int64_t n64 = 64, sz2[2] = {64, 20}, n1 = 1;
    c.args[0] = iarg(AIR_ELEM_INDEX, 0);
    c.args[1] = mref(buf_a, elems[t], 1, &n64, NULL, 0);
    c.args[2] = mref(buf_b, elems[t], 1, &n64, NULL, 0);
    c.args[3] = mref(buf_o, elems[t], 2, sz2, NULL, 0);
    c.args[4] = mref(res, AIR_ELEM_INDEX, 1, &n1, NULL, 0);
    c.bytes[1] = c.bytes[2] = 64 * es;
    c.bytes[3] = 64 * 20 * es;
    c.bytes[4] = sizeof res;
    run_case(*state, &c);
  }
}

/* f32 / bf16 / f16 / f64 arithmetic, rounding and conversions, NaNs and signed
 * zeros included. */
static void test_float_ops(void** state) {
  static const char* types[] = {"f32", "bf16", "f16", "f64"};
  static const uint32_t elems[] = {AIR_ELEM_F32, AIR_ELEM_BF16, AIR_ELEM_F16, AIR_ELEM_F64};
  static const uint16_t k_f16[16] = {0x0000, 0x8000, 0x3c00, 0xbe00, 0x4280, 0x7c00,
                                      0xfc00, 0x7e00, 0x7bff, 0x0001, 0x83ff, 0x3555,
                                      0xfbff, 0x5640, 0x7d01, 0x2e66};
  /* bit patterns as i32: widened or narrowed per width */
  static const char* bitcast[] = {
      "    %bcw = arith.bitcast %v2 : f32 to i32\n",
      "    %bc = arith.bitcast %v2 : bf16 to i16\n    %bcw = arith.extsi %bc : i16 to i32\n",
      "    %bc = arith.bitcast %v2 : f16 to i16\n    %bcw = arith.extui %bc : i16 to i32\n",
      "    %bc = arith.bitcast %v2 : f64 to i64\n    %bcw = arith.trunci %bc : i64 to i32\n"};
  for (int t = 0; t < 4; ++t) {
    char text[6144];
    const char* T = types[t];
    snprintf(text, sizeof text,
             "func.func @f(%%a: memref<64x%s>, %%b: memref<64x%s>, %%o: memref<64x16x%s>, "
             "%%q: memref<64x6xi32>, %%r: memref<1xindex>) {\n"
             "  %%c0 = arith.constant 0 : index\n"
             "  %%c64 = arith.constant 64 : index\n"
             "  %%c1 = arith.constant 1 : index\n"
             "  scf.for %%i = %%c0 to %%c64 step %%c1 {\n"
             "    %%x = memref.load %%a[%%i] : memref<64x%s>\n"
             "    %%y = memref.load %%b[%%i] : memref<64x%s>\n"
             "    %%v0 = arith.addf %%x, %%y : %s\n"
             "    %%v1 = arith.subf %%x, %%y : %s\n"
             "    %%v2 = arith.mulf %%x, %%y : %s\n"
             "    %%v3 = arith.divf %%x, %%y : %s\n"
             "    %%v4 = arith.maximumf %%x, %%y : %s\n"
             "    %%v5 = arith.minimumf %%x, %%y : %s\n"
             "    %%v6 = arith.maxnumf %%x, %%y : %s\n"
             "    %%v7 = arith.minnumf %%x, %%y : %s\n"
             "    %%v8 = arith.negf %%x : %s\n"
             "    %%k = arith.constant 1.0e-1 : %s\n"
             "    %%v9 = arith.mulf %%x, %%k : %s\n"
             "    %%e = arith.extf %%x : %s to f64\n"
             "    %%e2 = arith.mulf %%e, %%e : f64\n"
             "    %%v10 = arith.truncf %%e2 : f64 to %s\n"
             "    %%si = arith.fptosi %%x : %s to i32\n"
             "    %%ui = arith.fptoui %%y : %s to i32\n"
             "    %%sb = arith.fptosi %%v2 : %s to i8\n"
             "    %%v11 = arith.sitofp %%si : i32 to %s\n"
             "    %%v12 = arith.uitofp %%ui : i32 to %s\n"
             "    %%lt = arith.cmpf olt, %%x, %%y : %s\n"
             "    %%un = arith.cmpf une, %%x, %%y : %s\n"
             "    %%ue = arith.cmpf ueq, %%x, %%y : %s\n"
             "    %%v13 = arith.select %%lt, %%x, %%y : %s\n"
             "    %%v14 = arith.select %%un, %%v0, %%v1 : %s\n"
             "    %%v15 = arith.select %%ue, %%v2, %%v9 : %s\n"
             "    %%b0 = arith.extui %%lt : i1 to i32\n"
             "    %%i0 = arith.constant 0 : index\n"
             "    %%i1 = arith.constant 1 : index\n"
             "    %%i2 = arith.constant 2 : index\n"
             "    %%i3 = arith.constant 3 : index\n"
             "    %%i4 = arith.constant 4 : index\n"
             "    %%i5 = arith.constant 5 : index\n"
             "    %%i6 = arith.constant 6 : index\n"
             "    %%i7 = arith.constant 7 : index\n"
             "    %%i8 = arith.constant 8 : index\n"
             "    %%i9 = arith.constant 9 : index\n"
             "    %%i10 = arith.constant 10 : index\n"
             "    %%i11 = arith.constant 11 : index\n"
             "    %%i12 = arith.constant 12 : index\n"
             "    %%i13 = arith.constant 13 : index\n"
             "    %%i14 = arith.constant 14 : index\n"
             "    %%i15 = arith.constant 15 : index\n"
             "    memref.store %%v0, %%o[%%i, %%i0] : memref<64x16x%s>\n"
             "    memref.store %%v1, %%o[%%i, %%i1] : memref<64x16x%s>\n"
             "    memref.store %%v2, %%o[%%i, %%i2] : memref<64x16x%s>\n"
             "    memref.store %%v3, %%o[%%i, %%i3] : memref<64x16x%s>\n"
             "    memref.store %%v4, %%o[%%i, %%i4] : memref<64x16x%s>\n"
             "    memref.store %%v5, %%o[%%i, %%i5] : memref<64x16x%s>\n"
             "    memref.store %%v6, %%o[%%i, %%i6] : memref<64x16x%s>\n"
             "    memref.store %%v7, %%o[%%i, %%i7] : memref<64x16x%s>\n"
             "    memref.store %%v8, %%o[%%i, %%i8] : memref<64x16x%s>\n"
             "    memref.store %%v9, %%o[%%i, %%i9] : memref<64x16x%s>\n"
             "    memref.store %%v10, %%o[%%i, %%i10] : memref<64x16x%s>\n"
             "    memref.store %%v11, %%o[%%i, %%i11] : memref<64x16x%s>\n"
             "    memref.store %%v12, %%o[%%i, %%i12] : memref<64x16x%s>\n"
             "    memref.store %%v13, %%o[%%i, %%i13] : memref<64x16x%s>\n"
             "    memref.store %%v14, %%o[%%i, %%i14] : memref<64x16x%s>\n"
             "    memref.store %%v15, %%o[%%i, %%i15] : memref<64x16x%s>\n"
             "    memref.store %%si, %%q[%%i, %%i0] : memref<64x6xi32>\n"
             "    memref.store %%ui, %%q[%%i, %%i1] : memref<64x6xi32>\n"
             "    memref.store %%b0, %%q[%%i, %%i2] : memref<64x6xi32>\n"
             "    %%sbw = arith.extsi %%sb : i8 to i32\n"
             "    memref.store %%sbw, %%q[%%i, %%i3] : memref<64x6xi32>\n"
             "%s"
             "    memref.store %%bcw, %%q[%%i, %%i4] : memref<64x6xi32>\n"
             "  }\n"
             "  return\n"
             "}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, bitcast[t]);
    double vals[] = {0.0, -0.0, 1.0, -1.5, 3.25, 1e30, -1e30, 65504, 7e-3, 1.0 / 3.0,
                     __builtin_nan(""), __builtin_inf(), -__builtin_inf(), 2.5e9, -3e9, 255.5};
    static char buf_a[64 * 8], buf_b[64 * 8], buf_o[64 * 16 * 8], buf_q[64 * 6 * 4];
    int64_t res[1] = {0};
    uint32_t es = air_elem_size(elems[t]);
    for (int i = 0; i < 64; ++i) {
      double x = i < 16 ? vals[i] : (double)((int32_t)rnd() % 100000) / (1 + rnd() % 97);
      double y = i < 16 ? vals[(i * 7 + 3) % 16] : (double)((int32_t)rnd() % 1000) / (1 + rnd() % 13);
      for (int s = 0; s < 2; ++s) {
        double v = s ? y : x;
        char* dst = (s ? buf_b : buf_a) + i * es;
        if (t == 3) {
          memcpy(dst, &v, 8);
        } else {
          float fv = (float)v;
          uint32_t bits;
          memcpy(&bits, &fv, 4);
          if (t == 0) memcpy(dst, &fv, 4);
          if (t == 1) { uint16_t h = (uint16_t)(bits >> 16); memcpy(dst, &h, 2); }
          if (t == 2) {
            /* f16: any 16-bit pattern is a value (subnormals, NaNs, infinities) */
            uint16_t h = (uint16_t)(i < 16 ? k_f16[(i + 5 * s) % 16] : rnd());
            memcpy(dst, &h, 2);
          }
        }
      }
    }
    memset(buf_o, 0, sizeof buf_o);
    memset(buf_q, 0, sizeof buf_q);
    case_t c = {.text = text, .n_args = 5};
    int64_t n64 = 64, sz2[2] = {64, 16}, szq[2] = {64, 6}, n1 = 1;
    c.args[0] = mref(buf_a, elems[t], 1, &n64, NULL, 0);
    c.args[1] = mref(buf_b, elems[t], 1, &n64, NULL, 0);
    c.args[2] = mref(buf_o, elems[t], 2, sz2, NULL, 0);
    c.args[3] = mref(buf_q, AIR_ELEM_I32, 2, szq, NULL, 0);
    c.args[4] = mref(res, AIR_ELEM_INDEX, 1, &n1, NULL, 0);
    c.bytes[0] = c.bytes[1] = 64 * es;
    c.bytes[2] = 64 * 16 * es;
    c.bytes[3] = sizeof buf_q;
    c.bytes[4] = sizeof res;
    run_case(*state, &c);
  }
}

/* affine.for with affine.load/store through maps with mod / floordiv / ceildiv,
 * affine.apply / min / max, affine.if, scf.if with results, a strided view. */
static void test_affine_and_branches(void** state) {
  const char* text =
      "#m = affine_map<(d0)[s0] -> (d0 mod 4, (d0 floordiv 4) * 2 + s0)>\n"
      "#lin = affine_map<(d0) -> (d0 * 3 - (d0 ceildiv 5))>\n"
      "#mn = affine_map<(d0)[s0] -> (d0 + 2, s0 - d0, 7)>\n"
      "#set = affine_set<(d0)[s0] : (d0 - s0 >= 0, (d0 mod 3) == 0)>\n"
      "func.func @f(%s: index, %a: memref<4x8xf32, strided<[16, 2], offset: 5>>, "
      "%o: memref<40xi64>, %r: memref<2xindex>) {\n"
      "  %z = arith.constant 0 : index\n"
      "  %t = affine.for %i = 0 to 13 step 1 iter_args(%acc = %z) -> (index) {\n"
      "    %x = affine.load %a[%i mod 4, (%i floordiv 4) * 2 + %s] : memref<4x8xf32, strided<[16, 2], offset: 5>>\n"
      "    %y = arith.addf %x, %x : f32\n"
      "    affine.store %y, %a[%i mod 4, (%i floordiv 4) * 2 + %s] : memref<4x8xf32, strided<[16, 2], offset: 5>>\n"
      "    %l = affine.apply #lin(%i)\n"
      "    %m = affine.min #mn(%i)[%s]\n"
      "    %mx = affine.max #mn(%i)[%s]\n"
      "    %w = arith.addi %l, %m : index\n"
      "    %w2 = arith.addi %w, %mx : index\n"
      "    %wi = arith.index_cast %w2 : index to i64\n"
      "    %nz = arith.cmpi sgt, %w2, %s : index\n"
      "    %pick = scf.if %nz -> (index) {\n"
      "      %q = arith.muli %w2, %w2 : index\n"
      "      scf.yield %q : index\n"
      "    } else {\n"
      "      %q = arith.subi %z, %w2 : index\n"
      "      scf.yield %q : index\n"
      "    }\n"
      "    affine.if #set(%i)[%s] {\n"
      "      memref.store %wi, %o[%i] : memref<40xi64>\n"
      "    } else {\n"
      "      %neg = arith.subi %wi, %wi : i64\n"
      "      %k = affine.apply affine_map<(d0) -> (d0 + 20)>(%i)\n"
      "      memref.store %wi, %o[%k] : memref<40xi64>\n"
      "    }\n"
      "    %n = arith.addi %acc, %pick : index\n"
      "    affine.yield %n : index\n"
      "  }\n"
      "  memref.store %t, %r[%z] : memref<2xindex>\n"
      "  return\n"
      "}\n";
  static float a[80];
  static int64_t o[40], r[2];
  for (int i = 0; i < 80; ++i) a[i] = (float)i * 0.5f;
  case_t c = {.text = text, .n_args = 4};
  int64_t sz[2] = {4, 8}, st[2] = {16, 2}, n40 = 40, n2 = 2;
  c.args[0] = iarg(AIR_ELEM_INDEX, 1);
  c.args[1] = mref(a, AIR_ELEM_F32, 2, sz, st, 5);
  c.args[2] = mref(o, AIR_ELEM_I64, 1, &n40, NULL, 0);
  c.args[3] = mref(r, AIR_ELEM_INDEX, 1, &n2, NULL, 0);
  c.bytes[1] = sizeof a;
  c.bytes[2] = sizeof o;
  c.bytes[3] = sizeof r;
  run_case(*state, &c);
}

/* linalg.generic as a unit: elementwise over strided views, a reduction in k
 * order, bf16 operands accumulated in f32, a scalar input, and the reach check
 * at the box corners failing before any store. */
static void test_generics(void** state) {
  static float a[8 * 16], b[8 * 16], c[8 * 16], rs[8];
  static uint16_t ha[8 * 16], hb[16 * 8];
  static float acc[8 * 8];
  for (int i = 0; i < 8 * 16; ++i) {
    a[i] = (float)(rnd() % 2000) / 7.0f - 100.0f;
    b[i] = (float)(rnd() % 2000) / 3.0f;
    c[i] = -1.0f;
    ha[i] = (uint16_t)(0x3f00 + rnd() % 0x200);
    hb[i] = (uint16_t)(0xbe00 + rnd() % 0x400);
  }
  int64_t s816[2] = {8, 16}, s8[1] = {8}, s168[2] = {16, 8}, s88[2] = {8, 8};
  /* c[i][j] = a[i][j] * 0.375 + b'[i][j], b' a transposed view of b (layout
   * strides). */
  case_t ew = {
      .text =
          "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
          "func.func @f(%a: memref<8x16xf32>, %b: memref<8x16xf32, strided<[1, 8]>>, "
          "%c: memref<8x16xf32>) {\n"
          "  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = "
          "[\"parallel\", \"parallel\"]} ins(%a, %b : memref<8x16xf32>, "
          "memref<8x16xf32, strided<[1, 8]>>) outs(%c : memref<8x16xf32>) {\n"
          "  ^bb0(%u: f32, %v: f32, %o: f32):\n"
          "    %s = arith.constant 3.750000e-01 : f32\n"
          "    %m = arith.mulf %u, %s : f32\n"
          "    %r = arith.addf %m, %v : f32\n"
          "    linalg.yield %r : f32\n"
          "  }\n"
          "  return\n"
          "}\n",
      .n_args = 3,
  };
  ew.args[0] = mref(a, AIR_ELEM_F32, 2, s816, NULL, 0);
  ew.args[1] = mref(b, AIR_ELEM_F32, 2, s816, (int64_t[]){1, 8}, 0);
  ew.args[2] = mref(c, AIR_ELEM_F32, 2, s816, NULL, 0);
  ew.bytes[0] = sizeof a, ew.bytes[1] = sizeof b, ew.bytes[2] = sizeof c;
  run_case(*state, &ew);

  /* Row sums: rs[i] += a[i][j], j in order. */
  case_t red = {
      .text =
          "func.func @f(%a: memref<8x16xf32>, %r: memref<8xf32>) {\n"
          "  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
          "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
          "ins(%a : memref<8x16xf32>) outs(%r : memref<8xf32>) {\n"
          "  ^bb0(%u: f32, %o: f32):\n"
          "    %s = arith.addf %o, %u : f32\n"
          "    linalg.yield %s : f32\n"
          "  }\n"
          "  return\n"
          "}\n",
      .n_args = 2,
  };
  for (int i = 0; i < 8; ++i) rs[i] = (float)i * 0.1f;
  red.args[0] = mref(a, AIR_ELEM_F32, 2, s816, NULL, 0);
  red.args[1] = mref(rs, AIR_ELEM_F32, 1, s8, NULL, 0);
  red.bytes[0] = sizeof a, red.bytes[1] = sizeof rs;
  run_case(*state, &red);

  /* bf16 matmul written as a generic, accumulating in f32. */
  case_t mm = {
      .text =
          "func.func @f(%a: memref<8x16xbf16>, %b: memref<16x8xbf16>, %c: memref<8x8xf32>) {\n"
          "  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
          "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], "
          "iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} ins(%a, %b : "
          "memref<8x16xbf16>, memref<16x8xbf16>) outs(%c : memref<8x8xf32>) {\n"
          "  ^bb0(%u: bf16, %v: bf16, %o: f32):\n"
          "    %p = arith.mulf %u, %v : bf16\n"
          "    %e = arith.extf %p : bf16 to f32\n"
          "    %s = arith.addf %o, %e : f32\n"
          "    linalg.yield %s : f32\n"
          "  }\n"
          "  return\n"
          "}\n",
      .n_args = 3,
  };
  for (int i = 0; i < 64; ++i) acc[i] = (float)(rnd() % 100) / 9.0f;
  mm.args[0] = mref(ha, AIR_ELEM_BF16, 2, s816, NULL, 0);
  mm.args[1] = mref(hb, AIR_ELEM_BF16, 2, s168, NULL, 0);
  mm.args[2] = mref(acc, AIR_ELEM_F32, 2, s88, NULL, 0);
  mm.bytes[0] = sizeof ha, mm.bytes[1] = sizeof hb, mm.bytes[2] = sizeof acc;
  run_case(*state, &mm);

  /* A map reaching one past the end: out of range at the generic, nothing
   * stored (the executor checks the corners before the first point). */
  case_t oob = {
      .text =
          "func.func @f(%a: memref<8x16xf32>, %c: memref<8x16xf32>) {\n"
          "  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 1)>, "
          "affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
          "ins(%a : memref<8x16xf32>) outs(%c : memref<8x16xf32>) {\n"
          "  ^bb0(%u: f32, %o: f32):\n"
          "    linalg.yield %u : f32\n"
          "  }\n"
          "  return\n"
          "}\n",
      .n_args = 2,
      .want_code = AIR_CG_OOB,
      .fail_kind = AIR_OP_GENERIC,
  };
  oob.args[0] = mref(a, AIR_ELEM_F32, 2, s816, NULL, 0);
  oob.args[1] = mref(c, AIR_ELEM_F32, 2, s816, NULL, 0);
  oob.bytes[0] = sizeof a, oob.bytes[1] = sizeof c;
  run_case(*state, &oob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_vector_add_sum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_integer_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_float_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_and_branches, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generics, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

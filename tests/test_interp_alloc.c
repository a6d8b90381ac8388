/* test_interp_alloc.c - memref.alloc gives zeroed memory, except where the
 * program writes the whole buffer before anything reads it (overwrite.h, issue
 * 14): then the zeroing is skipped, and nothing can tell.
 *  - the rule, alloc by alloc, on a program of the cases it must tell apart;
 *  - runs where a freed block of the same size holds data (so the recycled
 *    block is stale unless zeroed): a buffer read before it is written, a
 *    buffer written only by a loop that may run no iteration, a buffer written
 *    in part (by a DMA or a store loop), all read back as zeros where nothing
 *    was written; a buffer written whole first (by a DMA, a store loop, an async
 *    DMA into an execute's alloc) reads back what was written. Every run is
 *    repeated (the run's block cache keeps blocks between runs) on the three
 *    paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal/cpu/interp/overwrite.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

/*---------------------------------------------------------------------------*/

#define T "memref<64xf32>"
#define T2 "memref<8x8xf32>"
#define DMA(d, s) "  air.dma_memcpy_nd (" d ", " s ") : (" T ", " T ")\n"

/* One alloc per case, in order; the comment says whether its zeroing may go. */
static const char k_rule[] =
    "func.func @rule(%n: index, %in: " T ", %out: " T ") {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c32 = arith.constant 32 : index\n"
    "  %c8 = arith.constant 8 : index\n"
    "  %c64 = arith.constant 64 : index\n"
    /* 0: written whole first: yes */
    "  %a0 = memref.alloc() : " T "\n"
    DMA("%a0[] [] []", "%in[] [] []") DMA("%out[] [] []", "%a0[] [] []")
    /* 1: read first: no */
    "  %a1 = memref.alloc() : " T "\n"
    DMA("%out[] [] []", "%a1[] [] []") DMA("%a1[] [] []", "%in[] [] []")
    /* 2: written whole in a loop's body first, freed after it: yes */
    "  %a2 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    " DMA("%a2[] [] []", "%in[] [] []") "    " DMA("%out[] [] []", "%a2[] [] []")
    "  }\n"
    "  memref.dealloc %a2 : " T "\n"
    /* 3: written in a loop that may run no iteration, read after it: no */
    "  %a3 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    " DMA("%a3[] [] []", "%in[] [] []")
    "  }\n"
    DMA("%out[] [] []", "%a3[] [] []")
    /* 4: each iteration reads before it writes: no */
    "  %a4 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    " DMA("%out[] [] []", "%a4[] [] []") "    " DMA("%a4[] [] []", "%in[] [] []")
    "  }\n"
    /* 5: written in part: no */
    "  %a5 = memref.alloc() : " T "\n"
    DMA("%a5[%c0] [%c32] [%c1]", "%in[%c0] [%c32] [%c1]") DMA("%out[] [] []", "%a5[] [] []")
    /* 6: an async DMA writes it whole, a wait on its token orders what follows: yes */
    "  %a6 = memref.alloc() : " T "\n"
    "  %t6 = air.dma_memcpy_nd async (%a6[] [] [], %in[] [] []) : (" T ", " T ")\n"
    "  air.wait_all [%t6]\n"
    DMA("%out[] [] []", "%a6[] [] []")
    /* 7: nothing names it: no (kept when in doubt) */
    "  %a7 = memref.alloc() : " T "\n"
    /* 8: freed unread: yes */
    "  %a8 = memref.alloc() : " T "\n"
    "  memref.dealloc %a8 : " T "\n"
    /* 9: an execute region reads it: no */
    "  %a9 = memref.alloc() : " T "\n"
    "  %t9 = air.execute async {\n"
    "    %v = memref.load %a9[%c0] : " T "\n"
    "    memref.store %v, %out[%c0] : " T "\n"
    "  }\n"
    "  air.wait_all [%t9]\n"
    DMA("%a9[] [] []", "%in[] [] []")
    /* 10: a loop in a loop writes it whole first, the outer body reads nothing: yes */
    "  %a10 = memref.alloc() : " T "\n"
    "  scf.for %i = %c0 to %n step %c1 {\n"
    "    scf.for %k = %c0 to %n step %c1 {\n"
    "      " DMA("%a10[] [] []", "%in[] [] []") "      " DMA("%out[] [] []", "%a10[] [] []")
    "    }\n"
    "  }\n"
    "  memref.dealloc %a10 : " T "\n"
    /* 11: the inner loop may run no iteration, the outer body reads after it: no */
    "  %a11 = memref.alloc() : " T "\n"
    "  scf.for %i = %c0 to %n step %c1 {\n"
    "    scf.for %k = %c0 to %n step %c1 {\n"
    "      " DMA("%a11[] [] []", "%in[] [] []")
    "    }\n"
    "    " DMA("%out[] [] []", "%a11[] [] []")
    "  }\n"
    /* 12: an async DMA writes it whole, the reader depends on its token: yes */
    "  %a12 = memref.alloc() : " T "\n"
    "  %t12 = air.dma_memcpy_nd async (%a12[] [] [], %in[] [] []) : (" T ", " T ")\n"
    "  %u12 = air.execute [%t12] {\n"
    "    %v = memref.load %a12[%c0] : " T "\n"
    "    memref.store %v, %out[%c0] : " T "\n"
    "  }\n"
    "  %w12 = air.execute [%u12] {\n"
    "    memref.dealloc %a12 : " T "\n"
    "  }\n"
    "  air.wait_all [%w12]\n"
    /* 13: an async DMA writes it whole, a reader does not wait for it: no */
    "  %a13 = memref.alloc() : " T "\n"
    "  %t13 = air.dma_memcpy_nd async (%a13[] [] [], %in[] [] []) : (" T ", " T ")\n"
    "  %u13 = air.execute {\n"
    "    %v = memref.load %a13[%c0] : " T "\n"
    "    memref.store %v, %out[%c0] : " T "\n"
    "  }\n"
    "  air.wait_all [%t13, %u13]\n"
    /* 14: an async DMA writes it whole, a synchronous DMA reads it unordered: no */
    "  %a14 = memref.alloc() : " T "\n"
    "  %t14 = air.dma_memcpy_nd async (%a14[] [] [], %in[] [] []) : (" T ", " T ")\n"
    DMA("%out[] [] []", "%a14[] [] []")
    "  air.wait_all [%t14]\n"
    /* 15: an execute makes it, an async DMA after that execute writes it, the
     * reader and the free wait for the DMA's token (samples/vector_add.mlir): yes */
    "  %e15, %a15 = air.execute -> (" T ") {\n"
    "    %m = memref.alloc() : " T "\n"
    "    air.execute_terminator %m : " T "\n"
    "  }\n"
    "  %t15 = air.dma_memcpy_nd async [%e15] (%a15[] [] [], %in[] [] []) : (" T ", " T ")\n"
    "  %u15 = air.dma_memcpy_nd async [%t15] (%out[] [] [], %a15[] [] []) : (" T ", " T ")\n"
    "  %w15 = air.execute [%u15] {\n"
    "    memref.dealloc %a15 : " T "\n"
    "  }\n"
    "  air.wait_all [%w15]\n"
    /* 16: an execute makes it, a DMA reads it: no */
    "  %e16, %a16 = air.execute -> (" T ") {\n"
    "    %m = memref.alloc() : " T "\n"
    "    air.execute_terminator %m : " T "\n"
    "  }\n"
    "  air.wait_all [%e16]\n"
    DMA("%out[] [] []", "%a16[] [] []")
    /* 17: a store loop writes every element, then it is read: yes */
    "  %a17 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c64 step %c1 {\n"
    "    %x = memref.load %in[%k] : " T "\n"
    "    memref.store %x, %a17[%k] : " T "\n"
    "  }\n"
    DMA("%out[] [] []", "%a17[] [] []")
    /* 18: a store loop over half of it: no */
    "  %a18 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c32 step %c1 {\n"
    "    %x = memref.load %in[%k] : " T "\n"
    "    memref.store %x, %a18[%k] : " T "\n"
    "  }\n"
    DMA("%out[] [] []", "%a18[] [] []")
    /* 19: a store loop that also reads it: no */
    "  %a19 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c64 step %c1 {\n"
    "    %x = memref.load %a19[%c0] : " T "\n"
    "    memref.store %x, %a19[%k] : " T "\n"
    "  }\n"
    DMA("%out[] [] []", "%a19[] [] []")
    /* 20: a store loop whose bound is not a constant: no */
    "  %a20 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    %x = memref.load %in[%c0] : " T "\n"
    "    memref.store %x, %a20[%k] : " T "\n"
    "  }\n"
    DMA("%out[] [] []", "%a20[] [] []")
    /* 21: a store under scf.if in the loop: no */
    "  %a21 = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c64 step %c1 {\n"
    "    %b = arith.cmpi ult, %k, %n : index\n"
    "    scf.if %b {\n"
    "      %x = memref.load %in[%k] : " T "\n"
    "      memref.store %x, %a21[%k] : " T "\n"
    "    }\n"
    "  }\n"
    DMA("%out[] [] []", "%a21[] [] []")
    /* 22: a 2-d nest storing [j, i] over 8 x 8: yes */
    "  %a22 = memref.alloc() : " T2 "\n"
    "  scf.for %i = %c0 to %c8 step %c1 {\n"
    "    scf.for %j = %c0 to %c8 step %c1 {\n"
    "      %x = memref.load %in[%c0] : " T "\n"
    "      memref.store %x, %a22[%j, %i] : " T2 "\n"
    "    }\n"
    "  }\n"
    "  memref.dealloc %a22 : " T2 "\n"
    /* 23: a 2-d nest storing [i, i] (the diagonal): no */
    "  %a23 = memref.alloc() : " T2 "\n"
    "  scf.for %i = %c0 to %c8 step %c1 {\n"
    "    scf.for %j = %c0 to %c8 step %c1 {\n"
    "      %x = memref.load %in[%c0] : " T "\n"
    "      memref.store %x, %a23[%i, %i] : " T2 "\n"
    "    }\n"
    "  }\n"
    "  memref.dealloc %a23 : " T2 "\n"
    /* 24: an execute's store loop writes it whole, the reader waits for the
     * execute's token: yes */
    "  %a24 = memref.alloc() : " T "\n"
    "  %t24 = air.execute {\n"
    "    scf.for %k = %c0 to %c64 step %c1 {\n"
    "      %x = memref.load %in[%k] : " T "\n"
    "      memref.store %x, %a24[%k] : " T "\n"
    "    }\n"
    "  }\n"
    "  %u24 = air.dma_memcpy_nd async [%t24] (%out[] [] [], %a24[] [] []) : (" T ", " T ")\n"
    "  air.wait_all [%u24]\n"
    "  return\n"
    "}\n";

static void collect(const air_block_t* b, const air_op_t** out, uint32_t* n, uint32_t cap) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    if (o->kind == AIR_OP_ALLOC && *n < cap) out[(*n)++] = o;
    for (uint32_t r = 0; r < o->n_regions; ++r)
      if (o->regions[r]) collect(o->regions[r], out, n, cap);
  }
}

static void test_rule(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "rule.mlir", k_rule);
  const air_op_t* fn = test_find_func(p, "rule");
  assert_non_null(fn);
  static const bool want[] = {true,  false, true,  false, false, false, true,  false, true,
                              false, true,  false, true,  false, false, true,  false, true,
                              false, false, false, false, true,  false, true};
  enum { N = sizeof want / sizeof want[0] };
  const air_op_t* allocs[N + 1];
  uint32_t n = 0;
  collect(fn->regions[0], allocs, &n, N + 1);
  assert_int_equal(n, N);
  for (uint32_t i = 0; i < N; ++i) {
    if (ix_alloc_overwritten(p, allocs[i]) != want[i]) fail_msg("alloc %u: expected %d", i, want[i]);
  }
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Before each case a freed buffer of the same size holds %in's data, so a
 * recycled block that is not zeroed shows it. */
#define DIRTY(v)                                                     \
  "  %" v " = memref.alloc() : " T "\n" DMA("%" v "[] [] []", "%in[] [] []") \
  "  memref.dealloc %" v " : " T "\n"

static const char k_stale[] =
    "func.func @stale(%n: index, %in: " T ", %o1: " T ", %o2: " T ", %o3: " T ", %o4: " T
    ", %o5: " T ", %o6: " T ", %o7: " T ") {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c32 = arith.constant 32 : index\n"
    "  %c64 = arith.constant 64 : index\n"
    DIRTY("y1")
    /* written only if the loop runs */
    "  %x = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %n step %c1 {\n"
    "    " DMA("%x[] [] []", "%in[] [] []")
    "  }\n"
    DMA("%o1[] [] []", "%x[] [] []")
    "  memref.dealloc %x : " T "\n"
    DIRTY("y2")
    /* read before it is written */
    "  %z = memref.alloc() : " T "\n"
    DMA("%o2[] [] []", "%z[] [] []") DMA("%z[] [] []", "%in[] [] []")
    "  memref.dealloc %z : " T "\n"
    DIRTY("y3")
    /* written whole first: not zeroed */
    "  %w = memref.alloc() : " T "\n"
    DMA("%w[] [] []", "%in[] [] []") DMA("%o3[] [] []", "%w[] [] []")
    "  memref.dealloc %w : " T "\n"
    DIRTY("y4")
    /* written in part */
    "  %h = memref.alloc() : " T "\n"
    DMA("%h[%c32] [%c32] [%c1]", "%in[%c0] [%c32] [%c1]") DMA("%o4[] [] []", "%h[] [] []")
    "  memref.dealloc %h : " T "\n"
    DIRTY("y5")
    /* stored by a loop over its first half */
    "  %s = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c32 step %c1 {\n"
    "    %q = memref.load %in[%k] : " T "\n"
    "    memref.store %q, %s[%k] : " T "\n"
    "  }\n"
    DMA("%o5[] [] []", "%s[] [] []")
    "  memref.dealloc %s : " T "\n"
    DIRTY("y6")
    /* stored whole by a loop: not zeroed */
    "  %f = memref.alloc() : " T "\n"
    "  scf.for %k = %c0 to %c64 step %c1 {\n"
    "    %r = memref.load %in[%k] : " T "\n"
    "    memref.store %r, %f[%k] : " T "\n"
    "  }\n"
    DMA("%o6[] [] []", "%f[] [] []")
    "  memref.dealloc %f : " T "\n"
    DIRTY("y7")
    /* made by an execute, written whole by an async DMA the reader waits for:
     * not zeroed */
    "  %e, %g = air.execute -> (" T ") {\n"
    "    %m = memref.alloc() : " T "\n"
    "    air.execute_terminator %m : " T "\n"
    "  }\n"
    "  %tg = air.dma_memcpy_nd async [%e] (%g[] [] [], %in[] [] []) : (" T ", " T ")\n"
    "  %ug = air.dma_memcpy_nd async [%tg] (%o7[] [] [], %g[] [] []) : (" T ", " T ")\n"
    "  %wg = air.execute [%ug] {\n"
    "    memref.dealloc %g : " T "\n"
    "  }\n"
    "  air.wait_all [%wg]\n"
    "  return\n"
    "}\n";

static void test_stale_never_read(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_text(x->ctx, "stale.mlir", k_stale);
  float in[64], o[7][64];
  for (int i = 0; i < 64; ++i) in[i] = (float)(i + 1);
  for (int way = 0; way < TEST_N_WAYS; ++way)
    for (int rep = 0; rep < 8; ++rep) {
      int64_t n = rep & 1;
      memset(o, 0xff, sizeof o);
      air_arg_t args[9] = {{0}, test_mref(in, AIR_ELEM_F32, 1, (int64_t)64)};
      args[0].kind = AIR_ARG_INT;
      args[0].elem = AIR_ELEM_INDEX;
      args[0].i = n;
      for (int k = 0; k < 7; ++k) args[2 + k] = test_mref(o[k], AIR_ELEM_F32, 1, (int64_t)64);
      test_check(test_exec_run_way(x, p, "stale", args, 9, way));
      for (int i = 0; i < 64; ++i) {
        float z = 0;
        if (memcmp(&o[0][i], n ? &in[i] : &z, 4))
          fail_msg("way %d, n %lld: o1[%d] = %g", way, (long long)n, i, o[0][i]);
        if (o[1][i] != 0) fail_msg("way %d: o2[%d] = %g, not 0", way, i, o[1][i]);
        if (o[2][i] != in[i]) fail_msg("way %d: o3[%d] = %g", way, i, o[2][i]);
        float want4 = i < 32 ? 0 : in[i - 32];
        if (o[3][i] != want4) fail_msg("way %d: o4[%d] = %g, not %g", way, i, o[3][i], want4);
        float want5 = i < 32 ? in[i] : 0;
        if (o[4][i] != want5) fail_msg("way %d: o5[%d] = %g, not %g", way, i, o[4][i], want5);
        if (o[5][i] != in[i]) fail_msg("way %d: o6[%d] = %g", way, i, o[5][i]);
        if (o[6][i] != in[i]) fail_msg("way %d: o7[%d] = %g", way, i, o[6][i]);
      }
    }
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* More allocs live at once than the run's small table holds (memref.c keeps
 * the first 16 there, the rest in a map): each keeps its own data, deallocs in
 * a scattered order find them in either place, the ones never freed are freed
 * when the run ends (ASan's leak check), and a double free or the free of an
 * argument is still an error, whichever place the block was in. */
enum { MANY = 24 };

static char* many_program(const char* extra) {
  size_t cap = 16384, n = 0;
  char* s = malloc(cap);
  if (!s) return NULL;
#define PUT(...) n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__)
  PUT("func.func @many(%%in: " T ", %%out: memref<%dxf32>) {\n", MANY * 64);
  PUT("  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n");
  PUT("  %%c64 = arith.constant 64 : index\n");
  for (int k = 0; k < MANY; ++k) {
    PUT("  %%b%d = memref.alloc() : " T "\n", k);
    PUT("  air.dma_memcpy_nd (%%b%d[] [] [], %%in[] [] []) : (" T ", " T ")\n", k);
    PUT("  %%v%d = arith.constant %d.0 : f32\n", k, k);
    PUT("  memref.store %%v%d, %%b%d[%%c0] : " T "\n", k, k);
  }
  for (int j = 0; j < MANY; ++j) {
    int k = (j * 7) % MANY; /* 7 is prime to 24: every buffer once */
    PUT("  %%o%d = arith.constant %d : index\n", k, k * 64);
    PUT("  air.dma_memcpy_nd (%%out[%%o%d] [%%c64] [%%c1], %%b%d[] [] []) : (memref<%dxf32>, " T
        ")\n",
        k, k, MANY * 64);
    if (k % 5 != 4) PUT("  memref.dealloc %%b%d : " T "\n", k);
  }
  PUT("%s  return\n}\n", extra);
#undef PUT
  return s;
}

static void test_many_live(void** state) {
  test_exec_t* x = *state;
  float in[64], out[MANY * 64];
  for (int i = 0; i < 64; ++i) in[i] = (float)(i + 100);
  /* 0: all good; 1: a block that was in the table freed twice; 2: one that
   * was in the map freed twice; 3: an argument freed. */
  static const char* const extra[] = {"", "  memref.dealloc %b0 : " T "\n",
                                      "  memref.dealloc %b23 : " T "\n",
                                      "  memref.dealloc %in : " T "\n"};
  for (int c = 0; c < 4; ++c) {
    char* text = many_program(extra[c]);
    assert_non_null(text);
    air_program_t* p = test_load_text(x->ctx, "many.mlir", text);
    free(text);
    for (int way = 0; way < TEST_N_WAYS; ++way)
      for (int rep = 0; rep < 3; ++rep) {
        memset(out, 0xff, sizeof out);
        air_arg_t args[2] = {test_mref(in, AIR_ELEM_F32, 1, (int64_t)64),
                             test_mref(out, AIR_ELEM_F32, 1, (int64_t)(MANY * 64))};
        air_status_t st = test_exec_run_way(x, p, "many", args, 2, way);
        if (c == 0) test_check(st);
        else
          test_expect_status(st, AIR_STATUS_FAILED_PRECONDITION,
                             c < 3 ? "already freed" : "did not return");
        for (int k = 0; k < MANY; ++k)
          for (int i = 0; i < 64; ++i) {
            float want = i ? in[i] : (float)k;
            if (out[k * 64 + i] != want)
              fail_msg("case %d way %d: out[%d][%d] = %g, not %g", c, way, k, i, out[k * 64 + i],
                       want);
          }
      }
    air_program_destroy(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rule, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_stale_never_read, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_many_live, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_interp_par.c - scf.parallel instances run in sequence in the strand
 * that reaches them when their bodies park only in chain ops (parallel.c,
 * issue 14), each case checked for exact results or an exact report:
 *  - a ring: instance i gets from @c[i] before it puts into @c[i+1 mod n], so
 *    in instance order instance 0's get waits for the last instance's put; a
 *    stall releases it and the strand goes on with the next instances. The
 *    reduced token is waited for and the gotten data copied out at once, so a
 *    token that fired before every instance's get had would show; also as an
 *    scf.parallel nested in another, both in sequence;
 *  - init tokens fed only after the scf.parallel: every instance's put waits
 *    for them (released, then on strands of their own), and a body whose other
 *    ops would wait for them (a memref.store) takes the strand-per-instance
 *    path instead; both exact;
 *  - gets no put ever feeds: the deadlock report names each get and the wait.
 * Every program runs on the pool of two workers and on a pool of one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

/* The reduce of one token per instance (inside an scf.parallel body). */
#define REDUCE(TOK)                                              \
  "        scf.reduce(" TOK " : !air.token) {\n"                 \
  "        ^bb0(%lhs: !air.token, %rhs: !air.token):\n"          \
  "          %w = air.wait_all async [%lhs, %rhs]\n"             \
  "          scf.reduce.return %w : !air.token\n"                \
  "        }\n"

/* Instance %i of a ring of %sn (ring and ring2 share it): gets @c[i] into the
 * L2 buffer's slice i, puts src's slice i into @c[(i+1) mod n], and reduces the
 * pair's token. */
#define RING_INSTANCE                                                          \
  "        %o = arith.muli %i, %c4 : index\n"                                  \
  "        %i1 = arith.addi %i, %one : index\n"                                \
  "        %j = arith.remui %i1, %sn : index\n"                                \
  "        %g = air.channel.get async [%t0] @c[%i] (%buf[%o] [%c4] [%one]) : "  \
  "(memref<32xi32, 1>)\n"                                                     \
  "        %p = air.channel.put async [%t0] @c[%j] (%ss[%o] [%c4] [%one]) : "   \
  "(memref<32xi32>)\n"                                                        \
  "        %both = air.wait_all async [%g, %p]\n"                              \
  REDUCE("%both")

/* Once the reduced token %r fires, the buffer's first %len elements go to %out. */
#define RING_TAIL                                                              \
  "      air.wait_all [%r]\n"                                                  \
  "      air.dma_memcpy_nd (%so[%c0] [%len] [%one], %buf[%c0] [%len] [%one]) : " \
  "(memref<32xi32>, memref<32xi32, 1>)\n"                                     \
  "      memref.dealloc %buf : memref<32xi32, 1>\n"                            \
  "    }\n"                                                                    \
  "  }\n"                                                                      \
  "  return\n"                                                                 \
  "}\n"

/* %n instances (1..8) of 4 values each: instance i gets @c[i] into the L2
 * buffer's slice i, then puts src's slice i into @c[(i+1) mod n]; once the
 * reduced token fires the buffer goes to %out: out[((i+1) mod n)*4 + e] =
 * src[i*4 + e], the rest of %out untouched. */
static const char k_ring[] =
    "air.channel @c [8]\n"
    "func.func @ring(%src: memref<32xi32>, %out: memref<32xi32>, %n: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%ls=%src, %lo=%out, %ln=%n) : memref<32xi32>, "
    "memref<32xi32>, index {\n"
    "    air.segment @s args(%ss=%ls, %so=%lo, %sn=%ln) : memref<32xi32>, memref<32xi32>, "
    "index {\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %one = arith.constant 1 : index\n"
    "      %c4 = arith.constant 4 : index\n"
    "      %len = arith.muli %sn, %c4 : index\n"
    "      %buf = memref.alloc() : memref<32xi32, 1>\n"
    "      %t0 = air.wait_all async\n"
    "      %r = scf.parallel (%i) = (%c0) to (%sn) step (%one) init (%t0) -> !air.token {\n"
    RING_INSTANCE
    "      }\n"
    RING_TAIL;

/* The same ring of 2 * %h instances as an scf.parallel of 2 nested in one of
 * %h, both run in sequence: instance (a, b) is i = 2b + a. */
static const char k_ring2[] =
    "air.channel @c [8]\n"
    "func.func @ring2(%src: memref<32xi32>, %out: memref<32xi32>, %h: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%ls=%src, %lo=%out, %lh=%h) : memref<32xi32>, "
    "memref<32xi32>, index {\n"
    "    air.segment @s args(%ss=%ls, %so=%lo, %sh=%lh) : memref<32xi32>, memref<32xi32>, "
    "index {\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %one = arith.constant 1 : index\n"
    "      %c2 = arith.constant 2 : index\n"
    "      %c4 = arith.constant 4 : index\n"
    "      %sn = arith.muli %sh, %c2 : index\n"
    "      %len = arith.muli %sn, %c4 : index\n"
    "      %buf = memref.alloc() : memref<32xi32, 1>\n"
    "      %t0 = air.wait_all async\n"
    "      %r = scf.parallel (%b) = (%c0) to (%sh) step (%one) init (%t0) -> !air.token {\n"
    "        %b2 = arith.muli %b, %c2 : index\n"
    "        %ri = scf.parallel (%a) = (%c0) to (%c2) step (%one) init (%t0) -> !air.token {\n"
    "          %i = arith.addi %b2, %a : index\n"
    RING_INSTANCE
    "        }\n"
    REDUCE("%ri")
    "      }\n"
    RING_TAIL;

static void test_ring_needs_the_release(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "ring.mlir", k_ring);
  air_program_t* p2 = test_load_text(x->ctx, "ring2.mlir", k_ring2);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 24; ++rep) {
      int32_t src[32], out[32];
      for (int i = 0; i < 32; ++i) src[i] = 5 * i - 3 * rep + 2, out[i] = -7;
      bool nested = rep >= 16;
      int64_t n = nested ? 2 * (1 + rep % 4) : 1 + rep % 8;
      air_arg_t args[3] = {test_mref(src, AIR_ELEM_I32, 1, (int64_t)32),
                           test_mref(out, AIR_ELEM_I32, 1, (int64_t)32), {0}};
      args[2].kind = AIR_ARG_INT;
      args[2].elem = AIR_ELEM_INDEX;
      args[2].i = nested ? n / 2 : n;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), nested ? p2 : p,
                                  nested ? "ring2" : "ring", args, 3));
      for (int64_t i = 0; i < n; ++i)
        for (int e = 0; e < 4; ++e)
          assert_int_equal(out[((i + 1) % n) * 4 + e], src[i * 4 + e]);
      for (int64_t i = n * 4; i < 32; ++i) assert_int_equal(out[i], -7);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p2);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Init tokens not fired when their scf.parallel starts. The segment first gets
 * %flag from @k into %fl (an async get that waits there until a stall releases
 * it: @k is fed only at the end), starts herd @feed, which puts %flag into @k2,
 * and gets that into %fl2 (an async get, dispatched: the segment's ops run in
 * place only when ready after the release). The first scf.parallel (init: the
 * @k2 get) stores 100 + i into %tag[i] (a memref.store would wait for the init
 * token outside a chain op: one strand per instance then) and puts %fl[1] into
 * @d[i]; the second (init: the @k get) puts %fl[0] into @c[i]: each put reads
 * what its init token's get wrote, so one that did not wait for it sends the
 * 0 %fl started with. Then the segment feeds @k and gets out[0..4) from @c,
 * out[16..20) from @d: those are flag, the rest of out untouched,
 * tag[i] = 100 + i, fl = flag twice. */
static const char k_late[] =
    "air.channel @k [1]\n"
    "air.channel @k2 [1]\n"
    "air.channel @c [4]\n"
    "air.channel @d [4]\n"
    "func.func @late(%out: memref<32xi32>, %flag: memref<1xi32>, %fl: memref<2xi32>, "
    "%tag: memref<4xi32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%lo=%out, %lf=%flag, %lg=%fl, %lt=%tag) : "
    "memref<32xi32>, memref<1xi32>, memref<2xi32>, memref<4xi32> {\n"
    "    air.segment @s args(%so=%lo, %sf=%lf, %sg=%lg, %st=%lt) : "
    "memref<32xi32>, memref<1xi32>, memref<2xi32>, memref<4xi32> {\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %one = arith.constant 1 : index\n"
    "      %c4 = arith.constant 4 : index\n"
    "      %c16 = arith.constant 16 : index\n"
    "      %c100 = arith.constant 100 : index\n"
    "      %g0 = air.channel.get async @k[%c0] (%sg[%c0] [%one] [%one]) : (memref<2xi32>)\n"
    "      %h = air.herd @feed async tile (%x) in (%sx=%one) args(%hf=%sf) : memref<1xi32> {\n"
    "        air.channel.put @k2[%x] (%hf[] [] []) : (memref<1xi32>)\n"
    "      }\n"
    "      %g1 = air.channel.get async @k2[%c0] (%sg[%one] [%one] [%one]) : (memref<2xi32>)\n"
    "      %q = scf.parallel (%i) = (%c0) to (%c4) step (%one) init (%g1) -> !air.token {\n"
    "        %v = arith.addi %i, %c100 : index\n"
    "        %vi = arith.index_cast %v : index to i32\n"
    "        memref.store %vi, %st[%i] : memref<4xi32>\n"
    "        %p = air.channel.put async @d[%i] (%sg[%one] [%one] [%one]) : (memref<2xi32>)\n"
    REDUCE("%p")
    "      }\n"
    "      %r = scf.parallel (%i) = (%c0) to (%c4) step (%one) init (%g0) -> !air.token {\n"
    "        %p = air.channel.put async @c[%i] (%sg[%c0] [%one] [%one]) : (memref<2xi32>)\n"
    REDUCE("%p")
    "      }\n"
    "      air.channel.put @k[%c0] (%sf[] [] []) : (memref<1xi32>)\n"
    "      scf.for %i = %c0 to %c4 step %one {\n"
    "        %o2 = arith.addi %i, %c16 : index\n"
    "        air.channel.get @c[%i] (%so[%i] [%one] [%one]) : (memref<32xi32>)\n"
    "        air.channel.get @d[%i] (%so[%o2] [%one] [%one]) : (memref<32xi32>)\n"
    "      }\n"
    "      air.wait_all [%r, %q, %h]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_init_fed_later(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "late.mlir", k_late);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 10; ++rep) {
      int32_t out[32], flag[1] = {40 + rep}, fl[2] = {0, 0}, tag[4] = {0};
      for (int i = 0; i < 32; ++i) out[i] = -1;
      air_arg_t args[4] = {test_mref(out, AIR_ELEM_I32, 1, (int64_t)32),
                           test_mref(flag, AIR_ELEM_I32, 1, (int64_t)1),
                           test_mref(fl, AIR_ELEM_I32, 1, (int64_t)2),
                           test_mref(tag, AIR_ELEM_I32, 1, (int64_t)4)};
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "late", args, 4));
      for (int i = 0; i < 32; ++i)
        assert_int_equal(out[i], i % 16 < 4 ? 40 + rep : -1);
      for (int i = 0; i < 4; ++i) assert_int_equal(tag[i], 100 + i);
      assert_int_equal(fl[0], 40 + rep);
      assert_int_equal(fl[1], 40 + rep);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/

/* Two instances get from @c[i], fed by puts the segment makes %n times after
 * waiting for the reduced token: with %n = 0 nothing is ever put. */
static const char k_dead[] =
    "air.channel @c [2]\n"
    "func.func @dead(%out: memref<8xi32>, %src: memref<4xi32>, %n: index) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  air.launch (%l) in (%nl=%c1) args(%lo=%out, %ls=%src, %ln=%n) : memref<8xi32>, "
    "memref<4xi32>, index {\n"
    "    air.segment @s args(%so=%lo, %ss=%ls, %sn=%ln) : memref<8xi32>, memref<4xi32>, index {\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %one = arith.constant 1 : index\n"
    "      %c2 = arith.constant 2 : index\n"
    "      %c4 = arith.constant 4 : index\n"
    "      %t0 = air.wait_all async\n"
    "      %r = scf.parallel (%i) = (%c0) to (%c2) step (%one) init (%t0) -> !air.token {\n"
    "        %o = arith.muli %i, %c4 : index\n"
    "        %g = air.channel.get async @c[%i] (%so[%o] [%c4] [%one]) : (memref<8xi32>)\n"
    REDUCE("%g")
    "      }\n"
    "      scf.for %k = %c0 to %sn step %one {\n"
    "        air.channel.put @c[%c0] (%ss[] [] []) : (memref<4xi32>)\n"
    "        air.channel.put @c[%one] (%ss[] [] []) : (memref<4xi32>)\n"
    "      }\n"
    "      air.wait_all [%r]\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_deadlock_names_the_gets(void** state) {
  test_exec_t* x = *state;
  air_pool_t* one = NULL;
  air_program_t* p = test_load_text(x->ctx, "dead.mlir", k_dead);
  for (int k = 0; k < 2; ++k)
    for (int rep = 0; rep < 5; ++rep) {
      int32_t out[8] = {0}, src[4] = {1, 2, 3, 4 + rep};
      air_arg_t args[3] = {test_mref(out, AIR_ELEM_I32, 1, (int64_t)8),
                           test_mref(src, AIR_ELEM_I32, 1, (int64_t)4), {0}};
      args[2].kind = AIR_ARG_INT;
      args[2].elem = AIR_ELEM_INDEX;
      args[2].i = 1;
      test_check(test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "dead", args, 3));
      for (int i = 0; i < 8; ++i) assert_int_equal(out[i], src[i % 4]);
      args[2].i = 0;
      air_status_t st = test_exec_run_on(x, test_exec_pool_of(x, k, &one), p, "dead", args, 3);
      assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
      const char* msg = air_status_message(st);
      /* What the strand-per-instance path reports too. */
      test_expect_in(msg, "%s", "deadlock: no operation can make progress; 7 blocked:");
      test_expect_in(msg, "%s", "dead.mlir:13:9: air.channel.get @c[0] blocked: no put");
      test_expect_in(msg, "%s", "dead.mlir:13:9: air.channel.get @c[1] blocked: no put");
      test_expect_in(msg, "%s",
                     "dead.mlir:16:11: air.wait_all blocked on %rhs (air.channel.get at "
                     "dead.mlir:13:9 has not finished)");
      test_expect_in(msg, "%s",
                     "dead.mlir:24:7: air.wait_all blocked on %r (air.wait_all at "
                     "dead.mlir:16:11 has not finished)");
      air_status_free(st);
    }
  if (one) air_pool_destroy(one);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ring_needs_the_release, test_exec_setup,
                                      test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_init_fed_later, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_deadlock_names_the_gets, test_exec_setup,
                                      test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_npu_l3.c - AIR programs of our own compiled for npu1/npu2 and their L3
 * transfers checked by decoding the stream the schedule carries
 * (src/scheduler/npu_l3.c): BD fields, address patches, shim channel and column
 * per endpoint, syncs for queue depth, BD reuse and launch ends, the .airbin round
 * trip, and the reasons a program gets no stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "npu/txn.h"
#include "runtime/target/target.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"
#include "test_util.h"

static air_schedule_t* compile(air_context_t* ctx, const char* text, const char* target,
                               air_program_t** out_p) {
  air_program_t* p = NULL;
  air_parse_options_t o = {0};
  o.filename = "l3.mlir";
  air_status_t s = air_program_parse(ctx, text, strlen(text), &o, &p);
  if (s) fail_msg("parse: %s", air_status_message(s));
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, target, &t));
  air_schedule_t* sc = NULL;
  s = air_schedule_compile(NULL, p, NULL, t, &sc);
  if (s) fail_msg("compile: %s", air_status_message(s));
  *out_p = p;
  return sc;
}

static void decode(const air_schedule_t* sc, air_txn_view_t* v) {
  if (!sc->npu_insts) fail_msg("no stream: %s", sc->npu_error ? sc->npu_error : "(no reason)");
  assert_null(air_txn_decode(&sc->allocator, sc->npu_insts,
                             sc->n_npu_insts, "t", v));
}

/* A program compiled for npu1 and its decoded stream, freed by stream_close
 * (`text` stays the caller's). */
typedef struct stream_t {
  air_program_t* p;
  air_schedule_t* sc;
  air_txn_view_t v;
} stream_t;

static const air_txn_view_t* stream_open(stream_t* s, air_context_t* ctx, const char* text) {
  s->sc = compile(ctx, text, "npu1", &s->p);
  decode(s->sc, &s->v);
  return &s->v;
}

static void stream_close(stream_t* s) {
  air_txn_view_free(&s->sc->allocator, &s->v);
  air_schedule_free(s->sc);
  air_program_destroy(s->p);
}

/* A launch of `launch` instances; its body is `body` (uses %a, %b: memref<1024xi32>). */
static char* program(const char* launch, const char* body) {
  static const char k_fmt[] =
      "module {\n"
      "  air.channel @c0 [1, 1]\n  air.channel @c1 [1, 1]\n  air.channel @c2 [1, 1]\n"
      "  air.channel @c3 [1, 1]\n  air.channel @c4 [1, 1]\n"
      "  func.func @f(%%arg0: memref<1024xi32>, %%arg1: memref<1024xi32>) {\n"
      "    %%n = arith.constant %s : index\n"
      "    %%0 = air.launch async (%%x) in (%%nx=%%n) args(%%a=%%arg0, %%b=%%arg1) : memref<1024xi32>, memref<1024xi32> {\n"
      "      %%c0 = arith.constant 0 : index\n      %%c1 = arith.constant 1 : index\n"
      "      %%c4 = arith.constant 4 : index\n      %%c8 = arith.constant 8 : index\n"
      "      %%c16 = arith.constant 16 : index\n      %%c32 = arith.constant 32 : index\n"
      "      %%c64 = arith.constant 64 : index\n"
      "%s\n"
      "    }\n"
      "    air.wait_all [%%0]\n"
      "    return\n"
      "  }\n"
      "}\n";
  size_t n = strlen(k_fmt) + strlen(launch) + strlen(body) + 1;
  char* t = malloc(n);
  snprintf(t, n, k_fmt, launch, body);
  return t;
}

static uint32_t count_op(const air_txn_view_t* v, uint32_t opcode) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < v->n_ops; ++i) n += v->ops[i].opcode == opcode;
  return n;
}

/* l3_copy.mlir: two 128-element puts from arg 0, one 256-element get into arg 1. */
static void test_l3_copy(void** state) {
  air_context_t* ctx = *state;
  char path[512];
  snprintf(path, sizeof path, "%s/npu/l3_copy.mlir", AIR_TEST_DATA_DIR);
  size_t len;
  char* text = test_read_file(path, &len);
  air_program_t* p;
  air_schedule_t* sc = compile(ctx, text, "npu1", &p);
  air_txn_view_t v;
  decode(sc, &v);
  assert_int_equal(v.geom.dev_gen, 3);
  assert_int_equal(v.n_ops, 12);
  /* put %a[0..128): BD 0 of column 0, MM2S0, arg 0 + 0; then %a[128..256): BD 1, + 512 bytes. */
  assert_int_equal(v.ops[0].opcode, AIR_TXN_BLOCKWRITE);
  assert_int_equal(v.ops[0].addr, 0x1D000);
  assert_int_equal(v.ops[0].payload[0], 128);         /* words */
  assert_int_equal(v.ops[0].payload[4], 0x80000000);  /* npu1 default burst, linear */
  assert_int_equal(v.ops[1].arg_idx, 0);
  assert_int_equal(v.ops[1].arg_plus, 0);
  assert_int_equal(v.ops[2].addr, 0x1D214);
  assert_int_equal(v.ops[2].value, 0x80000000);
  assert_int_equal(v.ops[3].addr, 0x1D020);
  assert_int_equal(v.ops[4].arg_plus, 512);
  assert_int_equal(v.ops[5].value, 0x80000001);
  /* get into %b: S2MM0, BD 2, arg 1, 256 words. */
  assert_int_equal(v.ops[6].payload[0], 256);
  assert_int_equal(v.ops[7].arg_idx, 1);
  assert_int_equal(v.ops[8].addr, 0x1D204);
  assert_int_equal(v.ops[8].value, 0x80000002);
  /* The launch's end waits for all three tasks. */
  assert_int_equal(count_op(&v, AIR_TXN_TCT), 3);
  assert_int_equal(v.ops[9].direction, 1);
  assert_int_equal(v.ops[11].direction, 0);
  air_txn_view_free(&sc->allocator, &v);
  /* Through an .airbin: the same words. */
  void* img = NULL;
  size_t size = 0;
  assert_null(air_artifact_write(&sc->allocator, p, sc, &img, &size));
  air_program_t* p2 = NULL;
  air_schedule_t* sc2 = NULL;
  assert_null(air_artifact_read(ctx, img, size, "l3.airbin", &p2, &sc2));
  assert_int_equal(sc2->n_npu_insts, sc->n_npu_insts);
  assert_memory_equal(sc2->npu_insts, sc->npu_insts, sc->n_npu_insts * 4);
  sc->allocator.free(sc->allocator.self, img);
  air_schedule_free(sc2);
  air_program_destroy(p2);
  /* On npu2: the other header and burst. */
  air_schedule_free(sc);
  sc = compile(ctx, text, "npu2", &p2);
  decode(sc, &v);
  assert_int_equal(v.geom.dev_gen, 4);
  assert_int_equal(v.ops[0].payload[4], 0xC0000000);
  air_txn_view_free(&sc->allocator, &v);
  air_schedule_free(sc);
  air_program_destroy(p2);
  air_program_destroy(p);
  free(text);
}

/* Endpoints fill channel 0, 1 of column 0, then column 1, ...; each direction apart. */
static void test_channel_allocation(void** state) {
  air_context_t* ctx = *state;
  char body[2048] = "";
  for (int k = 0; k < 5; ++k) {
    char line[256];
    snprintf(line, sizeof line,
             "      %%p%d = air.channel.put async @c%d[] (%%a[%%c%s] [%%c16] [%%c1]) : (memref<1024xi32>)\n",
             k, k, k == 0 ? "0" : k == 1 ? "16" : k == 2 ? "32" : k == 3 ? "64" : "8");
    strcat(body, line);
  }
  strcat(body, "      %g = air.channel.get async @c0[] (%b[] [] []) : (memref<1024xi32>)\n");
  char* text = program("1", body);
  /* Channel balance is not the point here: compile only (no verify). */
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t pushes[8], np = 0;
  for (uint32_t i = 0; i < v->n_ops; ++i)
    if (v->ops[i].opcode == AIR_TXN_WRITE) pushes[np++] = (uint32_t)v->ops[i].addr;
  assert_int_equal(np, 6);
  static const uint32_t want[6] = {0x0001D214, 0x0001D21C, 0x0201D214, 0x0201D21C, 0x0401D214,
                                   0x0001D204};
  for (int i = 0; i < 6; ++i) assert_int_equal(pushes[i], want[i]);
  /* Offsets: %a[16] -> 64 bytes, %a[64] -> 256. */
  assert_int_equal(v->ops[4].arg_plus, 64);
  assert_int_equal(v->ops[10].arg_plus, 256);
  stream_close(&s);
  free(text);
}

/* A loop of 20 puts on one channel: a sync before each fifth queued task, BD ids
 * round robin over 16 with a wait before one is reused; 2 launch instances each
 * end with syncs for what is queued. */
static void test_queue_depth_and_bd_reuse(void** state) {
  air_context_t* ctx = *state;
  char* text = program("2",
                       "      %c20 = arith.constant 20 : index\n"
                       "      %t0 = air.wait_all async\n"
                       "      %1 = scf.for %i = %c0 to %c20 step %c1 iter_args(%t = %t0) -> (!air.token) {\n"
                       "        %o = arith.muli %i, %c16 : index\n"
                       "        %p = air.channel.put async [%t] @c0[] (%a[%x, %o] [%c1, %c16] [%c16, %c1]) : (memref<1024xi32>)\n"
                       "        scf.yield %p : !air.token\n"
                       "      }");
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t queued = 0, max_queued = 0, pushes = 0, syncs = 0;
  int last_bd = -1;
  for (uint32_t i = 0; i < v->n_ops; ++i) {
    const air_txn_op_t* op = &v->ops[i];
    if (op->opcode == AIR_TXN_WRITE) {
      ++queued;
      ++pushes;
      int bd = (int)(op->value & 0xF);
      assert_int_equal(bd, (last_bd + 1) % 16);
      last_bd = bd;
      if (queued > max_queued) max_queued = queued;
    } else if (op->opcode == AIR_TXN_TCT) {
      assert_true(queued > 0); /* never waits for a task that was not queued */
      --queued;
      ++syncs;
    }
  }
  assert_int_equal(pushes, 40);
  assert_int_equal(syncs, 40);
  assert_int_equal(queued, 0);
  assert_true(max_queued <= 4);
  /* Instance 1 of the launch starts at row %x = 1: 4096 bytes further. */
  uint32_t patches = 0;
  for (uint32_t i = 0; i < v->n_ops; ++i)
    if (v->ops[i].opcode == AIR_TXN_DDR_PATCH && patches++ == 20) assert_int_equal(v->ops[i].arg_plus, 64);
  stream_close(&s);
  free(text);
}

/* The queue-write addresses (pushes) and patch offsets of a stream, in order. */
static uint32_t pushes_of(const air_txn_view_t* v, uint32_t* addr, uint64_t* plus, uint32_t cap) {
  uint32_t n = 0, k = 0;
  for (uint32_t i = 0; i < v->n_ops; ++i) {
    if (v->ops[i].opcode == AIR_TXN_WRITE && n < cap) addr[n++] = (uint32_t)v->ops[i].addr;
    if (v->ops[i].opcode == AIR_TXN_DDR_PATCH && k < cap) plus[k++] = v->ops[i].arg_plus;
  }
  assert_int_equal(n, k);
  return n;
}

/* Endpoints ordered by tokens are never active together: they share a shim
 * channel (the scheduler's DMA sharing); an independent one gets its own. */
static void test_channel_sharing(void** state) {
  air_context_t* ctx = *state;
  char* text = program("1",
                       "      %p0 = air.channel.put async @c0[] (%a[%c0] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      %p1 = air.channel.put async [%p0] @c1[] (%a[%c16] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      %p2 = air.channel.put async @c2[] (%a[%c32] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      %g0 = air.channel.get async @c3[] (%b[%c0] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      %g1 = air.channel.get async [%g0] @c4[] (%b[%c16] [%c16] [%c1]) : (memref<1024xi32>)");
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t addr[8];
  uint64_t plus[8];
  assert_int_equal(pushes_of(v, addr, plus, 8), 5);
  static const uint32_t want[5] = {0x1D214, 0x1D214, 0x1D21C, 0x1D204, 0x1D204};
  static const uint64_t want_plus[5] = {0, 64, 128, 0, 64};
  for (int i = 0; i < 5; ++i) {
    assert_int_equal(addr[i], want[i]);
    assert_int_equal(plus[i], want_plus[i]);
  }
  /* Both tasks of the shared MM2S0 queue behind each other: the launch's end
   * waits twice on it, once on MM2S1, twice on S2MM0. */
  assert_int_equal(count_op(v, AIR_TXN_TCT), 5);
  stream_close(&s);
  free(text);
}

/* An scf.if whose condition is known once the launch is unrolled takes its
 * branch per instance; an unknown condition is a located reason. */
static void test_if(void** state) {
  air_context_t* ctx = *state;
  char* text = program("2",
                       "      %cond = arith.cmpi eq, %x, %c0 : index\n"
                       "      scf.if %cond {\n"
                       "        %p = air.channel.put async @c0[] (%a[%c0] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      } else {\n"
                       "        %q = air.channel.put async @c0[] (%a[%c64] [%c16] [%c1]) : (memref<1024xi32>)\n"
                       "      }\n"
                       "      %sel = arith.select %cond, %c8, %c32 : index\n"
                       "      %r = air.channel.put async @c1[] (%a[%sel] [%c16] [%c1]) : (memref<1024xi32>)");
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t addr[8];
  uint64_t plus[8];
  assert_int_equal(pushes_of(v, addr, plus, 8), 4);
  /* The scf.if is a blocking op of the launch body, so the scheduler's analysis
   * orders @c0 (inside it) before @c1: they share MM2S0. */
  static const uint32_t want[4] = {0x1D214, 0x1D214, 0x1D214, 0x1D214};
  static const uint64_t want_plus[4] = {0, 32, 256, 128};
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(addr[i], want[i]);
    assert_int_equal(plus[i], want_plus[i]);
  }
  stream_close(&s);
  free(text);
  text = program("1",
                 "      %l = memref.load %a[%c0] : memref<1024xi32>\n"
                 "      %li = arith.index_cast %l : i32 to index\n"
                 "      %cond = arith.cmpi slt, %li, %c4 : index\n"
                 "      scf.if %cond {\n"
                 "        %p = air.channel.put async @c0[] (%a[%c0] [%c16] [%c1]) : (memref<1024xi32>)\n"
                 "      }");
  air_program_t* p;
  air_schedule_t* sc = compile(ctx, text, "npu1", &p);
  assert_null(sc->npu_insts);
  assert_non_null(sc->npu_error);
  if (!strstr(sc->npu_error, "l3.mlir:20:7: an scf.if with L3 transfers whose condition is not known"))
    fail_msg("reason: %s", sc->npu_error);
  air_schedule_free(sc);
  air_program_destroy(p);
  free(text);
}

/* An scf.parallel of 4 instances putting to a channel bundle: each instance its
 * own channel (the analysis gives the endpoint 4 copies), offsets per instance. */
static void test_parallel(void** state) {
  air_context_t* ctx = *state;
  static const char text[] =
      "module {\n"
      "  air.channel @cp [4]\n"
      "  func.func @f(%arg0: memref<1024xi32>) {\n"
      "    %n = arith.constant 1 : index\n"
      "    %0 = air.launch async (%x) in (%nx=%n) args(%a=%arg0) : memref<1024xi32> {\n"
      "      %c0 = arith.constant 0 : index\n      %c1 = arith.constant 1 : index\n"
      "      %c4 = arith.constant 4 : index\n      %c16 = arith.constant 16 : index\n"
      "      %t0 = air.wait_all async\n"
      "      %pa = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%t0) -> !air.token {\n"
      "        %o = arith.muli %i, %c16 : index\n"
      "        %p = air.channel.put async [%t0] @cp[%i] (%a[%o] [%c16] [%c1]) : (memref<1024xi32>)\n"
      "        scf.reduce(%p : !air.token) {\n"
      "        ^bb0(%lhs: !air.token, %rhs: !air.token):\n"
      "          %both = air.wait_all async [%lhs, %rhs]\n"
      "          scf.reduce.return %both : !air.token\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    air.wait_all [%0]\n"
      "    return\n"
      "  }\n"
      "}\n";
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t addr[8];
  uint64_t plus[8];
  assert_int_equal(pushes_of(v, addr, plus, 8), 4);
  static const uint32_t want[4] = {0x1D214, 0x1D21C, 0x0201D214, 0x0201D21C};
  for (uint32_t i = 0; i < 4; ++i) {
    assert_int_equal(addr[i], want[i]);
    assert_int_equal(plus[i], 64 * i);
  }
  stream_close(&s);
}

/* affine.for at launch level, affine.apply through an alias, affine.min, and an
 * affine.if decided per launch instance. */
static void test_affine(void** state) {
  air_context_t* ctx = *state;
  static const char text[] =
      "#map16 = affine_map<(d0) -> (d0 * 16)>\n"
      "#set0 = affine_set<(d0) : (d0 - 1 >= 0)>\n"
      "module {\n"
      "  air.channel @c0 [1, 1]\n"
      "  func.func @f(%arg0: memref<1024xi32>) {\n"
      "    %n = arith.constant 2 : index\n"
      "    %0 = air.launch async (%x) in (%nx=%n) args(%a=%arg0) : memref<1024xi32> {\n"
      "      %c1 = arith.constant 1 : index\n"
      "      %c16 = arith.constant 16 : index\n"
      "      affine.for %i = 0 to 3 {\n"
      "        %o = affine.apply #map16(%i)\n"
      "        %m = affine.min affine_map<(d0) -> (d0, 24)>(%o)\n"
      "        %p = air.channel.put async @c0[] (%a[%m] [%c16] [%c1]) : (memref<1024xi32>)\n"
      "      }\n"
      "      affine.if #set0(%x) {\n"
      "        %q = air.channel.put async @c0[] (%a[%c16] [%c16] [%c1]) : (memref<1024xi32>)\n"
      "      }\n"
      "    }\n"
      "    air.wait_all [%0]\n"
      "    return\n"
      "  }\n"
      "}\n";
  stream_t s;
  const air_txn_view_t* v = stream_open(&s, ctx, text);
  uint32_t addr[8];
  uint64_t plus[8];
  assert_int_equal(pushes_of(v, addr, plus, 8), 7);
  static const uint64_t want_plus[7] = {0, 64, 96, 0, 64, 96, 64};
  for (int i = 0; i < 7; ++i) {
    assert_int_equal(addr[i], 0x1D214);
    assert_int_equal(plus[i], want_plus[i]);
  }
  stream_close(&s);
}

/* What has no stream keeps a located reason (the schedule itself still compiles). */
static void test_reasons(void** state) {
  air_context_t* ctx = *state;
  static const struct {
    const char* body;
    const char* needle;
  } cases[] = {
      {"      %1 = air.herd @h async tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%hb=%b) : memref<1024xi32> {\n"
       "        %2 = air.channel.get async @c0[] (%hb[] [] []) : (memref<1024xi32>)\n      }",
       "an L3 transfer inside 'air.herd' is not lowered"},
      {"      %u = arith.addi %x, %c4 : index\n"
       "      %t0 = air.wait_all async\n"
       "      %1 = scf.for %i = %c0 to %u step %c1 iter_args(%t = %t0) -> (!air.token) {\n"
       "        %p = air.channel.put async [%t] @c0[] (%a[%i] [%c16] [%c1]) : (memref<1024xi32>)\n"
       "        scf.yield %p : !air.token\n      }",
       NULL},
      {"      %p = air.channel.put async @c0[] (%a[%c0, %c0, %c0, %c0, %c0] [%c1, %c1, %c1, %c1, %c16] [%c16, %c16, %c16, %c16, %c1]) : (memref<1024xi32>)",
       "of 5 dimensions (a shim BD addresses at most 4)"},
      {"      %p = air.channel.put async @c0[] (%a[%c0] [%c4] [%c1]) : (memref<1024xi32>)\n"
       "      %p2 = air.channel.put async @c1[] (%a[%c0] [%c4] [%c1]) : (memref<1024xi32>)\n"
       "      %p3 = air.channel.put async @c2[] (%a[%c0] [%c4] [%c1]) : (memref<1024xi32>)\n"
       "      %p4 = air.channel.put async @c3[] (%a[%c0] [%c4] [%c1]) : (memref<1024xi32>)\n"
       "      %p5 = air.channel.put async @c4[] (%a[%c0] [%c4] [%c1]) : (memref<1024xi32>)\n"
       "      %p6 = air.dma_memcpy_nd async (%b[] [] [], %a[] [] []) : (memref<1024xi32>, memref<1024xi32>)",
       "an L3-to-L3 copy"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char* text = program("1", cases[i].body);
    air_program_t* p;
    air_schedule_t* sc = compile(ctx, text, "npu1", &p);
    if (cases[i].needle) {
      if (sc->npu_insts || !sc->npu_error || !strstr(sc->npu_error, cases[i].needle))
        fail_msg("case %zu: reason '%s' lacks '%s'", i, sc->npu_error ? sc->npu_error : "(none)",
                 cases[i].needle);
      assert_non_null(strstr(sc->npu_error, "l3.mlir:"));
    } else {
      /* A loop bound from the launch id is a constant once unrolled: lowered. */
      assert_non_null(sc->npu_insts);
    }
    air_schedule_free(sc);
    air_program_destroy(p);
    free(text);
  }
  /* On cpu targets no stream and no reason. */
  char* text = program("1", "");
  air_program_t* p;
  air_schedule_t* sc = compile(ctx, text, "cpu", &p);
  assert_null(sc->npu_insts);
  assert_null(sc->npu_error);
  air_schedule_free(sc);
  air_program_destroy(p);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_l3_copy),
      cmocka_unit_test(test_channel_allocation),
      cmocka_unit_test(test_queue_depth_and_bd_reuse),
      cmocka_unit_test(test_channel_sharing),
      cmocka_unit_test(test_if),
      cmocka_unit_test(test_parallel),
      cmocka_unit_test(test_affine),
      cmocka_unit_test(test_reasons),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

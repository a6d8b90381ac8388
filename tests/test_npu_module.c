/* test_npu_module.c - mlir-aie device modules to instruction streams
 * (src/npu/insts.h): files of our own lowered and checked by decoding, every
 * aiex.npu op, the argument fold, and bad input refused at its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "npu/insts.h"
#include "npu/txn.h"
#include "test_util.h"

static void* t_alloc(void* s, size_t n) { (void)s; return malloc(n); }
static void* t_realloc(void* s, void* p, size_t n) { (void)s; return realloc(p, n); }
static void t_free(void* s, void* p) { (void)s; free(p); }
static const air_allocator_t k_a = {NULL, t_alloc, t_realloc, t_free};

static air_status_t lower(const char* text, const air_npu_insts_options_t* o, uint32_t** w,
                          size_t* n) {
  return air_npu_insts_from_module(&k_a, text, strlen(text), "x.mlir", o, w, n);
}

static void lower_ok(const char* text, const air_npu_insts_options_t* o, air_txn_view_t* v,
                     uint32_t** w) {
  size_t n;
  air_status_t s = lower(text, o, w, &n);
  if (s) print_error("%s\n", air_status_message(s));
  assert_null(s);
  assert_null(air_txn_decode(&k_a, *w, n, "x", v));
}

static char* read_data(const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/npu/%s", AIR_TEST_DATA_DIR, name);
  size_t len;
  char* t = test_read_file(path, &len);
  assert_non_null(t);
  return t;
}

/* NPU-DMA.md §12, from text, on npu1 and npu2. */
static void test_memcpy_example(void** state) {
  (void)state;
  char* text = read_data("memcpy_example.mlir");
  uint32_t* w;
  size_t n;
  assert_null(lower(text, NULL, &w, &n));
  static const uint32_t want[] = {
      0x06030100, 0x00000104, 4, 0x98,
      1, 0, 0x0201D020, 0x30, 0x800, 0, 0, 0x02000000, 0x8400003F, 0x02000000, 0, 0x02000000,
      0x81, 0x30, 0, 0, 0, 0, 0x0201D024, 0, 0, 0, 0x80, 0,
      0, 0, 0x0201D214, 0, 0x80000001, 0x18,
      0x80, 0x10, 0x00010001, 0x00010100,
  };
  assert_int_equal(n, sizeof want / 4);
  for (size_t i = 0; i < n; ++i) assert_int_equal(w[i], want[i]);
  free(w);
  char* npu2 = strstr(text, "npu1");
  memcpy(npu2, "npu2", 4);
  assert_null(lower(text, NULL, &w, &n));
  assert_int_equal(w[0], 0x06040100);
  assert_int_equal(w[1], 0x00000108);
  assert_int_equal(w[12], 0xC400003F);
  free(w);
  free(text);
}

typedef struct want_op_t {
  uint32_t opcode;
  uint64_t addr;
  uint32_t value; /* write/mask value; patch arg; sync channel<<8|dir; bw first word */
} want_op_t;

/* A whole lowered design (tiles, locks, buffers, cores, DMA blocks, flows): only
 * the sequence becomes instructions. Expected fields worked out by hand. */
static void test_full_design(void** state) {
  (void)state;
  char* text = read_data("full_design.mlir");
  air_txn_view_t v;
  uint32_t* w;
  lower_ok(text, NULL, &v, &w);
  assert_int_equal(v.geom.cols, 2);
  static const want_op_t want[] = {
      {0x00, 0x0201D214, 2},            /* write32 col 1 */
      {0x03, 0x0001D200, 0xF00},        /* maskwrite32, flat */
      {0x01, 0x001A0000, 1},            /* blockwrite of the global, mem tile */
      {0x01, 0x0001D000, 16},           /* dma_memcpy_nd @in0: BD 0, 16 words */
      {0x81, 0x0001D004, 0},            /* its patch: arg 0 */
      {0x03, 0x0001D210, 0xF00},        /* controller id 15 << 8 */
      {0x00, 0x0001D214, 0x80000000},   /* push BD 0 with a token */
      {0x01, 0x0201D060, 256},          /* @out0: BD 3 at column 1 */
      {0x81, 0x0201D064, 1},            /* arg 1: %n is a scalar, %b the 2nd memref */
      {0x00, 0x0201D20C, 0x80030003},   /* S2MM1: BD 3, repeat 3, token */
      {0x01, 0x001A00A0, 1024},         /* writebd on the mem tile */
      {0x81, 0x0001D204, 1},            /* address_patch */
      {0x80, 0, 0x100},                 /* sync S2MM channel 1 */
      {0x80, 0, 0x100},                 /* dma_wait @out0 */
      {0x08, 0xabc12345678ull, 0},
      {0x06, 0, 0},
      {0x82, 0, 0},
  };
  assert_int_equal(v.n_ops, sizeof want / sizeof want[0]);
  for (uint32_t i = 0; i < v.n_ops; ++i) {
    const air_txn_op_t* op = &v.ops[i];
    assert_int_equal(op->opcode, want[i].opcode);
    switch (op->opcode) {
      case 0x00: case 0x03: assert_int_equal(op->addr, want[i].addr); assert_int_equal(op->value, want[i].value); break;
      case 0x01: assert_int_equal(op->addr, want[i].addr); assert_int_equal(op->payload[0], want[i].value); break;
      case 0x81: assert_int_equal(op->addr, want[i].addr); assert_int_equal(op->arg_idx, want[i].value); break;
      case 0x80: assert_int_equal(op->channel << 8 | op->direction, want[i].value); assert_int_equal(op->col, 1); break;
      case 0x08: assert_int_equal(op->addr, want[i].addr); assert_int_equal(op->pdi_id, 2); break;
      case 0x06: assert_int_equal(op->level, 1); break;
      case 0x82: assert_int_equal(op->payload[0], 0x0201D204); break;
    }
  }
  /* Field-level checks the table does not carry. */
  assert_int_equal(v.ops[2].payload[1], 0xFFFFFFFF); /* -1 in the dense data */
  assert_int_equal(v.ops[2].col, 0);
  assert_int_equal(v.ops[2].row, 1);
  assert_int_equal(v.ops[4].arg_plus, 0x40);        /* offset 16 x i32 */
  assert_int_equal(v.ops[7].payload[2], 0x403A0000); /* packet type 2, id 7, enabled */
  assert_int_equal(v.ops[7].payload[4], 0x40000000); /* burst 128 = code 1 */
  static const uint32_t membd[8] = {0x400, 0x08680040, 0x00100000, 0x00080007,
                                    0x0004001F, 0x00020000, 0x000203FF, 0x8140FF41};
  for (int i = 0; i < 8; ++i) assert_int_equal(v.ops[10].payload[i], membd[i]);
  air_txn_view_free(&k_a, &v);
  free(w);
  free(text);
}

static const char k_six[] =
    "aie.device(npu1_1col) {\n"
    "  aie.shim_dma_allocation @s(S2MM, 1, 0)\n"
    "  aie.runtime_sequence(%a0: memref<8xi32>, %a1: memref<8xi32>, %a2: memref<8xi32>,\n"
    "                       %a3: memref<8xi32>, %a4: memref<8xi32>, %a5: memref<32xi8>) {\n"
    "    aiex.npu.dma_memcpy_nd(%a5[0, 0, 0, 8][1, 1, 1, 16][0, 0, 0, 1]) {id = 15 : i64, metadata = @s} : memref<32xi8>\n"
    "    aiex.npu.address_patch {addr = 118788 : ui32, arg_idx = 4 : i32, arg_plus = 4 : i32}\n"
    "  }\n"
    "}\n";

/* Arguments 5 and up get 0x80000000 added to arg_plus unless asked not to. */
static void test_fold(void** state) {
  (void)state;
  air_txn_view_t v;
  uint32_t* w;
  lower_ok(k_six, NULL, &v, &w);
  assert_int_equal(v.ops[1].arg_idx, 5);
  assert_int_equal(v.ops[1].arg_plus, 0x80000008);
  assert_int_equal(v.ops[0].payload[0], 4); /* 16 i8 = 4 words */
  assert_int_equal(v.ops[2].addr, 0x1D20C);  /* S2MM1 queue */
  assert_int_equal(v.ops[2].value, 0x8000000F);
  assert_int_equal(v.ops[3].arg_plus, 4);   /* arg 4: never folded */
  air_txn_view_free(&k_a, &v);
  free(w);
  air_npu_insts_options_t o = {true, NULL};
  lower_ok(k_six, &o, &v, &w);
  assert_int_equal(v.ops[1].arg_plus, 8);
  air_txn_view_free(&k_a, &v);
  free(w);
}

/* A design before objectfifo lowering: objectfifos, links and cores pass through. */
static void test_objectfifo_design_kept(void** state) {
  (void)state;
  static const char text[] =
      "module {\n"
      "  aie.device(npu2) {\n"
      "    %t00 = aie.tile(0, 0)\n"
      "    %t01 = aie.tile(0, 1)\n"
      "    %t02 = aie.tile(0, 2)\n"
      "    aie.objectfifo @in(%t00, {%t01}, 2 : i32) : !aie.objectfifo<memref<64xi32>>\n"
      "    aie.objectfifo @in2(%t01, {%t02}, 2 : i32) : !aie.objectfifo<memref<64xi32>>\n"
      "    aie.objectfifo.link [@in] -> [@in2]([] [])\n"
      "    %core = aie.core(%t02) {\n"
      "      %s = aie.objectfifo.acquire @in2(Consume, 1) : !aie.objectfifosubview<memref<64xi32>>\n"
      "      aie.objectfifo.release @in2(Consume, 1)\n"
      "      aie.end\n"
      "    }\n"
      "    aie.runtime_sequence(%a: memref<64xi32>) {\n"
      "      aiex.npu.write32 {address = 0 : ui32, value = -1 : i32}\n"
      "    }\n"
      "  }\n"
      "}\n";
  air_txn_view_t v;
  uint32_t* w;
  lower_ok(text, NULL, &v, &w);
  assert_int_equal(v.n_ops, 1);
  assert_int_equal(v.ops[0].value, 0xFFFFFFFF);
  air_txn_view_free(&k_a, &v);
  free(w);
}

static void test_pick_sequence(void** state) {
  (void)state;
  static const char text[] =
      "aie.device(npu1) {\n"
      "  aiex.runtime_sequence @a() {\n"
      "    aiex.npu.preempt {level = 1 : ui8}\n"
      "  }\n"
      "  aiex.runtime_sequence @b() {\n"
      "    aiex.npu.preempt {level = 2 : ui8}\n"
      "  }\n"
      "}\n";
  uint32_t* w;
  size_t n;
  air_status_t s = lower(text, NULL, &w, &n);
  assert_non_null(strstr(air_status_message(s), "x.mlir:5:3: error: the module has more than one"));
  air_status_free(s);
  air_npu_insts_options_t o = {false, "b"};
  air_txn_view_t v;
  lower_ok(text, &o, &v, &w);
  assert_int_equal(v.ops[0].level, 2);
  air_txn_view_free(&k_a, &v);
  free(w);
  o.sequence = "c";
  s = lower(text, &o, &w, &n);
  assert_non_null(strstr(air_status_message(s), "no runtime sequence named @c"));
  air_status_free(s);
}

/* Each bad module is refused with its position and reason. */
static void test_errors(void** state) {
  (void)state;
#define SEQ(body) "aie.device(npu1) {\n  aie.shim_dma_allocation @s(MM2S, 0, 3)\n" \
  "  aie.objectfifo @f(%t0, {%t1}, 2 : i32) : !aie.objectfifo<memref<8xi32>>\n" \
  "  memref.global \"private\" constant @g8 : memref<4xi8> = dense<[1, 2, 3, 4]>\n" \
  "  aiex.runtime_sequence(%a: memref<64xi32>, %b: memref<64xi8>) {\n    " body "\n  }\n}\n"
  static const struct {
    const char* text;
    const char* needle;
  } cases[] = {
      {"aie.device(npu3) {\n aie.runtime_sequence() {\n }\n}\n", "x.mlir:1:12: error: unknown NPU device 'npu3'"},
      {"aie.device(xcvc1902) {\n aie.runtime_sequence() {\n }\n}\n", "unknown NPU device 'xcvc1902'"},
      {"aie.device(npu1) {\n}\n", "no aie.device with an aie.runtime_sequence"},
      {"aie.device(npu1) {\n aie.runtime_sequence() {\n }\n", "region opened at line 1 is not closed"},
      {"aie.device(npu1) {\n %t = aie.tile(0, 0))\n}\n", "x.mlir:2:21: error: unbalanced ')'"},
      {"aie.device(npu1) {\n}\n}\n", "x.mlir:3:1: error: unmatched '}'"},
      {"aie.runtime_sequence() {\n}\n", "directly inside aie.device"},
      {SEQ("aiex.npu.writebd {bd_id = 16 : i32, buffer_length = 8 : i32, column = 0 : i32, row = 0 : i32}"),
       "x.mlir:6:22: error: bd_id 16 out of range: a shim tile has BDs 0..15"},
      {SEQ("aiex.npu.writebd {bd_id = 48 : i32, buffer_length = 8 : i32, column = 0 : i32, row = 1 : i32}"),
       "bd_id 48 out of range: a mem-tile tile has BDs 0..47"},
      {SEQ("aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 8 : i32, column = 0 : i32, row = 0 : i32, d0_size = 1024 : i32}"),
       "d0_size 1024 does not fit its field"},
      {SEQ("aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 8 : i32, column = 0 : i32, row = 0 : i32, d1_stride = 1048576 : i32}"),
       "d1_stride 1048576 does not fit"},
      {SEQ("aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 8 : i32, column = 0 : i32, row = 0 : i32, buffer_offset = 2 : i32}"),
       "buffer_offset 2 is not a multiple of 4"},
      {SEQ("aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 8 : i32, column = 4 : i32, row = 0 : i32}"),
       "attribute 'column' = 4 is out of range [0, 3]"},
      {SEQ("aiex.npu.writebd {buffer_length = 8 : i32, column = 0 : i32, row = 0 : i32}"),
       "x.mlir:6:22: error: missing integer attribute 'bd_id'"},
      {SEQ("aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 16 : i64, metadata = @s} : memref<64xi32>"),
       "attribute 'id' = 16 is out of range [0, 15]"},
      {SEQ("aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 2, 1024][0, 0, 1024, 2]) {id = 1 : i64, metadata = @s} : memref<64xi32>"),
       "x.mlir:6:5: error: innermost size is 1024 words"},
      {SEQ("aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 1][1, 1, 1, 8][0, 0, 0, 1]) {id = 1 : i64, metadata = @s} : memref<64xi8>"),
       "not a multiple of 4 bytes"},
      {SEQ("aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 8][0, 0, 0, 1]) {id = 1 : i64, metadata = @nope} : memref<64xi32>"),
       "no aie.shim_dma_allocation named @nope"},
      {SEQ("aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 8][0, 0, 0, 1]) {id = 1 : i64, metadata = @f} : memref<64xi32>"),
       "objectfifo @f has no shim end"},
      {SEQ("aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 8][0, 0, 0, 1]) {id = 1 : i64, metadata = @s, burst_length = 512 : i32} : memref<64xi32>"),
       "burst_length 512 is not one of npu1's shim bursts"},
      {SEQ("aiex.npu.dma_memcpy_nd(%z[0, 0, 0, 0][1, 1, 1, 8][0, 0, 0, 1]) {id = 1 : i64, metadata = @s} : memref<64xi32>"),
       "x.mlir:6:28: error: '%z' is not a memref argument"},
      {SEQ("aiex.npu.dma_wait {symbol = @nope}"), "no aie.shim_dma_allocation named @nope"},
      {SEQ("aiex.npu.address_patch {addr = 118788 : ui32, arg_idx = 2 : i32, arg_plus = 0 : i32}"),
       "arg_idx 2: the runtime sequence has 2 memref arguments"},
      {SEQ("aiex.npu.write32 {address = 0x100000 : ui32, column = 0 : i32, row = 0 : i32, value = 1 : ui32}"),
       "past a tile's 20-bit register space"},
      {SEQ("aiex.npu.write32 {address = 16 : ui32, column = 0 : i32, value = 1 : ui32}"),
       "'column' and 'row' go together"},
      {SEQ("aiex.npu.write32 {address = 4294967296 : ui64, value = 1 : ui32}"),
       "attribute 'address' = 4294967296 is out of range"},
      {SEQ("aiex.npu.sync {channel = 0 : i32, column = 0 : i32, column_num = 1 : i32, direction = 2 : i32, row = 0 : i32, row_num = 1 : i32}"),
       "attribute 'direction' = 2 is out of range [0, 1]"},
      {SEQ("aiex.npu.preempt {level = 256 : ui32}"), "attribute 'level' = 256"},
      {SEQ("aiex.npu.load_pdi {id = 65536 : i32}"), "attribute 'id' = 65536"},
      {SEQ("%g = memref.get_global @g8 : memref<4xi8>\n    aiex.npu.blockwrite(%g) {address = 0 : ui32} : memref<4xi8>"),
       "blockwrite data must be a memref of 32-bit integers"},
      {SEQ("aiex.npu.blockwrite(%a) {address = 0 : ui32} : memref<64xi32>"),
       "blockwrite data must come from memref.get_global"},
      {SEQ("aiex.npu.frobnicate {address = 0 : ui32}"),
       "x.mlir:6:5: error: 'aiex.npu.frobnicate' in a runtime sequence is not lowered"},
      {SEQ("scf.for %i = %c0 to %c1 step %c1 {\n    }"), "'scf.for' in a runtime sequence is not lowered"},
      {SEQ("scf.for %i = %c0 to %c1 step %c1 {\n      aiex.npu.preempt {level = 1 : ui8}\n    }"), "with a region in a runtime sequence"},
      {"aie.device(npu1) {\n aiex.runtime_sequence(%a: memref<4xi64>) {\n }\n}\n",
       "at most 32 bits"},
      {"aie.device(npu1) {\n aie.shim_dma_allocation @s(MM2S, 2, 0)\n aiex.runtime_sequence() {\n }\n}\n",
       "x.mlir:2:35: error: shim DMA channel 2"},
      {"aie.device(npu1) {\n aie.shim_dma_allocation @s(MM2S, 0, 4)\n aiex.runtime_sequence() {\n }\n}\n",
       "column 4 is outside npu1"},
      {"aie.device(npu1) {\n %t = aie.tile(0, 2)\n aie.shim_dma_allocation @s(%t, MM2S, 0)\n aiex.runtime_sequence() {\n }\n}\n",
       "needs a shim tile"},
      {"aie.device(npu1) {\n aiex.runtime_sequence() {\n  aiex.npu.write32 {address = 1 : ui32, value = 1 : ui32\n }\n}\n",
       "x.mlir:"},
      {"aie.device(npu1) {\n aiex.runtime_sequence() {\n  aiex.npu.write32 {address = \"s : ui32}\n }\n}\n",
       "x.mlir:3:"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    uint32_t* w = NULL;
    size_t n = 0;
    air_status_t s = lower(cases[i].text, NULL, &w, &n);
    if (!s) print_error("case %zu was accepted\n", i);
    assert_non_null(s);
    assert_null(w);
    assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
    const char* msg = air_status_message(s);
    if (!strstr(msg, cases[i].needle)) print_error("case %zu: '%s' lacks '%s'\n", i, msg, cases[i].needle);
    assert_non_null(strstr(msg, cases[i].needle));
    air_status_free(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memcpy_example), cmocka_unit_test(test_full_design),
      cmocka_unit_test(test_fold),           cmocka_unit_test(test_objectfifo_design_kept),
      cmocka_unit_test(test_pick_sequence),  cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

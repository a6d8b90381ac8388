/* test_npu_tasks.c - DMA tasks and the other runtime-sequence ops of current
 * mlir-aie (src/npu/aie_task.c, aie_sym.c): configure/start/await/free, BD-id
 * numbering, chains and bd_chain starts, mem-tile BDs with buffers, padding and
 * neighbour bases, packets, controller ids, push_queue, set_lock, rtp_write,
 * shim allocations inferred from objectfifos. Every expected word was worked out
 * by hand from NPU-DMA.md; bad modules are refused at their line and column. */
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

static air_status_t lower(const char* text, uint32_t** w, size_t* n) {
  return air_npu_insts_from_module(&k_a, text, strlen(text), "x.mlir", NULL, w, n);
}

static char* read_data(const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/npu/%s", AIR_TEST_DATA_DIR, name);
  size_t len;
  char* t = test_read_file(path, &len);
  assert_non_null(t);
  return t;
}

static void expect_words(const char* text, const uint32_t* want, size_t n_want) {
  uint32_t* w = NULL;
  size_t n = 0;
  air_status_t s = lower(text, &w, &n);
  if (s) print_error("%s\n", air_status_message(s));
  assert_null(s);
  if (n != n_want) print_error("%zu words, want %zu\n", n, n_want);
  assert_int_equal(n, n_want);
  for (size_t i = 0; i < n; ++i) {
    if (w[i] != want[i]) print_error("word %zu: 0x%08X, want 0x%08X\n", i, w[i], want[i]);
    assert_int_equal(w[i], want[i]);
  }
  air_txn_view_t v; /* and the stream decodes */
  assert_null(air_txn_decode(&k_a, w, n, "x", &v));
  air_txn_view_free(&k_a, &v);
  free(w);
}

#define PATCH(addr, arg, plus) 0x81, 0x30, 0, 0, 0, 0, addr, 0, arg, 0, plus, 0
#define WRITE(addr, value) 0, 0, addr, 0, value, 0x18
#define MASK(addr, value, mask) 3, 0, addr, 0, value, mask, 0x1C
#define TCT(w2, w3) 0x80, 0x10, w2, w3
#define BW8(addr) 1, 0, addr, 0x30

/* IRON style: objectfifo allocations (@in MM2S0, @in2 MM2S1, @out S2MM0 of the
 * shim), BDs numbered 1, 2 around the written 0, then 1 again after the frees. */
static void test_iron_tasks(void** state) {
  (void)state;
  char* text = read_data("tasks_iron.mlir");
  static const uint32_t want[] = {
      0x06030100, 0x00000101, 14, 0x210,
      /* %0: BD 1, 32x32 tiles of a 4x1024 block: d0 32 words step 0, d1 32 step 31,
       * d2 step 1023; burst code 2 (npu1 default); AxCache 2; valid */
      BW8(0x1D020), 0x1000, 0, 0, 0x02000000, 0x8200001F, 0x020003FF, 0, 0x02000000,
      PATCH(0x1D024, 0, 0),
      WRITE(0x1D214, 0x00000001),           /* MM2S0 queue: BD 1, no token */
      /* %1: BD 2, linear 256 words */
      BW8(0x1D040), 0x100, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D044, 1, 0),
      WRITE(0x1D21C, 0x80000002),           /* MM2S1: BD 2 with a token */
      /* %2: BD 0 as written, offset 1024 x i32 = 4096 bytes in word 1 and arg_plus */
      BW8(0x1D000), 0x800, 0x1000, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D004, 2, 0x1000),
      WRITE(0x1D204, 0x80010000),           /* S2MM0: repeat 1, token */
      TCT(0x00000000, 0x00010100),          /* await %2: S2MM0 */
      TCT(0x00000001, 0x01010100),          /* await %1: MM2S1 */
      /* %3 after freeing %0 and %1: BD 1 is free again (0 is still held) */
      BW8(0x1D020), 0x400, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D024, 0, 0),
      WRITE(0x1D214, 0x00000001),
  };
  expect_words(text, want, sizeof want / 4);
  free(text);
}

static void test_mem_and_chain_tasks(void** state) {
  (void)state;
  char* text = read_data("tasks_mem.mlir");
  static const uint32_t want[] = {
      0x06040100, 0x00000102, 19, 0x294,
      /* mem tile (0,1) BD 30: 64 words at byte 64, next BD 24; d0 16 words, d1 4
       * step 15; pads d0 0/3, d1 1/2 (lists are highest dimension first) */
      BW8(0x001A03C0), 0x40, 0x01880040, 0x00200000, 0x0808000F, 0, 0x01060000, 0, 0x80000000,
      MASK(0x001A03C4, 0x00020050, 0x7FFFF), /* (256 + 64 + 0x80000 own) / 4 */
      /* BD 24: the first free id of the odd channels' 24..47 */
      BW8(0x001A0300), 0x40, 0, 0, 0, 0, 0, 0, 0x80000000,
      MASK(0x001A0304, 0x00040010, 0x7FFFF), /* (64 + 0x100000 east) / 4 */
      WRITE(0x001A063C, 0x8002001E),        /* MM2S1 queue: BD 30, repeat 2, token */
      TCT(0x00000101, 0x01010100),          /* row 1, MM2S, channel 1 */
      /* @two on the shim (0,0) MM2S0: BD 0 (32 words, next 1), BD 1 */
      BW8(0x1D000), 0x20, 0, 0, 0, 0xC0000000, 0x02000000, 0, 0x0E000000,
      PATCH(0x1D004, 0, 0),
      BW8(0x1D020), 0x10, 0x10, 0, 0x00400000, 0xC040000F, 0x02000000, 0, 0x02000000,
      PATCH(0x1D024, 1, 0x10),              /* %b is memref argument 1 (%n is a scalar) */
      MASK(0x1D210, 0x300, 0x1F00),         /* controller id 3 */
      WRITE(0x1D214, 0x80000000),
      TCT(0x00000001, 0x00010100),
      /* %d on @in: column 1, MM2S1, BD 5 with packet type 1 id 4 */
      BW8(0x0201D0A0), 0x40, 0, 0x40210000, 0, 0xC0000000, 0x02000000, 0, 0x02000000,
      PATCH(0x0201D0A4, 1, 0),
      WRITE(0x0201D21C, 0x00000005),
      WRITE(0x001A0624, 0x80030007),        /* push_queue mem S2MM4 */
      WRITE(0x001C0050, 1),                 /* set_lock: mem lock 5 */
      WRITE(0x00200408, 0xFFFFFFFB),        /* rtp_write word 2 of @rtp */
  };
  expect_words(text, want, sizeof want / 4);
  /* The same on npu1 (AIE2): burst code 2, and the east buffer is refused. */
  char* p = strstr(text, "npu2_2col");
  memcpy(p, "npu1_2col", 9);
  uint32_t* w;
  size_t n;
  air_status_t s = lower(text, &w, &n);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "x.mlir:29:20: error: a neighbour's buffer on an AIE2 mem tile"));
  air_status_free(s);
  free(text);
}

/* Objectfifo allocations after explicit ones, through dma_memcpy_nd and dma_wait. */
static void test_fifo_allocations(void** state) {
  (void)state;
  static const char text[] =
      "aie.device(npu1) {\n"
      "  %t00 = aie.tile(0, 0)\n"
      "  %t10 = aie.tile(1, 0)\n"
      "  %t02 = aie.tile(0, 2)\n"
      "  aie.shim_dma_allocation @fixed(%t00, MM2S, 0)\n"
      "  aie.objectfifo @a(%t00, {%t02}, 2 : i32) : !aie.objectfifo<memref<16xi32>>\n"
      "  aie.objectfifo @b(%t02, {%t00}, 2 : i32) : !aie.objectfifo<memref<16xi32>>\n"
      "  aie.objectfifo @c(%t10, {%t02}, [2, 2]) : !aie.objectfifo<memref<16xi32>>\n"
      "  aie.runtime_sequence(%x: memref<16xi32>) {\n"
      "    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @a, issue_token = true} : memref<16xi32>\n"
      "    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {id = 1 : i64, metadata = @b} : memref<16xi32>\n"
      "    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {id = 2 : i64, metadata = @c} : memref<16xi32>\n"
      "    aiex.npu.dma_wait {symbol = @b}\n"
      "    aiex.npu.dma_wait {symbol = @a}\n"
      "  }\n"
      "}\n";
  static const uint32_t want[] = {
      0x06030100, 0x00000104, 11, 4 * 4 + 3 * 30 * 4 + 2 * 16,
      BW8(0x1D000), 16, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D004, 0, 0),
      WRITE(0x1D21C, 0x80000000),           /* @a: MM2S1 (MM2S0 is @fixed's) */
      BW8(0x1D020), 16, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D024, 0, 0),
      WRITE(0x1D204, 0x80000001),           /* @b: S2MM0, a token (S2MM always) */
      BW8(0x0201D040), 16, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x0201D044, 0, 0),
      WRITE(0x0201D214, 0x00000002),        /* @c: column 1 MM2S0 */
      TCT(0x00000000, 0x00010100),
      TCT(0x00000001, 0x01010100),
  };
  expect_words(text, want, sizeof want / 4);
}

/* An older output: the sequence is a func.func of aiex ops in the device (its
 * arguments with attributes), transfers of views of the arguments (subview and
 * reinterpret_cast offsets add to arg_plus), ended by return. */
static void test_legacy_func_and_views(void** state) {
  (void)state;
  static const char text[] =
      "module {\n"
      "  aie.device(npu1_1col) {\n"
      "    %t = aie.tile(0, 0)\n"
      "    aie.shim_dma_allocation @in(MM2S, 0, 0)\n"
      "    aie.shim_dma_allocation @out(S2MM, 1, 0)\n"
      "    func.func @sequence(%arg0: memref<64x64xi32> {bufferization.writable}, %arg1: memref<4096xi32>) {\n"
      "      %v = memref.subview %arg0[2, 0] [2, 64] [1, 1] : memref<64x64xi32> to memref<2x64xi32, strided<[64, 1], offset: 128>>\n"
      "      %r = memref.reinterpret_cast %arg1 to offset: [1024], sizes: [1024], strides: [1] : memref<4096xi32> to memref<1024xi32, strided<[1], offset: 1024>>\n"
      "      %w = memref.cast %r : memref<1024xi32, strided<[1], offset: 1024>> to memref<?xi32, strided<[1], offset: 1024>>\n"
      "      aiex.npu.dma_memcpy_nd(%v[0, 0, 0, 0][1, 1, 2, 64][0, 0, 64, 1]) {id = 0 : i64, metadata = @in} : memref<2x64xi32, strided<[64, 1], offset: 128>>\n"
      "      aiex.npu.dma_memcpy_nd(%w[0, 0, 0, 16][1, 1, 1, 1008][0, 0, 0, 1]) {id = 1 : i64, metadata = @out} : memref<?xi32, strided<[1], offset: 1024>>\n"
      "      aiex.npu.sync {channel = 1 : i32, column = 0 : i32, column_num = 1 : i32, direction = 0 : i32, row = 0 : i32, row_num = 1 : i32}\n"
      "      return\n"
      "    }\n"
      "  }\n"
      "}\n";
  static const uint32_t want[] = {
      0x06030100, 0x00000101, 7, 0x110,
      BW8(0x1D000), 0x80, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000, /* 2 rows: linear */
      PATCH(0x1D004, 0, 0x200),             /* row 2 of 64 x i32 = 512 bytes */
      WRITE(0x1D214, 0),
      BW8(0x1D020), 0x3F0, 0, 0, 0, 0x80000000, 0x02000000, 0, 0x02000000,
      PATCH(0x1D024, 1, 0x1040),            /* 1024 + 16 elements */
      WRITE(0x1D20C, 0x80000001),           /* S2MM1 always issues a token */
      TCT(0x00000000, 0x01010100),
  };
  expect_words(text, want, sizeof want / 4);
}

/* Each bad module is refused with its position and reason. */
static void test_task_errors(void** state) {
  (void)state;
#define DEV(body) "aie.device(npu1_1col) {\n  %t0 = aie.tile(0, 0)\n  %t1 = aie.tile(0, 1)\n" \
  "  %t2 = aie.tile(0, 2)\n  %b1 = aie.buffer(%t1) {address = 0 : i32} : memref<64xi32>\n" \
  "  %nb = aie.buffer(%t1) : memref<64xi32>\n  %l = aie.lock(%t1)\n" \
  "  aie.shim_dma_allocation @s(%t0, MM2S, 0)\n" \
  "  aie.runtime_sequence(%a: memref<64xi32>) {\n" body "\n  }\n}\n"
#define TASK(bd, attrs) "    %k = aiex.dma_configure_task_for @s {\n      " bd "\n      aie.end\n    }" attrs
  static const struct {
    const char* text;
    const char* needle;
  } cases[] = {
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64)", "") "\n    aiex.dma_await_task(%k)"),
       "x.mlir:14:5: error: cannot wait on a task configured without issue_token"},
      {DEV("    aiex.dma_start_task(%a)"), "x.mlir:10:25: error: '%a' is not a DMA task"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64)", "") "\n    aiex.dma_free_task(%k)\n    aiex.dma_start_task(%k)"),
       "x.mlir:15:5: error: the task was freed"},
      {DEV(TASK("aie.use_lock(%l, Acquire, 1)\n      aie.dma_bd(%a : memref<64xi32>, 0, 64)", "")),
       "x.mlir:11:7: error: locks in a runtime DMA task are not lowered"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64)\n      func.call @f() : () -> ()", "")),
       "x.mlir:12:7: error: 'func.call' in a DMA task's BD block is not lowered"},
      {DEV("    %k = aiex.dma_configure_task(%t2, MM2S, 0) {\n      aie.dma_bd(%a : memref<64xi32>, 0, 64)\n      aie.end\n    }"),
       "x.mlir:10:5: error: a DMA task on core tile (0, 2) is not lowered"},
      {DEV("    %k = aiex.dma_configure_task(%t1, MM2S, 0) {\n      aie.dma_bd(%a : memref<64xi32>, 0, 64)\n      aie.end\n    }"),
       "x.mlir:11:18: error: a runtime sequence argument (DDR) can only be the buffer of a shim-tile BD"},
      {DEV("    %k = aiex.dma_configure_task(%t1, MM2S, 6) {\n      aie.dma_bd(%b1 : memref<64xi32>, 0, 64)\n      aie.end\n    }"),
       "x.mlir:10:5: error: channel 6: a mem tile has MM2S channels 0..5"},
      {DEV("    %k = aiex.dma_configure_task(%t1, S2MM, 0) {\n      aie.dma_bd(%nb : memref<64xi32>, 0, 64)\n      aie.end\n    }"),
       "x.mlir:11:18: error: the aie.buffer has no address"},
      {DEV("    %k = aiex.dma_configure_task(%t1, S2MM, 0) {\n      aie.dma_bd(%b1 : memref<64xi32>, 0, 64) {bd_id = 24 : i32}\n      aie.end\n    }"),
       "x.mlir:11:56: error: BD 24 is not reachable from mem-tile channel 0"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64) {bd_id = 16 : i32}", "")),
       "x.mlir:11:55: error: attribute 'bd_id' = 16 is out of range [0, 15]"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 60, [<size = 4, stride = 16>, <size = 16, stride = 1>])", "")),
       "x.mlir:11:7: error: the length, 60 words, is not what the lowest three dimensions move (64 words)"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64, [<size = 4, stride = 16>, <size = 16, stride = 1>], [<const_pad_before = 1, const_pad_after = 0>])", "")),
       "x.mlir:11:7: error: padding is only for mem-tile MM2S BDs"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64, pad_value = 3)", "")),
       "x.mlir:11:58: error: a non-zero pad_value is not lowered"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 8, 64)", "")),
       "x.mlir:11:7: error: offset 8 + length 64 is past the buffer's 64 elements"},
      {DEV("    %k = aiex.dma_configure_task_for @s {\n      aie.dma_bd(%a : memref<64xi32>, 0, 64)\n      aie.next_bd ^bb7\n    }"),
       "x.mlir:11:7: error: the block's aie.next_bd names ^bb7"},
      {DEV(TASK("aie.dma_bd(%z : memref<64xi32>, 0, 64)", "")),
       "x.mlir:11:18: error: '%z' is neither a memref argument"},
      {DEV("    %k = aiex.dma_configure_task_for @nope {\n      aie.dma_bd(%a : memref<64xi32>, 0, 64)\n      aie.end\n    }"),
       "x.mlir:10:38: error: no aie.shim_dma_allocation named @nope"},
      {DEV("    %k = aiex.dma_configure_task_for @s {\n      aie.end\n    }"),
       "x.mlir:11:7: error: a BD block without an aie.dma_bd"},
      {DEV(TASK("aie.dma_bd(%a : memref<64xi32>, 0, 64)", " {repeat_count = 256 : i32}")),
       "x.mlir:13:23: error: attribute 'repeat_count' = 256 is out of range [0, 255]"},
      {DEV("    %c = aiex.dma_start_bd_chain @nochain(%a) : (memref<64xi32>) on (%t0, MM2S, 0)"),
       "x.mlir:10:34: error: no aie.bd_chain named @nochain"},
      {DEV("    aiex.npu.push_queue (0, 0, MM2S : 2) {bd_id = 0 : i32, issue_token = true, repeat_count = 0 : i32}"),
       "x.mlir:10:39: error: channel 2: the tile has channels 0..1"},
      {DEV("    aiex.npu.push_queue (0, 1, MM2S : 2) {bd_id = 48 : i32}"),
       "attribute 'bd_id' = 48 is out of range [0, 47]"},
      {DEV("    aiex.set_lock(%l, 1)"), "x.mlir:10:19: error: the lock has no id"},
      {DEV("    %v = memref.subview %a[%n] [4] [1] : memref<64xi32> to memref<4xi32, strided<[1], offset: ?>>"),
       "x.mlir:10:5: error: a view with a dynamic offset is not lowered"},
      {DEV("    %v = memref.cast %k : memref<64xi32> to memref<?xi32>"),
       "x.mlir:10:22: error: '%k' is not a memref argument of the runtime sequence (or a view of one)"},
      {DEV("    %v = memref.reinterpret_cast %a to offset: [1], sizes: [8], strides: [1] : memref<64xi32> to memref<8xi32, strided<[1], offset: 1>>\n"
           TASK("aie.dma_bd(%v : memref<8xi32>, 0, 8)", "")),
       "x.mlir:12:18: error: a view of a sequence argument as a DMA task's buffer is not lowered"},
      {DEV("    aiex.set_lock(%a, 1)"), "x.mlir:10:19: error: '%a' is not an aie.lock"},
      {DEV("    aiex.npu.rtp_write(@nobuf, 0, 1)"), "x.mlir:10:24: error: no aie.buffer with sym_name \"nobuf\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    uint32_t* w = NULL;
    size_t n = 0;
    air_status_t s = lower(cases[i].text, &w, &n);
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

/* 17 tasks on one shim tile: with none freed the 17th finds no BD id; with
 * the 4th freed after the 16th, the 17th gets its BD 3. */
static air_status_t many_tasks(bool free_one, uint32_t** w, size_t* n) {
  char text[8192];
  int off = snprintf(text, sizeof text,
                     "aie.device(npu1_1col) {\n  %%t0 = aie.tile(0, 0)\n"
                     "  aie.shim_dma_allocation @s(%%t0, S2MM, 1)\n"
                     "  aie.runtime_sequence(%%a: memref<64xi32>) {\n");
  for (int i = 0; i < 17; ++i)
    off += snprintf(text + off, sizeof text - (size_t)off,
                    "%s    %%k%d = aiex.dma_configure_task_for @s {\n      aie.dma_bd(%%a : "
                    "memref<64xi32>, 0, 64)\n      aie.end\n    } {issue_token = true}\n",
                    i == 16 && free_one ? "    aiex.dma_free_task(%k3)\n" : "", i);
  snprintf(text + off, sizeof text - (size_t)off, "  }\n}\n");
  return lower(text, w, n);
}

static void test_bd_exhaustion(void** state) {
  (void)state;
  uint32_t* w;
  size_t n;
  air_status_t s = many_tasks(false, &w, &n);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "x.mlir:70:7: error: no free BD id on tile (0, 0) for channel 1"));
  air_status_free(s);
  air_txn_view_t v;
  assert_null(many_tasks(true, &w, &n));
  assert_null(air_txn_decode(&k_a, w, n, "x", &v));
  assert_int_equal(v.n_ops, 34);
  for (uint32_t i = 0; i < 16; ++i) assert_int_equal(v.ops[2 * i].addr, 0x1D000 + 0x20 * i);
  assert_int_equal(v.ops[32].addr, 0x1D000 + 0x20 * 3);
  assert_int_equal(v.ops[33].addr, 0x1D004 + 0x20 * 3);
  assert_int_equal(v.ops[33].arg_idx, 0);
  air_txn_view_free(&k_a, &v);
  free(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_iron_tasks),       cmocka_unit_test(test_mem_and_chain_tasks),
      cmocka_unit_test(test_fifo_allocations), cmocka_unit_test(test_legacy_func_and_views),
      cmocka_unit_test(test_task_errors),
      cmocka_unit_test(test_bd_exhaustion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_npu_txn.c - the TXN 0.1 encoder and decoder word by word, and the BD
 * encoders and N-d lowering field by field (src/npu/txn.h, bd.h). Expected words
 * are BACKENDS.md §4.2-4.3's and NPU-DMA.md §3-§12's, written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "npu/bd.h"
#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/base/mem.h"

static void* t_alloc(void* s, size_t n) { (void)s; return malloc(n); }
static void* t_realloc(void* s, void* p, size_t n) { (void)s; return realloc(p, n); }
static void t_free(void* s, void* p) { (void)s; free(p); }
static const air_allocator_t k_a = {NULL, t_alloc, t_realloc, t_free};

static const air_txn_geom_t k_npu1 = {3, 6, 4, 1};

static void assert_words(const uint32_t* got, size_t n_got, const uint32_t* want, size_t n_want) {
  assert_int_equal(n_got, n_want);
  for (size_t i = 0; i < n_want; ++i) {
    if (got[i] != want[i]) print_error("word %zu: got %08x want %08x\n", i, got[i], want[i]);
    assert_int_equal(got[i], want[i]);
  }
}

/* Finishes `t`, checks its words, then decodes and re-encodes them. */
static void check_stream(air_txn_t* t, const uint32_t* want, size_t n_want) {
  assert_null(air_txn_finish(t));
  size_t n;
  uint32_t* w = air_txn_take(t, &n);
  assert_words(w, n, want, n_want);
  air_txn_view_t v;
  assert_null(air_txn_decode(&k_a, w, n, "t", &v));
  air_txn_t again;
  air_txn_init(&again, &k_a, v.geom);
  for (uint32_t i = 0; i < v.n_ops; ++i) air_txn_encode_op(&again, &v.ops[i]);
  assert_null(air_txn_finish(&again));
  assert_words(again.words, again.n_words, want, n_want);
  air_txn_free(&again);
  air_txn_view_free(&k_a, &v);
  free(w);
}

/* BACKENDS.md §4.3's worked example: 7 ops, 220 bytes. */
static void test_worked_example(void** state) {
  (void)state;
  air_txn_t t;
  air_txn_init(&t, &k_a, k_npu1);
  uint32_t a;
  assert_true(air_npu_tile_addr(3, 4, 0xDEF, &a));
  air_txn_write32(&t, a, 0x42);
  air_txn_write32(&t, 0xABC00DEF, 0x314);
  uint32_t data[8] = {100, 101, 102, 103, 104, 105, 106, 107};
  air_txn_blockwrite(&t, 0, 0, 0x12345679, data, 8);
  assert_true(air_npu_tile_addr(1, 1, 100, &a));
  air_txn_blockwrite(&t, 1, 1, a, data, 8);
  assert_true(air_npu_tile_addr(2, 3, 0x567A, &a));
  air_txn_maskwrite32(&t, a, 0x1001, 0xF00FF00F);
  air_txn_sync(&t, 3, 4, 1, 5, 1, 2);
  air_txn_load_pdi(&t, 2, 1024, 0xabc12345678ull);
  static const uint32_t want[] = {
      0x06030100, 0x00000104, 7, 0xDC,
      0, 0, 0x06400DEF, 0, 0x42, 0x18,
      0, 0, 0xABC00DEF, 0, 0x314, 0x18,
      1, 0, 0x12345679, 0x30, 100, 101, 102, 103, 104, 105, 106, 107,
      1, 0x101, 0x02100064, 0x30, 100, 101, 102, 103, 104, 105, 106, 107,
      3, 0, 0x0430567A, 0, 0x1001, 0xF00FF00F, 0x1C,
      0x80, 0x10, 0x00030401, 0x05010200,
      0x00020008, 0x400, 0x12345678, 0xABC,
  };
  check_stream(&t, want, sizeof want / 4);
}

static void test_headers(void** state) {
  (void)state;
  air_txn_t t;
  air_npu_device_t dv;
  const air_npu_device_t* d = &dv;
  assert_true(air_npu_device_find("npu2_1col", 9, &dv));
  air_txn_init(&t, &k_a, air_npu_device_geom(d));
  static const uint32_t empty[] = {0x06040100, 0x00000101, 0, 0x10};
  check_stream(&t, empty, 4);
  assert_true(air_npu_device_find("npu2", 4, &dv));
  air_txn_init(&t, &k_a, air_npu_device_geom(d));
  assert_null(air_txn_finish(&t));
  assert_int_equal(t.words[0], 0x06040100);
  assert_int_equal(t.words[1], 0x00000108);
  air_txn_free(&t);
  assert_int_equal(dv.arch, AIR_NPU_AIE2P);
  assert_int_equal(dv.max_burst_code, 3);
  assert_true(air_npu_device_find("npu1_4col", 9, &dv)); /* older trees' name for npu1 */
  assert_string_equal(dv.name, "npu1");
  assert_int_equal(dv.cols, 4);
  assert_int_equal(dv.rows, 6);
  assert_int_equal(dv.dev_gen, 3);
  assert_int_equal(dv.max_burst_code, 2);
  assert_true(air_npu_device_find("npu1_3col", 9, &dv));
  assert_int_equal(dv.cols, 3);
  assert_true(air_npu_device_find("npu2_7col", 9, &dv));
  assert_int_equal(dv.cols, 7);
  assert_int_equal(dv.dev_gen, 4);
  assert_false(air_npu_device_find("npu3", 4, &dv));
  assert_false(air_npu_device_find("npu1_4", 6, &dv)); /* a prefix is not a name */
  assert_false(air_npu_device_find("xcvc1902", 8, &dv)); /* an AIE array, not a Ryzen AI NPU */
  char names[256];
  air_npu_device_names(names, sizeof names);
  assert_non_null(strstr(names, "npu1, npu1_1col"));
  assert_non_null(strstr(names, "npu2_7col"));
  assert_null(strstr(names, "xcvc1902"));
  char small[8];
  air_npu_device_names(small, sizeof small); /* truncated, still terminated */
  assert_true(strlen(small) < sizeof small);
}

/* Every field of every op at its largest value, then the smallest. */
static void test_field_limits(void** state) {
  (void)state;
  air_txn_t t;
  air_txn_init(&t, &k_a, (air_txn_geom_t){255, 255, 255, 255});
  air_txn_write32(&t, 0xFFFFFFFF, 0xFFFFFFFF);
  air_txn_maskwrite32(&t, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
  uint32_t one = 0xFFFFFFFF;
  air_txn_blockwrite(&t, 255, 255, 0xFFFFFFFF, &one, 1);
  air_txn_sync(&t, 255, 255, 255, 255, 255, 255);
  air_txn_ddr_patch(&t, UINT64_MAX, UINT64_MAX, UINT64_MAX);
  air_txn_load_pdi(&t, 0xFFFF, 0xFFFFFFFF, UINT64_MAX);
  air_txn_preempt(&t, 255);
  uint32_t regs[3] = {0xFFFFFFFF, 0, 0x0201D204};
  air_txn_read_regs(&t, regs, 3);
  air_txn_sync(&t, 0, 0, 0, 0, 0, 0);
  air_txn_preempt(&t, 0);
  static const uint32_t want[] = {
      0xFFFF0100, 0x0000FFFF, 10, 54 * 4,
      0, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 24,
      3, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0xFFFFFFFF, 28,
      1, 0xFFFF, 0xFFFFFFFF, 20, 0xFFFFFFFF,
      0x80, 16, 0x00FFFFFF, 0xFFFFFF00,
      0x81, 48, 0, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
      0xFFFF0008, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
      0xFF06,
      0x82, 24, 3, 0xFFFFFFFF, 0, 0x0201D204,
      0x80, 16, 0, 0,
      6,
  };
  check_stream(&t, want, sizeof want / 4);
}

/* The 0x80000000 fold of arg_plus: arguments >= 5 only, and only when asked. */
static void test_patch_fold(void** state) {
  (void)state;
  assert_int_equal(air_txn_patch_arg_plus(4, 0x80, true), 0x80);
  assert_int_equal(air_txn_patch_arg_plus(5, 0x80, true), 0x80000080);
  assert_int_equal(air_txn_patch_arg_plus(9, 0, true), 0x80000000);
  assert_int_equal(air_txn_patch_arg_plus(5, 0x80, false), 0x80);
  air_txn_t t;
  air_txn_init(&t, &k_a, k_npu1);
  air_txn_ddr_patch(&t, 0x1D004, 5, air_txn_patch_arg_plus(5, 16, true));
  static const uint32_t want[] = {0x06030100, 0x104, 1, 64, 0x81, 48, 0, 0, 0, 0,
                                  0x1D004, 0, 5, 0, 0x80000010, 0};
  check_stream(&t, want, sizeof want / 4);
}

static void expect_bad(const uint32_t* w, size_t n, const char* needle) {
  air_txn_view_t v;
  air_status_t s = air_txn_decode(&k_a, w, n, "bad.bin", &v);
  assert_non_null(s);
  assert_int_equal(air_status_code(s), AIR_STATUS_DATA_LOSS);
  const char* msg = air_status_message(s);
  if (!strstr(msg, needle)) print_error("message '%s' lacks '%s'\n", msg, needle);
  assert_non_null(strstr(msg, needle));
  assert_non_null(strstr(msg, "bad.bin"));
  assert_null(v.ops);
  air_status_free(s);
}

static void test_decoder_refusals(void** state) {
  (void)state;
  /* A valid stream with one op of each kind. */
  air_txn_t t;
  air_txn_init(&t, &k_a, k_npu1);
  uint32_t one[2] = {7, 8};
  air_txn_write32(&t, 1, 2);
  air_txn_maskwrite32(&t, 1, 2, 3);
  air_txn_blockwrite(&t, 0, 0, 4, one, 2);
  air_txn_sync(&t, 1, 0, 0, 1, 1, 1);
  air_txn_ddr_patch(&t, 0x1D004, 0, 0);
  air_txn_load_pdi(&t, 1, 2, 3);
  air_txn_preempt(&t, 1);
  air_txn_read_regs(&t, one, 2);
  assert_null(air_txn_finish(&t));
  size_t n;
  uint32_t* w = air_txn_take(&t, &n);
  /* Every prefix is refused; none crashes or reads past its end. */
  for (size_t len = 0; len < n; ++len) {
    uint32_t* p = malloc((len ? len : 1) * 4);
    memcpy(p, w, len * 4);
    air_txn_view_t v;
    air_status_t s = air_txn_decode(&k_a, p, len, "prefix", &v);
    assert_non_null(s);
    assert_int_equal(air_status_code(s), AIR_STATUS_DATA_LOSS);
    air_status_free(s);
    /* Also with the header's size made to match: then an op is cut short. */
    if (len >= 4) {
      p[3] = (uint32_t)len * 4;
      s = air_txn_decode(&k_a, p, len, "prefix", &v);
      if (len < n) {
        assert_non_null(s);
        air_status_free(s);
      }
    }
    free(p);
  }
  uint32_t c[64];
  memcpy(c, w, n * 4);
#define MUT(idx, val, needle)              \
  do {                                     \
    uint32_t saved = c[idx];               \
    c[idx] = (val);                        \
    expect_bad(c, n, needle);              \
    c[idx] = saved;                        \
  } while (0)
  MUT(0, 0x06030000, "word 0: not a TXN 0.1 header");
  MUT(0, 0x06030101, "word 0");
  MUT(1, 0x00010104, "word 1");
  MUT(2, 9, "word 2");
  MUT(2, 7, "word 44: 5 words follow"); /* one op fewer: words left over */
  MUT(3, (uint32_t)n * 4 + 4, "word 3");
  MUT(4, 0x42, "word 4: unknown opcode 0x42");
  MUT(4, 0x05, "word 4: opcode 0x05 (noop) is not supported");
  MUT(5, 1, "word 5 (write32 op at word 4): the reserved word");
  MUT(7, 1, "word 7 (write32 op at word 4): the high address word");
  MUT(9, 28, "word 9 (write32 op at word 4): the op size");
  MUT(16, 24, "word 16 (maskwrite32 op at word 10): the op size");
  MUT(18, 0x10000, "word 18 (blockwrite op at word 17)");
  MUT(20, 16, "word 20 (blockwrite op at word 17): size");
  MUT(20, 0x1A, "word 20 (blockwrite op at word 17): size");
  MUT(24, 20, "word 24 (sync op at word 23): the op size");
  MUT(25, 0x01000000, "word 25 (sync op at word 23): bits 24-31");
  MUT(26, 0x01010101, "word 26 (sync op at word 23): bits 0-7");
  MUT(29, 1, "word 29 (address_patch op at word 27): a reserved word");
  MUT(32, 1, "word 32 (address_patch op at word 27): the action");
  MUT(39, 0x0108, "word 39 (load_pdi op)");
  MUT(43, 0x10106, "word 43 (preempt op)");
  MUT(45, 0x13, "word 45 (read_regs op at word 44): size");
  MUT(45, 24, "word 44: read_regs op needs 6 words, the stream ends after 5 (truncated)");
  MUT(46, 3, "word 46 (read_regs op at word 44): the register count");
  expect_bad(c, 3, "the stream has 3 words");
  free(w);
}

static void test_read_file(void** state) {
  (void)state;
  const char hex[] = "06030100\n# a comment\n0x00000104 // trailing\n00000000\n00000010\n";
  uint32_t* w;
  size_t n;
  assert_null(air_txn_read_file_bytes(&k_a, hex, sizeof hex - 1, "x.txt", &w, &n));
  static const uint32_t want[] = {0x06030100, 0x104, 0, 0x10};
  assert_words(w, n, want, 4);
  free(w);
  const unsigned char bin[] = {0, 1, 3, 6, 4, 1, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
  assert_null(air_txn_read_file_bytes(&k_a, bin, sizeof bin, "x.bin", &w, &n));
  assert_words(w, n, want, 4);
  free(w);
  air_status_t s = air_txn_read_file_bytes(&k_a, bin, 15, "x.bin", &w, &n);
  assert_non_null(strstr(air_status_message(s), "multiple of 4"));
  air_status_free(s);
  const char bad[] = "06030100\n123456789\n";
  s = air_txn_read_file_bytes(&k_a, bad, sizeof bad - 1, "x.txt", &w, &n);
  assert_non_null(strstr(air_status_message(s), "x.txt:2:"));
  air_status_free(s);
}

/*--- buffer descriptors ------------------------------------------------------------*/

/* The model of "npu1" or "npu2", filled from the target table on each call (one
 * slot per name, so two calls in one expression do not overwrite each other). */
static const air_npu_device_t* dev(const char* name) {
  static air_npu_device_t models[2];
  air_npu_device_t* m = &models[strcmp(name, "npu1") == 0 ? 0 : 1];
  if (!air_npu_device_find(name, strlen(name), m)) fail_msg("no NPU model %s", name);
  return m;
}

/* NPU-DMA.md §12: the shim BD of a 64x64 i32 tile column. */
static void test_nd_worked_example(void** state) {
  (void)state;
  air_npu_nd_t nd = {{0, 0, 0, 32}, {1, 1, 64, 32}, {0, 0, 64, 1}, 32};
  air_npu_bd_t bd;
  uint64_t off;
  uint32_t rep;
  air_npu_why_t why;
  assert_true(air_npu_nd_to_bd(&nd, &bd, &off, &rep, why));
  assert_int_equal(off, 128);
  assert_int_equal(rep, 0);
  bd.bd_id = 1;
  uint32_t w[8];
  assert_true(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  static const uint32_t want[] = {0x800, 0, 0, 0x02000000, 0x8400003F, 0x02000000, 0, 0x02000000};
  assert_words(w, 8, want, 8);
  /* npu2's default burst is code 3. */
  assert_true(air_npu_bd_encode(dev("npu2"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_int_equal(w[4], 0xC400003F);
}

static void test_nd_rules(void** state) {
  (void)state;
  air_npu_bd_t bd;
  uint64_t off;
  uint32_t rep;
  air_npu_why_t why;
  /* Linear: a contiguous row-major scan folds to length only. */
  air_npu_nd_t lin = {{0, 0, 1, 0}, {1, 2, 8, 16}, {0, 128, 16, 1}, 32};
  assert_true(air_npu_nd_to_bd(&lin, &bd, &off, &rep, why));
  assert_int_equal(bd.buffer_length, 256);
  assert_int_equal(bd.d0_size | bd.d1_size | bd.d0_stride | bd.d1_stride | bd.d2_stride, 0);
  assert_int_equal(off, 64);
  /* Pure repeat: 4 runs, no iteration stepping. */
  air_npu_nd_t rpt = {{0, 0, 0, 0}, {4, 1, 1, 64}, {0, 0, 0, 1}, 32};
  assert_true(air_npu_nd_to_bd(&rpt, &bd, &off, &rep, why));
  assert_int_equal(rep, 3);
  assert_int_equal(bd.iteration_size, 0);
  /* Iterations with a stride: the BD steps, and the push repeats. */
  air_npu_nd_t it = {{0, 0, 0, 0}, {3, 1, 4, 8}, {64, 0, 16, 1}, 32};
  assert_true(air_npu_nd_to_bd(&it, &bd, &off, &rep, why));
  assert_int_equal(rep, 2);
  assert_int_equal(bd.iteration_size, 2);
  assert_int_equal(bd.iteration_stride, 63);
  assert_int_equal(bd.d0_size, 8);
  assert_int_equal(bd.d1_size, 4);
  assert_int_equal(bd.d1_stride, 15);
  /* 16-bit elements: the d0 wrap counts words. */
  air_npu_nd_t h = {{0, 0, 0, 2}, {1, 1, 4, 32}, {0, 0, 64, 1}, 16};
  assert_true(air_npu_nd_to_bd(&h, &bd, &off, &rep, why));
  assert_int_equal(bd.d0_size, 16);
  assert_int_equal(bd.d1_stride, 31);
  assert_int_equal(off, 4);
  /* Refusals. */
  static const struct {
    air_npu_nd_t nd;
    const char* needle;
  } bad[] = {
      {{{0, 0, 0, 0}, {1, 1, 1, 0}, {0, 0, 0, 1}, 32}, "size 0"},
      {{{0, 0, 0, 1}, {1, 1, 1, 4}, {0, 0, 0, 1}, 8}, "not a multiple of 4 bytes"},
      {{{0, 0, 0, 0}, {1, 1, 1, 3}, {0, 0, 0, 1}, 8}, "whole number of 32-bit words"},
      {{{0, 0, 0, 0}, {1, 1, 4, 8}, {0, 0, 0, 1}, 32}, "stride 0"},
      {{{0, 0, 0, 0}, {1, 1, 2, 1024}, {0, 0, 2048, 1}, 32}, "1023"},
      {{{0, 0, 0, 0}, {1, 1, 1024, 2}, {0, 0, 4, 1}, 32}, "1023"},
      {{{0, 0, 0, 0}, {257, 1, 1, 4}, {0, 0, 0, 1}, 32}, "256 runs"},
      {{{0, 0, 0, 0}, {65, 1, 1, 4}, {8, 0, 0, 1}, 32}, "64 iterations"},
      {{{0, 0, 0, 0}, {1, 1, 2, 4}, {0, 0, 0x100001, 1}, 32}, "2^20"},
      {{{0, 0, 0, 0}, {1, 1, 1, 4}, {0, 0, 0, 1}, 64}, "element width 64"},
      {{{0, 0, 0, 0}, {1, 1, 2, 4}, {0, 0, 3, 1}, 8}, "stride 3 of dimension 2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    assert_false(air_npu_nd_to_bd(&bad[i].nd, &bd, &off, &rep, why));
    if (!strstr(why, bad[i].needle)) print_error("case %zu: '%s' lacks '%s'\n", i, why, bad[i].needle);
    assert_non_null(strstr(why, bad[i].needle));
  }
}

typedef struct field_t {
  const char* name;
  size_t off;
  uint32_t max; /* largest value that fits; max + 1 must fail */
} field_t;

#define FLD(n, m) {#n, offsetof(air_npu_bd_t, n), m}

static void check_limits(const air_npu_device_t* d, air_npu_tile_t kind, const field_t* f,
                         size_t nf) {
  for (size_t i = 0; i < nf; ++i) {
    air_npu_bd_t bd;
    memset(&bd, 0, sizeof bd);
    uint32_t w[8], w0[8];
    air_npu_why_t why;
    assert_true(air_npu_bd_encode(d, kind, &bd, w0, why));
    memcpy((char*)&bd + f[i].off, &f[i].max, 4);
    if (!air_npu_bd_encode(d, kind, &bd, w, why)) print_error("%s at max: %s\n", f[i].name, why);
    assert_true(air_npu_bd_encode(d, kind, &bd, w, why));
    /* The field's bits are set in exactly one word: nothing was dropped. */
    int changed = 0;
    for (int k = 0; k < 8; ++k) changed += w[k] != w0[k];
    if (f[i].off != offsetof(air_npu_bd_t, bd_id)) assert_true(changed >= 1);
    uint32_t over = f[i].max + 1;
    memcpy((char*)&bd + f[i].off, &over, 4);
    assert_false(air_npu_bd_encode(d, kind, &bd, w, why));
    if (!strstr(why, f[i].name)) print_error("'%s' lacks '%s'\n", why, f[i].name);
    assert_non_null(strstr(why, f[i].name));
  }
}

static void test_bd_limits(void** state) {
  (void)state;
  static const field_t shim[] = {
      FLD(bd_id, 15), FLD(d0_size, 1023), FLD(d1_size, 1023), FLD(d0_stride, 0xFFFFF),
      FLD(d1_stride, 0xFFFFF), FLD(d2_stride, 0xFFFFF), FLD(iteration_stride, 0xFFFFF),
      FLD(iteration_size, 63), FLD(iteration_current, 63), FLD(packet_id, 31),
      FLD(packet_type, 7), FLD(out_of_order_id, 63), FLD(enable_packet, 1), FLD(next_bd, 15),
      FLD(use_next_bd, 1), FLD(valid_bd, 1), FLD(lock_acq_enable, 1), FLD(lock_acq_id, 15),
      FLD(lock_rel_id, 15),
  };
  static const field_t mem[] = {
      FLD(bd_id, 47), FLD(buffer_length, 0x1FFFF), FLD(buffer_offset, 0x7FFFF),
      FLD(d0_size, 1023), FLD(d1_size, 1023), FLD(d2_size, 1023), FLD(d0_stride, 0x1FFFF),
      FLD(d1_stride, 0x1FFFF), FLD(d2_stride, 0x1FFFF), FLD(iteration_stride, 0x1FFFF),
      FLD(iteration_size, 63), FLD(iteration_current, 63), FLD(d0_zero_before, 63),
      FLD(d1_zero_before, 31), FLD(d2_zero_before, 15), FLD(d0_zero_after, 63),
      FLD(d1_zero_after, 31), FLD(d2_zero_after, 15), FLD(packet_id, 31), FLD(packet_type, 7),
      FLD(next_bd, 47), FLD(lock_acq_id, 255), FLD(lock_rel_id, 255), FLD(out_of_order_id, 63),
  };
  static const field_t core[] = {
      FLD(bd_id, 15), FLD(buffer_length, 0x3FFF), FLD(d0_size, 255), FLD(d1_size, 255),
      FLD(d0_stride, 0x1FFF), FLD(d1_stride, 0x1FFF), FLD(d2_stride, 0x1FFF),
      FLD(iteration_stride, 0x1FFF), FLD(iteration_size, 63), FLD(lock_acq_id, 15),
      FLD(next_bd, 15),
  };
  check_limits(dev("npu1"), AIR_NPU_TILE_SHIM, shim, sizeof shim / sizeof shim[0]);
  check_limits(dev("npu2"), AIR_NPU_TILE_MEM, mem, sizeof mem / sizeof mem[0]);
  check_limits(dev("npu1"), AIR_NPU_TILE_CORE, core, sizeof core / sizeof core[0]);
}

static void test_bd_rules(void** state) {
  (void)state;
  air_npu_bd_t bd;
  uint32_t w[8];
  air_npu_why_t why;
  memset(&bd, 0, sizeof bd);
  bd.lock_acq_val = -64;
  bd.lock_rel_val = 63;
  assert_true(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_int_equal(w[7], 0x40u << 5 | 0x3Fu << 18);
  bd.lock_acq_val = -65;
  assert_false(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_non_null(strstr(why, "lock_acq_val"));
  memset(&bd, 0, sizeof bd);
  bd.buffer_offset = 6;
  assert_false(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_non_null(strstr(why, "multiple of 4"));
  memset(&bd, 0, sizeof bd);
  bd.d2_size = 1;
  assert_false(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_non_null(strstr(why, "d2_size"));
  memset(&bd, 0, sizeof bd);
  bd.d0_zero_before = 1;
  assert_false(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_non_null(strstr(why, "zero-pad"));
  memset(&bd, 0, sizeof bd);
  bd.burst_length = 512;
  assert_false(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_non_null(strstr(why, "burst_length 512"));
  assert_true(air_npu_bd_encode(dev("npu2"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_int_equal(w[4] >> 30, 3);
  bd.burst_length = 64;
  assert_true(air_npu_bd_encode(dev("npu2"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_int_equal(w[4] >> 30, 0);
  bd.burst_length = 100;
  assert_false(air_npu_bd_encode(dev("npu2"), AIR_NPU_TILE_SHIM, &bd, w, why));
  assert_false(air_npu_bd_encode(dev("npu2"), AIR_NPU_TILE_MEM, &bd, w, why));
  /* Core BD: offset in words, length in the low 14 bits. */
  memset(&bd, 0, sizeof bd);
  bd.buffer_offset = 0x400;
  bd.buffer_length = 16;
  bd.d0_size = 3;
  bd.d1_size = 2;
  bd.d2_stride = 5;
  assert_true(air_npu_bd_encode(dev("npu1"), AIR_NPU_TILE_CORE, &bd, w, why));
  assert_int_equal(w[0], 0x100u << 14 | 16);
  assert_int_equal(w[3], 2u << 21 | 3u << 13 | 5);
  /* Queue words: BD id mask per tile kind, token bit, repeat. */
  assert_int_equal(air_npu_queue_word(47, 255, true, AIR_NPU_TILE_MEM), 0x80FF002F);
  assert_int_equal(air_npu_queue_word(15, 0, false, AIR_NPU_TILE_SHIM), 0xF);
  assert_int_equal(air_npu_channel_ctrl(AIR_NPU_TILE_SHIM, AIR_NPU_MM2S, 1) + 4, 0x1D21C);
  assert_int_equal(air_npu_channel_ctrl(AIR_NPU_TILE_SHIM, AIR_NPU_S2MM, 1) + 4, 0x1D20C);
  assert_int_equal(air_npu_channel_ctrl(AIR_NPU_TILE_MEM, AIR_NPU_MM2S, 5), 0xA0658);
  uint32_t a;
  assert_false(air_npu_tile_addr(0, 0, 0x100000, &a));
  assert_false(air_npu_tile_addr(128, 0, 0, &a));
}

static void test_listing(void** state) {
  (void)state;
  air_txn_t t;
  air_txn_init(&t, &k_a, k_npu1);
  air_txn_write32(&t, 0x0201D214, 0x80000001);
  air_txn_ddr_patch(&t, 0x0201D024, 6, 0x80000080);
  assert_null(air_txn_finish(&t));
  air_txn_view_t v;
  assert_null(air_txn_decode(&k_a, t.words, t.n_words, "l", &v));
  char* text;
  size_t len;
  assert_null(air_txn_list(&k_a, &v, &text, &len));
  assert_non_null(strstr(text, "npu1, AIE2"));
  assert_non_null(strstr(text, "shim MM2S0 task queue"));
  assert_non_null(strstr(text, "arg 6 plus 0x80000080"));
  assert_non_null(strstr(text, "shim BD 1 word 1"));
  free(text);
  air_txn_view_free(&k_a, &v);
  air_txn_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_example), cmocka_unit_test(test_headers),
      cmocka_unit_test(test_field_limits),   cmocka_unit_test(test_patch_fold),
      cmocka_unit_test(test_decoder_refusals), cmocka_unit_test(test_read_file),
      cmocka_unit_test(test_nd_worked_example), cmocka_unit_test(test_nd_rules),
      cmocka_unit_test(test_bd_limits),      cmocka_unit_test(test_bd_rules),
      cmocka_unit_test(test_listing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

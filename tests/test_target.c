/* test_target.c - every device of the target table (runtime/target) against the
 * facts of mlir-aie's target models as DEVICES.md restates them, `airc targets`,
 * the verifier's names, and per device what the scheduler does with them: core
 * rows and columns, L1 less the stack, L2 on mem tiles (one or two rows) or off
 * the array, shim columns with and without a DMA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "air/program.h"
#include "runtime/target/target.h"
#include "scheduler/compile.h"
#include "scheduler/place.h"
#include "scheduler/resources.h"
#include "scheduler/schedule.h"
#include "test_util.h"

int airc_cmd_targets(int argc, char** argv);

#define KIB 1024u
#define COLS(...) ((const uint32_t[]){__VA_ARGS__})

static const air_target_t* target(const char* name) {
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, name, &t);
  if (s) fail_msg("%s", air_status_message(s));
  return t;
}

/* The facts of one AIE device. */
typedef struct device_t {
  const char* name;
  air_target_arch_t arch;
  uint32_t cols, core_rows, first_row, memtile_rows;
  const uint32_t* shim; /* shim DMA columns, NULL = every column */
  uint32_t n_shim;
  uint32_t flags;
} device_t;

#define V AIR_TARGET_F_VIRTUALIZED
#define N AIR_TARGET_F_NPU
static const device_t k_devices[] = {
    {"xcvc1902", AIR_ARCH_AIE1, 50, 8, 1, 0,
     COLS(2, 3, 6, 7, 10, 11, 18, 19, 26, 27, 34, 35, 42, 43, 46, 47), 16, 0},
    {"xcve2302", AIR_ARCH_AIE2, 17, 2, 2, 1, COLS(2, 3, 6, 7, 10, 11), 6, 0},
    {"xcve2802", AIR_ARCH_AIE2, 38, 8, 3, 2,
     COLS(2, 3, 6, 7, 14, 15, 22, 23, 30, 31, 34, 35), 12, 0},
    {"npu1", AIR_ARCH_AIE2, 4, 4, 2, 1, NULL, 0, N | V},
    {"npu1_1col", AIR_ARCH_AIE2, 1, 4, 2, 1, NULL, 0, N | V},
    {"npu1_2col", AIR_ARCH_AIE2, 2, 4, 2, 1, NULL, 0, N | V},
    {"npu1_3col", AIR_ARCH_AIE2, 3, 4, 2, 1, NULL, 0, N | V},
    {"npu2", AIR_ARCH_AIE2P, 8, 4, 2, 1, NULL, 0, N},
    {"npu2_1col", AIR_ARCH_AIE2P, 1, 4, 2, 1, NULL, 0, N | V},
    {"npu2_2col", AIR_ARCH_AIE2P, 2, 4, 2, 1, NULL, 0, N | V},
    {"npu2_3col", AIR_ARCH_AIE2P, 3, 4, 2, 1, NULL, 0, N | V},
    {"npu2_4col", AIR_ARCH_AIE2P, 4, 4, 2, 1, NULL, 0, N | V},
    {"npu2_5col", AIR_ARCH_AIE2P, 5, 4, 2, 1, NULL, 0, N | V},
    {"npu2_6col", AIR_ARCH_AIE2P, 6, 4, 2, 1, NULL, 0, N | V},
    {"npu2_7col", AIR_ARCH_AIE2P, 7, 4, 2, 1, NULL, 0, N | V},
};
#undef V
#undef N
enum { N_DEVICES = sizeof k_devices / sizeof k_devices[0] };

static void test_device_facts(void** state) {
  (void)state;
  for (uint32_t i = 0; i < N_DEVICES; ++i) {
    const device_t* d = &k_devices[i];
    const air_target_t* t = target(d->name);
    print_message("%s\n", d->name);
    assert_string_equal(t->name, d->name);
    assert_int_equal(t->kind, AIR_TARGET_NPU);
    assert_int_equal(t->arch, d->arch);
    assert_int_equal(t->flags, d->flags);
    assert_int_equal(t->cols, d->cols);
    assert_int_equal(t->rows, d->core_rows);
    assert_int_equal(t->first_row, d->first_row);
    assert_int_equal(t->memtile_rows, d->memtile_rows);
    /* Shim row, mem-tile rows, core rows: the device's rows. */
    assert_int_equal(t->first_row, 1 + d->memtile_rows);
    bool aie1 = d->arch == AIR_ARCH_AIE1;
    assert_int_equal(t->l1_bytes, aie1 ? 32 * KIB : 64 * KIB);
    assert_int_equal(t->l1_stack, 1024);
    assert_int_equal(t->program_bytes, 16 * KIB);
    assert_int_equal(t->dma_in, 2);
    assert_int_equal(t->dma_out, 2);
    assert_int_equal(t->shim_dma_in, 2);
    assert_int_equal(t->shim_dma_out, 2);
    assert_int_equal(t->core_bds, 16);
    assert_int_equal(t->core_locks, 16);
    assert_int_equal(t->shim_bds, 16);
    assert_int_equal(t->shim_locks, 16);
    assert_int_equal(t->lock_max, aie1 ? 1 : 63);
    assert_int_equal(t->bd_dims, aie1 ? 1 : 4);
    if (d->memtile_rows) {
      assert_int_equal(t->l2_units, d->cols * d->memtile_rows);
      assert_int_equal(t->l2_bytes, 512 * KIB);
      assert_int_equal(t->l2_dma_in, 6);
      assert_int_equal(t->l2_dma_out, 6);
      assert_int_equal(t->l2_bds, 48);
      assert_int_equal(t->l2_locks, 64);
      assert_true(air_target_l2_on_array(t));
    } else {
      assert_int_equal(t->l2_units, 0);
      assert_int_equal(air_target_l2_total(t), 0);
      assert_false(air_target_l2_on_array(t));
      assert_int_equal(air_target_memtiles_in(t, 0, 4), 0);
    }
    uint32_t n_shim = d->shim ? d->n_shim : d->cols;
    assert_int_equal(air_target_shim_dma_count(t), n_shim);
    for (uint32_t c = 0; c < d->cols; ++c) {
      bool want = !d->shim;
      for (uint32_t k = 0; d->shim && k < d->n_shim; ++k) want |= d->shim[k] == c;
      assert_int_equal(air_target_shim_has_dma(t, c), want);
    }
    assert_false(air_target_shim_has_dma(t, d->cols));
  }
  /* npu1_4col is npu1 under its old name; the table keys by name. */
  assert_ptr_equal(target("npu1_4col"), target("npu1"));
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  assert_int_equal(n, N_DEVICES + 8); /* + mi300x, 6 AMDGPU processors, cpu */
  /* GPU rows: the processor kernels are built for, its wave size, 64 KiB LDS. */
  static const struct { const char* name; uint32_t wave, cus; } k_gpus[] = {
      {"mi300x", 64, 8 * 38}, {"gfx908", 64, 120}, {"gfx90a", 64, 110}, {"gfx940", 64, 6 * 38},
      {"gfx942", 64, 8 * 38}, {"gfx1030", 32, 80}, {"gfx1100", 32, 96}};
  for (size_t i = 0; i < sizeof k_gpus / sizeof *k_gpus; ++i) {
    const air_target_t* g = target(k_gpus[i].name);
    assert_int_equal(g->kind, AIR_TARGET_GPU);
    assert_non_null(g->gfx);
    assert_int_equal(g->wave_size, k_gpus[i].wave);
    assert_int_equal(g->cols * g->rows, k_gpus[i].cus);
    assert_int_equal(g->l1_bytes, 64 * KIB);
    assert_true(g->wave_slots >= 32);
  }
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < i; ++j) assert_string_not_equal(rows[i].name, rows[j].name);
  /* Mem tiles of a span: both rows on xcve2802; clipped to the device. */
  assert_int_equal(air_target_memtiles_in(target("xcve2802"), 0, 3), 6);
  assert_int_equal(air_target_memtiles_in(target("npu1"), 2, 4), 2);
  assert_int_equal(air_target_memtiles_in(target("npu1"), 0, 0), 4);
}

/* Runs `airc targets ARGS` in process with stdout captured. */
static char* run_targets(char* arg) {
  char path[] = "/tmp/test_target_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  char* argv[] = {"targets", arg, NULL};
  int rc = airc_cmd_targets(arg ? 2 : 1, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  assert_int_equal(rc, 0);
  size_t len;
  char* text = test_read_file(path, &len);
  unlink(path);
  assert_non_null(text);
  return text;
}

static void test_airc_targets(void** state) {
  (void)state;
  char* text = run_targets(NULL);
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  for (uint32_t i = 0; i < n; ++i) {
    char line[64];
    snprintf(line, sizeof line, "\n%s ", rows[i].name);
    if (!strstr(text, line)) fail_msg("%s missing from:\n%s", rows[i].name, text);
  }
  assert_non_null(strstr(text, "2,3,6,7,10,11,18,19,26,27,34,35,42,43,46,47"));
  assert_non_null(strstr(text, "(npu1_4col)"));
  assert_non_null(strstr(text, "off the array"));
  free(text);
  text = run_targets("--json");
  uint32_t lines = 0;
  for (const char* c = text; *c; ++c) lines += *c == '\n';
  assert_int_equal(lines, n);
  assert_non_null(strstr(text, "{\"name\":\"xcve2302\",\"alias\":null,\"kind\":\"aie\","
                               "\"arch\":\"AIE2\",\"cols\":17,\"rows\":2,\"first_row\":2,"
                               "\"memtile_rows\":1,"));
  assert_non_null(strstr(text, "\"shim_dma_columns\":[2,3,6,7,10,11]}"));
  free(text);
  char* argv[] = {"targets", "--bogus", NULL};
  assert_int_equal(airc_cmd_targets(2, argv), 2);
}

static air_program_t* parse(void** state, const char* text) {
  air_parse_options_t opts = {.filename = "dev.mlir"};
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(*state, text, strlen(text), &opts, &p);
  if (!s) s = air_program_verify(p, NULL, 0);
  if (s) fail_msg("%s\n%s", air_status_message(s), text);
  return p;
}

/* Every name verifies; the verifier treats every AIE device as an NPU-class target. */
static void test_verify_names(void** state) {
  air_program_t* p = parse(state,
                           "air.channel @g [1] {channel_type = \"gpu_symmetric_heap\"}\n"
                           "func.func @f() {\n  return\n}\n");
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  for (uint32_t i = 0; i < n; ++i) {
    air_status_t s = air_program_verify(p, rows[i].name, 0);
    if (rows[i].kind == AIR_TARGET_NPU) {
      assert_non_null(s);
      assert_non_null(strstr(air_status_message(s), rows[i].name));
      assert_non_null(strstr(air_status_message(s), "gpu_symmetric_heap"));
      air_status_free(s);
    } else if (s) {
      fail_msg("%s: %s", rows[i].name, air_status_message(s));
    }
  }
  assert_null(air_program_verify(p, "mi300x", 0));
  air_status_t s = air_program_verify(p, "npu1_4col", 0);
  assert_non_null(s);
  air_status_free(s);
  s = air_program_verify(p, "npu3", 0);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(air_status_message(s), "npu2_7col"));
  air_status_free(s);
  air_program_destroy(p);
}

/* One segment with one nx x ny herd: `seg_attrs` / `herd_attrs` go in the
 * attribute dictionaries; the herd allocates l1 bytes per PE, the segment l2
 * bytes of L2, and the segment copies 256 floats L3 -> L2 once. */
static air_program_t* one_herd(void** state, uint32_t nx, uint32_t ny, const char* seg_attrs,
                               const char* herd_attrs, uint32_t l1, uint32_t l2) {
  char text[4096];
  snprintf(text, sizeof text,
           "func.func @f(%%arg0: memref<256xf32>) {\n"
           "  air.launch () in () args(%%a=%%arg0) : memref<256xf32> {\n"
           "    air.segment @seg args(%%s=%%a) : memref<256xf32> attributes {%s} {\n"
           "      %%c0 = arith.constant 0 : index\n"
           "      %%c1 = arith.constant 1 : index\n"
           "      %%c256 = arith.constant 256 : index\n"
           "      %%cx = arith.constant %u : index\n"
           "      %%cy = arith.constant %u : index\n"
           "      %%m = memref.alloc() : memref<%uxi8, 1>\n"
           "      %%n = memref.alloc() : memref<256xf32, 1>\n"
           "      air.dma_memcpy_nd (%%n[] [] [], %%s[%%c0] [%%c256] [%%c1]) : (memref<256xf32, 1>, "
           "memref<256xf32>)\n"
           "      air.herd @h tile (%%x, %%y) in (%%sx=%%cx, %%sy=%%cy) attributes {%s} {\n"
           "        %%b = memref.alloc() : memref<%uxi8, 2>\n"
           "        memref.dealloc %%b : memref<%uxi8, 2>\n"
           "      }\n"
           "      memref.dealloc %%m : memref<%uxi8, 1>\n"
           "      memref.dealloc %%n : memref<256xf32, 1>\n"
           "    }\n"
           "  }\n"
           "  return\n"
           "}\n",
           seg_attrs, nx, ny, l2, herd_attrs, l1, l1, l2);
  return parse(state, text);
}

/* NULL when the program fits `tname`, else the check's message (caller frees). */
static char* fits(air_program_t* p, const char* tname) {
  air_resources_t r;
  air_status_t s = air_resources_analyze(p, target(tname), &r);
  if (s) fail_msg("%s", air_status_message(s));
  s = air_resources_check(p, &r);
  air_resources_free(&r);
  if (!s) return NULL;
  char* msg = strdup(air_status_message(s));
  air_status_free(s);
  return msg;
}

static void expect_fit(air_program_t* p, const char* tname) {
  char* msg = fits(p, tname);
  if (msg) fail_msg("on %s: %s", tname, msg);
}

static void expect_misfit(air_program_t* p, const char* tname, const char* frag) {
  char* msg = fits(p, tname);
  if (!msg) fail_msg("fits %s", tname);
  if (!strstr(msg, frag)) fail_msg("'%s' not in: %s", frag, msg);
  free(msg);
}

/* Rows and columns per device: a herd as tall as the core rows fits, one taller
 * does not; a herd as wide as the columns fits. */
static void test_core_grid(void** state) {
  air_program_t* p = one_herd(state, 1, 8, "", "", 64, 64);
  expect_fit(p, "xcvc1902");
  expect_fit(p, "xcve2802");
  expect_misfit(p, "npu1", "herd @h needs 1x8 tiles; npu1 has 4 columns x 4 rows");
  expect_misfit(p, "xcve2302", "herd @h needs 1x8 tiles; xcve2302 has 17 columns x 2 rows");
  air_program_destroy(p);
  p = one_herd(state, 7, 4, "", "", 64, 64);
  expect_fit(p, "npu2_7col");
  expect_fit(p, "npu2");
  expect_misfit(p, "npu2_6col", "herd @h needs 28 tiles; npu2_6col has 24");
  expect_misfit(p, "npu1_3col", "herd @h needs 28 tiles; npu1_3col has 12");
  air_program_destroy(p);
  p = one_herd(state, 2, 1, "", "", 64, 64);
  expect_fit(p, "npu1_2col");
  expect_misfit(p, "npu1_1col", "herd @h needs 2x1 tiles; npu1_1col has 1 columns x 4 rows");
  air_program_destroy(p);
}

/* L1: 32 KiB on AIE1, 64 KiB after; each less the 1 KiB stack. */
static void test_l1_per_generation(void** state) {
  air_program_t* p = one_herd(state, 1, 1, "", "", 32 * KIB - 1024, 64);
  expect_fit(p, "xcvc1902");
  air_program_destroy(p);
  p = one_herd(state, 1, 1, "", "", 32 * KIB, 64);
  expect_misfit(p, "xcvc1902", "needs 32768 bytes of L1 per tile; xcvc1902 has 31744 (32768 "
                               "less the 1024-byte stack)");
  expect_fit(p, "npu1");
  expect_fit(p, "xcve2302");
  air_program_destroy(p);
  p = one_herd(state, 1, 1, "", "", 64 * KIB - 512, 64);
  expect_misfit(p, "npu2", "npu2 has 64512");
  air_program_destroy(p);
}

/* Finds the L2 arena of the compiled plan. */
static const air_memplan_arena_t* l2_arena(const air_schedule_t* sc) {
  for (uint32_t i = 0; i < sc->memplan.n_arenas; ++i)
    if (sc->memplan.arenas[i].space == AIR_MEMPLAN_L2) return &sc->memplan.arenas[i];
  fail_msg("no L2 arena");
  return NULL;
}

/* L2: mem tiles of the segment's columns (both rows on xcve2802), or off the
 * array on xcvc1902, where it has no limit and its DMA is the shim's. */
static void test_l2_per_device(void** state) {
  air_program_t* p = one_herd(state, 1, 1, "x_size = 1 : i64, y_size = 1 : i64", "", 64,
                              800 * KIB);
  air_schedule_t* sc = NULL;
  air_status_t s = air_schedule_compile(NULL, p, NULL, target("xcve2802"), &sc);
  if (s) fail_msg("%s", air_status_message(s));
  assert_int_equal(l2_arena(sc)->capacity, 2 * 512 * KIB); /* two mem-tile rows */
  air_schedule_free(sc);
  s = air_schedule_compile(NULL, p, NULL, target("npu1"), &sc);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "needs 820224 bytes of L2 after packing"));
  assert_non_null(strstr(air_status_message(s), "npu1 has 524288"));
  air_status_free(s);
  air_program_destroy(p);

  /* 64 MiB of L2 is more than any array holds: fine off the array. */
  p = one_herd(state, 1, 1, "", "", 64, 64u << 20);
  expect_misfit(p, "npu2", "segment @seg needs 67109888 bytes of L2; npu2 has 4194304");
  expect_fit(p, "xcvc1902");
  s = air_schedule_compile(NULL, p, NULL, target("xcvc1902"), &sc);
  if (s) fail_msg("%s", air_status_message(s));
  assert_int_equal(l2_arena(sc)->capacity, 0);
  assert_true(l2_arena(sc)->size >= (64u << 20));
  air_schedule_free(sc);
  /* The L3 -> L2 copy: a mem-tile S2MM and a shim MM2S with mem tiles; both
   * shim channels without. */
  air_resources_t r;
  assert_null(air_resources_analyze(p, target("xcvc1902"), &r));
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_SHIM][AIR_DMA_IN], 1);
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 1);
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 0);
  air_resources_free(&r);
  assert_null(air_resources_analyze(p, target("npu1"), &r));
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 1);
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 1);
  assert_int_equal(r.segments[0].per_instance.ch[AIR_DMA_SHIM][AIR_DMA_IN], 0);
  air_resources_free(&r);
  air_program_destroy(p);
}

static const air_place_t* find(const air_placement_t* pl, air_opkind_t kind) {
  for (uint32_t i = 0; i < pl->n_items; ++i)
    if (pl->items[i].op->kind == kind) return &pl->items[i];
  fail_msg("nothing placed");
  return NULL;
}

/* Places p on tname; NULL and *msg set when placement fails. */
static air_status_t place(air_program_t* p, const char* tname, air_placement_t* pl) {
  air_resources_t r;
  assert_null(air_resources_analyze(p, target(tname), &r));
  air_status_t s = air_resources_check(p, &r);
  if (!s) s = air_place(p, &r, pl);
  air_resources_free(&r);
  return s;
}

/* Pinned herds: x_loc/y_loc are physical tiles, so the row must be a core row of
 * the device, and an unpinned segment takes its place from its pinned herds. */
static void test_pins_per_device(void** state) {
  air_program_t* p = one_herd(state, 1, 1, "", "x_loc = 2 : i64, y_loc = 1 : i64", 64, 64);
  air_placement_t pl;
  assert_null(place(p, "xcvc1902", &pl)); /* row 1 is AIE1's first core row */
  const air_place_t* h = find(&pl, AIR_OP_HERD);
  assert_int_equal(h->x, 2);
  assert_int_equal(h->y, 1);
  assert_true(h->is_explicit);
  assert_true(find(&pl, AIR_OP_SEGMENT)->is_explicit);
  air_placement_free(&pl);
  air_status_t s = place(p, "npu1", &pl);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "row 1 is a mem-tile row"));
  air_status_free(s);
  air_program_destroy(p);

  p = one_herd(state, 2, 2, "", "x_loc = 5 : i64, y_loc = 3 : i64", 64, 64);
  assert_null(place(p, "xcve2802", &pl));
  h = find(&pl, AIR_OP_HERD);
  assert_int_equal(h->x, 5);
  assert_int_equal(h->y, 3);
  const air_place_t* sg = find(&pl, AIR_OP_SEGMENT);
  assert_int_equal(sg->x, 5);
  assert_int_equal(sg->y, 3);
  assert_int_equal(sg->w, 2);
  air_placement_free(&pl);
  s = place(p, "npu1", &pl); /* column 5 does not exist */
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "leaves npu1's cores"));
  air_status_free(s);
  air_program_destroy(p);

  /* A segment pin on a mem-tile row names the row's kind. */
  p = one_herd(state, 1, 1, "x_loc = 0 : i64, y_loc = 2 : i64", "", 64, 64);
  assert_null(place(p, "npu1", &pl));
  air_placement_free(&pl);
  s = place(p, "xcve2802", &pl);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "row y_loc is a mem-tile row"));
  air_status_free(s);
  air_program_destroy(p);
}

/* Shim DMA columns: a segment's L3 traffic goes to the nearest columns whose
 * shim tile has a DMA; the others (PL tiles) take none. */
static void test_shim_columns(void** state) {
  air_program_t* p = one_herd(state, 1, 1, "x_loc = 0 : i64, y_loc = 2 : i64", "", 64, 64);
  air_placement_t pl;
  assert_null(place(p, "xcve2302", &pl));
  assert_int_equal(find(&pl, AIR_OP_SEGMENT)->shim_cols, 1ull << 2); /* nearest to column 0 */
  air_placement_free(&pl);
  assert_null(place(p, "npu1", &pl));
  assert_int_equal(find(&pl, AIR_OP_SEGMENT)->shim_cols, 1ull << 0);
  air_placement_free(&pl);
  air_program_destroy(p);
  p = one_herd(state, 1, 1, "x_loc = 14 : i64, y_loc = 2 : i64", "", 64, 64);
  assert_null(place(p, "xcve2302", &pl));
  assert_int_equal(find(&pl, AIR_OP_SEGMENT)->shim_cols, 1ull << 11);
  air_placement_free(&pl);
  assert_null(place(p, "xcvc1902", &pl));
  assert_int_equal(find(&pl, AIR_OP_SEGMENT)->shim_cols, 1ull << 11); /* 11 and 18: 11 nearer */
  air_placement_free(&pl);
  air_program_destroy(p);

  /* 20 concurrent L3 reads from a segment: xcvc1902's 16 shim DMAs give 32,
   * xcve2302's 6 only 12, npu1's 4 only 8. */
  char text[8192];
  int len = snprintf(text, sizeof text,
                     "func.func @f(%%arg0: memref<256xf32>) {\n"
                     "  air.launch () in () args(%%a=%%arg0) : memref<256xf32> {\n"
                     "    air.segment @wide args(%%s=%%a) : memref<256xf32> {\n"
                     "      %%c0 = arith.constant 0 : index\n"
                     "      %%c1 = arith.constant 1 : index\n"
                     "      %%c20 = arith.constant 20 : index\n"
                     "      %%c256 = arith.constant 256 : index\n"
                     "      %%m = memref.alloc() : memref<256xf32, 1>\n"
                     "      %%t0 = air.wait_all async\n"
                     "      %%t = scf.parallel (%%i) = (%%c0) to (%%c20) step (%%c1) init (%%t0) "
                     "-> !air.token {\n"
                     "        %%d = air.dma_memcpy_nd async [%%t0] (%%m[] [] [], %%s[%%c0] "
                     "[%%c256] [%%c1]) : (memref<256xf32, 1>, memref<256xf32>)\n"
                     "        scf.reduce(%%d : !air.token) {\n"
                     "        ^bb0(%%l: !air.token, %%r: !air.token):\n"
                     "          %%w = air.wait_all async [%%l, %%r]\n"
                     "          scf.reduce.return %%w : !air.token\n"
                     "        }\n"
                     "      }\n"
                     "      air.wait_all [%%t]\n"
                     "      memref.dealloc %%m : memref<256xf32, 1>\n"
                     "    }\n"
                     "  }\n"
                     "  return\n"
                     "}\n");
  assert_true(len > 0 && (size_t)len < sizeof text);
  p = parse(state, text);
  expect_misfit(p, "xcve2302",
                "launch (unnamed) needs 20 outgoing shim DMA channels after sharing (segment "
                "@wide x20 on 0-19); xcve2302 has 6 shim tiles with a DMA, 12 channels");
  expect_misfit(p, "npu1", "npu1 has 4 shim tiles with a DMA, 8 channels");
  /* xcvc1902 has no mem tiles, so the L2 side is the shim's too: 20 in and 20
   * out of its 32 each way. */
  expect_fit(p, "xcvc1902");
  assert_null(place(p, "xcvc1902", &pl));
  uint64_t cols = find(&pl, AIR_OP_SEGMENT)->shim_cols;
  assert_int_equal(__builtin_popcountll(cols), 10); /* 20 channels, 2 per column */
  for (uint32_t c = 0; c < 50; ++c)
    if (cols >> c & 1u) assert_true(air_target_shim_has_dma(target("xcvc1902"), c));
  air_placement_free(&pl);
  air_program_destroy(p);
}

/* The alias compiles as npu1 and the schedule names the canonical row. */
static void test_alias_compiles(void** state) {
  air_program_t* p = one_herd(state, 2, 2, "", "", 64, 64);
  air_schedule_t* sc = NULL;
  air_status_t s = air_schedule_compile(NULL, p, NULL, target("npu1_4col"), &sc);
  if (s) fail_msg("%s", air_status_message(s));
  assert_string_equal(sc->target, "npu1");
  air_schedule_free(sc);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_facts),     cmocka_unit_test(test_airc_targets),
      cmocka_unit_test(test_verify_names),     cmocka_unit_test(test_core_grid),
      cmocka_unit_test(test_l1_per_generation), cmocka_unit_test(test_l2_per_device),
      cmocka_unit_test(test_pins_per_device),  cmocka_unit_test(test_shim_columns),
      cmocka_unit_test(test_alias_compiles),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

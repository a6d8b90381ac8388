/* test_gpu_segments.c - segments with iteration spaces and nested segments in
 * generated GPU kernels (codegen/cg_gpu_grid.c, docs/gpu.md "The mapping"),
 * without a GPU:
 *   - nested segments (launch 2 x segment 2x2 x segment 3) built for every listed
 *     processor by Debian's LLVM, code objects read back, 12 workgroups per launch
 *     instance; the XCD-padded program built for gfx940 (6 XCDs) and refused on
 *     the one-XCD processors;
 *   - the spec's MI3xx four levels at MI300X's size (XCD segment of 8, CU segment
 *     of 38, herd of 32) planned for gfx942 / mi300x and run on the host workgroup
 *     simulator: every element and id checked, and a partial grid showing that
 *     workgroup w runs XCD instance w mod 8 (the GPU's round-robin);
 *   - the padded XCD layout: padding workgroups do nothing;
 *   - the limits (XCDs, CUs per XCD, CUs) and what an outer segment cannot hold,
 *     refused at the op with the status the plan gives; on gfx942 without its
 *     toolchain, the program's errors before the toolchain's.
 * End-to-end runs against the CPU driver are tests/air_run/gpu.sh (gpu.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "amdgpu/code_object.h"
#include "codegen/cg_gpu.h"
#include "gpu_sim.h"
#include "gpu_test.h"
#include "runtime/ir/ir.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#include "test_util.h"

/* The file's text with every `from` replaced by `to` (malloc'd). */
static char* text_of(const char* path, const char* from, const char* to) {
  size_t n = 0;
  char* t = test_read_file(path, &n);
  assert_non_null(t);
  if (!from) return t;
  size_t fl = strlen(from), tl = strlen(to), hits = 0;
  for (const char* q = strstr(t, from); q; q = strstr(q + fl, from)) hits++;
  assert_true(hits > 0);
  char* out = malloc(n + hits * tl + 1), *w = out;
  const char* r = t;
  for (const char* q = strstr(r, from); q; r = q + fl, q = strstr(r, from)) {
    memcpy(w, r, (size_t)(q - r));
    w += q - r;
    memcpy(w, to, tl);
    w += tl;
  }
  strcpy(w, r);
  free(t);
  return out;
}

/* The kernels planned for `target` and built for the host simulator (no
 * toolchain needed: mi300x's gfx942 is planned here). */
static air_status_t sim_of(air_program_t* p, const char* target, air_cg_gpu_sim_t** out) {
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, target, &t));
  return air_cg_gpu_sim_create(NULL, p, NULL, t, out);
}

/* The .airbin keeps the workgroups per launch instance; an absurd count is
 * refused as corrupt. */
static void check_artifact(air_context_t* ctx, air_program_t* p, air_schedule_t* sc) {
  const air_allocator_t* alloc = air_context_allocator(ctx);
  void* img = NULL;
  size_t n = 0;
  assert_null(air_artifact_write(alloc, p, sc, &img, &n));
  air_program_t* p2 = NULL;
  air_schedule_t* sc2 = NULL;
  air_status_t s = air_artifact_read(ctx, img, n, "nested.airbin", &p2, &sc2);
  if (s) fail_msg("%s", air_status_message(s));
  assert_int_equal(sc2->gpu->kernels[0].seg_workgroups, sc->gpu->kernels[0].seg_workgroups);
  air_schedule_free(sc2);
  air_program_destroy(p2);
  uint8_t* b = img;
  uint8_t* magic = NULL;
  for (size_t i = 0; i + 8 <= n && !magic; ++i)
    if (!memcmp(b + i, "AIRGPU\0\0", 8)) magic = b + i;
  assert_non_null(magic);
  assert_int_equal(magic[40 + 44], 12); /* kernel 0's seg_workgroups, little-endian */
  magic[40 + 44 + 3] = 0x40;
  s = air_artifact_read(ctx, img, n, "nested.airbin", &p2, &sc2);
  if (!s || air_status_code(s) != AIR_STATUS_DATA_LOSS ||
      !strstr(air_status_message(s), "workgroups per launch instance"))
    fail_msg("corrupt seg_workgroups: %s", s ? air_status_message(s) : "read");
  air_status_free(s);
  alloc->free(alloc->self, img);
}

static void test_every_target(void** state) {
  air_context_t* ctx = *state;
  static const char* const gfx[] = {"gfx908", "gfx90a", "gfx940", "gfx1030", "gfx1100"};
  for (size_t g = 0; g < sizeof gfx / sizeof *gfx; ++g) {
    const air_target_t* t = NULL;
    assert_null(air_target_lookup(NULL, gfx[g], &t));
    for (int prog = 0; prog < 2; ++prog) {
      char* text = text_of(prog ? AIR_GPU_DATA_DIR "/xcd_padded.mlir"
                                : AIR_GPU_DATA_DIR "/nested_segments.mlir", NULL, NULL);
      air_program_t* p =
          gpu_test_parse(ctx, text, prog ? "xcd_padded.mlir" : "nested_segments.mlir");
      free(text);
      air_schedule_t* sc = NULL;
      air_status_t s = gpu_test_build(ctx, p, gfx[g], &sc);
      if (prog && t->cols < 3) {
        /* An XCD segment of 3 on a processor with one XCD: refused at the segment. */
        if (!s || air_status_code(s) != AIR_STATUS_RESOURCE_EXHAUSTED ||
            !strstr(air_status_message(s), "xcd_padded.mlir:12:") ||
            !strstr(air_status_message(s), "has 3 instances, but") ||
            !strstr(air_status_message(s), "has 1 XCD (one instance per XCD)"))
          fail_msg("%s: %s", gfx[g], s ? air_status_message(s) : "built");
        air_status_free(s);
      } else {
        if (s) fail_msg("%s: %s", gfx[g], air_status_message(s));
        const air_gpu_kernel_t* k = &sc->gpu->kernels[0];
        assert_int_equal(sc->gpu->n_kernels, 1);
        assert_int_equal(k->mapping, AIR_GPU_MAP_THREADS);
        assert_int_equal(k->n_grid, 1);
        assert_int_equal(k->grid[0].value, 2);
        /* nested: 2x2 x 3 instances; padded: 2 x 3 CUs on each of 6 XCDs */
        assert_int_equal(k->seg_workgroups, prog ? 36 : 12);
        assert_int_equal(k->workgroup_size, prog ? 8 : 16);
        assert_int_equal(k->lds_bytes, prog ? 32 : 64);
        air_amdgpu_code_object_t* co = NULL;
        const air_gpu_object_t* o = &sc->gpu->objects[k->object];
        s = air_amdgpu_code_object_read(NULL, o->bytes, (size_t)o->size, k->name, &co);
        if (s) fail_msg("%s: %s", k->name, air_status_message(s));
        const air_amdgpu_kernel_t* mk = air_amdgpu_code_object_kernel(co, k->name);
        assert_non_null(mk);
        assert_string_equal(co->gfx->name, gfx[g]);
        assert_int_equal(mk->kernarg_segment_size, 8 * k->n_args);
        assert_true(mk->group_segment_fixed_size >= k->lds_bytes);
        assert_int_equal(mk->wavefront_size, t->wave_size);
        air_amdgpu_code_object_free(co);
        if (!prog && !strcmp(gfx[g], "gfx90a")) check_artifact(ctx, p, sc);
      }
      air_schedule_free(sc);
      air_program_destroy(p);
    }
  }
}

/*--- the four levels on the simulator ---------------------------------------------*/

enum { FL_XCDS = 8, FL_CUS = 38, FL_PES = 32, FL_BLOCKS = FL_XCDS * FL_CUS, FL_N = FL_BLOCKS * FL_PES };

typedef struct fl_bufs_t {
  float a[FL_N], b[FL_N];
  int32_t ids[FL_BLOCKS][4];
} fl_bufs_t;

static void fl_reset(fl_bufs_t* m) {
  for (int i = 0; i < FL_N; ++i) m->a[i] = (float)(i % 97) * 0.25f - 7.0f, m->b[i] = -1.0f;
  memset(m->ids, 0xff, sizeof m->ids);
}

static bool fl_block_done(const fl_bufs_t* m, int blk) {
  for (int e = blk * FL_PES; e < (blk + 1) * FL_PES; ++e)
    if (m->b[e] != m->a[e] * m->a[e]) return false;
  return m->ids[blk][0] == blk / FL_CUS && m->ids[blk][1] == blk % FL_CUS &&
         m->ids[blk][2] == FL_XCDS && m->ids[blk][3] == FL_CUS;
}

static bool fl_block_untouched(const fl_bufs_t* m, int blk) {
  for (int e = blk * FL_PES; e < (blk + 1) * FL_PES; ++e)
    if (m->b[e] != -1.0f) return false;
  return m->ids[blk][0] == -1 && m->ids[blk][3] == -1;
}

static void test_four_level_mi300x(void** state) {
  air_context_t* ctx = *state;
  static const char* const targets[] = {"mi300x", "gfx942"};
  fl_bufs_t* m = malloc(sizeof *m);
  for (size_t ti = 0; ti < 2; ++ti) {
    char* text = text_of(AIR_GPU_DATA_DIR "/mi300x_four_level.mlir", NULL, NULL);
    air_program_t* p = gpu_test_parse(ctx, text, "mi300x_four_level.mlir");
    free(text);
    air_cg_gpu_sim_t* sim = NULL;
    air_status_t s = sim_of(p, targets[ti], &sim);
    if (s) fail_msg("%s: %s", targets[ti], air_status_message(s));
    air_gpu_sim_fn fn;
    const air_gpu_kernel_t* k;
    assert_null(air_cg_gpu_sim_lookup(sim, "air_launch_0", &fn, &k));
    assert_int_equal(k->mapping, AIR_GPU_MAP_THREADS);
    assert_int_equal(k->n_grid, 0);
    assert_int_equal(k->seg_workgroups, FL_BLOCKS); /* every CU of the device */
    assert_int_equal(k->workgroup_size, FL_PES);
    assert_int_equal(k->lds_bytes, FL_PES * 4);     /* the CU's L2 tile */
    uint64_t ka[3] = {(uint64_t)(uintptr_t)m->a, (uint64_t)(uintptr_t)m->b,
                      (uint64_t)(uintptr_t)m->ids};
    char err[256] = "";
    /* The whole grid: every block squared, every CU instance's ids. */
    fl_reset(m);
    if (air_gpu_sim_run(fn, k, ka, k->seg_workgroups, k->lds_bytes, 30.0, err, sizeof err))
      fail_msg("%s", err);
    for (int blk = 0; blk < FL_BLOCKS; ++blk)
      if (!fl_block_done(m, blk)) fail_msg("%s: block %d (XCD %d, CU %d) wrong", targets[ti], blk,
                                           blk / FL_CUS, blk % FL_CUS);
    /* The first 16 workgroups only: on MI300X workgroup w runs on XCD w mod 8,
     * so they must be CU instances 0 and 1 of every XCD instance, nothing else. */
    fl_reset(m);
    if (air_gpu_sim_run(fn, k, ka, 16, k->lds_bytes, 30.0, err, sizeof err)) fail_msg("%s", err);
    for (int blk = 0; blk < FL_BLOCKS; ++blk) {
      bool want = blk % FL_CUS < 2;
      if (want ? !fl_block_done(m, blk) : !fl_block_untouched(m, blk))
        fail_msg("%s: after 16 workgroups, block %d (XCD %d, CU %d) is %s", targets[ti], blk,
                 blk / FL_CUS, blk % FL_CUS, want ? "not done" : "touched");
    }
    air_cg_gpu_sim_free(sim);
    air_program_destroy(p);
  }
  free(m);
}

/* An XCD segment of 3 padded to 8 XCDs on mi300x: padding workgroups do nothing. */
static void test_xcd_padding(void** state) {
  air_context_t* ctx = *state;
  char* text = text_of(AIR_GPU_DATA_DIR "/xcd_padded.mlir", NULL, NULL);
  air_program_t* p = gpu_test_parse(ctx, text, "xcd_padded.mlir");
  free(text);
  air_cg_gpu_sim_t* sim = NULL;
  air_status_t s = sim_of(p, "mi300x", &sim);
  if (s) fail_msg("%s", air_status_message(s));
  air_gpu_sim_fn fn;
  const air_gpu_kernel_t* k;
  assert_null(air_cg_gpu_sim_lookup(sim, "air_launch_1", &fn, &k));
  assert_int_equal(k->seg_workgroups, 8 * 6); /* 2 x 3 CUs on each of 8 XCDs (3 used) */
  float a[288], b[288];
  int32_t ids[36][8];
  uint64_t ka[3] = {(uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)ids};
  for (int i = 0; i < 288; ++i) a[i] = (float)i * 0.5f - 30.0f;
  for (int run = 0; run < 2; ++run) {
    /* run 0: the whole grid (2 launch instances); run 1: the first 8 workgroups,
     * i.e. CU (0, 0) of XCD instances 0..2 of launch instance 0, then padding. */
    for (int i = 0; i < 288; ++i) b[i] = -1.0f;
    memset(ids, 0xff, sizeof ids);
    char err[256] = "";
    uint32_t groups = run ? 8 : 2 * k->seg_workgroups;
    if (air_gpu_sim_run(fn, k, ka, groups, k->lds_bytes, 30.0, err, sizeof err)) fail_msg("%s", err);
    for (int blk = 0; blk < 36; ++blk) {
      int l = blk / 18, x = blk / 6 % 3, i = blk / 3 % 2, j = blk % 3;
      bool want = !run || (l == 0 && i == 0 && j == 0);
      for (int e = blk * 8; e < blk * 8 + 8; ++e) {
        float v = want ? a[e] * a[e] + (float)blk : -1.0f;
        if (b[e] != v) fail_msg("run %d: element %d is %g, not %g", run, e, b[e], v);
      }
      int32_t row[8] = {l, x, i, j, 3, 2, 3, -1};
      if (want ? memcmp(ids[blk], row, sizeof row) : ids[blk][0] != -1)
        fail_msg("run %d: ids of block %d", run, blk);
    }
  }
  air_cg_gpu_sim_free(sim);
  air_program_destroy(p);
}

/*--- refusals ---------------------------------------------------------------------*/

/* A kernel shape around one body: launch > outer segment > inner segment > herd. */
#define SEG_PROGRAM(OUTER_ATTR, OUTER_N, INNER_N, OUTER_BODY, INNER_BODY, HERD_BODY)             \
  "air.channel @ch [1]\n"                                                                        \
  "func.func @f(%a: memref<64xf32>) {\n"                                                         \
  "  air.launch () in () args(%A=%a) : memref<64xf32> {\n"                                       \
  "    %no = arith.constant " OUTER_N " : index\n"                                               \
  "    air.segment @outer (%x) in (%nx=%no) args(%SA=%A) : memref<64xf32> " OUTER_ATTR " {\n"    \
  "      %ni = arith.constant " INNER_N " : index\n"                                             \
  "      " OUTER_BODY "\n"                                                                       \
  "      air.segment @inner (%c) in (%nc=%ni) args(%TA=%SA) : memref<64xf32> {\n"                \
  "        %c1 = arith.constant 1 : index\n"                                                     \
  "        " INNER_BODY "\n"                                                                     \
  "        air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%HA=%TA) : memref<64xf32> {\n" \
  "          " HERD_BODY "\n"                                                                    \
  "        }\n"                                                                                  \
  "      }\n"                                                                                    \
  "    }\n"                                                                                      \
  "  }\n"                                                                                        \
  "  return\n"                                                                                   \
  "}\n"

static const struct {
  const char* name;
  const char* target;
  const char* text;
  uint32_t line;
  air_status_code_t code;
  const char* says;
} k_refusals[] = {
    {"XCD segment larger than the XCDs", "mi300x",
     SEG_PROGRAM("backend-granularity=XCD", "9", "1", "", "", ""), 5,
     AIR_STATUS_RESOURCE_EXHAUSTED, "has 9 instances, but mi300x has 8 XCDs"},
    {"CU segment larger than an XCD's CUs", "mi300x",
     SEG_PROGRAM("backend-granularity=XCD", "8", "39", "", "", ""), 8,
     AIR_STATUS_RESOURCE_EXHAUSTED, "39 segment instances would share each XCD at once (one "
                                    "workgroup per CU), but an XCD of mi300x has 38 CUs"},
    {"segment instances beyond the CUs", "gfx90a", SEG_PROGRAM("", "10", "12", "", "", ""), 8,
     AIR_STATUS_RESOURCE_EXHAUSTED, "120 segment instances must run at once (one workgroup per "
                                    "CU), but gfx90a has 110 CUs"},
    {"unknown granularity", "mi300x", SEG_PROGRAM("backend-granularity=CU", "2", "2", "", "", ""),
     5, AIR_STATUS_INVALID_ARGUMENT, "backend-granularity = CU: the GPU backend knows XCD only"},
    {"XCD in XCD", "mi300x", NULL, 8, AIR_STATUS_INVALID_ARGUMENT,
     "an XCD segment inside the XCD segment @outer (line 5)"},
    {"channel across segment instances", "gfx90a",
     SEG_PROGRAM("", "2", "1", "", "", "air.channel.put @ch[] (%HA[] [] []) : (memref<64xf32>)"),
     12, AIR_STATUS_UNIMPLEMENTED, "channel @ch in a launch whose segments have 2 instances"},
    {"L2 in an outer segment", "gfx90a",
     SEG_PROGRAM("", "1", "2", "%t = memref.alloc() : memref<4xf32, 1>", "", ""), 7,
     AIR_STATUS_UNIMPLEMENTED, "an L2 buffer of segment @outer, whose instance spans 2 workgroups"},
    {"work in an outer segment", "gfx90a",
     SEG_PROGRAM("", "2", "3", "air.dma_memcpy_nd (%SA[] [] [], %SA[] [] []) : (memref<64xf32>, "
                 "memref<64xf32>)", "", ""),
     7, AIR_STATUS_UNIMPLEMENTED, "in segment @outer would run once per instance, but on the GPU "
                                  "that instance spans 3 workgroups"},
    {"herd in an outer segment", "gfx90a",
     SEG_PROGRAM("", "1", "1", "%c1o = arith.constant 1 : index\n      air.herd @h0 tile (%ux, %uy) "
                 "in (%ax=%c1o, %ay=%c1o) {\n      }", "", ""),
     8, AIR_STATUS_UNIMPLEMENTED, "a herd in segment @outer, which holds segment @inner (line 10)"},
    {"nested segments with channels", "gfx90a",
     SEG_PROGRAM("", "1", "1", "", "air.channel.put @ch[] (%TA[] [] []) : (memref<64xf32>)",
                 "%l = memref.alloc() : memref<64xf32, 2>\n          air.channel.get @ch[] (%l[] [] []) "
                 ": (memref<64xf32, 2>)"),
     8, AIR_STATUS_UNIMPLEMENTED, "with channels, a GPU kernel holds one segment"},
    {"segment size from a parameter", "gfx90a", NULL, 4, AIR_STATUS_UNIMPLEMENTED,
     "a GPU segment's iteration space must be constants"},
    {"sibling segments", "gfx90a", NULL, 9, AIR_STATUS_UNIMPLEMENTED,
     "a second segment in the launch of line 2"},
};

/* The programs the macro does not shape. */
static const char k_xcd_in_xcd[] = SEG_PROGRAM("backend-granularity=XCD", "2", "2", "", "", "");
static const char k_param_size[] =
    "func.func @f(%a: memref<64xf32>, %n: index) {\n"
    "  air.launch () in () args(%A=%a, %N=%n) : memref<64xf32>, index {\n"
    "    %c1 = arith.constant 1 : index\n"
    "    air.segment @s (%x) in (%nx=%N) {\n"
    "      air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) {\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";
static const char k_siblings[] =
    "func.func @f(%a: memref<64xf32>) {\n"
    "  air.launch () in () args(%A=%a) : memref<64xf32> {\n"
    "    %c1 = arith.constant 1 : index\n"
    "    %c2 = arith.constant 2 : index\n"
    "    air.segment @s1 (%x) in (%nx=%c2) {\n"
    "      air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) {\n"
    "      }\n"
    "    }\n"
    "    air.segment @s2 {\n"
    "      air.herd @h2 tile (%tx, %ty) in (%sx=%c1, %sy=%c1) {\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_refusals(void** state) {
  air_context_t* ctx = *state;
  for (size_t i = 0; i < sizeof k_refusals / sizeof *k_refusals; ++i) {
    const char* text = k_refusals[i].text;
    if (!text) text = i == 4 ? k_xcd_in_xcd : i == 10 ? k_param_size : k_siblings;
    char* owned = NULL;
    if (i == 4) { /* the inner segment too gets backend-granularity=XCD */
      const char* at = strstr(text, "memref<64xf32> {\n        %c1");
      assert_non_null(at);
      size_t pre = (size_t)(at - text) + strlen("memref<64xf32> ");
      owned = malloc(strlen(text) + 32);
      memcpy(owned, text, pre);
      strcpy(owned + pre, "backend-granularity=XCD ");
      strcat(owned, text + pre);
      text = owned;
    }
    air_program_t* p = gpu_test_parse(ctx, text, k_refusals[i].name);
    air_cg_gpu_sim_t* sim = NULL;
    air_status_t s = sim_of(p, k_refusals[i].target, &sim);
    if (!s) fail_msg("%s: planned", k_refusals[i].name);
    const char* m = air_status_message(s);
    char at[48];
    snprintf(at, sizeof at, "%s:%u:", k_refusals[i].name, k_refusals[i].line);
    if (air_status_code(s) != k_refusals[i].code || !strstr(m, k_refusals[i].says) || !strstr(m, at))
      fail_msg("%s: [%d] %s", k_refusals[i].name, (int)air_status_code(s), m);
    air_status_free(s);
    free(owned);
    air_program_destroy(p);
  }
}

/* The limits are inclusive: 8 XCD instances of 38 CUs each plan on mi300x (the
 * four-level test), and 110 instances on gfx90a. */
static void test_limits_inclusive(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = gpu_test_parse(ctx, SEG_PROGRAM("", "10", "11", "", "", ""), "full_gfx90a");
  air_cg_gpu_sim_t* sim = NULL;
  air_status_t s = sim_of(p, "gfx90a", &sim);
  if (s) fail_msg("%s", air_status_message(s));
  air_gpu_sim_fn fn;
  const air_gpu_kernel_t* k;
  assert_null(air_cg_gpu_sim_lookup(sim, "air_launch_0", &fn, &k));
  assert_int_equal(k->seg_workgroups, 110);
  air_cg_gpu_sim_free(sim);
  air_program_destroy(p);
}

/* gfx942 without ROCm: a program that breaks mi300x's limits hears about its
 * segment, not about the missing toolchain; a good one hears about the toolchain. */
static void test_plan_before_toolchain(void** state) {
  air_context_t* ctx = *state;
  const char* r = getenv("AIR_ROCM_PATH");
  FILE* rocm = fopen("/opt/rocm/llvm/bin/clang", "rb");
  if (rocm) fclose(rocm);
  if ((r && *r) || rocm || getenv("ROCM_PATH")) skip();
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, "mi300x", &t));
  for (int good = 0; good < 2; ++good) {
    /* 9 XCD instances of one CU each: 9 CUs fit the device, so the scheduler's
     * footprint check passes, but there are 8 XCDs. */
    char* text = good ? text_of(AIR_GPU_DATA_DIR "/mi300x_four_level.mlir", NULL, NULL)
                      : strdup(SEG_PROGRAM("backend-granularity=XCD", "9", "1", "", "", ""));
    air_program_t* p = gpu_test_parse(ctx, text, "four.mlir");
    free(text);
    air_schedule_t* sc = NULL;
    air_status_t s = air_schedule_compile(air_context_allocator(ctx), p, NULL, t, &sc);
    if (s) fail_msg("schedule: %s", air_status_message(s));
    s = air_cg_gpu_compile_found(NULL, p, sc, t, NULL);
    assert_non_null(s);
    const char* m = air_status_message(s);
    if (good ? air_status_code(s) != AIR_STATUS_UNAVAILABLE || !strstr(m, "gfx942 needs LLVM 17")
             : air_status_code(s) != AIR_STATUS_RESOURCE_EXHAUSTED || !strstr(m, "four.mlir:5:") ||
                   !strstr(m, "has 9 instances, but mi300x has 8 XCDs"))
      fail_msg("%s: %s", good ? "good" : "9 XCDs", m);
    air_status_free(s);
    air_schedule_free(sc);
    air_program_destroy(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_target),      cmocka_unit_test(test_four_level_mi300x),
      cmocka_unit_test(test_xcd_padding),       cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_limits_inclusive),  cmocka_unit_test(test_plan_before_toolchain),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

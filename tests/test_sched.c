/* test_sched.c - the scheduler's target table, two-stage resource analysis,
 * placement and `airc report`. Expected numbers are worked out by hand in each
 * test from the program's shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "air/program.h"
#include "runtime/ir/ir.h"
#include "scheduler/place.h"
#include "scheduler/report/report.h"
#include "scheduler/resources.h"
#include "runtime/target/target.h"
#include "test_util.h"

int airc_cmd_report(int argc, char** argv);

#define SCHED_DIR AIR_TEST_DATA_DIR "/sched/"
#define KIB 1024u

/* Parses and verifies a file: every input here must be a valid AIR program. */
static air_program_t* load(void** state, const char* path) {
  air_parse_options_t opts = {.filename = path};
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(*state, text, len, &opts, &p);
  free(text);
  if (s) fail_msg("%s", air_status_message(s));
  s = air_program_verify(p, NULL, 0);
  if (s) fail_msg("%s", air_status_message(s));
  return p;
}

static const air_target_t* target(const char* name) {
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, name, &t);
  assert_null(s);
  return t;
}

static void analyze(air_program_t* p, const char* tname, air_resources_t* r) {
  air_status_t s = air_resources_analyze(p, target(tname), r);
  if (s) fail_msg("%s", air_status_message(s));
}

static const air_segment_res_t* seg(const air_resources_t* r, const char* name) {
  for (uint32_t i = 0; i < r->n_segments; ++i)
    if (r->segments[i].op->sym && !strcmp(r->segments[i].op->sym, name)) return &r->segments[i];
  fail_msg("no segment @%s", name);
  return NULL;
}

static const air_herd_res_t* herd(const air_resources_t* r, const char* name) {
  for (uint32_t i = 0; i < r->n_herds; ++i)
    if (r->herds[i].op->sym && !strcmp(r->herds[i].op->sym, name)) return &r->herds[i];
  fail_msg("no herd @%s", name);
  return NULL;
}

static const air_place_t* placed(const air_placement_t* pl, const char* name, uint64_t inst) {
  for (uint32_t i = 0; i < pl->n_items; ++i)
    if (pl->items[i].op->sym && !strcmp(pl->items[i].op->sym, name) &&
        pl->items[i].instance == inst)
      return &pl->items[i];
  fail_msg("@%s instance %llu not placed", name, (unsigned long long)inst);
  return NULL;
}

/* Asserts a failed status whose message holds every given fragment. */
static void expect_error(air_status_t s, air_status_code_t code, ...) {
  assert_non_null(s);
  const char* msg = air_status_message(s);
  if (air_status_code(s) != code) fail_msg("code %d: %s", (int)air_status_code(s), msg);
  va_list ap;
  va_start(ap, code);
  for (const char* frag; (frag = va_arg(ap, const char*));)
    if (!strstr(msg, frag)) fail_msg("'%s' not in: %s", frag, msg);
  va_end(ap);
  air_status_free(s);
}

/* The check of file against target: NULL when it fits. */
static air_status_t check_file(void** state, const char* file, const char* tname) {
  air_program_t* p = load(state, file);
  air_resources_t r;
  analyze(p, tname, &r);
  air_status_t s = air_resources_check(p, &r);
  air_resources_free(&r);
  air_program_destroy(p);
  return s;
}

static void test_target_table(void** state) {
  (void)state;
  const air_target_t* t = target("npu1");
  assert_int_equal(air_target_tiles(t), 16);
  assert_int_equal(t->l1_bytes, 64 * KIB);
  assert_int_equal(air_target_l1_usable(t), 64 * KIB - 1024); /* less the stack */
  assert_int_equal(air_target_l2_total(t), 4 * 512 * KIB);
  assert_int_equal(t->dma_in + t->dma_out, 4);
  assert_int_equal(air_target_tiles(target("npu2")), 32);
  const air_target_t* g = target("mi300x");
  assert_int_equal(air_target_tiles(g), 8 * 38);
  assert_int_equal(g->max_herd_pes, 32);
  assert_int_equal(g->l1_bytes, 64 * KIB);
  assert_int_equal(air_target_tiles(target("cpu")), 0); /* unlimited */
  const air_target_t* none = (const air_target_t*)1;
  expect_error(air_target_lookup(NULL, "npu9", &none), AIR_STATUS_INVALID_ARGUMENT, "npu9",
               "xcvc1902, xcve2302, xcve2802, npu1, npu1_1col", "npu2_7col, mi300x, gfx908, gfx90a, gfx940, gfx942, gfx1030, gfx1100, cpu", NULL);
  assert_null(none);
}

/* samples/matmul_4x4.mlir, by hand: one segment, one 4x4 herd.
 *   L1 per PE: a0, b0, a1, b1, acc = 5 x 32x32 f32 = 20480 bytes.
 *   L2: a_ping, a_pong (128x32 f32), b_ping, b_pong (32x128 f32) = 4 x 16384,
 *       c_l2 (128x128 f32) = 65536; total 131072.
 *   Herd DMA per PE: gets on @to_a and @to_b run together (2 in), put on
 *   @from_c (1 out): a core tile's 2 + 2 suffice.
 *   Segment, mem-tile side: the @l3_a and @l3_b gets overlap each other and the
 *   16 @from_c gets (nothing orders the final gather after the k loop) = 18 in;
 *   the 16 @to_a and 16 @to_b puts of one k step run at once, and @l3_c's put
 *   overlaps them too = 33 out. The 4x4 herd spans 4 columns: 4 mem tiles x 6
 *   MM2S = 24 < 33, so the sample does not fit npu1 (nor any NPU: mlir-air
 *   would fail to allocate those mem-tile channels; its matmuls broadcast A and
 *   B along rows and columns instead). Launch: the @l3_a/@l3_b puts and the
 *   @l3_c get take 2 + 1 shim channels of npu1's 8 + 8. */
static void test_matmul_on_npu1(void** state) {
  air_program_t* p = load(state, AIR_SOURCE_DIR "/samples/matmul_4x4.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  assert_int_equal(r.n_segments, 1);
  assert_int_equal(r.n_herds, 1);
  const air_segment_res_t* s = seg(&r, "matmul_seg");
  assert_int_equal(s->instances, 1);
  assert_int_equal(s->total.tiles, 16);
  assert_int_equal(s->total.l2_bytes, 4 * 128 * 32 * 4 + 128 * 128 * 4);
  assert_int_equal(s->total.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 2 + 16);
  assert_int_equal(s->total.ch[AIR_DMA_MEMTILE][AIR_DMA_OUT], 16 + 16 + 1);
  assert_int_equal(s->total.ch[AIR_DMA_SHIM][AIR_DMA_IN], 0);
  assert_int_equal(s->total.dma, 18 + 33);
  assert_int_equal(r.launches[0].total.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 2);
  assert_int_equal(r.launches[0].total.ch[AIR_DMA_SHIM][AIR_DMA_IN], 1);
  const air_herd_res_t* h = herd(&r, "matmul_herd");
  assert_int_equal(h->nx * h->ny, 16);
  assert_int_equal(h->l1_bytes, 5 * 32 * 32 * 4);
  assert_int_equal(h->dma_in, 2);
  assert_int_equal(h->dma_out, 1);
  expect_error(air_resources_check(p, &r), AIR_STATUS_FAILED_PRECONDITION,
               "segment @matmul_seg needs 33 outgoing mem-tile DMA channels per instance after "
               "sharing (@to_a x16 on 0-15, @to_b x16 on 16-31, @l3_c on 32); its 4 columns on "
               "npu1 have 4 mem tiles, 24 channels", NULL);
  /* Placement does not depend on the verdict. */
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  const air_place_t* it = placed(&pl, "matmul_seg", 0);
  assert_int_equal(it->x, 0);
  assert_int_equal(it->y, 2); /* first compute row of npu1 */
  assert_int_equal(it->w, 4);
  assert_int_equal(it->h, 4);
  assert_int_equal(placed(&pl, "matmul_herd", 0)->partition, it->partition);
  /* The report shows the numbers and which channel each endpoint got. */
  air_sb_t sb;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  air_sb_init(&sb, &heap);
  air_report_resources(&sb, p, &r, &pl);
  assert_false(sb.oom);
  assert_non_null(strstr(sb.data, "matmul_seg"));
  assert_non_null(strstr(sb.data, "131072"));
  assert_non_null(strstr(sb.data, "20480"));
  assert_non_null(strstr(sb.data, "@to_b"));
  air_sb_free(&sb);
  air_placement_free(&pl);
  air_resources_free(&r);
  /* The CPU has no limits: the same program fits and places. */
  analyze(p, "cpu", &r);
  assert_null(air_resources_check(p, &r));
  assert_null(air_place(p, &r, &pl));
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

static void test_herd_too_many_tiles(void** state) {
  expect_error(check_file(state, SCHED_DIR "herd_5x4.mlir", "npu1"),
               AIR_STATUS_FAILED_PRECONDITION, "herd_5x4.mlir:8:", "[resources]",
               "herd @wide needs 20 tiles; npu1 has 16", "segment @seg needs 20 tiles", NULL);
  assert_null(check_file(state, SCHED_DIR "herd_5x4.mlir", "npu2")); /* 8 columns */
}

static void test_explicit_size_too_small(void** state) {
  expect_error(check_file(state, SCHED_DIR "explicit_small.mlir", "npu1"),
               AIR_STATUS_FAILED_PRECONDITION,
               "segment @cramped needs 4 tiles per instance; its x_size x y_size gives 2", NULL);
}

static void test_l1_overflow(void** state) {
  expect_error(check_file(state, SCHED_DIR "l1_overflow.mlir", "npu1"),
               AIR_STATUS_FAILED_PRECONDITION,
               "herd @hungry needs 81920 bytes of L1 per tile; npu1 has 64512 (65536 less the "
               "1024-byte stack)", NULL);
}

static void test_l2_overflow(void** state) {
  expect_error(check_file(state, SCHED_DIR "l2_overflow.mlir", "npu1"),
               AIR_STATUS_FAILED_PRECONDITION,
               "segment @fat needs 3145728 bytes of L2; npu1 has 2097152", NULL);
  assert_null(check_file(state, SCHED_DIR "l2_overflow.mlir", "npu2")); /* 4 MiB */
}

/* L2 is the peak of live buffers: a free ordered before an alloc lets the next
 * buffer reuse the space. */
static void test_l2_liveness(void** state) {
  air_program_t* p = load(state, SCHED_DIR "l2_reuse.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  assert_int_equal(seg(&r, "reuse")->total.l2_bytes, 1536 * KIB);
  assert_int_equal(seg(&r, "overlap")->total.l2_bytes, 2 * 1536 * KIB);
  expect_error(air_resources_check(p, &r), AIR_STATUS_FAILED_PRECONDITION,
               "segment @overlap needs 3145728 bytes of L2", NULL);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* One iteration: a 1x2 herd (2 tiles) and one L3->L2 dma_memcpy_nd (a mem-tile
 * S2MM and a shim MM2S); 1 KiB of L2 set up outside the loop. D = 2 doubles
 * tiles and the dma's channels (the spec's rule), not memory. */
static void test_for_pipeline_depth(void** state) {
  air_program_t* p = load(state, SCHED_DIR "for_depth.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  const air_segment_res_t* one = seg(&r, "single");
  const air_segment_res_t* two = seg(&r, "double");
  assert_int_equal(one->total.tiles, 2);
  assert_int_equal(one->total.dma, 2);
  assert_int_equal(one->total.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 1);
  assert_int_equal(one->total.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 1);
  assert_int_equal(two->total.tiles, 2 * 2);
  assert_int_equal(two->total.dma, 2 * 2);
  assert_int_equal(two->total.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 2);
  assert_int_equal(one->total.l2_bytes, 1 * KIB);
  assert_int_equal(two->total.l2_bytes, 1 * KIB);
  assert_null(air_resources_check(p, &r));
  air_resources_free(&r);
  air_program_destroy(p);
}

/* scf.parallel of 3: 3 x (2 tiles, 1 KiB); unroll 2x1: 2 x (4 tiles, 2 KiB). */
static void test_parallel_and_iteration_space(void** state) {
  air_program_t* p = load(state, SCHED_DIR "parallel_unroll.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  const air_segment_res_t* par = seg(&r, "par");
  assert_int_equal(par->total.tiles, 3 * 2);
  assert_int_equal(par->total.l2_bytes, 3 * KIB);
  const air_segment_res_t* st = seg(&r, "stamp");
  assert_int_equal(st->instances, 2);
  assert_int_equal(st->per_instance.tiles, 4);
  assert_int_equal(st->per_instance.l2_bytes, 2 * KIB);
  assert_int_equal(st->total.tiles, 2 * 4);
  assert_int_equal(st->total.l2_bytes, 2 * 2 * KIB);
  /* The launch keeps both co-resident: 6 + 8 = 14 tiles of 16. */
  assert_int_equal(r.n_launches, 1);
  assert_int_equal(r.launches[0].total.tiles, 14);
  assert_null(air_resources_check(p, &r));
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  const air_place_t* a = placed(&pl, "stamp", 0);
  const air_place_t* b = placed(&pl, "stamp", 1);
  assert_int_not_equal(a->partition, b->partition);
  assert_true(a->x != b->x || a->y != b->y);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* The unroll sample's explicit x_size=2 y_size=4 is one instance's block:
 * 8 tiles, x 2 instances = 16, and 64 x i16 = 128 bytes of L2 per instance. */
static void test_unroll_sample(void** state) {
  air_program_t* p = load(state, AIR_TEST_DATA_DIR "/programs/segment_unroll_kernel.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  const air_segment_res_t* s = seg(&r, "seg_0");
  assert_int_equal(s->instances, 2);
  assert_int_equal(s->per_instance.tiles, 8);
  assert_int_equal(s->total.tiles, 16);
  assert_int_equal(s->total.l2_bytes, 2 * 128);
  assert_int_equal(herd(&r, "kernel_herd")->l1_bytes, 32 * 2);
  assert_null(air_resources_check(p, &r));
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  const air_place_t* i0 = placed(&pl, "seg_0", 0);
  assert_true(i0->is_explicit);
  assert_int_equal(i0->x, 0);
  assert_int_equal(i0->y, 2);
  const air_place_t* i1 = placed(&pl, "seg_0", 1);
  assert_false(i1->is_explicit);
  assert_int_equal(i1->x, 2);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

static void test_gpu_herd_limit(void** state) {
  expect_error(check_file(state, SCHED_DIR "gpu_herd64.mlir", "mi300x"),
               AIR_STATUS_FAILED_PRECONDITION,
               "herd @warps has 64 PEs; mi300x allows at most 32 per herd", NULL);
}

static void test_dynamic_alloc(void** state) {
  air_program_t* p = load(state, SCHED_DIR "dynamic_alloc.mlir");
  air_resources_t r;
  expect_error(air_resources_analyze(p, target("npu1"), &r), AIR_STATUS_UNIMPLEMENTED,
               "dynamic_alloc.mlir:7:", "memref.alloc %alloc has a dynamic shape", NULL);
  air_program_destroy(p);
}

/* Runs the analysis, check and placement; returns the placement status. */
static air_status_t place_file(void** state, const char* file, air_program_t** p,
                               air_resources_t* r, air_placement_t* pl) {
  *p = load(state, file);
  analyze(*p, "npu1", r);
  return air_place(*p, r, pl);
}

static void test_place_explicit(void** state) {
  air_program_t* p;
  air_resources_t r;
  air_placement_t pl;
  assert_null(place_file(state, SCHED_DIR "place_explicit.mlir", &p, &r, &pl));
  const air_place_t* l = placed(&pl, "left", 0);
  assert_true(l->is_explicit);
  assert_int_equal(l->x, 0);
  assert_int_equal(l->y, 2);
  assert_int_equal(l->w, 2);
  assert_int_equal(l->h, 4);
  const air_place_t* rt = placed(&pl, "right", 0);
  assert_int_equal(rt->x, 2);
  assert_int_equal(rt->y, 2);
  /* First fit: columns 0-1 are @left's, rows 2-3 of column 2 are @right's. */
  const air_place_t* f = placed(&pl, "free", 0);
  assert_false(f->is_explicit);
  assert_int_equal(f->x, 2);
  assert_int_equal(f->y, 4);
  assert_int_equal(f->w, 1);
  assert_int_equal(f->h, 2);
  const air_place_t* fh = placed(&pl, "fh", 0);
  assert_int_equal(fh->x, 2);
  assert_int_equal(fh->y, 4);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* Explicit origins are fixed before free instances are placed (npu2). */
static void test_place_explicit_first(void** state) {
  air_program_t* p = load(state, SCHED_DIR "place_explicit_order.mlir");
  air_resources_t r;
  analyze(p, "npu2", &r);
  assert_null(air_resources_check(p, &r));
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  assert_int_equal(placed(&pl, "pair", 0)->x, 0);
  assert_int_equal(placed(&pl, "fixed", 0)->x, 2);
  assert_int_equal(placed(&pl, "pair", 1)->x, 4);
  assert_int_equal(placed(&pl, "ph", 1)->x, 4);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

static void test_place_overlap(void** state) {
  air_program_t* p;
  air_resources_t r;
  air_placement_t pl;
  expect_error(place_file(state, SCHED_DIR "place_overlap.mlir", &p, &r, &pl),
               AIR_STATUS_FAILED_PRECONDITION, "place_overlap.mlir:13:", "[place]",
               "segment @b at x_loc=1 y_loc=3 overlaps segment @a", NULL);
  assert_null(pl.items);
  air_resources_free(&r);
  air_program_destroy(p);
}

static void test_place_affinity_concurrency(void** state) {
  air_program_t* p;
  air_resources_t r;
  air_placement_t pl;
  assert_null(place_file(state, SCHED_DIR "place_groups.mlir", &p, &r, &pl));
  const air_place_t* a = placed(&pl, "a", 0);
  const air_place_t* b = placed(&pl, "b", 0);
  const air_place_t* c = placed(&pl, "c", 0);
  const air_place_t* d = placed(&pl, "d", 0);
  assert_int_equal(a->partition, b->partition); /* affinity: shared */
  assert_int_equal(a->x, b->x);
  assert_int_equal(a->y, b->y);
  assert_int_not_equal(c->partition, d->partition); /* concurrency: distinct */
  assert_int_not_equal(a->partition, c->partition);
  assert_true(c->x != d->x || c->y != d->y);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);

  expect_error(place_file(state, SCHED_DIR "place_conflict.mlir", &p, &r, &pl),
               AIR_STATUS_FAILED_PRECONDITION,
               "segment @c must run concurrently with segment @a but they share a partition",
               NULL);
  air_resources_free(&r);
  air_program_destroy(p);

  expect_error(place_file(state, SCHED_DIR "place_full.mlir", &p, &r, &pl),
               AIR_STATUS_FAILED_PRECONDITION, "segment @small instance 1 of 1",
               "none is left on npu1", "concurrency", NULL);
  expect_error(air_resources_check(p, &r), AIR_STATUS_FAILED_PRECONDITION,
               "launch (unnamed) needs 17 tiles; npu1 has 16", NULL);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* Herds and nested segments ordered by dependency tokens reuse resources;
 * unordered ones add up (spec: "determined from the async dependency graph"). */
static void test_dependency_order(void** state) {
  air_program_t* p = load(state, SCHED_DIR "ordered.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  assert_int_equal(seg(&r, "seq")->total.tiles, 16);
  assert_int_equal(seg(&r, "in1")->total.tiles, 4);
  assert_int_equal(seg(&r, "outer")->total.tiles, 4);
  assert_int_equal(seg(&r, "both")->total.tiles, 32);
  expect_error(air_resources_check(p, &r), AIR_STATUS_FAILED_PRECONDITION,
               "segment @both needs 32 tiles; npu1 has 16", NULL);
  air_resources_free(&r);
  /* On npu2 (32 tiles) everything fits; @seq's herds take turns on its tiles. */
  analyze(p, "npu2", &r);
  assert_null(air_resources_check(p, &r));
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  const air_place_t* a = placed(&pl, "first", 0);
  const air_place_t* b = placed(&pl, "second", 0);
  assert_int_equal(a->x, b->x);
  const air_place_t* one = placed(&pl, "one", 0);
  const air_place_t* two = placed(&pl, "two", 0);
  assert_int_not_equal(one->x, two->x);
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* interp/affinity.mlir: @apart's two 1-PE herds share an affinity token (one
 * tile, used in turn, same place); @together's identical herds need two. */
static void test_herd_affinity(void** state) {
  air_program_t* p = load(state, AIR_TEST_DATA_DIR "/interp/affinity.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  assert_int_equal(r.n_segments, 2);
  assert_int_equal(r.segments[0].total.tiles, 1);
  assert_int_equal(r.segments[1].total.tiles, 2);
  air_placement_t pl;
  assert_null(air_place(p, &r, &pl));
  const air_place_t* h[4];
  uint32_t n = 0;
  for (uint32_t i = 0; i < pl.n_items; ++i)
    if (pl.items[i].op->kind == AIR_OP_HERD && n < 4) h[n++] = &pl.items[i];
  assert_int_equal(n, 4);
  assert_true(h[0]->x == h[1]->x && h[0]->y == h[1]->y);  /* @apart */
  assert_false(h[2]->x == h[3]->x && h[2]->y == h[3]->y); /* @together */
  air_placement_free(&pl);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* Every valid sample analyses and places on every target without an error other
 * than a clean resource verdict. */
static void test_all_programs_all_targets(void** state) {
  static const char* const files[] = {
      AIR_SOURCE_DIR "/samples/matmul_4x4.mlir", AIR_SOURCE_DIR "/samples/matmul_4x4_bf16.mlir",
      AIR_SOURCE_DIR "/samples/pipeline.mlir", AIR_SOURCE_DIR "/samples/vector_add.mlir",
      AIR_TEST_DATA_DIR "/programs/matmul_4x4_channels.mlir",
      AIR_TEST_DATA_DIR "/programs/segment_pipeline.mlir",
      AIR_TEST_DATA_DIR "/programs/spec_token_lists.mlir",
      AIR_TEST_DATA_DIR "/programs/parallel_reduce_tokens.mlir",
      AIR_TEST_DATA_DIR "/programs/vector_add_dma.mlir",
      AIR_TEST_DATA_DIR "/programs/affine_if_broadcast.mlir",
      AIR_TEST_DATA_DIR "/programs/execute_results.mlir",
  };
  uint32_t nt;
  const air_target_t* table = air_target_table(&nt);
  assert_true(nt >= 17); /* every mlir-air device, mi300x, cpu */
  uint32_t place_errors = 0;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
    air_program_t* p = load(state, files[f]);
    for (uint32_t t = 0; t < nt; ++t) {
      air_resources_t r;
      air_status_t s = air_resources_analyze(p, &table[t], &r);
      if (s) fail_msg("%s on %s: %s", files[f], table[t].name, air_status_message(s));
      assert_true(r.n_launches >= 1);
      s = air_resources_check(p, &r);
      if (!s) {
        air_placement_t pl;
        s = air_place(p, &r, &pl);
        /* spec_token_lists puts @xcd at y_loc=0, the shim row of an NPU. */
        if (s && (air_status_code(s) != AIR_STATUS_FAILED_PRECONDITION ||
                  !strstr(air_status_message(s), "[place]")))
          fail_msg("%s on %s: %s", files[f], table[t].name, air_status_message(s));
        if (s) ++place_errors;
        air_status_free(s);
        air_placement_free(&pl);
      } else {
        assert_int_equal(air_status_code(s), AIR_STATUS_FAILED_PRECONDITION);
        air_status_free(s);
      }
      air_resources_free(&r);
    }
    air_program_destroy(p);
  }
  /* spec_token_lists's @xcd (x_size=1 y_size=1, two 2x2 herds) is caught by the
   * check on the NPUs now, before placement would reject its y_loc=0. */
  assert_int_equal(place_errors, 0);
}

/* data/sched/dma_share.mlir (its header says what each scope shows): endpoints
 * never active together share one hardware channel; what still needs more than a
 * tile has is named. */
static void test_dma_sharing(void** state) {
  air_program_t* p = load(state, SCHED_DIR "dma_share.mlir");
  air_resources_t r;
  analyze(p, "npu1", &r);
  static const struct {
    const char* herd;
    uint64_t endpoints, channels;
  } want[] = {{"phases", 3, 1},    {"tokens", 3, 1}, {"branch", 3, 2},
              {"together", 3, 3},  {"steady", 2, 1}, {"pipelined", 2, 2}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
    const air_herd_res_t* h = herd(&r, want[i].herd);
    if (h->dma.endpoints[AIR_DMA_CORE][AIR_DMA_IN] != want[i].endpoints ||
        h->dma_in != want[i].channels)
      fail_msg("@%s: %llu endpoints on %llu channels", want[i].herd,
               (unsigned long long)h->dma.endpoints[AIR_DMA_CORE][AIR_DMA_IN],
               (unsigned long long)h->dma_in);
    assert_int_equal(h->dma_out, 0);
  }
  /* @branch: the two branches' reads share channel 1, the read beside the if
   * has channel 0. */
  const air_herd_res_t* b = herd(&r, "branch");
  assert_int_equal(b->dma.eps[0].channel, 0);
  assert_int_equal(b->dma.eps[1].channel, 1);
  assert_int_equal(b->dma.eps[2].channel, 1);
  /* One PE: the herd's L3 reads keep their order at the segment's shim too. */
  assert_int_equal(seg(&r, "seg")->per_instance.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 3);
  assert_int_equal(seg(&r, "pipe")->per_instance.ch[AIR_DMA_SHIM][AIR_DMA_OUT], 1);
  assert_int_equal(seg(&r, "mt_phases")->per_instance.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 4);
  assert_int_equal(seg(&r, "mt_phases")->dma.endpoints[AIR_DMA_MEMTILE][AIR_DMA_IN], 8);
  assert_int_equal(seg(&r, "mt_flat")->per_instance.ch[AIR_DMA_MEMTILE][AIR_DMA_IN], 8);
  air_status_t s = air_resources_check(p, &r);
  expect_error(air_status_clone(s), AIR_STATUS_FAILED_PRECONDITION,
               "dma_share.mlir:79:9: error: [resources] herd @together needs 3 incoming DMA "
               "channels per tile after sharing (air.dma_memcpy_nd at 86:11 on 0, "
               "air.dma_memcpy_nd at 87:11 on 1, air.dma_memcpy_nd at 88:11 on 2); npu1 has 2 "
               "per tile",
               "segment @mt_flat needs 8 incoming mem-tile DMA channels per instance after "
               "sharing", "its 1 column on npu1 has 1 mem tile, 6 channels", NULL);
  /* Nothing else is reported: the shared scopes fit. */
  const char* msg = air_status_message(s);
  assert_null(strstr(msg, "@phases"));
  assert_null(strstr(msg, "@branch"));
  assert_null(strstr(msg, "@pipelined"));
  assert_null(strstr(msg, "@mt_phases"));
  air_status_free(s);
  air_resources_free(&r);
  /* xcve2802's x_size=1 segment has two mem tiles (12 S2MM): @mt_flat fits. */
  analyze(p, "xcve2802", &r);
  s = air_resources_check(p, &r);
  assert_non_null(s);
  assert_null(strstr(air_status_message(s), "@mt_flat"));
  air_status_free(s);
  air_resources_free(&r);
  air_program_destroy(p);
}

/* airc report, called in-process with the output in a temporary file. */
static int report(const char* file, const char* tname, const char* emit, const char* out) {
  char* argv[] = {"report", (char*)file, "--target", (char*)tname, "--emit", (char*)emit,
                  "-o", (char*)out, NULL};
  return airc_cmd_report(8, argv);
}

static void test_airc_report(void** state) {
  (void)state;
  char out[] = "/tmp/test_sched_report_XXXXXX";
  int fd = mkstemp(out);
  assert_true(fd >= 0);
  close(fd);
  /* The matmul sample does not fit npu1's mem-tile channels: exit 1, and the
   * table behind the verdict is still written. */
  assert_int_equal(report(AIR_SOURCE_DIR "/samples/matmul_4x4.mlir", "npu1", "resources", out),
                   1);
  size_t len;
  char* text = test_read_file(out, &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "target npu1"));
  assert_non_null(strstr(text, "matmul_herd"));
  assert_non_null(strstr(text, "131072"));
  free(text);
  assert_int_equal(report(AIR_SOURCE_DIR "/samples/vector_add.mlir", "npu1", "resources", out), 0);
  text = test_read_file(out, &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "vadd_herd"));
  assert_non_null(strstr(text, "placement"));
  assert_non_null(strstr(text, "shim DMA columns"));
  free(text);
  assert_int_equal(report(SCHED_DIR "herd_5x4.mlir", "npu1", "resources", out), 1);
  assert_int_equal(report(SCHED_DIR "herd_5x4.mlir", "npu1", "schedule", out), 1);
  assert_int_equal(report(SCHED_DIR "herd_5x4.mlir", "tpu", "resources", out), 2);
  char* bad[] = {"report", "--target", "npu1", NULL};
  assert_int_equal(airc_cmd_report(3, bad), 2);
  unlink(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target_table),
      cmocka_unit_test(test_matmul_on_npu1),
      cmocka_unit_test(test_dma_sharing),
      cmocka_unit_test(test_herd_too_many_tiles),
      cmocka_unit_test(test_explicit_size_too_small),
      cmocka_unit_test(test_l1_overflow),
      cmocka_unit_test(test_l2_overflow),
      cmocka_unit_test(test_l2_liveness),
      cmocka_unit_test(test_for_pipeline_depth),
      cmocka_unit_test(test_parallel_and_iteration_space),
      cmocka_unit_test(test_unroll_sample),
      cmocka_unit_test(test_gpu_herd_limit),
      cmocka_unit_test(test_dynamic_alloc),
      cmocka_unit_test(test_place_explicit),
      cmocka_unit_test(test_place_explicit_first),
      cmocka_unit_test(test_place_overlap),
      cmocka_unit_test(test_place_affinity_concurrency),
      cmocka_unit_test(test_dependency_order),
      cmocka_unit_test(test_herd_affinity),
      cmocka_unit_test(test_all_programs_all_targets),
      cmocka_unit_test(test_airc_report),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

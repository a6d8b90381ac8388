/* test_pack_sweep.c - the sweep placement (scheduler/pack/pack_sweep.h) against
 * a plain reference: every buffer placed against all the placed buffers whose
 * lifetimes overlap it, found by a scan and sorted by offset (first-fit: the
 * lowest gap that fits; best-fit: the smallest, lowest on ties; else on top).
 * Sweeping orders must give exactly the reference's offsets (the pivot's
 * buffers stacked in any order, the two sides in any interleaving); other
 * orders, overflowing the cap, and bad inputs are refused. Plus the planner on
 * dense traces, where only sweeps run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above first. */
#include <cmocka.h>

#include "pack_gen.h"
#include "pack_inst.h"
#include "scheduler/pack/pack.h"
#include "scheduler/pack/pack_sweep.h"

static const inst_t* g_in; /* for the comparators */
static uint32_t g_pivot;

static int program_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  if (g_in->lo[x] != g_in->lo[y]) return g_in->lo[x] < g_in->lo[y] ? -1 : 1;
  if (g_in->hi[x] != g_in->hi[y]) return g_in->hi[x] < g_in->hi[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* 0 for buffers live at the pivot, else the distance from it. */
static uint32_t distance(uint32_t i) {
  if (g_in->lo[i] > g_pivot) return g_in->lo[i] - g_pivot;
  if (g_in->hi[i] <= g_pivot) return g_pivot - g_in->hi[i] + 1;
  return 0;
}

static int peak_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  uint32_t dx = distance(x), dy = distance(y);
  if (dx != dy) return dx < dy ? -1 : 1;
  uint32_t lx = g_in->hi[x] - g_in->lo[x], ly = g_in->hi[y] - g_in->lo[y];
  if (lx != ly) return lx > ly ? -1 : 1; /* longest first */
  return x < y ? -1 : x > y;
}

static uint32_t* order_of(const inst_t* in, int (*cmp)(const void*, const void*)) {
  uint32_t* o = calloc(in->n, sizeof *o);
  assert_non_null(o);
  for (uint32_t i = 0; i < in->n; ++i) o[i] = i;
  g_in = in;
  qsort(o, in->n, sizeof *o, cmp);
  return o;
}

static air_allocator_t g_heap;

static void compare(const inst_t* in, const uint32_t* order, int64_t pivot, int first_fit) {
  pk_sweep_input_t sin = {in->n, in->lo, in->hi, in->sz};
  pk_sweep_t* sw = pk_sweep_create(&g_heap, &sin);
  assert_non_null(sw);
  uint64_t* a = calloc(in->n, 8);
  uint64_t* b = calloc(in->n, 8);
  uint64_t arena = pk_sweep_place(sw, order, pivot, first_fit, UINT64_MAX - 1, a);
  uint64_t want = inst_reference(in, order, in->n, 0, first_fit, b); /* one rule for all */
  assert_int_equal(arena, want);
  for (uint32_t i = 0; i < in->n; ++i)
    if (a[i] != b[i])
      fail_msg("buffer %u at %llu, the reference puts it at %llu (n %u, pivot %lld, %s)", i,
               (unsigned long long)a[i], (unsigned long long)b[i], in->n, (long long)pivot,
               first_fit ? "first-fit" : "best-fit");
  /* A cap below the arena stops the pass. */
  assert_int_equal(pk_sweep_place(sw, order, pivot, first_fit, arena - 1, a), UINT64_MAX);
  /* The same structure again gives the same plan (it resets between passes). */
  assert_int_equal(pk_sweep_place(sw, order, pivot, first_fit, UINT64_MAX - 1, a), arena);
  free(a);
  free(b);
  pk_sweep_destroy(sw);
}

/* Program order (a forward sweep) and peak-out order (both sides of a pivot),
 * both rules, on sparse and dense instances: the reference's offsets exactly. */
static void test_same_as_reference(void** state) {
  (void)state;
  static const struct {
    uint32_t n, slots, max_len;
  } shapes[] = {{1, 2, 1}, {40, 20, 5}, {300, 100, 8}, {600, 200, 150}, {1500, 300, 300}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; ++k)
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      inst_t in = make(shapes[k].n, shapes[k].slots, shapes[k].max_len, seed * 31 + k);
      uint32_t* prog = order_of(&in, program_cmp);
      compare(&in, prog, -1, 1);
      compare(&in, prog, -1, 0);
      g_pivot = (uint32_t)(seed * 7919 % shapes[k].slots);
      uint32_t* peak = order_of(&in, peak_cmp);
      compare(&in, peak, g_pivot, 1);
      compare(&in, peak, g_pivot, 0);
      free(prog);
      free(peak);
      drop(&in);
    }
}

/* The planner's other peak-out stacks (the pivot's buffers by latest end or by
 * earliest start, the others by distance with the largest first), and the two
 * sides in any interleaving (all of one side first, or the other): each side
 * has its own live set, so the offsets are the reference's whatever the mix. */
static int g_core_key; /* 0: latest end lowest, 1: earliest start lowest */

static int core_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  uint32_t dx = distance(x), dy = distance(y);
  if (dx != dy) return dx < dy ? -1 : 1;
  uint64_t kx, ky;
  if (dx == 0) {
    kx = g_core_key ? g_in->lo[x] : ~(uint64_t)g_in->hi[x];
    ky = g_core_key ? g_in->lo[y] : ~(uint64_t)g_in->hi[y];
  } else {
    kx = ~g_in->sz[x];
    ky = ~g_in->sz[y];
  }
  if (kx != ky) return kx < ky ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* 0 at the pivot, then 1 for the later buffers and 2 for the earlier ones (or
 * the other way round), each side in its own sweep order. */
static int g_later_first;

static int side_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  int sx = distance(x) == 0 ? 0 : (g_in->lo[x] > g_pivot) == g_later_first ? 1 : 2;
  int sy = distance(y) == 0 ? 0 : (g_in->lo[y] > g_pivot) == g_later_first ? 1 : 2;
  if (sx != sy) return sx < sy ? -1 : 1;
  return peak_cmp(a, b);
}

static void test_cores_and_sides(void** state) {
  (void)state;
  static const struct {
    uint32_t n, slots, max_len;
  } shapes[] = {{40, 20, 5}, {600, 200, 150}, {1500, 300, 300}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; ++k)
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      inst_t in = make(shapes[k].n, shapes[k].slots, shapes[k].max_len, seed * 13 + k);
      g_pivot = (uint32_t)(seed * 104729 % shapes[k].slots);
      for (g_core_key = 0; g_core_key < 2; ++g_core_key) {
        uint32_t* o = order_of(&in, core_cmp);
        compare(&in, o, g_pivot, 0);
        compare(&in, o, g_pivot, 1);
        free(o);
      }
      for (g_later_first = 0; g_later_first < 2; ++g_later_first) {
        uint32_t* o = order_of(&in, side_cmp);
        compare(&in, o, g_pivot, 0);
        free(o);
      }
      drop(&in);
    }
}

/* Orders that do not sweep from the pivot are refused, not misplaced. */
static void test_not_a_sweep(void** state) {
  (void)state;
  /* 0: [0,4), 1: [1,2), 2: [3,5), 3: [5,6) */
  uint32_t lo[] = {0, 1, 3, 5}, hi[] = {4, 2, 5, 6};
  uint64_t sz[] = {64, 64, 64, 64}, off[4];
  pk_sweep_input_t in = {4, lo, hi, sz};
  pk_sweep_t* sw = pk_sweep_create(&g_heap, &in);
  assert_non_null(sw);
  uint32_t forward[] = {0, 1, 2, 3}, backward_start[] = {0, 2, 1, 3};
  assert_int_not_equal(pk_sweep_place(sw, forward, -1, 1, UINT64_MAX - 1, off), UINT64_MAX);
  assert_int_equal(pk_sweep_place(sw, backward_start, -1, 1, UINT64_MAX - 1, off), UINT64_MAX);
  /* Pivot 3: 0 and 2 are live there and must come first. */
  uint32_t core_late[] = {0, 1, 2, 3}, peak[] = {2, 0, 3, 1};
  assert_int_equal(pk_sweep_place(sw, core_late, 3, 0, UINT64_MAX - 1, off), UINT64_MAX);
  assert_int_equal(pk_sweep_place(sw, peak, 3, 0, UINT64_MAX - 1, off), 128);
  assert_int_equal(off[2], 0);
  assert_int_equal(off[0], 64);
  assert_int_equal(off[3], 0);   /* after 2 ended: reuses its bytes */
  assert_int_equal(off[1], 0);   /* before 2 began */
  /* Backward side by end slot descending only. */
  uint32_t lo2[] = {0, 0, 2}, hi2[] = {1, 2, 3};
  pk_sweep_input_t in2 = {3, lo2, hi2, sz};
  pk_sweep_t* sw2 = pk_sweep_create(&g_heap, &in2);
  assert_non_null(sw2);
  uint32_t good[] = {2, 1, 0}, bad[] = {2, 0, 1};
  assert_int_not_equal(pk_sweep_place(sw2, good, 2, 0, UINT64_MAX - 1, off), UINT64_MAX);
  assert_int_equal(pk_sweep_place(sw2, bad, 2, 0, UINT64_MAX - 1, off), UINT64_MAX);
  pk_sweep_destroy(sw2);
  pk_sweep_destroy(sw);
  pk_sweep_destroy(NULL);
}

/* Many buffers live at once, many blocks split and merge: a live set of about
 * 3000 checked against the reference. */
static void test_large_live_set(void** state) {
  (void)state;
  inst_t in = make(6000, 4000, 4000, 99);
  uint32_t* prog = order_of(&in, program_cmp);
  compare(&in, prog, -1, 0);
  free(prog);
  drop(&in);
}

/* The planner on the dense trace of the arena-pack benchmark (62k buffers, 9.3k
 * live at once): a valid plan at the bound, as the quadratic candidates gave. */
static void test_dense_trace(void** state) {
  (void)state;
  size_t n;
  air_pack_buffer_t* b = pack_gen_trace(62000, 6, &n);
  assert_non_null(b);
  uint64_t* off = calloc(n, sizeof *off);
  air_pack_options_t opts = {.flags = AIR_PACK_FLAG_VERIFY};
  air_pack_result_t r;
  air_status_t s = air_pack_plan(NULL, b, n, &opts, off, &r);
  if (s) fail_msg("%s", air_status_message(s));
  print_message("trace-62k: ratio %.6f by %s\n", (double)r.arena_size / r.lower_bound, r.method);
  assert_true(r.arena_size == r.lower_bound);
  free(off);
  free(b);
}

int main(void) {
  air_allocator_init_system(&g_heap);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_as_reference),
      cmocka_unit_test(test_cores_and_sides),
      cmocka_unit_test(test_not_a_sweep),
      cmocka_unit_test(test_large_live_set),
      cmocka_unit_test(test_dense_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

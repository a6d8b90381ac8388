/* Transient-memory packer: plans are valid (no overlap, aligned, inside the arena)
 * on every dsa instance and on generated ones, never worse than the IREE, TFLite
 * and XLA placement rules, within the PERFORMANCE.md ratios, deterministic; bad
 * CSV and bad input give errors, not crashes. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above first. */
#include <cmocka.h>

#include "pack_baselines.h"
#include "pack_gen.h"
#include "scheduler/pack/pack.h"
#include "support/alloc.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define DSA_DIR AIR_SOURCE_DIR "/../shared/data/dsa"

/* ---- helpers -------------------------------------------------------------- */

typedef struct {
  uint64_t arena, lower_bound;
  uint64_t* offsets;
} planned_t;

/* Plans, then checks the plan independently of the planner's own verify flag. */
static planned_t plan_checked(const air_pack_buffer_t* b, size_t n, uint64_t alignment) {
  planned_t r = {0, 0, calloc(n ? n : 1, sizeof(uint64_t))};
  assert_non_null(r.offsets);
  air_pack_options_t opts = {.alignment = alignment, .flags = AIR_PACK_FLAG_VERIFY};
  air_pack_result_t res;
  air_status_t s = air_pack_plan(NULL, b, n, &opts, r.offsets, &res);
  if (s) fail_msg("plan failed: %s", air_status_message(s));
  s = air_pack_check(NULL, b, n, alignment, r.offsets, res.arena_size);
  if (s) fail_msg("plan does not check: %s", air_status_message(s));
  uint64_t align = alignment ? alignment : 64;
  assert_int_equal(res.arena_size % align, 0);
  uint64_t lb = 0;
  assert_null(air_pack_lower_bound(NULL, b, n, alignment, &lb));
  assert_int_equal(lb, res.lower_bound);
  assert_true(res.arena_size >= lb);
  /* Every byte of every live buffer inside the arena (the check covers it too;
   * this does it the slow, obvious way). */
  for (size_t i = 0; i < n; ++i) {
    uint64_t sz = (b[i].size + align - 1) / align * align;
    if (sz == 0 || b[i].upper == b[i].lower) continue;
    assert_true(r.offsets[i] % align == 0);
    assert_true(r.offsets[i] + sz <= res.arena_size);
  }
  r.arena = res.arena_size;
  r.lower_bound = res.lower_bound;
  return r;
}

/* Baseline arenas; asserts the packer is at least as good as each. */
static void assert_never_worse(const air_pack_buffer_t* b, size_t n, uint64_t arena,
                               const char* name) {
  uint64_t* off = calloc(n ? n : 1, sizeof *off);
  assert_non_null(off);
  for (int k = 0; k < PACK_BASELINE_COUNT; ++k) {
    uint64_t base = 0;
    assert_int_equal(pack_baseline_run((pack_baseline_t)k, b, n, 64, off, &base), 0);
    air_status_t s = air_pack_check(NULL, b, n, 64, off, base);
    if (s)
      fail_msg("%s: baseline %s plan invalid: %s", name, pack_baseline_name(k),
               air_status_message(s));
    if (arena > base)
      fail_msg("%s: airrt %llu worse than %s %llu", name, (unsigned long long)arena,
               pack_baseline_name(k), (unsigned long long)base);
  }
  free(off);
}

/* ---- the dsa instances ---------------------------------------------------- */

static void run_folder(const char* sub, double max_ratio) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", DSA_DIR, sub);
  DIR* d = opendir(dir);
  if (!d) {
    print_message("no data at %s; skipped\n", dir);
    skip();
  }
  struct dirent* e;
  int seen = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".csv")) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    air_pack_instance_t in;
    air_status_t s = air_pack_csv_read(NULL, path, &in);
    if (s) fail_msg("%s", air_status_message(s));
    planned_t r = plan_checked(in.buffers, in.count, 64);
    double ratio = (double)r.arena / (double)r.lower_bound;
    print_message("%-20s n=%6zu ratio %.4f\n", e->d_name, in.count, ratio);
    if (ratio > max_ratio) fail_msg("%s: ratio %.4f above %.2f", e->d_name, ratio, max_ratio);
    /* The quadratic baselines take seconds on S_1 under a sanitizer. */
    if (!SANITIZED || in.count <= 5000) assert_never_worse(in.buffers, in.count, r.arena, path);
    free(r.offsets);
    air_pack_instance_free(&in);
    ++seen;
  }
  closedir(d);
  assert_true(seen > 0);
}

static void test_traces_within_one_percent(void** state) {
  (void)state;
  run_folder("iopddl", 1.01);
  run_folder("somas", 1.01);
}

static void test_challenging_within_fifteen_percent(void** state) {
  (void)state;
  run_folder("minimalloc", 1.15);
}

/* ---- generated instances -------------------------------------------------- */

static void test_generated_instances(void** state) {
  (void)state;
  static const pack_gen_spec_t k_cases[] = {
      {"random-50", PACK_GEN_RANDOM, 50, 11},     {"random-300", PACK_GEN_RANDOM, 300, 12},
      {"random-3000", PACK_GEN_RANDOM, 3000, 13}, {"cnn", PACK_GEN_CNN, 0, 14},
      {"transformer", PACK_GEN_TRANSFORMER, 0, 15}, {"random-25k", PACK_GEN_RANDOM, 25000, 16},
  };
  for (size_t c = 0; c < sizeof k_cases / sizeof k_cases[0]; ++c) {
    size_t n = 0;
    air_pack_buffer_t* b = pack_gen_make(&k_cases[c], &n);
    assert_non_null(b);
    planned_t r = plan_checked(b, n, 64);
    print_message("%-12s n=%6zu ratio %.4f\n", k_cases[c].name, n,
                  (double)r.arena / (double)r.lower_bound);
    if (n <= 5000) assert_never_worse(b, n, r.arena, k_cases[c].name);
    free(r.offsets);
    free(b);
  }
}

static void test_deterministic(void** state) {
  (void)state;
  size_t n;
  air_pack_buffer_t* b = pack_gen_random(400, 21, &n);
  assert_non_null(b);
  planned_t a = plan_checked(b, n, 64);
  planned_t c = plan_checked(b, n, 64);
  assert_int_equal(a.arena, c.arena);
  assert_memory_equal(a.offsets, c.offsets, n * sizeof *a.offsets);
  free(a.offsets);
  free(c.offsets);
  free(b);
}

static void test_alignment_option(void** state) {
  (void)state;
  size_t n;
  air_pack_buffer_t* b = pack_gen_random(500, 31, &n);
  assert_non_null(b);
  planned_t r = plan_checked(b, n, 4096); /* plan_checked asserts 4096 | offsets */
  free(r.offsets);
  r = plan_checked(b, n, 1);
  free(r.offsets);
  uint64_t off[1];
  air_pack_result_t res;
  air_pack_options_t bad = {.alignment = 48};
  air_status_t s = air_pack_plan(NULL, b, 1, &bad, off, &res);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
  free(b);
}

/* ---- edge cases ----------------------------------------------------------- */

static void test_empty_and_single(void** state) {
  (void)state;
  air_pack_result_t res;
  assert_null(air_pack_plan(NULL, NULL, 0, NULL, NULL, &res));
  assert_int_equal(res.arena_size, 0);
  assert_int_equal(res.lower_bound, 0);

  air_pack_buffer_t one = {5, 9, 100};
  uint64_t off = 77;
  assert_null(air_pack_plan(NULL, &one, 1, NULL, &off, &res));
  assert_int_equal(off, 0);
  assert_int_equal(res.arena_size, 128);
  assert_int_equal(res.lower_bound, 128);
}

static void test_zero_size_and_empty_lifetime(void** state) {
  (void)state;
  air_pack_buffer_t b[] = {{0, 4, 0}, {0, 4, 64}, {2, 2, 1000}, {1, 3, 64}, {3, 8, 0}};
  uint64_t off[5];
  air_pack_result_t res;
  assert_null(air_pack_plan(NULL, b, 5, NULL, off, &res));
  assert_int_equal(off[0], 0);
  assert_int_equal(off[2], 0);
  assert_int_equal(off[4], 0);
  assert_int_equal(res.arena_size, 128);
  assert_int_equal(res.lower_bound, 128);
  assert_null(air_pack_check(NULL, b, 5, 64, off, res.arena_size));
}

static void test_lower_bound_half_open(void** state) {
  (void)state;
  /* [0,2) and [2,4) never meet: they may share bytes. */
  air_pack_buffer_t b[] = {{0, 2, 100}, {2, 4, 100}, {1, 3, 1}};
  uint64_t lb = 0;
  assert_null(air_pack_lower_bound(NULL, b, 3, 64, &lb));
  assert_int_equal(lb, 128 + 64);
  uint64_t off[3];
  air_pack_result_t res;
  assert_null(air_pack_plan(NULL, b, 3, NULL, off, &res));
  assert_int_equal(res.arena_size, 192);
  assert_int_equal(off[0], off[1]);
}

static void test_bad_input_is_an_error(void** state) {
  (void)state;
  uint64_t off[2];
  air_pack_result_t res;
  air_pack_buffer_t backwards = {5, 4, 64};
  air_status_t s = air_pack_plan(NULL, &backwards, 1, NULL, off, &res);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);

  air_pack_buffer_t huge = {0, 1, UINT64_MAX - 5};
  s = air_pack_plan(NULL, &huge, 1, NULL, off, &res);
  assert_int_equal(air_status_code(s), AIR_STATUS_OUT_OF_RANGE);
  air_status_free(s);

  /* Each fits, together they pass 2^64. */
  air_pack_buffer_t two[] = {{0, 2, 1ull << 63}, {1, 3, 1ull << 63}};
  s = air_pack_plan(NULL, two, 2, NULL, off, &res);
  assert_int_equal(air_status_code(s), AIR_STATUS_OUT_OF_RANGE);
  air_status_free(s);
  uint64_t lb;
  s = air_pack_lower_bound(NULL, two, 2, 64, &lb);
  assert_int_equal(air_status_code(s), AIR_STATUS_OUT_OF_RANGE);
  air_status_free(s);

  /* Large but representable: plans fine, offsets do not wrap. */
  air_pack_buffer_t big[] = {{0, 2, 1ull << 62}, {1, 3, 1ull << 62}};
  assert_null(air_pack_plan(NULL, big, 2, NULL, off, &res));
  assert_int_equal(res.arena_size, 1ull << 63);
}

static void test_check_catches_bad_plans(void** state) {
  (void)state;
  air_pack_buffer_t b[] = {{0, 4, 64}, {2, 6, 64}, {6, 9, 64}};
  uint64_t good[] = {0, 64, 0};
  assert_null(air_pack_check(NULL, b, 3, 64, good, 128));
  uint64_t overlap[] = {0, 0, 64};
  air_status_t s = air_pack_check(NULL, b, 3, 64, overlap, 128);
  assert_int_equal(air_status_code(s), AIR_STATUS_INTERNAL);
  assert_non_null(strstr(air_status_message(s), "overlap"));
  air_status_free(s);
  uint64_t partial[] = {0, 32, 0}; /* misaligned and overlapping */
  s = air_pack_check(NULL, b, 3, 64, partial, 128);
  assert_int_equal(air_status_code(s), AIR_STATUS_INTERNAL);
  air_status_free(s);
  s = air_pack_check(NULL, b, 3, 64, good, 64); /* outside the arena */
  assert_int_equal(air_status_code(s), AIR_STATUS_INTERNAL);
  air_status_free(s);
}

static void test_out_of_memory_is_an_error(void** state) {
  (void)state;
  size_t n;
  air_pack_buffer_t* b = pack_gen_random(200, 41, &n);
  assert_non_null(b);
  uint64_t* off = calloc(n, sizeof *off);
  int succeeded = 0;
  for (int k = 0; k < 60 && !succeeded; ++k) {
    test_budget_t budget;
    test_budget_init(&budget, k);
    air_allocator_t a = budget.allocator;
    air_pack_options_t opts = {.search_budget = 200000};
    air_pack_result_t res;
    air_status_t s = air_pack_plan(&a, b, n, &opts, off, &res);
    if (!s) {
      succeeded = 1;
      assert_null(air_pack_check(NULL, b, n, 64, off, res.arena_size));
    } else {
      assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
      air_status_free(s);
    }
  }
  assert_true(succeeded);
  free(off);
  free(b);
}

/* ---- CSV ------------------------------------------------------------------ */

static void expect_csv_error(const char* text, const char* fragment) {
  air_pack_instance_t in;
  air_status_t s = air_pack_csv_parse(NULL, text, strlen(text), "in.csv", &in);
  if (!s) fail_msg("accepted: %s", text);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  if (!strstr(air_status_message(s), fragment))
    fail_msg("message '%s' lacks '%s'", air_status_message(s), fragment);
  air_status_free(s);
}

static void test_csv_errors(void** state) {
  (void)state;
  expect_csv_error("", "in.csv:1:1: error: empty");
  expect_csv_error("\n\n", "error: empty");
  expect_csv_error("id,lower,upper\n0,1,2\n", "in.csv:1:1: error: missing column 'size'");
  expect_csv_error("id,lower,upper,bytes\n", "in.csv:1:16: error: unknown column 'bytes'");
  expect_csv_error("id,lower,upper,size\n0,1,x2,3\n",
                   "in.csv:2:5: error: upper 'x2' is not a number");
  expect_csv_error("id,lower,upper,size\n0,1,2,3\n1,-1,2,3\n",
                   "in.csv:3:3: error: lower '-1' is negative");
  expect_csv_error("id,lower,upper,size\n0,5,5,3\n", "in.csv:2:1: error: upper 5 must be greater");
  expect_csv_error("id,lower,upper,size\n0,6,5,3\n", "must be greater than lower");
  expect_csv_error("id,lower,upper,size\n7,1,2,3\n\n7,2,3,4\n", "in.csv:4:1: error: duplicate id 7");
  expect_csv_error("id,lower,upper,size\n0,1,2\n", "in.csv:2:1: error: expected 4 fields");
  expect_csv_error("id,lower,upper,size\n0,1,2,3,4\n", "expected 4 fields");
  expect_csv_error("id,lower,upper,size\n0,1,2,99999999999999999999\n", "does not fit");
  expect_csv_error("id,lower,upper,size\n0,1,2,\n", "size '' is not a number");
  /* Fields are echoed short and printable (a binary file's bytes as \xNN). */
  expect_csv_error("id,lower,upper,size\n0,1,2,\x7f" "ELF\x01\x02\n",
                   "size '\\x7fELF\\x01\\x02' is not a number");
  expect_csv_error("id,lower,upper,size\n0,1,2,"
                   "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\n",
                   "size 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh...' is not");
}

static void test_csv_accepts(void** state) {
  (void)state;
  const char* text = "size, upper ,lower,id\r\n\r\n64,3,1,10\r\n100,9,0,2\n";
  air_pack_instance_t in;
  assert_null(air_pack_csv_parse(NULL, text, strlen(text), "x", &in));
  assert_int_equal(in.count, 2);
  assert_int_equal(in.ids[0], 10);
  assert_int_equal(in.buffers[0].lower, 1);
  assert_int_equal(in.buffers[0].upper, 3);
  assert_int_equal(in.buffers[0].size, 64);
  assert_int_equal(in.ids[1], 2);
  assert_int_equal(in.buffers[1].size, 100);
  air_pack_instance_free(&in);

  const char* header_only = "id,lower,upper,size\n";
  assert_null(air_pack_csv_parse(NULL, header_only, strlen(header_only), "x", &in));
  assert_int_equal(in.count, 0);
  air_pack_instance_free(&in);

  air_status_t s = air_pack_csv_read(NULL, "/nonexistent/dir/x.csv", &in);
  assert_int_equal(air_status_code(s), AIR_STATUS_NOT_FOUND);
  air_status_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_csv_errors),
      cmocka_unit_test(test_csv_accepts),
      cmocka_unit_test(test_empty_and_single),
      cmocka_unit_test(test_zero_size_and_empty_lifetime),
      cmocka_unit_test(test_lower_bound_half_open),
      cmocka_unit_test(test_bad_input_is_an_error),
      cmocka_unit_test(test_check_catches_bad_plans),
      cmocka_unit_test(test_out_of_memory_is_an_error),
      cmocka_unit_test(test_alignment_option),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_generated_instances),
      cmocka_unit_test(test_traces_within_one_percent),
      cmocka_unit_test(test_challenging_within_fifteen_percent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

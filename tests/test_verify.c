/* The verifier on text: every rule against a failing program and a close passing
 * one (tests/data/verify), the valid programs of tests/data/programs and samples/
 * (no error), an unknown target, and all violations reported in order. Hand-built
 * IR for what text cannot express is in test_verify_ir.c; malformed, randomly
 * corrupted and million-op IR in test_verify_robust.c.
 *
 * A data file starts with `// RULE: <id>` (`none` for a program that must
 * verify), optionally `// TARGET: <t>` and `// LINE: <n>`; a line ending in
 * `// ERROR` is also an expected error line. Every expected line must carry an
 * error `[id]` (`// ERROR [other-id]` names a different rule for that line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "support/files.h"
#include "test_util.h"

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"
#include "runtime/verify/verify.h"

/* Rule ids of verify.c; each must have a failing data file or a unit test. */
static const char* const k_rules[] = {
    "structure",      "nesting",         "isolation",          "dominance",
    "symbol",         "token-list",      "launch-concurrency", "launch-token-scope",
    "token-conflict", "async-result",    "memory-space",       "dma-lists",
    "rank",           "broadcast-shape", "channel-type",       "undeclared-channel",
    "execute-region", "channel-balance", "deadlock",           "target-limit",
};
#define N_RULES (sizeof(k_rules) / sizeof(k_rules[0]))

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

/* True when `msg` has a line starting with "<file>:<line>:" that names [rule]. */
static bool has_error(const char* msg, const char* file, uint32_t line, const char* rule) {
  char pre[512], tag[64];
  snprintf(pre, sizeof pre, "%s:%u:", file, line);
  snprintf(tag, sizeof tag, "[%s]", rule);
  for (const char* l = msg; l && *l;) {
    const char* e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    if ((!line || strncmp(l, pre, strlen(pre)) == 0)) {
      const char* t = strstr(l, tag);
      if (t && t < l + n) return true;
    }
    l = e ? e + 1 : NULL;
  }
  return false;
}


/* Calls fn on each `// -----` separated part of a file. Returns #parts. */
typedef void (*part_fn)(const char* path, air_program_t* p, const char* text, void* user);
static int for_each_part(air_context_t* ctx, const char* path, part_fn fn, void* user) {
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  int parts = 0;
  uint32_t line = 1;
  for (char* s = text; s;) {
    char* sep = strstr(s, "\n// -----");
    size_t n = sep ? (size_t)(sep - s) + 1 : strlen(s);
    air_parse_options_t o = {0};
    o.filename = path;
    o.first_line = line;
    air_program_t* p = NULL;
    air_status_t st = air_program_parse(ctx, s, n, &o, &p);
    if (st) {
      print_error("%s: does not parse: %s\n", path, air_status_message(st));
      air_status_free(st);
      free(text);
      fail();
    }
    fn(path, p, s, user);
    air_program_destroy(p);
    parts++;
    for (size_t i = 0; i < n; ++i) line += s[i] == '\n';
    if (!sep) break;
    s = strchr(sep + 1, '\n');
    if (s) {
      ++s;
      line++;
    }
  }
  free(text);
  return parts;
}

/*---------------------------------------------------------------------------*/
/* Data files                                                                */
/*---------------------------------------------------------------------------*/

typedef struct data_case_t {
  char rule[64];
  char target[32];
  uint32_t lines[32];
  char line_rules[32][64]; /* `// ERROR [rule]`: that line's rule, else the file's */
  int n_lines;
  bool covered[N_RULES];
  int failures;
} data_case_t;

static void check_data_part(const char* path, air_program_t* p, const char* text, void* user) {
  data_case_t* c = user;
  c->rule[0] = c->target[0] = 0;
  c->n_lines = 0;
  uint32_t line = 1;
  for (const char* l = text; l && *l; ++line) {
    const char* e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 511 ? n : 511), l);
    if (sscanf(buf, "// RULE: %63s", c->rule) == 1) {
    } else if (sscanf(buf, "// TARGET: %31s", c->target) == 1) {
    } else if (strncmp(buf, "// LINE:", 8) == 0 && c->n_lines < 32) {
      c->line_rules[c->n_lines][0] = 0;
      c->lines[c->n_lines++] = (uint32_t)strtoul(buf + 8, NULL, 10);
    } else if (strstr(buf, "// ERROR") && buf[0] != '/' && c->n_lines < 32) {
      c->line_rules[c->n_lines][0] = 0;
      sscanf(strstr(buf, "// ERROR"), "// ERROR [%63[^]]]", c->line_rules[c->n_lines]);
      c->lines[c->n_lines++] = line;
    }
    l = e ? e + 1 : NULL;
  }
  if (!c->rule[0]) {
    print_error("%s: no // RULE: line\n", path);
    c->failures++;
    return;
  }
  air_status_t st = air_program_verify(p, c->target[0] ? c->target : NULL, 0);
  const char* msg = air_status_message(st);
  if (strcmp(c->rule, "none") == 0) {
    if (st) {
      print_error("%s: must verify but fails:\n%s\n", path, msg);
      c->failures++;
    }
  } else if (air_status_code(st) != AIR_STATUS_FAILED_PRECONDITION) {
    print_error("%s: expected [%s] but verify gave %s: %s\n", path, c->rule,
                air_status_code_name(air_status_code(st)), msg);
    c->failures++;
  } else {
    bool ok = c->n_lines ? true : has_error(msg, path, 0, c->rule);
    for (int i = 0; i < c->n_lines; ++i) {
      const char* r = c->line_rules[i][0] ? c->line_rules[i] : c->rule;
      if (!has_error(msg, path, c->lines[i], r)) {
        print_error("%s:%u: expected [%s]\n", path, c->lines[i], r);
        ok = false;
      }
      for (size_t k = 0; k < N_RULES; ++k)
        if (strcmp(k_rules[k], r) == 0) c->covered[k] = true;
    }
    if (!ok) {
      print_error("%s: expected [%s]%s, got:\n%s\n", path, c->rule,
                  c->n_lines ? " at the marked lines" : "", msg);
      c->failures++;
    }
    for (size_t r = 0; r < N_RULES; ++r)
      if (strcmp(k_rules[r], c->rule) == 0) c->covered[r] = true;
  }
  air_status_free(st);
}

static void test_data_files(void** state) {
  air_context_t* ctx = *state;
  static char names[512][256];
  int n = test_list_files(AIR_TEST_DATA_DIR "/verify", ".mlir", names, 512);
  assert_true(n >= 40);
  data_case_t c;
  memset(&c, 0, sizeof(c));
  for (int i = 0; i < n; ++i) for_each_part(ctx, names[i], check_data_part, &c);
  /* async-result cannot be written in text (the parser binds every token);
   * test_async_result covers it. */
  for (size_t r = 0; r < N_RULES; ++r)
    if (!c.covered[r] && strcmp(k_rules[r], "async-result") != 0) {
      print_error("rule [%s] has no failing data file\n", k_rules[r]);
      c.failures++;
    }
  assert_int_equal(c.failures, 0);
}

static void check_valid_part(const char* path, air_program_t* p, const char* text, void* user) {
  int* failures = user;
  static const char* const targets[] = {NULL, "cpu"};
  for (int t = 0; t < 2; ++t) {
    air_status_t st = air_program_verify(p, targets[t], 0);
    if (st) {
      print_error("%s (target %s): valid program fails to verify:\n%s\n", path,
                  targets[t] ? targets[t] : "none", air_status_message(st));
      (*failures)++;
    }
    air_status_free(st);
  }
}

static void test_valid_programs(void** state) {
  air_context_t* ctx = *state;
  static char names[512][256];
  int failures = 0, files = 0;
  int n = test_list_files(AIR_TEST_DATA_DIR "/programs", ".mlir", names, 512);
  for (int i = 0; i < n; ++i, ++files) for_each_part(ctx, names[i], check_valid_part, &failures);
  n = test_list_files(AIR_SOURCE_DIR "/samples", ".mlir", names, 512);
  for (int i = 0; i < n; ++i, ++files) for_each_part(ctx, names[i], check_valid_part, &failures);
  assert_true(files >= 3);
  assert_int_equal(failures, 0);
}

static void test_unknown_target(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = NULL;
  assert_null(air_program_create(ctx, &p));
  air_status_t st = air_program_verify(p, "tpu", 0);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(air_status_message(st), "unknown target 'tpu'; known targets: "
                                                  "xcvc1902, xcve2302, xcve2802, npu1,"));
  air_status_free(st);
  static const char* const ok[] = {"cpu",       "npu1",     "npu2",     "mi300x",   "xcvc1902",
                                   "xcve2302",  "xcve2802", "npu1_4col", "npu1_1col", "npu2_7col"};
  for (int i = 0; i < 10; ++i) assert_null(air_program_verify(p, ok[i], 0));
  assert_null(air_program_verify(p, NULL, 0));
  air_program_destroy(p);
}

/* All violations are reported, one line each, sorted by location. */
static void test_collects_all(void** state) {
  static const char text[] =
      "air.channel @c [0]\n"
      "func.func @f() {\n"
      "  air.segment @s {\n"
      "  }\n"
      "  %c1 = arith.constant 1 : index\n"
      "  air.launch () in () {\n"
      "    air.herd @h tile (%x) in (%sx=%c1) {\n"
      "    }\n"
      "  }\n"
      "  return\n"
      "}\n";
  air_program_t* p = NULL;
  air_parse_options_t o = {0};
  o.filename = "all.mlir";
  assert_null(air_program_parse(*state, text, sizeof text - 1, &o, &p));
  air_status_t st = air_program_verify(p, NULL, 0);
  const char* msg = air_status_message(st);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  assert_true(has_error(msg, "all.mlir", 1, "broadcast-shape"));
  assert_true(has_error(msg, "all.mlir", 3, "nesting"));
  assert_true(has_error(msg, "all.mlir", 7, "nesting"));
  assert_true(has_error(msg, "all.mlir", 7, "isolation"));
  const char* a = strstr(msg, "all.mlir:1:");
  const char* b = strstr(msg, "all.mlir:3:");
  const char* c = strstr(msg, "all.mlir:7:");
  assert_true(a && b && c && a < b && b < c);
  air_status_free(st);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_files),      cmocka_unit_test(test_valid_programs),
      cmocka_unit_test(test_unknown_target),  cmocka_unit_test(test_collects_all),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

/* test_parse_limits.c - what the parser does with text that is not a program or is
 * too much of one (issue 15): words that are not `dialect.op` are errors at their
 * place, repeated warnings are capped with "... and N more", input echoed in a
 * message is short and printable, a diagnostic line has a length limit, the input
 * has a size limit (air_parse_options_t.max_bytes) for text and files, and unknown
 * flags of print and verify are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

#include "air/context.h"
#include "air/program.h"
#include "runtime/base/strbuf.h"
#include "runtime/ir/ir.h"

static air_status_t parse(air_context_t* ctx, const char* text, size_t len, uint64_t max_bytes,
                          air_program_t** out) {
  air_parse_options_t o = {0};
  o.filename = "in.mlir";
  o.max_bytes = max_bytes;
  return air_program_parse(ctx, text, len, &o, out);
}

/* Parses `text`, which must fail with `code` and a message starting `want_prefix`
 * and containing `substr`; returns nothing, frees everything. */
static void expect_fail(air_context_t* ctx, const char* text, size_t len, air_status_code_t code,
                        const char* want_prefix, const char* substr) {
  air_program_t* p = (air_program_t*)1;
  air_status_t s = parse(ctx, text, len, 0, &p);
  if (!s) fail_msg("accepted: %.60s", text);
  const char* msg = air_status_message(s);
  if (air_status_code(s) != code || strncmp(msg, want_prefix, strlen(want_prefix)) != 0 ||
      !strstr(msg, substr))
    fail_msg("want %s \"%s...%s\", got %s \"%s\"", air_status_code_name(code), want_prefix,
             substr, air_status_code_name(air_status_code(s)), msg);
  assert_null(p);
  air_status_free(s);
}

/* The longest line of a message. */
static size_t longest_line(const char* msg) {
  size_t best = 0;
  while (*msg) {
    const char* nl = strchr(msg, '\n');
    size_t n = nl ? (size_t)(nl - msg) : strlen(msg);
    if (n > best) best = n;
    msg += n + (nl != NULL);
  }
  return best;
}

static void test_words_are_not_operations(void** state) {
  air_context_t* ctx = *state;
  /* The text of issue 15, and words at other places of a file. */
  expect_fail(ctx, "hello world\n", 12, AIR_STATUS_INVALID_ARGUMENT, "in.mlir:1:1: error: ",
              "expected an operation, found 'hello'");
  const char* later = "air.channel @c [1]\nfunc.func @f() {\n  return\n}\nfoo {}\n";
  expect_fail(ctx, later, strlen(later), AIR_STATUS_INVALID_ARGUMENT, "in.mlir:5:1: error: ",
              "found 'foo'");
  const char* in_body = "func.func @f() {\n  nonsense\n  return\n}\n";
  expect_fail(ctx, in_body, strlen(in_body), AIR_STATUS_INVALID_ARGUMENT, "in.mlir:2:3: error: ",
              "expected an operation, found 'nonsense'");
  /* Spelled like an op but malformed as a name: a trailing or doubled dot. */
  expect_fail(ctx, "test. {}\n", 9, AIR_STATUS_INVALID_ARGUMENT, "in.mlir:1:1: error: ",
              "expected an operation");
  expect_fail(ctx, "a..b {}\n", 8, AIR_STATUS_INVALID_ARGUMENT, "in.mlir:1:1: error: ",
              "expected an operation");

  /* `dialect.op` at module level is another dialect's op: kept, with a warning. */
  air_program_t* p = NULL;
  const char* other = "test.op {attr = 1}\nfunc.func @f() {\n  return\n}\n";
  assert_null(parse(ctx, other, strlen(other), 0, &p));
  assert_int_equal(air_program_warning_count(p), 1);
  assert_non_null(strstr(air_program_warning(p, 0),
                         "in.mlir:1:1: warning: operation 'test.op' is not supported"));
  air_program_destroy(p);
}

static void test_warnings_capped(void** state) {
  air_context_t* ctx = *state;
  air_sb_t sb;
  air_sb_init(&sb, air_context_allocator(ctx));
  enum { LINES = 2500 };
  for (int i = 0; i < LINES; ++i) air_sb_printf(&sb, "test.op%d {}\n", i);
  assert_false(sb.oom);
  air_program_t* p = NULL;
  assert_null(parse(ctx, sb.data, sb.len, 0, &p));
  size_t n = air_program_warning_count(p);
  assert_int_equal(n, AIR_IR_MAX_WARNINGS + 1);
  for (size_t i = 0; i < AIR_IR_MAX_WARNINGS; ++i) {
    char want[64];
    snprintf(want, sizeof want, "in.mlir:%zu:1: warning: operation 'test.op%zu'", i + 1, i);
    assert_non_null(strstr(air_program_warning(p, i), want));
  }
  char last[96];
  snprintf(last, sizeof last, "in.mlir: warning: ... and %d more warnings",
           LINES - AIR_IR_MAX_WARNINGS);
  assert_string_equal(air_program_warning(p, n - 1), last);
  air_program_destroy(p);
  /* Exactly the cap: no summary line. */
  air_sb_clear(&sb);
  for (int i = 0; i < AIR_IR_MAX_WARNINGS; ++i) air_sb_printf(&sb, "test.op%d {}\n", i);
  assert_null(parse(ctx, sb.data, sb.len, 0, &p));
  assert_int_equal(air_program_warning_count(p), AIR_IR_MAX_WARNINGS);
  air_program_destroy(p);
  air_sb_free(&sb);
}

static void test_echoed_input_is_short(void** state) {
  air_context_t* ctx = *state;
  enum { BIG = 1 << 20 };
  char* text = malloc(BIG + 64);
  assert_non_null(text);
  /* A 1 MiB word: the error quotes its start, not all of it. */
  memset(text, 'x', BIG);
  air_program_t* p = NULL;
  air_status_t s = parse(ctx, text, BIG, 0, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "found 'xxxxxxxx"));
  assert_non_null(strstr(air_status_message(s), "...'"));
  assert_true(strlen(air_status_message(s)) < 300);
  air_status_free(s);
  /* The same as another dialect's op name: kept whole (it is the op), quoted short. */
  memcpy(text, "test.", 5);
  memcpy(text + BIG, " {}\n", 5);
  assert_null(parse(ctx, text, BIG + 4, 0, &p));
  assert_int_equal(air_program_warning_count(p), 1);
  assert_true(strlen(air_program_warning(p, 0)) < 300);
  air_program_destroy(p);
  /* A 1 MiB value name: an undefined use is reported, quoted short. */
  const char* head = "func.func @f() {\n  %x = arith.addi %";
  size_t h = strlen(head);
  memcpy(text, head, h);
  memset(text + h, 'v', BIG - h - 64);
  strcpy(text + BIG - 64, ", %y : index\n  return\n}\n");
  s = parse(ctx, text, strlen(text), 0, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "in.mlir:2:"));
  assert_true(strlen(air_status_message(s)) < 300);
  air_status_free(s);
  /* Bytes that are not printable come back as \xNN. */
  s = parse(ctx, "\x01\x02 {}", 5, 0, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "\\x01"));
  air_status_free(s);
  free(text);

  /* air_quote itself: short, printable, marked when cut. */
  char q[AIR_QUOTE_BUF];
  assert_string_equal(air_quote(q, sizeof q, "ab\tc", 4), "ab\\x09c");
  char long_in[200];
  memset(long_in, 'z', sizeof long_in);
  air_quote(q, sizeof q, long_in, sizeof long_in);
  assert_int_equal(strlen(q), AIR_QUOTE_MAX + 3);
  assert_string_equal(q + AIR_QUOTE_MAX, "...");
  char tiny[12];
  air_quote(tiny, sizeof tiny, "\xff\xff\xff\xff", 4);
  assert_true(strlen(tiny) < sizeof tiny);
}

/* A diagnostic that would quote a huge name unshortened (the verifier names
 * symbols whole) is cut at AIR_IR_MAX_DIAG bytes per line. */
static void test_diagnostic_lines_capped(void** state) {
  air_context_t* ctx = *state;
  enum { NAME = 100000 };
  air_sb_t sb;
  air_sb_init(&sb, air_context_allocator(ctx));
  /* A channel nobody gets from: the balance rule names it, whatever its length. */
  air_sb_puts(&sb, "air.channel @");
  for (int i = 0; i < NAME; ++i) air_sb_putc(&sb, 'c');
  air_sb_puts(&sb, " [1]\nfunc.func @f() {\n  %c0 = arith.constant 0 : index\n"
                   "  %b = memref.alloc() : memref<4xf32>\n"
                   "  air.launch () in () args(%x=%b) : memref<4xf32> {\n"
                   "    air.channel.put @");
  for (int i = 0; i < NAME; ++i) air_sb_putc(&sb, 'c');
  air_sb_puts(&sb, "[] (%x[] [] []) : (memref<4xf32>)\n  }\n  return\n}\n");
  assert_false(sb.oom);
  air_program_t* p = NULL;
  assert_null(parse(ctx, sb.data, sb.len, 0, &p));
  air_status_t s = air_program_verify(p, NULL, 0);
  assert_non_null(s);
  size_t longest = longest_line(air_status_message(s));
  if (longest > AIR_IR_MAX_DIAG + 200)
    fail_msg("a %zu-byte line: %.200s", longest, air_status_message(s));
  assert_non_null(strstr(air_status_message(s), "..."));
  air_status_free(s);
  air_program_destroy(p);
  air_sb_free(&sb);
}

static void test_size_limit(void** state) {
  air_context_t* ctx = *state;
  const char* text = "func.func @f() {\n  return\n}\n";
  size_t n = strlen(text);
  air_program_t* p = (air_program_t*)1;
  air_status_t s = parse(ctx, text, n, n - 1, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
  char want[128];
  snprintf(want, sizeof want, "in.mlir: error: the input is %zu bytes, more than the limit of %zu "
                              "bytes (air_parse_options_t.max_bytes)", n, n - 1);
  assert_string_equal(air_status_message(s), want);
  assert_null(p);
  air_status_free(s);
  assert_null(parse(ctx, text, n, n, &p)); /* exactly the limit */
  air_program_destroy(p);
  assert_null(parse(ctx, text, n, UINT64_MAX, &p));
  air_program_destroy(p);
  /* The default limit applies without options too (the text is not read: the
   * length alone is refused). */
  s = air_program_parse(ctx, text, (size_t)AIR_PARSE_DEFAULT_MAX_BYTES + 1, NULL, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
  assert_non_null(strstr(air_status_message(s), "the limit of 256 MiB"));
  air_status_free(s);

  /* Files: a regular file over the limit, a stream that never ends, a directory. */
  char path[] = "/tmp/air_parse_limits_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, n), (ssize_t)n);
  close(fd);
  air_parse_options_t o = {0};
  o.max_bytes = 8;
  s = air_program_parse_file(ctx, path, &o, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
  assert_non_null(strstr(air_status_message(s), ": error: the input is "));
  air_status_free(s);
  o.max_bytes = 0;
  assert_null(air_program_parse_file(ctx, path, &o, &p));
  air_program_destroy(p);
  unlink(path);
  o.max_bytes = 1 << 20;
  s = air_program_parse_file(ctx, "/dev/zero", &o, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
  assert_non_null(strstr(air_status_message(s), "/dev/zero: error: the input is over 1048576 "
                                                "bytes, more than the limit of 1 MiB"));
  air_status_free(s);
  s = air_program_parse_file(ctx, "/tmp", NULL, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_string_equal(air_status_message(s), "/tmp: error: is a directory, not a file");
  air_status_free(s);
  s = air_program_parse_file(ctx, "/nonexistent/x.mlir", NULL, &p);
  assert_int_equal(air_status_code(s), AIR_STATUS_NOT_FOUND);
  assert_non_null(strstr(air_status_message(s), "/nonexistent/x.mlir: error: cannot open file"));
  air_status_free(s);
}

static void test_unknown_flags(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = NULL;
  assert_null(parse(ctx, "func.func @f() {\n  return\n}\n", 27, 0, &p));
  air_status_t s = air_program_verify(p, NULL, 1);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(air_status_message(s), "unknown flags 0x1"));
  air_status_free(s);
  char* text = NULL;
  s = air_program_print_to_string(p, 4, &text, NULL);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_null(text);
  air_status_free(s);
  assert_null(air_program_verify(p, NULL, 0));
  assert_null(air_program_print_to_string(p, 0, &text, NULL));
  air_program_free_string(p, text);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_words_are_not_operations, test_context_setup,
                                      test_context_teardown),
      cmocka_unit_test_setup_teardown(test_warnings_capped, test_context_setup,
                                      test_context_teardown),
      cmocka_unit_test_setup_teardown(test_echoed_input_is_short, test_context_setup,
                                      test_context_teardown),
      cmocka_unit_test_setup_teardown(test_diagnostic_lines_capped, test_context_setup,
                                      test_context_teardown),
      cmocka_unit_test_setup_teardown(test_size_limit, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_unknown_flags, test_context_setup,
                                      test_context_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

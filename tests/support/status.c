/* status.c - test checks on air_status_t results. */
#include "support/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

void test_check(air_status_t st) {
  if (st) {
    fprintf(stderr, "unexpected failure: %s\n", air_status_message(st));
    air_status_free(st);
    fail();
  }
}

void test_expect_status(air_status_t st, air_status_code_t code, const char* needle) {
  if (code != AIR_STATUS_OK) assert_non_null(st);
  if (air_status_code(st) != code || (needle && !strstr(air_status_message(st), needle)))
    print_error("expected %s%s%s%s, got %s: %s\n", air_status_code_name(code),
                needle ? " with \"" : "", needle ? needle : "", needle ? "\"" : "",
                air_status_code_name(air_status_code(st)), air_status_message(st));
  assert_int_equal(air_status_code(st), code);
  if (needle) assert_non_null(strstr(air_status_message(st), needle));
  air_status_free(st);
}

void test_expect_in(const char* msg, const char* fmt, ...) {
  char want[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  if (!strstr(msg, want)) fprintf(stderr, "expected \"%s\" in:\n%s\n", want, msg);
  assert_non_null(strstr(msg, want));
}

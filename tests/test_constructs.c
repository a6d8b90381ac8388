/* test_constructs.c - the constructs of mlir-air's programs beyond the core set
 * (tests/data/constructs, one file per construct, written in the form mlir-air's
 * passes print): every file parses; prints as written (up to spacing and
 * comments) and back to a fixed point with the same op structure; verifies as its
 * `// VERIFY:` line says. The `// RUN:` entries run on the CPU driver in
 * test_constructs_run.c. The test prints how many files passed each stage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/files.h"
#include "test_util.h"

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"

#define CONSTRUCTS AIR_TEST_DATA_DIR "/constructs"

/* The text with `//` comment lines dropped and every run of spaces made one, so
 * mlir-air's double spaces (`@seg_0  args`) compare equal to the printer's. */
static char* normalise(const char* text) {
  size_t n = strlen(text);
  char* out = malloc(n + 1);
  assert_non_null(out);
  size_t o = 0;
  for (const char* l = text; *l;) {
    const char* e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    const char* p = l;
    while (p < l + len && *p == ' ') ++p;
    bool comment = p + 1 < l + len && p[0] == '/' && p[1] == '/';
    if (!comment && p < l + len) {
      bool space = false;
      for (const char* q = l; q < l + len; ++q) {
        if (*q == ' ') {
          space = true;
          continue;
        }
        if (space && o && out[o - 1] != '\n') out[o++] = ' ';
        space = false;
        out[o++] = *q;
      }
      out[o++] = '\n';
    }
    l = e ? e + 1 : l + len;
  }
  out[o] = 0;
  return out;
}

static uint32_t count_ops(const air_op_t* op) {
  uint32_t n = 1;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      n += count_ops(o);
  return n;
}

static char* print(air_program_t* p) {
  char* text = NULL;
  size_t len = 0;
  air_status_t st = air_program_print_to_string(p, 0, &text, &len);
  if (st) {
    print_error("print failed: %s\n", air_status_message(st));
    air_status_free(st);
    return NULL;
  }
  char* copy = malloc(len + 1);
  assert_non_null(copy);
  memcpy(copy, text, len);
  copy[len] = 0;
  air_program_free_string(p, text);
  return copy;
}

typedef struct tally_t {
  int files, parsed, as_written, round_trip, verified, failures;
} tally_t;

static void check_file(air_context_t* ctx, const char* path, tally_t* t) {
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  t->files++;
  air_parse_options_t o = {0};
  o.filename = path;
  air_program_t* p = NULL;
  air_status_t st = air_program_parse(ctx, text, len, &o, &p);
  if (st) {
    print_error("%s: does not parse: %s\n", path, air_status_message(st));
    air_status_free(st);
    t->failures++;
    free(text);
    return;
  }
  t->parsed++;
  char* first = print(p);
  if (!first) {
    t->failures++;
  } else {
    /* As written: the files are in mlir-air's printed form. */
    char* a = normalise(text);
    char* b = normalise(first);
    if (strcmp(a, b) == 0) {
      t->as_written++;
    } else {
      size_t i = 0;
      while (a[i] && a[i] == b[i]) ++i;
      size_t from = i > 60 ? i - 60 : 0;
      print_error("%s: does not print as written; from byte %zu:\n  written: %.120s\n  "
                  "printed: %.120s\n",
                  path, i, a + from, b + from);
      t->failures++;
    }
    free(a);
    free(b);
    /* Fixed point with the same structure. */
    air_program_t* q = NULL;
    st = air_program_parse(ctx, first, strlen(first), &o, &q);
    if (st) {
      print_error("%s: printed text does not parse: %s\n", path, air_status_message(st));
      air_status_free(st);
      t->failures++;
    } else {
      char* second = print(q);
      if (second && strcmp(first, second) == 0 &&
          count_ops(p->module) == count_ops(q->module)) {
        t->round_trip++;
      } else {
        print_error("%s: print is not a fixed point\n", path);
        t->failures++;
      }
      free(second);
      air_program_destroy(q);
    }
    free(first);
  }
  /* `// VERIFY: ok`, or the rule every marked line (`// ERROR`) must break. */
  char want[64] = "";
  const char* v = strstr(text, "// VERIFY: ");
  if (v) sscanf(v, "// VERIFY: %63s", want);
  st = air_program_verify(p, NULL, 0);
  if (!want[0]) {
    print_error("%s: no // VERIFY: line\n", path);
    t->failures++;
  } else if (strcmp(want, "ok") == 0) {
    if (st) {
      print_error("%s: must verify but fails:\n%s\n", path, air_status_message(st));
      t->failures++;
    } else {
      t->verified++;
    }
  } else {
    char tag[80];
    snprintf(tag, sizeof tag, "[%s]", want);
    if (!st || !strstr(air_status_message(st), tag)) {
      print_error("%s: expected %s, got: %s\n", path, tag, st ? air_status_message(st) : "ok");
      t->failures++;
    } else {
      t->verified++;
    }
  }
  air_status_free(st);
  air_program_destroy(p);
  free(text);
}

static void test_constructs(void** state) {
  static char names[256][256];
  int n = test_list_files(CONSTRUCTS, ".mlir", names, 256);
  assert_true(n >= 14);
  tally_t t = {0};
  for (int i = 0; i < n; ++i) check_file(*state, names[i], &t);
  printf("constructs: %d files; %d parse, %d print as written, %d round-trip, %d verify as "
         "expected\n",
         t.files, t.parsed, t.as_written, t.round_trip, t.verified);
  assert_int_equal(t.failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constructs),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

/* parse_test.h - what the parser tests (test_parse.c, test_parse_forms.c,
 * test_parse_errors.c) share: parsing text or a file of the corpus, expecting an
 * error at line:col, finding ops, values, types and attributes of a parsed
 * program, listing a folder's programs. Header-only (static inline), like
 * test_util.h; include after <cmocka.h>. */
#ifndef AIR_TESTS_PARSE_TEST_H_
#define AIR_TESTS_PARSE_TEST_H_

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_util.h"

#include "air/context.h"
#include "runtime/ir/ir.h"
#include "runtime/text/parse.h"
#include "support/alloc.h"


#define PROGRAMS AIR_TEST_DATA_DIR "/programs"
#define SYNTAX AIR_TEST_DATA_DIR "/parse"

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

/* Parses `len` bytes as "<input>"; returns the status, *out the program or NULL. */
static inline air_status_t parse_n(air_context_t* ctx, const char* text, size_t len,
                            uint32_t first_line, air_program_t** out) {
  air_program_t* p = NULL;
  air_status_t s = air_ir_program_new(ctx, "<input>", &p);
  assert_null(s);
  s = air_parse(p, text, len, first_line);
  if (s) {
    air_ir_program_free(p);
    p = NULL;
  }
  *out = p;
  return s;
}

static inline air_program_t* parse_ok(air_context_t* ctx, const char* text) {
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, strlen(text), 1, &p);
  if (s) fail_msg("unexpected parse error: %s", air_status_message(s));
  return p;
}

static inline air_program_t* parse_file_ok(air_context_t* ctx, const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PROGRAMS, name);
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, len, 1, &p);
  free(text);
  if (s) fail_msg("%s: %s", name, air_status_message(s));
  return p;
}

/* Parses and requires `<input>:LINE:COL: error: ...SUBSTR...`. */
static inline void expect_error_at(air_context_t* ctx, const char* text, uint32_t line,
                                   uint32_t col, const char* substr) {
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, strlen(text), 1, &p);
  if (!s) {
    air_ir_program_free(p);
    fail_msg("expected an error containing \"%s\" for:\n%s", substr, text);
  }
  char want[64];
  snprintf(want, sizeof want, "<input>:%u:%u: error: ", line, col);
  const char* msg = air_status_message(s);
  if (strncmp(msg, want, strlen(want)) != 0 || !strstr(msg, substr))
    fail_msg("want \"%s...%s\", got \"%s\"", want, substr, msg);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
}

typedef struct find_t {
  air_opkind_t kind;
  int skip;
  air_op_t* found;
  int count;
} find_t;

static inline bool find_fn(air_op_t* op, void* user) {
  find_t* f = user;
  if (op->kind != f->kind) return true;
  f->count++;
  if (f->skip-- == 0) {
    f->found = op;
    return false;
  }
  return true;
}

/* The nth (0-based, pre-order) op of a kind. */
static inline air_op_t* nth_op(const air_program_t* p, air_opkind_t kind, int n) {
  find_t f = {kind, n, NULL, 0};
  air_ir_walk(p->module, find_fn, &f);
  if (!f.found) fail_msg("no %s #%d", air_opkind_name(kind), n);
  return f.found;
}

static inline int count_ops(const air_program_t* p, air_opkind_t kind) {
  find_t f = {kind, -1, NULL, 0};
  air_ir_walk(p->module, find_fn, &f);
  return f.count;
}

static inline const char* vname(const air_program_t* p, air_vid_t v) {
  const char* n = air_ir_value(p, v)->name;
  return n ? n : "";
}

static inline const air_type_info_t* vtype(const air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v));
}

static inline const air_attr_t* attr(const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  if (!a) fail_msg("%s has no attribute %s", air_opkind_name(op->kind), name);
  return a;
}

/* Checks list entry i: a value named `name`, or the literal `cst` when NULL. */
static inline void check_ix(const air_program_t* p, const air_ixlist_t* l, uint32_t i,
                     const char* name, int64_t cst) {
  assert_true(i < l->n);
  if (name) {
    assert_int_not_equal(l->items[i].value, 0);
    assert_string_equal(vname(p, l->items[i].value), name);
  } else {
    assert_int_equal(l->items[i].value, 0);
    assert_int_equal(l->items[i].cst, cst);
  }
}

static inline bool has_suffix(const char* s, const char* suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

typedef struct names_t {
  char name[64][128];
  int n;
} names_t;

static inline int cmp_name(const void* a, const void* b) { return strcmp(a, b); }

static inline void list_dir(const char* dir, names_t* out) {
  out->n = 0;
  DIR* d = opendir(dir);
  assert_non_null(d);
  for (struct dirent* e; (e = readdir(d));) {
    if (!has_suffix(e->d_name, ".mlir") || out->n == 64 || strlen(e->d_name) >= 128) continue;
    strcpy(out->name[out->n++], e->d_name);
  }
  closedir(d);
  qsort(out->name, (size_t)out->n, sizeof out->name[0], cmp_name);
}

#endif /* AIR_TESTS_PARSE_TEST_H_ */

/* The verifier: every rule against a failing program and a close passing one
 * (tests/data/verify), the valid programs of tests/data/programs and
 * samples/ (no error), hand-built IR for what text cannot express ([structure],
 * [dominance], [async-result] of builder IR), malformed IR that must not crash,
 * and a million-op program that must verify quickly.
 *
 * A data file starts with `// RULE: <id>` (`none` for a program that must
 * verify), optionally `// TARGET: <t>` and `// LINE: <n>`; a line ending in
 * `// ERROR` is also an expected error line. Every expected line must carry an
 * error `[id]` (`// ERROR [other-id]` names a different rule for that line). */
#include <dirent.h>
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

static bool has_rule(const char* msg, const char* rule) {
  char tag[64];
  snprintf(tag, sizeof tag, "[%s]", rule);
  return strstr(msg, tag) != NULL;
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

/* Lists the *.mlir files of a directory in name order. */
static int list_mlir(const char* dir, char names[][256], int max) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) && n < max;) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".mlir") == 0 && l < 200)
      snprintf(names[n++], 256, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, 256, (int (*)(const void*, const void*))strcmp);
  return n;
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
  int n = list_mlir(AIR_TEST_DATA_DIR "/verify", names, 512);
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
  int n = list_mlir(AIR_TEST_DATA_DIR "/programs", names, 512);
  for (int i = 0; i < n; ++i, ++files) for_each_part(ctx, names[i], check_valid_part, &failures);
  n = list_mlir(AIR_SOURCE_DIR "/samples", names, 512);
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

/*---------------------------------------------------------------------------*/
/* Hand-built IR                                                             */
/*---------------------------------------------------------------------------*/

typedef struct hb_t {
  air_program_t* p;
  uint32_t line;
  air_tid_t index, f32, token, l3, l1;
} hb_t;

static void hb_init(hb_t* h, air_context_t* ctx) {
  memset(h, 0, sizeof(*h));
  assert_null(air_ir_program_new(ctx, "hand.mlir", &h->p));
  int64_t shape[1] = {64};
  h->index = air_ir_type_scalar(h->p, AIR_ELEM_INDEX);
  h->f32 = air_ir_type_scalar(h->p, AIR_ELEM_F32);
  h->token = air_ir_type_token(h->p, false);
  h->l3 = air_ir_type_memref(h->p, AIR_ELEM_F32, 1, shape, AIR_MEM_L3, NULL);
  h->l1 = air_ir_type_memref(h->p, AIR_ELEM_F32, 1, shape, AIR_MEM_L1, NULL);
}

static air_block_t* hb_body(const hb_t* h) {
  return h->p->module->regions[0];
}

static air_op_t* hb_op(hb_t* h, air_block_t* b, air_opkind_t k, uint32_t nops, uint32_t nres,
                       uint32_t nreg, uint32_t nlists) {
  air_op_t* op = air_ir_op_new(h->p, k, ++h->line, 3, nops, nres, nreg, nlists);
  assert_non_null(op);
  if (b) air_ir_block_append(b, op);
  return op;
}

static air_vid_t hb_res(hb_t* h, air_op_t* op, uint32_t i, air_tid_t t, const char* name) {
  air_vid_t v = air_ir_value_new(h->p, t, op, NULL, i, name);
  assert_true(v != 0);
  op->results[i] = v;
  return v;
}

static air_block_t* hb_region(hb_t* h, air_op_t* op, uint32_t r, uint32_t nargs,
                              const air_tid_t* types) {
  air_block_t* b = air_ir_block_new(h->p, op, nargs);
  assert_non_null(b);
  op->regions[r] = b;
  for (uint32_t i = 0; i < nargs; ++i) {
    b->args[i] = air_ir_value_new(h->p, types[i], NULL, b, i, NULL);
    assert_true(b->args[i] != 0);
  }
  return b;
}

static air_vid_t hb_const(hb_t* h, air_block_t* b, int64_t v) {
  air_op_t* op = hb_op(h, b, AIR_OP_CONSTANT, 0, 1, 0, 0);
  op->value.kind = AIR_ATTR_INT;
  op->value.type = h->index;
  op->value.i = v;
  return hb_res(h, op, 0, h->index, NULL);
}

static void hb_term(hb_t* h, air_block_t* b, air_opkind_t k) {
  hb_op(h, b, k, 0, 0, 0, 0);
}

/* func @f(%a: memref<64xf32>) with an empty body; returns the body. */
static air_block_t* hb_func(hb_t* h, air_op_t** out) {
  air_op_t* f = hb_op(h, hb_body(h), AIR_OP_FUNC, 0, 0, 1, 0);
  f->sym = "f";
  f->types = air_ir_alloc(h->p, sizeof(air_tid_t));
  f->types[0] = h->l3;
  f->n_types = 1;
  f->iaux[0] = 1;
  if (out) *out = f;
  return hb_region(h, f, 0, 1, &h->l3);
}

/* A hierarchy op with n dims whose sizes are `sizes`, args `args`. */
static air_op_t* hb_hier(hb_t* h, air_block_t* b, air_opkind_t k, uint32_t n,
                         const air_vid_t* sizes, uint32_t nargs, const air_vid_t* args, bool async,
                         air_block_t** body) {
  air_op_t* op = hb_op(h, b, k, n + nargs, async ? 1 : 0, 1, 0);
  op->iaux[0] = n;
  if (async) {
    op->flags |= AIR_OPF_ASYNC;
    hb_res(h, op, 0, h->token, "t");
  }
  air_tid_t types[16] = {0}; /* gcc -O3 false maybe-uninitialized */
  for (uint32_t i = 0; i < n; ++i) {
    op->operands[i] = sizes[i];
    types[i] = types[n + i] = h->index;
  }
  for (uint32_t i = 0; i < nargs; ++i) {
    op->operands[n + i] = args[i];
    types[2 * n + i] = air_ir_value_type(h->p, args[i]);
  }
  *body = hb_region(h, op, 0, 2 * n + nargs, types);
  return op;
}

static air_op_t* hb_chan_io(hb_t* h, air_block_t* b, air_opkind_t k, const char* ch,
                            air_vid_t index, air_vid_t mem, bool async) {
  air_op_t* op = hb_op(h, b, k, 2, async ? 1 : 0, 0, 3);
  op->sym = ch;
  op->iaux[0] = 1;
  op->operands[0] = index;
  op->operands[1] = mem;
  if (async) {
    op->flags |= AIR_OPF_ASYNC;
    hb_res(h, op, 0, h->token, k == AIR_OP_PUT ? "p" : "g");
  }
  return op;
}

/* A valid program exercising most op classes:
 *   air.channel @c [2]
 *   func @f(%a) { %t = launch async args(%a) { scf.for %i = 0 to 2 { put @c[%i] }
 *                 segment { herd tile(%x) in (2) { %l1 = alloc; get @c[%x] } } }
 *                 wait_all [%t]; return } */
static void hb_valid(hb_t* h) {
  air_op_t* ch = hb_op(h, hb_body(h), AIR_OP_CHANNEL, 0, 0, 0, 1);
  ch->sym = "c";
  assert_true(air_ir_list_init(h->p, &ch->lists[0], 1));
  ch->lists[0].items[0].cst = 2;
  air_block_t* fb = hb_func(h, NULL);
  air_vid_t arg = fb->args[0];
  air_block_t* lb;
  air_op_t* launch = hb_hier(h, fb, AIR_OP_LAUNCH, 0, NULL, 1, &arg, true, &lb);
  air_vid_t a = lb->args[0];
  air_vid_t c0 = hb_const(h, lb, 0), c1 = hb_const(h, lb, 1), c2 = hb_const(h, lb, 2);
  air_op_t* loop = hb_op(h, lb, AIR_OP_FOR, 3, 0, 1, 0);
  loop->operands[0] = c0;
  loop->operands[1] = c2;
  loop->operands[2] = c1;
  air_block_t* body = hb_region(h, loop, 0, 1, &h->index);
  hb_chan_io(h, body, AIR_OP_PUT, "c", body->args[0], a, true);
  hb_term(h, body, AIR_OP_YIELD);
  air_block_t* sb;
  hb_hier(h, lb, AIR_OP_SEGMENT, 0, NULL, 0, NULL, false, &sb);
  air_vid_t s2 = hb_const(h, sb, 2);
  air_block_t* hbk;
  hb_hier(h, sb, AIR_OP_HERD, 1, &s2, 0, NULL, false, &hbk);
  air_op_t* al = hb_op(h, hbk, AIR_OP_ALLOC, 0, 1, 0, 0);
  air_vid_t l1 = hb_res(h, al, 0, h->l1, "l1");
  hb_chan_io(h, hbk, AIR_OP_GET, "c", hbk->args[0], l1, false);
  hb_term(h, hbk, AIR_OP_HERD_TERM);
  hb_term(h, sb, AIR_OP_SEGMENT_TERM);
  hb_term(h, lb, AIR_OP_LAUNCH_TERM);
  air_op_t* w = hb_op(h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h->p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  hb_term(h, fb, AIR_OP_RETURN);
}

/* Verifies and checks that the message names `rule` (NULL: must pass). */
static void expect(hb_t* h, const char* rule) {
  air_status_t st = air_verify(h->p, NULL, 0);
  if (!rule) {
    if (st) print_error("unexpected: %s\n", air_status_message(st));
    assert_null(st);
  } else {
    assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
    if (!has_rule(air_status_message(st), rule))
      print_error("wanted [%s], got:\n%s\n", rule, air_status_message(st));
    assert_true(has_rule(air_status_message(st), rule));
  }
  air_status_free(st);
  air_ir_program_free(h->p);
  h->p = NULL;
}

static air_op_t* find_op(air_op_t* op, air_opkind_t k) {
  if (op->kind == k) return op;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next) {
      air_op_t* f = find_op(o, k);
      if (f) return f;
    }
  return NULL;
}

static void test_handbuilt_valid(void** state) {
  hb_t h;
  hb_init(&h, *state);
  hb_valid(&h);
  expect(&h, NULL);
}

static void test_structure(void** state) {
  hb_t h;
  /* arith.addi with one operand. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_vid_t c = hb_const(&h, fb, 1);
  air_op_t* add = hb_op(&h, fb, AIR_OP_ADDI, 1, 1, 0, 0);
  add->operands[0] = c;
  hb_res(&h, add, 0, h.index, "x");
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "structure");

  /* A segment body without its terminator. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  air_block_t* sb = seg->regions[0];
  sb->last = sb->last->prev;
  sb->last->next = NULL;
  expect(&h, "structure");

  /* Zero and out-of-range value ids. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* get = find_op(h.p->module, AIR_OP_GET);
  get->operands[0] = 0;
  get->operands[1] = h.p->n_values + 100;
  expect(&h, "structure");

  /* A herd body ended by segment_terminator. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->regions[0]->last->kind = AIR_OP_SEGMENT_TERM;
  expect(&h, "structure");

  /* The get's data operand is an index, not a memref. */
  hb_init(&h, *state);
  hb_valid(&h);
  get = find_op(h.p->module, AIR_OP_GET);
  get->operands[1] = get->operands[0];
  expect(&h, "structure");

  /* Function body arguments that do not match the signature. */
  hb_init(&h, *state);
  air_op_t* f;
  fb = hb_func(&h, &f);
  hb_term(&h, fb, AIR_OP_RETURN);
  f->iaux[0] = 0;
  f->n_types = 0;
  expect(&h, "structure");

  /* An execute whose terminator yields an index for a memref result. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  c = hb_const(&h, fb, 1);
  air_op_t* ex = hb_op(&h, fb, AIR_OP_EXECUTE, 0, 2, 1, 0);
  hb_res(&h, ex, 0, h.token, "t");
  hb_res(&h, ex, 1, h.l3, "m");
  air_block_t* eb = hb_region(&h, ex, 0, 0, NULL);
  air_op_t* et = hb_op(&h, eb, AIR_OP_EXECUTE_TERM, 1, 0, 0, 0);
  et->operands[0] = c;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "execute-region");

  /* A herd size that is not an index, and a hierarchy op with fewer operands
   * than dimensions. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  herd->operands[0] = find_op(h.p->module, AIR_OP_FUNC)->regions[0]->args[0];
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->iaux[0] = 5;
  expect(&h, "structure");
}

static void test_dominance(void** state) {
  hb_t h;
  /* %y = addi %x, %x before %x = constant. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_op_t* add = hb_op(&h, fb, AIR_OP_ADDI, 2, 1, 0, 0);
  hb_res(&h, add, 0, h.index, "y");
  air_vid_t x = hb_const(&h, fb, 1);
  add->operands[0] = add->operands[1] = x;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "dominance");

  /* A value of the then-region used in the else-region. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  air_op_t* cst = hb_op(&h, fb, AIR_OP_CONSTANT, 0, 1, 0, 0);
  cst->value.kind = AIR_ATTR_INT;
  cst->value.i = 1;
  air_vid_t cond = hb_res(&h, cst, 0, air_ir_type_scalar(h.p, AIR_ELEM_I1), "cond");
  air_op_t* iff = hb_op(&h, fb, AIR_OP_IF, 1, 0, 2, 0);
  iff->operands[0] = cond;
  air_block_t* tb = hb_region(&h, iff, 0, 0, NULL);
  air_block_t* eb = hb_region(&h, iff, 1, 0, NULL);
  air_vid_t inner = hb_const(&h, tb, 3);
  hb_term(&h, tb, AIR_OP_YIELD);
  air_op_t* use = hb_op(&h, eb, AIR_OP_ADDI, 2, 1, 0, 0);
  use->operands[0] = use->operands[1] = inner;
  hb_res(&h, use, 0, h.index, NULL);
  hb_term(&h, eb, AIR_OP_YIELD);
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "dominance");

  /* An op using its own result inside its region. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* launch = find_op(h.p->module, AIR_OP_LAUNCH);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  assert_true(air_ir_vlist_init(h.p, &seg->toks[AIR_TOK_DEP], 1));
  seg->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  expect(&h, "dominance");
}

static void test_async_result(void** state) {
  hb_t h;
  /* async without a token result. */
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0)->flags |= AIR_OPF_ASYNC;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");

  /* A token result without async. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  air_vid_t t = hb_res(&h, w, 0, h.token, "t");
  air_op_t* w2 = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w2->toks[AIR_TOK_DEP], 1));
  w2->toks[AIR_TOK_DEP].items[0] = t;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");

  /* An async token that is neither named nor used ... */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  w->flags |= AIR_OPF_ASYNC;
  hb_res(&h, w, 0, h.token, NULL);
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "async-result");
  /* ... is fine once named. */
  hb_init(&h, *state);
  fb = hb_func(&h, NULL);
  w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 1, 0, 0);
  w->flags |= AIR_OPF_ASYNC;
  hb_res(&h, w, 0, h.token, "done");
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, NULL);
}

static void test_token_list(void** state) {
  hb_t h;
  hb_init(&h, *state);
  air_block_t* fb = hb_func(&h, NULL);
  air_vid_t c = hb_const(&h, fb, 1);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = c;
  hb_term(&h, fb, AIR_OP_RETURN);
  expect(&h, "token-list");

  /* A dependency list on an arith op. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* launch = find_op(h.p->module, AIR_OP_LAUNCH);
  air_op_t* wait = find_op(h.p->module, AIR_OP_WAIT_ALL);
  air_op_t* cst = find_op(launch, AIR_OP_CONSTANT);
  cst->toks[AIR_TOK_DEP] = wait->toks[AIR_TOK_DEP];
  expect(&h, "token-list");
}

/* Broken links and shapes: reported as [structure], never a crash. */
static void test_malformed(void** state) {
  hb_t h;
  /* A wrong prev link. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* get = find_op(h.p->module, AIR_OP_GET);
  get->prev = NULL;
  expect(&h, "structure");
  /* A block's last pointer that is not its last op. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_block_t* hbk = find_op(h.p->module, AIR_OP_HERD)->regions[0];
  hbk->last = hbk->first;
  expect(&h, "structure");
  /* One block held by two regions. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  air_block_t** regs = air_ir_alloc(h.p, 2 * sizeof(*regs));
  regs[0] = regs[1] = seg->regions[0];
  seg->regions = regs;
  seg->n_regions = 2;
  expect(&h, "structure");
  /* A block whose parent is another op. */
  hb_init(&h, *state);
  hb_valid(&h);
  herd = find_op(h.p->module, AIR_OP_HERD);
  herd->regions[0]->parent = find_op(h.p->module, AIR_OP_LAUNCH);
  expect(&h, "structure");
  /* A missing region block, and region/result counts without arrays. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->regions[0] = NULL;
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* loop = find_op(h.p->module, AIR_OP_FOR);
  find_op(h.p->module, AIR_OP_ALLOC)->results = NULL;
  loop->regions = NULL;
  expect(&h, "structure");
  /* An unknown op kind, a value with no type, a value defined twice. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_ALLOC)->kind = (air_opkind_t)(AIR_OP_COUNT_ + 7);
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* al = find_op(h.p->module, AIR_OP_ALLOC);
  h.p->values[al->results[0]].type = 9999;
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  al = find_op(h.p->module, AIR_OP_ALLOC);
  get = find_op(h.p->module, AIR_OP_GET);
  air_op_t* c = find_op(h.p->module, AIR_OP_CONSTANT);
  c->results[0] = al->results[0];
  expect(&h, "structure");
  /* No module at all. */
  hb_init(&h, *state);
  air_op_t* m = h.p->module;
  h.p->module = NULL;
  air_status_t st = air_verify(h.p, NULL, 0);
  assert_true(has_rule(air_status_message(st), "structure"));
  air_status_free(st);
  h.p->module = m;
  air_ir_program_free(h.p);
  /* Nesting deeper than the verifier analyses. */
  hb_init(&h, *state);
  air_block_t* b = hb_func(&h, NULL);
  air_block_t* fb = b;
  /* Nested scf.if on a constant: well formed apart from the depth, so the depth
   * error is among the first errors the capped report keeps. */
  static air_block_t* blocks[1000];
  air_tid_t i1 = air_ir_type_scalar(h.p, AIR_ELEM_I1);
  air_op_t* cst = hb_op(&h, b, AIR_OP_CONSTANT, 0, 1, 0, 0);
  air_vid_t cond = hb_res(&h, cst, 0, i1, "true");
  cst->value.kind = AIR_ATTR_INT;
  cst->value.i = 1;
  cst->value.type = i1;
  for (int i = 0; i < 1000; ++i) {
    air_op_t* e = hb_op(&h, b, AIR_OP_IF, 1, 0, 1, 0);
    e->operands[0] = cond;
    b = blocks[i] = hb_region(&h, e, 0, 0, NULL);
  }
  for (int i = 1000; i-- > 0;) hb_term(&h, blocks[i], AIR_OP_YIELD);
  hb_term(&h, fb, AIR_OP_RETURN);
  st = air_verify(h.p, NULL, 0);
  assert_non_null(strstr(air_status_message(st), "nested more than"));
  air_status_free(st);
  air_ir_program_free(h.p);
}

/* Random corruption of a valid program: any kind over any operand layout,
 * random value ids, dimension counts and list lengths. Must never crash. */
static uint64_t rnd(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void collect(air_op_t* op, air_op_t** ops, int* n) {
  if (*n < 256) ops[(*n)++] = op;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      collect(o, ops, n);
}

static void test_mutations(void** state) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  int failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    hb_t h;
    hb_init(&h, *state);
    hb_valid(&h);
    air_op_t* ops[256];
    int n = 0;
    collect(h.p->module, ops, &n);
    int muts = 1 + (int)(rnd(&seed) % 4);
    for (int m = 0; m < muts; ++m) {
      air_op_t* op = ops[1 + rnd(&seed) % (uint64_t)(n - 1)];
      uint32_t nv = h.p->n_values + 3;
      switch (rnd(&seed) % 9) {
        case 0: op->kind = (air_opkind_t)(rnd(&seed) % AIR_OP_COUNT_); break;
        case 1:
          if (op->n_operands)
            op->operands[rnd(&seed) % op->n_operands] = (air_vid_t)(rnd(&seed) % nv);
          break;
        case 2: op->iaux[0] = (uint32_t)(rnd(&seed) % 5); break;
        case 3: op->iaux[0] = (uint32_t)rnd(&seed); break;
        case 4:
          if (op->n_lists) op->lists[rnd(&seed) % op->n_lists].n = 0;
          break;
        case 5: op->flags ^= 1u << (rnd(&seed) % 5); break;
        case 6:
          if (op->n_results) op->results[0] = (air_vid_t)(rnd(&seed) % nv);
          break;
        case 7: {
          air_vlist_t* l = &op->toks[rnd(&seed) % 3];
          if (air_ir_vlist_init(h.p, l, 2)) {
            l->items[0] = (air_vid_t)(rnd(&seed) % nv);
            l->items[1] = (air_vid_t)(rnd(&seed) % nv);
          }
          break;
        }
        default:
          if (op->n_regions && op->regions[0] && op->regions[0]->last) {
            air_block_t* b = op->regions[0];
            b->last = b->last->prev;
            if (b->last)
              b->last->next = NULL;
            else
              b->first = NULL;
          }
          break;
      }
    }
    static const char* const targets[] = {NULL, "npu1", "mi300x"};
    air_status_t st = air_verify(h.p, targets[iter % 3], 0);
    air_status_code_t code = air_status_code(st);
    if (code != AIR_STATUS_OK && code != AIR_STATUS_FAILED_PRECONDITION) failed++;
    air_status_free(st);
    air_ir_program_free(h.p);
  }
  assert_int_equal(failed, 0);
}

/* About a million ops: 16384 segments, each feeding a 4-PE herd through a
 * channel and computing in it. Balance and deadlock analyses run in full. */
static void test_large_program(void** state) {
  hb_t h;
  hb_init(&h, *state);
  air_op_t* ch = hb_op(&h, hb_body(&h), AIR_OP_CHANNEL, 0, 0, 0, 1);
  ch->sym = "c";
  assert_true(air_ir_list_init(h.p, &ch->lists[0], 1));
  ch->lists[0].items[0].cst = 4;
  air_block_t* fb = hb_func(&h, NULL);
  air_block_t* lb;
  air_op_t* launch = hb_hier(&h, fb, AIR_OP_LAUNCH, 0, NULL, 0, NULL, true, &lb);
  for (int s = 0; s < 16384; ++s) {
    air_block_t* sb;
    hb_hier(&h, lb, AIR_OP_SEGMENT, 0, NULL, 0, NULL, true, &sb);
    air_vid_t c0 = hb_const(&h, sb, 0), c1 = hb_const(&h, sb, 1), c4 = hb_const(&h, sb, 4);
    air_op_t* al = hb_op(&h, sb, AIR_OP_ALLOC, 0, 1, 0, 0);
    air_vid_t buf =
        hb_res(&h, al, 0, air_ir_type_memref(h.p, AIR_ELEM_F32, 1, (int64_t[]){64}, 1, NULL), "b");
    air_op_t* par = hb_op(&h, sb, AIR_OP_PARALLEL, 3, 0, 1, 0);
    par->iaux[0] = 1;
    par->operands[0] = c0;
    par->operands[1] = c4;
    par->operands[2] = c1;
    air_block_t* pb = hb_region(&h, par, 0, 1, &h.index);
    hb_chan_io(&h, pb, AIR_OP_PUT, "c", pb->args[0], buf, true);
    hb_op(&h, pb, AIR_OP_REDUCE, 0, 0, 0, 0);
    air_block_t* hbk;
    hb_hier(&h, sb, AIR_OP_HERD, 1, &c4, 0, NULL, true, &hbk);
    air_op_t* a1 = hb_op(&h, hbk, AIR_OP_ALLOC, 0, 1, 0, 0);
    air_vid_t l1 = hb_res(&h, a1, 0, h.l1, "l1");
    air_op_t* g = hb_chan_io(&h, hbk, AIR_OP_GET, "c", hbk->args[0], l1, true);
    air_vid_t x = hbk->args[0];
    for (int k = 0; k < 48; ++k) {
      air_op_t* add = hb_op(&h, hbk, AIR_OP_ADDI, 2, 1, 0, 0);
      add->operands[0] = x;
      add->operands[1] = hbk->args[1];
      x = hb_res(&h, add, 0, h.index, NULL);
    }
    air_op_t* w = hb_op(&h, hbk, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
    assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
    w->toks[AIR_TOK_DEP].items[0] = g->results[0];
    hb_term(&h, hbk, AIR_OP_HERD_TERM);
    hb_term(&h, sb, AIR_OP_SEGMENT_TERM);
  }
  hb_term(&h, lb, AIR_OP_LAUNCH_TERM);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  hb_term(&h, fb, AIR_OP_RETURN);
  assert_true(h.line > 900000);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  air_status_t st = air_verify(h.p, NULL, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st) print_error("%.400s\n", air_status_message(st));
  assert_null(st);
  double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  print_message("verified %u ops in %.3f s\n", h.line, sec);
  /* Generous for sanitizer builds; unsanitized it takes well under a second. */
  assert_true(sec < 30.0);

  /* The same program with one herd reading one block too many is caught. */
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  air_op_t* get = find_op(herd, AIR_OP_GET);
  air_op_t* get2 = hb_op(&h, NULL, AIR_OP_GET, 2, 0, 0, 3);
  get2->sym = "c";
  get2->iaux[0] = 1;
  get2->operands[0] = get->operands[0];
  get2->operands[1] = get->operands[1];
  air_ir_block_insert(herd->regions[0], get->next, get2);
  st = air_verify(h.p, NULL, 0);
  assert_true(has_rule(air_status_message(st), "channel-balance"));
  air_status_free(st);
  air_ir_program_free(h.p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_files),      cmocka_unit_test(test_valid_programs),
      cmocka_unit_test(test_unknown_target),  cmocka_unit_test(test_collects_all),
      cmocka_unit_test(test_handbuilt_valid), cmocka_unit_test(test_structure),
      cmocka_unit_test(test_dominance),       cmocka_unit_test(test_async_result),
      cmocka_unit_test(test_token_list),      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_mutations),       cmocka_unit_test(test_large_program),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

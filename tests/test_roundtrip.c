/* test_roundtrip.c - print(parse(print(parse(x)))) == print(parse(x)) over every
 * .mlir program of the corpus (tests/data/programs/ and samples/), with the same
 * op structure after the second parse; and text already in the printer's form
 * prints back unchanged, for constructs the corpus may lack. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "air/context.h"
#include "runtime/ir/ir.h"
#include "runtime/text/parse.h"
#include "runtime/text/print.h"

static const char* const k_corpus_dirs[] = {AIR_TEST_DATA_DIR "/programs",
                                            AIR_SOURCE_DIR "/samples"};

typedef struct paths_t {
  char** v;
  size_t n, cap;
} paths_t;

static void paths_add(paths_t* ps, const char* dir, const char* name) {
  if (ps->n == ps->cap) {
    ps->cap = ps->cap ? ps->cap * 2 : 64;
    ps->v = realloc(ps->v, ps->cap * sizeof *ps->v);
    assert_non_null(ps->v);
  }
  size_t n = strlen(dir) + strlen(name) + 2;
  ps->v[ps->n] = malloc(n);
  assert_non_null(ps->v[ps->n]);
  snprintf(ps->v[ps->n++], n, "%s/%s", dir, name);
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void collect(paths_t* ps) {
  for (size_t d = 0; d < sizeof k_corpus_dirs / sizeof k_corpus_dirs[0]; ++d) {
    DIR* dir = opendir(k_corpus_dirs[d]);
    if (!dir) continue;
    for (struct dirent* e; (e = readdir(dir));) {
      size_t n = strlen(e->d_name);
      if (n > 5 && strcmp(e->d_name + n - 5, ".mlir") == 0) paths_add(ps, k_corpus_dirs[d], e->d_name);
    }
    closedir(dir);
  }
  if (ps->n) qsort(ps->v, ps->n, sizeof *ps->v, cmp_str);
}

/*---------------------------------------------------------------------------*/
/* One round trip                                                            */
/*---------------------------------------------------------------------------*/

typedef struct shape_t {
  size_t n_ops;
  uint64_t digest; /* kinds, operand/result/region counts and flags, in order */
} shape_t;

static void mix(shape_t* s, uint64_t v) { s->digest = (s->digest ^ v) * 1099511628211ull; }

static bool shape_op(air_op_t* op, void* user) {
  shape_t* s = user;
  uint64_t parts[] = {op->kind,        op->n_operands,      op->n_results,
                      op->n_regions,   op->n_attrs,         op->n_lists,
                      op->n_types,     op->iaux[0],         op->iaux[1],
                      op->toks[0].n,   op->toks[1].n,       op->toks[2].n,
                      op->value.kind,  op->flags & ~(uint64_t)AIR_OPF_EXPLICIT_MODULE};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) mix(s, parts[i]);
  for (uint32_t i = 0; i < op->n_lists; ++i) mix(s, op->lists[i].n);
  for (uint32_t i = 0; i < op->n_attrs; ++i) mix(s, op->attrs[i].value.kind);
  for (const char* c = op->sym; c && *c; ++c) mix(s, (unsigned char)*c);
  s->n_ops++;
  return true;
}

static shape_t shape(air_program_t* p) {
  shape_t s = {0, 14695981039346656037ull};
  air_ir_walk(p->module, shape_op, &s);
  return s;
}

/* Parses `text` into a new program and prints it; NULL and a message on error. */
static char* parse_print(air_context_t* ctx, const char* name, const char* text, size_t len,
                         uint32_t first_line, shape_t* sh, char* err, size_t err_len) {
  air_program_t* p = NULL;
  air_status_t s = air_ir_program_new(ctx, name, &p);
  if (!s) s = air_parse(p, text, len, first_line);
  char* out = NULL;
  if (!s) {
    air_sb_t sb;
    air_sb_init(&sb, &p->allocator);
    s = air_print(p, 0, &sb);
    if (!s) {
      out = malloc(sb.len + 1);
      assert_non_null(out);
      memcpy(out, sb.data ? sb.data : "", sb.len);
      out[sb.len] = 0;
    }
    air_sb_free(&sb);
    if (sh) *sh = shape(p);
  }
  if (s) {
    snprintf(err, err_len, "%s", air_status_message(s));
    air_status_free(s);
  }
  air_ir_program_free(p);
  return out;
}

/* The first line where a and b differ, for the report. */
static void first_diff(const char* a, const char* b, char* out, size_t n) {
  size_t line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') ++line, la = a + 1, lb = b + 1;
    ++a, ++b;
  }
  int ea = (int)strcspn(la, "\n"), eb = (int)strcspn(lb, "\n");
  snprintf(out, n, "line %zu:\n    first:  %.*s\n    second: %.*s", line, ea, la, eb, lb);
}

/* Checks one input; returns false and fills `why` on failure. */
static bool round_trip(air_context_t* ctx, const char* name, const char* text, size_t len,
                       uint32_t first_line, const char* expect_fixed, char* why, size_t n) {
  char err[1024] = "";
  shape_t s1, s2;
  char* t1 = parse_print(ctx, name, text, len, first_line, &s1, err, sizeof err);
  if (!t1) {
    snprintf(why, n, "parse of the input failed: %s", err);
    return false;
  }
  char* t2 = parse_print(ctx, "<printed>", t1, strlen(t1), 1, &s2, err, sizeof err);
  bool ok = false;
  char diff[600];
  if (!t2) {
    snprintf(why, n, "parse of the printed text failed: %s\n--- printed:\n%s", err, t1);
  } else if (strcmp(t1, t2) != 0) {
    first_diff(t1, t2, diff, sizeof diff);
    snprintf(why, n, "second print differs at %s", diff);
  } else if (s1.n_ops != s2.n_ops || s1.digest != s2.digest) {
    snprintf(why, n, "re-parsed IR differs: %zu ops vs %zu (structure %s)", s1.n_ops,
             s2.n_ops, s1.digest == s2.digest ? "same" : "differs");
  } else if (expect_fixed && strcmp(t1, expect_fixed) != 0) {
    first_diff(expect_fixed, t1, diff, sizeof diff);
    snprintf(why, n, "printer-form text does not print back unchanged, at %s", diff);
  } else {
    ok = true;
  }
  free(t1);
  free(t2);
  return ok;
}

/*---------------------------------------------------------------------------*/
/* The corpus                                                                */
/*---------------------------------------------------------------------------*/

/* `// -----` lines separate independent inputs (split-input-file). */
static bool is_split_line(const char* s, const char* end) {
  while (s < end && (*s == ' ' || *s == '\t')) ++s;
  if (end - s < 8 || memcmp(s, "// -----", 8) != 0) return false;
  for (s += 8; s < end && *s != '\n'; ++s)
    if (*s != '-' && *s != ' ' && *s != '\t' && *s != '\r') return false;
  return true;
}

static void test_corpus(void** state) {
  air_context_t* ctx = *state;
  paths_t ps = {0};
  collect(&ps);
  if (ps.n == 0) fail_msg("no .mlir files in %s or %s", k_corpus_dirs[0], k_corpus_dirs[1]);
  size_t failures = 0, inputs = 0;
  for (size_t i = 0; i < ps.n; ++i) {
    size_t len = 0;
    char* text = test_read_file(ps.v[i], &len);
    assert_non_null(text);
    const char* chunk = text;
    uint32_t line = 1, chunk_line = 1;
    for (const char* s = text;; ++line) {
      const char* eol = memchr(s, '\n', (size_t)(text + len - s));
      const char* end = eol ? eol : text + len;
      bool split = is_split_line(s, end);
      if (split || !eol) {
        const char* stop = split ? s : text + len;
        char why[4096];
        ++inputs;
        if (!round_trip(ctx, ps.v[i], chunk, (size_t)(stop - chunk), chunk_line, NULL, why,
                        sizeof why)) {
          print_message("FAIL %s:%u: %s\n", ps.v[i], chunk_line, why);
          ++failures;
        }
        chunk = eol ? eol + 1 : text + len;
        chunk_line = line + 1;
      }
      if (!eol) break;
      s = eol + 1;
    }
    free(text);
    free(ps.v[i]);
  }
  free(ps.v);
  print_message("%zu inputs from the corpus, %zu failed\n", inputs, failures);
  assert_int_equal(failures, 0);
}

/*---------------------------------------------------------------------------*/
/* Printer-form snippets: already a fixed point                              */
/*---------------------------------------------------------------------------*/

static const char* const k_fixed[] = {
    /* hierarchy, tokens in both spellings, affinity/concurrency, placement */
    "air.channel @ch [2, 2] {broadcast_shape = [2, 1], channel_type = \"npu_dma_stream\"}\n"
    "air.channel @c0 []\n"
    "func.func @main(%arg0: memref<64xf32>, %arg1: memref<128x128xbf16>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c2 = arith.constant 2 : index\n"
    "  %t0 = air.wait_all async\n"
    "  %t = air.launch async [%t0] (%lx, %ly) in (%nx=%c1, %ny=%c2) args(%a=%arg0, "
    "%big=%arg1) : memref<64xf32>, memref<128x128xbf16> attributes {id = 1 : i32} {\n"
    "    %c2 = arith.constant 2 : index\n"
    "    %ta = air.token.alloc : !air.token\n"
    "    %s = air.segment @seg async unroll(%sx) in (%ssx=%c2) args(%b=%a, %bb=%big) : "
    "memref<64xf32>, memref<128x128xbf16> [affinity = [%ta]] attributes "
    "{\"backend-granularity\" = \"XCD\", x_loc = 0 : i64} {\n"
    "      %c1 = arith.constant 1 : index\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %tc = air.token.alloc : !air.async.token\n"
    "      %l2 = memref.alloc() : memref<128x128xbf16, 1>\n"
    "      %d = air.dma_memcpy_nd async (%l2[] [] [], %bb[%c0, %c0] [128, 128] [128, 1]) : "
    "(memref<128x128xbf16, 1>, memref<128x128xbf16>)\n"
    "      %p = air.channel.put async [%d] @ch[%c0, %c1] (%l2[%c0, 0] [64, 64] [128, %c1]) "
    "{id = 3 : i32} : (memref<128x128xbf16, 1>)\n"
    "      air.herd @h0 tile () in () {\n"
    "      }\n"
    "      %h = air.herd async [%p] tile (%x, %y) in (%hx=%c2, %hy=%c2) args(%k=%b) : "
    "memref<64xf32> [concurrency = [%tc]] attributes {link_with = \"k.o\"} {\n"
    "        %t1, %buf = air.execute -> (memref<64x64xbf16, 2>) {\n"
    "          %m = memref.alloc() : memref<64x64xbf16, 2>\n"
    "          air.execute_terminator %m : memref<64x64xbf16, 2>\n"
    "        }\n"
    "        %g = air.channel.get async [%t1] @ch[%x, %y] (%buf[] [] []) : "
    "(memref<64x64xbf16, 2>)\n"
    "        %e = air.execute [%g] {\n"
    "          memref.dealloc %buf : memref<64x64xbf16, 2>\n"
    "        } {id = 4 : i32}\n"
    "        air.wait_all [%e]\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  air.launch sync [%t] () in () {\n"
    "  }\n"
    "  return\n"
    "}\n",
    /* arith, calls, result groups, names that need generating */
    "func.func private @two() -> (f32, f32)\n"
    "func.func @f(%a: index, %x: f32) -> f32 {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %cst = arith.constant 1.000000e+00 : f32\n"
    "  %cst_0 = arith.constant 3.333333333333333e-01 : f64\n"
    "  %cst_1 = arith.constant -0.000000e+00 : bf16\n"
    "  %true = arith.constant true\n"
    "  %c-1_i32 = arith.constant -1 : i32\n"
    "  %0 = arith.addi %a, %c0 : index\n"
    "  %1 = arith.mulf %x, %cst : f32\n"
    "  %2 = arith.negf %1 : f32\n"
    "  %3 = arith.cmpi slt, %0, %a : index\n"
    "  %4 = arith.cmpf olt, %x, %2 : f32\n"
    "  %5 = arith.select %3, %x, %2 : f32\n"
    "  %6 = arith.index_cast %0 : index to i32\n"
    "  %7 = arith.maxsi %6, %c-1_i32 : i32\n"
    "  %r:2 = call @two() : () -> (f32, f32)\n"
    "  %8 = arith.addf %r#0, %r#1 : f32\n"
    "  return %8 : f32\n"
    "}\n",
    /* memref, scf, affine, linalg */
    "#map = affine_map<(d0)[s0] -> (d0 * 64 + s0)>\n"
    "#map1 = affine_map<(d0, d1) -> (d0, d1)>\n"
    "#set = affine_set<(d0, d1) : (d0 - 1 >= 0, d1 == 0)>\n"
    "func.func @g(%arg0: memref<?x64xf32>, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c4 = arith.constant 4 : index\n"
    "  %v = memref.load %arg0[%c0, %c1] : memref<?x64xf32>\n"
    "  memref.store %v, %arg0[%c1, %c0] : memref<?x64xf32>\n"
    "  %sv = memref.subview %arg0[%n, 0] [4, 4] [1, 1] : memref<?x64xf32> to "
    "memref<4x4xf32, strided<[64, 1], offset: ?>>\n"
    "  %m = memref.alloc(%n) {alignment = 64 : i64} : memref<?x64xf32>\n"
    "  memref.copy %arg0, %m : memref<?x64xf32> to memref<?x64xf32>\n"
    "  %t0 = air.wait_all async\n"
    "  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %t0) -> (!air.token) {\n"
    "    %w = air.wait_all async [%it]\n"
    "    scf.yield %w : !air.token\n"
    "  }\n"
    "  %pr = scf.parallel (%x, %y) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init (%t0) "
    "-> !air.token {\n"
    "    %w = air.wait_all async\n"
    "    scf.reduce(%w : !air.token) {\n"
    "    ^bb0(%l: !air.token, %rr: !air.token):\n"
    "      %j = air.wait_all async [%l, %rr]\n"
    "      scf.reduce.return %j : !air.token\n"
    "    }\n"
    "  }\n"
    "  %cond = arith.cmpi eq, %n, %c0 : index\n"
    "  %sel = scf.if %cond -> (index) {\n"
    "    scf.yield %c0 : index\n"
    "  } else {\n"
    "    scf.yield %c1 : index\n"
    "  }\n"
    "  %a = affine.apply #map(%c1)[%n]\n"
    "  %b = affine.apply affine_map<(d0, d1)[s0] -> (d0 - d1 * 3 + s0 floordiv 2)>(%c1, "
    "%n)[%c4]\n"
    "  %b2 = affine.apply affine_map<(d0, d1) -> (-(d0 + d1))>(%c1, %n)\n"
    "  %b3 = affine.apply affine_map<(d0)[s0] -> ((d0 mod 4) ceildiv s0)>(%c1)[%c4]\n"
    "  %b4 = affine.apply affine_map<(d0) -> (d0 * -2 - (d0 + 1))>(%c1)\n"
    "  affine.if #set(%a, %b) {\n"
    "    air.wait_all\n"
    "  } else {\n"
    "  }\n"
    "  affine.for %k = 0 to 64 step 2 {\n"
    "    %q = affine.apply affine_map<(d0) -> (d0 - 1)>(%k)\n"
    "  }\n"
    "  %l1 = memref.alloc() : memref<64x64xf32, 2>\n"
    "  %l1b = memref.alloc() : memref<64x64xf32, 2>\n"
    "  %zero = arith.constant 0.000000e+00 : f32\n"
    "  linalg.fill ins(%zero : f32) outs(%l1 : memref<64x64xf32, 2>)\n"
    "  linalg.matmul ins(%l1, %l1b : memref<64x64xf32, 2>, memref<64x64xf32, 2>) "
    "outs(%l1 : memref<64x64xf32, 2>)\n"
    "  linalg.generic {indexing_maps = [#map1, #map1], iterator_types = [\"parallel\", "
    "\"parallel\"]} ins(%l1 : memref<64x64xf32, 2>) outs(%l1b : memref<64x64xf32, 2>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n"
    "    %s = arith.addf %in, %out : f32\n"
    "    linalg.yield %s : f32\n"
    "  }\n"
    "  return\n"
    "}\n",
    /* names: numeric and odd ids, groups, reuse across siblings and after a
     * region closes, shadowing inside isolated ops */
    "func.func private @two() -> (index, index)\n"
    "func.func @n() {\n"
    "  %5 = arith.constant 5 : index\n"
    "  %0 = arith.constant 0 : index\n"
    "  %c = arith.constant 1 : index\n"
    "  %-x.$_ = arith.constant 6 : index\n"
    "  scf.for %i = %c to %c step %c {\n"
    "    %v = arith.constant 7 : index\n"
    "    %late = arith.constant 9 : index\n"
    "  }\n"
    "  scf.for %i = %c to %c step %c {\n"
    "    %v = arith.constant 7 : index\n"
    "  }\n"
    "  %late = arith.constant 10 : index\n"
    "  %r:2 = call @two() : () -> (index, index)\n"
    "  %s = arith.addi %r#1, %r#0 : index\n"
    "  %t, %1 = call @two() : () -> (index, index)\n"
    "  %2:2 = call @two() : () -> (index, index)\n"
    "  air.herd tile () in () {\n"
    "    %c = arith.constant 0 : index\n"
    "    %5 = arith.constant 1 : index\n"
    "    %r = arith.addi %c, %5 : index\n"
    "  }\n"
    "  return\n"
    "}\n",
    /* literals: special floats, escapes, unit in arrays, quoted keys and symbols; spec-form
     * token lists on data movement, wait_all and execute */
    "module attributes {a = [unit, true, [1, [2 : i32]], !air.async.token, @\"q-r\", \"\\\"\\0A\", -1.500000e+00, 0x7FF0000000000000 : f64], \"b-c\" = {\"d e\" = 1 : i64}, e = array<i1: true, false>, f = array<i64>} {\n"
    "  air.channel @c []\n"
    "  func.func private @\"a-b\"(!air.async.token) -> !air.async.token\n"
    "  func.func @f(%a: memref<64xf32>, %b: memref<64xf32, 2>, %t0: !air.async.token) {\n"
    "    %cst = arith.constant 0xFFF0000000000000 : f64\n"
    "    %cst_0 = arith.constant 0x7FC00000 : f32\n"
    "    %cst_1 = arith.constant 0x7E00 : f16\n"
    "    %cst_2 = arith.constant 0xFFC0 : bf16\n"
    "    %cst_3 = arith.constant 1.23456789e+05 : f64\n"
    "    %c-9223372036854775808_i64 = arith.constant -9223372036854775808 : i64\n"
    "    %false = arith.constant false\n"
    "    %2 = call @\"a-b\"(%t0) : (!air.async.token) -> !air.async.token\n"
    "    %ta = air.token.alloc : !air.token\n"
    "    %0 = air.dma_memcpy_nd async [affinity = [%ta]] (%b[] [] [], %a[] [] []) : (memref<64xf32, 2>, memref<64xf32>)\n"
    "    %1 = air.channel.put async [%0] [concurrency = [%ta]] @c[] (%b[] [] []) dest(%a) : (memref<64xf32, 2>)\n"
    "    air.wait_all [%1, %2] [affinity = [%ta]] [concurrency = [%ta]] {id = 2 : i32}\n"
    "    %t, %v = air.execute [%1] [affinity = [%ta]] -> (index) {\n"
    "      %c1 = arith.constant 1 : index\n"
    "      air.execute_terminator %c1 : index\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n",
    /* sync forms with dependencies, multi-result execute, SSA affine bounds, non-index
     * scf.for, memref layouts, launch declarations */
    "#map = affine_map<(d0) -> (d0 + 1)>\n"
    "func.func @h(%n: index, %x: f32, %m: memref<4xf32, #map>, %m2: memref<4xf32, affine_map<(d0) -> (d0 * 2)>, 1>) {\n"
    "  %t0 = air.wait_all async\n"
    "  air.segment @s sync [%t0] {\n"
    "  }\n"
    "  %c2 = arith.constant 2 : index\n"
    "  air.launch @decl () in ()\n"
    "  air.launch (%lx) in (%sx=%c2) args(%mm=%m) : memref<4xf32, #map> {\n"
    "    %c2_0 = arith.constant 2 : index\n"
    "    air.segment unroll(%u, %v) in (%su=%c2_0, %sv=%c2_0) {\n"
    "      %c1 = arith.constant 1 : index\n"
    "      air.herd @hh sync tile (%hx) in (%hs=%c1) {\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  %r:3 = air.execute -> (index, index) {\n"
    "    %c1 = arith.constant 1 : index\n"
    "    air.execute_terminator %c1, %c1 : index, index\n"
    "  }\n"
    "  %s = affine.for %i = %n to 128 step 4 iter_args(%acc = %x) -> (f32) {\n"
    "    %y = arith.addf %acc, %acc : f32\n"
    "    affine.yield %y : f32\n"
    "  }\n"
    "  affine.for %j = 0 to %n {\n"
    "  }\n"
    "  %c0_i32 = arith.constant 0 : i32\n"
    "  %c4_i32 = arith.constant 4 : i32\n"
    "  scf.for %k = %c0_i32 to %c4_i32 step %c4_i32 : i32 {\n"
    "  }\n"
    "  %q = affine.apply affine_map<()[s0] -> (s0)>()[%r#1]\n"
    "  return\n"
    "}\n",
    /* explicit module with a name and attributes */
    "module @m attributes {air.unit, \"x-y\" = [1, \"s\", @sym, array<i32: 1, 2>, {k = 2.500000e+00}]} {\n"
    "  func.func @h() {\n"
    "    return\n"
    "  }\n"
    "}\n",
};

static void test_fixed_points(void** state) {
  air_context_t* ctx = *state;
  size_t failures = 0;
  for (size_t i = 0; i < sizeof k_fixed / sizeof k_fixed[0]; ++i) {
    char why[8192];
    if (!round_trip(ctx, "<snippet>", k_fixed[i], strlen(k_fixed[i]), 1, k_fixed[i], why,
                    sizeof why)) {
      print_message("FAIL snippet %zu: %s\n", i, why);
      ++failures;
    }
  }
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus),
      cmocka_unit_test(test_fixed_points),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

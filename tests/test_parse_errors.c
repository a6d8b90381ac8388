/* test_parse_errors.c - the AIR text parser on bad input: out of memory at
 * every allocation, malformed programs failing at the right line:col with a
 * message that says what was expected, every op's `: T` memref type (one
 * helper: no ':', not a memref, a bad memref), the syntax cases of tests/data/parse,
 * no prefix or mutation of a valid program crashing, quoted symbols. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "parse_test.h"

static void test_out_of_memory(void** state) {
  (void)state;
  test_budget_t b;
  test_budget_init(&b, -1);
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, &b.allocator, &ctx));
  long base = test_budget_live(&b);
  size_t len;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PROGRAMS, "execute_results.mlir");
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  int oom = 0;
  for (long budget = 0;; ++budget) {
    air_program_t* p = NULL;
    test_budget_set(&b, -1);
    assert_null(air_ir_program_new(ctx, "<input>", &p));
    test_budget_set(&b, budget);
    air_status_t s = air_parse(p, text, len, 1);
    test_budget_set(&b, -1);
    air_ir_program_free(p);
    if (!s) break;
    assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
    air_status_free(s);
    assert_int_equal(test_budget_live(&b), base);
    ++oom;
    assert_true(budget < 100000);
  }
  assert_true(oom > 5);
  assert_int_equal(test_budget_live(&b), base);
  free(text);
  air_context_destroy(ctx);
}

/*---------------------------------------------------------------------------*/
/* Malformed input                                                           */
/*---------------------------------------------------------------------------*/

typedef struct bad_t {
  const char* text;
  uint32_t line, col;
  const char* msg;
} bad_t;

static const bad_t k_bad[] = {
    /* constructs of mlir-air's wider programs (tests/data/constructs) */
    {"func.func @f(%i: index) {\n  scf.index_switch %i\n  case 1 {\n  }\n  case 1 {\n  }\n"
     "  default {\n  }\n  return\n}\n",
     5, 8, "case value 1 appears twice in 'scf.index_switch'"},
    {"func.func @f(%i: index) {\n  scf.index_switch %i\n  return\n}\n", 3, 3,
     "expected 'case' or 'default' in 'scf.index_switch'"},
    {"func.func @f() {\n  scf.forall (%i, %j) in (4) {\n  }\n  return\n}\n", 2, 3,
     "'scf.forall' has 2 induction variables but 1/1/1 bounds/steps"},
    {"func.func @f() {\n  scf.forall.in_parallel {\n  }\n  return\n}\n", 2, 3,
     "'scf.forall.in_parallel' must end an 'scf.forall' body"},
    {"func.func @f(%m: memref<*xf32, strided<[1]>>) {\n  return\n}\n", 1, 32,
     "an unranked memref has no layout, only a memory space"},
    {"func.func @f(%t: tensor<*xf32, #enc>) {\n  return\n}\n", 1, 32,
     "an unranked tensor has no encoding"},
    {"memref.global \"hidden\" @g : memref<2xf32>\n", 1, 15,
     "unknown symbol visibility \"hidden\""},
    {"func.func @f(%m: memref<4xf32>) {\n  %t = bufferization.to_tensor %m : tensor<4xf32>\n"
     "  return\n}\n",
     2, 37, "expected a memref type, found 'tensor<4xf32>'"},
    {"func.func @f(%m: memref<4x4xf32>) {\n  %t = memref.transpose %m (d0, d1)[s0] -> (d1, d0) "
     ": memref<4x4xf32> to memref<4x4xf32>\n  return\n}\n",
     2, 28, "'memref.transpose' needs a permutation map"},
    {"func.func @f() {\n  %i = linalg.index 0 : i32\n  return\n}\n", 2, 25,
     "'linalg.index' has type 'index'"},
    {"func.func @f(%m: memref<4xf32>) {\n  %v = memref.reinterpret_cast %m to offset: [0, 1], "
     "sizes: [4], strides: [1] : memref<4xf32> to memref<4xf32>\n  return\n}\n",
     2, 38, "'offset' takes exactly one value"},
    {"func.func @f() {\n  air.custom @k operands (%a) : f32, f32\n  return\n}\n", 2, 26,
     "1 operand but 2 types"},
    {"func.func @f() {\n  %c0 = arith.constant 0 : index\n", 3, 1,
     "expected '}' to close the region opened at 1:16"},
    {"func.func @f(%a: vector<4xf32>) {\n  return\n}\n", 1, 18, "unsupported type 'vector'"},
    {"func.func @f(%m: memref<4xvector<4xf32>>) {\n  return\n}\n", 1, 27,
     "unsupported memref element type 'vector'"},
    {"func.func @f() {\n  %0 = vector.transfer_read %a : f32\n  return\n}\n", 2, 8,
     "unsupported operation 'vector.transfer_read'"},
    {"func.func @f() {\n  %0 = arith.addi %x, %x : index\n  return\n}\n", 2, 19,
     "use of undefined value '%x'"},
    {"func.func @f() {\n  %c = arith.constant 0 : index\n  %c = arith.constant 1 : index\n"
     "  return\n}\n",
     3, 3, "redefinition of value '%c' (first defined at 2:3)"},
    {"func.func @f() {\n  %a, %b = arith.constant 0 : index\n  return\n}\n", 2, 3,
     "'arith.constant' produces 1 result but 2 names are bound"},
    {"func.func @f() {\n  %t, %v = air.wait_all async\n  return\n}\n", 2, 3,
     "'air.wait_all' produces 1 result but 2 names are bound"},
    {"air.channel @c [2] {depth = }\n", 1, 29, "expected an attribute value, found '}'"},
    {"air.channel @c [2] {depth = 2 : i32 x}\n", 1, 37,
     "expected ',' or '}' in an attribute dictionary, found 'x'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a index\n  return\n}\n", 2, 26,
     "expected ':' and a type, found 'index'"},
    {"func.func @f() {\n}\n", 2, 1, "the body of 'func.func' must end with 'func.return'"},
    {"func.func @f() {\n  scf.yield\n}\n", 2, 3,
     "'scf.yield' cannot end the body of 'func.func': expected 'func.return'"},
    {"func.func @f() {\n  return\n  %c = arith.constant 0 : index\n}\n", 3, 3,
     "operation 'arith.constant' after the terminator 'func.return'"},
    {"func.func @f() {\n  %m = memref.alloc() : memref<4xf32, 2>\n"
     "  memref.dealloc %m : memref<4xf32, 1>\n  return\n}\n",
     3, 18, "use of value '%m' expects different type than prior uses: 'memref<4xf32, 1>' vs "
            "'memref<4xf32, 2>'"},
    {"func.func @f(%a: index) {\n  %1 = arith.addi %z, %a : index\n"
     "  %z = arith.constant 1 : i32\n  return\n}\n",
     3, 3, "'%z' is defined with type 'i32' but was used at 2:19 as 'index'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a : index\n"
     "  %1 = arith.addi %0#1, %a : index\n  return\n}\n",
     3, 19, "result number 1 is out of range: '%0' has 1 value"},
    {"func.func @f() {\n  %c2 = arith.constant 2 : index\n"
     "  air.herd tile (%x, %y) in (%sx=%c2) {\n  }\n  return\n}\n",
     3, 3, "the iteration space has 2 ids but 1 size"},
    {"func.func @f(%a: index) {\n  air.launch args(%x=%a, %y=%a) : index {\n  }\n"
     "  return\n}\n",
     2, 3, "2 arguments but 1 type"},
    {"func.func @f(%a: index) {\n  %0 = arith.cmpi lt, %a, %a : index\n  return\n}\n", 2, 19,
     "unknown predicate 'lt' for 'arith.cmpi'"},
    {"func.func @f() {\n  \"foo.bar\"() : () -> ()\n}\n", 2, 3,
     "the generic operation form is not supported"},
    {"air.channel @c [1] {a = \"abc\n}\n", 1, 25, "unterminated string"},
    {"func.func @f() {\n  $x\n}\n", 2, 3, "unexpected character '$'"},
    {"func.func @f(%a: memref<64 64xf32>) {\n  return\n}\n", 1, 27,
     "expected 'x' after a memref dimension"},
    {"func.func @f(%a: index) {\n  affine.for %i = max #m(%a) to 10 {\n  }\n  return\n}\n", 2,
     19, "unsupported 'affine.for' bound"},
    {"#s = affine_set<(d0) : (d0 >= 0)>\nfunc.func @f(%a: index) {\n"
     "  %0 = affine.apply #s(%a)\n  return\n}\n",
     3, 21, "'#s' is not an affine map"},
    {"func.func @f(%a: index) {\n  %0 = affine.apply #nomap(%a)\n  return\n}\n", 2, 21,
     "undefined attribute alias '#nomap'"},
    {"#m = affine_map<(d0) -> (d0 * 2 + q)>\n", 1, 35,
     "use of undeclared identifier 'q' in affine expression"},
    {"#m = affine_map<(d0) -> (d0)>\nfunc.func @f(%a: index) {\n"
     "  %0 = affine.apply #m(%a, %a)\n  return\n}\n",
     3, 21, "'#m' takes 1 dimension and 0 symbols, but 2 and 0 are given"},
    {"func.func @f() {\n  %t, %v = air.execute -> (index) {\n  }\n  return\n}\n", 3, 3,
     "the body of 'air.execute' must end with 'air.execute_terminator'"},
    {"func.func @f(%a: index) {\n  %t, %v = air.execute -> (index) {\n"
     "    air.execute_terminator\n  }\n  return\n}\n",
     3, 5, "'air.execute_terminator' yields 0 values but 'air.execute' has 1"},
    {"func.func @f() {\n  %c = arith.constant 300 : i8\n  return\n}\n", 2, 23,
     "integer constant 300 does not fit in type 'i8'"},
    {"func.func @f() {\n  %c = arith.constant 1.5 : i32\n  return\n}\n", 2, 23,
     "floating point literal for integer type 'i32'"},
    {"func.func @f(%t: !air.token) {\n  scf.reduce(%t : !air.token) {\n  }\n  return\n}\n", 2,
     3, "'scf.reduce' must be directly inside 'scf.parallel'"},
    {"func.func @f() {\n  return\n^bb1:\n  return\n}\n", 3, 1,
     "a region may hold only one block"},
    {"func.func @f() {\n  module {\n  }\n  return\n}\n", 2, 3,
     "a 'module' may only appear at module level"},
    {"%m = module {\n}\n", 1, 6, "'module' has no results"},
    {"func.func @f() {\n  %t = air.launch sync () in () {\n  }\n  return\n}\n", 2, 3,
     "a 'sync' operation has no result to bind"},
    {"func.func @f(%d: index) {\n  %m = memref.alloc() : memref<?xf32>\n  return\n}\n", 2, 3,
     "'memref.alloc' has 0 dynamic sizes but the type has 1 '?' dimension"},
    {"func.func @f(%a: memref<4xf32>) {\n"
     "  air.dma_memcpy_nd (%a[] [] [], %a[] [] []) : (memref<4xf32>)\n  return\n}\n",
     2, 3, "'air.dma_memcpy_nd' takes 2 types, not 1"},
    {"func.func @f() {\n  %r#1 = arith.constant 0 : index\n  return\n}\n", 2, 3,
     "a result name cannot carry a result number"},
    {"func.func @f() {\n  %c1 = arith.constant 1 : index\n"
     "  air.segment {\n    air.herd tile (%x) in (%s=%c1) %c1\n  }\n  return\n}\n",
     4, 36, "expected '{' to begin the body of 'air.herd'"},
    {"#m = affine_map<(d0) -> (d0)>\n#m = affine_map<(d0) -> (d0)>\n", 2, 1,
     "redefinition of attribute alias '#m'"},
    {"func.func @f(%a: memref<4xf32>) {\n"
     "  linalg.fill ins(%a : memref<4xf32>) outs(%a : memref<4xf32>) -> tensor<4xf32>\n"
     "  return\n}\n",
     2, 64, "result 0 of 'linalg.fill' must be a tensor of its outs operand's type"},
    {"func.func @f(index) {\n  return\n}\n", 1, 11,
     "a function with a body needs named arguments"},
    {"func.func @f() {\n  return loc(\"x\":1\n}\n", 2, 10, "unterminated location 'loc(...)'"},
    {"air.channel @c [1]\nair.channel.put @c[] (%m[] [] [] : (memref<4xf32>)\n", 2, 34,
     "')' after the memref's offsets, sizes and strides"},
    {"func.func @f(%t: !air.token) {\n  air.wait_all [dependency = [%t]] [latency = [%t]]\n"
     "  return\n}\n",
     2, 37, "expected 'dependency', 'affinity' or 'concurrency', found 'latency'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a : index\n  %1 = arith.addi %0 %a"
     " : index\n  return\n}\n",
     3, 22, "expected ',' between the operands, found '%a'"},
    {"func.func @f() {\n  %c = arith.constant 99999999999999999999 : i64\n  return\n}\n", 2,
     23, "integer literal is out of range"},
    {"func.func @f(%m: memref<4xf32, #gpu.address_space<workgroup>>) {\n  return\n}\n", 1, 32,
     "unsupported memref layout or memory space '#gpu.address_space'"},
    {"func.func @f() {\n  %x = \n}\n", 3, 1, "expected an operation name, found '}'"},
    {"func.func @f(%t: !air.token) {\n  %x = air.wait_all async [%t, 3]\n  return\n}\n", 2, 32,
     "expected a token value, found '3'"},
    {"func.func @f(%m: memref<4x4xf32>, %i: index) {\n  %v = affine.load %m[%i] : "
     "memref<4x4xf32>\n  return\n}\n",
     2, 22, "'affine.load' of a rank-2 memref needs 2 subscripts, found 1"},
    {"func.func @f(%m: memref<4xf32>, %i: index) {\n  %v = affine.load %m[%i + q] : "
     "memref<4xf32>\n  return\n}\n",
     2, 28, "use of undeclared identifier 'q' in affine expression"},
    {"func.func @f(%m: memref<4xf32>, %i: index) {\n  %v = affine.load %m[symbol(%i] : "
     "memref<4xf32>\n  return\n}\n",
     2, 32, "expected ')' after the symbol value, found ']'"},
    {"func.func @f(%i: index) {\n  %v = affine.min affine_map<(d0) -> ()>(%i)\n  return\n}\n",
     2, 19, "'affine.min' needs a map with at least one result"},
    {"func.func @f(%m: memref<4x8xf32>) {\n  %v = memref.collapse_shape %m [[0, 1] : "
     "memref<4x8xf32> into memref<32xf32>\n  return\n}\n",
     2, 41, "expected ',' or ']' after a reassociation group, found ':'"},
    {"func.func @f(%m: memref<32xf32>) {\n  %v = memref.cast %m : memref<32xf32> into "
     "memref<?xf32>\n  return\n}\n",
     2, 40, "expected 'to'"},
};

static void test_malformed(void** state) {
  assert_true(sizeof k_bad / sizeof k_bad[0] >= 25);
  for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; ++i)
    expect_error_at(*state, k_bad[i].text, k_bad[i].line, k_bad[i].col, k_bad[i].msg);
  /* text that is not NUL-terminated, and NUL bytes inside it */
  const char cut[] = "air.channel @c [1]XXXX";
  air_program_t* p;
  air_status_t s = parse_n(*state, cut, 18, 1, &p);
  assert_null(s);
  air_ir_program_free(p);
  const char nul[] = "air.channel @c [1] // a\0b\n";
  s = parse_n(*state, nul, sizeof nul - 1, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:1:24: error: unexpected character '\\x00'"));
  air_status_free(s);
}

/*---------------------------------------------------------------------------*/
/* `: T` with T a memref type (air_parse_colon_memref) in every op that has it */
/*---------------------------------------------------------------------------*/

/* One op line split around its memref type: `HEAD : T TAIL`. `module` ops stand
 * alone; the others sit in a function with %a: memref<4xf32>, %i: index, %f: f32. */
typedef struct colon_memref_t {
  const char* head;
  const char* tail;
  bool module;
} colon_memref_t;

static const colon_memref_t k_colon_memref[] = {
    {"memref.global \"private\" @g", "", true},
    {"%g = memref.get_global @g", "", false},
    {"%m = memref.alloc()", "", false},
    {"memref.dealloc %a", "", false},
    {"%v = memref.load %a[%i]", "", false},
    {"memref.store %f, %a[%i]", "", false},
    {"%v = affine.load %a[%i]", "", false},
    {"affine.store %f, %a[%i]", "", false},
    {"%b, %o, %s, %t = memref.extract_strided_metadata %a",
     " -> memref<f32>, index, index, index", false},
    /* `: T to U` (air_parse_memref_to) */
    {"memref.copy %a, %a", " to memref<4xf32>", false},
    {"%v = memref.subview %a[0] [2] [1]", " to memref<2xf32, strided<[1]>>", false},
    {"%v = memref.transpose %a (d0) -> (d0)", " to memref<4xf32>", false},
    {"%v = memref.reinterpret_cast %a to offset: [0], sizes: [4], strides: [1]",
     " to memref<4xf32>", false},
};

/* The program holding `HEAD SEP T TAIL` (TAIL: the row's own when NULL); *line
 * and *col where T begins. */
static void colon_memref_text(const colon_memref_t* c, const char* sep, const char* type,
                              const char* tail, char* out, size_t n, uint32_t* line,
                              uint32_t* col) {
  const char* pre = c->module ? "" : "func.func @f(%a: memref<4xf32>, %i: index, %f: f32) {\n  ";
  int k = snprintf(out, n, "%s%s%s%s%s%s", pre, c->head, sep, type, tail ? tail : c->tail,
                   c->module ? "\n" : "\n  return\n}\n");
  assert_true(k > 0 && (size_t)k < n);
  *line = c->module ? 1 : 2;
  *col = (uint32_t)((c->module ? 1 : 3) + strlen(c->head) + strlen(sep));
}

/* Each op's `: T` fails where and how the one helper says: no ':', a type that is
 * not a memref, a memref type that does not parse; `: T to U` checks U too. */
static void test_colon_memref(void** state) {
  air_context_t* ctx = *state;
  char text[512];
  uint32_t line, col;
  for (size_t i = 0; i < sizeof k_colon_memref / sizeof k_colon_memref[0]; ++i) {
    const colon_memref_t* c = &k_colon_memref[i];
    /* the well-formed op parses, so each error below is the type's */
    colon_memref_text(c, " : ", "memref<4xf32>", NULL, text, sizeof text, &line, &col);
    air_program_t* p;
    air_status_t s = parse_n(ctx, text, strlen(text), 1, &p);
    if (s) fail_msg("%s: %s", c->head, air_status_message(s));
    air_ir_program_free(p);
    /* no ':': the error is at the type that came instead */
    colon_memref_text(c, " ", "memref<4xf32>", NULL, text, sizeof text, &line, &col);
    expect_error_at(ctx, text, line, col, "expected ':' and a type, found 'memref'");
    /* a type that is not a memref, named in the message */
    colon_memref_text(c, " : ", "tensor<4xf32>", NULL, text, sizeof text, &line, &col);
    expect_error_at(ctx, text, line, col, "expected a memref type, found 'tensor<4xf32>'");
    colon_memref_text(c, " : ", "f32", NULL, text, sizeof text, &line, &col);
    expect_error_at(ctx, text, line, col, "expected a memref type, found 'f32'");
    /* a memref type that does not parse: the type parser's message, at its place */
    colon_memref_text(c, " : ", "memref<4 4xf32>", NULL, text, sizeof text, &line, &col);
    expect_error_at(ctx, text, line, col + 8, "expected 'x' after a memref dimension");
    colon_memref_text(c, " : ", "memref<4xbogus>", NULL, text, sizeof text, &line, &col);
    expect_error_at(ctx, text, line, col + 9, "unsupported memref element type 'bogus'");
    if (strncmp(c->tail, " to ", 4) == 0) {
      colon_memref_text(c, " : ", "memref<4xf32>", " to f32", text, sizeof text, &line, &col);
      expect_error_at(ctx, text, line, col + 17, "expected a memref type, found 'f32'");
      colon_memref_text(c, " : ", "memref<4xf32>", " memref<4xf32>", text, sizeof text, &line,
                        &col);
      expect_error_at(ctx, text, line, col + 14, "expected 'to', found 'memref'");
    }
  }
}

/*---------------------------------------------------------------------------*/
/* tests/data/parse: `// expect-ok`, `// expect-warnings: N`,                */
/* `// expect-error: LINE:COL: message`                                      */
/*---------------------------------------------------------------------------*/

static void test_syntax_cases(void** state) {
  names_t files;
  list_dir(SYNTAX, &files);
  assert_true(files.n >= 8);
  for (int i = 0; i < files.n; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SYNTAX, files.name[i]);
    size_t len;
    char* text = test_read_file(path, &len);
    assert_non_null(text);
    air_program_t* p;
    air_status_t s = parse_n(*state, text, len, 1, &p);
    unsigned line, col, warnings = 0;
    char msg[256];
    const char* w = strstr(text, "// expect-warnings: ");
    if (w) warnings = (unsigned)atoi(w + 20);
    if (strncmp(text, "// expect-ok", 12) == 0) {
      if (s) fail_msg("%s: %s", files.name[i], air_status_message(s));
      assert_int_equal(p->n_warnings, warnings);
      air_ir_program_free(p);
    } else if (sscanf(text, "// expect-error: %u:%u: %255[^\n]", &line, &col, msg) == 3) {
      if (!s) fail_msg("%s: parsed, expected an error", files.name[i]);
      char want[64];
      snprintf(want, sizeof want, "<input>:%u:%u: error: ", line, col);
      const char* got = air_status_message(s);
      if (strncmp(got, want, strlen(want)) != 0 || !strstr(got, msg))
        fail_msg("%s: want \"%s...%s\", got \"%s\"", files.name[i], want, msg, got);
      air_status_free(s);
    } else {
      fail_msg("%s: no expect-ok / expect-error header", files.name[i]);
    }
    free(text);
  }
}

/*---------------------------------------------------------------------------*/
/* Robustness: every prefix and a sweep of one-byte mutations                */
/*---------------------------------------------------------------------------*/

static void check_located(air_status_t s) {
  const char* msg = air_status_message(s);
  if (strncmp(msg, "<input>:", 8) != 0 || !strstr(msg, ": error: "))
    fail_msg("status without a location: %s", msg);
  air_status_free(s);
}

static void test_prefixes_and_mutations(void** state) {
  names_t files;
  list_dir(PROGRAMS, &files);
  static const char subs[] = "{}()[]<>%#@!:,=\"x0-";
  for (int f = 0; f < files.n; ++f) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PROGRAMS, files.name[f]);
    size_t len;
    char* text = test_read_file(path, &len);
    assert_non_null(text);
    int ok = 0;
    for (size_t k = 0; k <= len; ++k) {
      /* A private copy so reading past `k` would be caught by ASan. */
      char* cut = malloc(k ? k : 1);
      assert_non_null(cut);
      memcpy(cut, text, k);
      air_program_t* p;
      air_status_t s = parse_n(*state, cut, k, 1, &p);
      if (s)
        check_located(s);
      else
        ok++, air_ir_program_free(p);
      free(cut);
    }
    assert_true(ok >= 1); /* the whole text */
    for (size_t k = 0; k < len; k += len / 300 + 1) {
      for (const char* c = subs; *c; ++c) {
        char saved = text[k];
        text[k] = *c;
        air_program_t* p;
        air_status_t s = parse_n(*state, text, len, 1, &p);
        if (s)
          check_located(s);
        else
          air_ir_program_free(p);
        text[k] = saved;
      }
    }
    free(text);
  }
}

/* @"..." symbol names decode their escapes, like strings: the stored name is the
 * bytes, so lookups and printing agree with what was meant. */
static void test_quoted_symbols(void** state) {
  air_context_t* ctx = *state;
  const char* t = "air.channel @\"ch\\41n\" [1]\nair.channel @plain [2]\n";
  air_program_t* p = NULL;
  air_status_t s = parse_n(ctx, t, strlen(t), 1, &p);
  assert_null(s);
  const air_op_t* op = p->module->regions[0]->first;
  assert_non_null(op);
  assert_string_equal(op->sym, "chAn");
  assert_non_null(op->next);
  assert_string_equal(op->next->sym, "plain");
  air_ir_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_quoted_symbols, test_context_setup, test_context_teardown),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test_setup_teardown(test_malformed, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_colon_memref, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_syntax_cases, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_prefixes_and_mutations, test_context_setup, test_context_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

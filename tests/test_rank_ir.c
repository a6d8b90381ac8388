/* Scale-out in the front end (issue 13): air.rank, air.universe.alloc,
 * symmetric allocations and src_rank/dst_rank through the builder, the IR layout,
 * the printer/parser round trip, and the parser's and builder's rejections. The
 * verifier's rules have their data files (tests/data/verify/rank_*.mlir); the
 * checks here are the ones text cannot reach (builder arguments). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "air/builder.h"
#include "air/program.h"
#include "air/types.h"
#include "runtime/ir/ir.h"

#define OK(expr)                                              \
  do {                                                        \
    air_status_t s_ = (expr);                                 \
    if (s_) fail_msg("%s: %s", #expr, air_status_message(s_)); \
  } while (0)
#define FAILS(expr, code)                                                     \
  do {                                                                        \
    air_status_t s_ = (expr);                                                 \
    if (air_status_code(s_) != AIR_STATUS_##code)                             \
      fail_msg("%s: expected " #code ", got %s", #expr, air_status_message(s_)); \
    air_status_free(s_);                                                      \
  } while (0)

static air_value_t cidx(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_index(b, v, &r));
  return r;
}

static air_type_t memref1(air_program_t* p, int64_t n) {
  air_type_t t = 0;
  OK(air_type_memref(p, AIR_ELEMENT_F32, 1, &n, AIR_MEMORY_L3, NULL, &t));
  return t;
}

static air_op_t* find(air_op_t* root, air_opkind_t kind);
static bool find_cb(air_op_t* op, void* user) {
  air_op_t** io = user;
  if (op->kind != (*io)->kind) return true;
  io[1] = op;
  return false;
}
static air_op_t* find(air_op_t* root, air_opkind_t kind) {
  air_op_t probe = {0};
  probe.kind = kind;
  air_op_t* io[2] = {&probe, NULL};
  air_ir_walk(root, find_cb, io);
  return io[1];
}

/* func @ring(%a, %b): a universe of 4, an async rank over it passing %a, %b; in
 * the body a symmetric buffer, an async put to the next rank, a get, and a
 * dma reading the next rank's symmetric buffer (src_rank operand) and one
 * writing rank 0's (dst_rank attribute). */
static void build_ring(air_builder_t* b, air_program_t* p) {
  air_channel_desc_t cd = {0};
  int64_t four = 4;
  cd.name = "ring";
  cd.rank = 1;
  cd.dims = &four;
  cd.channel_type = "gpu_symmetric_heap";
  OK(air_builder_channel(b, &cd));
  air_type_t t = memref1(p, 64), ins[2] = {t, t};
  air_func_desc_t fd = {0};
  fd.name = "ring_main";
  fd.n_inputs = 2;
  fd.inputs = ins;
  air_value_t fa[2];
  OK(air_builder_func_begin(b, &fd, fa));
  air_value_t c4 = cidx(b, 4), u = 0, tok = 0, ba[5];
  OK(air_builder_universe_alloc(b, c4, &u));
  air_hier_desc_t rd = {0};
  rd.flags = AIR_BUILD_ASYNC;
  rd.n_dims = 1;
  rd.sizes = &c4;
  rd.n_args = 2;
  rd.args = fa;
  rd.universe = u;
  OK(air_builder_rank_begin(b, &rd, ba, &tok));
  air_value_t r = ba[0], n = ba[1], x = ba[2], y = ba[3];
  air_value_t sym = 0;
  OK(air_builder_memref_alloc(b, t, 0, NULL, &sym));
  OK(air_builder_set_attr_unit(b, "air.symmetric"));
  air_value_t c1 = cidx(b, 1), s = 0, next = 0, pt = 0;
  OK(air_builder_binary(b, AIR_BINARY_ADDI, r, c1, &s));
  OK(air_builder_binary(b, AIR_BINARY_REMUI, s, n, &next));
  air_channel_io_desc_t io = {0};
  io.flags = AIR_BUILD_ASYNC;
  io.channel = "ring";
  io.n_indices = 1;
  io.indices = &next;
  io.data.memref = x;
  OK(air_builder_channel_put(b, &io, &pt));
  io.flags = 0;
  io.indices = &r;
  io.data.memref = y;
  OK(air_builder_channel_get(b, &io, NULL));
  OK(air_builder_wait_all(b, 0, 1, &pt, NULL));
  air_dma_desc_t dd = {0};
  dd.dst.memref = y;
  dd.src.memref = sym;
  dd.src_rank = next;
  OK(air_builder_dma_memcpy_nd(b, &dd, NULL));
  dd.dst.memref = sym;
  dd.src.memref = x;
  dd.src_rank = 0;
  OK(air_builder_dma_memcpy_nd(b, &dd, NULL));
  OK(air_builder_set_attr_int(b, "dst_rank", 0, 0));
  OK(air_builder_memref_dealloc(b, sym));
  OK(air_builder_rank_end(b));
  OK(air_builder_wait_all(b, 0, 1, &tok, NULL));
  OK(air_builder_func_end(b, 0, NULL));
  OK(air_builder_finish(b));
}

static void test_build_layout_round_trip(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = NULL;
  air_builder_t* b = NULL;
  OK(air_program_create(ctx, &p));
  OK(air_builder_create(p, &b));
  build_ring(b, p);
  air_builder_destroy(b);
  /* The layout ir.h documents. */
  air_op_t* rank = find(p->module, AIR_OP_RANK);
  assert_non_null(rank);
  assert_true(rank->flags & AIR_OPF_UNIVERSE);
  assert_int_equal(rank->iaux[0], 1);
  assert_int_equal(rank->n_operands, 4); /* size, %a, %b, universe */
  assert_int_equal(air_ir_hier_nargs(rank), 2);
  assert_int_equal(rank->regions[0]->n_args, 4);
  assert_int_equal(rank->regions[0]->last->kind, AIR_OP_RANK_TERM);
  air_op_t* uni = find(p->module, AIR_OP_UNIVERSE_ALLOC);
  assert_int_equal(air_ir_rank_universe(rank), uni->results[0]);
  assert_int_equal(air_ir_type(p, air_ir_value_type(p, uni->results[0]))->kind,
                   AIR_TYPE_UNIVERSE);
  air_op_t* dma = find(p->module, AIR_OP_DMA);
  assert_true(dma->flags & AIR_OPF_SRC_RANK);
  assert_false(dma->flags & AIR_OPF_DST_RANK);
  assert_int_equal(dma->n_operands, 3);
  assert_int_not_equal(air_ir_dma_rank(dma, false), 0);
  assert_int_equal(air_ir_dma_rank(dma, true), 0);
  OK(air_program_verify(p, NULL, 0));
  OK(air_program_verify(p, "cpu", 0));

  /* print -> parse -> print gives the same text, and the parse verifies. */
  char *t1 = NULL, *t2 = NULL;
  OK(air_program_print_to_string(p, 0, &t1, NULL));
  assert_non_null(strstr(t1, "air.universe.alloc("));
  assert_non_null(strstr(t1, ": !air.universe"));
  assert_non_null(strstr(t1, "air.rank async universe("));
  assert_non_null(strstr(t1, "src_rank("));
  assert_non_null(strstr(t1, "{dst_rank = 0}"));
  assert_non_null(strstr(t1, "{air.symmetric}"));
  air_program_t* q = NULL;
  OK(air_program_parse(ctx, t1, strlen(t1), NULL, &q));
  OK(air_program_print_to_string(q, 0, &t2, NULL));
  assert_string_equal(t1, t2);
  OK(air_program_verify(q, NULL, 0));
  air_program_free_string(p, t1);
  air_program_free_string(q, t2);
  air_program_destroy(q);
  air_program_destroy(p);
}

static void test_builder_rejects(void** state) {
  air_context_t* ctx = *state;
  air_program_t* p = NULL;
  air_builder_t* b = NULL;
  OK(air_program_create(ctx, &p));
  OK(air_builder_create(p, &b));
  air_func_desc_t fd = {0};
  fd.name = "f";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c2 = cidx(b, 2), u = 0, f1 = 0, tok = 0;
  air_type_t f32 = 0;
  OK(air_type_scalar(p, AIR_ELEMENT_F32, &f32));
  OK(air_builder_constant_float(b, f32, 1.0, &f1));
  FAILS(air_builder_universe_alloc(b, f1, &u), INVALID_ARGUMENT); /* not an index */
  FAILS(air_builder_universe_alloc(b, c2, NULL), INVALID_ARGUMENT);
  OK(air_builder_universe_alloc(b, c2, &u));
  OK(air_builder_token_alloc(b, &tok));
  air_hier_desc_t d = {0};
  d.n_dims = 1;
  d.sizes = &c2;
  d.universe = u;
  FAILS(air_builder_launch_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* universe on launch */
  d.universe = c2;
  FAILS(air_builder_rank_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* not a universe */
  d.universe = 0;
  d.name = "r";
  FAILS(air_builder_rank_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* ranks have no name */
  d.name = NULL;
  d.flags = AIR_BUILD_X_LOC;
  FAILS(air_builder_rank_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* no placement */
  d.flags = 0;
  d.tokens.n_affinity = 1;
  d.tokens.affinity = &tok;
  FAILS(air_builder_rank_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* no affinity */
  d.tokens.n_affinity = 0;
  d.n_dims = 0;
  FAILS(air_builder_rank_begin(b, &d, NULL, NULL), INVALID_ARGUMENT); /* no rank space */
  FAILS(air_builder_rank_end(b), FAILED_PRECONDITION);                 /* nothing open */
  d.n_dims = 1;
  OK(air_builder_rank_begin(b, &d, NULL, NULL));
  FAILS(air_builder_herd_end(b), FAILED_PRECONDITION); /* the open body is a rank */
  air_value_t m = 0;
  OK(air_builder_memref_alloc(b, memref1(p, 8), 0, NULL, &m));
  air_dma_desc_t dd = {0};
  dd.dst.memref = m;
  dd.src.memref = m;
  dd.src_rank = f1;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID_ARGUMENT); /* rank not an index */
  dd.src_rank = 0;
  dd.dst_rank = m;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID_ARGUMENT);
  OK(air_builder_rank_end(b));
  OK(air_builder_func_end(b, 0, NULL));
  air_builder_destroy(b);
  air_program_destroy(p);
}

static void expect_parse_error(air_context_t* ctx, const char* text, const char* substr) {
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(ctx, text, strlen(text), NULL, &p);
  if (!s) {
    air_program_destroy(p);
    fail_msg("expected a parse error containing \"%s\" for:\n%s", substr, text);
  }
  if (!strstr(air_status_message(s), substr))
    fail_msg("want \"%s\", got \"%s\"", substr, air_status_message(s));
  air_status_free(s);
}

static void test_parse_errors(void** state) {
  air_context_t* ctx = *state;
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  %u = air.universe.alloc(%c) : !air.universe\n"
                     "  air.rank universe(%u) universe(%u) (%r) in (%n=%c) {\n  }\n  return\n}\n",
                     "'universe' is already given");
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  %u = air.universe.alloc(%c) : index\n  return\n}\n",
                     "expected '!air.universe'");
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  air.rank (%r) in (%n=%c) {\n"
                     "    %m = memref.alloc() : memref<4xf32>\n"
                     "    air.dma_memcpy_nd (%m[] [] [], %m[] [] []) src_rank(%r) src_rank(%r) "
                     ": (memref<4xf32>, memref<4xf32>)\n  }\n  return\n}\n",
                     "'src_rank' is already given");
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  air.rank (%r) in (%n=%c)\n  return\n}\n",
                     "'{' to begin the body of 'air.rank'");
  /* universe(...) is air.rank's only: on a launch it is not a clause. */
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  %u = air.universe.alloc(%c) : !air.universe\n"
                     "  air.launch universe(%u) (%r) in (%n=%c) {\n  }\n  return\n}\n",
                     "error");
  /* The universe must be one. */
  expect_parse_error(ctx,
                     "func.func @f() {\n  %c = arith.constant 2 : index\n"
                     "  air.rank universe(%c) (%r) in (%n=%c) {\n  }\n  return\n}\n",
                     "error");
}

/* Dynamic peers verify; the constant range check reads operands too. */
static void test_verify_dynamic_rank(void** state) {
  air_context_t* ctx = *state;
  const char* text =
      "func.func @f() {\n  %c = arith.constant 3 : index\n"
      "  air.rank (%r) in (%n=%c) {\n"
      "    %s = memref.alloc() {air.symmetric} : memref<4xf32>\n"
      "    %l = memref.alloc() : memref<4xf32>\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %p = arith.addi %r, %c1 : index\n"
      "    air.dma_memcpy_nd (%l[] [] [], %s[] [] []) src_rank(%p) : (memref<4xf32>, "
      "memref<4xf32>)\n"
      "    %c3 = arith.constant 3 : index\n"
      "    air.dma_memcpy_nd (%s[] [] [], %l[] [] []) dst_rank(%c3) : (memref<4xf32>, "
      "memref<4xf32>)\n"
      "  }\n  return\n}\n";
  air_program_t* p = NULL;
  OK(air_program_parse(ctx, text, strlen(text), NULL, &p));
  air_status_t s = air_program_verify(p, NULL, 0);
  assert_int_equal(air_status_code(s), AIR_STATUS_FAILED_PRECONDITION);
  const char* msg = air_status_message(s);
  /* Only the constant 3 is out of [0, 3); the dynamic %p is not judged. */
  assert_non_null(strstr(msg, "<input>:10:5: error: [rank] dst_rank is 3, outside"));
  assert_null(strstr(msg, ":8:"));
  air_status_free(s);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_build_layout_round_trip),
      cmocka_unit_test(test_builder_rejects),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_verify_dynamic_rank),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

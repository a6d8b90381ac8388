/* builder_test.h - what the builder API's tests (test_builder.c,
 * test_builder_errors.c, test_builder_roundtrip.c) share: status checks (OK,
 * FAILS), the fixture (a context, a program, its builder), type and value
 * helpers, finding ops in the built IR, the check that every body ends with its
 * terminator, the affine maps and sets the tests build with, and the corpus of
 * programs built op by op (tests/builder_programs.c). Header-only apart from
 * that corpus (static inline); include after <cmocka.h>. */
#ifndef AIR_TESTS_BUILDER_TEST_H_
#define AIR_TESTS_BUILDER_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "air/builder.h"
#include "air/context.h"
#include "air/program.h"
#include "air/types.h"
#include "runtime/ir/ir.h"

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

#define OK(expr)                                                            \
  do {                                                                      \
    air_status_t ok_s_ = (expr);                                            \
    if (ok_s_) {                                                            \
      print_error("%s:%d: %s\n  -> %s\n", __FILE__, __LINE__, #expr,        \
                  air_status_message(ok_s_));                               \
      air_status_free(ok_s_);                                               \
      fail();                                                               \
    }                                                                       \
  } while (0)

#define FAILS(expr, code)                                                   \
  do {                                                                      \
    air_status_t f_s_ = (expr);                                             \
    if (air_status_code(f_s_) != (code))                                    \
      print_error("%s:%d: %s gave %s (%s), wanted %s\n", __FILE__, __LINE__, \
                  #expr, air_status_code_name(air_status_code(f_s_)),       \
                  air_status_message(f_s_), air_status_code_name(code));    \
    assert_int_equal(air_status_code(f_s_), (code));                        \
    assert_true(air_status_message(f_s_)[0] != 0);                          \
    air_status_free(f_s_);                                                  \
  } while (0)

#define INVALID AIR_STATUS_INVALID_ARGUMENT
#define PRECOND AIR_STATUS_FAILED_PRECONDITION

typedef struct fixture_t {
  air_context_t* ctx;
  air_program_t* p;
  air_builder_t* b;
} fixture_t;

static inline int setup(void** state) {
  static fixture_t f;
  memset(&f, 0, sizeof(f));
  if (air_context_create(NULL, NULL, &f.ctx)) return -1;
  if (air_program_create(f.ctx, &f.p)) return -1;
  if (air_builder_create(f.p, &f.b)) return -1;
  *state = &f;
  return 0;
}

static inline int teardown(void** state) {
  fixture_t* f = *state;
  air_builder_destroy(f->b);
  air_program_destroy(f->p);
  air_context_destroy(f->ctx);
  return 0;
}

static inline air_type_t t_scalar(air_builder_t* b, air_elem_t e) {
  air_type_t t = 0;
  OK(air_type_scalar(air_builder_program(b), e, &t));
  return t;
}

static inline air_type_t t_memref(air_builder_t* b, air_elem_t e, uint32_t rank,
                                  const int64_t* shape, uint32_t space) {
  air_type_t t = 0;
  OK(air_type_memref(air_builder_program(b), e, rank, shape, space, NULL, &t));
  return t;
}

static inline air_type_t t_memref2(air_builder_t* b, air_elem_t e, int64_t d0, int64_t d1,
                                   uint32_t space) {
  int64_t s[2] = {d0, d1};
  return t_memref(b, e, 2, s, space);
}

static inline air_value_t cidx(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_index(b, v, &r));
  return r;
}

static inline air_value_t alloc(air_builder_t* b, air_type_t t) {
  air_value_t r = 0;
  OK(air_builder_memref_alloc(b, t, 0, NULL, &r));
  return r;
}

static inline air_value_t binop(air_builder_t* b, air_binary_op_t op, air_value_t x,
                                air_value_t y) {
  air_value_t r = 0;
  OK(air_builder_binary(b, op, x, y, &r));
  return r;
}

/* The module body's ops, the n-th op of a body, body lengths. */
static inline air_block_t* module_body(air_program_t* p) { return p->module->regions[0]; }

static inline uint32_t block_len(const air_block_t* blk) {
  uint32_t n = 0;
  for (air_op_t* o = blk->first; o; o = o->next) ++n;
  return n;
}

static inline air_op_t* nth(const air_block_t* blk, uint32_t i) {
  air_op_t* o = blk->first;
  while (o && i--) o = o->next;
  assert_non_null(o);
  return o;
}

typedef struct find_t {
  air_opkind_t kind;
  uint32_t skip, count;
  air_op_t* found;
} find_t;

static inline bool find_cb(air_op_t* op, void* user) {
  find_t* f = user;
  if (op->kind != f->kind) return true;
  if (f->count++ == f->skip) f->found = op;
  return true;
}

/* The `i`-th op of `kind` in pre-order under the module. */
static inline air_op_t* find(air_program_t* p, air_opkind_t kind, uint32_t i) {
  find_t f = {kind, i, 0, NULL};
  air_ir_walk(p->module, find_cb, &f);
  assert_non_null(f.found);
  return f.found;
}

static inline uint32_t count(air_program_t* p, air_opkind_t kind) {
  find_t f = {kind, UINT32_MAX, 0, NULL};
  air_ir_walk(p->module, find_cb, &f);
  return f.count;
}

static inline air_elem_kind_t value_elem(air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v))->elem;
}

static inline bool value_is_token(air_program_t* p, air_vid_t v) {
  return air_ir_type_is_token(p, air_ir_value_type(p, v));
}

/* Every body of a region op ends with a terminator of the right kind. */
static inline air_opkind_t expected_terminator(air_opkind_t k) {
  switch (k) {
    case AIR_OP_FUNC: return AIR_OP_RETURN;
    case AIR_OP_LAUNCH: return AIR_OP_LAUNCH_TERM;
    case AIR_OP_SEGMENT: return AIR_OP_SEGMENT_TERM;
    case AIR_OP_HERD: return AIR_OP_HERD_TERM;
    case AIR_OP_RANK: return AIR_OP_RANK_TERM;
    case AIR_OP_EXECUTE: return AIR_OP_EXECUTE_TERM;
    case AIR_OP_FOR: return AIR_OP_YIELD;
    case AIR_OP_IF: return AIR_OP_YIELD;
    case AIR_OP_PARALLEL: return AIR_OP_REDUCE;
    case AIR_OP_REDUCE: return AIR_OP_REDUCE_RETURN;
    case AIR_OP_AFFINE_IF: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_AFFINE_FOR: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_GENERIC: return AIR_OP_LINALG_YIELD;
    default: return AIR_OP_COUNT_;
  }
}

static inline bool terminated_cb(air_op_t* op, void* user) {
  (void)user;
  if (op->kind == AIR_OP_MODULE) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_block_t* blk = op->regions[r];
    assert_non_null(blk);
    assert_ptr_equal(blk->parent, op);
    assert_non_null(blk->last);
    assert_int_equal(blk->last->kind, expected_terminator(op->kind));
    for (air_op_t* o = blk->first; o; o = o->next) assert_ptr_equal(o->parent, blk);
  }
  return true;
}

static inline void assert_all_terminated(air_program_t* p) {
  air_ir_walk(p->module, terminated_cb, NULL);
}

/* Affine maps and sets the programs and the argument checks build with. */
/* d0 * 64 + s0 */
static const int64_t k_map_codes[] = {AIR_AFFINE_ADD, AIR_AFFINE_MUL, AIR_AFFINE_DIM, 0,
                                      AIR_AFFINE_CONST, 64, AIR_AFFINE_SYM, 0};
/* (d0, d1) : (d0 == 0, d1 - 1 >= 0) */
static const int64_t k_set_codes[] = {AIR_AFFINE_EQ0, AIR_AFFINE_DIM, 0, AIR_AFFINE_GE0,
                                      AIR_AFFINE_ADD, AIR_AFFINE_DIM, 1, AIR_AFFINE_CONST, -1};
/* (d0, d1) -> (d0, d1) */
static const int64_t k_id2_codes[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 1};

static inline air_affine_desc_t map_desc(void) {
  air_affine_desc_t m = {0, 1, 1, 1, 8, k_map_codes};
  return m;
}
static inline air_affine_desc_t set_desc(void) {
  air_affine_desc_t s = {0, 2, 0, 2, 9, k_set_codes};
  return s;
}
static inline air_affine_desc_t id2_desc(void) {
  air_affine_desc_t s = {0, 2, 0, 2, 4, k_id2_codes};
  return s;
}

/* The attribute `name` of `op`, which must be of `kind`. */
static inline const air_attr_t* attr(const air_op_t* op, const char* name, air_attr_kind_t kind) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  if (!a) print_error("op %s has no attribute %s\n", air_opkind_name(op->kind), name);
  assert_non_null(a);
  assert_int_equal(a->kind, kind);
  return a;
}

/*---------------------------------------------------------------------------*/
/* Programs (tests/builder_programs.c)                                       */
/*---------------------------------------------------------------------------*/

void build_vector_add(air_builder_t* b);
void build_matmul(air_builder_t* b);
void build_parallel(air_builder_t* b);
void build_execute(air_builder_t* b);
void build_tokens(air_builder_t* b);
void build_elements(air_builder_t* b);
void build_broadcast(air_builder_t* b);
void build_compute(air_builder_t* b);
void build_gpu(air_builder_t* b);
void build_attrs(air_builder_t* b);

typedef struct program_case_t {
  const char* name;
  void (*build)(air_builder_t* b);
} program_case_t;

/* The ten programs above, by name, in this order. */
enum { N_PROGRAMS = 10 };
extern const program_case_t k_programs[N_PROGRAMS];

/* Builds program `i` in the fixture and checks the builder closed every body. */
static inline air_program_t* build(fixture_t* f, int i) {
  k_programs[i].build(f->b);
  OK(air_builder_finish(f->b));
  assert_int_equal(air_builder_depth(f->b), 0);
  assert_all_terminated(f->p);
  return f->p;
}

#endif /* AIR_TESTS_BUILDER_TEST_H_ */

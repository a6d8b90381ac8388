/* builder_ext_test.h - what the tests of the builder calls for mlir-air's wider
 * op set (test_builder_ext.c, test_builder_ext_control.c,
 * test_builder_ext_views.c, test_builder_ext_errors.c) share: status checks, the
 * fixture (support/exec.h's context and pool, a program and its builder), small
 * builder helpers (types, constants, loads and stores, loops, funcs, herds,
 * DMAs), finding and counting ops, and the check of a built program: verify,
 * print, parse back (same text, same ops), run on the CPU driver on row-major
 * buffers. Header-only (static inline); include after <cmocka.h>. */
#ifndef AIR_TESTS_BUILDER_EXT_TEST_H_
#define AIR_TESTS_BUILDER_EXT_TEST_H_

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/exec.h"
#include "support/status.h"

#include "air/builder.h"
#include "air/program.h"
#include "air/types.h"
#include "runtime/ir/ir.h"

#define OK(expr) test_check(expr)
#define FAILS(expr, code, needle) test_expect_status((expr), (code), (needle))
#define INVALID AIR_STATUS_INVALID_ARGUMENT
#define PRECOND AIR_STATUS_FAILED_PRECONDITION

/*---------------------------------------------------------------------------*/
/* Fixture and small helpers                                                 */
/*---------------------------------------------------------------------------*/

typedef struct fx_t {
  test_exec_t x;
  air_program_t* p;
  air_builder_t* b;
} fx_t;

static inline int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  if (!f || test_exec_open(&f->x)) return -1;
  if (air_program_create(f->x.ctx, &f->p) || air_builder_create(f->p, &f->b)) return -1;
  *state = f;
  return 0;
}

static inline int teardown(void** state) {
  fx_t* f = *state;
  air_builder_destroy(f->b);
  air_program_destroy(f->p);
  test_exec_close(&f->x);
  free(f);
  return 0;
}

static inline air_type_t ts(air_builder_t* b, air_elem_t e) {
  air_type_t t = 0;
  OK(air_type_scalar(air_builder_program(b), e, &t));
  return t;
}

static inline air_type_t tm(air_builder_t* b, air_elem_t e, uint32_t rank, int64_t d0, int64_t d1,
                            uint32_t space) {
  int64_t s[2] = {d0, d1};
  air_type_t t = 0;
  OK(air_type_memref(air_builder_program(b), e, rank, s, space, NULL, &t));
  return t;
}

static inline air_value_t ci(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_index(b, v, &r));
  return r;
}

static inline air_value_t load(air_builder_t* b, air_value_t m, uint32_t n, air_value_t i0,
                               air_value_t i1) {
  air_value_t ix[2] = {i0, i1}, r = 0;
  OK(air_builder_memref_load(b, m, n, ix, &r));
  return r;
}

static inline void store(air_builder_t* b, air_value_t v, air_value_t m, uint32_t n, air_value_t i0,
                         air_value_t i1) {
  air_value_t ix[2] = {i0, i1};
  OK(air_builder_memref_store(b, v, m, n, ix));
}

/* `scf.for %j = 0 to n step 1` opened; returns %j. */
static inline air_value_t loop(air_builder_t* b, int64_t n) {
  air_value_t iv = 0;
  OK(air_builder_scf_for_begin(b, ci(b, 0), ci(b, n), ci(b, 1), 0, NULL, &iv, NULL, NULL));
  return iv;
}
static inline void end_loop(air_builder_t* b) { OK(air_builder_scf_for_end(b, 0, NULL)); }

static inline void func_begin(air_builder_t* b, const char* name, uint32_t n, const air_type_t* ins,
                              air_value_t* args) {
  air_func_desc_t d = {0};
  d.name = name;
  d.n_inputs = n;
  d.inputs = ins;
  OK(air_builder_func_begin(b, &d, args));
}

/* launch 1x1 / segment / herd `nx` x 1 passing `n` args; `ha` receives the
 * herd's block arguments (tile x, y, sizes x, y, args...). */
static inline void hier_begin(air_builder_t* b, uint32_t n, const air_value_t* args, int64_t nx,
                              air_value_t* ha) {
  air_value_t one[2] = {ci(b, 1), ci(b, 1)};
  air_hier_desc_t ld = {0};
  ld.n_dims = 2;
  ld.sizes = one;
  ld.n_args = n;
  ld.args = args;
  air_value_t la[16];
  OK(air_builder_launch_begin(b, &ld, la, NULL));
  air_hier_desc_t sd = {0};
  sd.name = "seg";
  sd.n_args = n;
  sd.args = la + 4;
  air_value_t sa[16];
  OK(air_builder_segment_begin(b, &sd, sa, NULL));
  air_value_t hs[2] = {ci(b, nx), ci(b, 1)};
  air_hier_desc_t hd = {0};
  hd.name = "herd";
  hd.n_dims = 2;
  hd.sizes = hs;
  hd.n_args = n;
  hd.args = sa;
  OK(air_builder_herd_begin(b, &hd, ha, NULL));
}

static inline void hier_end(air_builder_t* b) {
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
}

/* air.dma_memcpy_nd (dst[row, 0] [1, n] [n, 1] | whole, src likewise). */
static inline void dma(air_builder_t* b, air_value_t dst, air_value_t dst_row, air_value_t src,
                       air_value_t src_row, int64_t n) {
  air_index_t off[2] = {{0, 0}, {0, 0}}, sz[2] = {{0, 1}, {0, n}}, st[2] = {{0, n}, {0, 1}};
  air_dma_desc_t d = {0};
  d.dst.memref = dst;
  d.src.memref = src;
  if (dst_row) {
    off[0].value = dst_row;
    d.dst = (air_slice_t){dst, 2, off, 2, sz, 2, st};
  }
  if (src_row) {
    off[0].value = src_row;
    d.src = (air_slice_t){src, 2, off, 2, sz, 2, st};
  }
  OK(air_builder_dma_memcpy_nd(b, &d, NULL));
}

/* (d0, d1) -> (d0, d1) */
static const int64_t k_id2[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 1};

/*---------------------------------------------------------------------------*/
/* Build, verify, round trip, run                                            */
/*---------------------------------------------------------------------------*/

typedef struct bufs_t {
  uint32_t n;
  void* now[8];
  void* orig[8];
} bufs_t;

#define IN(i, T) ((const T*)bu->orig[i])
#define OUT(i, T) ((const T*)bu->now[i])

typedef struct walk_t {
  air_opkind_t kind;
  uint32_t n;
} walk_t;
static inline bool count_cb(air_op_t* op, void* user) {
  walk_t* w = user;
  w->n += op->kind == w->kind;
  return true;
}
static inline uint32_t count_kind(air_program_t* p, air_opkind_t k) {
  walk_t w = {k, 0};
  air_ir_walk(p->module, count_cb, &w);
  return w.n;
}

typedef struct find_t {
  air_opkind_t kind;
  air_op_t* op;
} find_t;
static inline bool find_cb(air_op_t* op, void* user) {
  find_t* w = user;
  if (op->kind != w->kind) return true;
  w->op = op;
  return false;
}
/* Ops in the innermost open body. */
static inline uint32_t block_count(air_builder_t* b) {
  air_op_t* fn = NULL;
  for (air_op_t* o = air_builder_program(b)->module->regions[0]->first; o; o = o->next) fn = o;
  uint32_t n = 0;
  for (air_op_t* o = fn->regions[0]->first; o; o = o->next) ++n;
  return n;
}

/* The first op of `kind` (walk order). */
static inline air_op_t* find_kind(air_program_t* p, air_opkind_t k) {
  find_t w = {k, NULL};
  air_ir_walk(p->module, find_cb, &w);
  assert_non_null(w.op);
  return w.op;
}

/* Verifies p, prints it, parses the text back, and checks the second print and
 * the op counts match. Returns the printed text (free with air_program_free_string
 * on p). */
static inline char* verify_and_round_trip(fx_t* f, const char* name) {
  OK(air_builder_finish(f->b));
  air_status_t st = air_program_verify(f->p, NULL, 0);
  char *t1 = NULL, *t2 = NULL;
  size_t n1 = 0, n2 = 0;
  OK(air_program_print_to_string(f->p, 0, &t1, &n1));
  if (st) print_error("--- %s ---\n%s\n", name, t1);
  OK(st);
  air_parse_options_t o = {0};
  o.filename = name;
  air_program_t* q = NULL;
  st = air_program_parse(f->x.ctx, t1, n1, &o, &q);
  if (st) print_error("--- printed %s ---\n%s\n", name, t1);
  OK(st);
  OK(air_program_verify(q, NULL, 0));
  OK(air_program_print_to_string(q, 0, &t2, &n2));
  if (strcmp(t1, t2)) print_error("--- first ---\n%s\n--- second ---\n%s\n", t1, t2);
  assert_string_equal(t1, t2);
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    uint32_t a = count_kind(f->p, (air_opkind_t)k), c = count_kind(q, (air_opkind_t)k);
    if (a != c) print_error("%s: %u %s built, %u parsed\n", name, a, air_opkind_name(k), c);
    assert_int_equal(a, c);
  }
  air_program_free_string(q, t2);
  air_program_destroy(q);
  return t1;
}

/* Runs @name of the built program on row-major buffers filled by `fill`, then
 * `check`s them. */
static inline void run(fx_t* f, const char* name, void (*fill)(bufs_t*),
                       void (*check)(const bufs_t*)) {
  const air_op_t* fn = NULL;
  for (air_op_t* o = f->p->module->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && !strcmp(o->sym, name)) fn = o;
  assert_non_null(fn);
  bufs_t bu;
  memset(&bu, 0, sizeof bu);
  bu.n = fn->iaux[0];
  air_arg_t args[8];
  size_t bytes[8];
  for (uint32_t i = 0; i < bu.n; ++i) {
    const air_type_info_t* t = air_ir_type(f->p, fn->types[i]);
    int64_t count = 1;
    for (uint32_t k = 0; k < t->rank; ++k) count *= t->shape[k];
    bytes[i] = (size_t)count * air_elem_size(t->elem);
    bu.now[i] = calloc(1, bytes[i]);
    bu.orig[i] = calloc(1, bytes[i]);
    args[i] = test_mref(bu.now[i], t->elem, 0);
    args[i].memref.rank = t->rank;
    int64_t stride = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
      args[i].memref.sizes[k] = t->shape[k];
      args[i].memref.strides[k] = stride;
      stride *= t->shape[k];
    }
  }
  fill(&bu);
  for (uint32_t i = 0; i < bu.n; ++i) memcpy(bu.now[i], bu.orig[i], bytes[i]);
  air_interp_desc_t d = test_exec_desc(&f->x, f->p, fn, args, bu.n);
  OK(air_interp_run(&d));
  check(&bu);
  for (uint32_t i = 0; i < bu.n; ++i) {
    free(bu.now[i]);
    free(bu.orig[i]);
  }
}

static inline bool same_f(double got, double want) {
  return got == want || (isnan(got) && isnan(want));
}

#endif /* AIR_TESTS_BUILDER_EXT_TEST_H_ */

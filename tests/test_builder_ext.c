/* test_builder_ext.c - the builder calls for mlir-air's wider op set (issue 12):
 * math, named elementwise linalg ops, linalg.index, scf.index_switch, scf.forall,
 * memref.global / get_global and air.custom. Each program is built op by op,
 * verified, printed, parsed back (same text, same ops) and run on the CPU
 * driver against C (libm for math); then every argument check of the new calls,
 * and that a failed call leaves the program as it was. */
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

static int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  if (!f || test_exec_open(&f->x)) return -1;
  if (air_program_create(f->x.ctx, &f->p) || air_builder_create(f->p, &f->b)) return -1;
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fx_t* f = *state;
  air_builder_destroy(f->b);
  air_program_destroy(f->p);
  test_exec_close(&f->x);
  free(f);
  return 0;
}

static air_type_t ts(air_builder_t* b, air_elem_t e) {
  air_type_t t = 0;
  OK(air_type_scalar(air_builder_program(b), e, &t));
  return t;
}

static air_type_t tm(air_builder_t* b, air_elem_t e, uint32_t rank, int64_t d0, int64_t d1,
                     uint32_t space) {
  int64_t s[2] = {d0, d1};
  air_type_t t = 0;
  OK(air_type_memref(air_builder_program(b), e, rank, s, space, NULL, &t));
  return t;
}

static air_value_t ci(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_index(b, v, &r));
  return r;
}

static air_value_t load(air_builder_t* b, air_value_t m, uint32_t n, air_value_t i0,
                        air_value_t i1) {
  air_value_t ix[2] = {i0, i1}, r = 0;
  OK(air_builder_memref_load(b, m, n, ix, &r));
  return r;
}

static void store(air_builder_t* b, air_value_t v, air_value_t m, uint32_t n, air_value_t i0,
                  air_value_t i1) {
  air_value_t ix[2] = {i0, i1};
  OK(air_builder_memref_store(b, v, m, n, ix));
}

/* `scf.for %j = 0 to n step 1` opened; returns %j. */
static air_value_t loop(air_builder_t* b, int64_t n) {
  air_value_t iv = 0;
  OK(air_builder_scf_for_begin(b, ci(b, 0), ci(b, n), ci(b, 1), 0, NULL, &iv, NULL, NULL));
  return iv;
}
static void end_loop(air_builder_t* b) { OK(air_builder_scf_for_end(b, 0, NULL)); }

static void func_begin(air_builder_t* b, const char* name, uint32_t n, const air_type_t* ins,
                       air_value_t* args) {
  air_func_desc_t d = {0};
  d.name = name;
  d.n_inputs = n;
  d.inputs = ins;
  OK(air_builder_func_begin(b, &d, args));
}

/* launch 1x1 / segment / herd `nx` x 1 passing `n` args; `ha` receives the
 * herd's block arguments (tile x, y, sizes x, y, args...). */
static void hier_begin(air_builder_t* b, uint32_t n, const air_value_t* args, int64_t nx,
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

static void hier_end(air_builder_t* b) {
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
}

/* air.dma_memcpy_nd (dst[row, 0] [1, n] [n, 1] | whole, src likewise). */
static void dma(air_builder_t* b, air_value_t dst, air_value_t dst_row, air_value_t src,
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

/*---------------------------------------------------------------------------*/
/* Programs                                                                  */
/*---------------------------------------------------------------------------*/

enum { N_FMATH = AIR_MATH_FMA + 1, N_IMATH = AIR_MATH_COUNT - AIR_MATH_ABSI };

/* @math(x, y : 16xf32, o : 31x16xf32, n : 16xi32, no : 4x16xi32): row k of o is
 * float math op k of (x, y) (fma: x * y + x), row k of no integer op k of n. */
static void build_math(air_builder_t* b) {
  air_type_t ins[5] = {tm(b, AIR_ELEMENT_F32, 1, 16, 0, 0), tm(b, AIR_ELEMENT_F32, 1, 16, 0, 0),
                       tm(b, AIR_ELEMENT_F32, 2, N_FMATH, 16, 0),
                       tm(b, AIR_ELEMENT_I32, 1, 16, 0, 0),
                       tm(b, AIR_ELEMENT_I32, 2, N_IMATH, 16, 0)};
  air_value_t a[5];
  func_begin(b, "math", 5, ins, a);
  air_value_t j = loop(b, 16);
  air_value_t x = load(b, a[0], 1, j, 0), y = load(b, a[1], 1, j, 0);
  for (int k = 0; k < N_FMATH; ++k) {
    air_value_t ops[3] = {x, y, x}, r = 0;
    uint32_t n = k == AIR_MATH_FMA ? 3 : k >= AIR_MATH_POWF ? 2 : 1;
    OK(air_builder_math(b, (air_math_op_t)k, n, ops, &r));
    store(b, r, a[2], 2, ci(b, k), j);
  }
  air_value_t i = load(b, a[3], 1, j, 0);
  for (int k = 0; k < N_IMATH; ++k) {
    air_value_t r = 0;
    OK(air_builder_math(b, (air_math_op_t)(AIR_MATH_ABSI + k), 1, &i, &r));
    store(b, r, a[4], 2, ci(b, k), j);
  }
  end_loop(b);
  OK(air_builder_func_end(b, 0, NULL));
}

/* @elementwise(x, y : 8xf32, o : 21x8xf32, p, q : 8xi32, r : 3x8xi32): row k of
 * o is elementwise op k on floats (div_unsigned: 0 there), rows of r are
 * div_unsigned, max and abs on integers. Each op writes a fresh buffer that a
 * loop copies into its row. */
static void ew_row(air_builder_t* b, air_elementwise_op_t op, uint32_t n_ins,
                   const air_value_t* ins, air_type_t t, air_value_t out, int64_t row) {
  air_value_t tmp = 0;
  OK(air_builder_memref_alloc(b, t, 0, NULL, &tmp));
  OK(air_builder_linalg_elementwise(b, op, n_ins, ins, tmp));
  air_value_t j = loop(b, 8);
  store(b, load(b, tmp, 1, j, 0), out, 2, ci(b, row), j);
  end_loop(b);
  OK(air_builder_memref_dealloc(b, tmp));
}

static void build_elementwise(air_builder_t* b) {
  air_type_t f8 = tm(b, AIR_ELEMENT_F32, 1, 8, 0, 0), i8 = tm(b, AIR_ELEMENT_I32, 1, 8, 0, 0);
  air_type_t ins[6] = {f8, f8, tm(b, AIR_ELEMENT_F32, 2, AIR_ELEMENTWISE_COUNT, 8, 0), i8, i8,
                       tm(b, AIR_ELEMENT_I32, 2, 3, 8, 0)};
  air_value_t a[6];
  func_begin(b, "elementwise", 6, ins, a);
  for (int k = 0; k < AIR_ELEMENTWISE_COUNT; ++k) {
    if (k == AIR_ELEMENTWISE_DIV_UNSIGNED) continue;
    ew_row(b, (air_elementwise_op_t)k, k <= AIR_ELEMENTWISE_POWF ? 2 : 1, a, f8, a[2], k);
  }
  ew_row(b, AIR_ELEMENTWISE_DIV_UNSIGNED, 2, a + 3, i8, a[5], 0);
  ew_row(b, AIR_ELEMENTWISE_MAX, 2, a + 3, i8, a[5], 1);
  ew_row(b, AIR_ELEMENTWISE_ABS, 1, a + 3, i8, a[5], 2);
  OK(air_builder_func_end(b, 0, NULL));
}

/* @control(a, o : 4x16xi32, g, h : 8x8xi32, f : 64xi32):
 * - a 4x1 herd: each tile scales its row of a by a factor an scf.index_switch on
 *   its column picks (case 0: 3, case 2: -1, default 1) into o; a switch without
 *   results stores 100 at element 0 on tile 3;
 * - linalg.generic h = g + i * 8 + j (linalg.index 0 and 1);
 * - scf.forall (i) = (4) to (%c60) step (8): f[i] *= 3, and a 2-d forall
 *   (i, j) = (0, 0) to (2, 3) step (1, %c2) adding 1000 to f[8 * i + j]. */
static air_value_t cint(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_int(b, ts(b, AIR_ELEMENT_I32), v, &r));
  return r;
}

static void build_switch_herd(air_builder_t* b, const air_value_t* a) {
  air_value_t ha[8];
  air_value_t args[2] = {a[0], a[1]};
  hier_begin(b, 2, args, 4, ha);
  air_type_t l1 = tm(b, AIR_ELEMENT_I32, 1, 16, 0, AIR_MEMORY_L1);
  air_value_t buf = 0;
  OK(air_builder_memref_alloc(b, l1, 0, NULL, &buf));
  dma(b, buf, 0, ha[4], ha[0], 16);
  air_type_t i32 = ts(b, AIR_ELEMENT_I32);
  int64_t cases[2] = {0, 2};
  air_value_t factor = 0, v;
  OK(air_builder_scf_index_switch_begin(b, ha[0], 2, cases, 1, &i32, &factor));
  v = cint(b, 3);
  OK(air_builder_scf_index_switch_next(b, 1, &v));
  v = cint(b, -1);
  OK(air_builder_scf_index_switch_next(b, 1, &v));
  v = cint(b, 1);
  OK(air_builder_scf_index_switch_end(b, 1, &v));
  air_value_t j = loop(b, 16), r = 0;
  OK(air_builder_binary(b, AIR_BINARY_MULI, load(b, buf, 1, j, 0), factor, &r));
  store(b, r, buf, 1, j, 0);
  end_loop(b);
  int64_t three = 3;
  OK(air_builder_scf_index_switch_begin(b, ha[0], 1, &three, 0, NULL, NULL));
  store(b, cint(b, 100), buf, 1, ci(b, 0), 0);
  OK(air_builder_scf_index_switch_next(b, 0, NULL));
  OK(air_builder_scf_index_switch_end(b, 0, NULL));
  dma(b, ha[5], ha[0], buf, 0, 16);
  OK(air_builder_memref_dealloc(b, buf));
  hier_end(b);
}

static const int64_t k_id2[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 1};

static void build_index_generic(air_builder_t* b, air_value_t g, air_value_t h) {
  air_affine_desc_t id = {0, 2, 0, 2, 4, k_id2};
  air_affine_desc_t maps[2] = {id, id};
  air_iterator_t its[2] = {AIR_ITERATOR_PARALLEL, AIR_ITERATOR_PARALLEL};
  air_generic_desc_t gd = {0, 1, &g, 1, &h, maps, 2, its};
  air_value_t ba[2];
  OK(air_builder_linalg_generic_begin(b, &gd, ba));
  air_value_t i = 0, j = 0, r = 0, s = 0, c = 0, sum = 0;
  OK(air_builder_linalg_index(b, 0, &i));
  OK(air_builder_linalg_index(b, 1, &j));
  OK(air_builder_binary(b, AIR_BINARY_MULI, i, ci(b, 8), &r));
  OK(air_builder_binary(b, AIR_BINARY_ADDI, r, j, &s));
  OK(air_builder_cast(b, AIR_CAST_INDEX_CAST, s, ts(b, AIR_ELEMENT_I32), &c));
  OK(air_builder_binary(b, AIR_BINARY_ADDI, ba[0], c, &sum));
  OK(air_builder_linalg_generic_end(b, 1, &sum));
}

static void build_foralls(air_builder_t* b, air_value_t f) {
  air_value_t c60 = ci(b, 60), c2 = ci(b, 2), iv[2], r = 0;
  air_index_t lb = {0, 4}, ub = {c60, 0}, st = {0, 8};
  OK(air_builder_scf_forall_begin(b, 1, &lb, &ub, &st, iv));
  OK(air_builder_binary(b, AIR_BINARY_MULI, load(b, f, 1, iv[0], 0), cint(b, 3), &r));
  store(b, r, f, 1, iv[0], 0);
  OK(air_builder_scf_forall_end(b));
  air_index_t lbs[2] = {{0, 0}, {0, 0}}, ubs[2] = {{0, 2}, {0, 3}}, sts[2] = {{0, 1}, {c2, 0}};
  OK(air_builder_scf_forall_begin(b, 2, lbs, ubs, sts, iv));
  air_value_t k = 0;
  OK(air_builder_binary(b, AIR_BINARY_MULI, iv[0], ci(b, 8), &r));
  OK(air_builder_binary(b, AIR_BINARY_ADDI, r, iv[1], &k));
  OK(air_builder_binary(b, AIR_BINARY_ADDI, load(b, f, 1, k, 0), cint(b, 1000), &r));
  store(b, r, f, 1, k, 0);
  OK(air_builder_scf_forall_end(b));
}

static void build_control(air_builder_t* b) {
  air_type_t m4 = tm(b, AIR_ELEMENT_I32, 2, 4, 16, 0), m8 = tm(b, AIR_ELEMENT_I32, 2, 8, 8, 0);
  air_type_t ins[5] = {m4, m4, m8, m8, tm(b, AIR_ELEMENT_I32, 1, 64, 0, 0)};
  air_value_t a[5];
  func_begin(b, "control", 5, ins, a);
  build_switch_herd(b, a);
  build_index_generic(b, a[2], a[3]);
  build_foralls(b, a[4]);
  OK(air_builder_func_end(b, 0, NULL));
}

/* Globals: @tab (private constant 8xi32), @lut (constant 4xf32), @scratch
 * (uninitialised 4xf32). @globals(o : 8xi32, p : 4xf32, c : 32xi32) copies @tab
 * to o, writes scratch[i] = lut[i] * 2 and copies it to p; then a herd runs
 * air.custom @add_seven on an L1 copy of c, async after the DMA and once more
 * blocking, and copies it back. */
static const int32_t k_tab[8] = {1, -2, 3, -4, 5, -6, 7, -8};
static const float k_lut[4] = {1.0f, 0.5f, -0.25f, 3.0f};

static void build_globals(air_builder_t* b) {
  air_type_t t8 = tm(b, AIR_ELEMENT_I32, 1, 8, 0, 0), f4 = tm(b, AIR_ELEMENT_F32, 1, 4, 0, 0);
  air_global_desc_t g = {AIR_GLOBAL_PRIVATE_BIT | AIR_GLOBAL_CONSTANT_BIT, "tab", t8, k_tab,
                         sizeof k_tab};
  OK(air_builder_memref_global(b, &g));
  g = (air_global_desc_t){AIR_GLOBAL_CONSTANT_BIT, "lut", f4, k_lut, sizeof k_lut};
  OK(air_builder_memref_global(b, &g));
  g = (air_global_desc_t){0, "scratch", f4, NULL, 0};
  OK(air_builder_memref_global(b, &g));
  air_type_t c32 = tm(b, AIR_ELEMENT_I32, 1, 32, 0, 0);
  air_type_t ins[3] = {t8, f4, c32};
  air_value_t a[3], tab = 0, lut = 0, scr = 0, r = 0;
  func_begin(b, "globals", 3, ins, a);
  OK(air_builder_memref_get_global(b, "tab", t8, &tab));
  OK(air_builder_memref_copy(b, tab, a[0]));
  OK(air_builder_memref_get_global(b, "lut", f4, &lut));
  OK(air_builder_memref_get_global(b, "scratch", f4, &scr));
  air_value_t j = loop(b, 4), x = load(b, lut, 1, j, 0);
  OK(air_builder_binary(b, AIR_BINARY_ADDF, x, x, &r));
  store(b, r, scr, 1, j, 0);
  end_loop(b);
  OK(air_builder_memref_copy(b, scr, a[1]));

  air_value_t ha[8];
  hier_begin(b, 1, &a[2], 1, ha);
  air_value_t buf = 0, t1 = 0, t2 = 0;
  OK(air_builder_memref_alloc(b, tm(b, AIR_ELEMENT_I32, 1, 32, 0, AIR_MEMORY_L1), 0, NULL, &buf));
  air_dma_desc_t in = {0};
  in.flags = AIR_BUILD_ASYNC;
  in.dst.memref = buf;
  in.src.memref = ha[4];
  OK(air_builder_dma_memcpy_nd(b, &in, &t1));
  OK(air_builder_custom(b, "add_seven", AIR_BUILD_ASYNC, 1, &t1, 1, &buf, &t2));
  OK(air_builder_custom(b, "add_seven", 0, 1, &t2, 1, &buf, NULL));
  dma(b, ha[4], 0, buf, 0, 32);
  OK(air_builder_memref_dealloc(b, buf));
  hier_end(b);
  OK(air_builder_func_end(b, 0, NULL));
}

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
static bool count_cb(air_op_t* op, void* user) {
  walk_t* w = user;
  w->n += op->kind == w->kind;
  return true;
}
static uint32_t count_kind(air_program_t* p, air_opkind_t k) {
  walk_t w = {k, 0};
  air_ir_walk(p->module, count_cb, &w);
  return w.n;
}

typedef struct find_t {
  air_opkind_t kind;
  air_op_t* op;
} find_t;
static bool find_cb(air_op_t* op, void* user) {
  find_t* w = user;
  if (op->kind != w->kind) return true;
  w->op = op;
  return false;
}
/* Ops in the innermost open body. */
static uint32_t block_count(air_builder_t* b) {
  air_op_t* fn = NULL;
  for (air_op_t* o = air_builder_program(b)->module->regions[0]->first; o; o = o->next) fn = o;
  uint32_t n = 0;
  for (air_op_t* o = fn->regions[0]->first; o; o = o->next) ++n;
  return n;
}

/* The first op of `kind` (walk order). */
static air_op_t* find_kind(air_program_t* p, air_opkind_t k) {
  find_t w = {k, NULL};
  air_ir_walk(p->module, find_cb, &w);
  assert_non_null(w.op);
  return w.op;
}

/* Verifies p, prints it, parses the text back, and checks the second print and
 * the op counts match. Returns the printed text (free with air_program_free_string
 * on p). */
static char* verify_and_round_trip(fx_t* f, const char* name) {
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
static void run(fx_t* f, const char* name, void (*fill)(bufs_t*), void (*check)(const bufs_t*)) {
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

static bool same_f(double got, double want) {
  return got == want || (isnan(got) && isnan(want));
}

/*---------------------------------------------------------------------------*/
/* math                                                                      */
/*---------------------------------------------------------------------------*/

static void fill_math(bufs_t* bu) {
  for (int i = 0; i < 16; ++i) {
    ((float*)bu->orig[0])[i] = (float)((i - 7.5) * 0.31);     /* signs, the asin domain and out */
    ((float*)bu->orig[1])[i] = (float)(0.75 + 0.5 * (i % 5)); /* exponents, divisors */
  }
  ((float*)bu->orig[0])[4] = 2.5f; /* a tie: round and roundeven differ */
  static const int32_t n[16] = {0, 1, -1, 6, -7, INT32_MAX, INT32_MIN, 0x00ff0000,
                                255, 256, -256, 0x10, 99999, -99999, 0x4000, 3};
  memcpy(bu->orig[3], n, sizeof n);
}

static float math_ref(int k, float x, float y) {
  switch (k) {
    case AIR_MATH_ABSF: return fabsf(x);
    case AIR_MATH_CEIL: return ceilf(x);
    case AIR_MATH_FLOOR: return floorf(x);
    case AIR_MATH_ROUND: return roundf(x);
    case AIR_MATH_ROUNDEVEN: return nearbyintf(x);
    case AIR_MATH_TRUNC: return truncf(x);
    case AIR_MATH_SQRT: return sqrtf(x);
    case AIR_MATH_RSQRT: return 1.0f / sqrtf(x);
    case AIR_MATH_CBRT: return cbrtf(x);
    case AIR_MATH_EXP: return expf(x);
    case AIR_MATH_EXP2: return exp2f(x);
    case AIR_MATH_EXPM1: return expm1f(x);
    case AIR_MATH_LOG: return logf(x);
    case AIR_MATH_LOG2: return log2f(x);
    case AIR_MATH_LOG10: return log10f(x);
    case AIR_MATH_LOG1P: return log1pf(x);
    case AIR_MATH_SIN: return sinf(x);
    case AIR_MATH_COS: return cosf(x);
    case AIR_MATH_TAN: return tanf(x);
    case AIR_MATH_TANH: return tanhf(x);
    case AIR_MATH_ASIN: return asinf(x);
    case AIR_MATH_ACOS: return acosf(x);
    case AIR_MATH_ATAN: return atanf(x);
    case AIR_MATH_SINH: return sinhf(x);
    case AIR_MATH_COSH: return coshf(x);
    case AIR_MATH_ERF: return erff(x);
    case AIR_MATH_POWF: return powf(x, y);
    case AIR_MATH_ATAN2: return atan2f(x, y);
    case AIR_MATH_COPYSIGN: return copysignf(y, x);
    case AIR_MATH_REMF: return fmodf(x, y);
    default: return fmaf(x, y, x);
  }
}

static int32_t imath_ref(int k, int32_t v) {
  uint32_t u = (uint32_t)v;
  switch (k) {
    case 0: return (int32_t)(v < 0 ? 0u - u : u);
    case 1: return __builtin_popcount(u);
    case 2: return u ? __builtin_clz(u) : 32;
    default: return u ? __builtin_ctz(u) : 32;
  }
}

static void check_math(const bufs_t* bu) {
  for (int k = 0; k < N_FMATH; ++k)
    for (int i = 0; i < 16; ++i) {
      float x = IN(0, float)[i], y = IN(1, float)[i];
      float want = math_ref(k, x, y), got = OUT(2, float)[k * 16 + i];
      if (k == AIR_MATH_COPYSIGN) want = copysignf(x, y); /* math.copysign x, y */
      if (!same_f(got, want)) {
        print_error("math op %d at %d: got %a, libm says %a\n", k, i, got, want);
        fail();
      }
    }
  for (int k = 0; k < N_IMATH; ++k)
    for (int i = 0; i < 16; ++i)
      assert_int_equal(OUT(4, int32_t)[k * 16 + i], imath_ref(k, IN(3, int32_t)[i]));
}

static void test_math(void** state) {
  fx_t* f = *state;
  build_math(f->b);
  assert_int_equal(count_kind(f->p, AIR_OP_MATH_FMA), 1);
  assert_int_equal(count_kind(f->p, AIR_OP_REMF), 1);
  char* text = verify_and_round_trip(f, "math");
  assert_non_null(strstr(text, "math.fma"));
  assert_non_null(strstr(text, "math.ctlz"));
  assert_non_null(strstr(text, "arith.remf"));
  air_program_free_string(f->p, text);
  run(f, "math", fill_math, check_math);
}

/*---------------------------------------------------------------------------*/
/* elementwise                                                               */
/*---------------------------------------------------------------------------*/

static void fill_ew(bufs_t* bu) {
  for (int j = 0; j < 8; ++j) {
    ((float*)bu->orig[0])[j] = 0.2f + 0.6f * (float)j - (j == 3 ? 5.0f : 0.0f);
    ((float*)bu->orig[1])[j] = 0.4f + 0.3f * (float)j;
    ((int32_t*)bu->orig[3])[j] = j % 2 ? -50 * j - 3 : 700 * j + 1;
    ((int32_t*)bu->orig[4])[j] = j % 3 ? 5 + j : -9;
  }
}

static float ew_ref(int k, float x, float y) {
  switch (k) {
    case AIR_ELEMENTWISE_ADD: return x + y;
    case AIR_ELEMENTWISE_SUB: return x - y;
    case AIR_ELEMENTWISE_MUL: return x * y;
    case AIR_ELEMENTWISE_DIV: return x / y;
    case AIR_ELEMENTWISE_MAX: return x > y ? x : y;
    case AIR_ELEMENTWISE_MIN: return x < y ? x : y;
    case AIR_ELEMENTWISE_POWF: return powf(x, y);
    case AIR_ELEMENTWISE_EXP: return expf(x);
    case AIR_ELEMENTWISE_LOG: return logf(x);
    case AIR_ELEMENTWISE_ABS: return fabsf(x);
    case AIR_ELEMENTWISE_CEIL: return ceilf(x);
    case AIR_ELEMENTWISE_FLOOR: return floorf(x);
    case AIR_ELEMENTWISE_NEGF: return -x;
    case AIR_ELEMENTWISE_RECIPROCAL: return 1.0f / x;
    case AIR_ELEMENTWISE_ROUND: return roundf(x);
    case AIR_ELEMENTWISE_SQRT: return sqrtf(x);
    case AIR_ELEMENTWISE_RSQRT: return 1.0f / sqrtf(x);
    case AIR_ELEMENTWISE_SQUARE: return x * x;
    case AIR_ELEMENTWISE_TANH: return tanhf(x);
    default: return erff(x);
  }
}

static void check_ew(const bufs_t* bu) {
  for (int k = 0; k < AIR_ELEMENTWISE_COUNT; ++k)
    for (int j = 0; j < 8; ++j) {
      float want = k == AIR_ELEMENTWISE_DIV_UNSIGNED ? 0.0f
                                                     : ew_ref(k, IN(0, float)[j], IN(1, float)[j]);
      float got = OUT(2, float)[k * 8 + j];
      if (!same_f(got, want)) {
        print_error("elementwise op %d at %d: got %a, C says %a\n", k, j, got, want);
        fail();
      }
    }
  for (int j = 0; j < 8; ++j) {
    int32_t p = IN(3, int32_t)[j], q = IN(4, int32_t)[j];
    assert_int_equal(OUT(5, int32_t)[j], (int32_t)((uint32_t)p / (uint32_t)q));
    assert_int_equal(OUT(5, int32_t)[8 + j], p > q ? p : q);
    assert_int_equal(OUT(5, int32_t)[16 + j], p < 0 ? -p : p);
  }
}

static void test_elementwise(void** state) {
  fx_t* f = *state;
  build_elementwise(f->b);
  assert_int_equal(count_kind(f->p, AIR_OP_LINALG_DIV_UNSIGNED), 1);
  assert_int_equal(count_kind(f->p, AIR_OP_LINALG_ERF), 1);
  char* text = verify_and_round_trip(f, "elementwise");
  assert_non_null(strstr(text, "linalg.reciprocal ins("));
  air_program_free_string(f->p, text);
  run(f, "elementwise", fill_ew, check_ew);
}

/*---------------------------------------------------------------------------*/
/* control: index_switch, linalg.index, forall                                */
/*---------------------------------------------------------------------------*/

static void fill_control(bufs_t* bu) {
  for (int i = 0; i < 64; ++i) {
    ((int32_t*)bu->orig[0])[i] = 5 * i - 100;
    ((int32_t*)bu->orig[2])[i] = 3 * i + 1;
    ((int32_t*)bu->orig[3])[i] = -1;
    ((int32_t*)bu->orig[4])[i] = i + 1;
  }
}

static void check_control(const bufs_t* bu) {
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 16; ++j) {
      int32_t k = t == 0 ? 3 : t == 2 ? -1 : 1, want = IN(0, int32_t)[t * 16 + j] * k;
      if (t == 3 && j == 0) want = 100;
      assert_int_equal(OUT(1, int32_t)[t * 16 + j], want);
    }
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      assert_int_equal(OUT(3, int32_t)[i * 8 + j], IN(2, int32_t)[i * 8 + j] + i * 8 + j);
  for (int i = 0; i < 64; ++i) {
    int32_t want = IN(4, int32_t)[i];
    if (i >= 4 && i < 60 && (i - 4) % 8 == 0) want *= 3;
    if (i / 8 < 2 && i % 8 < 3 && (i % 8) % 2 == 0) want += 1000;
    assert_int_equal(OUT(4, int32_t)[i], want);
  }
}

static void test_control(void** state) {
  fx_t* f = *state;
  build_control(f->b);
  assert_int_equal(count_kind(f->p, AIR_OP_INDEX_SWITCH), 2);
  assert_int_equal(count_kind(f->p, AIR_OP_LINALG_INDEX), 2);
  assert_int_equal(count_kind(f->p, AIR_OP_FORALL), 2);
  assert_int_equal(count_kind(f->p, AIR_OP_IN_PARALLEL), 2);
  /* the layouts of ir.h: case values, one region per case and the default, each
   * ending in scf.yield; forall bounds as mixed lists, the body's ivs */
  air_op_t* sw = find_kind(f->p, AIR_OP_INDEX_SWITCH);
  assert_int_equal(sw->value.kind, AIR_ATTR_DENSE);
  assert_int_equal(sw->value.n, 2);
  assert_int_equal(sw->value.ints[1], 2);
  assert_int_equal(sw->n_regions, 3);
  assert_int_equal(sw->n_results, 1);
  for (uint32_t r = 0; r < 3; ++r) {
    assert_int_equal(sw->regions[r]->last->kind, AIR_OP_YIELD);
    assert_int_equal(sw->regions[r]->last->n_operands, 1);
  }
  air_op_t* fa = find_kind(f->p, AIR_OP_FORALL);
  assert_int_equal(fa->iaux[0], 1);
  assert_int_equal(fa->n_lists, 3);
  assert_int_equal(fa->regions[0]->n_args, 1);
  assert_int_equal(fa->regions[0]->last->kind, AIR_OP_IN_PARALLEL);
  assert_int_equal(find_kind(f->p, AIR_OP_LINALG_INDEX)->iaux[0], 0);
  char* text = verify_and_round_trip(f, "control");
  assert_non_null(strstr(text, "case 2 {"));
  assert_non_null(strstr(text, "default {"));
  assert_non_null(strstr(text, "linalg.index 1 : index"));
  assert_non_null(strstr(text, ") = (4) to ("));
  air_program_free_string(f->p, text);
  run(f, "control", fill_control, check_control);
}

/*---------------------------------------------------------------------------*/
/* globals and air.custom                                                    */
/*---------------------------------------------------------------------------*/

static air_status_t k_add_seven(void* ud, const air_kernel_call_t* c) {
  int* calls = ud;
  ++*calls;
  const air_memref_t* m = &c->args[0].memref;
  int32_t* d = m->data;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[m->offset + i * m->strides[0]] += 7;
  return NULL;
}

static void fill_globals(bufs_t* bu) {
  for (int i = 0; i < 32; ++i) ((int32_t*)bu->orig[2])[i] = i * i - 50;
}

static void check_globals(const bufs_t* bu) {
  assert_memory_equal(bu->now[0], k_tab, sizeof k_tab);
  for (int i = 0; i < 4; ++i) assert_true(OUT(1, float)[i] == 2 * k_lut[i]);
  for (int i = 0; i < 32; ++i) assert_int_equal(OUT(2, int32_t)[i], IN(2, int32_t)[i] + 14);
}

static void test_globals_custom(void** state) {
  fx_t* f = *state;
  int calls = 0;
  OK(air_context_register_kernel(f->x.ctx, "add_seven", k_add_seven, &calls));
  build_globals(f->b);
  air_op_t* g = f->p->module->regions[0]->first;
  assert_int_equal(g->kind, AIR_OP_GLOBAL);
  assert_int_equal(g->iaux[0], 1);
  assert_int_equal(g->iaux[1], AIR_GLOBAL_CONSTANT | AIR_GLOBAL_INIT);
  assert_int_equal(g->next->next->iaux[1], AIR_GLOBAL_UNINIT);
  assert_int_equal(count_kind(f->p, AIR_OP_CUSTOM), 2);
  char* text = verify_and_round_trip(f, "globals");
  assert_non_null(strstr(text, "memref.global \"private\" constant @tab : memref<8xi32> = "
                               "dense<\"0x01000000FEFFFFFF"));
  assert_non_null(strstr(text, "memref.global @scratch : memref<4xf32> = uninitialized"));
  assert_non_null(strstr(text, "air.custom @add_seven async ["));
  air_program_free_string(f->p, text);
  run(f, "globals", fill_globals, check_globals);
  assert_int_equal(calls, 2);
}

/*---------------------------------------------------------------------------*/
/* views and unranked casts                                                  */
/*---------------------------------------------------------------------------*/

/* @views(a : 24xf32, o1 : 4x6xf32, o2 : 6x4xf32, o3 : 3x8xf32, o4 : 24xf32):
 * o1 = a reshaped by the shape in a constant global, o2 its transpose, o3 a
 * reinterpret_cast of a's extracted metadata; then a cast to memref<*xf32> goes
 * to a kernel that doubles it in place, and its cast back is copied to o4. */
static const int64_t k_shape[2] = {4, 6};

static air_status_t k_double_any(void* ud, const air_kernel_call_t* c) {
  int* rank = ud;
  const air_memref_t* m = &c->args[0].memref;
  *rank = (int)m->rank;
  float* d = m->data;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[m->offset + i * m->strides[0]] *= 2;
  return NULL;
}

static void build_views(air_builder_t* b) {
  air_program_t* p = air_builder_program(b);
  air_type_t sh = tm(b, AIR_ELEMENT_INDEX, 1, 2, 0, 0), unr = 0, tr = 0, rc = 0;
  OK(air_type_memref_unranked(p, AIR_ELEMENT_F32, 0, &unr));
  int64_t s64[2] = {6, 4}, s38[2] = {3, 8};
  OK(air_type_memref(p, AIR_ELEMENT_F32, 2, s64, 0, "strided<[1, 6]>", &tr));
  OK(air_type_memref(p, AIR_ELEMENT_F32, 2, s38, 0, "strided<[8, ?], offset: ?>", &rc));
  air_global_desc_t g = {AIR_GLOBAL_PRIVATE_BIT | AIR_GLOBAL_CONSTANT_BIT, "shape_4x6", sh,
                         k_shape, sizeof k_shape};
  OK(air_builder_memref_global(b, &g));
  air_func_desc_t k = {0};
  k.flags = AIR_BUILD_PRIVATE;
  k.name = "double_any";
  k.n_inputs = 1;
  k.inputs = &unr;
  OK(air_builder_func_declare(b, &k));
  air_type_t f24 = tm(b, AIR_ELEMENT_F32, 1, 24, 0, 0), f46 = tm(b, AIR_ELEMENT_F32, 2, 4, 6, 0);
  air_type_t ins[5] = {f24, f46, tm(b, AIR_ELEMENT_F32, 2, 6, 4, 0),
                       tm(b, AIR_ELEMENT_F32, 2, 3, 8, 0), f24};
  air_value_t a[5], shape = 0, r = 0, t = 0, base = 0, off = 0, size = 0, stride = 0, v = 0;
  func_begin(b, "views", 5, ins, a);
  OK(air_builder_memref_get_global(b, "shape_4x6", sh, &shape));
  OK(air_builder_memref_reshape(b, a[0], shape, f46, &r));
  OK(air_builder_memref_copy(b, r, a[1]));
  uint32_t perm[2] = {1, 0};
  OK(air_builder_memref_transpose(b, r, 2, perm, tr, &t));
  OK(air_builder_memref_copy(b, t, a[2]));
  OK(air_builder_memref_extract_strided_metadata(b, a[0], &base, &off, &size, &stride));
  air_index_t sizes[2] = {{0, 3}, {0, 8}}, strides[2] = {{0, 8}, {stride, 0}};
  OK(air_builder_memref_reinterpret_cast(b, base, (air_index_t){off, 0}, 2, sizes, strides, rc,
                                         &v));
  OK(air_builder_memref_copy(b, v, a[3]));
  air_value_t u = 0, back = 0;
  OK(air_builder_memref_cast(b, a[0], unr, &u));
  OK(air_builder_call(b, "double_any", 1, &u, 0, NULL, NULL));
  OK(air_builder_memref_cast(b, u, f24, &back));
  OK(air_builder_memref_copy(b, back, a[4]));
  OK(air_builder_func_end(b, 0, NULL));
}

static void fill_views(bufs_t* bu) {
  for (int i = 0; i < 24; ++i) ((float*)bu->orig[0])[i] = 0.5f * (float)i - 3.0f;
}

static void check_views(const bufs_t* bu) {
  const float* in = IN(0, float);
  for (int i = 0; i < 24; ++i) assert_true(OUT(1, float)[i] == in[i]);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) assert_true(OUT(2, float)[i * 4 + j] == in[j * 6 + i]);
  for (int i = 0; i < 24; ++i) assert_true(OUT(3, float)[i] == in[i]);
  for (int i = 0; i < 24; ++i) assert_true(OUT(4, float)[i] == 2 * in[i]);
  for (int i = 0; i < 24; ++i) assert_true(OUT(0, float)[i] == 2 * in[i]);
}

static void test_views(void** state) {
  fx_t* f = *state;
  int rank = -1;
  OK(air_context_register_kernel(f->x.ctx, "double_any", k_double_any, &rank));
  build_views(f->b);
  air_op_t* em = find_kind(f->p, AIR_OP_EXTRACT_META);
  assert_int_equal(em->n_results, 4); /* base, offset, 1 size, 1 stride */
  assert_int_equal(air_ir_type(f->p, air_ir_value_type(f->p, em->results[0]))->rank, 0);
  air_op_t* tr = find_kind(f->p, AIR_OP_TRANSPOSE);
  assert_int_equal(tr->value.kind, AIR_ATTR_MAP);
  assert_int_equal(tr->value.map->results[0]->value, 1);
  char* text = verify_and_round_trip(f, "views");
  assert_non_null(strstr(text, "(d0, d1) -> (d1, d0) : memref<4x6xf32> to memref<6x4xf32, "
                               "strided<[1, 6]>>"));
  assert_non_null(strstr(text, " to memref<*xf32>"));
  assert_non_null(strstr(text, "memref.reinterpret_cast"));
  air_program_free_string(f->p, text);
  run(f, "views", fill_views, check_views);
  assert_int_equal(rank, 1); /* the kernel saw the rank behind memref<*xf32> */
}

static void test_bad_views(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  air_program_t* p = f->p;
  air_type_t f24 = tm(b, AIR_ELEMENT_F32, 1, 24, 0, 0), f46 = tm(b, AIR_ELEMENT_F32, 2, 4, 6, 0);
  air_type_t i46 = tm(b, AIR_ELEMENT_I32, 2, 4, 6, 0), f45 = tm(b, AIR_ELEMENT_F32, 2, 4, 5, 0);
  air_type_t l1 = tm(b, AIR_ELEMENT_F32, 2, 4, 6, AIR_MEMORY_L1);
  air_type_t sh2 = tm(b, AIR_ELEMENT_INDEX, 1, 2, 0, 0), sh3 = tm(b, AIR_ELEMENT_INDEX, 1, 3, 0, 0);
  air_type_t shf = tm(b, AIR_ELEMENT_F32, 1, 2, 0, 0), unr = 0, unr_i = 0, f64t = 0;
  OK(air_type_memref_unranked(p, AIR_ELEMENT_F32, 0, &unr));
  OK(air_type_memref_unranked(p, AIR_ELEMENT_I32, 0, &unr_i));
  int64_t s64[2] = {6, 4};
  OK(air_type_memref(p, AIR_ELEMENT_F32, 2, s64, 0, "strided<[1, 6]>", &f64t));
  air_type_t ins[5] = {f24, sh2, sh3, shf, f46};
  air_value_t a[5], r = 0, u = 0;
  func_begin(b, "f", 5, ins, a);
  uint32_t before = block_count(b);
  FAILS(air_builder_memref_reshape(b, a[0], a[1], f46, NULL), INVALID, "NULL out");
  FAILS(air_builder_memref_reshape(b, a[0], a[1], i46, &r), INVALID, "element type");
  FAILS(air_builder_memref_reshape(b, a[0], a[1], l1, &r), INVALID, "memory space");
  FAILS(air_builder_memref_reshape(b, a[0], a[2], f46, &r), INVALID, "holds 3 sizes");
  FAILS(air_builder_memref_reshape(b, a[0], a[3], f46, &r), INVALID, "1-d memref of index");
  FAILS(air_builder_memref_reshape(b, a[0], a[1], f45, &r), INVALID, "24 elements into 20");
  FAILS(air_builder_memref_reshape(b, a[0], a[1], f64t, &r), INVALID, "identity-layout");
  uint32_t id[2] = {0, 1}, dup[2] = {1, 1}, big[2] = {0, 2}, perm[2] = {1, 0};
  FAILS(air_builder_memref_transpose(b, a[4], 1, perm, f64t, &r), INVALID, "permutation");
  FAILS(air_builder_memref_transpose(b, a[4], 2, NULL, f64t, &r), INVALID, "permutation");
  FAILS(air_builder_memref_transpose(b, a[4], 2, dup, f64t, &r), INVALID, "not a permutation");
  FAILS(air_builder_memref_transpose(b, a[4], 2, big, f64t, &r), INVALID, "not a permutation");
  FAILS(air_builder_memref_transpose(b, a[4], 2, id, f64t, &r), INVALID, "makes it 4");
  FAILS(air_builder_memref_transpose(b, a[0], 1, id, unr, &r), INVALID, "ranked");
  air_value_t base = 0, off = 0, sz = 0, st = 0;
  FAILS(air_builder_memref_extract_strided_metadata(b, a[0], &base, &off, NULL, &st), INVALID,
        "NULL out");
  FAILS(air_builder_memref_extract_strided_metadata(b, a[1], NULL, &off, &sz, &st), INVALID,
        "NULL out");
  air_index_t o = {0, 0}, neg = {0, -1}, sizes[2] = {{0, 4}, {0, 6}}, strides[2] = {{0, 6}, {0, 1}};
  air_index_t wrong[2] = {{0, 4}, {0, 5}};
  FAILS(air_builder_memref_reinterpret_cast(b, a[0], o, 1, sizes, strides, f46, &r), INVALID,
        "one size and stride per dimension");
  FAILS(air_builder_memref_reinterpret_cast(b, a[0], o, 0, NULL, NULL, unr, &r), INVALID,
        "ranked result_type");
  FAILS(air_builder_memref_reinterpret_cast(b, a[0], neg, 2, sizes, strides, f46, &r), INVALID,
        "negative");
  FAILS(air_builder_memref_reinterpret_cast(b, a[0], o, 2, wrong, strides, f46, &r), INVALID,
        "size 1 is 5");
  FAILS(air_builder_memref_reinterpret_cast(b, a[0], (air_index_t){a[1], 0}, 2, sizes, strides,
                                            f46, &r), INVALID, NULL); /* a memref offset */
  FAILS(air_builder_memref_cast(b, a[0], unr_i, &u), INVALID, "element type");
  assert_int_equal(block_count(b), before); /* nothing appended */
  OK(air_builder_memref_cast(b, a[0], unr, &u));
  FAILS(air_builder_memref_cast(b, u, unr, &r), INVALID, "unranked to unranked");
  OK(air_builder_memref_cast(b, u, f46, &r)); /* shape: checked at run time, as MLIR */
  OK(air_builder_memref_extract_strided_metadata(b, a[4], &base, &off, (air_value_t[2]){0},
                                                 (air_value_t[2]){0}));
  OK(air_builder_memref_reinterpret_cast(b, base, o, 2, sizes, strides, f46, &r));
  OK(air_builder_func_end(b, 0, NULL));
  OK(air_builder_finish(b));
  OK(air_program_verify(p, NULL, 0));
}

/*---------------------------------------------------------------------------*/
/* siN / uiN element types                                                   */
/*---------------------------------------------------------------------------*/

/* @su(a : 4xui8, b : 4xsi16, o : 4xui8, q : 4xsi16): o reverses a, q copies b
 * through loads and stores of the typed values (storage types: no arith). */
static void build_su(air_builder_t* b) {
  air_type_t u8 = tm(b, AIR_ELEMENT_UI8, 1, 4, 0, 0), s16 = tm(b, AIR_ELEMENT_SI16, 1, 4, 0, 0);
  air_type_t ins[4] = {u8, s16, u8, s16};
  air_value_t a[4], rev = 0;
  func_begin(b, "su", 4, ins, a);
  air_value_t j = loop(b, 4);
  OK(air_builder_binary(b, AIR_BINARY_SUBI, ci(b, 3), j, &rev));
  store(b, load(b, a[0], 1, rev, 0), a[2], 1, j, 0);
  store(b, load(b, a[1], 1, j, 0), a[3], 1, j, 0);
  end_loop(b);
  OK(air_builder_func_end(b, 0, NULL));
}

static void fill_su(bufs_t* bu) {
  static const uint8_t u[4] = {0, 127, 128, 255};
  static const int16_t v[4] = {-32768, -1, 1, 32767};
  memcpy(bu->orig[0], u, sizeof u);
  memcpy(bu->orig[1], v, sizeof v);
}

static void check_su(const bufs_t* bu) {
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(OUT(2, uint8_t)[i], IN(0, uint8_t)[3 - i]);
    assert_int_equal(OUT(3, int16_t)[i], IN(1, int16_t)[i]);
  }
}

static void test_signed_unsigned(void** state) {
  fx_t* f = *state;
  build_su(f->b);
  air_op_t* ld = find_kind(f->p, AIR_OP_LOAD);
  assert_int_equal(air_ir_type(f->p, air_ir_value_type(f->p, ld->results[0]))->elem,
                   AIR_ELEM_UI8);
  char* text = verify_and_round_trip(f, "su");
  assert_non_null(strstr(text, "memref<4xui8>"));
  assert_non_null(strstr(text, "memref<4xsi16>"));
  air_program_free_string(f->p, text);
  run(f, "su", fill_su, check_su);
}

/*---------------------------------------------------------------------------*/
/* Argument checks                                                           */
/*---------------------------------------------------------------------------*/

/* Inside @f(x : 4xf32, n : 4xi32) with values of each kind at hand. */
typedef struct vals_t {
  air_value_t x, n;   /* memrefs */
  air_value_t fv, iv; /* f32, i32 scalars */
  air_value_t idx;    /* index */
  air_value_t f64v;   /* f64 */
} vals_t;

static vals_t open_func(air_builder_t* b) {
  vals_t v;
  air_type_t ins[2] = {tm(b, AIR_ELEMENT_F32, 1, 4, 0, 0), tm(b, AIR_ELEMENT_I32, 1, 4, 0, 0)};
  air_value_t a[2];
  func_begin(b, "f", 2, ins, a);
  v.x = a[0];
  v.n = a[1];
  v.idx = ci(b, 0);
  v.fv = load(b, v.x, 1, v.idx, 0);
  v.iv = load(b, v.n, 1, v.idx, 0);
  OK(air_builder_constant_float(b, ts(b, AIR_ELEMENT_F64), 1.5, &v.f64v));
  return v;
}

static void test_bad_math_and_linalg(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  vals_t v = open_func(b);
  air_value_t r = 0, two[2] = {v.fv, v.fv}, mixed[2] = {v.fv, v.f64v}, three[3] = {v.fv, v.fv,
                                                                                   v.fv};
  FAILS(air_builder_math(NULL, AIR_MATH_SQRT, 1, &v.fv, &r), INVALID, NULL);
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.fv, NULL), INVALID, "NULL out");
  FAILS(air_builder_math(b, AIR_MATH_COUNT, 1, &v.fv, &r), INVALID, "unknown op");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 2, two, &r), INVALID, "math.sqrt takes 1 operand");
  FAILS(air_builder_math(b, AIR_MATH_POWF, 1, two, &r), INVALID, "takes 2 operands");
  FAILS(air_builder_math(b, AIR_MATH_FMA, 2, three, &r), INVALID, "takes 3 operands");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, NULL, &r), INVALID, NULL);
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.iv, &r), INVALID, NULL);  /* int to a float op */
  FAILS(air_builder_math(b, AIR_MATH_CTPOP, 1, &v.fv, &r), INVALID, NULL); /* float to an int op */
  FAILS(air_builder_math(b, AIR_MATH_CTPOP, 1, &v.idx, &r), INVALID, NULL); /* index */
  FAILS(air_builder_math(b, AIR_MATH_ATAN2, 2, mixed, &r), INVALID, "different types");
  FAILS(air_builder_math(b, AIR_MATH_SQRT, 1, &v.x, &r), INVALID, NULL);   /* a memref */
  OK(air_builder_math(b, AIR_MATH_SQRT, 1, &v.f64v, &r));                  /* f64 is fine */

  air_value_t xx[2] = {v.x, v.x}, xn[2] = {v.x, v.n};
  air_value_t big = 0;
  OK(air_builder_memref_alloc(b, tm(b, AIR_ELEMENT_F32, 1, 8, 0, 0), 0, NULL, &big));
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_COUNT, 2, xx, v.x), INVALID,
        "unknown op");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 1, xx, v.x), INVALID,
        "linalg.add takes 2 inputs, not 1");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_EXP, 2, xx, v.x), INVALID,
        "linalg.exp takes 1 input, not 2");
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, NULL, v.x), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xx, v.fv), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, two, v.x), INVALID, NULL);
  FAILS(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xx, big), INVALID,
        "does not have the output's shape");
  OK(air_builder_linalg_elementwise(b, AIR_ELEMENTWISE_ADD, 2, xn, v.x)); /* types: verifier */

  /* linalg.index only directly inside a linalg.generic, below its loop count */
  FAILS(air_builder_linalg_index(b, 0, &r), PRECOND, NULL);
  air_affine_desc_t id1 = {0, 1, 0, 1, 2, k_id2};
  air_affine_desc_t maps[2] = {id1, id1};
  air_iterator_t it = AIR_ITERATOR_PARALLEL;
  air_generic_desc_t gd = {0, 1, &v.x, 1, &v.x, maps, 1, &it};
  air_value_t ba[2];
  OK(air_builder_linalg_generic_begin(b, &gd, ba));
  FAILS(air_builder_linalg_index(b, 1, &r), INVALID, "has 1 loops, not 2");
  FAILS(air_builder_linalg_index(b, 0, NULL), INVALID, "NULL out");
  OK(air_builder_linalg_index(b, 0, &r));
  OK(air_builder_linalg_generic_end(b, 1, &ba[0]));
}

static void test_bad_switch_forall(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  vals_t v = open_func(b);
  air_type_t i32 = ts(b, AIR_ELEMENT_I32), tok = 0;
  int64_t dup[2] = {1, 1}, one = 1;
  air_value_t r = 0;
  FAILS(air_builder_scf_index_switch_begin(b, v.iv, 1, &one, 0, NULL, NULL), INVALID, NULL);
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 2, dup, 0, NULL, NULL), INVALID,
        "case 1 given twice");
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 1, NULL, 0, NULL, NULL), INVALID,
        "NULL cases");
  FAILS(air_builder_scf_index_switch_begin(b, v.idx, 1, &one, 1, &tok, &r), INVALID, NULL);
  FAILS(air_builder_scf_index_switch_next(b, 0, NULL), PRECOND, NULL);
  FAILS(air_builder_scf_index_switch_end(b, 0, NULL), PRECOND, NULL);
  OK(air_builder_scf_index_switch_begin(b, v.idx, 1, &one, 1, &i32, &r));
  FAILS(air_builder_scf_index_switch_end(b, 1, &v.iv), PRECOND, "1 of the 1 case regions");
  FAILS(air_builder_scf_index_switch_next(b, 1, &v.fv), INVALID, NULL); /* wrong yield type */
  FAILS(air_builder_scf_index_switch_next(b, 0, NULL), INVALID, NULL);  /* missing yield */
  OK(air_builder_scf_index_switch_next(b, 1, &v.iv));
  FAILS(air_builder_scf_index_switch_next(b, 1, &v.iv), PRECOND, "the default region is open");
  OK(air_builder_scf_index_switch_end(b, 1, &v.iv));
  /* no cases: the only region is the default */
  OK(air_builder_scf_index_switch_begin(b, v.idx, 0, NULL, 0, NULL, NULL));
  OK(air_builder_scf_index_switch_end(b, 0, NULL));

  air_index_t lb = {0, 0}, ub = {0, 8}, st0 = {0, 0}, st = {0, 2}, bad = {v.iv, 0};
  air_value_t ivs[9];
  air_index_t many[9];
  for (int i = 0; i < 9; ++i) many[i] = ub;
  FAILS(air_builder_scf_forall_begin(b, 0, &lb, &ub, &st, ivs), INVALID, "1 to 8 dimensions");
  FAILS(air_builder_scf_forall_begin(b, 9, many, many, many, ivs), INVALID, NULL);
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, NULL, &st, ivs), INVALID, NULL);
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, &ub, &st0, ivs), INVALID, "step 0 is 0");
  FAILS(air_builder_scf_forall_begin(b, 1, &lb, &bad, &st, ivs), INVALID, NULL); /* i32 bound */
  FAILS(air_builder_scf_forall_end(b), PRECOND, NULL);
  OK(air_builder_scf_forall_begin(b, 1, &lb, &ub, &st, ivs));
  FAILS(air_builder_scf_index_switch_end(b, 0, NULL), PRECOND, NULL); /* forall is open */
  OK(air_builder_scf_forall_end(b));
  OK(air_builder_func_end(b, 0, NULL));
  OK(air_builder_finish(b));
  OK(air_program_verify(f->p, NULL, 0));
}

static void test_bad_global_custom(void** state) {
  fx_t* f = *state;
  air_builder_t* b = f->b;
  air_type_t m4 = tm(b, AIR_ELEMENT_I32, 1, 4, 0, 0), i32 = ts(b, AIR_ELEMENT_I32);
  air_type_t dyn = 0, unr = 0;
  int64_t q = AIR_DIM_DYNAMIC;
  OK(air_type_memref(f->p, AIR_ELEMENT_I32, 1, &q, 0, NULL, &dyn));
  OK(air_type_memref_unranked(f->p, AIR_ELEMENT_I32, 0, &unr));
  int32_t data[4] = {1, 2, 3, 4};
  air_global_desc_t g = {0, "g", m4, data, sizeof data};
  FAILS(air_builder_memref_global(b, NULL), INVALID, "NULL desc");
  g.flags = 4;
  FAILS(air_builder_memref_global(b, &g), INVALID, "unknown flags");
  g.flags = 0;
  g.name = "";
  FAILS(air_builder_memref_global(b, &g), INVALID, NULL);
  g.name = "g";
  g.type = i32;
  FAILS(air_builder_memref_global(b, &g), INVALID, NULL);
  g.type = dyn;
  FAILS(air_builder_memref_global(b, &g), INVALID, "static shape");
  g.type = unr;
  FAILS(air_builder_memref_global(b, &g), INVALID, "static shape");
  g.type = m4;
  g.data_bytes = 12;
  FAILS(air_builder_memref_global(b, &g), INVALID, "holds 16 bytes, not 12");
  g = (air_global_desc_t){AIR_GLOBAL_CONSTANT_BIT, "g", m4, NULL, 0};
  FAILS(air_builder_memref_global(b, &g), INVALID, "needs data");
  assert_null(f->p->module->regions[0]->first); /* nothing appended */
  g = (air_global_desc_t){AIR_GLOBAL_CONSTANT_BIT, "g", m4, data, sizeof data};
  OK(air_builder_memref_global(b, &g));

  air_value_t r = 0, t = 0;
  vals_t v = open_func(b);
  FAILS(air_builder_memref_global(b, &g), PRECOND, "module level");
  FAILS(air_builder_memref_get_global(b, "g", m4, NULL), INVALID, "NULL out");
  FAILS(air_builder_memref_get_global(b, NULL, m4, &r), INVALID, NULL);
  FAILS(air_builder_memref_get_global(b, "g", i32, &r), INVALID, NULL);
  OK(air_builder_memref_get_global(b, "g", m4, &r));

  FAILS(air_builder_custom(b, "k", 8, 0, NULL, 1, &v.n, NULL), INVALID, "unknown flags");
  FAILS(air_builder_custom(b, "k", AIR_BUILD_ASYNC, 0, NULL, 1, &v.n, NULL), INVALID,
        "NULL out_token");
  FAILS(air_builder_custom(b, "", 0, 0, NULL, 1, &v.n, NULL), INVALID, NULL);
  FAILS(air_builder_custom(b, "k", 0, 1, &v.n, 1, &v.n, NULL), INVALID, NULL); /* dep: not a token */
  FAILS(air_builder_custom(b, "k", 0, 0, NULL, 1, NULL, NULL), INVALID, NULL);
  OK(air_builder_custom(b, NULL, AIR_BUILD_ASYNC, 0, NULL, 2, (air_value_t[]){v.n, r}, &t));
  assert_true(t != 0);
  air_value_t none = 99;
  OK(air_builder_custom(b, "k", 0, 1, &t, 0, NULL, &none));
  assert_int_equal(none, 0);
  OK(air_builder_func_end(b, 0, NULL));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_math),          T(test_elementwise),       T(test_control),
      T(test_globals_custom), T(test_bad_math_and_linalg), T(test_bad_switch_forall),
      T(test_bad_global_custom), T(test_views),            T(test_bad_views),
      T(test_signed_unsigned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

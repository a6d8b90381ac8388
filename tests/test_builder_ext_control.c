/* test_builder_ext_control.c - the builder calls for mlir-air's wider op set
 * (issue 12), control and globals: scf.index_switch, linalg.index, scf.forall,
 * memref.global / get_global and air.custom. Each program is built op by op,
 * verified, printed, parsed back (same text, same ops) and run on the CPU
 * driver against C. */
#include "builder_ext_test.h"

/*---------------------------------------------------------------------------*/
/* Programs                                                                  */
/*---------------------------------------------------------------------------*/

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

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_control),
      T(test_globals_custom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

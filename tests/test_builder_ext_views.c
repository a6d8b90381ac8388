/* test_builder_ext_views.c - the builder calls for mlir-air's wider op set
 * (issue 12), views and element types: memref reshape / transpose /
 * extract_strided_metadata / reinterpret_cast and unranked casts (built,
 * verified, round-tripped, run on the CPU driver against C, and their argument
 * checks), and siN / uiN element types. */
#include "builder_ext_test.h"

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

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_views),
      T(test_bad_views),
      T(test_signed_unsigned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

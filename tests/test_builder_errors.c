/* The builder API, argument and state checks: NULL arguments, bad types, values,
 * affine maps and sets, flags and descriptors, nesting, and that a failed call
 * appends nothing and opens nothing. */
#include "builder_test.h"

/*---------------------------------------------------------------------------*/
/* Argument and state checks                                                 */
/*---------------------------------------------------------------------------*/

static void test_null_arguments(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_builder_t* nb = NULL;
  air_value_t v = 0, c = cidx(b, 1);
  air_type_t t = 0;
  FAILS(air_builder_create(NULL, &nb), INVALID);
  FAILS(air_builder_create(f->p, NULL), INVALID);
  air_builder_destroy(NULL);
  FAILS(air_builder_finish(NULL), INVALID);
  assert_int_equal(air_builder_depth(NULL), 0);
  assert_null(air_builder_program(NULL));
  assert_ptr_equal(air_builder_program(b), f->p);

  FAILS(air_builder_constant_index(NULL, 1, &v), INVALID);
  FAILS(air_builder_constant_index(b, 1, NULL), INVALID);
  FAILS(air_builder_constant_int(b, t_scalar(b, AIR_ELEMENT_I32), 1, NULL), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, c, NULL), INVALID);
  FAILS(air_builder_cmpi(b, AIR_ICMP_EQ, c, c, NULL), INVALID);
  FAILS(air_builder_token_alloc(b, NULL), INVALID);
  FAILS(air_builder_token_alloc(NULL, &v), INVALID);
  FAILS(air_builder_wait_all(b, AIR_BUILD_ASYNC, 0, NULL, NULL), INVALID);
  FAILS(air_builder_wait_all(b, 0, 2, NULL, NULL), INVALID);
  FAILS(air_builder_memref_alloc(b, t_memref2(b, AIR_ELEMENT_F32, 2, 2, 0), 0, NULL, NULL),
        INVALID);
  FAILS(air_builder_call(b, "k", 0, NULL, 1, &t, NULL), INVALID);
  FAILS(air_builder_call(b, NULL, 0, NULL, 0, NULL, NULL), INVALID);

  FAILS(air_builder_channel(b, NULL), INVALID);
  FAILS(air_builder_func_begin(b, NULL, NULL), INVALID);
  FAILS(air_builder_func_declare(b, NULL), INVALID);
  FAILS(air_builder_launch_begin(b, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_segment_begin(NULL, &(air_hier_desc_t){0}, NULL, NULL), INVALID);
  FAILS(air_builder_channel_put(b, NULL, &v), INVALID);
  FAILS(air_builder_channel_get(b, NULL, &v), INVALID);
  FAILS(air_builder_dma_memcpy_nd(b, NULL, &v), INVALID);
  FAILS(air_builder_linalg_generic_begin(b, NULL, NULL), INVALID);
  FAILS(air_builder_affine_apply(b, NULL, 0, NULL, &v), INVALID);
  FAILS(air_builder_affine_if_begin(b, NULL, 0, NULL, 0, NULL, NULL), INVALID);
  FAILS(air_builder_memref_subview(b, NULL, 1, &v), INVALID);
  FAILS(air_builder_affine_for_begin(b, NULL, NULL, 1, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_set_attr_string(b, "s", NULL), INVALID);
  FAILS(air_builder_set_attr_int(b, NULL, 1, 0), INVALID);
  FAILS(air_builder_set_attr_ints(b, "a", 2, NULL), INVALID);

  FAILS(air_type_token(NULL, 0, &t), INVALID);
  FAILS(air_type_scalar(f->p, AIR_ELEMENT_F32, NULL), INVALID);
  FAILS(air_type_memref(f->p, AIR_ELEMENT_F32, 2, NULL, 0, NULL, &t), INVALID);
  FAILS(air_type_describe(f->p, 1, NULL), INVALID);
  /* Put with AIR_BUILD_ASYNC needs somewhere to put the token. */
  air_channel_io_desc_t io = {0};
  io.flags = AIR_BUILD_ASYNC;
  io.channel = "c";
  io.data.memref = alloc(b, t_memref2(b, AIR_ELEMENT_F32, 2, 2, 0));
  FAILS(air_builder_channel_put(b, &io, NULL), INVALID);
  io.flags = 0;
  OK(air_builder_channel_put(b, &io, NULL));
}

static void test_bad_types(void** state) {
  fixture_t* f = *state;
  air_program_t* p = f->p;
  air_builder_t* b = f->b;
  air_type_t t = 0;
  int64_t shape[2] = {4, 4}, neg[2] = {4, -2};
  FAILS(air_type_scalar(p, AIR_ELEMENT_NONE, &t), INVALID);
  FAILS(air_type_scalar(p, AIR_ELEMENT_COUNT, &t), INVALID);
  FAILS(air_type_scalar(p, (air_elem_t)99, &t), INVALID);
  FAILS(air_type_scalar(p, (air_elem_t)-1, &t), INVALID);
  FAILS(air_type_memref(p, (air_elem_t)42, 2, shape, 0, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, shape, 3, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, neg, 0, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, shape, 0, "", &t), INVALID);
  FAILS(air_type_token(p, 0x80, &t), INVALID);
  assert_int_equal(t, 0);
  air_type_details_t d;
  FAILS(air_type_describe(p, 0, &d), INVALID);
  FAILS(air_type_describe(p, 9999, &d), INVALID);
  assert_int_equal(air_value_type(p, 0), 0);
  assert_int_equal(air_value_type(p, 99999), 0);
  assert_int_equal(air_value_type(NULL, 1), 0);

  air_type_t f32 = t_scalar(b, AIR_ELEMENT_F32), i8 = t_scalar(b, AIR_ELEMENT_I8);
  air_type_t i1 = t_scalar(b, AIR_ELEMENT_I1), mem = t_memref(b, AIR_ELEMENT_F32, 2, shape, 0);
  air_value_t v;
  FAILS(air_builder_constant_int(b, f32, 1, &v), INVALID);
  FAILS(air_builder_constant_int(b, 0, 1, &v), INVALID);
  FAILS(air_builder_constant_int(b, 9999, 1, &v), INVALID);
  FAILS(air_builder_constant_float(b, i8, 1.0, &v), INVALID);
  FAILS(air_builder_constant_int(b, i8, 256, &v), INVALID);
  FAILS(air_builder_constant_int(b, i8, -129, &v), INVALID);
  FAILS(air_builder_constant_int(b, i1, 2, &v), INVALID);
  OK(air_builder_constant_int(b, i8, 255, &v));
  OK(air_builder_constant_int(b, i8, -128, &v));
  OK(air_builder_constant_int(b, i1, 0, &v));
  FAILS(air_builder_memref_alloc(b, f32, 0, NULL, &v), INVALID);
  FAILS(air_builder_memref_alloc(b, 0, 0, NULL, &v), INVALID);
  FAILS(air_builder_cast(b, AIR_CAST_INDEX_CAST, v, mem, &v), INVALID);
  FAILS(air_builder_cast(b, (air_cast_op_t)77, v, i8, &v), INVALID);
  FAILS(air_builder_execute_begin(b, 0, NULL, 1, &t, NULL, NULL), INVALID);
  OK(air_builder_set_attr_int(b, "x", 1, 0));
  FAILS(air_builder_set_attr_dense(b, "pad", AIR_ELEMENT_F32, 1, shape), INVALID);
  FAILS(air_builder_set_attr_dense(b, "pad", (air_elem_t)99, 1, shape), INVALID);
  FAILS(air_builder_set_attr_int(b, "x", 1, f32), INVALID);
  FAILS(air_builder_set_attr_float(b, "x", 1.0, i8), INVALID);
  air_func_desc_t fd = {0};
  fd.name = "k";
  fd.n_inputs = 1;
  fd.inputs = &t; /* 0: not a type */
  FAILS(air_builder_func_declare(b, &fd), INVALID);
}

static void test_bad_values(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "bad_values";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c = cidx(b, 4), tok, fv, iv, v;
  OK(air_builder_token_alloc(b, &tok));
  OK(air_builder_constant_float(b, t_scalar(b, AIR_ELEMENT_F32), 2.0, &fv));
  OK(air_builder_constant_int(b, t_scalar(b, AIR_ELEMENT_I32), 2, &iv));
  air_value_t mem = alloc(b, t_memref2(b, AIR_ELEMENT_F32, 4, 4, AIR_MEMORY_L3));

  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, 0, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, 0, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, 99999, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, fv, fv, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDF, c, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, iv, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_MULI, tok, tok, &v), INVALID);
  FAILS(air_builder_binary(b, (air_binary_op_t)99, c, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_COUNT, c, c, &v), INVALID);
  FAILS(air_builder_negf(b, c, &v), INVALID);
  FAILS(air_builder_cmpi(b, (air_icmp_t)10, c, c, &v), INVALID);
  FAILS(air_builder_cmpf(b, AIR_FCMP_OEQ, c, c, &v), INVALID);
  FAILS(air_builder_select(b, c, c, c, &v), INVALID);
  FAILS(air_builder_set_name(b, 0, "x"), INVALID);
  FAILS(air_builder_set_name(b, c, ""), INVALID);
  FAILS(air_builder_set_name(b, c, "a b"), INVALID);
  FAILS(air_builder_set_name(b, c, "1x"), INVALID);
  FAILS(air_builder_set_name(b, c, "%x"), INVALID);

  FAILS(air_builder_wait_all(b, 0, 1, &c, NULL), INVALID);
  air_value_t deps[2] = {tok, 0};
  FAILS(air_builder_wait_all(b, 0, 2, deps, NULL), INVALID);
  FAILS(air_builder_execute_begin(b, 1, &c, 0, NULL, NULL, NULL), INVALID);

  air_hier_desc_t hd = {0};
  air_value_t zero = 0;
  hd.n_dims = 1;
  hd.sizes = &zero;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.sizes = &fv;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.sizes = &c;
  hd.n_args = 1;
  hd.args = &zero;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.n_args = 0;
  hd.tokens.n_affinity = 1;
  hd.tokens.affinity = &c;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.tokens.n_affinity = 0;
  hd.tokens.n_concurrency = 1;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.tokens.n_concurrency = 0;
  hd.link_with = "";
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);

  air_dma_desc_t dd = {0};
  dd.src.memref = mem;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.memref = c;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.memref = mem;
  air_index_t bad_ix[1] = {{fv, 0}};
  dd.dst.n_offsets = 1;
  dd.dst.offsets = bad_ix;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.offsets = NULL;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);

  air_channel_io_desc_t io = {0};
  io.channel = "c";
  io.data.memref = mem;
  io.dest = mem;
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);
  io.dest = 0;
  io.n_indices = 1;
  io.indices = &fv;
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);
  io.n_indices = 0;
  io.channel = "";
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);

  air_value_t idx[2] = {c, c};
  FAILS(air_builder_memref_load(b, mem, 1, idx, &v), INVALID);
  FAILS(air_builder_memref_load(b, c, 0, NULL, &v), INVALID);
  FAILS(air_builder_memref_store(b, iv, mem, 2, idx), INVALID);
  FAILS(air_builder_memref_store(b, fv, mem, 2, NULL), INVALID);
  OK(air_builder_memref_store(b, fv, mem, 2, idx));
  FAILS(air_builder_memref_copy(b, mem, c), INVALID);
  air_slice_t sl = {mem, 1, NULL, 0, NULL, 0, NULL};
  FAILS(air_builder_memref_subview(b, &sl, 1, &v), INVALID);
  air_index_t ix2[2] = {{0, 0}, {0, 0}};
  sl = (air_slice_t){mem, 2, ix2, 2, ix2, 1, ix2};
  FAILS(air_builder_memref_subview(b, &sl, 1, &v), INVALID);
  FAILS(air_builder_linalg_fill(b, mem, mem), INVALID);
  FAILS(air_builder_linalg_matmul(b, mem, c, mem), INVALID);

  FAILS(air_builder_scf_for_begin(b, tok, c, c, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, iv, c, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, c, c, 1, &zero, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_parallel_begin(b, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_parallel_begin(b, 1, &c, &c, &iv, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_if_begin(b, c, 0, NULL, NULL), INVALID);
  air_index_t lo = {0, 0}, hi = {fv, 0};
  FAILS(air_builder_affine_for_begin(b, &lo, &hi, 1, 0, NULL, NULL, NULL, NULL), INVALID);
  hi.value = 0;
  FAILS(air_builder_affine_for_begin(b, &lo, &hi, 0, 0, NULL, NULL, NULL, NULL), INVALID);

  air_affine_desc_t md = map_desc();
  air_value_t ops[2] = {c, c};
  FAILS(air_builder_affine_apply(b, &md, 1, ops, &v), INVALID);
  air_value_t fops[2] = {c, fv};
  FAILS(air_builder_affine_apply(b, &md, 2, fops, &v), INVALID);
  air_affine_desc_t two = id2_desc();
  FAILS(air_builder_affine_apply(b, &two, 2, ops, &v), INVALID);
  air_affine_desc_t sd = set_desc();
  FAILS(air_builder_affine_if_begin(b, &sd, 1, ops, 0, NULL, NULL), INVALID);
  /* affine.load/store: one map result per dimension, operands matching the map */
  FAILS(air_builder_affine_load(b, mem, &md, 2, ops, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, NULL, 0, NULL, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, &two, 1, ops, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, &two, 2, ops, NULL), INVALID);
  FAILS(air_builder_affine_store(b, c, mem, &two, 2, ops), INVALID);
  FAILS(air_builder_affine_min(b, &md, 1, ops, &v), INVALID);
  air_affine_desc_t empty = {0, 1, 0, 0, 0, NULL};
  FAILS(air_builder_affine_max(b, &empty, 1, ops, &v), INVALID);
  /* reshapes: groups cover the dimensions, element types agree */
  uint32_t g2[1] = {2}, g11[2] = {1, 1}, g3[1] = {3};
  int64_t s16[1] = {16}, sdyn[2] = {AIR_SHAPE_DYNAMIC, 4}, s8[2] = {8, 4};
  air_type_t t16 = t_memref(b, AIR_ELEMENT_F32, 1, s16, AIR_MEMORY_L3);
  air_type_t i16 = t_memref(b, AIR_ELEMENT_I32, 1, s16, AIR_MEMORY_L3);
  air_type_t tdyn = t_memref(b, AIR_ELEMENT_F32, 2, sdyn, AIR_MEMORY_L3);
  air_type_t t8 = t_memref(b, AIR_ELEMENT_F32, 2, s8, AIR_MEMORY_L3);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, g3, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 2, g11, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, NULL, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, g2, i16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, c, 1, g2, t16, &v), INVALID);
  air_value_t flat;
  OK(air_builder_memref_collapse_shape(b, mem, 1, g2, t16, &flat));
  air_index_t os1[1] = {{0, 4}};
  FAILS(air_builder_memref_expand_shape(b, flat, 1, g2, 1, os1, tdyn, &v), INVALID);
  FAILS(air_builder_memref_expand_shape(b, flat, 2, g11, 0, NULL, tdyn, &v), INVALID);
  FAILS(air_builder_memref_cast(b, mem, t16, &v), INVALID);
  FAILS(air_builder_memref_cast(b, mem, t8, &v), INVALID);
  OK(air_builder_memref_cast(b, mem, tdyn, &v));
  FAILS(air_builder_affine_if_begin(b, &md, 2, ops, 0, NULL, NULL), INVALID);

  air_affine_desc_t maps[2] = {id2_desc(), map_desc()};
  air_iterator_t its[2] = {AIR_ITERATOR_PARALLEL, AIR_ITERATOR_REDUCTION};
  air_generic_desc_t g = {0};
  g.n_ins = 1;
  g.ins = &mem;
  g.n_outs = 1;
  g.outs = &mem;
  g.indexing_maps = maps;
  g.n_iterators = 2;
  g.iterators = its;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID); /* map 1 has 1 dim */
  maps[1] = id2_desc();
  its[1] = (air_iterator_t)7;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  its[1] = AIR_ITERATOR_REDUCTION;
  g.outs = &c;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  g.outs = &mem;
  g.ins = &tok;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  OK(air_builder_func_end(b, 0, NULL));
}

static void test_bad_affine(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t c = cidx(b, 1), v, ops[2] = {c, c};
  /* Leftover codes, truncation, positions out of range, unknown codes, zeroes. */
  static const int64_t leftover[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 0};
  static const int64_t truncated[] = {AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0};
  static const int64_t no_number[] = {AIR_AFFINE_CONST};
  static const int64_t dim_range[] = {AIR_AFFINE_DIM, 1};
  static const int64_t sym_range[] = {AIR_AFFINE_SYM, -1};
  static const int64_t unknown[] = {123, 0};
  static const int64_t zeros[] = {0, 0};
  const struct {
    const int64_t* codes;
    uint32_t n;
  } cases[] = {{leftover, 4}, {truncated, 3}, {no_number, 1}, {dim_range, 2},
               {sym_range, 2}, {unknown, 2},  {zeros, 2}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    air_affine_desc_t d = {0, 1, 1, 1, cases[i].n, cases[i].codes};
    FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  }
  air_affine_desc_t d = {0, 1, 1, 1, 2, NULL};
  FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  d = map_desc();
  d.flags = 1;
  FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  /* A set's constraints must start with GE0/EQ0. */
  static const int64_t unmarked[] = {AIR_AFFINE_DIM, 0};
  air_affine_desc_t s = {0, 1, 0, 1, 2, unmarked};
  FAILS(air_builder_affine_if_begin(b, &s, 1, &c, 0, NULL, NULL), INVALID);
  /* Deep nesting is refused, not recursed into without bound. */
  enum { DEPTH = 5000 };
  static int64_t deep[3 * DEPTH + 2];
  uint32_t n = 0;
  for (int i = 0; i < DEPTH; ++i) deep[n++] = AIR_AFFINE_MUL;
  deep[n++] = AIR_AFFINE_DIM;
  deep[n++] = 0;
  for (int i = 0; i < DEPTH; ++i) deep[n++] = AIR_AFFINE_CONST, deep[n++] = 1;
  air_affine_desc_t dd = {0, 1, 0, 1, n, deep};
  FAILS(air_builder_affine_apply(b, &dd, 1, &c, &v), INVALID);
  assert_int_equal(count(f->p, AIR_OP_AFFINE_APPLY), 0);
  air_affine_desc_t ok = map_desc();
  OK(air_builder_affine_apply(b, &ok, 2, ops, &v));
  assert_int_equal(count(f->p, AIR_OP_AFFINE_APPLY), 1);
}

static void test_bad_flags_and_descs(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t v;
  air_channel_desc_t cd = {0};
  FAILS(air_builder_channel(b, &cd), INVALID); /* no name */
  cd.name = "";
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.name = "c";
  cd.flags = 1;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.flags = 0;
  int64_t dims[2] = {4, 0};
  cd.rank = 2;
  cd.dims = dims;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.dims = NULL;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.rank = 0;
  cd.channel_type = "";
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.channel_type = NULL;
  cd.broadcast_rank = 1;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.broadcast_rank = 0;
  OK(air_builder_channel(b, &cd));

  air_func_desc_t fd = {0};
  fd.name = "f";
  fd.flags = AIR_BUILD_ASYNC;
  FAILS(air_builder_func_begin(b, &fd, NULL), INVALID);
  fd.flags = 0;
  fd.name = NULL;
  FAILS(air_builder_func_begin(b, &fd, NULL), INVALID);
  fd.name = "f";
  OK(air_builder_func_begin(b, &fd, NULL));

  air_hier_desc_t hd = {0};
  hd.flags = AIR_BUILD_ASYNC | AIR_BUILD_SYNC;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.flags = 1u << 20;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.flags = 0;
  hd.name = "";
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.name = NULL;
  FAILS(air_builder_launch_ref(b, &hd, NULL), INVALID); /* a ref needs a name */
  hd.backend_granularity = "";
  FAILS(air_builder_segment_begin(b, &hd, NULL, NULL), INVALID);

  FAILS(air_builder_wait_all(b, AIR_BUILD_SYNC, 0, NULL, &v), INVALID);
  air_dma_desc_t dd = {0};
  dd.flags = AIR_BUILD_PRIVATE;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, &v), INVALID);
  air_generic_desc_t g = {0};
  g.flags = 1;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  OK(air_builder_func_end(b, 0, NULL));
}

static void test_nesting(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  /* Ends without a begin. */
  FAILS(air_builder_herd_end(b), PRECOND);
  FAILS(air_builder_segment_end(b), PRECOND);
  FAILS(air_builder_launch_end(b), PRECOND);
  FAILS(air_builder_func_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_execute_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_for_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_parallel_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_if_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_if_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_for_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_linalg_generic_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_else(b, 0, NULL), PRECOND);
  /* No op yet: nothing to put an attribute on. */
  FAILS(air_builder_set_attr_unit(b, "u"), PRECOND);
  OK(air_builder_finish(b));

  air_func_desc_t fd = {0};
  fd.name = "nest";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_channel_desc_t cd = {0};
  cd.name = "inner";
  FAILS(air_builder_channel(b, &cd), PRECOND);
  FAILS(air_builder_func_begin(b, &fd, NULL), PRECOND);
  FAILS(air_builder_func_declare(b, &fd), PRECOND);

  OK(air_builder_launch_begin(b, &(air_hier_desc_t){0}, NULL, NULL));
  assert_int_equal(air_builder_depth(b), 2);
  /* The wrong end kind leaves the body open. */
  FAILS(air_builder_segment_end(b), PRECOND);
  FAILS(air_builder_herd_end(b), PRECOND);
  FAILS(air_builder_func_end(b, 0, NULL), PRECOND);
  air_status_t s = air_builder_finish(b);
  assert_int_equal(air_status_code(s), PRECOND);
  assert_non_null(strstr(air_status_message(s), "air.launch"));
  air_status_free(s);
  assert_int_equal(air_builder_depth(b), 2);

  /* execute: the terminator must match the results. */
  air_type_t index = t_scalar(b, AIR_ELEMENT_INDEX), i32 = t_scalar(b, AIR_ELEMENT_I32);
  air_value_t tok, r;
  OK(air_builder_execute_begin(b, 0, NULL, 1, &index, &tok, &r));
  air_value_t c = cidx(b, 3), ci;
  OK(air_builder_constant_int(b, i32, 3, &ci));
  FAILS(air_builder_execute_end(b, 0, NULL), INVALID);
  FAILS(air_builder_execute_end(b, 1, &ci), INVALID);
  FAILS(air_builder_launch_end(b), PRECOND);
  OK(air_builder_execute_end(b, 1, &c));

  /* scf.for: yields must match the iter_args. */
  air_value_t c0 = cidx(b, 0), c1 = cidx(b, 1), iv, it, res;
  OK(air_builder_scf_for_begin(b, c0, c, c1, 1, &tok, &iv, &it, &res));
  FAILS(air_builder_scf_for_end(b, 1, &iv), INVALID);
  FAILS(air_builder_scf_for_end(b, 0, NULL), INVALID);
  FAILS(air_builder_affine_for_end(b, 1, &it), PRECOND);
  OK(air_builder_scf_for_end(b, 1, &it));
  assert_int_equal(air_value_type(f->p, res), air_value_type(f->p, tok));

  /* if/else: one else only; the end must name the right if. */
  air_value_t cond;
  OK(air_builder_cmpi(b, AIR_ICMP_EQ, c0, c1, &cond));
  OK(air_builder_scf_if_begin(b, cond, 0, NULL, NULL));
  OK(air_builder_else(b, 0, NULL));
  FAILS(air_builder_else(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_if_end(b, 0, NULL), PRECOND);
  OK(air_builder_scf_if_end(b, 0, NULL));
  air_affine_desc_t sd = set_desc();
  air_value_t ops[2] = {c0, c1};
  OK(air_builder_affine_if_begin(b, &sd, 2, ops, 0, NULL, NULL));
  FAILS(air_builder_scf_if_end(b, 0, NULL), PRECOND);
  OK(air_builder_affine_if_end(b, 0, NULL));

  /* scf.parallel reduces tokens only. */
  air_value_t pr;
  OK(air_builder_scf_parallel_begin(b, 1, &c0, &c, &c1, 1, &c0, NULL, &pr));
  FAILS(air_builder_scf_parallel_end(b, 1, &c0), INVALID);
  FAILS(air_builder_scf_parallel_end(b, 0, NULL), INVALID);
  FAILS(air_builder_scf_parallel_end(b, 1, &tok), INVALID);
  assert_int_equal(air_builder_depth(b), 3);

  /* func.return must match the signature. */
  air_builder_t* b2;
  air_program_t* p2;
  OK(air_program_create(f->ctx, &p2));
  OK(air_builder_create(p2, &b2));
  fd.n_results = 1;
  fd.results = &index;
  air_type_t index2 = t_scalar(b2, AIR_ELEMENT_INDEX);
  fd.results = &index2;
  OK(air_builder_func_begin(b2, &fd, NULL));
  air_value_t k;
  OK(air_builder_constant_int(b2, t_scalar(b2, AIR_ELEMENT_I64), 1, &k));
  FAILS(air_builder_func_end(b2, 0, NULL), INVALID);
  FAILS(air_builder_func_end(b2, 1, &k), INVALID);
  OK(air_builder_constant_index(b2, 1, &k));
  OK(air_builder_func_end(b2, 1, &k));
  OK(air_builder_finish(b2));
  air_builder_destroy(b2);
  air_program_destroy(p2);
}

/* A failed call appends nothing and opens nothing. */
static void test_failure_appends_nothing(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "atomic";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c = cidx(b, 1), tok, v;
  OK(air_builder_token_alloc(b, &tok));
  air_block_t* body = nth(module_body(f->p), 0)->regions[0];
  uint32_t len = block_len(body), values = f->p->n_values;
  air_value_t bad_deps[2] = {tok, c};
  air_hier_desc_t hd = {0};
  hd.n_dims = 1;
  hd.sizes = &c;
  hd.tokens.n_deps = 2;
  hd.tokens.deps = bad_deps;
  FAILS(air_builder_herd_begin(b, &hd, NULL, NULL), INVALID);
  FAILS(air_builder_segment_begin(b, &hd, NULL, NULL), INVALID);
  FAILS(air_builder_wait_all(b, AIR_BUILD_ASYNC, 2, bad_deps, &v), INVALID);
  FAILS(air_builder_execute_begin(b, 2, bad_deps, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, c, tok, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, tok, &v), INVALID);
  assert_int_equal(block_len(body), len);
  assert_int_equal(air_builder_depth(b), 1);
  assert_int_equal(f->p->n_values, values);
  OK(air_builder_func_end(b, 0, NULL));
  assert_all_terminated(f->p);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_null_arguments),
      T(test_bad_types),
      T(test_bad_values),
      T(test_bad_affine),
      T(test_bad_flags_and_descs),
      T(test_nesting),
      T(test_failure_appends_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_print_affine.c - the AIR text printer on hand-built IR: affine
 * expressions and their precedence, affine maps and sets, affine ops, affine
 * load/store and reshapes, linalg. Exact text for each. */
#include "print_test.h"

/*---------------------------------------------------------------------------*/
/* affine, linalg                                                            */
/*---------------------------------------------------------------------------*/

static air_aff_t* aff(air_program_t* p, air_aff_kind_t k, int64_t v, const air_aff_t* l,
                      const air_aff_t* r) {
  air_aff_t* e = air_ir_alloc(p, sizeof *e);
  assert_non_null(e);
  e->kind = k, e->value = v, e->lhs = l, e->rhs = r;
  return e;
}
#define D(i) aff(p, AIR_AFF_DIM, (i), NULL, NULL)
#define S(i) aff(p, AIR_AFF_SYM, (i), NULL, NULL)
#define C(v) aff(p, AIR_AFF_CONST, (v), NULL, NULL)
#define ADD(a, b) aff(p, AIR_AFF_ADD, 0, (a), (b))
#define MUL(a, b) aff(p, AIR_AFF_MUL, 0, (a), (b))
#define MOD(a, b) aff(p, AIR_AFF_MOD, 0, (a), (b))
#define FDIV(a, b) aff(p, AIR_AFF_FLOORDIV, 0, (a), (b))
#define CDIV(a, b) aff(p, AIR_AFF_CEILDIV, 0, (a), (b))

static air_attr_t map_attr(air_program_t* p, uint32_t nd, uint32_t ns, uint32_t nr,
                           const air_aff_t** results) {
  air_affine_map_t* m = air_ir_alloc(p, sizeof *m);
  const air_aff_t** r = air_ir_alloc(p, (nr ? nr : 1) * sizeof *r);
  assert_true(m && r);
  for (uint32_t i = 0; i < nr; ++i) r[i] = results[i];
  m->n_dims = nd, m->n_syms = ns, m->n_results = nr, m->results = r;
  air_attr_t a = {0};
  a.kind = AIR_ATTR_MAP;
  a.map = m;
  return a;
}

static void expect_aff(air_program_t* p, const air_aff_t* e, const char* want) {
  air_attr_t a = map_attr(p, 3, 1, 1, &e);
  char buf[256];
  snprintf(buf, sizeof buf, "affine_map<(d0, d1, d2)[s0] -> (%s)>", want);
  expect_attr(p, &a, buf);
}

static void test_affine_precedence(void** state) {
  air_program_t* p = P(state);
  expect_aff(p, ADD(D(0), MUL(D(1), C(-1))), "d0 - d1");
  expect_aff(p, ADD(MUL(D(0), C(64)), S(0)), "d0 * 64 + s0");
  expect_aff(p, MUL(ADD(D(0), D(1)), C(2)), "(d0 + d1) * 2");
  expect_aff(p, ADD(D(0), MUL(ADD(D(1), D(2)), C(-1))), "d0 - (d1 + d2)");
  expect_aff(p, ADD(D(0), MUL(D(1), C(-3))), "d0 - d1 * 3");
  expect_aff(p, ADD(D(0), MUL(ADD(D(1), D(2)), C(-3))), "d0 - (d1 + d2) * 3");
  expect_aff(p, ADD(D(0), C(-5)), "d0 - 5");
  expect_aff(p, ADD(D(0), C(5)), "d0 + 5");
  expect_aff(p, MUL(D(0), C(-1)), "-d0");
  expect_aff(p, MUL(ADD(D(0), D(1)), C(-1)), "-(d0 + d1)");
  expect_aff(p, MUL(D(0), C(-2)), "d0 * -2");
  expect_aff(p, C(-7), "-7");
  expect_aff(p, MOD(FDIV(D(0), C(2)), C(3)), "(d0 floordiv 2) mod 3");
  expect_aff(p, CDIV(D(0), ADD(S(0), C(1))), "d0 ceildiv (s0 + 1)");
  expect_aff(p, ADD(D(0), ADD(D(1), D(2))), "d0 + d1 + d2");
  expect_aff(p, ADD(ADD(D(0), D(1)), D(2)), "d0 + d1 + d2");
  expect_aff(p, MUL(D(0), MUL(D(1), D(2))), "d0 * (d1 * d2)");
  expect_aff(p, ADD(D(0), MUL(MUL(D(1), C(-1)), C(-1))), "d0 - -d1");
  expect_aff(p, ADD(D(0), C(INT64_MIN)), "d0 + -9223372036854775808");
  expect_aff(p, ADD(D(0), NULL), "d0 + <<null>>");
  expect_aff(p, NULL, "<<null>>");

  /* a left-deep chain far deeper than any C stack would allow recursively */
  const air_aff_t* e = D(0);
  enum { N = 200000 };
  for (int i = 0; i < N; ++i) e = ADD(e, D(1));
  air_attr_t a = map_attr(p, 2, 0, 1, &e);
  air_sb_t sb;
  air_sb_init(&sb, &p->allocator);
  air_print_attr(&sb, p, &a);
  assert_false(sb.oom);
  assert_int_equal(sb.len, strlen("affine_map<(d0, d1) -> (d0)>") + (size_t)N * 5);
  assert_memory_equal(sb.data + sb.len - 14, "d1 + d1 + d1)>", 14);
  air_sb_free(&sb);

  /* maps without results or symbols, sets */
  air_attr_t m0 = map_attr(p, 0, 0, 1, (const air_aff_t*[]){C(0)});
  expect_attr(p, &m0, "affine_map<() -> (0)>");
  air_affine_set_t* st = air_ir_alloc(p, sizeof *st);
  const air_aff_t** cs = air_ir_alloc(p, 2 * sizeof *cs);
  bool* eq = air_ir_alloc(p, 2);
  cs[0] = ADD(D(0), C(-1)), cs[1] = ADD(D(1), MUL(S(0), C(-1)));
  eq[1] = true;
  st->n_dims = 2, st->n_syms = 1, st->n_constraints = 2, st->constraints = cs, st->is_eq = eq;
  air_attr_t sa = {0};
  sa.kind = AIR_ATTR_SET;
  sa.set = st;
  expect_attr(p, &sa, "affine_set<(d0, d1)[s0] : (d0 - 1 >= 0, d1 - s0 == 0)>");
}

static void test_affine_ops(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p);
  air_attr_t m = map_attr(p, 1, 1, 1, (const air_aff_t*[]){ADD(MUL(D(0), C(64)), S(0))});
  int32_t map_id = air_ir_alias_add(p, "map", &m);
  air_affine_set_t* st = air_ir_alloc(p, sizeof *st);
  const air_aff_t** cs = air_ir_alloc(p, sizeof *cs);
  cs[0] = ADD(D(0), C(-1));
  st->n_dims = 2, st->n_constraints = 1, st->constraints = cs;
  air_attr_t sa = {0};
  sa.kind = AIR_ATTR_SET;
  sa.set = st;
  int32_t set_id = air_ir_alias_add(p, "set", &sa);
  assert_true(map_id == 0 && set_id == 1);
  air_attr_t map_ref = {0}, set_ref = {0};
  map_ref.kind = set_ref.kind = AIR_ATTR_ALIAS;
  map_ref.i = map_id, set_ref.i = set_id;

  air_block_t* t = top(p);
  air_vid_t x = cst(p, t, 1, idx, "x"), y = cst(p, t, 2, idx, "y");
  air_op_t* ap = mk(p, t, AIR_OP_AFFINE_APPLY, 2, (air_vid_t[]){x, y}, 1, 0, 0);
  ap->value = map_ref;
  ap->iaux[0] = 1;
  res(p, ap, 0, idx, "a");
  air_op_t* ap0 = mk(p, t, AIR_OP_AFFINE_APPLY, 0, NULL, 1, 0, 0);
  ap0->value = map_attr(p, 0, 0, 1, (const air_aff_t*[]){C(0)});
  res(p, ap0, 0, idx, "b");
  air_op_t* ai = mk(p, t, AIR_OP_AFFINE_IF, 2, (air_vid_t[]){x, y}, 0, 2, 0);
  ai->value = set_ref;
  ai->iaux[0] = 2;
  term(p, reg(p, ai, 0, 0), AIR_OP_AFFINE_YIELD);
  term(p, reg(p, ai, 1, 0), AIR_OP_AFFINE_YIELD);
  air_op_t* fc = mk(p, t, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  fc->value.kind = AIR_ATTR_FLOAT;
  fc->value.f = 1.5;
  fc->value.type = f32;
  air_vid_t f = res(p, fc, 0, f32, "f");
  air_op_t* ai2 = mk(p, t, AIR_OP_AFFINE_IF, 2, (air_vid_t[]){x, y}, 1, 2, 0);
  ai2->value = set_ref;
  ai2->iaux[0] = 2;
  res(p, ai2, 0, f32, "r");
  term1(p, reg(p, ai2, 0, 0), AIR_OP_AFFINE_YIELD, f);
  term1(p, reg(p, ai2, 1, 0), AIR_OP_AFFINE_YIELD, f);
  air_op_t* af = mk(p, t, AIR_OP_AFFINE_FOR, 0, NULL, 0, 1, 1);
  set_list(p, &af->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 64}});
  af->iaux[1] = 2;
  arg(p, reg(p, af, 0, 1), 0, idx, "i");
  term(p, af->regions[0], AIR_OP_AFFINE_YIELD);
  air_op_t* af2 = mk(p, t, AIR_OP_AFFINE_FOR, 1, &f, 1, 1, 1);
  set_list(p, &af2->lists[0], 2, (air_ix_t[]){{x, 0}, {0, 128}});
  af2->iaux[1] = 1;
  res(p, af2, 0, f32, "s");
  air_block_t* b2 = reg(p, af2, 0, 2);
  arg(p, b2, 0, idx, "i");
  term1(p, b2, AIR_OP_AFFINE_YIELD, arg(p, b2, 1, f32, "acc"));

  expect(p,
         "#map = affine_map<(d0)[s0] -> (d0 * 64 + s0)>\n"
         "#set = affine_set<(d0, d1) : (d0 - 1 >= 0)>\n"
         "%x = arith.constant 1 : index\n"
         "%y = arith.constant 2 : index\n"
         "%a = affine.apply #map(%x)[%y]\n"
         "%b = affine.apply affine_map<() -> (0)>()\n"
         "affine.if #set(%x, %y) {\n"
         "} else {\n"
         "}\n"
         "%f = arith.constant 1.500000e+00 : f32\n"
         "%r = affine.if #set(%x, %y) -> f32 {\n"
         "  affine.yield %f : f32\n"
         "} else {\n"
         "  affine.yield %f : f32\n"
         "}\n"
         "affine.for %i = 0 to 64 step 2 {\n"
         "}\n"
         "%s = affine.for %i = %x to 128 iter_args(%acc = %f) -> (f32) {\n"
         "  affine.yield %acc : f32\n"
         "}\n");
}

/* affine.load/store print their map inline with the operands in place of d0/s0
 * (a map alias too); min/max print like affine.apply; reshapes print their
 * reassociation from the index list and group sizes. */
static void test_affine_access_and_reshape(void** state) {
  air_program_t* p = P(state);
  air_tid_t idx = idx_t(p), f32 = f32_t(p), m = memref2(p, AIR_ELEM_F32, 4, 8, 2, NULL);
  air_tid_t flat = memref1(p, AIR_ELEM_F32, 32, 2);
  air_tid_t dyn = memref2(p, AIR_ELEM_F32, AIR_DIM_DYNAMIC, 8, 2, NULL);
  air_block_t* t = top(p);
  air_vid_t i = cst(p, t, 1, idx, "i"), j = cst(p, t, 2, idx, "j");
  air_vid_t a = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "a");
  /* (d0, d1)[s0] -> (d1 * 2 - d0, s0 + 1) over (%i, %j)[%i] */
  air_op_t* ld = mk(p, t, AIR_OP_AFFINE_LOAD, 4, (air_vid_t[]){a, i, j, i}, 1, 0, 0);
  ld->value = map_attr(p, 2, 1, 2,
                       (const air_aff_t*[]){ADD(MUL(D(1), C(2)), MUL(D(0), C(-1))),
                                            ADD(S(0), C(1))});
  ld->iaux[0] = 2;
  air_vid_t v = res(p, ld, 0, f32, "v");
  air_attr_t tr = map_attr(p, 2, 0, 2, (const air_aff_t*[]){D(1), D(0)});
  air_attr_t ref = {0};
  ref.kind = AIR_ATTR_ALIAS;
  ref.i = air_ir_alias_add(p, "tr", &tr);
  air_op_t* sto = mk(p, t, AIR_OP_AFFINE_STORE, 4, (air_vid_t[]){v, a, i, j}, 0, 0, 0);
  sto->value = ref;
  sto->iaux[0] = 2;
  air_op_t* mn = mk(p, t, AIR_OP_AFFINE_MIN, 2, (air_vid_t[]){i, j}, 1, 0, 0);
  mn->value = map_attr(p, 1, 1, 2, (const air_aff_t*[]){ADD(D(0), C(4)), S(0)});
  mn->iaux[0] = 1;
  res(p, mn, 0, idx, "lo");
  air_op_t* mx = mk(p, t, AIR_OP_AFFINE_MAX, 1, (air_vid_t[]){j}, 1, 0, 0);
  mx->value = map_attr(p, 1, 0, 2, (const air_aff_t*[]){D(0), C(2)});
  mx->iaux[0] = 1;
  res(p, mx, 0, idx, "hi");
  air_op_t* co = mk(p, t, AIR_OP_COLLAPSE_SHAPE, 1, &a, 1, 0, 2);
  set_list(p, &co->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 1}});
  set_list(p, &co->lists[1], 1, (air_ix_t[]){{0, 2}});
  air_vid_t c = res(p, co, 0, flat, "c");
  air_op_t* ex = mk(p, t, AIR_OP_EXPAND_SHAPE, 1, &c, 1, 0, 3);
  set_list(p, &ex->lists[0], 2, (air_ix_t[]){{0, 0}, {0, 1}});
  set_list(p, &ex->lists[1], 1, (air_ix_t[]){{0, 2}});
  set_list(p, &ex->lists[2], 2, (air_ix_t[]){{j, 0}, {0, 8}});
  res(p, ex, 0, dyn, "e");
  res(p, mk(p, t, AIR_OP_MEMREF_CAST, 1, &a, 1, 0, 0), 0, dyn, "d");

  expect(p,
         "#tr = affine_map<(d0, d1) -> (d1, d0)>\n"
         "%i = arith.constant 1 : index\n"
         "%j = arith.constant 2 : index\n"
         "%a = memref.alloc() : memref<4x8xf32, 2>\n"
         "%v = affine.load %a[%j * 2 - %i, symbol(%i) + 1] : memref<4x8xf32, 2>\n"
         "affine.store %v, %a[%j, %i] : memref<4x8xf32, 2>\n"
         "%lo = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%j]\n"
         "%hi = affine.max affine_map<(d0) -> (d0, 2)>(%j)\n"
         "%c = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32, 2> into memref<32xf32, 2>\n"
         "%e = memref.expand_shape %c [[0, 1]] output_shape [%j, 8] : memref<32xf32, 2> into "
         "memref<?x8xf32, 2>\n"
         "%d = memref.cast %a : memref<4x8xf32, 2> to memref<?x8xf32, 2>\n");
}

static void test_linalg(void** state) {
  air_program_t* p = P(state);
  air_tid_t f32 = f32_t(p), m = memref2(p, AIR_ELEM_F32, 64, 64, 2, NULL);
  air_attr_t id = map_attr(p, 2, 0, 2, (const air_aff_t*[]){D(0), D(1)});
  air_attr_t ref = {0};
  ref.kind = AIR_ATTR_ALIAS;
  ref.i = air_ir_alias_add(p, "map1", &id);
  air_block_t* t = top(p);
  air_op_t* z = mk(p, t, AIR_OP_CONSTANT, 0, NULL, 1, 0, 0);
  z->value.kind = AIR_ATTR_FLOAT;
  air_vid_t c = res(p, z, 0, f32, "cst");
  air_vid_t a = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "a");
  air_vid_t b = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "b");
  air_vid_t o = res(p, mk(p, t, AIR_OP_ALLOC, 0, NULL, 1, 0, 0), 0, m, "c");
  mk(p, t, AIR_OP_FILL, 2, (air_vid_t[]){c, a}, 0, 0, 0)->iaux[0] = 1;
  mk(p, t, AIR_OP_MATMUL, 3, (air_vid_t[]){a, b, o}, 0, 0, 0)->iaux[0] = 2;
  air_op_t* cp = mk(p, t, AIR_OP_LINALG_COPY, 2, (air_vid_t[]){a, b}, 0, 0, 0);
  cp->iaux[0] = 1;
  air_attr_t op = {0};
  op.kind = AIR_ATTR_OPAQUE;
  op.s = "#linalg.type_fn<cast_signed>";
  assert_true(air_ir_attr_set(p, cp, "cast", &op));
  air_op_t* g = mk(p, t, AIR_OP_GENERIC, 2, (air_vid_t[]){a, b}, 0, 1, 0);
  g->iaux[0] = 1;
  air_attr_t maps = {0}, iters = {0}, me[2] = {ref, ref};
  air_attr_t ie[2] = {str_attr("parallel"), str_attr("parallel")};
  maps.kind = iters.kind = AIR_ATTR_ARRAY;
  maps.n = iters.n = 2;
  maps.elems = me, iters.elems = ie;
  assert_true(air_ir_attr_set(p, g, "indexing_maps", &maps));
  assert_true(air_ir_attr_set(p, g, "iterator_types", &iters));
  air_block_t* gb = reg(p, g, 0, 2);
  air_vid_t in = arg(p, gb, 0, f32, "in"), out = arg(p, gb, 1, f32, "out");
  air_vid_t s = res(p, mk(p, gb, AIR_OP_ADDF, 2, (air_vid_t[]){in, out}, 1, 0, 0), 0, f32, NULL);
  term1(p, gb, AIR_OP_LINALG_YIELD, s);
  expect(p,
         "#map1 = affine_map<(d0, d1) -> (d0, d1)>\n"
         "%cst = arith.constant 0.000000e+00 : f32\n"
         "%a = memref.alloc() : memref<64x64xf32, 2>\n"
         "%b = memref.alloc() : memref<64x64xf32, 2>\n"
         "%c = memref.alloc() : memref<64x64xf32, 2>\n"
         "linalg.fill ins(%cst : f32) outs(%a : memref<64x64xf32, 2>)\n"
         "linalg.matmul ins(%a, %b : memref<64x64xf32, 2>, memref<64x64xf32, 2>) "
         "outs(%c : memref<64x64xf32, 2>)\n"
         "linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%a : memref<64x64xf32, 2>) "
         "outs(%b : memref<64x64xf32, 2>)\n"
         "linalg.generic {indexing_maps = [#map1, #map1], iterator_types = [\"parallel\", "
         "\"parallel\"]} ins(%a : memref<64x64xf32, 2>) outs(%b : memref<64x64xf32, 2>) {\n"
         "^bb0(%in: f32, %out: f32):\n"
         "  %0 = arith.addf %in, %out : f32\n"
         "  linalg.yield %0 : f32\n"
         "}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_affine_precedence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_access_and_reshape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_linalg, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_codegen_air.c - compiled units that hold AIR ops (src/codegen/cg_air.c):
 * DMAs, memref.alloc/dealloc and air.execute inside loops, and whole herd bodies
 * compiled as one unit per PE, against the interpreter.
 *
 * Every case runs a whole program twice through the executor on copies of the
 * same buffers: interpreted (no code) and with the program's compiled units
 * (the generator's JIT; for one case also the x86-64 object an .airbin carries,
 * linked by the core's loader). Buffers must be identical bit for bit, and a
 * failing run must fail on both paths with the same message (same op, same
 * words) after the same stores. Each case also checks whether its herd became a
 * unit, so a case meant to be compiled cannot pass by being interpreted twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/executable.h"
#include "air/program.h"
#include "codegen/codegen.h"
#include "hal/compiled.h"
#include "hal/cpu/cpu_code.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/ir/ir.h"
#include "support/programs.h"
#include "support/status.h"

#include "codegen_test.h" /* fx_t, setup/teardown, mref */

static size_t arg_bytes(const air_arg_t* a) {
  size_t n = air_elem_size((air_elem_kind_t)a->memref.elem);
  for (uint32_t k = 0; k < a->memref.rank; ++k) n *= (size_t)a->memref.sizes[k];
  return n;
}

static uint32_t g_seed = 777;
static uint32_t rnd(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return g_seed >> 8;
}

/* Random bytes, but floats kept finite and small (so products stay exact-ish;
 * comparisons are bitwise anyway). */
static void fill(void* data, size_t bytes, uint32_t elem) {
  uint8_t* p = data;
  for (size_t i = 0; i < bytes; ++i) p[i] = (uint8_t)rnd();
  if (elem == AIR_ELEM_F32)
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      float x = (float)((int)(rnd() % 2001) - 1000) / 64.0f;
      memcpy(p + i, &x, 4);
    }
  if (elem == AIR_ELEM_BF16)
    for (size_t i = 0; i + 2 <= bytes; i += 2) {
      float x = (float)((int)(rnd() % 201) - 100) / 8.0f;
      uint32_t b;
      memcpy(&b, &x, 4);
      uint16_t h = (uint16_t)(b >> 16);
      memcpy(p + i, &h, 2);
    }
}

typedef enum { CODE_NONE, CODE_JIT, CODE_OBJECT } code_kind_t;

typedef struct lookup_t {
  air_cg_code_t code;
  const air_cg_hooks_t* h;
  air_cg_program_t* cp;
} lookup_t;

static const air_cg_unit_t* find_jit(const void* self, const air_op_t* op) {
  const lookup_t* l = self;
  return l->h->find(l->cp, op);
}

/* Runs `p`'s @f on copies of `args` with no code, JIT code or the x86-64
 * object; returns the status (NULL or the error), the copies in `out`. */
static air_status_t run_one(fx_t* f, air_program_t* p, code_kind_t kind, const air_arg_t* args,
                            uint32_t n_args, void** out, bool* herd_unit) {
  air_arg_t a[8];
  for (uint32_t i = 0; i < n_args; ++i) {
    a[i] = args[i];
    if (a[i].kind != AIR_ARG_MEMREF) continue;
    size_t n = arg_bytes(&a[i]);
    out[i] = malloc(n);
    memcpy(out[i], args[i].memref.data, n);
    a[i].memref.data = out[i];
  }
  air_allocator_t al;
  air_allocator_init_system(&al);
  const air_cg_hooks_t* h = air_cg_hooks();
  lookup_t l = {{NULL, find_jit}, h, NULL};
  l.code.self = &l;
  air_cpu_code_t* linked = NULL;
  const air_cg_code_t* code = NULL;
  const air_op_t* herd = test_find_op(p->module, AIR_OP_HERD, NULL);
  if (kind == CODE_JIT) {
    test_check(h->compile(&al, p, &l.cp));
    code = &l.code;
  } else if (kind == CODE_OBJECT) {
    air_artifact_code_t ac;
    memset(&ac, 0, sizeof ac);
    test_check(h->emit_object(&al, p, &ac.object, &ac.size, &ac.n_units));
    snprintf(ac.isa, sizeof ac.isa, "x86-64-v3");
    air_code_info_t info;
    memset(&info, 0, sizeof info);
    test_check(air_cpu_code_link(&al, p, &ac, &linked, &info));
    air_mem_free(&al, ac.object);
    if (!linked) { /* this CPU lacks x86-64-v3: nothing to compare */
      *herd_unit = false;
      return NULL;
    }
    code = air_cpu_code_lookup(linked);
  }
  if (herd_unit) *herd_unit = code && herd && code->find(code->self, herd);
  air_interp_desc_t d = {.program = p, .entry = test_find_func(p, "f"), .n_args = n_args,
                         .args = a, .pool = f->pool, .context = f->ctx, .code = code};
  air_allocator_init_system(&d.allocator);
  air_status_t st = air_interp_run(&d);
  if (l.cp) h->release(l.cp);
  air_cpu_code_free(linked);
  return st;
}

/* Both ways (and through an object when `object`); expects the herd to be a
 * unit or not, and success or an error containing `err`. */
static char* wrap(const char* const* types, uint32_t n, const char* herd);

static void run_both(fx_t* f, const char* const* types, const char* herd, const air_arg_t* args,
                     uint32_t n_args, bool want_unit, const char* err, bool object) {
  char* text = wrap(types, n_args, herd);
  air_program_t* p = test_load_text(f->ctx, "cga.mlir", text);
  free(text);
  void* bi[8] = {0};
  air_status_t si = run_one(f, p, CODE_NONE, args, n_args, bi, NULL);
  for (int k = CODE_JIT; k <= (object ? CODE_OBJECT : CODE_JIT); ++k) {
    void* bc[8] = {0};
    bool unit = false;
    air_status_t sc = run_one(f, p, (code_kind_t)k, args, n_args, bc, &unit);
    if (k == CODE_OBJECT && !unit && !sc) { /* no x86-64-v3 here */
      for (uint32_t i = 0; i < n_args; ++i) free(bc[i]);
      continue;
    }
    assert_int_equal(unit, want_unit);
    if (err) {
      assert_non_null(si);
      assert_non_null(sc);
      test_expect_in(air_status_message(si), "%s", err);
      if (strcmp(air_status_message(si), air_status_message(sc)))
        fprintf(stderr, "interpreted: %s\ncompiled:    %s\n", air_status_message(si),
                air_status_message(sc));
      assert_string_equal(air_status_message(si), air_status_message(sc));
      air_status_free(sc);
    } else {
      if (si) fprintf(stderr, "interpreted: %s\n", air_status_message(si));
      if (sc) fprintf(stderr, "compiled: %s\n", air_status_message(sc));
      assert_null(si);
      assert_null(sc);
    }
    for (uint32_t i = 0; i < n_args; ++i) {
      if (!bi[i]) continue;
      if (memcmp(bi[i], bc[i], arg_bytes(&args[i])))
        fprintf(stderr, "argument %u differs between the interpreter and compiled code\n", i);
      assert_memory_equal(bi[i], bc[i], arg_bytes(&args[i]));
      free(bc[i]);
    }
  }
  if (si) air_status_free(si);
  for (uint32_t i = 0; i < n_args; ++i) free(bi[i]);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Cases                                                                     */
/*---------------------------------------------------------------------------*/

/* @f(args of `types`) around `herd` in a launch and a segment: the herd sees the
 * arguments as %sa, %sb, ... and the index constants %c1, %c2, %c4. */
static char* wrap(const char* const* types, uint32_t n, const char* herd) {
  static const char names[] = "abcd";
  size_t cap = strlen(herd) + 4096;
  char* t = malloc(cap);
  size_t w = 0;
  w += (size_t)snprintf(t + w, cap - w, "func.func @f(");
  for (uint32_t i = 0; i < n; ++i)
    w += (size_t)snprintf(t + w, cap - w, "%s%%f%c: %s", i ? ", " : "", names[i], types[i]);
  w += (size_t)snprintf(t + w, cap - w, ") {\n  air.launch () in () args(");
  for (uint32_t i = 0; i < n; ++i)
    w += (size_t)snprintf(t + w, cap - w, "%s%%l%c=%%f%c", i ? ", " : "", names[i], names[i]);
  w += (size_t)snprintf(t + w, cap - w, ") : ");
  for (uint32_t i = 0; i < n; ++i) w += (size_t)snprintf(t + w, cap - w, "%s%s", i ? ", " : "", types[i]);
  w += (size_t)snprintf(t + w, cap - w, " {\n  air.segment @s args(");
  for (uint32_t i = 0; i < n; ++i)
    w += (size_t)snprintf(t + w, cap - w, "%s%%s%c=%%l%c", i ? ", " : "", names[i], names[i]);
  w += (size_t)snprintf(t + w, cap - w, ") : ");
  for (uint32_t i = 0; i < n; ++i) w += (size_t)snprintf(t + w, cap - w, "%s%s", i ? ", " : "", types[i]);
  w += (size_t)snprintf(t + w, cap - w,
                        " {\n  %%c1 = arith.constant 1 : index\n  %%c2 = arith.constant 2 : index\n"
                        "  %%c4 = arith.constant 4 : index\n%s  }\n  }\n  return\n}\n",
                        herd);
  return t;
}

/* samples/vector_add.mlir's shape: async DMAs and air.executes whose tokens stay
 * in the herd body, allocs in executes, loop-carried tokens. */
static const char* const k_vadd_types[3] = {"memref<256xf32>", "memref<256xf32>",
                                             "memref<256xf32>"};
static const char k_vadd[] =
    "  air.herd @h tile (%tx, %ty) in (%sx=%c4, %sy=%c1) args(%ha=%sa, %hb=%sb, "
    "%hc=%sc) : memref<256xf32>, memref<256xf32>, memref<256xf32> {\n"
    "    %c0 = arith.constant 0 : index\n"
    "    %c1_0 = arith.constant 1 : index\n"
    "    %c16 = arith.constant 16 : index\n"
    "    %c64 = arith.constant 64 : index\n"
    "    %base = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%tx]\n"
    "    %t0, %la = air.execute -> (memref<16xf32, 2>) {\n"
    "      %alloc = memref.alloc() : memref<16xf32, 2>\n"
    "      air.execute_terminator %alloc : memref<16xf32, 2>\n"
    "    }\n"
    "    %t1, %lb = air.execute -> (memref<16xf32, 2>) {\n"
    "      %alloc = memref.alloc() : memref<16xf32, 2>\n"
    "      air.execute_terminator %alloc : memref<16xf32, 2>\n"
    "    }\n"
    "    %ready = air.wait_all async [%t0, %t1]\n"
    "    %done = scf.for %i = %c0 to %c64 step %c16 iter_args(%t = %ready) -> (!air.token) {\n"
    "      %off = arith.addi %base, %i : index\n"
    "      %da = air.dma_memcpy_nd async [%t] (%la[] [] [], %ha[%off] [%c16] [%c1_0]) : "
    "(memref<16xf32, 2>, memref<256xf32>)\n"
    "      %db = air.dma_memcpy_nd async [%t] (%lb[] [] [], %hb[%off] [%c16] [%c1_0]) : "
    "(memref<16xf32, 2>, memref<256xf32>)\n"
    "      %add = air.execute [%da, %db] {\n"
    "        scf.for %j = %c0 to %c16 step %c1_0 {\n"
    "          %x = memref.load %la[%j] : memref<16xf32, 2>\n"
    "          %y = memref.load %lb[%j] : memref<16xf32, 2>\n"
    "          %s = arith.addf %x, %y : f32\n"
    "          memref.store %s, %la[%j] : memref<16xf32, 2>\n"
    "        }\n"
    "      }\n"
    "      %dc = air.dma_memcpy_nd async [%add] (%hc[%off] [%c16] [%c1_0], %la[] [] []) : "
    "(memref<256xf32>, memref<16xf32, 2>)\n"
    "      scf.yield %dc : !air.token\n"
    "    }\n"
    "    %free = air.execute [%done] {\n"
    "      memref.dealloc %la : memref<16xf32, 2>\n"
    "      memref.dealloc %lb : memref<16xf32, 2>\n"
    "    }\n"
    "  }\n";

static void test_vector_add_herd(void** state) {
  fx_t* f = *state;
  float a[256], b[256], c[256];
  fill(a, sizeof a, AIR_ELEM_F32);
  fill(b, sizeof b, AIR_ELEM_F32);
  memset(c, 0, sizeof c);
  int64_t n = 256;
  air_arg_t args[3] = {mref(a, AIR_ELEM_F32, 1, &n, NULL, 0), mref(b, AIR_ELEM_F32, 1, &n, NULL, 0),
                       mref(c, AIR_ELEM_F32, 1, &n, NULL, 0)};
  run_both(f, k_vadd_types, k_vadd, args, 3, true, NULL, true);
}

/* The element type's name and an op that changes every element (so the copy
 * in and out of L1 is seen). */
typedef struct ety_t {
  const char* name;
  uint32_t elem;
  const char* op;   /* arith op on two values of the type */
} ety_t;

static const ety_t k_types[] = {
    {"f32", AIR_ELEM_F32, "arith.addf"},
    {"bf16", AIR_ELEM_BF16, "arith.mulf"},
    {"i8", AIR_ELEM_I8, "arith.addi"},
    {"i32", AIR_ELEM_I32, "arith.muli"},
};

/* Rank-2 strided transfers with odd offsets and strides: each PE gathers every
 * other column of 3 rows of A (starting at an odd column) into L1, doubles the
 * values with `op`, and scatters them into C at another odd place. */
static void test_strided_rank2(void** state) {
  fx_t* f = *state;
  for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; ++t) {
    const ety_t* e = &k_types[t];
    char text[4096];
    snprintf(text, sizeof text,
             "  air.herd @h tile (%%tx, %%ty) in (%%sx=%%c2, %%sy=%%c1) args(%%ha=%%sa, %%hc=%%sb) "
             ": memref<7x13x%1$s>, memref<7x13x%1$s> {\n"
             "    %%c0 = arith.constant 0 : index\n"
             "    %%k1 = arith.constant 1 : index\n"
             "    %%k2 = arith.constant 2 : index\n"
             "    %%k3 = arith.constant 3 : index\n"
             "    %%k5 = arith.constant 5 : index\n"
             "    %%k13 = arith.constant 13 : index\n"
             "    %%buf = memref.alloc() : memref<3x5x%1$s, 2>\n"
             "    %%row = affine.apply affine_map<()[s0] -> (s0 * 3 + 1)>()[%%tx]\n"
             "    air.dma_memcpy_nd (%%buf[] [] [], %%ha[%%row, %%k1] [%%k3, %%k5] [%%k13, %%k2]) "
             ": (memref<3x5x%1$s, 2>, memref<7x13x%1$s>)\n"
             "    scf.for %%i = %%c0 to %%k3 step %%k1 {\n"
             "      scf.for %%j = %%c0 to %%k5 step %%k1 {\n"
             "        %%x = memref.load %%buf[%%i, %%j] : memref<3x5x%1$s, 2>\n"
             "        %%y = %2$s %%x, %%x : %1$s\n"
             "        memref.store %%y, %%buf[%%i, %%j] : memref<3x5x%1$s, 2>\n"
             "      }\n"
             "    }\n"
             "    %%orow = affine.apply affine_map<()[s0] -> (s0 * 3)>()[%%tx]\n"
             "    air.dma_memcpy_nd (%%hc[%%orow, %%k3] [%%k3, %%k5] [%%k13, %%k2], %%buf[] [] []) "
             ": (memref<7x13x%1$s>, memref<3x5x%1$s, 2>)\n"
             "    memref.dealloc %%buf : memref<3x5x%1$s, 2>\n"
             "  }\n",
             e->name, e->op);
    int64_t sz[2] = {7, 13};
    uint8_t a[7 * 13 * 4], c[7 * 13 * 4];
    fill(a, sizeof a, e->elem);
    fill(c, sizeof c, e->elem);
    air_arg_t args[2] = {mref(a, e->elem, 2, sz, NULL, 0), mref(c, e->elem, 2, sz, NULL, 0)};
    char ty[64];
    snprintf(ty, sizeof ty, "memref<7x13x%s>", e->name);
    const char* types[2] = {ty, ty};
    run_both(f, types, text, args, 2, true, NULL, t == 0);
  }
}

/* Rank 4 on both sides: a 1x2x2x3 box of a 2x3x4x5 array into L1, back into
 * another corner of the output, a third DMA with a list longer than the
 * memref's rank (pattern dimensions without a memref dimension). */
static void test_rank4(void** state) {
  fx_t* f = *state;
  for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; ++t) {
    const ety_t* e = &k_types[t];
    char text[4096];
    snprintf(text, sizeof text,
             "  air.herd @h tile (%%tx, %%ty) in (%%sx=%%c1, %%sy=%%c1) args(%%ha=%%sa, %%hc=%%sb, "
             "%%hd=%%sc) : memref<2x3x4x5x%1$s>, memref<2x3x4x5x%1$s>, memref<24x%1$s> {\n"
             "    %%k0 = arith.constant 0 : index\n"
             "    %%k1 = arith.constant 1 : index\n"
             "    %%k2 = arith.constant 2 : index\n"
             "    %%k3 = arith.constant 3 : index\n"
             "    %%k4 = arith.constant 4 : index\n"
             "    %%k5 = arith.constant 5 : index\n"
             "    %%k20 = arith.constant 20 : index\n"
             "    %%k60 = arith.constant 60 : index\n"
             "    %%buf = memref.alloc() : memref<1x2x2x3x%1$s, 2>\n"
             "    air.dma_memcpy_nd (%%buf[] [] [], %%ha[%%k1, %%k1, %%k2, %%k1] [%%k1, %%k2, "
             "%%k2, %%k3] [%%k60, %%k20, %%k5, %%k1]) : (memref<1x2x2x3x%1$s, 2>, "
             "memref<2x3x4x5x%1$s>)\n"
             "    %%x = memref.load %%buf[%%k0, %%k1, %%k1, %%k2] : memref<1x2x2x3x%1$s, 2>\n"
             "    %%y = %2$s %%x, %%x : %1$s\n"
             "    memref.store %%y, %%buf[%%k0, %%k0, %%k1, %%k1] : memref<1x2x2x3x%1$s, 2>\n"
             "    air.dma_memcpy_nd (%%hc[%%k0, %%k1, %%k1, %%k2] [%%k1, %%k2, %%k2, %%k3] "
             "[%%k60, %%k20, %%k5, %%k1], %%buf[] [] []) : (memref<2x3x4x5x%1$s>, "
             "memref<1x2x2x3x%1$s, 2>)\n"
             "    air.dma_memcpy_nd (%%hd[] [] [], %%ha[%%k0, %%k1] [%%k2, %%k3, %%k4] [%%k60, "
             "%%k1, %%k5]) : (memref<24x%1$s>, memref<2x3x4x5x%1$s>)\n"
             "    memref.dealloc %%buf : memref<1x2x2x3x%1$s, 2>\n"
             "  }\n",
             e->name, e->op);
    int64_t sz[4] = {2, 3, 4, 5}, dz = 24;
    uint8_t a[120 * 4], c[120 * 4], d[24 * 4];
    fill(a, sizeof a, e->elem);
    fill(c, sizeof c, e->elem);
    fill(d, sizeof d, e->elem);
    air_arg_t args[3] = {mref(a, e->elem, 4, sz, NULL, 0), mref(c, e->elem, 4, sz, NULL, 0),
                         mref(d, e->elem, 1, &dz, NULL, 0)};
    char ty[64], ty2[64];
    snprintf(ty, sizeof ty, "memref<2x3x4x5x%s>", e->name);
    snprintf(ty2, sizeof ty2, "memref<24x%s>", e->name);
    const char* types[3] = {ty, ty, ty2};
    run_both(f, types, text, args, 3, true, NULL, t == 1);
  }
}

/* One PE; its loop writes rows of C through L1, and the third iteration's DMA
 * reaches past the end: the same error at the same op on both paths, after the
 * same two rows were written. */
static const char* const k_oob_types[2] = {"memref<4x8xi32>", "memref<4x8xi32>"};
static const char k_oob[] =
    "  air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%ha=%sa, %hc=%sb) : "
    "memref<4x8xi32>, memref<4x8xi32> {\n"
    "    %k0 = arith.constant 0 : index\n"
    "    %k1 = arith.constant 1 : index\n"
    "    %k4 = arith.constant 4 : index\n"
    "    %k8 = arith.constant 8 : index\n"
    "    %k3 = arith.constant 3 : index\n"
    "    %buf = memref.alloc() : memref<8xi32, 2>\n"
    "    scf.for %i = %k0 to %k4 step %k1 {\n"
    "      %r = arith.muli %i, %k3 : index\n"
    "      air.dma_memcpy_nd (%buf[] [] [], %ha[%i, %k0] [%k1, %k8] [%k8, %k1]) : "
    "(memref<8xi32, 2>, memref<4x8xi32>)\n"
    "      air.dma_memcpy_nd (%hc[%r, %k0] [%k1, %k8] [%k8, %k1], %buf[] [] []) : "
    "(memref<4x8xi32>, memref<8xi32, 2>)\n"
    "    }\n"
    "    memref.dealloc %buf : memref<8xi32, 2>\n"
    "  }\n";

/* A second dealloc of the same buffer: the interpreter's error from the hook. */
static const char* const k_i8_types[1] = {"memref<8xi8>"};
static const char k_double_free[] =
    "  air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%ha=%sa) : memref<8xi8> {\n"
    "    %buf = memref.alloc() : memref<8xi8, 2>\n"
    "    air.dma_memcpy_nd (%ha[] [] [], %buf[] [] []) : (memref<8xi8>, memref<8xi8, 2>)\n"
    "    memref.dealloc %buf : memref<8xi8, 2>\n"
    "    memref.dealloc %buf : memref<8xi8, 2>\n"
    "  }\n";

/* Counts that differ between the sides. */
static const char* const k_f16_types[1] = {"memref<16xf32>"};
static const char k_count[] =
    "  air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%ha=%sa) : memref<16xf32> {\n"
    "    %k0 = arith.constant 0 : index\n"
    "    %k2 = arith.constant 2 : index\n"
    "    %k5 = affine.apply affine_map<()[s0] -> (s0 + 5)>()[%tx]\n"
    "    %buf = memref.alloc() : memref<8xf32, 2>\n"
    "    air.dma_memcpy_nd (%buf[] [] [], %ha[%k0] [%k5] [%k2]) : (memref<8xf32, 2>, "
    "memref<16xf32>)\n"
    "  }\n";

static void test_errors(void** state) {
  fx_t* f = *state;
  int32_t a[32], c[32];
  for (int i = 0; i < 32; ++i) a[i] = i * 7 - 3, c[i] = -1;
  int64_t sz[2] = {4, 8};
  air_arg_t args[2] = {mref(a, AIR_ELEM_I32, 2, sz, NULL, 0), mref(c, AIR_ELEM_I32, 2, sz, NULL, 0)};
  run_both(f, k_oob_types, k_oob, args, 2, true, "air.dma_memcpy_nd", true);
  int8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t n8 = 8;
  air_arg_t a1[1] = {mref(b, AIR_ELEM_I8, 1, &n8, NULL, 0)};
  run_both(f, k_i8_types, k_double_free, a1, 1, true, "already freed", false);
  float x[16] = {0};
  int64_t n16 = 16;
  air_arg_t a2[1] = {mref(x, AIR_ELEM_F32, 1, &n16, NULL, 0)};
  run_both(f, k_f16_types, k_count, a2, 1, true, "air.dma_memcpy_nd", false);
}

/* Not covered: a subview in the body keeps the herd interpreted (its loop may
 * still be a unit of its own); a channel put likewise. Results stay exact. */
static const char* const k_sub_types[2] = {"memref<16xf32>", "memref<16xf32>"};
static const char k_subview[] =
    "  air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%ha=%sa, %hc=%sb) : "
    "memref<16xf32>, memref<16xf32> {\n"
    "    %k0 = arith.constant 0 : index\n"
    "    %k1 = arith.constant 1 : index\n"
    "    %k8 = arith.constant 8 : index\n"
    "    %buf = memref.alloc() : memref<8xf32, 2>\n"
    "    %sv = memref.subview %ha[4] [8] [1] : memref<16xf32> to memref<8xf32, "
    "strided<[1], offset: 4>>\n"
    "    air.dma_memcpy_nd (%buf[] [] [], %sv[] [] []) : (memref<8xf32, 2>, memref<8xf32, "
    "strided<[1], offset: 4>>)\n"
    "    scf.for %i = %k0 to %k8 step %k1 {\n"
    "      %x = memref.load %buf[%i] : memref<8xf32, 2>\n"
    "      %y = arith.addf %x, %x : f32\n"
    "      memref.store %y, %buf[%i] : memref<8xf32, 2>\n"
    "    }\n"
    "    air.dma_memcpy_nd (%hc[%k1] [%k8] [%k1], %buf[] [] []) : (memref<16xf32>, "
    "memref<8xf32, 2>)\n"
    "    memref.dealloc %buf : memref<8xf32, 2>\n"
    "  }\n";

static void test_not_covered(void** state) {
  fx_t* f = *state;
  float a[16], c[16];
  fill(a, sizeof a, AIR_ELEM_F32);
  memset(c, 0, sizeof c);
  int64_t n = 16;
  air_arg_t args[2] = {mref(a, AIR_ELEM_F32, 1, &n, NULL, 0), mref(c, AIR_ELEM_F32, 1, &n, NULL, 0)};
  run_both(f, k_sub_types, k_subview, args, 2, false, NULL, false);
  /* The generator's view of both. */
  char* text = wrap(k_sub_types, 2, k_subview);
  air_program_t* p = test_load_text(f->ctx, "cga.mlir", text);
  free(text);
  const air_op_t* herd = test_find_op(p->module, AIR_OP_HERD, NULL);
  assert_false(air_cg_unit_candidate(p, herd));
  air_program_destroy(p);
  text = wrap(k_vadd_types, 3, k_vadd);
  p = test_load_text(f->ctx, "cga.mlir", text);
  free(text);
  herd = test_find_op(p->module, AIR_OP_HERD, NULL);
  assert_true(air_cg_unit_candidate(p, herd));
  /* The loop inside takes a token from outside: not a unit of its own. */
  const air_op_t* loop = test_find_op(herd, AIR_OP_FOR, NULL);
  assert_false(air_cg_unit_candidate(p, loop));
  air_vid_t ins[16];
  uint32_t n_in = air_cg_unit_inputs(p, herd, ins, 16);
  assert_int_equal(n_in, 4); /* %tx, %ha, %hb, %hc: the body's arguments it uses */
  for (uint32_t i = 0; i < n_in; ++i) assert_null(air_ir_value(p, ins[i])->def);
  air_program_destroy(p);
}

/* 1-d transfers, the hook's shortcut (dma.h ix_dma_1d) at its edges: an offset
 * list padded with a zero (`[] [n] [1]`), one element with any stride, the last
 * element of a view, a stride that is not 1 (the general path); then a run past
 * the view's end, a negative offset and a strided run past the end, each an error
 * worded the same on both paths (element types that differ are the verifier's). `%o` comes from the tile id, so the generator cannot fold it. */
static const char* const k_d1_types[2] = {"memref<16xf32>", "memref<16xf32>"};
static char* d1_herd(const char* off, const char* lists, const char* buf) {
  const char* fmt =
      "  air.herd @h tile (%%tx, %%ty) in (%%sx=%%c1, %%sy=%%c1) args(%%ha=%%sa, %%hc=%%sb) : "
      "memref<16xf32>, memref<16xf32> {\n"
      "    %%k1 = arith.constant 1 : index\n"
      "    %%k2 = arith.constant 2 : index\n"
      "    %%k8 = arith.constant 8 : index\n"
      "    %%k9 = arith.constant 9 : index\n"
      "    %%k15 = arith.constant 15 : index\n"
      "    %%o = affine.apply affine_map<()[s0] -> (s0 %s)>()[%%tx]\n"
      "    %%buf = memref.alloc() : memref<8x%s, 2>\n"
      "    %%one = memref.alloc() : memref<1xf32, 2>\n"
      "    air.dma_memcpy_nd (%%buf[] [] [], %%ha%s) : (memref<8x%s, 2>, memref<16xf32>)\n"
      "    air.dma_memcpy_nd (%%hc[] [%%k8] [%%k1], %%buf[] [] []) : (memref<16xf32>, "
      "memref<8x%s, 2>)\n"
      "    air.dma_memcpy_nd (%%one[] [] [], %%ha[%%k15] [%%k1] [%%k2]) : (memref<1xf32, 2>, "
      "memref<16xf32>)\n"
      "    air.dma_memcpy_nd (%%hc[%%k9] [%%k1] [%%k1], %%one[] [] []) : (memref<16xf32>, "
      "memref<1xf32, 2>)\n"
      "    memref.dealloc %%one : memref<1xf32, 2>\n"
      "    memref.dealloc %%buf : memref<8x%s, 2>\n"
      "  }\n";
  char* t = malloc(4096);
  snprintf(t, 4096, fmt, off, buf, lists, buf, buf, buf);
  return t;
}

static void test_dma_1d(void** state) {
  fx_t* f = *state;
  float a[16], c[16];
  fill(a, sizeof a, AIR_ELEM_F32);
  memset(c, 0, sizeof c);
  int64_t n = 16;
  air_arg_t args[2] = {mref(a, AIR_ELEM_F32, 1, &n, NULL, 0), mref(c, AIR_ELEM_F32, 1, &n, NULL, 0)};
  static const struct {
    const char *off, *lists, *buf, *err;
  } k_cases[] = {
      {"+ 3", "[%o] [%k8] [%k1]", "f32", NULL},   /* c[0, 8) = a[3, 11), c[9] = a[15] */
      {"+ 8", "[%o] [%k8] [%k1]", "f32", NULL},   /* up to the view's last element */
      {"+ 9", "[%o] [%k8] [%k1]", "f32", "air.dma_memcpy_nd"}, /* one past the end */
      {"- 1", "[%o] [%k8] [%k1]", "f32", "air.dma_memcpy_nd"}, /* before the start */
      {"+ 0", "[%o] [%k8] [%k2]", "f32", NULL},   /* every other element: not 1-d dense */
      {"+ 2", "[%o] [%k8] [%k2]", "f32", "air.dma_memcpy_nd"}, /* ... reaching past the end */
  };
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; ++i) {
    char* herd = d1_herd(k_cases[i].off, k_cases[i].lists, k_cases[i].buf);
    run_both(f, k_d1_types, herd, args, 2, true, k_cases[i].err, i == 0);
    free(herd);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_vector_add_herd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_strided_rank2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rank4, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_covered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_1d, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

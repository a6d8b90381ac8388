/* test_codegen_flat.c - launches run flat (src/hal/cpu/interp/flat.c): an entry
 * whose launch nest holds no channel op and whose herd bodies are compiled
 * units runs inline, every instance in order on the calling thread, with pool
 * workers helping on large herds.
 *
 * Each case runs a whole program on copies of the same buffers: interpreted
 * (no code, the pool path) and compiled on the inline path (a prep, run_inline),
 * and asserts which path air_interp_inline_kind picks, so a case meant to run
 * flat cannot pass by taking the pool path. Buffers must match bit for bit and
 * failures must carry the same message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "codegen_test.h" /* fx_t, setup/teardown, load_text, mref */
#include "hal/cpu/interp/tables.h" /* air_interp_prep_t.wake_ns (test_help_probe) */
#include "runtime/base/mem.h"

typedef struct lookup_t {
  air_cg_code_t code;
  const air_cg_hooks_t* h;
  air_cg_program_t* cp;
} lookup_t;

static const air_cg_unit_t* find_jit(const void* self, const air_op_t* op) {
  const lookup_t* l = self;
  return l->h->find(l->cp, op);
}

/* Runs @f on copies of `args`: interpreted (`flat` false: no code, pool path)
 * or compiled inline (`flat`: JIT code, a prep, run_inline), after checking
 * that the inline kind is `want_kind`. The copies go to `out`. */
static air_status_t run_way(air_pool_t* pool, fx_t* f, air_program_t* p, bool flat,
                            const air_arg_t* args, uint32_t n_args, const size_t* bytes,
                            void** out, air_interp_inline_t want_kind) {
  air_arg_t a[4];
  for (uint32_t i = 0; i < n_args; ++i) {
    a[i] = args[i];
    out[i] = malloc(bytes[i]);
    memcpy(out[i], args[i].memref.data, bytes[i]);
    a[i].memref.data = out[i];
  }
  air_allocator_t al;
  air_allocator_init_system(&al);
  const air_cg_hooks_t* h = air_cg_hooks();
  lookup_t l = {{NULL, find_jit}, h, NULL};
  l.code.self = &l;
  air_interp_prep_t* prep = NULL;
  air_interp_desc_t d = {.program = p, .entry = test_find_func(p, "f"), .n_args = n_args,
                         .args = a, .pool = pool, .context = f->ctx};
  d.allocator = al;
  if (flat) {
    test_check(h->compile(&al, p, &l.cp));
    test_check(air_interp_prepare(&al, p, &prep));
    d.code = &l.code;
    d.prep = prep;
    d.run_inline = true;
    /* AIR_DISPATCH_INTERPRET (--no-compile) keeps the interpreter: no flat run. */
    d.interpret = true;
    assert_int_equal(air_interp_inline_kind(&d), AIR_INTERP_INLINE_NO);
    d.interpret = false;
  }
  assert_int_equal(air_interp_inline_kind(&d), want_kind);
  air_status_t st = air_interp_run(&d);
  air_interp_prep_release(prep);
  if (l.cp) h->release(l.cp);
  return st;
}

/* Both ways; the same outcome (success, or an error containing `err`). */
static void run_both(air_pool_t* pool, fx_t* f, const char* text, const air_arg_t* args,
                     uint32_t n_args, const size_t* bytes, air_interp_inline_t want_kind,
                     const char* err) {
  air_program_t* p = load_text(f, text);
  void* bi[4] = {0};
  void* bc[4] = {0};
  air_status_t si = run_way(pool, f, p, false, args, n_args, bytes, bi, AIR_INTERP_INLINE_NO);
  air_status_t sc = run_way(pool, f, p, true, args, n_args, bytes, bc, want_kind);
  if (err) {
    assert_non_null(si);
    assert_non_null(sc);
    test_expect_in(air_status_message(si), "%s", err);
    assert_string_equal(air_status_message(si), air_status_message(sc));
  } else {
    if (si) fprintf(stderr, "interpreted: %s\n", air_status_message(si));
    if (sc) fprintf(stderr, "compiled: %s\n", air_status_message(sc));
    assert_null(si);
    assert_null(sc);
    for (uint32_t i = 0; i < n_args; ++i) assert_memory_equal(bi[i], bc[i], bytes[i]);
  }
  air_status_free(si);
  air_status_free(sc);
  for (uint32_t i = 0; i < n_args; ++i) free(bi[i]), free(bc[i]);
  air_program_destroy(p);
}

/* c[k] = 2 * a[k] over n = L * X * Y * chunk i32 elements: L launch
 * instances, each a segment holding an X x Y herd whose PE
 * (l, tx, ty) doubles its own chunk through an L1 buffer, with an async DMA and
 * a wait on its token, under an async launch the entry waits for. `bad`: PE
 * index 3's source reaches past the end of a (n = that size - 4). */
static char* program(int L, int X, int Y, int chunk, bool bad) {
  int n = L * X * Y * chunk - (bad ? 4 : 0);
  size_t cap = 8192;
  char* t = malloc(cap);
  char ty[64];
  snprintf(ty, sizeof ty, "memref<%dxi32>", n);
  int w = snprintf(
      t, cap,
      "func.func @f(%%a: %s, %%c: %s) {\n"
      "  %%cl = arith.constant %d : index\n"
      "  %%t = air.launch async (%%lx) in (%%ls=%%cl) args(%%la=%%a, %%lc=%%c) : %s, %s {\n",
      ty, ty, L, ty, ty);
  w += snprintf(t + w, cap - (size_t)w,
                "  air.segment @s args(%%sa=%%la, %%sc=%%lc, %%sl=%%lx) : %s, %s, index {\n", ty,
                ty);
  w += snprintf(
      t + w, cap - (size_t)w,
      "    %%cx = arith.constant %d : index\n"
      "    %%cy = arith.constant %d : index\n"
      "    air.herd @h tile (%%tx, %%ty) in (%%sx=%%cx, %%sy=%%cy) args(%%ha=%%sa, %%hc=%%sc, "
      "%%hl=%%sl) : %s, %s, index {\n"
      "      %%k0 = arith.constant 0 : index\n"
      "      %%k1 = arith.constant 1 : index\n"
      "      %%kc = arith.constant %d : index\n"
      "      %%r1 = arith.muli %%hl, %%sy : index\n"
      "      %%r2 = arith.addi %%r1, %%ty : index\n"
      "      %%r3 = arith.muli %%r2, %%sx : index\n"
      "      %%pe = arith.addi %%r3, %%tx : index\n"
      "      %%base = arith.muli %%pe, %%kc : index\n"
      "      %%buf = memref.alloc() : memref<%dxi32, 2>\n"
      "      %%d = air.dma_memcpy_nd async (%%buf[] [] [], %%ha[%%base] [%%kc] [%%k1]) : "
      "(memref<%dxi32, 2>, %s)\n"
      "      air.wait_all [%%d]\n"
      "      scf.for %%i = %%k0 to %%kc step %%k1 {\n"
      "        %%x = memref.load %%buf[%%i] : memref<%dxi32, 2>\n"
      "        %%y = arith.addi %%x, %%x : i32\n"
      "        memref.store %%y, %%buf[%%i] : memref<%dxi32, 2>\n"
      "      }\n"
      "      air.dma_memcpy_nd (%%hc[%%base] [%%kc] [%%k1], %%buf[] [] []) : (%s, "
      "memref<%dxi32, 2>)\n"
      "      memref.dealloc %%buf : memref<%dxi32, 2>\n"
      "    }\n",
      X, Y, ty, ty, chunk, chunk, chunk, ty, chunk, chunk, ty, chunk, chunk);
  w += snprintf(t + w, cap - (size_t)w, "  }\n  }\n  air.wait_all [%%t]\n  return\n}\n");
  assert_true(w > 0 && (size_t)w < cap);
  return t;
}

static void run_shape(air_pool_t* pool, fx_t* f, int L, int X, int Y, int chunk) {
  int n = L * X * Y * chunk;
  int32_t* a = malloc((size_t)n * 4);
  int32_t* c = calloc((size_t)n, 4);
  for (int i = 0; i < n; ++i) a[i] = i * 7 - 1000;
  int64_t sz = n;
  air_arg_t args[2] = {mref(a, AIR_ELEM_I32, 1, &sz, NULL, 0),
                       mref(c, AIR_ELEM_I32, 1, &sz, NULL, 0)};
  size_t bytes[2] = {(size_t)n * 4, (size_t)n * 4};
  char* text = program(L, X, Y, chunk, false);
  run_both(pool, f, text, args, 2, bytes, AIR_INTERP_INLINE_YES, NULL);
  free(text);
  free(a), free(c);
}

/* Several launch sizes and herd shapes: the same results as the
 * interpreter's, on the flat path. */
static void test_shapes(void** state) {
  fx_t* f = *state;
  run_shape(f->pool, f, 1, 1, 1, 8);
  run_shape(f->pool, f, 1, 4, 1, 16);
  run_shape(f->pool, f, 2, 2, 3, 8);
  run_shape(f->pool, f, 3, 2, 2, 4);
}

/* PE 3's DMA reaches outside its source: the interpreter's message. */
static void test_error(void** state) {
  fx_t* f = *state;
  int n = 4 * 8 - 4;
  int32_t a[32] = {0}, c[32] = {0};
  int64_t sz = n;
  air_arg_t args[2] = {mref(a, AIR_ELEM_I32, 1, &sz, NULL, 0),
                       mref(c, AIR_ELEM_I32, 1, &sz, NULL, 0)};
  size_t bytes[2] = {(size_t)n * 4, (size_t)n * 4};
  char* text = program(1, 4, 1, 8, true);
  run_both(f->pool, f, text, args, 2, bytes, AIR_INTERP_INLINE_YES, "air.dma_memcpy_nd");
  free(text);
}

/* Not flat: a channel between two PEs (one waits for the other), and a
 * memref the herd gets through a subview (its unit could decline the view).
 * Both take the pool path, with the interpreter's results. */
static const char k_channel[] =
    "air.channel @ch [1]\n"
    "func.func @f(%a: memref<8xi32>, %c: memref<8xi32>) {\n"
    "  air.launch () in () args(%la=%a, %lc=%c) : memref<8xi32>, memref<8xi32> {\n"
    "    air.segment @s args(%sa=%la, %sc=%lc) : memref<8xi32>, memref<8xi32> {\n"
    "      %c2 = arith.constant 2 : index\n"
    "      %c1 = arith.constant 1 : index\n"
    "      air.herd @h tile (%tx, %ty) in (%sx=%c2, %sy=%c1) args(%ha=%sa, %hc=%sc) : "
    "memref<8xi32>, memref<8xi32> {\n"
    "        %k0 = arith.constant 0 : index\n"
    "        %first = arith.cmpi eq, %tx, %k0 : index\n"
    "        %buf = memref.alloc() : memref<8xi32, 2>\n"
    "        scf.if %first {\n"
    "          air.dma_memcpy_nd (%buf[] [] [], %ha[] [] []) : (memref<8xi32, 2>, memref<8xi32>)\n"
    "          air.channel.put @ch[%k0] (%buf[] [] []) : (memref<8xi32, 2>)\n"
    "        } else {\n"
    "          air.channel.get @ch[%k0] (%buf[] [] []) : (memref<8xi32, 2>)\n"
    "          air.dma_memcpy_nd (%hc[] [] [], %buf[] [] []) : (memref<8xi32>, memref<8xi32, 2>)\n"
    "        }\n"
    "        memref.dealloc %buf : memref<8xi32, 2>\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char k_subview[] =
    "func.func @f(%a: memref<8xi32>, %c: memref<8xi32>) {\n"
    "  air.launch () in () args(%la=%a, %lc=%c) : memref<8xi32>, memref<8xi32> {\n"
    "   air.segment @s args(%sa=%la, %sc=%lc) : memref<8xi32>, memref<8xi32> {\n"
    "    %v = memref.subview %sa[4] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1], "
    "offset: 4>>\n"
    "    %c1 = arith.constant 1 : index\n"
    "    air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%hv=%v, %hc=%sc) : "
    "memref<4xi32, strided<[1], offset: 4>>, memref<8xi32> {\n"
    "      %k0 = arith.constant 0 : index\n"
    "      %k1 = arith.constant 1 : index\n"
    "      %k4 = arith.constant 4 : index\n"
    "      %buf = memref.alloc() : memref<4xi32, 2>\n"
    "      air.dma_memcpy_nd (%buf[] [] [], %hv[] [] []) : (memref<4xi32, 2>, memref<4xi32, "
    "strided<[1], offset: 4>>)\n"
    "      air.dma_memcpy_nd (%hc[%k0] [%k4] [%k1], %buf[] [] []) : (memref<8xi32>, "
    "memref<4xi32, 2>)\n"
    "      memref.dealloc %buf : memref<4xi32, 2>\n"
    "    }\n"
    "   }\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_not_flat(void** state) {
  fx_t* f = *state;
  int32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c[8] = {0};
  int64_t sz = 8;
  air_arg_t args[2] = {mref(a, AIR_ELEM_I32, 1, &sz, NULL, 0),
                       mref(c, AIR_ELEM_I32, 1, &sz, NULL, 0)};
  size_t bytes[2] = {sizeof a, sizeof c};
  run_both(f->pool, f, k_channel, args, 2, bytes, AIR_INTERP_INLINE_NO, NULL);
  run_both(f->pool, f, k_subview, args, 2, bytes, AIR_INTERP_INLINE_NO, NULL);
}

/* A compiled program ready to run flat on `workers` pool workers (helpers). */
typedef struct flat_fx_t {
  air_pool_t* pool;
  air_program_t* p;
  lookup_t l;
  air_interp_prep_t* prep;
  air_interp_desc_t d;
  int32_t *a, *c;
  int n;
} flat_fx_t;

static void flat_open(flat_fx_t* x, fx_t* f, uint32_t workers, int X, int chunk, bool bad) {
  memset(x, 0, sizeof *x);
  test_check(air_pool_create(NULL, workers, &x->pool));
  x->n = X * chunk - (bad ? 4 : 0);
  x->a = malloc((size_t)X * chunk * 4);
  x->c = calloc((size_t)X * chunk, 4);
  for (int i = 0; i < X * chunk; ++i) x->a[i] = i % 1000 - 500;
  char* text = program(1, X, 1, chunk, bad);
  x->p = load_text(f, text);
  free(text);
  air_allocator_t al;
  air_allocator_init_system(&al);
  const air_cg_hooks_t* h = air_cg_hooks();
  x->l = (lookup_t){{NULL, find_jit}, h, NULL};
  x->l.code.self = &x->l;
  test_check(h->compile(&al, x->p, &x->l.cp));
  test_check(air_interp_prepare(&al, x->p, &x->prep));
  x->d = (air_interp_desc_t){.program = x->p, .entry = test_find_func(x->p, "f"), .n_args = 2,
                             .pool = x->pool, .context = f->ctx, .code = &x->l.code,
                             .prep = x->prep, .run_inline = true};
  x->d.allocator = al;
}

static void flat_close(flat_fx_t* x) {
  air_pool_destroy(x->pool);
  air_interp_prep_release(x->prep);
  x->l.h->release(x->l.cp);
  air_program_destroy(x->p);
  free(x->a), free(x->c);
}

/* One run on fresh output; its outcome. */
static air_status_t flat_run(flat_fx_t* x) {
  int64_t sz = x->n;
  air_arg_t args[2] = {mref(x->a, AIR_ELEM_I32, 1, &sz, NULL, 0),
                       mref(x->c, AIR_ELEM_I32, 1, &sz, NULL, 0)};
  x->d.args = args;
  assert_int_equal(air_interp_inline_kind(&x->d), AIR_INTERP_INLINE_YES);
  memset(x->c, 0, (size_t)x->n * 4);
  air_status_t st = air_interp_run(&x->d);
  x->d.args = NULL;
  return st;
}

/* Pool tasks run so far; waits up to 2 s for at least `want` (a helper may
 * start after the run it was woken for: it then only lets go of its job). */
static uint64_t tasks_run(air_pool_t* pool, uint64_t want) {
  air_pool_stats_t ps;
  for (int i = 0; i < 2000; ++i) {
    air_pool_stats(pool, &ps);
    if (ps.tasks_run >= want) break;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  return ps.tasks_run;
}

/* A herd large enough to share: the calling thread and the pool's workers
 * take its PEs from one counter (the first run helps always: nothing is
 * measured yet), run after run, every result exact. Label concurrency (TSan). */
static void test_helpers(void** state) {
  flat_fx_t x;
  flat_open(&x, *state, 3, 16, 4096, false);
  for (int run = 0; run < 12; ++run) {
    test_check(flat_run(&x));
    for (int i = 0; i < x.n; ++i) assert_int_equal(x.c[i], 2 * x.a[i]);
  }
  assert_true(tasks_run(x.pool, 1) > 0);
  flat_close(&x);
}

/* More workers than PEs (at most PEs - 1 helpers are woken), one PE (none),
 * one worker (none), two PEs: exact results on every run. */
static void test_helper_counts(void** state) {
  static const struct {
    uint32_t workers;
    int pes;
  } k[] = {{8, 2}, {8, 3}, {4, 1}, {1, 4}, {2, 2}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) {
    flat_fx_t x;
    flat_open(&x, *state, k[i].workers, k[i].pes, 2048, false);
    for (int run = 0; run < 6; ++run) {
      test_check(flat_run(&x));
      for (int e = 0; e < x.n; ++e) assert_int_equal(x.c[e], 2 * x.a[e]);
    }
    /* A one-PE herd or a one-worker pool never wakes a helper. */
    if (k[i].pes == 1 || k[i].workers == 1) assert_int_equal(tasks_run(x.pool, 0), 0);
    flat_close(&x);
  }
}

/* The last of 16 PEs reads past its source: whichever thread takes it (the
 * caller or a helper), every run fails with the interpreter's message. */
static void test_helper_error(void** state) {
  fx_t* f = *state;
  flat_fx_t x;
  flat_open(&x, f, 3, 16, 1024, true);
  /* The interpreter's message for the same program and arguments. */
  int64_t sz = x.n;
  air_arg_t args[2] = {mref(x.a, AIR_ELEM_I32, 1, &sz, NULL, 0),
                       mref(x.c, AIR_ELEM_I32, 1, &sz, NULL, 0)};
  air_interp_desc_t di = {.program = x.p, .entry = x.d.entry, .n_args = 2, .args = args,
                          .pool = x.pool, .context = f->ctx, .allocator = x.d.allocator};
  air_status_t want = air_interp_run(&di);
  assert_non_null(want);
  test_expect_in(air_status_message(want), "%s", "air.dma_memcpy_nd");
  for (int run = 0; run < 12; ++run) {
    air_status_t st = flat_run(&x);
    assert_non_null(st);
    assert_string_equal(air_status_message(st), air_status_message(want));
    air_status_free(st);
  }
  air_status_free(want);
  flat_close(&x);
}

/* A herd whose helpers once started far too late (a stale wake-up estimate,
 * set here) is still helped now and then (flat.c want_help's probes), so the
 * estimate is measured again: pool tasks run within the first probe interval.
 * Without probes the rule would keep it alone for good. */
static void test_help_probe(void** state) {
  flat_fx_t x;
  flat_open(&x, *state, 2, 4, 4096, false);
  test_check(flat_run(&x)); /* measures the PE time (and helps: unknown) */
  uint64_t before = tasks_run(x.pool, 1);
  atomic_store(&x.prep->wake_ns[0], INT64_C(1) << 40);
  atomic_store(&x.prep->wake_ns[1], INT64_C(1) << 40);
  for (int run = 0; run < 9; ++run) {
    test_check(flat_run(&x));
    for (int e = 0; e < x.n; ++e) assert_int_equal(x.c[e], 2 * x.a[e]);
  }
  assert_true(tasks_run(x.pool, before + 1) > before);
  flat_close(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_flat, setup, teardown),
      cmocka_unit_test_setup_teardown(test_helpers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_helper_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_helper_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_help_probe, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_interp_programs.c - the CPU executor on whole programs: every program of
 * tests/data/programs runs (results checked where they are well defined), scalar
 * code and calls, affine access and reshapes, run-time errors naming the op,
 * prepared programs and the inline path (also from two threads), the copy
 * shortcuts, and traces. The fixture is interp_test.h (shared with test_interp.c). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/kernel.h"
#include "air/program.h"
#include "air/trace.h"
#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/sync.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "runtime/ir/ir.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "support/threads.h"

#include "interp_test.h"

/*---------------------------------------------------------------------------*/
/* The corpus and the rest                                                   */
/*---------------------------------------------------------------------------*/

/* Every program of tests/data/programs runs; where the result is well defined
 * it is checked. Kernels registered under link_with names only are found
 * through the declaration's or the herd's link_with. */
static void test_corpus(void** state) {
  fx_t* f = *state;
  test_check(air_context_register_kernel(f->ctx, "scale.o", test_k_scale_i16, NULL));
  test_check(air_context_register_kernel(f->ctx, "kernel.o", test_k_add_one_f32, NULL));
  test_check(air_context_register_kernel(f->ctx, "external_kernel", test_k_nothing, NULL));
  static const struct {
    const char* file;
    const char* fn;
  } progs[] = {
      {"affine_if_broadcast", "bcast"},   {"matmul_4x4_channels", "matmul_128"},
      {"module_attrs_opaque", "annotated"}, {"no_module_wrapper", "copy_through_l1"},
      {"old_async_token", "old_style"},    {"scalar_control", "tiles"},
      {"scalar_control", "clamp"},         {"segment_pipeline", "pipeline"},
      {"segment_unroll_kernel", "unrolled"}, {"spec_token_lists", "spec_forms"},
      {"vector_add_dma", "vector_add"},
  };
  for (size_t t = 0; t < sizeof progs / sizeof progs[0]; ++t) {
    char path[512];
    snprintf(path, sizeof path, "%s/programs/%s.mlir", AIR_TEST_DATA_DIR, progs[t].file);
    air_program_t* p = test_load_file(f->ctx, path);
    const air_op_t* fn = test_find_func(p, progs[t].fn);
    assert_non_null(fn);
    uint32_t n = fn->iaux[0];
    air_arg_t args[8];
    void* bufs[8] = {0};
    void* orig[8] = {0};
    assert_true(n <= 8);
    for (uint32_t i = 0; i < n; ++i) {
      const air_type_info_t* ty = air_ir_type(p, fn->types[i]);
      memset(&args[i], 0, sizeof args[i]);
      if (ty->kind != AIR_TYPE_MEMREF) {
        args[i].kind = air_elem_is_float(ty->elem) ? AIR_ARG_FLOAT : AIR_ARG_INT;
        args[i].elem = ty->elem;
        args[i].f = 1.5;
        continue;
      }
      int64_t count = 1;
      args[i] = test_mref(NULL, ty->elem, 0);
      args[i].memref.rank = ty->rank;
      for (uint32_t k = ty->rank; k-- > 0;) {
        args[i].memref.sizes[k] = ty->shape[k];
        args[i].memref.strides[k] = count;
        count *= ty->shape[k];
      }
      uint32_t es = air_elem_size(ty->elem);
      bufs[i] = calloc((size_t)count, es);
      orig[i] = calloc((size_t)count, es);
      for (int64_t e = 0; e < count; ++e) {
        char* q = (char*)bufs[i] + e * es;
        int v = (int)((e * 7 + i * 13) % 23) - 11;
        switch (ty->elem) {
          case AIR_ELEM_F32: *(float*)q = (float)v; break;
          case AIR_ELEM_F16: *(uint16_t*)q = (uint16_t)(0x3c00 + (e % 64)); break;
          case AIR_ELEM_I8: *(int8_t*)q = (int8_t)v; break;
          case AIR_ELEM_I16: *(int16_t*)q = (int16_t)v; break;
          case AIR_ELEM_I32: *(int32_t*)q = v; break;
          default: break;
        }
      }
      memcpy(orig[i], bufs[i], (size_t)count * es);
      args[i].memref.data = bufs[i];
    }
    /* scalar_control's @tiles has every tile DMA the whole 32x32 buffer back to L3,
     * so its tiles race on L3 memory: run it on one thread. */
    air_pool_t* one = NULL;
    if (!strcmp(progs[t].fn, "tiles")) test_check(air_pool_create(NULL, 1, &one));
    runopt_t o = {.pool = one};
    air_status_t st = run(f, p, progs[t].fn, args, n, &o);
    if (one) air_pool_destroy(one);
    if (st) fprintf(stderr, "%s @%s: %s\n", progs[t].file, progs[t].fn, air_status_message(st));
    test_check(st);
    const char* name = progs[t].file;
    if (!strcmp(name, "affine_if_broadcast")) {
      const int32_t *w = orig[0], *act = orig[1], *res = bufs[2];
      for (int y = 0; y < 4; ++y)
        for (int j = 0; j < 64; ++j)
          assert_int_equal(res[y * 64 + j], (y == 0) + w[j] * act[y * 64 + j]);
    } else if (!strcmp(name, "module_attrs_opaque") || !strcmp(name, "no_module_wrapper")) {
      assert_memory_equal(bufs[1], orig[0], !strcmp(name, "no_module_wrapper") ? 32 : 8);
    } else if (!strcmp(name, "segment_pipeline")) {
      for (int i = 0; i < 1024; ++i) assert_true(((float*)bufs[1])[i] == -((float*)orig[0])[i]);
    } else if (!strcmp(name, "segment_unroll_kernel")) {
      for (int i = 0; i < 128; ++i)
        assert_int_equal(((int16_t*)bufs[0])[i], 3 * ((int16_t*)orig[0])[i]);
    } else if (!strcmp(name, "spec_token_lists")) {
      for (int i = 0; i < 64; ++i)
        assert_true(((float*)bufs[1])[i] == ((float*)orig[1])[i] + 1);
    } else if (!strcmp(name, "matmul_4x4_channels")) {
      const float *a = orig[0], *b = orig[1], *c = bufs[2];
      for (int i = 0; i < 128; ++i)
        for (int j = 0; j < 128; ++j) {
          float ref = 0;
          for (int k = 0; k < 128; ++k) ref += a[i * 128 + k] * b[k * 128 + j];
          assert_true(c[i * 128 + j] == ref);
        }
    } else if (!strcmp(name, "vector_add_dma")) {
      for (int i = 0; i < 1024; ++i)
        assert_int_equal(((int32_t*)bufs[2])[i], ((int32_t*)orig[0])[i] + ((int32_t*)orig[1])[i]);
    }
    for (uint32_t i = 0; i < n; ++i) {
      free(bufs[i]);
      free(orig[i]);
    }
    air_program_destroy(p);
  }
}

static void test_scalars_and_calls(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/scalars.mlir");
  float out[8] = {0};
  int32_t iout[8] = {0}, m[4][4], m2[2][2] = {{0}};
  for (int i = 0; i < 16; ++i) m[i / 4][i % 4] = i;
  air_arg_t args[4] = {test_mref(out, AIR_ELEM_F32, 1, (int64_t)8),
                       test_mref(iout, AIR_ELEM_I32, 1, (int64_t)8),
                       test_mref(m, AIR_ELEM_I32, 2, (int64_t)4, (int64_t)4),
                       test_mref(m2, AIR_ELEM_I32, 2, (int64_t)2, (int64_t)2)};
  test_check(run(f, p, "scalars", args, 4, NULL));
  assert_true(out[0] == 21.5f);
  assert_true(out[1] == 1.0f);    /* 1 + 2^-9 rounds to 1 in bf16 */
  assert_true(out[2] == 2048.0f); /* 2049 ties to even in f16 */
  assert_true(out[3] == 1.0f);
  assert_int_equal(iout[0], 21);
  assert_int_equal(iout[1], 18);
  assert_int_equal(iout[2], -3);
  assert_int_equal(iout[3], -1);
  assert_int_equal(iout[4], -4);
  assert_int_equal(iout[5], -3);
  assert_int_equal(iout[6], 4);
  assert_int_equal(m2[0][0], 6);
  assert_int_equal(m2[0][1], 7);
  assert_int_equal(m2[1][0], 10);
  assert_int_equal(m2[1][1], 11);
  air_program_destroy(p);
}

/* A herd transposes L1 tiles with affine.load/store; host code reads through
 * collapse_shape / expand_shape / cast views and evaluates affine.min/max. */
static void test_affine_access_and_reshape(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/programs/affine_tile_transpose.mlir");
  enum { N = 64 };
  float* in = malloc(N * N * sizeof(float));
  float* out = malloc(N * N * sizeof(float));
  uint32_t seed = 7;
  for (int i = 0; i < N * N; ++i) {
    in[i] = frand(&seed);
    out[i] = -1;
  }
  air_arg_t args[2] = {test_mref(in, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N),
                       test_mref(out, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N)};
  test_check(run(f, p, "transpose", args, 2, NULL));
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) assert_true(out[r * N + c] == in[c * N + r]);
  free(in);
  free(out);

  float m[4][8];
  int32_t o[4] = {0};
  for (int i = 0; i < 32; ++i) m[i / 8][i % 8] = (float)i;
  air_arg_t rargs[2] = {test_mref(m, AIR_ELEM_F32, 2, (int64_t)4, (int64_t)8),
                        test_mref(o, AIR_ELEM_I32, 1, (int64_t)4)};
  test_check(run(f, p, "reshape", rargs, 2, NULL));
  assert_true(m[0][0] == 9.0f);  /* flat[1 * 8 + 1] */
  assert_true(m[0][1] == 19.0f); /* expanded [1][0][3] = flat[19], stored at [0][0][1] */
  assert_true(m[0][2] == 2.0f && m[3][7] == 31.0f);
  assert_int_equal(o[0], 5); /* min(3 + 4, 5) */
  assert_int_equal(o[1], 7); /* max(3 + 4, 5) */
  assert_int_equal(o[2], 4); /* min(12, 4, 9) */
  assert_int_equal(o[3], 0);
  air_program_destroy(p);

  /* A strided source is refused at the op rather than viewed wrongly. */
  static const char k_strided[] =
      "func.func @strided(%m: memref<4x8xf32>) {\n"
      "  %s = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to "
      "memref<4x4xf32, strided<[8, 1]>>\n"
      "  %c = memref.collapse_shape %s [[0, 1]] : memref<4x4xf32, strided<[8, 1]>> into "
      "memref<16xf32>\n"
      "  return\n"
      "}\n";
  p = test_load_text(f->ctx, "strided.mlir", k_strided);
  air_status_t st = run(f, p, "strided", rargs, 1, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_UNIMPLEMENTED);
  test_expect_in(air_status_message(st),
            "strided.mlir:3:3: error: memref.collapse_shape of a strided or non-contiguous "
            "memref");
  air_status_free(st);
  air_program_destroy(p);

  /* Subscripts outside the memref are caught like memref.load's. */
  static const char k_oob[] =
      "func.func @oob(%m: memref<4x8xf32>) {\n"
      "  %c3 = arith.constant 3 : index\n"
      "  %v = affine.load %m[%c3 + 1, 0] : memref<4x8xf32>\n"
      "  return\n"
      "}\n";
  p = test_load_text(f->ctx, "oob.mlir", k_oob);
  st = run(f, p, "oob", rargs, 1, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_OUT_OF_RANGE);
  test_expect_in(air_status_message(st), "oob.mlir:3:3: error: affine.load: index out of bounds");
  air_status_free(st);
  air_program_destroy(p);
}

/* Errors that only show at run time name the op and its location. */
static void test_runtime_errors(void** state) {
  fx_t* f = *state;
  static const char k_missing[] =
      "func.func private @nowhere(memref<4xf32, 2>)\n"
      "func.func @calls() {\n"
      "  %c1 = arith.constant 1 : index\n"
      "  air.launch (%l) in (%n=%c1) {\n"
      "    air.segment @s {\n"
      "      %c1s = arith.constant 1 : index\n"
      "      air.herd @h tile (%x) in (%sx=%c1s) attributes {link_with = \"lib.o\"} {\n"
      "        %b = memref.alloc() : memref<4xf32, 2>\n"
      "        func.call @nowhere(%b) : (memref<4xf32, 2>) -> ()\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  return\n"
      "}\n";
  air_program_t* p = test_load_text(f->ctx, "missing.mlir", k_missing);
  air_status_t st = run(f, p, "calls", NULL, 0, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_NOT_FOUND);
  test_expect_in(air_status_message(st),
            "missing.mlir:9:9: error: func.call @nowhere: no kernel registered as \"nowhere\", nor "
            "as the herd's link_with \"lib.o\"");
  air_status_free(st);
  air_program_destroy(p);

  static const char k_sizes[] =
      "air.channel @c [1]\n"
      "func.func @sizes(%a: memref<16xf32>, %b: memref<8xf32>) {\n"
      "  %c1 = arith.constant 1 : index\n"
      "  air.launch (%l) in (%n=%c1) args(%la=%a, %lb=%b) : memref<16xf32>, memref<8xf32> {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %p = air.channel.put async @c[%c0] (%la[] [] []) : (memref<16xf32>)\n"
      "    air.channel.get @c[%c0] (%lb[] [] []) : (memref<8xf32>)\n"
      "  }\n"
      "  return\n"
      "}\n";
  p = test_load_text(f->ctx, "sizes.mlir", k_sizes);
  float a[16] = {0}, b[8] = {0};
  air_arg_t args[2] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)16), test_mref(b, AIR_ELEM_F32, 1, (int64_t)8)};
  st = run(f, p, "sizes", args, 2, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st),
            "sizes.mlir:7:5: error: air.channel.get @c receives 8 f32 elements but the "
            "air.channel.put at sizes.mlir:6:5 sent 16 f32 elements");
  air_status_free(st);

  /* An argument that does not match the entry's parameter fails before starting. */
  args[1] = test_mref(b, AIR_ELEM_I32, 1, (int64_t)8);
  st = run(f, p, "sizes", args, 2, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Prepared programs and the inline path                                     */
/*---------------------------------------------------------------------------*/

typedef struct inl_t {
  bool called;
  air_status_t status;
} inl_t;

static void inl_done(void* user, air_status_t st) {
  inl_t* x = user;
  x->called = true;
  x->status = st;
}

/* Runs @fn with `prep`; inline when asked and possible: then `done` has been
 * called by the time air_interp_start returns. */
static air_status_t run_prep(fx_t* f, const air_program_t* p, const air_interp_prep_t* prep,
                             const char* fn, air_arg_t* args, uint32_t n, bool inl,
                             air_interp_inline_t* kind) {
  air_interp_desc_t d = test_exec_desc(f, p, test_find_func(p, fn), args, n);
  d.prep = prep;
  d.run_inline = inl;
  *kind = air_interp_inline_kind(&d);
  if (!inl) return air_interp_run(&d);
  inl_t x = {0};
  air_status_t st = air_interp_start(&d, inl_done, &x);
  if (st) {
    assert_false(x.called); /* as on the pool path: nothing started */
    return st;
  }
  assert_true(x.called);
  return x.status;
}

static const char k_pure[] =
    "func.func @flat(%a: memref<4xf32>, %i: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %x = memref.load %a[%c0] : memref<4xf32>\n"
    "  %y = arith.addf %x, %x : f32\n"
    "  memref.store %y, %a[%i] : memref<4xf32>\n"
    "  return\n"
    "}\n"
    "func.func @loop(%a: memref<4xf32>, %i: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  scf.for %k = %c0 to %i step %c1 {\n"
    "    %x = memref.load %a[%k] : memref<4xf32>\n"
    "    %y = arith.addf %x, %x : f32\n"
    "    memref.store %y, %a[%k] : memref<4xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

/* The same entries give the same data and the same errors with and without a
 * prep, and inline or on the pool; which entries may run inline. */
static void test_prepared_and_inline(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_text(f->ctx, "pure.mlir", k_pure);
  air_allocator_t sys;
  air_allocator_init_system(&sys);
  air_interp_prep_t* prep = NULL;
  test_check(air_interp_prepare(&sys, p, &prep));
  char* first_error = NULL;
  for (int mode = 0; mode < 3; ++mode) { /* plain, prep on the pool, prep inline */
    const air_interp_prep_t* pr = mode ? prep : NULL;
    bool inl = mode == 2;
    air_interp_inline_t kind;
    float a[4] = {1.5f, 0, 3, -1};
    air_arg_t args[2] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)4), {.kind = AIR_ARG_INT, .i = 2}};
    test_check(run_prep(f, p, pr, "flat", args, 2, inl, &kind));
    assert_int_equal(kind, mode ? AIR_INTERP_INLINE_SHORT : AIR_INTERP_INLINE_NO);
    assert_true(a[2] == 3.0f && a[1] == 0 && a[3] == -1);
    test_check(run_prep(f, p, pr, "loop", args, 2, inl, &kind));
    assert_int_equal(kind, mode ? AIR_INTERP_INLINE_YES : AIR_INTERP_INLINE_NO);
    assert_true(a[0] == 3.0f && a[1] == 0 && a[2] == 3.0f);
    /* A store out of range fails the run with the same message everywhere. */
    args[1].i = 9;
    air_status_t st = run_prep(f, p, pr, "flat", args, 2, inl, &kind);
    assert_non_null(st);
    if (!first_error) {
      first_error = strdup(air_status_message(st));
    } else {
      assert_string_equal(air_status_message(st), first_error);
    }
    air_status_free(st);
    /* A bad argument fails before starting, without `done`. */
    args[0] = test_mref(a, AIR_ELEM_I32, 1, (int64_t)4);
    st = run_prep(f, p, pr, "flat", args, 2, inl, &kind);
    assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
    air_status_free(st);
  }
  free(first_error);
  /* A prep is for one program only. */
  air_program_t* q = test_load_text(f->ctx, "other.mlir", k_pure);
  air_interp_inline_t kind;
  float a[4] = {0};
  air_arg_t args[2] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)4), {.kind = AIR_ARG_INT, .i = 1}};
  air_status_t st = run_prep(f, q, prep, "flat", args, 2, true, &kind);
  assert_int_equal(kind, AIR_INTERP_INLINE_NO);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  air_program_destroy(q);
  air_interp_prep_release(prep);
  air_program_destroy(p);
}

/* Runs of a prep reuse finished runs' state; two threads at once (TSan). */
typedef struct prep_thread_t {
  fx_t* f;
  const air_program_t* p;
  const air_interp_prep_t* prep;
  int bad;
} prep_thread_t;

static void* prep_thread(void* arg) {
  prep_thread_t* t = arg;
  enum { N = 4096 };
  float* a = malloc(3 * N * sizeof(float));
  float *b = a + N, *c = b + N;
  for (int iter = 0; iter < 12; ++iter) {
    for (int i = 0; i < N; ++i) {
      a[i] = (float)(i + iter);
      b[i] = (float)(2 * i);
      c[i] = -1;
    }
    air_arg_t args[3] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)N), test_mref(b, AIR_ELEM_F32, 1, (int64_t)N),
                         test_mref(c, AIR_ELEM_F32, 1, (int64_t)N)};
    air_interp_desc_t d = test_exec_desc(t->f, t->p, test_find_func(t->p, "vector_add"), args, 3);
    d.prep = t->prep;
    d.run_inline = true;
    /* A hierarchy runs inline only flat, its herd compiled (flat.c): then two
     * threads share the prep's cache and statistics too. */
    air_interp_inline_t want = d.code ? AIR_INTERP_INLINE_YES : AIR_INTERP_INLINE_NO;
    if (air_interp_inline_kind(&d) != want) t->bad = 1;
    air_status_t st = air_interp_run(&d);
    if (st) {
      t->bad = 1;
      air_status_free(st);
    }
    for (int i = 0; i < N; ++i)
      if (c[i] != a[i] + b[i]) t->bad = 1;
  }
  free(a);
  return NULL;
}

static void test_prepared_concurrent(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir");
  air_allocator_t sys;
  air_allocator_init_system(&sys);
  air_interp_prep_t* prep = NULL;
  test_check(air_interp_prepare(&sys, p, &prep));
  prep_thread_t t[2] = {{f, p, prep, 0}, {f, p, prep, 0}};
  test_threads_run(2, prep_thread, t, sizeof t[0]);
  assert_int_equal(t[0].bad, 0);
  assert_int_equal(t[1].bad, 0);
  air_interp_prep_release(prep);
  air_program_destroy(p);
}

/* Contiguous runs take the copy's shortcut: whole views, one-dimension ranges,
 * single strided elements and overlapping ranges within one buffer. */
static void test_flat_copies(void** state) {
  (void)state;
  float buf[64], ref[64];
  for (int i = 0; i < 64; ++i) buf[i] = ref[i] = (float)i;
  air_memref_t v;
  memset(&v, 0, sizeof v);
  v.data = buf;
  v.elem = AIR_ELEM_F32;
  v.rank = 1;
  v.sizes[0] = 64;
  v.strides[0] = 1;
  ix_pat_t d, s;
  /* buf[8..24) <- buf[4..20): overlapping, forwards. */
  int64_t o1 = 8, o2 = 4, n = 16, one = 1;
  assert_null(ix_pat_make(&v, 4, 1, &o1, 1, &n, &one, &d));
  assert_null(ix_pat_make(&v, 4, 1, &o2, 1, &n, &one, &s));
  ix_pat_copy(&d, &s);
  memmove(ref + 8, ref + 4, 16 * sizeof(float));
  assert_memory_equal(buf, ref, sizeof buf);
  /* One element through a non-unit stride. */
  int64_t o3 = 60, st = 7;
  assert_null(ix_pat_make(&v, 4, 1, &o3, 1, &one, &st, &s));
  assert_null(ix_pat_make(&v, 4, 1, &o2, 1, &one, &one, &d));
  ix_pat_copy(&d, &s);
  ref[4] = ref[60];
  assert_memory_equal(buf, ref, sizeof buf);
  /* Whole view into a range of another view; a count mismatch copies nothing. */
  float small[16];
  air_memref_t w = v;
  w.data = small;
  w.sizes[0] = 16;
  for (int i = 0; i < 16; ++i) small[i] = 100.0f + (float)i;
  assert_null(ix_pat_make(&w, 4, 0, NULL, 0, NULL, NULL, &s));
  assert_null(ix_pat_make(&v, 4, 1, &o1, 1, &n, &one, &d));
  ix_pat_copy(&d, &s);
  memcpy(ref + 8, small, sizeof small);
  assert_memory_equal(buf, ref, sizeof buf);
  int64_t n2 = 15;
  assert_null(ix_pat_make(&v, 4, 1, &o1, 1, &n2, &one, &d));
  ix_pat_copy(&d, &s);
  assert_memory_equal(buf, ref, sizeof buf);
  /* The whole-view form still rejects an empty or dataless view. */
  w.sizes[0] = -1;
  assert_string_equal(ix_pat_make(&w, 4, 0, NULL, 0, NULL, NULL, &s), "the memref is empty");
  w.sizes[0] = 16;
  w.data = NULL;
  assert_string_equal(ix_pat_make(&w, 4, 0, NULL, 0, NULL, NULL, &s), "the memref has no data");
  w.data = small;
  w.strides[0] = INT64_MAX / 4;
  assert_string_equal(ix_pat_make(&w, 4, 0, NULL, 0, NULL, NULL, &s),
                      "the access pattern overflows");
  w.strides[0] = 1;

  /* ix_copy_flat: a 1-d range, a dense 2-d box (rows of a 2-d view taken whole)
   * and a whole dense 2-d view move; a strided box, a range past the end, an
   * element type mismatch or a count mismatch move nothing. */
  ix_lists_t whole = {0, 0, NULL, NULL, NULL};
  int64_t o8 = 8, n16 = 16;
  ix_lists_t range = {1, 1, &o8, &n16, &one};
  for (int i = 0; i < 16; ++i) small[i] = 200.0f + (float)i;
  assert_true(ix_copy_flat(&v, &range, &w, &whole, 4));
  memcpy(ref + 8, small, sizeof small);
  assert_memory_equal(buf, ref, sizeof buf);
  air_memref_t g = v; /* buf as 8 x 8 */
  g.rank = 2, g.sizes[0] = g.sizes[1] = 8, g.strides[0] = 8, g.strides[1] = 1;
  int64_t bo[2] = {2, 0}, bs[2] = {2, 8}, bt[2] = {8, 1};
  ix_lists_t box = {2, 2, bo, bs, bt};
  assert_true(ix_copy_flat(&w, &whole, &g, &box, 4)); /* small <- rows 2..3 */
  assert_memory_equal(small, ref + 16, sizeof small);
  air_memref_t h = g; /* buf as 4 x 16 (dense: the whole view is one run) */
  h.sizes[0] = 4, h.sizes[1] = 16, h.strides[0] = 16;
  float big[64];
  air_memref_t bv = v;
  bv.data = big;
  assert_true(ix_copy_flat(&bv, &whole, &h, &whole, 4));
  assert_memory_equal(big, ref, sizeof big);
  int64_t ss[2] = {2, 4}, sst[2] = {8, 2}; /* 2 x 4 every other element */
  ix_lists_t strided = {2, 2, bo, ss, sst};
  w.sizes[0] = 8;
  assert_false(ix_copy_flat(&w, &whole, &g, &strided, 4));
  int64_t o50 = 50;
  ix_lists_t past = {1, 1, &o50, &n16, &one};
  w.sizes[0] = 16;
  assert_false(ix_copy_flat(&v, &past, &w, &whole, 4));
  air_memref_t wi = w;
  wi.elem = AIR_ELEM_I32;
  assert_false(ix_copy_flat(&v, &range, &wi, &whole, 4));
  w.sizes[0] = 15;
  assert_false(ix_copy_flat(&v, &range, &w, &whole, 4));
  assert_memory_equal(buf, ref, sizeof buf); /* none of those wrote */
}

/* With a trace attached, PEs, channels and DMAs get events. */
static void test_trace(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/chain.mlir");
  air_trace_t* t = NULL;
  test_check(air_trace_create(f->ctx, &t));
  int32_t in[8][32] = {{0}}, out[8][32];
  air_arg_t args[2] = {test_mref(in, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32),
                       test_mref(out, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32)};
  air_interp_desc_t d = test_exec_desc(f, p, test_find_func(p, "chain"), args, 2);
  d.trace = t;
  test_check(air_interp_run(&d));
  /* 8 rounds: 16 PEs get and put, plus the segment's 16 transfers. */
  assert_true(air_trace_event_count(t) >= 8 * 16 * 2 + 16);
  air_trace_destroy(t);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_corpus, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_scalars_and_calls, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_affine_access_and_reshape, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_runtime_errors, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_trace, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_prepared_and_inline, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_prepared_concurrent, test_exec_setup, test_exec_teardown),
      cmocka_unit_test(test_flat_copies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

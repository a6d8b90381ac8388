/* The CPU executor (src/hal/cpu/interp/): programs parsed, verified and run on
 * the worker pool, their data checked against C references — samples, channels,
 * compute and token lists. The program corpus, run-time errors, prepared and
 * inline runs, copies and traces are test_interp_programs.c; the fixture they
 * share is interp_test.h. Access patterns are test_interp_patterns.c, the
 * watchdog test_watchdog.c. */
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
#include "hal/cpu/interp/sync.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "runtime/base/bf16.h"
#include "runtime/ir/ir.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "support/threads.h"

#include "interp_test.h"

/*---------------------------------------------------------------------------*/
/* Samples                                                                   */
/*---------------------------------------------------------------------------*/

static void test_vector_add_dma(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir");
  enum { N = 4096 };
  float* a = malloc(N * sizeof(float));
  float* b = malloc(N * sizeof(float));
  float* c = malloc(N * sizeof(float));
  uint32_t seed = 1;
  for (int i = 0; i < N; ++i) {
    a[i] = frand(&seed);
    b[i] = frand(&seed);
    c[i] = -1;
  }
  air_arg_t args[3] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)N),
                       test_mref(b, AIR_ELEM_F32, 1, (int64_t)N),
                       test_mref(c, AIR_ELEM_F32, 1, (int64_t)N)};
  test_check(run(f, p, "vector_add", args, 3, NULL));
  for (int i = 0; i < N; ++i) assert_true(c[i] == a[i] + b[i]);
  free(a);
  free(b);
  free(c);
  air_program_destroy(p);
}

/* C[512x512] = A * B through L3 -> L2 -> L1 channels on 16 segments of 4x4 herds. */
static void test_matmul_sample(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_SOURCE_DIR "/samples/matmul_4x4.mlir");
  enum { N = 512 };
  float* a = malloc(N * N * sizeof(float));
  float* b = malloc(N * N * sizeof(float));
  float* c = malloc(N * N * sizeof(float));
  float* ref = calloc(N * N, sizeof(float));
  uint32_t seed = 7;
  for (int i = 0; i < N * N; ++i) {
    a[i] = frand(&seed);
    b[i] = frand(&seed);
    c[i] = NAN;
  }
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j) ref[i * N + j] += a[i * N + k] * b[k * N + j];
  air_arg_t args[3] = {test_mref(a, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N),
                       test_mref(b, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N),
                       test_mref(c, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N)};
  int64_t t0 = air_time_now_ns();
  test_check(run(f, p, "matmul_512", args, 3, NULL));
  fprintf(stderr, "  matmul_4x4.mlir 512^3 f32 on 2 threads: %.1f ms\n",
          (double)(air_time_now_ns() - t0) / 1e6);
  double worst = 0;
  for (int i = 0; i < N * N; ++i) {
    double d = fabs((double)c[i] - (double)ref[i]);
    if (!(d <= worst)) worst = d;
  }
  assert_true(worst < 1e-3);
  free(a);
  free(b);
  free(c);
  free(ref);
  air_program_destroy(p);
}

/* A matmul long enough to run as several row panels (linalg.c: ~2^22
 * multiply-adds each, 64-row blocks with the library, 16 rows with the loops
 * here): every entry must still be the fmaf chain over k in order, bit for bit,
 * on both paths (the panels' edges are not visible in the result). */
static void test_matmul_panels(void** state) {
  fx_t* f = *state;
  enum { M = 100, K = 512, N = 512 };
  air_program_t* p = test_load_text(
      f->ctx, "panels.mlir",
      "func.func @mm(%a: memref<100x512xf32>, %b: memref<512x512xf32>, %c: memref<100x512xf32>) {\n"
      "  linalg.matmul ins(%a, %b : memref<100x512xf32>, memref<512x512xf32>) "
      "outs(%c : memref<100x512xf32>)\n"
      "  return\n"
      "}\n");
  float* a = malloc(M * K * sizeof(float));
  float* b = malloc(K * N * sizeof(float));
  float* c = malloc(M * N * sizeof(float));
  uint32_t seed = 11;
  for (int i = 0; i < M * K; ++i) a[i] = frand(&seed);
  for (int i = 0; i < K * N; ++i) b[i] = frand(&seed);
  for (int i = 0; i < M * N; ++i) c[i] = frand(&seed);
  float* want = malloc(M * N * sizeof(float));
  memcpy(want, c, M * N * sizeof(float));
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) want[i * N + j] = fmaf(a[i * K + k], b[k * N + j], want[i * N + j]);
  air_arg_t args[3] = {test_mref(a, AIR_ELEM_F32, 2, (int64_t)M, (int64_t)K),
                       test_mref(b, AIR_ELEM_F32, 2, (int64_t)K, (int64_t)N),
                       test_mref(c, AIR_ELEM_F32, 2, (int64_t)M, (int64_t)N)};
  test_check(run(f, p, "mm", args, 3, NULL));
  assert_memory_equal(c, want, M * N * sizeof(float));
  free(a);
  free(b);
  free(c);
  free(want);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Channels                                                                  */
/*---------------------------------------------------------------------------*/

typedef struct ahead_t {
  _Atomic int64_t puts;
  int64_t depth, n;
  int64_t seen[8];
} ahead_t;

static air_status_t k_mark_put(void* ud, const air_kernel_call_t* c) {
  ahead_t* a = ud;
  atomic_store(&a->puts, c->args[0].i + 1);
  return NULL;
}

/* The slow consumer: waits until the producer can be `depth` ahead, then a bit
 * longer (time for an over-eager producer to overrun), and records the lead. */
static air_status_t k_check_ahead(void* ud, const air_kernel_call_t* c) {
  ahead_t* a = ud;
  int64_t i = c->args[0].i;
  int64_t want = i + a->depth < a->n ? i + a->depth : a->n;
  int64_t deadline = air_time_now_ns() + 5000000000LL;
  while (atomic_load(&a->puts) < want && air_time_now_ns() < deadline) test_sleep_us(50);
  test_sleep_us(3000);
  a->seen[i] = atomic_load(&a->puts) - i;
  return NULL;
}

/* A producer runs exactly `depth` transfers ahead of a slow consumer. */
static void test_depth_run_ahead(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/depth.mlir");
  for (int64_t depth = 1; depth <= 3; ++depth) {
    ahead_t a;
    memset(&a, 0, sizeof a);
    a.depth = depth;
    a.n = 8;
    test_check(air_context_register_kernel(f->ctx, "mark_put", k_mark_put, &a));
    test_check(air_context_register_kernel(f->ctx, "check_ahead", k_check_ahead, &a));
    int32_t out[8];
    memset(out, -1, sizeof out);
    air_arg_t arg = test_mref(out, AIR_ELEM_I32, 1, (int64_t)8);
    char fn[16];
    snprintf(fn, sizeof fn, "ahead_%d", (int)depth);
    test_check(run(f, p, fn, &arg, 1, NULL));
    for (int64_t i = 0; i < 8; ++i) {
      int64_t want = depth < 8 - i ? depth : 8 - i;
      if (a.seen[i] != want)
        fprintf(stderr, "depth %lld: before get %lld the producer was %lld ahead, want %lld\n",
                (long long)depth, (long long)i, (long long)a.seen[i], (long long)want);
      assert_int_equal(a.seen[i], want);
      assert_int_equal(out[i], i);
    }
  }
  air_program_destroy(p);
}

/* Every receiver of a broadcast gets its own copy of every transfer. */
static void test_broadcast(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/broadcast.mlir");
  int32_t in[3][16], rin[3][2][16], out[3][2][2][16];
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 16; ++j) {
      in[r][j] = r * 10000 + j;
      rin[r][0][j] = 20000 + r * 100 + j;
      rin[r][1][j] = 50000 + r * 100 + j;
    }
  memset(out, 0, sizeof out);
  air_arg_t args[3] = {test_mref(in, AIR_ELEM_I32, 2, (int64_t)3, (int64_t)16),
                       test_mref(rin, AIR_ELEM_I32, 3, (int64_t)3, (int64_t)2, (int64_t)16),
                       test_mref(out, AIR_ELEM_I32, 4, (int64_t)3, (int64_t)2, (int64_t)2,
                            (int64_t)16)};
  test_check(run(f, p, "bcast", args, 3, NULL));
  for (int r = 0; r < 3; ++r)
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y)
        for (int j = 0; j < 16; ++j)
          assert_int_equal(out[r][x][y][j], in[r][j] + rin[r][x][j] + 1000 * x + 100 * y);
  air_program_destroy(p);
}

/* 16 PEs chained by blocking channels, on one and on two worker threads. */
static void test_chain_herd_threads(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/chain.mlir");
  for (uint32_t threads = 1; threads <= 2; ++threads) {
    air_pool_t* pool = NULL;
    test_check(air_pool_create(NULL, threads, &pool));
    int32_t in[8][32], out[8][32];
    for (int r = 0; r < 8; ++r)
      for (int j = 0; j < 32; ++j) in[r][j] = r * 1000 + j;
    memset(out, 0, sizeof out);
    air_arg_t args[2] = {test_mref(in, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32),
                         test_mref(out, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32)};
    runopt_t o = {.pool = pool};
    test_check(run(f, p, "chain", args, 2, &o));
    for (int r = 0; r < 8; ++r)
      for (int j = 0; j < 32; ++j) assert_int_equal(out[r][j], in[r][j] + 136);
    air_pool_destroy(pool);
  }
  air_program_destroy(p);
}

/* 4096 unordered async puts and gets on one index: issue order pairs them, and
 * the parked backlog costs linear time (ticket-ordered wait lists). */
static void test_backlog(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/backlog.mlir");
  static int32_t out[4096];
  memset(out, -1, sizeof out);
  air_arg_t args[2];
  memset(args, 0, sizeof args);
  args[0].kind = AIR_ARG_INT;
  args[0].elem = AIR_ELEM_INDEX;
  args[0].i = 4096;
  args[1] = test_mref(out, AIR_ELEM_I32, 1, (int64_t)4096);
  int64_t t0 = air_time_now_ns();
  test_check(run(f, p, "backlog", args, 2, NULL));
  fprintf(stderr, "  4096 unordered transfers: %.1f ms\n", (double)(air_time_now_ns() - t0) / 1e6);
  for (int i = 0; i < 4096; ++i) assert_int_equal(out[i], i);
  air_program_destroy(p);
}

/* A run that cannot progress fails at once, naming every blocked op. */
static void test_deadlock_report(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/deadlock.mlir");
  const air_op_t* put = test_find_op(p->module, AIR_OP_PUT, NULL);
  const air_op_t* get = test_find_op(p->module, AIR_OP_GET, NULL);
  const air_op_t* wait = test_find_op(p->module, AIR_OP_WAIT_ALL, NULL);
  const air_op_t* launch = test_find_op(p->module, AIR_OP_LAUNCH, NULL);
  const char* file = p->filename;
  int32_t out[4];
  air_arg_t args[2];
  memset(args, 0, sizeof args);
  args[0].kind = AIR_ARG_INT;
  args[0].elem = AIR_ELEM_INDEX;
  args[1] = test_mref(out, AIR_ELEM_I32, 1, (int64_t)4);

  args[0].i = 3;
  air_status_t st = run(f, p, "starve", args, 2, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  const char* msg = air_status_message(st);
  test_expect_in(msg, "%s:%u:%u: air.channel.get @ch[0] blocked: no put (herd @cons [0])", file,
            get->line, get->col);
  test_expect_in(msg, "%s:%u:%u: air.wait_all blocked on %%t (air.launch at %s:%u:%u has not finished)",
            file, wait->line, wait->col, file, launch->line, launch->col);
  assert_null(strstr(msg, "air.channel.put"));
  air_status_free(st);

  args[0].i = 6;
  st = run(f, p, "starve", args, 2, NULL);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  msg = air_status_message(st);
  test_expect_in(msg,
            "%s:%u:%u: air.channel.put @ch[0] blocked: channel full (depth 1), no get pending",
            file, put->line, put->col);
  assert_null(strstr(msg, "air.channel.get"));
  air_status_free(st);

  /* The same pool and context run the balanced case. */
  args[0].i = 4;
  memset(out, -1, sizeof out);
  test_check(run(f, p, "starve", args, 2, NULL));
  for (int i = 0; i < 4; ++i) assert_int_equal(out[i], i);
  air_program_destroy(p);
}

typedef struct work_t {
  _Atomic int calls;
} work_t;

static air_status_t k_work(void* ud, const air_kernel_call_t* c) {
  work_t* w = ud;
  atomic_fetch_add(&w->calls, 1);
  const air_memref_t* m = &c->args[0].memref;
  float* data = (float*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) data[i] = (float)(c->tile[0] * 10 + c->tile[1]);
  if (c->tile[0] == 1 && c->tile[1] == 1)
    return air_status_make(NULL, AIR_STATUS_DATA_LOSS, __FILE__, __LINE__, "tile (1, 1) broke");
  return NULL;
}

static void start(fx_t* f, const air_program_t* p, const char* fn, air_arg_t* args, uint32_t n,
                  test_done_t* d) {
  test_done_init(d);
  air_interp_desc_t desc = test_exec_desc(f, p, test_find_func(p, fn), args, n);
  test_check(air_interp_start(&desc, test_done_fn, d));
}

/* A kernel's failure ends the run with its status, prefixed with the call's
 * location; parked work is torn down; a run next to it, and the next run, are
 * unaffected. */
static void test_kernel_failure(void** state) {
  fx_t* f = *state;
  air_program_t* bad = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/fault.mlir");
  air_program_t* good = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/chain.mlir");
  work_t w = {0};
  test_check(air_context_register_kernel(f->ctx, "work", k_work, &w));
  const air_op_t* call = test_find_op(bad->module, AIR_OP_CALL, "work");
  for (int round = 0; round < 3; ++round) {
    float out[2][2][16];
    air_arg_t a = test_mref(out, AIR_ELEM_F32, 3, (int64_t)2, (int64_t)2, (int64_t)16);
    int32_t in[8][32], res[8][32];
    memset(in, 0, sizeof in);
    air_arg_t ga[2] = {test_mref(in, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32),
                       test_mref(res, AIR_ELEM_I32, 2, (int64_t)8, (int64_t)32)};
    test_done_t d1, d2;
    start(f, bad, "faulty", &a, 1, &d1);
    start(f, good, "chain", ga, 2, &d2);
    test_done_wait(&d1);
    test_done_wait(&d2);
    assert_int_equal(d1.calls, 1);
    assert_int_equal(air_status_code(d1.st), AIR_STATUS_DATA_LOSS);
    test_expect_in(air_status_message(d1.st),
              "%s:%u:%u: error: func.call @work failed: tile (1, 1) broke", bad->filename,
              call->line, call->col);
    air_status_free(d1.st);
    assert_int_equal(d2.calls, 1);
    test_check(d2.st);
    assert_int_equal(res[7][31], 136);
  }
  assert_true(atomic_load(&w.calls) >= 3);
  air_program_destroy(bad);
  air_program_destroy(good);
}

/*---------------------------------------------------------------------------*/
/* Compute                                                                   */
/*---------------------------------------------------------------------------*/

/* bf16 inputs, f32 accumulation: equal to an exact reference within f32
 * rounding (bf16 products are exact in f32). */
static void test_bf16_matmul(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/bf16_matmul.mlir");
  enum { N = 64 };
  uint16_t a[N * N], b[N * N];
  float c[N * N];
  uint32_t seed = 3;
  for (int i = 0; i < N * N; ++i) {
    a[i] = air_bf16_from_f32(frand(&seed) * 4);
    b[i] = air_bf16_from_f32(frand(&seed) * 4);
    c[i] = NAN;
  }
  air_arg_t args[3] = {test_mref(a, AIR_ELEM_BF16, 2, (int64_t)N, (int64_t)N),
                       test_mref(b, AIR_ELEM_BF16, 2, (int64_t)N, (int64_t)N),
                       test_mref(c, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N)};
  test_check(run(f, p, "bf16_matmul", args, 3, NULL));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < N; ++k) {
        double t = (double)air_bf16_to_f32(a[i * N + k]) * air_bf16_to_f32(b[k * N + j]);
        ref += t;
        mag += fabs(t);
      }
      assert_true(fabs(c[i * N + j] - ref) <= 1e-6 * mag + 1e-6);
    }
  air_program_destroy(p);
}

/* The corpus program: linalg.generic with bf16 products extended to an f32
 * accumulator, plus a bias, emulated step by step in f32. */
static void test_generic_bf16(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/programs/linalg_generic_bf16.mlir");
  enum { N = 64 };
  uint16_t a[N * N], b[N * N];
  float bias[N * N], out[N * N];
  uint32_t seed = 11;
  for (int i = 0; i < N * N; ++i) {
    a[i] = air_bf16_from_f32(frand(&seed));
    b[i] = air_bf16_from_f32(frand(&seed));
    bias[i] = frand(&seed);
    out[i] = NAN;
  }
  air_arg_t args[4] = {test_mref(a, AIR_ELEM_BF16, 2, (int64_t)N, (int64_t)N),
                       test_mref(b, AIR_ELEM_BF16, 2, (int64_t)N, (int64_t)N),
                       test_mref(bias, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N),
                       test_mref(out, AIR_ELEM_F32, 2, (int64_t)N, (int64_t)N)};
  test_check(run(f, p, "gemm_bias_bf16", args, 4, NULL));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < N; ++k) {
        float prod = air_bf16_to_f32(air_bf16_from_f32(air_bf16_to_f32(a[i * N + k]) * air_bf16_to_f32(b[k * N + j])));
        acc = acc + prod;
      }
      float want = bias[i * N + j] + acc;
      assert_true(out[i * N + j] == want);
    }
  air_program_destroy(p);
}

typedef struct flag_t {
  _Atomic int set, checked, early;
} flag_t;

static air_status_t k_set_flag(void* ud, const air_kernel_call_t* c) {
  (void)c;
  test_sleep_us(20000);
  atomic_store(&((flag_t*)ud)->set, 1);
  return NULL;
}

static air_status_t k_check_flag(void* ud, const air_kernel_call_t* c) {
  (void)c;
  flag_t* fl = ud;
  if (!atomic_load(&fl->set)) atomic_fetch_add(&fl->early, 1);
  atomic_fetch_add(&fl->checked, 1);
  return NULL;
}

static void test_parallel_reduce(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/reduce.mlir");
  float in[64], sum = 0, out = NAN;
  int64_t iout = 0;
  uint32_t seed = 5;
  for (int i = 0; i < 64; ++i) {
    in[i] = frand(&seed);
    sum = sum + in[i];
  }
  air_arg_t args[3] = {test_mref(in, AIR_ELEM_F32, 1, (int64_t)64),
                       test_mref(&out, AIR_ELEM_F32, 1, (int64_t)1),
                       test_mref(&iout, AIR_ELEM_INDEX, 1, (int64_t)1)};
  test_check(run(f, p, "reduce", args, 3, NULL));
  assert_true(out == sum);
  assert_int_equal(iout, 28); /* i * (j - 3) is largest at i = j = 7 */

  /* Init tokens hold every instance back. */
  flag_t fl;
  memset(&fl, 0, sizeof fl);
  test_check(air_context_register_kernel(f->ctx, "set_flag", k_set_flag, &fl));
  test_check(air_context_register_kernel(f->ctx, "check_flag", k_check_flag, &fl));
  test_check(run(f, p, "init_wait", NULL, 0, NULL));
  assert_int_equal(atomic_load(&fl.checked), 4);
  assert_int_equal(atomic_load(&fl.early), 0);

  /* Token init/reduce: fan out to a 2x2 herd and back (corpus). */
  air_program_t* q = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/programs/parallel_reduce_tokens.mlir");
  float x[32 * 32], y[32 * 32];
  for (int i = 0; i < 32 * 32; ++i) {
    x[i] = frand(&seed);
    y[i] = NAN;
  }
  air_arg_t qa[2] = {test_mref(x, AIR_ELEM_F32, 2, (int64_t)32, (int64_t)32),
                     test_mref(y, AIR_ELEM_F32, 2, (int64_t)32, (int64_t)32)};
  test_check(run(f, q, "scale", qa, 2, NULL));
  for (int i = 0; i < 32 * 32; ++i) assert_true(y[i] == 2 * x[i]);
  air_program_destroy(q);
  air_program_destroy(p);
}

/* air.execute results (several, bound as %r:3) feed later executes and a fill. */
static void test_execute_results(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/programs/execute_results.mlir");
  int32_t out[2][64];
  memset(out, -1, sizeof out);
  air_arg_t a = test_mref(out, AIR_ELEM_I32, 2, (int64_t)2, (int64_t)64);
  test_check(run(f, p, "fill_rows", &a, 1, NULL));
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 64; ++j) assert_int_equal(out[r][j], r * 10);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Token lists                                                               */
/*---------------------------------------------------------------------------*/

typedef struct busy_t {
  _Atomic int inside, most, calls;
} busy_t;

static air_status_t k_busy(void* ud, const air_kernel_call_t* c) {
  busy_t* b = ud;
  int n = atomic_fetch_add(&b->inside, 1) + 1;
  int m = atomic_load(&b->most);
  while (n > m && !atomic_compare_exchange_weak(&b->most, &m, n)) {
  }
  test_sleep_us(30000);
  atomic_fetch_sub(&b->inside, 1);
  atomic_fetch_add(&b->calls, 1);
  return NULL;
}

/* Ops sharing an affinity token never overlap; without it they do. */
static void test_affinity_serialises(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/affinity.mlir");
  busy_t b;
  memset(&b, 0, sizeof b);
  test_check(air_context_register_kernel(f->ctx, "busy", k_busy, &b));
  test_check(run(f, p, "apart", NULL, 0, NULL));
  assert_int_equal(atomic_load(&b.calls), 2);
  assert_int_equal(atomic_load(&b.most), 1);
  memset(&b, 0, sizeof b);
  test_check(run(f, p, "together", NULL, 0, NULL));
  assert_int_equal(atomic_load(&b.calls), 2);
  assert_int_equal(atomic_load(&b.most), 2);
  air_program_destroy(p);
}

/* Herds that need each other complete: concurrency partners are co-resident,
 * even with a single worker thread. */
static void test_concurrency_coresident(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->ctx, AIR_TEST_DATA_DIR "/interp/exchange.mlir");
  for (uint32_t threads = 1; threads <= 2; ++threads) {
    air_pool_t* pool = NULL;
    test_check(air_pool_create(NULL, threads, &pool));
    int32_t out[8];
    memset(out, 0, sizeof out);
    air_arg_t a = test_mref(out, AIR_ELEM_I32, 1, (int64_t)8);
    runopt_t o = {.pool = pool};
    test_check(run(f, p, "exchange", &a, 1, &o));
    for (int i = 0; i < 8; ++i) assert_int_equal(out[i], 2 * i + 1);
    air_pool_destroy(pool);
  }
  air_program_destroy(p);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_vector_add_dma, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_matmul_sample, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_matmul_panels, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_depth_run_ahead, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_broadcast, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_chain_herd_threads, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_backlog, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_deadlock_report, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_kernel_failure, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_bf16_matmul, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_generic_bf16, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_parallel_reduce, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_execute_results, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_affinity_serialises, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_concurrency_coresident, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

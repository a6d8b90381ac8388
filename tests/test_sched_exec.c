/* Running from a compiled schedule (src/hal/cpu/interp/waves.c, plan.c):
 * every sample and test program gives byte-identical results on the schedule path
 * and on the dynamic path; host-level L3 allocs live in the transient arena, which
 * the caller may supply; deadlocks, kernel failures, the watchdog and traces work
 * from the schedule; the HAL compiles a schedule per entry, loads .airbin
 * artifacts and reports the transient size. */
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
#include <unistd.h>

#include <cmocka.h>

#include "air/air.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "runtime/ir/ir.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"
#include "runtime/target/target.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "support/threads.h"

/*---------------------------------------------------------------------------*/
/* Fixture and helpers                                                       */
/*---------------------------------------------------------------------------*/

typedef struct fx_t {
  test_exec_t x; /* the context and pool */
  const air_target_t* cpu;
} fx_t;

/* Fails on tile (1, 1), as tests/data/interp/fault.mlir expects. */
static air_status_t k_work(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  if (c->tile[0] == 1 && c->tile[1] == 1)
    return air_status_make(NULL, AIR_STATUS_DATA_LOSS, __FILE__, __LINE__, "tile (1, 1) broke");
  return NULL;
}

static _Atomic int g_slow_done;
static air_status_t k_slow(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  (void)c;
  test_sleep_us(400000);
  atomic_store(&g_slow_done, 1);
  return NULL;
}

static int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  if (!f || test_exec_open(&f->x)) return -1;
  if (air_target_lookup(air_context_allocator(f->x.ctx), "cpu", &f->cpu)) return -1;
  static const struct {
    const char* name;
    air_kernel_fn_t fn;
  } k[] = {{"scale.o", test_k_scale_i16}, {"kernel.o", test_k_add_one_f32},
           {"external_kernel", test_k_nothing}, {"busy", test_k_nothing},
           {"mark_put", test_k_nothing},        {"check_ahead", test_k_nothing},
           {"set_flag", test_k_nothing},        {"check_flag", test_k_nothing},
           {"work", k_work},                    {"slow", k_slow}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
    if (air_context_register_kernel(f->x.ctx, k[i].name, k[i].fn, NULL)) return -1;
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fx_t* f = *state;
  test_exec_close(&f->x);
  free(f);
  return 0;
}

/* Arguments for an entry: memrefs filled with a pattern (the same for every
 * call), scalars from `scalars` or 1. */
typedef struct args_t {
  uint32_t n;
  air_arg_t a[8];
  void* buf[8];
  size_t bytes[8];
} args_t;

static void args_make(const air_program_t* p, const air_op_t* fn, const int64_t* scalars,
                      args_t* out) {
  memset(out, 0, sizeof *out);
  out->n = fn->iaux[0];
  assert_true(out->n <= 8);
  for (uint32_t i = 0; i < out->n; ++i) {
    const air_type_info_t* ty = air_ir_type(p, fn->types[i]);
    air_arg_t* a = &out->a[i];
    a->elem = ty->elem;
    if (ty->kind != AIR_TYPE_MEMREF) {
      a->kind = air_elem_is_float(ty->elem) ? AIR_ARG_FLOAT : AIR_ARG_INT;
      a->i = scalars && scalars[i] ? scalars[i] : 1;
      a->f = 1.5;
      continue;
    }
    a->kind = AIR_ARG_MEMREF;
    a->memref.elem = ty->elem;
    a->memref.rank = ty->rank;
    int64_t count = 1;
    for (uint32_t k = ty->rank; k-- > 0;) {
      a->memref.sizes[k] = ty->shape[k];
      a->memref.strides[k] = count;
      count *= ty->shape[k];
    }
    uint32_t es = air_elem_size(ty->elem);
    out->bytes[i] = (size_t)count * es;
    out->buf[i] = malloc(out->bytes[i] ? out->bytes[i] : 1);
    for (int64_t e = 0; e < count; ++e) {
      char* q = (char*)out->buf[i] + e * es;
      int v = (int)((e * 7 + i * 13) % 23) - 11;
      switch (ty->elem) {
        case AIR_ELEM_F32: *(float*)q = (float)v * 0.25f; break;
        case AIR_ELEM_F16: case AIR_ELEM_BF16: *(uint16_t*)q = (uint16_t)(0x3c00 + (e % 64)); break;
        case AIR_ELEM_I8: *(int8_t*)q = (int8_t)v; break;
        case AIR_ELEM_I16: *(int16_t*)q = (int16_t)v; break;
        case AIR_ELEM_I32: *(int32_t*)q = v; break;
        default: memset(q, 0, es); break;
      }
    }
    a->memref.data = out->buf[i];
  }
}

static void args_free(args_t* a) {
  for (uint32_t i = 0; i < a->n; ++i) free(a->buf[i]);
}

typedef struct runopt_t {
  air_pool_t* pool;
  bool reference;  /* AIR_DISPATCH_INTERPRET, whatever the test's path */
  const air_schedule_t* schedule;
  const air_interp_plan_t* plan;
  void* transient;
  uint64_t transient_size;
  int64_t watchdog_ns;
  air_trace_t* trace;
} runopt_t;

static air_status_t run(fx_t* f, const air_program_t* p, const air_op_t* fn, args_t* a,
                        const runopt_t* o) {
  air_interp_desc_t d = test_exec_desc(&f->x, p, fn, a ? a->a : NULL, a ? a->n : 0);
  d.pool = o->pool ? o->pool : f->x.pool;
  d.watchdog_ns = o->watchdog_ns;
  d.trace = o->trace;
  d.plan = o->plan;
  d.schedule = o->schedule;
  d.transient = o->transient;
  d.transient_size = o->transient_size;
  if (o->reference) {
    d.interpret = true;
    d.code = NULL;
  }
  return air_interp_run(&d);
}

static air_schedule_t* compile(fx_t* f, const air_program_t* p, const char* entry) {
  air_schedule_t* sc = NULL;
  air_status_t st = air_schedule_compile(NULL, p, entry, f->cpu, &sc);
  if (st) fprintf(stderr, "compiling @%s: %s\n", entry, air_status_message(st));
  test_check(st);
  return sc;
}

static air_interp_plan_t* make_plan(const air_program_t* p, const air_schedule_t* sc) {
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  air_interp_plan_t* plan = NULL;
  test_check(air_interp_plan_build(&heap, p, sc, &plan));
  return plan;
}

/*---------------------------------------------------------------------------*/
/* Same results both ways                                                    */
/*---------------------------------------------------------------------------*/

/* Runs `entry` dynamically and from its schedule on identical inputs, on the
 * test's path (AIR_TEST_PATH), and once more from the schedule on the reference
 * path (interpreted, reference loops), and compares every memref argument byte
 * for byte. */
static void run_both(fx_t* f, const char* path, const char* entry, const int64_t* scalars,
                     uint32_t threads) {
  air_program_t* p = test_load_file(f->x.ctx, path);
  const air_op_t* fn = test_find_func(p, entry);
  assert_non_null(fn);
  air_schedule_t* sc = compile(f, p, entry);
  air_pool_t* pool = NULL;
  if (threads) test_check(air_pool_create(NULL, threads, &pool));
  args_t dyn, sch, ref;
  args_make(p, fn, scalars, &dyn);
  args_make(p, fn, scalars, &sch);
  args_make(p, fn, scalars, &ref);
  runopt_t od = {.pool = pool}, os = {.pool = pool, .schedule = sc},
           orf = {.pool = pool, .schedule = sc, .reference = true};
  air_status_t st = run(f, p, fn, &dyn, &od);
  if (st) fprintf(stderr, "%s @%s (dynamic): %s\n", path, entry, air_status_message(st));
  test_check(st);
  st = run(f, p, fn, &sch, &os);
  if (st) fprintf(stderr, "%s @%s (schedule): %s\n", path, entry, air_status_message(st));
  test_check(st);
  st = run(f, p, fn, &ref, &orf);
  if (st) fprintf(stderr, "%s @%s (reference): %s\n", path, entry, air_status_message(st));
  test_check(st);
  for (uint32_t i = 0; i < dyn.n; ++i) {
    if (!dyn.buf[i]) continue;
    if (memcmp(dyn.buf[i], sch.buf[i], dyn.bytes[i]))
      fprintf(stderr, "%s @%s: argument %u differs between the paths\n", path, entry, i);
    assert_memory_equal(dyn.buf[i], sch.buf[i], dyn.bytes[i]);
    if (memcmp(ref.buf[i], sch.buf[i], dyn.bytes[i]))
      fprintf(stderr, "%s @%s: argument %u differs from the reference path\n", path, entry, i);
    assert_memory_equal(ref.buf[i], sch.buf[i], dyn.bytes[i]);
  }
  args_free(&dyn);
  args_free(&sch);
  args_free(&ref);
  if (pool) air_pool_destroy(pool);
  air_schedule_free(sc);
  air_program_destroy(p);
}

static void test_samples_both_ways(void** state) {
  fx_t* f = *state;
  static const struct {
    const char* file;
    const char* fn;
  } s[] = {{"vector_add", "vector_add"},
           {"pipeline", "scale_offset"},
           {"matmul_4x4", "matmul_512"},
           {"matmul_4x4_bf16", "matmul_512_bf16"}};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/samples/%s.mlir", AIR_SOURCE_DIR, s[i].file);
    run_both(f, path, s[i].fn, NULL, 0);
  }
}

static void test_programs_both_ways(void** state) {
  fx_t* f = *state;
  static const struct {
    const char* file;
    const char* fn;
    uint32_t threads;
    int64_t scalars[2];
  } s[] = {
      {"programs/affine_if_broadcast", "bcast", 0, {0}},
      {"programs/affine_tile_transpose", "transpose", 0, {0}},
      {"programs/affine_tile_transpose", "reshape", 0, {0}},
      {"programs/execute_results", "fill_rows", 0, {0}},
      {"programs/linalg_generic_bf16", "gemm_bias_bf16", 0, {0}},
      {"programs/matmul_4x4_channels", "matmul_128", 0, {0}},
      {"programs/module_attrs_opaque", "annotated", 0, {0}},
      {"programs/no_module_wrapper", "copy_through_l1", 0, {0}},
      {"programs/old_async_token", "old_style", 0, {0}},
      {"programs/parallel_reduce_tokens", "scale", 0, {0}},
      {"programs/scalar_control", "clamp", 0, {7}},
      /* Every tile writes the whole buffer back: racy unless on one thread. */
      {"programs/scalar_control", "tiles", 1, {0}},
      {"programs/segment_pipeline", "pipeline", 0, {0}},
      {"programs/segment_unroll_kernel", "unrolled", 0, {0}},
      {"programs/spec_token_lists", "spec_forms", 0, {0}},
      {"programs/vector_add_dma", "vector_add", 0, {0}},
      {"interp/affinity", "apart", 0, {0}},
      {"interp/affinity", "together", 0, {0}},
      {"interp/backlog", "backlog", 0, {4096}},
      {"interp/bf16_matmul", "bf16_matmul", 0, {0}},
      {"interp/broadcast", "bcast", 0, {0}},
      {"interp/chain", "chain", 0, {0}},
      {"interp/deadlock", "starve", 0, {4}},
      {"interp/depth", "ahead_1", 0, {0}},
      {"interp/depth", "ahead_3", 0, {0}},
      {"interp/exchange", "exchange", 0, {0}},
      {"interp/reduce", "reduce", 0, {0}},
      {"interp/reduce", "init_wait", 0, {0}},
      {"interp/scalars", "poly", 0, {5}},
      {"interp/scalars", "scalars", 0, {0}},
      {"sched_exec/transients", "transients", 0, {0}},
      {"sched_exec/edges", "ordered", 0, {0}},
      {"sched_exec/edges", "affinity", 0, {0}},
      {"schedule/memplan", "plan", 0, {0}},
      {"artifact/host_mix", "host", 0, {0}},
  };
  for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mlir", AIR_TEST_DATA_DIR, s[i].file);
    run_both(f, path, s[i].fn, s[i].scalars, s[i].threads);
  }
}

/* A generated host level: `n` buffers, buffer k made once buffer k - 2 is freed,
 * so two are in flight at a time and the plan reuses their bytes; each copies
 * one row of the input to the output through its buffer. */
static char* many_buffers(int n) {
  size_t cap = 4096 + (size_t)n * 1024, len = 0;
  char* t = malloc(cap);
  len += (size_t)snprintf(t + len, cap - len,
                          "func.func @many(%%in: memref<%dx64xi32>, %%out: memref<%dx64xi32>) {\n"
                          "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                          "  %%c64 = arith.constant 64 : index\n",
                          n, n);
  for (int k = 0; k < n; ++k) {
    char dep[32] = "";
    if (k >= 2) snprintf(dep, sizeof dep, " [%%f%d]", k - 2);
    len += (size_t)snprintf(
        t + len, cap - len,
        "  %%r%d = arith.constant %d : index\n"
        "  %%t%d, %%b%d = air.execute%s -> (memref<64xi32>) {\n"
        "    %%m = memref.alloc() : memref<64xi32>\n"
        "    air.execute_terminator %%m : memref<64xi32>\n  }\n"
        "  %%d%d = air.dma_memcpy_nd async [%%t%d] (%%b%d[] [] [], %%in[%%r%d, %%c0] [%%c1, %%c64] "
        "[%%c64, %%c1]) : (memref<64xi32>, memref<%dx64xi32>)\n"
        "  %%e%d = air.dma_memcpy_nd async [%%d%d] (%%out[%%r%d, %%c0] [%%c1, %%c64] [%%c64, %%c1], "
        "%%b%d[] [] []) : (memref<%dx64xi32>, memref<64xi32>)\n"
        "  %%f%d = air.execute [%%e%d] {\n    memref.dealloc %%b%d : memref<64xi32>\n  }\n",
        k, k, k, k, dep, k, k, k, k, n, k, k, k, k, n, k, k, k);
  }
  len += (size_t)snprintf(t + len, cap - len, "  air.wait_all [%%f%d, %%f%d]\n  return\n}\n", n - 2,
                          n - 1);
  return t;
}

static void test_many_buffers(void** state) {
  fx_t* f = *state;
  enum { N = 300 };
  char* text = many_buffers(N);
  char path[] = "/tmp/air_sched_many_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  free(text);
  run_both(f, path, "many", NULL, 0);
  air_program_t* p = test_load_file(f->x.ctx, path);
  air_schedule_t* sc = compile(f, p, "many");
  air_interp_plan_t* plan = make_plan(p, sc);
  uint64_t size = 0;
  air_interp_plan_transient(plan, &size, NULL);
  assert_true(size >= 2 * 256 && size <= 4 * 256); /* N buffers of 256 bytes, 2 live */
  args_t a;
  args_make(p, test_find_func(p, "many"), NULL, &a);
  runopt_t o = {.plan = plan};
  test_check(run(f, p, test_find_func(p, "many"), &a, &o));
  assert_memory_equal(a.buf[0], a.buf[1], a.bytes[0]);
  args_free(&a);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
  remove(path);
}

/*---------------------------------------------------------------------------*/
/* Failures from the schedule                                                */
/*---------------------------------------------------------------------------*/

/* A deadlock found while running from the schedule names the blocked ops. */
static void test_deadlock_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/deadlock.mlir");
  const air_op_t* fn = test_find_func(p, "starve");
  const air_op_t* get = test_find_op(p->module, AIR_OP_GET, NULL);
  air_schedule_t* sc = compile(f, p, "starve");
  args_t a;
  int64_t n[2] = {3, 0};
  args_make(p, fn, n, &a);
  runopt_t o = {.schedule = sc};
  air_status_t st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  const char* msg = air_status_message(st);
  test_expect_in(msg, "deadlock: no operation can make progress");
  test_expect_in(msg, "%s:%u:%u: air.channel.get @ch[0] blocked: no put (herd @cons [0])",
            p->filename, get->line, get->col);
  /* The wait_all's wave never opens: the driver says what it waits for. */
  test_expect_in(msg, "%s:%u:%u: func.func @starve: the schedule has 1 of 3 waves not started: "
            "queue 0 (host) wave 1 waits for queue 2 (compute) wave 0",
            p->filename, fn->line, fn->col);
  air_status_free(st);
  args_free(&a);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* A failing kernel fails the run with its status, located. */
static void test_fault_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/fault.mlir");
  const air_op_t* fn = test_find_func(p, "faulty");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, NULL);
  air_schedule_t* sc = compile(f, p, "faulty");
  for (int round = 0; round < 3; ++round) {
    args_t a;
    args_make(p, fn, NULL, &a);
    runopt_t o = {.schedule = sc};
    air_status_t st = run(f, p, fn, &a, &o);
    assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
    test_expect_in(air_status_message(st), "%s:%u:%u: error: func.call @work failed: tile (1, 1) broke",
              p->filename, call->line, call->col);
    air_status_free(st);
    args_free(&a);
  }
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* The watchdog fires from the schedule path too, and the abandoned kernel's late
 * return touches nothing that is gone (the plan here belongs to the caller). */
static void test_watchdog_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/interp/watchdog.mlir");
  const air_op_t* fn = test_find_func(p, "stuck");
  const air_op_t* call = test_find_op(p->module, AIR_OP_CALL, NULL);
  air_schedule_t* sc = compile(f, p, "stuck");
  air_interp_plan_t* plan = make_plan(p, sc);
  atomic_store(&g_slow_done, 0);
  runopt_t o = {.plan = plan, .watchdog_ns = 50000000};
  air_status_t st = run(f, p, fn, NULL, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_DEADLINE_EXCEEDED);
  test_expect_in(air_status_message(st), "%s:%u:%u: error: func.call @slow ran longer than the watchdog",
            p->filename, call->line, call->col);
  air_status_free(st);
  assert_int_equal(atomic_load(&g_slow_done), 0);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
  int64_t deadline = air_time_now_ns() + 5000000000LL;
  while (!atomic_load(&g_slow_done) && air_time_now_ns() < deadline) {
    struct timespec d = {0, 1000000};
    nanosleep(&d, NULL);
  }
  assert_int_equal(atomic_load(&g_slow_done), 1);
}

/*---------------------------------------------------------------------------*/
/* The transient arena                                                       */
/*---------------------------------------------------------------------------*/

/* Host-level L3 allocs live where the memory plan puts them: in the caller's
 * arena when one is given (its bytes change; %a and %c share theirs), checked
 * for size and alignment. */
static void test_transient_arena(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_op_t* fn = test_find_func(p, "transients");
  air_schedule_t* sc = compile(f, p, "transients");
  air_interp_plan_t* plan = make_plan(p, sc);
  uint64_t size = 0;
  uint32_t align = 0;
  air_interp_plan_transient(plan, &size, &align);
  assert_int_equal(align, 64);
  assert_true(size >= 2 * 1024 && size < 3 * 1024); /* three 1 KiB buffers, two live at once */

  unsigned char* raw = malloc((size_t)size + 128);
  unsigned char* arena = (unsigned char*)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  memset(arena, 0xab, (size_t)size + 64);
  args_t a;
  args_make(p, fn, NULL, &a);
  runopt_t o = {.plan = plan, .transient = arena, .transient_size = size};
  test_check(run(f, p, fn, &a, &o));
  const int32_t *in = a.buf[0], *out = a.buf[1];
  for (int i = 0; i < 256; ++i) assert_int_equal(out[i], 2 * in[i] + 1);
  uint64_t touched = 0;
  for (uint64_t i = 0; i < size; ++i) touched += arena[i] != 0xab;
  assert_true(touched >= size / 2);
  for (uint64_t i = size; i < size + 64; ++i) assert_int_equal(arena[i], 0xab);

  /* Too small, then misaligned: INVALID_ARGUMENT with the numbers. */
  o.transient_size = size - 64;
  air_status_t st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "the transient arena is %llu bytes",
            (unsigned long long)(size - 64));
  test_expect_in(air_status_message(st), "needs %llu bytes aligned to 64", (unsigned long long)size);
  air_status_free(st);
  o.transient = arena + 8;
  o.transient_size = size;
  st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "at an address aligned to 8");
  air_status_free(st);
  free(raw);
  args_free(&a);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* One plan serves concurrent runs, each with its own arena (run under TSan). */
typedef struct conc_t {
  fx_t* f;
  const air_program_t* p;
  const air_op_t* fn;
  const air_interp_plan_t* plan;
  int ok;
} conc_t;

static void* conc_main(void* arg) {
  conc_t* c = arg;
  c->ok = 1;
  for (int round = 0; round < 20 && c->ok; ++round) {
    args_t a;
    args_make(c->p, c->fn, NULL, &a);
    runopt_t o = {.plan = c->plan};
    air_status_t st = run(c->f, c->p, c->fn, &a, &o);
    if (st) {
      fprintf(stderr, "concurrent run: %s\n", air_status_message(st));
      air_status_free(st);
      c->ok = 0;
    }
    const int32_t *in = a.buf[0], *out = a.buf[1];
    for (int i = 0; i < 256 && c->ok; ++i) c->ok = out[i] == 2 * in[i] + 1;
    args_free(&a);
  }
  return NULL;
}

static void test_plan_shared_by_runs(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "transients");
  air_interp_plan_t* plan = make_plan(p, sc);
  enum { N = 3 };
  conc_t c[N];
  for (int i = 0; i < N; ++i)
    c[i] = (conc_t){.f = f, .p = p, .fn = test_find_func(p, "transients"), .plan = plan};
  test_threads_run(N, conc_main, c, sizeof c[0]);
  for (int i = 0; i < N; ++i) assert_true(c[i].ok);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* A plan made for another entry is refused; a schedule that does not fit the
 * program cannot be bound. */
static void test_plan_mismatch(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/edges.mlir");
  air_program_t* q = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "ordered");
  args_t a;
  args_make(p, test_find_func(p, "affinity"), NULL, &a);
  runopt_t o = {.schedule = sc};
  air_status_t st = run(f, p, test_find_func(p, "affinity"), &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "the schedule is for @ordered");
  air_status_free(st);
  args_free(&a);
  air_interp_plan_t* plan = NULL;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  st = air_interp_plan_build(&heap, q, sc, &plan);
  assert_null(plan);
  assert_int_equal(air_status_code(st), AIR_STATUS_NOT_FOUND);
  air_status_free(st);
  air_schedule_free(sc);
  air_program_destroy(p);
  air_program_destroy(q);
}

/* Traces from the schedule path show the ops and one span per wave. */
static void test_trace_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_op_t* fn = test_find_func(p, "transients");
  air_schedule_t* sc = compile(f, p, "transients");
  air_trace_t* trace = NULL;
  test_check(air_trace_create(f->x.ctx, &trace));
  args_t a;
  args_make(p, fn, NULL, &a);
  runopt_t o = {.schedule = sc, .trace = trace};
  test_check(run(f, p, fn, &a, &o));
  char path[] = "/tmp/air_sched_trace_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  test_check(air_trace_write_json(trace, path));
  FILE* in = fopen(path, "rb");
  assert_non_null(in);
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, in);
  text[n] = 0;
  fclose(in);
  remove(path);
  test_expect_in(text, "schedule: queue 0 (host)");
  test_expect_in(text, "schedule: queue 1 (dma)");
  test_expect_in(text, "air.dma_memcpy_nd");
  args_free(&a);
  air_trace_destroy(trace);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* The HAL                                                                   */
/*---------------------------------------------------------------------------*/

typedef struct hal_t {
  air_device_t* dev;
  air_buffer_t* in;
  air_buffer_t* out;
} hal_t;

static void hal_open(fx_t* f, hal_t* h) {
  memset(h, 0, sizeof *h);
  test_check(air_device_open(f->x.ctx, "cpu:threads=2", &h->dev));
  test_check(air_buffer_allocate(h->dev, 1024, 0, &h->in));
  test_check(air_buffer_allocate(h->dev, 1024, 0, &h->out));
  int32_t* in = NULL;
  test_check(air_buffer_map(h->in, 0, 1024, AIR_MAP_WRITE, (void**)&in));
  for (int i = 0; i < 256; ++i) in[i] = i * 3 - 100;
  air_buffer_unmap(h->in, in);
}

static void hal_close(hal_t* h) {
  air_buffer_release(h->in);
  air_buffer_release(h->out);
  air_device_release(h->dev);
}

/* Ends `cb`, submits it with one signal, waits, releases it. */
static air_status_t run_cb(fx_t* f, hal_t* h, air_command_buffer_t* cb) {
  test_check(air_command_buffer_end(cb));
  air_semaphore_t* sem = NULL;
  test_check(air_semaphore_create(f->x.ctx, 0, &sem));
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, &sem, &one};
  test_check(air_device_queue_execute(h->dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(sem, 1, 10000000000LL);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  return st;
}

/* Dispatches @transients once (with `transient` when not NULL) and checks out =
 * 2 * in + 1. Returns the recording or execution status otherwise. */
static air_status_t hal_dispatch(fx_t* f, hal_t* h, air_executable_t* e, uint32_t flags,
                                 air_buffer_t* transient, uint64_t offset) {
  air_command_buffer_t* cb = NULL;
  test_check(air_command_buffer_create(h->dev, 0, &cb));
  test_check(air_command_buffer_fill(cb, h->out, 0, 1024, "\0\0\0\0", 4));
  test_check(air_command_buffer_barrier(cb));
  air_binding_t b[2] = {{h->in, 0, 0, 0}, {h->out, 0, 0, 0}};
  air_dispatch_options_t o = {.flags = flags};
  air_status_t st = transient
                        ? air_command_buffer_dispatch_transient(cb, e, 0, 2, b, transient, offset, &o)
                        : air_command_buffer_dispatch(cb, e, 0, 2, b, &o);
  if (st) {
    air_command_buffer_release(cb);
    return st;
  }
  st = run_cb(f, h, cb);
  if (st) return st;
  int32_t *in = NULL, *out = NULL;
  test_check(air_buffer_map(h->in, 0, 1024, AIR_MAP_READ, (void**)&in));
  test_check(air_buffer_map(h->out, 0, 1024, AIR_MAP_READ, (void**)&out));
  for (int i = 0; i < 256; ++i) assert_int_equal(out[i], 2 * in[i] + 1);
  air_buffer_unmap(h->in, in);
  air_buffer_unmap(h->out, out);
  return NULL;
}

/* An executable compiles a schedule per entry and dispatches run from it by
 * default; the dynamic path, a caller's transient buffer and the summary. */
static void test_hal_schedule(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_executable_t* e = NULL;
  test_check(air_executable_create(h.dev, p, 0, &e));
  assert_string_equal(air_executable_entry_name(e, 0), "transients");
  assert_null(air_executable_entry_name(e, 1));
  uint64_t need = 0;
  uint32_t align = 0;
  test_check(air_executable_transient_size(e, 0, &need, &align));
  assert_int_equal(need, 2048);
  assert_int_equal(align, 64);
  air_schedule_info_t info;
  test_check(air_executable_schedule_info(e, 0, &info));
  assert_string_equal(info.target, "cpu");
  assert_int_equal(info.commands, 13);
  assert_int_equal(info.queues, 2);
  assert_string_equal(info.queue_kind[0], "host");
  assert_string_equal(info.queue_kind[1], "dma");
  assert_int_equal(info.queue_waves[0] + info.queue_waves[1], info.waves);
  assert_int_equal(info.transient_bytes, 2048);
  assert_true(info.compile_ns > 0);

  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  test_check(hal_dispatch(f, &h, e, AIR_DISPATCH_DYNAMIC, NULL, 0));
  air_buffer_t* arena = NULL;
  test_check(air_buffer_allocate(h.dev, 4096, 0, &arena));
  test_check(hal_dispatch(f, &h, e, 0, arena, 64));
  uint8_t* bytes = NULL;
  test_check(air_buffer_map(arena, 0, 4096, AIR_MAP_READ, (void**)&bytes));
  uint32_t used = 0;
  for (int i = 64; i < 64 + 2048; ++i) used += bytes[i] != 0;
  air_buffer_unmap(arena, bytes);
  assert_true(used > 512); /* the run's buffers lived there */

  air_status_t st = hal_dispatch(f, &h, e, 0, arena, 2112);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "has 1984 bytes");
  test_expect_in(air_status_message(st), "needs 2048 bytes aligned to 64");
  air_status_free(st);
  st = hal_dispatch(f, &h, e, 0, arena, 32);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "aligned to 32; the entry needs 2048 bytes aligned to 64");
  air_status_free(st);
  air_buffer_release(arena);
  air_executable_release(e);

  /* Without schedules: the dynamic path, no arena, no summary. */
  test_check(air_executable_create(h.dev, p, AIR_EXECUTABLE_NO_SCHEDULE, &e));
  test_check(air_executable_transient_size(e, 0, &need, &align));
  assert_int_equal(need, 0);
  st = air_executable_schedule_info(e, 0, &info);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  air_status_free(st);
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  air_executable_release(e);
  st = air_executable_create(h.dev, p, 0x80, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  air_program_destroy(p);

  /* A program whose L3 buffer has no static size is not schedulable: the
   * executable is still made (its entry runs on the dynamic path) and the schedule
   * info gives the located reason. */
  static const char dyn[] =
      "func.func @dyn(%n: index, %o: memref<4xf32>) {\n"
      "  %b = memref.alloc(%n) : memref<?xf32>\n"
      "  memref.dealloc %b : memref<?xf32>\n"
      "  return\n"
      "}\n";
  air_parse_options_t po = {.filename = "dyn.mlir"};
  test_check(air_program_parse(f->x.ctx, dyn, strlen(dyn), &po, &p));
  test_check(air_executable_create(h.dev, p, 0, &e));
  air_schedule_info_t why;
  st = air_executable_schedule_info(e, 0, &why);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st), "dynamic path");
  test_expect_in(air_status_message(st), "dyn.mlir:2:");
  air_status_free(st);
  air_executable_release(e);
  test_check(air_executable_create(h.dev, p, AIR_EXECUTABLE_NO_SCHEDULE, &e));
  air_executable_release(e);
  air_program_destroy(p);
  hal_close(&h);
}

/* Dispatches that run inline (a straight-line entry): many in one command
 * buffer, so its argument array moves while recording, each adding its index to
 * its own element; then one with an index out of range fails the submission
 * with the same located error the pool path gives. */
static void test_hal_inline_dispatches(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  static const char src[] =
      "func.func @bump(%a: memref<256xi32>, %i: index, %k: i32) {\n"
      "  %v = memref.load %a[%i] : memref<256xi32>\n"
      "  %w = arith.addi %v, %k : i32\n"
      "  memref.store %w, %a[%i] : memref<256xi32>\n"
      "  return\n"
      "}\n";
  air_parse_options_t po = {.filename = "bump.mlir"};
  air_program_t* p = NULL;
  air_executable_t* e = NULL;
  test_check(air_program_parse(f->x.ctx, src, strlen(src), &po, &p));
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    test_check(air_executable_create(h.dev, p, dynamic ? AIR_EXECUTABLE_NO_SCHEDULE : 0, &e));
    air_command_buffer_t* cb = NULL;
    test_check(air_command_buffer_create(h.dev, 0, &cb));
    test_check(air_command_buffer_fill(cb, h.out, 0, 1024, "\0\0\0\0", 4));
    test_check(air_command_buffer_barrier(cb));
    air_dispatch_options_t o = {0};
    enum { N = 200 };
    for (int i = 0; i < N; ++i) {
      air_binding_t b[3] = {{h.out, 0, 0, 0}, {NULL, 0, i, 0}, {NULL, 0, 1000 + i, 0}};
      test_check(air_command_buffer_dispatch(cb, e, 0, 3, b, &o));
      if (i % 50 == 49) test_check(air_command_buffer_barrier(cb));
    }
    test_check(run_cb(f, &h, cb));
    int32_t* out = NULL;
    test_check(air_buffer_map(h.out, 0, 1024, AIR_MAP_READ, (void**)&out));
    for (int i = 0; i < 256; ++i) assert_int_equal(out[i], i < N ? 1000 + i : 0);
    air_buffer_unmap(h.out, out);

    test_check(air_command_buffer_create(h.dev, 0, &cb));
    air_binding_t bad[3] = {{h.out, 0, 0, 0}, {NULL, 0, 300, 0}, {NULL, 0, 1, 0}};
    test_check(air_command_buffer_dispatch(cb, e, 0, 3, bad, &o));
    air_status_t st = run_cb(f, &h, cb);
    assert_non_null(st);
    test_expect_in(air_status_message(st), "bump.mlir:2:");
    test_expect_in(air_status_message(st), "memref.load");
    /* A watchdog sends the same dispatch through the pool path. */
    air_dispatch_options_t wd = {.watchdog_ns = 60000000000LL};
    test_check(air_command_buffer_create(h.dev, 0, &cb));
    test_check(air_command_buffer_dispatch(cb, e, 0, 3, bad, &wd));
    air_status_t pool_st = run_cb(f, &h, cb);
    assert_non_null(pool_st);
    assert_int_equal(air_status_code(st), air_status_code(pool_st));
    assert_string_equal(air_status_message(st), air_status_message(pool_st));
    air_status_free(pool_st);
    air_status_free(st);
    air_executable_release(e);
  }
  air_program_destroy(p);
  hal_close(&h);
}

/* Executables from .airbin images: same results, owned program, clean errors. */
static void test_hal_artifact(void** state) {
  fx_t* f = *state;
  hal_t h;
  hal_open(f, &h);
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "transients");
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  void* image = NULL;
  size_t size = 0;
  test_check(air_artifact_write(&heap, p, sc, &image, &size));
  air_schedule_free(sc);
  air_program_destroy(p); /* the executable owns what it loads */

  air_executable_t* e = NULL;
  test_check(air_executable_create_from_artifact(h.dev, image, size, &e));
  uint64_t need = 0;
  test_check(air_executable_transient_size(e, 0, &need, NULL));
  assert_int_equal(need, 2048);
  air_schedule_info_t info;
  test_check(air_executable_schedule_info(e, 0, &info));
  assert_int_equal(info.commands, 13);
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  test_check(hal_dispatch(f, &h, e, AIR_DISPATCH_DYNAMIC, NULL, 0));
  air_executable_release(e);

  char path[] = "/tmp/air_sched_exec_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, image, size), (ssize_t)size);
  close(fd);
  test_check(air_executable_create_from_file(h.dev, path, &e));
  test_check(hal_dispatch(f, &h, e, 0, NULL, 0));
  air_executable_release(e);
  remove(path);
  air_status_t st = air_executable_create_from_file(h.dev, path, &e);
  assert_non_null(st);
  assert_null(e);
  air_status_free(st);

  /* Truncated: DATA_LOSS; not an .airbin: INVALID_ARGUMENT; neither crashes. */
  st = air_executable_create_from_artifact(h.dev, image, size / 2, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_DATA_LOSS);
  assert_null(e);
  air_status_free(st);
  st = air_executable_create_from_artifact(h.dev, "func.func @f() { return }", 25, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(st);
  heap.free(heap.self, image);

  /* A schedule for another target does not run here. */
  p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_target_t* npu = NULL;
  test_check(air_target_lookup(&heap, "npu1", &npu));
  test_check(air_schedule_compile(&heap, p, "transients", npu, &sc));
  test_check(air_artifact_write(&heap, p, sc, &image, &size));
  st = air_executable_create_from_artifact(h.dev, image, size, &e);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st), "for target \"npu1\"");
  air_status_free(st);
  heap.free(heap.self, image);
  air_schedule_free(sc);
  air_program_destroy(p);
  hal_close(&h);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_samples_both_ways, setup, teardown),
      cmocka_unit_test_setup_teardown(test_programs_both_ways, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_buffers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadlock_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_watchdog_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transient_arena, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_shared_by_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_trace_from_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hal_schedule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hal_artifact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hal_inline_dispatches, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

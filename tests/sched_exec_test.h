/* sched_exec_test.h - what the schedule-path tests (test_sched_exec.c,
 * test_sched_exec_plan.c, test_sched_exec_hal.c) share: the fixture (context,
 * pool and the cpu target, with the kernels the test programs call registered),
 * arguments for an entry filled with a pattern, one run with options (pool,
 * reference path, schedule, plan, transient arena, watchdog, trace), compiling an
 * entry's schedule and building its plan. Header-only (static inline), like
 * parse_test.h. */
#ifndef AIR_TESTS_SCHED_EXEC_TEST_H_
#define AIR_TESTS_SCHED_EXEC_TEST_H_

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

typedef struct fx_t {
  test_exec_t x; /* the context and pool */
  const air_target_t* cpu;
} fx_t;

/* Fails on tile (1, 1), as tests/data/interp/fault.mlir expects. */
static inline air_status_t k_work(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  if (c->tile[0] == 1 && c->tile[1] == 1)
    return air_status_make(NULL, AIR_STATUS_DATA_LOSS, __FILE__, __LINE__, "tile (1, 1) broke");
  return NULL;
}

static _Atomic int g_slow_done;
static inline air_status_t k_slow(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  (void)c;
  test_sleep_us(400000);
  atomic_store(&g_slow_done, 1);
  return NULL;
}

static inline int setup(void** state) {
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

static inline int teardown(void** state) {
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

static inline void args_make(const air_program_t* p, const air_op_t* fn,
                             const int64_t* scalars, args_t* out) {
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

static inline void args_free(args_t* a) {
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

static inline air_status_t run(fx_t* f, const air_program_t* p, const air_op_t* fn,
                               args_t* a, const runopt_t* o) {
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

static inline air_schedule_t* compile(fx_t* f, const air_program_t* p, const char* entry) {
  air_schedule_t* sc = NULL;
  air_status_t st = air_schedule_compile(NULL, p, entry, f->cpu, &sc);
  if (st) fprintf(stderr, "compiling @%s: %s\n", entry, air_status_message(st));
  test_check(st);
  return sc;
}

static inline air_interp_plan_t* make_plan(const air_program_t* p, const air_schedule_t* sc) {
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  air_interp_plan_t* plan = NULL;
  test_check(air_interp_plan_build(&heap, p, sc, &plan));
  return plan;
}

#endif /* AIR_TESTS_SCHED_EXEC_TEST_H_ */

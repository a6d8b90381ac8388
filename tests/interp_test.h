/* interp_test.h - what the executor tests (test_interp.c, test_sched_exec.c)
 * share: checks, program lookups, and the C kernels registered for the test
 * programs' func.calls. Header-only so each test stays one translation unit;
 * include it after <cmocka.h>. */
#ifndef AIR_TESTS_INTERP_TEST_H_
#define AIR_TESTS_INTERP_TEST_H_

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "air/context.h"
#include "air/kernel.h"
#include "air/program.h"
#include "runtime/ir/ir.h"

static inline void check(air_status_t st) {
  if (st) {
    fprintf(stderr, "unexpected failure: %s\n", air_status_message(st));
    air_status_free(st);
    fail();
  }
}

/* Fails unless `msg` contains the formatted text. */
static inline void expect_in(const char* msg, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void expect_in(const char* msg, const char* fmt, ...) {
  char want[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  if (!strstr(msg, want)) fprintf(stderr, "expected \"%s\" in:\n%s\n", want, msg);
  assert_non_null(strstr(msg, want));
}

/* Parses and verifies a program file. */
static inline air_program_t* load_file(air_context_t* ctx, const char* path) {
  air_program_t* p = NULL;
  check(air_program_parse_file(ctx, path, NULL, &p));
  check(air_program_verify(p, NULL, 0));
  return p;
}

static inline const air_op_t* find_func(const air_program_t* p, const char* name) {
  for (const air_op_t* o = p->module->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->sym && !strcmp(o->sym, name)) return o;
  return NULL;
}

/* The first op of `kind` (named `sym`, unless NULL) in `op` or nested in it. */
static inline const air_op_t* find_op(const air_op_t* op, air_opkind_t kind, const char* sym) {
  if (op->kind == kind && (!sym || (op->sym && !strcmp(op->sym, sym)))) return op;
  for (uint32_t i = 0; i < op->n_regions; ++i)
    for (const air_op_t* o = op->regions[i] ? op->regions[i]->first : NULL; o; o = o->next) {
      const air_op_t* x = find_op(o, kind, sym);
      if (x) return x;
    }
  return NULL;
}

/* "scale.o": a 1-d i16 memref times the i16 scalar. */
static inline air_status_t k_scale_i16(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  const air_memref_t* m = &c->args[0].memref;
  int16_t* d = (int16_t*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[i * m->strides[0]] *= (int16_t)c->args[1].i;
  return NULL;
}

/* "kernel.o": adds one to a 1-d f32 memref. */
static inline air_status_t k_add_one_f32(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  const air_memref_t* m = &c->args[0].memref;
  float* d = (float*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[i * m->strides[0]] += 1;
  return NULL;
}

static inline air_status_t k_nothing(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  (void)c;
  return NULL;
}

#endif /* AIR_TESTS_INTERP_TEST_H_ */

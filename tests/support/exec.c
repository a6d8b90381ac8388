/* exec.c - helpers of the CPU executor's tests. */
#include "support/exec.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal/cpu/cpu_code.h"
#include "support/programs.h"
#include "support/status.h"

/* Tests describe runs from several threads at once (test_prepared_concurrent). */
struct test_codes_t {
  pthread_mutex_t mu;
  air_cpu_code_t** code;
  uint32_t n, cap;
};

int test_exec_open(test_exec_t* x) {
  memset(x, 0, sizeof *x);
  const char* path = getenv("AIR_TEST_PATH");
  x->path = !path                         ? TEST_PATH_DEFAULT
            : !strcmp(path, "interpreted") ? TEST_PATH_INTERPRETED
            : !strcmp(path, "compiled")    ? TEST_PATH_COMPILED
                                          : TEST_PATH_DEFAULT;
  x->codes = calloc(1, sizeof *x->codes);
  if (!x->codes) return -1;
  pthread_mutex_init(&x->codes->mu, NULL);
  if (air_context_create(NULL, NULL, &x->ctx)) return -1;
  if (air_pool_create(NULL, 2, &x->pool)) {
    air_context_destroy(x->ctx);
    return -1;
  }
  return 0;
}

void test_exec_close(test_exec_t* x) {
  air_pool_destroy(x->pool);
  for (uint32_t i = 0; x->codes && i < x->codes->n; ++i) air_cpu_code_free(x->codes->code[i]);
  if (x->codes) {
    free(x->codes->code);
    pthread_mutex_destroy(&x->codes->mu);
  }
  free(x->codes);
  air_context_destroy(x->ctx);
}

const air_cg_code_t* test_exec_code(const test_exec_t* x, const air_program_t* p) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  air_cpu_code_t* c = NULL;
  air_code_info_t info;
  memset(&info, 0, sizeof info);
  air_status_t st = air_cpu_code_jit(&a, p, &c, &info);
  if (st) {
    fprintf(stderr, "compiling the program: %s\n", air_status_message(st));
    abort();
  }
  if (!c) {
    /* Nothing to compile is fine (no unit in the program); no generator is not. */
    if (info.why_none && !strcmp(info.why_none, "no code generator")) {
      fprintf(stderr, "AIR_TEST_PATH=compiled but no code generator can be loaded\n");
      abort();
    }
    return NULL;
  }
  struct test_codes_t* l = x->codes;
  pthread_mutex_lock(&l->mu);
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? l->cap * 2 : 16;
    air_cpu_code_t** g = realloc(l->code, cap * sizeof *g);
    if (!g) abort();
    l->code = g, l->cap = cap;
  }
  l->code[l->n++] = c;
  pthread_mutex_unlock(&l->mu);
  return air_cpu_code_lookup(c);
}

int test_exec_setup(void** state) {
  test_exec_t* x = calloc(1, sizeof *x);
  if (!x || test_exec_open(x)) {
    free(x);
    return -1;
  }
  *state = x;
  return 0;
}

int test_exec_teardown(void** state) {
  test_exec_close(*state);
  free(*state);
  return 0;
}

air_interp_desc_t test_exec_desc(const test_exec_t* x, const air_program_t* p,
                                 const air_op_t* entry, air_arg_t* args, uint32_t n) {
  air_interp_desc_t d = {.program = p, .entry = entry, .n_args = n, .args = args,
                         .pool = x->pool, .context = x->ctx};
  air_allocator_init_system(&d.allocator);
  if (x->path == TEST_PATH_INTERPRETED) d.interpret = true;
  if (x->path == TEST_PATH_COMPILED) d.code = test_exec_code(x, p);
  return d;
}

air_status_t test_exec_run_on(const test_exec_t* x, air_pool_t* pool, const air_program_t* p,
                              const char* fn, air_arg_t* args, uint32_t n) {
  const air_op_t* entry = test_find_func(p, fn);
  assert_non_null(entry);
  air_interp_desc_t d = test_exec_desc(x, p, entry, args, n);
  d.pool = pool;
  return air_interp_run(&d);
}

air_pool_t* test_exec_pool_of(const test_exec_t* x, int k, air_pool_t** one) {
  if (k == 0) return x->pool;
  if (!*one) test_check(air_pool_create(NULL, 1, one));
  return *one;
}

air_arg_t test_index(int64_t v) {
  air_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = AIR_ARG_INT;
  a.elem = AIR_ELEM_INDEX;
  a.i = v;
  return a;
}

air_arg_t test_mref(void* data, uint32_t elem, uint32_t rank, ...) {
  air_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = AIR_ARG_MEMREF;
  a.elem = elem;
  a.memref.data = data;
  a.memref.elem = elem;
  a.memref.rank = rank;
  va_list ap;
  va_start(ap, rank);
  for (uint32_t k = 0; k < rank; ++k) a.memref.sizes[k] = va_arg(ap, int64_t);
  va_end(ap);
  int64_t s = 1;
  for (uint32_t k = rank; k-- > 0;) {
    a.memref.strides[k] = s;
    s *= a.memref.sizes[k];
  }
  return a;
}

void test_done_init(test_done_t* d) {
  memset(d, 0, sizeof *d);
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
}

void test_done_fn(void* user, air_status_t st) {
  test_done_t* d = user;
  pthread_mutex_lock(&d->mu);
  d->calls++;
  d->st = st;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
}

void test_done_wait(test_done_t* d) {
  pthread_mutex_lock(&d->mu);
  while (!d->calls) pthread_cond_wait(&d->cv, &d->mu);
  pthread_mutex_unlock(&d->mu);
}

air_status_t test_k_scale_i16(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  const air_memref_t* m = &c->args[0].memref;
  int16_t* d = (int16_t*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[i * m->strides[0]] *= (int16_t)c->args[1].i;
  return NULL;
}

air_status_t test_k_add_one_f32(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  const air_memref_t* m = &c->args[0].memref;
  float* d = (float*)m->data + m->offset;
  for (int64_t i = 0; i < m->sizes[0]; ++i) d[i * m->strides[0]] += 1;
  return NULL;
}

air_status_t test_k_nothing(void* ud, const air_kernel_call_t* c) {
  (void)ud;
  (void)c;
  return NULL;
}

air_status_t test_exec_run_way(const test_exec_t* x, const air_program_t* p, const char* fn,
                               air_arg_t* args, uint32_t n, int way) {
  const air_op_t* entry = test_find_func(p, fn);
  assert_non_null(entry);
  air_interp_desc_t d = test_exec_desc(x, p, entry, args, n);
  d.interpret = way == TEST_WAY_REFERENCE;
  d.code = way == TEST_WAY_COMPILED ? test_exec_code(x, p) : NULL;
  return air_interp_run(&d);
}

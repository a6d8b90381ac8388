/* exec.c - helpers of the CPU executor's tests. */
#include "support/exec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int test_exec_open(test_exec_t* x) {
  memset(x, 0, sizeof *x);
  if (air_context_create(NULL, NULL, &x->ctx)) return -1;
  if (air_pool_create(NULL, 2, &x->pool)) {
    air_context_destroy(x->ctx);
    return -1;
  }
  return 0;
}

void test_exec_close(test_exec_t* x) {
  air_pool_destroy(x->pool);
  air_context_destroy(x->ctx);
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
  return d;
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

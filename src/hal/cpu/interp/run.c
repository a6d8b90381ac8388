/* run.c - the run object's memory (a run with its mutexes, and its destruction)
 * and the statuses and names ops report with. */
#include "hal/cpu/interp/run.h"

#include <stdarg.h>
#include <stdio.h>

#include "runtime/base/mem.h"
#include "runtime/base/strbuf.h"

ix_run_t* ix_run_new(const air_allocator_t* a) {
  ix_run_t* r = air_mem_alloc(a, sizeof *r);
  if (!r) return NULL;
  r->cache = ix_cache_new(a); /* NULL (out of memory): the run works uncached */
  pthread_mutex_init(&r->lock, NULL);
  pthread_mutex_init(&r->mem_lock, NULL);
  return r;
}

void ix_run_destroy(ix_run_t* r, air_allocator_t a) {
  ix_cache_free(r->cache, &a);
  pthread_mutex_destroy(&r->lock);
  pthread_mutex_destroy(&r->mem_lock);
  a.free(a.self, r);
}

const char* ix_opname(const air_op_t* op) { return air_opkind_name(op->kind); }

const char* ix_attr_str(const ix_run_t* r, const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  a = a ? air_ir_attr_resolve(r->p, a) : NULL;
  return a && a->kind == AIR_ATTR_STRING ? a->s : NULL;
}

const char* ix_vname(const ix_run_t* r, air_vid_t v, char* buf, size_t n) {
  const char* name = v < r->p->n_values ? r->p->values[v].name : NULL;
  if (name)
    snprintf(buf, n, "%%%s", name);
  else
    snprintf(buf, n, "%%<%u>", v);
  return buf;
}

static air_status_t err_v(const air_allocator_t* a, const air_program_t* p, const air_op_t* op,
                          air_status_code_t code, const char* fmt, va_list ap) {
  air_sb_t sb;
  air_sb_init(&sb, a);
  air_sb_vprintf(&sb, fmt, ap);
  char* msg = air_sb_take(&sb, NULL);
  air_status_t st = air_ir_error_at(p, code, op ? op->line : 0, op ? op->col : 0, __FILE__,
                                    __LINE__, "%s", msg ? msg : "out of memory");
  air_mem_free(a, msg);
  return st;
}

air_status_t ix_err(ix_run_t* r, const air_op_t* op, air_status_code_t code, const char* fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  air_status_t st = err_v(&r->alloc, r->p, op, code, fmt, ap);
  va_end(ap);
  return st;
}

air_status_t ix_err_in(const air_allocator_t* a, const air_program_t* p, const air_op_t* op,
                       air_status_code_t code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  air_status_t st = err_v(a, p, op, code, fmt, ap);
  va_end(ap);
  return st;
}

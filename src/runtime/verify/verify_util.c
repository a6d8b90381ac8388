/* verify_util.c - what every verifier pass shares: diagnostics, scratch memory,
 * names for messages, constants, the module symbol table, operand-kind checks and
 * the [async-result] rule (see verify_util.h). */
#include "runtime/verify/verify_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/*---------------------------------------------------------------------------*/
/* Scratch memory and diagnostics                                            */
/*---------------------------------------------------------------------------*/

void* air_v_calloc(air_vctx_t* v, size_t n, size_t size) {
  void* ptr = air_mem_calloc(v->a, n, size);
  if (!ptr) v->oom = true;
  return ptr;
}

void air_v_error(air_vctx_t* v, const air_op_t* op, const char* rule, const char* fmt, ...) {
  if (v->n_diags >= AIR_V_MAX_ERRORS) {
    v->n_dropped++;
    return;
  }
  if (!air_mem_grow(v->a, (void**)&v->diags, &v->cap_diags, (size_t)v->n_diags + 1,
                    sizeof(*v->diags))) {
    v->oom = true;
    return;
  }
  air_vdiag_t* d = &v->diags[v->n_diags];
  d->line = op ? op->line : 0;
  d->col = op ? op->col : 0;
  d->seq = v->n_diags;
  d->off = v->text.len;
  air_sb_printf(&v->text, "[%s] ", rule);
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(&v->text, fmt, ap);
  va_end(ap);
  d->len = v->text.len - d->off;
  v->n_diags++;
}

const char* air_v_vname(const air_vctx_t* v, air_vid_t vid, char* buf, size_t n) {
  const char* name = air_v_valid(v, vid) ? v->p->values[vid].name : NULL;
  if (name && name[0])
    snprintf(buf, n, "%%%s", name);
  else
    snprintf(buf, n, "value #%u", vid);
  return buf;
}

const char* air_v_opname(const air_op_t* op) {
  const char* n = air_opkind_name(op->kind);
  return n[0] ? n : "operation";
}

bool air_v_const(const air_vctx_t* v, air_vid_t vid, int64_t* out) {
  if (!air_v_valid(v, vid)) return false;
  const air_vval_t* vv = &v->vals[vid];
  if (vv->owner == AIR_V_NONE || vv->is_arg) return false;
  const air_op_t* op = v->ops[vv->owner].op;
  if (op->kind != AIR_OP_CONSTANT || v->ops[vv->owner].bad) return false;
  const air_attr_t* a = air_ir_attr_resolve(v->p, &op->value);
  if (!a || (a->kind != AIR_ATTR_INT && a->kind != AIR_ATTR_BOOL)) return false;
  *out = a->i;
  return true;
}

bool air_v_ix_const(const air_vctx_t* v, const air_ix_t* ix, int64_t* out) {
  if (!ix->value) {
    *out = ix->cst;
    return true;
  }
  return air_v_const(v, ix->value, out);
}

/*---------------------------------------------------------------------------*/
/* Module symbols by name                                                    */
/*---------------------------------------------------------------------------*/

static uint64_t hash_str(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

uint32_t air_v_symbol(const air_vctx_t* v, const char* name) {
  if (!v->sym_cap || !name) return AIR_V_NONE;
  uint32_t mask = v->sym_cap - 1;
  for (uint32_t i = (uint32_t)hash_str(name) & mask;; i = (i + 1) & mask) {
    uint32_t id = v->syms[i];
    if (id == AIR_V_NONE) return AIR_V_NONE;
    if (strcmp(v->ops[id].op->sym, name) == 0) return id;
  }
}

void air_v_symbol_add(air_vctx_t* v, uint32_t j) {
  uint32_t mask = v->sym_cap - 1;
  for (uint32_t i = (uint32_t)hash_str(v->ops[j].op->sym) & mask;; i = (i + 1) & mask) {
    if (v->syms[i] == AIR_V_NONE) {
      v->syms[i] = j;
      return;
    }
  }
}

/*---------------------------------------------------------------------------*/
/* Names and operand kinds for messages                                      */
/*---------------------------------------------------------------------------*/

const char* air_v_tname(const air_vctx_t* v, air_tid_t t, char* buf, size_t n) {
  const air_type_info_t* ti = air_ir_type(v->p, t);
  switch (ti->kind) {
    case AIR_TYPE_TOKEN: snprintf(buf, n, "!air.token"); break;
    case AIR_TYPE_SCALAR: snprintf(buf, n, "%s", air_elem_name(ti->elem)); break;
    case AIR_TYPE_MEMREF: {
      size_t k = (size_t)snprintf(buf, n, "memref<");
      for (uint32_t i = 0; i < ti->rank && ti->shape && k < n; ++i) {
        if (ti->shape[i] == AIR_DIM_DYNAMIC)
          k += (size_t)snprintf(buf + k, n - k, "?x");
        else
          k += (size_t)snprintf(buf + k, n - k, "%lldx", (long long)ti->shape[i]);
      }
      if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s", air_elem_name(ti->elem));
      if (k < n && ti->memspace) k += (size_t)snprintf(buf + k, n - k, ", %d", (int)ti->memspace);
      if (k < n) snprintf(buf + k, n - k, ">");
      break;
    }
    default: snprintf(buf, n, "<no type>"); break;
  }
  return buf;
}

/* Formats `fmt` only when the operand is reported. */
static void want_kindv(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* want, bool ok,
                       const char* fmt, va_list ap) {
  if (!air_v_valid(v, vid) || ok) return;
  char tb[96], what[96];
  vsnprintf(what, sizeof what, fmt, ap);
  ERR(id, "structure", "%s of %s must be %s, found %s", what, air_v_opname(v->ops[id].op), want,
      air_v_tname(v, air_v_vtype(v, vid), tb, sizeof tb));
}
void air_v_want(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* want, bool ok,
                const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  want_kindv(v, id, vid, want, ok, fmt, ap);
  va_end(ap);
}
void air_v_want_index(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  want_kindv(v, id, vid, "index", air_v_is_index(v, vid), fmt, ap);
  va_end(ap);
}
void air_v_want_memref(air_vctx_t* v, uint32_t id, air_vid_t vid, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  want_kindv(v, id, vid, "a memref", air_v_is_memref(v, vid), fmt, ap);
  va_end(ap);
}

/* The innermost enclosing op of kind k along the hierarchy chain, or NONE. */
uint32_t air_v_enclosing(const air_vctx_t* v, uint32_t id, air_opkind_t k) {
  for (uint32_t h = v->ops[id].hier; h != AIR_V_NONE; h = v->ops[h].hier)
    if (v->ops[h].op->kind == k) return h;
  return AIR_V_NONE;
}

const char* air_v_space_name(int32_t s) {
  return s == AIR_MEM_L1 ? "L1" : s == AIR_MEM_L2 ? "L2" : s == AIR_MEM_L3 ? "L3" : "?";
}

const char* air_v_target_name(const air_vctx_t* v) {
  return v->target_row ? v->target_row->name : "any";
}

/*---------------------------------------------------------------------------*/
/* [async-result]                                                            */
/*---------------------------------------------------------------------------*/

void air_v_check_async(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  bool async = op->flags & AIR_OPF_ASYNC;
  if (async && (op->flags & AIR_OPF_SYNC))
    ERR(id, "async-result", "%s is marked both sync and async; keep one", on);
  if (async) {
    if (op->n_results != 1 || !air_v_is_token(v, op->results[0]))
      ERR(id, "async-result",
          "%s is async but does not return exactly one !air.token; bind its token "
          "(`%%t = %s async ...`)",
          on, on);
  } else if (op->n_results) {
    ERR(id, "async-result",
        "%s returns a value but is not async; mark it async (its result is the token) or "
        "drop the result for the blocking form",
        on);
  }
}

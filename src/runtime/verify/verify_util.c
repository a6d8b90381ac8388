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

/* FNV-1a of a diagnostic's location and text: the same fact found again (once
 * per enumerated instance, or by two passes) is one diagnostic. */
static uint64_t diag_hash(uint32_t line, uint32_t col, const char* s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ line) * 1099511628211ull;
  h = (h ^ col) * 1099511628211ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h | 1; /* 0 marks an empty slot */
}

/* Adds h to the set of facts seen; false when it was there. */
static bool diag_seen_add(air_vctx_t* v, uint64_t h) {
  if ((v->n_seen + 1) * 2 > v->cap_seen) {
    uint32_t cap = v->cap_seen ? v->cap_seen * 2 : 256;
    uint64_t* t = air_v_calloc(v, cap, sizeof(uint64_t));
    if (!t) return true;
    for (uint32_t i = 0; i < v->cap_seen; ++i) {
      if (!v->seen[i]) continue;
      uint32_t k = (uint32_t)v->seen[i] & (cap - 1);
      while (t[k]) k = (k + 1) & (cap - 1);
      t[k] = v->seen[i];
    }
    air_mem_free(v->a, v->seen);
    v->seen = t;
    v->cap_seen = cap;
  }
  uint32_t k = (uint32_t)h & (v->cap_seen - 1);
  for (; v->seen[k]; k = (k + 1) & (v->cap_seen - 1))
    if (v->seen[k] == h) return false;
  v->seen[k] = h;
  v->n_seen++;
  return true;
}

static bool diag_before(const air_vdiag_t* a, const air_vdiag_t* b) {
  if (a->line != b->line) return a->line < b->line;
  if (a->col != b->col) return a->col < b->col;
  return a->seq < b->seq;
}

/* Rewrites the text buffer with only the kept diagnostics, once replaced ones
 * have left enough of it unused. */
static void diag_compact(air_vctx_t* v) {
  air_sb_t t;
  air_sb_init(&t, v->a);
  for (uint32_t i = 0; i < v->n_diags; ++i) {
    size_t off = t.len;
    air_sb_append(&t, v->text.data + v->diags[i].off, v->diags[i].len);
    v->diags[i].off = off;
  }
  if (t.oom) {
    v->oom = true;
    air_sb_free(&t);
    return;
  }
  air_sb_free(&v->text);
  v->text = t;
}

void air_v_error(air_vctx_t* v, const air_op_t* op, const char* rule, const char* fmt, ...) {
  air_vdiag_t d;
  d.line = op ? op->line : 0;
  d.col = op ? op->col : 0;
  d.seq = v->n_seq++;
  d.off = v->text.len;
  air_sb_printf(&v->text, "[%s] ", rule);
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(&v->text, fmt, ap);
  va_end(ap);
  d.len = v->text.len - d.off;
  if (v->text.oom) {
    v->oom = true;
    return;
  }
  if (!diag_seen_add(v, diag_hash(d.line, d.col, v->text.data + d.off, d.len))) {
    v->text.len = d.off; /* a fact already reported */
    return;
  }
  if (v->n_diags < AIR_V_MAX_ERRORS) {
    if (!air_mem_grow(v->a, (void**)&v->diags, &v->cap_diags, (size_t)v->n_diags + 1,
                      sizeof(*v->diags))) {
      v->oom = true;
      return;
    }
    v->diags[v->n_diags++] = d;
    return;
  }
  /* Over the cap: keep the earliest diagnostics by location, as a compiler that
   * stops after N errors would have printed them. */
  v->n_dropped++;
  uint32_t last = 0;
  for (uint32_t i = 1; i < v->n_diags; ++i)
    if (diag_before(&v->diags[last], &v->diags[i])) last = i;
  if (!diag_before(&d, &v->diags[last])) {
    v->text.len = d.off;
    return;
  }
  v->garbage += v->diags[last].len;
  v->diags[last] = d;
  if (v->garbage > (size_t)1 << 16) {
    diag_compact(v);
    v->garbage = 0;
  }
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
/* Module symbols by (module, name)                                          */
/*---------------------------------------------------------------------------*/

static uint64_t hash_str(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

uint32_t air_v_module_of(const air_vctx_t* v, uint32_t id) {
  uint32_t m = id < v->n_ops ? v->ops[id].parent : AIR_V_NONE;
  while (m != AIR_V_NONE && v->ops[m].op->kind != AIR_OP_MODULE) m = v->ops[m].parent;
  return m == AIR_V_NONE ? 0 : m;
}

static uint64_t sym_hash(uint32_t module, const char* name) {
  return hash_str(name) ^ ((uint64_t)module * 0x9e3779b97f4a7c15ull);
}

uint32_t air_v_symbol_in(const air_vctx_t* v, uint32_t module, const char* name) {
  if (!v->sym_cap || !name) return AIR_V_NONE;
  uint32_t mask = v->sym_cap - 1;
  for (uint32_t i = (uint32_t)sym_hash(module, name) & mask;; i = (i + 1) & mask) {
    uint32_t id = v->syms[i];
    if (id == AIR_V_NONE) return AIR_V_NONE;
    if (v->ops[id].parent == module && strcmp(v->ops[id].op->sym, name) == 0) return id;
  }
}

uint32_t air_v_symbol(const air_vctx_t* v, uint32_t from, const char* name) {
  return air_v_symbol_in(v, air_v_module_of(v, from), name);
}

void air_v_symbol_add(air_vctx_t* v, uint32_t j) {
  uint32_t mask = v->sym_cap - 1;
  for (uint32_t i = (uint32_t)sym_hash(v->ops[j].parent, v->ops[j].op->sym) & mask;;
       i = (i + 1) & mask) {
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
    case AIR_TYPE_UNIVERSE: snprintf(buf, n, "!air.universe"); break;
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

/*---------------------------------------------------------------------------*/
/* Types, terminators and block arguments                                    */
/*---------------------------------------------------------------------------*/

/* Interned ids make equal types equal ids; the two token spellings are one type. */
bool air_v_same_type(const air_vctx_t* v, air_tid_t a, air_tid_t b) {
  if (a == b) return true;
  return air_ir_type(v->p, a)->kind == AIR_TYPE_TOKEN &&
         air_ir_type(v->p, b)->kind == AIR_TYPE_TOKEN;
}

bool air_v_is_int_like(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && t->elem != AIR_ELEM_NONE && !air_elem_is_float(t->elem) &&
         !air_elem_is_signed_or_unsigned(t->elem);
}
bool air_v_is_float(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && air_elem_is_float(t->elem);
}
bool air_v_is_i1(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && t->elem == AIR_ELEM_I1;
}

/* The terminator of region r when it is the expected kind; reports otherwise. */
const air_op_t* air_v_want_term(air_vctx_t* v, uint32_t id, uint32_t r, air_opkind_t k) {
  const air_op_t* op = v->ops[id].op;
  if (r >= op->n_regions || !op->regions[r]) return NULL;
  const air_op_t* t = op->regions[r]->last;
  if (!t || t->kind != k) {
    air_v_error(v, v->ops[id].op, "structure", "region #%u of %s must end with %s (found %s)", r, air_v_opname(op),
        air_opkind_name(k), t ? air_v_opname(t) : "an empty block");
    return NULL;
  }
  return t;
}

/* Checks that a terminator's operands match a list of values or of types. */
void air_v_match_yield(air_vctx_t* v, uint32_t id, const air_op_t* t, uint32_t n,
                        const air_vid_t* vals, const air_tid_t* tids, const char* rule,
                        const char* what) {
  const air_op_t* op = v->ops[id].op;
  if (t->n_operands != n || (n && !t->operands)) {
    air_v_error(v, v->ops[id].op, rule, "%s yields %u values but %s %s %u", air_v_opname(t), t->n_operands,
        air_v_opname(op), what, n);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    air_tid_t want = vals ? air_v_vtype(v, vals[i]) : tids[i];
    air_tid_t got = air_v_vtype(v, t->operands[i]);
    if (!air_v_valid(v, t->operands[i]) || air_v_same_type(v, want, got)) continue;
    char a[96], b[96];
    air_v_error(v, v->ops[id].op, rule, "value #%u of %s has type %s but %s expects %s", i, air_v_opname(t),
        air_v_tname(v, got, a, sizeof a), air_v_opname(op), air_v_tname(v, want, b, sizeof b));
  }
}

/* Block arguments [from, from + n) must have the given types. */
void air_v_match_args(air_vctx_t* v, uint32_t id, const air_block_t* b, uint32_t from, uint32_t n,
                       const air_vid_t* vals, const air_tid_t* tids, const char* what) {
  for (uint32_t i = 0; i < n && from + i < b->n_args; ++i) {
    air_vid_t a = b->args[from + i];
    air_tid_t want = vals ? air_v_vtype(v, vals[i]) : tids[i];
    if (!air_v_valid(v, a) || (vals && !air_v_valid(v, vals[i])) ||
        air_v_same_type(v, want, air_v_vtype(v, a)))
      continue;
    char x[96], y[96];
    air_v_error(v, v->ops[id].op, "structure", "block argument #%u (%s) of %s has type %s but must be %s", from + i, what,
        air_v_opname(v->ops[id].op), air_v_tname(v, air_v_vtype(v, a), x, sizeof x),
        air_v_tname(v, want, y, sizeof y));
  }
}


/*---------------------------------------------------------------------------*/
/* Channel indices                                                           */
/*---------------------------------------------------------------------------*/

bool air_v_chan_may_omit(const air_vchan_t* ch, bool put) {
  const int64_t* d = put ? ch->dims : ch->bdims;
  for (uint32_t k = 0; k < ch->rank; ++k)
    if (d[k] != 1) return false;
  return true;
}

bool air_v_chan_index_ignored(const air_vchan_t* ch, bool put, uint32_t k) {
  return !put && ch->broadcast && k < ch->rank && ch->dims[k] == 1 && ch->bdims[k] == 1;
}

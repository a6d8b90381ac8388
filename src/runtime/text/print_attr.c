/* print_attr.c - types, attributes, affine maps and literals as MLIR prints them.
 * Every literal must parse back to the same bits: floats take the shortest
 * scientific form that round-trips through strtod, inf/nan print as hex. */
#include "runtime/text/print_attr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"

/* Nesting deeper than this is not something mlir-air writes; it only guards the C
 * stack against a hostile builder. */
#define MAX_ATTR_DEPTH 512

static void put(air_sb_t* out, const char* s) { air_sb_puts(out, s); }

void air_print_i64(air_sb_t* out, int64_t v) {
  char buf[24], *e = buf + sizeof buf, *q = e;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do *--q = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *--q = '-';
  air_sb_append(out, q, (size_t)(e - q));
}

void air_print_string(air_sb_t* out, const char* s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  air_sb_putc(out, '"');
  size_t run = 0; /* plain bytes are copied in runs, not one by one */
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') continue;
    air_sb_append(out, s + run, i - run);
    run = i + 1;
    char esc[3] = {'\\', (char)c, 0};
    if (c != '"' && c != '\\') {
      esc[1] = hex[c >> 4];
      esc[2] = hex[c & 15];
    }
    air_sb_append(out, esc, esc[2] ? 3 : 2);
  }
  air_sb_append(out, s + run, n - run);
  air_sb_putc(out, '"');
}

static bool is_bare_id(const char* s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
    return false;
  for (++s; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '$' || *s == '.'))
      return false;
  return true;
}

/* A name that is a bare identifier prints as is, anything else as a string. */
static void put_keyword_or_string(air_sb_t* out, const char* s) {
  if (!s)
    put(out, "<<null>>");
  else if (is_bare_id(s))
    put(out, s);
  else
    air_print_string(out, s, strlen(s));
}

void air_print_symbol(air_sb_t* out, const char* s) {
  air_sb_putc(out, '@');
  put_keyword_or_string(out, s);
}

/*---------------------------------------------------------------------------*/
/* Types                                                                     */
/*---------------------------------------------------------------------------*/

void air_print_type(air_sb_t* out, const air_program_t* p, air_tid_t t) {
  const air_type_info_t* ti = air_ir_type(p, t);
  switch (ti->kind) {
    case AIR_TYPE_TOKEN: put(out, ti->old_spelling ? "!air.async.token" : "!air.token"); return;
    case AIR_TYPE_SCALAR: {
      const char* n = air_elem_name(ti->elem);
      put(out, n[0] ? n : "<<null>>");
      return;
    }
    case AIR_TYPE_MEMREF: case AIR_TYPE_TENSOR: break;
    case AIR_TYPE_UNIVERSE: put(out, "!air.universe"); return;
    default: put(out, "<<null>>"); return;
  }
  put(out, ti->kind == AIR_TYPE_MEMREF ? "memref<" : "tensor<");
  if (ti->unranked) put(out, "*x");
  for (uint32_t i = 0; i < ti->rank && ti->shape; ++i) {
    if (ti->shape[i] == AIR_DIM_DYNAMIC)
      air_sb_putc(out, '?');
    else
      air_print_i64(out, ti->shape[i]);
    air_sb_putc(out, 'x');
  }
  const char* n = air_elem_name(ti->elem);
  put(out, n[0] ? n : "<<null>>");
  if (ti->layout) {
    put(out, ", ");
    put(out, ti->layout);
  }
  if (ti->memspace != 0) {
    put(out, ", ");
    air_print_i64(out, ti->memspace);
  }
  air_sb_putc(out, '>');
}

/*---------------------------------------------------------------------------*/
/* Numbers                                                                   */
/*---------------------------------------------------------------------------*/

static air_elem_kind_t float_elem(const air_program_t* p, air_tid_t t) {
  const air_type_info_t* ti = air_ir_type(p, t);
  return ti->kind == AIR_TYPE_SCALAR && air_elem_is_float(ti->elem) ? ti->elem : AIR_ELEM_F64;
}

/* inf and nan have no decimal spelling MLIR reads back, so they print as the bit
 * pattern of the attribute's float type, as MLIR itself does. */
static void put_float_hex(air_sb_t* out, double f, air_elem_kind_t e) {
  char buf[24];
  if (e == AIR_ELEM_F32 || e == AIR_ELEM_BF16) {
    float x = (float)f;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if (e == AIR_ELEM_F32)
      snprintf(buf, sizeof buf, "0x%08X", (unsigned)u);
    else
      snprintf(buf, sizeof buf, "0x%04X", (unsigned)((u >> 16) | (isnan(f) ? 0x40u : 0u)));
  } else if (e == AIR_ELEM_F16) {
    unsigned u = (signbit(f) ? 0x8000u : 0u) | (isnan(f) ? 0x7E00u : 0x7C00u);
    snprintf(buf, sizeof buf, "0x%04X", u);
  } else {
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    snprintf(buf, sizeof buf, "0x%016llX", (unsigned long long)u);
  }
  put(out, buf);
}

static void put_float(air_sb_t* out, double f, air_elem_kind_t e) {
  if (isnan(f) || isinf(f)) {
    put_float_hex(out, f, e);
    return;
  }
  /* MLIR's `1.000000e+00` when six digits are exact, else the shortest longer
   * scientific form; 17 significant digits always round-trip a double. */
  char buf[40];
  for (int prec = 6; prec <= 16; ++prec) {
    snprintf(buf, sizeof buf, "%.*e", prec, f);
    double g = strtod(buf, NULL);
    if (memcmp(&g, &f, sizeof g) == 0) break;
  }
  for (char* c = buf; *c; ++c)
    if (*c == ',') *c = '.'; /* a host locale with a decimal comma */
  put(out, buf);
}

/*---------------------------------------------------------------------------*/
/* Affine expressions, maps and sets                                         */
/*---------------------------------------------------------------------------*/

/* MLIR's affine printer, with an explicit stack so that a long chain such as
 * d0 + d0 + ... (a left-deep tree) cannot exhaust the C stack. Tasks are pushed
 * in reverse of the order they print. */
typedef struct aff_task_t {
  const air_aff_t* e; /* neither e nor text: print `v` */
  const char* text;
  int64_t v;
  bool strong; /* enclosing operator binds tighter than + */
} aff_task_t;

typedef struct aff_stack_t {
  aff_task_t* t;
  size_t n, cap;
  aff_task_t local[64];
  air_sb_t* out;
  air_print_aff_leaf_fn leaf; /* prints dims and symbols when set */
  void* user;
} aff_stack_t;

static void aff_push(aff_stack_t* s, const air_aff_t* e, const char* text, int64_t v,
                     bool strong) {
  if (s->n == s->cap) {
    /* Past the local array the stack moves to the heap, copying what it held. */
    bool was_local = s->t == s->local;
    void* heap = was_local ? NULL : s->t;
    size_t cap = was_local ? 0 : s->cap;
    if (!air_mem_grow_z(&s->out->allocator, &heap, &cap, s->n + 1, sizeof *s->t)) {
      s->out->oom = true;
      return;
    }
    if (was_local) memcpy(heap, s->local, sizeof s->local);
    s->t = heap;
    s->cap = cap;
  }
  s->t[s->n++] = (aff_task_t){e, text, v, strong};
}
#define PUSH_E(s, e, strong) aff_push((s), (e), (e) ? NULL : "<<null>>", 0, (strong))
#define PUSH_T(s, text) aff_push((s), NULL, (text), 0, false)
#define PUSH_V(s, v) aff_push((s), NULL, NULL, (v), false)

static bool is_const(const air_aff_t* e, int64_t* v) {
  if (!e || e->kind != AIR_AFF_CONST) return false;
  *v = e->value;
  return true;
}

static void aff_expand(aff_stack_t* s, const air_aff_t* e, bool strong) {
  static const char* const ops[] = {[AIR_AFF_MUL] = " * ", [AIR_AFF_MOD] = " mod ",
                                    [AIR_AFF_FLOORDIV] = " floordiv ",
                                    [AIR_AFF_CEILDIV] = " ceildiv "};
  air_sb_t* out = s->out;
  switch (e->kind) {
    case AIR_AFF_CONST: air_print_i64(out, e->value); return;
    case AIR_AFF_DIM:
    case AIR_AFF_SYM:
      if (s->leaf) {
        s->leaf(s->user, e->kind == AIR_AFF_SYM, e->value);
        return;
      }
      air_sb_putc(out, e->kind == AIR_AFF_SYM ? 's' : 'd');
      air_print_i64(out, e->value);
      return;
    case AIR_AFF_MUL: case AIR_AFF_MOD: case AIR_AFF_FLOORDIV: case AIR_AFF_CEILDIV: break;
    case AIR_AFF_ADD: break;
    default: put(out, "<<null>>"); return;
  }
  int64_t c;
  if (strong) PUSH_T(s, ")");
  if (e->kind != AIR_AFF_ADD) {
    if (e->kind == AIR_AFF_MUL && is_const(e->rhs, &c) && c == -1) {
      PUSH_E(s, e->lhs, true);
      PUSH_T(s, "-");
    } else {
      PUSH_E(s, e->rhs, true);
      PUSH_T(s, ops[e->kind]);
      PUSH_E(s, e->lhs, true);
    }
  } else if (e->rhs && e->rhs->kind == AIR_AFF_MUL && is_const(e->rhs->rhs, &c) && c < 0 &&
             c != INT64_MIN) {
    /* a + b * -1 is `a - b`, a + b * -k is `a - b * k` */
    const air_aff_t* b = e->rhs->lhs;
    if (c == -1) {
      PUSH_E(s, b, b && b->kind == AIR_AFF_ADD);
    } else {
      PUSH_V(s, -c);
      PUSH_T(s, " * ");
      PUSH_E(s, b, true);
    }
    PUSH_T(s, " - ");
    PUSH_E(s, e->lhs, false);
  } else if (is_const(e->rhs, &c) && c < 0 && c != INT64_MIN) {
    PUSH_V(s, -c);
    PUSH_T(s, " - ");
    PUSH_E(s, e->lhs, false);
  } else {
    PUSH_E(s, e->rhs, false);
    PUSH_T(s, " + ");
    PUSH_E(s, e->lhs, false);
  }
  if (strong) PUSH_T(s, "(");
}

void air_print_aff(air_sb_t* out, const air_aff_t* e, air_print_aff_leaf_fn leaf, void* user) {
  aff_stack_t s;
  s.t = s.local;
  s.n = 0;
  s.cap = sizeof s.local / sizeof s.local[0];
  s.out = out;
  s.leaf = leaf;
  s.user = user;
  PUSH_E(&s, e, false);
  while (s.n && !out->oom) {
    aff_task_t t = s.t[--s.n];
    if (t.text)
      put(out, t.text);
    else if (!t.e)
      air_print_i64(out, t.v);
    else
      aff_expand(&s, t.e, t.strong);
  }
  if (s.t != s.local) air_mem_free(&out->allocator, s.t);
}

static void put_dims_syms(air_sb_t* out, uint32_t n_dims, uint32_t n_syms) {
  air_sb_putc(out, '(');
  for (uint32_t i = 0; i < n_dims; ++i) {
    if (i) put(out, ", ");
    air_sb_putc(out, 'd');
    air_print_i64(out, i);
  }
  air_sb_putc(out, ')');
  if (!n_syms) return;
  air_sb_putc(out, '[');
  for (uint32_t i = 0; i < n_syms; ++i) {
    if (i) put(out, ", ");
    air_sb_putc(out, 's');
    air_print_i64(out, i);
  }
  air_sb_putc(out, ']');
}

static void put_aff_or_null(air_sb_t* out, const air_aff_t* e) {
  if (e)
    air_print_aff(out, e, NULL, NULL);
  else
    put(out, "<<null>>");
}

void air_print_map_bare(air_sb_t* out, const air_affine_map_t* m) {
  if (!m) {
    put(out, "<<null>>");
    return;
  }
  put_dims_syms(out, m->n_dims, m->n_syms);
  put(out, " -> (");
  for (uint32_t i = 0; i < m->n_results && m->results; ++i) {
    if (i) put(out, ", ");
    put_aff_or_null(out, m->results[i]);
  }
  air_sb_putc(out, ')');
}

static void put_map(air_sb_t* out, const air_affine_map_t* m) {
  if (!m) {
    put(out, "<<null>>");
    return;
  }
  put(out, "affine_map<");
  air_print_map_bare(out, m);
  air_sb_putc(out, '>');
}

static void put_set(air_sb_t* out, const air_affine_set_t* st) {
  if (!st) {
    put(out, "<<null>>");
    return;
  }
  put(out, "affine_set<");
  put_dims_syms(out, st->n_dims, st->n_syms);
  put(out, " : (");
  for (uint32_t i = 0; i < st->n_constraints && st->constraints; ++i) {
    if (i) put(out, ", ");
    put_aff_or_null(out, st->constraints[i]);
    put(out, st->is_eq && st->is_eq[i] ? " == 0" : " >= 0");
  }
  put(out, ")>");
}

/*---------------------------------------------------------------------------*/
/* Attributes                                                                */
/*---------------------------------------------------------------------------*/

static bool is_i1(const air_program_t* p, air_tid_t t) {
  const air_type_info_t* ti = air_ir_type(p, t);
  return ti->kind == AIR_TYPE_SCALAR && ti->elem == AIR_ELEM_I1;
}

static void put_attr(air_sb_t* out, const air_program_t* p, const air_attr_t* a, int depth);

static void put_dict(air_sb_t* out, const air_program_t* p, const air_named_attr_t* d,
                     uint32_t n, int depth) {
  air_sb_putc(out, '{');
  for (uint32_t i = 0; i < n && d; ++i) {
    if (i) put(out, ", ");
    put_keyword_or_string(out, d[i].name);
    if (d[i].value.kind == AIR_ATTR_UNIT) continue;
    put(out, " = ");
    put_attr(out, p, &d[i].value, depth + 1);
  }
  air_sb_putc(out, '}');
}

static void put_attr(air_sb_t* out, const air_program_t* p, const air_attr_t* a, int depth) {
  if (!a || depth > MAX_ATTR_DEPTH) {
    put(out, "<<null>>");
    return;
  }
  switch (a->kind) {
    case AIR_ATTR_UNIT: put(out, "unit"); return;
    case AIR_ATTR_BOOL: put(out, a->i ? "true" : "false"); return;
    case AIR_ATTR_INT:
      if (a->type && is_i1(p, a->type)) {
        put(out, a->i ? "true" : "false");
        return;
      }
      air_print_i64(out, a->i);
      if (a->type) {
        put(out, " : ");
        air_print_type(out, p, a->type);
      }
      return;
    case AIR_ATTR_FLOAT:
      put_float(out, a->f, float_elem(p, a->type));
      if (a->type) {
        put(out, " : ");
        air_print_type(out, p, a->type);
      } else if (isnan(a->f) || isinf(a->f)) {
        put(out, " : f64"); /* a bare hex literal would read back as an integer */
      }
      return;
    case AIR_ATTR_STRING: air_print_string(out, a->s ? a->s : "", a->s ? a->n : 0); return;
    case AIR_ATTR_TYPE: air_print_type(out, p, a->type); return;
    case AIR_ATTR_SYMREF: air_print_symbol(out, a->s); return;
    case AIR_ATTR_ARRAY:
      air_sb_putc(out, '[');
      for (uint32_t i = 0; i < a->n && a->elems; ++i) {
        if (i) put(out, ", ");
        put_attr(out, p, &a->elems[i], depth + 1);
      }
      air_sb_putc(out, ']');
      return;
    case AIR_ATTR_DENSE: {
      bool i1 = is_i1(p, a->type);
      put(out, "array<");
      air_print_type(out, p, a->type);
      for (uint32_t i = 0; i < a->n && a->ints; ++i) {
        put(out, i ? ", " : ": ");
        if (i1)
          put(out, a->ints[i] ? "true" : "false");
        else
          air_print_i64(out, a->ints[i]);
      }
      air_sb_putc(out, '>');
      return;
    }
    case AIR_ATTR_DICT: put_dict(out, p, a->dict, a->n, depth); return;
    case AIR_ATTR_MAP: put_map(out, a->map); return;
    case AIR_ATTR_SET: put_set(out, a->set); return;
    case AIR_ATTR_ALIAS:
      if (a->i < 0 || (uint64_t)a->i >= p->n_aliases) {
        put(out, "<<null>>");
        return;
      }
      air_sb_putc(out, '#');
      put(out, p->aliases[a->i].name);
      return;
    case AIR_ATTR_OPAQUE: put(out, a->s ? a->s : "<<null>>"); return;
  }
  put(out, "<<null>>");
}

void air_print_attr(air_sb_t* out, const air_program_t* p, const air_attr_t* a) {
  put_attr(out, p, a, 0);
}

void air_print_attr_typed(air_sb_t* out, const air_program_t* p, const air_attr_t* a,
                          air_tid_t type) {
  if (a && (a->kind == AIR_ATTR_INT || a->kind == AIR_ATTR_FLOAT) && !a->type && type) {
    air_attr_t typed = *a;
    typed.type = type;
    put_attr(out, p, &typed, 0);
    return;
  }
  put_attr(out, p, a, 0);
}

void air_print_attr_dict(air_sb_t* out, const air_program_t* p,
                         const air_named_attr_t* attrs, uint32_t n) {
  put_dict(out, p, attrs, n, 0);
}

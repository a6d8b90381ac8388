/* print.c - IR -> AIR text, in MLIR's pretty form as mlir-air prints it.
 *
 * Two passes. The first names every value in program order. A written name is
 * kept when it is a valid SSA id not taken in scope: by an earlier value of the
 * same region or of an enclosing one, up to the nearest launch, segment, herd,
 * func or module, which opens a fresh scope (they are IsolatedFromAbove, so MLIR
 * lets names repeat there). Any other value gets `%N`, skipping every number
 * written anywhere in the program, so a generated name never meets a written
 * one. The second pass prints. As every printed name is free where it is
 * defined, printing the parsed output again keeps all of them: the text is a
 * fixed point.
 */
#include "runtime/text/print.h"

#include <string.h>

#include "runtime/text/print_attr.h"
#include "runtime/base/status_util.h"

enum { VN_UNSEEN = 0, VN_WRITTEN, VN_GEN };

typedef struct vname_t {
  const char* name; /* VN_WRITTEN */
  uint32_t n;       /* VN_WRITTEN: strlen(name); VN_GEN: the number */
  uint32_t idx : 30; /* result number inside a `%r:N` group */
  uint32_t state : 2;
  bool grouped;
} vname_t;

/* Scoped name table: open addressing, never deleted from. A slot is taken when
 * its scope is the current isolated scope; leaving a region restores the scopes
 * its names overwrote from the undo log. */
typedef struct slot_t {
  const char* key;
  uint32_t hash;
  uint32_t scope;
} slot_t;

typedef struct undo_t {
  uint32_t slot, scope;
} undo_t;

typedef struct printer_t {
  const air_program_t* p;
  air_sb_t* out;
  vname_t* names;
  slot_t* slots;
  uint32_t mask;
  undo_t* undo; /* a claim per value at most, so n_values entries suffice */
  uint32_t n_undo, cap_undo;
  uint8_t* taken; /* bitmap: decimal names written somewhere, below `limit` */
  uint32_t limit;
  uint32_t scope, n_scopes, next_num;
} printer_t;

/*---------------------------------------------------------------------------*/
/* Naming                                                                    */
/*---------------------------------------------------------------------------*/

/* MLIR's suffix-id: digits, or a letter or one of $._- followed by those and
 * digits. */
static bool valid_name(const char* s) {
  if (!s || !*s) return false;
  if (*s >= '0' && *s <= '9') {
    for (; *s; ++s)
      if (*s < '0' || *s > '9') return false;
    return true;
  }
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '$' || c == '.' || c == '_' || c == '-'))
      return false;
  }
  return true;
}

/* The number a name spells in canonical decimal, or UINT32_MAX. */
static uint32_t decimal_name(const char* s) {
  if (!s || !*s || (s[0] == '0' && s[1]) || strlen(s) > 9) return UINT32_MAX;
  uint32_t v = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9') return UINT32_MAX;
    v = v * 10 + (uint32_t)(*s - '0');
  }
  return v;
}

static uint32_t hash_name(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* Takes `name` in the current scope; false when something in scope has it. */
static bool claim(printer_t* pr, const char* name) {
  uint32_t h = hash_name(name), i = h & pr->mask;
  slot_t* s;
  while ((s = &pr->slots[i])->key && (s->hash != h || strcmp(s->key, name) != 0))
    i = (i + 1) & pr->mask;
  /* a full log means a value was visited twice: IR sharing values */
  if ((s->key && s->scope == pr->scope) || pr->n_undo == pr->cap_undo) return false;
  pr->undo[pr->n_undo++] = (undo_t){i, s->key ? s->scope : 0};
  s->key = name;
  s->hash = h;
  s->scope = pr->scope;
  return true;
}

static uint32_t gen_num(printer_t* pr) {
  while (pr->next_num < pr->limit && (pr->taken[pr->next_num >> 3] >> (pr->next_num & 7) & 1))
    ++pr->next_num;
  return pr->next_num++;
}

static bool ok_vid(const printer_t* pr, air_vid_t v) { return v && v < pr->p->n_values; }

static void name_value(printer_t* pr, air_vid_t v) {
  if (!ok_vid(pr, v)) return;
  vname_t* vn = &pr->names[v];
  const char* w = pr->p->values[v].name;
  memset(vn, 0, sizeof *vn);
  if (valid_name(w) && claim(pr, w)) {
    vn->state = VN_WRITTEN;
    vn->name = w;
    vn->n = (uint32_t)strlen(w);
  } else {
    vn->state = VN_GEN;
    vn->n = gen_num(pr);
  }
}

/* Results that share one written name, or that are all unnamed, print as a
 * group `%r:N` (MLIR's `%0:2`); otherwise each result has its own name. */
static void name_results(printer_t* pr, const air_op_t* op) {
  uint32_t n = op->n_results;
  if (n > 1 && op->results) {
    const char* w0 = NULL;
    bool same = true, unnamed = true;
    for (uint32_t i = 0; i < n; ++i) {
      if (!ok_vid(pr, op->results[i])) {
        same = unnamed = false;
        break;
      }
      const char* w = pr->p->values[op->results[i]].name;
      if (i == 0) w0 = w;
      if (w) unnamed = false;
      if (!w || !w0 || strcmp(w, w0) != 0) same = false;
    }
    if (same || unnamed) {
      vname_t g = {0};
      g.grouped = true;
      if (same && valid_name(w0) && claim(pr, w0)) {
        g.state = VN_WRITTEN;
        g.name = w0;
        g.n = (uint32_t)strlen(w0);
      } else {
        g.state = VN_GEN;
        g.n = gen_num(pr);
      }
      for (uint32_t i = 0; i < n; ++i) {
        g.idx = i;
        pr->names[op->results[i]] = g;
      }
      return;
    }
  }
  for (uint32_t i = 0; i < n && op->results; ++i) name_value(pr, op->results[i]);
}

static bool is_isolated(const air_op_t* op) {
  air_opcls_t c = air_opkind_class(op->kind);
  return c == AIR_OPC_HIER || c == AIR_OPC_FUNC || c == AIR_OPC_MODULE;
}

/* In program order: a name is taken from its definition to the end of the region
 * that holds it, as MLIR's parser scopes names. An op's results are claimed
 * before its regions, so no inner value reuses them. */
static void name_block(printer_t* pr, const air_block_t* b) {
  uint32_t mark = pr->n_undo;
  for (uint32_t i = 0; i < b->n_args && b->args; ++i) name_value(pr, b->args[i]);
  for (const air_op_t* op = b->first; op; op = op->next) {
    name_results(pr, op);
    for (uint32_t r = 0; r < op->n_regions && op->regions; ++r) {
      if (!op->regions[r]) continue;
      if (!is_isolated(op)) {
        name_block(pr, op->regions[r]);
        continue;
      }
      uint32_t scope = pr->scope, num = pr->next_num;
      pr->scope = ++pr->n_scopes;
      pr->next_num = 0;
      name_block(pr, op->regions[r]);
      pr->scope = scope;
      pr->next_num = num;
    }
  }
  while (pr->n_undo > mark) {
    undo_t u = pr->undo[--pr->n_undo];
    pr->slots[u.slot].scope = u.scope;
  }
}

static bool name_program(printer_t* pr) {
  const air_program_t* p = pr->p;
  const air_allocator_t* a = &p->allocator;
  uint32_t n = p->n_values ? p->n_values : 1, n_named = 0;
  for (uint32_t v = 1; v < p->n_values; ++v) n_named += p->values[v].name != NULL;
  uint32_t cap = 16;
  while (cap < 2u * n_named && cap < (1u << 31)) cap <<= 1;
  pr->limit = 2u * n + 2u;
  pr->names = a->alloc(a->self, (size_t)n * sizeof *pr->names);
  pr->slots = a->alloc(a->self, (size_t)cap * sizeof *pr->slots);
  pr->undo = a->alloc(a->self, (size_t)n * sizeof *pr->undo);
  pr->taken = a->alloc(a->self, pr->limit / 8 + 1);
  if (!pr->names || !pr->slots || !pr->undo || !pr->taken) return false;
  memset(pr->names, 0, (size_t)n * sizeof *pr->names);
  memset(pr->slots, 0, (size_t)cap * sizeof *pr->slots);
  memset(pr->taken, 0, pr->limit / 8 + 1);
  pr->mask = cap - 1;
  pr->cap_undo = n;
  for (uint32_t v = 1; v < p->n_values; ++v) {
    uint32_t d = decimal_name(p->values[v].name);
    if (d < pr->limit) pr->taken[d >> 3] |= (uint8_t)(1u << (d & 7));
  }
  pr->scope = pr->n_scopes = 1;
  if (p->module && p->module->n_regions && p->module->regions && p->module->regions[0])
    name_block(pr, p->module->regions[0]);
  return true;
}

/*---------------------------------------------------------------------------*/
/* Small pieces                                                              */
/*---------------------------------------------------------------------------*/

static const air_ixlist_t k_empty_list = {0, NULL};

static air_vid_t opnd(const air_op_t* op, uint32_t i) {
  return i < op->n_operands && op->operands ? op->operands[i] : 0;
}
static air_vid_t res(const air_op_t* op, uint32_t i) {
  return i < op->n_results && op->results ? op->results[i] : 0;
}
static const air_block_t* region(const air_op_t* op, uint32_t i) {
  return i < op->n_regions && op->regions ? op->regions[i] : NULL;
}
static air_vid_t barg(const air_block_t* b, uint32_t i) {
  return b && i < b->n_args && b->args ? b->args[i] : 0;
}
static const air_ixlist_t* list(const air_op_t* op, uint32_t i) {
  return i < op->n_lists && op->lists ? &op->lists[i] : &k_empty_list;
}
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static void put(printer_t* pr, const char* s) { air_sb_puts(pr->out, s); }

static void put_indent(printer_t* pr, int level) {
  static const char sp[] = "                                ";
  size_t n = (size_t)level * 2;
  while (n) {
    size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
    air_sb_append(pr->out, sp, k);
    n -= k;
  }
}

static void put_u32(printer_t* pr, uint32_t v) { air_print_i64(pr->out, v); }

static void put_val(printer_t* pr, air_vid_t v) {
  if (!ok_vid(pr, v)) {
    put(pr, "<<null>>");
    return;
  }
  const vname_t* vn = &pr->names[v];
  air_sb_putc(pr->out, '%');
  if (vn->state == VN_WRITTEN) {
    air_sb_append(pr->out, vn->name, vn->n);
  } else if (vn->state == VN_GEN) {
    put_u32(pr, vn->n);
  } else if (pr->p->values[v].name) {
    /* never defined where we printed: a value captured across an isolated
     * boundary, or from an op not in the program */
    put(pr, pr->p->values[v].name);
  } else {
    put(pr, "<<v");
    put_u32(pr, v);
    put(pr, ">>");
  }
  if (vn->grouped) {
    air_sb_putc(pr->out, '#');
    put_u32(pr, vn->idx);
  }
}

static void put_vals(printer_t* pr, const air_vid_t* v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (i) put(pr, ", ");
    put_val(pr, v ? v[i] : 0);
  }
}

/* Operands [from, to) of op, clamped. */
static void put_opnds(printer_t* pr, const air_op_t* op, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; ++i) {
    if (i > from) put(pr, ", ");
    put_val(pr, opnd(op, i));
  }
}

static void put_type(printer_t* pr, air_tid_t t) { air_print_type(pr->out, pr->p, t); }

static void put_vtype(printer_t* pr, air_vid_t v) { put_type(pr, air_ir_value_type(pr->p, v)); }

static void put_vtypes(printer_t* pr, const air_vid_t* v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (i) put(pr, ", ");
    put_vtype(pr, v ? v[i] : 0);
  }
}

static void put_opnd_types(printer_t* pr, const air_op_t* op, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; ++i) {
    if (i > from) put(pr, ", ");
    put_vtype(pr, opnd(op, i));
  }
}

/* ` -> T` for one type, ` -> (A, B)` for more (MLIR's optional arrow list). */
static void put_arrow_results(printer_t* pr, const air_op_t* op) {
  if (!op->n_results) return;
  put(pr, op->n_results == 1 ? " -> " : " -> (");
  put_vtypes(pr, op->results, op->n_results);
  if (op->n_results > 1) air_sb_putc(pr->out, ')');
}

static void put_attrs(printer_t* pr, const air_op_t* op) {
  if (!op->n_attrs) return;
  air_sb_putc(pr->out, ' ');
  air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
}

static void put_attrs_kw(printer_t* pr, const air_op_t* op) {
  if (!op->n_attrs) return;
  put(pr, " attributes ");
  air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
}

static void put_ixlist(printer_t* pr, const air_ixlist_t* l) {
  air_sb_putc(pr->out, '[');
  for (uint32_t i = 0; i < l->n && l->items; ++i) {
    if (i) put(pr, ", ");
    if (l->items[i].value)
      put_val(pr, l->items[i].value);
    else
      air_print_i64(pr->out, l->items[i].cst);
  }
  air_sb_putc(pr->out, ']');
}

/* `%m[offsets] [sizes] [strides]` from lists[first..first+2]. */
static void put_memref_slice(printer_t* pr, air_vid_t m, const air_op_t* op, uint32_t first) {
  put_val(pr, m);
  put_ixlist(pr, list(op, first));
  air_sb_putc(pr->out, ' ');
  put_ixlist(pr, list(op, first + 1));
  air_sb_putc(pr->out, ' ');
  put_ixlist(pr, list(op, first + 2));
}

static void put_tok_list(printer_t* pr, const air_vlist_t* l) {
  air_sb_putc(pr->out, '[');
  put_vals(pr, l->items, l->n);
  air_sb_putc(pr->out, ']');
}

/* mlir-air's async-deps: `async`, then the dependency list (without `async` a
 * list means a blocking op that first waits). */
static void put_async(printer_t* pr, const air_op_t* op) {
  if (op->flags & AIR_OPF_ASYNC) put(pr, " async");
  if (op->flags & AIR_OPF_SYNC) put(pr, " sync");
  if (op->toks[AIR_TOK_DEP].n) {
    air_sb_putc(pr->out, ' ');
    put_tok_list(pr, &op->toks[AIR_TOK_DEP]);
  }
}

/* The spec's affinity/concurrency lists, which mlir-air has no syntax for:
 * after `attributes` of a hierarchy op, after the dependencies elsewhere. */
static void put_aff_conc(printer_t* pr, const air_op_t* op) {
  if (op->toks[AIR_TOK_AFF].n) {
    put(pr, " [affinity = ");
    put_tok_list(pr, &op->toks[AIR_TOK_AFF]);
    air_sb_putc(pr->out, ']');
  }
  if (op->toks[AIR_TOK_CONC].n) {
    put(pr, " [concurrency = ");
    put_tok_list(pr, &op->toks[AIR_TOK_CONC]);
    air_sb_putc(pr->out, ']');
  }
}

static void put_results(printer_t* pr, const air_op_t* op) {
  uint32_t n = op->n_results;
  if (!n) return;
  air_vid_t r0 = res(op, 0);
  if (n > 1 && ok_vid(pr, r0) && pr->names[r0].grouped) {
    const vname_t* g = &pr->names[r0];
    air_sb_putc(pr->out, '%');
    if (g->state == VN_WRITTEN)
      air_sb_append(pr->out, g->name, g->n);
    else
      put_u32(pr, g->n);
    air_sb_putc(pr->out, ':');
    put_u32(pr, n);
  } else {
    put_vals(pr, op->results, n);
  }
  put(pr, " = ");
}

/*---------------------------------------------------------------------------*/
/* Ops and regions                                                           */
/*---------------------------------------------------------------------------*/

static void print_op(printer_t* pr, const air_op_t* op, int level);

/* The terminator MLIR materialises when a region of `owner` omits it. */
static int implicit_terminator(const air_op_t* owner) {
  switch (owner->kind) {
    case AIR_OP_LAUNCH: return AIR_OP_LAUNCH_TERM;
    case AIR_OP_SEGMENT: return AIR_OP_SEGMENT_TERM;
    case AIR_OP_HERD: return AIR_OP_HERD_TERM;
    case AIR_OP_EXECUTE: return AIR_OP_EXECUTE_TERM;
    case AIR_OP_FOR: case AIR_OP_IF: return AIR_OP_YIELD;
    case AIR_OP_AFFINE_FOR: case AIR_OP_AFFINE_IF: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_PARALLEL: return AIR_OP_REDUCE;
    default: return -1;
  }
}

static bool elided(const air_op_t* owner, const air_op_t* op) {
  return !op->next && (int)op->kind == implicit_terminator(owner) && !op->n_operands &&
         !op->n_regions && !op->n_attrs;
}

/* `{`, the ops one level deeper, `}` at `level`. `label` prints `^bb0(args):`
 * for regions whose arguments have no other syntax (scf.reduce, linalg.generic). */
static void print_region(printer_t* pr, const air_op_t* owner, const air_block_t* b,
                         int level, bool label) {
  put(pr, "{\n");
  if (b) {
    if (label && b->n_args) {
      put_indent(pr, level);
      put(pr, "^bb0(");
      for (uint32_t i = 0; i < b->n_args; ++i) {
        if (i) put(pr, ", ");
        put_val(pr, barg(b, i));
        put(pr, ": ");
        put_vtype(pr, barg(b, i));
      }
      put(pr, "):\n");
    }
    for (const air_op_t* op = b->first; op && !pr->out->oom; op = op->next)
      if (!elided(owner, op)) print_op(pr, op, level + 1);
  }
  put_indent(pr, level);
  air_sb_putc(pr->out, '}');
}

static void print_module(printer_t* pr, const air_op_t* op, int level) {
  put(pr, "module");
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  put_attrs_kw(pr, op);
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, region(op, 0), level, false);
}

static void print_func(printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* body = region(op, 0);
  uint32_t n_in = min_u32(op->iaux[0], op->n_types);
  put(pr, op->flags & AIR_OPF_PRIVATE ? "func.func private " : "func.func ");
  air_print_symbol(pr->out, op->sym);
  air_sb_putc(pr->out, '(');
  if (body) {
    for (uint32_t i = 0; i < body->n_args; ++i) {
      if (i) put(pr, ", ");
      put_val(pr, barg(body, i));
      put(pr, ": ");
      put_vtype(pr, barg(body, i));
    }
  } else {
    for (uint32_t i = 0; i < n_in; ++i) {
      if (i) put(pr, ", ");
      put_type(pr, op->types[i]);
    }
  }
  air_sb_putc(pr->out, ')');
  uint32_t n_out = op->n_types - n_in;
  if (n_out) {
    put(pr, n_out == 1 ? " -> " : " -> (");
    for (uint32_t i = 0; i < n_out; ++i) {
      if (i) put(pr, ", ");
      put_type(pr, op->types[n_in + i]);
    }
    if (n_out > 1) air_sb_putc(pr->out, ')');
  }
  put_attrs_kw(pr, op);
  if (body) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, body, level, false);
  }
}

static void print_hier(printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = region(op, 0);
  uint32_t n = min_u32(op->iaux[0], op->n_operands);
  put(pr, air_opkind_name(op->kind));
  if (op->sym) {
    air_sb_putc(pr->out, ' ');
    air_print_symbol(pr->out, op->sym);
  }
  put_async(pr, op);
  if (op->kind != AIR_OP_SEGMENT || n) {
    put(pr, op->kind == AIR_OP_LAUNCH ? " (" : op->kind == AIR_OP_HERD ? " tile (" : " unroll(");
    for (uint32_t i = 0; i < n; ++i) {
      if (i) put(pr, ", ");
      put_val(pr, barg(b, i));
    }
    put(pr, ") in (");
    for (uint32_t i = 0; i < n; ++i) {
      if (i) put(pr, ", ");
      put_val(pr, barg(b, n + i));
      air_sb_putc(pr->out, '=');
      put_val(pr, opnd(op, i));
    }
    air_sb_putc(pr->out, ')');
  }
  if (op->n_operands > n) {
    put(pr, " args(");
    for (uint32_t i = n; i < op->n_operands; ++i) {
      if (i > n) put(pr, ", ");
      put_val(pr, barg(b, n + i));
      air_sb_putc(pr->out, '=');
      put_val(pr, opnd(op, i));
    }
    put(pr, ") : ");
    put_opnd_types(pr, op, n, op->n_operands);
  }
  put_aff_conc(pr, op);
  put_attrs_kw(pr, op);
  if (b) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, b, level, false);
  }
}

static void print_channel_io(printer_t* pr, const air_op_t* op) {
  uint32_t n = min_u32(op->iaux[0], op->n_operands);
  put(pr, air_opkind_name(op->kind));
  put_async(pr, op);
  put_aff_conc(pr, op);
  air_sb_putc(pr->out, ' ');
  air_print_symbol(pr->out, op->sym);
  air_sb_putc(pr->out, '[');
  put_opnds(pr, op, 0, n);
  put(pr, "] (");
  put_memref_slice(pr, opnd(op, n), op, 0);
  air_sb_putc(pr->out, ')');
  if (op->flags & AIR_OPF_HAS_DEST) {
    put(pr, " dest(");
    put_val(pr, opnd(op, n + 1));
    air_sb_putc(pr->out, ')');
  }
  put_attrs(pr, op);
  put(pr, " : (");
  put_vtype(pr, opnd(op, n));
  air_sb_putc(pr->out, ')');
}

static void print_dma(printer_t* pr, const air_op_t* op) {
  put(pr, "air.dma_memcpy_nd");
  put_async(pr, op);
  put_aff_conc(pr, op);
  put(pr, " (");
  put_memref_slice(pr, opnd(op, 0), op, 0);
  put(pr, ", ");
  put_memref_slice(pr, opnd(op, 1), op, 3);
  air_sb_putc(pr->out, ')');
  put_attrs(pr, op);
  put(pr, " : (");
  put_opnd_types(pr, op, 0, 2);
  air_sb_putc(pr->out, ')');
}

static void print_execute(printer_t* pr, const air_op_t* op, int level) {
  put(pr, "air.execute");
  if (op->toks[AIR_TOK_DEP].n) {
    air_sb_putc(pr->out, ' ');
    put_tok_list(pr, &op->toks[AIR_TOK_DEP]);
  }
  put_aff_conc(pr, op);
  if (op->n_results > 1) {
    put(pr, " -> (");
    put_vtypes(pr, op->results + 1, op->n_results - 1);
    air_sb_putc(pr->out, ')');
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, region(op, 0), level, false);
  put_attrs(pr, op);
}

static void print_terminator(printer_t* pr, const air_op_t* op) {
  const air_op_t* owner = air_ir_parent_op(op);
  /* MLIR drops the `func.` of return inside a func.func */
  bool bare = op->kind == AIR_OP_RETURN && owner && owner->kind == AIR_OP_FUNC;
  put(pr, bare ? "return" : air_opkind_name(op->kind));
  put_attrs(pr, op);
  if (!op->n_operands) return;
  air_sb_putc(pr->out, ' ');
  put_vals(pr, op->operands, op->n_operands);
  put(pr, " : ");
  put_vtypes(pr, op->operands, op->n_operands);
}

static void print_for(printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = region(op, 0);
  put(pr, "scf.for ");
  put_val(pr, barg(b, 0));
  put(pr, " = ");
  put_val(pr, opnd(op, 0));
  put(pr, " to ");
  put_val(pr, opnd(op, 1));
  put(pr, " step ");
  put_val(pr, opnd(op, 2));
  if (op->n_operands > 3) {
    put(pr, " iter_args(");
    for (uint32_t i = 3; i < op->n_operands; ++i) {
      if (i > 3) put(pr, ", ");
      put_val(pr, barg(b, i - 2));
      put(pr, " = ");
      put_val(pr, opnd(op, i));
    }
    put(pr, ") -> (");
    if (op->n_results)
      put_vtypes(pr, op->results, op->n_results);
    else
      put_opnd_types(pr, op, 3, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_tid_t ivt = air_ir_value_type(pr->p, barg(b, 0));
  const air_type_info_t* ti = air_ir_type(pr->p, ivt);
  if (b && b->n_args && !(ti->kind == AIR_TYPE_SCALAR && ti->elem == AIR_ELEM_INDEX)) {
    put(pr, " : ");
    put_type(pr, ivt);
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  put_attrs(pr, op);
}

static void print_parallel(printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = region(op, 0);
  uint32_t n = min_u32(op->iaux[0], op->n_operands / 3);
  put(pr, "scf.parallel (");
  for (uint32_t i = 0; i < n; ++i) {
    if (i) put(pr, ", ");
    put_val(pr, barg(b, i));
  }
  put(pr, ") = (");
  put_opnds(pr, op, 0, n);
  put(pr, ") to (");
  put_opnds(pr, op, n, 2 * n);
  put(pr, ") step (");
  put_opnds(pr, op, 2 * n, 3 * n);
  air_sb_putc(pr->out, ')');
  if (op->n_operands > 3 * n) {
    put(pr, " init (");
    put_opnds(pr, op, 3 * n, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  put_arrow_results(pr, op);
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  put_attrs(pr, op);
}

static void print_reduce(printer_t* pr, const air_op_t* op, int level) {
  put(pr, "scf.reduce");
  if (op->n_operands) {
    air_sb_putc(pr->out, '(');
    put_vals(pr, op->operands, op->n_operands);
    put(pr, " : ");
    put_vtypes(pr, op->operands, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    put(pr, r ? ", " : " ");
    print_region(pr, op, region(op, r), level, true);
  }
  put_attrs(pr, op);
}

/* scf.if and affine.if: then/else regions after the header. */
static void print_branches(printer_t* pr, const air_op_t* op, int level) {
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, region(op, 0), level, false);
  if (region(op, 1)) {
    put(pr, " else ");
    print_region(pr, op, region(op, 1), level, false);
  }
  put_attrs(pr, op);
}

/* affine.apply / affine.if operands: `(dims)[symbols]`. */
static void put_dims_syms(printer_t* pr, const air_op_t* op) {
  uint32_t nd = min_u32(op->iaux[0], op->n_operands);
  air_sb_putc(pr->out, '(');
  put_opnds(pr, op, 0, nd);
  air_sb_putc(pr->out, ')');
  if (op->n_operands > nd) {
    air_sb_putc(pr->out, '[');
    put_opnds(pr, op, nd, op->n_operands);
    air_sb_putc(pr->out, ']');
  }
}

typedef struct subscript_ctx_t {
  printer_t* pr;
  const air_op_t* op;
  uint32_t first, nd; /* operand of d0; #dims */
} subscript_ctx_t;

static void put_subscript_leaf(void* user, bool is_sym, int64_t pos) {
  const subscript_ctx_t* c = user;
  uint64_t i = (uint64_t)c->first + (uint64_t)pos + (is_sym ? c->nd : 0);
  if (pos < 0 || i >= c->op->n_operands) {
    put(c->pr, "<<null>>");
    return;
  }
  if (is_sym) put(c->pr, "symbol(");
  put_val(c->pr, opnd(c->op, (uint32_t)i));
  if (is_sym) air_sb_putc(c->pr->out, ')');
}

/* affine.load/store subscripts: the map's results with the operands written in
 * place of its dimensions and symbols, as MLIR prints them. */
static void put_subscripts(printer_t* pr, const air_op_t* op, uint32_t first) {
  const air_attr_t* m = air_ir_attr_resolve(pr->p, &op->value);
  if (!m || m->kind != AIR_ATTR_MAP || !m->map) {
    put(pr, "<<null>>");
    return;
  }
  subscript_ctx_t c = {pr, op, first, op->iaux[0]};
  for (uint32_t i = 0; i < m->map->n_results && m->map->results; ++i) {
    if (i) put(pr, ", ");
    if (m->map->results[i])
      air_print_aff(pr->out, m->map->results[i], put_subscript_leaf, &c);
    else
      put(pr, "<<null>>");
  }
}

static void put_bound(printer_t* pr, const air_ixlist_t* l, uint32_t i) {
  if (i >= l->n || !l->items)
    put(pr, "<<null>>");
  else if (l->items[i].value)
    put_val(pr, l->items[i].value);
  else
    air_print_i64(pr->out, l->items[i].cst);
}

/* collapse_shape / expand_shape / cast; see the RESHAPE layout in ir.h. */
static void print_reshape(printer_t* pr, const air_op_t* op) {
  put(pr, air_opkind_name(op->kind));
  air_sb_putc(pr->out, ' ');
  put_val(pr, opnd(op, 0));
  if (op->kind != AIR_OP_MEMREF_CAST) {
    const air_ixlist_t* idx = list(op, 0);
    const air_ixlist_t* groups = list(op, 1);
    uint32_t k = 0;
    put(pr, " [");
    for (uint32_t g = 0; g < groups->n && groups->items; ++g) {
      if (g) put(pr, ", ");
      air_sb_putc(pr->out, '[');
      /* bounded by the index list: broken sizes must not print forever */
      for (int64_t j = 0; j < groups->items[g].cst && k < idx->n && idx->items; ++j, ++k) {
        if (j) put(pr, ", ");
        air_print_i64(pr->out, idx->items[k].cst);
      }
      air_sb_putc(pr->out, ']');
    }
    air_sb_putc(pr->out, ']');
    if (op->kind == AIR_OP_EXPAND_SHAPE && op->n_lists > 2) {
      put(pr, " output_shape ");
      put_ixlist(pr, list(op, 2));
    }
  }
  put_attrs(pr, op);
  put(pr, " : ");
  put_vtype(pr, opnd(op, 0));
  put(pr, op->kind == AIR_OP_MEMREF_CAST ? " to " : " into ");
  put_vtype(pr, res(op, 0));
}

static void print_affine_for(printer_t* pr, const air_op_t* op, int level) {
  const air_block_t* b = region(op, 0);
  put(pr, "affine.for ");
  put_val(pr, barg(b, 0));
  put(pr, " = ");
  put_bound(pr, list(op, 0), 0);
  put(pr, " to ");
  put_bound(pr, list(op, 0), 1);
  if (op->iaux[1] != 1) {
    put(pr, " step ");
    put_u32(pr, op->iaux[1]);
  }
  if (op->n_operands) {
    put(pr, " iter_args(");
    for (uint32_t i = 0; i < op->n_operands; ++i) {
      if (i) put(pr, ", ");
      put_val(pr, barg(b, i + 1));
      put(pr, " = ");
      put_val(pr, op->operands[i]);
    }
    put(pr, ") -> (");
    if (op->n_results)
      put_vtypes(pr, op->results, op->n_results);
    else
      put_vtypes(pr, op->operands, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  air_sb_putc(pr->out, ' ');
  print_region(pr, op, b, level, false);
  put_attrs(pr, op);
}

static void print_linalg(printer_t* pr, const air_op_t* op, int level) {
  uint32_t n_in = min_u32(op->iaux[0], op->n_operands);
  bool generic = op->kind == AIR_OP_GENERIC;
  put(pr, air_opkind_name(op->kind));
  if (generic) {
    air_sb_putc(pr->out, ' ');
    air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
  } else {
    put_attrs(pr, op);
  }
  if (n_in) {
    put(pr, " ins(");
    put_opnds(pr, op, 0, n_in);
    put(pr, " : ");
    put_opnd_types(pr, op, 0, n_in);
    air_sb_putc(pr->out, ')');
  }
  if (op->n_operands > n_in) {
    put(pr, " outs(");
    put_opnds(pr, op, n_in, op->n_operands);
    put(pr, " : ");
    put_opnd_types(pr, op, n_in, op->n_operands);
    air_sb_putc(pr->out, ')');
  }
  if (generic && region(op, 0)) {
    air_sb_putc(pr->out, ' ');
    print_region(pr, op, region(op, 0), level, true);
  }
  put_arrow_results(pr, op);
}

static void print_op(printer_t* pr, const air_op_t* op, int level) {
  const char* name = air_opkind_name(op->kind);
  put_indent(pr, level);
  put_results(pr, op);
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_MODULE: print_module(pr, op, level); break;
    case AIR_OPC_OPAQUE: put(pr, op->text ? op->text : "<<null>>"); break;
    case AIR_OPC_FUNC: print_func(pr, op, level); break;
    case AIR_OPC_CALL:
      put(pr, "func.call ");
      air_print_symbol(pr->out, op->sym);
      air_sb_putc(pr->out, '(');
      put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      put_attrs(pr, op);
      put(pr, " : (");
      put_vtypes(pr, op->operands, op->n_operands);
      put(pr, op->n_results == 1 ? ") -> " : ") -> (");
      put_vtypes(pr, op->results, op->n_results);
      if (op->n_results != 1) air_sb_putc(pr->out, ')');
      break;
    case AIR_OPC_TERMINATOR: print_terminator(pr, op); break;
    case AIR_OPC_CHANNEL:
      put(pr, "air.channel ");
      air_print_symbol(pr->out, op->sym);
      air_sb_putc(pr->out, ' ');
      put_ixlist(pr, list(op, 0));
      put_attrs(pr, op);
      break;
    case AIR_OPC_HIER: print_hier(pr, op, level); break;
    case AIR_OPC_CHANNEL_IO: print_channel_io(pr, op); break;
    case AIR_OPC_DMA: print_dma(pr, op); break;
    case AIR_OPC_WAIT_ALL:
      put(pr, name);
      put_async(pr, op);
      put_aff_conc(pr, op);
      put_attrs(pr, op);
      break;
    case AIR_OPC_EXECUTE: print_execute(pr, op, level); break;
    case AIR_OPC_TOKEN_ALLOC:
      put(pr, name);
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, res(op, 0));
      break;
    case AIR_OPC_CONSTANT:
      put(pr, name);
      put_attrs(pr, op);
      air_sb_putc(pr->out, ' ');
      air_print_attr_typed(pr->out, pr->p, &op->value, air_ir_value_type(pr->p, res(op, 0)));
      break;
    case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_SELECT:
      put(pr, name);
      air_sb_putc(pr->out, ' ');
      put_vals(pr, op->operands, op->n_operands);
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, res(op, 0));
      break;
    case AIR_OPC_CMP:
      put(pr, name);
      air_sb_putc(pr->out, ' ');
      put(pr, op->kind == AIR_OP_CMPF ? air_cmpf_pred_name(op->iaux[0])
                                      : air_cmpi_pred_name(op->iaux[0]));
      put(pr, ", ");
      put_vals(pr, op->operands, op->n_operands);
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, 0));
      break;
    case AIR_OPC_CAST:
      put(pr, name);
      air_sb_putc(pr->out, ' ');
      put_val(pr, opnd(op, 0));
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, 0));
      put(pr, " to ");
      put_vtype(pr, res(op, 0));
      break;
    case AIR_OPC_ALLOC:
      put(pr, "memref.alloc(");
      put_vals(pr, op->operands, op->n_operands);
      air_sb_putc(pr->out, ')');
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, res(op, 0));
      break;
    case AIR_OPC_DEALLOC:
      put(pr, "memref.dealloc ");
      put_val(pr, opnd(op, 0));
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, 0));
      break;
    case AIR_OPC_LOAD: case AIR_OPC_STORE: {
      uint32_t m = air_opkind_class(op->kind) == AIR_OPC_STORE;
      put(pr, name);
      air_sb_putc(pr->out, ' ');
      if (m) {
        put_val(pr, opnd(op, 0));
        put(pr, ", ");
      }
      put_val(pr, opnd(op, m));
      air_sb_putc(pr->out, '[');
      if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE)
        put_subscripts(pr, op, m + 1);
      else
        put_opnds(pr, op, m + 1, op->n_operands);
      air_sb_putc(pr->out, ']');
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, m));
      break;
    }
    case AIR_OPC_COPY:
      put(pr, "memref.copy ");
      put_opnds(pr, op, 0, 2);
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, 0));
      put(pr, " to ");
      put_vtype(pr, opnd(op, 1));
      break;
    case AIR_OPC_SUBVIEW:
      put(pr, "memref.subview ");
      put_memref_slice(pr, opnd(op, 0), op, 0);
      put_attrs(pr, op);
      put(pr, " : ");
      put_vtype(pr, opnd(op, 0));
      put(pr, " to ");
      put_vtype(pr, res(op, 0));
      break;
    case AIR_OPC_RESHAPE: print_reshape(pr, op); break;
    case AIR_OPC_FOR: print_for(pr, op, level); break;
    case AIR_OPC_PARALLEL: print_parallel(pr, op, level); break;
    case AIR_OPC_REDUCE: print_reduce(pr, op, level); break;
    case AIR_OPC_IF:
      put(pr, "scf.if ");
      put_val(pr, opnd(op, 0));
      if (op->n_results) {
        put(pr, " -> (");
        put_vtypes(pr, op->results, op->n_results);
        air_sb_putc(pr->out, ')');
      }
      print_branches(pr, op, level);
      break;
    case AIR_OPC_AFFINE_APPLY:
      put(pr, name);
      air_sb_putc(pr->out, ' ');
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      put_attrs(pr, op);
      break;
    case AIR_OPC_AFFINE_IF:
      put(pr, "affine.if ");
      air_print_attr(pr->out, pr->p, &op->value);
      put_dims_syms(pr, op);
      put_arrow_results(pr, op);
      print_branches(pr, op, level);
      break;
    case AIR_OPC_AFFINE_FOR: print_affine_for(pr, op, level); break;
    case AIR_OPC_LINALG: print_linalg(pr, op, level); break;
    default: put(pr, "<<unknown op>>"); break;
  }
  air_sb_putc(pr->out, '\n');
}

/*---------------------------------------------------------------------------*/
/* Entry point                                                               */
/*---------------------------------------------------------------------------*/

static void print_program(printer_t* pr) {
  const air_program_t* p = pr->p;
  for (uint32_t i = 0; i < p->n_aliases; ++i) {
    air_sb_putc(pr->out, '#');
    put(pr, p->aliases[i].name ? p->aliases[i].name : "<<null>>");
    put(pr, " = ");
    air_print_attr(pr->out, p, &p->aliases[i].value);
    air_sb_putc(pr->out, '\n');
  }
  const air_op_t* m = p->module;
  if (!m) return;
  /* A name or attributes need the explicit form, or they would be lost. */
  if ((m->flags & AIR_OPF_EXPLICIT_MODULE) || m->sym || m->n_attrs) {
    print_op(pr, m, 0);
    return;
  }
  const air_block_t* body = region(m, 0);
  for (const air_op_t* op = body ? body->first : NULL; op && !pr->out->oom; op = op->next)
    print_op(pr, op, 0);
}

air_status_t air_print(const air_program_t* p, uint32_t flags, air_sb_t* out) {
  (void)flags; /* none defined yet */
  if (!p || !out)
    return AIR_STATUS(p ? &p->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_print: NULL argument");
  printer_t pr;
  memset(&pr, 0, sizeof pr);
  pr.p = p;
  pr.out = out;
  bool ok = name_program(&pr);
  if (ok) print_program(&pr);
  const air_allocator_t* a = &p->allocator;
  if (pr.names) a->free(a->self, pr.names);
  if (pr.slots) a->free(a->self, pr.slots);
  if (pr.undo) a->free(a->self, pr.undo);
  if (pr.taken) a->free(a->self, pr.taken);
  if (!ok || out->oom)
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory printing a program");
  return NULL;
}

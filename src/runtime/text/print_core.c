/* print_core.c - the printer's floor: the naming pass that gives every value
 * its printed name, the small writing pieces every op printer uses (values,
 * types, attribute dictionaries, lists, token clauses, results), and regions,
 * whose ops are printed through the `print_op` hook print.c installs. print.c
 * says how names are chosen. */
#include "runtime/text/print_core.h"

#include <string.h>

#include "runtime/text/print_attr.h"

const air_ixlist_t air_pr_empty_list = {0, NULL};

enum { VN_UNSEEN = 0, VN_WRITTEN, VN_GEN };

struct air_pr_vname_t {
  const char* name; /* VN_WRITTEN */
  uint32_t n;       /* VN_WRITTEN: strlen(name); VN_GEN: the number */
  uint32_t idx : 30; /* result number inside a `%r:N` group */
  uint32_t state : 2;
  bool grouped;
};
typedef struct air_pr_vname_t vname_t;

/* Scoped name table: open addressing, never deleted from. A slot is taken when
 * its scope is the current isolated scope; leaving a region restores the scopes
 * its names overwrote from the undo log. */
struct air_pr_slot_t {
  const char* key;
  uint32_t hash;
  uint32_t scope;
};
typedef struct air_pr_slot_t slot_t;

struct air_pr_undo_t {
  uint32_t slot, scope;
};
typedef struct air_pr_undo_t undo_t;

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
static bool claim(air_printer_t* pr, const char* name) {
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

static uint32_t gen_num(air_printer_t* pr) {
  while (pr->next_num < pr->limit && (pr->taken[pr->next_num >> 3] >> (pr->next_num & 7) & 1))
    ++pr->next_num;
  return pr->next_num++;
}

static void name_value(air_printer_t* pr, air_vid_t v) {
  if (!air_pr_ok_vid(pr, v)) return;
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
static void name_results(air_printer_t* pr, const air_op_t* op) {
  uint32_t n = op->n_results;
  if (n > 1 && op->results) {
    const char* w0 = NULL;
    bool same = true, unnamed = true;
    for (uint32_t i = 0; i < n; ++i) {
      if (!air_pr_ok_vid(pr, op->results[i])) {
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
static void name_block(air_printer_t* pr, const air_block_t* b) {
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

bool air_pr_begin(air_printer_t* pr, const air_program_t* p, air_sb_t* out) {
  memset(pr, 0, sizeof *pr);
  pr->p = p;
  pr->out = out;
  const air_allocator_t* a = &p->allocator;
  uint32_t n = p->n_values ? p->n_values : 1, n_named = 0;
  for (uint32_t v = 1; v < p->n_values; ++v) n_named += p->values[v].name != NULL;
  uint32_t cap = 16;
  while (cap < 2u * n_named && cap < (1u << 31)) cap <<= 1;
  pr->limit = 2u * n + 2u;
  pr->names = air_mem_calloc(a, n, sizeof *pr->names);
  pr->slots = air_mem_calloc(a, cap, sizeof *pr->slots);
  pr->undo = air_mem_calloc(a, n, sizeof *pr->undo);
  pr->taken = air_mem_calloc(a, pr->limit / 8 + 1, 1);
  if (!pr->names || !pr->slots || !pr->undo || !pr->taken) return false;
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

void air_pr_end(air_printer_t* pr) {
  const air_allocator_t* a = &pr->p->allocator;
  air_mem_free(a, pr->names);
  air_mem_free(a, pr->slots);
  air_mem_free(a, pr->undo);
  air_mem_free(a, pr->taken);
}

/*---------------------------------------------------------------------------*/
/* Small pieces                                                              */
/*---------------------------------------------------------------------------*/

void air_pr_put(air_printer_t* pr, const char* s) { air_sb_puts(pr->out, s); }

void air_pr_put_indent(air_printer_t* pr, int level) {
  static const char sp[] = "                                ";
  size_t n = (size_t)level * 2;
  while (n) {
    size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
    air_sb_append(pr->out, sp, k);
    n -= k;
  }
}

void air_pr_put_u32(air_printer_t* pr, uint32_t v) { air_print_i64(pr->out, v); }

void air_pr_put_val(air_printer_t* pr, air_vid_t v) {
  if (!air_pr_ok_vid(pr, v)) {
    air_pr_put(pr, "<<null>>");
    return;
  }
  const vname_t* vn = &pr->names[v];
  air_sb_putc(pr->out, '%');
  if (vn->state == VN_WRITTEN) {
    air_sb_append(pr->out, vn->name, vn->n);
  } else if (vn->state == VN_GEN) {
    air_pr_put_u32(pr, vn->n);
  } else if (pr->p->values[v].name) {
    /* never defined where we printed: a value captured across an isolated
     * boundary, or from an op not in the program */
    air_pr_put(pr, pr->p->values[v].name);
  } else {
    air_pr_put(pr, "<<v");
    air_pr_put_u32(pr, v);
    air_pr_put(pr, ">>");
  }
  if (vn->grouped) {
    air_sb_putc(pr->out, '#');
    air_pr_put_u32(pr, vn->idx);
  }
}

void air_pr_put_vals(air_printer_t* pr, const air_vid_t* v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (i) air_pr_put(pr, ", ");
    air_pr_put_val(pr, v ? v[i] : 0);
  }
}

/* Operands [from, to) of op, clamped. */
void air_pr_put_opnds(air_printer_t* pr, const air_op_t* op, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; ++i) {
    if (i > from) air_pr_put(pr, ", ");
    air_pr_put_val(pr, air_pr_opnd(op, i));
  }
}

void air_pr_put_type(air_printer_t* pr, air_tid_t t) { air_print_type(pr->out, pr->p, t); }

void air_pr_put_vtype(air_printer_t* pr, air_vid_t v) {
  air_pr_put_type(pr, air_ir_value_type(pr->p, v));
}

void air_pr_put_vtypes(air_printer_t* pr, const air_vid_t* v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (i) air_pr_put(pr, ", ");
    air_pr_put_vtype(pr, v ? v[i] : 0);
  }
}

void air_pr_put_opnd_types(air_printer_t* pr, const air_op_t* op, uint32_t from,
                           uint32_t to) {
  for (uint32_t i = from; i < to; ++i) {
    if (i > from) air_pr_put(pr, ", ");
    air_pr_put_vtype(pr, air_pr_opnd(op, i));
  }
}

/* ` -> T` for one type, ` -> (A, B)` for more (MLIR's optional arrow list). */
void air_pr_put_arrow_results(air_printer_t* pr, const air_op_t* op) {
  if (!op->n_results) return;
  air_pr_put(pr, op->n_results == 1 ? " -> " : " -> (");
  air_pr_put_vtypes(pr, op->results, op->n_results);
  if (op->n_results > 1) air_sb_putc(pr->out, ')');
}

void air_pr_put_attrs(air_printer_t* pr, const air_op_t* op) {
  if (!op->n_attrs) return;
  air_sb_putc(pr->out, ' ');
  air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
}

void air_pr_put_attrs_kw(air_printer_t* pr, const air_op_t* op) {
  if (!op->n_attrs) return;
  air_pr_put(pr, " attributes ");
  air_print_attr_dict(pr->out, pr->p, op->attrs, op->n_attrs);
}

void air_pr_put_attrs_type(air_printer_t* pr, const air_op_t* op, air_vid_t v) {
  air_pr_put_attrs(pr, op);
  air_pr_put(pr, " : ");
  air_pr_put_vtype(pr, v);
}

void air_pr_put_attrs_cast(air_printer_t* pr, const air_op_t* op, air_vid_t from, air_vid_t to) {
  air_pr_put_attrs_type(pr, op, from);
  air_pr_put(pr, " to ");
  air_pr_put_vtype(pr, to);
}

void air_pr_put_ixlist(air_printer_t* pr, const air_ixlist_t* l) {
  air_sb_putc(pr->out, '[');
  for (uint32_t i = 0; i < l->n && l->items; ++i) {
    if (i) air_pr_put(pr, ", ");
    if (l->items[i].value)
      air_pr_put_val(pr, l->items[i].value);
    else
      air_print_i64(pr->out, l->items[i].cst);
  }
  air_sb_putc(pr->out, ']');
}

/* `%m[offsets] [sizes] [strides]` from lists[first..first+2]. */
void air_pr_put_memref_slice(air_printer_t* pr, air_vid_t m, const air_op_t* op,
                             uint32_t first) {
  air_pr_put_val(pr, m);
  air_pr_put_ixlist(pr, air_pr_list(op, first));
  air_sb_putc(pr->out, ' ');
  air_pr_put_ixlist(pr, air_pr_list(op, first + 1));
  air_sb_putc(pr->out, ' ');
  air_pr_put_ixlist(pr, air_pr_list(op, first + 2));
}

void air_pr_put_tok_list(air_printer_t* pr, const air_vlist_t* l) {
  air_sb_putc(pr->out, '[');
  air_pr_put_vals(pr, l->items, l->n);
  air_sb_putc(pr->out, ']');
}

/* mlir-air's async-deps: `async`, then the dependency list (without `async` a
 * list means a blocking op that first waits). */
void air_pr_put_async(air_printer_t* pr, const air_op_t* op) {
  if (op->flags & AIR_OPF_ASYNC) air_pr_put(pr, " async");
  if (op->flags & AIR_OPF_SYNC) air_pr_put(pr, " sync");
  if (op->toks[AIR_TOK_DEP].n) {
    air_sb_putc(pr->out, ' ');
    air_pr_put_tok_list(pr, &op->toks[AIR_TOK_DEP]);
  }
}

/* The spec's affinity/concurrency lists, which mlir-air has no syntax for:
 * after `attributes` of a hierarchy op, after the dependencies elsewhere. */
void air_pr_put_aff_conc(air_printer_t* pr, const air_op_t* op) {
  if (op->toks[AIR_TOK_AFF].n) {
    air_pr_put(pr, " [affinity = ");
    air_pr_put_tok_list(pr, &op->toks[AIR_TOK_AFF]);
    air_sb_putc(pr->out, ']');
  }
  if (op->toks[AIR_TOK_CONC].n) {
    air_pr_put(pr, " [concurrency = ");
    air_pr_put_tok_list(pr, &op->toks[AIR_TOK_CONC]);
    air_sb_putc(pr->out, ']');
  }
}

void air_pr_put_results(air_printer_t* pr, const air_op_t* op) {
  uint32_t n = op->n_results;
  if (!n) return;
  air_vid_t r0 = air_pr_res(op, 0);
  if (n > 1 && air_pr_ok_vid(pr, r0) && pr->names[r0].grouped) {
    const vname_t* g = &pr->names[r0];
    air_sb_putc(pr->out, '%');
    if (g->state == VN_WRITTEN)
      air_sb_append(pr->out, g->name, g->n);
    else
      air_pr_put_u32(pr, g->n);
    air_sb_putc(pr->out, ':');
    air_pr_put_u32(pr, n);
  } else {
    air_pr_put_vals(pr, op->results, n);
  }
  air_pr_put(pr, " = ");
}

/*---------------------------------------------------------------------------*/
/* Regions                                                                   */
/*---------------------------------------------------------------------------*/

/* The terminator MLIR materialises when a region of `owner` omits it. */
static int implicit_terminator(const air_op_t* owner) {
  switch (owner->kind) {
    case AIR_OP_LAUNCH: return AIR_OP_LAUNCH_TERM;
    case AIR_OP_SEGMENT: return AIR_OP_SEGMENT_TERM;
    case AIR_OP_HERD: return AIR_OP_HERD_TERM;
    case AIR_OP_RANK: return AIR_OP_RANK_TERM;
    case AIR_OP_EXECUTE: return AIR_OP_EXECUTE_TERM;
    case AIR_OP_FOR: case AIR_OP_IF: case AIR_OP_INDEX_SWITCH: return AIR_OP_YIELD;
    case AIR_OP_AFFINE_FOR: case AIR_OP_AFFINE_IF: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_PARALLEL: return AIR_OP_REDUCE;
    case AIR_OP_FORALL: return AIR_OP_IN_PARALLEL;
    default: return -1;
  }
}

static bool elided(const air_op_t* owner, const air_block_t* b, const air_op_t* op) {
  if (op->next || (int)op->kind != implicit_terminator(owner) || op->n_operands || op->n_attrs)
    return false;
  /* scf.index_switch's case regions are parsed by hand in MLIR, without an
   * implicit terminator: only the default region may omit its yield. */
  if (owner->kind == AIR_OP_INDEX_SWITCH && owner->n_regions &&
      b != owner->regions[owner->n_regions - 1])
    return false;
  if (op->kind == AIR_OP_IN_PARALLEL)
    return op->n_regions == 1 && op->regions && (!op->regions[0] || !op->regions[0]->first);
  return !op->n_regions;
}

void air_pr_put_region(air_printer_t* pr, const air_op_t* owner, const air_block_t* b,
                       int level, bool label) {
  air_pr_put(pr, "{\n");
  if (b) {
    if (label && b->n_args) {
      air_pr_put_indent(pr, level);
      air_pr_put(pr, "^bb0(");
      for (uint32_t i = 0; i < b->n_args; ++i) {
        if (i) air_pr_put(pr, ", ");
        air_pr_put_val(pr, air_pr_barg(b, i));
        air_pr_put(pr, ": ");
        air_pr_put_vtype(pr, air_pr_barg(b, i));
      }
      air_pr_put(pr, "):\n");
    }
    for (const air_op_t* op = b->first; op && !pr->out->oom; op = op->next)
      if (!elided(owner, b, op)) pr->print_op(pr, op, level + 1);
  }
  air_pr_put_indent(pr, level);
  air_sb_putc(pr->out, '}');
}

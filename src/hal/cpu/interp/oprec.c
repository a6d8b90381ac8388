/* oprec.c - op records (types.h ix_oprec_t): per op, what the interpreter's hot
 * path would otherwise work out each time the op runs, from the program alone:
 * which of its operands an air.execute result guards, the channel it names, its
 * index lists with constants folded. Built once with the tables; read-only.
 *
 * Why (issue 14): in samples/matmul_4x4 the ops around the compiled herd units
 * run ~38k times per run, and an op's guard check walked every operand and list
 * entry (six list entries for a segment put, none of them guarded), and every
 * constant list entry was a slot lookup through the environment chain. The
 * records hold nothing that depends on a run: a value computed at run time (a
 * loop variable, an offset) stays a value in the folded lists. */
#include "hal/cpu/interp/oprec.h"

#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "runtime/base/mem.h"

typedef struct rb_t {
  ix_tables_t* t;
  const air_program_t* p;
  const air_allocator_t* a;
  bool oom;
  /* Storage: counted in the first pass (base NULL), filled in the second. */
  air_vid_t* vids;
  air_ixlist_t* lists;
  air_ix_t* items;
  size_t n_vids, n_lists, n_items;
  uint32_t next;  /* records filled */
} rb_t;

static bool guarded(const ix_tables_t* t, air_vid_t v) {
  return v && v < t->n_values && t->vinfo[v].guard;
}

static void add_vid(rb_t* b, air_vid_t v) {
  if (b->vids) b->vids[b->n_vids] = v;
  b->n_vids++;
}

/* `o`'s operands and list values with a guard (loop.c wait_ready guards them). */
static void add_own(rb_t* b, const air_op_t* o) {
  for (uint32_t i = 0; i < o->n_operands; ++i)
    if (guarded(b->t, o->operands[i])) add_vid(b, o->operands[i]);
  for (uint32_t l = 0; l < o->n_lists; ++l)
    for (uint32_t i = 0; i < o->lists[l].n; ++i)
      if (guarded(b->t, o->lists[l].items[i].value)) add_vid(b, o->lists[l].items[i].value);
}

/* Every op of `blk`, nested regions after their op (a chained execute's region: loop.c exec). */
static void add_region(rb_t* b, const air_block_t* blk) {
  for (const air_op_t* o = blk ? blk->first : NULL; o; o = o->next) {
    add_own(b, o);
    for (uint32_t i = 0; i < o->n_regions; ++i) add_region(b, o->regions[i]);
  }
}

/* The literal an integer arith.constant `v` always holds, as ix_eval_scalar
 * computes it; false for anything else (left a value). */
static bool const_int(const rb_t* b, air_vid_t v, int64_t* out) {
  if (!v || v >= b->t->n_values || v >= b->p->n_values) return false;
  const ix_vinfo_t* vi = &b->t->vinfo[v];
  const air_op_t* d = b->p->values[v].def;
  if (!d || vi->kind != IX_K_SCALAR || air_elem_is_float((air_elem_kind_t)vi->elem) ||
      air_opkind_class(d->kind) != AIR_OPC_CONSTANT || d->n_results != 1 || d->results[0] != v)
    return false;
  const air_attr_t* c = air_ir_attr_resolve(b->p, &d->value);
  if (!c || (c->kind != AIR_ATTR_INT && c->kind != AIR_ATTR_BOOL)) return false;
  *out = ix_norm_i(vi->elem, c->i);
  return true;
}

/* Whether folded lists (sizes lists[1], strides lists[2]) may describe one
 * contiguous run: false only when every size and stride is a literal and,
 * innermost first, some size other than 1 has a stride other than the product
 * of the sizes inside it (ix_flat_side's rule). No lists: the whole view, which
 * only the view can tell. */
static bool may_flat(const air_ixlist_t* l) {
  if (!l || !l[1].n || l[1].n != l[2].n) return true;
  int64_t c = 1;
  for (uint32_t k = l[1].n; k-- > 0;) {
    const air_ix_t *sz = &l[1].items[k], *st = &l[2].items[k];
    if (sz->value || st->value) return true;
    if (sz->cst <= 0) return true; /* empty: the general path decides */
    if (sz->cst == 1) continue;
    if (st->cst != c || __builtin_mul_overflow(c, sz->cst, &c)) return false;
  }
  return true;
}

static void fill_op(rb_t* b, const air_op_t* o) {
  ix_oprec_t* rec = b->vids ? &b->t->oprecs[b->next++] : NULL; /* NULL: counting */
  size_t v0 = b->n_vids;
  add_own(b, o);
  if (o->kind == AIR_OP_GENERIC && o->n_regions && o->regions[0])
    for (const air_op_t* x = o->regions[0]->first; x; x = x->next)
      for (uint32_t i = 0; i < x->n_operands; ++i)
        if (guarded(b->t, x->operands[i])) add_vid(b, x->operands[i]);
  size_t v1 = b->n_vids;
  if (o->kind == AIR_OP_EXECUTE && o->n_regions) add_region(b, o->regions[0]);
  size_t v2 = b->n_vids;
  bool io = o->kind == AIR_OP_PUT || o->kind == AIR_OP_GET;
  size_t l0 = b->n_lists;
  if (io && o->n_lists >= 3) {
    for (uint32_t l = 0; l < 3; ++l) {
      if (b->lists) {
        air_ixlist_t* dl = &b->lists[b->n_lists];
        dl->n = o->lists[l].n;
        dl->items = &b->items[b->n_items];
        for (uint32_t i = 0; i < dl->n; ++i) {
          air_ix_t x = o->lists[l].items[i];
          int64_t k;
          if (x.value && const_int(b, x.value, &k)) x = (air_ix_t){0, k};
          dl->items[i] = x;
        }
      }
      b->n_items += o->lists[l].n;
      b->n_lists++;
    }
  }
  if (rec) {
    rec->guarded = v1 > v0 ? &b->vids[v0] : NULL;
    rec->n_guarded = (uint32_t)(v1 - v0);
    rec->rguarded = v2 > v1 ? &b->vids[v1] : NULL;
    rec->n_rguarded = (uint32_t)(v2 - v1);
    rec->lists = b->n_lists > l0 ? &b->lists[l0] : NULL;
    rec->chan = io && o->sym ? ix_find_chan(b->t, o->sym) : NULL;
    rec->pads = io && (air_ir_attr_get(o, "pad_before") || air_ir_attr_get(o, "pad_after"));
    rec->may_flat = io && may_flat(rec->lists);
  }
}

static uint32_t walk(rb_t* b, const air_op_t* op) {
  uint32_t n = 1;
  if (b->vids && !air_ptrmap_put(&b->t->recs, b->a, op, &b->t->oprecs[b->next])) b->oom = true;
  fill_op(b, op);
  for (uint32_t i = 0; i < op->n_regions; ++i)
    for (const air_op_t* o = op->regions[i] ? op->regions[i]->first : NULL; o; o = o->next)
      n += walk(b, o);
  return n;
}

air_status_t ix_oprecs_build(ix_tables_t* t, const air_allocator_t* a, const air_program_t* p) {
  const air_block_t* body = p->module->regions[0];
  rb_t b = {.t = t, .p = p, .a = a};
  uint32_t n = 0;
  for (const air_op_t* o = body->first; o; o = o->next) n += walk(&b, o);
  /* One block: records, lists, list items, vids (in falling alignment). */
  size_t bytes = n * sizeof(ix_oprec_t) + b.n_lists * sizeof(air_ixlist_t) +
                 b.n_items * sizeof(air_ix_t) + (b.n_vids + 1) * sizeof(air_vid_t);
  char* mem = air_mem_calloc(a, bytes, 1);
  if (!mem) return AIR_STATUS_OOM(a, "op records");
  t->oprec_mem = mem;
  t->oprecs = (ix_oprec_t*)mem;
  t->n_oprecs = n;
  rb_t f = {.t = t, .p = p, .a = a};
  f.lists = (air_ixlist_t*)(mem + n * sizeof(ix_oprec_t));
  f.items = (air_ix_t*)((char*)f.lists + b.n_lists * sizeof(air_ixlist_t));
  f.vids = (air_vid_t*)((char*)f.items + b.n_items * sizeof(air_ix_t));
  for (const air_op_t* o = body->first; o; o = o->next) walk(&f, o);
  return f.oom ? AIR_STATUS_OOM(a, "op records") : NULL;
}

void ix_oprecs_free(ix_tables_t* t, const air_allocator_t* a) {
  air_mem_free(a, t->oprec_mem);
  air_ptrmap_free(&t->recs, a);
  t->oprec_mem = NULL;
  t->oprecs = NULL;
  t->n_oprecs = 0;
}

ix_chan_t* ix_find_chan(const ix_tables_t* t, const char* name) {
  uint32_t lo = 0, hi = t->n_chans;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = strcmp(t->chans[mid].name, name);
    if (!c) return &t->chans[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

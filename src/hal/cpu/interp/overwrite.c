/* overwrite.c - see overwrite.h. */
#include "hal/cpu/interp/overwrite.h"

#include <string.h>

/* Whether `op` names value `v` anywhere: operands, index lists, tokens, or any
 * op nested in its regions. */
static bool names(const air_op_t* op, air_vid_t v) {
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if (op->operands[i] == v) return true;
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i)
      if (op->lists[l].items[i].value == v) return true;
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < op->toks[k].n; ++i)
      if (op->toks[k].items[i] == v) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_block_t* b = op->regions[r];
    if (!b) continue;
    for (const air_op_t* o = b->first; o; o = o->next)
      if (names(o, v)) return true;
  }
  return false;
}

/* Whether `op` names `v` outside its regions. */
static bool names_own(const air_op_t* op, air_vid_t v) {
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if (op->operands[i] == v) return true;
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i)
      if (op->lists[l].items[i].value == v) return true;
  return false;
}

static bool padded(const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_attrs; ++i)
    if (op->attrs[i].name &&
        (!strcmp(op->attrs[i].name, "pad_before") || !strcmp(op->attrs[i].name, "pad_after")))
      return true;
  return false;
}

/* A DMA that writes all of `v` and reads nothing of it: synchronous with no
 * tokens, or async (its token says when it is done) with dependencies only. */
static bool writes_whole(const air_op_t* op, air_vid_t v) {
  if (op->kind != AIR_OP_DMA || (op->flags & (AIR_OPF_SRC_RANK | AIR_OPF_DST_RANK))) return false;
  bool async = op->flags & AIR_OPF_ASYNC;
  if (op->n_operands != 2 || op->operands[0] != v || op->operands[1] == v || op->n_lists < 6)
    return false;
  if (op->lists[0].n || op->lists[1].n || op->lists[2].n || op->n_results != (async ? 1u : 0u))
    return false;
  for (uint32_t l = 3; l < 6; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i)
      if (op->lists[l].items[i].value == v) return false;
  if ((!async && op->toks[AIR_TOK_DEP].n) || op->toks[AIR_TOK_AFF].n || op->toks[AIR_TOK_CONC].n)
    return false;
  return !padded(op);
}

/*---------------------------------------------------------------------------*/
/* Store loops                                                               */
/*---------------------------------------------------------------------------*/

static bool const_int(const air_program_t* p, air_vid_t v, int64_t* out) {
  const air_op_t* d = air_ir_value(p, v)->def;
  if (!d || d->kind != AIR_OP_CONSTANT) return false;
  const air_attr_t* a = air_ir_attr_resolve(p, &d->value);
  if (!a || a->kind != AIR_ATTR_INT) return false;
  *out = a->i;
  return true;
}

enum { MAX_NEST = 8 };

/* Whether the scf.for `loop` (nest level `depth`, the levels above in ivs/ubs)
 * stores every element of `v` (type `t`): every loop of the nest runs
 * 0 .. N step 1 with constant N >= 1, its body names `v` in exactly one op, a
 * direct child (run by every iteration), which is the next loop of the nest or
 * a memref.store whose indices are distinct ivs of the nest, each ranging over
 * its dimension whole. */
static bool store_nest(const air_program_t* p, const air_op_t* loop, air_vid_t v,
                       const air_type_info_t* t, air_vid_t* ivs, int64_t* ubs, uint32_t depth) {
  int64_t lb, ub, step;
  if (loop->kind != AIR_OP_FOR || depth >= MAX_NEST || loop->n_operands < 3 ||
      loop->n_regions != 1 || !loop->regions[0] || loop->regions[0]->n_args < 1 ||
      names_own(loop, v))
    return false;
  if (!const_int(p, loop->operands[0], &lb) || !const_int(p, loop->operands[1], &ub) ||
      !const_int(p, loop->operands[2], &step) || lb != 0 || step != 1 || ub < 1)
    return false;
  ivs[depth] = loop->regions[0]->args[0];
  ubs[depth] = ub;
  const air_op_t* only = NULL;
  for (const air_op_t* o = loop->regions[0]->first; o; o = o->next) {
    if (!names(o, v)) continue;
    if (only) return false;
    only = o;
  }
  if (!only) return false;
  if (only->kind == AIR_OP_FOR) return store_nest(p, only, v, t, ivs, ubs, depth + 1);
  if (only->kind != AIR_OP_STORE || only->n_operands != 2 + t->rank || only->operands[1] != v ||
      only->operands[0] == v || only->n_regions || only->n_lists)
    return false;
  bool used[MAX_NEST] = {false};
  for (uint32_t k = 0; k < t->rank; ++k) {
    air_vid_t x = only->operands[2 + k];
    uint32_t j = 0;
    while (j <= depth && (used[j] || ivs[j] != x || ubs[j] != t->shape[k])) ++j;
    if (j > depth) return false;
    used[j] = true;
  }
  return true;
}

/* An scf.for nest that stores every element of `v` before anything reads it. */
static bool stores_whole(const air_program_t* p, const air_op_t* op, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  if (t->kind != AIR_TYPE_MEMREF || t->unranked || t->layout || t->rank < 1 || t->rank > MAX_NEST)
    return false;
  for (uint32_t k = 0; k < t->rank; ++k)
    if (t->shape[k] == AIR_DIM_DYNAMIC || t->shape[k] < 1) return false;
  air_vid_t ivs[MAX_NEST];
  int64_t ubs[MAX_NEST];
  return store_nest(p, op, v, t, ivs, ubs, 0);
}

/*---------------------------------------------------------------------------*/
/* The scan                                                                  */
/*---------------------------------------------------------------------------*/

/* NOTHING: no op names the buffer. WRITTEN: it is written whole (or freed)
 * before anything from here on can read it. PENDING: an async write of it was
 * issued and everything after that names it waits for the write's token. READ:
 * it may be read before it is written whole. */
enum { NOTHING, WRITTEN, PENDING, READ };

/* The tokens that complete after the pending write: its own and those of the
 * ops that depend on one of them. A set that is full drops new tokens, so that
 * fewer ops count as ordered (zeroing kept). */
enum { MAX_TOKS = 32 };
typedef struct toks_t {
  uint32_t n;
  air_vid_t v[MAX_TOKS];
} toks_t;

static bool after(const toks_t* s, const air_op_t* op) {
  const air_vlist_t* d = &op->toks[AIR_TOK_DEP];
  for (uint32_t i = 0; i < d->n; ++i)
    for (uint32_t j = 0; j < s->n; ++j)
      if (d->items[i] == s->v[j]) return true;
  return false;
}

/* The token an op gives when it is async (air.execute always has one). */
static air_vid_t token_of(const air_op_t* op) {
  bool tok = (op->flags & AIR_OPF_ASYNC) || op->kind == AIR_OP_EXECUTE;
  return tok && op->n_results ? op->results[0] : 0;
}

static void add_tok(toks_t* s, air_vid_t t) {
  if (t && s->n < MAX_TOKS) s->v[s->n++] = t;
}

/* The first op from `o` on that names `v`, by the rule in overwrite.h. */
static int scan(const air_program_t* p, const air_op_t* o, air_vid_t v) {
  toks_t s = {0};
  bool pending = false;
  for (; o; o = o->next) {
    if (pending) {
      if (after(&s, o)) {
        /* Runs after the write: whatever it does with the buffer. A wait
         * that blocks the strand orders all that follows. */
        air_vid_t t = token_of(o);
        if (!t && o->kind == AIR_OP_WAIT_ALL) return WRITTEN;
        add_tok(&s, t);
      } else if (names(o, v)) {
        return READ;
      }
      continue;
    }
    if (!names(o, v)) continue;
    if (writes_whole(o, v)) {
      if (!(o->flags & AIR_OPF_ASYNC)) return WRITTEN;
      pending = true;
      add_tok(&s, o->results[0]);
      continue;
    }
    if (o->kind == AIR_OP_DEALLOC && o->n_operands == 1 && o->operands[0] == v) return WRITTEN;
    if (stores_whole(p, o, v)) return WRITTEN;
    if (o->kind == AIR_OP_EXECUTE && o->n_regions == 1 && o->regions[0] && !names_own(o, v)) {
      /* Its body writes the buffer whole first: done when its token is. */
      if (scan(p, o->regions[0]->first, v) != WRITTEN || !token_of(o)) return READ;
      pending = true;
      add_tok(&s, token_of(o));
      continue;
    }
    bool loop = o->kind == AIR_OP_FOR || o->kind == AIR_OP_AFFINE_FOR;
    if (!loop || o->n_regions != 1 || !o->regions[0]) return READ;
    if (names_own(o, v)) return READ; /* a bound or an iter_arg */
    if (scan(p, o->regions[0]->first, v) == READ) return READ;
    /* The body may run no iteration: what follows the loop decides. */
  }
  return pending ? PENDING : NOTHING;
}

bool ix_alloc_overwritten(const air_program_t* p, const air_op_t* alloc) {
  if (alloc->kind != AIR_OP_ALLOC || alloc->n_results != 1 || !alloc->parent) return false;
  air_vid_t v = alloc->results[0];
  const air_op_t* from = alloc->next;
  /* An alloc that an air.execute only makes and hands out: the scan follows
   * the execute's result, from the execute on (nothing can use the result
   * before the execute is done). */
  const air_op_t* first = from;
  while (first && !names(first, v)) first = first->next;
  const air_op_t* ex = alloc->parent->parent;
  if (first && first->kind == AIR_OP_EXECUTE_TERM && ex && ex->kind == AIR_OP_EXECUTE &&
      ex->parent && ex->n_results == first->n_operands + 1) {
    uint32_t at = 0, n = 0;
    for (uint32_t i = 0; i < first->n_operands; ++i)
      if (first->operands[i] == v) at = i, ++n;
    if (n != 1 || first->n_lists || first->n_regions) return false;
    v = ex->results[1 + at];
    from = ex->next;
  }
  int r = scan(p, from, v);
  return r == WRITTEN || r == PENDING;
}

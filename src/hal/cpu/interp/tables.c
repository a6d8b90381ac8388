/* tables.c - the per-program tables (value slots, block layouts and purity,
 * functions, channel declarations) and preps, which hold them for every run of
 * one program and keep finished runs for reuse. */
#include "hal/cpu/interp/tables.h"

#include <stdlib.h>
#include <string.h>

#include "hal/cpu/interp/oprec.h"
#include "hal/cpu/interp/overwrite.h"
#include "hal/cpu/interp/strand.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct build_t {
  ix_tables_t* t;
  const air_allocator_t* a;
  const air_program_t* p;
} build_t;

static uint8_t kind_of(const air_program_t* p, air_tid_t t) {
  const air_type_info_t* ti = air_ir_type(p, t);
  return ti->kind == AIR_TYPE_TOKEN ? IX_K_TOKEN
         : ti->kind == AIR_TYPE_MEMREF ? IX_K_MEMREF
                                       : IX_K_SCALAR;
}

static uint32_t count_blocks(const air_op_t* op) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->n_regions; ++i) {
    const air_block_t* b = op->regions[i];
    if (!b) continue;
    ++n;
    for (const air_op_t* o = b->first; o; o = o->next) n += count_blocks(o);
  }
  return n;
}

static void assign(ix_tables_t* t, ix_binfo_t* bi, air_vid_t v, uint32_t depth) {
  if (!v || v >= t->n_values) return;
  ix_vinfo_t* vi = &t->vinfo[v];
  vi->slot = (int32_t)bi->n_slots;
  vi->depth = depth;
  if (vi->kind == IX_K_TOKEN) bi->toks[bi->n_toks++] = bi->n_slots;
  ++bi->n_slots;
  if (vi->kind == IX_K_MEMREF) vi->view = (int32_t)bi->n_views++;
}

static air_status_t build_op(build_t* b, const air_op_t* op, uint32_t depth, uint32_t* next);

static air_status_t build_block(build_t* b, const air_block_t* blk, uint32_t depth,
                                uint32_t* next) {
  ix_tables_t* t = b->t;
  ix_binfo_t* bi = &t->binfos[(*next)++];
  bi->block = blk;
  bi->depth = depth;
  uint32_t n = blk->n_args;
  for (const air_op_t* o = blk->first; o; o = o->next) n += o->n_results;
  bi->toks = air_mem_calloc(b->a, n ? n : 1, sizeof *bi->toks);
  if (!bi->toks || !air_ptrmap_put(&t->blocks, b->a, blk, bi))
    return AIR_STATUS_OOM(b->a, "block tables");
  for (uint32_t i = 0; i < blk->n_args; ++i) assign(t, bi, blk->args[i], depth);
  for (const air_op_t* o = blk->first; o; o = o->next) {
    for (uint32_t i = 0; i < o->n_results; ++i) assign(t, bi, o->results[i], depth);
    if (o->kind == AIR_OP_ALLOC && o->n_results == 1 && o->results[0] < t->n_values)
      t->vinfo[o->results[0]].overwritten = ix_alloc_overwritten(b->p, o);
  }
  for (const air_op_t* o = blk->first; o; o = o->next)
    AIR_RETURN_IF_ERROR(build_op(b, o, depth + 1, next));
  return NULL;
}

static air_status_t build_op(build_t* b, const air_op_t* op, uint32_t depth, uint32_t* next) {
  ix_tables_t* t = b->t;
  if (op->toks[AIR_TOK_AFF].n) t->affinity = true;
  if (op->kind == AIR_OP_EXECUTE && op->n_results)
    for (uint32_t i = 1; i < op->n_results; ++i)
      if (op->results[i] < t->n_values) t->vinfo[op->results[i]].guard = op->results[0];
  for (uint32_t i = 0; i < op->n_regions; ++i)
    if (op->regions[i]) AIR_RETURN_IF_ERROR(build_block(b, op->regions[i], depth, next));
  return NULL;
}

/* Whether op `o` itself can never park: plain compute, memory and control ops
 * (their regions are the caller's to check), not a symmetric allocation, which
 * waits for the other ranks (rank.c). pure_op and serial_block share it. */
static bool parkless_op(const air_op_t* o) {
  if (o->kind == AIR_OP_ALLOC && air_ir_attr_get(o, "air.symmetric")) return false;
  switch (air_opkind_class(o->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC:
    case AIR_OPC_LOAD: case AIR_OPC_STORE: case AIR_OPC_COPY: case AIR_OPC_SUBVIEW:
    case AIR_OPC_RESHAPE:
    case AIR_OPC_FOR: case AIR_OPC_PARALLEL: case AIR_OPC_REDUCE: case AIR_OPC_IF:
    case AIR_OPC_AFFINE_APPLY: case AIR_OPC_AFFINE_IF: case AIR_OPC_AFFINE_FOR:
    case AIR_OPC_LINALG: case AIR_OPC_TERMINATOR:
    case AIR_OPC_TERNARY: case AIR_OPC_SWITCH: case AIR_OPC_FORALL: case AIR_OPC_IN_PARALLEL:
    case AIR_OPC_LINALG_INDEX: case AIR_OPC_GET_GLOBAL: case AIR_OPC_MEMREF_RESHAPE:
    case AIR_OPC_TRANSPOSE: case AIR_OPC_EXTRACT_META: case AIR_OPC_REINTERPRET:
      return true;
    default: return false;
  }
}

/* An op that can never park, its regions included: no AIR ops, tokens, calls
 * of bodies or results of air.execute (`guards`: results of air.execute
 * allowed, its only waits then). */
static bool pure_block(const ix_tables_t* t, const air_block_t* b, bool guards);

static bool pure_op(const ix_tables_t* t, const air_op_t* o, bool guards) {
  if (air_opkind_class(o->kind) == AIR_OPC_CALL) {
    const air_op_t* f = o->sym ? ix_find_func(t, o->sym) : NULL;
    if (f && f->n_regions) return false;
  } else if (!parkless_op(o)) {
    return false;
  }
  for (uint32_t i = 0; i < o->n_operands; ++i) {
    air_vid_t v = o->operands[i];
    if (v < t->n_values && ((!guards && t->vinfo[v].guard) || t->vinfo[v].kind == IX_K_TOKEN))
      return false;
  }
  for (uint32_t i = 0; i < o->n_results; ++i)
    if (o->results[i] < t->n_values && t->vinfo[o->results[i]].kind == IX_K_TOKEN) return false;
  for (uint32_t i = 0; i < o->n_regions; ++i)
    if (o->regions[i] && !pure_block(t, o->regions[i], guards)) return false;
  return true;
}

/* A block that can never park (pure_op). scf.parallel runs such bodies in
 * sequence; the inline path runs such entry bodies on the caller's worker; an
 * air.execute of such a region may run in its issuer's strand (chain.h). */
static bool pure_block(const ix_tables_t* t, const air_block_t* b, bool guards) {
  for (const air_op_t* o = b->first; o; o = o->next)
    if (!pure_op(t, o, guards)) return false;
  return true;
}

/* Tokens a flat block may wait for: those of hierarchy ops, which run flat too
 * (so they have fired by the time anything later runs). */
static bool flat_toks(const air_program_t* p, const air_vlist_t* l) {
  for (uint32_t i = 0; i < l->n; ++i) {
    const air_op_t* d = air_ir_value(p, l->items[i])->def;
    if (!d || (d->kind != AIR_OP_LAUNCH && d->kind != AIR_OP_SEGMENT && d->kind != AIR_OP_HERD))
      return false;
  }
  return true;
}

/* A block that can never park once its hierarchy ops run flat (flat.c): pure
 * ops, sync air.wait_all on hierarchy tokens, and at `level` 0 (a func body)
 * air.launch, at 1 (a launch body) air.segment or air.herd, at 2 (a segment
 * body) air.herd, each with no affinity or concurrency tokens and dependencies
 * on hierarchy tokens only. A herd's body is left to its compiled unit, which
 * flat.c requires per run (units never cover channel ops, so no PE of a flat
 * nest can wait for another). */
static bool flat_block(const ix_tables_t* t, const air_program_t* p, const air_block_t* b,
                       int level) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    bool hier = (o->kind == AIR_OP_LAUNCH && level == 0) ||
                (o->kind == AIR_OP_SEGMENT && level == 1) ||
                (o->kind == AIR_OP_HERD && level >= 1);
    if (hier) {
      if (!o->n_regions || !o->regions[0] || o->toks[AIR_TOK_AFF].n || o->toks[AIR_TOK_CONC].n ||
          !flat_toks(p, &o->toks[AIR_TOK_DEP]))
        return false;
      if (o->kind != AIR_OP_HERD && !flat_block(t, p, o->regions[0], level + 1)) return false;
    } else if (o->kind == AIR_OP_WAIT_ALL) {
      if (o->n_results || !flat_toks(p, &o->toks[AIR_TOK_DEP])) return false;
    } else if (!pure_op(t, o, false)) {
      return false;
    }
  }
  return true;
}

/* Whether a block, run in the strand that reaches it, parks only where a stall
 * can release it (chain.h), so scf.parallel may run its instances in sequence
 * when the run chains (parallel.c). An async op (with a result) either runs as
 * a chain op, whose waits a stall releases, or goes to a strand of its own and
 * never waits here; every other op, nested regions included, must be one that
 * cannot park (pure_block's ops) and name no dependency token and no
 * air.execute result (a guard). Tokens as plain values (iter_args, yields,
 * scf.reduce) are fine: only async ops wait for them. `*init` is set when some
 * op other than an async op or a terminator would wait for the scf.parallel's
 * init tokens (not ix_init_free, or a loop or branch a compiled unit may run):
 * that wait is not a chain op's, so the caller runs in sequence then only once
 * the init tokens have fired. */
static bool serial_block(const ix_tables_t* t, const air_block_t* b, bool* init) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    if (ix_is_async(o)) continue;
    /* Calls and scf.forall are not run in sequence (as before the shared list). */
    if (air_opkind_class(o->kind) == AIR_OPC_FORALL || !parkless_op(o)) return false;
    for (uint32_t k = 0; k < 3; ++k) /* dependency, affinity, concurrency */
      if (o->toks[k].n) return false;
    for (uint32_t i = 0; i < o->n_operands; ++i)
      if (o->operands[i] < t->n_values && t->vinfo[o->operands[i]].guard) return false;
    for (uint32_t l = 0; l < o->n_lists; ++l)
      for (uint32_t i = 0; i < o->lists[l].n; ++i) {
        air_vid_t v = o->lists[l].items[i].value;
        if (v && v < t->n_values && t->vinfo[v].guard) return false;
      }
    if (o->next) {
      switch (air_opkind_class(o->kind)) {
        case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF: case AIR_OPC_AFFINE_IF:
          *init = true;
          break;
        default: *init |= !ix_init_free(o); break;
      }
    }
    if (o->kind == AIR_OP_PARALLEL) {
      /* A nested scf.parallel must run in sequence too, whatever its init
       * tokens: waiting for its instances' strands could not be released.
       * Its ops also wait for the enclosing one's init tokens. */
      bool inner = false, toks = false;
      for (uint32_t i = 0; i < o->n_results; ++i)
        toks |= o->results[i] < t->n_values && t->vinfo[o->results[i]].kind == IX_K_TOKEN;
      if (!o->n_regions || !o->regions[0] || !serial_block(t, o->regions[0], &inner) ||
          (inner && toks))
        return false;
      *init |= inner;
      continue;
    }
    for (uint32_t i = 0; i < o->n_regions; ++i)
      if (o->regions[i] && !serial_block(t, o->regions[i], init)) return false;
  }
  return true;
}

/* Whether an scf.reduce region only joins its two tokens: `%w = air.wait_all
 * async [%lhs, %rhs]` (either order, nothing else) then `scf.reduce.return %w`.
 * parallel.c folds such a region without running it when every token fired. */
static bool join_block(const air_block_t* b) {
  const air_op_t* w = b->first;
  const air_op_t* ret = w ? w->next : NULL;
  if (b->n_args != 2 || !w || !ret || ret->next || w->kind != AIR_OP_WAIT_ALL ||
      w->n_results != 1 || w->n_operands || w->n_lists || w->n_regions ||
      w->toks[AIR_TOK_DEP].n != 2 || w->toks[AIR_TOK_AFF].n || w->toks[AIR_TOK_CONC].n ||
      ret->kind != AIR_OP_REDUCE_RETURN || ret->n_operands != 1 ||
      ret->operands[0] != w->results[0])
    return false;
  const air_vid_t* d = w->toks[AIR_TOK_DEP].items;
  return (d[0] == b->args[0] && d[1] == b->args[1]) || (d[0] == b->args[1] && d[1] == b->args[0]);
}

/* Straight-line ops only, none that runs user code or loops over memory: a run
 * costs about as much as starting one, so queues need not spread such runs. */
static bool straight_block(const air_block_t* b) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    if (o->n_regions) return false;
    switch (air_opkind_class(o->kind)) {
      case AIR_OPC_CALL: case AIR_OPC_LINALG: case AIR_OPC_COPY: return false;
      default: break;
    }
  }
  return true;
}

static int func_cmp(const void* a, const void* b) {
  return strcmp((*(const air_op_t* const*)a)->sym, (*(const air_op_t* const*)b)->sym);
}

/*---------------------------------------------------------------------------*/
/* Channel declarations                                                      */
/*---------------------------------------------------------------------------*/

static int chan_cmp(const void* a, const void* b) {
  return strcmp(((const ix_chan_t*)a)->name, ((const ix_chan_t*)b)->name);
}

static bool attr_int(const air_program_t* p, const air_attr_t* a, int64_t* out) {
  a = a ? air_ir_attr_resolve(p, a) : NULL;
  if (!a || a->kind != AIR_ATTR_INT) return false;
  *out = a->i;
  return true;
}

static air_status_t build_chans(build_t* b) {
  ix_tables_t* t = b->t;
  const air_allocator_t* a = b->a;
  const air_program_t* p = b->p;
  const air_block_t* body = p->module->regions[0];
  uint32_t n = 0;
  for (const air_op_t* o = body->first; o; o = o->next) n += o->kind == AIR_OP_CHANNEL && o->sym;
  t->chans = air_mem_calloc(a, n ? n : 1, sizeof(ix_chan_t));
  if (!t->chans) return AIR_STATUS_OOM(a, "channel table");
  for (const air_op_t* o = body->first; o; o = o->next) {
    if (o->kind != AIR_OP_CHANNEL || !o->sym) continue;
    ix_chan_t* c = &t->chans[t->n_chans++];
    c->decl = o;
    c->name = o->sym;
    c->depth = 1;
    const air_attr_t* ct = air_ir_attr_get(o, "channel_type");
    ct = ct ? air_ir_attr_resolve(p, ct) : NULL;
    c->symheap = ct && ct->kind == AIR_ATTR_STRING && ct->s && strcmp(ct->s, "gpu_symmetric_heap") == 0;
    const air_ixlist_t* d = o->n_lists ? &o->lists[0] : NULL;
    c->rank = d ? d->n : 0;
    if (c->rank > AIR_MAX_RANK)
      return ix_err_in(a, p, o, AIR_STATUS_UNIMPLEMENTED,
                       "air.channel @%s has more than %d dimensions", c->name, AIR_MAX_RANK);
    for (uint32_t k = 0; k < c->rank; ++k) {
      if (d->items[k].value || d->items[k].cst <= 0)
        return ix_err_in(a, p, o, AIR_STATUS_INVALID_ARGUMENT,
                         "air.channel @%s: dimension #%u must be a positive integer", c->name, k);
      c->dims[k] = c->bdims[k] = d->items[k].cst;
    }
    const air_attr_t* bs = air_ir_attr_get(o, "broadcast_shape");
    bs = bs ? air_ir_attr_resolve(p, bs) : NULL;
    if (bs) {
      if (bs->kind != AIR_ATTR_ARRAY || bs->n != c->rank)
        return ix_err_in(a, p, o, AIR_STATUS_INVALID_ARGUMENT,
                         "air.channel @%s: broadcast_shape needs one size per dimension",
                         c->name);
      for (uint32_t k = 0; k < c->rank; ++k) {
        int64_t x;
        if (!attr_int(p, &bs->elems[k], &x) || x <= 0 || (c->dims[k] != 1 && c->dims[k] != x))
          return ix_err_in(a, p, o, AIR_STATUS_INVALID_ARGUMENT,
                           "air.channel @%s: broadcast_shape dimension #%u does not broadcast "
                           "(NumPy rules)",
                           c->name, k);
        c->bdims[k] = x;
      }
    }
    int64_t depth;
    if (attr_int(p, air_ir_attr_get(o, "depth"), &depth)) {
      if (depth < 1 || depth > (1 << 20))
        return ix_err_in(a, p, o, AIR_STATUS_INVALID_ARGUMENT, "air.channel @%s: depth %lld",
                         c->name, (long long)depth);
      c->depth = depth;
    }
    uint64_t np = 1, nr = 1;
    for (uint32_t k = 0; k < c->rank; ++k) {
      np *= (uint64_t)c->dims[k];
      if (c->bdims[k] != c->dims[k]) nr *= (uint64_t)c->bdims[k];
      if (np > (UINT64_C(1) << 24) || nr > (UINT64_C(1) << 20))
        return ix_err_in(a, p, o, AIR_STATUS_UNIMPLEMENTED, "air.channel @%s is too large",
                         c->name);
    }
    c->n_put = np;
    c->n_recv = (uint32_t)nr;
  }
  qsort(t->chans, t->n_chans, sizeof(ix_chan_t), chan_cmp);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Building and lookups                                                      */
/*---------------------------------------------------------------------------*/

/* The view and bytes of a memref.alloc result `v` of static shape, as
 * memref.c's ix_alloc_shape makes them each time for the others: row-major,
 * at most 2^40 elements. False: computed per run. */
static bool static_shape(const air_program_t* p, air_vid_t v, ix_shape_t* out) {
  const air_value_info_t* vi = &p->values[v];
  if (!vi->def || vi->def->kind != AIR_OP_ALLOC || vi->index != 0 || vi->def->n_operands)
    return false;
  const air_type_info_t* t = air_ir_type(p, vi->type);
  if (t->kind != AIR_TYPE_MEMREF || t->unranked || t->rank > AIR_MAX_RANK) return false;
  memset(out, 0, sizeof *out);
  out->view.elem = t->elem;
  out->view.rank = t->rank;
  uint64_t count = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    int64_t d = t->shape[k];
    if (d < 0 || __builtin_mul_overflow(count, (uint64_t)d, &count) ||
        count > (UINT64_C(1) << 40))
      return false;
    out->view.sizes[k] = d;
  }
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    out->view.strides[k] = stride;
    stride *= out->view.sizes[k] ? out->view.sizes[k] : 1;
  }
  out->bytes = (size_t)count * air_elem_size(t->elem);
  return true;
}

/* Every memref.alloc of static shape gets its view once (vinfo.shape): an
 * alloc then copies it instead of reading its type each run (issue 14). */
static air_status_t build_shapes(ix_tables_t* t, const air_allocator_t* a,
                                 const air_program_t* p) {
  uint32_t n = 0;
  for (uint32_t v = 0; v < p->n_values; ++v)
    if (p->values[v].def && p->values[v].def->kind == AIR_OP_ALLOC) ++n;
  if (!n) return NULL;
  t->shapes = air_mem_alloc(a, (size_t)n * sizeof *t->shapes);
  if (!t->shapes) return AIR_STATUS_OOM(a, "alloc shapes");
  for (uint32_t v = 0; v < p->n_values && t->n_shapes < n; ++v)
    if (static_shape(p, v, &t->shapes[t->n_shapes])) t->vinfo[v].shape = ++t->n_shapes;
  return NULL;
}

air_status_t ix_tables_build(ix_tables_t* t, const air_allocator_t* a, const air_program_t* p) {
  memset(t, 0, sizeof *t);
  build_t b = {t, a, p};
  t->n_values = p->n_values;
  t->vinfo = air_mem_calloc(a, p->n_values ? p->n_values : 1, sizeof(ix_vinfo_t));
  if (!t->vinfo) return AIR_STATUS_OOM(a, "value table");
  for (uint32_t v = 0; v < p->n_values; ++v) {
    ix_vinfo_t* vi = &t->vinfo[v];
    vi->slot = vi->view = -1;
    const air_type_info_t* ti = air_ir_type(p, p->values[v].type);
    vi->kind = kind_of(p, p->values[v].type);
    vi->elem = (uint8_t)ti->elem;
    vi->is_int = vi->kind == IX_K_SCALAR && !air_elem_is_float((air_elem_kind_t)ti->elem);
  }
  AIR_RETURN_IF_ERROR(build_shapes(t, a, p));
  const air_block_t* body = p->module->n_regions ? p->module->regions[0] : NULL;
  if (!body) return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "program has no body");
  uint32_t nb = 0, nf = 0;
  for (const air_op_t* o = body->first; o; o = o->next) {
    nb += count_blocks(o);
    if (o->kind == AIR_OP_FUNC && o->sym) ++nf;
  }
  t->binfos = air_mem_calloc(a, nb ? nb : 1, sizeof(ix_binfo_t));
  t->funcs = air_mem_calloc(a, nf ? nf : 1, sizeof(*t->funcs));
  if (!t->binfos || !t->funcs) return AIR_STATUS_OOM(a, "block tables");
  for (const air_op_t* o = body->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->sym) t->funcs[t->n_funcs++] = o;
  qsort(t->funcs, t->n_funcs, sizeof *t->funcs, func_cmp);
  uint32_t next = 0;
  air_status_t st = NULL;
  for (const air_op_t* o = body->first; o && !st; o = o->next) st = build_op(&b, o, 1, &next);
  t->n_binfos = next;
  if (st) return st;
  for (uint32_t i = 0; i < t->n_binfos; ++i) {
    /* scf.parallel bodies run in sequence when pure; whole entry bodies inline. */
    const air_op_t* owner = t->binfos[i].block->parent;
    if (owner && (owner->kind == AIR_OP_PARALLEL || owner->kind == AIR_OP_FUNC ||
                  owner->kind == AIR_OP_EXECUTE))
      t->binfos[i].pure = pure_block(t, t->binfos[i].block, false);
    if (owner && owner->kind == AIR_OP_PARALLEL) {
      bool init = false;
      t->binfos[i].serial = serial_block(t, t->binfos[i].block, &init);
      t->binfos[i].serial_init = init;
    }
    if (owner && owner->kind == AIR_OP_REDUCE) t->binfos[i].join = join_block(t->binfos[i].block);
    if (owner && owner->kind == AIR_OP_EXECUTE)
      t->binfos[i].calm = t->binfos[i].pure || pure_block(t, t->binfos[i].block, true);
    if (owner && owner->kind == AIR_OP_FUNC) {
      t->binfos[i].straight = straight_block(t->binfos[i].block);
      t->binfos[i].flat = !t->binfos[i].pure && flat_block(t, p, t->binfos[i].block, 0);
    }
  }
  st = build_chans(&b);
  /* Each put/get's channel is in its op record: resolved with one hash probe,
   * not a search by name every time it runs (issue 14). */
  return st ? st : ix_oprecs_build(t, a, p);
}

void ix_tables_free(ix_tables_t* t, const air_allocator_t* a) {
  for (uint32_t i = 0; t->binfos && i < t->n_binfos; ++i) air_mem_free(a, t->binfos[i].toks);
  air_mem_free(a, t->binfos);
  air_mem_free(a, t->vinfo);
  air_mem_free(a, t->shapes);
  air_mem_free(a, (void*)t->funcs);
  air_mem_free(a, t->chans);
  air_ptrmap_free(&t->blocks, a);
  ix_oprecs_free(t, a);
  memset(t, 0, sizeof *t);
}

const air_op_t* ix_find_func(const ix_tables_t* t, const char* name) {
  uint32_t lo = 0, hi = t->n_funcs;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = strcmp(t->funcs[mid]->sym, name);
    if (!c) return t->funcs[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

ix_chan_t* ix_chan_of(const ix_tables_t* t, const air_op_t* op) {
  const ix_oprec_t* rec = ix_oprec(t, op);
  return rec && rec->chan ? rec->chan : op->sym ? ix_find_chan(t, op->sym) : NULL;
}

/*---------------------------------------------------------------------------*/
/* Preps                                                                     */
/*---------------------------------------------------------------------------*/

enum { KEEP_RUNS = 8 }; /* finished runs a prep keeps for reuse */

air_status_t air_interp_prepare(const air_allocator_t* a, const air_program_t* p,
                                air_interp_prep_t** out) {
  *out = NULL;
  if (!a || !p || !p->module)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_interp_prepare: NULL argument");
  air_interp_prep_t* pr = air_mem_calloc(a, 1, sizeof *pr);
  if (!pr) return AIR_STATUS_OOM(a, "preparing a program");
  air_status_t st = ix_tables_build(&pr->tab, a, p);
  if (st) {
    ix_tables_free(&pr->tab, a);
    air_mem_free(a, pr);
    return st;
  }
  atomic_init(&pr->refs, 1);
  pr->alloc = *a;
  pr->p = p;
  pr->cache = ix_cache_new(a);
  pthread_mutex_init(&pr->free_mu, NULL);
  *out = pr;
  return NULL;
}

void air_interp_prep_release(air_interp_prep_t* pr) {
  if (!pr || atomic_fetch_sub_explicit(&pr->refs, 1, memory_order_acq_rel) != 1) return;
  air_allocator_t a = pr->alloc;
  while (pr->free_runs) {
    ix_run_t* r = pr->free_runs;
    pr->free_runs = r->next_free;
    ix_run_destroy(r, a);
  }
  ix_tables_free(&pr->tab, &a);
  ix_cache_free(pr->cache, &a);
  pthread_mutex_destroy(&pr->free_mu);
  air_mem_free(&a, pr);
}

ix_run_t* ix_prep_take_run(air_interp_prep_t* pr) {
  pthread_mutex_lock(&pr->free_mu);
  ix_run_t* r = pr->free_runs;
  if (r) {
    pr->free_runs = r->next_free;
    pr->n_free--;
  }
  pthread_mutex_unlock(&pr->free_mu);
  return r;
}

bool ix_prep_keep_run(air_interp_prep_t* pr, ix_run_t* r) {
  bool keep = false;
  pthread_mutex_lock(&pr->free_mu);
  if (pr->n_free < KEEP_RUNS) {
    r->next_free = pr->free_runs;
    pr->free_runs = r;
    pr->n_free++;
    keep = true;
  }
  pthread_mutex_unlock(&pr->free_mu);
  return keep;
}

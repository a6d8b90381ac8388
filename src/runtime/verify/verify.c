/* verify.c - the spec's static rules over one program: entry point, diagnostics,
 * and the indexing walk the passes share.
 *
 * Every violation becomes one line `file:line:col: error: [rule] message`; the
 * lines are sorted by location and returned in one FAILED_PRECONDITION status.
 * The verifier never trusts the IR: ids, counts and links are checked before use,
 * and what cannot be interpreted is reported as [structure] and skipped.
 *
 * Rule ids (the spec is seeds/000; section numbers refer to it):
 *
 *  structure          op shape per its class layout in ir.h: operand/result/
 *                     region/list counts, terminators present, last and of the
 *                     right kind, yielded/returned values matching results,
 *                     block arguments matching signatures, operand types the
 *                     class fixes (index sizes/indices/bounds, i1 conditions,
 *                     memref data operands, token iter_args), intact links.
 *  nesting            launch outside any launch/segment/herd; segment inside a
 *                     launch or segment (at any depth) and not in a herd; herd
 *                     inside a segment, never in a herd; func, channel and
 *                     opaque ops only at module level (spec 2.1-2.3). The spec
 *                     restricts where hierarchy ops nest, not where data moves:
 *                     put/get/dma/wait_all are legal at any level (host code
 *                     included) except inside air.execute.
 *  isolation          launch/segment/herd/func bodies use only values defined
 *                     inside them; captures (constants too) must go through
 *                     args(...) (IsolatedFromAbove, spec 1).
 *  dominance          a use must follow its definition in the same block, or be
 *                     nested in a block that follows it.
 *  symbol             module symbols are unique; func.call names a declared
 *                     function with a matching signature.
 *  token-list         dependency/affinity/concurrency lists hold only tokens;
 *                     dependency only on AIR async-capable ops; affinity only on
 *                     launch/segment/herd; concurrency only on segment/herd (the
 *                     per-op syntax of spec 2; data-movement syntax has dependency
 *                     lists only).
 *  launch-concurrency no concurrency list on air.launch (spec 2.1).
 *  launch-token-scope affinity/concurrency tokens never cross a launch boundary:
 *                     not passed into a launch through args (traced through
 *                     nested args and loop iter_args) nor captured (spec 1.5).
 *  token-conflict     ops that share an affinity token must run disjoint and ops
 *                     that share a concurrency token must overlap: two ops may
 *                     not share both, a token may not be in both lists of one op,
 *                     and concurrency partners may not be ordered by a
 *                     dependency (token chain) or by a blocking op (spec 1.5 table).
 *  async-result       async form <=> one token result; execute's first result is
 *                     a token; sync and async not both; a token result must be
 *                     used or named ('async' => the result must be named).
 *  memory-space       memref spaces are 0/1/2; L1 (2) allocs inside a herd, L2 (1)
 *                     allocs inside a segment and not in a herd; launch args are
 *                     L3 (spec 2.1); with target npu1/npu2 compute in a herd
 *                     (linalg, memref.load/store/copy, func.call) uses L1 only
 *                     (spec 2.3; mi300x herds may use L2/L3, spec 4.2).
 *  dma-lists          offsets/sizes/strides: sizes and strides of equal length,
 *                     offsets no longer than sizes, static offsets/strides >= 0,
 *                     sizes > 0; a dma's sides have the same element type and,
 *                     when both are static, the same element count. Lists longer
 *                     than the memref rank are legal (mlir-air describes
 *                     wrap-around access patterns with them), so rank is not
 *                     checked.
 *  rank               src_rank/dst_rank and gpu_symmetric_heap channels need an
 *                     enclosing air.rank, which this build does not support.
 *  broadcast-shape    channel dims > 0; broadcast_shape has the channel's rank,
 *                     positive dims, and each channel dim equals it or is 1
 *                     (NumPy broadcasting of the channel onto the shape).
 *  channel-type       channel_type is one of the five spec values, and a written
 *                     one fits the target (npu_* not on mi300x, gpu_* not on
 *                     npu1/npu2); depth is an integer >= 1; npu_mmio gets land
 *                     in L1.
 *  undeclared-channel put/get name a declared channel; index count equals its
 *                     rank (or none when every dim is 1); constant indices, and
 *                     indices resolved per herd/segment/loop instance, are in
 *                     range (puts: channel dims; gets: broadcast_shape).
 *  execute-region     air.execute holds host computation only (no hierarchy,
 *                     channel, dma, wait_all, execute, token or channel decl ops)
 *                     and yields values matching its results.
 *  channel-balance    per channel index, total puts == total gets, counting every
 *                     launch/segment/herd/scf.parallel instance and static loop
 *                     iteration, resolving indices and affine.if/scf.if
 *                     conditions per instance; a broadcast put counts once per
 *                     receiver. Branches on dynamic conditions must move the same
 *                     amounts. Dynamic counts are skipped (spec 2.6 static balance).
 *  deadlock           a channel op that can start but never complete: a get whose
 *                     every put is ordered after it (or behind another blocked
 *                     op: cycles through channels), a put that needs a get
 *                     (depth 1 is a rendezvous; depth N lets N-1 puts run ahead of
 *                     the gets in one sequential scope) while every get is
 *                     ordered after it (spec 2.6 deadlock).
 *  target-limit       target facts one program can break: mi300x herds have at
 *                     most 32 PEs (spec 4.2). Fitting a target's resources is
 *                     the scheduler's job.
 *
 * Passes: verify.c indexes and builds the symbol table; verify_ops.c and
 * verify_data.c check ops one by one; verify_scope.c walks values (dominance,
 * isolation, token scope and conflicts); verify_balance.c and
 * verify_deadlock.c analyse channels over the whole program. Analyses that
 * cannot decide statically (dynamic counts, indices or conditions; budgets
 * exceeded) stay silent rather than guess.
 */
#include "runtime/verify/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/status_util.h"
#include "runtime/verify/verify_internal.h"

/*---------------------------------------------------------------------------*/
/* Scratch memory and diagnostics                                            */
/*---------------------------------------------------------------------------*/

void* air_v_calloc(air_vctx_t* v, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) {
    v->oom = true;
    return NULL;
  }
  size_t bytes = n * size;
  if (!bytes) bytes = 1;
  void* ptr = v->a->alloc(v->a->self, bytes);
  if (!ptr) {
    v->oom = true;
    return NULL;
  }
  memset(ptr, 0, bytes);
  return ptr;
}

void air_v_free(air_vctx_t* v, void* ptr) {
  if (ptr) v->a->free(v->a->self, ptr);
}

void air_v_error(air_vctx_t* v, const air_op_t* op, const char* rule, const char* fmt, ...) {
  if (v->n_diags >= AIR_V_MAX_ERRORS) {
    v->n_dropped++;
    return;
  }
  if (v->n_diags == v->cap_diags) {
    uint32_t cap = v->cap_diags ? v->cap_diags * 2 : 64;
    air_vdiag_t* d = v->a->realloc(v->a->self, v->diags, cap * sizeof(*d));
    if (!d) {
      v->oom = true;
      return;
    }
    v->diags = d;
    v->cap_diags = cap;
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
/* Hash tables: module symbols by name, visited blocks by address            */
/*---------------------------------------------------------------------------*/

static uint64_t hash_str(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static uint64_t hash_ptr(const void* p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
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

/* Builds the symbol table from module-level func and channel ops; reports
 * duplicates. */
static void build_symbols(air_vctx_t* v) {
  uint32_t n = 0;
  for (uint32_t j = air_v_first_child(v, 0, 0); j != AIR_V_NONE; j = air_v_next_sibling(v, 0, j)) {
    air_opkind_t k = v->ops[j].op->kind;
    if ((k == AIR_OP_FUNC || k == AIR_OP_CHANNEL) && v->ops[j].op->sym) n++;
  }
  uint32_t cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  v->syms = air_v_calloc(v, cap, sizeof(uint32_t));
  if (!v->syms) return;
  memset(v->syms, 0xff, cap * sizeof(uint32_t));
  v->sym_cap = cap;
  for (uint32_t j = air_v_first_child(v, 0, 0); j != AIR_V_NONE; j = air_v_next_sibling(v, 0, j)) {
    air_op_t* op = v->ops[j].op;
    if ((op->kind != AIR_OP_FUNC && op->kind != AIR_OP_CHANNEL) || !op->sym) continue;
    uint32_t prev = air_v_symbol(v, op->sym);
    if (prev != AIR_V_NONE) {
      air_v_error(v, op, "symbol",
                  "symbol @%s is already defined at %u:%u; give each func.func and "
                  "air.channel a unique name",
                  op->sym, v->ops[prev].op->line, v->ops[prev].op->col);
      continue;
    }
    for (uint32_t i = (uint32_t)hash_str(op->sym) & (cap - 1);; i = (i + 1) & (cap - 1)) {
      if (v->syms[i] == AIR_V_NONE) {
        v->syms[i] = j;
        break;
      }
    }
  }
}

/* Adds a block to the visited set; false when it was already there. */
static bool block_visit(air_vctx_t* v, void* b) {
  if (2 * (v->n_blocks + 1) > v->block_cap) {
    uint32_t cap = v->block_cap ? v->block_cap * 2 : 256;
    void** t = air_v_calloc(v, cap, sizeof(void*));
    if (!t) return true;
    for (uint32_t i = 0; i < v->block_cap; ++i) {
      if (!v->blocks[i]) continue;
      uint32_t k = (uint32_t)hash_ptr(v->blocks[i]) & (cap - 1);
      while (t[k]) k = (k + 1) & (cap - 1);
      t[k] = v->blocks[i];
    }
    air_v_free(v, v->blocks);
    v->blocks = t;
    v->block_cap = cap;
  }
  uint32_t k = (uint32_t)hash_ptr(b) & (v->block_cap - 1);
  for (; v->blocks[k]; k = (k + 1) & (v->block_cap - 1))
    if (v->blocks[k] == b) return false;
  v->blocks[k] = b;
  v->n_blocks++;
  return true;
}

/*---------------------------------------------------------------------------*/
/* Indexing walk                                                             */
/*---------------------------------------------------------------------------*/

static bool is_isolated(air_opkind_t k) {
  return k == AIR_OP_MODULE || k == AIR_OP_FUNC || air_v_is_hier(k);
}

static void define(air_vctx_t* v, uint32_t owner, bool is_arg, uint32_t region, uint32_t index,
                   air_vid_t vid, const air_block_t* b) {
  air_op_t* op = v->ops[owner].op;
  const char* what = is_arg ? "block argument" : "result";
  if (!air_v_valid(v, vid)) {
    air_v_error(v, op, "structure", "%s #%u of %s is not a valid value (id %u)", what, index,
                air_v_opname(op), vid);
    v->ops[owner].bad = 1;
    return;
  }
  char nb[64];
  air_vval_t* vv = &v->vals[vid];
  if (vv->owner != AIR_V_NONE) {
    air_v_error(v, op, "structure", "%s #%u of %s (%s) is already defined by the %s at %u:%u", what,
                index, air_v_opname(op), air_v_vname(v, vid, nb, sizeof nb),
                air_v_opname(v->ops[vv->owner].op), v->ops[vv->owner].op->line,
                v->ops[vv->owner].op->col);
    v->ops[owner].bad = 1;
    return;
  }
  vv->owner = owner;
  vv->index = index;
  vv->region = region;
  vv->is_arg = is_arg;
  const air_value_info_t* info = &v->p->values[vid];
  if (info->type == 0 || info->type >= v->p->n_types)
    air_v_error(v, op, "structure", "%s %s of %s has no valid type", what,
                air_v_vname(v, vid, nb, sizeof nb), air_v_opname(op));
  bool consistent = is_arg ? info->def == NULL && info->block == b && info->index == index
                           : info->def == op && info->index == index;
  if (!consistent)
    air_v_error(v, op, "structure",
                "the value table's record of %s (defining op, block or position) does not "
                "match where %s #%u of %s holds it",
                air_v_vname(v, vid, nb, sizeof nb), what, index, air_v_opname(op));
}

static uint32_t index_op(air_vctx_t* v, air_op_t* op, uint32_t parent, uint32_t region,
                         uint32_t depth);

static void index_block(air_vctx_t* v, uint32_t id, uint32_t r, air_block_t* b, uint32_t depth) {
  air_op_t* op = v->ops[id].op;
  if (b->n_args && !b->args) {
    air_v_error(v, op, "structure", "region #%u of %s has %u arguments but no argument array", r,
                air_v_opname(op), b->n_args);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t i = 0; i < b->n_args; ++i) define(v, id, true, r, i, b->args[i], b);
  }
  air_op_t* prev = NULL;
  for (air_op_t* o = b->first; o; o = o->next) {
    if (o->parent != b || o->prev != prev) {
      air_v_error(v, prev ? prev : op, "structure",
                  "the op list of region #%u of %s is corrupt (parent or prev link wrong); "
                  "build blocks with air_ir_block_append",
                  r, air_v_opname(op));
      v->ops[id].bad = 1;
      return;
    }
    if ((unsigned)o->kind >= AIR_OP_COUNT_) {
      air_v_error(v, op, "structure", "an op in region #%u of %s has an unknown kind %d", r,
                  air_v_opname(op), (int)o->kind);
      v->ops[id].bad = 1;
      return;
    }
    if (index_op(v, o, id, r, depth) == AIR_V_NONE) return;
    prev = o;
  }
  if (b->last != prev) {
    air_v_error(v, op, "structure", "region #%u of %s: the block's last-op link is wrong", r,
                air_v_opname(op));
    v->ops[id].bad = 1;
  }
}

static uint32_t index_op(air_vctx_t* v, air_op_t* op, uint32_t parent, uint32_t region,
                         uint32_t depth) {
  if (v->oom) return AIR_V_NONE;
  if (v->n_ops == v->cap_ops) {
    uint32_t cap = v->cap_ops ? v->cap_ops * 2 : 1024;
    air_vop_t* ops = v->a->realloc(v->a->self, v->ops, (size_t)cap * sizeof(*ops));
    if (!ops || v->cap_ops > UINT32_MAX / 4) {
      if (ops) v->ops = ops;
      v->oom = true;
      return AIR_V_NONE;
    }
    v->ops = ops;
    v->cap_ops = cap;
  }
  uint32_t id = v->n_ops++;
  air_vop_t* r = &v->ops[id];
  memset(r, 0, sizeof(*r));
  r->op = op;
  r->parent = parent;
  r->region = region;
  r->depth = (uint16_t)depth;
  r->chan = AIR_V_NONE;
  r->scope = r->hier = r->exec = AIR_V_NONE;
  if (parent != AIR_V_NONE) {
    const air_vop_t* pr = &v->ops[parent];
    air_opkind_t pk = pr->op->kind;
    r->scope = is_isolated(pk) ? parent : pr->scope;
    r->hier = air_v_is_hier(pk) ? parent : pr->hier;
    r->exec = pk == AIR_OP_EXECUTE ? parent : pr->exec;
  }
  if (op->n_results && !op->results) {
    air_v_error(v, op, "structure", "%s has %u results but no result array", air_v_opname(op),
                op->n_results);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t i = 0; i < op->n_results; ++i) define(v, id, false, 0, i, op->results[i], NULL);
  }
  if (op->n_regions && !op->regions) {
    air_v_error(v, op, "structure", "%s has %u regions but no region array", air_v_opname(op),
                op->n_regions);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t ri = 0; ri < op->n_regions; ++ri) {
      air_block_t* b = op->regions[ri];
      if (!b) {
        air_v_error(v, op, "structure", "region #%u of %s is missing its block", ri,
                    air_v_opname(op));
        v->ops[id].bad = 1;
        continue;
      }
      if (b->parent != op || !block_visit(v, b)) {
        air_v_error(v, op, "structure", "region #%u of %s holds a block that belongs to another op",
                    ri, air_v_opname(op));
        v->ops[id].bad = 1;
        continue;
      }
      if (depth + 1 > AIR_V_MAX_DEPTH) {
        air_v_error(v, op, "structure", "ops are nested more than %d levels deep", AIR_V_MAX_DEPTH);
        v->ops[id].bad = 1;
        v->too_deep = true;
        continue;
      }
      index_block(v, id, ri, b, depth + 1);
      if (v->oom) return AIR_V_NONE;
    }
  }
  v->ops[id].end = v->n_ops;
  return id;
}

/*---------------------------------------------------------------------------*/
/* Entry point                                                               */
/*---------------------------------------------------------------------------*/

static const struct {
  const char* name;
  air_vtarget_t target;
} k_targets[] = {
    {"cpu", AIR_VT_CPU}, {"npu1", AIR_VT_NPU1}, {"npu2", AIR_VT_NPU2}, {"mi300x", AIR_VT_MI300X}};

static int diag_cmp(const void* a, const void* b) {
  const air_vdiag_t* x = a;
  const air_vdiag_t* y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static air_status_t finish(air_vctx_t* v) {
  const air_program_t* p = v->p;
  air_status_t st = NULL;
  if (v->oom || v->text.oom) {
    st = AIR_STATUS(v->a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory verifying %s", p->filename);
  } else if (v->n_diags) {
    qsort(v->diags, v->n_diags, sizeof(*v->diags), diag_cmp);
    air_sb_t out;
    air_sb_init(&out, v->a);
    const air_vdiag_t* last = NULL;
    for (uint32_t i = 0; i < v->n_diags; ++i) {
      const air_vdiag_t* d = &v->diags[i];
      /* The same fact found twice (e.g. once per enumerated instance) is one line. */
      if (last && last->line == d->line && last->col == d->col && last->len == d->len &&
          memcmp(v->text.data + last->off, v->text.data + d->off, d->len) == 0)
        continue;
      if (out.len) air_sb_putc(&out, '\n');
      air_sb_printf(&out, "%s:%u:%u: error: ", p->filename, d->line, d->col);
      air_sb_append(&out, v->text.data + d->off, d->len);
      last = d;
    }
    if (v->n_dropped)
      air_sb_printf(&out, "\n%s: error: ... and %u more errors", p->filename, v->n_dropped);
    if (out.oom) {
      st = AIR_STATUS(v->a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory verifying %s",
                      p->filename);
    } else {
      st = air_status_make(v->a, AIR_STATUS_FAILED_PRECONDITION, __FILE__, __LINE__,
                           out.data ? out.data : "");
    }
    air_sb_free(&out);
  }
  return st;
}

air_status_t air_verify(const air_program_t* p, const char* target, uint32_t flags) {
  (void)flags; /* reserved */
  if (!p) return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_verify: NULL program");
  air_vctx_t v;
  memset(&v, 0, sizeof(v));
  v.p = p;
  v.a = &p->allocator;
  if (target) {
    size_t i = 0, n = sizeof(k_targets) / sizeof(k_targets[0]);
    while (i < n && strcmp(target, k_targets[i].name) != 0) ++i;
    if (i == n)
      return AIR_STATUS(v.a, AIR_STATUS_INVALID_ARGUMENT,
                        "unknown target '%s' (known: cpu, npu1, npu2, mi300x)", target);
    v.target = k_targets[i].target;
  }
  air_sb_init(&v.text, v.a);
  if (!p->module || p->module->kind != AIR_OP_MODULE || p->module->n_regions != 1 ||
      !p->module->regions || !p->module->regions[0]) {
    air_v_error(&v, p->module, "structure",
                "the program has no module with a body; create it with air_ir_program_new");
  } else if ((v.vals = air_v_calloc(&v, p->n_values ? p->n_values : 1, sizeof(air_vval_t))) &&
             (v.uses = air_v_calloc(&v, p->n_values ? p->n_values : 1, sizeof(uint32_t)))) {
    for (uint32_t i = 0; i < p->n_values; ++i) v.vals[i].owner = AIR_V_NONE;
    index_op(&v, p->module, AIR_V_NONE, 0, 0);
    if (!v.oom) build_symbols(&v);
    if (!v.oom) air_v_check_ops(&v);
    if (!v.oom) {
      /* has_chan lets the channel analyses skip subtrees without channel ops. */
      for (uint32_t j = v.n_ops; j-- > 0;) {
        if (air_v_is_chan_io(v.ops[j].op->kind) && v.ops[j].chan != AIR_V_NONE)
          v.ops[j].has_chan = 1;
        if (v.ops[j].has_chan && v.ops[j].parent != AIR_V_NONE) v.ops[v.ops[j].parent].has_chan = 1;
      }
      air_v_check_scopes(&v);
    }
    if (!v.oom && !v.too_deep) air_v_check_balance(&v);
    if (!v.oom && !v.too_deep) air_v_check_deadlock(&v);
  }
  air_status_t st = finish(&v);
  for (uint32_t i = 0; i < v.n_chans; ++i) {
    air_v_free(&v, v.chans[i].dims);
    air_v_free(&v, v.chans[i].bdims);
  }
  air_v_free(&v, v.chans);
  air_v_free(&v, v.syms);
  air_v_free(&v, v.blocks);
  air_v_free(&v, v.ops);
  air_v_free(&v, v.vals);
  air_v_free(&v, v.uses);
  air_v_free(&v, v.diags);
  air_sb_free(&v.text);
  return st;
}

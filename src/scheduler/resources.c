/* resources.c - the two-stage resource analysis and its check against a target
 * (see resources.h; docs/scheduler.md says what is exact and what is a bound).
 *
 * Each scope yields a footprint `fp_t`. Within a block, ops that the async graph
 * orders reuse tiles, DMA and L2 (a chain cover, below); branches take the max;
 * scf.for multiplies the compute and per-op DMA parts by its pipeline depth D;
 * scf.parallel multiplies everything by its trip count; a segment's total is its
 * body times its iteration space. Channel endpoints are counted once per
 * (channel, direction) in a scope: a hardware channel is reused by every
 * transfer on it, in order. */
#include "scheduler/resources.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/base/strbuf.h"

typedef struct stream_t {
  const char* sym;
  bool put;
  uint64_t count; /* distinct endpoints, > 1 under scf.parallel */
} stream_t;

typedef struct fp_t {
  uint64_t tiles, l1, l2;
  uint64_t dma_in, dma_out; /* dma_memcpy_nd ops (in = towards L1 in a herd) */
  uint64_t units;           /* DMA totals of nested segments, taken as a block */
  stream_t* streams;
  uint32_t n_streams, cap_streams;
} fp_t;

typedef struct an_t {
  const air_program_t* p;
  const air_target_t* t;
  air_resources_t* r;
  const air_op_t* launch;
  const air_op_t* segment;
  bool in_herd;
  uint64_t herd_w, herd_h; /* of the segment being analysed */
} an_t;

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}
static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

const char* air_res_label(const air_op_t* op, char* buf, size_t size) {
  const char* what = op->kind == AIR_OP_HERD      ? "herd"
                     : op->kind == AIR_OP_SEGMENT ? "segment"
                     : op->kind == AIR_OP_LAUNCH  ? "launch"
                                                  : air_opkind_name(op->kind);
  if (op->sym)
    snprintf(buf, size, "%s @%s", what, op->sym);
  else
    snprintf(buf, size, "%s (unnamed)", what);
  return buf;
}

static void fp_free(an_t* an, fp_t* f) {
  if (f->streams) an->r->allocator.free(an->r->allocator.self, f->streams);
  memset(f, 0, sizeof *f);
}

/* Records `count` endpoints of (sym, put), keeping the max per endpoint. */
static air_status_t fp_stream(an_t* an, fp_t* f, const char* sym, bool put, uint64_t count) {
  for (uint32_t i = 0; i < f->n_streams; ++i) {
    stream_t* s = &f->streams[i];
    if (s->put == put && !strcmp(s->sym, sym)) {
      s->count = max_u64(s->count, count);
      return AIR_STATUS_OK_VALUE;
    }
  }
  if (!air_mem_grow(&an->r->allocator, (void**)&f->streams, &f->cap_streams,
                    (size_t)f->n_streams + 1, sizeof *f->streams))
    return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
  f->streams[f->n_streams++] = (stream_t){sym, put, count};
  return AIR_STATUS_OK_VALUE;
}

/* dst := dst then src (may overlap): sums, endpoints shared. */
static air_status_t fp_seq(an_t* an, fp_t* dst, const fp_t* src) {
  dst->tiles = add_sat(dst->tiles, src->tiles);
  dst->l1 = add_sat(dst->l1, src->l1);
  dst->l2 = add_sat(dst->l2, src->l2);
  dst->dma_in = add_sat(dst->dma_in, src->dma_in);
  dst->dma_out = add_sat(dst->dma_out, src->dma_out);
  dst->units = add_sat(dst->units, src->units);
  for (uint32_t i = 0; i < src->n_streams; ++i)
    AIR_RETURN_IF_ERROR(fp_stream(an, dst, src->streams[i].sym, src->streams[i].put,
                                  src->streams[i].count));
  return AIR_STATUS_OK_VALUE;
}

/* dst := dst or src (exclusive branches): max. */
static air_status_t fp_alt(an_t* an, fp_t* dst, const fp_t* src) {
  dst->tiles = max_u64(dst->tiles, src->tiles);
  dst->l1 = max_u64(dst->l1, src->l1);
  dst->l2 = max_u64(dst->l2, src->l2);
  dst->dma_in = max_u64(dst->dma_in, src->dma_in);
  dst->dma_out = max_u64(dst->dma_out, src->dma_out);
  dst->units = max_u64(dst->units, src->units);
  for (uint32_t i = 0; i < src->n_streams; ++i)
    AIR_RETURN_IF_ERROR(fp_stream(an, dst, src->streams[i].sym, src->streams[i].put,
                                  src->streams[i].count));
  return AIR_STATUS_OK_VALUE;
}

/* n concurrent copies (scf.parallel, iteration spaces). */
static void fp_scale(fp_t* f, uint64_t n) {
  f->tiles = mul_sat(f->tiles, n);
  f->l1 = mul_sat(f->l1, n);
  f->l2 = mul_sat(f->l2, n);
  f->dma_in = mul_sat(f->dma_in, n);
  f->dma_out = mul_sat(f->dma_out, n);
  f->units = mul_sat(f->units, n);
  for (uint32_t i = 0; i < f->n_streams; ++i) f->streams[i].count = mul_sat(f->streams[i].count, n);
}

static uint64_t fp_stream_sum(const fp_t* f, int dir /* -1 all, 0 get, 1 put */) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < f->n_streams; ++i)
    if (dir < 0 || (int)f->streams[i].put == dir) n = add_sat(n, f->streams[i].count);
  return n;
}

static bool const_int(const air_program_t* p, air_vid_t v, int64_t* out) {
  const air_op_t* d = air_ir_value(p, v)->def;
  if (!d || d->kind != AIR_OP_CONSTANT || d->value.kind != AIR_ATTR_INT) return false;
  *out = d->value.i;
  return true;
}

/* Product of the first n operands (an iteration space), each a constant >= 0. */
static air_status_t space_size(an_t* an, const air_op_t* op, uint32_t n, uint64_t* out) {
  uint64_t total = 1;
  for (uint32_t i = 0; i < n && i < op->n_operands; ++i) {
    int64_t v;
    if (!const_int(an->p, op->operands[i], &v) || v < 0)
      return AIR_IR_ERROR(an->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col,
                          "[resources] %s: iteration-space size %u is not a constant; "
                          "the resource analysis needs static sizes",
                          air_opkind_name(op->kind), i);
    total = mul_sat(total, (uint64_t)v);
  }
  *out = total;
  return AIR_STATUS_OK_VALUE;
}

static air_status_t alloc_bytes(an_t* an, const air_op_t* op, fp_t* f) {
  if (!op->n_results) return AIR_STATUS_OK_VALUE;
  const air_type_info_t* ty = air_ir_type(an->p, air_ir_value_type(an->p, op->results[0]));
  if (ty->kind != AIR_TYPE_MEMREF || ty->memspace == AIR_MEM_L3) return AIR_STATUS_OK_VALUE;
  uint64_t bytes = air_elem_size(ty->elem);
  for (uint32_t i = 0; i < ty->rank; ++i) {
    if (ty->shape[i] == AIR_DIM_DYNAMIC || ty->shape[i] < 0) {
      const char* name = air_ir_value(an->p, op->results[0])->name;
      return AIR_IR_ERROR(an->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col,
                          "[resources] memref.alloc %s%s has a dynamic shape; L%d sizes "
                          "must be static to be checked against the target",
                          name ? "%" : "", name ? name : "", ty->memspace == AIR_MEM_L1 ? 1 : 2);
    }
    bytes = mul_sat(bytes, (uint64_t)ty->shape[i]);
  }
  if (ty->memspace == AIR_MEM_L1) f->l1 = add_sat(f->l1, bytes);
  if (ty->memspace == AIR_MEM_L2) f->l2 = add_sat(f->l2, bytes);
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_block(an_t* an, const air_block_t* b, fp_t* out);

static air_status_t walk_regions_seq(an_t* an, const air_op_t* op, fp_t* out) {
  for (uint32_t i = 0; i < op->n_regions; ++i) {
    fp_t r = {0};
    air_status_t s = walk_block(an, op->regions[i], &r);
    if (!s) s = fp_seq(an, out, &r);
    fp_free(an, &r);
    if (s) return s;
  }
  return AIR_STATUS_OK_VALUE;
}

/* scf.for / affine.for: D = number of token iter_args (independent chains). */
static air_status_t walk_for(an_t* an, const air_op_t* op, fp_t* out) {
  const air_block_t* body = op->n_regions ? op->regions[0] : NULL;
  uint64_t depth = 0;
  for (uint32_t i = 1; body && i < body->n_args; ++i)
    depth += air_ir_type_is_token(an->p, air_ir_value_type(an->p, body->args[i]));
  if (depth == 0) depth = 1;
  AIR_RETURN_IF_ERROR(walk_regions_seq(an, op, out));
  /* Memory inside the body needs one slot (reused each iteration); herds and
   * per-op DMA of D iterations are in flight together. Channel endpoints are
   * reused by every iteration, so they do not multiply. */
  out->tiles = mul_sat(out->tiles, depth);
  out->dma_in = mul_sat(out->dma_in, depth);
  out->dma_out = mul_sat(out->dma_out, depth);
  out->units = mul_sat(out->units, depth);
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_parallel(an_t* an, const air_op_t* op, fp_t* out) {
  uint32_t n = op->iaux[0];
  uint64_t trips = 1;
  for (uint32_t i = 0; i < n && 3 * n <= op->n_operands; ++i) {
    int64_t lb, ub, st;
    if (!const_int(an->p, op->operands[i], &lb) || !const_int(an->p, op->operands[n + i], &ub) ||
        !const_int(an->p, op->operands[2 * n + i], &st) || st <= 0)
      return AIR_IR_ERROR(an->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col,
                          "[resources] scf.parallel: bounds of dimension %u are not "
                          "constants; the resource analysis needs static trip counts", i);
    trips = mul_sat(trips, ub > lb ? (uint64_t)((ub - lb + st - 1) / st) : 0);
  }
  AIR_RETURN_IF_ERROR(walk_regions_seq(an, op, out));
  fp_scale(out, trips);
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_herd(an_t* an, const air_op_t* op, fp_t* out) {
  uint32_t n = op->iaux[0];
  int64_t nx = 1, ny = 1;
  if ((n >= 1 && !const_int(an->p, op->operands[0], &nx)) ||
      (n >= 2 && !const_int(an->p, op->operands[1], &ny)) || nx < 0 || ny < 0) {
    char lb[96];
    return AIR_IR_ERROR(an->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col,
                        "[resources] %s: the PE grid is not constant",
                        air_res_label(op, lb, sizeof lb));
  }
  fp_t body = {0};
  bool was = an->in_herd;
  an->in_herd = true;
  air_status_t s = walk_regions_seq(an, op, &body);
  an->in_herd = was;
  if (s) {
    fp_free(an, &body);
    return s;
  }
  air_resources_t* r = an->r;
  if (!air_mem_grow(&r->allocator, (void**)&r->herds, &r->cap_herds, (size_t)r->n_herds + 1,
                    sizeof *r->herds)) {
    fp_free(an, &body);
    return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
  }
  uint64_t pes = mul_sat((uint64_t)nx, (uint64_t)ny);
  r->herds[r->n_herds++] = (air_herd_res_t){
      .op = op, .segment = an->segment, .nx = (uint64_t)nx, .ny = (uint64_t)ny,
      .l1_bytes = body.l1,
      .dma_in = add_sat(body.dma_in, fp_stream_sum(&body, 0)),
      .dma_out = add_sat(body.dma_out, fp_stream_sum(&body, 1))};
  an->herd_w = max_u64(an->herd_w, (uint64_t)nx);
  an->herd_h = max_u64(an->herd_h, (uint64_t)ny);
  out->tiles = an->t->herd_is_one_tile ? 1 : pes;
  out->l2 = mul_sat(body.l2, pes);
  fp_free(an, &body);
  return AIR_STATUS_OK_VALUE;
}

int64_t air_res_attr_int(const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  return a && a->kind == AIR_ATTR_INT ? a->i : -1;
}

static air_status_t walk_segment(an_t* an, const air_op_t* op, fp_t* out) {
  uint64_t instances = 1;
  AIR_RETURN_IF_ERROR(space_size(an, op, op->iaux[0], &instances));
  an_t inner = *an;
  inner.segment = op;
  inner.herd_w = inner.herd_h = 0;
  fp_t body = {0};
  air_status_t s = walk_regions_seq(&inner, op, &body);
  if (s) {
    fp_free(an, &body);
    return s;
  }
  air_segment_res_t rec = {.op = op, .launch = an->launch, .parent = an->segment,
                           .instances = instances, .herd_w = inner.herd_w,
                           .herd_h = inner.herd_h};
  rec.per_instance.tiles = rec.body_tiles = body.tiles;
  /* x_size/y_size are authoritative for one instance's block on a tile array. */
  int64_t xs = air_res_attr_int(op, "x_size"), ys = air_res_attr_int(op, "y_size");
  if (an->t->kind == AIR_TARGET_NPU && xs > 0 && ys > 0)
    rec.per_instance.tiles = (uint64_t)xs * (uint64_t)ys;
  rec.per_instance.l2_bytes = body.l2;
  rec.per_instance.dma =
      add_sat(add_sat(body.dma_in, body.dma_out), add_sat(body.units, fp_stream_sum(&body, -1)));
  rec.total.tiles = mul_sat(rec.per_instance.tiles, instances);
  rec.total.l2_bytes = mul_sat(rec.per_instance.l2_bytes, instances);
  rec.total.dma = mul_sat(rec.per_instance.dma, instances);
  fp_free(an, &body);
  air_resources_t* r = an->r;
  if (!air_mem_grow(&r->allocator, (void**)&r->segments, &r->cap_segments, (size_t)r->n_segments + 1,
                    sizeof *r->segments)) return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
  r->segments[r->n_segments++] = rec;
  out->tiles = rec.total.tiles;
  out->l2 = rec.total.l2_bytes;
  out->units = rec.total.dma;
  return AIR_STATUS_OK_VALUE;
}

/* One launch instance: its segments are co-resident. Launch instances are not
 * scaled: the runtime may run them one after another. */
static air_status_t walk_launch(an_t* an, const air_op_t* op) {
  an_t inner = *an;
  inner.launch = op;
  inner.segment = NULL;
  fp_t body = {0};
  air_status_t s = walk_regions_seq(&inner, op, &body);
  air_launch_res_t rec = {.op = op};
  rec.total.tiles = body.tiles;
  rec.total.l2_bytes = body.l2;
  rec.total.dma =
      add_sat(add_sat(body.dma_in, body.dma_out), add_sat(body.units, fp_stream_sum(&body, -1)));
  fp_free(an, &body);
  if (s) return s;
  air_resources_t* r = an->r;
  if (!air_mem_grow(&r->allocator, (void**)&r->launches, &r->cap_launches, (size_t)r->n_launches + 1,
                    sizeof *r->launches)) return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
  r->launches[r->n_launches++] = rec;
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_op(an_t* an, const air_op_t* op, fp_t* out) {
  switch (op->kind) {
    case AIR_OP_ALLOC: return alloc_bytes(an, op, out);
    case AIR_OP_PUT:
    case AIR_OP_GET: return fp_stream(an, out, op->sym ? op->sym : "", op->kind == AIR_OP_PUT, 1);
    case AIR_OP_DMA: {
      if (!op->n_operands) return AIR_STATUS_OK_VALUE;
      const air_type_info_t* dst = air_ir_type(an->p, air_ir_value_type(an->p, op->operands[0]));
      if (an->in_herd && dst->kind == AIR_TYPE_MEMREF && dst->memspace != AIR_MEM_L1)
        out->dma_out = add_sat(out->dma_out, 1);
      else
        out->dma_in = add_sat(out->dma_in, 1);
      return AIR_STATUS_OK_VALUE;
    }
    case AIR_OP_FOR:
    case AIR_OP_AFFINE_FOR: return walk_for(an, op, out);
    case AIR_OP_PARALLEL: return walk_parallel(an, op, out);
    case AIR_OP_IF:
    case AIR_OP_AFFINE_IF:
      for (uint32_t i = 0; i < op->n_regions; ++i) {
        fp_t r = {0};
        air_status_t s = walk_block(an, op->regions[i], &r);
        if (!s) s = fp_alt(an, out, &r);
        fp_free(an, &r);
        if (s) return s;
      }
      return AIR_STATUS_OK_VALUE;
    case AIR_OP_HERD: return walk_herd(an, op, out);
    case AIR_OP_SEGMENT: return walk_segment(an, op, out);
    case AIR_OP_LAUNCH: return walk_launch(an, op);
    default: return walk_regions_seq(an, op, out);
  }
}

/*---------------------------------------------------------------------------*/
/* Concurrency inside one block                                              */
/*---------------------------------------------------------------------------*/

/* Ops of a block that the async graph orders may reuse each other's tiles and
 * DMA channels; the rest may overlap. The exact bound (a maximum-weight
 * antichain) needs a flow; instead the ops are split greedily into chains of
 * ordered ops and each chain holds its largest member. Any set of ops live at
 * once has at most one op per chain, so the sum over chains is a safe bound, and
 * it is exact for the common shapes (a pipeline of herds, independent herds).
 * Order comes from dependency tokens (and token operands: loop inits), from
 * blocking ops (no token result: later ops start after them), and from shared
 * affinity tokens (members run one after another). Large blocks fall back to the
 * plain sum, and so does a launch body (see walk_block). */
enum { ORDER_MAX_OPS = 512, ORDER_FIELDS = 5 }; /* tiles, dma in, out, units, L2 */

static bool shares_token(const air_vlist_t* a, const air_vlist_t* b) {
  for (uint32_t i = 0; i < a->n; ++i)
    for (uint32_t k = 0; k < b->n; ++k)
      if (a->items[i] == b->items[k]) return true;
  return false;
}

static bool is_blocking(const air_program_t* p, const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_results; ++i)
    if (air_ir_type_is_token(p, air_ir_value_type(p, op->results[i]))) return false;
  return true;
}

typedef struct order_t {
  const air_op_t** ops;
  uint64_t* reach;   /* n x words: bit j of row i = op j finishes before op i starts */
  uint64_t* weight;  /* n x ORDER_FIELDS */
  uint32_t n, words;
} order_t;

static void reach_add(order_t* o, uint32_t i, uint32_t j) {
  uint64_t* ri = &o->reach[(size_t)i * o->words];
  const uint64_t* rj = &o->reach[(size_t)j * o->words];
  for (uint32_t w = 0; w < o->words; ++w) ri[w] |= rj[w];
  ri[j / 64] |= 1ull << (j % 64);
}

static void order_depend(order_t* o, const air_program_t* p, uint32_t i, air_vid_t v) {
  const air_op_t* d = air_ir_value(p, v)->def;
  for (uint32_t j = 0; d && j < i; ++j)
    if (o->ops[j] == d) {
      reach_add(o, i, j);
      return;
    }
}

static void order_build(order_t* o, const air_program_t* p) {
  uint32_t last_block = UINT32_MAX; /* latest blocking op: all later ops follow it */
  for (uint32_t i = 0; i < o->n; ++i) {
    const air_op_t* op = o->ops[i];
    if (last_block != UINT32_MAX) reach_add(o, i, last_block);
    for (uint32_t k = 0; k < op->toks[AIR_TOK_DEP].n; ++k)
      order_depend(o, p, i, op->toks[AIR_TOK_DEP].items[k]);
    for (uint32_t k = 0; k < op->n_operands; ++k)
      if (air_ir_type_is_token(p, air_ir_value_type(p, op->operands[k])))
        order_depend(o, p, i, op->operands[k]);
    if (op->toks[AIR_TOK_AFF].n && (op->kind == AIR_OP_HERD || op->kind == AIR_OP_SEGMENT))
      for (uint32_t j = 0; j < i; ++j)
        if (shares_token(&o->ops[j]->toks[AIR_TOK_AFF], &op->toks[AIR_TOK_AFF]))
          reach_add(o, i, j);
    if (is_blocking(p, op)) last_block = i;
  }
}

enum { NEVER = UINT32_MAX };

/* Sum over a greedy chain cover of the largest weight per chain. Op i may follow a
 * chain when the chain's last op reaches i, or, with `end` (L2 lifetimes), when
 * the op that frees the chain's last buffer, end[last], comes before i and
 * reaches it (NEVER: the buffer is never freed, so nothing may follow). */
static uint64_t order_bound(const order_t* o, uint32_t field, const uint32_t* end,
                            uint32_t* chain_last, uint64_t* chain_max) {
  uint32_t n_chains = 0;
  for (uint32_t i = 0; i < o->n; ++i) {
    uint64_t w = o->weight[(size_t)i * ORDER_FIELDS + field];
    if (!w) continue;
    const uint64_t* ri = &o->reach[(size_t)i * o->words];
    uint32_t best = NEVER;
    uint64_t best_growth = UINT64_MAX;
    for (uint32_t c = 0; c < n_chains; ++c) {
      uint32_t last = end ? end[chain_last[c]] : chain_last[c];
      if (last == NEVER || last >= i || !(ri[last / 64] >> (last % 64) & 1)) continue;
      uint64_t growth = w > chain_max[c] ? w - chain_max[c] : 0;
      if (growth < best_growth) {
        best = c;
        best_growth = growth;
      }
    }
    if (best == NEVER) {
      best = n_chains++;
      chain_max[best] = 0;
    }
    chain_last[best] = i;
    chain_max[best] = max_u64(chain_max[best], w);
  }
  uint64_t total = 0;
  for (uint32_t c = 0; c < n_chains; ++c) total = add_sat(total, chain_max[c]);
  return total;
}

/* L2 buffers of a block live from the op that allocates them to the op that
 * frees them (to the end of the block when none does). Two buffers can be live
 * together unless one's free happens before the other's alloc, so the same chain
 * cover bounds the peak. Memory of a nested op (loop, branch, herd, segment) is
 * its own and counts while that op runs; an execute returning more than one
 * buffer is kept live to the end of the block. */

static air_vid_t tracked_buffer(const air_program_t* p, const air_op_t* op) {
  air_vid_t v = 0;
  if (op->kind == AIR_OP_ALLOC && op->n_results) return op->results[0];
  if (op->kind != AIR_OP_EXECUTE) return 0;
  for (uint32_t i = 0; i < op->n_results; ++i) {
    const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, op->results[i]));
    if (t->kind != AIR_TYPE_MEMREF || t->memspace != AIR_MEM_L2) continue;
    if (v) return 0;
    v = op->results[i];
  }
  return v;
}

/* Marks end[i] = j for each buffer of the block that a dealloc inside op j frees. */
static void mark_frees(const air_op_t* op, const air_vid_t* buf, uint32_t* end, uint32_t j) {
  if (op->kind == AIR_OP_DEALLOC && op->n_operands)
    for (uint32_t i = 0; i < j; ++i)
      if (buf[i] && buf[i] == op->operands[0]) end[i] = j;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* c = op->regions[r] ? op->regions[r]->first : NULL; c; c = c->next)
      mark_frees(c, buf, end, j);
}

static uint64_t l2_bound(const order_t* o, const air_program_t* p, air_vid_t* buf, uint32_t* end,
                         uint32_t* chain_last, uint64_t* chain_max) {
  for (uint32_t i = 0; i < o->n; ++i) {
    buf[i] = tracked_buffer(p, o->ops[i]);
    bool escapes = buf[i] || o->ops[i]->kind == AIR_OP_EXECUTE || o->ops[i]->kind == AIR_OP_ALLOC;
    end[i] = escapes ? NEVER : i;
  }
  for (uint32_t j = 0; j < o->n; ++j) mark_frees(o->ops[j], buf, end, j);
  return order_bound(o, 4, end, chain_last, chain_max);
}

static uint32_t block_size_ops(const air_block_t* b) {
  uint32_t n = 0;
  for (const air_op_t* op = b ? b->first : NULL; op; op = op->next) ++n;
  return n;
}

static air_status_t walk_block(an_t* an, const air_block_t* b, fp_t* out) {
  const air_allocator_t* a = &an->r->allocator;
  uint32_t n = block_size_ops(b);
  order_t o = {.n = n, .words = (n + 63) / 64};
  /* One allocation: reach, weights, chain maxima (u64); ops; buffers, ends,
   * chain tails (u32). */
  void* mem = NULL;
  uint64_t* chain_max = NULL;
  uint32_t *end = NULL, *chain_last = NULL;
  air_vid_t* buf = NULL;
  /* The segments of a launch are all co-resident (the spec's guarantee, and
   * what the placer provides), so a launch body is summed whatever its order. */
  bool in_launch = b && b->parent && b->parent->kind == AIR_OP_LAUNCH;
  if (n > 1 && n <= ORDER_MAX_OPS && !in_launch) {
    size_t u64s = (size_t)n * o.words + (size_t)n * ORDER_FIELDS + n;
    size_t bytes =
        u64s * sizeof(uint64_t) + n * sizeof(air_op_t*) + 3 * (size_t)n * sizeof(uint32_t);
    mem = a->alloc(a->self, bytes);
    if (!mem) return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
    memset(mem, 0, bytes);
    o.reach = mem;
    o.weight = o.reach + (size_t)n * o.words;
    chain_max = o.weight + (size_t)n * ORDER_FIELDS;
    o.ops = (const air_op_t**)(chain_max + n);
    buf = (air_vid_t*)(o.ops + n);
    end = buf + n;
    chain_last = end + n;
  }
  air_status_t s = AIR_STATUS_OK_VALUE;
  uint32_t i = 0;
  for (const air_op_t* op = b ? b->first : NULL; op && !s; op = op->next, ++i) {
    fp_t f = {0};
    s = walk_op(an, op, &f);
    if (!s) s = fp_seq(an, out, &f);
    if (mem) {
      o.ops[i] = op;
      uint64_t* w = &o.weight[(size_t)i * ORDER_FIELDS];
      w[0] = f.tiles;
      w[1] = f.dma_in;
      w[2] = f.dma_out;
      w[3] = f.units;
      w[4] = f.l2;
    }
    fp_free(an, &f);
  }
  if (!s && mem) {
    order_build(&o, an->p);
    out->tiles = order_bound(&o, 0, NULL, chain_last, chain_max);
    out->dma_in = order_bound(&o, 1, NULL, chain_last, chain_max);
    out->dma_out = order_bound(&o, 2, NULL, chain_last, chain_max);
    out->units = order_bound(&o, 3, NULL, chain_last, chain_max);
    out->l2 = l2_bound(&o, an->p, buf, end, chain_last, chain_max);
  }
  if (mem) a->free(a->self, mem);
  return s;
}

air_status_t air_resources_analyze(const air_program_t* p, const air_target_t* t,
                                   air_resources_t* out) {
  memset(out, 0, sizeof *out);
  out->allocator = p->allocator;
  out->target = t;
  an_t an = {.p = p, .t = t, .r = out};
  fp_t top = {0};
  air_status_t s = walk_regions_seq(&an, p->module, &top);
  fp_free(&an, &top);
  if (s) air_resources_free(out);
  return s;
}

void air_resources_free(air_resources_t* r) {
  if (!r->allocator.free) return;
  if (r->herds) r->allocator.free(r->allocator.self, r->herds);
  if (r->segments) r->allocator.free(r->allocator.self, r->segments);
  if (r->launches) r->allocator.free(r->allocator.self, r->launches);
  air_allocator_t a = r->allocator;
  memset(r, 0, sizeof *r);
  r->allocator = a;
}

/*---------------------------------------------------------------------------*/
/* Checking against the target                                               */
/*---------------------------------------------------------------------------*/

static void violation(air_sb_t* sb, const air_program_t* p, const air_op_t* op,
                      const char* fmt, ...) __attribute__((format(printf, 4, 5)));
static void violation(air_sb_t* sb, const air_program_t* p, const air_op_t* op,
                      const char* fmt, ...) {
  if (sb->len) air_sb_putc(sb, '\n');
  air_sb_printf(sb, "%s:%u:%u: error: [resources] ", p->filename ? p->filename : "<input>",
                op->line, op->col);
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

/* The shared checks of a segment total or a launch total; 0 limits are unlimited. */
static void check_total(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                        const air_op_t* op, const air_res_t* need) {
  char lb[96];
  air_res_label(op, lb, sizeof lb);
  uint64_t tiles = air_target_tiles(t), l2 = air_target_l2_total(t);
  uint64_t dma = air_target_dma_total(t);
  if (tiles && need->tiles > tiles)
    violation(sb, p, op, "%s needs %llu tiles; %s has %llu", lb,
              (unsigned long long)need->tiles, t->name, (unsigned long long)tiles);
  if (l2 && need->l2_bytes > l2)
    violation(sb, p, op, "%s needs %llu bytes of L2; %s has %llu", lb,
              (unsigned long long)need->l2_bytes, t->name, (unsigned long long)l2);
  if (dma && need->dma > dma)
    violation(sb, p, op, "%s needs %llu DMA channels; %s has %llu", lb,
              (unsigned long long)need->dma, t->name, (unsigned long long)dma);
}

static void check_herd(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                       const air_herd_res_t* h) {
  char lb[96];
  air_res_label(h->op, lb, sizeof lb);
  uint64_t pes = mul_sat(h->nx, h->ny), tiles = air_target_tiles(t);
  if (t->max_herd_pes && pes > t->max_herd_pes)
    violation(sb, p, h->op, "%s has %llu PEs; %s allows at most %u per herd", lb,
              (unsigned long long)pes, t->name, t->max_herd_pes);
  if (!t->herd_is_one_tile && tiles) {
    if (pes > tiles)
      violation(sb, p, h->op, "%s needs %llu tiles; %s has %llu", lb, (unsigned long long)pes,
                t->name, (unsigned long long)tiles);
    else if (h->nx > t->cols || h->ny > t->rows)
      violation(sb, p, h->op, "%s needs %llux%llu tiles; %s has %u columns x %u rows", lb,
                (unsigned long long)h->nx, (unsigned long long)h->ny, t->name, t->cols, t->rows);
  }
  if (t->l1_bytes && h->l1_bytes > t->l1_bytes)
    violation(sb, p, h->op, "%s needs %llu bytes of L1 per tile; %s has %llu", lb,
              (unsigned long long)h->l1_bytes, t->name, (unsigned long long)t->l1_bytes);
  if (t->dma_in && h->dma_in > t->dma_in)
    violation(sb, p, h->op, "%s needs %llu incoming DMA channels per tile; %s has %u", lb,
              (unsigned long long)h->dma_in, t->name, t->dma_in);
  if (t->dma_out && h->dma_out > t->dma_out)
    violation(sb, p, h->op, "%s needs %llu outgoing DMA channels per tile; %s has %u", lb,
              (unsigned long long)h->dma_out, t->name, t->dma_out);
}

air_status_t air_resources_check(const air_program_t* p, const air_resources_t* r) {
  const air_target_t* t = r->target;
  air_sb_t sb;
  air_sb_init(&sb, &r->allocator);
  for (uint32_t i = 0; i < r->n_herds; ++i) check_herd(&sb, p, t, &r->herds[i]);
  for (uint32_t i = 0; i < r->n_segments; ++i) {
    const air_segment_res_t* s = &r->segments[i];
    char lb[96];
    if (s->body_tiles > s->per_instance.tiles)
      violation(&sb, p, s->op, "%s needs %llu tiles per instance; its x_size x y_size gives %llu",
                air_res_label(s->op, lb, sizeof lb), (unsigned long long)s->body_tiles,
                (unsigned long long)s->per_instance.tiles);
    check_total(&sb, p, t, s->op, &s->total);
  }
  /* A launch with one segment would repeat that segment's diagnostics. */
  for (uint32_t i = 0; i < r->n_launches; ++i) {
    uint32_t direct = 0;
    for (uint32_t k = 0; k < r->n_segments; ++k)
      direct += r->segments[k].launch == r->launches[i].op && !r->segments[k].parent;
    if (direct > 1) check_total(&sb, p, t, r->launches[i].op, &r->launches[i].total);
  }
  if (sb.oom) {
    air_sb_free(&sb);
    return AIR_STATUS(&r->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory listing resource violations");
  }
  if (!sb.len) {
    air_sb_free(&sb);
    return AIR_STATUS_OK_VALUE;
  }
  air_status_t s = AIR_STATUS(&r->allocator, AIR_STATUS_FAILED_PRECONDITION, "%s", sb.data);
  air_sb_free(&sb);
  return s;
}

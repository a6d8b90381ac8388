/* resources.c - the two-stage resource analysis (see resources.h;
 * docs/scheduler.md says what is exact and what is a bound). The check against
 * the target is resources_check.c.
 *
 * Each scope yields a footprint `fp_t`. Within a block, ops that the async graph
 * orders reuse tiles and L2 (a chain cover, below); branches take the max;
 * scf.for multiplies the compute part by its pipeline depth D; scf.parallel
 * multiplies everything by its trip count; a segment's total is its body times
 * its iteration space. DMA channels are counted once per herd, segment and launch
 * by channel sharing (dma_share.h), after the body's walk. */
#include "scheduler/resources.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/order.h"

typedef struct fp_t {
  uint64_t tiles, l1, l2;
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

/* dst := dst then src (may overlap): sums. */
static void fp_seq(fp_t* dst, const fp_t* src) {
  dst->tiles = add_sat(dst->tiles, src->tiles);
  dst->l1 = add_sat(dst->l1, src->l1);
  dst->l2 = add_sat(dst->l2, src->l2);
}

/* dst := dst or src (exclusive branches): max. */
static void fp_alt(fp_t* dst, const fp_t* src) {
  dst->tiles = max_u64(dst->tiles, src->tiles);
  dst->l1 = max_u64(dst->l1, src->l1);
  dst->l2 = max_u64(dst->l2, src->l2);
}

/* n concurrent copies (scf.parallel, iteration spaces). */
static void fp_scale(fp_t* f, uint64_t n) {
  f->tiles = mul_sat(f->tiles, n);
  f->l1 = mul_sat(f->l1, n);
  f->l2 = mul_sat(f->l2, n);
}

/* Product of the first n operands (an iteration space), each a constant >= 0. */
static air_status_t space_size(an_t* an, const air_op_t* op, uint32_t n, uint64_t* out) {
  uint64_t total = 1;
  for (uint32_t i = 0; i < n && i < op->n_operands; ++i) {
    int64_t v;
    if (!air_order_const_int(an->p, op->operands[i], &v) || v < 0)
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
    AIR_RETURN_IF_ERROR(walk_block(an, op->regions[i], &r));
    fp_seq(out, &r);
  }
  return AIR_STATUS_OK_VALUE;
}

/* scf.for / affine.for: D = number of token iter_args (independent chains). */
static air_status_t walk_for(an_t* an, const air_op_t* op, fp_t* out) {
  AIR_RETURN_IF_ERROR(walk_regions_seq(an, op, out));
  /* Memory inside the body needs one slot (reused each iteration); herds of D
   * iterations are in flight together. */
  out->tiles = mul_sat(out->tiles, air_order_loop_depth(an->p, op));
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_parallel(an_t* an, const air_op_t* op, fp_t* out) {
  uint64_t trips = 1;
  if (!air_order_parallel_trips(an->p, op, &trips))
    return AIR_IR_ERROR(an->p, AIR_STATUS_UNIMPLEMENTED, op->line, op->col,
                        "[resources] scf.parallel: its bounds are not constants; the "
                        "resource analysis needs static trip counts");
  AIR_RETURN_IF_ERROR(walk_regions_seq(an, op, out));
  fp_scale(out, trips);
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_herd(an_t* an, const air_op_t* op, fp_t* out) {
  uint32_t n = op->iaux[0];
  int64_t nx = 1, ny = 1;
  if ((n >= 1 && !air_order_const_int(an->p, op->operands[0], &nx)) ||
      (n >= 2 && !air_order_const_int(an->p, op->operands[1], &ny)) || nx < 0 || ny < 0) {
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
  if (s) return s;
  air_resources_t* r = an->r;
  air_dma_need_t need;
  AIR_RETURN_IF_ERROR(air_dma_share(&r->allocator, an->p, an->t, op, NULL, NULL, &need));
  if (!air_mem_grow(&r->allocator, (void**)&r->herds, &r->cap_herds, (size_t)r->n_herds + 1,
                    sizeof *r->herds)) {
    air_dma_need_free(&r->allocator, &need);
    return AIR_STATUS_OOM(&r->allocator, "the resource analysis");
  }
  uint64_t pes = mul_sat((uint64_t)nx, (uint64_t)ny);
  r->herds[r->n_herds++] = (air_herd_res_t){
      .op = op, .segment = an->segment, .nx = (uint64_t)nx, .ny = (uint64_t)ny,
      .l1_bytes = body.l1, .dma_in = need.channels[AIR_DMA_CORE][AIR_DMA_IN],
      .dma_out = need.channels[AIR_DMA_CORE][AIR_DMA_OUT], .dma = need};
  an->herd_w = max_u64(an->herd_w, (uint64_t)nx);
  an->herd_h = max_u64(an->herd_h, (uint64_t)ny);
  out->tiles = an->t->herd_is_one_tile ? 1 : pes;
  out->l2 = mul_sat(body.l2, pes);
  return AIR_STATUS_OK_VALUE;
}

int64_t air_res_attr_int(const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  return a && a->kind == AIR_ATTR_INT ? a->i : -1;
}

/* A nested segment's channels as one unit (air_dma_nested_fn): its total. */
static uint64_t nested_total(void* ctx, const air_op_t* segment, uint32_t port, uint32_t dir) {
  const air_resources_t* r = ctx;
  for (uint32_t i = 0; i < r->n_segments; ++i)
    if (r->segments[i].op == segment) return r->segments[i].total.ch[port][dir];
  return 0;
}

/* ch from a need (the mem-tile and shim ports), and their sum. */
static void res_channels(air_res_t* res, const air_dma_need_t* need, uint64_t times) {
  res->dma = 0;
  for (uint32_t port = AIR_DMA_MEMTILE; port < AIR_DMA_PORTS; ++port)
    for (uint32_t dir = 0; dir < 2; ++dir) {
      res->ch[port][dir] = mul_sat(need->channels[port][dir], times);
      res->dma = add_sat(res->dma, res->ch[port][dir]);
    }
}

static air_status_t walk_segment(an_t* an, const air_op_t* op, fp_t* out) {
  uint64_t instances = 1;
  AIR_RETURN_IF_ERROR(space_size(an, op, op->iaux[0], &instances));
  an_t inner = *an;
  inner.segment = op;
  inner.herd_w = inner.herd_h = 0;
  fp_t body = {0};
  AIR_RETURN_IF_ERROR(walk_regions_seq(&inner, op, &body));
  air_resources_t* r = an->r;
  air_segment_res_t rec = {.op = op, .launch = an->launch, .parent = an->segment,
                           .instances = instances, .herd_w = inner.herd_w,
                           .herd_h = inner.herd_h};
  AIR_RETURN_IF_ERROR(
      air_dma_share(&r->allocator, an->p, an->t, op, nested_total, r, &rec.dma));
  rec.per_instance.tiles = rec.body_tiles = body.tiles;
  /* x_size/y_size are authoritative for one instance's block on a tile array. */
  int64_t xs = air_res_attr_int(op, "x_size"), ys = air_res_attr_int(op, "y_size");
  if (an->t->kind == AIR_TARGET_NPU && xs > 0 && ys > 0)
    rec.per_instance.tiles = (uint64_t)xs * (uint64_t)ys;
  rec.per_instance.l2_bytes = body.l2;
  res_channels(&rec.per_instance, &rec.dma, 1);
  rec.total.tiles = mul_sat(rec.per_instance.tiles, instances);
  rec.total.l2_bytes = mul_sat(rec.per_instance.l2_bytes, instances);
  res_channels(&rec.total, &rec.dma, instances);
  if (!air_mem_grow(&r->allocator, (void**)&r->segments, &r->cap_segments,
                    (size_t)r->n_segments + 1, sizeof *r->segments)) {
    air_dma_need_free(&r->allocator, &rec.dma);
    return AIR_STATUS_OOM(&r->allocator, "the resource analysis");
  }
  r->segments[r->n_segments++] = rec;
  out->tiles = rec.total.tiles;
  out->l2 = rec.total.l2_bytes;
  return AIR_STATUS_OK_VALUE;
}

/* One launch instance: its segments are co-resident. Launch instances are not
 * scaled: the runtime may run them one after another. */
static air_status_t walk_launch(an_t* an, const air_op_t* op) {
  an_t inner = *an;
  inner.launch = op;
  inner.segment = NULL;
  fp_t body = {0};
  AIR_RETURN_IF_ERROR(walk_regions_seq(&inner, op, &body));
  air_resources_t* r = an->r;
  air_launch_res_t rec = {.op = op};
  AIR_RETURN_IF_ERROR(
      air_dma_share(&r->allocator, an->p, an->t, op, nested_total, r, &rec.dma));
  rec.total.tiles = body.tiles;
  rec.total.l2_bytes = body.l2;
  res_channels(&rec.total, &rec.dma, 1);
  if (!air_mem_grow(&r->allocator, (void**)&r->launches, &r->cap_launches,
                    (size_t)r->n_launches + 1, sizeof *r->launches)) {
    air_dma_need_free(&r->allocator, &rec.dma);
    return AIR_STATUS_OOM(&r->allocator, "the resource analysis");
  }
  r->launches[r->n_launches++] = rec;
  return AIR_STATUS_OK_VALUE;
}

static air_status_t walk_op(an_t* an, const air_op_t* op, fp_t* out) {
  switch (op->kind) {
    case AIR_OP_ALLOC: return alloc_bytes(an, op, out);
    case AIR_OP_FOR:
    case AIR_OP_AFFINE_FOR: return walk_for(an, op, out);
    case AIR_OP_PARALLEL: return walk_parallel(an, op, out);
    case AIR_OP_IF:
    case AIR_OP_AFFINE_IF:
      for (uint32_t i = 0; i < op->n_regions; ++i) {
        fp_t r = {0};
        AIR_RETURN_IF_ERROR(walk_block(an, op->regions[i], &r));
        fp_alt(out, &r);
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

/* Ops of a block that the async graph orders (order.h) may reuse each other's
 * tiles and L2; the rest may overlap. The exact bound (a maximum-weight
 * antichain) needs a flow; instead the ops are split greedily into chains of
 * ordered ops and each chain holds its largest member. Any set of ops live at
 * once has at most one op per chain, so the sum over chains is a safe bound, and
 * it is exact for the common shapes (a pipeline of herds, independent herds).
 * Large blocks fall back to the plain sum, and so does a launch body (see
 * walk_block). */
enum { ORDER_FIELDS = 2 }; /* tiles, L2 */

enum { NEVER = UINT32_MAX };

/* Sum over a greedy chain cover of the largest weight per chain. Op i may follow a
 * chain when the chain's last op reaches i, or, with `end` (L2 lifetimes), when
 * the op that frees the chain's last buffer, end[last], comes before i and
 * reaches it (NEVER: the buffer is never freed, so nothing may follow). */
static uint64_t order_bound(const air_order_t* o, const uint64_t* weight, uint32_t field,
                            const uint32_t* end, uint32_t* chain_last, uint64_t* chain_max) {
  uint32_t n_chains = 0;
  for (uint32_t i = 0; i < o->n; ++i) {
    uint64_t w = weight[(size_t)i * ORDER_FIELDS + field];
    if (!w) continue;
    uint32_t best = NEVER;
    uint64_t best_growth = UINT64_MAX;
    for (uint32_t c = 0; c < n_chains; ++c) {
      uint32_t last = end ? end[chain_last[c]] : chain_last[c];
      if (last == NEVER || last >= i || !air_order_before(o, last, i)) continue;
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

static uint64_t l2_bound(const air_order_t* o, const uint64_t* weight, const air_program_t* p,
                         air_vid_t* buf, uint32_t* end, uint32_t* chain_last,
                         uint64_t* chain_max) {
  for (uint32_t i = 0; i < o->n; ++i) {
    buf[i] = tracked_buffer(p, o->ops[i]);
    bool escapes = buf[i] || o->ops[i]->kind == AIR_OP_EXECUTE || o->ops[i]->kind == AIR_OP_ALLOC;
    end[i] = escapes ? NEVER : i;
  }
  for (uint32_t j = 0; j < o->n; ++j) mark_frees(o->ops[j], buf, end, j);
  return order_bound(o, weight, 1, end, chain_last, chain_max);
}

static uint32_t block_size_ops(const air_block_t* b) {
  uint32_t n = 0;
  for (const air_op_t* op = b ? b->first : NULL; op; op = op->next) ++n;
  return n;
}

static air_status_t walk_block(an_t* an, const air_block_t* b, fp_t* out) {
  const air_allocator_t* a = &an->r->allocator;
  uint32_t n = block_size_ops(b);
  air_order_t o = {.n = n, .words = (n + 63) / 64};
  /* One allocation: reach, weights, chain maxima (u64); ops; buffers, ends,
   * chain tails (u32). */
  void* mem = NULL;
  uint64_t *weight = NULL, *chain_max = NULL;
  uint32_t *end = NULL, *chain_last = NULL;
  air_vid_t* buf = NULL;
  /* The segments of a launch are all co-resident (the spec's guarantee, and
   * what the placer provides), so a launch body is summed whatever its order. */
  bool in_launch = b && b->parent && b->parent->kind == AIR_OP_LAUNCH;
  if (n > 1 && n <= AIR_ORDER_MAX_OPS && !in_launch) {
    size_t u64s = (size_t)n * o.words + (size_t)n * ORDER_FIELDS + n;
    size_t bytes =
        u64s * sizeof(uint64_t) + n * sizeof(air_op_t*) + 3 * (size_t)n * sizeof(uint32_t);
    mem = a->alloc(a->self, bytes);
    if (!mem) return AIR_STATUS_OOM(&an->r->allocator, "the resource analysis");
    memset(mem, 0, bytes);
    o.reach = mem;
    weight = o.reach + (size_t)n * o.words;
    chain_max = weight + (size_t)n * ORDER_FIELDS;
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
    if (!s) fp_seq(out, &f);
    if (mem) {
      o.ops[i] = op;
      weight[(size_t)i * ORDER_FIELDS] = f.tiles;
      weight[(size_t)i * ORDER_FIELDS + 1] = f.l2;
    }
  }
  if (!s && mem) {
    air_order_fill(&o, an->p);
    out->tiles = order_bound(&o, weight, 0, NULL, chain_last, chain_max);
    out->l2 = l2_bound(&o, weight, an->p, buf, end, chain_last, chain_max);
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
  if (s) air_resources_free(out);
  return s;
}

void air_resources_free(air_resources_t* r) {
  if (!r->allocator.free) return;
  for (uint32_t i = 0; i < r->n_herds; ++i) air_dma_need_free(&r->allocator, &r->herds[i].dma);
  for (uint32_t i = 0; i < r->n_segments; ++i)
    air_dma_need_free(&r->allocator, &r->segments[i].dma);
  for (uint32_t i = 0; i < r->n_launches; ++i)
    air_dma_need_free(&r->allocator, &r->launches[i].dma);
  if (r->herds) r->allocator.free(r->allocator.self, r->herds);
  if (r->segments) r->allocator.free(r->allocator.self, r->segments);
  if (r->launches) r->allocator.free(r->allocator.self, r->launches);
  air_allocator_t a = r->allocator;
  memset(r, 0, sizeof *r);
  r->allocator = a;
}

void air_res_block_size(const air_target_t* t, const air_segment_res_t* s, uint32_t* w,
                        uint32_t* h) {
  int64_t xs = air_res_attr_int(s->op, "x_size"), ys = air_res_attr_int(s->op, "y_size");
  if (t->kind == AIR_TARGET_NPU && xs > 0 && ys > 0) {
    *w = (uint32_t)xs;
    *h = (uint32_t)ys;
    return;
  }
  uint64_t tiles = s->per_instance.tiles ? s->per_instance.tiles : 1;
  if (t->kind == AIR_TARGET_NPU && s->herd_w * s->herd_h >= tiles && s->herd_w <= t->cols &&
      s->herd_h <= t->rows) {
    *w = (uint32_t)s->herd_w;
    *h = (uint32_t)s->herd_h;
    return;
  }
  uint64_t rows = t->rows ? t->rows : 1;
  uint64_t hh = tiles < rows ? tiles : rows;
  uint64_t ww = (tiles + hh - 1) / hh;
  *w = ww > UINT32_MAX ? UINT32_MAX : (uint32_t)ww;
  *h = (uint32_t)hh;
}

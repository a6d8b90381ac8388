/* dma_share.c - DMA channel sharing (see dma_share.h).
 *
 * One walk of the scope's body collects endpoints and their uses (the op that
 * makes each transfer, or the herd whose PEs make it). Two uses overlap unless
 * their common block orders them (air_order_t of that block, built once per
 * block) with no pipelined loop or multi-instance parallel around it, or they lie
 * in different branches of one if. Endpoints overlap when any of their uses do.
 * Per (port, direction) the endpoints are then coloured with runs of consecutive
 * channels, first fit, in two orders (first use; most copies first); the smaller
 * total wins. */
#include "scheduler/dma_share.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/order.h"

/* Past these sizes every endpoint overlaps every other (no sharing): the pairwise
 * test is quadratic and real scopes have a few dozen endpoints. */
enum { MAX_SHARED_ENDPOINTS = 512, MAX_USES = 4096, MAX_DEPTH = 64 };

typedef struct use_t {
  uint32_t ep;
  const air_op_t* at; /* the op whose position in the scope counts */
} use_t;

typedef struct cached_order_t {
  const air_block_t* block;
  air_order_t order;
} cached_order_t;

typedef struct sh_t {
  const air_allocator_t* a;
  const air_program_t* p;
  const air_target_t* t;
  const air_op_t* scope;
  air_dma_nested_fn nested;
  void* ctx;
  air_dma_endpoint_t* eps;
  uint32_t n_eps, cap_eps;
  use_t* uses;
  uint32_t n_uses, cap_uses;
  cached_order_t* orders;
  uint32_t n_orders, cap_orders;
  bool oom;
} sh_t;

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

/* The port that serves memory space `space` in this scope, or -1 when another
 * scope counts it (L1 outside a herd, L2/L3 inside one). */
static int port_of(const sh_t* s, int32_t space) {
  if (s->scope->kind == AIR_OP_HERD) return space == AIR_MEM_L1 ? AIR_DMA_CORE : -1;
  if (space == AIR_MEM_L3) return AIR_DMA_SHIM;
  if (space == AIR_MEM_L2) return air_target_l2_on_array(s->t) ? AIR_DMA_MEMTILE : AIR_DMA_SHIM;
  return -1;
}

static int32_t space_of(const sh_t* s, air_vid_t v) {
  const air_type_info_t* ty = air_ir_type(s->p, air_ir_value_type(s->p, v));
  return ty->kind == AIR_TYPE_MEMREF ? ty->memspace : -1;
}

/* Finds or adds the endpoint; channels are keyed by (sym, port, dir), the rest
 * by (op, port, dir). Copies keep the maximum over the uses. */
static void add_use(sh_t* s, const air_op_t* op, const char* sym, int port, uint32_t dir,
                    uint64_t copies, const air_op_t* at) {
  if (port < 0 || !copies || s->oom) return;
  uint32_t e = 0;
  for (; e < s->n_eps; ++e) {
    const air_dma_endpoint_t* x = &s->eps[e];
    if (x->port != (uint32_t)port || x->dir != dir) continue;
    if (sym ? (x->sym && !strcmp(x->sym, sym)) : (!x->sym && x->op == op)) break;
  }
  if (e == s->n_eps) {
    if (!air_mem_grow(s->a, (void**)&s->eps, &s->cap_eps, s->n_eps + 1, sizeof *s->eps)) {
      s->oom = true;
      return;
    }
    s->eps[s->n_eps++] = (air_dma_endpoint_t){.op = op, .sym = sym, .port = (uint32_t)port,
                                              .dir = dir, .copies = copies};
  } else if (copies > s->eps[e].copies) {
    s->eps[e].copies = copies;
  }
  if (!air_mem_grow(s->a, (void**)&s->uses, &s->cap_uses, s->n_uses + 1, sizeof *s->uses)) {
    s->oom = true;
    return;
  }
  s->uses[s->n_uses++] = (use_t){e, at};
}

static uint64_t herd_pes(const sh_t* s, const air_op_t* herd) {
  uint64_t pes = 1;
  for (uint32_t i = 0; i < herd->iaux[0] && i < herd->n_operands; ++i) {
    int64_t v;
    if (air_order_const_int(s->p, herd->operands[i], &v) && v > 0) pes = mul_sat(pes, (uint64_t)v);
  }
  return pes;
}

/* herd: the herd whose PEs make the transfers below (its non-L1 sides), or NULL;
 * pes: its PEs times its instances. The transfers of different PEs overlap, so
 * with more than one every use sits at the herd; a lone PE keeps its own order. */
static void walk(sh_t* s, const air_block_t* b, uint64_t par, uint64_t depth,
                 const air_op_t* herd, uint64_t pes) {
  for (const air_op_t* op = b ? b->first : NULL; op && !s->oom; op = op->next) {
    const air_op_t* at = herd && pes > 1 ? herd : op;
    switch (op->kind) {
      case AIR_OP_PUT:
      case AIR_OP_GET: {
        uint32_t n = op->iaux[0];
        if (n >= op->n_operands) break;
        int port = port_of(s, space_of(s, op->operands[n]));
        add_use(s, op, op->sym ? op->sym : "", port,
                op->kind == AIR_OP_PUT ? AIR_DMA_OUT : AIR_DMA_IN, mul_sat(par, pes), at);
        break;
      }
      case AIR_OP_DMA:
        /* The spec's D multiplies a pipelined loop's dma_memcpy_nd ops. */
        for (uint32_t side = 0; side < 2 && side < op->n_operands; ++side)
          add_use(s, op, NULL, port_of(s, space_of(s, op->operands[side])),
                  side == 0 ? AIR_DMA_IN : AIR_DMA_OUT, mul_sat(mul_sat(par, depth), pes), at);
        break;
      case AIR_OP_HERD:
        if (s->scope->kind != AIR_OP_HERD && !herd)
          for (uint32_t r = 0; r < op->n_regions; ++r)
            walk(s, op->regions[r], 1, depth, op, mul_sat(par, herd_pes(s, op)));
        break;
      case AIR_OP_SEGMENT:
        if (s->nested && !herd)
          for (uint32_t port = 0; port < AIR_DMA_PORTS; ++port)
            for (uint32_t dir = 0; dir < 2; ++dir)
              add_use(s, op, NULL, (int)port, dir,
                      mul_sat(par, s->nested(s->ctx, op, port, dir)), op);
        break;
      case AIR_OP_LAUNCH: break;
      case AIR_OP_FOR:
      case AIR_OP_AFFINE_FOR:
        for (uint32_t r = 0; r < op->n_regions; ++r)
          walk(s, op->regions[r], par, mul_sat(depth, air_order_loop_depth(s->p, op)), herd, pes);
        break;
      case AIR_OP_PARALLEL: {
        uint64_t trips = 1;
        if (!air_order_parallel_trips(s->p, op, &trips)) trips = 1;
        for (uint32_t r = 0; r < op->n_regions; ++r)
          walk(s, op->regions[r], mul_sat(par, trips), depth, herd, pes);
        break;
      }
      default:
        for (uint32_t r = 0; r < op->n_regions; ++r) walk(s, op->regions[r], par, depth, herd, pes);
    }
  }
}

static const air_order_t* order_of(sh_t* s, const air_block_t* b) {
  for (uint32_t i = 0; i < s->n_orders; ++i)
    if (s->orders[i].block == b) return &s->orders[i].order;
  uint32_t n = 0;
  for (const air_op_t* op = b->first; op; op = op->next) ++n;
  if (n > AIR_ORDER_MAX_OPS) return NULL;
  if (!air_mem_grow(s->a, (void**)&s->orders, &s->cap_orders, s->n_orders + 1,
                    sizeof *s->orders)) {
    s->oom = true;
    return NULL;
  }
  air_order_t o = {.n = n, .words = (n + 63) / 64};
  o.ops = air_mem_calloc(s->a, n ? n : 1, sizeof *o.ops);
  o.reach = air_mem_calloc(s->a, (size_t)n * o.words + 1, sizeof *o.reach);
  if (!o.ops || !o.reach) {
    air_mem_free(s->a, o.ops);
    air_mem_free(s->a, o.reach);
    s->oom = true;
    return NULL;
  }
  uint32_t i = 0;
  for (const air_op_t* op = b->first; op; op = op->next) o.ops[i++] = op;
  air_order_fill(&o, s->p);
  s->orders[s->n_orders++] = (cached_order_t){b, o};
  return &s->orders[s->n_orders - 1].order;
}

/* The ops from the scope's body down to `op`, outermost first; 0 when the chain
 * is too deep (then everything overlaps). */
static uint32_t chain(const sh_t* s, const air_op_t* op, const air_op_t** out) {
  const air_op_t* rev[MAX_DEPTH];
  uint32_t n = 0;
  for (const air_op_t* o = op; o && o != s->scope; o = air_ir_parent_op(o)) {
    if (n == MAX_DEPTH) return 0;
    rev[n++] = o;
  }
  for (uint32_t i = 0; i < n; ++i) out[i] = rev[n - 1 - i];
  return n;
}

static uint32_t index_in(const air_order_t* o, const air_op_t* op) {
  for (uint32_t i = 0; i < o->n; ++i)
    if (o->ops[i] == op) return i;
  return UINT32_MAX;
}

/* May uses at ops u and v be active at the same time? */
static bool overlap(sh_t* s, const air_op_t* u, const air_op_t* v) {
  if (u == v) return true;
  /* The segments of a launch are co-resident. */
  if (s->scope->kind == AIR_OP_LAUNCH && (u->kind == AIR_OP_SEGMENT || v->kind == AIR_OP_SEGMENT))
    return true;
  const air_op_t *cu[MAX_DEPTH], *cv[MAX_DEPTH];
  uint32_t nu = chain(s, u, cu), nv = chain(s, v, cv);
  if (!nu || !nv) return true;
  uint32_t k = 0;
  while (k < nu && k < nv && cu[k] == cv[k]) ++k;
  if (k == nu || k == nv) return true; /* one inside the other */
  /* Everything above the split runs once per instance: pipelined loops and
   * multi-instance parallels there let two instances overlap. */
  for (uint32_t i = 0; i < k; ++i) {
    const air_op_t* o = cu[i];
    if ((o->kind == AIR_OP_FOR || o->kind == AIR_OP_AFFINE_FOR) &&
        air_order_loop_depth(s->p, o) > 1)
      return true;
    uint64_t trips;
    if (o->kind == AIR_OP_PARALLEL && (!air_order_parallel_trips(s->p, o, &trips) || trips > 1))
      return true;
  }
  if (cu[k]->parent != cv[k]->parent) { /* different regions of cu[k-1] */
    const air_op_t* o = k ? cu[k - 1] : s->scope;
    return !(o->kind == AIR_OP_IF || o->kind == AIR_OP_AFFINE_IF);
  }
  const air_order_t* ord = order_of(s, cu[k]->parent);
  if (!ord) return true;
  uint32_t i = index_in(ord, cu[k]), j = index_in(ord, cv[k]);
  if (i == UINT32_MAX || j == UINT32_MAX) return true;
  return !(air_order_before(ord, i, j) || air_order_before(ord, j, i));
}

/* Colours the endpoints of one (port, dir) listed in ids[0..m) given the conflict
 * matrix (m x m bits, row-major, `words` per row); writes starts, returns the
 * channels used. `order` is the sequence in which endpoints are placed. */
static uint64_t colour(const sh_t* s, const uint32_t* ids, uint32_t m, const uint64_t* conflict,
                       uint32_t words, const uint32_t* order, uint64_t* start) {
  uint64_t total = 0;
  for (uint32_t k = 0; k < m; ++k) start[k] = UINT64_MAX;
  for (uint32_t q = 0; q < m; ++q) {
    uint32_t k = order[q];
    uint64_t w = s->eps[ids[k]].copies, c = 0;
    for (bool moved = true; moved;) { /* lowest run clear of placed neighbours */
      moved = false;
      for (uint32_t j = 0; j < m; ++j) {
        if (start[j] == UINT64_MAX || !(conflict[(size_t)k * words + j / 64] >> (j % 64) & 1u))
          continue;
        uint64_t js = start[j], je = js + s->eps[ids[j]].copies;
        if (js < c + w && c < je) {
          c = je;
          moved = true;
        }
      }
    }
    start[k] = c;
    if (c + w > total) total = c + w;
  }
  return total;
}

/* Shares the endpoints of one (port, dir). */
static void share(sh_t* s, uint32_t port, uint32_t dir, air_dma_need_t* out) {
  uint32_t m = 0;
  uint64_t sum = 0;
  for (uint32_t e = 0; e < s->n_eps; ++e)
    if (s->eps[e].port == port && s->eps[e].dir == dir) {
      ++m;
      sum = sum + s->eps[e].copies < sum ? UINT64_MAX : sum + s->eps[e].copies;
    }
  out->endpoints[port][dir] = sum;
  out->channels[port][dir] = sum;
  if (!m) return;
  bool shareable = m <= MAX_SHARED_ENDPOINTS && s->n_uses <= MAX_USES && sum < UINT64_MAX / 2;
  uint32_t words = (m + 63) / 64;
  uint32_t* ids = air_mem_calloc(s->a, m, sizeof *ids);
  uint32_t* ord = air_mem_calloc(s->a, 2 * (size_t)m, sizeof *ord);
  uint64_t* start = air_mem_calloc(s->a, 2 * (size_t)m, sizeof *start);
  uint64_t* conflict = shareable ? air_mem_calloc(s->a, (size_t)m * words, sizeof *conflict) : NULL;
  uint32_t* slot = air_mem_calloc(s->a, s->n_eps, sizeof *slot);
  if (!ids || !ord || !start || !slot || (shareable && !conflict)) {
    s->oom = true;
    goto done;
  }
  m = 0;
  for (uint32_t e = 0; e < s->n_eps; ++e) {
    slot[e] = UINT32_MAX;
    if (s->eps[e].port == port && s->eps[e].dir == dir) {
      slot[e] = m;
      ids[m++] = e;
    }
  }
  if (!shareable) {
    uint64_t c = 0;
    for (uint32_t k = 0; k < m; ++k) {
      s->eps[ids[k]].channel = c;
      c += s->eps[ids[k]].copies;
    }
    goto done;
  }
  for (uint32_t x = 0; x < s->n_uses && !s->oom; ++x) {
    uint32_t a = slot[s->uses[x].ep];
    if (a == UINT32_MAX) continue;
    for (uint32_t y = x + 1; y < s->n_uses && !s->oom; ++y) {
      uint32_t b = slot[s->uses[y].ep];
      if (b == UINT32_MAX || a == b) continue;
      if ((conflict[(size_t)a * words + b / 64] >> (b % 64) & 1u)) continue;
      if (overlap(s, s->uses[x].at, s->uses[y].at)) {
        conflict[(size_t)a * words + b / 64] |= 1ull << (b % 64);
        conflict[(size_t)b * words + a / 64] |= 1ull << (a % 64);
      }
    }
  }
  if (s->oom) goto done;
  /* Order 1: first use. Order 2: most copies first (stable). */
  for (uint32_t k = 0; k < m; ++k) ord[k] = ord[m + k] = k;
  for (uint32_t k = 1; k < m; ++k) {
    uint32_t v = ord[m + k], j = k;
    while (j > 0 && s->eps[ids[ord[m + j - 1]]].copies < s->eps[ids[v]].copies) {
      ord[m + j] = ord[m + j - 1];
      --j;
    }
    ord[m + j] = v;
  }
  uint64_t t1 = colour(s, ids, m, conflict, words, ord, start);
  uint64_t t2 = colour(s, ids, m, conflict, words, ord + m, start + m);
  const uint64_t* best = t2 < t1 ? start + m : start;
  out->channels[port][dir] = t2 < t1 ? t2 : t1;
  for (uint32_t k = 0; k < m; ++k) s->eps[ids[k]].channel = best[k];
done:
  air_mem_free(s->a, ids);
  air_mem_free(s->a, ord);
  air_mem_free(s->a, start);
  air_mem_free(s->a, conflict);
  air_mem_free(s->a, slot);
}

air_status_t air_dma_share(const air_allocator_t* a, const air_program_t* p,
                           const air_target_t* t, const air_op_t* scope,
                           air_dma_nested_fn nested, void* ctx, air_dma_need_t* out) {
  memset(out, 0, sizeof *out);
  sh_t s = {.a = a, .p = p, .t = t, .scope = scope, .nested = nested, .ctx = ctx};
  for (uint32_t r = 0; r < scope->n_regions; ++r) walk(&s, scope->regions[r], 1, 1, NULL, 1);
  for (uint32_t port = 0; port < AIR_DMA_PORTS && !s.oom; ++port)
    for (uint32_t dir = 0; dir < 2 && !s.oom; ++dir) share(&s, port, dir, out);
  for (uint32_t i = 0; i < s.n_orders; ++i) {
    air_mem_free(a, s.orders[i].order.ops);
    air_mem_free(a, s.orders[i].order.reach);
  }
  air_mem_free(a, s.orders);
  air_mem_free(a, s.uses);
  if (s.oom) {
    air_mem_free(a, s.eps);
    memset(out, 0, sizeof *out);
    return AIR_STATUS_OOM(a, "DMA channel sharing");
  }
  out->eps = s.eps;
  out->n_eps = s.n_eps;
  return AIR_STATUS_OK_VALUE;
}

void air_dma_need_free(const air_allocator_t* a, air_dma_need_t* need) {
  air_mem_free(a, need->eps);
  memset(need, 0, sizeof *need);
}

const char* air_dma_endpoint_name(const air_dma_endpoint_t* e, char* buf, size_t size) {
  if (e->sym)
    snprintf(buf, size, "@%s", e->sym);
  else if (e->op->kind == AIR_OP_SEGMENT)
    snprintf(buf, size, "segment @%s", e->op->sym ? e->op->sym : "(unnamed)");
  else
    snprintf(buf, size, "%s at %u:%u", air_opkind_name(e->op->kind), e->op->line, e->op->col);
  return buf;
}

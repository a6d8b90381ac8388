/* npu_l3.c - L3 transfers of an entry to a TXN stream (see npu_l3.h).
 *
 * The walk evaluates index values as it goes (constants, integer arith, cmpi,
 * select, index casts, affine.apply/min/max, induction variables of the unrolled
 * launches, segments, scf.for / affine.for / scf.parallel loops) and follows
 * memrefs through launch and segment arguments to the entry parameter they are;
 * an scf.if or affine.if whose condition is known by then walks its taken branch.
 *
 * Shim channels. Each launch op's L3 endpoints (a channel and direction, or one
 * dma_memcpy_nd) take shim DMA channels from the scheduler's DMA sharing
 * analysis (dma_share.h) run on the launch and on each segment in it: endpoints
 * that are never active together share one channel, the way mlir-air's channel
 * fusion time-multiplexes them (tasks of a shared channel simply queue behind
 * each other). The launch's channels come first, then each segment's in turn
 * (scopes are taken as concurrent); an endpoint needing several copies (an
 * scf.parallel of instances) takes consecutive channels, and an instance past
 * them (another index of a channel bundle) takes a fresh one. Channel k of a
 * direction is column k / 2, channel k % 2. Every launch op numbers afresh after
 * the channels of endpoints outside launches: each launch instance ends with
 * every task synced.
 *
 * Every push asks for a completion token, so the stream can wait for the oldest
 * task of a channel (TCT sync): before a fifth task on a channel (queues are 4
 * deep), before reusing a BD of its column that is still queued (16 per shim tile,
 * used round robin), and for every task at the end of each launch instance. */
#include "scheduler/npu_l3.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "npu/bd.h"
#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/dma_share.h"

enum { MAX_EPS = 64, QDEPTH = 4, MAX_TRANSFERS = 1 << 16, MAX_COLS = 8, MAX_SCOPES = 64 };

typedef struct ep_t {
  const air_op_t* op; /* DMA endpoint: the op; channel endpoint: NULL */
  const char* sym;
  int64_t idx[4];
  uint32_t n_idx;
  air_npu_dir_t dir;
  uint32_t col, ch;
  uint64_t inst; /* DMA endpoint: the instance of the scf.parallel around it */
} ep_t;

/* A shim DMA channel's queue: BD ids of queued tasks, oldest first. */
typedef struct chan_t {
  uint32_t q[QDEPTH];
  uint32_t nq;
} chan_t;

/* The sharing analysis of one launch or segment of the current launch op. */
typedef struct scope_t {
  const air_op_t* op;
  air_dma_need_t need;
  uint32_t base[2];      /* its first channel per direction */
  uint32_t* copies_used; /* per analysed endpoint: instances given channels so far */
} scope_t;

typedef struct l3_t {
  const air_allocator_t* a;
  const air_program_t* p;
  const air_target_t* t;
  const air_npu_device_t* dev; /* &dev_model */
  air_npu_device_t dev_model;
  air_txn_t txn;
  int64_t* ival;
  uint8_t* known;
  int32_t* root;    /* memref value -> entry memref-argument index, or -1 */
  ep_t eps[MAX_EPS];
  uint32_t n_eps;
  chan_t chans[MAX_COLS][2][2]; /* [col][dir][channel] */
  uint32_t next_bd[MAX_COLS];
  uint64_t transfers;
  scope_t scopes[MAX_SCOPES];
  uint32_t n_scopes;
  const air_op_t* scope; /* the launch or segment being walked, or NULL */
  uint32_t used[2];      /* channels numbered so far per direction (AIR_DMA_IN/OUT) */
  uint32_t outside[2];   /* of which by endpoints outside any launch */
  uint64_t inst;         /* linear instance of the scf.parallel ops being unrolled */
} l3_t;

static air_status_t err_at(const l3_t* L, const air_op_t* op, air_status_code_t code,
                           const char* fmt, ...) __attribute__((format(printf, 4, 5)));
static air_status_t err_at(const l3_t* L, const air_op_t* op, air_status_code_t code,
                           const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(L->a, code, "%s:%u:%u: %s", L->p->filename ? L->p->filename : "<program>",
                    op ? op->line : 0, op ? op->col : 0, msg);
}

static bool val(const l3_t* L, air_vid_t v, int64_t* out) {
  if (!v || v >= L->p->n_values || !L->known[v]) return false;
  *out = L->ival[v];
  return true;
}

static void set(l3_t* L, air_vid_t v, int64_t x) {
  if (!v || v >= L->p->n_values) return;
  L->ival[v] = x;
  L->known[v] = 1;
}

static void forget(l3_t* L, air_vid_t v) {
  if (v && v < L->p->n_values) L->known[v] = 0;
}

/* Integer value of constants, arith and affine.apply ops whose operands are known. */
static void eval_op(l3_t* L, const air_op_t* op) {
  if (op->n_results != 1) return;
  air_vid_t r = op->results[0];
  forget(L, r);
  if (op->kind == AIR_OP_CONSTANT) {
    if (op->value.kind == AIR_ATTR_INT || op->value.kind == AIR_ATTR_BOOL) set(L, r, op->value.i);
    return;
  }
  /* affine.apply (one result), affine.min / affine.max (the least / greatest). */
  const air_attr_t* map = air_opkind_class(op->kind) == AIR_OPC_AFFINE_APPLY
                              ? air_ir_attr_resolve(L->p, &op->value) : NULL;
  if (map) {
    if (map->kind != AIR_ATTR_MAP || !map->map || !map->map->n_results ||
        (op->kind == AIR_OP_AFFINE_APPLY && map->map->n_results != 1))
      return;
    int64_t dims[8], syms[8];
    uint32_t nd = op->iaux[0], ns = op->n_operands - nd;
    if (nd > 8 || ns > 8 || nd > op->n_operands) return;
    for (uint32_t i = 0; i < op->n_operands; ++i)
      if (!val(L, op->operands[i], i < nd ? &dims[i] : &syms[i - nd])) return;
    int64_t best = 0;
    for (uint32_t k = 0; k < map->map->n_results; ++k) {
      int64_t x;
      if (!air_aff_eval(map->map->results[k], dims, syms, &x)) return;
      if (k == 0 || (op->kind == AIR_OP_AFFINE_MIN ? x < best : x > best)) best = x;
    }
    set(L, r, best);
    return;
  }
  if (op->kind == AIR_OP_INDEX_CAST || op->kind == AIR_OP_INDEX_CASTUI) {
    int64_t v;
    if (op->n_operands == 1 && val(L, op->operands[0], &v)) set(L, r, v);
    return;
  }
  if (op->kind == AIR_OP_SELECT && op->n_operands == 3) {
    int64_t c, v;
    if (val(L, op->operands[0], &c) && val(L, op->operands[c ? 1 : 2], &v)) set(L, r, v);
    return;
  }
  if (op->kind == AIR_OP_CMPI && op->n_operands == 2) {
    int64_t a, b;
    if (val(L, op->operands[0], &a) && val(L, op->operands[1], &b))
      set(L, r, air_cmpi_eval(op->iaux[0], a, b, (uint64_t)a, (uint64_t)b));
    return;
  }
  if (air_opkind_class(op->kind) != AIR_OPC_BINARY || op->n_operands != 2) return;
  int64_t a, b, x;
  if (!val(L, op->operands[0], &a) || !val(L, op->operands[1], &b)) return;
  switch (op->kind) {
    case AIR_OP_ADDI: if (__builtin_add_overflow(a, b, &x)) return; break;
    case AIR_OP_SUBI: if (__builtin_sub_overflow(a, b, &x)) return; break;
    case AIR_OP_MULI: if (__builtin_mul_overflow(a, b, &x)) return; break;
    case AIR_OP_DIVSI: case AIR_OP_DIVUI: if (!b || (a == INT64_MIN && b == -1)) return; x = a / b; break;
    case AIR_OP_REMSI: case AIR_OP_REMUI: if (!b || (a == INT64_MIN && b == -1)) return; x = a % b; break;
    case AIR_OP_MINSI: x = a < b ? a : b; break;
    case AIR_OP_MAXSI: x = a > b ? a : b; break;
    case AIR_OP_ANDI: x = a & b; break;
    case AIR_OP_ORI: x = a | b; break;
    case AIR_OP_XORI: x = a ^ b; break;
    default: return;
  }
  set(L, r, x);
}

/* A constant or value of an index list item. */
static bool ix_value(const l3_t* L, const air_ix_t* ix, int64_t* out) {
  if (!ix->value) {
    *out = ix->cst;
    return true;
  }
  return val(L, ix->value, out);
}

/* Does the affine.if's set hold for its (known) operands? False when unknown. */
static bool affine_set_holds(const l3_t* L, const air_op_t* op, bool* out) {
  const air_attr_t* a = air_ir_attr_resolve(L->p, &op->value);
  if (!a || a->kind != AIR_ATTR_SET || !a->set) return false;
  const air_affine_set_t* set = a->set;
  uint32_t nd = op->iaux[0];
  int64_t v[16];
  if (nd != set->n_dims || op->n_operands != nd + set->n_syms || op->n_operands > 16) return false;
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if (!val(L, op->operands[i], &v[i])) return false;
  *out = true;
  for (uint32_t i = 0; i < set->n_constraints && *out; ++i) {
    int64_t x;
    if (!air_aff_eval(set->constraints[i], v, v + nd, &x)) return false;
    *out = set->is_eq[i] ? x == 0 : x >= 0;
  }
  return true;
}

/*--- the stream -------------------------------------------------------------------*/

static void sync_oldest(l3_t* L, uint32_t col, uint32_t dir, uint32_t ch) {
  chan_t* c = &L->chans[col][dir][ch];
  air_txn_sync(&L->txn, (uint8_t)col, 0, dir == AIR_NPU_MM2S ? 1 : 0, (uint8_t)ch, 1, 1);
  memmove(c->q, c->q + 1, (c->nq - 1) * sizeof c->q[0]);
  c->nq--;
}

/* Syncs every queued task: the channels of the endpoints in first-use order,
 * then any other (endpoints outside the current launch). */
static void sync_all(l3_t* L) {
  for (uint32_t i = 0; i < L->n_eps; ++i) {
    const ep_t* e = &L->eps[i];
    while (L->chans[e->col][e->dir][e->ch].nq) sync_oldest(L, e->col, e->dir, e->ch);
  }
  for (uint32_t col = 0; col < MAX_COLS; ++col)
    for (uint32_t dir = 0; dir < 2; ++dir)
      for (uint32_t ch = 0; ch < 2; ++ch)
        while (L->chans[col][dir][ch].nq) sync_oldest(L, col, dir, ch);
}

/* A BD id of `col` not queued on any channel (waiting for one when needed). */
static uint32_t take_bd(l3_t* L, uint32_t col) {
  uint32_t bd = L->next_bd[col];
  L->next_bd[col] = (bd + 1) % 16;
  for (uint32_t dir = 0; dir < 2; ++dir)
    for (uint32_t ch = 0; ch < 2; ++ch) {
      chan_t* c = &L->chans[col][dir][ch];
      for (uint32_t k = 0; k < c->nq; ++k)
        if (c->q[k] == bd) {
          for (uint32_t j = 0; j <= k; ++j) sync_oldest(L, col, dir, ch);
          break;
        }
    }
  return bd;
}

/*--- shim channel numbering ---------------------------------------------------------*/

static void scopes_free(l3_t* L) {
  for (uint32_t i = 0; i < L->n_scopes; ++i) {
    air_dma_need_free(L->a, &L->scopes[i].need);
    air_mem_free(L->a, L->scopes[i].copies_used);
  }
  L->n_scopes = 0;
}

static air_status_t add_scopes_in(l3_t* L, const air_block_t* b, int depth);

/* Runs the sharing analysis on `op` (a launch or segment), then on the segments
 * below it, numbering their channels one after another. */
static air_status_t add_scope(l3_t* L, const air_op_t* op, int depth) {
  if (L->n_scopes == MAX_SCOPES || depth > 64)
    return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "more than %d segments in one launch", MAX_SCOPES);
  scope_t* s = &L->scopes[L->n_scopes];
  memset(s, 0, sizeof *s);
  s->op = op;
  AIR_RETURN_IF_ERROR(air_dma_share(L->a, L->p, L->t, op, NULL, NULL, &s->need));
  L->n_scopes++;
  s->copies_used = air_mem_calloc(L->a, s->need.n_eps ? s->need.n_eps : 1, sizeof *s->copies_used);
  if (!s->copies_used) return AIR_STATUS_OOM(L->a, "numbering shim channels");
  for (uint32_t d = 0; d < 2; ++d) {
    uint64_t n = s->need.channels[AIR_DMA_SHIM][d];
    s->base[d] = L->used[d];
    L->used[d] += n > 64 ? 64 : (uint32_t)n;
  }
  return op->n_regions ? add_scopes_in(L, op->regions[0], depth + 1) : NULL;
}

/* The segments in `b` and in the loops and branches inside it (not in herds). */
static air_status_t add_scopes_in(l3_t* L, const air_block_t* b, int depth) {
  for (const air_op_t* o = b ? b->first : NULL; o; o = o->next) {
    if (o->kind == AIR_OP_SEGMENT) AIR_RETURN_IF_ERROR(add_scope(L, o, depth));
    else if (o->kind != AIR_OP_HERD && o->kind != AIR_OP_LAUNCH && depth < 64)
      for (uint32_t r = 0; r < o->n_regions; ++r)
        AIR_RETURN_IF_ERROR(add_scopes_in(L, o->regions[r], depth + 1));
  }
  return NULL;
}

/* The channel number (per direction) of a new endpoint made by `op` in the scope
 * being walked. */
static uint32_t channel_index(l3_t* L, const air_op_t* op, air_npu_dir_t dir) {
  const scope_t* s = NULL;
  for (uint32_t i = 0; i < L->n_scopes && L->scope; ++i)
    if (L->scopes[i].op == L->scope) s = &L->scopes[i];
  uint32_t d = dir == AIR_NPU_MM2S ? AIR_DMA_OUT : AIR_DMA_IN;
  if (s) {
    const char* sym = op->kind == AIR_OP_DMA ? NULL : (op->sym ? op->sym : "");
    for (uint32_t e = 0; e < s->need.n_eps; ++e) {
      const air_dma_endpoint_t* x = &s->need.eps[e];
      if (x->port != AIR_DMA_SHIM || x->dir != d) continue;
      if (!(sym ? (x->sym && !strcmp(x->sym, sym)) : (!x->sym && x->op == op))) continue;
      if (s->copies_used[e] < x->copies)
        return s->base[d] + (uint32_t)x->channel + s->copies_used[e]++;
      break;
    }
  }
  uint32_t k = L->used[d]++; /* not in the analysis, or an instance past its copies */
  if (!L->scope) L->outside[d] = L->used[d];
  return k;
}

/* The endpoint of a transfer, made on first use. */
static air_status_t endpoint(l3_t* L, const air_op_t* op, air_npu_dir_t dir, ep_t** out) {
  const char* sym = op->kind == AIR_OP_DMA ? NULL : op->sym;
  int64_t idx[4] = {0};
  uint32_t n_idx = op->kind == AIR_OP_DMA ? 0 : op->iaux[0];
  if (n_idx > 4) return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "channel indices of rank %u", n_idx);
  for (uint32_t i = 0; i < n_idx; ++i)
    if (!val(L, op->operands[i], &idx[i]))
      return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "a channel index is not a constant here");
  for (uint32_t i = 0; i < L->n_eps; ++i) {
    ep_t* e = &L->eps[i];
    if (e->dir != dir) continue;
    if (sym ? (e->sym && !strcmp(e->sym, sym) && e->n_idx == n_idx &&
               !memcmp(e->idx, idx, sizeof idx))
            : (e->op == op && e->inst == L->inst)) {
      *out = e;
      return NULL;
    }
  }
  uint32_t k = channel_index(L, op, dir);
  if (k / 2 >= L->dev->cols || L->n_eps == MAX_EPS)
    return err_at(L, op, AIR_STATUS_RESOURCE_EXHAUSTED,
                  "this L3 transfer endpoint needs shim DMA channel %u %s (after sharing between "
                  "endpoints never active together); %s has 2 per direction in each of its %u "
                  "columns", k + 1, dir == AIR_NPU_MM2S ? "reading L3 (MM2S)" : "writing L3 (S2MM)",
                  L->dev->name, L->dev->cols);
  ep_t* e = &L->eps[L->n_eps++];
  memset(e, 0, sizeof *e);
  e->op = sym ? NULL : op;
  e->sym = sym;
  memcpy(e->idx, idx, sizeof idx);
  e->n_idx = n_idx;
  e->dir = dir;
  e->col = k / 2;
  e->ch = k % 2;
  e->inst = sym ? 0 : L->inst;
  *out = e;
  return NULL;
}

/* One transfer between L3 memref `mem` (with lists[l0..l0+2]) and the array. */
static air_status_t transfer(l3_t* L, const air_op_t* op, air_vid_t mem, uint32_t l0,
                             air_npu_dir_t dir) {
  if (++L->transfers > MAX_TRANSFERS)
    return err_at(L, op, AIR_STATUS_RESOURCE_EXHAUSTED, "more than %d L3 transfers once unrolled",
                  MAX_TRANSFERS);
  int32_t arg = mem < L->p->n_values ? L->root[mem] : -1;
  if (arg < 0)
    return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                  "this L3 memref is not an argument of the entry (only those get an address "
                  "patch)");
  const air_type_info_t* t = air_ir_type(L->p, air_ir_value_type(L->p, mem));
  air_npu_nd_t nd;
  memset(&nd, 0, sizeof nd);
  nd.elem_bits = air_elem_size(t->elem) * 8;
  const air_ixlist_t* ls = &op->lists[l0];
  uint32_t n = ls[1].n;
  if (ls[0].n != n || ls[2].n != n || n > 4)
    return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                  "offsets, sizes and strides of %u dimensions (a shim BD addresses at most 4)", n);
  for (int i = 0; i < 4; ++i) {
    nd.offsets[i] = 0;
    nd.sizes[i] = 1;
    nd.strides[i] = 0;
  }
  if (n == 0) { /* the whole memref, contiguous */
    uint64_t count = 1;
    for (uint32_t d = 0; d < t->rank; ++d) {
      if (t->shape[d] < 0)
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "an L3 memref with a dynamic shape");
      count *= (uint64_t)t->shape[d];
    }
    nd.sizes[3] = count;
    nd.strides[3] = 1;
  }
  for (uint32_t k = 0; k < 3 && n; ++k)
    for (uint32_t i = 0; i < n; ++i) {
      const air_ix_t* ix = &ls[k].items[i];
      int64_t v = ix->cst;
      if (ix->value && !val(L, ix->value, &v))
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                      "%s %u of the L3 side is not a constant once loops are unrolled",
                      k == 0 ? "offset" : k == 1 ? "size" : "stride", i);
      if (v < 0) return err_at(L, op, AIR_STATUS_INVALID_ARGUMENT, "negative offset, size or stride");
      uint64_t* dst = k == 0 ? nd.offsets : k == 1 ? nd.sizes : nd.strides;
      dst[4 - n + i] = (uint64_t)v;
    }
  air_npu_bd_t bd;
  uint64_t off;
  uint32_t repeat;
  air_npu_why_t why;
  if (!air_npu_nd_to_bd(&nd, &bd, &off, &repeat, why))
    return err_at(L, op, AIR_STATUS_INVALID_ARGUMENT, "the L3 side does not fit a shim BD: %s", why);
  ep_t* e = NULL;
  AIR_RETURN_IF_ERROR(endpoint(L, op, dir, &e));
  chan_t* c = &L->chans[e->col][dir][e->ch];
  if (c->nq == QDEPTH) sync_oldest(L, e->col, dir, e->ch);
  bd.bd_id = take_bd(L, e->col);
  uint32_t w[8], bd_addr, ctrl;
  if (!air_npu_bd_encode(L->dev, AIR_NPU_TILE_SHIM, &bd, w, why))
    return err_at(L, op, AIR_STATUS_INVALID_ARGUMENT, "the L3 side does not fit a shim BD: %s", why);
  air_npu_tile_addr(e->col, 0, air_npu_bd_base(AIR_NPU_TILE_SHIM) + 0x20 * bd.bd_id, &bd_addr);
  air_npu_tile_addr(e->col, 0, air_npu_channel_ctrl(AIR_NPU_TILE_SHIM, dir, e->ch), &ctrl);
  air_txn_blockwrite(&L->txn, 0, 0, bd_addr, w, 8);
  air_txn_ddr_patch(&L->txn, bd_addr + 4, (uint64_t)arg, air_txn_patch_arg_plus((uint64_t)arg, off, true));
  air_txn_write32(&L->txn, ctrl + 4, air_npu_queue_word(bd.bd_id, repeat, true, AIR_NPU_TILE_SHIM));
  c->q[c->nq++] = bd.bd_id;
  return NULL;
}

static bool is_l3(const l3_t* L, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(L->p, air_ir_value_type(L->p, v));
  return t->kind == AIR_TYPE_MEMREF && t->memspace == 0;
}

/* Does anything inside `op` move L3 data? */
static bool l3_walk(air_op_t* op, void* user) {
  const l3_t* L = user;
  if (op->kind == AIR_OP_PUT || op->kind == AIR_OP_GET) {
    uint32_t mi = op->iaux[0];
    return !(mi < op->n_operands && is_l3(L, op->operands[mi]));
  }
  if (op->kind == AIR_OP_DMA && op->n_operands >= 2)
    return !is_l3(L, op->operands[0]) && !is_l3(L, op->operands[1]);
  return true;
}

static air_status_t walk_block(l3_t* L, const air_block_t* b, int depth);

/* Unrolls a launch or segment: binds ids, sizes and arguments, then its body. */
static air_status_t hier(l3_t* L, const air_op_t* op, int depth) {
  uint32_t n = op->iaux[0];
  const air_block_t* body = op->n_regions ? op->regions[0] : NULL;
  if (!body) return NULL;
  int64_t size[4] = {1, 1, 1, 1};
  if (n > 4) return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "a %u-d iteration space", n);
  for (uint32_t i = 0; i < n; ++i)
    if (!val(L, op->operands[i], &size[i]) || size[i] < 1)
      return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "its size %u is not a positive constant", i);
  uint32_t n_args = op->n_operands - n;
  for (uint32_t k = 0; k < n_args && 2 * n + k < body->n_args; ++k) {
    air_vid_t outer = op->operands[n + k], inner = body->args[2 * n + k];
    int64_t x;
    if (val(L, outer, &x)) set(L, inner, x);
    else forget(L, inner);
    if (inner < L->p->n_values) L->root[inner] = outer < L->p->n_values ? L->root[outer] : -1;
  }
  for (uint32_t i = 0; i < n && n + i < body->n_args; ++i) set(L, body->args[n + i], size[i]);
  if (op->kind == AIR_OP_LAUNCH) { /* a fresh channel numbering (see the top) */
    scopes_free(L);
    L->n_eps = 0;
    memcpy(L->used, L->outside, sizeof L->used);
    AIR_RETURN_IF_ERROR(add_scope(L, op, 0));
  }
  const air_op_t* outer_scope = L->scope;
  L->scope = op;
  int64_t total = size[0] * size[1] * size[2] * size[3];
  for (int64_t t = 0; t < total; ++t) {
    int64_t rest = t;
    for (uint32_t i = 0; i < n; ++i) {
      set(L, body->args[i], rest % size[i]);
      rest /= size[i];
    }
    AIR_RETURN_IF_ERROR(walk_block(L, body, depth + 1));
    if (op->kind == AIR_OP_LAUNCH) sync_all(L);
  }
  L->scope = outer_scope;
  return NULL;
}

/* Unrolls an scf.parallel with L3 transfers; each instance is told apart. */
static air_status_t parallel(l3_t* L, const air_op_t* op, int depth) {
  uint32_t n = op->iaux[0];
  const air_block_t* body = op->regions[0];
  int64_t lb[4], ub[4], st[4], trips[4], total = 1;
  if (n > 4 || 3 * n > op->n_operands || n > body->n_args)
    return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "an scf.parallel of %u dimensions", n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!val(L, op->operands[i], &lb[i]) || !val(L, op->operands[n + i], &ub[i]) ||
        !val(L, op->operands[2 * n + i], &st[i]) || st[i] <= 0)
      return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                    "an scf.parallel with L3 transfers needs constant bounds and positive steps");
    int64_t span;
    if (__builtin_sub_overflow(ub[i], lb[i], &span)) span = INT64_MAX;
    trips[i] = span > 0 ? span / st[i] + (span % st[i] != 0) : 0;
    if (trips[i] > MAX_TRANSFERS || (total *= trips[i]) > MAX_TRANSFERS)
      return err_at(L, op, AIR_STATUS_RESOURCE_EXHAUSTED, "an scf.parallel of more than %d "
                    "instances", MAX_TRANSFERS);
  }
  uint64_t outer = L->inst;
  for (int64_t t = 0; t < total; ++t) {
    int64_t rest = t;
    for (uint32_t i = 0; i < n; ++i) {
      set(L, body->args[i], lb[i] + rest % trips[i] * st[i]);
      rest /= trips[i];
    }
    L->inst = outer * (uint64_t)total + (uint64_t)t;
    AIR_RETURN_IF_ERROR(walk_block(L, body, depth + 1));
  }
  L->inst = outer;
  return NULL;
}

static air_status_t walk_op(l3_t* L, const air_op_t* op, int depth) {
  if (depth > 64) return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "nesting too deep");
  switch (op->kind) {
    case AIR_OP_LAUNCH:
    case AIR_OP_SEGMENT: return hier(L, op, depth);
    case AIR_OP_PUT:
    case AIR_OP_GET: {
      uint32_t mi = op->iaux[0];
      if (mi >= op->n_operands || !is_l3(L, op->operands[mi])) return NULL;
      return transfer(L, op, op->operands[mi], 0, op->kind == AIR_OP_PUT ? AIR_NPU_MM2S : AIR_NPU_S2MM);
    }
    case AIR_OP_DMA: {
      bool dst = is_l3(L, op->operands[0]), src = is_l3(L, op->operands[1]);
      if (dst && src)
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "an L3-to-L3 copy does not go through the array");
      if (dst) return transfer(L, op, op->operands[0], 0, AIR_NPU_S2MM);
      if (src) return transfer(L, op, op->operands[1], 3, AIR_NPU_MM2S);
      return NULL;
    }
    case AIR_OP_FOR: {
      int64_t lb, ub, st;
      const air_block_t* body = op->regions[0];
      if (air_ir_walk((air_op_t*)op, l3_walk, (void*)L)) return NULL; /* moves no L3 data */
      if (!val(L, op->operands[0], &lb) || !val(L, op->operands[1], &ub) ||
          !val(L, op->operands[2], &st) || st <= 0)
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                      "a loop with L3 transfers needs constant bounds and a positive step");
      for (int64_t i = lb; i < ub;) {
        set(L, body->args[0], i);
        AIR_RETURN_IF_ERROR(walk_block(L, body, depth + 1));
        if (__builtin_add_overflow(i, st, &i)) break;
      }
      return NULL;
    }
    case AIR_OP_PARALLEL:
      if (air_ir_walk((air_op_t*)op, l3_walk, (void*)L)) { /* moves no L3 data */
        eval_op(L, op);
        return NULL;
      }
      return parallel(L, op, depth);
    case AIR_OP_IF: {
      if (air_ir_walk((air_op_t*)op, l3_walk, (void*)L)) {
        eval_op(L, op);
        return NULL;
      }
      int64_t c;
      if (!val(L, op->operands[0], &c))
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "an scf.if with L3 transfers whose "
                      "condition is not known once loops and launches are unrolled");
      for (uint32_t i = 0; i < op->n_results; ++i) forget(L, op->results[i]);
      uint32_t r = c ? 0 : 1;
      return r < op->n_regions ? walk_block(L, op->regions[r], depth + 1) : NULL;
    }
    case AIR_OP_AFFINE_IF: {
      if (air_ir_walk((air_op_t*)op, l3_walk, (void*)L)) {
        eval_op(L, op);
        return NULL;
      }
      bool c;
      if (!affine_set_holds(L, op, &c))
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED, "an affine.if with L3 transfers whose "
                      "operands are not known once loops and launches are unrolled");
      for (uint32_t i = 0; i < op->n_results; ++i) forget(L, op->results[i]);
      uint32_t r = c ? 0 : 1;
      return r < op->n_regions ? walk_block(L, op->regions[r], depth + 1) : NULL;
    }
    case AIR_OP_AFFINE_FOR: {
      if (air_ir_walk((air_op_t*)op, l3_walk, (void*)L)) {
        eval_op(L, op);
        return NULL;
      }
      int64_t lb, ub, st = op->iaux[1];
      const air_block_t* body = op->regions[0];
      if (op->n_lists < 1 || op->lists[0].n != 2 || !ix_value(L, &op->lists[0].items[0], &lb) ||
          !ix_value(L, &op->lists[0].items[1], &ub) || st <= 0 || !body->n_args)
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                      "an affine.for with L3 transfers needs bounds known here and a positive step");
      for (int64_t i = lb; i < ub;) {
        set(L, body->args[0], i);
        AIR_RETURN_IF_ERROR(walk_block(L, body, depth + 1));
        if (__builtin_add_overflow(i, st, &i)) break;
      }
      return NULL;
    }
    case AIR_OP_EXECUTE:
      return op->n_regions ? walk_block(L, op->regions[0], depth + 1) : NULL;
    default:
      eval_op(L, op);
      if (op->n_regions && !air_ir_walk((air_op_t*)op, l3_walk, (void*)L))
        return err_at(L, op, AIR_STATUS_UNIMPLEMENTED,
                      "an L3 transfer inside '%s' is not lowered to NPU instructions (only "
                      "launch- and segment-level ones are, also inside scf.for, scf.parallel "
                      "and scf.if with a known condition)",
                      air_opkind_name(op->kind));
      return NULL;
  }
}

static air_status_t walk_block(l3_t* L, const air_block_t* b, int depth) {
  for (const air_op_t* op = b->first; op; op = op->next) AIR_RETURN_IF_ERROR(walk_op(L, op, depth));
  return NULL;
}

air_status_t air_npu_l3_lower(const air_allocator_t* a, const air_program_t* p,
                              const air_op_t* entry, const air_target_t* t, uint32_t** out_words,
                              size_t* out_n) {
  *out_words = NULL;
  *out_n = 0;
  l3_t L;
  memset(&L, 0, sizeof L);
  L.a = a;
  L.p = p;
  L.t = t;
  if (!air_npu_device_find(t->name, strlen(t->name), &L.dev_model))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "%s is not an NPU with a TXN stream", t->name);
  L.dev = &L.dev_model;
  size_t nv = p->n_values ? p->n_values : 1;
  L.ival = air_mem_calloc(a, nv, sizeof *L.ival);
  L.known = air_mem_calloc(a, nv, 1);
  L.root = air_mem_alloc(a, nv * sizeof *L.root);
  air_status_t s = NULL;
  if (!L.ival || !L.known || !L.root) s = AIR_STATUS_OOM(a, "lowering L3 transfers");
  if (!s) {
    for (size_t v = 0; v < nv; ++v) L.root[v] = -1;
    /* Entry parameters: memrefs are the kernel's data arguments, in order. */
    const air_block_t* body = entry->regions[0];
    for (uint32_t i = 0, k = 0; i < body->n_args; ++i) {
      const air_type_info_t* ty = air_ir_type(p, air_ir_value_type(p, body->args[i]));
      if (ty->kind == AIR_TYPE_MEMREF && body->args[i] < nv) L.root[body->args[i]] = (int32_t)k++;
    }
    air_txn_init(&L.txn, a, air_npu_device_geom(L.dev));
    s = walk_block(&L, body, 0);
    if (!s) sync_all(&L);
    if (!s) s = air_txn_finish(&L.txn);
    if (!s) *out_words = air_txn_take(&L.txn, out_n);
    air_txn_free(&L.txn);
  }
  air_mem_free(a, L.ival);
  air_mem_free(a, L.known);
  air_mem_free(a, L.root);
  scopes_free(&L);
  return s;
}

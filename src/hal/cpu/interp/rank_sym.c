/* rank_sym.c - the memory the ranks of one air.rank share, and the collectives
 * around it (rank.h says the model): symmetric allocations and frees (the last
 * rank to arrive makes or frees the buffers of all; under a transport, one
 * window of the transport after the processes agree), the views of a cross-rank
 * dma pointed at a peer's copy, and the deadlock report's line for a rank
 * parked at a collective. Also the agreement between processes that every
 * collective, air.rank's start and end included (rank.c), goes through first. */
#include "hal/cpu/interp/rank_sym.h"

#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/memref.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/cpu/interp/watchdog.h"
#include "runtime/base/mem.h"

/*---------------------------------------------------------------------------*/
/* Processes (under a transport)                                             */
/*---------------------------------------------------------------------------*/

/* What a collective is, the same number in every process: the op's place in the
 * text and the kind of collective. */
static uint64_t coll_key(const air_op_t* op, uint32_t what) {
  return ((uint64_t)op->line << 36) | ((uint64_t)(op->col & 0xfffffu) << 16) |
         ((uint64_t)(op->kind & 0xfffu) << 4) | what;
}

static int run_failing(void* r) { return ix_failing(r); }

air_status_t ix_rank_agree(ix_run_t* r, const air_op_t* op, uint32_t what) {
  static const char* const name[] = {"", "symmetric allocation", "symmetric free",
                                     "end of the air.rank", "start of the air.rank"};
  air_rank_transport_t* t = r->transport;
  uint64_t key = coll_key(op, what), lo = key, hi = key;
  /* Blocked here counts as quiet for the deadlock detection across processes. */
  ix_lock(r);
  ix_wire_agree_locked(r, true, op, name[what]);
  ix_unlock(r);
  air_status_t st = t->vtable->agree(t, key, &lo, &hi, run_failing, r);
  ix_lock(r);
  ix_wire_agree_locked(r, false, op, NULL);
  ix_unlock(r);
  if (st) {
    if (air_status_code(st) != AIR_STATUS_CANCELLED)
      return ix_err(r, op, air_status_code(st), "%s across processes: %s", name[what],
                    air_status_message(st));
    air_status_free(st);
    return ix_err(r, op, AIR_STATUS_CANCELLED,
                  "process %u stopped waiting at this %s for its peers (the run failed)",
                  t->process, name[what]);
  }
  if (lo == hi) return NULL;
  ix_lock(r);
  ix_wire_failure_shared_locked(r); /* every process learns it from this agreement */
  ix_unlock(r);
  uint64_t other = lo == key ? hi : lo;
  uint32_t ow = (uint32_t)(other & 15u);
  return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "process %u reached this %s while another process reached the %s at %u:%u: "
                "the ranks' symmetric allocations and frees differ between processes",
                t->process, name[what], ow <= K_START ? name[ow] : "collective",
                (unsigned)(other >> 36), (unsigned)((other >> 16) & 0xfffffu));
}


/*---------------------------------------------------------------------------*/
/* Symmetric allocations: collectives                                        */
/*---------------------------------------------------------------------------*/

/* Under lock: the symmetric buffer `p` lies in, its rank index and offset. */
static ix_sym_t* sym_at(ix_rank_t* rk, const void* p, uint32_t* idx, uint64_t* within) {
  for (ix_sym_t* y = rk->syms; y; y = y->next) {
    const char* c = p;
    uint32_t local = rk->end - rk->first;
    if (c < y->base || c >= y->base + y->stride * local) continue;
    uint64_t d = (uint64_t)(c - y->base);
    *idx = (uint32_t)(d / y->stride);
    *within = d % y->stride;
    return y;
  }
  return NULL;
}

/* Under lock: the k-th collective record (made when first reached). */
static ix_coll_t* coll_at(ix_run_t* r, ix_rank_t* rk, uint64_t k, const air_op_t* op) {
  if (k < rk->n_colls) return &rk->colls[k];
  if (k != rk->n_colls ||
      !air_mem_grow(&r->alloc, (void**)&rk->colls, &rk->cap_colls, k + 1, sizeof(ix_coll_t)))
    return NULL;
  ix_coll_t* c = &rk->colls[rk->n_colls];
  memset(c, 0, sizeof *c);
  c->op = op;
  if (!(c->here = air_mem_calloc(&r->alloc, rk->end - rk->first, 1))) return NULL;
  rk->n_colls++;
  return c;
}

/* Under lock, by the last rank to arrive: makes or frees the buffers of all. */
static air_status_t coll_do(ix_run_t* r, ix_rank_t* rk, ix_coll_t* c, ix_env_t* e,
                            const air_op_t* op, ix_sym_t* freeing) {
  if (op->kind == AIR_OP_DEALLOC) {
    for (ix_sym_t** pp = &rk->syms; *pp; pp = &(*pp)->next)
      if (*pp == freeing) {
        *pp = freeing->next;
        air_mem_free(&r->alloc, freeing->raw);
        air_mem_free(&r->alloc, freeing);
        break;
      }
    return NULL;
  }
  air_memref_t m;
  size_t bytes;
  air_status_t st = ix_alloc_shape(r, e, op, &m, &bytes);
  if (st) return st;
  uint64_t stride = ((uint64_t)bytes + 63) & ~(uint64_t)63;
  if (!stride) stride = 64;
  uint64_t local = rk->end - rk->first, total;
  ix_sym_t* y = air_mem_calloc(&r->alloc, 1, sizeof *y);
  if (!y || __builtin_mul_overflow(stride, local, &total) || total > SIZE_MAX - 64 ||
      !(y->raw = air_mem_alloc(&r->alloc, (size_t)total + 64))) {
    air_mem_free(&r->alloc, y);
    return ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED,
                  "symmetric memref.alloc: out of memory (%zu bytes for each of %llu ranks)",
                  bytes, (unsigned long long)local);
  }
  y->base = (char*)(((uintptr_t)y->raw + 63) & ~(uintptr_t)63);
  memset(y->base, 0, (size_t)total);
  y->bytes = bytes;
  y->stride = stride;
  y->op = op;
  y->next = rk->syms;
  rk->syms = y;
  c->sym = y;
  return NULL;
}

/* Not under lock, by the last local rank to arrive, under a transport: agrees
 * with the peers and makes or frees the window of all. Nothing else touches `c`
 * meanwhile (it is busy; the other local ranks are parked on it). */
static air_status_t coll_across(ix_strand_t* s, ix_rank_t* rk, ix_coll_t* c, ix_env_t* e,
                                const air_op_t* op, ix_sym_t* freeing) {
  ix_run_t* r = s->run;
  air_rank_transport_t* t = r->transport;
  bool alloc = op->kind == AIR_OP_ALLOC;
  air_status_t st = ix_rank_agree(r, op, alloc ? K_ALLOC : K_FREE);
  if (st) return st;
  if (!alloc) {
    ix_lock(r);
    for (ix_sym_t** pp = &rk->syms; *pp; pp = &(*pp)->next)
      if (*pp == freeing) {
        *pp = freeing->next;
        break;
      }
    ix_unlock(r);
    st = t->vtable->window_free(t, freeing->win);
    air_mem_free(&r->alloc, freeing);
    return st ? ix_err(r, op, air_status_code(st), "symmetric free: %s",
                       air_status_message(st))
              : NULL;
  }
  air_memref_t m;
  size_t bytes;
  st = ix_alloc_shape(r, e, op, &m, &bytes);
  if (st) return st;
  uint64_t stride = ((uint64_t)bytes + 63) & ~(uint64_t)63, total;
  if (!stride) stride = 64;
  ix_sym_t* y = air_mem_calloc(&r->alloc, 1, sizeof *y);
  if (!y) return AIR_STATUS_OOM(&r->alloc, "a symmetric allocation's record");
  if (__builtin_mul_overflow(stride, (uint64_t)(rk->end - rk->first), &total)) total = UINT64_MAX;
  void* base = NULL;
  st = t->vtable->window_create(t, total, &base, &y->win);
  if (st) {
    air_mem_free(&r->alloc, y);
    return ix_err(r, op, air_status_code(st), "symmetric memref.alloc (%zu bytes for each of %u ranks here): %s",
                  bytes, rk->end - rk->first, air_status_message(st));
  }
  y->base = base;
  y->bytes = bytes;
  y->stride = stride;
  y->op = op;
  ix_lock(r);
  y->next = rk->syms;
  rk->syms = y;
  c->sym = y;
  ix_unlock(r);
  return NULL;
}

int ix_rank_mem(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, bool* handled) {
  ix_run_t* r = s->run;
  int64_t me;
  ix_rank_t* rk = ix_space_rank(s->space, &me);
  *handled = false;
  if (!rk) return IX_CONT;
  bool alloc = op->kind == AIR_OP_ALLOC;
  ix_sym_t* freeing = NULL;
  uint32_t local = (uint32_t)(me - rk->first);
  if (alloc && !air_ir_attr_get(op, "air.symmetric")) return IX_CONT;
  if (!alloc) {
    air_memref_t* v;
    if (op->n_operands != 1 || ix_get_view(r, f->env, op, op->operands[0], &v)) return IX_CONT;
    uint32_t idx;
    uint64_t within;
    ix_lock(r);
    /* Woken at a free that is done: the buffer is gone, the record says it was. */
    uint64_t k = rk->seq[local];
    bool again = k < rk->n_colls && rk->colls[k].op == op && rk->colls[k].here[local];
    freeing = again ? NULL : sym_at(rk, v->data, &idx, &within);
    ix_unlock(r);
    if (!again && !freeing) return IX_CONT;
  }
  *handled = true;
  ix_wake_t w = {0};
  ix_lock(r);
  uint64_t k = rk->seq[local];
  ix_coll_t* c = coll_at(r, rk, k, op);
  air_status_t st = NULL;
  if (!c) {
    st = AIR_STATUS_OOM(&r->alloc, "a symmetric allocation's record");
  } else if (c->op != op) {
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "rank %lld's symmetric collective #%llu is this %s, but another rank's is the %s "
                "at %u:%u: every rank must make and free symmetric memrefs in the same order",
                (long long)me, (unsigned long long)k, ix_opname(op), ix_opname(c->op),
                c->op->line, c->op->col);
  } else {
    if (!c->here[local]) {
      c->here[local] = 1;
      c->arrived++;
    }
    if (!c->done && !c->busy && c->arrived == rk->end - rk->first) {
      if (ix_rank_across(r)) {
        c->busy = true;
        ix_unlock(r);
        ix_watchdog_enter(s, op, false);
        st = coll_across(s, rk, c, f->env, op, freeing);
        ix_watchdog_exit(s);
        ix_lock(r);
      } else {
        st = coll_do(r, rk, c, f->env, op, freeing);
      }
      c->done = true;
      ix_wake_all(r, &c->waiters, &w);
    }
  }
  if (st) {
    ix_fail_locked(r, st, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return IX_FAILED;
  }
  if (!c->done) {
    s->w.park = (ix_park_t){.why = IX_WHY_RANK, .op = op, .ticket = k};
    bool parked = ix_park_locked(r, &s->w, &c->waiters, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  ix_sym_t* y = c->sym;
  rk->seq[local]++;
  ix_unlock(r);
  ix_wake_flush(r, &w);
  if (alloc) {
    air_memref_t m;
    size_t bytes;
    st = ix_alloc_shape(r, f->env, op, &m, &bytes);
    if (!st && (!y || bytes != y->bytes))
      st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "rank %lld's symmetric memref.alloc is %zu bytes but another rank's is %llu: "
                  "every rank's copy must have the same size",
                  (long long)me, bytes, (unsigned long long)(y ? y->bytes : 0));
    if (st) return ix_failed(s, st);
    m.data = y->base + (uint64_t)local * y->stride;
    ix_set(r, f->env, op->results[0], (ix_val_t){.p = &m});
  }
  ix_next(s);
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* Cross-rank DMA                                                            */
/*---------------------------------------------------------------------------*/

air_status_t ix_rank_dma_views(ix_strand_t* s, ix_env_t* e, const air_op_t* op,
                               air_memref_t* dst, air_memref_t* src, ix_rank_remote_t* rem) {
  ix_run_t* r = s->run;
  int64_t me;
  ix_rank_t* rk = ix_space_rank(s->space, &me);
  memset(rem, 0, sizeof *rem);
  for (int w = 0; w < 2; ++w) {
    const char* name = w ? "dst_rank" : "src_rank";
    const air_attr_t* at = air_ir_attr_get(op, name);
    air_vid_t rv = air_ir_dma_rank(op, w == 1);
    if (!at && !rv) continue;
    if (!rk)
      return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                    "%s names a peer rank but the dma is not inside an air.rank", name);
    int64_t peer;
    if (rv) {
      air_status_t st = ix_get_i(r, e, op, rv, &peer);
      if (st) return st;
    } else {
      const air_attr_t* a = air_ir_attr_resolve(r->p, at);
      if (!a || a->kind != AIR_ATTR_INT)
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s must be an integer", name);
      peer = a->i;
    }
    if (peer < 0 || peer >= (int64_t)rk->n)
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                    "%s is %lld, outside the rank space [0, %u) of the air.rank at %u:%u", name,
                    (long long)peer, rk->n, rk->op->line, rk->op->col);
    air_memref_t* v = w ? dst : src;
    uint32_t idx;
    uint64_t within;
    ix_lock(r);
    ix_sym_t* y = sym_at(rk, v->data, &idx, &within);
    bool here = peer >= (int64_t)rk->first && peer < (int64_t)rk->end;
    char* moved = y && here ? y->base + (uint64_t)(peer - rk->first) * y->stride + within : NULL;
    ix_unlock(r);
    if (!y)
      return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                    "%s names rank %lld's copy of the %s, which is not a live symmetric memref "
                    "of this air.rank",
                    name, (long long)peer, w ? "destination" : "source");
    if (here) {
      v->data = moved;
      continue;
    }
    /* Another process's rank: the view stays on this rank's own copy (same
     * shape and offsets), and the transfer goes to the same bytes of the peer's
     * part of the window. */
    uint32_t P = r->transport->processes, pp = ix_process_of(rk->n, P, (uint32_t)peer);
    rem->win[w] = y->win;
    rem->process[w] = pp;
    rem->mine[w] = y->base + (uint64_t)idx * y->stride;
    rem->peer_off[w] = (uint64_t)((uint32_t)peer - ix_block_first(rk->n, P, pp)) * y->stride;
    rem->peer[w] = peer;
  }
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* The deadlock report                                                       */
/*---------------------------------------------------------------------------*/

void ix_rank_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->w.park;
  int64_t me;
  ix_rank_t* rk = ix_space_rank(s->space, &me);
  const air_op_t* op = k->op;
  uint32_t here = 0, of = rk ? rk->end - rk->first : 0;
  if (rk && k->ticket < rk->n_colls) here = rk->colls[k->ticket].arrived;
  air_sb_printf(sb,
                "%s:%u:%u: %s (rank %lld) waits for every rank of the air.rank at %u:%u to "
                "reach this symmetric %s (%u of %u have)",
                r->p->filename, op ? op->line : 0, op ? op->col : 0, op ? ix_opname(op) : "?",
                (long long)me, rk ? rk->op->line : 0, rk ? rk->op->col : 0,
                op && op->kind == AIR_OP_DEALLOC ? "free" : "allocation", here, of);
}

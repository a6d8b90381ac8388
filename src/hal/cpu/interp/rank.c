/* rank.c - the rank op family: air.rank, air.universe.alloc, symmetric
 * allocations and cross-rank DMA, with every rank a strand of this process
 * (rank.h says the model). State lives in the run (r->ranks): one record per
 * air.rank instance, with its shared channel lanes, its collectives and its live
 * symmetric buffers; and the per-rank copies of the buffers ranks were given,
 * keyed by the original's data pointer so a buffer passed to two air.rank ops
 * (or twice) has one copy per rank for the whole run, as a process would keep
 * its own.
 *
 * Under a transport of more than one process (r->transport, e.g. MPI) this
 * process runs one block of the rank space (ranks [first, end), nearly equal
 * blocks in process order) and the rest is the peers': a symmetric allocation is
 * one window of the transport holding this process's ranks' buffers, a dma with a
 * peer in another process is a one-sided put/get into that window, and every
 * collective first checks with the peers that all of them reached the same one
 * (transport agree), so processes that diverge fail with a message instead of
 * hanging in MPI. Collectives run on the arriving worker with the lock released;
 * only the end of an air.rank (a token hook) holds it.
 *
 * This file is the air.rank op, its run state and the argument copies; the
 * records of one air.rank, its symmetric memory and collectives are
 * rank_sym.c. */
#include "hal/cpu/interp/rank.h"

#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/cpu/interp/lists.h"
#include "hal/cpu/interp/memref.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/rank/copies.h"
#include "runtime/base/mem.h"
#include "runtime/base/ptrmap.h"

#define MAX_RANKS 4096


/* Every rank's copy of one buffer. */
typedef struct ix_copy_t {
  char* orig;
  uint32_t first;  /* the rank data[0] is (this process's first; it uses orig) */
  uint64_t bytes;
  int32_t binding; /* the entry parameter it is, or -1 */
  uint32_t n;      /* ranks with a slot, from `first` */
  char** data;     /* per rank from `first`; data[0] is `orig` */
  uint8_t* held;   /* per rank: owned by the dispatch's holder */
} ix_copy_t;

typedef struct ix_ranks_t {
  ix_rank_t** items; /* token tag t is items[t - 1] */
  uint32_t n_items, cap_items;
  air_ptrmap_t copies; /* orig -> ix_copy_t* (under mem_lock) */
  bool holder_reset;
  uint32_t live;       /* air.rank ops running (under a transport: at most one) */
} ix_ranks_t;

/*---------------------------------------------------------------------------*/
/* Run state                                                                 */
/*---------------------------------------------------------------------------*/

static void rank_free(ix_run_t* r, ix_rank_t* rk) {
  /* A window still here belongs to a failed run: freeing it is a collective the
   * peers may never join, so it is left to the transport's end (MPI_Finalize, or
   * the abort that follows a failure). */
  while (rk->syms) {
    ix_sym_t* y = rk->syms;
    rk->syms = y->next;
    air_mem_free(&r->alloc, y->raw);
    air_mem_free(&r->alloc, y);
  }
  for (uint32_t i = 0; i < rk->n_colls; ++i) air_mem_free(&r->alloc, rk->colls[i].here);
  air_mem_free(&r->alloc, rk->colls);
  air_mem_free(&r->alloc, rk->seq);
  air_mem_free(&r->alloc, rk);
}

void ix_ranks_free(ix_run_t* r) {
  ix_ranks_t* R = r->ranks;
  if (!R) {
    air_mem_free(&r->alloc, r->binding_data);
    r->binding_data = NULL;
    return;
  }
  for (uint32_t i = 0; i < R->n_items; ++i) rank_free(r, R->items[i]);
  air_mem_free(&r->alloc, R->items);
  air_ptrmap_t* m = &R->copies;
  for (uint32_t i = 0; i < m->cap; ++i) {
    const void* k = m->keys[i];
    if (!k || k == (const void*)(uintptr_t)1) continue;
    ix_copy_t* c = m->vals[i];
    /* The holder keeps rank 0's copy too: the binding as the run left it. */
    if (r->rank_copies && c->binding >= 0) {
      void* b = air_rank_copies_buffer(r->rank_copies, (uint32_t)c->binding, c->first, c->bytes);
      if (b) memcpy(b, c->orig, c->bytes);
    }
    for (uint32_t j = 1; j < c->n; ++j)
      if (!c->held[j]) air_mem_free(&r->alloc, c->data[j]);
    air_mem_free(&r->alloc, c->data);
    air_mem_free(&r->alloc, c->held);
    air_mem_free(&r->alloc, c);
  }
  air_ptrmap_free(m, &r->alloc);
  air_mem_free(&r->alloc, R);
  r->ranks = NULL;
  air_mem_free(&r->alloc, r->binding_data);
  r->binding_data = NULL;
}

/* Under lock. */
static ix_ranks_t* ranks_of(ix_run_t* r) {
  if (!r->ranks) r->ranks = air_mem_calloc(&r->alloc, 1, sizeof(ix_ranks_t));
  return r->ranks;
}

/*---------------------------------------------------------------------------*/
/* Copies of the arguments                                                   */
/*---------------------------------------------------------------------------*/

/* Bytes a view reaches from its data pointer (0 for an empty one). */
static uint64_t view_span(const air_memref_t* m) {
  int64_t last = m->offset;
  for (uint32_t k = 0; k < m->rank; ++k) {
    if (m->sizes[k] <= 0) return 0;
    last += (m->sizes[k] - 1) * (m->strides[k] > 0 ? m->strides[k] : -m->strides[k]);
  }
  return (uint64_t)(last + 1) * air_elem_size((air_elem_kind_t)m->elem);
}

/* Rank copies of the buffer `m` views, for ranks [0, n): made now for the ranks
 * that have none (a snapshot of the original, as a process starting with the
 * same input would have). */
static air_status_t copies_for(ix_run_t* r, const air_op_t* op, const air_memref_t* m,
                               uint32_t first, uint32_t n, ix_copy_t** out) {
  ix_ranks_t* R = r->ranks;
  uint64_t span = view_span(m);
  air_status_t st = NULL;
  pthread_mutex_lock(&r->mem_lock);
  ix_copy_t* c = air_ptrmap_get(&R->copies, m->data);
  if (!c) {
    c = air_mem_calloc(&r->alloc, 1, sizeof *c);
    if (c) {
      c->orig = m->data;
      c->first = first;
      c->bytes = span;
      c->binding = -1;
      for (uint32_t i = 0; r->binding_data && i < r->n_bindings; ++i)
        if (r->binding_data[i] == m->data) c->binding = (int32_t)i;
      if (!air_ptrmap_put(&R->copies, &r->alloc, m->data, c)) {
        air_mem_free(&r->alloc, c);
        c = NULL;
      }
    }
    if (!c) st = AIR_STATUS_OOM(&r->alloc, "rank copies");
  } else if (c->first != first) {
    st = ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                "air.rank: this process runs ranks from %u here but from %u in an earlier "
                "air.rank given the same buffer (keep the rank space the same)",
                first, c->first);
  } else if (span > c->bytes) {
    st = ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                "air.rank: an argument reaches %llu bytes of a buffer whose rank copies were "
                "made for %llu (pass the whole buffer to the first air.rank)",
                (unsigned long long)span, (unsigned long long)c->bytes);
  }
  if (!st && c->n < n) {
    char** d = air_mem_calloc(&r->alloc, n, sizeof(char*));
    uint8_t* h = air_mem_calloc(&r->alloc, n, 1);
    if (!d || !h) {
      air_mem_free(&r->alloc, d);
      air_mem_free(&r->alloc, h);
      st = AIR_STATUS_OOM(&r->alloc, "rank copies");
    } else {
      if (c->n) {
        memcpy(d, c->data, c->n * sizeof(char*));
        memcpy(h, c->held, c->n);
      }
      air_mem_free(&r->alloc, c->data);
      air_mem_free(&r->alloc, c->held);
      c->data = d;
      c->held = h;
      d[0] = c->orig;
      for (uint32_t j = c->n ? c->n : 1; j < n && !st; ++j) {
        void* b = r->rank_copies && c->binding >= 0
                      ? air_rank_copies_buffer(r->rank_copies, (uint32_t)c->binding, first + j,
                                               c->bytes)
                      : NULL;
        h[j] = b != NULL;
        if (!b) b = air_mem_alloc(&r->alloc, (size_t)c->bytes);
        if (!b) {
          st = AIR_STATUS_OOM(&r->alloc, "a rank's copy of an argument");
          break;
        }
        memcpy(b, c->orig, (size_t)c->bytes);
        d[j] = b;
        c->n = j + 1;
      }
      if (!c->n) c->n = 1;
    }
  }
  pthread_mutex_unlock(&r->mem_lock);
  *out = c;
  return st;
}

/*---------------------------------------------------------------------------*/
/* air.rank                                                                  */
/*---------------------------------------------------------------------------*/

/* Under lock (a token hook). */
static void rank_end(ix_run_t* r, ix_tok_t* t, ix_wake_t* w) {
  ix_ranks_t* R = r->ranks;
  if (!R || !t->tag || t->tag > R->n_items) return;
  ix_rank_t* rk = R->items[t->tag - 1];
  if (R->live) R->live--;
  (void)w;
  /* Under a transport the end is the op's strand's (rank_finish): it holds
   * collectives, and the lock must stay free for the peers' channel traffic. */
  if (ix_rank_across(r)) return;
  /* Every rank's allocations go at scope end (a collective free of all). */
  while (rk->syms) {
    ix_sym_t* y = rk->syms;
    rk->syms = y->next;
    air_mem_free(&r->alloc, y->raw);
    air_mem_free(&r->alloc, y);
  }
}

/* Under a transport, in the air.rank's own strand once its ranks have ended (no
 * lock held): the processes agree they all ended it (until then this process
 * keeps serving the channel lanes it holds for its peers), then free what is
 * left, oldest first as every process made it. */
static int rank_finish(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_ranks_t* R = r->ranks;
  uint64_t tag = f->ticket;
  f->tk_op = NULL;
  if (!R || !tag || tag > R->n_items)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL, "air.rank: lost its record"));
  ix_rank_t* rk = R->items[tag - 1];
  ix_watchdog_enter(s, op, false);
  air_status_t st = ix_rank_agree(r, op, K_END);
  ix_watchdog_exit(s);
  ix_lock(r);
  ix_wire_span_locked(r, false, NULL);
  ix_sym_t* rev = NULL;
  while (rk->syms) {
    ix_sym_t* y = rk->syms;
    rk->syms = y->next;
    y->next = rev;
    rev = y;
  }
  ix_unlock(r);
  while (rev && !st) {
    ix_sym_t* y = rev;
    st = r->transport->vtable->window_free(r->transport, y->win);
    rev = y->next;
    air_mem_free(&r->alloc, y->raw);
    air_mem_free(&r->alloc, y);
  }
  ix_lock(r);
  rk->syms = rev; /* what a failure left: rank_free's */
  ix_unlock(r);
  if (st) return ix_failed(s, st);
  ix_next(s);
  return IX_CONT;
}

air_status_t ix_universe(ix_run_t* r, ix_env_t* e, const air_op_t* op) {
  int64_t n;
  air_status_t st = op->n_operands == 1 && op->n_results == 1
                        ? ix_get_i(r, e, op, op->operands[0], &n)
                        : ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "malformed %s",
                                 ix_opname(op));
  if (st) return st;
  if (n < 1 || n > MAX_RANKS)
    return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                  "air.universe.alloc of %lld ranks (1 to %d here)", (long long)n, MAX_RANKS);
  ix_set(r, e, op->results[0], (ix_val_t){.i = n});
  return NULL;
}

int ix_op_rank(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  if (f->tk_op == op) return rank_finish(s, f, op);
  uint32_t n = op->iaux[0], na = air_ir_hier_nargs(op);
  const air_block_t* body = op->n_regions ? op->regions[0] : NULL;
  if (!body || !n || n > AIR_MAX_RANK || op->n_operands < n + na || body->n_args != 2 * n + na)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "air.rank: malformed operands"));
  int64_t sizes[AIR_MAX_RANK];
  uint64_t total = 1;
  for (uint32_t k = 0; k < n; ++k) {
    air_status_t st = ix_get_i(r, e, op, op->operands[k], &sizes[k]);
    if (st) return ix_failed(s, st);
    if (sizes[k] < 1 || __builtin_mul_overflow(total, (uint64_t)sizes[k], &total) ||
        total > MAX_RANKS)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                                 "air.rank: rank space size #%u is %lld (1 to %d ranks in all)",
                                 k, (long long)sizes[k], MAX_RANKS));
  }
  air_vid_t uv = air_ir_rank_universe(op);
  if (uv) {
    int64_t un;
    air_status_t st = ix_get_i(r, e, op, uv, &un);
    if (st) return ix_failed(s, st);
    if ((uint64_t)un != total)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                                 "air.rank has %llu ranks but its universe holds %lld",
                                 (unsigned long long)total, (long long)un));
  }
  /* The instance's record: shared lanes, collectives, symmetric buffers. */
  ix_rank_t* rk = air_mem_calloc(&r->alloc, 1, sizeof *rk);
  if (!rk || !(rk->seq = air_mem_calloc(&r->alloc, total, sizeof(uint64_t))) ||
      !(rk->lanes = ix_space_new(r))) {
    if (rk) air_mem_free(&r->alloc, rk->seq);
    air_mem_free(&r->alloc, rk);
    return ix_oom(s);
  }
  rk->op = op;
  rk->n = rk->end = (uint32_t)total;
  if (ix_rank_across(r)) {
    /* This process's block of the rank space; every process needs one, as each
     * must take part in the collectives its ranks make. */
    uint32_t P = r->transport->processes, me = r->transport->process;
    if (total < P) {
      rank_free(r, rk);
      return ix_failed(s, ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                                 "air.rank has %llu ranks but the transport has %u processes "
                                 "(start at most one process per rank)",
                                 (unsigned long long)total, P));
    }
    rk->first = ix_block_first(total, P, me);
    rk->end = ix_block_first(total, P, me + 1);
  }
  ix_lock(r);
  ix_ranks_t* R = ranks_of(r);
  bool ok = R && air_mem_grow(&r->alloc, (void**)&R->items, &R->cap_items, R->n_items + 1,
                              sizeof(ix_rank_t*));
  if (ok) R->items[R->n_items++] = rk;
  /* Two air.rank ops running at once under a transport could make their
   * collectives in a different order in each process. */
  bool overlap = ok && ix_rank_across(r) && R->live > 0;
  if (ok) R->live++;
  bool reset = ok && !R->holder_reset && r->rank_copies;
  if (reset) R->holder_reset = true;
  uint32_t tag = ok ? R->n_items : 0;
  ix_unlock(r);
  if (!ok) {
    rank_free(r, rk);
    return ix_oom(s);
  }
  if (overlap)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "air.rank starts while another air.rank runs: across processes "
                               "one air.rank runs at a time (wait for the first)"));
  if (ix_rank_across(r)) {
    /* Messages first, then every process agrees it is here: no channel message
     * reaches a process before it has this air.rank's lanes. */
    air_status_t st = ix_wire_start(r, ix_chan_on_message);
    if (!st) {
      ix_lock(r);
      ix_wire_span_locked(r, true, rk->lanes);
      ix_unlock(r);
      ix_watchdog_enter(s, op, false);
      st = ix_rank_agree(r, op, K_START);
      ix_watchdog_exit(s);
    }
    if (st) return ix_failed(s, st);
  }
  if (reset) {
    air_status_t st =
        air_rank_copies_reset(r->rank_copies, rk->n, rk->first, rk->end, r->n_bindings);
    if (st) return ix_failed(s, st);
  }
  /* Each rank's copies of the memref arguments. */
  enum { MAXA = 64 };
  ix_copy_t* cp[MAXA] = {0};
  if (na > MAXA)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "air.rank with more than %d arguments", MAXA));
  for (uint32_t i = 0; i < na; ++i) {
    air_vid_t v = op->operands[n + i];
    if (air_ir_type(r->p, air_ir_value_type(r->p, v))->kind != AIR_TYPE_MEMREF) continue;
    air_memref_t* m;
    air_status_t st = ix_get_view(r, e, op, v, &m);
    if (!st && m->data) st = copies_for(r, op, m, rk->first, rk->end - rk->first, &cp[i]);
    if (st) return ix_failed(s, st);
  }
  /* The ranks' completion frees what they left on the symmetric heap. */
  /* Born with the pending count held while spawning; the count it takes of its
   * parent (this strand's join, kept pending by this strand) in one lock hold. */
  ix_tok_t* done = ix_tok_new_unlocked(r, op, s->join, 1);
  if (!done) return ix_oom(s);
  done->tag = tag;
  done->on_fire = rank_end;
  if (s->join) ix_tok_hold(r, s->join);
  int rc = IX_CONT;
  for (uint64_t i = rk->first; i < rk->end && rc == IX_CONT; ++i) {
    int64_t id[AIR_MAX_RANK];
    uint64_t x = i;
    for (uint32_t k = n; k-- > 0;) {
      id[k] = (int64_t)(x % (uint64_t)sizes[k]);
      x /= (uint64_t)sizes[k];
    }
    ix_env_t* ie = ix_env_new(r, body, NULL, false);
    if (!ie) {
      rc = ix_oom(s);
      break;
    }
    for (uint32_t k = 0; k < n; ++k) {
      ix_set(r, ie, body->args[k], (ix_val_t){.i = id[k]});
      ix_set(r, ie, body->args[n + k], (ix_val_t){.i = sizes[k]});
    }
    rc = na ? ix_transfer(s, op, e, op->operands + n, ie, body->args + 2 * n, na) : IX_CONT;
    for (uint32_t a = 0; rc == IX_CONT && a < na; ++a) {
      if (!cp[a] || i == rk->first) continue;
      ix_val_t* slot = ix_slot(r, ie, body->args[2 * n + a]);
      if (slot && slot->p) ((air_memref_t*)slot->p)->data = cp[a]->data[i - rk->first];
    }
    struct ix_space_t* sp =
        rc == IX_CONT ? ix_space_for_rank(r, rk->lanes, rk, (int64_t)i, rk->n) : NULL;
    ix_strand_t* c = sp ? ix_strand_new(r, done, done, NULL, sp) : NULL;
    ix_frame_t cf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = ie};
    if (rc != IX_CONT || !c || !ix_push(c, &cf)) {
      if (c) ix_strand_free(c);
      ix_env_unref(r, ie);
      if (rc == IX_CONT) rc = ix_oom(s);
      break;
    }
    ix_spawn(r, c);
  }
  ix_tok_unhold(r, done);
  if (rc != IX_CONT || !ix_rank_across(r)) {
    ix_tok_unref(r, done);
    if (rc != IX_CONT) return rc;
    ix_next(s);
    return IX_CONT;
  }
  /* Under a transport this strand waits for its ranks, then ends the air.rank
   * (rank_finish: this frame runs the op again with tk_op set). */
  ix_tok_t** wt = air_mem_alloc(&r->alloc, sizeof(ix_tok_t*));
  if (!wt) {
    ix_tok_unref(r, done);
    return ix_oom(s);
  }
  wt[0] = done; /* the frame's reference */
  f->tk_op = op;
  f->ticket = tag;
  ix_frame_t wf = {.kind = IX_F_WAIT, .owner = op, .after = IX_AFTER_NONE, .state = wt,
                   .n_wait = 1};
  if (!ix_push(s, &wf)) {
    ix_tok_unref(r, done);
    air_mem_free(&r->alloc, wt);
    return ix_oom(s);
  }
  return IX_CONT;
}

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
 * only the end of an air.rank (a token hook) holds it. */
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

typedef struct ix_sym_t {
  struct ix_sym_t* next;
  char* base;        /* the first local rank's buffer; rank i's is base + i * stride */
  uint64_t bytes, stride;
  void* raw;
  air_rank_window_t* win; /* under a transport: the window holding base */
  const air_op_t* op;
} ix_sym_t;

/* The k-th collective of every rank of an air.rank. */
typedef struct ix_coll_t {
  const air_op_t* op;
  uint32_t arrived;
  uint8_t* here;     /* per local rank */
  bool done, busy; /* busy: the last arrival is making it with the lock released */
  ix_sym_t* sym;     /* made (alloc) or freed (dealloc; then dangling, never read) */
  ix_wlist_t waiters;
} ix_coll_t;

typedef struct ix_rank_t {
  const air_op_t* op;
  uint32_t n, first, end; /* ranks, and the ones run here */
  struct ix_space_t* lanes;
  uint64_t* seq;          /* per local rank: collectives passed */
  ix_coll_t* colls;
  uint32_t n_colls, cap_colls;
  ix_sym_t* syms;
} ix_rank_t;

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
/* Processes (under a transport)                                             */
/*---------------------------------------------------------------------------*/

static bool across(const ix_run_t* r) { return r->transport && r->transport->processes > 1; }


/* What a collective is, the same number in every process: the op's place in the
 * text and the kind of collective. */
enum { K_ALLOC = 1, K_FREE = 2, K_END = 3, K_START = 4 };
static uint64_t coll_key(const air_op_t* op, uint32_t what) {
  return ((uint64_t)op->line << 36) | ((uint64_t)(op->col & 0xfffffu) << 16) |
         ((uint64_t)(op->kind & 0xfffu) << 4) | what;
}

static int run_failing(void* r) { return ix_failing(r); }

/* Every process must be at the same collective before any enters MPI's. */
static air_status_t agree_at(ix_run_t* r, const air_op_t* op, uint32_t what) {
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
  if (across(r)) return;
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
  air_status_t st = agree_at(r, op, K_END);
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
  if (across(r)) {
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
  bool overlap = ok && across(r) && R->live > 0;
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
  if (across(r)) {
    /* Messages first, then every process agrees it is here: no channel message
     * reaches a process before it has this air.rank's lanes. */
    air_status_t st = ix_wire_start(r, ix_chan_on_message);
    if (!st) {
      ix_lock(r);
      ix_wire_span_locked(r, true, rk->lanes);
      ix_unlock(r);
      ix_watchdog_enter(s, op, false);
      st = agree_at(r, op, K_START);
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
  ix_tok_t* done = ix_tok_new(r, op, s->join);
  if (!done) return ix_oom(s);
  done->tag = tag;
  done->on_fire = rank_end;
  ix_tok_hold(r, done);
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
  if (rc != IX_CONT || !across(r)) {
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
  air_status_t st = agree_at(r, op, alloc ? K_ALLOC : K_FREE);
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
      if (across(r)) {
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

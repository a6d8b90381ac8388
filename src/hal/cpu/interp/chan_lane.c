/* chan_lane.c - channel state: spaces, lanes made on first use, the lane
 * lock's park and wake protocol, and the spin before parking (chan_lane.h). */
#include "hal/cpu/interp/chan_lane.h"

#include <string.h>

#include "air/rank.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/futex.h"
#include "runtime/base/mem.h"

/* The index a put index and receiver stand for, as the ops spell it. */
void ix_lane_index(const ix_chan_t* c, uint64_t p, uint64_t rv, int64_t* idx) {
  for (uint32_t k = c->rank; k-- > 0;) {
    bool b = c->bdims[k] != c->dims[k];
    uint64_t d = (uint64_t)(b ? c->bdims[k] : c->dims[k]);
    uint64_t* from = b ? &rv : &p;
    idx[k] = (int64_t)(*from % d);
    *from /= d;
  }
}

/* Lanes, rings and transfer buffers come from the run's cache (cache.h): a run
 * in steady state allocates none, and the next run of the prep reuses them. */
static void* cget(ix_run_t* r, size_t n) { return ix_cache_get_zero(r->cache, &r->alloc, n); }
static void cput(ix_run_t* r, void* p, size_t n) { ix_cache_put(r->cache, &r->alloc, p, n); }

/* What every op reads (spaces, their lane tables and rows) or a transfer writes
 * (lanes) sits on cache lines of its own: a small block from the cache shares
 * its line with whatever came next, and one row that shared a line with another
 * lane's hot fields cost a miss per transfer (issue 14, session 5). The block's
 * start is kept in the word before the aligned pointer (the allocator aligns to
 * at least 8, so there is always room). */
enum { LINE = 64 };
static size_t line_bytes(size_t n) { return (n + LINE - 1) / LINE * LINE + LINE; }
static void* aget(ix_run_t* r, size_t n) {
  char* m = cget(r, line_bytes(n));
  if (!m) return NULL;
  char* p = (char*)(((uintptr_t)m + LINE) & ~(uintptr_t)(LINE - 1));
  memcpy(p - sizeof m, &m, sizeof m);
  return p;
}
static void aput(ix_run_t* r, void* p, size_t n) {
  if (!p) return;
  char* m;
  memcpy(&m, (char*)p - sizeof m, sizeof m);
  cput(r, m, line_bytes(n));
}

static size_t lanes_bytes(const ix_run_t* r) {
  return (r->tab.n_chans ? r->tab.n_chans : 1) * sizeof(ix_lane_t**);
}

static ix_space_t* space_make(ix_run_t* r, bool own_lanes) {
  ix_space_t* sp = aget(r, sizeof *sp);
  if (!sp) return NULL;
  if (own_lanes && !(sp->lanes = aget(r, lanes_bytes(r)))) {
    aput(r, sp, sizeof *sp);
    return NULL;
  }
  ix_lock(r);
  sp->next = r->spaces;
  r->spaces = sp;
  ix_unlock(r);
  return sp;
}

ix_space_t* ix_space_new(ix_run_t* r) { return space_make(r, true); }

ix_space_t* ix_space_new_in(ix_run_t* r, const ix_space_t* parent) {
  ix_space_t* sp = space_make(r, true);
  if (sp && parent) {
    sp->rank = parent->rank;
    sp->rank_id = parent->rank_id;
    sp->rank_lanes = parent->rank_lanes;
    sp->n_ranks = parent->n_ranks;
  }
  return sp;
}

ix_space_t* ix_space_for_rank(ix_run_t* r, ix_space_t* shared, struct ix_rank_t* rank,
                              int64_t id, uint32_t n) {
  ix_space_t* sp = space_make(r, false);
  if (!sp) return NULL;
  sp->n_ranks = shared->n_ranks = n;
  sp->shared = shared;
  sp->rank_lanes = shared;
  sp->rank = rank;
  sp->rank_id = id;
  return sp;
}

struct ix_rank_t* ix_space_rank(const ix_space_t* sp, int64_t* id) {
  if (id) *id = sp ? sp->rank_id : 0;
  return sp ? sp->rank : NULL;
}

void ix_spaces_free(ix_run_t* r) {
  while (r->spaces) {
    ix_space_t* sp = r->spaces;
    r->spaces = sp->next;
    for (uint32_t i = 0; sp->lanes && i < r->tab.n_chans; ++i) {
      const ix_chan_t* c = &r->tab.chans[i];
      for (uint64_t j = 0; sp->lanes[i] && j < c->n_put; ++j) {
        ix_lane_t* q = sp->lanes[i][j];
        if (!q) continue;
        for (int64_t k = 0; k < c->depth; ++k)
          if (q->ring[k].own) cput(r, q->ring[k].buf, q->ring[k].cap);
        cput(r, q->mem, q->mem_size);
      }
      if (sp->lanes[i]) aput(r, sp->lanes[i], c->n_put * sizeof(ix_lane_t*));
    }
    if (sp->lanes) aput(r, sp->lanes, lanes_bytes(r));
    aput(r, sp, sizeof *sp);
  }
}

/* The process holding lane p of `c` for a strand in `sp`, or IX_HERE. While the
 * ranks are spread over processes (r->transport) the lanes every rank shares
 * live one per process: lane p (a put index) at the process running rank
 * p mod n, so a rank's gets at its own index stay local and its puts to a peer
 * go to the peer (chan_remote.c; the home serves them with proxies below). */
uint32_t ix_lane_home(const ix_run_t* r, const ix_space_t* sp, const ix_chan_t* c,
                          uint64_t p) {
  if (!r->transport || r->transport->processes < 2 || !sp) return IX_HERE;
  if (!sp->shared && !(c->symheap && sp->rank_lanes)) return IX_HERE;
  uint32_t n = sp->n_ranks ? sp->n_ranks : 1;
  uint32_t home = ix_process_of(n, r->transport->processes, (uint32_t)(p % n));
  return home == r->transport->process ? IX_HERE : home;
}

/* A lane of `c` in one block (chan_lane.h): the lane's two lines, the ring
 * (an entry a line), the entries' inline bytes, and per-receiver tickets and
 * wait lists when there are several receivers (one receiver's are in the lane),
 * or else room for a parked get's offered pattern. */
static ix_lane_t* lane_make(ix_run_t* r, const ix_chan_t* c) {
  size_t depth = (size_t)c->depth, nr = c->n_recv;
  size_t ring_at = sizeof(ix_lane_t), bytes_at = ring_at + depth * sizeof(ix_xfer_t);
  size_t recv_at = bytes_at + depth * IX_LANE_SMALL;
  size_t size = recv_at + (nr > 1 ? nr * (sizeof(uint64_t) + sizeof(ix_wlist_t))
                                  : sizeof(ix_pat_t));
  size_t mem_size = line_bytes(size); /* whole lines: the last one shared with nothing */
  char* m = cget(r, mem_size);
  if (!m) return NULL;
  char* b = (char*)(((uintptr_t)m + LINE - 1) & ~(uintptr_t)(LINE - 1));
  ix_lane_t* q = (ix_lane_t*)b;
  q->mem = m;
  q->mem_size = mem_size;
  q->ring = (ix_xfer_t*)(b + ring_at);
  for (size_t k = 0; k < depth; ++k) {
    q->ring[k].buf = b + bytes_at + k * IX_LANE_SMALL;
    q->ring[k].cap = IX_LANE_SMALL;
  }
  if (nr > 1) {
    q->get_issued = (uint64_t*)(b + recv_at);
    q->getters = (ix_wlist_t*)(b + recv_at + nr * sizeof(uint64_t));
  } else {
    q->get_issued = &q->get0;
    q->getters = &q->getter0;
    q->offer_pat = (ix_pat_t*)(b + recv_at);
  }
  return q;
}

/* Under the run lock. The lane tables are published with release stores, so
 * ix_lane_get finds a made lane without the run lock. */
ix_lane_t* ix_lane_of_locked(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p) {
  if (c->symheap && sp->rank_lanes) sp = sp->rank_lanes;
  if (sp->shared) sp = sp->shared;
  uint32_t ci = (uint32_t)(c - r->tab.chans);
  ix_lane_t** row = sp->lanes[ci];
  if (!row) {
    if (!(row = aget(r, c->n_put * sizeof(ix_lane_t*)))) return NULL;
    __atomic_store_n(&sp->lanes[ci], row, __ATOMIC_RELEASE);
  }
  if (row[p]) return row[p];
  ix_lane_t* q = lane_make(r, c);
  if (!q) return NULL;
  __atomic_store_n(&row[p], q, __ATOMIC_RELEASE);
  return q;
}

ix_lane_t* ix_lane_get(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p) {
  ix_space_t* at = c->symheap && sp->rank_lanes ? sp->rank_lanes : sp;
  if (at->shared) at = at->shared;
  ix_lane_t** row = __atomic_load_n(&at->lanes[c - r->tab.chans], __ATOMIC_ACQUIRE);
  ix_lane_t* q = row ? __atomic_load_n(&row[p], __ATOMIC_ACQUIRE) : NULL;
  if (q) return q;
  ix_lock(r);
  q = ix_lane_of_locked(r, sp, c, p);
  ix_unlock(r);
  return q;
}

bool ix_xfer_room(ix_run_t* r, ix_xfer_t* x, size_t bytes) {
  if (x->cap >= bytes) return true;
  void* nb = ix_cache_get(r->cache, &r->alloc, bytes);
  if (!nb) return false;
  if (x->own) ix_cache_put(r->cache, &r->alloc, x->buf, x->cap);
  x->buf = nb;
  x->cap = bytes;
  x->own = true;
  return true;
}

bool ix_lane_put_done(ix_lane_t* q, ix_xfer_t* x) {
  __atomic_store_n(&x->state, (uint8_t)IX_X_FULL, __ATOMIC_RELEASE);
  return atomic_load_explicit(&q->parked_gets, memory_order_relaxed) != 0;
}

/* Frees the read entries from the head on; true when one was. */
static bool free_read(const ix_chan_t* c, ix_lane_t* q) {
  uint64_t depth = (uint64_t)c->depth;
  bool freed = false;
  for (;;) {
    ix_xfer_t* h = &q->ring[q->head % depth];
    if (h->state != IX_X_DONE || h->seq != q->head) break;
    __atomic_store_n(&h->state, (uint8_t)IX_X_FREE, __ATOMIC_RELAXED);
    __atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
    freed = true;
  }
  return freed;
}

bool ix_lane_get_done(const ix_chan_t* c, ix_lane_t* q, ix_xfer_t* x) {
  if (--x->readers_left == 0) __atomic_store_n(&x->state, (uint8_t)IX_X_DONE, __ATOMIC_RELEASE);
  return free_read(c, q) && atomic_load_explicit(&q->parked_puts, memory_order_relaxed) != 0;
}

bool ix_lane_skip_head(const ix_chan_t* c, ix_lane_t* q) {
  __atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
  free_read(c, q);
  return atomic_load_explicit(&q->parked_puts, memory_order_relaxed) != 0;
}

/* Under the run lock: wakes the get waiting for transfer `t` (wait lists are in
 * ticket order, so it is usually the first). */
static void wake_getter(ix_run_t* r, ix_wlist_t* l, uint64_t t, ix_wake_t* w) {
  for (ix_waiter_t* h = l->head; h && h->park.ticket <= t; h = h->wnext)
    if (h->park.ticket == t) {
      ix_wake(r, h, w);
      return;
    }
}

void ix_lane_wake(ix_run_t* r, const ix_chan_t* c, ix_lane_t* q, bool gets, uint64_t t) {
  ix_wake_t w = {0};
  ix_lock(r);
  if (gets) {
    for (uint32_t i = 0; i < c->n_recv; ++i) wake_getter(r, &q->getters[i], t, &w);
  } else {
    /* Each transfer freed lets one more put in: wake the puts whose turn came. */
    uint64_t lim = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) + (uint64_t)c->depth;
    for (ix_waiter_t* h; (h = q->putters.head) && h->park.ticket < lim;) ix_wake(r, h, &w);
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

int ix_lane_park(ix_strand_t* s, uint8_t why, const air_op_t* op, const ix_chan_t* c,
                 ix_lane_t* q, const int64_t* idx, uint64_t rv, uint64_t t) {
  ix_run_t* r = s->run;
  bool put = why == IX_WHY_PUT;
  ix_lane_unlock(q); /* the run lock comes first */
  ix_wake_t w = {0};
  ix_lock(r);
  ix_lane_lock(q);
  if (!ix_lane_blocked(q, put, t, (uint64_t)c->depth)) {
    ix_lane_unlock(q);
    ix_unlock(r);
    return IX_CONT;
  }
  _Atomic uint32_t* n = put ? &q->parked_puts : &q->parked_gets;
  atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
  ix_lane_unlock(q);
  /* Still under the run lock: whoever saw the count waits for it to join the list. */
  s->w.park = (ix_park_t){.why = why, .lane = q, .op = op, .ch = c, .ticket = t,
                          .rank = c->rank, .count = n};
  memcpy(s->w.park.idx, idx, sizeof s->w.park.idx);
  bool parked = ix_park_locked(r, &s->w, put ? &q->putters : &q->getters[rv], &w);
  if (!parked) {
    atomic_fetch_sub_explicit(n, 1, memory_order_relaxed);
    s->w.park.count = NULL;
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return parked ? IX_PARKED : IX_FAILED;
}

/* How long a put/get watches its transfer before parking: about what parking,
 * waking and a pool hand-over cost (and well under a futex wake, ~4-7 us here,
 * PERFORMANCE.md). Bounded in time: one `pause` costs from a few ns to ~70 ns
 * depending on the CPU. */
enum { SPIN_NS = 10000 };

/* Watches, without the lock, until the get's transfer `t` is in entry `x` or the
 * put's slot is free; true when it is. Only worth it while the partner may be
 * running on another worker: never on a one-worker pool, and not while work
 * waits in the pool's queue (the partner may be that work, and this worker
 * should run it instead). */
bool ix_lane_spin(ix_run_t* r, bool put, const ix_lane_t* q, const ix_xfer_t* x, uint64_t t,
                  uint64_t depth, bool offered) {
  if (!ix_lane_may_spin(r)) return false;
  int64_t deadline = 0;
  for (uint32_t i = 0;; ++i) {
    if (put ? t < __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) + depth
            : (offered && atomic_load_explicit(&q->taken, memory_order_acquire) > t) ||
                  (__atomic_load_n(&x->state, __ATOMIC_ACQUIRE) == IX_X_FULL &&
                   __atomic_load_n(&x->seq, __ATOMIC_RELAXED) == t))
      return true;
    if ((i & 7) == 0) {
      int64_t now = air_time_now_ns();
      if (!deadline) deadline = now + SPIN_NS;
      if (now >= deadline || ix_failing(r) || air_pool_queued(r->pool)) return false;
    }
    air_cpu_relax();
  }
}


void ix_lane_wait_taken(const ix_lane_t* q, uint64_t t) {
  for (uint32_t i = 0; atomic_load_explicit(&q->taken, memory_order_acquire) <= t;) {
    if (++i < 256) {
      air_cpu_relax();
    } else {
      i = 0;
      sched_yield(); /* the put lost its core */
    }
  }
}

/* channel.c - the channel op family: air.channel put/get with depth, bundles and
 * broadcast, in channel spaces (one per launch instance).
 *
 * One lane per put index holds up to `depth` transfers in a ring. A put copies
 * its source into a ring entry's buffer at put time and completes at once when an
 * entry is free (so a
 * producer runs exactly `depth` transfers ahead of a slow consumer and may reuse
 * its source right after); otherwise it parks. A get copies its transfer into its
 * destination, or parks until it has been put. With broadcast_shape a put index
 * reaches several get indices (those that agree with it on every dimension the
 * channel does not broadcast); each receiver reads every transfer once and an
 * entry frees when all of them have.
 *
 * Which transfer an op moves is fixed when it is issued, as a DMA engine takes
 * buffer descriptors in order: an async put/get takes a ticket when dispatched,
 * a blocking one when it runs, so two gets a strand issues at one index read the
 * transfers in program order even when the later one becomes ready first.
 *
 * Entries are reserved under the run lock and filled/drained outside it: an entry
 * being filled is invisible to getters, and an entry being read is not freed
 * until its reader is done.
 *
 * Spin, then park: a put or get that finds nothing to do first lets go of the
 * lock and watches its transfer's state for a few microseconds (when the pool
 * has another worker that may be running its partner), so a rendezvous between
 * two running strands never goes through park, wake and the pool, let alone the
 * kernel; only then does it park. The words it watches (an entry's `seq` and
 * `state`, a lane's `head`) are written with atomic stores under the lock and
 * read with atomic loads outside it. */
#include "hal/cpu/interp/channel.h"

#include <stdio.h>
#include <string.h>

#include "air/rank.h"
#include "hal/cpu/interp/lists.h"
#include "hal/cpu/interp/split.h"
#include "hal/cpu/interp/tables.h"
#include "hal/cpu/interp/trace.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* Transfers are numbered by the order their ops were issued: the k-th put issued
 * at an index writes transfer k, the k-th get issued at a receiver reads it. */
enum { IX_X_FREE = 0, IX_X_FILLING, IX_X_FULL, IX_X_DONE };

typedef struct ix_xfer_t {
  void* buf;
  size_t cap;
  int64_t count;
  uint64_t seq;            /* transfer held (valid unless FREE) */
  uint32_t elem;
  uint32_t readers_left;
  uint8_t state;
  const air_op_t* put;
} ix_xfer_t;

/* One put index of a channel in one space. */
typedef struct ix_lane_t {
  uint64_t head;           /* oldest transfer not yet read by every receiver */
  uint64_t put_issued;     /* tickets handed to puts */
  uint64_t* get_issued;    /* per receiver: tickets handed to gets */
  ix_xfer_t* ring;         /* depth entries; transfer k lives in entry k % depth */
  ix_wlist_t putters;
  ix_wlist_t* getters;     /* per receiver */
} ix_lane_t;

/* Launch instances are independent and may run at once, so each has its own
 * channel state: a [1, 1] channel used in a 4x4 launch is 16 channels. Ops
 * outside any launch share the run's root space.
 *
 * Ranks (rank.c): the ranks of one air.rank share one set of lanes (a channel at
 * rank level is shared by all ranks), so each rank's space borrows the rank op's
 * (`shared`) and carries its rank id; a launch space inside a rank inherits both,
 * and a gpu_symmetric_heap channel used at any depth resolves to the rank lanes. */
typedef struct ix_space_t {
  struct ix_space_t* next;
  ix_lane_t*** lanes;      /* [chan][put index], made on first use; NULL: borrowed */
  struct ix_space_t* shared;    /* whose lanes a rank's space uses */
  struct ix_space_t* rank_lanes; /* the enclosing air.rank's lanes (symmetric heap) */
  struct ix_rank_t* rank;       /* the enclosing air.rank instance, or NULL */
  int64_t rank_id;
} ix_space_t;

/* Lanes, rings and transfer buffers come from the run's cache (cache.h): a run
 * in steady state allocates none, and the next run of the prep reuses them. */
static void* cget(ix_run_t* r, size_t n) { return ix_cache_get_zero(r->cache, &r->alloc, n); }
static void cput(ix_run_t* r, void* p, size_t n) { ix_cache_put(r->cache, &r->alloc, p, n); }

static size_t lanes_bytes(const ix_run_t* r) {
  return (r->tab.n_chans ? r->tab.n_chans : 1) * sizeof(ix_lane_t**);
}

static ix_space_t* space_make(ix_run_t* r, bool own_lanes) {
  ix_space_t* sp = cget(r, sizeof *sp);
  if (!sp) return NULL;
  if (own_lanes && !(sp->lanes = cget(r, lanes_bytes(r)))) {
    cput(r, sp, sizeof *sp);
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
  }
  return sp;
}

ix_space_t* ix_space_for_rank(ix_run_t* r, ix_space_t* shared, struct ix_rank_t* rank,
                              int64_t id) {
  ix_space_t* sp = space_make(r, false);
  if (!sp) return NULL;
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
        for (int64_t k = 0; k < c->depth; ++k) cput(r, q->ring[k].buf, q->ring[k].cap);
        cput(r, q->ring, (size_t)c->depth * sizeof(ix_xfer_t));
        cput(r, q->get_issued, c->n_recv * sizeof(uint64_t));
        cput(r, q->getters, c->n_recv * sizeof(ix_wlist_t));
        cput(r, q, sizeof *q);
      }
      if (sp->lanes[i]) cput(r, sp->lanes[i], c->n_put * sizeof(ix_lane_t*));
    }
    if (sp->lanes) cput(r, sp->lanes, lanes_bytes(r));
    cput(r, sp, sizeof *sp);
  }
}

/* Whether the channel op of a strand in `sp` uses the lanes every rank shares
 * while the ranks are spread over processes (r->transport): those lanes are not
 * carried between processes yet, so the op is refused rather than letting each
 * process keep a channel of its own that no peer reaches. */
static bool lanes_across(const ix_run_t* r, const ix_space_t* sp, const ix_chan_t* c) {
  if (!r->transport || r->transport->processes < 2 || !sp) return false;
  return sp->shared || (c->symheap && sp->rank_lanes);
}

/* Under lock. */
static ix_lane_t* lane_of(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p) {
  if (c->symheap && sp->rank_lanes) sp = sp->rank_lanes;
  if (sp->shared) sp = sp->shared;
  uint32_t ci = (uint32_t)(c - r->tab.chans);
  if (!sp->lanes[ci] && !(sp->lanes[ci] = cget(r, c->n_put * sizeof(ix_lane_t*)))) return NULL;
  if (sp->lanes[ci][p]) return sp->lanes[ci][p];
  ix_lane_t* q = cget(r, sizeof *q);
  if (!q) return NULL;
  q->ring = cget(r, (size_t)c->depth * sizeof(ix_xfer_t));
  q->get_issued = cget(r, c->n_recv * sizeof(uint64_t));
  q->getters = cget(r, c->n_recv * sizeof(ix_wlist_t));
  if (!q->ring || !q->get_issued || !q->getters) {
    cput(r, q->ring, (size_t)c->depth * sizeof(ix_xfer_t));
    cput(r, q->get_issued, c->n_recv * sizeof(uint64_t));
    cput(r, q->getters, c->n_recv * sizeof(ix_wlist_t));
    cput(r, q, sizeof *q);
    return NULL;
  }
  sp->lanes[ci][p] = q;
  return q;
}

static void fmt_index(air_sb_t* sb, const int64_t* idx, uint32_t n) {
  air_sb_putc(sb, '[');
  for (uint32_t k = 0; k < n; ++k) air_sb_printf(sb, "%s%lld", k ? ", " : "", (long long)idx[k]);
  air_sb_putc(sb, ']');
}

void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->w.park;
  const ix_chan_t* c = k->ch;
  air_sb_printf(sb, "%s:%u:%u: %s @%s", r->p->filename, k->op->line, k->op->col,
                ix_opname(k->op), c->name);
  fmt_index(sb, k->idx, k->rank);
  if (k->why == IX_WHY_GET) {
    air_sb_puts(sb, " blocked: no put");
  } else {
    air_sb_printf(sb, " blocked: channel full (depth %lld), ", (long long)c->depth);
    /* Which receivers still have to read the oldest transfer. */
    const ix_lane_t* q = k->lane;
    bool pending = false;
    for (uint32_t i = 0; q && i < c->n_recv; ++i) pending = pending || q->getters[i].head;
    if (c->n_recv == 1 || !q) {
      air_sb_puts(sb, pending ? "a get is pending" : "no get pending");
    } else {
      const ix_xfer_t* h = &q->ring[q->head % (uint64_t)c->depth];
      air_sb_printf(sb, "the oldest transfer is unread by %u of its %u receivers",
                    h->seq == q->head ? h->readers_left : c->n_recv, c->n_recv);
    }
  }
  if (s->pe) air_sb_printf(sb, " (%s)", s->pe->track);
  if (s->space && s->space->rank) air_sb_printf(sb, " (rank %lld)", (long long)s->space->rank_id);
}

static int chan_fail(ix_strand_t* s, air_status_t st) { return ix_failed(s, st); }

static void chan_trace(ix_strand_t* s, const ix_chan_t* c, const int64_t* idx,
                       const air_op_t* op, int64_t t0) {
  if (!s->run->trace) return;
  char track[160];
  int m = snprintf(track, sizeof track, "channel @%s[", c->name);
  for (uint32_t k = 0; k < c->rank && m > 0 && (size_t)m < sizeof track; ++k)
    m += snprintf(track + m, sizeof track - (size_t)m, "%s%lld", k ? ", " : "",
                  (long long)idx[k]);
  if (m > 0 && (size_t)m < sizeof track) snprintf(track + m, sizeof track - (size_t)m, "]");
  ix_trace(s, AIR_TRACK_CHANNEL, track, op, t0);
}

/* The channel, index, lane (put index p) and receiver rv of a put/get.
 * *ready is false when an index is an air.execute result not yet produced. */
static air_status_t resolve(ix_run_t* r, ix_env_t* e, const air_op_t* op, ix_chan_t** out,
                            int64_t* idx, uint64_t* pp, uint64_t* prv, bool* ready) {
  bool put = op->kind == AIR_OP_PUT;
  const char* on = ix_opname(op);
  if (op->flags & AIR_OPF_HAS_DEST)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                  "%s with dest(...) is not supported: neither the spec nor AIR-TEXT gives it "
                  "a meaning",
                  on);
  ix_chan_t* c = op->sym ? ix_find_chan(&r->tab, op->sym) : NULL;
  uint32_t n = op->iaux[0];
  if (!c || op->n_operands < n + 1 || op->n_lists < 3)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "%s names @%s, which is not a declared channel", on, op->sym ? op->sym : "?");
  if (n != c->rank && n != 0)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s @%s: %u indices for a %u-d channel",
                  on, c->name, n, c->rank);
  const int64_t* lim = put ? c->dims : c->bdims;
  memset(idx, 0, AIR_MAX_RANK * sizeof(int64_t));
  *ready = true;
  for (uint32_t k = 0; k < n; ++k) {
    air_vid_t v = op->operands[k];
    if (v < r->tab.n_values && r->tab.vinfo[v].guard) {
      ix_val_t* g = ix_slot(r, e, r->tab.vinfo[v].guard);
      if (!g || !g->p || !ix_tok_fired(g->p)) {
        *ready = false;
        return NULL;
      }
    }
    air_status_t st = ix_get_i(r, e, op, v, &idx[k]);
    if (st) return st;
    if (idx[k] < 0 || idx[k] >= lim[k])
      return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s @%s: index #%u is %lld, outside [0, %lld)",
                    on, c->name, k, (long long)idx[k], (long long)lim[k]);
  }
  for (uint32_t k = n; k < c->rank; ++k)
    if (lim[k] != 1)
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s @%s needs %u indices", on, c->name,
                    c->rank);
  uint64_t p = 0, rv = 0;
  for (uint32_t k = 0; k < c->rank; ++k) {
    bool b = c->bdims[k] != c->dims[k];
    p = p * (uint64_t)c->dims[k] + (uint64_t)(b ? 0 : idx[k]);
    if (b) rv = rv * (uint64_t)c->bdims[k] + (uint64_t)idx[k];
  }
  *out = c;
  *pp = p;
  *prv = rv;
  return NULL;
}

/* Under lock. */
static uint64_t take_ticket(ix_lane_t* q, bool put, uint64_t rv) {
  return put ? q->put_issued++ : q->get_issued[rv]++;
}

bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, uint64_t* ticket) {
  ix_run_t* r = s->run;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready;
  air_status_t st = resolve(r, e, op, &c, idx, &p, &rv, &ready);
  if (st || !ready || lanes_across(r, s->space, c)) {
    air_status_free(st); /* reported again when the op runs */
    return false;
  }
  ix_lock(r);
  ix_lane_t* q = lane_of(r, s->space, c, p);
  if (q) *ticket = take_ticket(q, op->kind == AIR_OP_PUT, rv);
  ix_unlock(r);
  return q != NULL;
}

bool ix_chan_ready(ix_strand_t* s, ix_env_t* e, const air_op_t* op, uint64_t ticket) {
  ix_run_t* r = s->run;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready;
  air_status_t st = resolve(r, e, op, &c, idx, &p, &rv, &ready);
  if (st || !ready) {
    air_status_free(st); /* reported when the op runs */
    return false;
  }
  uint64_t depth = (uint64_t)c->depth;
  ix_lock(r);
  ix_lane_t* q = lane_of(r, s->space, c, p);
  bool ok = false;
  if (q && op->kind == AIR_OP_PUT) {
    ok = ticket < q->head + depth;
  } else if (q) {
    const ix_xfer_t* x = &q->ring[ticket % depth];
    ok = x->seq == ticket && x->state == IX_X_FULL;
  }
  ix_unlock(r);
  return ok;
}

static int park_io(ix_strand_t* s, uint8_t why, const air_op_t* op, ix_chan_t* c, ix_lane_t* q,
                   const int64_t* idx, ix_wlist_t* l, uint64_t ticket) {
  ix_run_t* r = s->run;
  ix_wake_t w = {0};
  s->w.park = (ix_park_t){.why = why, .lane = q, .op = op, .ch = c, .ticket = ticket,
                          .rank = c->rank};
  memcpy(s->w.park.idx, idx, sizeof s->w.park.idx);
  bool parked = ix_park_locked(r, &s->w, l, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return parked ? IX_PARKED : IX_FAILED;
}

/* Wakes the get waiting for transfer `t` (wait lists are in ticket order, so
 * it is usually the first). */
static void wake_getter(ix_run_t* r, ix_wlist_t* l, uint64_t t, ix_wake_t* w) {
  for (ix_waiter_t* h = l->head; h && h->park.ticket <= t; h = h->wnext)
    if (h->park.ticket == t) {
      ix_wake(r, h, w);
      return;
    }
}

/* How long a put/get watches its transfer before parking: about what parking,
 * waking and a pool hand-over cost (and well under a futex wake, ~4-7 us here,
 * PERFORMANCE.md). Bounded in time: one `pause` costs from a few ns to ~70 ns
 * depending on the CPU. */
enum { SPIN_NS = 10000 };

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Watches, without the lock, until the get's transfer `t` is in entry `x` or the
 * put's slot is free; true when it is. Only worth it while the partner may be
 * running on another worker: never on a one-worker pool, and not while work
 * waits in the pool's queue (the partner may be that work, and this worker
 * should run it instead). */
static bool spin_for(ix_run_t* r, bool put, const ix_lane_t* q, const ix_xfer_t* x, uint64_t t,
                     uint64_t depth) {
  if (air_pool_threads(r->pool) < 2) return false;
  int64_t deadline = 0;
  for (uint32_t i = 0;; ++i) {
    if (put ? t < __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) + depth
            : __atomic_load_n(&x->state, __ATOMIC_ACQUIRE) == IX_X_FULL &&
                  __atomic_load_n(&x->seq, __ATOMIC_RELAXED) == t)
      return true;
    if ((i & 7) == 0) {
      int64_t now = air_time_now_ns();
      if (!deadline) deadline = now + SPIN_NS;
      if (now >= deadline || ix_failing(r) || air_pool_queued(r->pool)) return false;
    }
    cpu_relax();
  }
}

/* Transfers up to this size are copied under the run lock: the copy costs less
 * than a second lock round trip between the workers (a 64 B ping-pong took
 * five of them per transfer). Only once the entry's buffer exists; never
 * under a trace (its span times the copy). */
enum { SMALL_BYTES = 512 };

/* Fills entry `x` with a put's `count` elements (padded or not). */
static void put_fill(ix_xfer_t* x, const ix_pat_t* pat, bool padded, const int64_t* pb,
                     const int64_t* pa, int64_t count) {
  if (!count) return;
  if (padded) {
    ix_pat_gather_padded(x->buf, pat, pb, pa);
  } else {
    ix_pat_t lin;
    ix_pat_linear(&lin, x->buf, pat->esize, count);
    ix_pat_copy(&lin, pat);
  }
}

int ix_chan_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  bool put = op->kind == AIR_OP_PUT;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready;
  air_status_t st = resolve(r, e, op, &c, idx, &p, &rv, &ready);
  if (!st && !ready) st = ix_err(r, op, AIR_STATUS_INTERNAL, "channel index not available");
  if (!st && lanes_across(r, s->space, c))
    st = ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                "air.channel @%s between ranks is not carried across processes yet (issue 13): "
                "run this program's ranks in one process, or exchange through symmetric "
                "memrefs (dst_rank/src_rank)",
                c->name);
  air_memref_t* v;
  if (!st) st = ix_get_view(r, e, op, op->operands[op->iaux[0]], &v);
  ix_pat_t pat;
  if (!st) st = ix_pat_of(r, e, op, v, op->lists, &pat);
  /* Padding (pad_before / pad_after) widens what a put sends, as a mem tile's
   * MM2S inserts zeros; a get has nothing to pad. */
  int64_t pb[IX_MAX_PAT], pa[IX_MAX_PAT];
  bool padded = false;
  if (!st && op->n_attrs) st = ix_pads(r, op, &pat, pb, pa, &padded);
  if (!st && padded && !put)
    st = ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                "%s: pad_before / pad_after on a get is not executable; padding belongs on the "
                "put (the sending DMA inserts it)", ix_opname(op));
  if (st) return chan_fail(s, st);
  int64_t count = padded ? ix_pat_padded_count(&pat, pb, pa) : ix_pat_count(&pat);
  if (count < 0)
    return chan_fail(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: the padded size overflows",
                               ix_opname(op)));
  uint32_t esize = air_elem_size((air_elem_kind_t)v->elem);
  uint64_t depth = (uint64_t)c->depth;

  ix_wake_t w = {0};
  ix_lock(r);
  ix_lane_t* q = lane_of(r, s->space, c, p);
  if (!q) {
    ix_unlock(r);
    return chan_fail(s, AIR_STATUS_OOM(&r->alloc, "channel lane"));
  }
  if (f->tk_op != op) {
    f->ticket = take_ticket(q, put, rv);
    f->tk_op = op;
  }
  uint64_t t = f->ticket;
  ix_xfer_t* x = &q->ring[t % depth];
  int64_t t0;
  if (put) {
    if (t >= q->head + depth) {
      ix_unlock(r);
      spin_for(r, true, q, x, t, depth);
      ix_lock(r); /* whatever the spin saw, the state under the lock decides */
      if (t >= q->head + depth) return park_io(s, IX_WHY_PUT, op, c, q, idx, &q->putters, t);
    }
    __atomic_store_n(&x->seq, t, __ATOMIC_RELAXED);
    x->readers_left = c->n_recv;
    x->count = count;
    x->elem = v->elem;
    x->put = op;
    size_t bytes = (size_t)count * esize;
    if (bytes <= SMALL_BYTES && x->cap >= bytes && !r->trace) {
      /* Small: filled under the lock (one lock round trip instead of two). */
      t0 = 0;
      put_fill(x, &pat, padded, pb, pa, count);
      __atomic_store_n(&x->state, (uint8_t)IX_X_FULL, __ATOMIC_RELEASE);
      for (uint32_t i = 0; i < c->n_recv; ++i) wake_getter(r, &q->getters[i], t, &w);
      goto done;
    }
    __atomic_store_n(&x->state, (uint8_t)IX_X_FILLING, __ATOMIC_RELEASE);
    ix_unlock(r);
    t0 = r->trace ? air_time_now_ns() : 0;
    if (x->cap < bytes) {
      void* nb = ix_cache_get(r->cache, &r->alloc, bytes);
      if (!nb)
        return chan_fail(s, AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                                       "out of memory for a %zu-byte channel transfer", bytes));
      cput(r, x->buf, x->cap);
      x->buf = nb;
      x->cap = bytes;
    }
    ix_watchdog_enter(s, op, false);
    if (count && padded) {
      ix_pat_gather_padded(x->buf, &pat, pb, pa);
    } else if (count) {
      ix_pat_t lin;
      ix_pat_linear(&lin, x->buf, pat.esize, count);
      ix_split_copy(r, &lin, &pat); /* large transfers on several workers */
    }
    ix_watchdog_exit(s);
    ix_lock(r);
    __atomic_store_n(&x->state, (uint8_t)IX_X_FULL, __ATOMIC_RELEASE);
    for (uint32_t i = 0; i < c->n_recv; ++i) wake_getter(r, &q->getters[i], t, &w);
  } else {
    if (x->seq != t || x->state != IX_X_FULL) {
      ix_unlock(r);
      spin_for(r, false, q, x, t, depth);
      ix_lock(r); /* whatever the spin saw, the state under the lock decides */
      if (x->seq != t || x->state != IX_X_FULL)
        return park_io(s, IX_WHY_GET, op, c, q, idx, &q->getters[rv], t);
    }
    if (x->count != count || x->elem != v->elem) {
      const air_op_t* po = x->put;
      ix_unlock(r);
      return chan_fail(
          s, ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                    "%s @%s receives %lld %s elements but the air.channel.put at %s:%u:%u sent "
                    "%lld %s elements; a transfer must keep its element count and type",
                    ix_opname(op), c->name, (long long)count,
                    air_elem_name((air_elem_kind_t)v->elem), r->p->filename, po->line, po->col,
                    (long long)x->count, air_elem_name((air_elem_kind_t)x->elem)));
    }
    if ((size_t)count * esize <= SMALL_BYTES && !r->trace) {
      /* Small: read out under the lock (one lock round trip instead of two). */
      t0 = 0;
      if (count) {
        ix_pat_t lin;
        ix_pat_linear(&lin, x->buf, pat.esize, count);
        ix_pat_copy(&pat, &lin);
      }
    } else {
      ix_unlock(r);
      t0 = r->trace ? air_time_now_ns() : 0;
      ix_watchdog_enter(s, op, false);
      if (count) {
        ix_pat_t lin;
        ix_pat_linear(&lin, x->buf, pat.esize, count);
        ix_split_copy(r, &pat, &lin);
      }
      ix_watchdog_exit(s);
      ix_lock(r);
    }
    if (--x->readers_left == 0) __atomic_store_n(&x->state, (uint8_t)IX_X_DONE, __ATOMIC_RELEASE);
    bool freed = false;
    for (;;) {
      ix_xfer_t* h = &q->ring[q->head % depth];
      if (h->state != IX_X_DONE || h->seq != q->head) break;
      __atomic_store_n(&h->state, (uint8_t)IX_X_FREE, __ATOMIC_RELAXED);
      __atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
      freed = true;
    }
    /* Each transfer freed lets one more put in: wake the puts whose turn came. */
    for (ix_waiter_t* h; freed && (h = q->putters.head) && h->park.ticket < q->head + depth;)
      ix_wake(r, h, &w);
  }
done:
  ix_unlock(r);
  ix_wake_flush(r, &w);
  f->tk_op = NULL;
  chan_trace(s, c, idx, op, t0);
  ix_next(s);
  return IX_CONT;
}

/* One line of the unread report: the same imbalance in several launch instances
 * is one line with a count. */
typedef struct unread_t {
  const ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t puts, gets;
  uint32_t spaces;
} unread_t;

enum { IX_UNREAD_MAX = 10 };

air_status_t ix_chan_unread(ix_run_t* r) {
  unread_t found[IX_UNREAD_MAX];
  uint32_t n = 0;
  uint64_t more = 0;
  for (ix_space_t* sp = r->spaces; sp; sp = sp->next)
    for (uint32_t ci = 0; sp->lanes && ci < r->tab.n_chans; ++ci) { /* rank spaces borrow */
      const ix_chan_t* c = &r->tab.chans[ci];
      for (uint64_t p = 0; sp->lanes[ci] && p < c->n_put; ++p) {
        const ix_lane_t* q = sp->lanes[ci][p];
        for (uint32_t rv = 0; q && rv < c->n_recv; ++rv) {
          if (q->put_issued <= q->get_issued[rv]) continue;
          /* The get index of receiver rv at put index p (broadcast dimensions
           * come from rv, the others from p), as the ops spell it. */
          int64_t idx[AIR_MAX_RANK] = {0};
          uint64_t pp = p, rr = rv;
          for (uint32_t k = c->rank; k-- > 0;) {
            bool b = c->bdims[k] != c->dims[k];
            uint64_t d = (uint64_t)(b ? c->bdims[k] : c->dims[k]);
            uint64_t* from = b ? &rr : &pp;
            idx[k] = (int64_t)(*from % d);
            *from /= d;
          }
          uint32_t i = 0;
          while (i < n && !(found[i].c == c && found[i].puts == q->put_issued &&
                            found[i].gets == q->get_issued[rv] &&
                            !memcmp(found[i].idx, idx, sizeof idx)))
            ++i;
          if (i < n) {
            found[i].spaces++;
          } else if (n < IX_UNREAD_MAX) {
            found[n] = (unread_t){.c = c, .puts = q->put_issued, .gets = q->get_issued[rv],
                                  .spaces = 1};
            memcpy(found[n].idx, idx, sizeof idx);
            ++n;
          } else {
            ++more;
          }
        }
      }
    }
  if (!n) return NULL;
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  for (uint32_t i = 0; i < n; ++i) {
    const unread_t* u = &found[i];
    const air_op_t* d = u->c->decl;
    uint64_t left = u->puts - u->gets;
    air_sb_printf(&sb, "%s%s:%u:%u: error: air.channel @%s", i ? "\n" : "", r->p->filename,
                  d ? d->line : 0, d ? d->col : 0, u->c->name);
    fmt_index(&sb, u->idx, u->c->rank);
    air_sb_printf(&sb, ": %llu put%s but %llu get%s: the run ended with %llu transfer%s never "
                  "read (puts and gets on a channel must balance)",
                  (unsigned long long)u->puts, u->puts == 1 ? "" : "s",
                  (unsigned long long)u->gets, u->gets == 1 ? "" : "s",
                  (unsigned long long)left, left == 1 ? "" : "s");
    if (u->spaces > 1) air_sb_printf(&sb, ", in each of %u launch instances", u->spaces);
  }
  if (more)
    air_sb_printf(&sb, "\n%s: error: ... and %llu more channel indices with unread transfers",
                  r->p->filename, (unsigned long long)more);
  air_status_t st = sb.oom ? AIR_STATUS_OOM(&r->alloc, "the unread-channel report")
                           : air_status_make(&r->alloc, AIR_STATUS_FAILED_PRECONDITION,
                                             __FILE__, __LINE__, sb.data);
  air_sb_free(&sb);
  return st;
}

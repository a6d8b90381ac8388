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
#include "hal/cpu/interp/chan_remote.h"
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
  uint32_t line, col;      /* the put that sent it, for messages */
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
  uint32_t n_ranks;             /* of that air.rank (a lane's home process follows) */
} ix_space_t;

/* A put or get of a rank in another process, run here on the lane it names:
 * a strand of its own (so it waits in the lane's lists like any op and shows in
 * the deadlock report) whose task is proxy_task, not the interpreter. Its record
 * is the strand's one frame's shared state. */
typedef struct ix_proxy_t {
  ix_shared_t sh; /* first */
  ix_chan_t* c;
  ix_lane_t* q;
  uint64_t ticket, p, rv, id;
  uint32_t from, line, col, elem;
  bool put;
  int64_t count, rank;
  void* bytes; /* a put's transfer */
  size_t n;
} ix_proxy_t;

static ix_proxy_t* proxy_of(const ix_strand_t* s) {
  return s->n ? (ix_proxy_t*)s->frames[0].state : NULL;
}

/* The index a put index and receiver stand for, as the ops spell it. */
static void lane_index(const ix_chan_t* c, uint64_t p, uint64_t rv, int64_t* idx) {
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

enum { HERE = UINT32_MAX };

/* The process holding lane p of `c` for a strand in `sp`, or HERE. While the
 * ranks are spread over processes (r->transport) the lanes every rank shares
 * live one per process: lane p (a put index) at the process running rank
 * p mod n, so a rank's gets at its own index stay local and its puts to a peer
 * go to the peer (chan_remote.c; the home serves them with proxies below). */
static uint32_t lane_home(const ix_run_t* r, const ix_space_t* sp, const ix_chan_t* c,
                          uint64_t p) {
  if (!r->transport || r->transport->processes < 2 || !sp) return HERE;
  if (!sp->shared && !(c->symheap && sp->rank_lanes)) return HERE;
  uint32_t n = sp->n_ranks ? sp->n_ranks : 1;
  uint32_t home = ix_process_of(n, r->transport->processes, (uint32_t)(p % n));
  return home == r->transport->process ? HERE : home;
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
  const ix_proxy_t* px = k->op ? NULL : proxy_of(s);
  if (px)
    air_sb_printf(sb, "%s:%u:%u: air.channel.%s @%s", r->p->filename, px->line, px->col,
                  k->why == IX_WHY_PUT ? "put" : "get", c->name);
  else
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
  if (px)
    air_sb_printf(sb, " (rank %lld in process %u, served here)", (long long)px->rank, px->from);
  else if (s->space && s->space->rank)
    air_sb_printf(sb, " (rank %lld)", (long long)s->space->rank_id);
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

/* Under lock: whether put/get `op` holding ticket `t` on lane `q` would
 * complete now (its slot is free / its transfer is in the ring). */
static bool would_complete(const ix_lane_t* q, bool put, uint64_t t, uint64_t depth) {
  if (put) return t < q->head + depth;
  const ix_xfer_t* x = &q->ring[t % depth];
  return x->seq == t && x->state == IX_X_FULL;
}

bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, uint64_t* ticket, bool* now) {
  ix_run_t* r = s->run;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready;
  if (now) *now = false;
  air_status_t st = resolve(r, e, op, &c, idx, &p, &rv, &ready);
  if (st || !ready) {
    air_status_free(st); /* reported again when the op runs */
    return false;
  }
  /* A remote op reserves its ticket at the lane's home; it never completes at
   * once (now stays false). */
  uint32_t home = lane_home(r, s->space, c, p);
  if (home != HERE) {
    ix_rio_t io = {.c = c, .chan = (uint32_t)(c - r->tab.chans), .home = home, .p = p, .rv = rv,
                   .rank = s->space->rank_id, .idx = idx};
    return ix_chan_remote_issue(s, op, &io, ticket);
  }
  bool put = op->kind == AIR_OP_PUT;
  ix_lock(r);
  ix_lane_t* q = lane_of(r, s->space, c, p);
  if (q) {
    *ticket = take_ticket(q, put, rv);
    if (now) *now = would_complete(q, put, *ticket, (uint64_t)c->depth);
  }
  ix_unlock(r);
  return q != NULL;
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

/* Under lock: transfer t is in entry x; its getters may read it. */
static void put_done(ix_run_t* r, const ix_chan_t* c, ix_lane_t* q, ix_xfer_t* x, uint64_t t,
                     ix_wake_t* w) {
  __atomic_store_n(&x->state, (uint8_t)IX_X_FULL, __ATOMIC_RELEASE);
  for (uint32_t i = 0; i < c->n_recv; ++i) wake_getter(r, &q->getters[i], t, w);
}

/* Under lock: one receiver has read entry x; frees what every receiver read. */
static void get_done(ix_run_t* r, const ix_chan_t* c, ix_lane_t* q, ix_xfer_t* x, ix_wake_t* w) {
  uint64_t depth = (uint64_t)c->depth;
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
    ix_wake(r, h, w);
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
  uint32_t home = lane_home(r, s->space, c, p);
  if (home != HERE) {
    ix_rio_t io = {.c = c, .chan = (uint32_t)(c - r->tab.chans), .home = home, .p = p, .rv = rv,
                   .rank = s->space->rank_id, .idx = idx, .pat = &pat, .pb = pb, .pa = pa,
                   .padded = padded, .count = count, .elem = v->elem, .esize = esize};
    return ix_chan_remote_io(s, f, op, &io);
  }

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
    x->line = op->line;
    x->col = op->col;
    size_t bytes = (size_t)count * esize;
    if (bytes <= SMALL_BYTES && x->cap >= bytes && !r->trace) {
      /* Small: filled under the lock (one lock round trip instead of two). */
      t0 = 0;
      put_fill(x, &pat, padded, pb, pa, count);
      put_done(r, c, q, x, t, &w);
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
    put_done(r, c, q, x, t, &w);
  } else {
    if (x->seq != t || x->state != IX_X_FULL) {
      ix_unlock(r);
      spin_for(r, false, q, x, t, depth);
      ix_lock(r); /* whatever the spin saw, the state under the lock decides */
      if (x->seq != t || x->state != IX_X_FULL)
        return park_io(s, IX_WHY_GET, op, c, q, idx, &q->getters[rv], t);
    }
    if (x->count != count || x->elem != v->elem) {
      ix_unlock(r);
      return chan_fail(
          s, ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                    "%s @%s receives %lld %s elements but the air.channel.put at %s:%u:%u sent "
                    "%lld %s elements; a transfer must keep its element count and type",
                    ix_opname(op), c->name, (long long)count,
                    air_elem_name((air_elem_kind_t)v->elem), r->p->filename, x->line, x->col,
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
    get_done(r, c, q, x, &w);
  }
done:
  ix_unlock(r);
  ix_wake_flush(r, &w);
  f->tk_op = NULL;
  chan_trace(s, c, idx, op, t0);
  ix_next(s);
  return IX_CONT;
}

/*---------------------------------------------------------------------------*/
/* The home side: proxies for peers' puts and gets                          */
/*---------------------------------------------------------------------------*/

static void proxy_free(ix_run_t* r, ix_shared_t* sh) {
  ix_proxy_t* x = (ix_proxy_t*)sh;
  air_mem_free(&r->alloc, x->bytes);
  air_mem_free(&r->alloc, x);
}

/* One step of a proxy; IX_PARKED, or done (IX_CONT) or failed. */
static int proxy_step(ix_strand_t* s, ix_proxy_t* P) {
  ix_run_t* r = s->run;
  ix_chan_t* c = P->c;
  ix_lane_t* q = P->q;
  uint64_t t = P->ticket, depth = (uint64_t)c->depth;
  ix_xfer_t* x = &q->ring[t % depth];
  int64_t idx[AIR_MAX_RANK] = {0};
  lane_index(c, P->p, P->rv, idx);
  ix_wake_t w = {0};
  ix_lock(r);
  if (P->put ? t >= q->head + depth : x->seq != t || x->state != IX_X_FULL)
    return park_io(s, P->put ? IX_WHY_PUT : IX_WHY_GET, NULL, c, q, idx,
                   P->put ? &q->putters : &q->getters[P->rv], t);
  /* A get's reply says what the put sent (the origin checks it fits). */
  ix_wmsg_t m = {.type = P->put ? IX_W_ACK : IX_W_DATA, .chan = (uint32_t)(c - r->tab.chans),
                 .id = P->id, .count = x->count, .elem = x->elem, .line = x->line,
                 .col = x->col};
  if (P->put) {
    __atomic_store_n(&x->seq, t, __ATOMIC_RELAXED);
    __atomic_store_n(&x->state, (uint8_t)IX_X_FILLING, __ATOMIC_RELEASE);
    x->readers_left = c->n_recv;
    x->count = P->count;
    x->elem = P->elem;
    x->line = P->line;
    x->col = P->col;
    ix_unlock(r);
    if (x->cap < P->n) {
      void* nb = ix_cache_get(r->cache, &r->alloc, P->n);
      if (!nb) return ix_oom(s);
      cput(r, x->buf, x->cap);
      x->buf = nb;
      x->cap = P->n;
    }
    if (P->n) memcpy(x->buf, P->bytes, P->n);
    ix_lock(r);
    put_done(r, c, q, x, t, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    if (!ix_wire_send(r, P->from, &m, NULL, 0)) return ix_oom(s);
    return IX_CONT;
  }
  ix_unlock(r);
  /* The entry stays FULL until this reader is done: sent straight from it. */
  size_t bytes = (size_t)x->count * air_elem_size((air_elem_kind_t)x->elem);
  bool ok = ix_wire_send(r, P->from, &m, x->buf, bytes);
  ix_lock(r);
  get_done(r, c, q, x, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return ok ? IX_CONT : ix_oom(s);
}

static void proxy_task(air_task_t* task, uint32_t worker) {
  ix_strand_t* s = (ix_strand_t*)task;
  s->worker = worker;
  ix_proxy_t* P = proxy_of(s);
  air_pool_t* pool = s->run->pool;
  if (P && !ix_failing(s->run) && proxy_step(s, P) == IX_PARKED) return;
  /* What the exit woke (counted active, so the run lives on) goes to the pool. */
  ix_strand_t* next = ix_strand_exit(s);
  if (next) air_pool_submit(pool, &next->w.task);
}

void ix_chan_on_message(ix_run_t* r, uint32_t from, const ix_wmsg_t* m, const void* payload,
                        size_t n) {
  if (m->type == IX_W_ACK || m->type == IX_W_DATA) {
    ix_chan_remote_reply(r, from, m, payload, n);
    return;
  }
  ix_wake_t w = {0};
  ix_lock(r);
  if (r->live == 0) { /* the run is ending */
    ix_unlock(r);
    return;
  }
  ix_wire_recvd_locked(r);
  ix_space_t* sp = ix_wire_lanes(r);
  ix_chan_t* c = m->chan < r->tab.n_chans ? &r->tab.chans[m->chan] : NULL;
  air_status_t st = NULL;
  bool put = (m->flags & IX_WF_PUT) != 0;
  if (!sp || !c || m->p >= c->n_put || m->rv >= c->n_recv ||
      (m->type == IX_W_PUT && n != (size_t)m->count * air_elem_size((air_elem_kind_t)m->elem)))
    st = AIR_STATUS(&r->alloc, AIR_STATUS_INTERNAL,
                    "process %u sent a channel message this process cannot place (channel #%u, "
                    "lane %llu, %s)",
                    from, m->chan, (unsigned long long)m->p,
                    sp ? "not a channel of the air.rank" : "no air.rank running here");
  ix_lane_t* q = st ? NULL : lane_of(r, sp, c, m->p);
  if (!st && !q) st = AIR_STATUS_OOM(&r->alloc, "channel lane");
  uint64_t t = 0;
  if (!st && m->type == IX_W_RESERVE) {
    if (!ix_wire_ticket_put_locked(r, from, m->id, take_ticket(q, put, m->rv)))
      st = AIR_STATUS_OOM(&r->alloc, "a reserved channel ticket");
  } else if (!st) {
    if (!(m->flags & IX_WF_RESERVED) || !ix_wire_ticket_take_locked(r, from, m->id, &t))
      t = take_ticket(q, put, m->rv);
    ix_proxy_t* P = air_mem_calloc(&r->alloc, 1, sizeof *P);
    ix_strand_t* ps = P ? ix_strand_new(r, NULL, NULL, NULL, sp) : NULL;
    if (P) {
      atomic_init(&P->sh.refs, 1);
      P->sh.free = proxy_free;
      *P = (ix_proxy_t){.sh = P->sh, .c = c, .q = q, .ticket = t, .p = m->p, .rv = m->rv, .id = m->id,
                        .from = from, .line = m->line, .col = m->col, .elem = m->elem,
                        .put = m->type == IX_W_PUT, .count = m->count, .rank = m->rank, .n = n};
    }
    if (P && n && m->type == IX_W_PUT && (P->bytes = air_mem_alloc(&r->alloc, n)))
      memcpy(P->bytes, payload, n);
    ix_frame_t pf = {.kind = IX_F_OP, .state = P ? &P->sh : NULL};
    if (!ps || (n && m->type == IX_W_PUT && !P->bytes) || !ix_push(ps, &pf)) {
      if (ps) ix_strand_free(ps);
      if (P) proxy_free(r, &P->sh);
      st = AIR_STATUS_OOM(&r->alloc, "a proxy for another process's channel op");
    } else {
      ps->w.task.fn = proxy_task;
      ix_spawn_locked(r, ps, &w);
    }
  }
  if (st) ix_fail_locked(r, st, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
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
          lane_index(c, p, rv, idx);
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

/* channel.c - the channel op family: air.channel put/get with depth, bundles and
 * broadcast, in channel spaces (one per launch instance).
 *
 * One lane per put index holds up to `depth` transfers in a ring. A put copies
 * its source into a ring entry's buffer at put time and completes at once when an
 * entry is free (so a
 * producer runs exactly `depth` transfers ahead of a slow consumer and may reuse
 * its source right after); otherwise it parks. A get copies its transfer into its
 * destination, or parks until it has been put. When the get of the lane's next
 * transfer waits first (spinning or parked), it offers its destination and the
 * put copies straight into it instead: one copy, not two (issue 14). With broadcast_shape a put index
 * reaches several get indices (those that agree with it on every dimension the
 * channel does not broadcast); each receiver reads every transfer once and an
 * entry frees when all of them have.
 *
 * Which transfer an op moves is fixed when it is issued, as a DMA engine takes
 * buffer descriptors in order: an async put/get takes a ticket when dispatched,
 * a blocking one when it runs, so two gets a strand issues at one index read the
 * transfers in program order even when the later one becomes ready first.
 *
 * Entries are reserved under the lane's lock (chan_lane.h: a lock per lane, not
 * the run lock; parking and waking still go through the run lock) and filled/
 * drained outside it, or under it when small: an entry being filled is
 * invisible to getters, and an entry being read is not freed until its reader
 * is done.
 *
 * Spin, then park: a put or get that finds nothing to do first lets go of the
 * lock and watches its transfer's state for a few microseconds (when the pool
 * has another worker that may be running its partner), so a rendezvous between
 * two running strands never goes through park, wake and the pool, let alone the
 * kernel; only then does it park. The words it watches (an entry's `seq` and
 * `state`, a lane's `head`) are written with atomic stores under the lane lock
 * and read with atomic loads outside it. */
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

static void fmt_index(air_sb_t* sb, const int64_t* idx, uint32_t n) {
  air_sb_putc(sb, '[');
  for (uint32_t k = 0; k < n; ++k) air_sb_printf(sb, "%s%lld", k ? ", " : "", (long long)idx[k]);
  air_sb_putc(sb, ']');
}

void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->w.park;
  const ix_chan_t* c = k->ch;
  uint32_t pl = 0, pc = 0, from = 0;
  int64_t prank = 0;
  bool px = !k->op && ix_chan_proxy_site(s, &pl, &pc, &prank, &from);
  if (px)
    air_sb_printf(sb, "%s:%u:%u: air.channel.%s @%s", r->p->filename, pl, pc,
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
    ix_lane_t* q = (ix_lane_t*)k->lane;
    bool pending = false;
    for (uint32_t i = 0; q && i < c->n_recv; ++i) pending = pending || q->getters[i].head;
    if (c->n_recv == 1 || !q) {
      air_sb_puts(sb, pending ? "a get is pending" : "no get pending");
    } else {
      ix_lane_lock(q); /* under the run lock: the lock order */
      const ix_xfer_t* h = &q->ring[q->head % (uint64_t)c->depth];
      uint32_t left = h->seq == q->head ? h->readers_left : c->n_recv;
      ix_lane_unlock(q);
      air_sb_printf(sb, "the oldest transfer is unread by %u of its %u receivers", left,
                    c->n_recv);
    }
  }
  if (s->pe) air_sb_printf(sb, " (%s)", s->pe->track);
  if (px)
    air_sb_printf(sb, " (rank %lld in process %u, served here)", (long long)prank, from);
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
static air_status_t resolve(ix_run_t* r, ix_env_t* e, const air_op_t* op,
                            const ix_oprec_t* rec, ix_chan_t** out, int64_t* idx, uint64_t* pp,
                            uint64_t* prv, bool* ready) {
  bool put = op->kind == AIR_OP_PUT;
  const char* on = ix_opname(op);
  if (op->flags & AIR_OPF_HAS_DEST)
    return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                  "%s with dest(...) is not supported: neither the spec nor AIR-TEXT gives it "
                  "a meaning",
                  on);
  /* The record resolved the channel once (oprec.c, ix_find_chan); NULL there is
   * an undeclared channel, not a reason to look the record and name up again. */
  ix_chan_t* c = rec ? rec->chan : ix_chan_of(&r->tab, op);
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

bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, ix_frame_t* f, bool* now) {
  ix_run_t* r = s->run;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready;
  if (now) *now = false;
  air_status_t st = resolve(r, e, op, ix_oprec(&r->tab, op), &c, idx, &p, &rv, &ready);
  if (st || !ready) {
    air_status_free(st); /* reported again when the op runs */
    return false;
  }
  /* A remote op reserves its ticket at the lane's home; it never completes at
   * once (now stays false). */
  uint32_t home = ix_lane_home(r, s->space, c, p);
  if (home != IX_HERE) {
    ix_rio_t io = {.c = c, .chan = (uint32_t)(c - r->tab.chans), .home = home, .p = p, .rv = rv,
                   .rank = s->space->rank_id, .idx = idx};
    return ix_chan_remote_issue(s, op, &io, &f->ticket);
  }
  bool put = op->kind == AIR_OP_PUT;
  ix_lane_t* q = ix_lane_get(r, s->space, c, p);
  if (!q) return false;
  ix_lane_lock(q);
  f->ticket = ix_lane_ticket(q, put, rv);
  if (now) *now = !ix_lane_blocked(q, put, f->ticket, (uint64_t)c->depth);
  ix_lane_unlock(q);
  f->tk_lp = (uint32_t)p + 1; /* p < n_put <= 2^24, rv < n_recv <= 2^20 (tables.c) */
  f->tk_rv = (uint32_t)rv;
  return true;
}

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

/* The op's access pattern. The commonest side, a dense 1-d run (`[] [] []` or
 * `[o] [n] [1]` on a 1-d view), is recognised from the lists (ix_flat_side_1d
 * makes every check ix_pat_make would) and written as its 1-d pattern
 * directly, without the general builder: it is on every op's critical path. */
static air_status_t chan_pat(ix_run_t* r, ix_env_t* e, const air_op_t* op,
                             const ix_oprec_t* rec, const air_memref_t* v, ix_pat_t* pat) {
  int64_t vals[3][IX_MAX_PAT];
  ix_lists_t l;
  /* The record's lists have their constants folded (oprec.c). */
  air_status_t st = ix_lists_eval(r, e, op, rec && rec->lists ? rec->lists : op->lists, vals, &l);
  if (st) return st;
  ix_flat_t fl = ix_flat_side_1d(v, &l);
  /* Any other side that is one contiguous run (a dense view moved whole, a
   * block of whole rows) is its 1-d pattern too: the same elements in the same
   * order, and a put moves it into a waiting get with one memmove. Not with
   * padding, whose lists line up with the pattern's own dimensions. */
  if (fl.kind == IX_FLAT_ASK && rec && !rec->pads && rec->may_flat)
    fl = l.n ? ix_flat_side(v, &l) : ix_flat_whole(v);
  if (fl.kind != IX_FLAT_YES) return ix_pat_from(r, op, v, &l, pat);
  pat->base = v->data;
  pat->start = fl.start;
  pat->esize = air_elem_size((air_elem_kind_t)v->elem);
  pat->n = 1;
  pat->size[0] = fl.count;
  pat->stride[0] = 1;
  return NULL;
}

/* Under the lane lock: opens the get's offer of its destination `pat` (`count`
 * elements of `elem`): the address when it is one contiguous run, else the
 * pattern, kept at `keep` (the get's own while it spins, the lane's when it
 * parks: its stack is gone then). */
static void offer_make(ix_lane_t* q, const ix_pat_t* pat, int64_t count, uint8_t elem,
                       ix_pat_t* keep) {
  q->offer_flat = pat->n == 1 && pat->stride[0] == 1;
  if (q->offer_flat) {
    q->offer_to = pat->base + pat->start * (int64_t)pat->esize;
  } else {
    if (keep != pat) *keep = *pat;
    q->offer_to = keep;
  }
  q->offer_count = (uint32_t)count;
  q->offer_elem = elem;
  q->offer_open = true;
}

/* A put or get whose transfer went straight from the put to the get (no trace
 * runs then, so there is nothing to record). */
static int chan_done(ix_strand_t* s, ix_frame_t* f, const ix_chan_t* c, const int64_t* idx,
                     const air_op_t* op) {
  f->tk_op = NULL;
  f->tk_lp = 0;
  chan_trace(s, c, idx, op, 0);
  ix_next(s);
  return IX_CONT;
}

int ix_chan_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  return ix_chan_run(s, f, op, ix_oprec(&s->run->tab, op));
}

int ix_chan_run(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_oprec_t* rec) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  bool put = op->kind == AIR_OP_PUT;
  ix_chan_t* c;
  int64_t idx[AIR_MAX_RANK];
  uint64_t p, rv;
  bool ready = true, have_idx = true;
  air_status_t st = NULL;
  if (f->tk_op == op && f->tk_lp && rec && rec->chan) {
    /* Resolved when the ticket was taken (ix_chan_issue), in this env: the
     * same channel, lane and receiver; the index again from those. */
    c = rec->chan;
    p = f->tk_lp - 1;
    rv = f->tk_rv;
    have_idx = r->trace != NULL; /* else only a park needs it (its report) */
    if (have_idx) ix_lane_index(c, p, rv, idx);
  } else {
    st = resolve(r, e, op, rec, &c, idx, &p, &rv, &ready);
  }
  if (!st && !ready) st = ix_err(r, op, AIR_STATUS_INTERNAL, "channel index not available");
  air_memref_t* v;
  if (!st) st = ix_get_view(r, e, op, op->operands[op->iaux[0]], &v);
  ix_pat_t pat;
  if (!st) st = chan_pat(r, e, op, rec, v, &pat);
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
  uint32_t home = ix_lane_home(r, s->space, c, p);
  if (home != IX_HERE) {
    ix_rio_t io = {.c = c, .chan = (uint32_t)(c - r->tab.chans), .home = home, .p = p, .rv = rv,
                   .rank = s->space->rank_id, .idx = idx, .pat = &pat, .pb = pb, .pa = pa,
                   .padded = padded, .count = count, .elem = v->elem, .esize = esize};
    return ix_chan_remote_io(s, f, op, &io);
  }

  ix_lane_t* q = ix_lane_get(r, s->space, c, p);
  if (!q) return chan_fail(s, AIR_STATUS_OOM(&r->alloc, "channel lane"));
  size_t bytes = (size_t)count * esize;
  /* Straight into a waiting get (one receiver, no padding, no trace): the put
   * copies into the get's destination, under the lane lock when small. */
  bool direct = c->n_recv == 1 && !padded && !r->trace && count <= (int64_t)UINT32_MAX;
  ix_lane_lock(q);
  if (f->tk_op != op) {
    f->ticket = ix_lane_ticket(q, put, rv);
    f->tk_op = op;
    f->tk_lp = (uint32_t)p + 1; /* a run after a park need not resolve again */
    f->tk_rv = (uint32_t)rv;
  }
  uint64_t t = f->ticket;
  ix_xfer_t* x = &q->ring[t % depth];
  if (ix_lane_blocked(q, put, t, depth)) {
    /* This get's offer, made before it parked, still open or being served. */
    bool mine = !put && t == q->head && (q->offer_open || q->offer_busy);
    /* A get whose transfer is the lane's next one offers its destination while
     * it spins (on the lane's `taken`): the put then copies once, into it,
     * instead of into the ring and out again, and the two move the lane's
     * line 0, its `taken` and the data. */
    bool offer = !mine && direct && !put && t == q->head && ix_lane_may_spin(r);
    if (offer) offer_make(q, &pat, count, (uint8_t)v->elem, &pat);
    if (!mine) {
      ix_lane_unlock(q);
      if (ix_lane_spin(r, put, q, x, t, depth, offer) && offer &&
          atomic_load_explicit(&q->taken, memory_order_acquire) > t)
        return chan_done(s, f, c, idx, op);
      ix_lane_lock(q); /* whatever the spin saw, the state under the lane lock decides */
    }
    if (offer) {
      if (q->offer_busy) {
        /* A put is copying into `pat` outside the lock: `pat` must live until
         * it is done (a copy, so the wait is bounded). */
        ix_lane_unlock(q);
        ix_lane_wait_taken(q, t);
        return chan_done(s, f, c, idx, op);
      }
      q->offer_open = false; /* withdrawn: `pat` dies with this call */
    }
    while (ix_lane_blocked(q, put, t, depth)) {
      /* A get that parks as the lane's next keeps (or makes) its offer, with
       * its pattern in the lane: the put copies straight into the destination
       * and wakes it (issue 14: in the 4x4 sample nearly every get parks). */
      if (direct && !put && t == q->head && !q->offer_open && !q->offer_busy)
        offer_make(q, &pat, count, (uint8_t)v->elem, q->offer_pat);
      if (!have_idx) {
        ix_lane_index(c, p, rv, idx);
        have_idx = true;
      }
      int rc = ix_lane_park(s, put ? IX_WHY_PUT : IX_WHY_GET, op, c, q, idx, rv, t);
      if (rc != IX_CONT) return rc;
      ix_lane_lock(q);
    }
  }
  if (!put && q->head > t) { /* went straight into this get */
    ix_lane_unlock(q);
    return chan_done(s, f, c, idx, op);
  }
  if (!put && t == q->head && q->offer_open) q->offer_open = false; /* the ring has it */
  int64_t t0;
  bool wake;
  if (put && direct && q->offer_open && t == q->head && q->offer_count == count &&
      q->offer_elem == v->elem) {
    /* The get of transfer t waits with its destination (an open offer's
     * ticket is the head): transfer t skips the ring. */
    ix_pat_t lin;
    const ix_pat_t* to = q->offer_to;
    if (q->offer_flat) {
      ix_pat_linear(&lin, q->offer_to, pat.esize, count);
      to = &lin;
    }
    q->offer_open = false;
    if (bytes > IX_LANE_LOCKED) {
      /* Large: copied outside the lock, which the lane's other ops need
       * meanwhile; the get waits for `taken` (offer_busy tells it not to
       * withdraw) and the head stays at t, so no later transfer overtakes. */
      q->offer_busy = true;
      ix_lane_unlock(q);
      ix_watchdog_enter(s, op, false);
      ix_split_copy(r, to, &pat); /* large transfers on several workers */
      ix_watchdog_exit(s);
      ix_lane_lock(q);
      q->offer_busy = false;
    } else if (count && q->offer_flat && pat.n == 1 && pat.stride[0] == 1) {
      memmove(q->offer_to, pat.base + pat.start * (int64_t)pat.esize, bytes);
    } else if (count) {
      ix_pat_copy(to, &pat);
    }
    wake = ix_lane_skip_head(c, q);
    atomic_store_explicit(&q->taken, t + 1, memory_order_release);
    bool woke = atomic_load_explicit(&q->parked_gets, memory_order_relaxed) != 0;
    ix_lane_unlock(q);
    if (wake) ix_lane_wake(r, c, q, false, t);
    if (woke) ix_lane_wake(r, c, q, true, t); /* the get, if it parked */
    return chan_done(s, f, c, idx, op);
  }
  if (put) {
    __atomic_store_n(&x->seq, t, __ATOMIC_RELAXED);
    x->readers_left = c->n_recv;
    x->count = count;
    x->elem = v->elem;
    x->line = op->line;
    x->col = op->col;
    if (bytes <= IX_LANE_LOCKED && x->cap >= bytes && !r->trace) {
      /* Small: filled under the lane lock (one lock round trip instead of two). */
      t0 = 0;
      put_fill(x, &pat, padded, pb, pa, count);
      wake = ix_lane_put_done(q, x);
    } else {
      __atomic_store_n(&x->state, (uint8_t)IX_X_FILLING, __ATOMIC_RELEASE);
      ix_lane_unlock(q);
      t0 = r->trace ? air_time_now_ns() : 0;
      if (!ix_xfer_room(r, x, bytes))
        return chan_fail(s, AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                                       "out of memory for a %zu-byte channel transfer", bytes));
      ix_watchdog_enter(s, op, false);
      if (count && padded) {
        ix_pat_gather_padded(x->buf, &pat, pb, pa);
      } else if (count) {
        ix_pat_t lin;
        ix_pat_linear(&lin, x->buf, pat.esize, count);
        ix_split_copy(r, &lin, &pat); /* large transfers on several workers */
      }
      ix_watchdog_exit(s);
      ix_lane_lock(q);
      wake = ix_lane_put_done(q, x);
    }
  } else {
    if (x->count != count || x->elem != v->elem) {
      ix_lane_unlock(q);
      return chan_fail(
          s, ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                    "%s @%s receives %lld %s elements but the air.channel.put at %s:%u:%u sent "
                    "%lld %s elements; a transfer must keep its element count and type",
                    ix_opname(op), c->name, (long long)count,
                    air_elem_name((air_elem_kind_t)v->elem), r->p->filename, x->line, x->col,
                    (long long)x->count, air_elem_name((air_elem_kind_t)x->elem)));
    }
    if (bytes <= IX_LANE_LOCKED && !r->trace) {
      /* Small: read out under the lane lock (one lock round trip instead of two). */
      t0 = 0;
      if (count) {
        ix_pat_t lin;
        ix_pat_linear(&lin, x->buf, pat.esize, count);
        ix_pat_copy(&pat, &lin);
      }
    } else {
      ix_lane_unlock(q);
      t0 = r->trace ? air_time_now_ns() : 0;
      ix_watchdog_enter(s, op, false);
      if (count) {
        ix_pat_t lin;
        ix_pat_linear(&lin, x->buf, pat.esize, count);
        ix_split_copy(r, &pat, &lin);
      }
      ix_watchdog_exit(s);
      ix_lane_lock(q);
    }
    wake = ix_lane_get_done(c, q, x);
  }
  ix_lane_unlock(q);
  if (wake) ix_lane_wake(r, c, q, put, t);
  f->tk_op = NULL;
  f->tk_lp = 0;
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
          ix_lane_index(c, p, rv, idx);
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

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
 * until its reader is done. */
#include "hal/cpu/interp/channel.h"

#include <stdio.h>
#include <string.h>

#include "hal/cpu/interp/lists.h"
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

static ix_space_t* space_make(ix_run_t* r, bool own_lanes) {
  ix_space_t* sp = air_mem_calloc(&r->alloc, 1, sizeof *sp);
  if (!sp) return NULL;
  if (own_lanes &&
      !(sp->lanes = air_mem_calloc(&r->alloc, r->tab.n_chans ? r->tab.n_chans : 1,
                                   sizeof(ix_lane_t**)))) {
    air_mem_free(&r->alloc, sp);
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
        for (int64_t k = 0; k < c->depth; ++k) air_mem_free(&r->alloc, q->ring[k].buf);
        air_mem_free(&r->alloc, q->ring);
        air_mem_free(&r->alloc, q->get_issued);
        air_mem_free(&r->alloc, q->getters);
        air_mem_free(&r->alloc, q);
      }
      air_mem_free(&r->alloc, sp->lanes[i]);
    }
    air_mem_free(&r->alloc, sp->lanes);
    air_mem_free(&r->alloc, sp);
  }
}

/* Under lock. */
static ix_lane_t* lane_of(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p) {
  if (c->symheap && sp->rank_lanes) sp = sp->rank_lanes;
  if (sp->shared) sp = sp->shared;
  uint32_t ci = (uint32_t)(c - r->tab.chans);
  if (!sp->lanes[ci] && !(sp->lanes[ci] = air_mem_calloc(&r->alloc, c->n_put, sizeof(ix_lane_t*)))) return NULL;
  if (sp->lanes[ci][p]) return sp->lanes[ci][p];
  ix_lane_t* q = air_mem_calloc(&r->alloc, 1, sizeof *q);
  if (!q) return NULL;
  q->ring = air_mem_calloc(&r->alloc, (size_t)c->depth, sizeof(ix_xfer_t));
  q->get_issued = air_mem_calloc(&r->alloc, c->n_recv, sizeof(uint64_t));
  q->getters = air_mem_calloc(&r->alloc, c->n_recv, sizeof(ix_wlist_t));
  if (!q->ring || !q->get_issued || !q->getters) {
    air_mem_free(&r->alloc, q->ring);
    air_mem_free(&r->alloc, q->get_issued);
    air_mem_free(&r->alloc, q->getters);
    air_mem_free(&r->alloc, q);
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
  if (st || !ready) {
    air_status_free(st); /* reported again when the op runs */
    return false;
  }
  ix_lock(r);
  ix_lane_t* q = lane_of(r, s->space, c, p);
  if (q) *ticket = take_ticket(q, op->kind == AIR_OP_PUT, rv);
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
  if (st) return chan_fail(s, st);
  int64_t count = ix_pat_count(&pat);
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
    if (t >= q->head + depth) return park_io(s, IX_WHY_PUT, op, c, q, idx, &q->putters, t);
    x->seq = t;
    x->state = IX_X_FILLING;
    x->readers_left = c->n_recv;
    x->count = count;
    x->elem = v->elem;
    x->put = op;
    ix_unlock(r);
    t0 = air_time_now_ns();
    size_t bytes = (size_t)count * esize;
    if (x->cap < bytes) {
      void* nb = r->alloc.realloc(r->alloc.self, x->buf, bytes);
      if (!nb)
        return chan_fail(s, AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                                       "out of memory for a %zu-byte channel transfer", bytes));
      x->buf = nb;
      x->cap = bytes;
    }
    ix_watchdog_enter(s, op, false);
    if (count) ix_pat_gather(x->buf, &pat);
    ix_watchdog_exit(s);
    ix_lock(r);
    x->state = IX_X_FULL;
    for (uint32_t i = 0; i < c->n_recv; ++i) wake_getter(r, &q->getters[i], t, &w);
  } else {
    if (x->seq != t || x->state != IX_X_FULL)
      return park_io(s, IX_WHY_GET, op, c, q, idx, &q->getters[rv], t);
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
    ix_unlock(r);
    t0 = air_time_now_ns();
    ix_watchdog_enter(s, op, false);
    if (count) ix_pat_scatter(&pat, x->buf);
    ix_watchdog_exit(s);
    ix_lock(r);
    if (--x->readers_left == 0) x->state = IX_X_DONE;
    bool freed = false;
    for (;;) {
      ix_xfer_t* h = &q->ring[q->head % depth];
      if (h->state != IX_X_DONE || h->seq != q->head) break;
      h->state = IX_X_FREE;
      q->head++;
      freed = true;
    }
    /* Each transfer freed lets one more put in: wake the puts whose turn came. */
    for (ix_waiter_t* h; freed && (h = q->putters.head) && h->park.ticket < q->head + depth;)
      ix_wake(r, h, &w);
  }
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

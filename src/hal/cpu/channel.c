/* channel.c - air.channel put/get with depth, bundles and broadcast.
 *
 * One queue per put index holds up to `depth` transfers. A put copies its source
 * into a slot buffer at put time and completes at once when a slot is free (so a
 * producer runs exactly `depth` transfers ahead of a slow consumer and may reuse
 * its source right after); otherwise it parks. A get copies its transfer into its
 * destination, or parks until it has been put. With broadcast_shape a put index
 * reaches several get indices (those that agree with it on every dimension the
 * channel does not broadcast); each receiver reads every transfer once and a slot
 * frees when all of them have.
 *
 * Which transfer an op moves is fixed when it is issued, as a DMA engine takes
 * buffer descriptors in order: an async put/get takes a ticket when dispatched,
 * a blocking one when it runs, so two gets a strand issues at one index read the
 * transfers in program order even when the later one becomes ready first.
 *
 * Slots are reserved under the run lock and filled/drained outside it: a slot
 * being filled is invisible to getters, and a slot being read is not freed until
 * its reader is done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/cpu/interp_internal.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/status_util.h"

static int chan_cmp(const void* a, const void* b) {
  return strcmp(((const ix_chan_t*)a)->name, ((const ix_chan_t*)b)->name);
}

static bool attr_int(const ix_run_t* r, const air_attr_t* a, int64_t* out) {
  a = a ? air_ir_attr_resolve(r->p, a) : NULL;
  if (!a || a->kind != AIR_ATTR_INT) return false;
  *out = a->i;
  return true;
}

air_status_t ix_chan_build(ix_run_t* r) {
  const air_block_t* body = r->p->module->regions[0];
  uint32_t n = 0;
  for (const air_op_t* o = body->first; o; o = o->next) n += o->kind == AIR_OP_CHANNEL && o->sym;
  r->chans = ix_calloc(r, n ? n : 1, sizeof(ix_chan_t));
  if (!r->chans) return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (const air_op_t* o = body->first; o; o = o->next) {
    if (o->kind != AIR_OP_CHANNEL || !o->sym) continue;
    ix_chan_t* c = &r->chans[r->n_chans++];
    c->decl = o;
    c->name = o->sym;
    c->depth = 1;
    const air_ixlist_t* d = o->n_lists ? &o->lists[0] : NULL;
    c->rank = d ? d->n : 0;
    if (c->rank > AIR_MAX_RANK)
      return ix_err(r, o, AIR_STATUS_UNIMPLEMENTED, "air.channel @%s has more than %d dimensions",
                    c->name, AIR_MAX_RANK);
    for (uint32_t k = 0; k < c->rank; ++k) {
      if (d->items[k].value || d->items[k].cst <= 0)
        return ix_err(r, o, AIR_STATUS_INVALID_ARGUMENT,
                      "air.channel @%s: dimension #%u must be a positive integer", c->name, k);
      c->dims[k] = c->bdims[k] = d->items[k].cst;
    }
    const air_attr_t* bs = air_ir_attr_get(o, "broadcast_shape");
    bs = bs ? air_ir_attr_resolve(r->p, bs) : NULL;
    if (bs) {
      if (bs->kind != AIR_ATTR_ARRAY || bs->n != c->rank)
        return ix_err(r, o, AIR_STATUS_INVALID_ARGUMENT,
                      "air.channel @%s: broadcast_shape needs one size per dimension", c->name);
      for (uint32_t k = 0; k < c->rank; ++k) {
        int64_t x;
        if (!attr_int(r, &bs->elems[k], &x) || x <= 0 || (c->dims[k] != 1 && c->dims[k] != x))
          return ix_err(r, o, AIR_STATUS_INVALID_ARGUMENT,
                        "air.channel @%s: broadcast_shape dimension #%u does not broadcast "
                        "(NumPy rules)",
                        c->name, k);
        c->bdims[k] = x;
      }
    }
    int64_t depth;
    if (attr_int(r, air_ir_attr_get(o, "depth"), &depth)) {
      if (depth < 1 || depth > (1 << 20))
        return ix_err(r, o, AIR_STATUS_INVALID_ARGUMENT, "air.channel @%s: depth %lld",
                      c->name, (long long)depth);
      c->depth = depth;
    }
    uint64_t np = 1, nr = 1;
    for (uint32_t k = 0; k < c->rank; ++k) {
      np *= (uint64_t)c->dims[k];
      if (c->bdims[k] != c->dims[k]) nr *= (uint64_t)c->bdims[k];
      if (np > (UINT64_C(1) << 24) || nr > (UINT64_C(1) << 20))
        return ix_err(r, o, AIR_STATUS_UNIMPLEMENTED, "air.channel @%s is too large", c->name);
    }
    c->n_put = np;
    c->n_recv = (uint32_t)nr;
  }
  qsort(r->chans, r->n_chans, sizeof(ix_chan_t), chan_cmp);
  return NULL;
}

ix_space_t* ix_space_new(ix_run_t* r) {
  ix_space_t* sp = ix_calloc(r, 1, sizeof *sp);
  if (!sp) return NULL;
  sp->qs = ix_calloc(r, r->n_chans ? r->n_chans : 1, sizeof(ix_chq_t**));
  if (!sp->qs) {
    ix_free(r, sp);
    return NULL;
  }
  ix_lock(r);
  sp->next = r->spaces;
  r->spaces = sp;
  ix_unlock(r);
  return sp;
}

void ix_chan_free(ix_run_t* r) {
  while (r->spaces) {
    ix_space_t* sp = r->spaces;
    r->spaces = sp->next;
    for (uint32_t i = 0; i < r->n_chans; ++i) {
      const ix_chan_t* c = &r->chans[i];
      for (uint64_t j = 0; sp->qs[i] && j < c->n_put; ++j) {
        ix_chq_t* q = sp->qs[i][j];
        if (!q) continue;
        for (int64_t k = 0; k < c->depth; ++k) ix_free(r, q->ring[k].buf);
        ix_free(r, q->ring);
        ix_free(r, q->get_issued);
        ix_free(r, q->getters);
        ix_free(r, q);
      }
      ix_free(r, sp->qs[i]);
    }
    ix_free(r, sp->qs);
    ix_free(r, sp);
  }
  if (!r->prep) ix_free(r, r->chans); /* else the prep's */
  r->chans = NULL;
  r->n_chans = 0;
}

static ix_chan_t* find_chan(ix_run_t* r, const char* name) {
  uint32_t lo = 0, hi = r->n_chans;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = strcmp(r->chans[mid].name, name);
    if (!c) return &r->chans[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Under lock. */
static ix_chq_t* queue(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p) {
  uint32_t ci = (uint32_t)(c - r->chans);
  if (!sp->qs[ci] && !(sp->qs[ci] = ix_calloc(r, c->n_put, sizeof(ix_chq_t*)))) return NULL;
  if (sp->qs[ci][p]) return sp->qs[ci][p];
  ix_chq_t* q = ix_calloc(r, 1, sizeof *q);
  if (!q) return NULL;
  q->ring = ix_calloc(r, (size_t)c->depth, sizeof(ix_xfer_t));
  q->get_issued = ix_calloc(r, c->n_recv, sizeof(uint64_t));
  q->getters = ix_calloc(r, c->n_recv, sizeof(ix_wlist_t));
  if (!q->ring || !q->get_issued || !q->getters) {
    ix_free(r, q->ring);
    ix_free(r, q->get_issued);
    ix_free(r, q->getters);
    ix_free(r, q);
    return NULL;
  }
  sp->qs[ci][p] = q;
  return q;
}

static void fmt_index(air_sb_t* sb, const int64_t* idx, uint32_t n) {
  air_sb_putc(sb, '[');
  for (uint32_t k = 0; k < n; ++k) air_sb_printf(sb, "%s%lld", k ? ", " : "", (long long)idx[k]);
  air_sb_putc(sb, ']');
}

void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->park;
  const ix_chan_t* c = k->ch;
  air_sb_printf(sb, "%s:%u:%u: %s @%s", r->p->filename, k->op->line, k->op->col,
                ix_opname(k->op), c->name);
  fmt_index(sb, k->idx, k->rank);
  if (k->why == IX_WHY_GET) {
    air_sb_puts(sb, " blocked: no put");
  } else {
    air_sb_printf(sb, " blocked: channel full (depth %lld), ", (long long)c->depth);
    /* Which receivers still have to read the oldest transfer. */
    const ix_chq_t* q = k->q;
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

/* The channel, index, queue position (put index p, receiver rv) of a put/get.
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
  ix_chan_t* c = op->sym ? find_chan(r, op->sym) : NULL;
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
    if (v < r->n_values && r->vinfo[v].guard) {
      ix_val_t* g = ix_slot(r, e, r->vinfo[v].guard);
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
static uint64_t take_ticket(ix_chq_t* q, bool put, uint64_t rv) {
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
  ix_chq_t* q = queue(r, s->space, c, p);
  if (q) *ticket = take_ticket(q, op->kind == AIR_OP_PUT, rv);
  ix_unlock(r);
  return q != NULL;
}

static int park_io(ix_strand_t* s, uint8_t why, const air_op_t* op, ix_chan_t* c, ix_chq_t* q,
                   const int64_t* idx, ix_wlist_t* l, uint64_t ticket) {
  ix_run_t* r = s->run;
  ix_wake_t w = {0};
  s->park = (ix_park_t){.why = why, .q = q, .op = op, .ch = c, .ticket = ticket,
                        .rank = c->rank};
  memcpy(s->park.idx, idx, sizeof s->park.idx);
  bool parked = ix_park_locked(s, l, &w);
  ix_unlock(r);
  ix_wake_flush(r, &w);
  return parked ? IX_PARKED : IX_FAILED;
}

/* Wakes the get waiting for transfer `t` (wait lists are in ticket order, so
 * it is usually the first). */
static void wake_getter(ix_run_t* r, ix_wlist_t* l, uint64_t t, ix_wake_t* w) {
  for (ix_strand_t* h = l->head; h && h->park.ticket <= t; h = h->wnext)
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
  ix_chq_t* q = queue(r, s->space, c, p);
  if (!q) {
    ix_unlock(r);
    return chan_fail(s, AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
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
    ix_watch_enter(s, op, false);
    if (count) ix_pat_gather(x->buf, &pat);
    ix_watch_exit(s);
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
    ix_watch_enter(s, op, false);
    if (count) ix_pat_scatter(&pat, x->buf);
    ix_watch_exit(s);
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
    for (ix_strand_t* h; freed && (h = q->putters.head) && h->park.ticket < q->head + depth;)
      ix_wake(r, h, &w);
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
  f->tk_op = NULL;
  chan_trace(s, c, idx, op, t0);
  ix_next(s);
  return IX_CONT;
}

/* chan_home.c - the home side of channels across processes (chan_home.h):
 * proxies for peers' puts and gets on the lanes this process holds. A proxy
 * takes its ticket when the message arrives (or the one its RESERVE took), then
 * waits and moves its transfer with the lane protocol of chan_lane.h, exactly
 * as a local op does. */
#include "hal/cpu/interp/chan_home.h"

#include <string.h>

#include "hal/cpu/interp/chan_remote.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

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


static void proxy_task(air_task_t* task, uint32_t worker);

/* The proxy record of strand `s`, or NULL when `s` is not a proxy. */
static ix_proxy_t* proxy_of(const ix_strand_t* s) {
  return s->w.task.fn == proxy_task && s->n ? (ix_proxy_t*)s->frames[0].state : NULL;
}

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
  ix_lane_index(c, P->p, P->rv, idx);
  for (;;) {
    ix_lane_lock(q);
    if (!ix_lane_blocked(q, P->put, t, depth)) break;
    int rc = ix_lane_park(s, P->put ? IX_WHY_PUT : IX_WHY_GET, NULL, c, q, idx, P->rv, t);
    if (rc != IX_CONT) return rc;
  }
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
    ix_lane_unlock(q);
    if (!ix_xfer_room(r, x, P->n)) return ix_oom(s);
    if (P->n) memcpy(x->buf, P->bytes, P->n);
    ix_lane_lock(q);
    bool wake = ix_lane_put_done(q, x);
    ix_lane_unlock(q);
    if (wake) ix_lane_wake(r, c, q, true, t);
    if (!ix_wire_send(r, P->from, &m, NULL, 0)) return ix_oom(s);
    return IX_CONT;
  }
  ix_lane_unlock(q);
  /* The entry stays FULL until this reader is done: sent straight from it. */
  size_t bytes = (size_t)x->count * air_elem_size((air_elem_kind_t)x->elem);
  bool ok = ix_wire_send(r, P->from, &m, x->buf, bytes);
  ix_lane_lock(q);
  bool wake = ix_lane_get_done(c, q, x);
  ix_lane_unlock(q);
  if (wake) ix_lane_wake(r, c, q, false, 0);
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
  if (!ix_wire_lock_live(r)) return; /* the run is ending: nothing waits for it */
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
  ix_lane_t* q = st ? NULL : ix_lane_of_locked(r, sp, c, m->p);
  if (!st && !q) st = AIR_STATUS_OOM(&r->alloc, "channel lane");
  uint64_t t = 0;
  if (!st && m->type == IX_W_RESERVE) {
    ix_lane_lock(q);
    t = ix_lane_ticket(q, put, m->rv);
    ix_lane_unlock(q);
    if (!ix_wire_ticket_put_locked(r, from, m->id, t))
      st = AIR_STATUS_OOM(&r->alloc, "a reserved channel ticket");
  } else if (!st) {
    if (!(m->flags & IX_WF_RESERVED) || !ix_wire_ticket_take_locked(r, from, m->id, &t)) {
      ix_lane_lock(q);
      t = ix_lane_ticket(q, put, m->rv);
      ix_lane_unlock(q);
    }
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


bool ix_chan_proxy_site(const ix_strand_t* s, uint32_t* line, uint32_t* col, int64_t* rank,
                        uint32_t* from) {
  const ix_proxy_t* P = proxy_of(s);
  if (!P) return false;
  *line = P->line, *col = P->col, *rank = P->rank, *from = P->from;
  return true;
}

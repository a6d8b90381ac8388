/* rank_wire.c - messages between a run and its peer processes: the courier
 * thread, the listener's control messages, the counts and the distributed
 * deadlock detection (the protocol is in rank_wire.h). */
#include "hal/cpu/interp/rank_wire.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "air/rank.h"
#include "runtime/base/mem.h"
#include "runtime/base/ptrmap.h"
#include "runtime/base/status_util.h"

/* Process 0 starts a wave this often while it spans an air.rank, and gives up
 * on a wave whose answers do not come (a peer not yet or no longer in the run). */
enum { WAVE_NS = 20 * 1000 * 1000, WAVE_GIVE_UP_NS = 1000 * 1000 * 1000 };

typedef struct qmsg_t {
  struct qmsg_t* next;
  uint32_t to;
  size_t n;
  char data[]; /* ix_wmsg_t then the payload */
} qmsg_t;

typedef struct ix_wire_t {
  air_rank_transport_t* t;
  ix_wire_fn_t on_chan;
  /* Courier: its own lock (taken inside the run lock, never around it). */
  pthread_mutex_t qlock;
  pthread_cond_t qcond;
  qmsg_t *head, *tail;
  bool stop, courier_up, listening;
  pthread_t courier;
  /* Under the run lock. */
  uint64_t sent, recvd;
  uint32_t in_agree;
  const air_op_t* agree_op;
  const char* agree_what;
  bool spanning, global, peer_failed, abort_sent;
  struct ix_space_t* lanes;
  air_ptrmap_t tickets; /* (origin, record) -> ticket + 1 */
  /* Process 0's waves (under the run lock). */
  uint64_t wave;
  int64_t wave_t0;
  uint32_t answers;
  bool all_quiet, all_agree, in_wave;
  uint64_t sum_sent, sum_recvd;
  bool have_last;
  uint64_t last_sent, last_recvd;
} ix_wire_t;

static bool across(const ix_run_t* r) { return r->transport && r->transport->processes > 1; }

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*---------------------------------------------------------------------------*/
/* Queue                                                                     */
/*---------------------------------------------------------------------------*/

static bool post(ix_run_t* r, ix_wire_t* W, uint32_t to, const ix_wmsg_t* m, const void* payload,
                 size_t n) {
  qmsg_t* q = air_mem_alloc(&r->alloc, sizeof *q + sizeof *m + n);
  if (!q) return false;
  q->next = NULL;
  q->to = to;
  q->n = sizeof *m + n;
  memcpy(q->data, m, sizeof *m);
  if (n) memcpy(q->data + sizeof *m, payload, n);
  pthread_mutex_lock(&W->qlock);
  if (W->tail)
    W->tail->next = q;
  else
    W->head = q;
  W->tail = q;
  pthread_cond_signal(&W->qcond);
  pthread_mutex_unlock(&W->qlock);
  return true;
}

bool ix_wire_send(ix_run_t* r, uint32_t to, const ix_wmsg_t* m, const void* payload, size_t n) {
  ix_wire_t* W = r->wire;
  if (!W || !post(r, W, to, m, payload, n)) return false;
  ix_lock(r);
  if (m->type <= IX_W_CHAN_LAST) W->sent++;
  ix_unlock(r);
  return true;
}

bool ix_wire_post_locked(ix_run_t* r, uint32_t to, const ix_wmsg_t* m, const void* payload,
                         size_t n) {
  ix_wire_t* W = r->wire;
  if (!W || !post(r, W, to, m, payload, n)) return false;
  if (m->type <= IX_W_CHAN_LAST) W->sent++;
  return true;
}

void ix_wire_recvd_locked(ix_run_t* r) {
  if (r->wire) r->wire->recvd++;
}

/*---------------------------------------------------------------------------*/
/* State                                                                     */
/*---------------------------------------------------------------------------*/

void ix_wire_span_locked(ix_run_t* r, bool on, struct ix_space_t* lanes) {
  ix_wire_t* W = r->wire;
  if (!W) return;
  W->spanning = on;
  W->lanes = on ? lanes : NULL;
  W->have_last = false;
}

struct ix_space_t* ix_wire_lanes(const ix_run_t* r) {
  return r->wire && r->wire->spanning ? r->wire->lanes : NULL;
}

bool ix_wire_defer_locked(const ix_run_t* r) {
  return r->wire && r->wire->spanning && !r->wire->global;
}

void ix_wire_failure_shared_locked(ix_run_t* r) {
  if (r->wire) r->wire->abort_sent = true;
}

bool ix_wire_verdict(const ix_run_t* r) { return r->wire && r->wire->global; }

void ix_wire_agree_locked(ix_run_t* r, bool enter, const air_op_t* op, const char* what) {
  ix_wire_t* W = r->wire;
  if (!W) return;
  if (enter) {
    W->in_agree++;
    W->agree_op = op;
    W->agree_what = what;
  } else if (W->in_agree) {
    W->in_agree--;
  }
}

void ix_wire_describe(ix_run_t* r, air_sb_t* sb) {
  ix_wire_t* W = r->wire;
  if (!W || !W->in_agree || !W->agree_op) return;
  air_sb_printf(sb, "%s:%u:%u: process %u waits at this %s for the other processes",
                r->p->filename, W->agree_op->line, W->agree_op->col, r->transport->process,
                W->agree_what ? W->agree_what : "collective");
}

static const void* ticket_key(uint32_t from, uint64_t id) {
  return (const void*)(uintptr_t)((id ^ ((uint64_t)from << 56)) | ((uint64_t)1 << 55));
}

bool ix_wire_ticket_put_locked(ix_run_t* r, uint32_t from, uint64_t id, uint64_t ticket) {
  return r->wire &&
         air_ptrmap_put(&r->wire->tickets, &r->alloc, ticket_key(from, id),
                        (void*)(uintptr_t)(ticket + 1));
}

bool ix_wire_ticket_take_locked(ix_run_t* r, uint32_t from, uint64_t id, uint64_t* ticket) {
  if (!r->wire) return false;
  const void* k = ticket_key(from, id);
  void* v = air_ptrmap_get(&r->wire->tickets, k);
  if (!v) return false;
  air_ptrmap_del(&r->wire->tickets, k);
  *ticket = (uint64_t)(uintptr_t)v - 1;
  return true;
}

/*---------------------------------------------------------------------------*/
/* Deadlock detection                                                        */
/*---------------------------------------------------------------------------*/

/* Under lock: this process's answer to a wave. */
static void my_state(ix_run_t* r, ix_wire_t* W, ix_wmsg_t* m) {
  m->quiet = W->spanning && !ix_failing(r) && r->active == W->in_agree;
  m->agree = W->in_agree > 0;
  m->spanning = W->spanning;
  m->sent = W->sent;
  m->recvd = W->recvd;
}

/* Under lock: every process declared deadlocked; fail with the local report. */
static void deadlocked(ix_run_t* r, ix_wire_t* W, ix_wake_t* w) {
  if (ix_failing(r) || !W->spanning) return;
  W->global = true;
  W->abort_sent = true; /* every process knows */
  r->hooks->stalled(r, w);
}

/* Under lock, process 0: one answer (its own included) of the current wave. */
static void answer(ix_run_t* r, ix_wire_t* W, const ix_wmsg_t* m, ix_wake_t* w) {
  if (!W->in_wave || m->id != W->wave) return;
  W->all_quiet = W->all_quiet && m->quiet && m->spanning;
  W->all_agree = W->all_agree && m->agree;
  W->sum_sent += m->sent;
  W->sum_recvd += m->recvd;
  if (++W->answers < r->transport->processes) return;
  W->in_wave = false;
  bool still = W->all_quiet && !W->all_agree && W->sum_sent == W->sum_recvd;
  if (still && W->have_last && W->last_sent == W->sum_sent && W->last_recvd == W->sum_recvd) {
    ix_wmsg_t d = {.type = IX_W_DEADLOCK, .id = W->wave};
    for (uint32_t p = 1; p < r->transport->processes; ++p) post(r, W, p, &d, NULL, 0);
    deadlocked(r, W, w);
    return;
  }
  W->have_last = still;
  W->last_sent = W->sum_sent;
  W->last_recvd = W->sum_recvd;
}

/* Courier of process 0: starts a wave when one is due. */
static void wave_tick(ix_run_t* r, ix_wire_t* W) {
  ix_wake_t w = {0};
  ix_lock(r);
  int64_t now = now_ns();
  if (W->in_wave && now - W->wave_t0 > WAVE_GIVE_UP_NS) {
    W->in_wave = false;
    W->have_last = false;
  }
  if (W->spanning && !W->in_wave && !ix_failing(r) && now - W->wave_t0 >= WAVE_NS) {
    W->wave++;
    W->wave_t0 = now;
    W->in_wave = true;
    W->answers = 0;
    W->all_quiet = true;
    W->all_agree = true;
    W->sum_sent = W->sum_recvd = 0;
    ix_wmsg_t probe = {.type = IX_W_PROBE, .id = W->wave}, mine = {.type = IX_W_STATE,
                                                                    .id = W->wave};
    for (uint32_t p = 1; p < r->transport->processes; ++p) post(r, W, p, &probe, NULL, 0);
    my_state(r, W, &mine);
    answer(r, W, &mine, &w);
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

/*---------------------------------------------------------------------------*/
/* Threads                                                                   */
/*---------------------------------------------------------------------------*/

static void tell_failure(ix_run_t* r, ix_wire_t* W) {
  ix_lock(r);
  bool tell = ix_failing(r) && !W->peer_failed && !W->abort_sent && W->spanning;
  if (tell) W->abort_sent = true;
  const char* text = tell && r->status ? air_status_message(r->status) : "";
  size_t n = strlen(text);
  ix_wmsg_t m = {.type = IX_W_ABORT};
  for (uint32_t p = 0; tell && p < r->transport->processes; ++p)
    if (p != r->transport->process) post(r, W, p, &m, text, n + 1);
  ix_unlock(r);
}

static void* courier(void* arg) {
  ix_run_t* r = arg;
  ix_wire_t* W = r->wire;
  air_rank_transport_t* t = W->t;
  for (;;) {
    pthread_mutex_lock(&W->qlock);
    if (!W->head && !W->stop) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += 5 * 1000 * 1000;
      if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
      }
      pthread_cond_timedwait(&W->qcond, &W->qlock, &ts);
    }
    qmsg_t* q = W->head;
    if (q) {
      W->head = q->next;
      if (!W->head) W->tail = NULL;
    }
    bool stop = W->stop;
    pthread_mutex_unlock(&W->qlock);
    if (q) {
      uint32_t to = q->to;
      air_status_t st = t->vtable->send(t, to, q->data, q->n);
      air_mem_free(&r->alloc, q);
      if (st && !stop) {
        air_status_t e = AIR_STATUS(&r->alloc, air_status_code(st),
                                    "sending a message to process %u: %s", to,
                                    air_status_message(st));
        air_status_free(st);
        ix_fail(r, e);
      } else {
        air_status_free(st);
      }
      continue;
    }
    if (stop) break;
    if (ix_failing(r)) tell_failure(r, W);
    if (t->process == 0) wave_tick(r, W);
  }
  return NULL;
}

/* The listener: control messages here, channel messages to the hook. */
static void on_message(void* user, uint32_t from, const void* msg, size_t n) {
  ix_run_t* r = user;
  ix_wire_t* W = r->wire;
  ix_wmsg_t m;
  if (n < sizeof m || from >= r->transport->processes) return; /* not ours */
  memcpy(&m, msg, sizeof m);
  const char* payload = (const char*)msg + sizeof m;
  size_t pn = n - sizeof m;
  if (m.type >= IX_W_RESERVE && m.type <= IX_W_CHAN_LAST) {
    W->on_chan(r, from, &m, payload, pn);
    return;
  }
  ix_wake_t w = {0};
  if (!ix_wire_lock_live(r)) return;
  switch (m.type) {
    case IX_W_PROBE: {
      ix_wmsg_t s = {.type = IX_W_STATE, .id = m.id};
      my_state(r, W, &s);
      post(r, W, from, &s, NULL, 0);
      break;
    }
    case IX_W_STATE:
      if (r->transport->process == 0) answer(r, W, &m, &w);
      break;
    case IX_W_DEADLOCK: deadlocked(r, W, &w); break;
    case IX_W_ABORT: {
      W->peer_failed = true;
      int len = pn && memchr(payload, 0, pn) ? (int)strlen(payload) : 0;
      ix_fail_locked(r,
                     AIR_STATUS(&r->alloc, AIR_STATUS_ABORTED,
                                "process %u of the air.rank failed, so this one (process %u) "
                                "stops: %.*s",
                                from, r->transport->process, len, payload),
                     &w);
      break;
    }
    default: break;
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

air_status_t ix_wire_start(ix_run_t* r, ix_wire_fn_t on_chan) {
  if (!across(r)) return NULL;
  ix_lock(r);
  bool have = r->wire != NULL;
  ix_unlock(r);
  if (have) return NULL;
  ix_wire_t* W = air_mem_calloc(&r->alloc, 1, sizeof *W);
  if (!W) return AIR_STATUS_OOM(&r->alloc, "the run's message state");
  W->t = r->transport;
  W->on_chan = on_chan;
  pthread_mutex_init(&W->qlock, NULL);
  pthread_cond_init(&W->qcond, NULL);
  ix_lock(r);
  r->wire = W;
  ix_unlock(r);
  if (pthread_create(&W->courier, NULL, courier, r) != 0)
    return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "cannot start the thread that sends messages to peer processes");
  W->courier_up = true;
  air_status_t st = W->t->vtable->listen(W->t, on_message, r);
  if (st) return st;
  W->listening = true;
  return NULL;
}

/* The listener's stand-in once the run is gone: keeps the transport's progress
 * going (air-run relies on it) and drops what arrives late. */
static void drop_message(void* user, uint32_t from, const void* msg, size_t n) {
  (void)user;
  (void)from;
  (void)msg;
  (void)n;
}

void ix_wire_stop(ix_run_t* r) {
  ix_wire_t* W = r->wire;
  if (!W) return;
  if (W->listening) {
    air_status_t st = W->t->vtable->listen(W->t, drop_message, NULL);
    air_status_free(st);
  }
  /* A failure of this process's own goes to the peers before anything stops. */
  if (W->courier_up) {
    if (ix_failing(r)) tell_failure(r, W);
    pthread_mutex_lock(&W->qlock);
    W->stop = true;
    pthread_cond_signal(&W->qcond);
    pthread_mutex_unlock(&W->qlock);
    pthread_join(W->courier, NULL);
  }
  while (W->head) {
    qmsg_t* q = W->head;
    W->head = q->next;
    air_mem_free(&r->alloc, q);
  }
  air_ptrmap_free(&W->tickets, &r->alloc);
  pthread_mutex_destroy(&W->qlock);
  pthread_cond_destroy(&W->qcond);
  air_mem_free(&r->alloc, W);
  r->wire = NULL;
}

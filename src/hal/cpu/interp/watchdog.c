/* watchdog.c - the watchdog thread and the per-worker records it reads.
 *
 * One thread watches every run given the same air_interp_watchdog_t (a device
 * keeps one for all its dispatches): the first run with a watchdog time starts
 * it, air_interp_watchdog_destroy joins it. A run without one (a direct
 * air_interp_start) gets a watchdog of its own, destroyed at its end.
 *
 * A worker running a long op for a run (a kernel, a linalg op, a copy) posts
 * the op and its start time in the run's record for that worker; the thread
 * wakes every quarter of the shortest watchdog time it watches (1 to 50 ms) and
 * fails a run, under its run lock, naming an op that ran longer. A kernel it
 * fires on is abandoned: `done` may then be called as soon as every other
 * strand has left (ix_take_early_done).
 *
 * The thread alone cannot promise to see every long op: on a loaded machine it
 * was measured off a core for 130-380 ms (load 17-26 on 2 cores), so a 400 ms
 * kernel under a 50 ms watchdog could end, clear its record and let the run
 * succeed before the thread looked. The op's own exit therefore checks its time
 * too and fails the run when the thread has not (it cannot abandon what has
 * already returned, so only the thread abandons kernels).
 *
 * Lock order: the watchdog's lock, then a run's lock. Runs join and leave the
 * list without holding their run lock, and the thread calls `done` holding
 * neither. */
#include "hal/cpu/interp/watchdog.h"

#include <stdio.h>
#include <time.h>

#include "hal/futex.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

struct air_interp_watchdog_t {
  air_allocator_t alloc;
  pthread_mutex_t mu;
  pthread_cond_t cv;   /* CLOCK_MONOTONIC; the thread waits on it */
  ix_run_t* runs;      /* watched, linked by wd_prev/wd_next (under mu) */
  int64_t tick;        /* how often the thread looks: from the shortest watchdog time */
  bool started, stop;  /* the thread (under mu) */
  pthread_t thread;
};

/* What one pool worker is doing for this run. */
enum { IX_WD_BUSY = 1, IX_WD_ABANDONABLE = 2 };
#define IX_WD_FIRED (UINT64_C(1) << 63)
typedef struct ix_watched_t {
  _Atomic uint64_t state;  /* seq << 2 | flags, | IX_WD_FIRED once the watchdog fired */
  _Atomic int64_t t0;
  _Atomic(const air_op_t*) op;
  uint64_t seq;            /* written only by the worker */
} ix_watched_t;

/* The run's failure for `op`, which ran longer than the watchdog allows. */
static air_status_t overran(ix_run_t* r, const air_op_t* op, bool abandoned) {
  return ix_err(r, op, AIR_STATUS_DEADLINE_EXCEEDED,
                "%s%s%s ran longer than the watchdog allows (%.3f ms)%s", ix_opname(op),
                op->sym ? " @" : "", op->sym ? op->sym : "", (double)r->watchdog_ns / 1e6,
                abandoned ? "; the kernel is abandoned and its late completion ignored" : "");
}

/*--- the records: enter and exit, on the worker ------------------------------*/

void ix_watchdog_enter(ix_strand_t* s, const air_op_t* op, bool abandonable) {
  ix_run_t* r = s->run;
  if (!r->watched || s->worker >= r->n_watched) return;
  ix_watched_t* w = &r->watched[s->worker];
  int64_t t0 = air_time_now_ns();
  atomic_store_explicit(&w->t0, t0, memory_order_relaxed);
  atomic_store_explicit(&w->op, op, memory_order_relaxed);
  w->seq++;
  uint64_t st = ((w->seq << 2) | IX_WD_BUSY | (abandonable ? IX_WD_ABANDONABLE : 0)) & ~IX_WD_FIRED;
  atomic_store_explicit(&w->state, st, memory_order_release);
  /* The strand keeps what it posted: its exit touches the record only while the
   * record is still this one (same sequence number). */
  s->wd_ticket = st;
  s->wd_t0 = t0;
  s->wd_op = op;
}

bool ix_watchdog_exit(ix_strand_t* s) {
  ix_run_t* r = s->run;
  if (!r->watched || s->worker >= r->n_watched || !s->wd_ticket) return false;
  uint64_t mine = s->wd_ticket;
  s->wd_ticket = 0;
  ix_watched_t* w = &r->watched[s->worker];
  uint64_t expect = mine;
  if (!atomic_compare_exchange_strong(&w->state, &expect, 0) && expect == (mine | IX_WD_FIRED)) {
    /* The watchdog fired on this op. It did so under the run lock; taking the
     * lock once orders us after it, so its bookkeeping (abandoned count,
     * failure) is in place before this strand goes on to leave the run. */
    atomic_compare_exchange_strong(&w->state, &expect, 0);
    ix_lock(r);
    ix_unlock(r);
    return (mine & IX_WD_ABANDONABLE) != 0;
  }
  /* Not fired on: the record was this op's (now cleared) or already a newer
   * op's (left alone). Either way this op's own time counts. */
  if (air_time_now_ns() - s->wd_t0 > r->watchdog_ns) {
    ix_wake_t wk = {0};
    ix_lock(r);
    ix_fail_locked(r, overran(r, s->wd_op, false), &wk);
    ix_unlock(r);
    ix_wake_flush(r, &wk);
  }
  return false;
}

/*--- the thread ---------------------------------------------------------------*/

static int64_t tick_of(int64_t watchdog_ns) {
  int64_t tick = watchdog_ns / 4;
  if (tick < 1000000) tick = 1000000;
  if (tick > 50000000) tick = 50000000;
  return tick;
}

/* Under wd->mu: fails `r` for the first of its ops that ran too long, if any.
 * True when it fired: wd->mu was released meanwhile (to call `done`), so the
 * list may have changed. */
static bool look(air_interp_watchdog_t* wd, ix_run_t* r, int64_t now) {
  ix_lock(r);
  for (uint32_t i = 0; i < r->n_watched && !ix_failing(r); ++i) {
    ix_watched_t* w = &r->watched[i];
    uint64_t st = atomic_load_explicit(&w->state, memory_order_acquire);
    if (!(st & IX_WD_BUSY) || (st & IX_WD_FIRED)) continue;
    int64_t t0 = atomic_load_explicit(&w->t0, memory_order_relaxed);
    const air_op_t* op = atomic_load_explicit(&w->op, memory_order_relaxed);
    if (now - t0 <= r->watchdog_ns) continue;
    /* Unchanged state means the op read above is still the one running. */
    if (!atomic_compare_exchange_strong(&w->state, &st, st | IX_WD_FIRED)) continue;
    ix_wake_t wk = {0};
    air_status_t fail = overran(r, op, (st & IX_WD_ABANDONABLE) != 0);
    if (st & IX_WD_ABANDONABLE) r->abandoned++;
    ix_fail_locked(r, fail, &wk);
    air_status_t early = NULL;
    bool call_done = ix_take_early_done(r, &early);
    air_interp_done_fn_t done = r->done;
    void* user = r->user;
    ix_wake_flush(r, &wk);
    ix_unlock(r);
    /* The run is not touched again: it may end and leave the list any time now. */
    pthread_mutex_unlock(&wd->mu);
    if (call_done) done(user, early);
    pthread_mutex_lock(&wd->mu);
    return true;
  }
  ix_unlock(r);
  return false;
}

/* Sleeps while no run is watched; otherwise looks at every run once a tick. */
static void* watchdog_main(void* arg) {
  air_interp_watchdog_t* wd = arg;
  pthread_mutex_lock(&wd->mu);
  while (!wd->stop) {
    if (!wd->runs) {
      pthread_cond_wait(&wd->cv, &wd->mu);
      continue;
    }
    int64_t tick = INT64_MAX;
    for (ix_run_t* r = wd->runs; r; r = r->wd_next)
      if (tick_of(r->watchdog_ns) < tick) tick = tick_of(r->watchdog_ns);
    wd->tick = tick;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + tick;
    ts.tv_sec = at / 1000000000;
    ts.tv_nsec = at % 1000000000;
    pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
    /* After a firing the lock was let go and the list may have changed (the
     * run fired on may even be freed): look again from the head, never from
     * the run fired on. */
    for (bool again = true; again && !wd->stop;) {
      again = false;
      int64_t now = air_time_now_ns();
      for (ix_run_t* r = wd->runs; r; r = r->wd_next)
        if ((again = look(wd, r, now))) break;
    }
  }
  pthread_mutex_unlock(&wd->mu);
  return NULL;
}

air_status_t air_interp_watchdog_create(const air_allocator_t* a, air_interp_watchdog_t** out) {
  air_interp_watchdog_t* wd = air_mem_calloc(a, 1, sizeof *wd);
  if (!wd) return AIR_STATUS_OOM(a, "a watchdog");
  wd->alloc = *a;
  pthread_condattr_t ca;
  bool mu = pthread_mutex_init(&wd->mu, NULL) == 0;
  bool cv = mu && pthread_condattr_init(&ca) == 0;
  if (cv) {
    cv = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&wd->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
  }
  if (!cv) {
    if (mu) pthread_mutex_destroy(&wd->mu);
    air_mem_free(a, wd);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot create the watchdog's lock");
  }
  *out = wd;
  return NULL;
}

void air_interp_watchdog_destroy(air_interp_watchdog_t* wd) {
  if (!wd) return;
  pthread_mutex_lock(&wd->mu);
  wd->stop = true;
  bool started = wd->started;
  pthread_cond_signal(&wd->cv);
  pthread_mutex_unlock(&wd->mu);
  if (started) pthread_join(wd->thread, NULL);
  pthread_cond_destroy(&wd->cv);
  pthread_mutex_destroy(&wd->mu);
  air_allocator_t a = wd->alloc;
  air_mem_free(&a, wd);
}

/*--- runs joining and leaving -------------------------------------------------*/

air_status_t ix_watchdog_start(ix_run_t* r, air_interp_watchdog_t* wd) {
  if (r->watchdog_ns <= 0) return NULL;
  r->n_watched = air_pool_threads(r->pool);
  r->watched = air_mem_calloc(&r->alloc, r->n_watched ? r->n_watched : 1, sizeof(ix_watched_t));
  if (!r->watched) return AIR_STATUS_OOM(&r->alloc, "watchdog records");
  r->wd_own = !wd;
  if (!wd) AIR_RETURN_IF_ERROR(air_interp_watchdog_create(&r->alloc, &wd));
  pthread_mutex_lock(&wd->mu);
  if (!wd->started && !wd->stop) {
    if (pthread_create(&wd->thread, NULL, watchdog_main, wd)) {
      pthread_mutex_unlock(&wd->mu);
      if (r->wd_own) air_interp_watchdog_destroy(wd);
      return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot start the watchdog");
    }
    wd->started = true;
  }
  /* Wake the thread only when it sleeps without a run or too long for this one. */
  bool wake = !wd->runs || tick_of(r->watchdog_ns) < wd->tick;
  r->wd_prev = NULL;
  r->wd_next = wd->runs;
  if (wd->runs) wd->runs->wd_prev = r;
  wd->runs = r;
  if (wake) pthread_cond_signal(&wd->cv);
  pthread_mutex_unlock(&wd->mu);
  r->wd = wd;
  return NULL;
}

void ix_watchdog_stop(ix_run_t* r) {
  air_interp_watchdog_t* wd = r->wd;
  if (!wd) return;
  pthread_mutex_lock(&wd->mu);
  if (r->wd_prev)
    r->wd_prev->wd_next = r->wd_next;
  else
    wd->runs = r->wd_next;
  if (r->wd_next) r->wd_next->wd_prev = r->wd_prev;
  pthread_mutex_unlock(&wd->mu);
  r->wd = NULL;
  if (r->wd_own) air_interp_watchdog_destroy(wd);
}

void ix_watchdog_free(ix_run_t* r) {
  air_mem_free(&r->alloc, r->watched);
  r->watched = NULL;
  r->n_watched = 0;
}

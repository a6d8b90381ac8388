/* watchdog.c - the watchdog thread and the per-worker records it reads.
 *
 * A worker running a long op for the run (a kernel, a linalg op, a copy) posts
 * the op and its start time in its record; the thread wakes every quarter of the
 * watchdog time (1 to 50 ms) and fails the run, under the run lock, naming an op
 * that ran longer. A kernel it fires on is abandoned: `done` may then be called
 * as soon as every other strand has left (ix_take_early_done).
 *
 * The thread alone cannot promise to see every long op: on a loaded machine it
 * was measured off a core for 130-380 ms (load 17-26 on 2 cores), so a 400 ms
 * kernel under a 50 ms watchdog could end, clear its record and let the run
 * succeed before the thread looked. The op's own exit therefore checks its time
 * too and fails the run when the thread has not (it cannot abandon what has
 * already returned, so only the thread abandons kernels). */
#include "hal/cpu/interp/watchdog.h"

#include <stdio.h>
#include <time.h>

#include "hal/futex.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

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

void ix_watchdog_enter(ix_strand_t* s, const air_op_t* op, bool abandonable) {
  ix_run_t* r = s->run;
  if (!r->watched || s->worker >= r->n_watched) return;
  ix_watched_t* w = &r->watched[s->worker];
  atomic_store_explicit(&w->t0, air_time_now_ns(), memory_order_relaxed);
  atomic_store_explicit(&w->op, op, memory_order_relaxed);
  w->seq++;
  uint64_t st = (w->seq << 2) | IX_WD_BUSY | (abandonable ? IX_WD_ABANDONABLE : 0);
  atomic_store_explicit(&w->state, st & ~IX_WD_FIRED, memory_order_release);
}

bool ix_watchdog_exit(ix_strand_t* s) {
  ix_run_t* r = s->run;
  if (!r->watched || s->worker >= r->n_watched) return false;
  ix_watched_t* w = &r->watched[s->worker];
  uint64_t mine = atomic_load_explicit(&w->state, memory_order_relaxed) & ~IX_WD_FIRED;
  uint64_t expect = mine;
  if (atomic_compare_exchange_strong(&w->state, &expect, 0)) {
    /* Only this worker writes t0 and op: they are still this op's. */
    int64_t t0 = atomic_load_explicit(&w->t0, memory_order_relaxed);
    if (air_time_now_ns() - t0 > r->watchdog_ns) {
      ix_wake_t wk = {0};
      ix_lock(r);
      ix_fail_locked(r, overran(r, atomic_load_explicit(&w->op, memory_order_relaxed), false),
                     &wk);
      ix_unlock(r);
      ix_wake_flush(r, &wk);
    }
    return false;
  }
  /* The watchdog fired on this op. It did so under the run lock; taking the lock
   * once orders us after it, so its bookkeeping (abandoned count, failure) is in
   * place before this strand goes on to leave the run. */
  atomic_store(&w->state, 0);
  ix_lock(r);
  ix_unlock(r);
  return (mine & IX_WD_ABANDONABLE) != 0;
}

/* The thread holds no reference to the run: the strand that ends the run joins
 * it first (ix_watchdog_stop). */
static void* watchdog_main(void* arg) {
  ix_run_t* r = arg;
  int64_t tick = r->watchdog_ns / 4;
  if (tick < 1000000) tick = 1000000;
  if (tick > 50000000) tick = 50000000;
  ix_lock(r);
  while (!r->wd_stop) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + tick;
    ts.tv_sec = at / 1000000000;
    ts.tv_nsec = at % 1000000000;
    pthread_cond_timedwait(&r->wd_cond, &r->lock, &ts);
    if (r->wd_stop || ix_failing(r)) continue;
    int64_t now = air_time_now_ns();
    for (uint32_t i = 0; i < r->n_watched; ++i) {
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
      if (call_done) done(user, early);
      ix_lock(r);
      break;
    }
  }
  ix_unlock(r);
  return NULL;
}

air_status_t ix_watchdog_start(ix_run_t* r) {
  if (r->watchdog_ns <= 0) return NULL;
  r->n_watched = air_pool_threads(r->pool);
  r->watched = air_mem_calloc(&r->alloc, r->n_watched ? r->n_watched : 1, sizeof(ix_watched_t));
  if (!r->watched) return AIR_STATUS_OOM(&r->alloc, "watchdog records");
  if (pthread_create(&r->wd_thread, NULL, watchdog_main, r))
    return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot start the watchdog");
  r->wd_running = true;
  return NULL;
}

void ix_watchdog_stop(ix_run_t* r) {
  if (!r->wd_running) return;
  ix_lock(r);
  r->wd_stop = true;
  pthread_cond_signal(&r->wd_cond);
  ix_unlock(r);
  r->wd_running = false;
  pthread_join(r->wd_thread, NULL);
}

void ix_watchdog_free(ix_run_t* r) {
  air_mem_free(&r->alloc, r->watched);
  r->watched = NULL;
  r->n_watched = 0;
}

/* sync.h - synchronisation: the run lock, wait lists, parking and waking,
 * failing a run, and tokens (completion counts with wait lists).
 *
 * Everything here runs under the run lock unless it says otherwise. A waiter
 * parks only after re-checking its condition under the lock, and whoever makes
 * the condition true wakes it under the same lock, so no wake is lost; the run
 * is stalled exactly when live strands exist and none is queued or running
 * (the `stalled` hook then reports it).
 *
 * A waiter is the part of a strand this floor sees (strand.h embeds one first):
 * its pool task, its links on one wait list and on the run's parked list, and
 * the park record saying why it waits. Extension point: a new reason to wait is
 * a new IX_WHY_* here, its park call in the op family, and its line in stall.c.
 *
 * Tokens: a token has a pending count; it fires when the count drops to zero,
 * waking its waiters, releasing the affinity groups it held, dropping a count of
 * its parent, and calling its `on_fire` hook (the wave path uses one to open
 * gates). */
#ifndef AIR_HAL_CPU_INTERP_SYNC_H_
#define AIR_HAL_CPU_INTERP_SYNC_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/run.h"
#include "hal/futex.h"

typedef struct ix_waiter_t ix_waiter_t;
typedef struct ix_tok_t ix_tok_t;

typedef struct ix_wlist_t {
  ix_waiter_t* head;
  ix_waiter_t* tail;
} ix_wlist_t;

/* Why a waiter is parked; enough to print the deadlock report. */
enum {
  IX_WHY_DEP = 1,   /* dependency token of `op` */
  IX_WHY_VALUE,     /* an air.execute result `vid` not yet produced */
  IX_WHY_JOIN,      /* sync hierarchy op / scf.parallel waiting for its body */
  IX_WHY_INIT,      /* op of an scf.parallel instance waiting for an init token */
  IX_WHY_AFFINITY,
  IX_WHY_PUT,
  IX_WHY_GET,
  IX_WHY_GATE,      /* the wave opener: no wave has all its gates open */
  IX_WHY_EDGE,      /* a command waiting for one ordered before it in its wave */
  IX_WHY_RANK,      /* a rank at a collective (symmetric alloc/free) of its air.rank */
  IX_WHY_REMOTE,    /* a put/get waiting for the process holding its lane (chan_remote.c) */
};

struct ix_lane_t;  /* channel.c */

typedef struct ix_park_t {
  uint8_t why;
  const struct ix_lane_t* lane;
  const air_op_t* op;
  air_vid_t vid;
  ix_tok_t* tok;
  const ix_chan_t* ch;
  uint64_t ticket;          /* PUT/GET: channel wait lists are kept in ticket order */
  uint32_t rank;
  int64_t idx[AIR_MAX_RANK];
  int64_t rank_id;          /* REMOTE: the rank waiting */
  /* A count of parked waiters its owner keeps (a channel lane's, chan_lane.h):
   * dropped by one when this waiter is woken. NULL: none. */
  _Atomic uint32_t* count;
} ix_park_t;

struct ix_waiter_t {
  air_task_t task;              /* first: waking submits it to the pool */
  ix_waiter_t *wprev, *wnext;   /* on `wlist` */
  ix_wlist_t* wlist;
  ix_waiter_t *pprev, *pnext;   /* on the run's parked list */
  ix_park_t park;
};

/* Waiters made runnable under the lock, submitted after it is released. */
typedef struct ix_wake_t {
  air_task_t *first, *last;
  uint32_t n;
} ix_wake_t;

/* The run lock's critical sections are a few list moves (tens of ns), so a
 * waiter first retries for about a microsecond: on 2 workers a plain mutex
 * sent the loser to a futex sleep and the winner to a futex wake on most
 * contended acquisitions (a quarter of matmul_4x4's time, issue 14). Only when
 * the holder is descheduled does the waiter sleep. */
enum { IX_LOCK_SPIN = 64 };
static inline void ix_lock(ix_run_t* r) {
  for (int i = 0; i < IX_LOCK_SPIN; ++i) {
    if (pthread_mutex_trylock(&r->lock) == 0) return;
    air_cpu_relax();
  }
  pthread_mutex_lock(&r->lock);
}
static inline void ix_unlock(ix_run_t* r) { pthread_mutex_unlock(&r->lock); }

/* Submits what ix_wake* collected; call after ix_unlock. */
void ix_wake_flush(ix_run_t* r, ix_wake_t* w);
void ix_wake_all(ix_run_t* r, ix_wlist_t* l, ix_wake_t* w);   /* under lock */
void ix_wake(ix_run_t* r, ix_waiter_t* s, ix_wake_t* w);       /* under lock */

/* Fails the run with `st` (taken); the first failure wins. Under lock. */
void ix_fail_locked(ix_run_t* r, air_status_t st, ix_wake_t* w);
void ix_fail(ix_run_t* r, air_status_t st);

/* Parks `s` on `l` (under lock) with s->park filled in; channel ops are kept in
 * ticket order, others in arrival order. Returns false when the run is failing
 * (the caller unwinds instead). After true, unlock and return. */
bool ix_park_locked(ix_run_t* r, ix_waiter_t* s, ix_wlist_t* l, ix_wake_t* w);

struct ix_tok_t {
  _Atomic uint32_t refs;
  _Atomic uint32_t fired;
  /* The run's one always-fired token (ix_tok_forever): references are not
   * counted, so the two workers never write its cache line. */
  bool forever;
  uint32_t pending;          /* under the run lock */
  struct ix_tok_t* parent;   /* completion this one counts toward (a ref) */
  const air_op_t* op;        /* op that made it, for messages */
  ix_wlist_t waiters;
  /* As an affinity token: the completion holding the group and who waits. */
  struct ix_tok_t* aff_holder;
  ix_wlist_t aff_waiters;
  /* As a completion: affinity tokens held until it fires (refs). */
  struct ix_tok_t** held;
  uint32_t n_held, cap_held;
  /* Called under the lock when it fires, with `tag` its owner's (NULL: none). */
  uint32_t tag;
  void (*on_fire)(ix_run_t* r, ix_tok_t* t, ix_wake_t* w);
};

ix_tok_t* ix_tok_new(ix_run_t* r, const air_op_t* op, ix_tok_t* parent);
/* A token whose pending count `pending` is set before anyone else can see it,
 * with a ref to `parent` but without the parent's pending count: the caller
 * takes that in its next hold of the lock (ix_spawn_new), which `parent` - the
 * running strand's scope, kept pending by that strand - cannot fire before. One
 * lock acquisition per dispatched op fewer (issue 14). No lock taken. */
ix_tok_t* ix_tok_new_unlocked(ix_run_t* r, const air_op_t* op, ix_tok_t* parent,
                              uint32_t pending);
/* The run's fired token for the result of an async op run to its end in its
 * issuer's strand (chain.h): nothing can observe that result before the op is
 * done, so it needs no token of its own. Its references are not counted; it is
 * freed with ix_tok_forever_free when the run ends. NULL when out of memory. */
ix_tok_t* ix_tok_forever(ix_run_t* r);
void ix_tok_forever_free(ix_run_t* r, ix_tok_t* t);
void ix_tok_ref(ix_tok_t* t);
/* Never takes the run lock: callable with or without it. */
void ix_tok_unref(ix_run_t* r, ix_tok_t* t);
/* Holds a pending count on `t` / drops it (firing `t` when it was the last). */
void ix_tok_hold(ix_run_t* r, ix_tok_t* t);
void ix_tok_unhold(ix_run_t* r, ix_tok_t* t);
/* ix_tok_unhold under the lock. */
void ix_tok_unhold_locked(ix_run_t* r, ix_tok_t* t, ix_wake_t* w);
static inline bool ix_tok_fired(ix_tok_t* t) {
  return atomic_load_explicit(&t->fired, memory_order_acquire) != 0;
}

#endif /* AIR_HAL_CPU_INTERP_SYNC_H_ */

/* chan_lane.h - channel state: spaces (one per launch instance), lanes (one per
 * put index of a channel in a space, a ring of `depth` transfers) and the lane
 * lock. Private to the channel op family (channel.c runs the ops, chan_home.c
 * serves other processes' ops on the lanes this process holds); the rules of
 * what a put or get may do are in channel.c.
 *
 * Locking (issue 14, branch cpu-lane). A lane has a lock of its own, a spinlock
 * in the lane's first cache line: tickets, the ring's entries and `head` are
 * changed only under it, so a put and a get on one lane never touch the run
 * lock, whose cache line would otherwise move between the cores twice per
 * transfer. The lane's wait lists (`putters`, `getters`) stay under the run
 * lock, with every park and wake (the run's parked list and active count go
 * with them). Lock order: the run lock, then a lane lock; never the other way.
 *
 * No lost wake-up: a put or get that has to wait counts itself in the lane
 * (`parked_puts` / `parked_gets`) under the lane lock while it holds the run
 * lock, and joins the wait list before it lets the run lock go. The op that
 * makes its condition true does so under the lane lock and then reads the
 * count: it sees the waiter (and takes the run lock, which it gets only once the
 * waiter is on the list) or the waiter, re-checking after it, sees the
 * condition true. The count drops when the waiter is woken (sync.c, through
 * ix_park_t.count); a count too high only costs a trip through the run lock. */
#ifndef AIR_HAL_CPU_INTERP_CHAN_LANE_H_
#define AIR_HAL_CPU_INTERP_CHAN_LANE_H_

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/strand.h"
#include "hal/cpu/interp/tables.h"
#include "hal/futex.h"

/* Transfers are numbered by the order their ops were issued: the k-th put issued
 * at an index writes transfer k, the k-th get issued at a receiver reads it. */
enum { IX_X_FREE = 0, IX_X_FILLING, IX_X_FULL, IX_X_DONE };

/* Transfers up to this size are copied under the lane lock: the copy costs less
 * than a second lock round trip between the workers. Each ring entry has this
 * many bytes of its own in the lane's block, so they need no buffer of their own. */
enum { IX_LANE_SMALL = 512 };
/* Transfers up to this size are copied under the lane lock once their entry (or
 * the waiting get's destination) has room: a 4 KiB tile (matmul_4x4's 32x32
 * f32) copies in about what the lock's second round trip between the cores
 * costs, plus the watchdog and copy set-up around an unlocked copy (issue 14,
 * session 8). Larger ones are copied outside the lock (split.h). */
enum { IX_LANE_LOCKED = 4096 };

/* One ring entry, on a cache line of its own (issue 14, session 5: an entry that
 * shared a line with another object's hot fields cost a miss per transfer). */
typedef struct ix_xfer_t {
  _Alignas(64) uint64_t seq; /* transfer held (valid unless FREE) */
  int64_t count;
  void* buf;               /* the entry's inline bytes, or a cache block when `own` */
  size_t cap;
  uint32_t elem;
  uint32_t readers_left;
  uint32_t line, col;      /* the put that sent it, for messages */
  uint8_t state;
  bool own;
} ix_xfer_t;

/* One put index of a channel in one space, in one block of its own aligned to
 * a cache line: line 0 holds all a transfer changes (under `lock`), so a put
 * and a get on the lane move that line and the data, and little else; line 1
 * what is set when the lane is made, and the wait lists (the run lock's); line
 * 2 the flag a get with an open offer spins on; then the ring's entries, the
 * entries' inline bytes, and per-receiver arrays when the channel broadcasts.
 *
 * The offer (channel.c) is a get's whose transfer is the lane's next one, to
 * take it straight into its destination: while it is open, the get's ticket is
 * `head` (only reading that transfer moves the head), so it needs no ticket of
 * its own. A spinning get spins on `taken` (line 2), not on line 0, which the
 * put works on meanwhile, nor on its own stack, which it writes again at once;
 * a parked get's pattern is kept in the lane (`offer_pat`), and the put wakes
 * it. A put copies a large transfer into the offer outside the lock
 * (`offer_busy`), the head staying at the get's transfer meanwhile. */
typedef struct ix_lane_t {
  _Alignas(64) _Atomic uint32_t lock;
  _Atomic uint32_t parked_puts, parked_gets; /* waiters on the lists below */
  uint32_t offer_count;    /* the offer's element count, */
  uint64_t head;           /* oldest transfer not yet read by every receiver */
  uint64_t put_issued;     /* tickets handed to puts */
  uint64_t get0;           /* receiver 0's tickets, when there is one receiver */
  void* offer_to;          /* ... its destination: bytes (offer_flat) or an ix_pat_t, */
  uint8_t offer_elem;      /* ... its element type, */
  bool offer_flat;         /* ... whether offer_to is a contiguous run, */
  bool offer_open;         /* ... whether there is one, */
  bool offer_busy;         /* ... and whether a put is copying into it outside the lock */
  _Alignas(64) ix_xfer_t* ring; /* depth entries; transfer k lives in entry k % depth */
  uint64_t* get_issued;    /* per receiver: tickets handed to gets */
  ix_wlist_t* getters;     /* per receiver */
  ix_wlist_t putters;
  ix_wlist_t getter0;
  void* mem;               /* the block (cache.h) */
  size_t mem_size;
  ix_pat_t* offer_pat;     /* a parked get's offered pattern (one receiver only) */
  /* 1 + the last transfer a put copied straight into its waiting get (set
   * under the lock; only grows: a get of transfer t is done once taken > t). */
  _Alignas(64) _Atomic uint64_t taken;
} ix_lane_t;
_Static_assert(offsetof(ix_lane_t, ring) == 64, "a transfer's fields fill the lane's line 0");

struct ix_rank_t;

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

/* A fresh channel space (NULL when out of memory). */
ix_space_t* ix_space_new(ix_run_t* r);
/* A fresh space for a launch instance inside `parent`'s rank (keeps its rank). */
ix_space_t* ix_space_new_in(ix_run_t* r, const ix_space_t* parent);
/* The space of rank `id` of an air.rank of `n` ranks: the lanes of `shared`
 * (one for all its ranks) and the rank instance `rank` (rank.c). */
ix_space_t* ix_space_for_rank(ix_run_t* r, ix_space_t* shared, struct ix_rank_t* rank,
                              int64_t id, uint32_t n);
/* The air.rank instance a space belongs to (NULL outside ranks) and its rank id. */
struct ix_rank_t* ix_space_rank(const ix_space_t* sp, int64_t* id);
/* Frees every space the run made. */
void ix_spaces_free(ix_run_t* r);

/* Held for a few list moves or a copy of at most IX_LANE_LOCKED bytes; a waiter
 * that spins long (its holder lost its core) yields. */
static inline void ix_lane_lock(ix_lane_t* q) {
  for (uint32_t i = 0;;) {
    if (!atomic_exchange_explicit(&q->lock, 1, memory_order_acquire)) return;
    while (atomic_load_explicit(&q->lock, memory_order_relaxed)) {
      if (++i < 256) {
        air_cpu_relax();
      } else {
        i = 0;
        sched_yield();
      }
    }
  }
}
static inline void ix_lane_unlock(ix_lane_t* q) {
  atomic_store_explicit(&q->lock, 0, memory_order_release);
}

enum { IX_HERE = UINT32_MAX };

/* The process holding lane p of `c` for a strand in `sp`, or IX_HERE (see
 * chan_lane.c). */
uint32_t ix_lane_home(const ix_run_t* r, const ix_space_t* sp, const ix_chan_t* c, uint64_t p);
/* Lane p of `c` as seen from `sp`, made on first use (NULL when out of memory).
 * Takes the run lock only to make it; ix_lane_of_locked under the run lock. */
ix_lane_t* ix_lane_get(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p);
ix_lane_t* ix_lane_of_locked(ix_run_t* r, ix_space_t* sp, ix_chan_t* c, uint64_t p);
/* The index a put index and receiver stand for, as the ops spell it. */
void ix_lane_index(const ix_chan_t* c, uint64_t p, uint64_t rv, int64_t* idx);

/* Under the lane lock. */
static inline uint64_t ix_lane_ticket(ix_lane_t* q, bool put, uint64_t rv) {
  return put ? q->put_issued++ : q->get_issued[rv]++;
}
/* Under the lane lock: whether a put/get holding ticket t must wait (its slot is
 * taken / its transfer is not in the ring). */
static inline bool ix_lane_blocked(const ix_lane_t* q, bool put, uint64_t t, uint64_t depth) {
  if (put) return t >= q->head + depth;
  const ix_xfer_t* x = &q->ring[t % depth];
  /* head > t: transfer t went straight into this get (it has no other reader). */
  return (x->seq != t || x->state != IX_X_FULL) && q->head <= t;
}
/* Entry x holds at least `bytes` (a cache block when its inline bytes are too
 * few); false when out of memory. By whoever fills x. */
bool ix_xfer_room(ix_run_t* r, ix_xfer_t* x, size_t bytes);
/* Under the lane lock: transfer t is in entry x; true when a parked get may
 * wait for it (call ix_lane_wake after the lane lock). */
bool ix_lane_put_done(ix_lane_t* q, ix_xfer_t* x);
/* Under the lane lock: one receiver has read entry x; frees what every receiver
 * read. True when a parked put may now go on (call ix_lane_wake). */
bool ix_lane_get_done(const ix_chan_t* c, ix_lane_t* q, ix_xfer_t* x);
/* Under the lane lock: transfer `head` went straight from its put to its get
 * (never in the ring): moves the head past it and frees the entries after it
 * that every receiver already read (a later transfer's get may finish first).
 * True when a parked put may now go on (call ix_lane_wake). */
bool ix_lane_skip_head(const ix_chan_t* c, ix_lane_t* q);
/* Not under any lock: takes the run lock and wakes the gets waiting for
 * transfer t (gets) or the puts whose slot is free (!gets). */
void ix_lane_wake(ix_run_t* r, const ix_chan_t* c, ix_lane_t* q, bool gets, uint64_t t);
/* Called with the lane lock held (released on return): parks `s` (a put if
 * why is IX_WHY_PUT, else a get of receiver rv) with ticket t, under the run
 * lock, unless the condition became true meanwhile. IX_PARKED, IX_FAILED (the
 * run is failing), or IX_CONT: not parked, try again. `op` is NULL for a proxy. */
int ix_lane_park(ix_strand_t* s, uint8_t why, const air_op_t* op, const ix_chan_t* c,
                 ix_lane_t* q, const int64_t* idx, uint64_t rv, uint64_t t);
/* Whether spinning may pay: only while the partner may run on another worker. */
static inline bool ix_lane_may_spin(ix_run_t* r) { return air_pool_threads(r->pool) >= 2; }
/* Not under the lane lock: watches for a few microseconds until the get's
 * transfer t is in entry x (or, `offered`, a put took it straight) or the put's
 * slot is free; true when it is. */
bool ix_lane_spin(ix_run_t* r, bool put, const ix_lane_t* q, const ix_xfer_t* x, uint64_t t,
                  uint64_t depth, bool offered);
/* Not under the lane lock: waits until a put that took the get of transfer t's
 * offer has finished copying (taken > t). Unbounded but short: the put only
 * copies. */
void ix_lane_wait_taken(const ix_lane_t* q, uint64_t t);

#endif /* AIR_HAL_CPU_INTERP_CHAN_LANE_H_ */

/* run.h - the run object: one execution of an entry function, the state every
 * higher floor hangs off, its hooks, and the errors and names ops report with.
 * Memory comes from the run's allocator through runtime/base/mem.h
 * (air_mem_alloc(&r->alloc, ...)).
 *
 * A lower floor never calls a higher one; where it must hand control upward it
 * calls a hook the start floor installs (`hooks`): a strand's pool task, the
 * deadlock report, and the end of the run. Structs of higher floors appear here
 * only as pointers. */
#ifndef AIR_HAL_CPU_INTERP_RUN_H_
#define AIR_HAL_CPU_INTERP_RUN_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/cache.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/interp/types.h"
#include "runtime/base/ptrmap.h"

typedef struct ix_run_t ix_run_t;
struct ix_waiter_t;  /* sync.h */
struct ix_wake_t;    /* sync.h */
struct ix_space_t;   /* channel.c */
struct ix_watched_t; /* watchdog.c */
struct ix_waves_t;   /* waves.c */
struct ix_ranks_t;   /* rank.c */
struct ix_wire_t;    /* rank_wire.c */
struct ix_strand_t;  /* strand.h */

/* Upward calls, installed by start.c: lower floors call these instead of naming
 * the functions above them. */
typedef struct ix_hooks_t {
  /* The pool task of a spawned strand (loop.c). */
  air_task_fn_t strand_task;
  /* Under the run lock: live strands exist and none can run. Fails the run with
   * a report of every parked strand (stall.c). */
  void (*stalled)(ix_run_t* r, struct ix_wake_t* w);
  /* The last strand has left the run (not under the lock): the run ends. */
  void (*ended)(ix_run_t* r);
  /* Steps a strand until it has no frames or the run fails (loop.c); flat.c
   * runs a launch or segment instance's body to its end with it. */
  void (*run_inline)(struct ix_strand_t* s);
} ix_hooks_t;

/* A live memref.alloc block: its data and the block it sits in (memref.c). */
enum { IX_LIVE = 16 };
typedef struct ix_live_t {
  void* data;
  void* raw;
} ix_live_t;

/* Layout (issue 14, session 7): the run lock, the memory lock and the counts
 * written under the run lock each sit between padding of a cache line, so the
 * fields every op reads (the cache, the pool, the program's tables, `failing`)
 * never share a line that a park, a wake or a memref.alloc on the other core
 * has just written. Padding, not alignment: a run comes from the allocator. */
struct ix_run_t {
  /* Kept initialised while a run waits in its prep's free list. */
  pthread_mutex_t lock;
  char pad_lock[64];
  pthread_mutex_t mem_lock;
  char pad_mem[64];
  struct ix_run_t* next_free;
  /* Blocks the run takes and gives back (cache.h), kept with the run between
   * runs; a run on the stack borrows its prep's (NULL: none). */
  ix_cache_t* cache;

  /* Everything from here is cleared when a run starts. */
  air_allocator_t alloc;
  const air_program_t* p;
  const air_context_t* ctx;
  air_pool_t* pool;
  air_trace_t* trace;
  int64_t watchdog_ns;
  air_interp_done_fn_t done;
  void* user;
  const ix_hooks_t* hooks;

  air_interp_prep_t* prep; /* a reference; NULL: the tables below are the run's own */
  /* The always-fired token of ops run in their issuer's strand (sync.h
   * ix_tok_forever; NULL: none, such ops get tokens of their own). */
  struct ix_tok_t* fired;
  _Atomic int failing;     /* read by every waiting op; written once */

  char pad_counts[64];
  uint32_t live, active, abandoned;  /* strands (under the lock) */
  struct ix_waiter_t* parked;        /* every parked strand (under the lock) */
  air_status_t status;
  bool done_called;
  char pad_counts_end[64];

  ix_tables_t tab;
  struct ix_space_t* spaces;     /* every channel space made (under the lock) */
  struct ix_space_t* root_space;

  char pad_allocs[64];
  /* The live memref.alloc blocks (memref.c): the first IX_LIVE in `held`, the
   * rest in `allocs`, all under held_lock. */
  atomic_flag held_lock;
  uint32_t n_held;
  ix_live_t held[IX_LIVE];
  air_ptrmap_t allocs;     /* memref.alloc data -> raw allocation (under held_lock) */
  air_ptrmap_t globals;    /* memref.global op -> its raw buffer (under mem_lock) */
  char pad_allocs_end[64];

  struct ix_watched_t* watched; /* per pool worker, when there is a watchdog */
  uint32_t n_watched;
  /* The watchdog watching the run (NULL: none), and the run's place in its list
   * (under the watchdog's lock). The strand that ends the run takes it off the
   * list, after which the thread never touches it; a watchdog of the run's own
   * (wd_own) is joined then, so its last touch of the allocator happens before
   * that strand's worker finishes and draining the pool orders every free of an
   * abandoned run. */
  air_interp_watchdog_t* wd;
  bool wd_own;
  struct ix_run_t *wd_prev, *wd_next;

  struct ix_waves_t* waves; /* the schedule path's state; NULL: the dynamic path */

  /* Compiled units (NULL: none, or AIR_DISPATCH_INTERPRET), and whether the
   * built-in linalg ops run their reference loops instead of library kernels. */
  const air_cg_code_t* code;
  bool reference;
  /* Hierarchy ops run flat in the strand that meets them (flat.h; the inline
   * path, for an entry whose launches all can). */
  bool flat;

  /* Ranks (rank.c): made by the first air.rank (under the lock); the dispatch's
   * holder of every rank's argument copies and the bindings' data pointers. */
  struct ix_ranks_t* ranks;
  struct air_rank_copies_t* rank_copies;
  void** binding_data;     /* per entry parameter (NULL: scalar); with rank_copies */
  uint32_t n_bindings;
  struct air_rank_transport_t* transport; /* NULL: every rank runs in this process */
  /* Ranks spread over processes: the messages with the peers (rank_wire.c; made
   * by the first air.rank, under the lock) and the channel ops waiting for a
   * peer's reply (chan_remote.c, under the lock). */
  struct ix_wire_t* wire;
  air_ptrmap_t remote_ops;
};

/* A run object with its mutexes initialised and nothing else (NULL when out of
 * memory); ix_run_destroy undoes it. */
ix_run_t* ix_run_new(const air_allocator_t* a);
void ix_run_destroy(ix_run_t* r, air_allocator_t a);

static inline bool ix_failing(ix_run_t* r) {
  return atomic_load_explicit(&r->failing, memory_order_acquire) != 0;
}

/* `file:line:col: error: ` statuses for an op. */
air_status_t ix_err(ix_run_t* r, const air_op_t* op, air_status_code_t code, const char* fmt,
                    ...) __attribute__((format(printf, 4, 5)));
/* The same, for program `p` without a run. */
air_status_t ix_err_in(const air_allocator_t* a, const air_program_t* p, const air_op_t* op,
                       air_status_code_t code, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
const char* ix_opname(const air_op_t* op);
/* The string attribute `name` of `op`, or NULL. */
const char* ix_attr_str(const ix_run_t* r, const air_op_t* op, const char* name);
/* "%name" of a value into buf. */
const char* ix_vname(const ix_run_t* r, air_vid_t v, char* buf, size_t n);

#endif /* AIR_HAL_CPU_INTERP_RUN_H_ */

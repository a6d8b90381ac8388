/* interp_internal.h - the CPU executor's shared state (see interp.h for the
 * contract and docs/design.md, "CPU driver plan", for the shape).
 *
 * Work is done by strands: an explicit stack of frames (block being run, next op,
 * loop state) run by pool tasks. A strand that cannot go on (a channel op, a token,
 * an affinity group) parks on a wait list and gives its worker back; whoever
 * changes that state re-queues it and it retries the op from the start, so every
 * op is written to be idempotent up to the point where it may park.
 *
 * Values live in environments, one per block execution (a loop iteration, a PE's
 * herd body, an execute region), chained to the enclosing block's environment, so
 * an async op dispatched in iteration N keeps reading iteration N's values while
 * iteration N+1 runs. Environments and tokens are reference counted.
 *
 * Completion: a token has a pending count; the strand it joins holds one, and each
 * token made while a strand runs with it as scope holds one on it (its parent),
 * so a token fires when its op and everything dispatched inside it are done.
 *
 * One mutex per run guards scheduling state (tokens' pending counts and wait lists,
 * channel queues, affinity, the parked list, the live/active counters); compute
 * and copies run outside it. Exact deadlock detection is quiescence: live strands
 * exist but none is queued or running. */
#ifndef AIR_HAL_CPU_INTERP_INTERNAL_H_
#define AIR_HAL_CPU_INTERP_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/dma_internal.h"
#include "hal/cpu/interp.h"
#include "runtime/ir/ir.h"
#include "runtime/base/strbuf.h"

/* Value kinds. */
enum { IX_K_SCALAR = 0, IX_K_TOKEN = 1, IX_K_MEMREF = 2 };

typedef union ix_val_t {
  int64_t i;  /* integers, index, i1 (0/1) */
  double f;   /* floats, already rounded to their type */
  void* p;    /* ix_tok_t* or air_memref_t* (the env's own view storage) */
} ix_val_t;

/* Per program value, computed once per run. */
typedef struct ix_vinfo_t {
  int32_t slot;     /* in its block's environment; -1 when not in an executed block */
  int32_t view;     /* view storage index for memrefs, else -1 */
  uint32_t depth;   /* lexical depth of the defining block */
  uint8_t kind;     /* IX_K_* */
  uint8_t elem;     /* scalar / element type */
  air_vid_t guard;  /* air.execute token that makes this result available, or 0 */
} ix_vinfo_t;

/* Per block. Run-owned, so teardown never needs the program. */
typedef struct ix_binfo_t {
  const air_block_t* block;
  uint32_t n_slots, n_views, depth;
  uint8_t pure;     /* cannot park: scf.parallel may run it inline */
  uint8_t flat;     /* (func bodies) no regions, calls, linalg or copies */
  uint8_t* kinds;   /* per slot */
} ix_binfo_t;

/* A processing element of a herd: what kernels and traces are told. */
typedef struct ix_pe_t {
  const air_op_t* herd;
  const char* link_with;
  uint32_t rank;
  int64_t tile[4], sizes[4];
  char track[96];
} ix_pe_t;

typedef struct ix_env_t {
  _Atomic uint32_t refs;
  struct ix_env_t* up;
  const ix_binfo_t* bi;
  ix_pe_t* pe;             /* set for a herd body (allocated with the env) */
  air_memref_t* views;
  ix_val_t slots[];
} ix_env_t;

typedef struct ix_strand_t ix_strand_t;

typedef struct ix_wlist_t {
  ix_strand_t* head;
  ix_strand_t* tail;
} ix_wlist_t;

typedef struct ix_tok_t {
  _Atomic uint32_t refs;
  _Atomic uint32_t fired;
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
  uint32_t wave;             /* schedule path: 1 + the wave it completes, else 0 */
} ix_tok_t;

/* Why a strand is parked; enough to print the deadlock report. */
enum {
  IX_WHY_DEP = 1,   /* dependency token of `op` */
  IX_WHY_VALUE,     /* an air.execute result `vid` not yet produced */
  IX_WHY_JOIN,      /* sync hierarchy op / scf.parallel waiting for its body */
  IX_WHY_INIT,      /* op of an scf.parallel instance waiting for an init token */
  IX_WHY_AFFINITY,
  IX_WHY_PUT,
  IX_WHY_GET,
  IX_WHY_WAVE,      /* the schedule's driver: no wave can open */
  IX_WHY_EDGE,      /* a command waiting for one ordered before it in its wave */
};

typedef struct ix_park_t {
  uint8_t why;
  const struct ix_chq_t* q;
  const air_op_t* op;
  air_vid_t vid;
  ix_tok_t* tok;
  const struct ix_chan_t* ch;
  uint64_t ticket;          /* PUT/GET: channel wait lists are kept in ticket order */
  uint32_t rank;
  int64_t idx[AIR_MAX_RANK];
} ix_park_t;

enum { IX_F_BODY = 1, IX_F_OP, IX_F_WAIT, IX_F_REDUCE, IX_F_SCHED };
enum { IX_FL_SEQ = 1,                /* scf.parallel run inline, instance by instance */
       IX_FL_EDGE = 2 };             /* F_WAIT on in-wave predecessors (schedule path) */
enum { IX_AFTER_NONE = 0, IX_AFTER_NEXT };

typedef struct ix_frame_t {
  uint8_t kind, flags, after;
  const air_op_t* owner;   /* op this frame executes or belongs to */
  const air_op_t* pc;      /* BODY / OP: op to run next */
  ix_env_t* env;           /* a ref */
  int64_t iv, ub, step;    /* loops */
  uint64_t inst, k;        /* parallel instance; reduce progress */
  const air_op_t* tk_op;   /* channel op holding `ticket` (its issue order) */
  uint64_t ticket;
  void* state;             /* ix_par_t* (ref) or ix_tok_t** (F_WAIT) */
  uint32_t n_wait;
} ix_frame_t;

typedef struct ix_run_t ix_run_t;

struct ix_strand_t {
  air_task_t task;         /* first: the pool hands it back */
  ix_run_t* run;
  ix_frame_t* frames;
  uint32_t n, cap;
  ix_tok_t* join;          /* released when the strand ends (a ref) */
  ix_tok_t* scope;         /* parent of tokens this strand makes (a ref) */
  ix_pe_t* pe;             /* borrowed: the herd body env outlives the strand */
  struct ix_space_t* space; /* channel state of its launch instance (run-owned) */
  /* Tokens every op this strand runs waits for first (refs): the init tokens of
   * the scf.parallel instances it belongs to, passed on to what it dispatches. */
  ix_tok_t** extra;
  uint32_t n_extra;
  uint32_t worker;
  bool abandoned;          /* a watchdog gave up on its kernel */
  bool fixed_frames;       /* `frames` is not the allocator's (the inline path's stack) */
  ix_strand_t *wprev, *wnext;
  ix_wlist_t* wlist;
  ix_strand_t *pprev, *pnext;   /* run->parked */
  ix_park_t park;
};

/* scf.parallel state shared by the instances and the reducing strand. */
typedef struct ix_par_t {
  _Atomic uint32_t refs;
  uint64_t n;
  uint32_t rank, n_inits;
  int64_t lb[AIR_MAX_RANK], step[AIR_MAX_RANK], trip[AIR_MAX_RANK];
  uint8_t* kinds;          /* per init */
  ix_val_t* vals;          /* n * n_inits instance values, then n_inits accumulators */
  air_memref_t* views;     /* same layout, for memref values */
  ix_env_t* body_env;      /* empty body env the reduce regions chain to */
  ix_tok_t* join;          /* instances' completion (NULL when run inline) */
} ix_par_t;

/* Channels: one queue per put index; a broadcast put reaches n_recv receivers.
 * Transfers are numbered by the order their ops were issued: the k-th put issued
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

typedef struct ix_chq_t {
  uint64_t head;           /* oldest transfer not yet read by every receiver */
  uint64_t put_issued;     /* tickets handed to puts */
  uint64_t* get_issued;    /* per receiver: tickets handed to gets */
  ix_xfer_t* ring;         /* depth slots; transfer k lives in slot k % depth */
  ix_wlist_t putters;
  ix_wlist_t* getters;     /* per receiver */
} ix_chq_t;

/* Launch instances are independent and may run at once, so each has its own
 * channel state: a [1, 1] channel used in a 4x4 launch is 16 channels. Ops
 * outside any launch share the run's root space. */
typedef struct ix_space_t {
  struct ix_space_t* next;
  ix_chq_t*** qs;          /* [chan][put index], made on first use */
} ix_space_t;

typedef struct ix_chan_t {
  const air_op_t* decl;
  const char* name;
  uint32_t rank;
  int64_t dims[AIR_MAX_RANK], bdims[AIR_MAX_RANK];
  int64_t depth;
  uint64_t n_put;          /* product of dims */
  uint32_t n_recv;         /* receivers per put index */
} ix_chan_t;

/* Watchdog: what each worker of the pool is doing for this run. */
enum { IX_WD_BUSY = 1, IX_WD_ABANDONABLE = 2 };
#define IX_WD_FIRED (UINT64_C(1) << 63)
typedef struct ix_wslot_t {
  _Atomic uint64_t state;  /* seq << 2 | flags, | IX_WD_FIRED once the watchdog fired */
  _Atomic int64_t t0;
  _Atomic(const air_op_t*) op;
  uint64_t seq;            /* written only by the worker */
} ix_wslot_t;

/* Pointer -> pointer open-addressing map (blocks, funcs, channels, allocations). */
typedef struct ix_map_t {
  const void** keys;
  void** vals;
  uint32_t cap, n, dead;
} ix_map_t;

/* A schedule bound to its program (interp_plan.c). Wave w's commands are
 * cmds[wave_cmd[w] .. wave_cmd[w + 1]), ascending; command c's in-wave
 * predecessors are positions in its wave's list, pred[pred_off[c] .. pred_off[c+1]).
 * A pred entry with bit 31 set is instead the index of a command of another wave
 * that must complete first (see interp_plan.c). Completing wave w opens one gate
 * of each wave in succ[succ_off[w] .. succ_off[w + 1]); wave w starts with
 * gates[w] closed. */
typedef struct ix_l3_t {
  const air_op_t* op;      /* a host-level memref.alloc the memory plan places */
  uint64_t offset, bytes;
} ix_l3_t;

struct air_interp_plan_t {
  air_allocator_t alloc;
  const air_schedule_t* schedule;
  const air_program_t* program;
  const air_partition_t* part;
  const air_op_t* entry;
  const air_op_t** ops;    /* body op i = command i */
  uint32_t n_cmds, n_waves, max_width;
  uint32_t *wave_cmd, *cmds, *gates, *succ_off, *succ, *pred_off, *pred;
  uint32_t* pos;           /* per command: its position in its wave's list */
  /* Per command: index of the token a run makes for it up front, because a
   * command of another wave waits for it (a "watch" entry in pred), or NONE. */
  uint32_t* early;
  uint32_t n_early;
  ix_l3_t* l3;             /* sorted by op address */
  uint32_t n_l3;
  uint64_t transient_size;
  uint32_t alignment;
};

/* A run's state on the schedule path. The driver (the host strand) opens waves
 * whose gates have all opened and parks on `driver` when none is ready. */
typedef struct ix_sched_t {
  const air_interp_plan_t* plan;   /* NULL: the dynamic path */
  air_interp_plan_t* owned;        /* made for this run from desc->schedule */
  uint32_t* gates;                 /* per wave: gates still closed */
  uint32_t* done;                  /* per queue: waves completed */
  uint32_t* ready;                 /* waves ready to open, in the order they became so */
  uint32_t n_ready, n_taken;
  int64_t* t_open;                 /* per wave: when it opened (traces) */
  struct ix_tok_t** scratch;       /* the driver's: tokens of the wave being opened */
  struct ix_tok_t** wave_tok;      /* per wave until it has opened (refs) */
  struct ix_tok_t** early_tok;     /* per plan->early index (refs) */
  ix_wlist_t driver;
  uint32_t n_waves, n_early;       /* copies: the plan may be gone when the run is freed */
  char* arena;                     /* L3 transients */
  void* arena_raw;                 /* when the run allocated it */
  ix_map_t live;                   /* arena address -> 1 + plan->l3 index (mem_lock) */
} ix_sched_t;

/* Strands made runnable under the lock, submitted after it is released. */
typedef struct ix_wake_t {
  air_task_t *first, *last;
  uint32_t n;
} ix_wake_t;

/* Program tables a run reads; a run made with a prep borrows the prep's. */
#define IX_TABLES                                                              \
  ix_vinfo_t* vinfo;                                                           \
  uint32_t n_values;                                                           \
  ix_binfo_t* binfos;                                                          \
  uint32_t n_binfos;                                                           \
  ix_map_t blocks;         /* air_block_t* -> ix_binfo_t* */                   \
  const air_op_t** funcs;  /* module funcs sorted by name */                   \
  uint32_t n_funcs;                                                            \
  ix_chan_t* chans;        /* sorted by name */                                \
  uint32_t n_chans;

struct air_interp_prep_t {
  _Atomic uint32_t refs;   /* the owner's, plus one per run */
  air_allocator_t alloc;
  const air_program_t* p;
  IX_TABLES
  /* Finished runs kept for the next ones (their mutexes stay initialised). */
  pthread_mutex_t free_mu;
  struct ix_run_t* free_runs;
  uint32_t n_free;
};

struct ix_run_t {
  /* Kept initialised while a run waits in its prep's free list. */
  pthread_mutex_t lock;
  pthread_mutex_t mem_lock;
  pthread_cond_t wd_cond;
  struct ix_run_t* next_free;

  /* Everything from here is cleared when a run starts. */
  air_allocator_t alloc;
  const air_program_t* p;
  const air_context_t* ctx;
  air_pool_t* pool;
  air_trace_t* trace;
  int64_t watchdog_ns;
  air_interp_done_fn_t done;
  void* user;

  air_interp_prep_t* prep; /* a reference; NULL: the tables below are the run's own */
  uint32_t live, active, abandoned;
  ix_strand_t* parked;
  _Atomic int failing;
  air_status_t status;
  bool done_called;
  _Atomic uint32_t refs;   /* 1 for the strands, 1 for the watchdog thread */

  IX_TABLES
  ix_space_t* spaces;      /* every space made (under the lock) */
  ix_space_t* root_space;

  ix_map_t allocs;         /* under mem_lock */         /* aligned data -> raw allocation */

  ix_wslot_t* wslots;
  uint32_t n_wslots;
  bool wd_stop;
  /* The watchdog thread, joined by the strand that ends the run: its last touch
   * of the run (and of the allocator) then happens before that strand's worker
   * finishes, so draining the pool orders every free of an abandoned run. */
  bool wd_running;
  pthread_t wd_thread;

  ix_sched_t sched;
};

/*---------------------------------------------------------------------------*/
/* interp.c / interp_sched.c: run lifecycle, scheduling primitives          */
/*---------------------------------------------------------------------------*/

void* ix_alloc(ix_run_t* r, size_t size);
void* ix_calloc(ix_run_t* r, size_t n, size_t size);
void ix_free(ix_run_t* r, void* p);

bool ix_map_put(ix_run_t* r, ix_map_t* m, const void* key, void* val);
void* ix_map_get(const ix_map_t* m, const void* key);
bool ix_map_del(ix_map_t* m, const void* key);

void ix_lock(ix_run_t* r);
void ix_unlock(ix_run_t* r);
/* Submits what ix_wake_* collected; call after ix_unlock. */
void ix_wake_flush(ix_run_t* r, ix_wake_t* w);
void ix_wake_all(ix_run_t* r, ix_wlist_t* l, ix_wake_t* w);   /* under lock */
void ix_wake(ix_run_t* r, ix_strand_t* s, ix_wake_t* w);       /* under lock */

/* Fails the run with `st` (taken); the first failure wins. Under lock. */
void ix_fail_locked(ix_run_t* r, air_status_t st, ix_wake_t* w);
void ix_fail(ix_run_t* r, air_status_t st);
static inline bool ix_failing(ix_run_t* r) {
  return atomic_load_explicit(&r->failing, memory_order_acquire) != 0;
}
/* `file:line:col: error: ` statuses for an op. */
air_status_t ix_err(ix_run_t* r, const air_op_t* op, air_status_code_t code, const char* fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* Parks `s` on `l` (under lock) with s->park filled in; channel ops are kept in
 * ticket order, others in arrival order. Returns false when the run is failing
 * (the caller unwinds instead). After true, unlock and return. */
bool ix_park_locked(ix_strand_t* s, ix_wlist_t* l, ix_wake_t* w);

ix_tok_t* ix_tok_new(ix_run_t* r, const air_op_t* op, ix_tok_t* parent);
void ix_tok_ref(ix_tok_t* t);
/* Holds a pending count on `t` / drops it (firing `t` when it was the last). */
void ix_tok_hold(ix_run_t* r, ix_tok_t* t);
void ix_tok_done(ix_run_t* r, ix_tok_t* t);
void ix_tok_unref(ix_run_t* r, ix_tok_t* t);
static inline bool ix_tok_fired(ix_tok_t* t) {
  return atomic_load_explicit(&t->fired, memory_order_acquire) != 0;
}

ix_strand_t* ix_strand_new(ix_run_t* r, ix_tok_t* join, ix_tok_t* scope, ix_pe_t* pe,
                           ix_space_t* space);
/* Gives `c` the tokens of `from` (may be NULL) plus `n` more (references taken). */
bool ix_strand_extra(ix_strand_t* c, const ix_strand_t* from, ix_tok_t* const* more, uint32_t n);
/* Frees a strand that was never spawned. */
void ix_strand_free(ix_strand_t* s);
/* A strand with no frames left leaves the run. */
void ix_strand_exit(ix_strand_t* s);
/* Under lock: when only abandoned strands remain, hands out the final status
 * once (`done` is then called early; see interp.c). */
bool ix_take_early_done(ix_run_t* r, air_status_t* st);
/* Drops a reference to the run; the last one frees it (and calls `done` unless
 * that happened early). */
void ix_run_unref(ix_run_t* r);
/* The module func named `name`, or NULL. */
const air_op_t* ix_find_func(const ix_run_t* r, const char* name);
/* Queues a new strand (counts it live and joined). */
void ix_spawn(ix_run_t* r, ix_strand_t* s);

/* Watchdog bracket around one long op on this strand's worker. Exit returns true
 * when the watchdog abandoned the op (the strand must unwind without the IR). */
void ix_watch_enter(ix_strand_t* s, const air_op_t* op, bool abandonable);
bool ix_watch_exit(ix_strand_t* s);

/* Records a trace event (no-op without a trace). */
void ix_trace(ix_strand_t* s, int kind, const char* track, const air_op_t* op, int64_t t0);
const char* ix_opname(const air_op_t* op);
/* "%name" of a value into buf. */
const char* ix_vname(const ix_run_t* r, air_vid_t v, char* buf, size_t n);

/*---------------------------------------------------------------------------*/
/* interp_env.c: environments, values, frames                                */
/*---------------------------------------------------------------------------*/

ix_env_t* ix_env_new(ix_run_t* r, const air_block_t* b, ix_env_t* up, bool pe);
/* Bytes of an env of block info `bi`. */
static inline size_t ix_env_size(const ix_binfo_t* bi, bool pe) {
  return sizeof(ix_env_t) + bi->n_slots * sizeof(ix_val_t) + bi->n_views * sizeof(air_memref_t) +
         (pe ? sizeof(ix_pe_t) : 0);
}
/* A top-level env in caller memory (ix_env_size bytes, aligned for ix_val_t),
 * for a body that cannot park: it holds one reference more than a new env, so
 * the frame's unref never frees it; the caller ends it with ix_env_release_at,
 * which returns false if something still holds it (never, for such a body). */
ix_env_t* ix_env_at(void* mem, const ix_binfo_t* bi);
bool ix_env_release_at(ix_run_t* r, ix_env_t* e);
void ix_env_ref(ix_env_t* e);
void ix_env_unref(ix_run_t* r, ix_env_t* e);
/* Clears an env only this strand holds, for the next loop iteration. */
void ix_env_reset(ix_run_t* r, ix_env_t* e);
/* The slot of `v` seen from `e`, or NULL (value not in scope: an internal error). */
ix_val_t* ix_slot(ix_run_t* r, ix_env_t* e, air_vid_t v);
/* Stores into v's slot in `e` (its block's env): tokens are referenced, memrefs
 * copied into the env's own view storage. */
void ix_set(ix_run_t* r, ix_env_t* e, air_vid_t v, ix_val_t x);

/* A captured value: survives the env it came from being reset. */
typedef struct ix_tv_t {
  ix_val_t v;
  uint8_t kind;
  air_memref_t m;
} ix_tv_t;
/* Captures `n` values (reports the first missing one as an error). */
air_status_t ix_capture(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_vid_t* vids,
                        uint32_t n, ix_tv_t* out);
/* Binds captured values to `vids` in `e` (moves token refs out of `tv`). */
void ix_bind(ix_run_t* r, ix_env_t* e, const air_vid_t* vids, uint32_t n, ix_tv_t* tv);
void ix_tv_drop(ix_run_t* r, ix_tv_t* tv, uint32_t n);

bool ix_push(ix_strand_t* s, const ix_frame_t* f);
void ix_pop(ix_strand_t* s);
static inline ix_frame_t* ix_top(ix_strand_t* s) { return &s->frames[s->n - 1]; }
/* The op at the top frame completed: advance past it (a dispatched op's frame
 * is popped). */
void ix_next(ix_strand_t* s);

void ix_par_unref(ix_run_t* r, ix_par_t* p);

/* Reads an index/int operand. */
air_status_t ix_get_i(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v, int64_t* out);
air_status_t ix_get_ix(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_ix_t* x,
                       int64_t* out);
air_status_t ix_get_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                         air_memref_t** out);
air_status_t ix_get_tok(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                        ix_tok_t** out);

/*---------------------------------------------------------------------------*/
/* interp_exec.c: the strand loop                                            */
/*---------------------------------------------------------------------------*/

enum { IX_CONT = 0, IX_PARKED, IX_FAILED, IX_ABANDONED };

void ix_strand_task(air_task_t* t, uint32_t worker);
/* Runs a strand that cannot park to its end on the calling thread (the inline
 * path); the outcome is the run's status. */
void ix_strand_run_inline(ix_strand_t* s);
/* Makes `st` the run's failure (if first) and returns IX_FAILED. */
int ix_failed(ix_strand_t* s, air_status_t st);
int ix_oom(ix_strand_t* s);
/* Parks on token `t` unless it fired (IX_CONT then). */
int ix_park_tok(ix_strand_t* s, ix_tok_t* t, uint8_t why, const air_op_t* op, air_vid_t v);
/* Copies `n` values read in env `se` to `dst` bound in env `de`. */
int ix_transfer(ix_strand_t* s, const air_op_t* op, ix_env_t* se, const air_vid_t* src,
                ix_env_t* de, const air_vid_t* dst, uint32_t n);
/* Captured-value buffers: on the stack up to IX_TV_SMALL. */
#define IX_TV_SMALL 8
ix_tv_t* ix_tv_get(ix_run_t* r, ix_tv_t* small, uint32_t n);
void ix_tv_put(ix_run_t* r, ix_tv_t* small, ix_tv_t* tv);

/* Ops dispatched as strands of their own on the dynamic path (they have a token). */
bool ix_is_async(const air_op_t* op);

/*---------------------------------------------------------------------------*/
/* interp_wave.c: the schedule path                                          */
/*---------------------------------------------------------------------------*/

/* Sets up r->sched for `d` (plan, gates, arena); no-op on the dynamic path. */
air_status_t ix_sched_init(ix_run_t* r, const air_interp_desc_t* d);
void ix_sched_free(ix_run_t* r);
/* The driver frame of the host strand. */
int ix_step_sched(ix_strand_t* s, ix_frame_t* f);
/* Under lock: wave `w` completed (its token fired). */
void ix_wave_done_locked(ix_run_t* r, uint32_t w, ix_wake_t* wk);
/* The deadlock report's line for the parked driver. */
void ix_sched_describe(ix_run_t* r, air_sb_t* sb);
/* memref.alloc / dealloc of a buffer the memory plan places in the transient
 * arena: true when handled (`*st` then holds the outcome). */
bool ix_sched_alloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st);
bool ix_sched_dealloc(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_status_t* st);

/* interp_par.c: scf.parallel. */
int ix_op_parallel(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
int ix_end_instance(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);
int ix_step_reduce(ix_strand_t* s, ix_frame_t* f);
int ix_end_reduce_region(ix_strand_t* s, ix_frame_t* f, const air_op_t* term);

/*---------------------------------------------------------------------------*/
/* channel.c                                                                 */
/*---------------------------------------------------------------------------*/

/* Builds r->chans from the module's channel declarations. */
air_status_t ix_chan_build(ix_run_t* r);
void ix_chan_free(ix_run_t* r);
/* A fresh channel space (NULL when out of memory). */
ix_space_t* ix_space_new(ix_run_t* r);
int ix_chan_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* Issues a put/get being dispatched: takes its ticket now, in program order.
 * False when its indices are not known yet (it then takes one when it runs). */
bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, uint64_t* ticket);
/* One report line for a strand parked in a put/get. */
void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb);

/*---------------------------------------------------------------------------*/
/* dma.c: access patterns                                                    */
/*---------------------------------------------------------------------------*/

int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* The access pattern of a view through lists[0..2] (evaluated in `e`). */
air_status_t ix_pat_of(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_memref_t* v,
                       const air_ixlist_t* lists, ix_pat_t* out);

/*---------------------------------------------------------------------------*/
/* compute.c / compute_linalg.c                                              */
/*---------------------------------------------------------------------------*/

/* Scalar ops: constant, binary, unary, cmp, select, cast, affine.apply. */
air_status_t ix_eval_scalar(ix_run_t* r, ix_env_t* e, const air_op_t* op);
bool ix_is_scalar_op(const air_op_t* op);
air_status_t ix_mem_op(ix_strand_t* s, ix_env_t* e, const air_op_t* op);
void ix_allocs_free(ix_run_t* r);
air_status_t ix_linalg(ix_strand_t* s, ix_env_t* e, const air_op_t* op);
/* Memory element access by type. */
double ix_load_f(const void* p, uint32_t elem);
int64_t ix_load_i(const void* p, uint32_t elem);
void ix_store_f(void* p, uint32_t elem, double x);
void ix_store_i(void* p, uint32_t elem, int64_t x);
/* Rounds a float to its element type (f16/bf16/f32 via float). */
double ix_round_f(uint32_t elem, double x);
/* Normalises an integer to its width (i1 0/1, iN sign-extended). */
int64_t ix_norm_i(uint32_t elem, int64_t x);
/* Element address of `v` at `idx` after bounds checks; NULL when out of range. */
void* ix_elem_ptr(const air_memref_t* v, const int64_t* idx, uint32_t n);

#endif /* AIR_HAL_CPU_INTERP_INTERNAL_H_ */

/* strand.h - strands: the unit of work. A strand is an explicit stack of frames
 * (block being run, next op, loop state) run by pool tasks; every PE, async op
 * and hierarchy instance is one. A strand that cannot go on parks (its waiter,
 * sync.h) and gives its worker back; whoever changes what it waits for re-queues
 * it and it retries the op from the start, so every op is written to be
 * idempotent up to the point where it may park.
 *
 * Completion: a strand joins a token (`join`, one pending count while the strand
 * lives) and makes its new tokens children of `scope`, so a token fires when its
 * op and everything dispatched inside it are done.
 *
 * Extension point: a new frame kind is an IX_F_* here and its step in loop.c;
 * state a frame shares with other frames or strands is an ix_shared_t (its
 * release hook frees it when the last frame lets go). */
#ifndef AIR_HAL_CPU_INTERP_STRAND_H_
#define AIR_HAL_CPU_INTERP_STRAND_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/env.h"

enum {
  IX_F_BODY = 1, /* runs a block's ops from `pc` */
  IX_F_OP,       /* runs the one op `pc` (a dispatched op's strand) */
  IX_F_WAIT,     /* waits for the tokens in `state` */
  IX_F_REDUCE,   /* folds scf.parallel instances' values (parallel.c) */
  IX_F_OPEN,     /* opens the schedule's waves (waves.c) */
};
enum { IX_FL_SEQ = 1,                /* scf.parallel run in sequence, instance by instance */
       IX_FL_EDGE = 2,               /* F_WAIT on in-wave predecessors (schedule path) */
       IX_FL_UNIT = 4,               /* F_BODY of a herd PE whose body is a compiled unit */
       IX_FL_CHAIN = 8,              /* F_OP: an async op run in its issuer's strand (chain.h);
                                      * its env is the issuer's, not a reference */
       IX_FL_SPREAD = 16 };          /* BODY: one of its chain ops was released; its later
                                      * async ops run in place only when ready (chain.h) */
enum { IX_AFTER_NONE = 0, IX_AFTER_NEXT };

/* Frame state shared by reference (scf.parallel's, between its instances and
 * the reducing strand). */
typedef struct ix_shared_t {
  _Atomic uint32_t refs;
  void (*free)(ix_run_t* r, struct ix_shared_t* self);
} ix_shared_t;

static inline void ix_shared_ref(ix_shared_t* x) { atomic_fetch_add(&x->refs, 1); }
static inline void ix_shared_unref(ix_run_t* r, ix_shared_t* x) {
  if (atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) == 1) x->free(r, x);
}

typedef struct ix_frame_t {
  uint8_t kind, flags, after;
  /* (with tk_op, a lane of this process) the ticket's put index + 1 (0: not
   * kept) and receiver, as the issue resolved them: the op's run does not
   * resolve its channel and indices again (channel.c). */
  uint32_t tk_lp;
  const air_op_t* owner;   /* op this frame executes or belongs to */
  const air_op_t* pc;      /* BODY / OP: op to run next */
  ix_env_t* env;           /* a ref */
  int64_t iv, ub, step;    /* loops */
  uint64_t inst, k;        /* parallel instance; reduce progress */
  const air_op_t* tk_op;   /* channel op holding `ticket` (its issue order) */
  uint64_t ticket;
  void* state;             /* F_WAIT: ix_tok_t** (owned); else an ix_shared_t* (a ref) */
  uint32_t n_wait;
  uint32_t tk_rv;
  /* F_OP of an async op run in its dispatcher's strand because it was ready
   * (loop.c): its token, one pending count and a ref, released when the frame
   * goes, which fires it. */
  struct ix_tok_t* done;
  /* Traced runs only: when a herd body or an air.execute body of a PE began, for
   * its span on the PE's track (0: not traced). */
  int64_t t0;
} ix_frame_t;

typedef struct ix_strand_t {
  ix_waiter_t w;           /* first: the pool hands back &w.task */
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
  uint32_t n_extra, cap_extra;
  uint32_t worker;
  /* The watchdog record its current long op posted (watchdog.c): the state
   * word with its sequence number, the start and the op, so the op's exit
   * clears that record only while it is still this op's. */
  uint64_t wd_ticket;
  int64_t wd_t0;
  const air_op_t* wd_op;
  bool abandoned;          /* a watchdog gave up on its kernel */
  bool fixed_frames;       /* `frames` is not the allocator's (the inline path's stack) */
  bool pe_counted;         /* counted in pe->strands (traced runs): pe is alive until it leaves */
  /* Set under the run lock by a stall while the strand is parked in a chain op
   * (chain.h): on its wake it hands that op to a strand of its own. */
  bool release;
} ix_strand_t;

/* Every waiter is a strand's. */
static inline ix_strand_t* ix_strand_of(ix_waiter_t* w) { return (ix_strand_t*)w; }

/* What a step of a strand did: the op completed or pushed a frame (CONT), the
 * strand parked (PARKED: it may already run elsewhere, touch nothing), the run
 * failed (FAILED), or the watchdog abandoned the op (ABANDONED). */
enum { IX_CONT = 0, IX_PARKED, IX_FAILED, IX_ABANDONED };

/* Ops dispatched as strands of their own on the dynamic path (they have a token). */
static inline bool ix_is_async(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_HIER: case AIR_OPC_CHANNEL_IO: case AIR_OPC_DMA: case AIR_OPC_WAIT_ALL:
    case AIR_OPC_EXECUTE: case AIR_OPC_CUSTOM:
      return op->n_results > 0;
    default: return false;
  }
}

/* Ops that neither touch memory nor start work need not wait for an
 * scf.parallel's init tokens: only index math and control structure. */
static inline bool ix_init_free(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_SUBVIEW:
    case AIR_OPC_RESHAPE: case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF:
    case AIR_OPC_AFFINE_IF: case AIR_OPC_PARALLEL: case AIR_OPC_TERNARY: case AIR_OPC_SWITCH:
    case AIR_OPC_FORALL: case AIR_OPC_TRANSPOSE: case AIR_OPC_EXTRACT_META:
    case AIR_OPC_REINTERPRET:
      return true;
    default: return false;
  }
}

ix_strand_t* ix_strand_new(ix_run_t* r, ix_tok_t* join, ix_tok_t* scope, ix_pe_t* pe,
                           struct ix_space_t* space);
/* Gives `c` the tokens of `from` (may be NULL) plus `n` more (references taken). */
bool ix_strand_extra(ix_strand_t* c, const ix_strand_t* from, ix_tok_t* const* more, uint32_t n);
/* Adds `n` tokens (references taken) on top of the strand's own: an scf.parallel
 * run in sequence in this strand (parallel.c) makes its instances' ops wait for
 * its init tokens as they would on strands of their own. */
bool ix_strand_extra_push(ix_strand_t* s, ix_tok_t* const* toks, uint32_t n);
/* Drops the tokens above the first `n` (those ops after the scf.parallel do
 * not wait for); wait_ready may have dropped more already, once fired. */
void ix_strand_extra_trim(ix_strand_t* s, uint32_t n);
/* Frees a strand that was never spawned. */
void ix_strand_free(ix_strand_t* s);
/* Queues a new strand (counts it live and joined). */
void ix_spawn(ix_run_t* r, ix_strand_t* s);
/* The same under the lock: counted now, queued by ix_wake_flush(w) after the
 * lock is released (a strand made for a message counts in the same hold of the
 * lock as the message, rank_wire.h). */
void ix_spawn_locked(ix_run_t* r, ix_strand_t* s, ix_wake_t* w);
/* ix_spawn, or - when `t` is given and has not fired - the strand counted and
 * parked on `t` with park reason `why` at once, in one hold of the lock that
 * also takes the pending count of `parent` (may be NULL) for a token made by
 * ix_tok_new_unlocked. */
void ix_spawn_new(ix_run_t* r, ix_strand_t* s, ix_tok_t* parent, ix_tok_t* t, uint8_t why,
                  const air_op_t* op, air_vid_t v);
/* A strand with no frames left leaves the run; the last one ends it. Returns a
 * strand the exit woke, for the caller's worker to run next (NULL: none; the
 * others went to the pool). */
ix_strand_t* ix_strand_exit(ix_strand_t* s);
/* Under lock: when only abandoned strands remain, hands out the final status
 * once (`done` is then called early; see start.c). */
bool ix_take_early_done(ix_run_t* r, air_status_t* st);

bool ix_push(ix_strand_t* s, const ix_frame_t* f);
void ix_pop(ix_strand_t* s);
static inline ix_frame_t* ix_top(ix_strand_t* s) { return &s->frames[s->n - 1]; }
/* The op at the top frame completed: advance past it (a dispatched op's frame
 * is popped). */
void ix_next(ix_strand_t* s);

/* Makes `st` the run's failure (if first) and returns IX_FAILED. */
int ix_failed(ix_strand_t* s, air_status_t st);
int ix_oom(ix_strand_t* s);
/* Parks on token `t` unless it fired (IX_CONT then). */
int ix_park_tok(ix_strand_t* s, ix_tok_t* t, uint8_t why, const air_op_t* op, air_vid_t v);
/* Copies `n` values read in env `se` to `dst` bound in env `de`. */
int ix_transfer(ix_strand_t* s, const air_op_t* op, ix_env_t* se, const air_vid_t* src,
                ix_env_t* de, const air_vid_t* dst, uint32_t n);

#endif /* AIR_HAL_CPU_INTERP_STRAND_H_ */

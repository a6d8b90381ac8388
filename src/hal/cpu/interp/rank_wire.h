/* rank_wire.h - the messages a run exchanges with its peer processes while an
 * air.rank spans them (under a transport of more than one process,
 * docs/scale-out.md "Channels across processes"): a courier thread that sends,
 * the transport's listener that receives, message counts, and the distributed
 * deadlock detection built on them.
 *
 * Sending: ix_wire_post_locked queues a message under the run lock; the run's
 * courier thread sends it (the transport's `send` may block until the peer
 * receives a large message, so neither a worker holding the lock nor the
 * listener ever calls it). Messages to one process leave in the order posted.
 *
 * Receiving: the listener hands channel messages to the hook given to
 * ix_wire_start (channel.c's), and handles the control messages itself.
 *
 * Deadlock across processes (counting termination detection): a process is
 * *quiet* when none of its strands can run except ones blocked in a transport
 * agreement (r->active == in_agree); only a message can wake it. While every
 * process spans the air.rank, process 0's courier sends PROBE waves; each process
 * answers with (quiet, in agreement, channel messages sent, received). Two
 * consecutive waves with every process quiet, the same totals and sent ==
 * received mean nothing is in flight and nothing can move: unless every process
 * waits in the same agreement (which completes by itself), process 0 broadcasts
 * DEADLOCK and every process fails with its own report (stall.c). A run that
 * fails for any other reason tells its peers with ABORT, and they fail naming it.
 *
 * Lower floor: knows the run, the sync floor and the transport; channel.c and
 * rank.c call into it, it calls up only through the hook and r->hooks. */
#ifndef AIR_HAL_CPU_INTERP_RANK_WIRE_H_
#define AIR_HAL_CPU_INTERP_RANK_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu/interp/sync.h"
#include "runtime/base/strbuf.h"

enum {
  IX_W_RESERVE = 1, /* origin -> home: take a ticket now (an async op's issue) */
  IX_W_PUT,         /* origin -> home: a transfer's bytes follow */
  IX_W_GET,         /* origin -> home: read one transfer */
  IX_W_ACK,         /* home -> origin: the put is in the channel */
  IX_W_DATA,        /* home -> origin: the transfer's bytes follow */
  IX_W_CHAN_LAST = IX_W_DATA,
  IX_W_PROBE,       /* process 0 -> all: report your state for wave `id` */
  IX_W_STATE,       /* all -> process 0 */
  IX_W_DEADLOCK,    /* process 0 -> all: fail with your deadlock report */
  IX_W_ABORT,       /* any -> all: this process failed; its message follows */
};

enum { IX_WF_PUT = 1, IX_WF_RESERVED = 2 };

/* Every message starts with this; a payload may follow. */
typedef struct ix_wmsg_t {
  uint32_t type, chan;   /* chan: index into r->tab.chans */
  uint64_t id;           /* the origin's op record (channel) or the wave (control) */
  uint64_t p, rv;        /* put index (lane) and receiver */
  int64_t count, rank;   /* elements; the origin's rank id */
  uint32_t elem, flags;
  uint32_t line, col;    /* the op at the origin / the put that sent a transfer */
  uint64_t sent, recvd;  /* STATE */
  uint32_t quiet, agree, spanning, pad;
} ix_wmsg_t;

/* A channel message for the hook, called on the listener thread. `payload`
 * is valid during the call only. */
typedef void (*ix_wire_fn_t)(ix_run_t* r, uint32_t from, const ix_wmsg_t* m,
                             const void* payload, size_t n);

/* The first rank of process p's block when n ranks are spread over P processes
 * in nearly equal blocks, and the process running rank k. */
static inline uint32_t ix_block_first(uint64_t n, uint32_t P, uint32_t p) {
  return (uint32_t)(n * p / P);
}
static inline uint32_t ix_process_of(uint64_t n, uint32_t P, uint32_t k) {
  uint32_t p = (uint32_t)((uint64_t)k * P / n);
  while (p + 1 < P && ix_block_first(n, P, p + 1) <= k) ++p;
  while (p > 0 && ix_block_first(n, P, p) > k) --p;
  return p;
}

/* The listener's way in: takes the run lock for a message just received, and
 * returns true; when the run is ending (its last strand has left, so nothing
 * waits for the message and ix_wire_stop is about to join the listener) it
 * releases the lock again and returns false: the message is dropped. */
static inline bool ix_wire_lock_live(ix_run_t* r) {
  ix_lock(r);
  if (r->live != 0) return true;
  ix_unlock(r);
  return false;
}

/* Starts the courier and the listener (once per run; later calls do nothing).
 * Not under the lock. */
air_status_t ix_wire_start(ix_run_t* r, ix_wire_fn_t on_chan);
/* Stops both (joined; nothing touches the run afterwards) and frees the state;
 * a run that failed on its own first tells its peers (ABORT). Called when the
 * last strand has left. */
void ix_wire_stop(ix_run_t* r);

/* Under lock. Queues a message (a copy); channel messages are counted as sent.
 * False when out of memory. */
bool ix_wire_post_locked(ix_run_t* r, uint32_t to, const ix_wmsg_t* m, const void* payload,
                         size_t n);
/* The same without the lock held (the payload is copied outside it); a strand
 * still running sends it, so no wave finds the process quiet before it counts. */
bool ix_wire_send(ix_run_t* r, uint32_t to, const ix_wmsg_t* m, const void* payload, size_t n);
/* Under lock: counts a channel message received (in the same hold of the lock
 * as the wake or spawn it causes, so a wave never sees it received but idle). */
void ix_wire_recvd_locked(ix_run_t* r);
/* Under lock: this process spans an air.rank (its channels may be served by
 * peers; the local deadlock check defers to the distributed one), `lanes` the
 * rank op's shared channel space; off again when it ends. */
void ix_wire_span_locked(ix_run_t* r, bool on, struct ix_space_t* lanes);
/* Under lock: the current air.rank's lanes while spanning, else NULL. */
struct ix_space_t* ix_wire_lanes(const ix_run_t* r);
/* Under lock: whether the local deadlock check must defer (spanning and no
 * distributed verdict yet). */
bool ix_wire_defer_locked(const ix_run_t* r);
/* Under lock: the failure about to be raised is one every process finds at
 * the same time (processes at different collectives): no ABORT is sent, so
 * each reports its own view rather than the first peer's. */
void ix_wire_failure_shared_locked(ix_run_t* r);
/* Under lock: whether the distributed detection declared a deadlock. */
bool ix_wire_verdict(const ix_run_t* r);
/* Under lock: a strand enters/leaves a blocking transport agreement at `op`
 * (`what` says which collective, for the report). */
void ix_wire_agree_locked(ix_run_t* r, bool enter, const air_op_t* op, const char* what);
/* Under lock: the report's line for a strand blocked in an agreement (none
 * when there is none). */
void ix_wire_describe(ix_run_t* r, air_sb_t* sb);
/* Under lock: tickets an origin reserved at issue (RESERVE), by origin process
 * and op record. Take returns false when there is none. */
bool ix_wire_ticket_put_locked(ix_run_t* r, uint32_t from, uint64_t id, uint64_t ticket);
bool ix_wire_ticket_take_locked(ix_run_t* r, uint32_t from, uint64_t id, uint64_t* ticket);

#endif /* AIR_HAL_CPU_INTERP_RANK_WIRE_H_ */

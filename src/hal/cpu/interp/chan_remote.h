/* chan_remote.h - the origin side of a channel put/get whose lane lives in
 * another process (ranks spread over processes, docs/scale-out.md "Channels
 * across processes"). channel.c decides which lanes are remote and serves the
 * lanes it holds (the home side, proxies); this file sends a strand's PUT or GET
 * to the lane's home, parks the strand (IX_WHY_REMOTE) until the ACK or DATA
 * comes back, and then finishes the op in the strand (the DATA is scattered into
 * the destination by the woken strand, never by the listener).
 *
 * Ordering: an async op reserves its ticket when it is issued (a RESERVE sent
 * then, in program order; messages to one process arrive in the order sent),
 * so two async gets of one strand at one index read the transfers in program
 * order across processes too. A blocking op takes its ticket when its message
 * arrives. */
#ifndef AIR_HAL_CPU_INTERP_CHAN_REMOTE_H_
#define AIR_HAL_CPU_INTERP_CHAN_REMOTE_H_

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/cpu/interp/strand.h"
#include "runtime/base/strbuf.h"

/* What channel.c resolved for a put/get on a remote lane. */
typedef struct ix_rio_t {
  const ix_chan_t* c;
  uint32_t chan, home;     /* channel number; the process holding the lane */
  uint64_t p, rv;          /* lane (put index) and receiver */
  int64_t rank;            /* the rank running the op */
  const int64_t* idx;      /* the op's indices (c->rank) */
  const ix_pat_t* pat;     /* the op's view (NULL at issue) */
  const int64_t *pb, *pa;  /* padding of a put (padded) */
  bool padded;
  int64_t count;
  uint32_t elem, esize;
} ix_rio_t;

/* Issues async `op`: reserves its ticket at the home now. *id is what the op's
 * frame keeps as its ticket. False when out of memory. */
bool ix_chan_remote_issue(ix_strand_t* s, const air_op_t* op, const ix_rio_t* io, uint64_t* id);
/* Runs the put/get (a step handler: may park). */
int ix_chan_remote_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_rio_t* io);
/* An ACK or DATA from a home (on the listener thread). */
void ix_chan_remote_reply(ix_run_t* r, uint32_t from, const ix_wmsg_t* m, const void* payload,
                          size_t n);
/* The deadlock report's line for a strand parked in IX_WHY_REMOTE. */
void ix_chan_remote_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb);
/* Frees the records a failed run left. */
void ix_chan_remote_free(ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_CHAN_REMOTE_H_ */

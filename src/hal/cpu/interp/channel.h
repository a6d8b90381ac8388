/* channel.h - the channel op family: air.channel.put/get with depth, bundles
 * and broadcast, in channel spaces (one per launch instance, ops outside any
 * launch share the run's root space). Which transfer a put/get moves is fixed
 * when it is issued (its ticket), as a DMA engine takes buffer descriptors in
 * order.
 *
 * Ranks in several processes: the lanes every rank shares live one per process
 * (a lane's home); an op on a lane held elsewhere goes through chan_remote.c and
 * the home runs it as a proxy (the ticket order and park reasons stay).
 *
 * Files: chan_lane.h (spaces, lanes, the lane lock; the space functions the
 * hierarchy ops call), chan_home.h (serving other processes' ops), this one
 * (running the ops, the deadlock line, the unread check).
 *
 * Extension point: a cheaper transfer (a put handing its buffer to the get
 * without the copy) changes ix_chan_io only. */
#ifndef AIR_HAL_CPU_INTERP_CHANNEL_H_
#define AIR_HAL_CPU_INTERP_CHANNEL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/chan_home.h"
#include "hal/cpu/interp/chan_lane.h"
#include "hal/cpu/interp/strand.h"
#include "runtime/base/strbuf.h"

/* Runs a put or get (a step handler: may park). */
int ix_chan_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* The same with the op's record (ix_oprec, may be NULL) already looked up. */
int ix_chan_run(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_oprec_t* rec);
/* Issues a put/get being dispatched: takes its ticket now, in program order.
 * False when its indices are not known yet (it then takes one when it runs).
 * `now` (may be NULL) tells, in the same lock, whether the op would complete
 * at once without waiting: its transfer is in the ring (get) or its slot is
 * free (put). That stays true once true (only the holder of the ticket moves
 * that transfer). The ticket goes to f->ticket; for a lane of this process the
 * frame also keeps where it lies (tk_lp, tk_rv), which the op's run reads
 * instead of resolving the op again. The caller sets f->tk_op. */
bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, ix_frame_t* f, bool* now);
/* The deadlock report's line for a strand parked in a put/get. */
void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb);
/* At the end of a run that otherwise succeeded: FAILED_PRECONDITION when a
 * channel index still holds transfers nobody read (more puts than gets: the spec
 * requires them to balance), one line per channel index naming both counts;
 * NULL when every put was read. No strand may be live. */
air_status_t ix_chan_unread(ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_CHANNEL_H_ */

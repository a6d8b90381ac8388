/* channel.h - the channel op family: air.channel.put/get with depth, bundles
 * and broadcast, in channel spaces (one per launch instance, ops outside any
 * launch share the run's root space). Which transfer a put/get moves is fixed
 * when it is issued (its ticket), as a DMA engine takes buffer descriptors in
 * order.
 *
 * Extension point: a cheaper transfer (a put handing its buffer to the get
 * without the copy, or a remote rank's channel) changes ix_chan_io only; the
 * ticket order and the park reasons (IX_WHY_PUT/GET) stay. */
#ifndef AIR_HAL_CPU_INTERP_CHANNEL_H_
#define AIR_HAL_CPU_INTERP_CHANNEL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/strand.h"
#include "runtime/base/strbuf.h"

/* A fresh channel space (NULL when out of memory). */
struct ix_space_t* ix_space_new(ix_run_t* r);
/* A fresh space for a launch instance inside `parent`'s rank (keeps its rank). */
struct ix_space_t* ix_space_new_in(ix_run_t* r, const struct ix_space_t* parent);
/* The space of rank `id` of an air.rank: the lanes of `shared` (one for all its
 * ranks) and the rank instance `rank` (rank.c). */
struct ix_rank_t;
struct ix_space_t* ix_space_for_rank(ix_run_t* r, struct ix_space_t* shared,
                                     struct ix_rank_t* rank, int64_t id);
/* The air.rank instance a space belongs to (NULL outside ranks) and its rank id. */
struct ix_rank_t* ix_space_rank(const struct ix_space_t* sp, int64_t* id);
/* Frees every space the run made. */
void ix_spaces_free(ix_run_t* r);
/* Runs a put or get (a step handler: may park). */
int ix_chan_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* Issues a put/get being dispatched: takes its ticket now, in program order.
 * False when its indices are not known yet (it then takes one when it runs).
 * `now` (may be NULL) tells, in the same lock, whether the op would complete
 * at once without waiting: its transfer is in the ring (get) or its slot is
 * free (put). That stays true once true (only the holder of the ticket moves
 * that transfer). */
bool ix_chan_issue(ix_strand_t* s, ix_env_t* e, const air_op_t* op, uint64_t* ticket, bool* now);
/* The deadlock report's line for a strand parked in a put/get. */
void ix_chan_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb);
/* At the end of a run that otherwise succeeded: FAILED_PRECONDITION when a
 * channel index still holds transfers nobody read (more puts than gets: the spec
 * requires them to balance), one line per channel index naming both counts;
 * NULL when every put was read. No strand may be live. */
air_status_t ix_chan_unread(ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_CHANNEL_H_ */

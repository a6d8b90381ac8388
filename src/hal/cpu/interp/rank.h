/* rank.h - the rank op family (issue 13, docs/scale-out.md): air.rank, the
 * universe, symmetric allocations and cross-rank DMA, in process. Every rank is
 * what a separate process would be: a strand of its own running the body, with
 * its own copy of the memref arguments it is given; the ranks of one air.rank
 * share its channels (channel.c's rank spaces) and address each other's
 * symmetric memrefs.
 *
 * Symmetric allocations and frees are collectives (as MPI_Win_allocate and
 * MPI_Win_free are): the k-th one every rank makes is one record; a rank waits
 * there (IX_WHY_RANK) until every rank has arrived, and the last arrival makes
 * (or frees) the buffers of all. A rank's copy of a symmetric memref sits at the
 * same offset of its own buffer, so a peer's address is this rank's shifted by
 * the buffer stride. What is left is freed when the air.rank completes. */
#ifndef AIR_HAL_CPU_INTERP_RANK_H_
#define AIR_HAL_CPU_INTERP_RANK_H_

#include <stdbool.h>

#include "hal/cpu/interp/rank_sym.h"
#include "hal/cpu/interp/strand.h"

/* air.rank: one strand per rank, joined to a completion that frees the rank
 * op's symmetric memory (a step handler; called by hier.c). */
int ix_op_rank(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);
/* air.universe.alloc: the universe is its number of ranks. */
air_status_t ix_universe(ix_run_t* r, ix_env_t* e, const air_op_t* op);
/* At the end of the run: fills the holder's copies of the ranks that used the
 * bindings themselves, frees every rank state and copy. */
void ix_ranks_free(ix_run_t* r);
/* Symmetric allocations, cross-rank dma views and the collective's deadlock
 * line are rank_sym.h's (included above). */

#endif /* AIR_HAL_CPU_INTERP_RANK_H_ */

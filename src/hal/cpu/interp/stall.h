/* stall.h - the deadlock report, installed as the run's `stalled` hook: fails a
 * run in which live strands exist and none can run, naming every blocked op,
 * its location and what it waits for (a channel's line comes from channel.c, the
 * wave opener's from waves.c). */
#ifndef AIR_HAL_CPU_INTERP_STALL_H_
#define AIR_HAL_CPU_INTERP_STALL_H_

#include "hal/cpu/interp/strand.h"

/* Under the run lock. */
void ix_stalled(ix_run_t* r, ix_wake_t* w);

#endif /* AIR_HAL_CPU_INTERP_STALL_H_ */

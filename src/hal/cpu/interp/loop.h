/* loop.h - the strand loop: steps a strand's frames, running each op through
 * its family, until the strand parks, fails or has no frames left. */
#ifndef AIR_HAL_CPU_INTERP_LOOP_H_
#define AIR_HAL_CPU_INTERP_LOOP_H_

#include "hal/cpu/interp/strand.h"

/* A spawned strand's pool task (the run's strand_task hook). */
void ix_strand_task(air_task_t* t, uint32_t worker);
/* Runs a strand that cannot park to its end on the calling thread (the inline
 * path); the outcome is the run's status. */
void ix_strand_run_inline(ix_strand_t* s);

#endif /* AIR_HAL_CPU_INTERP_LOOP_H_ */

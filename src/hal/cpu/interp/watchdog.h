/* watchdog.h - the watchdog: one thread (per air_interp_watchdog_t, which a
 * device keeps for all its dispatches) that watches what each pool worker is
 * doing for every run with a watchdog time and fails a run when one of its ops
 * runs too long. A kernel it gives up on is abandoned (it cannot be stopped):
 * its strand unwinds when the kernel returns, touching only run-owned data. */
#ifndef AIR_HAL_CPU_INTERP_WATCHDOG_H_
#define AIR_HAL_CPU_INTERP_WATCHDOG_H_

#include <stdbool.h>

#include "hal/cpu/interp/strand.h"

/* For r->watchdog_ns > 0: makes the run's per-worker records and puts the run
 * under `wd`'s thread (started by the first run; NULL: a watchdog of the run's
 * own, destroyed when it stops). Nothing to do without a watchdog time. */
air_status_t ix_watchdog_start(ix_run_t* r, air_interp_watchdog_t* wd);
/* Takes the run off its watchdog's list (no-op without one): the thread never
 * touches it afterwards. Called once the last strand has left. */
void ix_watchdog_stop(ix_run_t* r);
/* Frees the per-worker records. */
void ix_watchdog_free(ix_run_t* r);

/* Watchdog bracket around one long op on this strand's worker. Exit returns true
 * when the watchdog abandoned the op (the strand must unwind without the IR).
 * The strand remembers the record's sequence number its enter posted, so its
 * exit clears that record only while it is still this op's. */
void ix_watchdog_enter(ix_strand_t* s, const air_op_t* op, bool abandonable);
bool ix_watchdog_exit(ix_strand_t* s);

#endif /* AIR_HAL_CPU_INTERP_WATCHDOG_H_ */

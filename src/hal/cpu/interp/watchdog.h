/* watchdog.h - the watchdog: a thread per run (when the run has a watchdog time)
 * that watches what each pool worker is doing for the run and fails the run
 * when one op runs too long. A kernel it gives up on is abandoned (it cannot be
 * stopped): its strand unwinds when the kernel returns, touching only run-owned
 * data. */
#ifndef AIR_HAL_CPU_INTERP_WATCHDOG_H_
#define AIR_HAL_CPU_INTERP_WATCHDOG_H_

#include <stdbool.h>

#include "hal/cpu/interp/strand.h"

/* Starts the thread for r->watchdog_ns > 0 (the per-worker records first).
 * Nothing to do without a watchdog. */
air_status_t ix_watchdog_start(ix_run_t* r);
/* Stops and joins the thread (no-op without one). Called once the last strand
 * has left: its last touch of the run then happens before the run ends. */
void ix_watchdog_stop(ix_run_t* r);
/* Frees the per-worker records. */
void ix_watchdog_free(ix_run_t* r);

/* Watchdog bracket around one long op on this strand's worker. Exit returns true
 * when the watchdog abandoned the op (the strand must unwind without the IR). */
void ix_watchdog_enter(ix_strand_t* s, const air_op_t* op, bool abandonable);
bool ix_watchdog_exit(ix_strand_t* s);

#endif /* AIR_HAL_CPU_INTERP_WATCHDOG_H_ */

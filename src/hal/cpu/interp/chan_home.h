/* chan_home.h - the home side of channels across processes (docs/scale-out.md
 * "Channels across processes"): a put or get a peer process sends for a lane
 * this process holds runs here as a proxy, a strand of its own on the lane
 * (so it waits in the lane's lists like any op, is woken by the same code and
 * shows in the deadlock report), and its ACK or DATA goes back when it is done.
 * chan_remote.c is the origin side. */
#ifndef AIR_HAL_CPU_INTERP_CHAN_HOME_H_
#define AIR_HAL_CPU_INTERP_CHAN_HOME_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu/interp/chan_lane.h"
#include "hal/cpu/interp/rank_wire.h"

/* A channel message from a peer process (the hook rank.c gives ix_wire_start):
 * a PUT or GET for a lane this process holds becomes a proxy strand on the lane
 * (ACK or DATA go back when it is done); ACK and DATA go to chan_remote.c. */
void ix_chan_on_message(ix_run_t* r, uint32_t from, const ix_wmsg_t* m, const void* payload,
                        size_t n);
/* Where the op a proxy strand `s` serves comes from (false: `s` is not a proxy):
 * its location in the program, its rank and the process that sent it. */
bool ix_chan_proxy_site(const ix_strand_t* s, uint32_t* line, uint32_t* col, int64_t* rank,
                        uint32_t* from);

#endif /* AIR_HAL_CPU_INTERP_CHAN_HOME_H_ */

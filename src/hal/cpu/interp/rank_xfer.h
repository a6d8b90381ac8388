/* rank_xfer.h - a dma between ranks in different processes (under a transport,
 * docs/scale-out.md): rank.c finds which side is remote and where its bytes are
 * in the peer's window; this file moves them with the transport's one-sided
 * put/get, done when the data is in place. */
#ifndef AIR_HAL_CPU_INTERP_RANK_XFER_H_
#define AIR_HAL_CPU_INTERP_RANK_XFER_H_

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/strand.h"

/* The sides of a dma whose peer rank runs in another process: [0] the source,
 * [1] the destination; win NULL for a local side. The view of a remote side is
 * this rank's own copy; the peer's byte for address q of it is at window offset
 * q - mine + peer_off of `process`. */
typedef struct ix_rank_remote_t {
  struct air_rank_window_t* win[2];
  uint32_t process[2];
  char* mine[2];
  uint64_t peer_off[2];
  int64_t peer[2];
} ix_rank_remote_t;

/* The transfer of a dma with a remote side: one put/get for a contiguous run on
 * both sides, else through a packed staging buffer moved as the pattern's
 * contiguous runs. */
air_status_t ix_rank_dma_remote(ix_strand_t* s, const air_op_t* op, const air_memref_t* dv,
                                const ix_lists_t* dl, const air_memref_t* sv,
                                const ix_lists_t* sl, const ix_rank_remote_t* rem);

#endif /* AIR_HAL_CPU_INTERP_RANK_XFER_H_ */

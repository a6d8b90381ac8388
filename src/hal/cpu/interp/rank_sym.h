/* rank_sym.h - the record of one air.rank instance (rank.c makes and ends it)
 * and what rank_sym.c does with it: symmetric allocations and frees, the views
 * of a cross-rank dma, the deadlock line of a rank parked at a collective, and
 * agreeing with the peer processes on a collective. The records are the rank
 * family's own (rank.c, rank_sym.c); the other floors include rank.h, which
 * includes this, for the functions. */
#ifndef AIR_HAL_CPU_INTERP_RANK_SYM_H_
#define AIR_HAL_CPU_INTERP_RANK_SYM_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/rank.h"
#include "hal/cpu/interp/rank_xfer.h"
#include "hal/cpu/interp/strand.h"
#include "hal/cpu/interp/sync.h"
#include "runtime/base/strbuf.h"

typedef struct ix_sym_t {
  struct ix_sym_t* next;
  char* base;        /* the first local rank's buffer; rank i's is base + i * stride */
  uint64_t bytes, stride;
  void* raw;
  air_rank_window_t* win; /* under a transport: the window holding base */
  const air_op_t* op;
} ix_sym_t;

/* The k-th collective of every rank of an air.rank. */
typedef struct ix_coll_t {
  const air_op_t* op;
  uint32_t arrived;
  uint8_t* here;     /* per local rank */
  bool done, busy; /* busy: the last arrival is making it with the lock released */
  ix_sym_t* sym;     /* made (alloc) or freed (dealloc; then dangling, never read) */
  ix_wlist_t waiters;
} ix_coll_t;

typedef struct ix_rank_t {
  const air_op_t* op;
  uint32_t n, first, end; /* ranks, and the ones run here */
  struct ix_space_t* lanes;
  uint64_t* seq;          /* per local rank: collectives passed */
  ix_coll_t* colls;
  uint32_t n_colls, cap_colls;
  ix_sym_t* syms;
} ix_rank_t;

/* Whether the ranks are spread over several processes (a transport). */
static inline bool ix_rank_across(const ix_run_t* r) {
  return r->transport && r->transport->processes > 1;
}

/* The collectives processes agree on (ix_rank_agree's `what`). */
enum { K_ALLOC = 1, K_FREE = 2, K_END = 3, K_START = 4 };
/* Not under lock, under a transport: every process must be at the same
 * collective (op and kind) before any enters the transport's; a mismatch or a
 * failed peer fails here with a message instead of hanging. */
air_status_t ix_rank_agree(ix_run_t* r, const air_op_t* op, uint32_t what);

/* memref.alloc {air.symmetric}, or memref.dealloc inside a rank: a step handler
 * when the op is a collective (*handled true); otherwise *handled is false and
 * the caller runs the op as usual. */
int ix_rank_mem(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, bool* handled);
/* A dma with src_rank/dst_rank: points the views named by them at the peer
 * ranks' copies of their symmetric memrefs when those are in this process, and
 * fills `rem` for the sides whose peer is not. */
air_status_t ix_rank_dma_views(ix_strand_t* s, ix_env_t* e, const air_op_t* op,
                               air_memref_t* dst, air_memref_t* src, ix_rank_remote_t* rem);
/* The deadlock report's line for a strand parked at a collective. */
void ix_rank_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb);

#endif /* AIR_HAL_CPU_INTERP_RANK_SYM_H_ */

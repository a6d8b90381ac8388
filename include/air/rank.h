/* air/rank.h - ranks: the level above the launch (docs/scale-out.md).
 *
 * A program with `air.rank` runs one copy of the rank body per rank of the rank
 * space. By default every rank is a concurrent strand of the CPU driver in this
 * process. A dispatch given a transport (air_dispatch_options_t.transport) runs
 * one block of ranks per process instead: the processes of the transport all run
 * the same dispatch, each executing the host code and its own block of ranks, and
 * reach each other's ranks only through the transport. The transport is an
 * interface so the program text is the same in both modes; the MPI one is in
 * src/rank_mpi (library airrt_mpi, built when Open MPI is found).
 *
 * Each rank has its own copy of the memref arguments it is given, as a separate
 * process would: rank 0's copy is the dispatch's binding itself, the others are
 * made when the first air.rank starts. A dispatch given an air_rank_copies_t keeps
 * every rank's copy of every memref binding there, so the host can read them after
 * the dispatch completed.
 */
#ifndef AIR_RANK_H_
#define AIR_RANK_H_

#include "air/config.h"

#include <stddef.h>
#include <stdint.h>

#include "air/context.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*---------------------------------------------------------------------------*/
/* Every rank's copy of the arguments                                        */
/*---------------------------------------------------------------------------*/

typedef struct air_rank_copies_t air_rank_copies_t;

/* An empty holder; pass it in air_dispatch_options_t.rank_copies. A holder takes
 * the copies of one dispatch at a time (a later dispatch replaces them). */
AIR_API air_status_t air_rank_copies_create(air_context_t* context,
                                            air_rank_copies_t** out_copies);
AIR_API void air_rank_copies_destroy(air_rank_copies_t* copies);

/* The ranks of the last completed dispatch's rank space (the largest, when it ran
 * several air.rank ops), and the first and last+1 rank whose copies this process
 * holds (0 and count in process; a block under a transport). 0 when no rank ran. */
AIR_API uint32_t air_rank_copies_count(const air_rank_copies_t* copies);
AIR_API void air_rank_copies_local(const air_rank_copies_t* copies, uint32_t* out_first,
                                   uint32_t* out_end);

/* Copies `length` bytes at byte `offset` of rank `rank`'s copy of binding
 * `binding` (a memref parameter of the entry) into `out`. Rank 0's copy (in
 * process) is the binding's buffer itself and is read from there by the caller;
 * asking for it here works too. NOT_FOUND for a rank this process does not hold
 * or a binding no rank received, OUT_OF_RANGE past the end of the copy. */
AIR_API air_status_t air_rank_copies_read(const air_rank_copies_t* copies, uint32_t binding,
                                          uint32_t rank, uint64_t offset, void* out,
                                          uint64_t length);
/* Bytes of rank `rank`'s copy of `binding` (0 when there is none). */
AIR_API uint64_t air_rank_copies_size(const air_rank_copies_t* copies, uint32_t binding,
                                      uint32_t rank);

/*---------------------------------------------------------------------------*/
/* Transports                                                                */
/*---------------------------------------------------------------------------*/

typedef struct air_rank_transport_t air_rank_transport_t;
/* One symmetric allocation of every process (an MPI window). */
typedef struct air_rank_window_t air_rank_window_t;

/* One contiguous piece of a one-sided transfer: `bytes` at `offset` of the
 * target's window part, from/to `local`. */
typedef struct air_rank_chunk_t {
  uint64_t offset;
  void* local;
  uint64_t bytes;
} air_rank_chunk_t;

/* Called on the transport's own thread for every message, in send order per
 * sender; `msg` is valid during the call only. */
typedef void (*air_rank_recv_fn_t)(void* user, uint32_t from_process, const void* msg,
                                   size_t length);

typedef struct air_rank_transport_vtable_t {
  void (*destroy)(air_rank_transport_t* transport);
  /* Collective: every process calls these in the same order. They may block until
   * every process has called, so the executor calls them on a thread nothing else
   * waits for. `bytes` may differ per process (a block of ranks each). */
  air_status_t (*window_create)(air_rank_transport_t* transport, uint64_t bytes,
                                void** out_base, air_rank_window_t** out_window);
  air_status_t (*window_free)(air_rank_transport_t* transport, air_rank_window_t* window);
  /* One-sided, from any thread: return when the data is in place at the target
   * (put) or here (get), with passive-target synchronisation (no call needed on
   * the target). */
  air_status_t (*put)(air_rank_transport_t* transport, air_rank_window_t* window,
                      uint32_t process, uint32_t n_chunks, const air_rank_chunk_t* chunks);
  air_status_t (*get)(air_rank_transport_t* transport, air_rank_window_t* window,
                      uint32_t process, uint32_t n_chunks, const air_rank_chunk_t* chunks);
  /* Messages, from any thread: `send` returns when `msg` may be reused. `listen`
   * starts delivering received messages to `recv` (NULL stops, and returns once
   * no call is running). */
  air_status_t (*send)(air_rank_transport_t* transport, uint32_t process, const void* msg,
                       size_t length);
  air_status_t (*listen)(air_rank_transport_t* transport, air_rank_recv_fn_t recv, void* user);
  /* Collective, like window_create: every process passes `key` (what it is about
   * to do) and learns the smallest and largest key passed, so processes that
   * reached different collectives find out instead of hanging in them. Waits for
   * every process, or until `cancelled(user)` returns nonzero (CANCELLED; the
   * transport may then be unusable and the processes should be ended). */
  air_status_t (*agree)(air_rank_transport_t* transport, uint64_t key, uint64_t* out_min,
                        uint64_t* out_max, int (*cancelled)(void* user), void* user);
} air_rank_transport_vtable_t;

struct air_rank_transport_t {
  const air_rank_transport_vtable_t* vtable;
  uint32_t process;   /* this process, in [0, processes) */
  uint32_t processes;
};

#ifdef __cplusplus
}
#endif
#endif /* AIR_RANK_H_ */

/* dma_share.h - DMA channel sharing: the hardware DMA channels a herd needs per
 * tile, a segment on its mem tiles and shim DMAs, and a launch on the shim DMAs.
 *
 * Every transfer endpoint takes a channel: a put or a get on one channel from one
 * scope (all of its transfers run on that channel, in order), or one side of a
 * dma_memcpy_nd (the side in the scope's memory: L1 for a herd, L2 on the mem
 * tiles or L3 on the shim DMAs for a segment or launch). Two endpoints that are
 * never active at the same time share one hardware channel, as mlir-air's channel
 * fusion merges time-multiplexed channels: every use of one is ordered against
 * every use of the other by tokens or blocking ops in their common block (loop
 * phases one after another are such ops), or they sit in different branches of
 * an if. Uses inside a pipelined loop (D > 1) or an scf.parallel of several
 * instances overlap. Copies (parallel instances, the PEs of a herd whose DMA
 * reaches the segment's memory, D for a dma_memcpy_nd) each need a channel of
 * their own. The count is a greedy weighted colouring of the conflict graph: an
 * assignment that meets it exists, and it is exact for the usual shapes (chains
 * of phases, independent streams). See docs/scheduler.md. */
#ifndef AIR_SCHEDULER_DMA_SHARE_H_
#define AIR_SCHEDULER_DMA_SHARE_H_

#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"

typedef enum air_dma_port_e {
  AIR_DMA_CORE = 0, /* a core tile's DMA: the L1 side, inside a herd */
  AIR_DMA_MEMTILE,  /* the segment's mem tiles: its L2 */
  AIR_DMA_SHIM,     /* shim DMA tiles: L3, and L2 on a device without mem tiles */
  AIR_DMA_PORTS
} air_dma_port_t;

enum { AIR_DMA_IN = 0 /* S2MM: stream to memory */, AIR_DMA_OUT = 1 /* MM2S */ };

typedef struct air_dma_endpoint_t {
  const air_op_t* op;  /* the first op using it: a put/get, a dma_memcpy_nd, the herd
                          whose PEs make the transfer, or a nested segment (a unit) */
  const char* sym;     /* the channel, or NULL */
  uint32_t port, dir;
  uint64_t copies;     /* channels it needs at once */
  uint64_t channel;    /* the first of its `copies` consecutive hardware channels */
} air_dma_endpoint_t;

typedef struct air_dma_need_t {
  uint64_t channels[AIR_DMA_PORTS][2];  /* hardware channels after sharing */
  uint64_t endpoints[AIR_DMA_PORTS][2]; /* before sharing: the sum of copies */
  air_dma_endpoint_t* eps;              /* in order of first use */
  uint32_t n_eps;
} air_dma_need_t;

/* A nested segment's total need of (port, dir), taken as one unit that overlaps
 * everything concurrent with it. */
typedef uint64_t (*air_dma_nested_fn)(void* ctx, const air_op_t* segment, uint32_t port,
                                      uint32_t dir);

/* Counts the body of `scope` (a herd, segment or launch) for target `t`. Only the
 * ports the scope owns are counted: CORE for a herd, MEMTILE and SHIM otherwise
 * (with the PEs of nested herds making their non-L1 sides). Fills *out (free with
 * air_dma_need_free); RESOURCE_EXHAUSTED when out of memory. */
air_status_t air_dma_share(const air_allocator_t* a, const air_program_t* p,
                           const air_target_t* t, const air_op_t* scope,
                           air_dma_nested_fn nested, void* ctx, air_dma_need_t* out);
void air_dma_need_free(const air_allocator_t* a, air_dma_need_t* need);

/* "the dma_memcpy_nd at 12:5", "@chan", "segment @s" for messages, into buf. */
const char* air_dma_endpoint_name(const air_dma_endpoint_t* e, char* buf, size_t size);

#endif /* AIR_SCHEDULER_DMA_SHARE_H_ */

/* pack_sweep.h - greedy placement in O(log live) per buffer, for the orders in
 * which the placed buffers that overlap each new one are exactly the placed
 * buffers live at one time point: program order (a sweep forward from the
 * start) and peak-out order (the buffers live at a pivot slot first, then the
 * later ones by start time forward and the earlier ones by end time backward).
 * Buffers live at one time are disjoint in memory, so the live set is a sorted
 * run of intervals with gaps between them; two ordered sequences over it
 * (pack_seq.h: by offset, with the largest gap of each block, and by (gap,
 * offset)) answer first-fit (the lowest gap that fits) and best-fit (the
 * smallest, lowest on ties) exactly as placing against every overlapping buffer
 * would, whatever the live set's size. The same holds outward from a window of
 * slots whose buffers are already placed (pk_sweep_around): a buffer after the
 * window overlaps exactly the placed buffers live at its start, one before it
 * those live at its last slot. See docs/packing.md. */
#ifndef AIR_SCHEDULER_PACK_PACK_SWEEP_H_
#define AIR_SCHEDULER_PACK_PACK_SWEEP_H_

#include <stdint.h>

#include "air/allocator.h"

/* The buffers, as slot ranks: buffer i is live over slots [lo[i], hi[i]) and
 * needs sz[i] bytes (> 0, lo < hi). Arrays are borrowed. */
typedef struct pk_sweep_input_t {
  uint32_t n;
  const uint32_t* lo;
  const uint32_t* hi;
  const uint64_t* sz;
} pk_sweep_input_t;

typedef struct pk_sweep_t pk_sweep_t;

pk_sweep_t* pk_sweep_create(const air_allocator_t* allocator, const pk_sweep_input_t* in);
void pk_sweep_destroy(pk_sweep_t* sw);

/* Places the buffers in `order` (a permutation of 0..n-1) one by one, each in the
 * lowest gap that fits (first_fit) or the smallest (lowest on ties), else on top
 * of the buffers it overlaps. The order must sweep from `pivot`: first every
 * buffer live at slot pivot (none when pivot < 0), then any interleaving of the
 * later buffers by start slot ascending and the earlier ones by end slot
 * descending. Writes off[i] per buffer and returns the arena size; returns
 * UINT64_MAX when `cap` would be exceeded or the order does not sweep (off[] is
 * then partial). */
uint64_t pk_sweep_place(pk_sweep_t* sw, const uint32_t* order, int64_t pivot, int first_fit,
                        uint64_t cap, uint64_t* off);

/* Places the buffers around the window of slots [w0, w1]: order[0..core) are
 * exactly the buffers live at some slot of it, already placed (off[] holds
 * their offsets, disjoint where they overlap); the rest of `order` must be any
 * interleaving of the later buffers by start slot ascending and the earlier ones
 * by end slot descending, each placed by the rule as in pk_sweep_place. Returns
 * the arena (the window's buffers included), or UINT64_MAX when `cap` would be
 * exceeded or the order does not sweep from the window. */
uint64_t pk_sweep_around(pk_sweep_t* sw, const uint32_t* order, uint32_t core, uint32_t w0,
                         uint32_t w1, int first_fit, uint64_t cap, uint64_t* off);

/* Buffers made live so far over every pass (placed, or a window's buffers
 * entering a side): the unit of the planner's budget for sweeps, each about
 * half a microsecond. */
uint64_t pk_sweep_work(const pk_sweep_t* sw);

#endif /* AIR_SCHEDULER_PACK_PACK_SWEEP_H_ */

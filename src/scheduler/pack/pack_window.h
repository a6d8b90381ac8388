/* pack_window.h - first-fit placement, in any order, of the buffers that meet
 * one window of slots [w0, w1] (pack_window.c). Every such buffer overlaps
 * every buffer live through the whole window ("through" buffers), so the placed
 * through buffers are disjoint and a through buffer overlaps everything placed;
 * only the few that start or end inside the window ("partial") need their
 * overlaps looked up. The planner places the window around the peak this way
 * (in size order: the rule that packs big buffers best) and sweeps outward from
 * it (pk_sweep_around). See docs/packing.md. */
#ifndef AIR_SCHEDULER_PACK_PACK_WINDOW_H_
#define AIR_SCHEDULER_PACK_PACK_WINDOW_H_

#include <stdint.h>

#include "air/allocator.h"
#include "scheduler/pack/pack_sweep.h"

typedef struct pk_window_t pk_window_t;

/* Scratch for windows of up to `max_buffers` buffers of `in` (borrowed). */
pk_window_t* pk_window_create(const air_allocator_t* allocator, const pk_sweep_input_t* in,
                              uint32_t max_buffers);
void pk_window_destroy(pk_window_t* w);

/* Places order[0..count) one by one, each at the lowest offset where it meets
 * no placed buffer of the list whose lifetime overlaps its own (first-fit:
 * the same offsets as placing against every overlapping buffer). Each must be
 * live at some slot of [w0, w1], and count <= max_buffers. Writes off[i] per
 * buffer and returns the arena, or UINT64_MAX when `cap` would be exceeded, a
 * buffer is not in the window, the partial buffers' overlap look-ups would
 * exceed `budget` visits, or memory ran out. */
uint64_t pk_window_place(pk_window_t* w, const uint32_t* order, uint32_t count, uint32_t w0,
                         uint32_t w1, uint64_t cap, uint64_t budget, uint64_t* off);

#endif /* AIR_SCHEDULER_PACK_PACK_WINDOW_H_ */

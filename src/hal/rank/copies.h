/* copies.h - the holder of every rank's copy of a dispatch's memref arguments
 * (air_rank_copies_t of air/rank.h), as the executor fills it: reset when a
 * dispatch's first air.rank starts, then one buffer per (binding, rank) this
 * process holds, owned by the holder. */
#ifndef AIR_HAL_RANK_COPIES_H_
#define AIR_HAL_RANK_COPIES_H_

#include <stdint.h>

#include "air/rank.h"

/* Forgets the previous dispatch's copies and records the new rank space: `count`
 * ranks, of which this process holds [first, end), `bindings` arguments. */
air_status_t air_rank_copies_reset(air_rank_copies_t* c, uint32_t count, uint32_t first,
                                   uint32_t end, uint32_t bindings);
/* A zeroed buffer of `size` bytes for rank `rank`'s copy of `binding`, owned by
 * the holder (the same one when asked twice); NULL when out of memory or out of
 * range. */
void* air_rank_copies_buffer(air_rank_copies_t* c, uint32_t binding, uint32_t rank,
                             uint64_t size);

#endif /* AIR_HAL_RANK_COPIES_H_ */

/* overwrite.h - which memref.alloc buffers every path writes whole before
 * anything reads them, so the executor need not zero them (issue 14).
 *
 * The CPU executor's memref.alloc gives zeroed memory (docs/guide.md), and
 * programs may rely on it. Zeroing a buffer the program then overwrites whole
 * is pure cost: the tiled matmul zeroes its L2 panels and L1 tiles and
 * DMAs over all of them at once. The rule is deliberately narrow, so that
 * skipping the zeroing can never be observed: scanning the ops after the alloc
 * in its block, in order, the first op that names the buffer (as an operand,
 * or anywhere inside its regions) must be
 *   - a synchronous air.dma_memcpy_nd with the buffer as its destination moved
 *     whole (`[] [] []`, no padding, no ranks) and not as its source: every
 *     element is written before anything can read one; or
 *   - memref.dealloc of it: nothing read it;
 *   - or an scf.for (or affine.for) that names it only inside its body, whose
 *     body obeys the same rule from its first op: every iteration writes the
 *     buffer whole before reading it. The loop may run no iteration, so the
 *     scan goes on after it.
 * Anything else (a read, a subview, a herd or execute that receives it, an
 * async DMA, the end of the block with nothing found: the buffer escapes or is
 * read by nothing, so zeroing is kept when in doubt) keeps the zeroing.
 * Nothing reads the buffer after a failed DMA: the run fails. */
#ifndef AIR_HAL_CPU_INTERP_OVERWRITE_H_
#define AIR_HAL_CPU_INTERP_OVERWRITE_H_

#include <stdbool.h>

#include "runtime/ir/ir.h"

/* True when `alloc` (a memref.alloc) needs no zeroing by the rule above. */
bool ix_alloc_overwritten(const air_op_t* alloc);

#endif /* AIR_HAL_CPU_INTERP_OVERWRITE_H_ */

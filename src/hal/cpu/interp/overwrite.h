/* overwrite.h - which memref.alloc buffers every path writes whole before
 * anything reads them, so the executor need not zero them (issue 14).
 *
 * The CPU executor's memref.alloc gives zeroed memory (docs/guide.md), and
 * programs may rely on it. Zeroing a buffer the program then overwrites whole
 * is pure cost: the tiled matmul zeroes its L2 panels and L1 tiles and
 * DMAs over all of them at once, the elementwise herds their three L1 tiles.
 * The rule is deliberately narrow, so that skipping the zeroing can never be
 * observed: scanning the ops after the alloc in its block, in order, the first
 * op that names the buffer (as an operand, or anywhere inside its regions) must
 * be
 *   - a synchronous air.dma_memcpy_nd with the buffer as its destination moved
 *     whole (`[] [] []`, no padding, no ranks) and not as its source: every
 *     element is written before anything can read one; or
 *   - memref.dealloc of it: nothing read it; or
 *   - an scf.for nest that stores every element: each loop runs 0 .. N step 1
 *     with constant N >= 1, its body names the buffer in one direct child
 *     only (run by every iteration), the next loop or a memref.store whose
 *     indices are distinct ivs of the nest, each spanning its dimension of the
 *     static shape (the stored value cannot come from the buffer); or
 *   - an scf.for (or affine.for) that names it only inside its body, whose
 *     body obeys the same rule from its first op: every iteration writes the
 *     buffer whole before reading it. The loop may run no iteration, so the
 *     scan goes on after it.
 *   - the same writes done asynchronously: an async whole-buffer DMA (with
 *     dependencies only), or an air.execute whose body writes the buffer whole
 *     by this rule. Then every later op of the block that names the buffer
 *     must depend on the write's token, directly or through the tokens of ops
 *     that depend on it (a set of up to 32); a synchronous air.wait_all on one
 *     of them orders all that follows. What runs after the write can only see
 *     written elements.
 * An alloc that an air.execute makes and hands out through its terminator
 * (`%t, %buf = air.execute { %a = memref.alloc ... terminator %a }`, the
 * common AIR form) is followed to the execute's result, from the execute on:
 * no op can use the result before the execute is done.
 * Anything else (a read, a subview, a herd that receives it, an execute that
 * reads it, an op not ordered after an async write, the end of the block with
 * nothing found: the buffer escapes or is read by nothing, so zeroing is kept
 * when in doubt) keeps the zeroing. Nothing reads the buffer after a failed
 * write: the run fails. */
#ifndef AIR_HAL_CPU_INTERP_OVERWRITE_H_
#define AIR_HAL_CPU_INTERP_OVERWRITE_H_

#include <stdbool.h>

#include "runtime/ir/ir.h"

/* True when `alloc` (a memref.alloc of program `p`) needs no zeroing by the
 * rule above. */
bool ix_alloc_overwritten(const air_program_t* p, const air_op_t* alloc);

#endif /* AIR_HAL_CPU_INTERP_OVERWRITE_H_ */

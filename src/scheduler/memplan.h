/* memplan.h - where every planned buffer lives: L3 transients of one submission in
 * one arena, L2 per segment (one plan shared by its instances), L1 per herd (one
 * plan shared by its tiles). Sizes are rounded up to the alignment (64 B default),
 * offsets come from the packer (pack.h) over lifetimes that guarantee two buffers
 * sharing bytes are never live at once:
 *
 *  - L3 (host level): a lifetime is [level of the alloc, level of the dealloc + 1)
 *    in the partition's levels; allocs and deallocs all sit on the host queue, so
 *    a smaller level there is a barrier-ordered earlier wave. No dealloc: live to
 *    the end of the submission.
 *  - L2 / L1 (inside a segment / herd body, any nesting depth below it counts
 *    with the op that contains it): positions are op indices in a pre-order walk
 *    of the body; a buffer lives from its alloc to the first position from which
 *    every later op is ordered after its dealloc by the body's async graph (tokens,
 *    blocking ops), so a later alloc packed over it provably starts after the free.
 *
 * Buffers are identified by their alloc op: the op's index in a pre-order walk of
 * the entry function (the entry op itself excluded), stable across print/parse. */
#ifndef AIR_SCHEDULER_MEMPLAN_H_
#define AIR_SCHEDULER_MEMPLAN_H_

#include <stdint.h>

#include "air/status.h"
#include "runtime/base/arena.h"
#include "runtime/ir/ir.h"
#include "runtime/target/target.h"
#include "scheduler/schedule.h"

/* Plans the memory of `entry` given its host-level partition (node i = body op i).
 * Arrays come from `arena`. FAILED_PRECONDITION `file:line:col: error: [memplan]
 * ...` naming the alloc when a static size is unknown, or the segment/herd when its
 * plan exceeds the target's L2/L1 capacity. */
air_status_t air_memplan_build(air_arena_t* arena, const air_allocator_t* allocator,
                               const air_program_t* program, const air_op_t* entry,
                               const air_partition_t* partition, const air_target_t* target,
                               uint32_t alignment, air_memplan_t* out);

#endif /* AIR_SCHEDULER_MEMPLAN_H_ */

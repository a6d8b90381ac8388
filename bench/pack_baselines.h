/* pack_baselines.h - the placement rules of three production memory planners,
 * re-implemented as plainly as possible so the packer can be measured against
 * them (PERFORMANCE.md, arena-pack). All three place one buffer at a time into
 * the smallest gap left between placed buffers whose lifetimes overlap it (else
 * on top); they differ in the order:
 *   iree-order  IREE LayoutSlices: program order, (start, end) ascending
 *   tflite      TFLite greedy-by-size: whole-run buffers first, then size
 *               descending, first use ascending
 *   xla-best    XLA heap simulator: the smaller of size-descending (ties: longer
 *               lifetime first) and lifetime-descending (ties: larger first)
 * Lifetimes are half-open [lower, upper) as in the instance files, and sizes are
 * rounded up to the alignment, as the packer does. O(n^2), deliberately. */
#ifndef AIR_BENCH_PACK_BASELINES_H_
#define AIR_BENCH_PACK_BASELINES_H_

#include <stddef.h>
#include <stdint.h>

#include "scheduler/pack/pack.h"

typedef enum pack_baseline_e {
  PACK_BASELINE_IREE,
  PACK_BASELINE_TFLITE,
  PACK_BASELINE_XLA,
  PACK_BASELINE_COUNT
} pack_baseline_t;

/* The runtime names of TOOLS.md: "iree-order", "tflite", "xla-best". */
const char* pack_baseline_name(pack_baseline_t which);

/* Plans with one rule; writes offsets[i] and *arena. Returns 0, or -1 when out of
 * memory. Inputs must be valid (upper >= lower, alignment a power of two). */
int pack_baseline_run(pack_baseline_t which, const air_pack_buffer_t* buffers, size_t count,
                      uint64_t alignment, uint64_t* offsets, uint64_t* arena);

#endif /* AIR_BENCH_PACK_BASELINES_H_ */

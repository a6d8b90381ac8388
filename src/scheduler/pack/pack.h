/* pack.h - offline packing of transient buffers into one arena (dynamic storage
 * allocation): every buffer has a half-open lifetime [lower, upper) and a size, and
 * two buffers whose lifetimes overlap must get disjoint byte ranges. The planner
 * returns an offset per buffer and the arena size; the lower bound (peak of live
 * aligned bytes) says how much of the arena is waste. See docs/packing.md. */
#ifndef AIR_SCHEDULER_PACK_PACK_H_
#define AIR_SCHEDULER_PACK_PACK_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

#define AIR_PACK_DEFAULT_ALIGNMENT 64u

typedef struct air_pack_buffer_t {
  uint64_t lower; /* first logical time the buffer is live */
  uint64_t upper; /* first time it is dead again; upper == lower: never live */
  uint64_t size;  /* bytes; rounded up to the alignment */
} air_pack_buffer_t;

enum {
  /* Only the greedy candidates, no improvement search (the fastest plan). */
  AIR_PACK_FLAG_NO_SEARCH = 1u << 0,
  /* Check the winning plan with an overlap sweep before returning it. */
  AIR_PACK_FLAG_VERIFY = 1u << 1,
};

typedef struct air_pack_options_t {
  uint64_t alignment; /* power of two; 0 means AIR_PACK_DEFAULT_ALIGNMENT */
  /* Work allowed for the improvement search, in units of about one neighbour
   * visit (~1-2 ns); 0 means the default, which keeps small plans near 100 ms.
   * Work, not wall time, so the same input always gives the same plan. */
  uint64_t search_budget;
  uint64_t seed; /* for randomised tie-breaking; 0 means a fixed default */
  uint32_t flags;
} air_pack_options_t;

typedef struct air_pack_result_t {
  uint64_t arena_size;  /* bytes; a multiple of the alignment */
  uint64_t lower_bound; /* peak over time of live aligned bytes */
  const char* method;   /* static name of the candidate that won, for reports */
} air_pack_result_t;

/* Plans `count` buffers: writes out_offsets[i] (a multiple of the alignment) for
 * each and fills out_result. Buffers with no lifetime or no bytes get offset 0.
 * `options` may be NULL. Fails with INVALID_ARGUMENT on upper < lower or a bad
 * alignment, OUT_OF_RANGE when the aligned sizes do not fit in 64 bits, and
 * RESOURCE_EXHAUSTED when `allocator` (NULL: the C heap) runs out. */
air_status_t air_pack_plan(const air_allocator_t* allocator, const air_pack_buffer_t* buffers,
                           size_t count, const air_pack_options_t* options, uint64_t* out_offsets,
                           air_pack_result_t* out_result);

/* The peak over time of live aligned bytes: no plan can be smaller. */
air_status_t air_pack_lower_bound(const air_allocator_t* allocator,
                                  const air_pack_buffer_t* buffers, size_t count,
                                  uint64_t alignment, uint64_t* out_bound);

/* Checks a plan: offsets aligned, each buffer inside [0, arena_size), no two
 * buffers with overlapping lifetimes sharing a byte. O(n log n). Returns
 * INTERNAL naming the first offending pair. */
air_status_t air_pack_check(const air_allocator_t* allocator, const air_pack_buffer_t* buffers,
                            size_t count, uint64_t alignment, const uint64_t* offsets,
                            uint64_t arena_size);

/* An instance read from CSV `id,lower,upper,size` (header first, columns in any
 * order). Arrays come from `allocator`; free with air_pack_instance_free. */
typedef struct air_pack_instance_t {
  air_allocator_t allocator;
  air_pack_buffer_t* buffers;
  uint64_t* ids;
  size_t count;
} air_pack_instance_t;

/* Parses CSV text; errors read `NAME:LINE: error: ...` (INVALID_ARGUMENT) for a
 * non-numeric or negative field, upper <= lower, a duplicate id, a missing or
 * unknown column, or text with no header at all. */
air_status_t air_pack_csv_parse(const air_allocator_t* allocator, const char* text, size_t length,
                                const char* name, air_pack_instance_t* out);

/* Reads and parses a file (NOT_FOUND when it cannot be opened). */
air_status_t air_pack_csv_read(const air_allocator_t* allocator, const char* path,
                               air_pack_instance_t* out);

void air_pack_instance_free(air_pack_instance_t* instance);

#endif /* AIR_SCHEDULER_PACK_PACK_H_ */

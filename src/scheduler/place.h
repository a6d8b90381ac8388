/* place.h - placement of segment instances and their herds onto partitions of
 * the target: rectangles of columns x rows on an NPU tile array, CUs of an XCD
 * on a GPU, worker groups on the CPU. Honours x_loc/y_loc/x_size/y_size,
 * affinity (same partition, serialised) and concurrency (distinct partitions,
 * co-resident). The segments of one launch are all co-resident. */
#ifndef AIR_SCHEDULER_PLACE_H_
#define AIR_SCHEDULER_PLACE_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/ir/ir.h"
#include "scheduler/resources.h"

typedef struct air_place_t {
  const air_op_t* op;      /* a segment or a herd */
  const air_op_t* launch;
  uint64_t instance;       /* iteration point of the (enclosing) segment */
  uint32_t partition;      /* equal ids share hardware (affinity) */
  /* Device coordinates: NPU column and row (compute rows start at the target's
   * first_row), GPU XCD and CU, CPU worker group and 0. */
  uint32_t x, y, w, h;
  bool is_explicit;        /* from x_loc/y_loc */
  /* NPU segments: bit c = this instance's L3 transfers use the shim DMA of
   * column c (only columns whose shim tile has a DMA). */
  uint64_t shim_cols;
} air_place_t;

typedef struct air_placement_t {
  air_allocator_t allocator;
  air_place_t* items;
  uint32_t n_items, cap_items;
} air_placement_t;

/* Places every top-level segment of every launch (nested segments live inside
 * their parent's partition and are not placed separately), its herds, and its
 * shim DMA channels. FAILED_PRECONDITION
 * `file:line:col: error: [place] ...` naming the ops when placement is impossible:
 * explicit rectangles outside the grid or overlapping, no free partition left,
 * an affinity partner too small, affinity and concurrency with the same op. */
air_status_t air_place(const air_program_t* p, const air_resources_t* r, air_placement_t* out);
void air_placement_free(air_placement_t* pl);

#endif /* AIR_SCHEDULER_PLACE_H_ */

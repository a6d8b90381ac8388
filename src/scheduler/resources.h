/* resources.h - static resource analysis of a program for one target, in the
 * spec's two stages (docs/scheduler.md): Stage 1 bounds one instance of each
 * segment (herds, L2 allocs, DMA streams; scf.for multiplies by the pipeline
 * depth D, scf.parallel and branches sum / max), Stage 2 multiplies by the
 * segment's iteration space; nested segments enter their parent as a unit. */
#ifndef AIR_SCHEDULER_RESOURCES_H_
#define AIR_SCHEDULER_RESOURCES_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/ir/ir.h"
#include "runtime/target/target.h"

/* What one scope holds at once. */
typedef struct air_res_t {
  uint64_t tiles;    /* compute tiles (GPU: CUs, one per herd) */
  uint64_t l2_bytes; /* address space 1 */
  uint64_t dma;      /* DMA channels of segment-level transfers */
} air_res_t;

typedef struct air_herd_res_t {
  const air_op_t* op;
  const air_op_t* segment;   /* innermost enclosing segment (NULL if none) */
  uint64_t nx, ny;           /* PE grid */
  uint64_t l1_bytes;         /* per PE: every L1 alloc of the body, one slot each */
  uint64_t dma_in, dma_out;  /* per PE: receiving / sending DMA channels */
} air_herd_res_t;

typedef struct air_segment_res_t {
  const air_op_t* op;
  const air_op_t* launch;    /* enclosing launch (NULL if none) */
  const air_op_t* parent;    /* enclosing segment (NULL at launch level) */
  uint64_t instances;        /* iteration-space size, 1 without one */
  air_res_t per_instance;    /* Stage 1 */
  air_res_t total;           /* Stage 2: per_instance x instances */
  uint64_t body_tiles;       /* what the body needs per instance; per_instance.tiles
                                is x_size*y_size instead when those are given */
  uint64_t herd_w, herd_h;   /* widest / tallest herd directly inside */
} air_segment_res_t;

typedef struct air_launch_res_t {
  const air_op_t* op;
  air_res_t total;           /* everything one launch instance keeps co-resident */
} air_launch_res_t;

typedef struct air_resources_t {
  air_allocator_t allocator;
  const air_target_t* target;
  air_herd_res_t* herds;
  uint32_t n_herds, cap_herds;
  air_segment_res_t* segments; /* inner segments before the ones containing them */
  uint32_t n_segments, cap_segments;
  air_launch_res_t* launches;
  uint32_t n_launches, cap_launches;
} air_resources_t;

/* Analyses `p` for target `t`. Errors (with the op's location): UNIMPLEMENTED for
 * an alloc with a dynamic shape or a non-constant iteration space / loop bound;
 * RESOURCE_EXHAUSTED when out of memory. Free with air_resources_free. */
air_status_t air_resources_analyze(const air_program_t* p, const air_target_t* t,
                                   air_resources_t* out);
void air_resources_free(air_resources_t* r);

/* Checks an analysis against its target: FAILED_PRECONDITION listing every
 * violation, one per line, `file:line:col: error: [resources] segment @s needs 20
 * tiles; npu1 has 16`. */
air_status_t air_resources_check(const air_program_t* p, const air_resources_t* r);

/* "segment @name", "herd @name", "launch (unnamed)"... into buf, for messages. */
const char* air_res_label(const air_op_t* op, char* buf, size_t size);
/* An integer attribute of `op` (x_size, x_loc, ...), or -1 when absent. */
int64_t air_res_attr_int(const air_op_t* op, const char* name);

#endif /* AIR_SCHEDULER_RESOURCES_H_ */

/* resources.h - static resource analysis of a program for one target, in the
 * spec's two stages (docs/scheduler.md): Stage 1 bounds one instance of each
 * segment (herds, L2 allocs; scf.for multiplies by the pipeline depth D,
 * scf.parallel and branches sum / max), Stage 2 multiplies by the segment's
 * iteration space; nested segments enter their parent as a unit. DMA channels
 * are counted per port (core tiles, mem tiles, shim DMAs) after channel sharing
 * (dma_share.h). */
#ifndef AIR_SCHEDULER_RESOURCES_H_
#define AIR_SCHEDULER_RESOURCES_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/ir/ir.h"
#include "runtime/target/target.h"
#include "scheduler/dma_share.h"

/* What one scope holds at once. */
typedef struct air_res_t {
  uint64_t tiles;    /* compute tiles (GPU: CUs, one per herd) */
  uint64_t l2_bytes; /* address space 1 */
  /* Hardware DMA channels after sharing on the mem tiles and shim DMAs, [port]
   * [AIR_DMA_IN / AIR_DMA_OUT] (the core port stays 0: herds count their own). */
  uint64_t ch[AIR_DMA_PORTS][2];
  uint64_t dma;      /* the sum of ch */
} air_res_t;

typedef struct air_herd_res_t {
  const air_op_t* op;
  const air_op_t* segment;   /* innermost enclosing segment (NULL if none) */
  uint64_t nx, ny;           /* PE grid */
  uint64_t l1_bytes;         /* per PE: every L1 alloc of the body, one slot each */
  uint64_t dma_in, dma_out;  /* per PE: S2MM / MM2S channels after sharing */
  air_dma_need_t dma;        /* the core-side endpoints and their channels */
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
  air_dma_need_t dma;        /* one instance's mem-tile and shim endpoints */
} air_segment_res_t;

typedef struct air_launch_res_t {
  const air_op_t* op;
  air_res_t total;           /* everything one launch instance keeps co-resident */
  air_dma_need_t dma;        /* launch-level endpoints and its segments as units */
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

/* One instance's block on the target, w columns x h rows: x_size/y_size on a tile
 * array, else the widest/tallest herd when that covers the instance's tiles, else
 * whole columns. The placer uses it, and the check counts the mem tiles of w. */
void air_res_block_size(const air_target_t* t, const air_segment_res_t* s, uint32_t* w,
                        uint32_t* h);

#endif /* AIR_SCHEDULER_RESOURCES_H_ */

/* order.h - which top-level ops of one block the async graph orders, as a
 * reachability matrix: op j finishes before op i starts when i depends on j
 * through dependency tokens or token operands (loop inits), when a blocking op (no
 * token result: later ops start after it) lies between them, or when herds or
 * segments share an affinity token (they take turns). Read by the resource
 * analysis (chain covers) and by DMA channel sharing; plus the loop facts both
 * need (pipeline depth, parallel trip counts). */
#ifndef AIR_SCHEDULER_ORDER_H_
#define AIR_SCHEDULER_ORDER_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/ir/ir.h"

/* Blocks with more ops are not ordered (every pair may overlap): the matrix is
 * n^2 bits. */
#define AIR_ORDER_MAX_OPS 512u

typedef struct air_order_t {
  const air_op_t** ops; /* n, the block's ops in order (caller-filled) */
  uint64_t* reach;      /* n x words, zeroed by the caller: bit j of row i = j before i */
  uint32_t n, words;    /* words = (n + 63) / 64 */
} air_order_t;

/* Fills o->reach from o->ops. */
void air_order_fill(air_order_t* o, const air_program_t* p);

/* Op j finishes before op i starts (j < i). */
static inline bool air_order_before(const air_order_t* o, uint32_t j, uint32_t i) {
  return j < i && (o->reach[(size_t)i * o->words + j / 64] >> (j % 64) & 1u);
}

/* No token result: ops after it in its block start when it ends. */
bool air_order_is_blocking(const air_program_t* p, const air_op_t* op);

/* Pipeline depth D of an scf.for / affine.for: its token iter_args, at least 1
 * (D iterations may be in flight together). */
uint64_t air_order_loop_depth(const air_program_t* p, const air_op_t* loop);

/* Trip count of an scf.parallel (product over its dimensions); false when a
 * bound or step is not a constant (or a step is not positive). */
bool air_order_parallel_trips(const air_program_t* p, const air_op_t* par, uint64_t* out);

/* The value is an integer constant. */
bool air_order_const_int(const air_program_t* p, air_vid_t v, int64_t* out);

#endif /* AIR_SCHEDULER_ORDER_H_ */

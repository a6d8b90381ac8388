/* verify_balance_index.h - index values for the balance pass
 * (verify_balance_index.c: what an index evaluates to at a binder point, and
 * which binder variables it depends on), with the pass state they read and the
 * step budget they spend; verify_balance.c, which counts puts and gets per
 * channel index, builds on it. */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_BALANCE_INDEX_H_
#define AIR_RUNTIME_VERIFY_VERIFY_BALANCE_INDEX_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/verify/verify_util.h"

#define STEP_LIMIT 40000000ull /* op visits + evaluations before giving up */

struct bchan_t;  /* verify_balance.c: a channel's counters */
struct bsink_t;  /* verify_balance.c: entries collected for a body */
struct bdefer_t; /* verify_balance.c: a report held back */

typedef struct bal_t {
  air_vctx_t* v;
  struct bchan_t* ch;
  int64_t* env; /* values of bound binder variables, per value id */
  uint8_t* bound;
  uint8_t* seen; /* relevance walk */
  uint32_t* rel; /* per op: bit k = dimension k of this binder is relevant */
  uint8_t* reported;
  air_vid_t* stack;
  uint32_t sp, cap_stack;
  struct bsink_t* cur; /* NULL: the global counters */
  uint64_t steps;
  bool aborted;
  air_sb_t text;
  struct bdefer_t* defer;
  uint32_t n_defer, cap_defer;
} bal_t;

/* Spends one step of the budget; false (and aborted) once it is spent. */
static inline bool air_vbal_step(bal_t* B) {
  if (B->aborted) return false;
  if (++B->steps > STEP_LIMIT) B->aborted = true;
  return !B->aborted;
}

/* The bit of a binder's dimension k in bal_t.rel (dimensions past 30 share one). */
static inline uint32_t air_vbal_dim_bit(uint32_t k) {
  return k < 31 ? 1u << k : 1u << 31;
}

/* Value `vid` at the current point (the bound binder variables in B->env): false
 * when it is not static there. */
bool air_vbal_eval(bal_t* B, air_vid_t vid, int64_t* out, int depth);
/* An affine.if's set at the current point: 1 true, 0 false, -1 unknown. */
int air_vbal_eval_set(bal_t* B, const air_op_t* o);
/* Marks in B->rel the binders that channel indices, conditions and bounds
 * depend on. */
void air_vbal_mark_relevant(bal_t* B);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_BALANCE_INDEX_H_ */

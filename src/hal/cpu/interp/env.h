/* env.h - environments: the value slots of one block execution (a loop
 * iteration, a PE's herd body, an execute region), chained to the enclosing
 * block's environment, so an async op dispatched in iteration N keeps reading
 * iteration N's values while iteration N+1 runs. Reference counted; a token in
 * a slot is a reference, a memref in a slot points at the env's own view
 * storage. Also captured values (a value that outlives the env it came from)
 * and typed reads of an op's operands. */
#ifndef AIR_HAL_CPU_INTERP_ENV_H_
#define AIR_HAL_CPU_INTERP_ENV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu/interp/sync.h"

typedef struct ix_env_t {
  _Atomic uint32_t refs;
  uint32_t depth;          /* bi->depth, read on every slot lookup (ix_slot) */
  struct ix_env_t* up;
  const ix_binfo_t* bi;
  ix_pe_t* pe;             /* set for a herd body (allocated with the env) */
  air_memref_t* views;
  ix_val_t slots[];
} ix_env_t;

ix_env_t* ix_env_new(ix_run_t* r, const air_block_t* b, ix_env_t* up, bool pe);
/* Bytes of an env of block info `bi`. */
static inline size_t ix_env_size(const ix_binfo_t* bi, bool pe) {
  return sizeof(ix_env_t) + bi->n_slots * sizeof(ix_val_t) + bi->n_views * sizeof(air_memref_t) +
         (pe ? sizeof(ix_pe_t) : 0);
}
/* A top-level env in caller memory (ix_env_size bytes, aligned for ix_val_t),
 * for a body that cannot park: it holds one reference more than a new env, so
 * the frame's unref never frees it; the caller ends it with ix_env_release_at,
 * which returns false if something still holds it (never, for such a body). */
ix_env_t* ix_env_at(void* mem, const ix_binfo_t* bi);
bool ix_env_release_at(ix_run_t* r, ix_env_t* e);
void ix_env_ref(ix_env_t* e);
void ix_env_unref(ix_run_t* r, ix_env_t* e);
/* Clears an env only this strand holds, for the next loop iteration. */
void ix_env_reset(ix_run_t* r, ix_env_t* e);
/* The env of a loop body's next iteration in *e: cleared in place when only
 * this strand holds it, else a new one for `body` (the old one unreferenced:
 * what still holds it keeps its values). False when out of memory (*e kept). */
bool ix_env_next(ix_run_t* r, ix_env_t** e, const air_block_t* body);
/* Writes a herd PE's track name, "herd @sym [x, y]", from its herd op and tile
 * ids (the name traces and reports of parked strands read). */
void ix_pe_name_at(ix_pe_t* pe, const air_op_t* herd, const int64_t* id, uint32_t n);

/* Formats `pe`'s track name when its herd start left it for later (a PE whose
 * body is a compiled unit names itself only when the unit falls back). */
void ix_pe_name(ix_pe_t* pe);

/* The slot of `v` seen from `e`, or NULL (value not in scope: an internal error).
 * Inline: every operand read of every interpreted op comes through here. */
static inline ix_val_t* ix_slot(ix_run_t* r, ix_env_t* e, air_vid_t v) {
  if (!v || v >= r->tab.n_values) return NULL;
  const ix_vinfo_t* vi = &r->tab.vinfo[v];
  if (vi->slot < 0) return NULL;
  while (e && e->depth > vi->depth) e = e->up;
  if (!e || e->depth != vi->depth || (uint32_t)vi->slot >= e->bi->n_slots) return NULL;
  return &e->slots[vi->slot];
}
/* Stores into v's slot in `e` (its block's env): tokens are referenced, memrefs
 * copied into the env's own view storage. */
void ix_set(ix_run_t* r, ix_env_t* e, air_vid_t v, ix_val_t x);

/* A captured value: survives the env it came from being reset. */
typedef struct ix_tv_t {
  ix_val_t v;
  uint8_t kind;
  air_memref_t m;
} ix_tv_t;
/* Captures `n` values (reports the first missing one as an error). */
air_status_t ix_capture(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_vid_t* vids,
                        uint32_t n, ix_tv_t* out);
/* Binds captured values to `vids` in `e` (moves token refs out of `tv`). */
void ix_bind(ix_run_t* r, ix_env_t* e, const air_vid_t* vids, uint32_t n, ix_tv_t* tv);
void ix_tv_drop(ix_run_t* r, ix_tv_t* tv, uint32_t n);
/* ix_capture then ix_bind in one step, for a destination env `de` other than
 * the source env `se` (a new instance's env): each value is copied once, with no
 * captured copy between (a view is 152 bytes; a herd PE's three views were copied
 * twice per instance per run). The same error as ix_capture for a missing value,
 * the values before it then already bound in `de` (which the caller drops). */
air_status_t ix_pass(ix_run_t* r, ix_env_t* se, const air_op_t* op, const air_vid_t* src,
                     ix_env_t* de, const air_vid_t* dst, uint32_t n);
/* Captured-value buffers: on the stack up to IX_TV_SMALL (NULL: out of memory). */
#define IX_TV_SMALL 8
ix_tv_t* ix_tv_get(ix_run_t* r, ix_tv_t* small, uint32_t n);
void ix_tv_put(ix_run_t* r, ix_tv_t* small, ix_tv_t* tv);

/* Typed reads of an operand (an error naming it when it has no such value). */
air_status_t ix_get_i(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v, int64_t* out);
air_status_t ix_get_ix(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_ix_t* x,
                       int64_t* out);
air_status_t ix_get_view(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                         air_memref_t** out);
air_status_t ix_get_tok(ix_run_t* r, ix_env_t* e, const air_op_t* op, air_vid_t v,
                        ix_tok_t** out);

#endif /* AIR_HAL_CPU_INTERP_ENV_H_ */

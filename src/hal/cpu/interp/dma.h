/* dma.h - the dma op family: air.dma_memcpy_nd. A transfer that is one
 * contiguous run on both sides moves with no pattern built (pattern.h:
 * ix_copy_flat); any other builds both patterns and copies between them. */
#ifndef AIR_HAL_CPU_INTERP_DMA_H_
#define AIR_HAL_CPU_INTERP_DMA_H_

#include "hal/cpu/interp/pattern.h"
#include "hal/cpu/interp/split.h"
#include "hal/cpu/interp/strand.h"

/* Runs an air.dma_memcpy_nd (a step handler; never parks). */
int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

/* The transfer of an air.dma_memcpy_nd without peers or list errors, once both
 * sides' lists are evaluated: ix_dma's copy and errors (also a compiled unit's,
 * through unit.c's hook). `watch`: bracket the copy with the watchdog (a unit
 * runs inside its own bracket). *t0 is set when traced. */
/* ix_dma_move's first step for an unpadded transfer: a small one that is one
 * contiguous run on both sides is moved; false (nothing moved) otherwise. */
bool ix_dma_flat(const air_memref_t* dv, const ix_lists_t* dl, const air_memref_t* sv,
                 const ix_lists_t* sl);
air_status_t ix_dma_move(ix_strand_t* s, const air_op_t* op, const air_memref_t* dv,
                         const ix_lists_t* dl, const air_memref_t* sv, const ix_lists_t* sl,
                         bool watch, int64_t* t0);

/* One side of ix_dma_1d: a dense 1-d view moved whole (packed `{0, 0}`) or
 * through `[o] [n] [1]` (`{1, 1, o, n, 1}`, or `{0, 1, n, 1}`: the offset padded
 * with a zero), the run inside the view and the view's span not overflowing, as
 * ix_pat_make would accept it (ix_flat_side_1d's test on packed lists). */
static inline bool ix_dma_side_1d(const air_memref_t* v, const int64_t* p, int64_t* start,
                                  int64_t* count) {
  if (v->rank != 1 || v->strides[0] != 1 || !v->data) return false;
  int64_t vs = v->sizes[0], last;
  if (__builtin_add_overflow(v->offset, vs - 1, &last)) return false;
  if (p[1] == 0) { /* `[] [] []` (a nonzero n_off with no sizes is the pattern path's error) */
    *start = v->offset;
    *count = vs;
    return p[0] == 0 && vs > 0;
  }
  if (p[1] != 1 || (uint64_t)p[0] > 1) return false;
  int64_t o = p[0] ? p[2] : 0, n = p[2 + p[0]], st = p[3 + p[0]];
  *start = v->offset + o;
  *count = n;
  /* n <= vs and 0 <= o <= vs - n, with vs - n >= 0 so the unsigned compare holds. */
  return n > 0 && n <= vs && (uint64_t)o <= (uint64_t)(vs - n) && (st == 1 || n == 1);
}

/* A compiled unit's transfer (hal/compiled.h's packed lists) in the commonest
 * shape, both sides dense 1-d (ix_dma_side_1d) of one element type and equal
 * counts, below the split size: moved with one memmove and true; nothing moved
 * and false for anything else (the hook then takes ix_dma_flat / ix_dma_move,
 * which also name any error). Read straight off the packed lists: the hook's
 * general path unpacks both sides, measures the bytes and tries every flat shape,
 * ~190 instructions per transfer against ~40 here (the vector_add sample runs 48
 * 1 KiB DMAs per run). */
static inline bool ix_dma_1d(const air_memref_t* dv, const int64_t* dp, const air_memref_t* sv,
                             const int64_t* sp) {
  int64_t ds, dn, ss, sn;
  if (!ix_dma_side_1d(dv, dp, &ds, &dn) || !ix_dma_side_1d(sv, sp, &ss, &sn) || dn != sn ||
      dv->elem != sv->elem)
    return false;
  int64_t es = air_elem_size((air_elem_kind_t)dv->elem), bytes;
  if (!es || __builtin_mul_overflow(dn, es, &bytes) || bytes >= IX_SPLIT_MIN) return false;
  memmove((char*)dv->data + ds * es, (const char*)sv->data + ss * es, (size_t)bytes);
  return true;
}

#endif /* AIR_HAL_CPU_INTERP_DMA_H_ */

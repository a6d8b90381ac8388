/* dma.c - the dma op family: air.dma_memcpy_nd between two views through their
 * access patterns.
 *
 * The lists are evaluated first and a transfer that is one contiguous run on
 * both sides moves with no pattern built (ix_copy_flat), as does one whose sides
 * are rows of the same length, a tile (ix_copy_rows); anything else, errors
 * included, builds both patterns as before, so the errors and their order (the
 * destination's first) are the same either way. A padded transfer (pad_before /
 * pad_after) always takes the pattern path. */
#include "hal/cpu/interp/dma.h"

#include <stdio.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

#include "hal/cpu/interp/lists.h"
#include "hal/cpu/interp/rank.h"
#include "hal/cpu/interp/rank_xfer.h"
#include "hal/cpu/interp/split.h"
#include "hal/cpu/interp/trace.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"

/* A padded transfer (pad_before / pad_after, mlir-air's mem-tile DMA padding):
 * the source's elements with zeros around each dimension land in the
 * destination, so the destination takes the padded count. */
static air_status_t copy_padded(ix_run_t* r, const air_op_t* op, const ix_pat_t* dp,
                                ix_pat_t* sp) {
  int64_t pb[IX_MAX_PAT], pa[IX_MAX_PAT];
  bool any;
  AIR_RETURN_IF_ERROR(ix_pads(r, op, sp, pb, pa, &any));
  int64_t n = ix_pat_padded_count(sp, pb, pa), nd = ix_pat_count(dp);
  if (n != nd)
    return ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "%s moves %lld elements out of the source (%lld with its padding) but %lld "
                  "into the destination",
                  ix_opname(op), (long long)ix_pat_count(sp), (long long)n, (long long)nd);
  if (!n) return NULL;
  void* buf = air_mem_alloc(&r->alloc, (size_t)n * sp->esize);
  if (!buf) return AIR_STATUS_OOM(&r->alloc, "a padded transfer");
  ix_pat_gather_padded(buf, sp, pb, pa);
  ix_pat_scatter(dp, buf);
  air_mem_free(&r->alloc, buf);
  return NULL;
}

/* Bytes the destination side names (saturating; only compared with a threshold). */
static int64_t moved_bytes(const air_memref_t* v, const ix_lists_t* l, uint32_t es) {
  int64_t n = es;
  uint32_t k_n = l->n ? l->n : v->rank;
  for (uint32_t k = 0; k < k_n; ++k) {
    int64_t d = l->n ? l->size[k] : v->sizes[k];
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

bool ix_dma_flat(const air_memref_t* dv, const ix_lists_t* dl, const air_memref_t* sv,
                 const ix_lists_t* sl) {
  uint32_t es = air_elem_size((air_elem_kind_t)dv->elem);
  return moved_bytes(dv, dl, es) < IX_SPLIT_MIN &&
         (ix_copy_flat(dv, dl, sv, sl, es) || ix_copy_rows(dv, dl, sv, sl, es));
}

/* The transfer once both sides' lists are evaluated (no peers): small
 * contiguous transfers go straight through; large ones take the pattern path,
 * which splits them across the pool's workers (split.h). */
air_status_t ix_dma_move(ix_strand_t* s, const air_op_t* op, const air_memref_t* dv,
                         const ix_lists_t* dl, const air_memref_t* sv, const ix_lists_t* sl,
                         bool watch, int64_t* t0) {
  ix_run_t* r = s->run;
  air_status_t st = NULL;
  ix_pat_t dp, sp;
  if (r->trace) *t0 = air_time_now_ns();
  uint32_t es = air_elem_size((air_elem_kind_t)dv->elem);
  bool small = moved_bytes(dv, dl, es) < IX_SPLIT_MIN;
  bool padded = op->n_attrs &&
                (air_ir_attr_get(op, "pad_before") || air_ir_attr_get(op, "pad_after"));
  if (watch) ix_watchdog_enter(s, op, false);
  bool moved = small && !padded &&
               (ix_copy_flat(dv, dl, sv, sl, es) || ix_copy_rows(dv, dl, sv, sl, es));
  if (watch) ix_watchdog_exit(s);
  if (moved) return NULL;
  st = ix_pat_from(r, op, dv, dl, &dp);
  if (!st) st = ix_pat_from(r, op, sv, sl, &sp);
  if (!st && dv->elem != sv->elem)
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "%s copies %s elements into %s elements; the types must match", ix_opname(op),
                air_elem_name((air_elem_kind_t)sv->elem), air_elem_name((air_elem_kind_t)dv->elem));
  if (!st && padded) {
    if (r->trace) *t0 = air_time_now_ns();
    if (watch) ix_watchdog_enter(s, op, false);
    st = copy_padded(r, op, &dp, &sp);
    if (watch) ix_watchdog_exit(s);
    return st;
  }
  if (!st && ix_pat_count(&dp) != ix_pat_count(&sp))
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "%s moves %lld elements out of the source but %lld into the destination",
                ix_opname(op), (long long)ix_pat_count(&sp), (long long)ix_pat_count(&dp));
  if (st) return st;
  if (r->trace) *t0 = air_time_now_ns();
  if (watch) ix_watchdog_enter(s, op, false);
  ix_split_copy(r, &dp, &sp);
  if (watch) ix_watchdog_exit(s);
  return NULL;
}

int ix_dma(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  bool peers = air_ir_attr_get(op, "src_rank") || air_ir_attr_get(op, "dst_rank") ||
               (op->flags & (AIR_OPF_SRC_RANK | AIR_OPF_DST_RANK));
  uint32_t n_ranks = ((op->flags & AIR_OPF_SRC_RANK) ? 1u : 0u) +
                     ((op->flags & AIR_OPF_DST_RANK) ? 1u : 0u);
  if (op->n_operands != 2 + n_ranks || op->n_lists < 6)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "malformed %s",
                               ix_opname(op)));
  air_memref_t *dv, *sv;
  int64_t dvals[3][IX_MAX_PAT], svals[3][IX_MAX_PAT];
  ix_lists_t dl, sl;
  air_status_t st = ix_get_view(r, f->env, op, op->operands[0], &dv);
  if (!st) st = ix_get_view(r, f->env, op, op->operands[1], &sv);
  /* src_rank/dst_rank: the named side is a peer rank's copy (rank.c). */
  air_memref_t dpeer, speer;
  ix_rank_remote_t rem = {0};
  if (!st && peers) {
    dpeer = *dv;
    speer = *sv;
    st = ix_rank_dma_views(s, f->env, op, &dpeer, &speer, &rem);
    dv = &dpeer;
    sv = &speer;
  }
  if (!st) st = ix_lists_eval(r, f->env, op, op->lists, dvals, &dl);
  if (st) return ix_failed(s, st);
  if (rem.win[0] || rem.win[1]) { /* a peer in another process (rank.c) */
    st = ix_lists_eval(r, f->env, op, op->lists + 3, svals, &sl);
    int64_t t0 = air_time_now_ns();
    ix_watchdog_enter(s, op, false);
    if (!st) st = ix_rank_dma_remote(s, op, dv, &dl, sv, &sl, &rem);
    ix_watchdog_exit(s);
    if (st) return ix_failed(s, st);
    if (r->trace) ix_trace(s, AIR_TRACK_DMA, "dma remote", op, t0);
    ix_next(s);
    return IX_CONT;
  }
  ix_pat_t dp;
  air_status_t src_st = ix_lists_eval(r, f->env, op, op->lists + 3, svals, &sl);
  if (src_st) { /* the destination's pattern error, when it has one, comes first */
    st = ix_pat_from(r, op, dv, &dl, &dp);
    if (st) air_status_free(src_st);
    return ix_failed(s, st ? st : src_st);
  }
  int64_t t0 = 0;
  st = ix_dma_move(s, op, dv, &dl, sv, &sl, true, &t0);
  if (st) return ix_failed(s, st);
  if (r->trace) {
    char track[128];
    snprintf(track, sizeof track, "dma %s", s->pe ? s->pe->track : "host");
    ix_trace(s, AIR_TRACK_DMA, track, op, t0);
  }
  ix_next(s);
  return IX_CONT;
}

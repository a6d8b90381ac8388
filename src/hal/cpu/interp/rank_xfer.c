/* rank_xfer.c - a dma between ranks in different processes (rank_xfer.h): the
 * bytes go straight between the local memref and the peer's window when both
 * sides are one contiguous run (the common case, and the one the rank_transfer
 * benchmark holds against raw MPI); any other pattern is packed into a staging
 * buffer in element order and moved as its contiguous runs. */
#include "hal/cpu/interp/rank_xfer.h"

#include "air/rank.h"
#include "hal/cpu/interp/lists.h"
#include "runtime/base/mem.h"

/* The contiguous runs of a pattern, in element order, as chunks of the peer's
 * window: pieces of `packed` (the elements packed in order) from the runs'
 * offsets. Sent in batches. */
enum { RUN_BATCH = 256 };
static air_status_t pat_runs(ix_run_t* r, const ix_pat_t* pat, char* packed,
                             const ix_rank_remote_t* rem, int side) {
  air_rank_transport_t* t = r->transport;
  ix_pat_t p = *pat;
  ix_pat_canon(&p);
  uint32_t inner = p.n && p.stride[p.n - 1] == 1 ? p.n - 1 : p.n; /* dims walked */
  uint64_t run = (inner < p.n ? (uint64_t)p.size[p.n - 1] : 1) * p.esize;
  int64_t idx[IX_MAX_PAT] = {0};
  air_rank_chunk_t ch[RUN_BATCH];
  uint32_t k = 0;
  char* mine = rem->mine[side];
  for (bool more = ix_pat_count(&p) > 0; more;) {
    int64_t el = p.start;
    for (uint32_t d = 0; d < inner; ++d) el += idx[d] * p.stride[d];
    const char* at = p.base + el * (int64_t)p.esize;
    ch[k].offset = (uint64_t)(at - mine) + rem->peer_off[side];
    ch[k].local = packed;
    ch[k].bytes = run;
    packed += run;
    ++k;
    /* Next index of the walked dims (row-major). */
    more = false;
    for (uint32_t d = inner; d-- > 0;)
      if (++idx[d] < p.size[d]) {
        more = true;
        break;
      } else {
        idx[d] = 0;
      }
    if (k == RUN_BATCH || !more) {
      air_status_t st = side ? t->vtable->put(t, rem->win[1], rem->process[1], k, ch)
                             : t->vtable->get(t, rem->win[0], rem->process[0], k, ch);
      if (st) return st;
      k = 0;
    }
  }
  return NULL;
}

air_status_t ix_rank_dma_remote(ix_strand_t* s, const air_op_t* op, const air_memref_t* dv,
                                const ix_lists_t* dl, const air_memref_t* sv,
                                const ix_lists_t* sl, const ix_rank_remote_t* rem) {
  ix_run_t* r = s->run;
  air_rank_transport_t* t = r->transport;
  uint32_t esize = air_elem_size((air_elem_kind_t)dv->elem);
  ix_flat_t d = ix_flat_side(dv, dl), f = ix_flat_side(sv, sl);
  air_status_t st = NULL;
  char* stage = NULL;
  if (d.kind == IX_FLAT_YES && f.kind == IX_FLAT_YES && d.count == f.count &&
      dv->elem == sv->elem) {
    /* One contiguous run each side: straight between the peer and local memory. */
    char* dp = (char*)dv->data + d.start * (int64_t)esize;
    char* sp = (char*)sv->data + f.start * (int64_t)esize;
    uint64_t bytes = (uint64_t)d.count * esize;
    air_rank_chunk_t g = {(uint64_t)(sp - rem->mine[0]) + rem->peer_off[0], dp, bytes};
    air_rank_chunk_t p = {(uint64_t)(dp - rem->mine[1]) + rem->peer_off[1], sp, bytes};
    if (rem->win[0] && rem->win[1]) {
      stage = air_mem_alloc(&r->alloc, (size_t)bytes);
      if (!stage) return AIR_STATUS_OOM(&r->alloc, "a cross-process dma's staging buffer");
      g.local = p.local = stage;
    }
    if (rem->win[0]) st = t->vtable->get(t, rem->win[0], rem->process[0], 1, &g);
    if (!st && rem->win[1]) st = t->vtable->put(t, rem->win[1], rem->process[1], 1, &p);
  } else {
    /* Any other pattern: packed through a staging buffer, moved as its runs. */
    ix_pat_t dp, sp;
    st = ix_pat_from(r, op, dv, dl, &dp);
    if (!st) st = ix_pat_from(r, op, sv, sl, &sp);
    if (!st && dv->elem != sv->elem)
      st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "%s copies %s elements into %s elements; the types must match", ix_opname(op),
                  air_elem_name((air_elem_kind_t)sv->elem),
                  air_elem_name((air_elem_kind_t)dv->elem));
    int64_t n = st ? 0 : ix_pat_count(&dp);
    if (!st && n != ix_pat_count(&sp))
      st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                  "%s moves %lld elements out of the source but %lld into the destination",
                  ix_opname(op), (long long)ix_pat_count(&sp), (long long)n);
    if (st) return st;
    if (!n) return NULL;
    stage = air_mem_alloc(&r->alloc, (size_t)n * esize);
    if (!stage) return AIR_STATUS_OOM(&r->alloc, "a cross-process dma's staging buffer");
    if (rem->win[0])
      st = pat_runs(r, &sp, stage, rem, 0);
    else
      ix_pat_gather(stage, &sp);
    if (!st && rem->win[1])
      st = pat_runs(r, &dp, stage, rem, 1);
    else if (!st)
      ix_pat_scatter(&dp, stage);
  }
  air_mem_free(&r->alloc, stage);
  if (st) {
    int w = rem->win[0] ? 0 : 1;
    air_status_t e = ix_err(r, op, air_status_code(st), "%s of rank %lld (process %u): %s",
                            w ? "put to" : "get from", (long long)rem->peer[w], rem->process[w],
                            air_status_message(st));
    air_status_free(st);
    return e;
  }
  return NULL;
}


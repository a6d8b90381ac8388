/* pack_window.c - first-fit inside one window of slots (see pack_window.h).
 *
 * Two ordered sequences by offset (pack_seq.h), each entry (start, end, free
 * gap below it), with the largest gap per block in a max segment tree:
 *   - `all`: the union of every placed buffer, touching intervals merged. A
 *     through buffer overlaps every buffer of the window (each meets the window,
 *     which it spans), so its first-fit offset is the lowest gap of `all` that
 *     fits: one descent.
 *   - `thr`: the placed through buffers, disjoint (they all overlap one another).
 *     A partial buffer overlaps all of them and the placed partial buffers whose
 *     lifetimes meet its own, found by a scan of the partial ones (few: those
 *     that start or end inside the window) and sorted by offset. Its offset is
 *     found by alternating "the lowest gap of thr that fits at or above x" with
 *     "x = the end of the first partial span in the way", each step passing a
 *     span, so O((partials + spans) log) per partial buffer.
 * No buffer is ever removed, so merging in `all` is amortised over insertions. */
#include "scheduler/pack/pack_window.h"

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_seq.h"
#include "scheduler/pack/pack_sort.h"

typedef struct span_t {
  uint64_t off, end;
} span_t;

struct pk_window_t {
  const air_allocator_t* a;
  pk_sweep_input_t in;
  uint32_t max;
  pk_seq_t all, thr;
  uint32_t* part; /* [max] placed partial buffers */
  uint32_t nparts;
  span_t* spans; /* [max] scratch */
};

pk_window_t* pk_window_create(const air_allocator_t* allocator, const pk_sweep_input_t* in,
                              uint32_t max_buffers) {
  pk_window_t* w = air_mem_calloc(allocator, 1, sizeof *w);
  if (!w) return NULL;
  w->a = allocator;
  w->in = *in;
  w->max = max_buffers;
  w->part = air_mem_calloc(allocator, max_buffers ? max_buffers : 1, sizeof *w->part);
  w->spans = air_mem_calloc(allocator, max_buffers ? max_buffers : 1, sizeof *w->spans);
  if (!w->part || !w->spans || !pk_seq_init(&w->all, allocator, max_buffers, 1, 0) ||
      !pk_seq_init(&w->thr, allocator, max_buffers, 1, 0)) {
    pk_window_destroy(w);
    return NULL;
  }
  return w;
}

void pk_window_destroy(pk_window_t* w) {
  if (!w) return;
  pk_seq_free(&w->all);
  pk_seq_free(&w->thr);
  air_mem_free(w->a, w->part);
  air_mem_free(w->a, w->spans);
  air_mem_free(w->a, w);
}

/* ---- gap sequences ------------------------------------------------------ */

/* The directory slot of the entry at p, or of the next one when p is past its
 * block's end. */
static uint32_t slot_of(const pk_seq_t* q, pk_at_t p) { return pk_seq_norm(q, p).d; }

/* The lowest x' >= x such that [x', x' + s) lies in a gap of q. */
static uint64_t lowest_fit(const pk_seq_t* q, uint64_t s, uint64_t x) {
  if (!q->ndir) return x;
  pk_at_t p = pk_seq_find(q, x, 0); /* the first interval starting at or above x */
  const pk_ent_t* below = pk_seq_before(q, p);
  uint64_t cur = below && below->b > x ? below->b : x;
  const pk_ent_t* above = pk_seq_at_or_next(q, p);
  if (!above || above->a - cur >= s) return cur;
  /* The lowest gap that fits above `above`. */
  pk_at_t next = pk_seq_norm(q, p);
  next.i++;
  const pk_ent_t* e = pk_seq_first_c(q, next, s);
  return e ? e->a - e->c : pk_seq_last(q)->b;
}

/* Inserts [x, e), which lies in a gap, and splits the gap. */
static void gap_insert(pk_seq_t* q, uint64_t x, uint64_t e) {
  if (!q->ndir) {
    pk_seq_insert(q, (pk_ent_t){x, e, x});
    return;
  }
  pk_at_t p = pk_seq_find(q, x, 0);
  const pk_ent_t* below = pk_seq_before(q, p);
  pk_ent_t* above = pk_seq_at_or_next(q, p);
  uint64_t gap = x - (below ? below->b : 0);
  if (above) pk_seq_set_c(q, slot_of(q, p), above, above->a - e);
  pk_seq_insert_at(q, p, (pk_ent_t){x, e, gap});
}

/* Adds [x, e) to a union of intervals: it swallows every interval it overlaps
 * or touches (the run of them is contiguous; the gap of the interval above the
 * run is set by the final insertion). */
static void merge_insert(pk_seq_t* q, uint64_t x, uint64_t e) {
  while (q->ndir && !q->oom) {
    pk_at_t p = pk_seq_find(q, x, 0);
    const pk_ent_t* below = pk_seq_before(q, p);
    if (below && below->b >= x) {
      x = below->a;
      if (below->b > e) e = below->b;
      pk_at_t at = p.i ? (pk_at_t){p.d, p.i - 1}
                       : (pk_at_t){p.d - 1, q->pool[q->dir[p.d - 1].id].n - 1};
      pk_seq_erase_at(q, at);
      continue;
    }
    const pk_ent_t* above = pk_seq_at_or_next(q, p);
    if (above && above->a <= e) {
      if (above->b > e) e = above->b;
      pk_seq_erase_at(q, pk_seq_norm(q, p));
      continue;
    }
    break;
  }
  gap_insert(q, x, e);
}

/* ---- placement ---------------------------------------------------------- */

/* Sorts spans by offset: quicksort, insertion sort for short runs. */
PK_DEFINE_SORT_BY_OFF(sort_spans, span_t, uint64_t)

/* First-fit for partial buffer b against the through buffers and the placed
 * partial ones it overlaps. */
static uint64_t partial_fit(pk_window_t* w, uint32_t b, const uint64_t* off, uint64_t* work) {
  const pk_sweep_input_t* in = &w->in;
  span_t* spans = w->spans;
  uint32_t m = 0, lo = in->lo[b], hi = in->hi[b];
  for (uint32_t k = 0; k < w->nparts; ++k) { /* branch-free: about half overlap */
    uint32_t j = w->part[k];
    spans[m] = (span_t){off[j], off[j] + in->sz[j]};
    m += (in->lo[j] < hi) & (lo < in->hi[j]);
  }
  *work += w->nparts + m;
  sort_spans(spans, m);
  uint64_t s = in->sz[b], x = 0;
  for (uint32_t i = 0;;) {
    x = lowest_fit(&w->thr, s, x);
    while (i < m && spans[i].end <= x) ++i;
    if (i == m || spans[i].off >= x + s) return x;
    x = spans[i].end; /* no position below its end fits */
  }
}

uint64_t pk_window_place(pk_window_t* w, const uint32_t* order, uint32_t count, uint32_t w0,
                         uint32_t w1, uint64_t cap, uint64_t budget, uint64_t* off) {
  const pk_sweep_input_t* in = &w->in;
  if (count > w->max || w0 > w1) return UINT64_MAX;
  pk_seq_clear(&w->all);
  pk_seq_clear(&w->thr);
  w->nparts = 0;
  uint64_t arena = 0, work = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t b = order[k];
    if (in->lo[b] > w1 || in->hi[b] <= w0) return UINT64_MAX; /* not in the window */
    int through = in->lo[b] <= w0 && in->hi[b] > w1;
    uint64_t x = through ? lowest_fit(&w->all, in->sz[b], 0) : partial_fit(w, b, off, &work);
    uint64_t top = x + in->sz[b];
    if (top > cap || work > budget) return UINT64_MAX;
    if (top > arena) arena = top;
    off[b] = x;
    if (through)
      gap_insert(&w->thr, x, top);
    else
      w->part[w->nparts++] = b;
    merge_insert(&w->all, x, top);
    if (w->all.oom || w->thr.oom) return UINT64_MAX;
  }
  return arena;
}

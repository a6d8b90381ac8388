/* pack_sweep.c - sweep placement (see pack_sweep.h).
 *
 * The live set is kept in two ordered sequences (pack_seq.h, two-level B-trees):
 *   - by offset, each live buffer as (offset, end, gap below it); the segment
 *     tree over its blocks holds each block's largest gap, so the lowest gap of
 *     at least s bytes is one descent and one block scan (first-fit), and the
 *     top of the live set is the last entry;
 *   - by (gap, offset), for the smallest gap of at least s bytes, lowest offset
 *     on ties (best-fit); kept only when best-fit runs, and only for gaps that
 *     are not empty: a buffer placed at the bottom of a gap leaves none below
 *     it, and a tight packing is mostly such buffers.
 * Placing or expiring a buffer changes its own entry and the gap of the buffer
 * above it: a few O(log live) searches and one move inside a block. Expiry
 * follows the sweep: a min-heap of end slots going forward, a max-heap of start
 * slots going back. A sweep has two sides, forward from a window and backward
 * from it, each with its own live set, advanced in the order's interleaving (so
 * a pass that overflows its cap near the window stops there, whichever side);
 * the window is one pivot slot whose buffers the sweep stacks itself, or a
 * longer one whose buffers another placer put (pk_sweep_around). */
#include "scheduler/pack/pack_sweep.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_seq.h"

#define NOT_A_SWEEP UINT64_MAX

/* ---- one side's live set ------------------------------------------------ */

typedef struct side_t {
  pk_seq_t by_off, by_gap;
  uint64_t* heap; /* [n] (key << 32 | buffer id) */
  uint32_t heap_n;
  int forward;    /* heap key: end slot (forward) or start slot (backward) */
  int64_t at;     /* the slot swept last */
} side_t;

struct pk_sweep_t {
  const air_allocator_t* a;
  pk_sweep_input_t in;
  side_t side[2]; /* forward, backward */
  uint64_t* pos;  /* [n] */
  int keep_gaps;  /* by_gap is maintained (best-fit) */
  uint64_t work;  /* buffers made live so far, over every pass */
};

static void side_clear(side_t* sd, int forward, int64_t at) {
  pk_seq_clear(&sd->by_off);
  pk_seq_clear(&sd->by_gap);
  sd->heap_n = 0;
  sd->forward = forward;
  sd->at = at;
}

/* The gap of the live buffer in entry e (slot d of the sequence by offset)
 * becomes `gap`. */
static void set_gap(side_t* sd, int keep_gaps, uint32_t d, pk_ent_t* e, uint64_t gap) {
  if (keep_gaps && e->c != gap) {
    if (e->c) pk_seq_erase(&sd->by_gap, e->c, e->a);
    if (gap) pk_seq_insert(&sd->by_gap, (pk_ent_t){gap, e->a, 0});
  }
  pk_seq_set_c(&sd->by_off, d, e, gap);
}

/* The slot of the block after p's when p is past its block's end. */
static uint32_t slot_of_next(const pk_seq_t* q, pk_at_t p) { return pk_seq_norm(q, p).d; }

static void live_insert(side_t* sd, int keep_gaps, uint64_t pos, uint64_t end) {
  pk_seq_t* q = &sd->by_off;
  if (!q->ndir) {
    pk_seq_insert(q, (pk_ent_t){pos, end, pos});
    if (keep_gaps && pos) pk_seq_insert(&sd->by_gap, (pk_ent_t){pos, pos, 0});
    return;
  }
  pk_at_t p = pk_seq_find(q, pos, 0);
  const pk_ent_t* below = pk_seq_before(q, p);
  pk_ent_t* above = pk_seq_at_or_next(q, p);
  uint64_t gap = pos - (below ? below->b : 0);
  /* The buffer above now sits on the new one; fix it before the insertion
   * moves it. */
  if (above) set_gap(sd, keep_gaps, slot_of_next(q, p), above, above->a - end);
  pk_seq_insert_at(q, p, (pk_ent_t){pos, end, gap});
  if (keep_gaps && gap) pk_seq_insert(&sd->by_gap, (pk_ent_t){gap, pos, 0});
}

static void live_erase(side_t* sd, int keep_gaps, uint64_t pos) {
  pk_seq_t* q = &sd->by_off;
  if (!q->ndir) return; /* only after running out of memory */
  pk_at_t p = pk_seq_norm(q, pk_seq_find(q, pos, 0));
  if (p.d >= q->ndir || pk_seq_at(q, p)->a != pos) return; /* absent: not reached */
  const pk_ent_t* below = pk_seq_before(q, p);
  uint64_t floor = below ? below->b : 0, gap = pk_seq_at(q, p)->c;
  pk_at_t next = {p.d, p.i + 1};
  pk_ent_t* above = pk_seq_at_or_next(q, next);
  if (above) set_gap(sd, keep_gaps, slot_of_next(q, next), above, above->a - floor);
  if (keep_gaps && gap) pk_seq_erase(&sd->by_gap, gap, pos);
  pk_seq_erase_at(q, p);
}

/* Where a buffer of s bytes goes against the live set. */
static uint64_t choose(const side_t* sd, uint64_t s, int first_fit) {
  if (first_fit) {
    const pk_ent_t* e = pk_seq_first_c(&sd->by_off, (pk_at_t){0, 0}, s);
    if (e) return e->a - e->c;
  } else if (sd->by_gap.ndir) {
    const pk_ent_t* at = pk_seq_at_or_next(&sd->by_gap, pk_seq_find(&sd->by_gap, s, 0));
    if (at) return at->b - at->a;
  }
  const pk_ent_t* top = pk_seq_last(&sd->by_off); /* on top of the highest live buffer */
  return top ? top->b : 0;
}

/* ---- the expiry heap ---------------------------------------------------- */

/* Entries are (key << 32 | buffer), smallest key on top: the end slot going
 * forward, the complement of the start slot going back, so the key sits beside
 * the id and sifting reads no other array. */
static void heap_push(side_t* sd, const pk_sweep_input_t* in, uint32_t x) {
  uint32_t k = sd->forward ? in->hi[x] : ~in->lo[x];
  uint64_t v = (uint64_t)k << 32 | x;
  uint32_t i = sd->heap_n++;
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (sd->heap[p] <= v) break;
    sd->heap[i] = sd->heap[p];
    i = p;
  }
  sd->heap[i] = v;
}

static uint32_t heap_pop(side_t* sd) {
  uint64_t top = sd->heap[0], v = sd->heap[--sd->heap_n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= sd->heap_n) break;
    if (c + 1 < sd->heap_n && sd->heap[c + 1] < sd->heap[c]) ++c;
    if (sd->heap[c] >= v) break;
    sd->heap[i] = sd->heap[c];
    i = c;
  }
  if (sd->heap_n) sd->heap[i] = v;
  return (uint32_t)top;
}

/* The slot key of the heap's top: its end slot (forward) or start slot (back). */
static uint32_t heap_top_slot(const side_t* sd) {
  uint32_t k = (uint32_t)(sd->heap[0] >> 32);
  return sd->forward ? k : ~k;
}

/* ---- entry points ------------------------------------------------------- */

pk_sweep_t* pk_sweep_create(const air_allocator_t* allocator, const pk_sweep_input_t* in) {
  pk_sweep_t* sw = air_mem_calloc(allocator, 1, sizeof *sw);
  if (!sw) return NULL;
  sw->a = allocator;
  sw->in = *in;
  /* The most buffers live at one slot bounds every sequence. */
  uint32_t slots = 0;
  for (uint32_t i = 0; i < in->n; ++i)
    if (in->hi[i] > slots) slots = in->hi[i];
  int64_t* delta = air_mem_calloc(allocator, (size_t)slots + 1, sizeof *delta);
  int ok = delta != NULL;
  int64_t live = 0, peak = 0;
  for (uint32_t i = 0; ok && i < in->n; ++i) {
    delta[in->lo[i]]++;
    delta[in->hi[i]]--;
  }
  for (uint32_t t = 0; ok && t <= slots; ++t) {
    live += delta[t];
    if (live > peak) peak = live;
  }
  air_mem_free(allocator, delta);
  sw->pos = air_mem_calloc(allocator, in->n ? in->n : 1, sizeof *sw->pos);
  ok = ok && sw->pos;
  for (int k = 0; k < 2 && ok; ++k) {
    side_t* sd = &sw->side[k];
    sd->heap = air_mem_calloc(allocator, in->n ? in->n : 1, sizeof *sd->heap);
    ok = sd->heap && pk_seq_init(&sd->by_off, allocator, (uint32_t)peak, 1, 0) &&
         pk_seq_init(&sd->by_gap, allocator, (uint32_t)peak, 0, 1);
  }
  if (!ok) {
    pk_sweep_destroy(sw);
    return NULL;
  }
  return sw;
}

void pk_sweep_destroy(pk_sweep_t* sw) {
  if (!sw) return;
  for (int k = 0; k < 2; ++k) {
    pk_seq_free(&sw->side[k].by_off);
    pk_seq_free(&sw->side[k].by_gap);
    air_mem_free(sw->a, sw->side[k].heap);
  }
  air_mem_free(sw->a, sw->pos);
  air_mem_free(sw->a, sw);
}

/* Places x against a side's live set, records it and makes it live there. */
static int place_one(pk_sweep_t* sw, side_t* sd, uint32_t x, int first_fit, uint64_t cap,
                     uint64_t* arena, uint64_t* off) {
  if (sd->by_off.oom || sd->by_gap.oom) return 0;
  uint64_t pos = choose(sd, sw->in.sz[x], first_fit);
  uint64_t top = pos + sw->in.sz[x];
  if (top > cap) return 0;
  if (top > *arena) *arena = top;
  sw->pos[x] = off[x] = pos;
  sw->work++;
  live_insert(sd, sw->keep_gaps, pos, top);
  heap_push(sd, &sw->in, x);
  return 1;
}

static void expire(pk_sweep_t* sw, side_t* sd) {
  live_erase(sd, sw->keep_gaps, sw->pos[heap_pop(sd)]);
}

/* Makes the placed buffer x live on a side (the window's buffers at the start);
 * 0 when it overlaps a live buffer, which a valid window plan never does. */
static int relive(pk_sweep_t* sw, side_t* sd, uint32_t x, uint64_t pos) {
  uint64_t end = pos + sw->in.sz[x];
  pk_seq_t* q = &sd->by_off;
  if (q->ndir) {
    pk_at_t p = pk_seq_find(q, pos, 0);
    const pk_ent_t* below = pk_seq_before(q, p);
    const pk_ent_t* above = pk_seq_at_or_next(q, p);
    if ((below && below->b > pos) || (above && above->a < end)) return 0;
  }
  sw->pos[x] = pos;
  sw->work++;
  live_insert(sd, sw->keep_gaps, pos, end);
  heap_push(sd, &sw->in, x);
  return 1;
}

/* Places order[core..n) around the window [w0, w1] (order[0..core) are its
 * buffers, live on the sides already): a buffer after the window goes on the
 * forward side (start slots ascending: the buffers that ended before its start
 * expire first), one before it on the backward side (end slots descending: the
 * buffers that start after its last slot expire first). */
static uint64_t sweep_sides(pk_sweep_t* sw, const uint32_t* order, uint32_t core, int64_t w0,
                            int64_t w1, int first_fit, uint64_t cap, uint64_t arena,
                            uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  side_t* fwd = &sw->side[0];
  side_t* bwd = &sw->side[1];
  for (uint32_t k = core; k < in->n; ++k) {
    uint32_t x = order[k];
    int64_t lo = in->lo[x], last = (int64_t)in->hi[x] - 1; /* its first and last slot */
    side_t* sd;
    if (lo > w1) {
      sd = fwd;
      if (lo < sd->at) return NOT_A_SWEEP;
      sd->at = lo;
      while (sd->heap_n && heap_top_slot(sd) <= in->lo[x]) expire(sw, sd);
    } else if (last < w0) {
      sd = bwd;
      if (last > sd->at) return NOT_A_SWEEP;
      sd->at = last;
      while (sd->heap_n && (int64_t)heap_top_slot(sd) > last) expire(sw, sd);
    } else {
      return NOT_A_SWEEP; /* meets the window */
    }
    if (!place_one(sw, sd, x, first_fit, cap, &arena, off)) return NOT_A_SWEEP;
  }
  for (int k = 0; k < 2; ++k)
    if (sw->side[k].by_off.oom || sw->side[k].by_gap.oom) return NOT_A_SWEEP;
  return arena;
}

uint64_t pk_sweep_place(pk_sweep_t* sw, const uint32_t* order, int64_t pivot, int first_fit,
                        uint64_t cap, uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  uint32_t n = in->n, core = 0;
  uint64_t arena = 0;
  side_t* fwd = &sw->side[0];
  side_t* bwd = &sw->side[1];
  sw->keep_gaps = !first_fit;
  side_clear(fwd, 1, pivot);
  side_clear(bwd, 0, pivot);
  /* The buffers live at the pivot overlap one another: each goes on the
   * forward side's live set (a stack), nothing expires; then the backward side
   * starts from those that were live before the pivot. */
  while (core < n && pivot >= 0 && in->lo[order[core]] <= (uint64_t)pivot &&
         (uint64_t)pivot < in->hi[order[core]]) {
    if (!place_one(sw, fwd, order[core], first_fit, cap, &arena, off)) return NOT_A_SWEEP;
    ++core;
  }
  for (uint32_t k = 0; k < core; ++k)
    if ((int64_t)in->lo[order[k]] < pivot) relive(sw, bwd, order[k], off[order[k]]);
  return sweep_sides(sw, order, core, pivot, pivot, first_fit, cap, arena, off);
}

uint64_t pk_sweep_around(pk_sweep_t* sw, const uint32_t* order, uint32_t core, uint32_t w0,
                         uint32_t w1, int first_fit, uint64_t cap, uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  uint64_t arena = 0;
  if (core > in->n || w0 > w1) return NOT_A_SWEEP;
  sw->keep_gaps = !first_fit;
  side_clear(&sw->side[0], 1, w1);
  side_clear(&sw->side[1], 0, w0);
  for (uint32_t k = 0; k < core; ++k) {
    uint32_t x = order[k];
    if (in->lo[x] > w1 || in->hi[x] <= w0) return NOT_A_SWEEP; /* not in the window */
    if (off[x] + in->sz[x] > arena) arena = off[x] + in->sz[x];
    if (in->hi[x] > w1 && !relive(sw, &sw->side[0], x, off[x])) return NOT_A_SWEEP;
    if (in->lo[x] < w0 && !relive(sw, &sw->side[1], x, off[x])) return NOT_A_SWEEP;
  }
  if (arena > cap) return NOT_A_SWEEP;
  return sweep_sides(sw, order, core, w0, w1, first_fit, cap, arena, off);
}

uint64_t pk_sweep_work(const pk_sweep_t* sw) { return sw->work; }

/* pack_sweep.c - sweep placement (see pack_sweep.h).
 *
 * The live set is kept in two ordered sequences (pack_seq.h, two-level B-trees):
 *   - by offset, each live buffer as (offset, end, gap below it); the segment
 *     tree over its blocks holds each block's largest gap, so the lowest gap of
 *     at least s bytes is one descent and one block scan (first-fit), and the
 *     top of the live set is the last entry;
 *   - by (gap, offset), for the smallest gap of at least s bytes, lowest offset
 *     on ties (best-fit); kept only when best-fit runs.
 * Placing or expiring a buffer changes its own entry and the gap of the buffer
 * above it: a few O(log live) searches and one move inside a block. Expiry
 * follows the sweep: a min-heap of end slots going forward, a max-heap of start
 * slots going back. A sweep has two sides, forward from a window and backward
 * from it; the window is one pivot slot whose buffers the sweep stacks itself,
 * or a longer one whose buffers another placer put (pk_sweep_around). */
#include "scheduler/pack/pack_sweep.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_seq.h"

#define NOT_A_SWEEP UINT64_MAX

/* ---- the live set ------------------------------------------------------- */

struct pk_sweep_t {
  const air_allocator_t* a;
  pk_sweep_input_t in;
  pk_seq_t by_off, by_gap;
  uint64_t* pos;  /* [n] */
  uint64_t* heap; /* [n] (key << 32 | buffer id) */
  uint32_t heap_n;
  int keep_gaps;  /* by_gap is maintained (best-fit) */
  int forward;    /* heap key: end slot (forward) or start slot (backward) */
};

/* The gap of the live buffer in entry e (slot d of the sequence by offset)
 * becomes `gap`. */
static void set_gap(pk_sweep_t* sw, uint32_t d, pk_ent_t* e, uint64_t gap) {
  if (sw->keep_gaps && e->c != gap) {
    pk_seq_erase(&sw->by_gap, e->c, e->a);
    pk_seq_insert(&sw->by_gap, (pk_ent_t){gap, e->a, 0});
  }
  pk_seq_set_c(&sw->by_off, d, e, gap);
}

/* The slot of the block after p's when p is past its block's end. */
static uint32_t slot_of_next(const pk_seq_t* q, pk_at_t p) {
  return p.i < q->pool[q->dir[p.d].id].n ? p.d : p.d + 1;
}

static void live_insert(pk_sweep_t* sw, uint64_t pos, uint64_t end) {
  pk_seq_t* q = &sw->by_off;
  if (!q->ndir) {
    pk_seq_insert(q, (pk_ent_t){pos, end, pos});
    if (sw->keep_gaps) pk_seq_insert(&sw->by_gap, (pk_ent_t){pos, pos, 0});
    return;
  }
  pk_at_t p = pk_seq_find(q, pos, 0);
  const pk_ent_t* below = pk_seq_before(q, p);
  pk_ent_t* above = pk_seq_at_or_next(q, p);
  uint64_t gap = pos - (below ? below->b : 0);
  /* The buffer above now sits on the new one; fix it before the insertion
   * moves it. */
  if (above) set_gap(sw, slot_of_next(q, p), above, above->a - end);
  pk_seq_insert_at(q, p, (pk_ent_t){pos, end, gap});
  if (sw->keep_gaps) pk_seq_insert(&sw->by_gap, (pk_ent_t){gap, pos, 0});
}

static void live_erase(pk_sweep_t* sw, uint64_t pos) {
  pk_seq_t* q = &sw->by_off;
  if (!q->ndir) return; /* only after running out of memory */
  pk_at_t p = pk_seq_find(q, pos, 0);
  p = pk_seq_norm(q, p);
  if (p.d >= q->ndir || pk_seq_at(q, p)->a != pos) return; /* absent: not reached */
  const pk_ent_t* below = pk_seq_before(q, p);
  uint64_t floor = below ? below->b : 0, gap = pk_seq_at(q, p)->c;
  pk_at_t next = {p.d, p.i + 1};
  pk_ent_t* above = pk_seq_at_or_next(q, next);
  if (above) set_gap(sw, slot_of_next(q, next), above, above->a - floor);
  if (sw->keep_gaps) pk_seq_erase(&sw->by_gap, gap, pos);
  pk_seq_erase_at(q, p);
}

/* Where a buffer of s bytes goes against the live set. */
static uint64_t choose(const pk_sweep_t* sw, uint64_t s, int first_fit) {
  if (first_fit) {
    const pk_ent_t* e = pk_seq_first_c(&sw->by_off, (pk_at_t){0, 0}, s);
    if (e) return e->a - e->c;
  } else if (sw->by_gap.ndir) {
    const pk_ent_t* at = pk_seq_at_or_next(&sw->by_gap, pk_seq_find(&sw->by_gap, s, 0));
    if (at) return at->b - at->a;
  }
  const pk_ent_t* top = pk_seq_last(&sw->by_off); /* on top of the highest live buffer */
  return top ? top->b : 0;
}

/* ---- the expiry heap ---------------------------------------------------- */

/* Entries are (key << 32 | buffer), smallest key on top: the end slot going
 * forward, the complement of the start slot going back, so the key sits beside
 * the id and sifting reads no other array. */
static uint64_t heap_key(const pk_sweep_t* sw, uint32_t x) {
  uint32_t k = sw->forward ? sw->in.hi[x] : ~sw->in.lo[x];
  return (uint64_t)k << 32 | x;
}

static void heap_push(pk_sweep_t* sw, uint32_t x) {
  uint64_t v = heap_key(sw, x);
  uint32_t i = sw->heap_n++;
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (sw->heap[p] <= v) break;
    sw->heap[i] = sw->heap[p];
    i = p;
  }
  sw->heap[i] = v;
}

static uint32_t heap_pop(pk_sweep_t* sw) {
  uint64_t top = sw->heap[0], v = sw->heap[--sw->heap_n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= sw->heap_n) break;
    if (c + 1 < sw->heap_n && sw->heap[c + 1] < sw->heap[c]) ++c;
    if (sw->heap[c] >= v) break;
    sw->heap[i] = sw->heap[c];
    i = c;
  }
  if (sw->heap_n) sw->heap[i] = v;
  return (uint32_t)top;
}

/* The slot key of the heap's top: its end slot (forward) or start slot (back). */
static uint32_t heap_top_slot(const pk_sweep_t* sw) {
  uint32_t k = (uint32_t)(sw->heap[0] >> 32);
  return sw->forward ? k : ~k;
}

/* ---- entry points ------------------------------------------------------- */

pk_sweep_t* pk_sweep_create(const air_allocator_t* allocator, const pk_sweep_input_t* in) {
  pk_sweep_t* sw = air_mem_calloc(allocator, 1, sizeof *sw);
  if (!sw) return NULL;
  sw->a = allocator;
  sw->in = *in;
  /* The most buffers live at one slot bounds both sequences. */
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
  sw->heap = air_mem_calloc(allocator, in->n ? in->n : 1, sizeof *sw->heap);
  if (!ok || !sw->pos || !sw->heap || !pk_seq_init(&sw->by_off, allocator, (uint32_t)peak, 1, 0) ||
      !pk_seq_init(&sw->by_gap, allocator, (uint32_t)peak, 0, 1)) {
    pk_sweep_destroy(sw);
    return NULL;
  }
  return sw;
}

void pk_sweep_destroy(pk_sweep_t* sw) {
  if (!sw) return;
  pk_seq_free(&sw->by_off);
  pk_seq_free(&sw->by_gap);
  air_mem_free(sw->a, sw->pos);
  air_mem_free(sw->a, sw->heap);
  air_mem_free(sw->a, sw);
}

/* Places x against the live set, records it and makes it live. */
static int place_one(pk_sweep_t* sw, uint32_t x, int first_fit, uint64_t cap, uint64_t* arena,
                     uint64_t* off) {
  if (sw->by_off.oom || sw->by_gap.oom) return 0;
  uint64_t pos = choose(sw, sw->in.sz[x], first_fit);
  uint64_t top = pos + sw->in.sz[x];
  if (top > cap) return 0;
  if (top > *arena) *arena = top;
  sw->pos[x] = off[x] = pos;
  live_insert(sw, pos, top);
  heap_push(sw, x);
  return 1;
}

static void expire(pk_sweep_t* sw) {
  uint32_t x = heap_pop(sw);
  live_erase(sw, sw->pos[x]);
}

/* Makes the placed buffer x live again (the window's buffers at the start of a
 * side); 0 when it overlaps a live buffer, which a valid window plan never does. */
static int relive(pk_sweep_t* sw, uint32_t x, uint64_t pos) {
  uint64_t end = pos + sw->in.sz[x];
  pk_seq_t* q = &sw->by_off;
  if (q->ndir) {
    pk_at_t p = pk_seq_find(q, pos, 0);
    const pk_ent_t* below = pk_seq_before(q, p);
    const pk_ent_t* above = pk_seq_at_or_next(q, p);
    if ((below && below->b > pos) || (above && above->a < end)) return 0;
  }
  sw->pos[x] = pos;
  live_insert(sw, pos, end);
  heap_push(sw, x);
  return 1;
}

/* One side of a sweep from the window [w0, w1], whose buffers are order[0..core)
 * with offsets in off[]: forward, the buffers starting after w1 by start slot
 * against the window's buffers still live at w1; backward, those ending by w0
 * by end slot descending against the window's buffers live before w0. `fresh`:
 * build the live set (else it holds the window's buffers, all live at w1). */
static int sweep_side(pk_sweep_t* sw, const uint32_t* order, uint32_t core, int64_t w0, int64_t w1,
                      int forward, int fresh, int first_fit, uint64_t cap, uint64_t* arena,
                      uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  if (fresh) { /* else the live set holds the window's buffers already */
    pk_seq_clear(&sw->by_off);
    pk_seq_clear(&sw->by_gap);
    sw->heap_n = 0;
    sw->forward = forward;
    for (uint32_t k = 0; k < core; ++k) {
      uint32_t x = order[k];
      if (forward ? (int64_t)in->hi[x] > w1 : (int64_t)in->lo[x] < w0)
        if (!relive(sw, x, off[x])) return 0;
    }
  }
  int64_t at = forward ? w1 : w0;
  for (uint32_t k = core; k < in->n; ++k) {
    uint32_t x = order[k];
    int64_t lo = in->lo[x], last = (int64_t)in->hi[x] - 1; /* its first and last slot */
    if (lo <= w1 && last >= w0) return 0;                   /* meets the window */
    if (forward) {
      if (lo < w0) continue; /* an earlier one: the backward side */
      if (lo < at) return 0;
      at = lo;
      while (sw->heap_n && heap_top_slot(sw) <= in->lo[x]) expire(sw);
    } else {
      if (lo > w1) continue;
      if (last > at) return 0;
      at = last;
      while (sw->heap_n && (int64_t)heap_top_slot(sw) > last) expire(sw);
    }
    if (!place_one(sw, x, first_fit, cap, arena, off)) return 0;
  }
  return !sw->by_off.oom && !sw->by_gap.oom;
}

uint64_t pk_sweep_place(pk_sweep_t* sw, const uint32_t* order, int64_t pivot, int first_fit,
                        uint64_t cap, uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  uint32_t n = in->n, core = 0;
  uint64_t arena = 0;
  sw->keep_gaps = !first_fit;
  pk_seq_clear(&sw->by_off);
  pk_seq_clear(&sw->by_gap);
  sw->heap_n = 0;
  sw->forward = 1;
  /* The buffers live at the pivot overlap one another: each goes on the live
   * set, nothing expires. */
  while (core < n && pivot >= 0 && in->lo[order[core]] <= (uint64_t)pivot &&
         (uint64_t)pivot < in->hi[order[core]]) {
    if (!place_one(sw, order[core], first_fit, cap, &arena, off)) return NOT_A_SWEEP;
    ++core;
  }
  /* The window is the pivot: forward from it, then backward (program order
   * has only a forward side, its reverse only a backward one). */
  if (!sweep_side(sw, order, core, pivot, pivot, 1, 0, first_fit, cap, &arena, off))
    return NOT_A_SWEEP;
  if (pivot >= 0 && !sweep_side(sw, order, core, pivot, pivot, 0, 1, first_fit, cap, &arena, off))
    return NOT_A_SWEEP;
  return arena;
}

uint64_t pk_sweep_around(pk_sweep_t* sw, const uint32_t* order, uint32_t core, uint32_t w0,
                         uint32_t w1, int first_fit, uint64_t cap, uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  uint64_t arena = 0;
  if (core > in->n || w0 > w1) return NOT_A_SWEEP;
  for (uint32_t k = 0; k < core; ++k) {
    uint32_t x = order[k];
    if (in->lo[x] > w1 || in->hi[x] <= w0) return NOT_A_SWEEP; /* not in the window */
    if (off[x] + in->sz[x] > arena) arena = off[x] + in->sz[x];
  }
  if (arena > cap) return NOT_A_SWEEP;
  sw->keep_gaps = !first_fit;
  if (!sweep_side(sw, order, core, w0, w1, 1, 1, first_fit, cap, &arena, off) ||
      !sweep_side(sw, order, core, w0, w1, 0, 1, first_fit, cap, &arena, off))
    return NOT_A_SWEEP;
  return arena;
}

/* pack_place.c - the greedy placement rules: take buffers in a given order and put
 * each in the smallest (best-fit) or lowest (first-fit) gap left between the
 * already placed buffers whose lifetimes overlap it, or on top of them.
 *
 * Finding those buffers in offset order is the whole cost. With neighbour lists
 * it is the placed neighbours, sorted: O(degree log degree) per buffer (first-fit
 * mostly skips the sort). When the
 * lists would not fit in memory (dense traces such as iopddl S_1, 43M overlapping
 * pairs) the placed buffers are kept in offset order in a list of small blocks and
 * scanned with a cheap lifetime filter, as TFLite's arena does: O(placed) per
 * buffer but sequential and branch-light. */
#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_place.h"

enum { BLOCK_CAP = 128 };

typedef struct {
  uint32_t count;
  uint32_t min_lo, max_hi; /* lifetime hull of the block, to skip it whole */
  uint32_t lo[BLOCK_CAP], hi[BLOCK_CAP];
  uint64_t off[BLOCK_CAP], end[BLOCK_CAP];
} block_t;

/* Neighbour mode works in units of the alignment, 32 bits wide: 8 bytes a span
 * keep a 62k-buffer plan's state in L2. The planner only uses this mode when
 * every offset fits (see pack_plan.c). */
typedef struct {
  uint32_t off, end;
} span_t;
#define SPAN_UNSET UINT32_MAX

struct pk_place_t {
  const pk_problem_t* p;
  uint64_t work;
  span_t* spans;  /* scratch: placed neighbours of one buffer, then sort space */
  span_t* placed; /* [n] per buffer [off, end), off SPAN_UNSET until placed */
  uint32_t max_degree;
  block_t* pool;    /* scan mode: blocks */
  block_t** blocks; /* scan mode: blocks in offset order */
  uint32_t nblocks, pool_used, pool_cap;
};

pk_place_t* pk_place_create(const pk_problem_t* p) {
  const air_allocator_t* a = p->allocator;
  pk_place_t* pl = a->alloc(a->self, sizeof *pl);
  if (!pl) return NULL;
  memset(pl, 0, sizeof *pl);
  pl->p = p;
  if (p->adj_start) {
    uint32_t max_degree = 0;
    for (uint32_t i = 0; i < p->n; ++i) {
      uint32_t d = p->adj_start[i + 1] - p->adj_start[i] + (p->later_end[i] - i - 1);
      if (d > max_degree) max_degree = d;
    }
    pl->max_degree = max_degree;
    pl->placed = air_mem_calloc(a, p->n, sizeof *pl->placed);
    if (!pl->placed) goto fail;
    pl->spans = air_mem_calloc(a, 2 * ((size_t)max_degree + 1), sizeof *pl->spans);
    if (!pl->spans) goto fail;
  } else {
    /* Blocks split when full, so each holds at least half: n / (cap/2) + 2. */
    pl->pool_cap = p->n / (BLOCK_CAP / 2) + 2;
    pl->pool = air_mem_calloc(a, pl->pool_cap, sizeof *pl->pool);
    pl->blocks = air_mem_calloc(a, pl->pool_cap, sizeof *pl->blocks);
    if (!pl->pool || !pl->blocks) goto fail;
  }
  return pl;
fail:
  pk_place_destroy(pl);
  return NULL;
}

void pk_place_destroy(pk_place_t* pl) {
  if (!pl) return;
  const air_allocator_t* a = pl->p->allocator;
  a->free(a->self, pl->spans);
  a->free(a->self, pl->placed);
  a->free(a->self, pl->pool);
  a->free(a->self, pl->blocks);
  a->free(a->self, pl);
}

uint64_t pk_place_work(const pk_place_t* pl) { return pl->work; }

static void sort_spans(span_t* s, uint32_t n) {
  /* Quicksort on offsets with an insertion-sort finish; neighbour counts are
   * small, and qsort's indirect calls would dominate. */
  while (n > 16) {
    uint32_t a = s[0].off, b = s[n / 2].off, c = s[n - 1].off;
    uint32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    uint32_t i = 0, j = n - 1;
    for (;;) {
      while (s[i].off < pivot) ++i;
      while (s[j].off > pivot) --j;
      if (i >= j) break;
      span_t t = s[i];
      s[i] = s[j];
      s[j] = t;
      ++i;
      --j;
    }
    /* Recurse into the smaller side, loop on the larger. */
    uint32_t left = j + 1;
    if (left < n - left) {
      sort_spans(s, left);
      s += left;
      n -= left;
    } else {
      sort_spans(s + left, n - left);
      n = left;
    }
  }
  for (uint32_t i = 1; i < n; ++i) {
    span_t t = s[i];
    uint32_t j = i;
    while (j > 0 && s[j - 1].off > t.off) {
      s[j] = s[j - 1];
      --j;
    }
    s[j] = t;
  }
}

/* Gap choice over spans in offset order; shared by both storage modes. */
typedef struct {
  uint64_t size, cur, best, best_gap;
  pk_rule_t rule;
  int done;
} chooser_t;

static inline void choose_step(chooser_t* c, uint64_t off, uint64_t end) {
  if (off >= c->cur && off - c->cur >= c->size) {
    uint64_t gap = off - c->cur;
    if (c->rule == PK_FIRST_FIT || gap == c->size) { /* nothing can beat it */
      c->best = c->cur;
      c->done = 1;
      return;
    }
    if (gap < c->best_gap) {
      c->best_gap = gap;
      c->best = c->cur;
    }
  }
  if (end > c->cur) c->cur = end;
}

/* LSD radix sort by offset, 8 bits a pass, skipping bytes no key varies in:
 * for the few buffers with hundreds of placed neighbours it beats comparisons,
 * whose branches the random offsets defeat. */
static void radix_spans(span_t* s, span_t* tmp, uint32_t n) {
  uint32_t all_or = 0, all_and = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    all_or |= s[i].off;
    all_and &= s[i].off;
  }
  uint32_t varying = all_or ^ all_and;
  uint32_t count[256];
  for (unsigned shift = 0; shift < 32; shift += 8) {
    if (((varying >> shift) & 255u) == 0) continue;
    memset(count, 0, sizeof count);
    for (uint32_t i = 0; i < n; ++i) count[(s[i].off >> shift) & 255u]++;
    uint32_t sum = 0;
    for (unsigned d = 0; d < 256; ++d) {
      uint32_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (uint32_t i = 0; i < n; ++i) tmp[count[(s[i].off >> shift) & 255u]++] = s[i];
    memcpy(s, tmp, n * sizeof *s);
  }
}

static uint64_t choose_adj(pk_place_t* pl, uint32_t b, pk_rule_t rule) {
  const pk_problem_t* p = pl->p;
  uint32_t n = 0;
  span_t* spans = pl->spans;
  /* Branch-free: about half the neighbours are placed, at random. */
  const span_t* placed = pl->placed;
  for (uint32_t k = p->adj_start[b]; k < p->adj_start[b + 1]; ++k) {
    span_t sp = placed[p->adj[k]];
    spans[n] = sp;
    n += sp.off != SPAN_UNSET;
  }
  for (uint32_t nb = b + 1; nb < p->later_end[b]; ++nb) {
    span_t sp = placed[nb];
    spans[n] = sp;
    n += sp.off != SPAN_UNSET;
  }
  pl->work += p->adj_start[b + 1] - p->adj_start[b] + (p->later_end[b] - b - 1) + n;
  uint64_t size = p->sz[b] >> p->unit_shift;
  /* Find the lowest fitting position first, without sorting: if spans overlap
   * [x, x+size), no position below the highest end among them fits either, so
   * jump there and look again, dropping spans that end below x. That is the
   * first-fit answer; best-fit's smallest gap lies at or above it, and the
   * spans left are usually few, so only they get sorted. */
  uint64_t floor = 0; /* no position below it fits */
  for (int round = 0; round < 16; ++round) {
    uint64_t jump = floor, limit = floor + size;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; ++i) { /* branch-free */
      span_t sp = spans[i];
      spans[kept] = sp;
      kept += sp.end > floor;
      uint64_t e = sp.off < limit ? sp.end : 0;
      jump = e > jump ? e : jump;
    }
    pl->work += n / 4 + 1;
    n = kept;
    if (jump == floor) {
      if (rule == PK_FIRST_FIT || n == 0) return floor << p->unit_shift;
      break;
    }
    floor = jump;
  }
  if (n >= 96)
    radix_spans(spans, pl->spans + pl->max_degree + 1, n);
  else
    sort_spans(spans, n);
  chooser_t c = {size, floor, PK_UNSET, PK_UNSET, rule, 0};
  for (uint32_t i = 0; i < n && !c.done; ++i) choose_step(&c, spans[i].off, spans[i].end);
  return (c.best != PK_UNSET ? c.best : c.cur) << p->unit_shift;
}

static uint64_t choose_scan(pk_place_t* pl, uint32_t b, pk_rule_t rule) {
  const pk_problem_t* p = pl->p;
  uint32_t qlo = p->lo[b], qhi = p->hi[b];
  chooser_t c = {p->sz[b], 0, PK_UNSET, PK_UNSET, rule, 0};
  for (uint32_t k = 0; k < pl->nblocks && !c.done; ++k) {
    const block_t* blk = pl->blocks[k];
    pl->work += 1;
    if (blk->max_hi <= qlo || blk->min_lo >= qhi) continue;
    pl->work += blk->count / 8 + 1; /* a filter test is ~8x cheaper than a visit */
    for (uint32_t i = 0; i < blk->count; ++i) {
      if (blk->lo[i] < qhi && qlo < blk->hi[i]) {
        choose_step(&c, blk->off[i], blk->end[i]);
        if (c.done) break;
      }
    }
  }
  return c.best != PK_UNSET ? c.best : c.cur;
}

static void scan_insert(pk_place_t* pl, uint32_t b, uint64_t x) {
  const pk_problem_t* p = pl->p;
  uint32_t k = 0;
  /* The block whose offsets bracket x: the last one starting at or below it. */
  while (k + 1 < pl->nblocks && pl->blocks[k + 1]->off[0] <= x) ++k;
  if (pl->nblocks == 0) {
    block_t* blk = &pl->pool[pl->pool_used++];
    blk->count = 0;
    blk->min_lo = UINT32_MAX;
    blk->max_hi = 0;
    pl->blocks[pl->nblocks++] = blk;
  }
  block_t* blk = pl->blocks[k];
  if (blk->count == BLOCK_CAP) {
    block_t* right = &pl->pool[pl->pool_used++];
    uint32_t half = BLOCK_CAP / 2;
    right->count = BLOCK_CAP - half;
    memcpy(right->lo, blk->lo + half, right->count * sizeof *blk->lo);
    memcpy(right->hi, blk->hi + half, right->count * sizeof *blk->hi);
    memcpy(right->off, blk->off + half, right->count * sizeof *blk->off);
    memcpy(right->end, blk->end + half, right->count * sizeof *blk->end);
    blk->count = half;
    block_t* sides[2] = {blk, right};
    for (int s = 0; s < 2; ++s) {
      sides[s]->min_lo = UINT32_MAX;
      sides[s]->max_hi = 0;
      for (uint32_t i = 0; i < sides[s]->count; ++i) {
        if (sides[s]->lo[i] < sides[s]->min_lo) sides[s]->min_lo = sides[s]->lo[i];
        if (sides[s]->hi[i] > sides[s]->max_hi) sides[s]->max_hi = sides[s]->hi[i];
      }
    }
    memmove(pl->blocks + k + 2, pl->blocks + k + 1, (pl->nblocks - k - 1) * sizeof *pl->blocks);
    pl->blocks[k + 1] = right;
    pl->nblocks++;
    if (right->off[0] <= x) blk = right;
  }
  uint32_t i = blk->count;
  while (i > 0 && blk->off[i - 1] > x) --i;
  uint32_t tail = blk->count - i;
  memmove(blk->lo + i + 1, blk->lo + i, tail * sizeof *blk->lo);
  memmove(blk->hi + i + 1, blk->hi + i, tail * sizeof *blk->hi);
  memmove(blk->off + i + 1, blk->off + i, tail * sizeof *blk->off);
  memmove(blk->end + i + 1, blk->end + i, tail * sizeof *blk->end);
  blk->lo[i] = p->lo[b];
  blk->hi[i] = p->hi[b];
  blk->off[i] = x;
  blk->end[i] = x + p->sz[b];
  blk->count++;
  if (p->lo[b] < blk->min_lo) blk->min_lo = p->lo[b];
  if (p->hi[b] > blk->max_hi) blk->max_hi = p->hi[b];
}

uint64_t pk_place_order(pk_place_t* pl, const uint32_t* order, pk_rule_t rule, uint64_t cap,
                        uint64_t* off) {
  const pk_problem_t* p = pl->p;
  for (uint32_t i = 0; i < p->n; ++i) off[i] = PK_UNSET;
  if (pl->placed)
    for (uint32_t i = 0; i < p->n; ++i) pl->placed[i] = (span_t){SPAN_UNSET, SPAN_UNSET};
  pl->nblocks = 0;
  pl->pool_used = 0;
  uint64_t arena = 0;
  for (uint32_t k = 0; k < p->n; ++k) {
    uint32_t b = order[k];
    uint64_t x = p->adj_start ? choose_adj(pl, b, rule) : choose_scan(pl, b, rule);
    uint64_t top = x + p->sz[b];
    if (top > cap) return PK_UNSET;
    off[b] = x;
    if (pl->placed)
      pl->placed[b] = (span_t){(uint32_t)(x >> p->unit_shift), (uint32_t)(top >> p->unit_shift)};
    if (top > arena) arena = top;
    if (!p->adj_start) scan_insert(pl, b, x);
  }
  return arena;
}

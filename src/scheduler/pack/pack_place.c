/* pack_place.c - the greedy placement rules for any order: take buffers in a
 * given order and put each in the smallest (best-fit) or lowest (first-fit) gap
 * left between the already placed buffers whose lifetimes overlap it, or on top
 * of them.
 *
 * Finding those buffers in offset order is the whole cost: with the neighbour
 * lists it is the placed neighbours, sorted, O(degree log degree) per buffer
 * (first-fit mostly skips the sort). The planner uses this only on instances
 * sparse enough for the lists (pack_plan.c); orders that sweep in time go to
 * pack_sweep.c instead, which does not depend on the degree. */
#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_place.h"
#include "scheduler/pack/pack_sort.h"

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
};

pk_place_t* pk_place_create(const pk_problem_t* p) {
  const air_allocator_t* a = p->allocator;
  pk_place_t* pl = a->alloc(a->self, sizeof *pl);
  if (!pl) return NULL;
  memset(pl, 0, sizeof *pl);
  pl->p = p;
  if (!p->adj_start) goto fail; /* the neighbour lists are required */
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
  a->free(a->self, pl);
}

uint64_t pk_place_work(const pk_place_t* pl) { return pl->work; }

PK_DEFINE_SORT_BY_OFF(sort_spans, span_t, uint32_t)

/* Gap choice over spans in offset order. */
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

uint64_t pk_place_order(pk_place_t* pl, const uint32_t* order, pk_rule_t rule, uint64_t cap,
                        uint64_t* off) {
  const pk_problem_t* p = pl->p;
  for (uint32_t i = 0; i < p->n; ++i) {
    off[i] = PK_UNSET;
    pl->placed[i] = (span_t){SPAN_UNSET, SPAN_UNSET};
  }
  uint64_t arena = 0;
  for (uint32_t k = 0; k < p->n; ++k) {
    uint32_t b = order[k];
    uint64_t x = choose_adj(pl, b, rule);
    uint64_t top = x + p->sz[b];
    if (top > cap) return PK_UNSET;
    off[b] = x;
    pl->placed[b] = (span_t){(uint32_t)(x >> p->unit_shift), (uint32_t)(top >> p->unit_shift)};
    if (top > arena) arena = top;
  }
  return arena;
}

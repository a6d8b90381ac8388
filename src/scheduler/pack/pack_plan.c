/* pack_plan.c - the planner (the top of the pack layer): validates and compresses
 * the instance, runs the greedy candidates (among them exactly the placement rules
 * of IREE, TFLite and XLA, so on every instance where they all run the plan is
 * never worse than theirs), lets the skyline search improve small instances, and
 * maps the winner back to the caller's buffers. Sweeping orders are placed in
 * O(log live) per buffer (pack_sweep.c), the others against neighbour lists
 * (pack_place.c) on instances sparse enough for them; dense ones (many buffers
 * live at once) run only sweeps, one of them outward from a window around the
 * peak that size-ordered first-fit places (pack_window.c). Also the lower bound
 * and the O(n log n) overlap check. See docs/packing.md. */
#include "scheduler/pack/pack.h"

#include <stdbool.h>
#include <string.h>

#include "runtime/base/status_util.h"
#include "runtime/base/mem.h"
#include "scheduler/pack/pack_place.h"
#include "scheduler/pack/pack_problem.h"
#include "scheduler/pack/pack_search.h"
#include "scheduler/pack/pack_sweep.h"
#include "scheduler/pack/pack_window.h"

/* Default improvement budget in work units (see air_pack_options_t). */
#define DEFAULT_SEARCH_BUDGET (60ull * 1000 * 1000)

/* The skyline search costs O(slots) per node: past this size it cannot finish
 * even one descent within the default budget. */
#define SEARCH_MAX_BUFFERS 5000u

/* Neighbour lists cost O(overlapping pairs) to build and each pass over them as
 * much again: past this many pairs an instance is dense, and only the sweeps run
 * (each O(n log live) whatever the density). */
#define NEIGHBOUR_MAX_PAIRS (4ull * 1000 * 1000)

/* Work (neighbour visits, pk_place_work) the budgeted neighbour passes may take
 * in all after the first, so that 100k sparse buffers plan within 200 ms. */
#define NEIGHBOUR_WORK_BUDGET (30ull * 1000 * 1000)

/* Sweep work (pk_sweep_work: buffers made live) after which a dense instance
 * starts no more candidates but IREE's rule, so 100k buffers plan within
 * 200 ms whatever the candidates find: about two full passes over 100k buffers
 * (a pass that exceeds the best plan so far stops there and costs less). */
#define DENSE_SWEEP_BUDGET (200ull * 1000)

/* "Small": every candidate runs, the extra ones too. */
#define EXTRA_CANDIDATE_WORK (200ull * 1000 * 1000)
#define EXTRA_CANDIDATE_BUFFERS 20000u

/* ---- candidate orders ----------------------------------------------------- */

typedef enum {
  ORDER_PROGRAM,     /* IREE: (start, end) ascending */
  ORDER_SIZE,        /* TFLite: whole-run first, then size desc, start asc */
  ORDER_SIZE_LENGTH, /* XLA spatial: size desc, lifetime desc */
  ORDER_LENGTH_SIZE, /* XLA temporal: lifetime desc, size desc */
  ORDER_PEAK_OUT,    /* buffers live at the peak (longest first), then outwards */
  ORDER_AREA,        /* size x lifetime desc */
  ORDER_CLASS_START, /* power-of-two size class desc, then program order */
  ORDER_REVERSE,     /* (end, start) descending: program order backwards */
  ORDER_PEAK_END,    /* the peak's buffers latest end lowest, then outwards, largest first */
  ORDER_PEAK_START,  /* the peak's buffers earliest start lowest, then outwards, largest first */
  ORDER_WINDOW,      /* the window's buffers largest first, then outwards, largest first */
} order_kind_t;

/* The window around the peak that the window candidate places by size-ordered
 * first-fit: slots [w0, w1], met by `count` buffers. */
typedef struct {
  uint32_t w0, w1, count;
} window_t;

static uint64_t log2_floor(uint64_t v) { return 63u - (uint64_t)__builtin_clzll(v | 1); }

static void make_order(pk_prep_t* s, order_kind_t kind, const window_t* win, uint32_t* order) {
  pk_problem_t* p = &s->p;
  uint32_t n = p->n;
  uint64_t* key = s->key;
  uint32_t* tmp = s->tmp;
  memcpy(order, s->input_order, n * sizeof *order);
  /* Stable passes from the least significant key up; ties end on the input index. */
#define PASS(expr)                                        \
  do {                                                    \
    for (uint32_t i_ = 0; i_ < n; ++i_) key[i_] = (expr); \
    pk_radix_sort(order, n, key, tmp);                       \
  } while (0)
  switch (kind) {
    case ORDER_PROGRAM:
      PASS(p->hi[i_]);
      PASS(p->lo[i_]);
      break;
    case ORDER_SIZE: {
      uint32_t first = UINT32_MAX, last = 0;
      for (uint32_t i = 0; i < n; ++i) {
        if (p->lo[i] < first) first = p->lo[i];
        if (p->hi[i] > last) last = p->hi[i];
      }
      /* Buffers live the whole run go first, in input order, as in TFLite. */
#define WHOLE(i) (p->lo[i] == first && p->hi[i] == last)
      PASS(WHOLE(i_) ? 0 : p->lo[i_]);
      PASS(WHOLE(i_) ? 0 : ~p->raw[i_]);
      PASS((uint64_t)!WHOLE(i_));
#undef WHOLE
      break;
    }
    case ORDER_SIZE_LENGTH:
      PASS(~p->len[i_]);
      PASS(~p->raw[i_]);
      break;
    case ORDER_LENGTH_SIZE:
      PASS(~p->raw[i_]);
      PASS(~p->len[i_]);
      break;
    case ORDER_PEAK_OUT: {
      /* The buffers live at the peak must stack without a gap for the plan to
       * meet the bound, so they go first, the longest lowest (it constrains the
       * most time); then the rest by distance from the peak, so each side fills
       * outwards like a program-order sweep. */
      uint32_t t = p->peak_slot;
      PASS(~p->len[i_]);
      PASS(p->lo[i_] > t ? p->lo[i_] - t : p->hi[i_] <= t ? t - p->hi[i_] + 1 : 0);
      break;
    }
    case ORDER_AREA:
      PASS(~p->sz[i_]);
      /* In units of 64 B so the product fits for any arena below 2^58 B. */
      PASS(~((p->sz[i_] >> 6) * (uint64_t)(p->hi[i_] - p->lo[i_])));
      break;
    case ORDER_CLASS_START:
      PASS(p->lo[i_]);
      PASS(~log2_floor(p->sz[i_]));
      break;
    case ORDER_REVERSE:
      PASS(~(uint64_t)p->lo[i_]);
      PASS(~(uint64_t)p->hi[i_]);
      break;
    case ORDER_PEAK_END:
    case ORDER_PEAK_START: {
      /* The peak's buffers stack without a gap whatever their order; which
       * end of the stack frees first decides what the sweep finds. Latest end
       * lowest: going forward the buffers that end leave one hole at the top
       * of the stack; earliest start lowest: the same going back. Outside the
       * peak, at equal distance, the largest first. */
      uint32_t t = p->peak_slot;
#define AT_PEAK(i) (p->lo[i] <= t && t < p->hi[i])
      if (kind == ORDER_PEAK_END)
        PASS(AT_PEAK(i_) ? ~(uint64_t)p->hi[i_] : ~p->sz[i_]);
      else
        PASS(AT_PEAK(i_) ? (uint64_t)p->lo[i_] : ~p->sz[i_]);
#undef AT_PEAK
      PASS(p->lo[i_] > t ? p->lo[i_] - t : p->hi[i_] <= t ? t - p->hi[i_] + 1 : 0);
      break;
    }
    case ORDER_WINDOW: {
      /* Inside the window: size-ordered first-fit's order (largest first,
       * then by start); outside: by distance from it, largest first. */
      uint32_t w0 = win->w0, w1 = win->w1;
#define DIST(i) (p->lo[i] > w1 ? p->lo[i] - w1 : p->hi[i] <= w0 ? w0 - p->hi[i] + 1 : 0)
      PASS(DIST(i_) ? 0 : p->lo[i_]);
      PASS(DIST(i_) ? ~p->sz[i_] : ~p->raw[i_]);
      PASS(DIST(i_));
#undef DIST
      break;
    }
  }
#undef PASS
}

/* How a candidate is placed: by sweeping (pack_sweep.h: O(log live) per buffer
 * whatever the density; the pivot is the start, the peak slot or past the end,
 * or a window around the peak that pack_window.h places first), or against
 * neighbour lists (pack_place.h: O(overlapping pairs)). */
typedef enum { BY_NEIGHBOURS, SWEEP_START, SWEEP_PEAK, SWEEP_END, SWEEP_WINDOW } placer_t;

typedef struct {
  order_kind_t order;
  pk_rule_t rule;
  placer_t placer;
  const char* name;
  uint8_t when; /* CAND_* */
} candidate_t;

enum {
  CAND_ALWAYS = 1, /* every instance (neighbour passes: sparse ones) */
  CAND_BUDGET = 2, /* sparse instances, while the neighbour work budget lasts */
  CAND_DENSE = 4,  /* dense instances, where only sweeps run */
  CAND_SMALL = 8,  /* small instances, where every pass is cheap */
};

/* Among these are the placement rules of IREE (program-order best-fit), TFLite
 * and XLA, so the plan is never worse than theirs wherever they all run.
 * Size-ordered first-fit goes first because it is usually the best greedy plan
 * on sparse instances: its arena caps the passes after it, which stop as soon as
 * they exceed it. On dense instances only sweeps run, the ones that win most
 * often first (so the others stop early): the peak-end stack, size-ordered
 * first-fit inside the window around the peak (the rule that packs big buffers
 * best, affordable there) with sweeps outward, the peak-start stack, then the
 * peak-out stack by first-fit and the reverse sweep (each the only winner on
 * some generated traces), within a work budget; IREE's rule always; peak-out
 * best-fit if the budget is left. On small instances every candidate runs. */
static const candidate_t k_candidates[] = {
    {ORDER_PEAK_END, PK_BEST_FIT, SWEEP_PEAK, "peak-end-best-fit", CAND_DENSE | CAND_SMALL},
    {ORDER_WINDOW, PK_FIRST_FIT, SWEEP_WINDOW, "window-size-first-fit", CAND_DENSE | CAND_SMALL},
    {ORDER_PEAK_START, PK_BEST_FIT, SWEEP_PEAK, "peak-start-best-fit", CAND_DENSE | CAND_SMALL},
    {ORDER_PEAK_OUT, PK_FIRST_FIT, SWEEP_PEAK, "peak-out-first-fit", CAND_DENSE},
    {ORDER_REVERSE, PK_BEST_FIT, SWEEP_END, "reverse-best-fit", CAND_DENSE},
    {ORDER_SIZE, PK_FIRST_FIT, BY_NEIGHBOURS, "size-first-fit", CAND_ALWAYS | CAND_SMALL},
    {ORDER_SIZE, PK_BEST_FIT, BY_NEIGHBOURS, "tflite-size-best-fit", CAND_BUDGET | CAND_SMALL},
    {ORDER_SIZE_LENGTH, PK_BEST_FIT, BY_NEIGHBOURS, "xla-spatial-best-fit",
     CAND_BUDGET | CAND_SMALL},
    {ORDER_LENGTH_SIZE, PK_BEST_FIT, BY_NEIGHBOURS, "xla-temporal-best-fit",
     CAND_BUDGET | CAND_SMALL},
    {ORDER_PROGRAM, PK_BEST_FIT, SWEEP_START, "iree-program-best-fit",
     CAND_ALWAYS | CAND_DENSE | CAND_SMALL},
    {ORDER_PEAK_OUT, PK_BEST_FIT, SWEEP_PEAK, "peak-out-best-fit", CAND_DENSE},
    {ORDER_PEAK_OUT, PK_BEST_FIT, SWEEP_PEAK, "peak-out-best-fit", CAND_ALWAYS | CAND_SMALL},
    {ORDER_PEAK_OUT, PK_FIRST_FIT, SWEEP_PEAK, "peak-out-first-fit", CAND_SMALL},
    {ORDER_AREA, PK_FIRST_FIT, BY_NEIGHBOURS, "area-first-fit", CAND_SMALL},
    {ORDER_CLASS_START, PK_FIRST_FIT, BY_NEIGHBOURS, "class-start-first-fit", CAND_SMALL},
    {ORDER_LENGTH_SIZE, PK_FIRST_FIT, BY_NEIGHBOURS, "length-first-fit", CAND_SMALL},
    {ORDER_REVERSE, PK_BEST_FIT, SWEEP_END, "reverse-best-fit", CAND_SMALL},
    {ORDER_REVERSE, PK_FIRST_FIT, SWEEP_END, "reverse-first-fit", CAND_SMALL},
    {ORDER_PROGRAM, PK_FIRST_FIT, SWEEP_START, "program-first-fit", CAND_SMALL},
};

/* The window for the window candidate: the slots whose live bytes come within
 * 1 % of the peak (from the first such slot to the last), narrowed (a finer
 * threshold, down to the peak slot alone) while more than WINDOW_MAX_PARTIAL of
 * its buffers start or end inside it, since their look-ups cost the square of
 * their number (pack_window.h). `live` is scratch for slots + 1 values. */
#define WINDOW_MAX_PARTIAL 2048u
/* Visits the partial buffers' look-ups may take (about partial^2 / 2). */
#define WINDOW_WORK (8ull * 1000 * 1000)

static window_t choose_window(const pk_problem_t* p, uint64_t* live) {
  memset(live, 0, ((size_t)p->slots + 1) * sizeof *live);
  for (uint32_t i = 0; i < p->n; ++i) {
    live[p->lo[i]] += p->sz[i];
    live[p->hi[i]] -= p->sz[i];
  }
  for (uint32_t t = 1; t <= p->slots; ++t) live[t] += live[t - 1];
  window_t w = {p->peak_slot, p->peak_slot, 0};
  for (uint64_t slack = p->lower_bound / 100; slack; slack /= 4) {
    uint32_t w0 = p->peak_slot, w1 = p->peak_slot, count = 0, partial = 0;
    for (uint32_t t = 0; t < p->slots; ++t)
      if (live[t] >= p->lower_bound - slack) {
        if (t < w0) w0 = t;
        w1 = t;
      }
    for (uint32_t i = 0; i < p->n; ++i)
      if (p->lo[i] <= w1 && p->hi[i] > w0) {
        ++count;
        partial += p->lo[i] > w0 || p->hi[i] <= w1;
      }
    w = (window_t){w0, w1, count};
    if (partial <= WINDOW_MAX_PARTIAL) return w;
  }
  /* The peak slot alone: every buffer there is live through it. */
  w = (window_t){p->peak_slot, p->peak_slot, 0};
  for (uint32_t i = 0; i < p->n; ++i) w.count += p->lo[i] <= w.w0 && p->hi[i] > w.w0;
  return w;
}

/* Keeps the plan in *off when it beats *best_arena (swapping the arrays). */
static void keep(uint64_t arena, const char* name, uint64_t** off, uint64_t** best,
                 uint64_t* best_arena, const char** method) {
  if (arena >= *best_arena) return;
  *best_arena = arena;
  *method = name;
  uint64_t* t = *best;
  *best = *off;
  *off = t;
}

/* ---- public entry points -------------------------------------------------- */

air_status_t air_pack_plan(const air_allocator_t* allocator, const air_pack_buffer_t* buffers,
                           size_t count, const air_pack_options_t* options, uint64_t* out_offsets,
                           air_pack_result_t* out_result) {
  air_allocator_t sys;
  allocator = air_mem_or_system(allocator, &sys);
  air_pack_options_t opts = {0};
  if (options) opts = *options;
  if (!opts.alignment) opts.alignment = AIR_PACK_DEFAULT_ALIGNMENT;
  if (!opts.search_budget) opts.search_budget = DEFAULT_SEARCH_BUDGET;
  if (!opts.seed) opts.seed = 0x5eed;
  AIR_RETURN_IF_ERROR(pk_check_alignment(allocator, opts.alignment));
  if (count && (!buffers || !out_offsets))
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT, "pack: NULL buffers or offsets");
  memset(out_result, 0, sizeof *out_result);
  out_result->method = "empty";

  pk_prep_t s;
  air_status_t status = pk_prepare(allocator, buffers, count, opts.alignment, &s);
  pk_problem_t* p = &s.p;
  uint32_t* order = NULL;
  uint64_t* off = NULL;
  uint64_t* best = NULL;
  pk_place_t* pl = NULL;
  pk_sweep_t* sw = NULL;
  pk_window_t* wp = NULL;
  window_t win = {0, 0, 0};
  if (status) goto done;
  for (size_t i = 0; i < count; ++i) out_offsets[i] = 0;
  out_result->lower_bound = p->lower_bound;
  if (p->n == 0) goto done;

  order = air_mem_calloc(allocator, p->n, sizeof *order);
  off = air_mem_calloc(allocator, p->n, sizeof *off);
  best = air_mem_calloc(allocator, p->n, sizeof *best);
  pk_sweep_input_t in = {p->n, p->lo, p->hi, p->sz};
  sw = order && off && best ? pk_sweep_create(allocator, &in) : NULL;
  if (!sw) {
    status = AIR_STATUS_OOM(allocator, "pack");
    goto done;
  }
  uint64_t best_arena = PK_UNSET;
  const char* method = "";
  /* Dense: neighbour lists would not pay (they also need offsets in 32-bit units
   * of the alignment). Small: every pass is cheap. */
  bool dense = p->pairs > NEIGHBOUR_MAX_PAIRS || (p->total >> p->unit_shift) >= UINT32_MAX;
  bool small = !dense && p->n <= EXTRA_CANDIDATE_BUFFERS && p->pairs + p->n <= EXTRA_CANDIDATE_WORK;
  uint8_t mode = dense ? CAND_DENSE : small ? CAND_SMALL : CAND_ALWAYS | CAND_BUDGET;
  uint64_t budget_from = 0; /* neighbour work when the budgeted passes began */
  for (size_t c = 0; c < sizeof k_candidates / sizeof *k_candidates; ++c) {
    const candidate_t* k = &k_candidates[c];
    if (!(k->when & mode) || best_arena == p->lower_bound) continue; /* optimal: done */
    if (mode == CAND_DENSE && !(k->when & CAND_ALWAYS) && pk_sweep_work(sw) > DENSE_SWEEP_BUDGET)
      continue;
    uint64_t arena;
    if (k->placer == BY_NEIGHBOURS) {
      if (!pl) {
        status = pk_build_adjacency(&s);
        if (status) goto done;
        pl = pk_place_create(p);
        if (!pl) {
          status = AIR_STATUS_OOM(allocator, "pack");
          goto done;
        }
      }
      if (mode != CAND_SMALL && (k->when & CAND_BUDGET) && !(k->when & CAND_ALWAYS)) {
        if (!budget_from) budget_from = pk_place_work(pl);
        if (pk_place_work(pl) - budget_from > NEIGHBOUR_WORK_BUDGET) continue;
      }
      make_order(&s, k->order, &win, order);
      arena = pk_place_order(pl, order, k->rule, best_arena, off);
    } else if (k->placer == SWEEP_WINDOW) {
      if (!wp) {
        win = choose_window(p, s.key);
        wp = pk_window_create(allocator, &in, win.count);
        if (!wp) {
          status = AIR_STATUS_OOM(allocator, "pack");
          goto done;
        }
      }
      /* The window by first-fit (k->rule), the rest by best-fit sweeps. */
      make_order(&s, k->order, &win, order);
      arena = pk_window_place(wp, order, win.count, win.w0, win.w1, best_arena, WINDOW_WORK, off);
      if (arena != PK_UNSET)
        arena = pk_sweep_around(sw, order, win.count, win.w0, win.w1, 0, best_arena, off);
    } else {
      make_order(&s, k->order, &win, order);
      int64_t pivot = k->placer == SWEEP_START ? -1
                      : k->placer == SWEEP_END ? (int64_t)p->slots
                                               : (int64_t)p->peak_slot;
      arena = pk_sweep_place(sw, order, pivot, k->rule == PK_FIRST_FIT, best_arena, off);
    }
    keep(arena, k->name, &off, &best, &best_arena, &method);
  }
  if (!(opts.flags & AIR_PACK_FLAG_NO_SEARCH) && best_arena > p->lower_bound &&
      p->n <= SEARCH_MAX_BUFFERS) {
    if (pk_search(p, opts.search_budget, opts.seed, best, &best_arena)) method = "skyline-search";
  }

  for (uint32_t i = 0; i < p->n; ++i) out_offsets[p->orig[i]] = best[i];
  out_result->arena_size = best_arena;
  out_result->method = method;
  if (opts.flags & AIR_PACK_FLAG_VERIFY)
    status = air_pack_check(allocator, buffers, count, opts.alignment, out_offsets, best_arena);

done:
  if (pl) pk_place_destroy(pl);
  pk_sweep_destroy(sw);
  pk_window_destroy(wp);
  allocator->free(allocator->self, order);
  allocator->free(allocator->self, off);
  allocator->free(allocator->self, best);
  pk_prep_free(&s);
  return status;
}

air_status_t air_pack_lower_bound(const air_allocator_t* allocator,
                                  const air_pack_buffer_t* buffers, size_t count,
                                  uint64_t alignment, uint64_t* out_bound) {
  air_allocator_t sys;
  allocator = air_mem_or_system(allocator, &sys);
  if (!alignment) alignment = AIR_PACK_DEFAULT_ALIGNMENT;
  AIR_RETURN_IF_ERROR(pk_check_alignment(allocator, alignment));
  pk_prep_t s;
  air_status_t status = pk_prepare(allocator, buffers, count, alignment, &s);
  *out_bound = status ? 0 : s.p.lower_bound;
  pk_prep_free(&s);
  return status;
}

/* ---- overlap check -------------------------------------------------------- */

/* Max segment tree with range add over ranked offsets: a buffer may go live only
 * where the count of live buffers over its byte range is zero. */
typedef struct {
  uint32_t* mx;
  uint32_t* add;
  uint32_t size;
} seg_t;

static void seg_update(seg_t* t, uint32_t node, uint32_t l, uint32_t r, uint32_t ql, uint32_t qr,
                       uint32_t delta) {
  if (qr <= l || r <= ql) return;
  if (ql <= l && r <= qr) {
    t->mx[node] += delta;
    t->add[node] += delta;
    return;
  }
  uint32_t m = l + (r - l) / 2;
  seg_update(t, 2 * node, l, m, ql, qr, delta);
  seg_update(t, 2 * node + 1, m, r, ql, qr, delta);
  uint32_t a = t->mx[2 * node], b = t->mx[2 * node + 1];
  t->mx[node] = (a > b ? a : b) + t->add[node];
}

static uint32_t seg_max(const seg_t* t, uint32_t node, uint32_t l, uint32_t r, uint32_t ql,
                        uint32_t qr) {
  if (qr <= l || r <= ql) return 0;
  if (ql <= l && r <= qr) return t->mx[node];
  uint32_t m = l + (r - l) / 2;
  uint32_t a = seg_max(t, 2 * node, l, m, ql, qr);
  uint32_t b = seg_max(t, 2 * node + 1, m, r, ql, qr);
  return (a > b ? a : b) + t->add[node];
}

air_status_t air_pack_check(const air_allocator_t* allocator, const air_pack_buffer_t* buffers,
                            size_t count, uint64_t alignment, const uint64_t* offsets,
                            uint64_t arena_size) {
  air_allocator_t sys;
  allocator = air_mem_or_system(allocator, &sys);
  if (!alignment) alignment = AIR_PACK_DEFAULT_ALIGNMENT;
  AIR_RETURN_IF_ERROR(pk_check_alignment(allocator, alignment));
  pk_prep_t s;
  AIR_RETURN_IF_ERROR(pk_prepare(allocator, buffers, count, alignment, &s));
  pk_problem_t* p = &s.p;
  air_status_t status = NULL;
  uint32_t n = p->n;
  for (uint32_t i = 0; i < n && !status; ++i) {
    uint64_t o = offsets[p->orig[i]];
    if (o % alignment)
      status = AIR_STATUS(allocator, AIR_STATUS_INTERNAL,
                          "pack check: buffer %u offset %llu is not %llu-aligned", p->orig[i],
                          (unsigned long long)o, (unsigned long long)alignment);
    else if (o > arena_size || p->sz[i] > arena_size - o)
      status = AIR_STATUS(allocator, AIR_STATUS_INTERNAL,
                          "pack check: buffer %u [%llu, +%llu) leaves the arena of %llu",
                          p->orig[i], (unsigned long long)o, (unsigned long long)p->sz[i],
                          (unsigned long long)arena_size);
  }
  uint64_t* coords = NULL;
  uint32_t* rank = NULL;
  uint32_t* ev = NULL;
  seg_t t = {0};
  if (status || n == 0) goto done;
  /* Rank byte coordinates (starts and ends) so the tree has 2n leaves. */
  coords = air_mem_calloc(allocator, 2 * (size_t)n, sizeof *coords);
  rank = air_mem_calloc(allocator, 4 * (size_t)n, sizeof *rank);
  ev = air_mem_calloc(allocator, 4 * (size_t)n, sizeof *ev);
  t.size = 2 * n;
  t.mx = air_mem_calloc(allocator, 8 * (size_t)n, sizeof *t.mx);
  t.add = air_mem_calloc(allocator, 8 * (size_t)n, sizeof *t.add);
  if (!coords || !rank || !ev || !t.mx || !t.add) {
    status = AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "pack: out of memory");
    goto done;
  }
  memset(t.mx, 0, 8 * (size_t)n * sizeof *t.mx);
  memset(t.add, 0, 8 * (size_t)n * sizeof *t.add);
  for (uint32_t i = 0; i < n; ++i) {
    coords[2 * i] = offsets[p->orig[i]];
    coords[2 * i + 1] = offsets[p->orig[i]] + p->sz[i];
  }
  uint32_t* by = ev;
  for (uint32_t i = 0; i < 2 * n; ++i) by[i] = i;
  pk_radix_sort(by, 2 * n, coords, ev + 2 * n);
  uint32_t r = 0;
  for (uint32_t i = 0; i < 2 * n; ++i) {
    if (i > 0 && coords[by[i]] != coords[by[i - 1]]) ++r;
    rank[by[i]] = r;
  }
  /* Events in time: ends (key 2t) before starts (key 2t+1) at the same slot. */
  for (uint32_t i = 0; i < n; ++i) {
    coords[2 * i] = 2ull * p->lo[i] + 1;
    coords[2 * i + 1] = 2ull * p->hi[i];
  }
  for (uint32_t i = 0; i < 2 * n; ++i) by[i] = i;
  pk_radix_sort(by, 2 * n, coords, ev + 2 * n);
  for (uint32_t k = 0; k < 2 * n && !status; ++k) {
    uint32_t e = by[k], b = e >> 1;
    uint32_t ql = rank[2 * b], qr = rank[2 * b + 1];
    if (e & 1u) {
      seg_update(&t, 1, 0, t.size, ql, qr, UINT32_MAX); /* wraps: minus one */
      continue;
    }
    if (seg_max(&t, 1, 0, t.size, ql, qr) != 0) {
      uint32_t other = b;
      for (uint32_t j = 0; j < n; ++j) {
        if (j == b || p->lo[j] >= p->hi[b] || p->lo[b] >= p->hi[j]) continue;
        uint64_t oj = offsets[p->orig[j]], ob = offsets[p->orig[b]];
        if (oj < ob + p->sz[b] && ob < oj + p->sz[j]) {
          other = j;
          break;
        }
      }
      status = AIR_STATUS(allocator, AIR_STATUS_INTERNAL,
                          "pack check: buffers %u and %u overlap in time and memory",
                          p->orig[other], p->orig[b]);
      break;
    }
    seg_update(&t, 1, 0, t.size, ql, qr, 1);
  }
done:
  allocator->free(allocator->self, coords);
  allocator->free(allocator->self, rank);
  allocator->free(allocator->self, ev);
  allocator->free(allocator->self, t.mx);
  allocator->free(allocator->self, t.add);
  pk_prep_free(&s);
  return status;
}

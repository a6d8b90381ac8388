/* pack_search.c - improvement search: a bounded branch-and-bound that builds the
 * arena bottom-up along a skyline, in the manner of MiniMalloc (Moffitt, ASPLOS
 * 2023), for instances small enough to afford it.
 *
 * The skyline H[t] is the level below which slot t is settled. Each node takes
 * the lowest slot a that still has unplaced buffers (leftmost on ties) and the
 * run [a, z) of slots at that level; the branches are the unplaced buffers that
 * start at a and end inside the run (each sits exactly on the skyline), and last
 * "leave slot a empty", which raises it to its lower neighbour. Buffers are never
 * put into holes below the skyline, so every branch wastes only what it raises.
 *
 * Pruning: W[t] = H[t] + (unplaced bytes live at t) is a lower bound on the
 * final arena (those buffers all overlap at t, so they stack above H[t]); a
 * placement keeps W unchanged and a raise grows it, so a branch dies as soon as
 * some W[t] reaches the capacity, which is one below the best plan so far.
 * Identical candidates are tried once. The search restarts with noisy candidate
 * orders and growing node limits, so it escapes a bad early choice; all limits
 * are work counts, so the result is deterministic. */
#include <string.h>

#include "runtime/base/mem.h"
#include "scheduler/pack/pack_search.h"

#define NONE UINT32_MAX
#define RAISED (UINT32_MAX - 1)

typedef struct {
  uint32_t a; /* lowest slot */
  uint64_t f; /* its level */
  uint32_t cbeg, cend, next;
  uint32_t applied;   /* buffer placed by the current branch, RAISED or NONE */
  uint64_t raised_to; /* level slot a was raised to, for undo */
  uint64_t w_before;  /* max W on the path before this frame's branch */
  int raise_done;
} frame_t;

typedef struct {
  const pk_problem_t* p;
  uint32_t n, S;
  uint64_t* H;        /* [S] skyline */
  uint64_t* W;        /* [S] skyline + unplaced live bytes */
  uint32_t* cnt;      /* [S] unplaced buffers live at t */
  uint32_t* start_at; /* [S + 1] CSR: buffers starting at slot t */
  uint32_t* starts;   /* [n] */
  uint64_t* off;      /* [n] current partial plan */
  uint8_t* placed;    /* [n] */
  uint32_t* cand;     /* candidate stack, <= n per level and n levels: see push */
  uint64_t* score;    /* [n] per-buffer sort key for the current restart */
  frame_t* frames;    /* grows with the depth */
  uint32_t frame_cap, cand_cap;
  uint32_t* dyn;
  int oom;
  uint64_t work;
  uint64_t cap; /* capacity: a plan must stay at or below it */
  uint64_t best_arena;
  uint64_t* best_off;
  int improved;
} search_t;

/* Lowest slot with unplaced buffers; S when everything is placed. */
static uint32_t lowest_slot(search_t* s) {
  uint32_t best = s->S;
  uint64_t level = UINT64_MAX;
  for (uint32_t t = 0; t < s->S; ++t) {
    if (s->cnt[t] && s->H[t] < level) {
      level = s->H[t];
      best = t;
    }
  }
  s->work += s->S / 4 + 1;
  return best;
}

static void record_leaf(search_t* s) {
  const pk_problem_t* p = s->p;
  uint64_t arena = 0;
  for (uint32_t i = 0; i < s->n; ++i)
    if (s->off[i] + p->sz[i] > arena) arena = s->off[i] + p->sz[i];
  s->work += s->n;
  if (arena < s->best_arena) {
    s->best_arena = arena;
    memcpy(s->best_off, s->off, s->n * sizeof *s->off);
    s->improved = 1;
  }
  if (arena > 0 && arena - 1 < s->cap) s->cap = arena - 1;
}

/* Fills a frame for the current state; returns 0 when every buffer is placed. */
static int open_frame(search_t* s, frame_t* fr, uint32_t cand_top, uint64_t w_path) {
  const pk_problem_t* p = s->p;
  uint32_t a = lowest_slot(s);
  if (a == s->S) return 0;
  uint64_t f = s->H[a];
  uint32_t z = a + 1;
  while (z < s->S && s->cnt[z] && s->H[z] == f) ++z;
  s->work += z - a;
  fr->a = a;
  fr->f = f;
  fr->cbeg = fr->cend = fr->next = cand_top;
  fr->applied = NONE;
  fr->raise_done = 0;
  fr->w_before = w_path;
  size_t need = (size_t)cand_top + (s->start_at[a + 1] - s->start_at[a]);
  uint32_t dyn_cap = s->cand_cap;
  if (!air_mem_grow(p->allocator, (void**)&s->dyn, &dyn_cap, need, sizeof *s->dyn) ||
      !air_mem_grow(p->allocator, (void**)&s->cand, &s->cand_cap, need, sizeof *s->cand)) {
    s->oom = 1;
    return 0;
  }
  uint64_t hl = a > 0 && s->cnt[a - 1] ? s->H[a - 1] : UINT64_MAX;
  uint64_t hr = z < s->S && s->cnt[z] ? s->H[z] : UINT64_MAX;
  for (uint32_t k = s->start_at[a]; k < s->start_at[a + 1]; ++k) {
    uint32_t b = s->starts[k];
    if (s->placed[b] || p->hi[b] > z) continue;
    /* Fit first: a buffer whose top is flush with a neighbouring level or that
     * fills the run to its end leaves a flat skyline, which wastes nothing
     * later; then the restart's static key. */
    uint64_t top = f + p->sz[b];
    int fills = p->hi[b] == z;
    uint32_t d = 2u * (top == hl) + 2u * (fills && top == hr) + (uint32_t)fills;
    uint32_t i = fr->cend++;
    while (i > fr->cbeg &&
           (s->dyn[i - 1] < d || (s->dyn[i - 1] == d && s->score[s->cand[i - 1]] < s->score[b]))) {
      s->cand[i] = s->cand[i - 1];
      s->dyn[i] = s->dyn[i - 1];
      --i;
    }
    s->cand[i] = b;
    s->dyn[i] = d;
  }
  s->work += s->start_at[a + 1] - s->start_at[a];
  return 1;
}

static void place(search_t* s, uint32_t b, uint64_t f) {
  const pk_problem_t* p = s->p;
  uint64_t top = f + p->sz[b];
  for (uint32_t t = p->lo[b]; t < p->hi[b]; ++t) {
    s->H[t] = top;
    s->cnt[t]--;
  }
  s->work += p->hi[b] - p->lo[b];
  s->off[b] = f;
  s->placed[b] = 1;
}

static void unplace(search_t* s, uint32_t b, uint64_t f) {
  const pk_problem_t* p = s->p;
  for (uint32_t t = p->lo[b]; t < p->hi[b]; ++t) {
    s->H[t] = f;
    s->cnt[t]++;
  }
  s->work += p->hi[b] - p->lo[b];
  s->placed[b] = 0;
}

/* Level slot a rises to when left empty: the lower of the run's neighbours that
 * still matter; UINT64_MAX when neither does (the slot can never be filled). */
static uint64_t raise_level(const search_t* s, uint32_t a, uint64_t f) {
  uint64_t g = UINT64_MAX;
  if (a > 0 && s->cnt[a - 1] && s->H[a - 1] > f) g = s->H[a - 1];
  uint32_t z = a + 1;
  while (z < s->S && s->cnt[z] && s->H[z] == f) ++z;
  if (z < s->S && s->cnt[z] && s->H[z] > f && s->H[z] < g) g = s->H[z];
  return g;
}

/* 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...: Luby et al.'s universal restart sequence. */
static uint64_t luby(uint32_t i) {
  uint64_t k = 1;
  ++i;
  for (;;) {
    while ((1ull << k) - 1 < i) ++k;
    if ((1ull << k) - 1 == i) return 1ull << (k - 1);
    i -= (uint32_t)((1ull << (k - 1)) - 1);
    k = 1;
  }
}

/* One depth-first search from the empty plan, until `limit` work or, with
 * `first_leaf`, until the first complete plan. */
static void dfs(search_t* s, uint64_t limit, int first_leaf) {
  const pk_problem_t* p = s->p;
  for (uint32_t t = 0; t < s->S; ++t) {
    s->H[t] = 0;
    s->W[t] = 0;
    s->cnt[t] = 0;
  }
  for (uint32_t b = 0; b < s->n; ++b) {
    s->placed[b] = 0;
    for (uint32_t t = p->lo[b]; t < p->hi[b]; ++t) {
      s->W[t] += p->sz[b];
      s->cnt[t]++;
    }
  }
  uint64_t w_path = p->lower_bound;
  uint32_t depth = 0;
  if (!air_mem_grow(p->allocator, (void**)&s->frames, &s->frame_cap, 1, sizeof *s->frames) ||
      !open_frame(s, &s->frames[0], 0, w_path))
    return;
  depth = 1;
  while (depth > 0 && s->work < limit) {
    frame_t* fr = &s->frames[depth - 1];
    if (fr->applied == RAISED) {
      s->H[fr->a] = fr->f;
      s->W[fr->a] -= fr->raised_to - fr->f;
    } else if (fr->applied != NONE) {
      unplace(s, fr->applied, fr->f);
    }
    fr->applied = NONE;
    w_path = fr->w_before;
    if (w_path > s->cap) {
      --depth;
      continue;
    }
    if (fr->next < fr->cend) {
      uint32_t b = s->cand[fr->next++];
      /* Skip a candidate equal in shape to one already tried here. */
      int seen = 0;
      for (uint32_t k = fr->cbeg; k + 1 < fr->next && !seen; ++k) {
        uint32_t o = s->cand[k];
        seen = p->hi[o] == p->hi[b] && p->sz[o] == p->sz[b];
      }
      if (seen) continue;
      place(s, b, fr->f);
      fr->applied = b;
    } else if (!fr->raise_done) {
      fr->raise_done = 1;
      uint64_t g = raise_level(s, fr->a, fr->f);
      if (g == UINT64_MAX || s->W[fr->a] + (g - fr->f) > s->cap) continue;
      s->H[fr->a] = g;
      s->W[fr->a] += g - fr->f;
      if (s->W[fr->a] > w_path) w_path = s->W[fr->a];
      fr->raised_to = g;
      fr->applied = RAISED;
    } else {
      --depth;
      continue;
    }
    if (!air_mem_grow(p->allocator, (void**)&s->frames, &s->frame_cap, (size_t)depth + 1,
              sizeof *s->frames)) {
      s->oom = 1;
      return;
    }
    fr = &s->frames[depth - 1];
    if (!open_frame(s, &s->frames[depth], fr->cend, w_path)) {
      if (s->oom) return;
      record_leaf(s);
      if (first_leaf) return;
      continue;
    }
    ++depth;
  }
}

int pk_search(const pk_problem_t* p, uint64_t budget, uint64_t seed, uint64_t* off,
              uint64_t* arena) {
  const air_allocator_t* a = p->allocator;
  search_t s;
  memset(&s, 0, sizeof s);
  s.p = p;
  s.n = p->n;
  s.S = p->slots;
  s.H = air_mem_calloc(a, s.S, sizeof *s.H);
  s.W = air_mem_calloc(a, s.S, sizeof *s.W);
  s.cnt = air_mem_calloc(a, s.S, sizeof *s.cnt);
  s.start_at = air_mem_calloc(a, (size_t)s.S + 1, sizeof *s.start_at);
  s.starts = air_mem_calloc(a, s.n, sizeof *s.starts);
  s.off = air_mem_calloc(a, s.n, sizeof *s.off);
  s.placed = air_mem_calloc(a, s.n, sizeof *s.placed);
  s.score = air_mem_calloc(a, s.n, sizeof *s.score);
  int ok = s.H && s.W && s.cnt && s.start_at && s.starts && s.off && s.placed && s.score;
  if (ok) {
    memset(s.start_at, 0, ((size_t)s.S + 1) * sizeof *s.start_at);
    for (uint32_t b = 0; b < s.n; ++b) s.start_at[p->lo[b] + 1]++;
    for (uint32_t t = 0; t < s.S; ++t) s.start_at[t + 1] += s.start_at[t];
    uint32_t* fill = s.cnt; /* scratch until the first dfs */
    memcpy(fill, s.start_at, s.S * sizeof *fill);
    for (uint32_t b = 0; b < s.n; ++b) s.starts[fill[p->lo[b]]++] = b;
  }
  int improved = 0;
  if (ok) {
    s.best_arena = *arena;
    s.best_off = off;
    s.cap = *arena - 1;
    uint64_t rng = seed;
    uint64_t unit = 0;
    for (uint32_t restart = 0; s.work < budget && !s.oom; ++restart) {
      /* Three keys in turn: longest first (a long buffer settles the most
       * skyline), largest first, largest area first. From the fourth run on,
       * each key gets multiplicative noise so the runs explore. */
      for (uint32_t b = 0; b < s.n; ++b) {
        uint64_t len = p->hi[b] - p->lo[b];
        uint64_t units = p->sz[b] >> 6;
        if (units > UINT32_MAX) units = UINT32_MAX;
        uint64_t key;
        switch (restart % 3) {
          case 0:
            key = len << 32 | units;
            break;
          case 1:
            key = units << 32 | len;
            break;
          default:
            key = units * len;
            break;
        }
        /* key * [1/8, 3/8]: reorders buffers within a factor of three. */
        if (restart >= 3) key = (key >> 3) + (pk_rand(&rng) % ((key >> 2) + 1));
        s.score[b] = key;
      }
      /* Luby restarts in units of the first run's work: mostly short runs,
       * each able to finish a descent, and now and then a long one. */
      uint64_t limit = unit ? unit * luby(restart) : budget;
      uint64_t before = s.work;
      uint64_t stop = limit > budget - s.work ? budget : s.work + limit;
      if (!unit) s.cap = UINT64_MAX - 1; /* the first run measures one descent */
      dfs(&s, stop, unit == 0);
      if (s.cap > s.best_arena - 1) s.cap = s.best_arena - 1;
      if (!unit) unit = s.work - before + 1000;
      if (s.cap < p->lower_bound) break; /* optimal */
    }
    improved = s.improved;
    *arena = s.best_arena;
  }
  void* arrays[] = {s.H,      s.W,     s.cnt,    s.start_at, s.starts, s.off,
                    s.placed, s.score, s.frames, s.cand,     s.dyn};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; ++i) a->free(a->self, arrays[i]);
  return improved;
}

/* pack_sweep.c - sweep placement (see pack_sweep.h).
 *
 * The live set is kept in two ordered sequences, each a two-level B-tree: sorted
 * blocks of up to 64 entries, a directory of the blocks in order, and a max
 * segment tree over the directory:
 *   - by offset, each live buffer as (offset, end, gap below it); the segment
 *     tree holds each block's largest gap, so the lowest gap of at least s bytes
 *     is one descent and one block scan (first-fit), and the top of the live set
 *     is the last entry;
 *   - by (gap, offset), for the smallest gap of at least s bytes, lowest offset
 *     on ties (best-fit); kept only when best-fit runs.
 * Placing or expiring a buffer changes its own entry and the gap of the buffer
 * above it: a few O(log live) searches and one move inside a block. Blocks split
 * when full and merge with their successor when both are under a quarter full,
 * so the directory stays within a small factor of live / 64. Expiry follows the
 * sweep: a min-heap of end slots going forward, a max-heap of start slots going
 * back. */
#include "scheduler/pack/pack_sweep.h"

#include <string.h>

#include "runtime/base/mem.h"

#define NOT_A_SWEEP UINT64_MAX

enum { BCAP = 64 };

/* Sorted by (a, b). By offset: a = offset, b = end, c = gap below; by gap: a =
 * gap, b = offset. */
typedef struct ent_t {
  uint64_t a, b, c;
} ent_t;

typedef struct block_t {
  uint32_t n;
  uint64_t maxc;
  ent_t e[BCAP];
} block_t;

/* A directory slot: a block and the key of its first entry, side by side so the
 * search over blocks reads one array. */
typedef struct dslot_t {
  uint64_t a, b;
  uint32_t id;
} dslot_t;

typedef struct seq_t {
  const air_allocator_t* al;
  block_t* pool;    /* blocks; free ones are chained through e[0].a */
  uint32_t cap, used, free_head;
  dslot_t* dir;     /* blocks in order */
  uint32_t ndir;
  uint64_t* tree;   /* max segment tree over directory positions, leaves at size */
  uint32_t size;    /* leaves (a power of two >= cap) */
  int has_c;        /* the tree is kept (the sequence by offset) */
  int key2;         /* b is part of the key (the sequence by gap) */
  int oom;
} seq_t;

#define NO_BLOCK UINT32_MAX

static void seq_clear(seq_t* q) {
  q->used = 0;
  q->free_head = NO_BLOCK;
  q->ndir = 0;
  memset(q->tree, 0, 2 * (size_t)q->size * sizeof *q->tree);
}

/* Room for `live` entries: two neighbouring blocks hold more than BCAP / 2
 * entries (else they merge), so there are at most about live / 16 blocks; the
 * arrays grow if that is ever exceeded. */
static int seq_init(seq_t* q, const air_allocator_t* al, uint32_t live, int has_c) {
  memset(q, 0, sizeof *q);
  q->al = al;
  q->has_c = has_c;
  q->key2 = !has_c;
  q->cap = live / 8 + 8;
  q->size = 1;
  while (q->size < q->cap) q->size *= 2;
  q->pool = air_mem_calloc(al, q->cap, sizeof *q->pool);
  q->dir = air_mem_calloc(al, q->cap, sizeof *q->dir);
  q->tree = air_mem_calloc(al, 2 * (size_t)q->size, sizeof *q->tree);
  if (!q->pool || !q->dir || !q->tree) return 0;
  seq_clear(q);
  return 1;
}

static void seq_free(seq_t* q) {
  air_mem_free(q->al, q->pool);
  air_mem_free(q->al, q->dir);
  air_mem_free(q->al, q->tree);
}

static void tree_set(seq_t* q, uint32_t i, uint64_t v) {
  if (!q->has_c) return;
  uint32_t k = q->size + i;
  q->tree[k] = v;
  for (k /= 2; k; k /= 2) {
    uint64_t l = q->tree[2 * k], r = q->tree[2 * k + 1];
    q->tree[k] = l > r ? l : r;
  }
}

/* After the directory changed from position `from` on (it grew or shrank by
 * one block): its leaves up to one past the end, and their ancestors. */
static void tree_rebuild(seq_t* q, uint32_t from) {
  if (!q->has_c) return;
  uint32_t to = q->ndir + 1 < q->size ? q->ndir + 1 : q->size;
  for (uint32_t i = from; i < to; ++i)
    q->tree[q->size + i] = i < q->ndir ? q->pool[q->dir[i].id].maxc : 0;
  for (uint32_t lo = (q->size + from) / 2, hi = (q->size + to - 1) / 2; lo; lo /= 2, hi /= 2)
    for (uint32_t k = lo; k <= hi; ++k) {
      uint64_t l = q->tree[2 * k], r = q->tree[2 * k + 1];
      q->tree[k] = l > r ? l : r;
    }
}

/* Directory slot d's key from its block's first entry. */
static void dir_key(seq_t* q, uint32_t d) {
  const ent_t* f = &q->pool[q->dir[d].id].e[0];
  q->dir[d].a = f->a;
  q->dir[d].b = f->b;
}

/* Sets leaf d of the tree unless it already holds v (most updates leave a
 * block's largest gap as it was). */
static void tree_put(seq_t* q, uint32_t d, uint64_t v) {
  if (q->has_c && q->tree[q->size + d] != v) tree_set(q, d, v);
}

static uint64_t block_maxc(const block_t* b) {
  uint64_t m = 0;
  for (uint32_t i = 0; i < b->n; ++i)
    if (b->e[i].c > m) m = b->e[i].c;
  return m;
}

static uint32_t block_new(seq_t* q) {
  if (q->free_head != NO_BLOCK) {
    uint32_t id = q->free_head;
    q->free_head = (uint32_t)q->pool[id].e[0].a;
    return id;
  }
  if (q->used == q->cap) {
    /* More blocks than planned (many underfull ones): grow every array. */
    uint32_t cap = q->cap * 2, size = q->size;
    while (size < cap) size *= 2;
    block_t* pool = air_mem_calloc(q->al, cap, sizeof *pool);
    dslot_t* dir = air_mem_calloc(q->al, cap, sizeof *dir);
    uint64_t* tree = air_mem_calloc(q->al, 2 * (size_t)size, sizeof *tree);
    if (!pool || !dir || !tree) {
      air_mem_free(q->al, pool);
      air_mem_free(q->al, dir);
      air_mem_free(q->al, tree);
      q->oom = 1;
      return NO_BLOCK;
    }
    memcpy(pool, q->pool, q->used * sizeof *pool);
    memcpy(dir, q->dir, q->ndir * sizeof *dir);
    seq_free(q);
    q->pool = pool;
    q->dir = dir;
    q->tree = tree;
    q->cap = cap;
    q->size = size;
    tree_rebuild(q, 0);
  }
  return q->used++;
}

static void block_release(seq_t* q, uint32_t id) {
  q->pool[id].e[0].a = q->free_head;
  q->free_head = id;
}

/* A position in a sequence: entry i of the block at directory slot d (i may be
 * the block's count: just past its last entry). */
typedef struct at_t {
  uint32_t d, i;
} at_t;

/* Key (a, b) is not below directory slot f's first key (branch-free). */
static int at_or_above(const seq_t* q, uint64_t a, uint64_t b, const dslot_t* f) {
  return (a > f->a) | ((a == f->a) & (!q->key2 | (b >= f->b)));
}

/* The first entry not below key (a, b). The sequence must not be empty. */
static at_t seq_find(const seq_t* q, uint64_t a, uint64_t b) {
  /* The last block whose first key is at or below the key (else the first). */
  const dslot_t* base = q->dir;
  for (uint32_t n = q->ndir; n > 1;) {
    uint32_t half = n / 2;
    base = at_or_above(q, a, b, &base[half]) ? base + half : base;
    n -= half;
  }
  at_t p = {(uint32_t)(base - q->dir), 0};
  const block_t* blk = &q->pool[base->id];
  uint32_t lo = 0;
  for (uint32_t n = blk->n; n > 0;) { /* first entry not below the key */
    uint32_t half = n / 2;
    const ent_t* e = &blk->e[lo + half];
    int below = (e->a < a) | (q->key2 & (e->a == a) & (e->b < b));
    lo = below ? lo + half + 1 : lo;
    n = below ? n - half - 1 : half;
  }
  p.i = lo;
  return p;
}

static ent_t* seq_at(const seq_t* q, at_t p) { return &q->pool[q->dir[p.d].id].e[p.i]; }

/* The entry at p, or the next one when p is past its block's end; NULL at the end. */
static ent_t* seq_at_or_next(const seq_t* q, at_t p) {
  if (p.i < q->pool[q->dir[p.d].id].n) return seq_at(q, p);
  return p.d + 1 < q->ndir ? &q->pool[q->dir[p.d + 1].id].e[0] : NULL;
}

/* The entry before p, or NULL. */
static ent_t* seq_before(const seq_t* q, at_t p) {
  if (p.i > 0) return &q->pool[q->dir[p.d].id].e[p.i - 1];
  if (p.d == 0) return NULL;
  const block_t* blk = &q->pool[q->dir[p.d - 1].id];
  return (ent_t*)&blk->e[blk->n - 1];
}

/* Sets the c of entry e, which lives in the block at slot d. */
static void seq_set_c(seq_t* q, uint32_t d, ent_t* e, uint64_t c) {
  block_t* blk = &q->pool[q->dir[d].id];
  uint64_t old = e->c;
  e->c = c;
  if (c > blk->maxc)
    blk->maxc = c;
  else if (old == blk->maxc && old != c)
    blk->maxc = block_maxc(blk);
  tree_put(q, d, blk->maxc);
}

/* Inserts x at p (as found for x's key). */
static void seq_insert_at(seq_t* q, at_t p, ent_t x) {
  if (q->oom) return;
  if (q->ndir == 0) {
    uint32_t id = block_new(q);
    if (id == NO_BLOCK) return;
    q->pool[id].n = 0;
    q->pool[id].maxc = 0;
    q->dir[q->ndir++].id = id;
    p = (at_t){0, 0};
  }
  uint32_t d = p.d, i = p.i;
  block_t* blk = &q->pool[q->dir[d].id];
  memmove(&blk->e[i + 1], &blk->e[i], (blk->n - i) * sizeof *blk->e);
  blk->e[i] = x;
  blk->n++;
  if (i == 0) dir_key(q, d);
  if (x.c > blk->maxc) blk->maxc = x.c;
  if (blk->n < BCAP) {
    tree_put(q, d, blk->maxc);
    return;
  }
  /* Full: split in halves. */
  uint32_t id = block_new(q);
  if (id == NO_BLOCK) return;
  blk = &q->pool[q->dir[d].id]; /* the pool may have moved */
  block_t* right = &q->pool[id];
  right->n = BCAP / 2;
  memcpy(right->e, &blk->e[BCAP / 2], (BCAP / 2) * sizeof *blk->e);
  blk->n = BCAP / 2;
  blk->maxc = block_maxc(blk);
  right->maxc = block_maxc(right);
  memmove(&q->dir[d + 2], &q->dir[d + 1], (q->ndir - d - 1) * sizeof *q->dir);
  q->dir[d + 1].id = id;
  dir_key(q, d + 1);
  q->ndir++;
  tree_rebuild(q, d);
}

/* Removes the entry at p. */
static void seq_erase_at(seq_t* q, at_t p) {
  uint32_t d = p.d, i = p.i;
  block_t* blk = &q->pool[q->dir[d].id];
  uint64_t c = blk->e[i].c;
  memmove(&blk->e[i], &blk->e[i + 1], (blk->n - i - 1) * sizeof *blk->e);
  blk->n--;
  if (i == 0 && blk->n) dir_key(q, d);
  if (c == blk->maxc && c) blk->maxc = block_maxc(blk);
  /* Merge with the successor when both are small, drop an empty block. */
  if (d + 1 < q->ndir && blk->n + q->pool[q->dir[d + 1].id].n <= BCAP / 2) {
    block_t* next = &q->pool[q->dir[d + 1].id];
    memcpy(&blk->e[blk->n], next->e, next->n * sizeof *next->e);
    blk->n += next->n;
    if (next->maxc > blk->maxc) blk->maxc = next->maxc;
    block_release(q, q->dir[d + 1].id);
    memmove(&q->dir[d + 1], &q->dir[d + 2], (q->ndir - d - 2) * sizeof *q->dir);
    q->ndir--;
    dir_key(q, d);
    tree_rebuild(q, d);
  } else if (blk->n == 0) {
    block_release(q, q->dir[d].id);
    memmove(&q->dir[d], &q->dir[d + 1], (q->ndir - d - 1) * sizeof *q->dir);
    q->ndir--;
    tree_rebuild(q, d);
  } else {
    tree_put(q, d, blk->maxc);
  }
}

/* By key: insert x; erase the entry with key (a, b), which must be present. */
static void seq_insert(seq_t* q, ent_t x) {
  if (q->oom) return;
  seq_insert_at(q, q->ndir ? seq_find(q, x.a, x.b) : (at_t){0, 0}, x);
}

static void seq_erase(seq_t* q, uint64_t a, uint64_t b) {
  if (q->oom || !q->ndir) return;
  at_t p = seq_find(q, a, b);
  const ent_t* e = seq_at_or_next(q, p);
  if (!e || e->a != a || (q->key2 && e->b != b)) return; /* absent: not reached */
  if (p.i == q->pool[q->dir[p.d].id].n) p = (at_t){p.d + 1, 0};
  seq_erase_at(q, p);
}

/* The first entry (in order) whose c is at least s, or NULL. */
static const ent_t* seq_first_c(const seq_t* q, uint64_t s) {
  if (!q->ndir || q->tree[1] < s) return NULL;
  uint32_t k = 1;
  while (k < q->size) k = q->tree[2 * k] >= s ? 2 * k : 2 * k + 1;
  const block_t* blk = &q->pool[q->dir[k - q->size].id];
  for (uint32_t i = 0; i < blk->n; ++i)
    if (blk->e[i].c >= s) return &blk->e[i];
  return NULL; /* not reached: the block's max is at least s */
}

static const ent_t* seq_last(const seq_t* q) {
  if (!q->ndir) return NULL;
  const block_t* blk = &q->pool[q->dir[q->ndir - 1].id];
  return blk->n ? &blk->e[blk->n - 1] : NULL;
}

/* ---- the live set ------------------------------------------------------- */

struct pk_sweep_t {
  const air_allocator_t* a;
  pk_sweep_input_t in;
  seq_t by_off, by_gap;
  uint64_t* pos;  /* [n] */
  uint64_t* heap; /* [n] (key << 32 | buffer id) */
  uint32_t heap_n;
  int keep_gaps;  /* by_gap is maintained (best-fit) */
  int forward;    /* heap key: end slot (forward) or start slot (backward) */
};

/* The gap of the live buffer in entry e (slot d of the sequence by offset)
 * becomes `gap`. */
static void set_gap(pk_sweep_t* sw, uint32_t d, ent_t* e, uint64_t gap) {
  if (sw->keep_gaps && e->c != gap) {
    seq_erase(&sw->by_gap, e->c, e->a);
    seq_insert(&sw->by_gap, (ent_t){gap, e->a, 0});
  }
  seq_set_c(&sw->by_off, d, e, gap);
}

/* The slot of the block after p's when p is past its block's end. */
static uint32_t slot_of_next(const seq_t* q, at_t p) {
  return p.i < q->pool[q->dir[p.d].id].n ? p.d : p.d + 1;
}

static void live_insert(pk_sweep_t* sw, uint64_t pos, uint64_t end) {
  seq_t* q = &sw->by_off;
  if (!q->ndir) {
    seq_insert(q, (ent_t){pos, end, pos});
    if (sw->keep_gaps) seq_insert(&sw->by_gap, (ent_t){pos, pos, 0});
    return;
  }
  at_t p = seq_find(q, pos, 0);
  const ent_t* below = seq_before(q, p);
  ent_t* above = seq_at_or_next(q, p);
  uint64_t gap = pos - (below ? below->b : 0);
  /* The buffer above now sits on the new one; fix it before the insertion
   * moves it. */
  if (above) set_gap(sw, slot_of_next(q, p), above, above->a - end);
  seq_insert_at(q, p, (ent_t){pos, end, gap});
  if (sw->keep_gaps) seq_insert(&sw->by_gap, (ent_t){gap, pos, 0});
}

static void live_erase(pk_sweep_t* sw, uint64_t pos) {
  seq_t* q = &sw->by_off;
  if (!q->ndir) return; /* only after running out of memory */
  at_t p = seq_find(q, pos, 0);
  if (p.i == q->pool[q->dir[p.d].id].n) p = (at_t){p.d + 1, 0};
  if (p.d >= q->ndir || seq_at(q, p)->a != pos) return; /* absent: not reached */
  const ent_t* below = seq_before(q, p);
  uint64_t floor = below ? below->b : 0, gap = seq_at(q, p)->c;
  at_t next = {p.d, p.i + 1};
  ent_t* above = seq_at_or_next(q, next);
  if (above) set_gap(sw, slot_of_next(q, next), above, above->a - floor);
  if (sw->keep_gaps) seq_erase(&sw->by_gap, gap, pos);
  seq_erase_at(q, p);
}

/* Where a buffer of s bytes goes against the live set. */
static uint64_t choose(const pk_sweep_t* sw, uint64_t s, int first_fit) {
  if (first_fit) {
    const ent_t* e = seq_first_c(&sw->by_off, s);
    if (e) return e->a - e->c;
  } else if (sw->by_gap.ndir) {
    const ent_t* at = seq_at_or_next(&sw->by_gap, seq_find(&sw->by_gap, s, 0));
    if (at) return at->b - at->a;
  }
  const ent_t* top = seq_last(&sw->by_off); /* on top of the highest live buffer */
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
  if (!ok || !sw->pos || !sw->heap || !seq_init(&sw->by_off, allocator, (uint32_t)peak, 1) ||
      !seq_init(&sw->by_gap, allocator, (uint32_t)peak, 0)) {
    pk_sweep_destroy(sw);
    return NULL;
  }
  return sw;
}

void pk_sweep_destroy(pk_sweep_t* sw) {
  if (!sw) return;
  seq_free(&sw->by_off);
  seq_free(&sw->by_gap);
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

uint64_t pk_sweep_place(pk_sweep_t* sw, const uint32_t* order, int64_t pivot, int first_fit,
                        uint64_t cap, uint64_t* off) {
  const pk_sweep_input_t* in = &sw->in;
  uint32_t n = in->n, core = 0;
  uint64_t arena = 0;
  sw->keep_gaps = !first_fit;
  seq_clear(&sw->by_off);
  seq_clear(&sw->by_gap);
  sw->heap_n = 0;
  sw->forward = 1;
#define LIVE_AT_PIVOT(x) (pivot >= 0 && in->lo[x] <= (uint64_t)pivot && (uint64_t)pivot < in->hi[x])
  /* The buffers live at the pivot overlap one another: all of them are the
   * live set, nothing expires. */
  while (core < n && LIVE_AT_PIVOT(order[core])) {
    if (!place_one(sw, order[core], first_fit, cap, &arena, off)) return NOT_A_SWEEP;
    ++core;
  }
  /* Forward from the pivot: the buffers starting after it, by start slot. */
  int64_t at = pivot;
  for (uint32_t k = core; k < n; ++k) {
    uint32_t x = order[k];
    if (LIVE_AT_PIVOT(x)) return NOT_A_SWEEP;
    if ((int64_t)in->lo[x] <= pivot) continue; /* an earlier one: the backward pass */
    if ((int64_t)in->lo[x] < at) return NOT_A_SWEEP;
    at = in->lo[x];
    while (sw->heap_n && heap_top_slot(sw) <= in->lo[x]) expire(sw);
    if (!place_one(sw, x, first_fit, cap, &arena, off)) return NOT_A_SWEEP;
  }
  if (pivot >= 0) {
    /* Backward from the pivot: the buffers ending at or before it, by end slot
     * descending, against the pivot's buffers again. */
    seq_clear(&sw->by_off);
    seq_clear(&sw->by_gap);
    sw->heap_n = 0;
    sw->forward = 0;
    for (uint32_t k = 0; k < core; ++k) {
      live_insert(sw, sw->pos[order[k]], sw->pos[order[k]] + in->sz[order[k]]);
      heap_push(sw, order[k]);
    }
    at = pivot;
    for (uint32_t k = core; k < n; ++k) {
      uint32_t x = order[k];
      if ((int64_t)in->lo[x] > pivot) continue;
      int64_t last = (int64_t)in->hi[x] - 1; /* its last slot */
      if (last > at) return NOT_A_SWEEP;
      at = last;
      while (sw->heap_n && (int64_t)heap_top_slot(sw) > last) expire(sw);
      if (!place_one(sw, x, first_fit, cap, &arena, off)) return NOT_A_SWEEP;
    }
  }
#undef LIVE_AT_PIVOT
  if (sw->by_off.oom || sw->by_gap.oom) return NOT_A_SWEEP;
  return arena;
}

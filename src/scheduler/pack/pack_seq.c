/* pack_seq.c - the ordered sequence of the pack layer (see pack_seq.h).
 *
 * Blocks split in halves when full and merge with their successor when both are
 * under a quarter full, so the directory stays within a small factor of the
 * entries / 64. Every search is a branch-free binary search over the directory
 * and then over one block. The segment tree (kept only when has_c) holds each
 * block's largest c, so "the first entry with c >= s" skips whole blocks. */
#include "scheduler/pack/pack_seq.h"

#include <string.h>

#include "runtime/base/mem.h"

#define NO_BLOCK UINT32_MAX

void pk_seq_clear(pk_seq_t* q) {
  q->used = 0;
  q->free_head = NO_BLOCK;
  q->ndir = 0;
  q->oom = 0;
  memset(q->tree, 0, 2 * (size_t)q->size * sizeof *q->tree);
}

/* Two neighbouring blocks hold more than BCAP / 2 entries (else they merge), so
 * there are at most about live / 16 blocks; the arrays grow if that is ever
 * exceeded. */
int pk_seq_init(pk_seq_t* q, const air_allocator_t* al, uint32_t live, int has_c, int key2) {
  memset(q, 0, sizeof *q);
  q->al = al;
  q->has_c = has_c;
  q->key2 = key2;
  q->cap = live / 8 + 8;
  q->size = 1;
  while (q->size < q->cap) q->size *= 2;
  q->pool = air_mem_calloc(al, q->cap, sizeof *q->pool);
  q->dir = air_mem_calloc(al, q->cap, sizeof *q->dir);
  q->tree = air_mem_calloc(al, 2 * (size_t)q->size, sizeof *q->tree);
  if (!q->pool || !q->dir || !q->tree) return 0;
  pk_seq_clear(q);
  return 1;
}

void pk_seq_free(pk_seq_t* q) {
  air_mem_free(q->al, q->pool);
  air_mem_free(q->al, q->dir);
  air_mem_free(q->al, q->tree);
  q->pool = NULL;
  q->dir = NULL;
  q->tree = NULL;
}

static void tree_set(pk_seq_t* q, uint32_t i, uint64_t v) {
  uint32_t k = q->size + i;
  q->tree[k] = v;
  for (k /= 2; k; k /= 2) {
    uint64_t l = q->tree[2 * k], r = q->tree[2 * k + 1];
    q->tree[k] = l > r ? l : r;
  }
}

/* After the directory changed from position `from` on (it grew or shrank by
 * one block): its leaves up to one past the end, and their ancestors. */
static void tree_rebuild(pk_seq_t* q, uint32_t from) {
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
static void dir_key(pk_seq_t* q, uint32_t d) {
  const pk_ent_t* f = &q->pool[q->dir[d].id].e[0];
  q->dir[d].a = f->a;
  q->dir[d].b = f->b;
}

/* Sets leaf d of the tree unless it already holds v (most updates leave a
 * block's largest c as it was). */
static void tree_put(pk_seq_t* q, uint32_t d, uint64_t v) {
  if (q->has_c && q->tree[q->size + d] != v) tree_set(q, d, v);
}

static uint64_t block_maxc(const pk_block_t* b) {
  uint64_t m = 0;
  for (uint32_t i = 0; i < b->n; ++i)
    if (b->e[i].c > m) m = b->e[i].c;
  return m;
}

static uint32_t block_new(pk_seq_t* q) {
  if (q->free_head != NO_BLOCK) {
    uint32_t id = q->free_head;
    q->free_head = (uint32_t)q->pool[id].e[0].a;
    return id;
  }
  if (q->used == q->cap) {
    /* More blocks than planned (many underfull ones): grow every array. */
    uint32_t cap = q->cap * 2, size = q->size;
    while (size < cap) size *= 2;
    pk_block_t* pool = air_mem_calloc(q->al, cap, sizeof *pool);
    pk_dslot_t* dir = air_mem_calloc(q->al, cap, sizeof *dir);
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
    pk_seq_free(q);
    q->pool = pool;
    q->dir = dir;
    q->tree = tree;
    q->cap = cap;
    q->size = size;
    tree_rebuild(q, 0);
  }
  return q->used++;
}

static void block_release(pk_seq_t* q, uint32_t id) {
  q->pool[id].e[0].a = q->free_head;
  q->free_head = id;
}

/* The first entry not below the key: a branch-free binary search over the
 * directory (the last block whose first key is at or below the key, else the
 * first block), then over that block. One copy per kind of key, so the loops
 * carry no test of the kind. */
#define SEQ_FIND(BELOW, ABOVE)                                            \
  do {                                                                    \
    const pk_dslot_t* base = q->dir;                                      \
    for (uint32_t n = q->ndir; n > 1;) {                                  \
      uint32_t half = n / 2;                                              \
      const pk_dslot_t* f = &base[half];                                  \
      base = ABOVE(f) ? base : f;                                         \
      n -= half;                                                          \
    }                                                                     \
    const pk_block_t* blk = &q->pool[base->id];                           \
    uint32_t lo = 0;                                                      \
    for (uint32_t n = blk->n; n > 0;) {                                   \
      uint32_t half = n / 2;                                              \
      const pk_ent_t* f = &blk->e[lo + half];                             \
      int below = BELOW(f);                                               \
      lo = below ? lo + half + 1 : lo;                                    \
      n = below ? n - half - 1 : half;                                    \
    }                                                                     \
    return (pk_at_t){(uint32_t)(base - q->dir), lo};                      \
  } while (0)

/* f's key is below / above (a, b) (entries and directory slots both have a
 * and b). */
#define BELOW_A(f) ((f)->a < a)
#define ABOVE_A(f) ((f)->a > a)
#define BELOW_AB(f) (((f)->a < a) | (((f)->a == a) & ((f)->b < b)))
#define ABOVE_AB(f) (((f)->a > a) | (((f)->a == a) & ((f)->b > b)))

pk_at_t pk_seq_find(const pk_seq_t* q, uint64_t a, uint64_t b) {
  if (q->key2) SEQ_FIND(BELOW_AB, ABOVE_AB);
  SEQ_FIND(BELOW_A, ABOVE_A);
}

pk_ent_t* pk_seq_at_or_next(const pk_seq_t* q, pk_at_t p) {
  if (p.i < q->pool[q->dir[p.d].id].n) return pk_seq_at(q, p);
  return p.d + 1 < q->ndir ? &q->pool[q->dir[p.d + 1].id].e[0] : NULL;
}

pk_ent_t* pk_seq_before(const pk_seq_t* q, pk_at_t p) {
  if (p.i > 0) return &q->pool[q->dir[p.d].id].e[p.i - 1];
  if (p.d == 0) return NULL;
  pk_block_t* blk = &q->pool[q->dir[p.d - 1].id];
  return &blk->e[blk->n - 1];
}

const pk_ent_t* pk_seq_last(const pk_seq_t* q) {
  if (!q->ndir) return NULL;
  const pk_block_t* blk = &q->pool[q->dir[q->ndir - 1].id];
  return blk->n ? &blk->e[blk->n - 1] : NULL;
}

void pk_seq_set_c(pk_seq_t* q, uint32_t d, pk_ent_t* e, uint64_t c) {
  pk_block_t* blk = &q->pool[q->dir[d].id];
  uint64_t old = e->c;
  e->c = c;
  if (c > blk->maxc)
    blk->maxc = c;
  else if (old == blk->maxc && old != c)
    blk->maxc = block_maxc(blk);
  tree_put(q, d, blk->maxc);
}

void pk_seq_insert_at(pk_seq_t* q, pk_at_t p, pk_ent_t x) {
  if (q->oom) return;
  if (q->ndir == 0) {
    uint32_t id = block_new(q);
    if (id == NO_BLOCK) return;
    q->pool[id].n = 0;
    q->pool[id].maxc = 0;
    q->dir[q->ndir++].id = id;
    p = (pk_at_t){0, 0};
  }
  uint32_t d = p.d, i = p.i;
  pk_block_t* blk = &q->pool[q->dir[d].id];
  memmove(&blk->e[i + 1], &blk->e[i], (blk->n - i) * sizeof *blk->e);
  blk->e[i] = x;
  blk->n++;
  if (i == 0) dir_key(q, d);
  if (x.c > blk->maxc) blk->maxc = x.c;
  if (blk->n < PK_SEQ_BCAP) {
    tree_put(q, d, blk->maxc);
    return;
  }
  /* Full: split in halves. */
  uint32_t id = block_new(q);
  if (id == NO_BLOCK) return;
  blk = &q->pool[q->dir[d].id]; /* the pool may have moved */
  pk_block_t* right = &q->pool[id];
  right->n = PK_SEQ_BCAP / 2;
  memcpy(right->e, &blk->e[PK_SEQ_BCAP / 2], (PK_SEQ_BCAP / 2) * sizeof *blk->e);
  blk->n = PK_SEQ_BCAP / 2;
  blk->maxc = block_maxc(blk);
  right->maxc = block_maxc(right);
  memmove(&q->dir[d + 2], &q->dir[d + 1], (q->ndir - d - 1) * sizeof *q->dir);
  q->dir[d + 1].id = id;
  dir_key(q, d + 1);
  q->ndir++;
  tree_rebuild(q, d);
}

void pk_seq_erase_at(pk_seq_t* q, pk_at_t p) {
  uint32_t d = p.d, i = p.i;
  pk_block_t* blk = &q->pool[q->dir[d].id];
  uint64_t c = blk->e[i].c;
  memmove(&blk->e[i], &blk->e[i + 1], (blk->n - i - 1) * sizeof *blk->e);
  blk->n--;
  if (i == 0 && blk->n) dir_key(q, d);
  if (c == blk->maxc && c) blk->maxc = block_maxc(blk);
  /* Merge with the successor when both are small, drop an empty block. */
  if (d + 1 < q->ndir && blk->n + q->pool[q->dir[d + 1].id].n <= PK_SEQ_BCAP / 2) {
    pk_block_t* next = &q->pool[q->dir[d + 1].id];
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

void pk_seq_insert(pk_seq_t* q, pk_ent_t x) {
  if (q->oom) return;
  pk_seq_insert_at(q, q->ndir ? pk_seq_find(q, x.a, x.b) : (pk_at_t){0, 0}, x);
}

void pk_seq_erase(pk_seq_t* q, uint64_t a, uint64_t b) {
  if (q->oom || !q->ndir) return;
  pk_at_t p = pk_seq_find(q, a, b);
  const pk_ent_t* e = pk_seq_at_or_next(q, p);
  if (!e || e->a != a || (q->key2 && e->b != b)) return; /* absent: not reached */
  pk_seq_erase_at(q, pk_seq_norm(q, p));
}

const pk_ent_t* pk_seq_first_c(const pk_seq_t* q, pk_at_t p, uint64_t s) {
  if (!q->ndir || p.d >= q->ndir || q->tree[1] < s) return NULL;
  const pk_block_t* blk = &q->pool[q->dir[p.d].id];
  if (blk->maxc >= s)
    for (uint32_t i = p.i; i < blk->n; ++i)
      if (blk->e[i].c >= s) return &blk->e[i];
  /* The first block after p.d whose largest c is at least s: climb while the
   * node is a right child or too small, step to the right sibling, descend. */
  if (p.d + 1 >= q->ndir) return NULL;
  uint32_t k = q->size + p.d + 1;
  while (q->tree[k] < s) {
    while (k & 1) {
      k /= 2;
      if (k == 0) return NULL; /* past the root's right edge */
    }
    ++k;
  }
  while (k < q->size) k = q->tree[2 * k] >= s ? 2 * k : 2 * k + 1;
  if (k - q->size >= q->ndir) return NULL; /* not reached: leaves past the end hold 0 */
  blk = &q->pool[q->dir[k - q->size].id];
  for (uint32_t i = 0; i < blk->n; ++i)
    if (blk->e[i].c >= s) return &blk->e[i];
  return NULL; /* not reached: the block's largest c is at least s */
}

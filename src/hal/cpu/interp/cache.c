/* cache.c - the run's block cache (cache.h).
 *
 * Two levels (issue 14, session 7). Each pool worker has a front: per class, a
 * LIFO list of the blocks it freed last, touched by that worker alone, so a get
 * or put there takes no lock and moves no cache line between cores, and the
 * block it returns is the one this core freed last (still in its cache). Behind
 * the fronts, each class keeps a stack of batches under a spinlock: a front
 * that fills up hands its whole list over as one batch, a front that runs dry
 * takes one batch, each in O(1) under the lock (blocks flow one way when one
 * worker frees what the other allocated: tokens, strands, environments in
 * matmul_4x4). Threads that are not the pool's workers (the caller of a run,
 * the helper of a thread-less pool) use the batches directly, a block at a time.
 *
 * Before: one spinlocked free list per class shared by both workers; its lock's
 * cache line and the cold block at its head were ~5 % of matmul_4x4's samples. */
#include "hal/cpu/interp/cache.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "hal/cpu/pool.h"
#include "hal/spin.h"
#include "runtime/base/mem.h"

enum {
  SMALL_STEP = 32,
  SMALL_MAX = 2048,
  N_SMALL = SMALL_MAX / SMALL_STEP, /* classes 0..63: 32..2048 bytes */
  N_LARGE = 13,                     /* 4 KiB .. 16 MiB */
  N_CLASSES = N_SMALL + N_LARGE,
  MAX_KEPT = 4096,
  /* A front keeps at most FRONT_MAX blocks of a class and, for large classes,
   * at most FRONT_BYTES of them (at least one block). */
  FRONT_MAX = 32,
};
/* Large blocks kept per class: at most 64 MiB of them. Small blocks: at most
 * 16 MiB per class, however many that is. A run of matmul_4x4 has tens of
 * thousands of tokens, strands and frames alive at its peak; a cap of 4096
 * blocks sent most of them back to malloc at the end of every run and took
 * them again from malloc in the next (~50k allocator calls per run). The caps
 * count the batches only: the fronts hold at most FRONT_BYTES per class more,
 * per worker. */
#define KEPT_BYTES ((size_t)64 << 20)
#define KEPT_SMALL_BYTES ((size_t)16 << 20)
#define FRONT_BYTES ((size_t)256 << 10)

/* A cached block. `next` links the blocks of a batch (or of a front's list);
 * the first block of a batch also holds the batch's length and the class's
 * next batch. The smallest block (32 bytes) has room for all three. */
typedef struct blk_t {
  struct blk_t* next;
  struct blk_t* next_batch;
  uint32_t n;
} blk_t;
_Static_assert(sizeof(blk_t) <= SMALL_STEP, "a block's links fit the smallest class");

typedef struct cls_t {
  atomic_flag lock;
  uint32_t n;          /* blocks in all batches */
  blk_t* batches;
  char pad[64 - sizeof(atomic_flag) - sizeof(uint32_t) - sizeof(blk_t*)];
} cls_t;

/* One worker's front; the padding keeps two fronts off one cache line. */
typedef struct front_t {
  blk_t* head[N_CLASSES];
  uint32_t n[N_CLASSES];
  char pad[64];
} front_t;

struct ix_cache_t {
  cls_t cls[N_CLASSES];
  /* Set by the first ix_cache_bind, then never changed: whose workers have
   * fronts, and the fronts (n_fronts of them, NULL: none). */
  const air_pool_t* pool;
  uint32_t n_fronts;
  front_t* fronts;
};

/* The class of `size` and its block size, or -1 when it is not cached. */
static int class_of(size_t size, size_t* block) {
  if (size <= SMALL_MAX) {
    size_t k = size ? (size + SMALL_STEP - 1) / SMALL_STEP : 1;
    *block = k * SMALL_STEP;
    return (int)k - 1;
  }
  size_t b = 4096;
  for (int k = 0; k < N_LARGE; ++k, b <<= 1)
    if (size <= b) {
      *block = b;
      return N_SMALL + k;
    }
  return -1;
}

static uint32_t front_cap(size_t block) {
  size_t n = FRONT_BYTES / block;
  return n >= FRONT_MAX ? FRONT_MAX : n ? (uint32_t)n : 1;
}

/* Under AddressSanitizer blocks go straight back to the allocator, so a use
 * after free is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_CACHE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_CACHE 1
#endif
#endif

ix_cache_t* ix_cache_new(const air_allocator_t* a) {
#ifdef NO_CACHE
  (void)a;
  return NULL;
#endif
  ix_cache_t* c = air_mem_alloc(a, sizeof *c);
  if (!c) return NULL;
  for (int i = 0; i < N_CLASSES; ++i) {
    atomic_flag_clear(&c->cls[i].lock);
    c->cls[i].n = 0;
    c->cls[i].batches = NULL;
  }
  c->pool = NULL;
  c->n_fronts = 0;
  c->fronts = NULL;
  return c;
}

void ix_cache_bind(ix_cache_t* c, const air_allocator_t* a, const air_pool_t* pool) {
  if (!c || c->pool || !pool) return;
  uint32_t n = air_pool_threads(pool);
  front_t* f = air_mem_alloc(a, (size_t)n * sizeof *f);
  if (!f) return; /* out of memory: every thread uses the batches */
  memset(f, 0, (size_t)n * sizeof *f);
  c->fronts = f;
  c->n_fronts = n;
  c->pool = pool;
}

static void free_list(const air_allocator_t* a, blk_t* b) {
  while (b) {
    blk_t* next = b->next;
    air_mem_free(a, b);
    b = next;
  }
}

void ix_cache_free(ix_cache_t* c, const air_allocator_t* a) {
  if (!c) return;
  for (int i = 0; i < N_CLASSES; ++i)
    for (blk_t* b = c->cls[i].batches; b;) {
      blk_t* next = b->next_batch;
      free_list(a, b);
      b = next;
    }
  for (uint32_t w = 0; w < c->n_fronts; ++w)
    for (int i = 0; i < N_CLASSES; ++i) free_list(a, c->fronts[w].head[i]);
  air_mem_free(a, c->fronts);
  air_mem_free(a, c);
}

static void lock(cls_t* k) { air_spin_lock(&k->lock); }
static void unlock(cls_t* k) { air_spin_unlock(&k->lock); }

/* The calling thread's front, or NULL when it is no worker of the bound pool. */
static front_t* front_of(ix_cache_t* c) {
  if (!c->fronts) return NULL;
  uint32_t w = air_pool_self(c->pool);
  return w < c->n_fronts ? &c->fronts[w] : NULL;
}

/* Under the class lock: whether `n` more blocks of `block` bytes may be kept. */
static bool may_keep(const cls_t* k, size_t block, uint32_t n) {
  bool small = block <= SMALL_MAX;
  return (small || k->n + n <= MAX_KEPT) &&
         (size_t)(k->n + n) * block <= (small ? KEPT_SMALL_BYTES : KEPT_BYTES);
}

/* Pushes the list b (n blocks linked through `next`, NULL-terminated) as one
 * batch, or frees it when the class is full. */
static void push_batch(cls_t* k, const air_allocator_t* a, blk_t* b, uint32_t n, size_t block) {
  b->n = n;
  lock(k);
  if (may_keep(k, block, n)) {
    b->next_batch = k->batches;
    k->batches = b;
    k->n += n;
    unlock(k);
    return;
  }
  unlock(k);
  free_list(a, b);
}

void* ix_cache_get(ix_cache_t* c, const air_allocator_t* a, size_t size) {
  size_t block;
  int ci = c ? class_of(size, &block) : -1;
  if (ci < 0) return air_mem_alloc(a, size);
  front_t* f = front_of(c);
  if (f && f->n[ci]) {
    blk_t* b = f->head[ci];
    f->head[ci] = b->next;
    f->n[ci]--;
    /* Blocks that came in a batch were freed on the other core: fetch the
     * next one's line now, not when the next get reads its link. */
    if (b->next) __builtin_prefetch(b->next, 1);
    return b;
  }
  cls_t* k = &c->cls[ci];
  lock(k);
  blk_t* b = k->batches;
  if (b) {
    if (f || b->n == 1) {
      k->batches = b->next_batch; /* a front takes the whole batch */
      k->n -= b->n;
    } else {
      blk_t* rest = b->next;      /* a non-worker takes one block */
      rest->n = b->n - 1;
      rest->next_batch = b->next_batch;
      k->batches = rest;
      k->n--;
    }
  }
  unlock(k);
  if (!b) return air_mem_alloc(a, block);
  if (f) {
    f->head[ci] = b->next;
    f->n[ci] = b->n - 1;
    /* The batch's blocks were freed on the other core: warm the next one. */
    if (b->next) __builtin_prefetch(b->next, 1);
  }
  return b;
}

void* ix_cache_get_zero(ix_cache_t* c, const air_allocator_t* a, size_t size) {
  void* p = ix_cache_get(c, a, size);
  if (p) memset(p, 0, size);
  return p;
}

void ix_cache_put(ix_cache_t* c, const air_allocator_t* a, void* p, size_t size) {
  if (!p) return;
  size_t block;
  int ci = c ? class_of(size, &block) : -1;
  if (ci < 0) {
    air_mem_free(a, p);
    return;
  }
  blk_t* b = p;
  front_t* f = front_of(c);
  if (!f) {
    b->next = NULL;
    push_batch(&c->cls[ci], a, b, 1, block);
    return;
  }
  if (f->n[ci] >= front_cap(block)) { /* full: the whole list becomes a batch */
    push_batch(&c->cls[ci], a, f->head[ci], f->n[ci], block);
    f->head[ci] = NULL;
    f->n[ci] = 0;
  }
  b->next = f->head[ci];
  f->head[ci] = b;
  f->n[ci]++;
}

/* cache.c - the run's block cache (cache.h). */
#include "hal/cpu/interp/cache.h"

#include <stdatomic.h>
#include <string.h>

#include "runtime/base/mem.h"

enum {
  SMALL_STEP = 32,
  SMALL_MAX = 2048,
  N_SMALL = SMALL_MAX / SMALL_STEP, /* classes 0..63: 32..2048 bytes */
  N_LARGE = 13,                     /* 4 KiB .. 16 MiB */
  N_CLASSES = N_SMALL + N_LARGE,
  MAX_KEPT = 4096,
};
/* Large blocks kept per class: at most 64 MiB of them. Small blocks: at most
 * 16 MiB per class, however many that is. A run of matmul_4x4 has tens of
 * thousands of tokens, strands and frames alive at its peak; a cap of 4096
 * blocks sent most of them back to malloc at the end of every run and took
 * them again from malloc in the next (~50k allocator calls per run). */
#define KEPT_BYTES ((size_t)64 << 20)
#define KEPT_SMALL_BYTES ((size_t)16 << 20)

typedef struct blk_t {
  struct blk_t* next;
} blk_t;

typedef struct cls_t {
  atomic_flag lock;
  uint32_t n;
  blk_t* head;
  char pad[64 - sizeof(atomic_flag) - sizeof(uint32_t) - sizeof(blk_t*)];
} cls_t;

struct ix_cache_t {
  cls_t cls[N_CLASSES];
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
    c->cls[i].head = NULL;
  }
  return c;
}

void ix_cache_free(ix_cache_t* c, const air_allocator_t* a) {
  if (!c) return;
  for (int i = 0; i < N_CLASSES; ++i)
    for (blk_t* b = c->cls[i].head; b;) {
      blk_t* next = b->next;
      air_mem_free(a, b);
      b = next;
    }
  air_mem_free(a, c);
}

static void lock(cls_t* k) {
  while (atomic_flag_test_and_set_explicit(&k->lock, memory_order_acquire)) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}
static void unlock(cls_t* k) { atomic_flag_clear_explicit(&k->lock, memory_order_release); }

void* ix_cache_get(ix_cache_t* c, const air_allocator_t* a, size_t size) {
  size_t block;
  int ci = c ? class_of(size, &block) : -1;
  if (ci < 0) return air_mem_alloc(a, size);
  cls_t* k = &c->cls[ci];
  lock(k);
  blk_t* b = k->head;
  if (b) {
    k->head = b->next;
    k->n--;
    /* The next get reads the new head's link: blocks freed long ago are cold,
     * and that read was most of this function's time in matmul_4x4. */
    if (k->head) __builtin_prefetch(k->head, 1);
  }
  unlock(k);
  return b ? (void*)b : air_mem_alloc(a, block);
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
  if (ci >= 0) {
    cls_t* k = &c->cls[ci];
    lock(k);
    bool small = block <= SMALL_MAX;
    if ((small || k->n < MAX_KEPT) &&
        (size_t)(k->n + 1) * block <= (small ? KEPT_SMALL_BYTES : KEPT_BYTES)) {
      blk_t* b = p;
      b->next = k->head;
      k->head = b;
      k->n++;
      unlock(k);
      return;
    }
    unlock(k);
  }
  air_mem_free(a, p);
}

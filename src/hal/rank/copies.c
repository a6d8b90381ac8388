/* copies.c - air_rank_copies_t: every rank's copy of a dispatch's memref
 * arguments, kept after the dispatch so a host can read any rank's (air/rank.h).
 * The executor allocates the copies here (copies.h), so keeping them costs no
 * second copy. A mutex guards the table: ranks of one dispatch make their copies
 * concurrently. */
#include "hal/rank/copies.h"

#include <pthread.h>
#include <string.h>

#include "air/context.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct copy_t {
  uint64_t size;
  void* data;
} copy_t;

struct air_rank_copies_t {
  air_allocator_t alloc;
  pthread_mutex_t lock;
  uint32_t count, first, end, bindings;
  copy_t* tab; /* bindings x (end - first) */
};

static void clear(air_rank_copies_t* c) {
  uint64_t n = (uint64_t)c->bindings * (c->end - c->first);
  for (uint64_t i = 0; c->tab && i < n; ++i) air_mem_free(&c->alloc, c->tab[i].data);
  air_mem_free(&c->alloc, c->tab);
  c->tab = NULL;
  c->count = c->first = c->end = c->bindings = 0;
}

air_status_t air_rank_copies_create(air_context_t* ctx, air_rank_copies_t** out) {
  if (!ctx || !out) return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "NULL argument");
  const air_allocator_t* a = air_context_allocator(ctx);
  air_rank_copies_t* c = air_mem_calloc(a, 1, sizeof *c);
  if (!c) return AIR_STATUS_OOM(a, "rank copies");
  c->alloc = *a;
  pthread_mutex_init(&c->lock, NULL);
  *out = c;
  return NULL;
}

void air_rank_copies_destroy(air_rank_copies_t* c) {
  if (!c) return;
  clear(c);
  pthread_mutex_destroy(&c->lock);
  air_allocator_t a = c->alloc;
  air_mem_free(&a, c);
}

air_status_t air_rank_copies_reset(air_rank_copies_t* c, uint32_t count, uint32_t first,
                                   uint32_t end, uint32_t bindings) {
  pthread_mutex_lock(&c->lock);
  clear(c);
  air_status_t st = NULL;
  if (first > end || end > count) {
    st = AIR_STATUS(&c->alloc, AIR_STATUS_INVALID_ARGUMENT, "ranks [%u, %u) of %u", first, end,
                    count);
  } else if (bindings && end > first &&
             !(c->tab = air_mem_calloc(&c->alloc, (size_t)bindings * (end - first),
                                       sizeof(copy_t)))) {
    st = AIR_STATUS_OOM(&c->alloc, "rank copies table");
  } else {
    c->count = count;
    c->first = first;
    c->end = end;
    c->bindings = bindings;
  }
  pthread_mutex_unlock(&c->lock);
  return st;
}

void* air_rank_copies_buffer(air_rank_copies_t* c, uint32_t binding, uint32_t rank,
                             uint64_t size) {
  void* p = NULL;
  pthread_mutex_lock(&c->lock);
  if (binding < c->bindings && rank >= c->first && rank < c->end && size <= SIZE_MAX) {
    copy_t* e = &c->tab[(size_t)binding * (c->end - c->first) + (rank - c->first)];
    if (!e->data && (e->data = air_mem_calloc(&c->alloc, 1, (size_t)(size ? size : 1))))
      e->size = size;
    if (e->data && e->size == size) p = e->data;
  }
  pthread_mutex_unlock(&c->lock);
  return p;
}

uint32_t air_rank_copies_count(const air_rank_copies_t* c) { return c ? c->count : 0; }

void air_rank_copies_local(const air_rank_copies_t* c, uint32_t* first, uint32_t* end) {
  if (first) *first = c ? c->first : 0;
  if (end) *end = c ? c->end : 0;
}

static const copy_t* find(const air_rank_copies_t* c, uint32_t binding, uint32_t rank) {
  if (!c || binding >= c->bindings || rank < c->first || rank >= c->end) return NULL;
  const copy_t* e = &c->tab[(size_t)binding * (c->end - c->first) + (rank - c->first)];
  return e->data ? e : NULL;
}

uint64_t air_rank_copies_size(const air_rank_copies_t* c, uint32_t binding, uint32_t rank) {
  if (!c) return 0;
  pthread_mutex_lock((pthread_mutex_t*)&c->lock);
  const copy_t* e = find(c, binding, rank);
  uint64_t n = e ? e->size : 0;
  pthread_mutex_unlock((pthread_mutex_t*)&c->lock);
  return n;
}

air_status_t air_rank_copies_read(const air_rank_copies_t* c, uint32_t binding, uint32_t rank,
                                  uint64_t offset, void* out, uint64_t length) {
  if (!c || (!out && length))
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_rank_copies_read: NULL argument");
  pthread_mutex_lock((pthread_mutex_t*)&c->lock);
  const copy_t* e = find(c, binding, rank);
  air_status_t st = NULL;
  if (!e)
    st = AIR_STATUS(&c->alloc, AIR_STATUS_NOT_FOUND,
                    "no copy of binding %u for rank %u here (this process holds ranks [%u, %u) "
                    "of %u)",
                    binding, rank, c->first, c->end, c->count);
  else if (offset > e->size || length > e->size - offset)
    st = AIR_STATUS(&c->alloc, AIR_STATUS_OUT_OF_RANGE,
                    "bytes [%llu, %llu) of rank %u's copy of binding %u, which has %llu",
                    (unsigned long long)offset, (unsigned long long)(offset + length), rank,
                    binding, (unsigned long long)e->size);
  else if (length)
    memcpy(out, (const char*)e->data + offset, (size_t)length);
  pthread_mutex_unlock((pthread_mutex_t*)&c->lock);
  return st;
}

/* ptrmap.c - pointer-keyed open-addressing hash map. */
#include "runtime/base/ptrmap.h"

#include <string.h>

#include "runtime/base/mem.h"

#define DEAD ((const void*)(uintptr_t)1)

static uint32_t ptr_hash(const void* k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (uint32_t)x;
}

static bool rehash(air_ptrmap_t* m, const air_allocator_t* a) {
  uint32_t cap = m->cap ? m->cap * 2 : 64;
  while ((uint64_t)m->n * 2 >= cap) cap *= 2;
  const void** keys = air_mem_calloc(a, cap, sizeof(*keys));
  void** vals = air_mem_calloc(a, cap, sizeof(*vals));
  if (!keys || !vals) {
    air_mem_free(a, (void*)keys);
    air_mem_free(a, vals);
    return false;
  }
  for (uint32_t i = 0; i < m->cap; ++i) {
    const void* k = m->keys[i];
    if (!k || k == DEAD) continue;
    uint32_t j = ptr_hash(k) & (cap - 1);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = k;
    vals[j] = m->vals[i];
  }
  air_mem_free(a, (void*)m->keys);
  air_mem_free(a, m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  m->dead = 0;
  return true;
}

bool air_ptrmap_put(air_ptrmap_t* m, const air_allocator_t* a, const void* key, void* val) {
  if (((uint64_t)m->n + m->dead + 1) * 2 > m->cap && !rehash(m, a)) return false;
  uint32_t mask = m->cap - 1, j = ptr_hash(key) & mask, tomb = UINT32_MAX;
  /* Probe to the key or an empty slot; reuse the first tombstone passed. */
  while (m->keys[j] && m->keys[j] != key) {
    if (m->keys[j] == DEAD && tomb == UINT32_MAX) tomb = j;
    j = (j + 1) & mask;
  }
  if (m->keys[j] != key) {
    if (tomb != UINT32_MAX) {
      j = tomb;
      m->dead--;
    }
    m->n++;
    m->keys[j] = key;
  }
  m->vals[j] = val;
  return true;
}

static uint32_t find(const air_ptrmap_t* m, const void* key) {
  if (!m->cap) return UINT32_MAX;
  uint32_t mask = m->cap - 1, j = ptr_hash(key) & mask;
  while (m->keys[j]) {
    if (m->keys[j] == key) return j;
    j = (j + 1) & mask;
  }
  return UINT32_MAX;
}

void* air_ptrmap_get(const air_ptrmap_t* m, const void* key) {
  uint32_t j = find(m, key);
  return j == UINT32_MAX ? NULL : m->vals[j];
}

bool air_ptrmap_del(air_ptrmap_t* m, const void* key) {
  uint32_t j = find(m, key);
  if (j == UINT32_MAX) return false;
  m->keys[j] = DEAD;
  m->vals[j] = NULL;
  m->n--;
  m->dead++;
  return true;
}

void air_ptrmap_free(air_ptrmap_t* m, const air_allocator_t* a) {
  air_mem_free(a, (void*)m->keys);
  air_mem_free(a, m->vals);
  memset(m, 0, sizeof *m);
}

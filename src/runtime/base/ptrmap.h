/* ptrmap.h - the tree's one pointer-keyed hash map (open addressing, linear
 * probing, tombstones). Keys are non-NULL pointers other than (void*)1; values are
 * pointers. Not thread-safe: the owner locks if it shares one.
 */
#ifndef AIR_RUNTIME_BASE_PTRMAP_H_
#define AIR_RUNTIME_BASE_PTRMAP_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"

typedef struct air_ptrmap_t {
  const void** keys;
  void** vals;
  uint32_t cap, n, dead;
} air_ptrmap_t; /* zero-initialised is an empty map */

/* Inserts or replaces; false when memory runs out (the map is unchanged). */
bool air_ptrmap_put(air_ptrmap_t* m, const air_allocator_t* allocator, const void* key,
                    void* val);
/* The value stored for `key`, or NULL. */
void* air_ptrmap_get(const air_ptrmap_t* m, const void* key);
/* Removes `key`; false when it was absent. */
bool air_ptrmap_del(air_ptrmap_t* m, const void* key);
/* Frees the tables and leaves an empty map. */
void air_ptrmap_free(air_ptrmap_t* m, const air_allocator_t* allocator);

#endif /* AIR_RUNTIME_BASE_PTRMAP_H_ */

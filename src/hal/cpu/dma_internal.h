/* dma_internal.h - access patterns of air.dma_memcpy_nd and channel put/get, and
 * the copy between two of them. Private; exposed so tests can check the copy
 * against a naive reference.
 *
 * The rule (mlir-air's), for a view V (data, offset, rank R, strides ms[]) and
 * lists offsets O (n_o entries), sizes S and strides T (N entries each):
 *   - N == 0 (`[] [] []`): the whole view: S = V.sizes, T = V.strides, start =
 *     V.offset (so a strided subview moves exactly its own elements);
 *   - otherwise O is padded on the left with zeros to N entries, and
 *       start = V.offset + sum_k O[k] * w[k],
 *     where w[k] is the memref stride of the dimension O[k] indexes: the lists'
 *     last min(N, R) entries line up with V's last dimensions (w[k] =
 *     ms[R - N + k]); entries before those (an access pattern with more
 *     dimensions than the memref) have no memref dimension and use T[k];
 *   - element (i_0, ..., i_{N-1}) (row-major, i_{N-1} fastest) is at linear
 *     index start + sum_k i_k * T[k] of V's memory: T counts elements of the
 *     underlying linear memory, not of the view's dimensions.
 * Every element touched must lie within the view's own span, else the op fails.
 * Two patterns are copied element by element in that row-major order; element
 * counts and types must match. */
#ifndef AIR_HAL_CPU_DMA_INTERNAL_H_
#define AIR_HAL_CPU_DMA_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/kernel.h"

#ifndef IX_MAX_PAT
#define IX_MAX_PAT 16
#endif

typedef struct ix_pat_t {
  char* base;          /* element 0 of the linear memory */
  int64_t start;       /* first element, in elements from base */
  uint32_t esize;      /* bytes per element */
  uint32_t n;
  int64_t size[IX_MAX_PAT];
  int64_t stride[IX_MAX_PAT];
} ix_pat_t;

/* Builds the pattern of `v` through the lists (see the rule above). Returns NULL
 * or a static message describing what is wrong. */
const char* ix_pat_make(const air_memref_t* v, uint32_t esize, uint32_t n_off,
                        const int64_t* off, uint32_t n, const int64_t* sizes,
                        const int64_t* strides, ix_pat_t* out);
/* Number of elements (0 for an empty pattern). */
int64_t ix_pat_count(const ix_pat_t* p);
/* Drops unit dimensions and merges dimensions that are contiguous together. */
void ix_pat_canon(ix_pat_t* p);
/* Copies src's elements into dst's, in order; the counts must be equal. */
void ix_pat_copy(const ix_pat_t* dst, const ix_pat_t* src);
/* Packs src's elements contiguously into buf / unpacks buf into dst. */
void ix_pat_gather(void* buf, const ix_pat_t* src);
void ix_pat_scatter(const ix_pat_t* dst, const void* buf);
/* The contiguous pattern over a buffer of `count` elements. */
void ix_pat_linear(ix_pat_t* p, void* buf, uint32_t esize, int64_t count);

#endif /* AIR_HAL_CPU_DMA_INTERNAL_H_ */

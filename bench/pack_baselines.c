/* pack_baselines.c - see pack_baselines.h. Written independently of the packer
 * (qsort orders, an offset-sorted array scanned in full, the caller's own times)
 * so a shared bug cannot make both look equally good. */
#include "pack_baselines.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const air_pack_buffer_t* b;
  uint64_t first, last; /* earliest lower and latest upper: the whole run */
} sort_ctx_t;

typedef struct {
  const sort_ctx_t* ctx;
  size_t index;
} item_t;

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }
static int cmp_u64_asc(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int by_program(const void* pa, const void* pb) {
  const item_t* x = pa;
  const item_t* y = pb;
  const air_pack_buffer_t* a = &x->ctx->b[x->index];
  const air_pack_buffer_t* b = &y->ctx->b[y->index];
  int c = cmp_u64_asc(a->lower, b->lower);
  if (!c) c = cmp_u64_asc(a->upper, b->upper);
  return c ? c : cmp_u64_asc(x->index, y->index);
}

static int whole_run(const sort_ctx_t* ctx, const air_pack_buffer_t* a) {
  return a->lower == ctx->first && a->upper == ctx->last;
}

static int by_tflite(const void* pa, const void* pb) {
  const item_t* x = pa;
  const item_t* y = pb;
  const air_pack_buffer_t* a = &x->ctx->b[x->index];
  const air_pack_buffer_t* b = &y->ctx->b[y->index];
  int wa = whole_run(x->ctx, a), wb = whole_run(x->ctx, b);
  if (wa != wb) return wa ? -1 : 1;
  if (wa) return cmp_u64_asc(x->index, y->index);
  int c = cmp_u64_desc(a->size, b->size);
  if (!c) c = cmp_u64_asc(a->lower, b->lower);
  return c ? c : cmp_u64_asc(x->index, y->index);
}

static int by_xla_spatial(const void* pa, const void* pb) {
  const item_t* x = pa;
  const item_t* y = pb;
  const air_pack_buffer_t* a = &x->ctx->b[x->index];
  const air_pack_buffer_t* b = &y->ctx->b[y->index];
  int c = cmp_u64_desc(a->size, b->size);
  if (!c) c = cmp_u64_desc(a->upper - a->lower, b->upper - b->lower);
  return c ? c : cmp_u64_asc(x->index, y->index);
}

static int by_xla_temporal(const void* pa, const void* pb) {
  const item_t* x = pa;
  const item_t* y = pb;
  const air_pack_buffer_t* a = &x->ctx->b[x->index];
  const air_pack_buffer_t* b = &y->ctx->b[y->index];
  int c = cmp_u64_desc(a->upper - a->lower, b->upper - b->lower);
  if (!c) c = cmp_u64_desc(a->size, b->size);
  return c ? c : cmp_u64_asc(x->index, y->index);
}

/* Best-fit in the given order, scanning every placed buffer in offset order. */
static int best_fit(const air_pack_buffer_t* buffers, size_t count, uint64_t alignment,
                    int (*cmp)(const void*, const void*), uint64_t* offsets, uint64_t* arena) {
  sort_ctx_t ctx = {buffers, UINT64_MAX, 0};
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = 0;
    if (buffers[i].size == 0 || buffers[i].upper == buffers[i].lower) continue;
    if (buffers[i].lower < ctx.first) ctx.first = buffers[i].lower;
    if (buffers[i].upper > ctx.last) ctx.last = buffers[i].upper;
    ++n;
  }
  item_t* items = malloc((n ? n : 1) * sizeof *items);
  size_t* placed = malloc((n ? n : 1) * sizeof *placed); /* indices, by offset */
  uint64_t* aligned = malloc((count ? count : 1) * sizeof *aligned);
  if (!items || !placed || !aligned) {
    free(items);
    free(placed);
    free(aligned);
    return -1;
  }
  n = 0;
  for (size_t i = 0; i < count; ++i) {
    aligned[i] = (buffers[i].size + alignment - 1) / alignment * alignment;
    if (buffers[i].size == 0 || buffers[i].upper == buffers[i].lower) continue;
    items[n++] = (item_t){&ctx, i};
  }
  qsort(items, n, sizeof *items, cmp);
  uint64_t high = 0;
  for (size_t k = 0; k < n; ++k) {
    size_t b = items[k].index;
    uint64_t size = aligned[b];
    uint64_t cur = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
    for (size_t j = 0; j < k; ++j) {
      const air_pack_buffer_t* o = &buffers[placed[j]];
      if (o->upper <= buffers[b].lower || buffers[b].upper <= o->lower) continue;
      uint64_t o_off = offsets[placed[j]];
      if (o_off >= cur + size && o_off - cur < best_gap) {
        best_gap = o_off - cur;
        best = cur;
      }
      if (o_off + aligned[placed[j]] > cur) cur = o_off + aligned[placed[j]];
    }
    uint64_t x = best != UINT64_MAX ? best : cur;
    offsets[b] = x;
    if (x + size > high) high = x + size;
    size_t pos = k;
    while (pos > 0 && offsets[placed[pos - 1]] > x) --pos;
    memmove(placed + pos + 1, placed + pos, (k - pos) * sizeof *placed);
    placed[pos] = b;
  }
  *arena = high;
  free(items);
  free(placed);
  free(aligned);
  return 0;
}

const char* pack_baseline_name(pack_baseline_t which) {
  switch (which) {
    case PACK_BASELINE_IREE:
      return "iree-order";
    case PACK_BASELINE_TFLITE:
      return "tflite";
    case PACK_BASELINE_XLA:
      return "xla-best";
    default:
      return "?";
  }
}

int pack_baseline_run(pack_baseline_t which, const air_pack_buffer_t* buffers, size_t count,
                      uint64_t alignment, uint64_t* offsets, uint64_t* arena) {
  if (!alignment) alignment = AIR_PACK_DEFAULT_ALIGNMENT;
  switch (which) {
    case PACK_BASELINE_IREE:
      return best_fit(buffers, count, alignment, by_program, offsets, arena);
    case PACK_BASELINE_TFLITE:
      return best_fit(buffers, count, alignment, by_tflite, offsets, arena);
    case PACK_BASELINE_XLA: {
      uint64_t* other = malloc((count ? count : 1) * sizeof *other);
      uint64_t temporal = 0;
      if (!other) return -1;
      if (best_fit(buffers, count, alignment, by_xla_spatial, offsets, arena) ||
          best_fit(buffers, count, alignment, by_xla_temporal, other, &temporal)) {
        free(other);
        return -1;
      }
      if (temporal < *arena) {
        memcpy(offsets, other, count * sizeof *offsets);
        *arena = temporal;
      }
      free(other);
      return 0;
    }
    default:
      return -1;
  }
}

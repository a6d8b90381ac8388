/* place.c - first-fit placement on the target grid (see place.h).
 *
 * Per launch: explicitly placed instances first (their rectangles are fixed: a
 * segment's x_loc/y_loc, or the box of its herds when every herd is pinned, as
 * mlir-air's herds carry physical x_loc/y_loc), then the rest first-fit scanning
 * columns left to right, then segments with an affinity partner reuse that
 * partner's partitions. An occupancy map of owners lets overlap errors name both
 * ops. Herds are placed first-fit inside each instance's rectangle (herds of a
 * segment disjoint unless they share an affinity token: a safe bound that ignores
 * token ordering, like the tile count of the analysis). Last, each instance's L3
 * traffic gets shim DMA channels in the columns nearest it that have a shim DMA
 * (other shim tiles have none), and the launch's own transfers what is left. */
#include "scheduler/place.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct pl_t {
  const air_program_t* p;
  const air_resources_t* r;
  const air_target_t* t;
  air_placement_t* out;
  int32_t* owner; /* cols*rows: index into out->items of the segment there, -1 free */
  uint32_t next_partition;
  uint64_t* shim_left; /* cols x 2: free shim DMA channels per column (in, out) */
} pl_t;

/* What device row `row` is on an AIE array, for messages. */
static const char* row_kind(const air_target_t* t, int64_t row) {
  if (row == 0) return "the shim row";
  if (row > 0 && row < (int64_t)t->first_row) return "a mem-tile row";
  if (row >= (int64_t)t->first_row && row < (int64_t)(t->first_row + t->rows)) return "a core row";
  return "outside the array";
}


static air_status_t push(pl_t* pl, const air_place_t* item) {
  air_placement_t* o = pl->out;
  if (!air_mem_grow(&o->allocator, (void**)&o->items, &o->cap_items, (size_t)o->n_items + 1,
                    sizeof *o->items))
    return AIR_STATUS_OOM(&o->allocator, "placing");
  o->items[o->n_items++] = *item;
  return AIR_STATUS_OK_VALUE;
}

/* Grid coordinates (0-based compute rows) are free for a w x h block at (x, y)? */
static int32_t first_owner(const pl_t* pl, uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
  for (uint32_t i = x; i < x + w; ++i)
    for (uint32_t j = y; j < y + h; ++j)
      if (pl->owner[j * pl->t->cols + i] >= 0) return pl->owner[j * pl->t->cols + i];
  return -1;
}

static void occupy(pl_t* pl, uint32_t x, uint32_t y, uint32_t w, uint32_t h, int32_t who) {
  for (uint32_t i = x; i < x + w; ++i)
    for (uint32_t j = y; j < y + h; ++j) pl->owner[j * pl->t->cols + i] = who;
}

static air_status_t fail(const pl_t* pl, const air_op_t* op, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static air_status_t fail(const pl_t* pl, const air_op_t* op, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_IR_ERROR(pl->p, AIR_STATUS_FAILED_PRECONDITION, op->line, op->col, "[place] %s", msg);
}

/* Ops are grouped by a shared token in their affinity / concurrency list (an
 * air.token.alloc, as in the spec), or by naming the other op's own token. */
static bool linked(const air_op_t* a, const air_op_t* b, int which) {
  const air_vlist_t* la = &a->toks[which];
  const air_vlist_t* lb = &b->toks[which];
  for (uint32_t i = 0; i < la->n; ++i) {
    for (uint32_t k = 0; k < lb->n; ++k)
      if (la->items[i] == lb->items[k]) return true;
    if (b->n_results && la->items[i] == b->results[0]) return true;
  }
  for (uint32_t k = 0; k < lb->n; ++k)
    if (a->n_results && lb->items[k] == a->results[0]) return true;
  return false;
}

/* Instance 0's fixed origin and block, in device coordinates: the segment's
 * x_loc/y_loc, else the bounding box of its herds when every one of them has
 * x_loc/y_loc (physical tile coordinates in mlir-air). A pinned herd off the core
 * rows or columns is an error naming it. */
static air_status_t pinned_origin(const pl_t* pl, const air_segment_res_t* s, bool* pinned,
                                  int64_t* xl, int64_t* yl, uint32_t* w, uint32_t* h) {
  const air_target_t* t = pl->t;
  *pinned = false;
  if (t->kind != AIR_TARGET_NPU) return AIR_STATUS_OK_VALUE;
  *xl = air_res_attr_int(s->op, "x_loc");
  *yl = air_res_attr_int(s->op, "y_loc");
  if (*xl >= 0 && *yl >= 0) {
    *pinned = true;
    return AIR_STATUS_OK_VALUE;
  }
  int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = -1, y1 = -1;
  uint32_t herds = 0;
  char lb[96];
  for (uint32_t i = 0; i < pl->r->n_herds; ++i) {
    const air_herd_res_t* hr = &pl->r->herds[i];
    if (hr->segment != s->op) continue;
    int64_t hx = air_res_attr_int(hr->op, "x_loc"), hy = air_res_attr_int(hr->op, "y_loc");
    if (hx < 0 || hy < 0) return AIR_STATUS_OK_VALUE;
    int64_t ex = hx + (int64_t)hr->nx - 1, ey = hy + (int64_t)hr->ny - 1;
    if (hy < (int64_t)t->first_row || ey >= (int64_t)(t->first_row + t->rows) ||
        ex >= (int64_t)t->cols)
      return fail(pl, hr->op, "%s at x_loc=%lld y_loc=%lld (%llux%llu) leaves %s's cores: row "
                  "%lld is %s and the cores are columns 0..%u, rows %u..%u",
                  air_res_label(hr->op, lb, sizeof lb), (long long)hx, (long long)hy,
                  (unsigned long long)hr->nx, (unsigned long long)hr->ny, t->name,
                  (long long)(hy < (int64_t)t->first_row ? hy : ey),
                  row_kind(t, hy < (int64_t)t->first_row ? hy : ey), t->cols - 1, t->first_row,
                  t->first_row + t->rows - 1);
    x0 = hx < x0 ? hx : x0;
    y0 = hy < y0 ? hy : y0;
    x1 = ex > x1 ? ex : x1;
    y1 = ey > y1 ? ey : y1;
    ++herds;
  }
  if (!herds) return AIR_STATUS_OK_VALUE;
  *pinned = true;
  *xl = x0;
  *yl = y0;
  *w = (uint32_t)(x1 - x0 + 1);
  *h = (uint32_t)(y1 - y0 + 1);
  return AIR_STATUS_OK_VALUE;
}

static air_status_t place_instance(pl_t* pl, const air_segment_res_t* s, uint64_t inst) {
  const air_target_t* t = pl->t;
  char lb[96], lb2[96];
  air_res_label(s->op, lb, sizeof lb);
  air_place_t it = {.op = s->op, .launch = s->launch, .instance = inst,
                    .partition = pl->next_partition++, .w = 1, .h = 1};
  if (t->kind == AIR_TARGET_CPU) { /* worker groups are unbounded: one each */
    it.x = it.partition;
    return push(pl, &it);
  }
  air_res_block_size(t, s, &it.w, &it.h);
  bool pinned = false;
  int64_t xl = -1, yl = -1;
  if (inst == 0) AIR_RETURN_IF_ERROR(pinned_origin(pl, s, &pinned, &xl, &yl, &it.w, &it.h));
  if (pinned) {
    /* x_loc/y_loc fix instance 0's origin; other instances are placed freely
     * (the spec gives each iteration point its own origin). */
    int64_t gy = yl - (int64_t)t->first_row;
    if (gy < 0 || (uint64_t)xl + it.w > t->cols || (uint64_t)gy + it.h > t->rows)
      return fail(pl, s->op,
                  "%s: x_loc=%lld y_loc=%lld with %ux%u tiles lies outside %s's %u columns x "
                  "compute rows %u..%u%s%s", lb, (long long)xl, (long long)yl, it.w, it.h,
                  t->name, t->cols, t->first_row, t->first_row + t->rows - 1,
                  gy < 0 ? ": row y_loc is " : "", gy < 0 ? row_kind(t, yl) : "");
    int32_t other = first_owner(pl, (uint32_t)xl, (uint32_t)gy, it.w, it.h);
    if (other >= 0)
      return fail(pl, s->op, "%s at x_loc=%lld y_loc=%lld overlaps %s, placed at column %u row %u;"
                  " segments of one launch are co-resident and need distinct tiles", lb,
                  (long long)xl, (long long)yl,
                  air_res_label(pl->out->items[other].op, lb2, sizeof lb2),
                  pl->out->items[other].x, pl->out->items[other].y);
    it.x = (uint32_t)xl;
    it.y = (uint32_t)gy;
    it.is_explicit = true;
  } else {
    bool found = false;
    for (uint32_t x = 0; !found && it.w <= t->cols && x + it.w <= t->cols; ++x)
      for (uint32_t y = 0; !found && it.h <= t->rows && y + it.h <= t->rows; ++y)
        if (first_owner(pl, x, y, it.w, it.h) < 0) {
          it.x = x;
          it.y = y;
          found = true;
        }
    if (!found) {
      const char* why = s->op->toks[AIR_TOK_CONC].n ? " (it must be co-resident with its "
                                                      "concurrency partners)" : "";
      return fail(pl, s->op, "%s instance %llu of %llu needs a free %ux%u partition; none is "
                  "left on %s%s", lb, (unsigned long long)inst + 1,
                  (unsigned long long)s->instances, it.w, it.h, t->name, why);
    }
  }
  occupy(pl, it.x, it.y, it.w, it.h, (int32_t)pl->out->n_items);
  it.y += t->first_row;
  return push(pl, &it);
}

/* Instances of `s` take the partitions of its affinity partner's instances. */
static air_status_t place_affine(pl_t* pl, const air_segment_res_t* s, const air_op_t* partner) {
  char lb[96], lb2[96];
  air_res_label(s->op, lb, sizeof lb);
  air_res_label(partner, lb2, sizeof lb2);
  uint64_t count = 0;
  for (uint32_t i = 0; i < pl->out->n_items; ++i) count += pl->out->items[i].op == partner;
  if (!count)
    return fail(pl, s->op, "%s has affinity with %s, which is not placed in the same launch",
                lb, lb2);
  for (uint64_t inst = 0; inst < s->instances; ++inst) {
    uint32_t k = 0;
    while (pl->out->items[k].op != partner || pl->out->items[k].instance != inst % count) ++k;
    air_place_t it = pl->out->items[k];
    uint32_t w = 1, h = 1;
    if (pl->t->kind != AIR_TARGET_CPU) air_res_block_size(pl->t, s, &w, &h);
    if (w > it.w || h > it.h)
      return fail(pl, s->op, "%s has affinity with %s but needs %ux%u tiles; the shared "
                  "partition is %ux%u", lb, lb2, w, h, it.w, it.h);
    it.op = s->op;
    it.instance = inst;
    it.w = w;
    it.h = h;
    it.is_explicit = false;
    AIR_RETURN_IF_ERROR(push(pl, &it));
  }
  return AIR_STATUS_OK_VALUE;
}

/* Herds first-fit inside each placed instance of their segment. */
static air_status_t place_herds(pl_t* pl, uint32_t seg_item) {
  air_place_t seg = pl->out->items[seg_item];
  uint32_t first = pl->out->n_items;
  char lb[96], lb2[96];
  for (uint32_t i = 0; i < pl->r->n_herds; ++i) {
    const air_herd_res_t* h = &pl->r->herds[i];
    if (h->segment != seg.op) continue;
    air_place_t it = seg;
    it.op = h->op;
    it.is_explicit = false;
    bool one = pl->t->herd_is_one_tile;
    it.w = one ? 1 : (uint32_t)h->nx;
    it.h = one ? 1 : (uint32_t)h->ny;
    int64_t hx = air_res_attr_int(h->op, "x_loc"), hy = air_res_attr_int(h->op, "y_loc");
    const air_place_t* partner = NULL; /* affinity: same tiles, in turn */
    for (uint32_t k = first; k < pl->out->n_items && !partner; ++k)
      if (linked(h->op, pl->out->items[k].op, AIR_TOK_AFF)) partner = &pl->out->items[k];
    if (partner) {
      it.x = partner->x;
      it.y = partner->y;
    } else if (seg.is_explicit && hx >= (int64_t)seg.x && hy >= (int64_t)seg.y &&
               pl->t->kind == AIR_TARGET_NPU) {
      /* x_loc/y_loc are physical: the explicit instance 0 holds the herd there. */
      it.x = (uint32_t)hx;
      it.y = (uint32_t)hy;
      it.is_explicit = true;
    } else if (pl->t->kind != AIR_TARGET_CPU) {
      /* First fit inside the instance, clear of the herds placed before. */
      bool found = false;
      for (uint32_t x = seg.x; !found && x + it.w <= seg.x + seg.w; ++x)
        for (uint32_t y = seg.y; !found && y + it.h <= seg.y + seg.h; ++y) {
          bool clear = true;
          for (uint32_t k = first; k < pl->out->n_items && clear; ++k) {
            const air_place_t* o = &pl->out->items[k];
            clear = x >= o->x + o->w || o->x >= x + it.w || y >= o->y + o->h || o->y >= y + it.h;
          }
          if (clear) {
            it.x = x;
            it.y = y;
            found = true;
          }
        }
      /* No disjoint spot: the analysis found these herds ordered by the async
       * graph (else the segment would not have fitted), so they take turns on
       * the instance's tiles. Too big for the rectangle: reported below. */
      if (!found) it.x = it.w <= seg.w && it.h <= seg.h ? seg.x : seg.x + seg.w;
    }
    if (pl->t->kind != AIR_TARGET_CPU &&
        (it.x + it.w > seg.x + seg.w || it.y + it.h > seg.y + seg.h))
      return fail(pl, h->op, "%s (%ux%u) does not fit in %s's %ux%u partition at column %u "
                  "row %u", air_res_label(h->op, lb, sizeof lb), it.w, it.h,
                  air_res_label(seg.op, lb2, sizeof lb2), seg.w, seg.h, seg.x, seg.y);
    AIR_RETURN_IF_ERROR(push(pl, &it));
  }
  return AIR_STATUS_OK_VALUE;
}

static const air_segment_res_t* record_of(const pl_t* pl, const air_op_t* op) {
  for (uint32_t i = 0; i < pl->r->n_segments; ++i)
    if (pl->r->segments[i].op == op) return &pl->r->segments[i];
  return NULL;
}

/* Takes `want` channels of direction `dir` from the shim DMA columns nearest
 * column `mid` (ties to the left); returns the columns used. What the check
 * passed always fits; an unchecked program takes what is left. */
static uint64_t take_shim(pl_t* pl, uint32_t mid, uint32_t dir, uint64_t want) {
  const air_target_t* t = pl->t;
  uint64_t used = 0;
  for (uint32_t d = 0; want && d < 2 * t->cols; ++d) {
    for (int side = 0; side < 2 && want; ++side) {
      int64_t c = side ? (int64_t)mid + d : (int64_t)mid - d;
      if ((side && d == 0) || c < 0 || c >= (int64_t)t->cols ||
          !air_target_shim_has_dma(t, (uint32_t)c))
        continue;
      uint64_t* left = &pl->shim_left[2 * (uint32_t)c + dir];
      uint64_t n = *left < want ? *left : want;
      if (!n) continue;
      *left -= n;
      want -= n;
      used |= 1ull << c;
    }
  }
  return used;
}

/* Shim DMA channels for the segment instances placed in [begin, end): nearest
 * columns first; affinity partners (same partition, in turn) share theirs. */
static void place_shim(pl_t* pl, uint32_t begin, uint32_t end) {
  const air_target_t* t = pl->t;
  if (t->kind != AIR_TARGET_NPU || !pl->shim_left) return;
  for (uint32_t c = 0; c < t->cols; ++c) {
    bool dma = air_target_shim_has_dma(t, c);
    pl->shim_left[2 * c + AIR_DMA_IN] = dma ? t->shim_dma_in : 0;
    pl->shim_left[2 * c + AIR_DMA_OUT] = dma ? t->shim_dma_out : 0;
  }
  for (uint32_t i = begin; i < end; ++i) {
    air_place_t* it = &pl->out->items[i];
    const air_segment_res_t* s = record_of(pl, it->op);
    uint32_t k = begin;
    while (k < i && pl->out->items[k].partition != it->partition) ++k;
    if (k < i) {
      it->shim_cols = pl->out->items[k].shim_cols;
      continue;
    }
    for (uint32_t dir = 0; s && dir < 2; ++dir)
      it->shim_cols |= take_shim(pl, it->x + it->w / 2, dir, s->per_instance.ch[AIR_DMA_SHIM][dir]);
  }
}

/* The first earlier top-level segment of the launch in s's affinity group, whose
 * partitions s reuses (the group's first member is placed normally). */
static const air_op_t* affinity_partner(const pl_t* pl, uint32_t index) {
  const air_segment_res_t* s = &pl->r->segments[index];
  for (uint32_t j = 0; j < index; ++j) {
    const air_segment_res_t* o = &pl->r->segments[j];
    if (o->launch == s->launch && !o->parent && linked(s->op, o->op, AIR_TOK_AFF)) {
      const air_op_t* root = affinity_partner(pl, j);
      return root ? root : o->op;
    }
  }
  return NULL;
}

static air_status_t place_launch(pl_t* pl, const air_op_t* launch) {
  const air_resources_t* r = pl->r;
  for (uint32_t i = 0; i < pl->t->cols * pl->t->rows; ++i) pl->owner[i] = -1;
  uint32_t begin = pl->out->n_items;
  /* Three passes: explicit origins, free instances, affinity groups. */
  for (int pass = 0; pass < 3; ++pass) {
    for (uint32_t i = 0; i < r->n_segments; ++i) {
      const air_segment_res_t* s = &r->segments[i];
      if (s->launch != launch || s->parent) continue;
      const air_op_t* partner = affinity_partner(pl, i);
      bool expl = false;
      int64_t xl, yl;
      uint32_t w, h;
      AIR_RETURN_IF_ERROR(pinned_origin(pl, s, &expl, &xl, &yl, &w, &h));
      if (pass == 2 && partner) {
        AIR_RETURN_IF_ERROR(place_affine(pl, s, partner));
      } else if (!partner && pass < 2) {
        /* Pass 0 fixes explicit origins (instance 0) before anything is placed
         * freely, so a free instance never takes an explicit one's tiles. */
        uint64_t from = pass == 0 ? 0 : expl ? 1 : 0;
        uint64_t to = pass == 0 ? (expl ? 1 : 0) : s->instances;
        for (uint64_t inst = from; inst < to; ++inst)
          AIR_RETURN_IF_ERROR(place_instance(pl, s, inst));
      }
    }
  }
  /* Concurrency: members of a group must sit on different partitions. */
  char lb[96], lb2[96];
  for (uint32_t i = begin; i < pl->out->n_items; ++i)
    for (uint32_t j = begin; j < i; ++j) {
      const air_place_t *a = &pl->out->items[i], *b = &pl->out->items[j];
      if (a->op != b->op && a->partition == b->partition && linked(a->op, b->op, AIR_TOK_CONC))
        return fail(pl, a->op, "%s must run concurrently with %s but they share a partition "
                    "(affinity); concurrency needs distinct partitions",
                    air_res_label(a->op, lb, sizeof lb), air_res_label(b->op, lb2, sizeof lb2));
    }
  uint32_t end = pl->out->n_items;
  place_shim(pl, begin, end);
  for (uint32_t i = begin; i < end; ++i) AIR_RETURN_IF_ERROR(place_herds(pl, i));
  return AIR_STATUS_OK_VALUE;
}

air_status_t air_place(const air_program_t* p, const air_resources_t* r, air_placement_t* out) {
  memset(out, 0, sizeof *out);
  out->allocator = r->allocator;
  pl_t pl = {.p = p, .r = r, .t = r->target, .out = out};
  size_t cells = (size_t)pl.t->cols * pl.t->rows;
  pl.owner = air_mem_alloc(&out->allocator, cells * sizeof *pl.owner);
  pl.shim_left = air_mem_calloc(&out->allocator, 2 * (size_t)pl.t->cols, sizeof *pl.shim_left);
  air_status_t s = AIR_STATUS_OK_VALUE;
  if (!pl.owner || !pl.shim_left) s = AIR_STATUS_OOM(&out->allocator, "placing");
  for (uint32_t i = 0; !s && i < r->n_launches; ++i) s = place_launch(&pl, r->launches[i].op);
  air_mem_free(&out->allocator, pl.owner);
  air_mem_free(&out->allocator, pl.shim_left);
  if (s) air_placement_free(out);
  return s;
}

void air_placement_free(air_placement_t* pl) {
  if (pl->items && pl->allocator.free) pl->allocator.free(pl->allocator.self, pl->items);
  pl->items = NULL;
  pl->n_items = pl->cap_items = 0;
}

/* resources_check.c - an analysis (resources.c) against its target: every
 * violation, one line each, naming the op. Zero limits are unlimited. DMA
 * channels are checked per port: a herd's per tile against the core DMA, a
 * segment instance's L2 side against the mem tiles of the columns it spans, and
 * a launch's L3 side (with L2 on a device without mem tiles) against the shim
 * DMA tiles, each after channel sharing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/status_util.h"
#include "runtime/base/strbuf.h"
#include "scheduler/resources.h"

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

static void violation(air_sb_t* sb, const air_program_t* p, const air_op_t* op,
                      const char* fmt, ...) __attribute__((format(printf, 4, 5)));
static void violation(air_sb_t* sb, const air_program_t* p, const air_op_t* op,
                      const char* fmt, ...) {
  if (sb->len) air_sb_putc(sb, '\n');
  air_sb_printf(sb, "%s:%u:%u: error: [resources] ", p->filename ? p->filename : "<input>",
                op->line, op->col);
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

/* "(@a on 0, @b x16 on 1-16, ...)": the endpoints of one port and direction with
 * the hardware channels sharing gave them, so the message says what to change. */
static void list_endpoints(air_sb_t* sb, const air_dma_need_t* need, uint32_t port,
                           uint32_t dir) {
  enum { SHOWN = 8 };
  uint32_t shown = 0, more = 0;
  air_sb_puts(sb, " (");
  for (uint32_t i = 0; i < need->n_eps; ++i) {
    const air_dma_endpoint_t* e = &need->eps[i];
    if (e->port != port || e->dir != dir) continue;
    if (shown == SHOWN) {
      ++more;
      continue;
    }
    char name[96];
    air_sb_printf(sb, "%s%s", shown ? ", " : "", air_dma_endpoint_name(e, name, sizeof name));
    if (e->copies > 1)
      air_sb_printf(sb, " x%llu on %llu-%llu", (unsigned long long)e->copies,
                    (unsigned long long)e->channel,
                    (unsigned long long)(e->channel + e->copies - 1));
    else
      air_sb_printf(sb, " on %llu", (unsigned long long)e->channel);
    ++shown;
  }
  if (more) air_sb_printf(sb, " and %u more", more);
  air_sb_puts(sb, ")");
}

static const char* dir_word(uint32_t dir) { return dir == AIR_DMA_IN ? "incoming" : "outgoing"; }

/* Tiles and L2 of a segment total or a launch total against the device. */
static void check_total(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                        const air_op_t* op, const air_res_t* need) {
  char lb[96];
  air_res_label(op, lb, sizeof lb);
  uint64_t tiles = air_target_tiles(t), l2 = air_target_l2_total(t);
  if (tiles && need->tiles > tiles)
    violation(sb, p, op, "%s needs %llu tiles; %s has %llu", lb,
              (unsigned long long)need->tiles, t->name, (unsigned long long)tiles);
  if (l2 && need->l2_bytes > l2)
    violation(sb, p, op, "%s needs %llu bytes of L2; %s has %llu", lb,
              (unsigned long long)need->l2_bytes, t->name, (unsigned long long)l2);
}

/* The shim DMA channels of everything a launch (or a segment outside any launch)
 * keeps at once. */
static void check_shim(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                       const air_op_t* op, const air_dma_need_t* need, uint64_t times) {
  uint32_t tiles = air_target_shim_dma_count(t);
  if (t->kind != AIR_TARGET_NPU) return;
  char lb[96];
  air_res_label(op, lb, sizeof lb);
  for (uint32_t dir = 0; dir < 2; ++dir) {
    uint64_t per = dir == AIR_DMA_IN ? t->shim_dma_in : t->shim_dma_out;
    uint64_t have = (uint64_t)tiles * per;
    uint64_t want = mul_sat(need->channels[AIR_DMA_SHIM][dir], times);
    if (want <= have) continue;
    violation(sb, p, op, "%s needs %llu %s shim DMA channels after sharing", lb,
              (unsigned long long)want, dir_word(dir));
    list_endpoints(sb, need, AIR_DMA_SHIM, dir);
    air_sb_printf(sb, "; %s has %u shim tile%s with a DMA, %llu channels", t->name, tiles,
                  tiles == 1 ? "" : "s", (unsigned long long)have);
  }
}

static void check_herd(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                       const air_herd_res_t* h) {
  char lb[96];
  air_res_label(h->op, lb, sizeof lb);
  uint64_t pes = mul_sat(h->nx, h->ny), tiles = air_target_tiles(t);
  if (t->max_herd_pes && pes > t->max_herd_pes)
    violation(sb, p, h->op, "%s has %llu PEs; %s allows at most %u per herd", lb,
              (unsigned long long)pes, t->name, t->max_herd_pes);
  if (!t->herd_is_one_tile && tiles) {
    if (pes > tiles)
      violation(sb, p, h->op, "%s needs %llu tiles; %s has %llu", lb, (unsigned long long)pes,
                t->name, (unsigned long long)tiles);
    else if (h->nx > t->cols || h->ny > t->rows)
      violation(sb, p, h->op, "%s needs %llux%llu tiles; %s has %u columns x %u rows", lb,
                (unsigned long long)h->nx, (unsigned long long)h->ny, t->name, t->cols, t->rows);
  }
  uint64_t l1 = air_target_l1_usable(t);
  if (t->l1_bytes && h->l1_bytes > l1) {
    if (t->l1_stack)
      violation(sb, p, h->op,
                "%s needs %llu bytes of L1 per tile; %s has %llu (%llu less the %u-byte stack)",
                lb, (unsigned long long)h->l1_bytes, t->name, (unsigned long long)l1,
                (unsigned long long)t->l1_bytes, t->l1_stack);
    else
      violation(sb, p, h->op, "%s needs %llu bytes of L1 per tile; %s has %llu", lb,
                (unsigned long long)h->l1_bytes, t->name, (unsigned long long)l1);
  }
  for (uint32_t dir = 0; dir < 2; ++dir) {
    uint64_t have = dir == AIR_DMA_IN ? t->dma_in : t->dma_out;
    uint64_t want = dir == AIR_DMA_IN ? h->dma_in : h->dma_out;
    if (!have || want <= have) continue;
    violation(sb, p, h->op, "%s needs %llu %s DMA channels per tile after sharing", lb,
              (unsigned long long)want, dir_word(dir));
    list_endpoints(sb, &h->dma, AIR_DMA_CORE, dir);
    air_sb_printf(sb, "; %s has %llu per tile", t->name, (unsigned long long)have);
  }
}

/* One instance's L2-side channels against the mem tiles of its columns. */
static void check_memtiles(air_sb_t* sb, const air_program_t* p, const air_target_t* t,
                           const air_segment_res_t* s) {
  if (t->kind != AIR_TARGET_NPU || !t->memtile_rows) return;
  uint32_t w = 0, h = 0;
  air_res_block_size(t, s, &w, &h);
  uint32_t tiles = air_target_memtiles_in(t, 0, w);
  char lb[96];
  air_res_label(s->op, lb, sizeof lb);
  for (uint32_t dir = 0; dir < 2; ++dir) {
    uint64_t per = dir == AIR_DMA_IN ? t->l2_dma_in : t->l2_dma_out;
    uint64_t have = (uint64_t)tiles * per;
    uint64_t want = s->per_instance.ch[AIR_DMA_MEMTILE][dir];
    if (want <= have) continue;
    violation(sb, p, s->op, "%s needs %llu %s mem-tile DMA channels per instance after sharing",
              lb, (unsigned long long)want, dir_word(dir));
    list_endpoints(sb, &s->dma, AIR_DMA_MEMTILE, dir);
    air_sb_printf(sb, "; its %u column%s on %s ha%s %u mem tile%s, %llu channels", w,
                  w == 1 ? "" : "s", t->name, w == 1 ? "s" : "ve", tiles, tiles == 1 ? "" : "s",
                  (unsigned long long)have);
  }
}

air_status_t air_resources_check(const air_program_t* p, const air_resources_t* r) {
  const air_target_t* t = r->target;
  air_sb_t sb;
  air_sb_init(&sb, &r->allocator);
  for (uint32_t i = 0; i < r->n_herds; ++i) check_herd(&sb, p, t, &r->herds[i]);
  for (uint32_t i = 0; i < r->n_segments; ++i) {
    const air_segment_res_t* s = &r->segments[i];
    char lb[96];
    if (s->body_tiles > s->per_instance.tiles)
      violation(&sb, p, s->op, "%s needs %llu tiles per instance; its x_size x y_size gives %llu",
                air_res_label(s->op, lb, sizeof lb), (unsigned long long)s->body_tiles,
                (unsigned long long)s->per_instance.tiles);
    check_total(&sb, p, t, s->op, &s->total);
    if (!s->parent) check_memtiles(&sb, p, t, s);
    if (!s->launch && !s->parent) check_shim(&sb, p, t, s->op, &s->dma, s->instances);
  }
  for (uint32_t i = 0; i < r->n_launches; ++i) {
    /* A launch with one segment would repeat that segment's diagnostics. */
    uint32_t direct = 0;
    for (uint32_t k = 0; k < r->n_segments; ++k)
      direct += r->segments[k].launch == r->launches[i].op && !r->segments[k].parent;
    if (direct > 1) check_total(&sb, p, t, r->launches[i].op, &r->launches[i].total);
    check_shim(&sb, p, t, r->launches[i].op, &r->launches[i].dma, 1);
  }
  if (sb.oom) {
    air_sb_free(&sb);
    return AIR_STATUS(&r->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory listing resource violations");
  }
  if (!sb.len) {
    air_sb_free(&sb);
    return AIR_STATUS_OK_VALUE;
  }
  air_status_t s = AIR_STATUS(&r->allocator, AIR_STATUS_FAILED_PRECONDITION, "%s", sb.data);
  air_sb_free(&sb);
  return s;
}

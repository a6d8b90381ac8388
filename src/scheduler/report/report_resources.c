/* report_resources.c - the resource analysis and placement (`airc report --emit
 * resources`) as plain text, one row per segment / herd / placed instance, columns
 * aligned for reading and stable for diffing in tests. */
#include "scheduler/report/report.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/status_util.h"

static const char* name_of(const air_op_t* op) { return op && op->sym ? op->sym : "-"; }

static void limit(air_sb_t* sb, const char* what, uint64_t v) {
  if (v)
    air_sb_printf(sb, "  %-22s %llu\n", what, (unsigned long long)v);
  else
    air_sb_printf(sb, "  %-22s unlimited\n", what);
}

static const char* const k_port_names[AIR_DMA_PORTS] = {"core", "mem tile", "shim"};

static void report_need(air_sb_t* sb, const air_op_t* op, const air_dma_need_t* need) {
  for (uint32_t i = 0; i < need->n_eps; ++i) {
    const air_dma_endpoint_t* e = &need->eps[i];
    char name[96], ch[48];
    if (e->copies > 1)
      snprintf(ch, sizeof ch, "%llu-%llu", (unsigned long long)e->channel,
               (unsigned long long)(e->channel + e->copies - 1));
    else
      snprintf(ch, sizeof ch, "%llu", (unsigned long long)e->channel);
    air_sb_printf(sb, "  %-20s %-9s %-4s %-28s %6llu %s\n", name_of(op), k_port_names[e->port],
                  e->dir == AIR_DMA_IN ? "in" : "out", air_dma_endpoint_name(e, name, sizeof name),
                  (unsigned long long)e->copies, ch);
  }
}

/* Which hardware channel each transfer endpoint got: endpoints on one channel
 * number of one port and direction take turns on it. */
static void report_channels(air_sb_t* sb, const air_resources_t* r) {
  air_sb_printf(sb, "\nDMA channels (endpoints on the same channel number share it)\n");
  air_sb_printf(sb, "  %-20s %-9s %-4s %-28s %6s %s\n", "scope", "port", "dir", "endpoint",
                "copies", "channel");
  for (uint32_t i = 0; i < r->n_herds; ++i) report_need(sb, r->herds[i].op, &r->herds[i].dma);
  for (uint32_t i = 0; i < r->n_segments; ++i)
    report_need(sb, r->segments[i].op, &r->segments[i].dma);
  for (uint32_t i = 0; i < r->n_launches; ++i)
    report_need(sb, r->launches[i].op, &r->launches[i].dma);
}

void air_report_resources(air_sb_t* sb, const air_program_t* p, const air_resources_t* r,
                          const air_placement_t* pl) {
  const air_target_t* t = r->target;
  air_sb_printf(sb, "target %s\n", t->name);
  limit(sb, "tiles", air_target_tiles(t));
  limit(sb, "L1 bytes per tile", air_target_l1_usable(t));
  if (air_target_l2_on_array(t))
    limit(sb, "L2 bytes", air_target_l2_total(t));
  else
    air_sb_printf(sb, "  %-22s unlimited, off the array (no mem tiles)\n", "L2 bytes");
  if (t->kind == AIR_TARGET_NPU) {
    air_sb_printf(sb, "  %-22s %u in + %u out per core tile\n", "DMA channels", t->dma_in,
                  t->dma_out);
    if (t->memtile_rows)
      air_sb_printf(sb, "  %-22s %u in + %u out per mem tile, %u mem tiles\n", "", t->l2_dma_in,
                    t->l2_dma_out, t->l2_units);
    air_sb_printf(sb, "  %-22s %u in + %u out per shim DMA, %u shim DMAs\n", "", t->shim_dma_in,
                  t->shim_dma_out, air_target_shim_dma_count(t));
  } else {
    limit(sb, "DMA channels per tile", (uint64_t)t->dma_in + t->dma_out);
  }
  air_sb_printf(sb, "\nsegments (per instance x instances = total; dma = hardware DMA "
                "channels after sharing, mem tiles + shim)\n");
  air_sb_printf(sb, "  %-20s %-9s %9s %6s %12s %6s %6s %12s %6s\n", "segment", "line:col",
                "instances", "tiles", "L2 bytes", "dma", "tiles*", "L2 bytes*", "dma*");
  for (uint32_t i = 0; i < r->n_segments; ++i) {
    const air_segment_res_t* s = &r->segments[i];
    char loc[24];
    snprintf(loc, sizeof loc, "%u:%u", s->op->line, s->op->col);
    air_sb_printf(sb, "  %-20s %-9s %9llu %6llu %12llu %6llu %6llu %12llu %6llu\n",
                  name_of(s->op), loc, (unsigned long long)s->instances,
                  (unsigned long long)s->per_instance.tiles,
                  (unsigned long long)s->per_instance.l2_bytes,
                  (unsigned long long)s->per_instance.dma, (unsigned long long)s->total.tiles,
                  (unsigned long long)s->total.l2_bytes, (unsigned long long)s->total.dma);
  }
  air_sb_printf(sb, "\nherds (per PE)\n");
  air_sb_printf(sb, "  %-20s %-20s %-9s %7s %12s %6s %6s\n", "herd", "segment", "line:col",
                "PEs", "L1 bytes", "dma in", "out");
  for (uint32_t i = 0; i < r->n_herds; ++i) {
    const air_herd_res_t* h = &r->herds[i];
    char loc[24], pes[48];
    snprintf(loc, sizeof loc, "%u:%u", h->op->line, h->op->col);
    snprintf(pes, sizeof pes, "%llux%llu", (unsigned long long)h->nx, (unsigned long long)h->ny);
    air_sb_printf(sb, "  %-20s %-20s %-9s %7s %12llu %6llu %6llu\n", name_of(h->op),
                  name_of(h->segment), loc, pes, (unsigned long long)h->l1_bytes,
                  (unsigned long long)h->dma_in, (unsigned long long)h->dma_out);
  }
  report_channels(sb, r);
  air_sb_printf(sb, "\nlaunches (co-resident segments)\n");
  air_sb_printf(sb, "  %-20s %-9s %6s %12s %6s\n", "launch", "line:col", "tiles", "L2 bytes",
                "dma");
  for (uint32_t i = 0; i < r->n_launches; ++i) {
    const air_launch_res_t* l = &r->launches[i];
    char loc[24];
    snprintf(loc, sizeof loc, "%u:%u", l->op->line, l->op->col);
    air_sb_printf(sb, "  %-20s %-9s %6llu %12llu %6llu\n", name_of(l->op), loc,
                  (unsigned long long)l->total.tiles, (unsigned long long)l->total.l2_bytes,
                  (unsigned long long)l->total.dma);
  }
  if (!pl) return;
  bool gpu = t->kind == AIR_TARGET_GPU, cpu = t->kind == AIR_TARGET_CPU;
  air_sb_printf(sb, "\nplacement (x = %s, y = %s)\n", gpu ? "XCD" : cpu ? "worker group" : "column",
                gpu ? "CU" : cpu ? "-" : "row");
  air_sb_printf(sb, "  %-8s %-20s %8s %9s %5s %5s %7s %-8s %s\n", "kind", "name", "instance",
                "partition", "x", "y", "w x h", "source", "shim DMA columns");
  for (uint32_t i = 0; i < pl->n_items; ++i) {
    const air_place_t* it = &pl->items[i];
    char wh[32];
    snprintf(wh, sizeof wh, "%ux%u", it->w, it->h);
    air_sb_printf(sb, "  %-8s %-20s %8llu %9u %5u %5u %7s %-8s",
                  it->op->kind == AIR_OP_HERD ? "herd" : "segment", name_of(it->op),
                  (unsigned long long)it->instance, it->partition, it->x, it->y, wh,
                  it->is_explicit ? "explicit" : "derived");
    bool any = false;
    for (uint32_t c = 0; c < 64; ++c)
      if (it->shim_cols >> c & 1u) {
        air_sb_printf(sb, "%s%u", any ? "," : " ", c);
        any = true;
      }
    air_sb_printf(sb, "%s\n", any ? "" : " -");
  }
}

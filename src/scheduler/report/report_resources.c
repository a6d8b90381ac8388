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

void air_report_resources(air_sb_t* sb, const air_program_t* p, const air_resources_t* r,
                          const air_placement_t* pl) {
  const air_target_t* t = r->target;
  air_sb_printf(sb, "target %s\n", t->name);
  limit(sb, "tiles", air_target_tiles(t));
  limit(sb, "L1 bytes per tile", t->l1_bytes);
  limit(sb, "L2 bytes", air_target_l2_total(t));
  limit(sb, "DMA channels", air_target_dma_total(t));
  air_sb_printf(sb, "\nsegments (per instance x instances = total)\n");
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
  air_sb_printf(sb, "  %-8s %-20s %8s %9s %5s %5s %7s %s\n", "kind", "name", "instance",
                "partition", "x", "y", "w x h", "source");
  for (uint32_t i = 0; i < pl->n_items; ++i) {
    const air_place_t* it = &pl->items[i];
    char wh[32];
    snprintf(wh, sizeof wh, "%ux%u", it->w, it->h);
    air_sb_printf(sb, "  %-8s %-20s %8llu %9u %5u %5u %7s %s\n",
                  it->op->kind == AIR_OP_HERD ? "herd" : "segment", name_of(it->op),
                  (unsigned long long)it->instance, it->partition, it->x, it->y, wh,
                  it->is_explicit ? "explicit" : "derived");
  }
}

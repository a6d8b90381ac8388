/* report_memplan.c - the memory plan as a table and as an SVG picture (see
 * report.h). Buffers are named by the value the program uses: an alloc yielded
 * by an air.execute goes by the execute's result. */
#include <string.h>

#include "runtime/base/status_util.h"
#include "scheduler/report/report.h"
#include "scheduler/schedule_bind.h"

typedef struct plan_ops_t {
  const air_op_t** ops; /* pre-order */
  uint32_t n;
} plan_ops_t;

/* The pre-order ops of the schedule's entry, checked against the plan's indices. */
static air_status_t plan_ops(const air_allocator_t* a, const air_program_t* p,
                             const air_schedule_t* sc, plan_ops_t* out) {
  const air_op_t* entry = NULL;
  const air_op_t** body = NULL;
  AIR_RETURN_IF_ERROR(air_schedule_bind(a, sc, p, &entry, &body));
  a->free(a->self, body);
  AIR_RETURN_IF_ERROR(air_schedule_preorder(a, entry, &out->ops, &out->n));
  const air_memplan_t* mp = &sc->memplan;
  for (uint32_t i = 0; i < mp->n_buffers; ++i)
    if (mp->buffers[i].op >= out->n || out->ops[mp->buffers[i].op]->kind != AIR_OP_ALLOC) {
      a->free(a->self, out->ops);
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS,
                        "memory plan buffer %u names op %u, which is not an alloc of @%s", i,
                        mp->buffers[i].op, sc->entry);
    }
  for (uint32_t i = 0; i < mp->n_arenas; ++i)
    if (mp->arenas[i].owner != UINT32_MAX && mp->arenas[i].owner >= out->n) {
      a->free(a->self, out->ops);
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "memory plan arena %u names op %u of %u", i,
                        mp->arenas[i].owner, out->n);
    }
  return AIR_STATUS_OK_VALUE;
}

static const char* buffer_name(const air_program_t* p, const air_op_t* alloc) {
  const air_op_t* ex = air_ir_parent_op(alloc);
  const air_op_t* term = air_ir_block_terminator(alloc->parent);
  if (ex && ex->kind == AIR_OP_EXECUTE && term)
    for (uint32_t k = 0; k < term->n_operands && k + 1 < ex->n_results; ++k)
      if (term->operands[k] == alloc->results[0] && air_ir_value(p, ex->results[k + 1])->name)
        return air_ir_value(p, ex->results[k + 1])->name;
  const char* n = alloc->n_results ? air_ir_value(p, alloc->results[0])->name : NULL;
  return n ? n : "";
}

static const char* space_name(uint32_t space) {
  return space == AIR_MEMPLAN_L3 ? "L3" : space == AIR_MEMPLAN_L2 ? "L2" : "L1";
}

static void arena_title(air_sb_t* sb, const air_program_t* p, const plan_ops_t* po,
                        const air_memplan_arena_t* ar) {
  if (ar->owner == UINT32_MAX) {
    air_sb_printf(sb, "%s transients", space_name(ar->space));
    return;
  }
  const air_op_t* o = po->ops[ar->owner];
  air_sb_printf(sb, "%s of %s %s%s (", space_name(ar->space),
                o->kind == AIR_OP_HERD ? "herd" : "segment", o->sym ? "@" : "",
                o->sym ? o->sym : "unnamed");
  air_report_loc(sb, p, o);
  air_sb_putc(sb, ')');
}

air_status_t air_report_memplan(air_sb_t* sb, const air_program_t* p, const air_schedule_t* sc) {
  plan_ops_t po;
  AIR_RETURN_IF_ERROR(plan_ops(&sb->allocator, p, sc, &po));
  const air_memplan_t* mp = &sc->memplan;
  air_sb_printf(sb,
                "memory plan of @%s for %s: %u arenas, %u buffers, alignment %u\n"
                "lifetimes [start, end): L3 in partition levels, L2/L1 in pre-order positions "
                "of the segment / herd body\n",
                sc->entry, sc->target, mp->n_arenas, mp->n_buffers, mp->alignment);
  air_sb_t loc;
  air_sb_init(&loc, &sb->allocator);
  for (uint32_t a = 0; a < mp->n_arenas; ++a) {
    const air_memplan_arena_t* ar = &mp->arenas[a];
    air_sb_printf(sb, "\narena %u: ", a);
    arena_title(sb, p, &po, ar);
    air_sb_printf(sb, "\n  size %llu, lower bound %llu, capacity ", (unsigned long long)ar->size,
                  (unsigned long long)ar->lower_bound);
    if (ar->capacity)
      air_sb_printf(sb, "%llu", (unsigned long long)ar->capacity);
    else
      air_sb_puts(sb, "unlimited");
    air_sb_printf(sb, ", %u buffers\n", ar->buffer_end - ar->buffer_begin);
    if (ar->buffer_end == ar->buffer_begin) continue;
    air_sb_printf(sb, "  %-16s %-14s %-40s %10s %10s %s\n", "buffer", "op", "location", "size",
                  "offset", "lifetime");
    for (uint32_t i = ar->buffer_begin; i < ar->buffer_end; ++i) {
      const air_memplan_buffer_t* b = &mp->buffers[i];
      const air_op_t* op = po.ops[b->op];
      air_sb_clear(&loc);
      air_report_loc(&loc, p, op);
      air_sb_printf(sb, "  %%%-15s %-14s %-40s %10llu %10llu [%u, %u)\n", buffer_name(p, op),
                    air_opkind_name(op->kind), loc.len ? loc.data : "", (unsigned long long)b->size,
                    (unsigned long long)b->offset, b->start, b->end);
    }
  }
  bool loc_oom = loc.oom;
  air_sb_free(&loc);
  if (loc_oom) sb->oom = true;
  sb->allocator.free(sb->allocator.self, po.ops);
  return AIR_STATUS_OK_VALUE;
}

/* Text for SVG: the XML specials escaped. */
static void xml_text(air_sb_t* sb, const char* s) {
  for (; *s; ++s) switch (*s) {
      case '&': air_sb_puts(sb, "&amp;"); break;
      case '<': air_sb_puts(sb, "&lt;"); break;
      case '>': air_sb_puts(sb, "&gt;"); break;
      case '"': air_sb_puts(sb, "&quot;"); break;
      default: air_sb_putc(sb, *s);
    }
}

enum { SVG_LEFT = 80, SVG_WIDTH = 720, SVG_PANEL = 180, SVG_GAP = 50 };

static void svg_arena(air_sb_t* sb, air_sb_t* tmp, const air_program_t* p, const plan_ops_t* po,
                      const air_memplan_t* mp, uint32_t a, uint32_t y0) {
  const air_memplan_arena_t* ar = &mp->arenas[a];
  uint32_t span = 1;
  for (uint32_t i = ar->buffer_begin; i < ar->buffer_end; ++i)
    if (mp->buffers[i].end > span) span = mp->buffers[i].end;
  double bytes = ar->size ? (double)ar->size : 1.0;
  air_sb_clear(tmp);
  arena_title(tmp, p, po, ar);
  air_sb_printf(sb, "<g>\n<text x=\"%d\" y=\"%u\">arena %u: ", SVG_LEFT, y0 + 14, a);
  xml_text(sb, tmp->len ? tmp->data : "");
  air_sb_printf(sb, " - size %llu, lower bound %llu</text>\n", (unsigned long long)ar->size,
                (unsigned long long)ar->lower_bound);
  uint32_t top = y0 + 20;
  air_sb_printf(sb,
                "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" fill=\"none\" "
                "stroke=\"#888\"/>\n"
                "<text x=\"%d\" y=\"%u\" text-anchor=\"end\">0</text>\n"
                "<text x=\"%d\" y=\"%u\" text-anchor=\"end\">%llu</text>\n"
                "<text x=\"%d\" y=\"%u\">%u</text>\n",
                SVG_LEFT, top, SVG_WIDTH, SVG_PANEL, SVG_LEFT - 4, top + 10, SVG_LEFT - 4,
                top + SVG_PANEL, (unsigned long long)ar->size, SVG_LEFT + SVG_WIDTH - 20,
                top + SVG_PANEL + 14, span);
  for (uint32_t i = ar->buffer_begin; i < ar->buffer_end; ++i) {
    const air_memplan_buffer_t* b = &mp->buffers[i];
    const air_op_t* op = po->ops[b->op];
    double x = SVG_LEFT + (double)b->start * SVG_WIDTH / span;
    double w = (double)(b->end - b->start) * SVG_WIDTH / span;
    double y = top + (double)b->offset * SVG_PANEL / bytes;
    double h = (double)b->size * SVG_PANEL / bytes;
    unsigned hue = (unsigned)((b->op * 2654435761u) % 360u);
    air_sb_printf(sb,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                  "fill=\"hsl(%u,60%%,70%%)\" stroke=\"#333\"><title>%%",
                  x, y, w > 1 ? w : 1, h > 1 ? h : 1, hue);
    xml_text(sb, buffer_name(p, op));
    air_sb_clear(tmp);
    air_report_loc(tmp, p, op);
    air_sb_puts(sb, " memref.alloc at ");
    xml_text(sb, tmp->len ? tmp->data : "");
    air_sb_printf(sb, ": %llu bytes at offset %llu, live [%u, %u)</title></rect>\n",
                  (unsigned long long)b->size, (unsigned long long)b->offset, b->start, b->end);
  }
  air_sb_puts(sb, "</g>\n");
}

air_status_t air_report_memplan_svg(air_sb_t* sb, const air_program_t* p,
                                    const air_schedule_t* sc) {
  plan_ops_t po;
  AIR_RETURN_IF_ERROR(plan_ops(&sb->allocator, p, sc, &po));
  const air_memplan_t* mp = &sc->memplan;
  uint32_t panels = 0;
  for (uint32_t a = 0; a < mp->n_arenas; ++a)
    panels += mp->arenas[a].buffer_end > mp->arenas[a].buffer_begin;
  uint32_t height = 40 + panels * (SVG_PANEL + SVG_GAP);
  air_sb_printf(sb,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
                "font-family=\"monospace\" font-size=\"11\">\n<title>memory plan of @",
                SVG_LEFT + SVG_WIDTH + 20, height);
  xml_text(sb, sc->entry);
  air_sb_puts(sb, " for ");
  xml_text(sb, sc->target);
  air_sb_printf(sb,
                "</title>\n<text x=\"%d\" y=\"16\">x: lifetime (L3 levels, L2/L1 positions), "
                "y: offset in bytes</text>\n",
                SVG_LEFT);
  air_sb_t tmp;
  air_sb_init(&tmp, &sb->allocator);
  uint32_t y = 30;
  for (uint32_t a = 0; a < mp->n_arenas; ++a) {
    if (mp->arenas[a].buffer_end == mp->arenas[a].buffer_begin) continue;
    svg_arena(sb, &tmp, p, &po, mp, a, y);
    y += SVG_PANEL + SVG_GAP;
  }
  air_sb_puts(sb, "</svg>\n");
  if (tmp.oom) sb->oom = true;
  air_sb_free(&tmp);
  sb->allocator.free(sb->allocator.self, po.ops);
  return AIR_STATUS_OK_VALUE;
}

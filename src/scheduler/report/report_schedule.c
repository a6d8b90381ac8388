/* report_schedule.c - the partition of a compiled schedule as text (queues, waves,
 * kept waits) and the host token graph as Graphviz (see report.h), both read from
 * the schedule: its stored edges and groups are the graph. */
#include <string.h>

#include "runtime/base/status_util.h"
#include "scheduler/report/report.h"
#include "scheduler/schedule_bind.h"

/* `op @sym` of a command. */
static void op_name(air_sb_t* sb, const air_op_t* op) {
  air_sb_puts(sb, air_opkind_name(op->kind));
  if (op->sym && op->kind != AIR_OP_FUNC) air_sb_printf(sb, " @%s", op->sym);
}

static air_status_t check_cmds(const air_allocator_t* a, const air_schedule_t* sc) {
  const air_partition_t* P = sc->partition;
  if (!P || P->n_nodes != sc->n_cmds || sc->n_cmds != sc->n_body_ops)
    return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "the schedule's partition does not match its %u "
                      "commands", sc->n_cmds);
  for (uint32_t i = 0; i < sc->n_cmds; ++i)
    if (sc->cmds[i].op >= sc->n_body_ops)
      return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "command %u names op %u of %u", i,
                        sc->cmds[i].op, sc->n_body_ops);
  return AIR_STATUS_OK_VALUE;
}

static const char* queue_kind(const air_schedule_t* sc, uint32_t q) {
  return air_sched_queue_kind_name(q < sc->n_queues ? sc->queue_kind[q] : UINT32_MAX);
}

air_status_t air_report_schedule(air_sb_t* sb, const air_program_t* p, const air_schedule_t* sc) {
  const air_allocator_t* a = &sb->allocator;
  AIR_RETURN_IF_ERROR(check_cmds(a, sc));
  const air_op_t* entry = NULL;
  const air_op_t** ops = NULL;
  AIR_RETURN_IF_ERROR(air_schedule_bind(a, sc, p, &entry, &ops));
  const air_partition_t* P = sc->partition;
  const air_partition_stats_t* st = &P->stats;
  air_sb_printf(sb,
                "schedule of @%s for %s: %u commands, %u queues, %u levels, %u waves\n"
                "partition: %llu edges, %llu cross-queue edges, waits %llu before elision, "
                "%llu after, %u groups (%u nodes joined by the path rule)\n"
                "compiled in %.3f ms\n",
                sc->entry, sc->target, sc->n_cmds, P->n_queues, P->n_levels, P->n_waves,
                (unsigned long long)st->edges, (unsigned long long)st->cross_edges,
                (unsigned long long)st->waits_raw, (unsigned long long)st->waits_kept, st->groups,
                st->grown, (double)sc->compile_ns * 1e-6);
  air_sb_t loc;
  air_sb_init(&loc, a);
  for (uint32_t q = 0; q < P->n_queues; ++q) {
    const air_partition_queue_t* pq = &P->queues[q];
    air_sb_printf(sb, "\nqueue %u (%s): %u waves\n", q, queue_kind(sc, q),
                  pq->wave_end - pq->wave_begin);
    for (uint32_t w = pq->wave_begin; w < pq->wave_end; ++w) {
      const air_partition_wave_t* wv = &P->waves[w];
      air_sb_printf(sb, "  wave %u (level %u)%s", w - pq->wave_begin, wv->level,
                    wv->ordered ? ", ordered (a group)" : "");
      if (wv->wait_end > wv->wait_begin) {
        air_sb_puts(sb, ", waits:");
        for (uint32_t k = wv->wait_begin; k < wv->wait_end; ++k)
          air_sb_printf(sb, " queue %u >= %u", P->waits[k].queue, P->waits[k].value);
      }
      air_sb_putc(sb, '\n');
      for (uint32_t c = wv->cmd_begin; c < wv->cmd_end; ++c) {
        uint32_t node = P->cmds[c];
        const air_op_t* op = ops[sc->cmds[node].op];
        air_sb_clear(&loc);
        op_name(&loc, op);
        air_sb_printf(sb, "    #%-6u %-9s %-28s ", node, air_sched_cmd_kind_name(sc->cmds[node].kind),
                      loc.len ? loc.data : "");
        air_report_loc(sb, p, op);
        air_sb_putc(sb, '\n');
      }
    }
  }
  if (loc.oom) sb->oom = true;
  air_sb_free(&loc);
  a->free(a->self, ops);
  return AIR_STATUS_OK_VALUE;
}

/* A Graphviz string body: quotes and backslashes escaped, newlines as \n. */
static void dot_text(air_sb_t* sb, const char* s) {
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') air_sb_putc(sb, '\\');
    if (*s == '\n')
      air_sb_puts(sb, "\\n");
    else
      air_sb_putc(sb, *s);
  }
}

air_status_t air_report_dot(air_sb_t* sb, const air_program_t* p, const air_schedule_t* sc) {
  const air_allocator_t* a = &sb->allocator;
  AIR_RETURN_IF_ERROR(check_cmds(a, sc));
  const air_op_t* entry = NULL;
  const air_op_t** ops = NULL;
  AIR_RETURN_IF_ERROR(air_schedule_bind(a, sc, p, &entry, &ops));
  const air_partition_t* P = sc->partition;
  air_sb_t lbl;
  air_sb_init(&lbl, a);
  air_sb_puts(sb, "digraph \"");
  dot_text(sb, sc->entry);
  air_sb_puts(sb, "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", "
                  "fontsize=10];\n");
  for (uint32_t q = 0; q < P->n_queues; ++q) {
    air_sb_printf(sb, "  subgraph cluster_q%u {\n    label=\"queue %u (%s)\";\n", q, q,
                  queue_kind(sc, q));
    for (uint32_t i = 0; i < sc->n_cmds; ++i) {
      if (P->node_queue[i] != q) continue;
      const air_op_t* op = ops[sc->cmds[i].op];
      uint32_t g = sc->group[i];
      air_sb_clear(&lbl);
      air_sb_printf(&lbl, "#%u %s\n", i, air_sched_cmd_kind_name(sc->cmds[i].kind));
      op_name(&lbl, op);
      air_sb_putc(&lbl, '\n');
      air_report_loc(&lbl, p, op);
      if (g != AIR_PARTITION_NO_GROUP) air_sb_printf(&lbl, "\ngroup %u", g);
      air_sb_printf(sb, "    n%u [label=\"", i);
      dot_text(sb, lbl.len ? lbl.data : "");
      air_sb_putc(sb, '"');
      if (g != AIR_PARTITION_NO_GROUP)
        air_sb_printf(sb, ", style=filled, fillcolor=\"/pastel19/%u\"", g % 9 + 1);
      air_sb_puts(sb, "];\n");
    }
    air_sb_puts(sb, "  }\n");
  }
  for (uint32_t i = 0; i < sc->n_cmds; ++i)
    for (uint32_t k = sc->pred_off[i]; k < sc->pred_off[i + 1]; ++k)
      air_sb_printf(sb, "  n%u -> n%u;\n", sc->preds[k], i);
  air_sb_puts(sb, "}\n");
  if (lbl.oom) sb->oom = true;
  air_sb_free(&lbl);
  a->free(a->self, ops);
  return AIR_STATUS_OK_VALUE;
}

/* stall.c - the deadlock report: when live strands exist and none can run (the
 * sync floor calls the `stalled` hook, under the run lock), the run fails with
 * one line per parked strand saying which op waits for what, sorted by
 * location, identical lines counted. */
#include "hal/cpu/interp/stall.h"

#include <stdlib.h>
#include <string.h>

#include "air/rank.h"
#include "hal/cpu/interp/chain.h"
#include "hal/cpu/interp/chan_remote.h"
#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/cpu/interp/rank.h"
#include "hal/cpu/interp/waves.h"
#include "runtime/base/mem.h"


typedef struct line_t {
  uint32_t line, col;
  char* text;
} line_t;

static int line_cmp(const void* a, const void* b) {
  const line_t *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return strcmp(x->text, y->text);
}

static void describe_tok(ix_run_t* r, air_sb_t* sb, ix_tok_t* t) {
  if (t && t->op)
    air_sb_printf(sb, "%s at %s:%u:%u has not finished", ix_opname(t->op), r->p->filename,
                  t->op->line, t->op->col);
  else
    air_sb_puts(sb, "not fired");
}

static void describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->w.park;
  const air_op_t* op = k->op;
  char nb[64];
  if (k->why == IX_WHY_PUT || k->why == IX_WHY_GET) {
    ix_chan_describe(r, s, sb);
    return;
  }
  if (k->why == IX_WHY_RANK) {
    ix_rank_describe(r, s, sb);
    return;
  }
  if (k->why == IX_WHY_REMOTE) {
    ix_chan_remote_describe(r, s, sb);
    return;
  }
  if (k->why == IX_WHY_GATE) {
    ix_waves_describe(r, sb);
    return;
  }
  air_sb_printf(sb, "%s:%u:%u: %s", r->p->filename, op ? op->line : 0, op ? op->col : 0,
                op ? ix_opname(op) : "?");
  if (op && op->sym && op->kind != AIR_OP_CALL) air_sb_printf(sb, " @%s", op->sym);
  if (s->pe) air_sb_printf(sb, " (%s)", s->pe->track);
  switch (k->why) {
    case IX_WHY_DEP:
      air_sb_printf(sb, " blocked on %s (", ix_vname(r, k->vid, nb, sizeof nb));
      describe_tok(r, sb, k->tok);
      air_sb_putc(sb, ')');
      break;
    case IX_WHY_VALUE:
      air_sb_printf(sb, " blocked on %s (", ix_vname(r, k->vid, nb, sizeof nb));
      describe_tok(r, sb, k->tok);
      air_sb_puts(sb, ", so its results are not available)");
      break;
    case IX_WHY_INIT:
      air_sb_puts(sb, " blocked on an init token of the enclosing scf.parallel (");
      describe_tok(r, sb, k->tok);
      air_sb_putc(sb, ')');
      break;
    case IX_WHY_JOIN:
      air_sb_puts(sb, " blocked: waiting for the work nested in it to finish");
      break;
    case IX_WHY_EDGE:
      if (k->tok && k->tok->op)
        air_sb_printf(sb, " blocked: the schedule runs it after %s at %s:%u:%u (same wave), "
                      "which has not finished", ix_opname(k->tok->op), r->p->filename,
                      k->tok->op->line, k->tok->op->col);
      else
        air_sb_puts(sb, " blocked: the schedule runs it after another op of its wave");
      break;
    case IX_WHY_AFFINITY:
      air_sb_printf(sb, " blocked on affinity %s: the group is held by ",
                    ix_vname(r, k->vid, nb, sizeof nb));
      if (k->tok && k->tok->aff_holder && k->tok->aff_holder->op)
        air_sb_printf(sb, "%s at %s:%u:%u", ix_opname(k->tok->aff_holder->op), r->p->filename,
                      k->tok->aff_holder->op->line, k->tok->aff_holder->op->col);
      else
        air_sb_puts(sb, "another op");
      break;
    default: air_sb_puts(sb, " blocked"); break;
  }
}

void ix_stalled(ix_run_t* r, ix_wake_t* w) {
  /* Strands waiting in order in a chain op issue their later ops first: only a
   * stall that remains after that is a deadlock (chain.h). */
  if (ix_chain_release_locked(r, w)) return;
  /* While ranks span processes a message may still wake this one: only the
   * distributed detection (rank_wire.c) may call it a deadlock. */
  if (ix_wire_defer_locked(r)) return;
  uint32_t n = 0;
  for (ix_waiter_t* s = r->parked; s; s = s->pnext) ++n;
  line_t* lines = air_mem_calloc(&r->alloc, n + 1, sizeof(line_t));
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  uint32_t m = 0;
  /* A strand blocked in an agreement with the peers is not parked. */
  ix_wire_describe(r, &sb);
  if (sb.len && lines) {
    lines[m].text = air_sb_take(&sb, NULL);
    if (lines[m].text) ++m, ++n;
  }
  for (ix_waiter_t* s = r->parked; s && lines; s = s->pnext) {
    describe(r, ix_strand_of(s), &sb);
    lines[m].line = s->park.op ? s->park.op->line : 0;
    lines[m].col = s->park.op ? s->park.op->col : 0;
    lines[m].text = air_sb_take(&sb, NULL);
    if (lines[m].text) ++m;
  }
  if (m) qsort(lines, m, sizeof *lines, line_cmp);
  enum { MAX_LINES = 64 };
  if (ix_wire_verdict(r))
    air_sb_printf(&sb, "deadlock across processes: no operation of any process can make "
                  "progress; in process %u, %u blocked:", r->transport->process, n);
  else
    air_sb_printf(&sb, "deadlock: no operation can make progress; %u blocked:", n);
  uint32_t shown = 0;
  for (uint32_t i = 0; i < m; ++i) {
    uint32_t same = 1;
    while (i + same < m && !strcmp(lines[i].text, lines[i + same].text)) ++same;
    if (shown < MAX_LINES) {
      air_sb_printf(&sb, "\n  %s", lines[i].text);
      if (same > 1) air_sb_printf(&sb, " [x%u]", same);
    }
    ++shown;
    i += same - 1;
  }
  if (shown > MAX_LINES) air_sb_printf(&sb, "\n  ... and %u more", shown - MAX_LINES);
  for (uint32_t i = 0; i < m; ++i) air_mem_free(&r->alloc, lines[i].text);
  air_mem_free(&r->alloc, lines);
  char* text = air_sb_take(&sb, NULL);
  air_status_t st = air_status_make(&r->alloc, AIR_STATUS_ABORTED, __FILE__, __LINE__,
                                    text ? text : "deadlock (out of memory describing it)");
  air_mem_free(&r->alloc, text);
  ix_fail_locked(r, st, w);
}


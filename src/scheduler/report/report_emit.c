/* report_emit.c - `airc report --emit NAME` for a compiled schedule: the name picks
 * one of the reports (the top of the report layer). */
#include <string.h>

#include "npu/txn.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/report/report.h"

/* The NPU instruction stream, decoded (npu/txn.h). */
static air_status_t emit_npu_insts(air_sb_t* sb, const air_schedule_t* sc) {
  const air_allocator_t* a = &sb->allocator;
  if (!sc->npu_insts && sc->npu_error)
    return AIR_STATUS(a, AIR_STATUS_FAILED_PRECONDITION, "@%s has no NPU instruction stream: %s",
                      sc->entry, sc->npu_error);
  if (!sc->npu_insts)
    return AIR_STATUS(a, AIR_STATUS_FAILED_PRECONDITION,
                      "@%s has no NPU instruction stream: target %s is not a Ryzen AI NPU",
                      sc->entry, sc->target);
  air_txn_view_t v;
  AIR_RETURN_IF_ERROR(air_txn_decode(a, sc->npu_insts, sc->n_npu_insts, "npu-insts", &v));
  char* text = NULL;
  size_t len = 0;
  air_status_t s = air_txn_list(a, &v, &text, &len);
  air_txn_view_free(a, &v);
  if (s) return s;
  air_sb_printf(sb, "; @%s on %s: %u words\n", sc->entry, sc->target, sc->n_npu_insts);
  air_sb_append(sb, text, len);
  air_mem_free(a, text);
  return NULL;
}

air_status_t air_report_emit(air_sb_t* sb, const air_program_t* p, const air_schedule_t* schedule,
                             const char* emit) {
  if (!strcmp(emit, "memplan")) return air_report_memplan(sb, p, schedule);
  if (!strcmp(emit, "memplan-svg")) return air_report_memplan_svg(sb, p, schedule);
  if (!strcmp(emit, "schedule")) return air_report_schedule(sb, p, schedule);
  if (!strcmp(emit, "dot")) return air_report_dot(sb, p, schedule);
  if (!strcmp(emit, "npu-insts")) return emit_npu_insts(sb, schedule);
  return AIR_STATUS(&sb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                    "unknown report '%s' (memplan, memplan-svg, schedule, dot, npu-insts)", emit);
}

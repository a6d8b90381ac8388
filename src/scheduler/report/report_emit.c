/* report_emit.c - `airc report --emit NAME` for a compiled schedule: the name picks
 * one of the reports (the top of the report layer). */
#include <string.h>

#include "runtime/base/status_util.h"
#include "scheduler/report/report.h"

air_status_t air_report_emit(air_sb_t* sb, const air_program_t* p, const air_schedule_t* schedule,
                             const char* emit) {
  if (!strcmp(emit, "memplan")) return air_report_memplan(sb, p, schedule);
  if (!strcmp(emit, "memplan-svg")) return air_report_memplan_svg(sb, p, schedule);
  if (!strcmp(emit, "schedule")) return air_report_schedule(sb, p, schedule);
  if (!strcmp(emit, "dot")) return air_report_dot(sb, p, schedule);
  return AIR_STATUS(&sb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                    "unknown report '%s' (memplan, memplan-svg, schedule, dot)", emit);
}

/* report.h - the scheduler's reports for `airc report`: the resource analysis
 * and placement as a text table (--emit resources, report_resources.c), and the
 * compiled schedule's memory plan, waves and token graph (report_memplan.c,
 * report_schedule.c), picked by name in report_emit.c; report_loc.c is the helper
 * they share. Declarations only: the layer's files depend on this header and on
 * report_loc.c, never on each other, except report_emit.c on the reports. */
#ifndef AIR_SCHEDULER_REPORT_REPORT_H_
#define AIR_SCHEDULER_REPORT_REPORT_H_

#include "runtime/base/strbuf.h"
#include "scheduler/place.h"
#include "scheduler/resources.h"
#include "scheduler/schedule.h"

/* Appends the table to sb (check sb->oom afterwards). `pl` may be NULL when
 * placement was not run or failed. */
void air_report_resources(air_sb_t* sb, const air_program_t* p, const air_resources_t* r,
                          const air_placement_t* pl);

/* The compiled schedule's reports (`airc report --emit memplan|memplan-svg|
 * schedule|dot`). Each takes the program the schedule was compiled from (or
 * loaded against: an .airbin's program and schedule work the same way) and
 * appends to sb; errors (a schedule that does not match the program, out of
 * memory) come back as a status.
 *  - memplan: per arena, its size vs lower bound vs capacity, then one row per
 *    buffer: name, op, `file:line:col`, size, offset, lifetime.
 *  - memplan-svg: one SVG picture, a panel per non-empty arena, x = lifetime,
 *    y = offset, one rect per buffer with a <title> naming it.
 *  - schedule: the partition stats, then per queue its waves with their
 *    commands (kind, op, location) and the waits kept after elision.
 *  - dot: the host token graph as Graphviz, clustered per queue, group members
 *    filled. */
air_status_t air_report_memplan(air_sb_t* sb, const air_program_t* p,
                                const air_schedule_t* schedule);
air_status_t air_report_memplan_svg(air_sb_t* sb, const air_program_t* p,
                                    const air_schedule_t* schedule);
air_status_t air_report_schedule(air_sb_t* sb, const air_program_t* p,
                                 const air_schedule_t* schedule);
air_status_t air_report_dot(air_sb_t* sb, const air_program_t* p, const air_schedule_t* schedule);

/* Dispatches on an --emit name (the four above); INVALID_ARGUMENT for another. */
air_status_t air_report_emit(air_sb_t* sb, const air_program_t* p, const air_schedule_t* schedule,
                             const char* emit);

/* `file:line:col` of an op, for tables and labels. */
void air_report_loc(air_sb_t* sb, const air_program_t* p, const air_op_t* op);

#endif /* AIR_SCHEDULER_REPORT_REPORT_H_ */

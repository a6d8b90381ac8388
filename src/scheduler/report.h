/* report.h - the resource analysis and placement as a text table, for
 * `airc report --emit resources`. */
#ifndef AIR_SCHEDULER_REPORT_H_
#define AIR_SCHEDULER_REPORT_H_

#include "runtime/strbuf.h"
#include "scheduler/place.h"
#include "scheduler/resources.h"

/* Appends the table to sb (check sb->oom afterwards). `pl` may be NULL when
 * placement was not run or failed. */
void air_report_resources(air_sb_t* sb, const air_program_t* p, const air_resources_t* r,
                          const air_placement_t* pl);

#endif /* AIR_SCHEDULER_REPORT_H_ */

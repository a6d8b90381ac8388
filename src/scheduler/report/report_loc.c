/* report_loc.c - `file:line:col` of an op, the one helper every report shares (the
 * bottom of the report layer). */
#include "scheduler/report/report.h"

void air_report_loc(air_sb_t* sb, const air_program_t* p, const air_op_t* op) {
  air_sb_printf(sb, "%s:%u:%u", p->filename ? p->filename : "<input>", op->line, op->col);
}

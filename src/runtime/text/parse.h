/* parse.h - AIR text -> IR. */
#ifndef AIR_RUNTIME_TEXT_PARSE_H_
#define AIR_RUNTIME_TEXT_PARSE_H_

#include "runtime/ir/ir.h"

/* Parses one module's text into the (empty) program `p`. `first_line` is the line
 * number of the text's first line (for split inputs). On error returns a status
 * `file:line:col: error: ...`; the program is then in an unspecified state and
 * must only be freed. */
air_status_t air_parse(air_program_t* p, const char* text, size_t len, uint32_t first_line);

#endif /* AIR_RUNTIME_TEXT_PARSE_H_ */

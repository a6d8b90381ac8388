/* parse_linalg.h - linalg operations (parse_linalg.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_LINALG_H_
#define AIR_RUNTIME_TEXT_PARSE_LINALG_H_

#include "runtime/text/parse_parts.h"

/* The parser of op class `cls`, or NULL when it is not in this family. */
air_parse_op_fn air_parse_linalg_fn(air_opcls_t cls);

#endif /* AIR_RUNTIME_TEXT_PARSE_LINALG_H_ */

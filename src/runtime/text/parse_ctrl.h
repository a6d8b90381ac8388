/* parse_ctrl.h - scf and affine operations (parse_ctrl.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_CTRL_H_
#define AIR_RUNTIME_TEXT_PARSE_CTRL_H_

#include "runtime/text/parse_parts.h"

/* The parser of op class `cls`, or NULL when it is not in this family. */
air_parse_op_fn air_parse_ctrl_fn(air_opcls_t cls);

#endif /* AIR_RUNTIME_TEXT_PARSE_CTRL_H_ */

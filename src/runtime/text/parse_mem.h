/* parse_mem.h - memref globals and views beyond the core set, tensors and the
 * bufferization casts between them (parse_mem.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_MEM_H_
#define AIR_RUNTIME_TEXT_PARSE_MEM_H_

#include "runtime/text/parse_parts.h"

/* The parser of op class `cls`, or NULL when it is not in this family. */
air_parse_op_fn air_parse_mem_fn(air_opcls_t cls);

#endif /* AIR_RUNTIME_TEXT_PARSE_MEM_H_ */

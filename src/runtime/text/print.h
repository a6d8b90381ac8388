/* print.h - IR -> AIR text. */
#ifndef AIR_RUNTIME_TEXT_PRINT_H_
#define AIR_RUNTIME_TEXT_PRINT_H_

#include "runtime/ir/ir.h"
#include "runtime/base/strbuf.h"

/* Appends the program's text to `out`. Deterministic: the same IR always prints
 * the same text, and print(parse(print(x))) == print(x). */
air_status_t air_print(const air_program_t* p, uint32_t flags, air_sb_t* out);

#endif /* AIR_RUNTIME_TEXT_PRINT_H_ */

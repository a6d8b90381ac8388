/* print_mem.h - memref views and globals, tensors and bufferization casts as
 * text (print_mem.c). */
#ifndef AIR_RUNTIME_TEXT_PRINT_MEM_H_
#define AIR_RUNTIME_TEXT_PRINT_MEM_H_

#include "runtime/text/print_core.h"

/* Prints `op` (after its result names) when it belongs to this family; false
 * when it does not. */
bool air_print_mem_op(air_printer_t* pr, const air_op_t* op, int level);

#endif /* AIR_RUNTIME_TEXT_PRINT_MEM_H_ */

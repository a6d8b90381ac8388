/* print_ctrl.h - scf, affine and linalg ops as text (print_ctrl.c). */
#ifndef AIR_RUNTIME_TEXT_PRINT_CTRL_H_
#define AIR_RUNTIME_TEXT_PRINT_CTRL_H_

#include "runtime/text/print_core.h"

/* Prints `op` (after its result names) when it belongs to this family; false
 * when it does not. */
bool air_print_ctrl_op(air_printer_t* pr, const air_op_t* op, int level);

#endif /* AIR_RUNTIME_TEXT_PRINT_CTRL_H_ */

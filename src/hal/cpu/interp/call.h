/* call.h - the call op family: func.call of a function with a body (a new frame)
 * or of a registered kernel (air/kernel.h), with the PE's tile as context.
 *
 * Extension point: compiled herd bodies and library kernels are kernels to this
 * family: what a call binds to is decided in call.c's lookup, and everything it
 * passes is in the air_kernel_call_t. */
#ifndef AIR_HAL_CPU_INTERP_CALL_H_
#define AIR_HAL_CPU_INTERP_CALL_H_

#include "hal/cpu/interp/strand.h"

/* Runs a func.call (a step handler: IX_ABANDONED when the watchdog gave up on
 * its kernel). */
int ix_op_call(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

#endif /* AIR_HAL_CPU_INTERP_CALL_H_ */

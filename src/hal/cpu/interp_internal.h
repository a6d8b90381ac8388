/* interp_internal.h - what interp_plan.c needs of the executor (the plan's
 * layout) until it moves into interp/ beside the floors it feeds. */
#ifndef AIR_HAL_CPU_INTERP_INTERNAL_H_
#define AIR_HAL_CPU_INTERP_INTERNAL_H_

#include "hal/cpu/interp/plan.h"

#endif /* AIR_HAL_CPU_INTERP_INTERNAL_H_ */

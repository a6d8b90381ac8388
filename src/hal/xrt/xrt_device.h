/* xrt_device.h - the NPU driver's entry in the driver table (drivers.c): opens
 * `xrt` / `xrt:N` through XRT loaded with dlopen, after the probe of xrt_api.h.
 * Answers UNAVAILABLE when XRT, the NPU or a usable XRT setup is absent. */
#ifndef AIR_HAL_XRT_XRT_DEVICE_H_
#define AIR_HAL_XRT_XRT_DEVICE_H_

#include "hal/driver.h"

air_status_t air_xrt_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device);

#endif /* AIR_HAL_XRT_XRT_DEVICE_H_ */

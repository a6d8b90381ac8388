/* hsa_device.h - the `hsa:N` device: AMD GPU agent N of the HSA runtime, which is
 * loaded with dlopen when the device is opened. */
#ifndef AIR_HAL_HSA_HSA_DEVICE_H_
#define AIR_HAL_HSA_HSA_DEVICE_H_

#include "air/context.h"
#include "air/device.h"
#include "air/status.h"

/* The driver-table entry: `params` is N (NULL = 0). UNAVAILABLE, naming HSA and
 * the GPU, when the runtime or the GPU is absent. */
air_status_t air_hsa_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device);

#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_api.h"
/* Opens GPU `index` through a function table the caller filled (the tests' software
 * HSA runtime); the table must outlive the device. */
air_status_t air_hsa_device_open_with(air_context_t* context, const air_hsa_api_t* api,
                                      uint32_t index, const char* uri, air_device_t** out_device);
#endif

#endif /* AIR_HAL_HSA_HSA_DEVICE_H_ */

/* hsa_device.c - opening `hsa:N` (hsa_device.h): parse N, load the HSA runtime,
 * initialise it and find GPU agent N (hsa_system.c). */
#include "hal/hsa/hsa_device.h"

#include <string.h>

#include "hal/driver.h"
#include "runtime/base/status_util.h"

#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_api.h"
#include "hal/hsa/hsa_system.h"
#endif

air_status_t air_hsa_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device) {
  const air_allocator_t* a = air_context_allocator(context);
  uint32_t index = 0;
  if (params && !air_parse_u32(params, strlen(params), 0, 1023, &index))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected hsa or hsa:N with N a GPU index",
                      uri);
#ifndef AIR_HAVE_HSA
  (void)out_device;
  return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                    "device '%s': this libairrt was built without the HSA headers "
                    "(libhsa-runtime-dev), so it has no AMD GPU driver", uri);
#else
  air_hsa_api_t api;
  AIR_RETURN_IF_ERROR(air_hsa_api_load(a, NULL, &api));
  air_hsa_system_t sys;
  air_status_t s = air_hsa_system_open(a, &api, index, uri, &sys);
  if (!s) {
    s = AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED,
                   "device '%s': found AMD GPU %s (%u compute units), but this build cannot "
                   "run work on it yet", uri, sys.gpu_name, sys.compute_units);
    air_hsa_system_close(&sys);
  }
  air_hsa_api_unload(&api);
  (void)out_device;
  return s;
#endif
}

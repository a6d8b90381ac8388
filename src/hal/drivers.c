/* drivers.c - the driver table and opening a device by URI. The only file that
 * names drivers: a new driver adds its header and one row to k_drivers (see
 * docs/hal.md, "Adding a driver").
 *
 * A URI is `driver` or `driver:params`. A driver whose hardware or library is
 * absent answers UNAVAILABLE at open; a driver this build left out (hsa without the
 * HSA headers) answers "not built". */
#include <stdio.h>
#include <string.h>

#include "hal/cpu/cpu_device.h"
#include "hal/driver.h"
#include "hal/hsa/hsa_device.h"
#include "hal/xrt/xrt_device.h"
#include "runtime/base/status_util.h"

static const air_driver_t k_drivers[] = {
    {"cpu", "cpu, cpu:threads=N", air_cpu_device_open},
    {"hsa", "hsa:N", air_hsa_device_open},
    {"xrt", "xrt:N", air_xrt_device_open},
};

const air_driver_t* air_drivers(uint32_t* out_count) {
  *out_count = (uint32_t)(sizeof k_drivers / sizeof k_drivers[0]);
  return k_drivers;
}

uint32_t air_device_driver_count(void) {
  return (uint32_t)(sizeof k_drivers / sizeof k_drivers[0]);
}

air_status_t air_device_driver_info(uint32_t index, air_driver_info_t* out_info) {
  if (!out_info || index >= air_device_driver_count())
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_device_driver_info: %s (there are %u drivers)",
                      out_info ? "index out of range" : "NULL argument",
                      air_device_driver_count());
  const air_driver_t* d = &k_drivers[index];
  out_info->name = d->name;
  out_info->forms = d->forms;
  out_info->built = 1;
#ifndef AIR_HAVE_HSA
  /* Without the HSA headers the hsa row only says "not built". */
  if (d->open == air_hsa_device_open) out_info->built = 0;
#endif
  return NULL;
}

/* "a, b, c" from one string field of every driver. */
static void list_drivers(char* out, size_t cap, bool forms) {
  size_t at = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof k_drivers / sizeof k_drivers[0] && at < cap; ++i) {
    int n = snprintf(out + at, cap - at, "%s%s", i ? ", " : "",
                     forms ? k_drivers[i].forms : k_drivers[i].name);
    if (n < 0) break;
    at += (size_t)n;
  }
}

air_status_t air_device_open(air_context_t* context, const char* uri,
                             air_device_t** out_device) {
  if (!context || !out_device)
    return AIR_STATUS(air_context_allocator(context), AIR_STATUS_INVALID_ARGUMENT,
                      "air_device_open: NULL argument");
  *out_device = NULL;
  const air_allocator_t* a = air_context_allocator(context);
  if (!uri) uri = k_drivers[0].name;
  const char* colon = strchr(uri, ':');
  size_t name_len = colon ? (size_t)(colon - uri) : strlen(uri);
  char known[256];
  if (name_len == 0 || (colon && colon[1] == '\0')) {
    list_drivers(known, sizeof known, true);
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected driver or driver:params (%s)", uri,
                      known);
  }
  for (size_t i = 0; i < sizeof k_drivers / sizeof k_drivers[0]; ++i) {
    if (strlen(k_drivers[i].name) == name_len && memcmp(k_drivers[i].name, uri, name_len) == 0)
      return k_drivers[i].open(context, colon ? colon + 1 : NULL, uri, out_device);
  }
  list_drivers(known, sizeof known, false);
  return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                    "unknown device driver '%.*s' in URI '%s' (known: %s)", (int)name_len, uri,
                    uri, known);
}

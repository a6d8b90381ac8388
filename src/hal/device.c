/* device.c - opening devices by URI, and the device calls every driver shares.
 *
 * A URI is `driver` or `driver:params`. The driver table is const so that adding
 * the xrt driver is one line; until then it answers UNAVAILABLE,
 * which is what a machine without the hardware will answer too, so callers already
 * handle it. */
#include <string.h>

#include "hal/cpu/cpu_device.h"
#include "hal/driver.h"
#include "hal/hsa/hsa_device.h"
#include "runtime/base/status_util.h"

static air_status_t open_unbuilt(air_context_t* context, const char* params,
                                 const char* uri, air_device_t** out_device);

static const struct {
  const char* name;
  air_driver_open_fn_t open;
} k_drivers[] = {
    {"cpu", air_cpu_device_open},
    {"hsa", air_hsa_device_open},
    {"xrt", open_unbuilt},
};

bool air_parse_u32(const char* s, size_t len, uint32_t lo, uint32_t hi, uint32_t* out) {
  if (len == 0 || len > 10) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v < lo || v > hi) return false;
  *out = (uint32_t)v;
  return true;
}

/* `xrt:N` is checked for shape, so a typo is INVALID_ARGUMENT on
 * every build, and then refused because the driver is not compiled in. */
static air_status_t open_unbuilt(air_context_t* context, const char* params,
                                 const char* uri, air_device_t** out_device) {
  (void)out_device;
  const air_allocator_t* a = air_context_allocator(context);
  uint32_t index;
  if (params && !air_parse_u32(params, strlen(params), 0, 1023, &index))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected %.3s or %.3s:N with N a device "
                      "index", uri, uri, uri);
  return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                    "device '%s': driver not built into this libairrt (xrt support arrives "
                    "with the NPU driver)", uri);
}

air_status_t air_device_open(air_context_t* context, const char* uri,
                             air_device_t** out_device) {
  if (!context || !out_device)
    return AIR_STATUS(air_context_allocator(context), AIR_STATUS_INVALID_ARGUMENT,
                      "air_device_open: NULL argument");
  *out_device = NULL;
  const air_allocator_t* a = air_context_allocator(context);
  if (!uri) uri = "cpu";
  const char* colon = strchr(uri, ':');
  size_t name_len = colon ? (size_t)(colon - uri) : strlen(uri);
  if (name_len == 0 || (colon && colon[1] == '\0'))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected driver or driver:params "
                      "(cpu, cpu:threads=N, hsa:N, xrt:N)", uri);
  for (size_t i = 0; i < sizeof(k_drivers) / sizeof(k_drivers[0]); ++i) {
    if (strlen(k_drivers[i].name) == name_len && memcmp(k_drivers[i].name, uri, name_len) == 0)
      return k_drivers[i].open(context, colon ? colon + 1 : NULL, uri, out_device);
  }
  return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                    "unknown device driver '%.*s' in URI '%s' (known: cpu, hsa, xrt)",
                    (int)name_len, uri, uri);
}

void air_device_retain(air_device_t* device) {
  if (device) air_resource_retain(&device->resource);
}

void air_device_release(air_device_t* device) {
  if (device) air_resource_release(&device->resource);
}

air_status_t air_device_query(const air_device_t* device, air_device_info_t* out_info) {
  if (!device || !out_info)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_device_query: NULL argument");
  *out_info = device->info;
  return NULL;
}

static air_status_t check_list(const air_device_t* d, const air_timepoint_list_t* list,
                               const char* what) {
  if (!list || list->count == 0) return NULL;
  if (!list->semaphores || !list->values)
    return AIR_STATUS(&d->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_device_queue_execute: %s list has %u timepoints but NULL arrays",
                      what, list->count);
  for (uint32_t i = 0; i < list->count; ++i)
    if (!list->semaphores[i])
      return AIR_STATUS(&d->allocator, AIR_STATUS_INVALID_ARGUMENT,
                        "air_device_queue_execute: %s semaphore %u is NULL", what, i);
  return NULL;
}

air_status_t air_device_queue_execute(air_device_t* device, uint32_t queue,
                                      const air_timepoint_list_t* wait,
                                      air_command_buffer_t* command_buffer,
                                      const air_timepoint_list_t* signal) {
  if (!device)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_device_queue_execute: NULL device");
  const air_allocator_t* a = &device->allocator;
  if (queue >= device->info.queue_count)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_device_queue_execute: queue %u out of range (device %s has %u)",
                      queue, device->info.name, device->info.queue_count);
  AIR_RETURN_IF_ERROR(check_list(device, wait, "wait"));
  AIR_RETURN_IF_ERROR(check_list(device, signal, "signal"));
  if (command_buffer) {
    if (command_buffer->device != device)
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "air_device_queue_execute: command buffer belongs to another device");
    if (!command_buffer->ended)
      return AIR_STATUS(a, AIR_STATUS_FAILED_PRECONDITION,
                        "air_device_queue_execute: command buffer is still recording "
                        "(call air_command_buffer_end first)");
  }
  return AIR_DEVICE_VTABLE(device)->queue_execute(device, queue, wait, command_buffer, signal);
}

/* device.c - the device calls every driver shares: query, retain/release, and
 * queue_execute's argument checks before the driver's vtable. Opening a device by
 * URI is drivers.c, the one file that names drivers. */
#include <string.h>

#include "hal/driver.h"
#include "runtime/base/status_util.h"

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

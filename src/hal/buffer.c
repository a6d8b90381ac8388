/* buffer.c - the buffer calls every driver shares: argument and range checks in
 * front of the driver's allocate / import / map. */
#include "hal/driver.h"
#include "runtime/base/status_util.h"

void air_buffer_init(air_buffer_t* b, const air_buffer_vtable_t* vtable, air_device_t* device,
                     uint64_t size, void* host_ptr, bool imported) {
  air_resource_init(&b->resource, vtable);
  b->device = device;
  b->allocator = device->allocator;
  b->size = size;
  b->host_ptr = host_ptr;
  b->imported = imported;
  b->device_ptr = NULL;
}

air_status_t air_buffer_allocate(air_device_t* device, uint64_t size, uint32_t flags,
                                 air_buffer_t** out_buffer) {
  if (!device || !out_buffer)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_buffer_allocate: NULL argument");
  *out_buffer = NULL;
  if (flags)
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_buffer_allocate: unknown flags 0x%x", flags);
  return AIR_DEVICE_VTABLE(device)->buffer_allocate(device, size, flags, out_buffer);
}

air_status_t air_buffer_import(air_device_t* device, void* host_ptr, uint64_t size,
                               uint32_t flags, air_buffer_t** out_buffer) {
  if (!device || !out_buffer || (!host_ptr && size))
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_buffer_import: NULL argument");
  *out_buffer = NULL;
  if (flags)
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_buffer_import: unknown flags 0x%x", flags);
  if ((uintptr_t)host_ptr > UINTPTR_MAX - size)
    return AIR_STATUS(&device->allocator, AIR_STATUS_OUT_OF_RANGE,
                      "air_buffer_import: %llu bytes at %p wrap the address space",
                      (unsigned long long)size, host_ptr);
  return AIR_DEVICE_VTABLE(device)->buffer_import(device, host_ptr, size, flags, out_buffer);
}

void air_buffer_retain(air_buffer_t* buffer) {
  if (buffer) air_resource_retain(&buffer->resource);
}

void air_buffer_release(air_buffer_t* buffer) {
  if (buffer) air_resource_release(&buffer->resource);
}

uint64_t air_buffer_size(const air_buffer_t* buffer) { return buffer ? buffer->size : 0; }

air_status_t air_buffer_map(air_buffer_t* buffer, uint64_t offset, uint64_t length,
                            uint32_t access, void** out_ptr) {
  if (!buffer || !out_ptr)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_buffer_map: NULL argument");
  *out_ptr = NULL;
  if (access == 0 || (access & ~(uint32_t)(AIR_MAP_READ | AIR_MAP_WRITE)))
    return AIR_STATUS(&buffer->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_buffer_map: access 0x%x is not READ and/or WRITE", access);
  if (offset > buffer->size || length > buffer->size - offset)
    return AIR_STATUS(&buffer->allocator, AIR_STATUS_OUT_OF_RANGE,
                      "air_buffer_map: [%llu, +%llu) is outside the %llu-byte buffer",
                      (unsigned long long)offset, (unsigned long long)length,
                      (unsigned long long)buffer->size);
  const air_buffer_vtable_t* vt = (const air_buffer_vtable_t*)buffer->resource.vtable;
  if (!vt->map) {
    *out_ptr = buffer->host_ptr ? (char*)buffer->host_ptr + offset : NULL;
    return NULL;
  }
  return vt->map(buffer, offset, length, access, out_ptr);
}

void air_buffer_unmap(air_buffer_t* buffer, void* ptr) {
  if (!buffer || !ptr) return;
  const air_buffer_vtable_t* vt = (const air_buffer_vtable_t*)buffer->resource.vtable;
  if (vt->unmap) vt->unmap(buffer, ptr);
}

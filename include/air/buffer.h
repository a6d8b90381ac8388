/* air/buffer.h - device memory that programs read and write.
 *
 * A buffer is allocated on a device, or imports host memory the caller keeps
 * owning (zero copy where the device can address it). The host reaches its bytes by
 * mapping it. Buffers are reference counted; commands that use a buffer keep it
 * alive until they complete. Thread-safe, but the bytes themselves are not
 * synchronised: order host access against device work with timepoints.
 */
#ifndef AIR_BUFFER_H_
#define AIR_BUFFER_H_

#include "air/config.h"

#include <stdint.h>

#include "air/device.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_buffer_t air_buffer_t;

/* Allocates `size` bytes (64-byte aligned, zero-filled). `flags` is reserved and
 * must be 0 (anything else is INVALID_ARGUMENT). */
AIR_API air_status_t air_buffer_allocate(air_device_t* device, uint64_t size, uint32_t flags,
                                         air_buffer_t** out_buffer);

/* Wraps `size` bytes at `host_ptr`; the memory must stay valid until the buffer is
 * released and every command using it has completed. `flags` is reserved and must
 * be 0. */
AIR_API air_status_t air_buffer_import(air_device_t* device, void* host_ptr, uint64_t size,
                                       uint32_t flags, air_buffer_t** out_buffer);

AIR_API void air_buffer_retain(air_buffer_t* buffer);
AIR_API void air_buffer_release(air_buffer_t* buffer);
AIR_API uint64_t air_buffer_size(const air_buffer_t* buffer);

/* Access intent for air_buffer_map. */
enum { AIR_MAP_READ = 1u << 0, AIR_MAP_WRITE = 1u << 1 };

/* Maps [offset, offset + length) for host access; OUT_OF_RANGE past the end.
 * `access` is AIR_MAP_READ, AIR_MAP_WRITE or both. */
AIR_API air_status_t air_buffer_map(air_buffer_t* buffer, uint64_t offset, uint64_t length,
                                    uint32_t access, void** out_ptr);
/* Ends a mapping (writes become visible to the device). */
AIR_API void air_buffer_unmap(air_buffer_t* buffer, void* ptr);

#ifdef __cplusplus
}
#endif
#endif /* AIR_BUFFER_H_ */

/* air/device.h - devices and their queues.
 *
 * A device is opened by URI: "cpu" (the default: every machine has it),
 * "cpu:threads=N", "hsa:N" (AMD GPU), "xrt:N" (AMD NPU). A device whose driver or
 * hardware is absent fails to open with UNAVAILABLE and a message saying why; it
 * never aborts the process.
 *
 * Work reaches a device through queue submissions: wait for a list of timepoints,
 * execute a command buffer, signal a list of timepoints. Submission order alone
 * promises nothing; only timepoints order work. A failed command buffer fails every
 * semaphore it would have signalled, with its status. Devices are reference
 * counted; every call here is thread-safe.
 */
#ifndef AIR_DEVICE_H_
#define AIR_DEVICE_H_

#include "air/config.h"

#include <stdint.h>

#include "air/context.h"
#include "air/semaphore.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_device_t air_device_t;
typedef struct air_command_buffer_t air_command_buffer_t;

/* Opens a device. The context must outlive it. */
AIR_API air_status_t air_device_open(air_context_t* context, const char* uri,
                                     air_device_t** out_device);
AIR_API void air_device_retain(air_device_t* device);
AIR_API void air_device_release(air_device_t* device);

/* What a device is. Strings live as long as the device. */
typedef struct air_device_info_t {
  const char* driver;      /* "cpu", "hsa", "xrt" */
  const char* name;        /* human-readable */
  uint32_t workers;        /* cpu: worker threads; gpu: compute units; npu: columns */
  uint32_t queue_count;    /* queues usable in air_device_queue_execute */
  const char* target;      /* the target executables are compiled for (`airc targets`,
                              e.g. "gfx90a" for an hsa device), or NULL when the driver
                              does not name one */
} air_device_info_t;

AIR_API air_status_t air_device_query(const air_device_t* device, air_device_info_t* out_info);

/* One driver this libairrt knows, for listing what `air_device_open` takes. */
typedef struct air_driver_info_t {
  const char* name;  /* "cpu", "hsa", "xrt": what a URI starts with */
  const char* forms; /* the URI forms it opens, e.g. "cpu, cpu:threads=N" */
  uint32_t built;    /* 1 when compiled into this build; a built driver still
                        answers UNAVAILABLE when its hardware or runtime is absent */
} air_driver_info_t;

/* The number of drivers, built or not (drivers not built answer UNAVAILABLE). */
AIR_API uint32_t air_device_driver_count(void);
/* Describes driver `index` (< air_device_driver_count(); INVALID_ARGUMENT past it).
 * Its strings are static. */
AIR_API air_status_t air_device_driver_info(uint32_t index, air_driver_info_t* out_info);

/* Submits `command_buffer` to queue `queue`: it starts once every timepoint of
 * `wait` is reached, and when it completes every timepoint of `signal` is signalled.
 * If a wait fails or the work fails, the signal semaphores fail with that status.
 * `wait` and `signal` may be NULL (empty). `command_buffer` may be NULL: a pure
 * barrier from the waits to the signals. Returns at once; errors here are about the
 * submission itself (bad arguments), not the work. (The cpu device may run a
 * command buffer whose last execution was shorter than waking its workers, at most
 * 1 ms, on the calling thread before returning; its kernels then run there too.
 * One whose herds' PEs the workers can share (compiled, channel-free launches) it
 * runs on the calling thread with the workers' help, up to 10 ms.) */
AIR_API air_status_t air_device_queue_execute(air_device_t* device, uint32_t queue,
                                              const air_timepoint_list_t* wait,
                                              air_command_buffer_t* command_buffer,
                                              const air_timepoint_list_t* signal);

#ifdef __cplusplus
}
#endif
#endif /* AIR_DEVICE_H_ */

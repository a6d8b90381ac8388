/* air/executable.h - a program prepared for one device.
 *
 * An executable is what a device runs: on the CPU, the verified program ready to
 * interpret; on a GPU or NPU, its code objects or instruction streams. Creating one
 * verifies the program for the device's target. The program must outlive the
 * executable. Reference counted; thread-safe.
 */
#ifndef AIR_EXECUTABLE_H_
#define AIR_EXECUTABLE_H_

#include "air/config.h"

#include <stdint.h>

#include "air/device.h"
#include "air/kernel.h"
#include "air/program.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_executable_t air_executable_t;

AIR_API air_status_t air_executable_create(air_device_t* device, const air_program_t* program,
                                           uint32_t flags, air_executable_t** out_executable);
AIR_API void air_executable_retain(air_executable_t* executable);
AIR_API void air_executable_release(air_executable_t* executable);

/* Finds an entry function (a func.func with a body) by name; NULL `name` picks the
 * only one, or fails when there are several. */
AIR_API air_status_t air_executable_lookup(const air_executable_t* executable, const char* name,
                                           uint32_t* out_ordinal);

/* Describes entry `ordinal`'s parameters, so a caller can size buffers: `out_count`
 * receives the number of parameters; for each i < capacity, `out_args[i]` gets
 * kind, elem, and for memrefs rank/sizes (data NULL). */
AIR_API air_status_t air_executable_signature(const air_executable_t* executable,
                                              uint32_t ordinal, uint32_t capacity,
                                              air_arg_t* out_args, uint32_t* out_count);

#ifdef __cplusplus
}
#endif
#endif /* AIR_EXECUTABLE_H_ */

/* air/status.h - status values returned by every fallible libairrt call.
 *
 * A status is a pointer-sized handle. NULL (AIR_STATUS_OK) is success and costs
 * nothing; a failure owns a heap record holding a code, a message with context
 * (for program errors the message starts with `file:line:col: error:`), and the
 * C source location that created it. Whoever receives a failed status owns it
 * and must pass it on or release it with air_status_free().
 */
#ifndef AIR_STATUS_H_
#define AIR_STATUS_H_

#include "air/config.h"

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes; the numbering follows the canonical gRPC/absl codes. */
typedef enum air_status_code_e {
  AIR_STATUS_OK = 0,
  AIR_STATUS_CANCELLED = 1,
  AIR_STATUS_UNKNOWN = 2,
  AIR_STATUS_INVALID_ARGUMENT = 3,   /* bad input: malformed program, bad flag */
  AIR_STATUS_DEADLINE_EXCEEDED = 4,  /* a timeout or watchdog fired */
  AIR_STATUS_NOT_FOUND = 5,          /* missing file, symbol, kernel, device */
  AIR_STATUS_ALREADY_EXISTS = 6,
  AIR_STATUS_PERMISSION_DENIED = 7,
  AIR_STATUS_RESOURCE_EXHAUSTED = 8, /* out of memory, program does not fit */
  AIR_STATUS_FAILED_PRECONDITION = 9,/* a program that breaks a rule of the spec */
  AIR_STATUS_ABORTED = 10,           /* deadlock detected */
  AIR_STATUS_OUT_OF_RANGE = 11,
  AIR_STATUS_UNIMPLEMENTED = 12,     /* supported by the model, not by this build */
  AIR_STATUS_INTERNAL = 13,
  AIR_STATUS_UNAVAILABLE = 14,       /* device absent or busy */
  AIR_STATUS_DATA_LOSS = 15,         /* corrupt file */
} air_status_code_t;

typedef struct air_status_record_t* air_status_t;

#define AIR_STATUS_OK_VALUE ((air_status_t)0)

/* Creates a failed status. `allocator` may be NULL for the system allocator;
 * `source_file`/`source_line` name the C code that made it (use AIR_STATUS_MAKE).
 * Never returns NULL for a non-OK code: when memory is short it returns a static
 * record whose message says so (air_status_free ignores it). */
AIR_API air_status_t air_status_make(const air_allocator_t* allocator, air_status_code_t code,
                             const char* source_file, uint32_t source_line,
                             const char* message);

/* The code of a status; AIR_STATUS_OK for NULL. */
AIR_API air_status_code_t air_status_code(air_status_t status);

/* The message; "" for NULL. Valid until the status is freed. */
AIR_API const char* air_status_message(air_status_t status);

/* The canonical name of a code, e.g. "INVALID_ARGUMENT". */
AIR_API const char* air_status_code_name(air_status_code_t code);

/* The C source location that created the status (file NULL for OK). */
AIR_API void air_status_source(air_status_t status, const char** out_file, uint32_t* out_line);

/* A copy of `status` (NULL for NULL), so one failure can reach many owners, e.g.
 * every waiter of a failed timepoint. Never returns NULL for a failed status. */
AIR_API air_status_t air_status_clone(air_status_t status);

/* Releases a status. NULL is accepted. */
AIR_API void air_status_free(air_status_t status);

#ifdef __cplusplus
}
#endif
#endif /* AIR_STATUS_H_ */

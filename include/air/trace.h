/* air/trace.h - execution traces a person can look at.
 *
 * Attach a trace to dispatches (air_dispatch_options_t.trace); the driver records
 * one event per op execution on a track per processing element, DMA engine and
 * channel. Write it as Chrome trace-event JSON and open it in Perfetto or
 * chrome://tracing to see what overlapped. Recording is thread-safe.
 */
#ifndef AIR_TRACE_H_
#define AIR_TRACE_H_

#include "air/config.h"

#include <stddef.h>
#include <stdint.h>

#include "air/context.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_trace_t air_trace_t;

AIR_API air_status_t air_trace_create(air_context_t* context, air_trace_t** out_trace);
AIR_API void air_trace_destroy(air_trace_t* trace);
/* Number of events recorded so far. */
AIR_API size_t air_trace_event_count(const air_trace_t* trace);
/* Writes Chrome trace-event JSON to `path`. */
AIR_API air_status_t air_trace_write_json(const air_trace_t* trace, const char* path);

#ifdef __cplusplus
}
#endif
#endif /* AIR_TRACE_H_ */

/* trace.c - placeholder until trace recording lands. */
#include "hal/trace_impl.h"

#include "runtime/context_impl.h"
#include "runtime/status_util.h"

air_status_t air_trace_create(air_context_t* context, air_trace_t** out_trace) {
  (void)out_trace;
  return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_UNIMPLEMENTED,
                    "traces not built yet");
}
void air_trace_destroy(air_trace_t* trace) { (void)trace; }
size_t air_trace_event_count(const air_trace_t* trace) { (void)trace; return 0; }
air_status_t air_trace_write_json(const air_trace_t* trace, const char* path) {
  (void)trace;
  (void)path;
  return AIR_STATUS(NULL, AIR_STATUS_UNIMPLEMENTED, "traces not built yet");
}
void air_trace_record(air_trace_t* trace, air_track_kind_t kind, const char* track,
                      const char* name, int64_t t0_ns, int64_t t1_ns) {
  (void)trace; (void)kind; (void)track; (void)name; (void)t0_ns; (void)t1_ns;
}

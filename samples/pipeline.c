/* pipeline - y = 2 * x + 1 through two segments connected by channels.
 *
 *   pipeline [pipeline.mlir] [DEVICE_URI] [TRACE.json]
 *
 * pipeline.mlir streams x in blocks through segment @scale (doubles) and segment
 * @offset (adds one), joined by a depth-2 channel so the two stages overlap. This
 * sample runs it and also records a trace; given a path (the third argument, or
 * $AIR_TRACE) it writes the trace there as JSON, which shows the two segments' PEs
 * and the channels on separate tracks in Perfetto. Without one no file is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air/buffer.h"
#include "air/command_buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air/semaphore.h"
#include "air/trace.h"

#ifndef AIR_SAMPLES_DIR
#define AIR_SAMPLES_DIR "samples"
#endif

enum { N = 4096 };

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : AIR_SAMPLES_DIR "/pipeline.mlir";
  const char* uri = argc > 2 ? argv[2] : "cpu";
  const char* trace_path = argc > 3 ? argv[3] : getenv("AIR_TRACE");
  float* x = aligned_alloc(64, N * sizeof(float));
  float* y = aligned_alloc(64, N * sizeof(float));
  if (!x || !y) return 1;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)(i % 97) - 48.0f;
    y[i] = 0.0f;
  }

  air_context_t* context = NULL;
  air_program_t* program = NULL;
  air_device_t* device = NULL;
  air_executable_t* exe = NULL;
  air_buffer_t* bx = NULL;
  air_buffer_t* by = NULL;
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* done = NULL;
  air_trace_t* trace = NULL;
  uint32_t entry = 0;
  air_status_t s = air_context_create(NULL, NULL, &context);
  if (!s) s = air_program_parse_file(context, path, NULL, &program);
  if (!s) s = air_device_open(context, uri, &device);
  if (!s) s = air_executable_create(device, program, 0, &exe);
  if (!s) s = air_executable_lookup(exe, "scale_offset", &entry);
  if (!s) s = air_buffer_import(device, x, N * sizeof(float), 0, &bx);
  if (!s) s = air_buffer_import(device, y, N * sizeof(float), 0, &by);
  if (!s) s = air_trace_create(context, &trace);
  if (!s) s = air_command_buffer_create(device, 0, &cb);
  if (!s) {
    air_binding_t bindings[2];
    memset(bindings, 0, sizeof bindings);
    bindings[0].buffer = bx;
    bindings[1].buffer = by;
    air_dispatch_options_t options;
    memset(&options, 0, sizeof options);
    options.trace = trace;
    options.watchdog_ns = 10ll * 1000 * 1000 * 1000;
    s = air_command_buffer_dispatch(cb, exe, entry, 2, bindings, &options);
  }
  if (!s) s = air_command_buffer_end(cb);
  if (!s) s = air_semaphore_create(context, 0, &done);
  if (!s) {
    uint64_t one = 1;
    air_timepoint_list_t signal = {1, &done, &one};
    s = air_device_queue_execute(device, 0, NULL, cb, &signal);
    if (!s) s = air_semaphore_wait(done, 1, 30ll * 1000 * 1000 * 1000);
  }
  if (!s && trace_path) s = air_trace_write_json(trace, trace_path);

  int rc = 0;
  if (s) {
    fprintf(stderr, "pipeline: %s\n", air_status_message(s));
    air_status_free(s);
    rc = 1;
  } else {
    int bad = 0;
    for (int i = 0; i < N; ++i)
      if (y[i] != 2.0f * x[i] + 1.0f && bad++ < 5)
        fprintf(stderr, "pipeline: y[%d] = %g, expected %g\n", i, y[i], 2.0f * x[i] + 1.0f);
    printf("pipeline: %d elements through 2 segments on %s: %s (%zu trace events%s%s)\n", N,
           uri, bad ? "FAIL" : "PASS", air_trace_event_count(trace), trace_path ? " in " : "",
           trace_path ? trace_path : "");
    rc = bad ? 1 : 0;
  }
  air_semaphore_release(done);
  air_command_buffer_release(cb);
  air_buffer_release(bx);
  air_buffer_release(by);
  air_executable_release(exe);
  air_device_release(device);
  air_trace_destroy(trace);
  air_program_destroy(program);
  air_context_destroy(context);
  free(x), free(y);
  return rc;
}

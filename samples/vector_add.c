/* vector_add - c = a + b on 4096 floats: the smallest complete libairrt program.
 *
 *   vector_add [vector_add.mlir] [DEVICE_URI]
 *
 * Parses the AIR program, opens a device, imports three host arrays as buffers,
 * dispatches the entry function, waits and checks every element. Each step
 * returns a status: NULL is success, anything else is ours to print and free.
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

#ifndef AIR_SAMPLES_DIR
#define AIR_SAMPLES_DIR "samples"
#endif

enum { N = 4096 };

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : AIR_SAMPLES_DIR "/vector_add.mlir";
  const char* uri = argc > 2 ? argv[2] : "cpu";
  /* Buffers import host memory in place; 64-byte alignment suits every device. */
  float* a = aligned_alloc(64, N * sizeof(float));
  float* b = aligned_alloc(64, N * sizeof(float));
  float* c = aligned_alloc(64, N * sizeof(float));
  if (!a || !b || !c) return 1;
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)(N - i);
    c[i] = -1.0f;
  }

  air_context_t* context = NULL;
  air_program_t* program = NULL;
  air_device_t* device = NULL;
  air_executable_t* exe = NULL;
  air_buffer_t* buffers[3] = {NULL, NULL, NULL};
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* done = NULL;
  uint32_t entry = 0;
  air_status_t s = air_context_create(NULL, NULL, &context);
  if (!s) s = air_program_parse_file(context, path, NULL, &program);
  if (!s) s = air_device_open(context, uri, &device);
  if (!s) s = air_executable_create(device, program, 0, &exe); /* verifies for the device */
  if (!s) s = air_executable_lookup(exe, "vector_add", &entry);
  void* host[3] = {a, b, c};
  for (int i = 0; i < 3 && !s; ++i)
    s = air_buffer_import(device, host[i], N * sizeof(float), 0, &buffers[i]);
  if (!s) s = air_command_buffer_create(device, 0, &cb);
  if (!s) {
    air_binding_t bindings[3];
    memset(bindings, 0, sizeof bindings);
    for (int i = 0; i < 3; ++i) bindings[i].buffer = buffers[i];
    s = air_command_buffer_dispatch(cb, exe, entry, 3, bindings, NULL);
  }
  if (!s) s = air_command_buffer_end(cb);
  if (!s) s = air_semaphore_create(context, 0, &done);
  if (!s) {
    /* Submission returns at once; the semaphore reaches 1 when the work is done,
     * or fails with the run's error. */
    uint64_t one = 1;
    air_timepoint_list_t signal = {1, &done, &one};
    s = air_device_queue_execute(device, 0, NULL, cb, &signal);
    if (!s) s = air_semaphore_wait(done, 1, 30ll * 1000 * 1000 * 1000);
  }

  int rc = 0;
  if (s) {
    fprintf(stderr, "vector_add: %s\n", air_status_message(s));
    air_status_free(s);
    rc = 1;
  } else {
    int bad = 0;
    for (int i = 0; i < N; ++i)
      if (c[i] != a[i] + b[i] && bad++ < 5)
        fprintf(stderr, "vector_add: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    printf("vector_add: %d elements on %s: %s\n", N, uri, bad ? "FAIL" : "PASS");
    rc = bad ? 1 : 0;
  }
  /* Release in any order after the work is done; every call accepts NULL. */
  air_semaphore_release(done);
  air_command_buffer_release(cb);
  for (int i = 0; i < 3; ++i) air_buffer_release(buffers[i]);
  air_executable_release(exe);
  air_device_release(device);
  air_program_destroy(program);
  air_context_destroy(context);
  free(a), free(b), free(c);
  return rc;
}

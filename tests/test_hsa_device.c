/* test_hsa_device.c - the hsa device (src/hal/hsa/hsa_device.c, hsa_submit.c)
 * through the public API, on the software HSA runtime: buffers in the GPU's pool
 * reached by staging copies, command buffers of fills and copies, timepoints waited
 * and signalled through the AQL queue, failures reaching every waiter, and the clear
 * refusal of entry dispatches while no herd kernels exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "hal/driver.h"
#include "hal/hsa/hsa_device.h"
#include "hal/hsa/hsa_device_impl.h"
#include "soft_hsa.h"

typedef struct fixture_t {
  soft_hsa_t* soft;
  air_hsa_api_t api;
  air_context_t* ctx;
  air_device_t* dev;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof *f);
  soft_hsa_options_t o = {.gpu_name = "gfx942"};
  f->soft = soft_hsa_create(&o, &f->api);
  if (!f->soft || air_context_create(NULL, NULL, &f->ctx)) return -1;
  air_status_t s = air_hsa_device_open_with(f->ctx, &f->api, 0, "hsa:0", &f->dev);
  if (s) {
    fprintf(stderr, "%s\n", air_status_message(s));
    return -1;
  }
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  air_device_release(f->dev);
  air_context_destroy(f->ctx);
  soft_hsa_destroy(f->soft);
  free(f);
  return 0;
}

static void info(void** state) {
  fixture_t* f = *state;
  air_device_info_t i;
  assert_null(air_device_query(f->dev, &i));
  assert_string_equal(i.driver, "hsa");
  assert_non_null(strstr(i.name, "gfx942"));
  assert_int_equal(i.workers, 104);
  assert_int_equal(i.queue_count, 1);
}

static void write_bytes(air_buffer_t* b, uint64_t off, const void* src, size_t n) {
  void* p;
  assert_null(air_buffer_map(b, off, n, AIR_MAP_WRITE, &p));
  memcpy(p, src, n);
  air_buffer_unmap(b, p);
}

static void read_bytes(air_buffer_t* b, uint64_t off, void* dst, size_t n) {
  void* p;
  assert_null(air_buffer_map(b, off, n, AIR_MAP_READ, &p));
  memcpy(dst, p, n);
  air_buffer_unmap(b, p);
}

/* Mapped memory is staging, not the device bytes: what is written reaches the
 * device at unmap and comes back through a new map. */
static void buffers(void** state) {
  fixture_t* f = *state;
  air_buffer_t* b;
  assert_null(air_buffer_allocate(f->dev, 4096, 0, &b));
  assert_null(b->host_ptr);
  unsigned char in[300], out[300];
  for (int i = 0; i < 300; ++i) in[i] = (unsigned char)(i * 7);
  void* p;
  assert_null(air_buffer_map(b, 1000, 300, AIR_MAP_WRITE, &p));
  assert_ptr_not_equal(p, (char*)((air_hsa_buffer_t*)b)->device_ptr + 1000);
  memcpy(p, in, 300);
  air_buffer_unmap(b, p);
  assert_memory_equal((char*)((air_hsa_buffer_t*)b)->device_ptr + 1000, in, 300);
  read_bytes(b, 1000, out, 300);
  assert_memory_equal(in, out, 300);
  air_buffer_t* imp;
  air_status_t s = air_buffer_import(f->dev, in, sizeof in, 0, &imp);
  assert_int_equal(air_status_code(s), AIR_STATUS_UNIMPLEMENTED);
  air_status_free(s);
  air_buffer_release(b);
}

/* fill A, copy A -> B, signal (sem, 1); the execution waits for (gate, 1). */
static void fills_copies_timepoints(void** state) {
  fixture_t* f = *state;
  air_buffer_t *a, *b;
  assert_null(air_buffer_allocate(f->dev, 1024, 0, &a));
  assert_null(air_buffer_allocate(f->dev, 1024, 0, &b));
  unsigned char zero[1024] = {0};
  write_bytes(b, 0, zero, sizeof zero);
  air_command_buffer_t* cb;
  assert_null(air_command_buffer_create(f->dev, 0, &cb));
  const uint8_t byte = 0xa5;
  const uint8_t word[4] = {1, 2, 3, 4};
  assert_null(air_command_buffer_fill(cb, a, 0, 1024, &byte, 1));
  assert_null(air_command_buffer_fill(cb, a, 512, 8, word, 4));
  assert_null(air_command_buffer_barrier(cb));
  assert_null(air_command_buffer_copy(cb, a, 256, b, 0, 512));
  assert_null(air_command_buffer_end(cb));
  air_semaphore_t *gate, *done;
  assert_null(air_semaphore_create(f->ctx, 0, &gate));
  assert_null(air_semaphore_create(f->ctx, 0, &done));
  uint64_t one = 1;
  air_timepoint_list_t wait = {1, &gate, &one}, signal = {1, &done, &one};
  assert_null(air_device_queue_execute(f->dev, 0, &wait, cb, &signal));
  /* Held back by the gate. */
  air_status_t s = air_semaphore_wait(done, 1, 20 * 1000 * 1000);
  assert_int_equal(air_status_code(s), AIR_STATUS_DEADLINE_EXCEEDED);
  air_status_free(s);
  unsigned char got[1024];
  read_bytes(b, 0, got, sizeof got);
  assert_memory_equal(got, zero, sizeof got);
  assert_null(air_semaphore_signal(gate, 1));
  assert_null(air_semaphore_wait(done, 1, -1));
  read_bytes(b, 0, got, sizeof got);
  for (int i = 0; i < 512; ++i) {
    unsigned char want = i >= 256 && i < 264 ? (unsigned char)((i - 256) % 4 + 1) : 0xa5;
    if (got[i] != want) fail_msg("byte %d: %02x, want %02x", i, got[i], want);
  }
  assert_int_equal(got[512], 0);
  /* The same command buffer again, without waits. */
  assert_null(air_device_queue_execute(f->dev, 0, NULL, cb, &signal));
  uint64_t two = 2;
  air_timepoint_list_t signal2 = {1, &done, &two};
  assert_null(air_device_queue_execute(f->dev, 0, NULL, NULL, &signal2));
  assert_null(air_semaphore_wait(done, 2, -1));
  soft_hsa_stats_t st;
  soft_hsa_stats(f->soft, &st);
  assert_true(st.copies >= 3 + 2 * 3); /* the map/unmap copies and two runs of three */
  air_semaphore_release(gate);
  air_semaphore_release(done);
  air_command_buffer_release(cb);
  air_buffer_release(a);
  air_buffer_release(b);
}

/* A failed wait fails what the execution would have signalled, with its reason. */
static void failures_propagate(void** state) {
  fixture_t* f = *state;
  air_semaphore_t *gate, *done;
  assert_null(air_semaphore_create(f->ctx, 0, &gate));
  assert_null(air_semaphore_create(f->ctx, 0, &done));
  uint64_t one = 1;
  air_timepoint_list_t wait = {1, &gate, &one}, signal = {1, &done, &one};
  assert_null(air_device_queue_execute(f->dev, 0, &wait, NULL, &signal));
  air_semaphore_fail(gate, air_status_make(NULL, AIR_STATUS_ABORTED, __FILE__, __LINE__,
                                           "upstream went wrong"));
  air_status_t s = air_semaphore_wait(done, 1, -1);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "upstream went wrong"));
  air_status_free(s);
  air_semaphore_release(gate);
  air_semaphore_release(done);
}

static const char k_program[] =
    "module {\n"
    "  func.func @scale(%a: memref<64xf32>) {\n"
    "    %c1 = arith.constant 1 : index\n"
    "    %c4 = arith.constant 4 : index\n"
    "    air.launch (%x) in (%n=%c1) args(%m=%a) : memref<64xf32> {\n"
    "      air.segment @s args(%ms=%m) : memref<64xf32> {\n"
    "        %c4s = arith.constant 4 : index\n"
    "        %c1s = arith.constant 1 : index\n"
    "        air.herd @h tile (%tx, %ty) in (%sx=%c4s, %sy=%c1s) args(%mh=%ms) : memref<64xf32> {\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/* An executable is made (the program verified and scheduled for a GPU target); its
 * dispatch is refused, naming the entry and what is missing. */
static void dispatch_refused(void** state) {
  fixture_t* f = *state;
  air_program_t* p;
  air_parse_options_t po = {0};
  po.filename = "scale.mlir";
  air_status_t s = air_program_parse(f->ctx, k_program, sizeof k_program - 1, &po, &p);
  if (s) fail_msg("%s", air_status_message(s));
  air_executable_t* e;
  s = air_executable_create(f->dev, p, 0, &e);
  if (s) fail_msg("%s", air_status_message(s));
  air_buffer_t* b;
  assert_null(air_buffer_allocate(f->dev, 256, 0, &b));
  air_command_buffer_t* cb;
  assert_null(air_command_buffer_create(f->dev, 0, &cb));
  air_binding_t bind;
  memset(&bind, 0, sizeof bind);
  bind.buffer = b;
  s = air_command_buffer_dispatch(cb, e, 0, 1, &bind, NULL);
  print_message("%s\n", air_status_message(s));
  assert_int_equal(air_status_code(s), AIR_STATUS_UNIMPLEMENTED);
  assert_non_null(strstr(air_status_message(s), "@scale"));
  assert_non_null(strstr(air_status_message(s), "herd kernels"));
  air_status_free(s);
  air_command_buffer_release(cb);
  air_buffer_release(b);
  air_executable_release(e);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(info),
      cmocka_unit_test(buffers),
      cmocka_unit_test(fills_copies_timepoints),
      cmocka_unit_test(failures_propagate),
      cmocka_unit_test(dispatch_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

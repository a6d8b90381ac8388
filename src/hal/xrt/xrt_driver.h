/* xrt_driver.h - the NPU driver's objects, shared by its device/buffer/executable
 * file (xrt_device.c) and its command-buffer/queue file (xrt_queue.c).
 *
 * The model (docs/npu.md): a device is one XRT device (xrtDeviceOpen after the
 * probe). A buffer is one host-only BO, mapped once; its host pointer is what
 * dispatch arguments point into, and a dispatch on a sub-range uses a sub-BO
 * made once per (offset, size) and kept with the buffer. An executable loads the
 * user's xclbin, opens its kernel and, per entry, puts the instruction stream in
 * a BO once (synced to the device once); each run sets opcode 3, that BO, the word
 * count and the data BOs. One worker thread per device runs submissions in
 * order: it waits for their timepoints, starts every dispatch up to the next
 * barrier back to back (no host round trip between them), then waits for them
 * and signals or fails the semaphores. */
#ifndef AIR_HAL_XRT_XRT_DRIVER_H_
#define AIR_HAL_XRT_XRT_DRIVER_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/driver.h"
#include "hal/xrt/xrt_api.h"

typedef struct air_xrt_submission_t air_xrt_submission_t;

typedef struct air_xrt_device_t {
  air_device_t base;
  air_xrt_api_t api;
  xrt_handle_t dev;
  uint32_t index;
  char target[16]; /* npu1 / npu2 */
  char name[96];
  pthread_mutex_t mu; /* the submission FIFO and `stop` */
  pthread_cond_t cv;
  pthread_t worker;
  bool stop;
  air_xrt_submission_t *head, *tail;
} air_xrt_device_t;

/* A sub-range of a buffer as its own BO. */
typedef struct air_xrt_sub_t {
  uint64_t offset, size;
  xrt_handle_t bo;
} air_xrt_sub_t;

typedef struct air_xrt_buffer_t {
  air_buffer_t base;
  xrt_handle_t bo;
  pthread_mutex_t mu; /* subs */
  air_xrt_sub_t* subs;
  uint32_t n_subs, cap_subs;
} air_xrt_buffer_t;

/* How a stream uses kernel data argument i (from its patches and queue pushes). */
enum { AIR_XRT_ARG_READ = 1u, AIR_XRT_ARG_WRITTEN = 2u };

typedef struct air_xrt_entry_t {
  const char* why_not;   /* no stream for this entry (static text or in `why`) */
  char why[256];
  uint32_t* insts;       /* owned */
  size_t n_insts;
  xrt_handle_t insts_bo; /* made once, synced once */
  uint32_t n_data;       /* memref parameters = kernel args 3.. */
  uint32_t* param_of;    /* data arg i -> parameter index */
  uint8_t* use;          /* data arg i -> AIR_XRT_ARG_* */
  xrt_handle_t* runs;    /* run handles made on demand, reused across submissions */
  uint32_t n_runs, cap_runs;
} air_xrt_entry_t;

typedef struct air_xrt_executable_t {
  air_executable_t base;
  xrt_handle_t xclbin, kernel;
  uint32_t insts_group;  /* memory group of kernel argument 1 */
  air_xrt_entry_t* xe;   /* per entry */
} air_xrt_executable_t;

bool air_xrt_is_buffer(const air_resource_t* r);
/* The BO whose address is byte `offset` of `b`: the buffer's own at offset 0,
 * else a sub-BO of [offset, offset + size) made once and kept. */
air_status_t air_xrt_buffer_range_bo(air_xrt_device_t* d, air_xrt_buffer_t* b, uint64_t offset,
                                     uint64_t size, xrt_handle_t* out);
/* Run handle `slot` of an entry, opened and given its fixed arguments (opcode,
 * instruction BO, word count) the first time. */
air_status_t air_xrt_entry_run(air_xrt_device_t* d, air_xrt_executable_t* x, uint32_t ordinal,
                               uint32_t slot, xrt_handle_t* out);

/* xrt_queue.c */
air_status_t air_xrt_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out);
air_status_t air_xrt_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait, air_command_buffer_t* cb,
                                   const air_timepoint_list_t* signal);
void* air_xrt_worker_main(void* device);

#endif /* AIR_HAL_XRT_XRT_DRIVER_H_ */

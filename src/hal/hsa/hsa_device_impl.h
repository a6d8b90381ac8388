/* hsa_device_impl.h - the hsa device's objects, shared by hsa_device.c (device,
 * buffers, executables) and hsa_submit.c (command buffers, queue execution). */
#ifndef AIR_HAL_HSA_HSA_DEVICE_IMPL_H_
#define AIR_HAL_HSA_HSA_DEVICE_IMPL_H_

#ifdef AIR_HAVE_HSA
#include <pthread.h>
#include <stdatomic.h>

#include "hal/driver.h"
#include "hal/hsa/hsa_api.h"
#include "hal/hsa/hsa_launch.h"
#include "hal/hsa/hsa_queue.h"
#include "hal/hsa/hsa_system.h"

typedef struct air_hsa_device_t {
  air_device_t base;
  air_hsa_api_t api;        /* a copy of the table: dlopen'ed (library set) or given */
  air_hsa_system_t sys;
  air_hsa_queue_t* queue;
  pthread_mutex_t lock;     /* the copy-signal pool */
  hsa_signal_t* signals;    /* free copy signals */
  uint32_t n_signals, cap_signals;
  _Atomic uint32_t inflight; /* submissions not yet completed */
  pthread_mutex_t drain_mu;
  pthread_cond_t drain_cv;
  char name[192];
} air_hsa_device_t;

/* Device memory in the GPU's coarse-grained pool; the host reaches it only through
 * staging copies (map/unmap). */
typedef struct air_hsa_buffer_t {
  air_buffer_t base;
  void* device_ptr;
} air_hsa_buffer_t;

/* An executable: each entry's plan (entries[i].prepared, an air_hsa_plan_t) or
 * the reason it cannot run on this driver. */
typedef struct air_hsa_executable_t {
  air_executable_t base;
  air_status_t* refusals; /* per entry, NULL when planned */
} air_hsa_executable_t;

/* A synchronous copy between host-visible staging memory and device memory (or
 * device to device), used by map/unmap and by fills. */
air_status_t air_hsa_copy_sync(air_hsa_device_t* d, void* dst, const void* src, size_t size,
                               bool dst_on_gpu, bool src_on_gpu);

/* A signal at 1 for an async copy, from the device's pool; give it back once its
 * copy and everything waiting on it are done. */
air_status_t air_hsa_signal_take(air_hsa_device_t* d, hsa_signal_t* out);
void air_hsa_signal_give(air_hsa_device_t* d, hsa_signal_t s);

air_status_t air_hsa_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out);
air_status_t air_hsa_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait,
                                   air_command_buffer_t* command_buffer,
                                   const air_timepoint_list_t* signal);
#endif /* AIR_HAVE_HSA */
#endif /* AIR_HAL_HSA_HSA_DEVICE_IMPL_H_ */

/* hsa_system.h - what the HSA runtime shows of the machine, found once per device
 * open: the runtime initialised (hsa_init), the GPU agent `hsa:N` names with its
 * processor, compute units and queue limits, the CPU agent, and the memory pools
 * the driver allocates from: the GPU's coarse-grained pool (L3 buffers), a
 * fine-grained CPU pool (staging buffers the host maps) and the CPU pool that
 * takes kernel arguments.
 *
 * On a machine without a GPU, hsa_init fails (ROCr 5.2.3 answers
 * HSA_STATUS_ERROR_OUT_OF_RESOURCES after failing to open /dev/kfd) or no GPU
 * agent exists: both are UNAVAILABLE with a message naming HSA and the GPU. */
#ifndef AIR_HAL_HSA_HSA_SYSTEM_H_
#define AIR_HAL_HSA_HSA_SYSTEM_H_

#ifdef AIR_HAVE_HSA
#include <stdbool.h>
#include <stdint.h>

#include "hal/hsa/hsa_api.h"

typedef struct air_hsa_system_t {
  const air_hsa_api_t* api;
  bool initialised;           /* hsa_init succeeded: hsa_shut_down at close */
  hsa_agent_t gpu;            /* the agent hsa:N names */
  hsa_agent_t cpu;
  uint32_t gpu_count;         /* GPU agents the runtime lists */
  char gpu_name[64];          /* HSA_AGENT_INFO_NAME: the processor, "gfx90a" */
  char product[64];           /* the marketing name when the runtime gives one */
  uint32_t compute_units;
  uint32_t wavefront_size;
  uint32_t queue_max_size;    /* packets */
  hsa_profile_t profile;
  hsa_amd_memory_pool_t device_pool;  /* GPU, global, coarse-grained */
  hsa_amd_memory_pool_t staging_pool; /* CPU, global, fine-grained */
  hsa_amd_memory_pool_t kernarg_pool; /* CPU, global, KERNARG_INIT */
  bool have_device_pool, have_staging_pool, have_kernarg_pool;
} air_hsa_system_t;

/* Initialises the runtime and finds GPU agent `index` and its pools. `uri` names
 * the device in messages. On failure the runtime is shut down again. */
air_status_t air_hsa_system_open(const air_allocator_t* allocator, const air_hsa_api_t* api,
                                 uint32_t index, const char* uri, air_hsa_system_t* out);
void air_hsa_system_close(air_hsa_system_t* system);

#endif /* AIR_HAVE_HSA */
#endif /* AIR_HAL_HSA_HSA_SYSTEM_H_ */

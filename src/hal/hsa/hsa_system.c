/* hsa_system.c - runtime start, agents and memory pools (hsa_system.h). */
#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_system.h"

#include <string.h>
#include <unistd.h>

#include "runtime/base/status_util.h"

typedef struct walk_t {
  const air_hsa_api_t* api;
  uint32_t want, seen;
  hsa_agent_t gpu, cpu;
  bool have_gpu, have_cpu;
} walk_t;

static hsa_status_t on_agent(hsa_agent_t agent, void* data) {
  walk_t* w = data;
  hsa_device_type_t type;
  if (w->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  if (type == HSA_DEVICE_TYPE_GPU) {
    if (w->seen++ == w->want) {
      w->gpu = agent;
      w->have_gpu = true;
    }
  } else if (type == HSA_DEVICE_TYPE_CPU && !w->have_cpu) {
    w->cpu = agent;
    w->have_cpu = true;
  }
  return HSA_STATUS_SUCCESS;
}

typedef struct pools_t {
  const air_hsa_api_t* api;
  bool gpu; /* walking the GPU agent's pools (else the CPU's) */
  air_hsa_system_t* sys;
} pools_t;

static hsa_status_t on_pool(hsa_amd_memory_pool_t pool, void* data) {
  pools_t* p = data;
  const air_hsa_api_t* api = p->api;
  hsa_amd_segment_t segment;
  uint32_t flags = 0;
  bool alloc_ok = false;
  if (api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) ||
      segment != HSA_AMD_SEGMENT_GLOBAL ||
      api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) ||
      api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                        &alloc_ok) ||
      !alloc_ok)
    return HSA_STATUS_SUCCESS;
  air_hsa_system_t* s = p->sys;
  if (p->gpu) {
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !s->have_device_pool) {
      s->device_pool = pool;
      s->have_device_pool = true;
    }
    return HSA_STATUS_SUCCESS;
  }
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !s->have_kernarg_pool) {
    s->kernarg_pool = pool;
    s->have_kernarg_pool = true;
  }
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !s->have_staging_pool) {
    s->staging_pool = pool;
    s->have_staging_pool = true;
  }
  return HSA_STATUS_SUCCESS;
}

air_status_t air_hsa_system_open(const air_allocator_t* a, const air_hsa_api_t* api,
                                 uint32_t index, const char* uri, air_hsa_system_t* out) {
  memset(out, 0, sizeof *out);
  out->api = api;
  hsa_status_t st = api->hsa_init();
  if (st != HSA_STATUS_SUCCESS) {
    /* ROCr opens /dev/kfd (the amdgpu kernel driver's compute interface) first. */
    bool kfd = access("/dev/kfd", F_OK) == 0;
    air_status_t why = air_hsa_status(a, api, st, "hsa_init");
    air_status_t s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                                "device '%s': no AMD GPU available through HSA (%s): %s", uri,
                                api->from ? api->from : "HSA runtime",
                                kfd ? air_status_message(why)
                                    : "/dev/kfd is absent (no amdgpu kernel driver or no GPU)");
    air_status_free(why);
    return s;
  }
  out->initialised = true;
  walk_t w = {.api = api, .want = index};
  st = api->hsa_iterate_agents(on_agent, &w);
  air_status_t s = NULL;
  if (st != HSA_STATUS_SUCCESS) {
    s = air_hsa_status(a, api, st, "hsa_iterate_agents");
  } else if (!w.have_gpu) {
    s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                   "device '%s': the HSA runtime lists %u GPU agent%s, so there is no GPU %u",
                   uri, w.seen, w.seen == 1 ? "" : "s", index);
  } else if (!w.have_cpu) {
    s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                   "device '%s': the HSA runtime lists no CPU agent for staging memory", uri);
  }
  if (s) {
    air_hsa_system_close(out);
    return s;
  }
  out->gpu = w.gpu;
  out->cpu = w.cpu;
  out->gpu_count = w.seen;
  char name[64] = "";
  api->hsa_agent_get_info(w.gpu, HSA_AGENT_INFO_NAME, name);
  memcpy(out->gpu_name, name, sizeof out->gpu_name - 1);
  api->hsa_agent_get_info(w.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, name);
  memcpy(out->product, name, sizeof out->product - 1);
  api->hsa_agent_get_info(w.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                          &out->compute_units);
  api->hsa_agent_get_info(w.gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &out->wavefront_size);
  api->hsa_agent_get_info(w.gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &out->queue_max_size);
  api->hsa_agent_get_info(w.gpu, HSA_AGENT_INFO_PROFILE, &out->profile);
  pools_t p = {api, true, out};
  api->hsa_amd_agent_iterate_memory_pools(w.gpu, on_pool, &p);
  p.gpu = false;
  api->hsa_amd_agent_iterate_memory_pools(w.cpu, on_pool, &p);
  if (!out->have_device_pool || !out->have_staging_pool || !out->have_kernarg_pool) {
    s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                   "device '%s' (%s): missing a memory pool: GPU coarse-grained %s, CPU "
                   "fine-grained %s, CPU kernarg %s", uri, out->gpu_name,
                   out->have_device_pool ? "found" : "absent",
                   out->have_staging_pool ? "found" : "absent",
                   out->have_kernarg_pool ? "found" : "absent");
    air_hsa_system_close(out);
    return s;
  }
  if (out->queue_max_size < 64) out->queue_max_size = 64;
  return NULL;
}

void air_hsa_system_close(air_hsa_system_t* system) {
  if (system->initialised && system->api) system->api->hsa_shut_down();
  system->initialised = false;
}
#endif /* AIR_HAVE_HSA */

typedef int air_hsa_system_translation_unit_t;

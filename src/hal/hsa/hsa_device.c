/* hsa_device.c - the `hsa:N` device (hsa_device.h): opening (load the HSA runtime,
 * initialise it, find GPU agent N and its pools, create the queue), buffers in the
 * GPU's coarse-grained pool reached through staging copies, and executables whose
 * schedules are compiled for a GPU target. Command buffers and queue execution are
 * hsa_submit.c. */
#include "hal/hsa/hsa_device.h"

#include <stdio.h>
#include <string.h>

#include "hal/driver.h"
#include "runtime/target/target.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_device_impl.h"

/*--- copies and signals ------------------------------------------------------*/

air_status_t air_hsa_signal_take(air_hsa_device_t* d, hsa_signal_t* out) {
  pthread_mutex_lock(&d->lock);
  bool have = d->n_signals > 0;
  if (have) *out = d->signals[--d->n_signals];
  pthread_mutex_unlock(&d->lock);
  if (have) {
    d->api.hsa_signal_store_relaxed(*out, 1);
    return NULL;
  }
  hsa_status_t st = d->api.hsa_signal_create(1, 0, NULL, out);
  return st == HSA_STATUS_SUCCESS ? NULL
                                  : air_hsa_status(&d->base.allocator, &d->api, st, "hsa_signal_create");
}

void air_hsa_signal_give(air_hsa_device_t* d, hsa_signal_t s) {
  pthread_mutex_lock(&d->lock);
  bool kept = air_mem_grow(&d->base.allocator, (void**)&d->signals, &d->cap_signals,
                           (size_t)d->n_signals + 1, sizeof *d->signals);
  if (kept) d->signals[d->n_signals++] = s;
  pthread_mutex_unlock(&d->lock);
  if (!kept) d->api.hsa_signal_destroy(s);
}

air_status_t air_hsa_copy_sync(air_hsa_device_t* d, void* dst, const void* src, size_t size,
                               bool dst_on_gpu, bool src_on_gpu) {
  hsa_signal_t s;
  AIR_RETURN_IF_ERROR(air_hsa_signal_take(d, &s));
  hsa_status_t st = d->api.hsa_amd_memory_async_copy(dst, dst_on_gpu ? d->sys.gpu : d->sys.cpu,
                                                     src, src_on_gpu ? d->sys.gpu : d->sys.cpu,
                                                     size, 0, NULL, s);
  air_status_t r = NULL;
  if (st != HSA_STATUS_SUCCESS) {
    r = air_hsa_status(&d->base.allocator, &d->api, st, "hsa_amd_memory_async_copy");
  } else {
    hsa_signal_value_t v =
        d->api.hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED);
    if (v < 0)
      r = AIR_STATUS(&d->base.allocator, AIR_STATUS_INTERNAL,
                     "%s: a %zu-byte copy between host and GPU memory failed", d->name, size);
  }
  air_hsa_signal_give(d, s);
  return r;
}

/*--- buffers -----------------------------------------------------------------*/

/* A mapping: host-visible staging memory from the CPU's fine-grained pool, with
 * this header in front so unmap knows what to copy back. */
typedef struct mapping_t {
  uint64_t offset, length;
  uint32_t access;
  uint32_t magic;
} mapping_t;
enum { MAPPING_HEAD = 64, MAPPING_MAGIC = 0x6873616du };

static void buffer_destroy(air_resource_t* r) {
  air_hsa_buffer_t* b = (air_hsa_buffer_t*)r;
  air_hsa_device_t* d = (air_hsa_device_t*)b->base.device;
  if (b->device_ptr) d->api.hsa_amd_memory_pool_free(b->device_ptr);
  air_allocator_t a = b->base.allocator;
  air_mem_free(&a, b);
}

static air_status_t buffer_map(air_buffer_t* base, uint64_t offset, uint64_t length,
                               uint32_t access, void** out_ptr) {
  air_hsa_buffer_t* b = (air_hsa_buffer_t*)base;
  air_hsa_device_t* d = (air_hsa_device_t*)base->device;
  void* staging = NULL;
  hsa_status_t st = d->api.hsa_amd_memory_pool_allocate(d->sys.staging_pool,
                                                        MAPPING_HEAD + (size_t)length, 0, &staging);
  if (st != HSA_STATUS_SUCCESS)
    return air_hsa_status(&base->allocator, &d->api, st, "map: staging memory");
  st = d->api.hsa_amd_agents_allow_access(1, &d->sys.gpu, NULL, staging);
  air_status_t s = st == HSA_STATUS_SUCCESS
                       ? NULL
                       : air_hsa_status(&base->allocator, &d->api, st, "map: GPU access to staging");
  mapping_t* m = staging;
  *m = (mapping_t){offset, length, access, MAPPING_MAGIC};
  char* host = (char*)staging + MAPPING_HEAD;
  if (!s && (access & AIR_MAP_READ) && length)
    s = air_hsa_copy_sync(d, host, (char*)b->device_ptr + offset, (size_t)length, false, true);
  if (s) {
    d->api.hsa_amd_memory_pool_free(staging);
    return s;
  }
  *out_ptr = host;
  return NULL;
}

/* Written bytes go back to the device. unmap cannot report failure (the API's
 * unmap returns nothing); a failed copy-back leaves the device bytes as they were,
 * and the GPU's queue error, if that is the cause, fails the next submission. */
static void buffer_unmap(air_buffer_t* base, void* ptr) {
  air_hsa_buffer_t* b = (air_hsa_buffer_t*)base;
  air_hsa_device_t* d = (air_hsa_device_t*)base->device;
  mapping_t* m = (mapping_t*)((char*)ptr - MAPPING_HEAD);
  if (m->magic != MAPPING_MAGIC) return;
  if ((m->access & AIR_MAP_WRITE) && m->length)
    air_status_free(air_hsa_copy_sync(d, (char*)b->device_ptr + m->offset, ptr,
                                      (size_t)m->length, true, false));
  m->magic = 0;
  d->api.hsa_amd_memory_pool_free(m);
}

static const air_buffer_vtable_t k_buffer_vtable = {
    .resource = {buffer_destroy}, .map = buffer_map, .unmap = buffer_unmap};

static air_status_t buffer_allocate(air_device_t* base, uint64_t size, uint32_t flags,
                                    air_buffer_t** out) {
  (void)flags;
  air_hsa_device_t* d = (air_hsa_device_t*)base;
  air_hsa_buffer_t* b = air_mem_calloc(&base->allocator, 1, sizeof *b);
  if (!b) return AIR_STATUS_OOM(&base->allocator, "hsa buffer");
  hsa_status_t st = size ? d->api.hsa_amd_memory_pool_allocate(d->sys.device_pool, (size_t)size,
                                                               0, &b->device_ptr)
                         : HSA_STATUS_SUCCESS;
  if (st != HSA_STATUS_SUCCESS) {
    air_mem_free(&base->allocator, b);
    char what[256];
    snprintf(what, sizeof what, "%.190s: allocating %llu bytes of GPU memory", d->name,
             (unsigned long long)size);
    return air_hsa_status(&base->allocator, &d->api, st, what);
  }
  air_buffer_init(&b->base, &k_buffer_vtable, base, size, NULL, false);
  b->base.device_ptr = b->device_ptr;
  *out = &b->base;
  return NULL;
}

static air_status_t buffer_import(air_device_t* base, void* host_ptr, uint64_t size,
                                  uint32_t flags, air_buffer_t** out) {
  (void)host_ptr, (void)size, (void)flags, (void)out;
  return AIR_STATUS(&base->allocator, AIR_STATUS_UNIMPLEMENTED,
                    "%s: importing host memory is not supported (it would need "
                    "hsa_amd_memory_lock); allocate a buffer and map it instead",
                    base->info.name);
}

/*--- executables -------------------------------------------------------------*/

static void executable_destroy(air_resource_t* r) {
  air_hsa_executable_t* x = (air_hsa_executable_t*)r;
  air_executable_t* e = &x->base;
  air_hsa_device_t* d = (air_hsa_device_t*)e->device;
  air_allocator_t a = e->allocator;
  for (uint32_t i = 0; i < e->n_entries; ++i) {
    air_hsa_plan_free(&a, &d->sys, e->entries[i].prepared);
    if (x->refusals) air_status_free(x->refusals[i]);
  }
  air_mem_free(&a, x->refusals);
  air_executable_deinit(e);
  air_mem_free(&a, x);
}

static const air_executable_vtable_t k_executable_vtable = {.resource = {executable_destroy}};

/* Executables are scheduled for the target-table row of this GPU's processor
 * (gfx908, gfx90a, ...: the rows `airc compile --target gfxNNN` builds kernels
 * for); a processor without a row is scheduled as mi300x, whose limits every
 * CDNA/RDNA workgroup shares. */
static const char* gpu_target(const char* gpu_name) {
  uint32_t n = 0;
  const air_target_t* t = air_target_table(&n);
  for (uint32_t i = 0; i < n; ++i)
    if (t[i].kind == AIR_TARGET_GPU && t[i].gfx && !strcmp(t[i].name, gpu_name)) return t[i].name;
  return "mi300x";
}

/* Each entry is planned once (hsa_launch.h): its code objects loaded, its
 * launches resolved. An entry the driver cannot run keeps the refusal, which its
 * dispatch returns; the other entries stay usable. */
static air_status_t executable_create(air_device_t* base, const air_program_t* program,
                                      uint32_t flags, air_schedule_t* loaded,
                                      const air_artifact_code_t* code, air_executable_t** out) {
  (void)code; /* host code (.air.code) is for the cpu driver */
  air_hsa_device_t* d = (air_hsa_device_t*)base;
  air_hsa_executable_t* x = air_mem_calloc(&base->allocator, 1, sizeof *x);
  if (!x) {
    air_schedule_free(loaded);
    return AIR_STATUS_OOM(&base->allocator, "hsa executable");
  }
  air_executable_t* e = &x->base;
  air_status_t s = air_executable_init(e, &k_executable_vtable, base, program,
                                       gpu_target(d->sys.gpu_name), flags, loaded);
  if (s) {
    air_mem_free(&base->allocator, x);
    return s;
  }
  x->refusals = air_mem_calloc(&base->allocator, e->n_entries ? e->n_entries : 1,
                               sizeof *x->refusals);
  if (!x->refusals) {
    executable_destroy(&e->resource);
    return AIR_STATUS_OOM(&base->allocator, "hsa executable");
  }
  for (uint32_t i = 0; i < e->n_entries; ++i) {
    if (e->entries[i].why_not) continue;
    air_hsa_plan_t* plan = NULL;
    x->refusals[i] = air_hsa_plan_create(&base->allocator, &d->sys, e->program, &e->entries[i], &plan);
    e->entries[i].prepared = plan;
  }
  *out = e;
  return NULL;
}

/*--- the device ----------------------------------------------------------------*/

static void device_destroy(air_resource_t* r) {
  air_hsa_device_t* d = (air_hsa_device_t*)r;
  pthread_mutex_lock(&d->drain_mu);
  while (atomic_load(&d->inflight)) pthread_cond_wait(&d->drain_cv, &d->drain_mu);
  pthread_mutex_unlock(&d->drain_mu);
  air_hsa_queue_destroy(d->queue);
  for (uint32_t i = 0; i < d->n_signals; ++i) d->api.hsa_signal_destroy(d->signals[i]);
  air_mem_free(&d->base.allocator, d->signals);
  air_hsa_system_close(&d->sys);
  air_hsa_api_unload(&d->api);
  pthread_mutex_destroy(&d->lock);
  pthread_mutex_destroy(&d->drain_mu);
  pthread_cond_destroy(&d->drain_cv);
  air_allocator_t a = d->base.allocator;
  air_mem_free(&a, d);
}

static const air_device_vtable_t k_device_vtable = {
    .resource = {device_destroy},
    .buffer_allocate = buffer_allocate,
    .buffer_import = buffer_import,
    .executable_create = executable_create,
    .command_buffer_create = air_hsa_command_buffer_create,
    .queue_execute = air_hsa_queue_execute,
};

/* Takes `api` over (unloads it on failure too). */
static air_status_t open_device(air_context_t* context, air_hsa_api_t* api, uint32_t index,
                                const char* uri, air_device_t** out) {
  const air_allocator_t* a = air_context_allocator(context);
  air_hsa_device_t* d = air_mem_calloc(a, 1, sizeof *d);
  if (!d) {
    air_hsa_api_unload(api);
    return AIR_STATUS_OOM(a, "hsa device");
  }
  d->api = *api;
  air_status_t s = air_hsa_system_open(a, &d->api, index, uri, &d->sys);
  if (s) {
    air_hsa_api_unload(&d->api);
    air_mem_free(a, d);
    return s;
  }
  snprintf(d->name, sizeof d->name, "hsa:%u %s (%s, %u CUs)", index, d->sys.gpu_name,
           d->sys.product[0] ? d->sys.product : "AMD GPU", d->sys.compute_units);
  uint32_t size = d->sys.queue_max_size < 4096 ? d->sys.queue_max_size : 4096;
  s = air_hsa_queue_create(a, &d->api, d->sys.gpu, size, d->sys.gpu_name, &d->queue);
  if (s) {
    air_hsa_system_close(&d->sys);
    air_hsa_api_unload(&d->api);
    air_mem_free(a, d);
    return s;
  }
  pthread_mutex_init(&d->lock, NULL);
  pthread_mutex_init(&d->drain_mu, NULL);
  pthread_cond_init(&d->drain_cv, NULL);
  air_resource_init(&d->base.resource, &k_device_vtable);
  d->base.context = context;
  d->base.allocator = *a;
  d->base.info.driver = "hsa";
  d->base.info.name = d->name;
  d->base.info.workers = d->sys.compute_units;
  d->base.info.queue_count = 1;
  d->base.info.target = gpu_target(d->sys.gpu_name);
  *out = &d->base;
  return NULL;
}

air_status_t air_hsa_device_open_with(air_context_t* context, const air_hsa_api_t* api,
                                      uint32_t index, const char* uri, air_device_t** out) {
  air_hsa_api_t copy = *api;
  copy.library = NULL; /* the caller's table: nothing to dlclose */
  return open_device(context, &copy, index, uri, out);
}
#endif /* AIR_HAVE_HSA */

air_status_t air_hsa_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device) {
  const air_allocator_t* a = air_context_allocator(context);
  uint32_t index = 0;
  if (params && !air_parse_u32(params, strlen(params), 0, 1023, &index))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected hsa or hsa:N with N a GPU index",
                      uri);
#ifndef AIR_HAVE_HSA
  (void)out_device;
  return AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                    "device '%s': driver not built into this libairrt (it was compiled "
                    "without the HSA headers, libhsa-runtime-dev)", uri);
#else
  air_hsa_api_t api;
  AIR_RETURN_IF_ERROR(air_hsa_api_load(a, NULL, &api));
  return open_device(context, &api, index, uri, out_device);
#endif
}

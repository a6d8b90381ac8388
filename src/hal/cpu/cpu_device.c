/* cpu_device.c - the cpu device: opening (`cpu`, `cpu:threads=N`), draining on
 * destroy, host-memory buffers and interpreter-ready executables. */
#include <stdio.h>
#include <string.h>

#include "hal/cpu/cpu_code.h"
#include "hal/cpu/cpu_device.h"
#include "hal/cpu/interp/interp.h"
#include "runtime/base/status_util.h"

/*--- buffers ---------------------------------------------------------------*/

static void buffer_destroy(air_resource_t* r) {
  air_buffer_t* b = (air_buffer_t*)r;
  air_allocator_t a = b->allocator;
  a.free(a.self, b); /* allocated bytes live in the same block */
}

/* Host memory is coherent: the HAL's default map and unmap (NULL) serve. */
static const air_buffer_vtable_t k_buffer_vtable = {.resource = {buffer_destroy}};

enum { BUFFER_ALIGN = 64 };

static air_status_t buffer_allocate(air_device_t* d, uint64_t size, uint32_t flags,
                                    air_buffer_t** out) {
  (void)flags;
  size_t head = sizeof(air_buffer_t) + BUFFER_ALIGN - 1;
  if (size > SIZE_MAX - head)
    return AIR_STATUS(&d->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "cannot allocate a %llu-byte buffer on %s", (unsigned long long)size,
                      d->info.name);
  air_buffer_t* b = d->allocator.alloc(d->allocator.self, head + (size_t)size);
  if (!b)
    return AIR_STATUS(&d->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory allocating a %llu-byte buffer on %s",
                      (unsigned long long)size, d->info.name);
  uintptr_t data = ((uintptr_t)(b + 1) + BUFFER_ALIGN - 1) & ~(uintptr_t)(BUFFER_ALIGN - 1);
  memset((void*)data, 0, (size_t)size);
  air_buffer_init(b, &k_buffer_vtable, d, size, (void*)data, false);
  *out = b;
  return NULL;
}

static air_status_t buffer_import(air_device_t* d, void* host_ptr, uint64_t size,
                                  uint32_t flags, air_buffer_t** out) {
  (void)flags;
  air_buffer_t* b = d->allocator.alloc(d->allocator.self, sizeof(*b));
  if (!b)
    return AIR_STATUS(&d->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory importing a buffer");
  air_buffer_init(b, &k_buffer_vtable, d, size, host_ptr, true);
  *out = b;
  return NULL;
}

/*--- executables -----------------------------------------------------------*/

static void executable_destroy(air_resource_t* r) {
  air_cpu_executable_t* x = (air_cpu_executable_t*)r;
  air_executable_t* e = &x->base;
  air_allocator_t a = e->allocator;
  for (uint32_t i = 0; i < e->n_entries; ++i) air_interp_plan_free(e->entries[i].prepared);
  air_interp_prep_release(x->prep); /* runs still going keep it alive */
  air_cpu_code_free(x->code);
  air_executable_deinit(e);
  a.free(a.self, x);
}

static const air_executable_vtable_t k_executable_vtable = {.resource = {executable_destroy}};

/* The interpreter runs the program's IR directly; its tables are derived once
 * and each entry's schedule is bound to it once (an air_interp_plan_t) so
 * dispatches only read them. */
/* The program's compiled units: the artifact's host code when it carries some
 * this CPU runs, else the JIT when the code generator is installed; none with
 * AIR_EXECUTABLE_NO_COMPILE. Why there is none is kept for code_info. */
static air_status_t make_code(air_cpu_executable_t* x, const air_allocator_t* a, uint32_t flags,
                              const air_artifact_code_t* code) {
  air_executable_t* e = &x->base;
  air_code_info_t* info = &e->code_info;
  memset(info, 0, sizeof *info);
  info->source = "none";
  e->code_why[0] = 0;
  if (flags & AIR_EXECUTABLE_NO_COMPILE) {
    snprintf(e->code_why, sizeof e->code_why, "made with AIR_EXECUTABLE_NO_COMPILE");
    return NULL;
  }
  air_status_t st = code ? air_cpu_code_link(a, e->program, code, &x->code, info)
                         : air_cpu_code_jit(a, e->program, &x->code, info);
  if (!st && !x->code && info->why_none)
    snprintf(e->code_why, sizeof e->code_why, "%s", info->why_none);
  info->why_none = NULL; /* air_executable_code_info points it at code_why */
  return st;
}

static air_status_t executable_create(air_device_t* d, const air_program_t* program,
                                      uint32_t flags, air_schedule_t* loaded,
                                      const air_artifact_code_t* code, air_executable_t** out) {
  air_cpu_executable_t* x = d->allocator.alloc(d->allocator.self, sizeof(*x));
  air_executable_t* e = x ? &x->base : NULL;
  if (!e) {
    air_schedule_free(loaded);
    return AIR_STATUS(&d->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory creating an executable");
  }
  air_status_t st = air_executable_init(e, &k_executable_vtable, d, program, "cpu", flags, loaded);
  if (st) {
    d->allocator.free(d->allocator.self, x);
    return st;
  }
  x->prep = NULL;
  x->code = NULL;
  air_status_free(air_interp_prepare(&d->allocator, e->program, &x->prep));
  st = make_code(x, &d->allocator, flags, code);
  for (uint32_t i = 0; i < e->n_entries && !st; ++i) {
    air_interp_plan_t* plan = NULL;
    if (e->entries[i].schedule)
      st = air_interp_plan_build(&d->allocator, program, e->entries[i].schedule, &plan);
    e->entries[i].prepared = plan;
  }
  if (st) {
    executable_destroy(&e->resource);
    return st;
  }
  *out = e;
  return NULL;
}

/*--- the device ------------------------------------------------------------*/

static void device_destroy(air_resource_t* r) {
  air_cpu_device_t* d = (air_cpu_device_t*)r;
  pthread_mutex_lock(&d->drain_mu);
  while (atomic_load(&d->inflight) != 0) pthread_cond_wait(&d->drain_cv, &d->drain_mu);
  pthread_mutex_unlock(&d->drain_mu);
  air_pool_destroy(d->pool);
  air_pool_destroy(atomic_load(&d->spare_local));
  /* After the pool: a kernel the watchdog abandoned has returned and its run
   * has left the watchdog. */
  air_interp_watchdog_destroy(d->watchdog);
  pthread_cond_destroy(&d->drain_cv);
  pthread_mutex_destroy(&d->drain_mu);
  air_allocator_t a = d->base.allocator;
  a.free(a.self, d);
}

static const air_device_vtable_t k_device_vtable = {
    .resource = {device_destroy},
    .buffer_allocate = buffer_allocate,
    .buffer_import = buffer_import,
    .executable_create = executable_create,
    .command_buffer_create = air_cpu_command_buffer_create,
    .queue_execute = air_cpu_queue_execute,
};

air_status_t air_cpu_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device) {
  const air_allocator_t* a = air_context_allocator(context);
  uint32_t threads = 0;
  if (params) {
    static const char k_key[] = "threads=";
    size_t klen = sizeof(k_key) - 1;
    if (strncmp(params, k_key, klen) != 0 ||
        !air_parse_u32(params + klen, strlen(params + klen), 1, 1024, &threads))
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "malformed device URI '%s': expected cpu or cpu:threads=N with N "
                        "in 1..1024", uri);
  }
  air_cpu_device_t* d = a->alloc(a->self, sizeof(*d));
  if (!d) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory opening %s", uri);
  memset(d, 0, sizeof(*d));
  air_status_t st = air_pool_create(a, threads, &d->pool);
  if (st) {
    a->free(a->self, d);
    return st;
  }
  st = air_interp_watchdog_create(a, &d->watchdog);
  if (st) {
    air_pool_destroy(d->pool);
    a->free(a->self, d);
    return st;
  }
  /* Neither fails on Linux with default attributes; keep the path honest anyway. */
  bool mu = pthread_mutex_init(&d->drain_mu, NULL) == 0;
  bool cv = mu && pthread_cond_init(&d->drain_cv, NULL) == 0;
  if (!cv) {
    if (mu) pthread_mutex_destroy(&d->drain_mu);
    air_interp_watchdog_destroy(d->watchdog);
    air_pool_destroy(d->pool);
    a->free(a->self, d);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot create a mutex for %s", uri);
  }
  air_resource_init(&d->base.resource, &k_device_vtable);
  d->base.context = context;
  d->base.allocator = *a;
  atomic_init(&d->inflight, 0);
  atomic_init(&d->spare_local, NULL);
  atomic_init(&d->wake_ns, 0);
  atomic_init(&d->wake_cold_ns, 0);
  atomic_init(&d->probes, 0);
  atomic_init(&d->probe_mask, 63);
  atomic_init(&d->placement, AIR_CPU_PLACE_MEASURED);
  uint32_t n = air_pool_threads(d->pool);
  snprintf(d->name, sizeof d->name, "cpu (%u thread%s)", n, n == 1 ? "" : "s");
  d->base.info.driver = "cpu";
  d->base.info.name = d->name;
  d->base.info.workers = n;
  d->base.info.queue_count = 1;
  *out_device = &d->base;
  return NULL;
}

air_status_t air_cpu_device_set_placement(air_device_t* device, air_cpu_placement_t placement) {
  if (device->resource.vtable != &k_device_vtable.resource)
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "cannot force where submissions run on %s: not a cpu device",
                      device->info.name);
  air_cpu_device_t* d = (air_cpu_device_t*)device;
  atomic_store_explicit(&d->placement, (int)placement, memory_order_relaxed);
  return NULL;
}

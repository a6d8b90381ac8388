/* soft_hsa.c - the software HSA runtime (soft_hsa.h). */
#include "soft_hsa.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu/aql.h"
#include "amdgpu/code_object.h"
#include "hal/futex.h"

typedef struct soft_signal_t {
  _Atomic int64_t value;
  _Atomic uint32_t seq;     /* bumped on every change: what sleepers wait on */
  _Atomic uint32_t waiters;
  soft_hsa_t* soft;
  bool doorbell;            /* a queue's doorbell: wakes only its consumer */
  bool gpu_only;            /* HSA_AMD_SIGNAL_AMD_GPU_ONLY: stores wake nobody */
  struct soft_signal_t* next_dead;
} soft_signal_t;

typedef struct soft_kernel_t {
  char name[128];           /* without ".kd" */
  uint32_t kernarg_size, kernarg_align, group_size, private_size;
  struct soft_kernel_t* next;
} soft_kernel_t;

typedef struct soft_queue_t {
  hsa_queue_t q;            /* first: an hsa_queue_t* is a soft_queue_t* */
  soft_hsa_t* soft;
  air_aql_packet_t* ring;
  _Atomic uint64_t write_index, read_index;
  soft_signal_t doorbell;
  pthread_t thread;
  _Atomic int stop, failed;
  void (*callback)(hsa_status_t, hsa_queue_t*, void*);
  void* data;
  air_aql_ring_t producer;  /* for packets the runtime itself writes (copies) */
} soft_queue_t;

typedef struct soft_pool_t {
  bool gpu;
  uint32_t flags;
} soft_pool_t;

struct soft_hsa_t {
  soft_hsa_options_t opt;
  char gpu_name[64];
  int cpu_tag, gpu_tag;
  soft_pool_t pools[3]; /* GPU coarse, CPU fine, CPU kernarg */
  pthread_mutex_t lock; /* kernels, copy queue creation */
  soft_kernel_t* kernels;
  soft_queue_t* copy_queue;
  _Atomic uint32_t any_seq, any_waiters; /* any signal changed */
  _Atomic uint64_t dispatches, barriers, copies, failed_packets, signals_created, doorbells;
  _Atomic int initialised;
  /* Destroyed signals, freed with the runtime: a consumer that has just made a
   * signal reach 0 may still be waking its waiters when the host destroys it. */
  soft_signal_t* dead;
};

/* One soft runtime per process: HSA's entry points carry no context. */
static soft_hsa_t* g_soft;

/*--- signals ---------------------------------------------------------------*/

static soft_signal_t* sig(hsa_signal_t s) { return (soft_signal_t*)(uintptr_t)s.handle; }

static void signal_changed(soft_signal_t* s) {
  atomic_fetch_add(&s->seq, 1);
  if (atomic_load(&s->waiters)) air_futex_wake_all(&s->seq);
  soft_hsa_t* soft = s->soft;
  if (soft) {
    atomic_fetch_add(&soft->any_seq, 1);
    if (atomic_load(&soft->any_waiters)) air_futex_wake_all(&soft->any_seq);
  }
}

static void bell_store(hsa_signal_t s, hsa_signal_value_t v);

static void s_store(hsa_signal_t s, hsa_signal_value_t v) {
  if (sig(s)->doorbell) {
    bell_store(s, v);
    return;
  }
  atomic_store(&sig(s)->value, v);
  /* Like ROCr's memory-only signals: packet processors poll them, so a store
   * (the host's reset) raises no event. */
  if (!sig(s)->gpu_only) signal_changed(sig(s));
}

static void s_add(soft_signal_t* s, int64_t d) {
  atomic_fetch_add(&s->value, d);
  signal_changed(s);
}

static bool holds(hsa_signal_condition_t c, int64_t v, int64_t cmp) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_EQ: return v == cmp;
    case HSA_SIGNAL_CONDITION_NE: return v != cmp;
    case HSA_SIGNAL_CONDITION_LT: return v < cmp;
    default: return v >= cmp;
  }
}

static hsa_status_t signal_create(hsa_signal_value_t v, uint32_t n, const hsa_agent_t* c,
                                  hsa_signal_t* out) {
  (void)n, (void)c;
  soft_signal_t* s = calloc(1, sizeof *s);
  if (!s) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  atomic_init(&s->value, v);
  s->soft = g_soft;
  if (g_soft) atomic_fetch_add(&g_soft->signals_created, 1);
  out->handle = (uint64_t)(uintptr_t)s;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t amd_signal_create(hsa_signal_value_t v, uint32_t n, const hsa_agent_t* c,
                                      uint64_t attributes, hsa_signal_t* out) {
  hsa_status_t st = signal_create(v, n, c, out);
  if (st == HSA_STATUS_SUCCESS && n == 0 && (attributes & HSA_AMD_SIGNAL_AMD_GPU_ONLY))
    sig(*out)->gpu_only = true;
  return st;
}

static hsa_status_t signal_destroy(hsa_signal_t s) {
  if (!s.handle) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  soft_signal_t* d = sig(s);
  soft_hsa_t* soft = d->soft;
  if (!soft) {
    free(d);
    return HSA_STATUS_SUCCESS;
  }
  pthread_mutex_lock(&soft->lock);
  d->next_dead = soft->dead;
  soft->dead = d;
  pthread_mutex_unlock(&soft->lock);
  return HSA_STATUS_SUCCESS;
}

static hsa_signal_value_t signal_load(hsa_signal_t s) { return atomic_load(&sig(s)->value); }

static hsa_signal_value_t signal_wait(hsa_signal_t h, hsa_signal_condition_t c,
                                      hsa_signal_value_t cmp, uint64_t timeout,
                                      hsa_wait_state_t state) {
  (void)state;
  soft_signal_t* s = sig(h);
  int64_t deadline = timeout == UINT64_MAX ? INT64_MAX : air_time_now_ns() + (int64_t)timeout;
  for (uint32_t spins = 0;; ++spins) {
    int64_t v = atomic_load(&s->value);
    if (holds(c, v, cmp)) return v;
    if (air_time_now_ns() >= deadline) return v;
    if (spins < 2000) {
      air_cpu_relax();
      continue;
    }
    atomic_fetch_add(&s->waiters, 1);
    uint32_t seq = atomic_load(&s->seq);
    v = atomic_load(&s->value);
    if (!holds(c, v, cmp)) air_futex_wait(&s->seq, seq, 1000000);
    atomic_fetch_sub(&s->waiters, 1);
  }
}

static uint32_t signal_wait_any(uint32_t n, hsa_signal_t* sigs, hsa_signal_condition_t* conds,
                                hsa_signal_value_t* cmps, uint64_t timeout, hsa_wait_state_t st,
                                hsa_signal_value_t* out_value) {
  (void)st;
  soft_hsa_t* soft = g_soft;
  int64_t deadline = timeout == UINT64_MAX ? INT64_MAX : air_time_now_ns() + (int64_t)timeout;
  for (uint32_t spins = 0;; ++spins) {
    uint32_t seq = atomic_load(&soft->any_seq);
    for (uint32_t i = 0; i < n; ++i) {
      int64_t v = atomic_load(&sig(sigs[i])->value);
      if (holds(conds[i], v, cmps[i])) {
        if (out_value) *out_value = v;
        return i;
      }
    }
    if (air_time_now_ns() >= deadline) return UINT32_MAX;
    if (spins < 2000) {
      air_cpu_relax();
      continue;
    }
    atomic_fetch_add(&soft->any_waiters, 1);
    air_futex_wait(&soft->any_seq, seq, 1000000);
    atomic_fetch_sub(&soft->any_waiters, 1);
  }
}

/*--- the packet processor ----------------------------------------------------*/

static soft_kernel_t* kernel_of(soft_hsa_t* soft, uint64_t object) {
  pthread_mutex_lock(&soft->lock);
  soft_kernel_t* k = soft->kernels;
  while (k && (uint64_t)(uintptr_t)k != object) k = k->next;
  pthread_mutex_unlock(&soft->lock);
  return k;
}

/* Waits until every dependency is 0; false when one is negative or on stop. */
static bool wait_deps(soft_queue_t* sq, const uint64_t* deps, uint32_t n) {
  soft_hsa_t* soft = sq->soft;
  for (uint32_t spins = 0;; ++spins) {
    uint32_t seq = atomic_load(&soft->any_seq);
    bool all = true;
    for (uint32_t i = 0; i < n; ++i) {
      if (!deps[i]) continue;
      int64_t v = atomic_load(&((soft_signal_t*)(uintptr_t)deps[i])->value);
      if (v < 0) return false;
      if (v != 0) all = false;
    }
    if (all) return true;
    if (atomic_load(&sq->stop)) return false;
    if (spins < 2000) {
      air_cpu_relax();
      continue;
    }
    atomic_fetch_add(&soft->any_waiters, 1);
    air_futex_wait(&soft->any_seq, seq, 1000000);
    atomic_fetch_sub(&soft->any_waiters, 1);
  }
}

/* The soft runtime's own packet for an async copy (vendor-specific type). */
typedef struct copy_packet_t {
  uint16_t header, reserved0;
  uint32_t reserved1;
  uint64_t dst, src, size;
  uint64_t reserved2[3];
  uint64_t completion_signal;
} copy_packet_t;
_Static_assert(sizeof(copy_packet_t) == 64, "a packet");

static bool run_packet(soft_queue_t* sq, air_aql_packet_t* p, uint32_t type) {
  soft_hsa_t* soft = sq->soft;
  switch (type) {
    case AIR_AQL_TYPE_BARRIER_AND:
      atomic_fetch_add(&soft->barriers, 1);
      return wait_deps(sq, p->barrier.dep_signal, AIR_AQL_BARRIER_DEPS);
    case AIR_AQL_TYPE_KERNEL_DISPATCH: {
      atomic_fetch_add(&soft->dispatches, 1);
      soft_kernel_t* k = kernel_of(soft, p->dispatch.kernel_object);
      if (!soft->opt.dispatch) return k != NULL;
      return soft->opt.dispatch(soft->opt.dispatch_user, k ? k->name : NULL,
                                (const hsa_kernel_dispatch_packet_t*)p) == 0;
    }
    case AIR_AQL_TYPE_VENDOR: {
      const copy_packet_t* c = (const copy_packet_t*)p;
      atomic_fetch_add(&soft->copies, 1);
      memmove((void*)(uintptr_t)c->dst, (const void*)(uintptr_t)c->src, c->size);
      return true;
    }
    default:
      return false;
  }
}

static void* consumer(void* arg) {
  soft_queue_t* sq = arg;
  soft_signal_t* bell = &sq->doorbell;
  for (;;) {
    uint64_t r = atomic_load_explicit(&sq->read_index, memory_order_relaxed);
    air_aql_packet_t* p = &sq->ring[r & (sq->q.size - 1)];
    uint32_t word;
    for (uint32_t spins = 0;; ++spins) {
      word = air_aql_load_header(p);
      if (air_aql_header_type((uint16_t)word) != AIR_AQL_TYPE_INVALID) break;
      if (atomic_load(&sq->stop)) return NULL;
      if (spins < 2000) {
        air_cpu_relax();
        continue;
      }
      atomic_fetch_add(&bell->waiters, 1);
      uint32_t seq = atomic_load(&bell->seq);
      if (air_aql_header_type((uint16_t)air_aql_load_header(p)) == AIR_AQL_TYPE_INVALID &&
          !atomic_load(&sq->stop))
        air_futex_wait(&bell->seq, seq, 1000000);
      atomic_fetch_sub(&bell->waiters, 1);
    }
    if (atomic_load(&sq->failed)) {
      /* A queue in error processes nothing more; it only waits to be destroyed. */
      while (!atomic_load(&sq->stop)) air_futex_wait(&bell->seq, atomic_load(&bell->seq), 1000000);
      return NULL;
    }
    uint32_t type = air_aql_header_type((uint16_t)word);
    bool ok = run_packet(sq, p, type);
    uint64_t completion = p->dispatch.completion_signal; /* same offset in every packet */
    if (ok) {
      if (completion) s_add((soft_signal_t*)(uintptr_t)completion, -1);
    } else if (!atomic_load(&sq->stop)) {
      atomic_fetch_add(&sq->soft->failed_packets, 1);
      if (completion) s_store((hsa_signal_t){completion}, -1);
      atomic_store(&sq->failed, 1);
      if (sq->callback) sq->callback(HSA_STATUS_ERROR_EXCEPTION, &sq->q, sq->data);
    }
    __atomic_store_n(&p->words[0], (uint32_t)AIR_AQL_TYPE_INVALID, __ATOMIC_RELEASE);
    atomic_store_explicit(&sq->read_index, r + 1, memory_order_release);
    if (!ok) continue;
  }
}

/*--- queues ------------------------------------------------------------------*/

static uint64_t q_add_write(const hsa_queue_t* q, uint64_t n) {
  return atomic_fetch_add_explicit(&((soft_queue_t*)q)->write_index, n, memory_order_relaxed);
}
static uint64_t q_load_read(const hsa_queue_t* q) {
  return atomic_load_explicit(&((soft_queue_t*)q)->read_index, memory_order_acquire);
}
static void bell_store(hsa_signal_t s, hsa_signal_value_t v) {
  soft_signal_t* b = sig(s);
  if (b->soft) atomic_fetch_add(&b->soft->doorbells, 1);
  atomic_store(&b->value, v);
  atomic_fetch_add(&b->seq, 1);
  if (atomic_load(&b->waiters)) air_futex_wake_all(&b->seq);
}

/* Producer callbacks for the runtime's own packets. */
static uint64_t ring_add(void* q, uint64_t n) { return q_add_write(q, n); }
static uint64_t ring_read(void* q) { return q_load_read(q); }
static void ring_bell(void* q, uint64_t id) { bell_store(((hsa_queue_t*)q)->doorbell_signal, (int64_t)id); }
static const air_aql_queue_ops_t k_ring_ops = {ring_add, ring_read, ring_bell};

static hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                 void (*cb)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                 uint32_t priv, uint32_t group, hsa_queue_t** out) {
  (void)type, (void)priv, (void)group;
  soft_hsa_t* soft = g_soft;
  if (!soft || agent.handle != (uint64_t)(uintptr_t)&soft->gpu_tag) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (size < 2 || (size & (size - 1)) || size > soft->opt.queue_max_size)
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  soft_queue_t* sq = calloc(1, sizeof *sq);
  air_aql_packet_t* ring = NULL;
  if (!sq || posix_memalign((void**)&ring, 64, (size_t)size * 64)) {
    free(sq);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  air_aql_ring_clear(ring, size);
  sq->soft = soft;
  sq->ring = ring;
  sq->q.type = HSA_QUEUE_TYPE_MULTI;
  sq->q.base_address = ring;
  sq->q.size = size;
  sq->q.doorbell_signal.handle = (uint64_t)(uintptr_t)&sq->doorbell;
  sq->doorbell.soft = soft;
  sq->doorbell.doorbell = true;
  sq->callback = cb;
  sq->data = data;
  sq->producer = (air_aql_ring_t){ring, size, &sq->q, &k_ring_ops, &sq->failed, 0};
  if (pthread_create(&sq->thread, NULL, consumer, sq)) {
    free(ring);
    free(sq);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  *out = &sq->q;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t queue_destroy(hsa_queue_t* q) {
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  soft_queue_t* sq = (soft_queue_t*)q;
  atomic_store(&sq->stop, 1);
  bell_store(q->doorbell_signal, -1);
  air_futex_wake_all(&sq->soft->any_seq);
  pthread_join(sq->thread, NULL);
  free(sq->ring);
  free(sq);
  return HSA_STATUS_SUCCESS;
}

/*--- copies ------------------------------------------------------------------*/

static hsa_status_t async_copy(void* dst, hsa_agent_t da, const void* src, hsa_agent_t sa,
                               size_t size, uint32_t ndeps, const hsa_signal_t* deps,
                               hsa_signal_t completion) {
  (void)da, (void)sa;
  soft_hsa_t* soft = g_soft;
  pthread_mutex_lock(&soft->lock);
  if (!soft->copy_queue) {
    hsa_queue_t* q = NULL;
    if (queue_create((hsa_agent_t){(uint64_t)(uintptr_t)&soft->gpu_tag}, 256, HSA_QUEUE_TYPE_MULTI,
                     NULL, NULL, 0, 0, &q) == HSA_STATUS_SUCCESS)
      soft->copy_queue = (soft_queue_t*)q;
  }
  soft_queue_t* cq = soft->copy_queue;
  pthread_mutex_unlock(&soft->lock);
  if (!cq) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  uint32_t nb = air_aql_barrier_count(ndeps);
  if (nb + 1 > cq->q.size) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t first;
  air_status_t s = air_aql_ring_reserve(&cq->producer, nb + 1, &first);
  if (s) {
    air_status_free(s);
    return HSA_STATUS_ERROR;
  }
  const uint64_t* dep_handles = (const uint64_t*)deps; /* hsa_signal_t is one u64 */
  for (uint32_t k = 0; k < nb; ++k) {
    air_aql_packet_t* p = air_aql_ring_slot(&cq->producer, first + k);
    air_aql_fill_barrier_and(p, dep_handles, ndeps, k, 0);
    air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_BARRIER_AND, true, 0, 0), 0);
  }
  copy_packet_t* c = (copy_packet_t*)air_aql_ring_slot(&cq->producer, first + nb);
  memset((char*)c + 4, 0, sizeof *c - 4);
  c->dst = (uint64_t)(uintptr_t)dst;
  c->src = (uint64_t)(uintptr_t)src;
  c->size = size;
  c->completion_signal = completion.handle;
  air_aql_publish((air_aql_packet_t*)c, air_aql_header(AIR_AQL_TYPE_VENDOR, true, 0, 0), 0);
  air_aql_ring_doorbell(&cq->producer, first + nb);
  return HSA_STATUS_SUCCESS;
}

/*--- agents, pools, memory ---------------------------------------------------*/

static hsa_status_t init(void) {
  soft_hsa_t* soft = g_soft;
  if (!soft || soft->opt.fail_init) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  atomic_fetch_add(&soft->initialised, 1);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t shut_down(void) {
  if (!g_soft || atomic_load(&g_soft->initialised) == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  atomic_fetch_sub(&g_soft->initialised, 1);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t status_string(hsa_status_t st, const char** out) {
  switch (st) {
    case HSA_STATUS_SUCCESS: *out = "HSA_STATUS_SUCCESS"; break;
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      *out = "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
             "resources.";
      break;
    case HSA_STATUS_ERROR_EXCEPTION: *out = "HSA_STATUS_ERROR_EXCEPTION: a packet failed"; break;
    case HSA_STATUS_ERROR_INVALID_ISA: *out = "HSA_STATUS_ERROR_INVALID_ISA"; break;
    default: *out = "HSA_STATUS_ERROR (soft HSA)"; break;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void*), void* data) {
  soft_hsa_t* soft = g_soft;
  if (!soft || !atomic_load(&soft->initialised)) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  hsa_status_t st = cb((hsa_agent_t){(uint64_t)(uintptr_t)&soft->cpu_tag}, data);
  if (st == HSA_STATUS_SUCCESS && !soft->opt.no_gpu)
    st = cb((hsa_agent_t){(uint64_t)(uintptr_t)&soft->gpu_tag}, data);
  return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
}

static hsa_status_t agent_info(hsa_agent_t agent, hsa_agent_info_t attr, void* value) {
  soft_hsa_t* soft = g_soft;
  bool gpu = agent.handle == (uint64_t)(uintptr_t)&soft->gpu_tag;
  switch ((int)attr) {
    case HSA_AGENT_INFO_DEVICE:
      *(hsa_device_type_t*)value = gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_NAME:
      memset(value, 0, 64);
      snprintf(value, 64, "%s", gpu ? soft->gpu_name : "soft-cpu");
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
      memset(value, 0, 64);
      snprintf(value, 64, "%s", gpu ? "soft HSA GPU (tests)" : "soft HSA CPU");
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
      *(uint32_t*)value = gpu ? soft->opt.compute_units : 2;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_WAVEFRONT_SIZE:
      *(uint32_t*)value = strncmp(soft->gpu_name, "gfx1", 4) == 0 ? 32 : 64;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
      *(uint32_t*)value = gpu ? soft->opt.queue_max_size : 0;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_PROFILE:
      *(hsa_profile_t*)value = HSA_PROFILE_BASE;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

static hsa_status_t iterate_pools(hsa_agent_t agent, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void*),
                                  void* data) {
  soft_hsa_t* soft = g_soft;
  bool gpu = agent.handle == (uint64_t)(uintptr_t)&soft->gpu_tag;
  for (int i = 0; i < 3; ++i) {
    if (soft->pools[i].gpu != gpu) continue;
    hsa_status_t st = cb((hsa_amd_memory_pool_t){(uint64_t)(uintptr_t)&soft->pools[i]}, data);
    if (st != HSA_STATUS_SUCCESS) return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t pool_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attr, void* value) {
  const soft_pool_t* p = (const soft_pool_t*)(uintptr_t)pool.handle;
  switch (attr) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *(hsa_amd_segment_t*)value = HSA_AMD_SEGMENT_GLOBAL; break;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: *(uint32_t*)value = p->flags; break;
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: *(size_t*)value = (size_t)1 << 34; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *(bool*)value = true; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *(size_t*)value = 4096; break;
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: *(bool*)value = !p->gpu; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** out) {
  (void)pool, (void)flags;
  void* p = NULL;
  if (posix_memalign(&p, 4096, size ? (size + 4095) & ~(size_t)4095 : 4096))
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  *out = p;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t pool_free(void* p) {
  free(p);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t allow_access(uint32_t n, const hsa_agent_t* agents, const uint32_t* flags,
                                 const void* ptr) {
  (void)n, (void)agents, (void)flags;
  return ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/*--- code objects and executables ---------------------------------------------*/

typedef struct soft_reader_t {
  const void* data;
  size_t size;
} soft_reader_t;

static hsa_status_t reader_create(const void* data, size_t size, hsa_code_object_reader_t* out) {
  soft_reader_t* r = malloc(sizeof *r);
  if (!r) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  *r = (soft_reader_t){data, size};
  out->handle = (uint64_t)(uintptr_t)r;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t reader_destroy(hsa_code_object_reader_t r) {
  free((void*)(uintptr_t)r.handle);
  return HSA_STATUS_SUCCESS;
}

static soft_kernel_t* add_kernel(soft_hsa_t* soft, const char* name, uint32_t kernarg, uint32_t align,
                                 uint32_t group, uint32_t priv) {
  soft_kernel_t* k = calloc(1, sizeof *k);
  if (!k) return NULL;
  snprintf(k->name, sizeof k->name, "%s", name);
  k->kernarg_size = kernarg;
  k->kernarg_align = align;
  k->group_size = group;
  k->private_size = priv;
  pthread_mutex_lock(&soft->lock);
  k->next = soft->kernels;
  soft->kernels = k;
  pthread_mutex_unlock(&soft->lock);
  return k;
}

uint64_t soft_hsa_define_kernel(soft_hsa_t* soft, const char* name, uint32_t kernarg_size) {
  return (uint64_t)(uintptr_t)add_kernel(soft, name, kernarg_size, 16, 0, 0);
}

static hsa_status_t exe_create(hsa_profile_t p, hsa_default_float_rounding_mode_t r, const char* o,
                               hsa_executable_t* out) {
  (void)p, (void)r, (void)o;
  out->handle = 1; /* kernels live in the runtime's list, not in the executable */
  return HSA_STATUS_SUCCESS;
}

/* Loading reads the code object with libairrt's reader and defines its kernels:
 * an object for another processor is refused as ROCr refuses it. */
static hsa_status_t exe_load(hsa_executable_t exe, hsa_agent_t agent, hsa_code_object_reader_t reader,
                             const char* options, hsa_loaded_code_object_t* loaded) {
  (void)exe, (void)agent, (void)options, (void)loaded;
  soft_hsa_t* soft = g_soft;
  const soft_reader_t* r = (const soft_reader_t*)(uintptr_t)reader.handle;
  air_amdgpu_code_object_t* co = NULL;
  air_status_t s = air_amdgpu_code_object_read(NULL, r->data, r->size, "soft HSA", &co);
  if (s) {
    air_status_free(s);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (strcmp(co->gfx->name, soft->gpu_name)) st = HSA_STATUS_ERROR_INVALID_ISA;
  for (uint32_t k = 0; k < co->n_kernels && st == HSA_STATUS_SUCCESS; ++k) {
    const air_amdgpu_kernel_t* K = &co->kernels[k];
    if (!add_kernel(soft, K->name, K->kernarg_segment_size, K->kernarg_segment_align,
                    K->group_segment_fixed_size, K->private_segment_fixed_size))
      st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  air_amdgpu_code_object_free(co);
  return st;
}

static hsa_status_t exe_freeze(hsa_executable_t e, const char* o) {
  (void)e, (void)o;
  return HSA_STATUS_SUCCESS;
}
static hsa_status_t exe_destroy(hsa_executable_t e) {
  (void)e;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exe_symbol(hsa_executable_t e, const char* name, const hsa_agent_t* agent,
                               hsa_executable_symbol_t* out) {
  (void)e, (void)agent;
  soft_hsa_t* soft = g_soft;
  size_t n = strlen(name);
  if (n < 4 || strcmp(name + n - 3, ".kd")) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  pthread_mutex_lock(&soft->lock);
  soft_kernel_t* k = soft->kernels;
  while (k && (strlen(k->name) != n - 3 || memcmp(k->name, name, n - 3))) k = k->next;
  pthread_mutex_unlock(&soft->lock);
  if (!k) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  out->handle = (uint64_t)(uintptr_t)k;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t symbol_info(hsa_executable_symbol_t sym, hsa_executable_symbol_info_t attr,
                                void* value) {
  const soft_kernel_t* k = (const soft_kernel_t*)(uintptr_t)sym.handle;
  switch (attr) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: *(hsa_symbol_kind_t*)value = HSA_SYMBOL_KIND_KERNEL; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *(uint64_t*)value = sym.handle; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: *(uint32_t*)value = k->kernarg_size; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT: *(uint32_t*)value = k->kernarg_align; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: *(uint32_t*)value = k->group_size; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: *(uint32_t*)value = k->private_size; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

/*--- the runtime ---------------------------------------------------------------*/

soft_hsa_t* soft_hsa_create(const soft_hsa_options_t* options, air_hsa_api_t* api) {
  if (g_soft) return NULL;
  soft_hsa_t* soft = calloc(1, sizeof *soft);
  if (!soft) return NULL;
  if (options) soft->opt = *options;
  snprintf(soft->gpu_name, sizeof soft->gpu_name, "%s", soft->opt.gpu_name ? soft->opt.gpu_name : "gfx90a");
  if (!soft->opt.compute_units) soft->opt.compute_units = 104;
  if (!soft->opt.queue_max_size) soft->opt.queue_max_size = 4096;
  soft->pools[0] = (soft_pool_t){true, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED};
  soft->pools[1] = (soft_pool_t){false, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED};
  soft->pools[2] = (soft_pool_t){false, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                           HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED};
  pthread_mutex_init(&soft->lock, NULL);
  g_soft = soft;
  memset(api, 0, sizeof *api);
  api->from = "soft HSA (tests)";
  api->hsa_init = init;
  api->hsa_shut_down = shut_down;
  api->hsa_status_string = status_string;
  api->hsa_iterate_agents = iterate_agents;
  api->hsa_agent_get_info = agent_info;
  api->hsa_queue_create = queue_create;
  api->hsa_queue_destroy = queue_destroy;
  api->hsa_queue_add_write_index_relaxed = q_add_write;
  api->hsa_queue_load_read_index_scacquire = q_load_read;
  api->hsa_signal_create = signal_create;
  api->hsa_amd_signal_create = amd_signal_create;
  api->hsa_signal_destroy = signal_destroy;
  api->hsa_signal_load_scacquire = signal_load;
  api->hsa_signal_store_relaxed = s_store;
  api->hsa_signal_store_screlease = s_store;
  api->hsa_signal_wait_scacquire = signal_wait;
  api->hsa_code_object_reader_create_from_memory = reader_create;
  api->hsa_code_object_reader_destroy = reader_destroy;
  api->hsa_executable_create_alt = exe_create;
  api->hsa_executable_load_agent_code_object = exe_load;
  api->hsa_executable_freeze = exe_freeze;
  api->hsa_executable_destroy = exe_destroy;
  api->hsa_executable_get_symbol_by_name = exe_symbol;
  api->hsa_executable_symbol_get_info = symbol_info;
  api->hsa_amd_agent_iterate_memory_pools = iterate_pools;
  api->hsa_amd_memory_pool_get_info = pool_info;
  api->hsa_amd_memory_pool_allocate = pool_allocate;
  api->hsa_amd_memory_pool_free = pool_free;
  api->hsa_amd_agents_allow_access = allow_access;
  api->hsa_amd_memory_async_copy = async_copy;
  api->hsa_amd_signal_wait_any = signal_wait_any;
  return soft;
}

void soft_hsa_destroy(soft_hsa_t* soft) {
  if (!soft) return;
  if (soft->copy_queue) queue_destroy(&soft->copy_queue->q);
  for (soft_kernel_t* k = soft->kernels; k;) {
    soft_kernel_t* next = k->next;
    free(k);
    k = next;
  }
  for (soft_signal_t* d = soft->dead; d;) {
    soft_signal_t* next = d->next_dead;
    free(d);
    d = next;
  }
  pthread_mutex_destroy(&soft->lock);
  if (g_soft == soft) g_soft = NULL;
  free(soft);
}

void soft_hsa_stats(const soft_hsa_t* soft, soft_hsa_stats_t* out) {
  out->dispatches = atomic_load(&soft->dispatches);
  out->barriers = atomic_load(&soft->barriers);
  out->copies = atomic_load(&soft->copies);
  out->failed_packets = atomic_load(&soft->failed_packets);
  out->signals_created = atomic_load(&soft->signals_created);
  out->doorbells = atomic_load(&soft->doorbells);
}

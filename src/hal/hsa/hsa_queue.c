/* hsa_queue.c - submissions, dependency chains and epoch completion on one HSA
 * queue (hsa_queue.h). One mutex orders submitters and the completion thread's
 * bookkeeping; the packet ring itself is the lock-free AQL protocol (amdgpu/aql.h). */
#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu/aql.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct pending_t {
  uint64_t epoch;
  air_hsa_done_fn done;
  void* arg;
  uint32_t n_signals; /* dependency signals this submission holds */
} pending_t;

struct air_hsa_queue_t {
  air_allocator_t allocator;
  const air_hsa_api_t* api;
  char name[64];
  hsa_queue_t* hq;
  air_aql_ring_t ring;
  _Atomic int failed;
  hsa_signal_t epoch; /* INITIAL - completed submissions */
  hsa_signal_t wake;  /* 0; 1 for good once the queue failed or is closing */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  pthread_t thread;
  bool stop;
  uint64_t next_epoch;
  air_status_t error; /* the first failure (set under lock) */
  /* The runtime's reason, published before `failed` so that whoever sees the queue
   * failed first takes it rather than a vaguer one. */
  _Atomic(air_status_t) reason;
  /* Submissions in flight, oldest first (a ring of pend_cap entries). */
  pending_t* pend;
  uint32_t pend_cap, pend_head, pend_count;
  /* Dependency signals: free ones, and the ones in flight in submission order. */
  hsa_signal_t* free_sigs;
  uint32_t n_free, cap_free;
  hsa_signal_t* used;
  uint32_t used_cap, used_head, used_count;
  uint32_t n_exported; /* handed out by export_signal, not yet given back */
  /* Per-submission scratch. */
  hsa_signal_t* op_sig;
  uint8_t* need;
  uint32_t op_cap;
  uint64_t* deps;
  uint32_t deps_cap;
  air_hsa_queue_stats_t stats;
};

static air_status_t take_signal(air_hsa_queue_t* q, hsa_signal_t* out, bool track);

static uint64_t ring_add(void* q, uint64_t n) {
  const air_hsa_queue_t* self = q;
  return self->api->hsa_queue_add_write_index_relaxed(self->hq, n);
}
static uint64_t ring_read(void* q) {
  const air_hsa_queue_t* self = q;
  return self->api->hsa_queue_load_read_index_scacquire(self->hq);
}
static void ring_bell(void* q, uint64_t id) {
  const air_hsa_queue_t* self = q;
  self->api->hsa_signal_store_screlease(self->hq->doorbell_signal, (hsa_signal_value_t)id);
}
static const air_aql_queue_ops_t k_ops = {ring_add, ring_read, ring_bell};

/* The runtime's queue callback: a packet faulted. `failed` first, without the lock,
 * so a submitter spinning for ring room (holding the lock) gives up. */
static void on_queue_error(hsa_status_t st, hsa_queue_t* source, void* data) {
  (void)source;
  air_hsa_queue_t* q = data;
  char what[96];
  snprintf(what, sizeof what, "AMD GPU queue '%s' failed", q->name);
  air_status_t s = air_hsa_status(&q->allocator, q->api, st, what);
  air_status_t none = NULL;
  if (!atomic_compare_exchange_strong(&q->reason, &none, s)) air_status_free(s);
  atomic_store_explicit(&q->failed, 1, memory_order_release);
  q->api->hsa_signal_store_screlease(q->wake, 1);
  pthread_mutex_lock(&q->lock);
  if (!q->error) q->error = atomic_exchange(&q->reason, NULL);
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
}

static void fail_locked(air_hsa_queue_t* q, const char* why) {
  if (!q->error) q->error = atomic_exchange(&q->reason, NULL);
  if (!q->error)
    q->error = AIR_STATUS(&q->allocator, AIR_STATUS_INTERNAL, "AMD GPU queue '%s': %s", q->name, why);
  atomic_store(&q->failed, 1);
  q->api->hsa_signal_store_screlease(q->wake, 1);
}

static void* completion_main(void* arg) {
  air_hsa_queue_t* q = arg;
  const air_hsa_api_t* api = q->api;
  enum { BATCH = 32 };
  pending_t done[BATCH];
  pthread_mutex_lock(&q->lock);
  for (;;) {
    while (q->pend_count == 0 && !q->stop) pthread_cond_wait(&q->cond, &q->lock);
    if (q->pend_count == 0) break;
    uint64_t target = q->pend[q->pend_head].epoch;
    bool failed = atomic_load(&q->failed);
    pthread_mutex_unlock(&q->lock);
    if (!failed) {
      hsa_signal_t sigs[2] = {q->epoch, q->wake};
      hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_NE};
      hsa_signal_value_t vals[2] = {AIR_HSA_EPOCH_INITIAL - (int64_t)target + 1, 0};
      api->hsa_amd_signal_wait_any(2, sigs, conds, vals, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL);
    }
    hsa_signal_value_t v = api->hsa_signal_load_scacquire(q->epoch);
    pthread_mutex_lock(&q->lock);
    if (v < 0) fail_locked(q, "a packet failed (the completion signal went negative)");
    failed = atomic_load(&q->failed);
    /* Failed, but the runtime's callback has not recorded why yet: take its reason
     * now, so no pending submission completes as if it had succeeded. */
    if (failed && !q->error) fail_locked(q, "a packet failed");
    uint64_t completed = v < 0 ? 0 : (uint64_t)(AIR_HSA_EPOCH_INITIAL - v);
    uint32_t n = 0;
    while (q->pend_count && n < BATCH && (failed || q->pend[q->pend_head].epoch <= completed)) {
      pending_t* p = &q->pend[q->pend_head];
      done[n++] = *p;
      /* Its signals are free again: every packet that could wait on them is done. */
      for (uint32_t k = 0; k < p->n_signals; ++k) {
        q->free_sigs[q->n_free++] = q->used[q->used_head];
        q->used_head = (q->used_head + 1) % q->used_cap;
        q->used_count--;
      }
      q->pend_head = (q->pend_head + 1) % q->pend_cap;
      q->pend_count--;
    }
    air_status_t err = failed ? q->error : NULL;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    for (uint32_t i = 0; i < n; ++i)
      if (done[i].done) done[i].done(done[i].arg, err);
    pthread_mutex_lock(&q->lock);
  }
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

air_status_t air_hsa_queue_create(const air_allocator_t* a, const air_hsa_api_t* api,
                                  hsa_agent_t agent, uint32_t size, const char* name,
                                  air_hsa_queue_t** out) {
  *out = NULL;
  air_hsa_queue_t* q = air_mem_calloc(a, 1, sizeof *q);
  if (!q) return AIR_STATUS_OOM(a, "hsa queue");
  q->allocator = *a;
  q->api = api;
  snprintf(q->name, sizeof q->name, "%s", name ? name : "gpu");
  hsa_status_t st = api->hsa_signal_create(AIR_HSA_EPOCH_INITIAL, 0, NULL, &q->epoch);
  if (st == HSA_STATUS_SUCCESS) {
    st = api->hsa_signal_create(0, 0, NULL, &q->wake);
    if (st != HSA_STATUS_SUCCESS) api->hsa_signal_destroy(q->epoch);
  }
  if (st != HSA_STATUS_SUCCESS) {
    air_mem_free(a, q);
    return air_hsa_status(a, api, st, "hsa_signal_create");
  }
  st = api->hsa_queue_create(agent, size, HSA_QUEUE_TYPE_MULTI, on_queue_error, q, UINT32_MAX,
                             UINT32_MAX, &q->hq);
  if (st != HSA_STATUS_SUCCESS) {
    api->hsa_signal_destroy(q->epoch);
    api->hsa_signal_destroy(q->wake);
    air_mem_free(a, q);
    char what[96];
    snprintf(what, sizeof what, "hsa_queue_create (%u packets)", size);
    return air_hsa_status(a, api, st, what);
  }
  q->ring = (air_aql_ring_t){(air_aql_packet_t*)q->hq->base_address, q->hq->size, q, &k_ops,
                             &q->failed, 0};
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->cond, NULL);
  if (pthread_create(&q->thread, NULL, completion_main, q)) {
    api->hsa_queue_destroy(q->hq);
    api->hsa_signal_destroy(q->epoch);
    api->hsa_signal_destroy(q->wake);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    air_mem_free(a, q);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "hsa queue: cannot start its thread");
  }
  /* Warm the signal pool: ROCr takes 10-50 us to create a signal, which the first
   * submissions with dependencies should not pay. */
  pthread_mutex_lock(&q->lock);
  for (uint32_t i = 0; i < AIR_HSA_WARM_SIGNALS; ++i) {
    hsa_signal_t s;
    air_status_t st2 = take_signal(q, &s, true);
    if (st2) {
      air_status_free(st2);
      break;
    }
  }
  while (q->used_count) {
    q->free_sigs[q->n_free++] = q->used[q->used_head];
    q->used_head = (q->used_head + 1) % q->used_cap;
    q->used_count--;
  }
  pthread_mutex_unlock(&q->lock);
  *out = q;
  return NULL;
}

void air_hsa_queue_destroy(air_hsa_queue_t* q) {
  if (!q) return;
  pthread_mutex_lock(&q->lock);
  q->stop = true;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
  pthread_join(q->thread, NULL);
  const air_hsa_api_t* api = q->api;
  api->hsa_queue_destroy(q->hq);
  for (uint32_t i = 0; i < q->n_free; ++i) api->hsa_signal_destroy(q->free_sigs[i]);
  for (uint32_t i = 0; i < q->used_count; ++i)
    api->hsa_signal_destroy(q->used[(q->used_head + i) % q->used_cap]);
  api->hsa_signal_destroy(q->epoch);
  api->hsa_signal_destroy(q->wake);
  air_status_free(q->error);
  air_status_free(atomic_load(&q->reason));
  const air_allocator_t* a = &q->allocator;
  air_mem_free(a, q->pend);
  air_mem_free(a, q->free_sigs);
  air_mem_free(a, q->used);
  air_mem_free(a, q->op_sig);
  air_mem_free(a, q->need);
  air_mem_free(a, q->deps);
  pthread_mutex_destroy(&q->lock);
  pthread_cond_destroy(&q->cond);
  air_allocator_t copy = *a;
  air_mem_free(&copy, q);
}

/* A dependency signal at 1, from the pool or new; recorded as in flight when
 * `track` (it returns to the pool with its submission), else counted as exported
 * (air_hsa_queue_give_signal returns it). Every signal fits the arrays: free +
 * in flight + exported <= capacity. */
static air_status_t take_signal(air_hsa_queue_t* q, hsa_signal_t* out, bool track) {
  if (!q->n_free && q->used_count + q->n_exported == q->used_cap) {
    /* Grow the in-flight ring, keeping its order. */
    uint32_t cap = q->used_cap ? q->used_cap * 2 : 64;
    hsa_signal_t* u = air_mem_calloc(&q->allocator, cap, sizeof *u);
    hsa_signal_t* f = air_mem_calloc(&q->allocator, cap, sizeof *f);
    if (!u || !f) {
      air_mem_free(&q->allocator, u);
      air_mem_free(&q->allocator, f);
      return AIR_STATUS_OOM(&q->allocator, "hsa queue signals");
    }
    for (uint32_t i = 0; i < q->used_count; ++i) u[i] = q->used[(q->used_head + i) % q->used_cap];
    if (q->n_free) memcpy(f, q->free_sigs, q->n_free * sizeof *f);
    air_mem_free(&q->allocator, q->used);
    air_mem_free(&q->allocator, q->free_sigs);
    q->used = u;
    q->free_sigs = f;
    q->used_head = 0;
    q->used_cap = q->cap_free = cap;
  }
  hsa_signal_t s;
  if (q->n_free) {
    s = q->free_sigs[--q->n_free];
    q->api->hsa_signal_store_relaxed(s, 1);
  } else {
    /* Only packet processors wait on it: ROCr then makes a plain memory signal,
     * whose reset below is a store, not a kernel event. */
    hsa_status_t st = q->api->hsa_amd_signal_create(1, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &s);
    if (st != HSA_STATUS_SUCCESS) return air_hsa_status(&q->allocator, q->api, st, "hsa_signal_create");
    q->stats.signals_created++;
  }
  if (track) q->used[(q->used_head + q->used_count++) % q->used_cap] = s;
  else q->n_exported++;
  *out = s;
  return NULL;
}

void air_hsa_queue_give_signal(air_hsa_queue_t* q, hsa_signal_t s) {
  if (!s.handle) return;
  pthread_mutex_lock(&q->lock);
  q->free_sigs[q->n_free++] = s;
  q->n_exported--;
  pthread_mutex_unlock(&q->lock);
}

static bool needs_chain(const air_hsa_op_t* op, uint32_t i) {
  return op->n_waits > 0 || op->n_deps > 1 || (op->n_deps == 1 && op->deps[0] + 1 != i);
}

static air_status_t grow_scratch(air_hsa_queue_t* q, uint32_t n_ops, uint32_t n_deps) {
  const air_allocator_t* a = &q->allocator;
  if (n_ops > q->op_cap) {
    air_mem_free(a, q->op_sig);
    air_mem_free(a, q->need);
    q->op_sig = air_mem_calloc(a, n_ops, sizeof *q->op_sig);
    q->need = air_mem_calloc(a, n_ops, 1);
    q->op_cap = q->op_sig && q->need ? n_ops : 0;
    if (!q->op_cap) return AIR_STATUS_OOM(a, "hsa submission");
  }
  if (n_deps > q->deps_cap) {
    air_mem_free(a, q->deps);
    q->deps = air_mem_calloc(a, n_deps, sizeof *q->deps);
    q->deps_cap = q->deps ? n_deps : 0;
    if (!q->deps) return AIR_STATUS_OOM(a, "hsa submission");
  }
  return NULL;
}

/* Publishes one operation: its barrier-AND chain, then its own packet. */
static air_status_t publish_op(air_hsa_queue_t* q, const air_hsa_op_t* op, uint32_t i,
                               uint64_t* last_id) {
  uint32_t n = 0;
  bool chain = needs_chain(op, i);
  if (chain) {
    for (uint32_t k = 0; k < op->n_deps; ++k) q->deps[n++] = q->op_sig[op->deps[k]].handle;
    for (uint32_t k = 0; k < op->n_waits; ++k) q->deps[n++] = op->waits[k].handle;
  }
  uint32_t nb = air_aql_barrier_count(n);
  uint64_t first;
  AIR_RETURN_IF_ERROR(air_aql_ring_reserve(&q->ring, nb + 1, &first));
  for (uint32_t k = 0; k < nb; ++k) {
    air_aql_packet_t* p = air_aql_ring_slot(&q->ring, first + k);
    air_aql_fill_barrier_and(p, q->deps, n, k, 0);
    air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_BARRIER_AND, false, AIR_AQL_SCOPE_SYSTEM,
                                      AIR_AQL_SCOPE_NONE), 0);
  }
  q->stats.barrier_packets += nb;
  bool barrier_bit = !chain && op->n_deps == 1;
  uint64_t completion = q->need[i] ? q->op_sig[i].handle : 0;
  air_aql_packet_t* p = air_aql_ring_slot(&q->ring, first + nb);
  if (op->kind == AIR_HSA_OP_DISPATCH) {
    air_aql_dispatch_t* d = &p->dispatch;
    d->workgroup_size_x = op->workgroup[0];
    d->workgroup_size_y = op->workgroup[1] ? op->workgroup[1] : 1;
    d->workgroup_size_z = op->workgroup[2] ? op->workgroup[2] : 1;
    d->reserved0 = 0;
    d->grid_size_x = op->grid[0];
    d->grid_size_y = op->grid[1] ? op->grid[1] : 1;
    d->grid_size_z = op->grid[2] ? op->grid[2] : 1;
    d->private_segment_size = op->private_segment_size;
    d->group_segment_size = op->group_segment_size;
    d->kernel_object = op->kernel_object;
    d->kernarg_address = (uint64_t)(uintptr_t)op->kernarg;
    d->reserved2 = 0;
    d->completion_signal = completion;
    air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_KERNEL_DISPATCH, barrier_bit,
                                      AIR_AQL_SCOPE_SYSTEM, AIR_AQL_SCOPE_SYSTEM),
                    (uint16_t)(op->dims ? op->dims : 1));
  } else {
    air_aql_fill_barrier_and(p, NULL, 0, 0, completion);
    air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_BARRIER_AND, barrier_bit, AIR_AQL_SCOPE_NONE,
                                      AIR_AQL_SCOPE_SYSTEM), 0);
  }
  q->stats.packets += nb + 1;
  *last_id = first + nb;
  return NULL;
}

air_status_t air_hsa_queue_submit(air_hsa_queue_t* q, const air_hsa_op_t* ops, uint32_t n_ops,
                                  hsa_signal_t* out_signals, air_hsa_done_fn done, void* arg,
                                  uint64_t* out_epoch) {
  const air_allocator_t* a = &q->allocator;
  /* Checked before anything is published: a half-published submission would
   * leave the queue waiting on signals nobody holds. */
  uint32_t max_deps = 0;
  for (uint32_t i = 0; i < n_ops; ++i) {
    for (uint32_t k = 0; k < ops[i].n_deps; ++k)
      if (ops[i].deps[k] >= i)
        return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                          "hsa submission: operation %u depends on %u, which is not before it",
                          i, ops[i].deps[k]);
    if (ops[i].n_deps + ops[i].n_waits > max_deps) max_deps = ops[i].n_deps + ops[i].n_waits;
    if (air_aql_barrier_count(ops[i].n_deps + ops[i].n_waits) + 2 > q->ring.size)
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                        "hsa submission: operation %u waits for %u signals, more than a ring of "
                        "%u packets can chain", i, ops[i].n_deps + ops[i].n_waits, q->ring.size);
  }
  pthread_mutex_lock(&q->lock);
  air_status_t s = NULL;
  if (atomic_load(&q->failed)) {
    s = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE, "%s",
                   q->error ? air_status_message(q->error) : "the AMD GPU queue failed");
    goto out;
  }
  if ((s = grow_scratch(q, n_ops, max_deps))) goto out;
  if (q->pend_count == q->pend_cap) {
    uint32_t cap = q->pend_cap ? q->pend_cap * 2 : 16;
    pending_t* p = air_mem_calloc(a, cap, sizeof *p);
    if (!p) {
      s = AIR_STATUS_OOM(a, "hsa submission");
      goto out;
    }
    for (uint32_t i = 0; i < q->pend_count; ++i) p[i] = q->pend[(q->pend_head + i) % q->pend_cap];
    air_mem_free(a, q->pend);
    q->pend = p;
    q->pend_head = 0;
    q->pend_cap = cap;
  }
  /* Which operations something waits on by signal. */
  memset(q->need, 0, n_ops);
  for (uint32_t i = 0; i < n_ops; ++i) {
    if (ops[i].export_signal) q->need[i] = 1;
    if (needs_chain(&ops[i], i))
      for (uint32_t k = 0; k < ops[i].n_deps; ++k) q->need[ops[i].deps[k]] = 1;
  }
  uint32_t n_signals = 0;
  for (uint32_t i = 0; i < n_ops; ++i) {
    q->op_sig[i].handle = 0;
    if (q->need[i]) {
      bool exported = ops[i].export_signal != 0;
      if ((s = take_signal(q, &q->op_sig[i], !exported))) goto out;
      n_signals += !exported;
    }
    if (out_signals) out_signals[i] = ops[i].export_signal ? q->op_sig[i] : (hsa_signal_t){0};
  }
  uint64_t last = 0;
  for (uint32_t i = 0; i < n_ops && !s; ++i) s = publish_op(q, &ops[i], i, &last);
  if (s) goto out;
  /* The epoch marker: after everything before it, it decrements the epoch signal. */
  uint64_t id;
  if ((s = air_aql_ring_reserve(&q->ring, 1, &id))) goto out;
  air_aql_packet_t* p = air_aql_ring_slot(&q->ring, id);
  air_aql_fill_barrier_and(p, NULL, 0, 0, q->epoch.handle);
  air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_BARRIER_AND, true, AIR_AQL_SCOPE_NONE,
                                    AIR_AQL_SCOPE_SYSTEM), 0);
  q->stats.packets++;
  q->stats.barrier_packets++;
  air_aql_ring_doorbell(&q->ring, id);
  uint64_t epoch = ++q->next_epoch;
  q->pend[(q->pend_head + q->pend_count++) % q->pend_cap] = (pending_t){epoch, done, arg, n_signals};
  q->stats.submissions++;
  q->stats.full_waits = q->ring.full_waits;
  if (out_epoch) *out_epoch = epoch;
  pthread_cond_signal(&q->cond);
out:
  pthread_mutex_unlock(&q->lock);
  return s;
}

air_status_t air_hsa_queue_wait(air_hsa_queue_t* q, uint64_t epoch) {
  hsa_signal_t sigs[2] = {q->epoch, q->wake};
  hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_NE};
  hsa_signal_value_t vals[2] = {AIR_HSA_EPOCH_INITIAL - (int64_t)epoch + 1, 0};
  for (;;) {
    hsa_signal_value_t v = q->api->hsa_signal_load_scacquire(q->epoch);
    if (v >= 0 && v <= AIR_HSA_EPOCH_INITIAL - (int64_t)epoch) return NULL;
    if (v < 0 || atomic_load(&q->failed)) {
      /* The completion thread records the reason; wait until it has. */
      pthread_mutex_lock(&q->lock);
      if (!q->error) fail_locked(q, "a packet failed (the completion signal went negative)");
      air_status_t s = AIR_STATUS(&q->allocator, air_status_code(q->error), "%s",
                                  air_status_message(q->error));
      pthread_mutex_unlock(&q->lock);
      return s;
    }
    q->api->hsa_amd_signal_wait_any(2, sigs, conds, vals, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL);
  }
}

void air_hsa_queue_stats(const air_hsa_queue_t* q, air_hsa_queue_stats_t* out) { *out = q->stats; }
#endif /* AIR_HAVE_HSA */

typedef int air_hsa_queue_translation_unit_t;

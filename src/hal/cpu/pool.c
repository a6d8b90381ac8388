/* pool.c - worker threads over one FIFO; see pool.h.
 *
 * The queue is a singly linked FIFO under a spinlock: critical sections are a few
 * pointer moves, so a lock beats a lock-free MPMC queue here and keeps FIFO order
 * exact. Sleeping follows the same announce / re-check / futex protocol as the
 * semaphores: a worker counts itself idle, reads the epoch, re-checks the queue, and
 * sleeps only if the epoch did not move; a submitter bumps the epoch and wakes only
 * when someone sleeps. */
#define _DEFAULT_SOURCE 1
#include "hal/cpu/pool.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "hal/futex.h"
#include "runtime/base/status_util.h"

/* Per-worker statistics live with the worker, on their own cache line, so
 * counting a task never moves a shared line between cores. */
typedef struct worker_t {
  air_pool_t* pool;
  pthread_t thread;
  uint32_t index;
  char pad_before[64]; /* padding, not alignas: worker arrays come from malloc */
  _Atomic uint64_t tasks_run;
  _Atomic uint64_t sleeps;
  char pad_after[64];
} worker_t;

struct air_pool_t {
  atomic_flag lock;
  air_task_t* head;
  air_task_t* tail;
  _Atomic uint32_t queued;
  _Atomic uint32_t sleepers;
  _Atomic uint32_t epoch;
  _Atomic bool stopping;
  _Atomic uint64_t wakes;
  /* Idle spin iterations: air_pool_set_spin may change it while workers run, so
   * it is atomic; a relaxed load is enough (a tuning value, guarding no data). */
  _Atomic uint32_t spin;
  uint32_t n_workers;
  worker_t* workers;
  air_allocator_t allocator;
};

static void lock(air_pool_t* p) {
  while (atomic_flag_test_and_set_explicit(&p->lock, memory_order_acquire)) air_cpu_relax();
}
static void unlock(air_pool_t* p) { atomic_flag_clear_explicit(&p->lock, memory_order_release); }

static air_task_t* pop(air_pool_t* p) {
  if (atomic_load_explicit(&p->queued, memory_order_acquire) == 0) return NULL;
  lock(p);
  air_task_t* t = p->head;
  if (t) {
    p->head = t->next;
    if (!p->head) p->tail = NULL;
    atomic_fetch_sub_explicit(&p->queued, 1, memory_order_relaxed);
  }
  unlock(p);
  return t;
}

static void* worker_main(void* arg) {
  worker_t* w = arg;
  air_pool_t* p = w->pool;
  for (;;) {
    air_task_t* t = pop(p);
    uint32_t spin = t ? 0 : atomic_load_explicit(&p->spin, memory_order_relaxed);
    for (uint32_t i = 0; !t && i < spin; ++i) {
      air_cpu_relax();
      t = pop(p);
    }
    if (t) {
      t->next = NULL;
      t->fn(t, w->index);
      /* Only this worker writes its counter: a relaxed load + store, no RMW. */
      atomic_store_explicit(&w->tasks_run,
                            atomic_load_explicit(&w->tasks_run, memory_order_relaxed) + 1,
                            memory_order_relaxed);
      continue;
    }
    atomic_fetch_add(&p->sleepers, 1);
    uint32_t e = atomic_load(&p->epoch);
    bool idle = atomic_load(&p->queued) == 0;
    if (idle && atomic_load(&p->stopping)) {
      atomic_fetch_sub(&p->sleepers, 1);
      return NULL;
    }
    if (idle) {
      atomic_fetch_add_explicit(&w->sleeps, 1, memory_order_relaxed);
      air_futex_wait(&p->epoch, e, -1);
    }
    atomic_fetch_sub(&p->sleepers, 1);
  }
}

static void wake(air_pool_t* p) {
  if (atomic_load(&p->sleepers) == 0) return;
  atomic_fetch_add(&p->epoch, 1);
  atomic_fetch_add_explicit(&p->wakes, 1, memory_order_relaxed);
  air_futex_wake_all(&p->epoch);
}

void air_pool_submit_chain(air_pool_t* p, air_task_t* first, air_task_t* last,
                           uint32_t count) {
  last->next = NULL;
  lock(p);
  if (p->tail)
    p->tail->next = first;
  else
    p->head = first;
  p->tail = last;
  atomic_fetch_add(&p->queued, count);
  unlock(p);
  wake(p);
}

void air_pool_submit(air_pool_t* p, air_task_t* task) {
  air_pool_submit_chain(p, task, task, 1);
}

air_status_t air_pool_create(const air_allocator_t* allocator, uint32_t threads,
                             air_pool_t** out_pool) {
  air_allocator_t a;
  if (allocator)
    a = *allocator;
  else
    air_allocator_init_system(&a);
  *out_pool = NULL;
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (uint32_t)n : 1;
  }
  if (threads > 1024)
    return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT,
                      "cpu pool: %u threads requested, at most 1024", threads);
  air_pool_t* p = a.alloc(a.self, sizeof(*p));
  worker_t* w = a.alloc(a.self, threads * sizeof(*w));
  if (!p || !w) {
    a.free(a.self, p);
    a.free(a.self, w);
    return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED, "cpu pool: out of memory");
  }
  memset(p, 0, sizeof(*p));
  atomic_flag_clear(&p->lock);
  atomic_init(&p->spin, 2000);
  p->allocator = a;
  p->workers = w;
  for (uint32_t i = 0; i < threads; ++i) {
    w[i].pool = p;
    atomic_init(&w[i].tasks_run, 0);
    atomic_init(&w[i].sleeps, 0);
    w[i].index = i;
    int rc = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
    if (rc != 0) {
      p->n_workers = i;
      air_pool_destroy(p);
      return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED,
                        "cpu pool: could not start worker %u of %u (error %d)", i, threads, rc);
    }
    p->n_workers = i + 1;
  }
  *out_pool = p;
  return NULL;
}

air_status_t air_pool_create_local(const air_allocator_t* allocator, air_pool_t** out_pool) {
  air_allocator_t a;
  if (allocator)
    a = *allocator;
  else
    air_allocator_init_system(&a);
  air_pool_t* p = a.alloc(a.self, sizeof(*p));
  *out_pool = p;
  if (!p) return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED, "cpu pool: out of memory");
  memset(p, 0, sizeof(*p));
  atomic_flag_clear(&p->lock);
  p->allocator = a;
  return NULL;
}

void air_pool_help(air_pool_t* p, const _Atomic bool* until, uint32_t worker) {
  for (;;) {
    air_task_t* t = pop(p);
    if (t) {
      t->next = NULL;
      t->fn(t, worker);
      continue;
    }
    if (atomic_load_explicit(until, memory_order_acquire)) return;
    /* Nothing queued and not finished: the work waits on another thread. Sleep
     * as a worker does (announce, re-check, sleep if the epoch did not move). A
     * submit wakes us; whoever sets *until need not (it must not touch the pool
     * after that: the helper may return and free it), so the sleep is bounded
     * and the flag re-read every millisecond. */
    atomic_fetch_add(&p->sleepers, 1);
    uint32_t e = atomic_load(&p->epoch);
    if (atomic_load(&p->queued) == 0 && !atomic_load(until))
      air_futex_wait(&p->epoch, e, 1000000);
    atomic_fetch_sub(&p->sleepers, 1);
  }
}

void air_pool_destroy(air_pool_t* p) {
  if (!p) return;
  atomic_store(&p->stopping, true);
  atomic_fetch_add(&p->epoch, 1);
  air_futex_wake_all(&p->epoch);
  for (uint32_t i = 0; i < p->n_workers; ++i) pthread_join(p->workers[i].thread, NULL);
  air_allocator_t a = p->allocator;
  a.free(a.self, p->workers);
  a.free(a.self, p);
}

uint32_t air_pool_threads(const air_pool_t* p) { return p->n_workers ? p->n_workers : 1; }

bool air_pool_asleep(const air_pool_t* p) {
  return p->n_workers &&
         atomic_load_explicit(&((air_pool_t*)p)->sleepers, memory_order_relaxed) >= p->n_workers;
}

uint32_t air_pool_queued(const air_pool_t* p) {
  return atomic_load_explicit(&((air_pool_t*)p)->queued, memory_order_relaxed);
}

void air_pool_set_spin(air_pool_t* p, uint32_t spin_iterations) {
  atomic_store_explicit(&p->spin, spin_iterations, memory_order_relaxed);
}

void air_pool_stats(const air_pool_t* p, air_pool_stats_t* out) {
  air_pool_t* q = (air_pool_t*)p;
  out->tasks_run = out->sleeps = 0;
  for (uint32_t i = 0; i < q->n_workers; ++i) {
    out->tasks_run += atomic_load_explicit(&q->workers[i].tasks_run, memory_order_relaxed);
    out->sleeps += atomic_load_explicit(&q->workers[i].sleeps, memory_order_relaxed);
  }
  out->wakes = atomic_load(&q->wakes);
}

/* pool.c - worker threads, each with its own queue; see pool.h.
 *
 * Locality: a task a worker submits goes to the front of that worker's own
 * queue, and the worker takes its next task from there (newest first), so a
 * strand and the strands it starts run on the core whose cache holds what it
 * just wrote (a segment's L2 panels and its herd's tiles, issue 14). A worker
 * with nothing of its own takes from the shared queue (submissions from threads
 * that are not this pool's workers, FIFO), then steals the oldest task of
 * another worker: what its owner would run last and is least likely to have in
 * cache. Every queue is a doubly linked list under a spinlock: critical sections
 * are a few pointer moves, so a lock beats a lock-free deque here.
 *
 * Sleeping follows the same announce / re-check / futex protocol as the
 * semaphores: a worker counts itself idle, reads the epoch, re-checks the count
 * of queued tasks (all queues), and sleeps only if the epoch did not move; a
 * submitter bumps the epoch and wakes only when someone sleeps. A sleeper woken
 * for a task queued on a busy worker steals it. */
#define _DEFAULT_SOURCE 1
#include "hal/cpu/pool.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "hal/futex.h"
#include "hal/spin.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* One queue: `head` is the newest end for a worker's own queue (its owner
 * pushes and pops there, thieves take at `tail`); the shared queue is a FIFO
 * (pushed at `tail`, taken at `head`). */
typedef struct queue_t {
  atomic_flag lock;
  _Atomic uint32_t n;
  air_task_t* head;
  air_task_t* tail;
} queue_t;

/* Per-worker queue and statistics live with the worker, on their own cache
 * lines, so counting a task never moves a shared line between cores. */
typedef struct worker_t {
  air_pool_t* pool;
  pthread_t thread;
  uint32_t index;
  char pad_before[64]; /* padding, not alignas: worker arrays come from malloc */
  queue_t q;
  _Atomic uint64_t tasks_run;
  _Atomic uint64_t sleeps;
  _Atomic uint64_t steals;
  char pad_after[64];
} worker_t;

struct air_pool_t {
  queue_t shared;
  _Atomic uint32_t queued; /* in all queues */
  _Atomic uint32_t sleepers;
  _Atomic uint32_t epoch;
  _Atomic bool stopping;
  _Atomic uint64_t wakes;
  /* Idle spin iterations: air_pool_set_spin may change it while workers run, so
   * it is atomic; a relaxed load is enough (a tuning value, guarding no data). */
  _Atomic uint32_t spin;
  /* What follows is written once at creation. Off the line of the counters
   * above, which every submit and take writes: the interpreter reads
   * n_workers (air_pool_threads) on every channel op that waits and every
   * split copy, and on that line each read was a miss (~1 % of matmul_4x4's
   * samples, issue 14). */
  char pad[64];
  uint32_t n_workers;
  worker_t* workers;
  air_allocator_t allocator;
};

/* The worker the calling thread is, if it is one of some pool's workers (set
 * once by each worker thread; a submitter compares its pool). Thread-local, so
 * no two threads share it: a submission finds its own queue without a search
 * or a parameter through every caller. */
static _Thread_local worker_t* tl_self;

static void lock(queue_t* q) { air_spin_lock(&q->lock); }
static void unlock(queue_t* q) { air_spin_unlock(&q->lock); }

/* Links first..last (through ->next, `count` tasks) in at the head or the tail. */
static void q_push(queue_t* q, air_task_t* first, air_task_t* last, uint32_t count,
                   bool at_head) {
  air_task_t* prev = NULL;
  for (air_task_t* t = first;; t = t->next) {
    t->prev = prev;
    prev = t;
    if (t == last) break;
  }
  lock(q);
  if (at_head) {
    last->next = q->head;
    if (q->head)
      q->head->prev = last;
    else
      q->tail = last;
    q->head = first;
  } else {
    last->next = NULL;
    first->prev = q->tail;
    if (q->tail)
      q->tail->next = first;
    else
      q->head = first;
    q->tail = last;
  }
  atomic_fetch_add_explicit(&q->n, count, memory_order_relaxed);
  unlock(q);
}

static air_task_t* q_pop(queue_t* q, bool at_head) {
  if (atomic_load_explicit(&q->n, memory_order_relaxed) == 0) return NULL;
  lock(q);
  air_task_t* t = at_head ? q->head : q->tail;
  if (t) {
    if (at_head) {
      q->head = t->next;
      if (q->head)
        q->head->prev = NULL;
      else
        q->tail = NULL;
    } else {
      q->tail = t->prev;
      if (q->tail)
        q->tail->next = NULL;
      else
        q->head = NULL;
    }
    atomic_fetch_sub_explicit(&q->n, 1, memory_order_relaxed);
  }
  unlock(q);
  if (t) t->next = t->prev = NULL;
  return t;
}

/* The next task for worker `w` (NULL: a thread that is no worker of `p`): its
 * own newest, else the shared queue's oldest, else another worker's oldest. */
static air_task_t* take(air_pool_t* p, worker_t* w) {
  if (atomic_load_explicit(&p->queued, memory_order_acquire) == 0) return NULL;
  air_task_t* t = w ? q_pop(&w->q, true) : NULL;
  if (!t) t = q_pop(&p->shared, true);
  for (uint32_t i = 1; !t && w && i < p->n_workers; ++i) {
    worker_t* v = &p->workers[(w->index + i) % p->n_workers];
    t = q_pop(&v->q, false);
    if (t)
      atomic_store_explicit(&w->steals,
                            atomic_load_explicit(&w->steals, memory_order_relaxed) + 1,
                            memory_order_relaxed);
  }
  if (t) atomic_fetch_sub_explicit(&p->queued, 1, memory_order_relaxed);
  return t;
}

static void* worker_main(void* arg) {
  worker_t* w = arg;
  air_pool_t* p = w->pool;
  tl_self = w;
  for (;;) {
    air_task_t* t = take(p, w);
    uint32_t spin = t ? 0 : atomic_load_explicit(&p->spin, memory_order_relaxed);
    for (uint32_t i = 0; !t && i < spin; ++i) {
      air_cpu_relax();
      t = take(p, w);
    }
    if (t) {
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
  worker_t* self = tl_self;
  /* Counted before it is visible: a taker never sees the count drop below zero. */
  atomic_fetch_add(&p->queued, count);
  if (self && self->pool == p)
    q_push(&self->q, first, last, count, true);
  else
    q_push(&p->shared, first, last, count, false);
  wake(p);
}

void air_pool_submit(air_pool_t* p, air_task_t* task) {
  air_pool_submit_chain(p, task, task, 1);
}

air_status_t air_pool_create(const air_allocator_t* allocator, uint32_t threads,
                             air_pool_t** out_pool) {
  air_allocator_t a = air_mem_or_system_copy(allocator);
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
  atomic_flag_clear(&p->shared.lock);
  atomic_init(&p->spin, 2000);
  p->allocator = a;
  p->workers = w;
  for (uint32_t i = 0; i < threads; ++i) {
    w[i].pool = p;
    atomic_init(&w[i].tasks_run, 0);
    atomic_init(&w[i].sleeps, 0);
    atomic_init(&w[i].steals, 0);
    memset(&w[i].q, 0, sizeof w[i].q);
    atomic_flag_clear(&w[i].q.lock);
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
  air_allocator_t a = air_mem_or_system_copy(allocator);
  air_pool_t* p = a.alloc(a.self, sizeof(*p));
  *out_pool = p;
  if (!p) return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED, "cpu pool: out of memory");
  memset(p, 0, sizeof(*p));
  atomic_flag_clear(&p->shared.lock);
  p->allocator = a;
  return NULL;
}

void air_pool_help(air_pool_t* p, const _Atomic bool* until, uint32_t worker) {
  for (;;) {
    air_task_t* t = take(p, NULL);
    if (t) {
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

uint32_t air_pool_self(const air_pool_t* p) {
  const worker_t* w = tl_self;
  return w && w->pool == p ? w->index : UINT32_MAX;
}

uint32_t air_pool_queued(const air_pool_t* p) {
  return atomic_load_explicit(&((air_pool_t*)p)->queued, memory_order_relaxed);
}

void air_pool_set_spin(air_pool_t* p, uint32_t spin_iterations) {
  atomic_store_explicit(&p->spin, spin_iterations, memory_order_relaxed);
}

void air_pool_stats(const air_pool_t* p, air_pool_stats_t* out) {
  air_pool_t* q = (air_pool_t*)p;
  out->tasks_run = out->sleeps = out->steals = 0;
  for (uint32_t i = 0; i < q->n_workers; ++i) {
    out->tasks_run += atomic_load_explicit(&q->workers[i].tasks_run, memory_order_relaxed);
    out->sleeps += atomic_load_explicit(&q->workers[i].sleeps, memory_order_relaxed);
    out->steals += atomic_load_explicit(&q->workers[i].steals, memory_order_relaxed);
  }
  out->wakes = atomic_load(&q->wakes);
}

/* gpu_sim.c - the host workgroup simulator (gpu_sim.h). Every work-item of a
 * workgroup is a thread, as the mapping says: in the threads mapping each PE's
 * work-item, in the waves mapping every lane of every wave (the lanes without a
 * role leave after the start barrier, as on the GPU). The barrier is a
 * generation counter under a mutex, so a failing work-item can release the
 * others instead of leaving them waiting. */
#include "gpu_sim.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct group_t {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t n, arrived;
  uint64_t generation;
  _Atomic int failed;
  int code;
  uint32_t line;
  double deadline;
} group_t;

typedef struct item_t {
  air_gpu_sim_ctx_t ctx;
  group_t* g;
  air_gpu_sim_fn fn;
  const void* kernarg;
} item_t;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void sim_barrier(void* user) {
  group_t* g = user;
  pthread_mutex_lock(&g->mu);
  uint64_t gen = g->generation;
  if (++g->arrived == g->n) {
    g->arrived = 0;
    g->generation++;
    pthread_cond_broadcast(&g->cv);
  } else {
    while (gen == g->generation && !atomic_load(&g->failed)) pthread_cond_wait(&g->cv, &g->mu);
  }
  pthread_mutex_unlock(&g->mu);
}

static int32_t sim_pause(void* user) {
  group_t* g = user;
  if (atomic_load(&g->failed)) return 1;
  sched_yield();
  if (now_s() > g->deadline) {
    pthread_mutex_lock(&g->mu);
    if (!atomic_load(&g->failed)) {
      g->code = AIR_CG_DEADLOCK;
      g->line = 0;
      atomic_store(&g->failed, 1);
    }
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return 1;
  }
  return 0;
}

static void sim_fail(void* user, int32_t code, uint32_t line) {
  group_t* g = user;
  pthread_mutex_lock(&g->mu);
  if (!atomic_load(&g->failed)) {
    g->code = code;
    g->line = line;
    atomic_store(&g->failed, 1);
  }
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

static void* item_main(void* arg) {
  item_t* it = arg;
  it->fn(it->kernarg, &it->ctx);
  return NULL;
}

static const char* why(int code) {
  switch (code) {
    case AIR_CG_OOB: return "an access outside its memref";
    case AIR_CG_DIV: return "a division by zero or overflow";
    case AIR_CG_STEP: return "a loop step that is not positive";
    case AIR_CG_DEADLOCK: return "a wait that never ended (deadlock)";
    case AIR_CG_CHANNEL: return "a channel index out of range, or private memory on both sides";
    default: return "an error";
  }
}

int air_gpu_sim_run(air_gpu_sim_fn fn, const air_gpu_kernel_t* k, const void* kernarg,
                    uint32_t n_groups, uint32_t lds_bytes, double timeout_s, char* err,
                    size_t err_cap) {
  uint32_t n = k->workgroup_size;
  item_t* items = calloc(n ? n : 1, sizeof *items);
  pthread_t* th = calloc(n ? n : 1, sizeof *th);
  uint8_t* lds = calloc(lds_bytes ? lds_bytes : 1, 1);
  int rc = 0;
  if (!items || !th || !lds) {
    snprintf(err, err_cap, "out of memory");
    rc = 1;
  }
  for (uint32_t wg = 0; wg < n_groups && !rc; ++wg) {
    group_t g;
    memset(&g, 0, sizeof g);
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    g.n = n;
    g.deadline = now_s() + timeout_s;
    /* LDS holds garbage on a GPU; the kernel must not rely on zeros. */
    memset(lds, 0xa5, lds_bytes);
    uint32_t started = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 4u << 20); /* private (L1) buffers live on it */
    for (uint32_t i = 0; i < n; ++i) {
      items[i] = (item_t){{i, wg, lds, &g, sim_barrier, sim_pause, sim_fail}, &g, fn, kernarg};
      if (pthread_create(&th[i], &attr, item_main, &items[i])) {
        sim_fail(&g, AIR_CG_DEADLOCK, 0);
        snprintf(err, err_cap, "cannot start work-item thread %u of %u", i, n);
        rc = 1;
        break;
      }
      started++;
    }
    pthread_attr_destroy(&attr);
    for (uint32_t i = 0; i < started; ++i) pthread_join(th[i], NULL);
    if (atomic_load(&g.failed) && !rc) {
      snprintf(err, err_cap, "kernel %s, workgroup %u: %s%s%u", k->name, wg, why(g.code),
               g.line ? " at line " : "", g.line);
      if (!g.line) err[strlen(err) - 1] = 0; /* no line: drop the 0 */
      rc = 1;
    }
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
  }
  free(items);
  free(th);
  free(lds);
  return rc;
}

/* sched_replay.c - level-synchronous replay of a partition for the dag-overhead
 * benchmark; see sched_replay.h.
 *
 * Run protocol. `claim` packs the level being handed out (its first chunk) and how
 * many of its chunks were taken from the front and from the back. Even workers take
 * chunks from the front of a level, odd ones from the back, so when both run, each
 * thread gets the same part of every level in every run and finds its commands'
 * data in its own cache (taking turns from one end moved half of it between the
 * cores on every run). A taker that finds the level used up moves the word on to
 * the next level in the same CAS.
 *
 * `done` counts completed chunks of the current run; a chunk may start when done
 * reaches the index of its level's first chunk. No chunk of a level is taken before
 * all chunks of the earlier levels were, and none starts before those completed, so
 * the first time done reaches that index exactly those chunks are the completed ones.
 *
 * Every field a thread reads about the run (fn, user, the chunk) is read after its
 * CAS succeeded, and a CAS only succeeds on the current value of `claim`. So a helper
 * still holding a value from an earlier run can at worst take a chunk of the current
 * run, as any thread may: the caller resets `done` and then `claim` (release) before
 * a run, and returns only when done == chunks, so no thread is mid-chunk when they
 * are reset.
 *
 * Helpers are tasks on the library's worker pool (src/hal/cpu/pool.h): a run queues
 * one task per helper that is not still queued or running from an earlier run (a
 * task node is queued at most once), and destroy drains the pool before freeing
 * anything a task reads. */
#define _DEFAULT_SOURCE 1
#include "sched_replay.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "runtime/base/status_util.h"

enum { DEFAULT_MIN_PARALLEL = 256, DEFAULT_MAX_CHUNK = 4096, CHUNKS_PER_THREAD = 4,
       SPINS_BEFORE_YIELD = 4096 };

typedef struct chunk_t {
  uint32_t begin, end; /* into plan */
  uint32_t level;      /* first chunk of its level: done must reach it first */
  uint32_t level_end;  /* one past the last chunk of its level */
} chunk_t;

/* claim = level's first chunk << 32 | taken from the back << 16 | from the front. */
#define CLAIM(level, back, front) \
  ((uint64_t)(level) << 32 | (uint64_t)(back) << 16 | (uint64_t)(front))
enum { MAX_LEVEL_CHUNKS = 0xffff };

/* One helper: a pool task that takes part in the current run. */
typedef struct helper_t {
  air_task_t task; /* first: the pool's intrusive node */
  air_sched_replay_t* r;
  uint32_t worker;
  char pad_before[64]; /* padding, not alignas: helper arrays come from the allocator */
  _Atomic bool queued; /* queued or running: not to be queued again */
  _Atomic uint64_t chunks;
  char pad_after[64];
} helper_t;

/* The hot words each on their own cache line (padding, not alignas: the object
 * comes from the allocator, which only promises max_align_t). */
struct air_sched_replay_t {
  char pad0[64];
  _Atomic uint64_t claim;
  char pad1[64];
  _Atomic uint32_t done;
  char pad2[64];
  _Atomic bool busy;
  char pad3[64];
  air_sched_replay_fn_t fn; /* of the current run: written before claim is reset */
  void* user;
  uint32_t n_cmds, n_chunks, threads, parallel_levels;
  bool parallel;            /* some level has more than one chunk */
  uint32_t* plan;           /* node ids in run order */
  chunk_t* chunks;
  helper_t* helpers;        /* threads - 1 */
  uint32_t n_helpers;
  air_pool_t* pool;         /* the helpers' workers (threads - 1), when parallel */
  uint64_t serial_cmds, runs;
  air_allocator_t allocator;
};

static void backoff(uint32_t* spins) {
  if (++*spins < SPINS_BEFORE_YIELD)
    air_cpu_relax();
  else
    sched_yield(); /* more threads than free cores: let the one we wait for run */
}

/* Takes the next chunk for `worker`; false when every chunk of the run is taken. */
static bool take(air_sched_replay_t* r, uint32_t worker, uint32_t* out) {
  uint64_t v = atomic_load_explicit(&r->claim, memory_order_acquire);
  for (;;) {
    uint32_t level = (uint32_t)(v >> 32), back = (uint32_t)(v >> 16) & 0xffff,
             front = (uint32_t)v & 0xffff;
    if (level >= r->n_chunks) return false;
    uint32_t end = r->chunks[level].level_end;
    if (level + front + back == end) {
      level = end, front = back = 0; /* used up: hand out the next level */
      if (level >= r->n_chunks) return false;
      end = r->chunks[level].level_end;
    }
    uint32_t c = worker % 2 ? end - 1 - back++ : level + front++;
    if (atomic_compare_exchange_weak_explicit(&r->claim, &v, CLAIM(level, back, front),
                                              memory_order_acq_rel, memory_order_acquire)) {
      *out = c;
      return true;
    }
  }
}

/* Takes and runs chunks until none is left. Returns the number this thread ran. */
static uint64_t participate(air_sched_replay_t* r, uint32_t worker) {
  uint64_t ran = 0;
  uint32_t ci;
  while (take(r, worker, &ci)) {
    const chunk_t* c = &r->chunks[ci];
    uint32_t spins = 0;
    while (atomic_load_explicit(&r->done, memory_order_acquire) < c->level) backoff(&spins);
    air_sched_replay_fn_t fn = r->fn;
    void* user = r->user;
    for (uint32_t k = c->begin; k < c->end; ++k) fn(user, r->plan[k], worker);
    atomic_fetch_add_explicit(&r->done, 1, memory_order_release);
    ++ran;
  }
  return ran;
}

static void helper_run(air_task_t* task, uint32_t pool_worker) {
  (void)pool_worker;
  helper_t* h = (helper_t*)task;
  uint64_t n = participate(h->r, h->worker);
  if (n)
    atomic_store_explicit(&h->chunks,
                          atomic_load_explicit(&h->chunks, memory_order_relaxed) + n,
                          memory_order_relaxed);
  /* Last touch of the node: the next run may queue it again. */
  atomic_store_explicit(&h->queued, false, memory_order_release);
}

/* Growable chunk array. */
typedef struct plan_builder_t {
  air_sched_replay_t* r;
  uint32_t at;  /* commands placed in plan */
  uint32_t cap; /* chunks allocated */
  bool open_serial; /* the last chunk is serial and may grow */
} plan_builder_t;

static bool add_chunk(plan_builder_t* b, uint32_t begin, uint32_t end, uint32_t level) {
  air_sched_replay_t* r = b->r;
  if (r->n_chunks == b->cap) {
    uint32_t cap = b->cap ? b->cap * 2 : 64;
    chunk_t* c = r->allocator.realloc(r->allocator.self, r->chunks, cap * sizeof(chunk_t));
    if (!c) return false;
    r->chunks = c;
    b->cap = cap;
  }
  r->chunks[r->n_chunks] = (chunk_t){begin, end, level, r->n_chunks + 1};
  r->n_chunks++;
  return true;
}

/* Commands [begin, b->at) run alone: they join the open serial chunk or start one. */
static bool add_serial(plan_builder_t* b, uint32_t begin) {
  b->r->serial_cmds += b->at - begin;
  if (b->open_serial) {
    b->r->chunks[b->r->n_chunks - 1].end = b->at;
    return true;
  }
  b->open_serial = true;
  return add_chunk(b, begin, b->at, b->r->n_chunks);
}

/* Cuts level l into chunks of about `target` commands; an ordered wave goes whole
 * into the chunk of its first command. */
static bool add_parallel(plan_builder_t* b, const air_partition_t* P, uint32_t l,
                         uint32_t target, uint8_t* wave_placed) {
  air_sched_replay_t* r = b->r;
  uint32_t first = r->n_chunks, level_begin = b->at, begin = b->at;
  const air_partition_level_t* lv = &P->levels[l];
  for (uint32_t k = lv->cmd_begin; k < lv->cmd_end; ++k) {
    uint32_t i = P->level_cmds[k], w = P->node_wave[i];
    const air_partition_wave_t* wv = &P->waves[w];
    if (!wv->ordered) {
      r->plan[b->at++] = i;
    } else if (!wave_placed[w]) {
      wave_placed[w] = 1;
      for (uint32_t c = wv->cmd_begin; c < wv->cmd_end; ++c) r->plan[b->at++] = P->cmds[c];
    }
    if (b->at - begin >= target) {
      if (!add_chunk(b, begin, b->at, first)) return false;
      begin = b->at;
    }
  }
  if (b->at > begin && !add_chunk(b, begin, b->at, first)) return false;
  if (r->n_chunks - first > 1) {
    for (uint32_t c = first; c < r->n_chunks; ++c) r->chunks[c].level_end = r->n_chunks;
    b->open_serial = false;
    r->parallel_levels++;
    return true;
  }
  /* One chunk after all (a big ordered wave): it runs alone. */
  r->n_chunks = first;
  return add_serial(b, level_begin);
}

static air_status_t build_plan(air_sched_replay_t* r, const air_partition_t* P,
                               uint32_t min_parallel, uint32_t max_chunk) {
  const air_allocator_t* a = &r->allocator;
  r->n_cmds = P->n_nodes;
  r->plan = a->alloc(a->self, (P->n_nodes ? P->n_nodes : 1) * sizeof(uint32_t));
  uint8_t* placed = a->alloc(a->self, P->n_waves ? P->n_waves : 1);
  plan_builder_t b = {.r = r};
  bool ok = r->plan && placed;
  if (placed) memset(placed, 0, P->n_waves);
  for (uint32_t l = 0; ok && l < P->n_levels; ++l) {
    const air_partition_level_t* lv = &P->levels[l];
    uint32_t k = lv->cmd_end - lv->cmd_begin;
    if (r->threads > 1 && k >= min_parallel) {
      uint32_t target = k / (CHUNKS_PER_THREAD * r->threads);
      target = target < 1 ? 1 : target > max_chunk ? max_chunk : target;
      /* The claim word counts a level's chunks in 16 bits. */
      if (k / target >= MAX_LEVEL_CHUNKS) target = k / (MAX_LEVEL_CHUNKS - 1) + 1;
      ok = add_parallel(&b, P, l, target, placed);
    } else {
      /* Level order is topological (group members included), so it is a valid
       * serial order as it stands. */
      uint32_t begin = b.at;
      memcpy(&r->plan[b.at], &P->level_cmds[lv->cmd_begin], k * sizeof(uint32_t));
      b.at += k;
      ok = add_serial(&b, begin);
    }
  }
  a->free(a->self, placed);
  if (!ok)
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "sched replay: out of memory");
  r->parallel = r->parallel_levels > 0;
  return NULL;
}

static air_status_t start_helpers(air_sched_replay_t* r) {
  const air_allocator_t* a = &r->allocator;
  uint32_t n = r->threads - 1;
  if (n == 0) return NULL;
  r->helpers = a->alloc(a->self, n * sizeof(helper_t));
  if (!r->helpers)
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "sched replay: out of memory");
  memset(r->helpers, 0, n * sizeof(helper_t));
  for (uint32_t i = 0; i < n; ++i) {
    helper_t* h = &r->helpers[i];
    h->task.fn = helper_run;
    h->r = r;
    h->worker = i + 1;
    atomic_init(&h->queued, false);
    atomic_init(&h->chunks, 0);
  }
  r->n_helpers = n;
  return air_pool_create(a, n, &r->pool);
}

air_status_t air_sched_replay_create(const air_allocator_t* allocator,
                                     const air_partition_t* partition,
                                     const air_sched_replay_options_t* options,
                                     air_sched_replay_t** out) {
  *out = NULL;
  air_sched_replay_options_t o = {0};
  if (options) o = *options;
  if (!partition)
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT, "sched replay: no partition");
  if (o.threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = n > 0 ? (uint32_t)n : 1;
    if (o.threads > AIR_SCHED_REPLAY_MAX_THREADS) o.threads = AIR_SCHED_REPLAY_MAX_THREADS;
  }
  if (o.threads > AIR_SCHED_REPLAY_MAX_THREADS)
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "sched replay: %u threads requested, at most %u", o.threads,
                      AIR_SCHED_REPLAY_MAX_THREADS);
  air_sched_replay_t* r = allocator->alloc(allocator->self, sizeof(*r));
  if (!r) return AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "sched replay: out of memory");
  memset(r, 0, sizeof(*r));
  r->allocator = *allocator;
  r->threads = o.threads;
  atomic_init(&r->claim, 0);
  atomic_init(&r->done, 0);
  atomic_init(&r->busy, false);
  air_status_t s = build_plan(r, partition, o.min_parallel ? o.min_parallel : DEFAULT_MIN_PARALLEL,
                              o.max_chunk ? o.max_chunk : DEFAULT_MAX_CHUNK);
  if (!s && r->parallel) s = start_helpers(r);
  if (s) {
    air_sched_replay_destroy(r);
    return s;
  }
  *out = r;
  return NULL;
}

air_status_t air_sched_replay_run(air_sched_replay_t* r, air_sched_replay_fn_t fn, void* user) {
  if (atomic_exchange_explicit(&r->busy, true, memory_order_acquire))
    return AIR_STATUS(&r->allocator, AIR_STATUS_FAILED_PRECONDITION,
                      "sched replay: run called while another run of the same replay is in "
                      "progress");
  r->runs++;
  if (!r->parallel) {
    /* Everything is one serial run: no helper needs waking. */
    for (uint32_t k = 0; k < r->n_cmds; ++k) fn(user, r->plan[k], 0);
    atomic_store_explicit(&r->busy, false, memory_order_release);
    return NULL;
  }
  r->fn = fn;
  r->user = user;
  atomic_store_explicit(&r->done, 0, memory_order_relaxed);
  atomic_store_explicit(&r->claim, CLAIM(0, 0, 0), memory_order_release);
  for (uint32_t i = 0; i < r->n_helpers; ++i) {
    helper_t* h = &r->helpers[i];
    if (!atomic_exchange_explicit(&h->queued, true, memory_order_acq_rel))
      air_pool_submit(r->pool, &h->task);
  }
  participate(r, 0);
  uint32_t spins = 0;
  while (atomic_load_explicit(&r->done, memory_order_acquire) < r->n_chunks) backoff(&spins);
  atomic_store_explicit(&r->busy, false, memory_order_release);
  return NULL;
}

void air_sched_replay_destroy(air_sched_replay_t* r) {
  if (!r) return;
  air_pool_destroy(r->pool); /* drains: no helper task runs after this */
  air_allocator_t a = r->allocator;
  a.free(a.self, r->helpers);
  a.free(a.self, r->plan);
  a.free(a.self, r->chunks);
  a.free(a.self, r);
}

void air_sched_replay_stats(const air_sched_replay_t* r, air_sched_replay_stats_t* out) {
  memset(out, 0, sizeof(*out));
  out->threads = r->threads;
  out->chunks = r->n_chunks;
  out->parallel_levels = r->parallel_levels;
  out->serial_cmds = r->serial_cmds;
  out->runs = r->runs;
  for (uint32_t i = 0; i < r->n_helpers; ++i)
    out->helper_chunks += atomic_load_explicit(&r->helpers[i].chunks, memory_order_relaxed);
  if (r->pool) {
    air_pool_stats_t ps;
    air_pool_stats(r->pool, &ps);
    out->helper_sleeps = ps.sleeps;
  }
}

/* The run's block cache (src/hal/cpu/interp/cache.h) with per-worker fronts
 * (issue 14, session 7): blocks got and put from pool workers (1, 2 and 3),
 * most of them put by another task than the one that got them, so they flow
 * from one worker's front through the shared batches to another's; a thread
 * that is no worker of the bound pool (the test's own, a second pool's
 * workers); sizes in small and large classes and beyond the largest. Checked:
 * no block is handed out twice while live (each live block carries its
 * owner's pattern until it is put), and after ix_cache_free every byte taken
 * from the allocator went back (no block leaks from a front or a batch).
 * Under AddressSanitizer the cache is off (ix_cache_new returns NULL) and the
 * same checks run straight on the allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal/cpu/interp/cache.h"
#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "support/threads.h"

/* An allocator that counts the blocks it has out. */
typedef struct {
  _Atomic int64_t live;
  _Atomic int64_t calls;
} counting_t;

static void* c_alloc(void* self, size_t size) {
  counting_t* c = self;
  atomic_fetch_add(&c->live, 1);
  atomic_fetch_add(&c->calls, 1);
  return malloc(size);
}
static void c_free(void* self, void* p) {
  if (!p) return;
  atomic_fetch_sub(&((counting_t*)self)->live, 1);
  free(p);
}
static void* c_realloc(void* self, void* p, size_t size) {
  (void)self;
  return realloc(p, size);
}

static air_allocator_t counting(counting_t* c) {
  air_allocator_t a;
  memset(&a, 0, sizeof a);
  a.self = c;
  a.alloc = c_alloc;
  a.free = c_free;
  a.realloc = c_realloc;
  return a;
}

/* Sizes touching every kind of class: small steps, their edges, large powers of
 * two, and one beyond the largest class (never cached). */
static const size_t k_sizes[] = {8, 32, 33, 100, 200, 2048, 2049, 4096, 5000, 65536, 300000,
                                 (size_t)(16 << 20) + 1};
enum { N_SIZES = sizeof k_sizes / sizeof k_sizes[0] };

enum { SLOTS = 96, ROUNDS = 40 };

typedef struct slot_t {
  unsigned char* p;
  size_t size;
} slot_t;

typedef struct shared_t {
  ix_cache_t* cache;
  air_allocator_t a;
  _Atomic uint64_t done;
  _Atomic uint32_t bad; /* a block that did not hold its owner's pattern */
} shared_t;

/* One task: takes SLOTS blocks into its own slots, fills them with its mark,
 * and puts the blocks in `give` (filled by another task of the previous round:
 * a cross-worker free). */
typedef struct job_t {
  air_task_t task;
  shared_t* sh;
  slot_t* mine;
  slot_t* give;
  unsigned char mark;
  unsigned char give_mark;
  uint32_t seed;
} job_t;

static bool holds(const slot_t* s, unsigned char mark) {
  size_t n = s->size < 64 ? s->size : 64; /* first and last bytes: enough to see an overlap */
  for (size_t i = 0; i < n; ++i)
    if (s->p[i] != mark || s->p[s->size - 1 - i] != mark) return false;
  return true;
}

static void job_fn(air_task_t* t, uint32_t worker) {
  (void)worker;
  job_t* j = (job_t*)t;
  shared_t* sh = j->sh;
  for (uint32_t i = 0; i < SLOTS; ++i) {
    slot_t* g = &j->give[i];
    if (!g->p) continue;
    if (!holds(g, j->give_mark)) atomic_fetch_add(&sh->bad, 1);
    ix_cache_put(sh->cache, &sh->a, g->p, g->size);
    g->p = NULL;
  }
  for (uint32_t i = 0; i < SLOTS; ++i) {
    j->seed = j->seed * 1103515245u + 12345u;
    size_t size = k_sizes[(j->seed >> 8) % (N_SIZES - 1)];
    if (i == 0) size = k_sizes[N_SIZES - 1];
    slot_t* s = &j->mine[i];
    s->p = ix_cache_get(sh->cache, &sh->a, size);
    s->size = size;
    if (!s->p) {
      atomic_fetch_add(&sh->bad, 1);
      continue;
    }
    memset(s->p, j->mark, size);
  }
  atomic_fetch_add(&sh->done, 1);
}

static void wait_done(shared_t* sh, uint64_t n) {
  int64_t deadline = air_time_now_ns() + 30LL * 1000 * 1000 * 1000;
  while (atomic_load(&sh->done) < n && air_time_now_ns() < deadline) test_sleep_us(50);
  assert_int_equal(atomic_load(&sh->done), n);
}

enum { JOBS = 4 };

/* ROUNDS rounds of JOBS tasks on `run_pool`; job i of a round puts what job
 * (i + 1) % JOBS got in the previous round. The cache's fronts belong to
 * `bind_pool` (NULL: none). Ends with every block put and the cache freed. */
static void exercise(air_pool_t* bind_pool, air_pool_t* run_pool) {
  counting_t cnt = {0};
  shared_t sh = {.a = counting(&cnt)};
  sh.cache = ix_cache_new(&sh.a);
  ix_cache_bind(sh.cache, &sh.a, bind_pool);
  ix_cache_bind(sh.cache, &sh.a, bind_pool); /* a second bind changes nothing */
  static slot_t slots[2][JOBS][SLOTS];
  memset(slots, 0, sizeof slots);
  job_t jobs[JOBS];
  uint64_t expect = 0;
  for (uint32_t round = 0; round < ROUNDS; ++round) {
    uint32_t cur = round & 1, prev = cur ^ 1;
    for (uint32_t i = 0; i < JOBS; ++i) {
      jobs[i] = (job_t){.task.fn = job_fn, .sh = &sh, .mine = slots[cur][i],
                        .give = slots[prev][(i + 1) % JOBS],
                        .mark = (unsigned char)(1 + (round * JOBS + i) % 250),
                        .give_mark = (unsigned char)(1 + ((round ? round - 1 : 0) * JOBS +
                                                          (i + 1) % JOBS) % 250),
                        .seed = round * 7919u + i};
      air_pool_submit(run_pool, &jobs[i].task);
    }
    expect += JOBS;
    wait_done(&sh, expect);
    /* Every block got in this round is live: no two may overlap. */
    for (uint32_t i = 0; i < JOBS; ++i)
      for (uint32_t k = 0; k < SLOTS; ++k)
        if (slots[cur][i][k].p &&
            !holds(&slots[cur][i][k], (unsigned char)(1 + (round * JOBS + i) % 250)))
          atomic_fetch_add(&sh.bad, 1);
  }
  assert_int_equal(atomic_load(&sh.bad), 0);
  /* The last round's blocks go back from this thread (not a worker). */
  uint32_t last = (ROUNDS - 1) & 1;
  for (uint32_t i = 0; i < JOBS; ++i)
    for (uint32_t k = 0; k < SLOTS; ++k)
      ix_cache_put(sh.cache, &sh.a, slots[last][i][k].p, slots[last][i][k].size);
  if (sh.cache) {
    /* Blocks were reused: far fewer allocator calls than gets. */
    assert_true(atomic_load(&cnt.calls) < (int64_t)ROUNDS * JOBS * SLOTS / 2);
    assert_true(atomic_load(&cnt.live) > 1); /* kept blocks, and the cache itself */
  }
  ix_cache_free(sh.cache, &sh.a);
  assert_int_equal(atomic_load(&cnt.live), 0);
}

static void test_workers(uint32_t n) {
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, n, &pool));
  exercise(pool, pool);
  air_pool_destroy(pool);
}

static void test_one_worker(void** state) {
  (void)state;
  test_workers(1);
}
static void test_two_workers(void** state) {
  (void)state;
  test_workers(2);
}
static void test_three_workers(void** state) {
  (void)state;
  test_workers(3);
}

/* Bound to one pool, used by another's workers: they are not its workers and
 * take the shared path; both pools' indices start at 0, so using their index
 * would let two threads share a front. */
static void test_other_pool(void** state) {
  (void)state;
  air_pool_t *a = NULL, *b = NULL;
  assert_null(air_pool_create(NULL, 2, &a));
  assert_null(air_pool_create(NULL, 2, &b));
  assert_int_equal(air_pool_self(a), UINT32_MAX); /* the test's thread is no worker */
  exercise(a, b);
  air_pool_destroy(b);
  air_pool_destroy(a);
}

/* Never bound (the caller's thread only), and a NULL cache. */
static void test_unbound(void** state) {
  (void)state;
  counting_t cnt = {0};
  air_allocator_t a = counting(&cnt);
  ix_cache_t* c = ix_cache_new(&a);
  void* p[N_SIZES];
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N_SIZES; ++i) {
      p[i] = ix_cache_get_zero(c, &a, k_sizes[i]);
      assert_non_null(p[i]);
      assert_int_equal(((unsigned char*)p[i])[k_sizes[i] - 1], 0);
      memset(p[i], 0xab, k_sizes[i]);
    }
    for (int i = N_SIZES; i-- > 0;) ix_cache_put(c, &a, p[i], k_sizes[i]);
  }
  if (c) assert_int_equal(atomic_load(&cnt.calls), N_SIZES + 1 + 2); /* + cache; 16M+1 again */
  ix_cache_free(c, &a);
  assert_int_equal(atomic_load(&cnt.live), 0);
  void* q = ix_cache_get(NULL, &a, 64);
  ix_cache_put(NULL, &a, q, 64);
  assert_int_equal(atomic_load(&cnt.live), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unbound),
      cmocka_unit_test(test_one_worker),
      cmocka_unit_test(test_two_workers),
      cmocka_unit_test(test_three_workers),
      cmocka_unit_test(test_other_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* CPU worker pool: every task runs once, tasks may submit tasks, idle workers sleep,
 * and so does a thread blocked on a semaphore next to them; the spin count may be
 * changed while the workers run. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"

#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "hal/semaphore.h"
#include "support/threads.h"

typedef struct {
  air_task_t task;
  _Atomic uint64_t* counter;
  _Atomic uint32_t* seen_by; /* bit per worker */
  uint32_t fanout;           /* tasks to submit from inside the task */
  air_pool_t* pool;
  struct counted_t* children;
} counted_t;

static void count_fn(air_task_t* t, uint32_t worker) {
  counted_t* c = (counted_t*)t;
  atomic_fetch_add(c->counter, 1);
  atomic_fetch_or(c->seen_by, 1u << (worker & 31));
  for (uint32_t i = 0; i < c->fanout; ++i) {
    counted_t* child = (counted_t*)c->children + i;
    air_pool_submit(c->pool, &child->task);
  }
}

static void wait_count(_Atomic uint64_t* counter, uint64_t n) {
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  while (atomic_load(counter) < n && air_time_now_ns() < deadline) {
    test_sleep_us(100);
  }
}

static void test_every_task_runs_once(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  assert_int_equal(air_pool_threads(pool), 2);
  enum { N = 20000 };
  static counted_t tasks[N];
  _Atomic uint64_t counter = 0;
  _Atomic uint32_t seen = 0;
  for (int i = 0; i < N; ++i) {
    memset(&tasks[i], 0, sizeof tasks[i]);
    tasks[i].task.fn = count_fn;
    tasks[i].counter = &counter;
    tasks[i].seen_by = &seen;
  }
  /* Half one by one, half as a chain. */
  for (int i = 0; i < N / 2; ++i) air_pool_submit(pool, &tasks[i].task);
  for (int i = N / 2; i < N - 1; ++i) tasks[i].task.next = &tasks[i + 1].task;
  air_pool_submit_chain(pool, &tasks[N / 2].task, &tasks[N - 1].task, N / 2);
  wait_count(&counter, N);
  assert_int_equal(atomic_load(&counter), N);
  air_pool_destroy(pool);
  assert_int_equal(atomic_load(&counter), N); /* nothing ran twice */
}

static void test_tasks_submit_tasks(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  enum { FAN = 64 };
  static counted_t root, kids[FAN];
  _Atomic uint64_t counter = 0;
  _Atomic uint32_t seen = 0;
  memset(&root, 0, sizeof root);
  root.task.fn = count_fn;
  root.counter = &counter;
  root.seen_by = &seen;
  root.fanout = FAN;
  root.pool = pool;
  root.children = (struct counted_t*)kids;
  for (int i = 0; i < FAN; ++i) {
    memset(&kids[i], 0, sizeof kids[i]);
    kids[i].task.fn = count_fn;
    kids[i].counter = &counter;
    kids[i].seen_by = &seen;
  }
  air_pool_submit(pool, &root.task);
  wait_count(&counter, FAN + 1);
  assert_int_equal(atomic_load(&counter), FAN + 1);
  air_pool_destroy(pool);
}

/* An idle pool must sleep: over 200 ms of idleness the process may use only a
 * sliver of CPU (a spinning worker would use ~200 ms per thread). */
static void test_idle_workers_sleep(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  static counted_t t;
  _Atomic uint64_t counter = 0;
  _Atomic uint32_t seen = 0;
  memset(&t, 0, sizeof t);
  t.task.fn = count_fn;
  t.counter = &counter;
  t.seen_by = &seen;
  air_pool_submit(pool, &t.task);
  wait_count(&counter, 1);
  /* Settled: both workers asleep (the count stays put over 20 ms), whatever the
   * load on the machine. */
  air_pool_stats_t before, st;
  air_pool_stats(pool, &before);
  for (int i = 0; i < 100; ++i) {
    test_sleep_us(20000);
    air_pool_stats(pool, &st);
    if (st.sleeps >= 2 && st.sleeps == before.sleeps) break;
    before = st;
  }
  double c0 = test_cpu_seconds();
  test_sleep_us(200000);
  double used = test_cpu_seconds() - c0;
  air_pool_stats(pool, &st);
  air_pool_destroy(pool);
  assert_true(st.sleeps >= 2);
  /* Asleep the whole window: no worker woke up to poll and went back to sleep. */
  assert_true(st.sleeps == before.sleeps);
  assert_true(used < 0.02);
}

typedef struct {
  air_semaphore_t* sem;
  air_status_t st;
} waiter_t;

static void* wait_main(void* arg) {
  waiter_t* w = arg;
  w->st = air_semaphore_wait(w->sem, 1, -1);
  return NULL;
}

/* A thread blocked in air_semaphore_wait, beside an idle pool, uses no CPU either:
 * after its short spin it sleeps on the futex until the signal wakes it. */
static void test_idle_waiter_sleeps(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  waiter_t w = {NULL, NULL};
  assert_null(air_hal_semaphore_create(NULL, 0, &w.sem));
  pthread_t th;
  test_threads_start(&th, 1, wait_main, &w, sizeof w);
  test_sleep_us(20000);
  double c0 = test_cpu_seconds();
  test_sleep_us(200000);
  double used = test_cpu_seconds() - c0;
  air_semaphore_stats_t ss;
  air_semaphore_stats(w.sem, &ss);
  assert_true(ss.futex_waits >= 1);
  assert_null(air_semaphore_signal(w.sem, 1));
  test_threads_join(&th, 1);
  assert_null(w.st);
  air_semaphore_stats(w.sem, &ss);
  assert_true(ss.futex_wakes >= 1);
  air_semaphore_release(w.sem);
  air_pool_destroy(pool);
  assert_true(used < 0.02);
}

typedef struct {
  air_task_t task;
  _Atomic int started, release;
} held_t;

static void held_fn(air_task_t* t, uint32_t worker) {
  (void)worker;
  held_t* h = (held_t*)t;
  atomic_store(&h->started, 1);
  while (!atomic_load(&h->release)) test_sleep_us(100);
}

/* air_pool_asleep (cpu_queue.c prices a submission's wake-up by it): true once
 * every worker sleeps on the futex, false while one runs a task, and always
 * false for a thread-less pool. */
static void test_asleep(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  while (!air_pool_asleep(pool) && air_time_now_ns() < deadline) test_sleep_us(100);
  assert_true(air_pool_asleep(pool));
  static held_t h;
  memset(&h, 0, sizeof h);
  h.task.fn = held_fn;
  air_pool_submit(pool, &h.task);
  while (!atomic_load(&h.started) && air_time_now_ns() < deadline) test_sleep_us(100);
  assert_true(atomic_load(&h.started));
  assert_false(air_pool_asleep(pool)); /* one worker runs the task */
  atomic_store(&h.release, 1);
  while (!air_pool_asleep(pool) && air_time_now_ns() < deadline) test_sleep_us(100);
  assert_true(air_pool_asleep(pool));
  air_pool_destroy(pool);

  air_pool_t* local = NULL;
  assert_null(air_pool_create_local(NULL, &local));
  assert_false(air_pool_asleep(local));
  air_pool_destroy(local);
}

/*---------------------------------------------------------------------------*/
/* Locality (issue 14): a worker's own tasks newest first, stealing when idle  */
/*---------------------------------------------------------------------------*/

enum { ORD_MAX = 8 };

/* Records the order tasks ran in and on which worker. */
typedef struct order_log_t {
  _Atomic uint32_t n;
  uint32_t id[ORD_MAX];
  uint32_t worker[ORD_MAX];
  _Atomic uint32_t done;
} order_log_t;

typedef struct ordered_t {
  air_task_t task;
  order_log_t* log;
  uint32_t id;
} ordered_t;

static void ordered_fn(air_task_t* t, uint32_t worker) {
  ordered_t* o = (ordered_t*)t;
  uint32_t k = atomic_fetch_add(&o->log->n, 1);
  if (k < ORD_MAX) o->log->id[k] = o->id, o->log->worker[k] = worker;
  atomic_fetch_add(&o->log->done, 1);
}

/* A task that queues `n` ordered tasks one by one from its worker, then either
 * returns or (wait) spins until they all ran, which only another worker can
 * make happen. */
typedef struct spawner_t {
  air_task_t task;
  air_pool_t* pool;
  ordered_t* kids;
  uint32_t n;
  bool wait;
  _Atomic uint32_t worker;
  _Atomic int finished; /* 1: returned, 2: gave up waiting */
} spawner_t;

static void spawner_fn(air_task_t* t, uint32_t worker) {
  spawner_t* sp = (spawner_t*)t;
  atomic_store(&sp->worker, worker);
  for (uint32_t i = 0; i < sp->n; ++i) air_pool_submit(sp->pool, &sp->kids[i].task);
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  bool gave_up = false;
  while (sp->wait && atomic_load(&sp->kids[0].log->done) < sp->n && !gave_up)
    gave_up = air_time_now_ns() > deadline;
  atomic_store(&sp->finished, gave_up ? 2 : 1);
}

static void kids_init(ordered_t* kids, uint32_t n, order_log_t* log) {
  memset(log, 0, sizeof *log);
  for (uint32_t i = 0; i < n; ++i) {
    memset(&kids[i], 0, sizeof kids[i]);
    kids[i].task.fn = ordered_fn;
    kids[i].log = log;
    kids[i].id = i;
  }
}

/* A spawner and its kids, in one record: the three locality tests set up the
 * same pair. */
typedef struct spawn_case_t {
  ordered_t kids[ORD_MAX];
  order_log_t log;
  spawner_t sp;
} spawn_case_t;

/* Submits a spawner of `n` kids (wait: it waits for them, see spawner_t). */
static void spawn(spawn_case_t* c, air_pool_t* pool, uint32_t n, bool wait) {
  assert_true(n <= ORD_MAX);
  kids_init(c->kids, n, &c->log);
  memset(&c->sp, 0, sizeof c->sp);
  c->sp.task.fn = spawner_fn, c->sp.pool = pool, c->sp.kids = c->kids, c->sp.n = n;
  c->sp.wait = wait;
  air_pool_submit(pool, &c->sp.task);
}

/* Waits (at most 10 s) until `n` tasks of `log` ran; the caller checks. */
static void wait_done(order_log_t* log, uint32_t n) {
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  while (atomic_load(&log->done) < n && air_time_now_ns() < deadline) test_sleep_us(100);
}

static void wait_flag(_Atomic int* flag) {
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  while (!atomic_load(flag) && air_time_now_ns() < deadline) test_sleep_us(100);
  assert_true(atomic_load(flag));
}

/* With the other worker busy, the tasks a worker queued run on it, newest first
 * (the FIFO pool ran them oldest first: this fails there). */
static void test_own_tasks_newest_first(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  static held_t h;
  memset(&h, 0, sizeof h);
  h.task.fn = held_fn;
  air_pool_submit(pool, &h.task);
  wait_flag(&h.started);
  enum { N = 4 };
  static spawn_case_t c;
  spawn(&c, pool, N, false);
  wait_done(&c.log, N);
  atomic_store(&h.release, 1);
  air_pool_destroy(pool);
  assert_int_equal(atomic_load(&c.log.n), N);
  for (uint32_t k = 0; k < N; ++k) {
    assert_int_equal(c.log.id[k], N - 1 - k);
    assert_int_equal(c.log.worker[k], atomic_load(&c.sp.worker));
  }
}

/* A worker busy with a task that waits for the tasks it queued: the idle worker
 * steals them, oldest first, each once. Without stealing the waiter gives up. */
static void test_idle_worker_steals(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  enum { N = 6 };
  static spawn_case_t c;
  spawn(&c, pool, N, true);
  wait_flag(&c.sp.finished);
  air_pool_stats_t st;
  air_pool_stats(pool, &st);
  air_pool_destroy(pool);
  assert_int_equal(atomic_load(&c.sp.finished), 1);
  assert_int_equal(atomic_load(&c.log.n), N);
  assert_true(st.steals >= N);
  for (uint32_t k = 0; k < N; ++k) {
    assert_int_equal(c.log.id[k], k);
    assert_int_not_equal(c.log.worker[k], atomic_load(&c.sp.worker));
  }
}

/* One worker: its own tasks newest first; what other threads submit, FIFO. */
static void test_one_worker_order(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 1, &pool));
  enum { N = 4 };
  static spawn_case_t c;
  spawn(&c, pool, N, false);
  wait_done(&c.log, N);
  assert_int_equal(atomic_load(&c.log.n), N);
  for (uint32_t k = 0; k < N; ++k) assert_int_equal(c.log.id[k], N - 1 - k);

  static held_t h;
  memset(&h, 0, sizeof h);
  h.task.fn = held_fn;
  air_pool_submit(pool, &h.task);
  wait_flag(&h.started);
  kids_init(c.kids, N, &c.log);
  for (uint32_t i = 0; i < N; ++i) air_pool_submit(pool, &c.kids[i].task);
  atomic_store(&h.release, 1);
  wait_done(&c.log, N);
  air_pool_destroy(pool);
  assert_int_equal(atomic_load(&c.log.n), N);
  for (uint32_t k = 0; k < N; ++k) assert_int_equal(c.log.id[k], k);
}

/* A tree of tasks (each queues its two children, as one chain or one by one)
 * beside a thread submitting from outside: every task runs exactly once, on 1
 * and on 2 workers. */
enum { TREE_DEPTH = 12, TREE_N = (1 << (TREE_DEPTH + 1)) - 1, OUTSIDE_N = 2000 };

typedef struct tree_t {
  air_task_t task;
  air_pool_t* pool;
  struct tree_t* all;
  uint32_t index;
  _Atomic uint32_t runs;
  _Atomic uint64_t* total;
} tree_t;

static void tree_fn(air_task_t* t, uint32_t worker) {
  (void)worker;
  tree_t* n = (tree_t*)t;
  atomic_fetch_add(&n->runs, 1);
  uint32_t l = 2 * n->index + 1;
  if (l + 1 < TREE_N) {
    tree_t *a = &n->all[l], *b = &n->all[l + 1];
    if (n->index & 1) {
      a->task.next = &b->task;
      air_pool_submit_chain(n->pool, &a->task, &b->task, 2);
    } else {
      air_pool_submit(n->pool, &a->task);
      air_pool_submit(n->pool, &b->task);
    }
  }
  atomic_fetch_add(n->total, 1);
}

static void tree_run(uint32_t threads) {
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, threads, &pool));
  static tree_t nodes[TREE_N + OUTSIDE_N];
  _Atomic uint64_t total = 0;
  for (uint32_t i = 0; i < TREE_N + OUTSIDE_N; ++i) {
    memset(&nodes[i], 0, sizeof nodes[i]);
    nodes[i].task.fn = tree_fn;
    nodes[i].pool = pool;
    nodes[i].all = nodes;
    nodes[i].index = i < TREE_N ? i : TREE_N; /* outside tasks have no children */
    nodes[i].total = &total;
  }
  air_pool_submit(pool, &nodes[0].task);
  for (uint32_t i = TREE_N; i < TREE_N + OUTSIDE_N; ++i) air_pool_submit(pool, &nodes[i].task);
  wait_count(&total, TREE_N + OUTSIDE_N);
  air_pool_destroy(pool);
  assert_int_equal(atomic_load(&total), TREE_N + OUTSIDE_N);
  for (uint32_t i = 0; i < TREE_N + OUTSIDE_N; ++i) assert_int_equal(atomic_load(&nodes[i].runs), 1);
}

static void test_tree_each_task_once(void** state) {
  (void)state;
  tree_run(1);
  tree_run(2);
}

typedef struct {
  air_pool_t* pool;
  _Atomic int stop;
  uint64_t sets;
} spinner_t;

static void* set_spin_main(void* arg) {
  spinner_t* s = arg;
  for (uint32_t i = 0; !atomic_load(&s->stop); ++i) {
    air_pool_set_spin(s->pool, i % 2 ? 64 : 0);
    ++s->sets;
  }
  return NULL;
}

/* air_pool_set_spin while the workers run (under TSan: no data race with the
 * workers' reads of the count). Rounds of tasks leave the workers idle between
 * them, so each round's idle spells read a count another thread keeps changing;
 * every task still runs once, and with the count left at 0 the workers sleep. */
static void test_set_spin_while_running(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  assert_null(air_pool_create(NULL, 2, &pool));
  spinner_t sp = {.pool = pool};
  pthread_t th;
  test_threads_start(&th, 1, set_spin_main, &sp, sizeof sp);
  enum { ROUNDS = 200, PER = 50 };
  /* A record per task: a worker may still read its task after counting it. */
  static counted_t tasks[ROUNDS * PER];
  _Atomic uint64_t counter = 0;
  _Atomic uint32_t seen = 0;
  for (int i = 0; i < ROUNDS * PER; ++i) {
    memset(&tasks[i], 0, sizeof tasks[i]);
    tasks[i].task.fn = count_fn;
    tasks[i].counter = &counter;
    tasks[i].seen_by = &seen;
  }
  for (int r = 0; r < ROUNDS; ++r) {
    for (int i = 0; i < PER; ++i) air_pool_submit(pool, &tasks[r * PER + i].task);
    wait_count(&counter, (uint64_t)(r + 1) * PER);
    assert_int_equal(atomic_load(&counter), (uint64_t)(r + 1) * PER);
    if (r % 20 == 0) test_sleep_us(200); /* let the workers reach their idle spin */
  }
  atomic_store(&sp.stop, 1);
  test_threads_join(&th, 1);
  assert_true(sp.sets > 0);
  air_pool_set_spin(pool, 0);
  int64_t deadline = air_time_now_ns() + 10LL * 1000 * 1000 * 1000;
  while (!air_pool_asleep(pool) && air_time_now_ns() < deadline) test_sleep_us(100);
  assert_true(air_pool_asleep(pool));
  air_pool_stats_t st;
  air_pool_stats(pool, &st);
  assert_int_equal(st.tasks_run, (uint64_t)ROUNDS * PER);
  air_pool_destroy(pool);
}

static void test_bad_thread_count(void** state) {
  (void)state;
  air_pool_t* pool = NULL;
  air_status_t s = air_pool_create(NULL, 100000, &pool);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  assert_null(pool);
  air_status_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_task_runs_once),
      cmocka_unit_test(test_tasks_submit_tasks),
      cmocka_unit_test(test_idle_workers_sleep),
      cmocka_unit_test(test_idle_waiter_sleeps),
      cmocka_unit_test(test_asleep),
      cmocka_unit_test(test_own_tasks_newest_first),
      cmocka_unit_test(test_idle_worker_steals),
      cmocka_unit_test(test_one_worker_order),
      cmocka_unit_test(test_tree_each_task_once),
      cmocka_unit_test(test_set_spin_while_running),
      cmocka_unit_test(test_bad_thread_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

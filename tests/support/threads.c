/* threads.c - starting and joining test threads, sleeping. */
#include "support/threads.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

void test_threads_start(pthread_t* threads, uint32_t n, test_thread_fn_t fn, void* args,
                        size_t size) {
  for (uint32_t i = 0; i < n; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, fn, (char*)args + i * size), 0);
}

void test_threads_join(pthread_t* threads, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
}

void test_threads_run(uint32_t n, test_thread_fn_t fn, void* args, size_t size) {
  pthread_t th[16];
  assert_true(n <= 16);
  test_threads_start(th, n, fn, args, size);
  test_threads_join(th, n);
}

void test_sleep_us(int64_t us) {
  struct timespec d = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&d, NULL);
}

void test_tids_now(test_tids_t* out) {
  out->n = 0;
  DIR* d = opendir("/proc/self/task");
  assert_non_null(d);
  for (struct dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    assert_true(out->n < TEST_TIDS_MAX);
    out->id[out->n++] = strtol(e->d_name, NULL, 10);
  }
  closedir(d);
}

uint32_t test_tids_new(const test_tids_t* before, const test_tids_t* now, long* first) {
  uint32_t fresh = 0;
  for (uint32_t i = 0; i < now->n; ++i) {
    uint32_t j = 0;
    while (j < before->n && before->id[j] != now->id[i]) ++j;
    if (j < before->n) continue;
    if (!fresh++ && first) *first = now->id[i];
  }
  return fresh;
}

/* The thread's name (/proc/self/task/TID/comm), or "?". */
/* Seconds since `t0` on the monotonic clock. */
static int64_t since_s(const struct timespec* t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)(t.tv_sec - t0->tv_sec);
}

bool test_gate_pass(test_gate_t* g, int seconds) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  atomic_fetch_add(&g->entered, 1);
  while (!atomic_load(&g->open) && since_s(&t0) < seconds) test_sleep_us(1000);
  bool opened = atomic_load(&g->open) != 0;
  atomic_fetch_add(&g->left, 1);
  return opened;
}

void test_gate_open(test_gate_t* g) { atomic_store(&g->open, 1); }

void test_gate_expect_left(test_gate_t* g, int n, int seconds) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (atomic_load(&g->left) < n && since_s(&t0) < seconds) test_sleep_us(1000);
  if (atomic_load(&g->left) < n)
    fail_msg("%d of %d caller(s) left the gate within %d s", atomic_load(&g->left), n, seconds);
}

static void tid_name(long tid, char* out, size_t cap) {
  snprintf(out, cap, "?");
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/comm", tid);
  FILE* f = fopen(path, "r");
  if (!f) return;
  if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = 0;
  fclose(f);
}

void test_tids_expect_gone(const test_tids_t* before, int seconds, const char* what) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  test_tids_t now;
  long first = 0;
  uint32_t left;
  for (;;) {
    test_tids_now(&now);
    left = test_tids_new(before, &now, &first);
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!left || t.tv_sec - t0.tv_sec >= seconds) break;
    test_sleep_us(1000);
  }
  if (!left) return;
  char name[64];
  tid_name(first, name, sizeof name);
  fail_msg("%u thread(s) started since the test began still run %d s after %s "
           "(one: tid %ld, \"%s\")", left, seconds, what, first, name);
}

/* threads.h - what concurrency tests share: start a function on several threads
 * at once (one argument record each), join them, sleep, and see which threads the
 * process has (to check that what the runtime started has ended). */
#ifndef AIR_TESTS_SUPPORT_THREADS_H_
#define AIR_TESTS_SUPPORT_THREADS_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void* (*test_thread_fn_t)(void* arg);

/* Starts fn on n threads, thread i with (char*)args + i * size (fails the test
 * when a thread cannot start). */
void test_threads_start(pthread_t* threads, uint32_t n, test_thread_fn_t fn, void* args,
                        size_t size);
void test_threads_join(pthread_t* threads, uint32_t n);
/* Both: runs fn on n (at most 16) threads at once and waits for all of them. */
void test_threads_run(uint32_t n, test_thread_fn_t fn, void* args, size_t size);
void test_sleep_us(int64_t us);

/* A gate the test opens: a kernel that must still be running when the test
 * checks something waits in it, so "still running" is a fact rather than a race
 * against a sleep. Zero-initialised: closed. */
typedef struct test_gate_t {
  _Atomic int open, entered, left;
} test_gate_t;
/* Counts the caller in, waits until the gate opens (at most `seconds`: a test
 * that fails before opening it does not hang a worker), counts it out. False
 * when it gave up. Never fails the test: it runs on any thread. */
bool test_gate_pass(test_gate_t* g, int seconds);
void test_gate_open(test_gate_t* g);
/* Waits until `n` callers have left the gate, at most `seconds`; fails otherwise. */
void test_gate_expect_left(test_gate_t* g, int n, int seconds);

/* The threads of this process: their ids, from /proc/self/task. */
enum { TEST_TIDS_MAX = 512 };
typedef struct test_tids_t {
  uint32_t n;
  long id[TEST_TIDS_MAX];
} test_tids_t;
void test_tids_now(test_tids_t* out);
/* How many threads of `now` are not in `before` (started since), and the first
 * of them in *first (when not NULL and there is one). */
uint32_t test_tids_new(const test_tids_t* before, const test_tids_t* now, long* first);
/* Waits until every thread started since `before` has left /proc/self/task, for
 * at most `seconds`; fails the test naming one that is still there, and `what`.
 * A joined thread stays listed for a moment after pthread_join returns (the
 * kernel wakes the joiner when it clears the thread's id, before it removes the
 * task), so a count read right after the join can be one too high. */
void test_tids_expect_gone(const test_tids_t* before, int seconds, const char* what);

#endif /* AIR_TESTS_SUPPORT_THREADS_H_ */

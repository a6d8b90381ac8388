/* threads.h - what concurrency tests share: start a function on several threads
 * at once (one argument record each), join them, sleep. */
#ifndef AIR_TESTS_SUPPORT_THREADS_H_
#define AIR_TESTS_SUPPORT_THREADS_H_

#include <pthread.h>
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

#endif /* AIR_TESTS_SUPPORT_THREADS_H_ */

/* threads.c - starting and joining test threads, sleeping. */
#include "support/threads.h"

#include <setjmp.h>
#include <stdarg.h>
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

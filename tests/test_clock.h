/* test_clock.h - what timing assertions in tests share: process CPU time (so a
 * loaded machine does not fail a speed test) and whether a sanitizer is on (speed
 * assertions are skipped then; the figures are still printed). */
#ifndef AIR_TESTS_TEST_CLOCK_H_
#define AIR_TESTS_TEST_CLOCK_H_

#include <time.h>

static inline double test_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif

#endif /* AIR_TESTS_TEST_CLOCK_H_ */

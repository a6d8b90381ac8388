/* futex.c - see futex.h. */
#define _DEFAULT_SOURCE 1
#include "hal/futex.h"

#include <time.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int64_t air_time_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void air_futex_wait(_Atomic uint32_t* word, uint32_t expected, int64_t timeout_ns) {
#if defined(__linux__)
  struct timespec ts, *pts = NULL;
  if (timeout_ns >= 0) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec = (long)(timeout_ns % 1000000000);
    pts = &ts;
  }
  syscall(SYS_futex, (uint32_t*)word, FUTEX_WAIT_PRIVATE, expected, pts, NULL, 0);
#else
  if (atomic_load_explicit(word, memory_order_acquire) != expected) return;
  struct timespec ts = {0, 50000};
  if (timeout_ns >= 0 && timeout_ns < 50000) ts.tv_nsec = (long)timeout_ns;
  nanosleep(&ts, NULL);
#endif
}

void air_futex_wake_all(_Atomic uint32_t* word) {
#if defined(__linux__)
  syscall(SYS_futex, (uint32_t*)word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
#else
  (void)word;
#endif
}

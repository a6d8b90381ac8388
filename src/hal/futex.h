/* futex.h - sleep until a 32-bit word changes, and wake sleepers. Linux futexes
 * where available; elsewhere a short sleep loop, which is correct but slower. */
#ifndef AIR_HAL_FUTEX_H_
#define AIR_HAL_FUTEX_H_

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *word == expected, at most timeout_ns (< 0: no limit). Returns
 * early on a wake or spuriously; callers re-check their condition. */
void air_futex_wait(_Atomic uint32_t* word, uint32_t expected, int64_t timeout_ns);
/* Wakes every sleeper on word. */
void air_futex_wake_all(_Atomic uint32_t* word);
/* Monotonic clock in nanoseconds. */
int64_t air_time_now_ns(void);
/* A CPU hint for spin loops. */
static inline void air_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

#endif /* AIR_HAL_FUTEX_H_ */

/* spin.h - a test-and-set spinlock for critical sections of a few dozen
 * instructions (queue links, cache classes, live-alloc records, semaphore
 * timepoint lists), where a pthread mutex's futex sleep and wake would cost more
 * than the section. Never held across a call that can block. */
#ifndef AIR_HAL_SPIN_H_
#define AIR_HAL_SPIN_H_

#include <stdatomic.h>

#include "hal/futex.h"

static inline void air_spin_lock(atomic_flag* f) {
  while (atomic_flag_test_and_set_explicit(f, memory_order_acquire)) air_cpu_relax();
}

static inline void air_spin_unlock(atomic_flag* f) {
  atomic_flag_clear_explicit(f, memory_order_release);
}

#endif /* AIR_HAL_SPIN_H_ */

/* semaphore.c - timeline semaphores; see semaphore.h.
 *
 * Waking uses a sleeper count plus an epoch word (the futex): a waiter announces
 * itself, reads the epoch, re-checks the value and sleeps only if the epoch is
 * unchanged; a signaller publishes the value, then bumps the epoch and wakes only
 * when someone sleeps. Both sides use sequentially consistent operations on the
 * value and the sleeper count, so one always sees the other and no wake is lost,
 * while an uncontended signal costs two atomic operations and no system call. */
#include "hal/semaphore.h"

#include <string.h>

#include "hal/futex.h"
#include "hal/spin.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

struct air_semaphore_t {
  _Atomic uint64_t value;
  _Atomic(air_status_t) failure;
  _Atomic uint32_t refs;
  _Atomic uint32_t sleepers;
  _Atomic uint32_t epoch;
  uint32_t spin;
  _Atomic uint64_t futex_waits, futex_wakes; /* touched only beside a syscall */
  atomic_flag lock; /* guards `pending` and `pending_tail` */
  /* Sorted by value: a signal detaches a prefix, and the common registration (a
   * value at or above every pending one, as pipelined submissions make) appends at
   * the tail, so both stay O(1) however long the chain. */
  air_timepoint_t* pending;
  air_timepoint_t* pending_tail;
  air_allocator_t allocator;
};

static void lock(air_semaphore_t* s) { air_spin_lock(&s->lock); }
static void unlock(air_semaphore_t* s) { air_spin_unlock(&s->lock); }

air_status_t air_semaphore_create(air_context_t* context, uint64_t initial_value,
                                  air_semaphore_t** out_semaphore) {
  if (!context)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_semaphore_create: NULL context");
  return air_hal_semaphore_create(air_context_allocator(context), initial_value,
                                  out_semaphore);
}

air_status_t air_hal_semaphore_create(const air_allocator_t* allocator,
                                      uint64_t initial_value, air_semaphore_t** out_semaphore) {
  air_allocator_t a = air_mem_or_system_copy(allocator);
  if (!out_semaphore)
    return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT, "air_semaphore_create: NULL out");
  *out_semaphore = NULL;
  air_semaphore_t* s = a.alloc(a.self, sizeof(*s));
  if (!s) return AIR_STATUS(&a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory creating a semaphore");
  memset(s, 0, sizeof(*s));
  atomic_init(&s->value, initial_value);
  atomic_init(&s->failure, NULL);
  atomic_init(&s->refs, 1);
  atomic_init(&s->sleepers, 0);
  atomic_init(&s->epoch, 0);
  atomic_init(&s->futex_waits, 0);
  atomic_init(&s->futex_wakes, 0);
  atomic_flag_clear(&s->lock);
  s->spin = 4096;
  s->allocator = a;
  *out_semaphore = s;
  return NULL;
}

air_status_t air_timepoint_list_wait(const air_timepoint_list_t* list, int64_t timeout_ns) {
  if (!list || (list->count && (!list->semaphores || !list->values)))
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_timepoint_list_wait: bad list");
  int64_t deadline = timeout_ns < 0 ? -1 : air_time_now_ns() + timeout_ns;
  for (uint32_t i = 0; i < list->count; ++i) {
    if (!list->semaphores[i])
      return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                        "air_timepoint_list_wait: semaphore %u is NULL", i);
    int64_t left = -1;
    if (deadline >= 0) {
      left = deadline - air_time_now_ns();
      if (left < 0) left = 0;
    }
    AIR_RETURN_IF_ERROR(air_semaphore_wait(list->semaphores[i], list->values[i], left));
  }
  return NULL;
}

void air_semaphore_retain(air_semaphore_t* s) {
  if (s) atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void air_semaphore_release(air_semaphore_t* s) {
  if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  /* Timepoints still pending belong to callers that would otherwise wait forever:
   * tell them the timeline is gone. */
  air_timepoint_t* tp = s->pending;
  s->pending = s->pending_tail = NULL;
  if (tp) {
    air_status_t st = AIR_STATUS(&s->allocator, AIR_STATUS_CANCELLED,
                                 "semaphore destroyed with timepoints pending");
    while (tp) {
      air_timepoint_t* next = tp->next;
      tp->fn(tp->user, st);
      tp = next;
    }
    air_status_free(st);
  }
  air_status_free(atomic_load(&s->failure));
  air_allocator_t a = s->allocator;
  a.free(a.self, s);
}

void air_semaphore_set_spin(air_semaphore_t* s, uint32_t spin_iterations) {
  if (s) s->spin = spin_iterations;
}

uint64_t air_semaphore_query(air_semaphore_t* s, air_status_t* out_failure) {
  air_status_t f = atomic_load_explicit(&s->failure, memory_order_acquire);
  if (out_failure) *out_failure = f ? air_status_clone(f) : NULL;
  return f ? UINT64_MAX : atomic_load_explicit(&s->value, memory_order_acquire);
}

static void wake_sleepers(air_semaphore_t* s) {
  if (atomic_load(&s->sleepers) == 0) return;
  atomic_fetch_add(&s->epoch, 1);
  atomic_fetch_add_explicit(&s->futex_wakes, 1, memory_order_relaxed);
  air_futex_wake_all(&s->epoch);
}

void air_semaphore_stats(const air_semaphore_t* s, air_semaphore_stats_t* out) {
  air_semaphore_t* m = (air_semaphore_t*)s;
  out->futex_waits = atomic_load_explicit(&m->futex_waits, memory_order_relaxed);
  out->futex_wakes = atomic_load_explicit(&m->futex_wakes, memory_order_relaxed);
}

/* Detaches the timepoints that `value` (or, with `all`, a failure) resolves. */
static air_timepoint_t* take_resolved(air_semaphore_t* s, uint64_t value, bool all) {
  lock(s);
  air_timepoint_t* done = s->pending;
  air_timepoint_t* last = NULL;
  for (air_timepoint_t* tp = done; tp && (all || tp->value <= value); tp = tp->next) last = tp;
  if (!last) {
    done = NULL;
  } else {
    s->pending = last->next;
    if (!s->pending) s->pending_tail = NULL;
    last->next = NULL;
  }
  unlock(s);
  return done;
}

air_status_t air_semaphore_signal(air_semaphore_t* s, uint64_t value) {
  uint64_t cur = atomic_load(&s->value);
  do {
    air_status_t f = atomic_load_explicit(&s->failure, memory_order_acquire);
    if (f) return air_status_clone(f);
    if (value <= cur)
      return AIR_STATUS(&s->allocator, AIR_STATUS_INVALID_ARGUMENT,
                        "semaphore signal to %llu but it is already at %llu "
                        "(timeline values must increase)",
                        (unsigned long long)value, (unsigned long long)cur);
  } while (!atomic_compare_exchange_weak(&s->value, &cur, value));
  wake_sleepers(s);
  for (air_timepoint_t* tp = take_resolved(s, value, false); tp;) {
    air_timepoint_t* next = tp->next;
    tp->fn(tp->user, NULL);
    tp = next;
  }
  return NULL;
}

void air_semaphore_fail(air_semaphore_t* s, air_status_t status) {
  if (!status)
    status = AIR_STATUS(&s->allocator, AIR_STATUS_UNKNOWN, "semaphore failed with no status");
  air_status_t expected = NULL;
  if (!atomic_compare_exchange_strong(&s->failure, &expected, status)) {
    air_status_free(status); /* the first failure wins */
    return;
  }
  wake_sleepers(s);
  for (air_timepoint_t* tp = take_resolved(s, 0, true); tp;) {
    air_timepoint_t* next = tp->next;
    tp->fn(tp->user, status);
    tp = next;
  }
}

void air_semaphore_notify(air_semaphore_t* s, air_timepoint_t* tp) {
  lock(s);
  air_status_t f = atomic_load_explicit(&s->failure, memory_order_acquire);
  bool reached = f || atomic_load(&s->value) >= tp->value;
  if (!reached) {
    tp->next = NULL;
    if (!s->pending_tail || s->pending_tail->value <= tp->value) {
      if (s->pending_tail)
        s->pending_tail->next = tp;
      else
        s->pending = tp;
      s->pending_tail = tp;
    } else {
      air_timepoint_t** link = &s->pending;
      while ((*link)->value <= tp->value) link = &(*link)->next;
      tp->next = *link;
      *link = tp;
    }
  }
  unlock(s);
  if (reached) tp->fn(tp->user, f);
}

air_status_t air_semaphore_wait(air_semaphore_t* s, uint64_t value, int64_t timeout_ns) {
  for (uint32_t i = 0;; ++i) {
    air_status_t f = atomic_load_explicit(&s->failure, memory_order_acquire);
    if (f) return air_status_clone(f);
    if (atomic_load_explicit(&s->value, memory_order_acquire) >= value) return NULL;
    if (i >= s->spin || timeout_ns == 0) break;
    air_cpu_relax();
  }
  if (timeout_ns == 0)
    return AIR_STATUS(&s->allocator, AIR_STATUS_DEADLINE_EXCEEDED,
                      "timepoint %llu not reached (semaphore at %llu)",
                      (unsigned long long)value, (unsigned long long)atomic_load(&s->value));
  int64_t deadline = timeout_ns < 0 ? -1 : air_time_now_ns() + timeout_ns;
  atomic_fetch_add(&s->sleepers, 1);
  air_status_t result = NULL;
  for (;;) {
    uint32_t e = atomic_load(&s->epoch);
    air_status_t f = atomic_load(&s->failure);
    if (f) {
      result = air_status_clone(f);
      break;
    }
    if (atomic_load(&s->value) >= value) break;
    int64_t left = -1;
    if (deadline >= 0) {
      left = deadline - air_time_now_ns();
      if (left <= 0) {
        result = AIR_STATUS(&s->allocator, AIR_STATUS_DEADLINE_EXCEEDED,
                            "timepoint %llu not reached within %lld ns (semaphore at %llu)",
                            (unsigned long long)value, (long long)timeout_ns,
                            (unsigned long long)atomic_load(&s->value));
        break;
      }
    }
    atomic_fetch_add_explicit(&s->futex_waits, 1, memory_order_relaxed);
    air_futex_wait(&s->epoch, e, left);
  }
  atomic_fetch_sub(&s->sleepers, 1);
  return result;
}

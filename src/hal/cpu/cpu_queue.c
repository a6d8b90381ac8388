/* cpu_queue.c - queue submissions on the cpu device: wait -> execute -> signal,
 * with no thread ever blocking.
 *
 * A submission is one allocation: its state, a timepoint node per wait, the signal
 * list, and task nodes for the transfers of one wave. It registers a node on every
 * wait semaphore and counts them down (plus one guard held while registering, so
 * no callback can finish the submission under the submitter's feet). The last
 * count puts it on the pool. There it runs its command buffer wave by wave: the
 * commands between two barriers all start, `pending` counts them down (again with
 * a guard), and whoever brings it to zero starts the next wave. Dispatch
 * completions come from the interpreter on any thread, so they hop back onto the
 * pool; transfer completions are already on a worker and continue in place.
 * A dispatch whose entry cannot park (air_interp_inline_kind, decided when it is
 * recorded) runs inline on a worker with no strands: a straight-line one right
 * here (starting it elsewhere would cost more than running it), any other like a
 * transfer, so the dispatches of one wave still spread over the workers.
 *
 * The first failure (a failed wait, a failed dispatch) is kept; later commands are
 * skipped and every signal semaphore fails with a copy of it. Semaphore callbacks
 * never run work inline, so a long chain of submissions cannot grow the stack. */
#include <string.h>

#include "hal/cpu/cpu_device.h"
#include "hal/cpu/interp/interp.h"
#include "hal/futex.h"
#include "hal/semaphore.h"
#include "runtime/base/status_util.h"

typedef struct submission_t submission_t;

typedef struct transfer_task_t {
  air_task_t task;
  submission_t* sub;
  const air_cpu_cmd_t* cmd;
} transfer_task_t;

struct submission_t {
  air_task_t task; /* starts the submission, then resumes it after dispatch waves */
  air_cpu_device_t* device;
  air_pool_t* pool; /* where its tasks go: the device's, or a caller's local one */
  _Atomic bool* finished; /* set last when it runs on its caller's thread */
  int64_t t0; /* when its first wave started (0: not yet) */
  int64_t t_submit; /* when it was put on the workers to start (0: not) */
  bool probe; /* sent the other way than prefer_caller said, to measure it */
  bool pref; /* what prefer_caller said when it was submitted */
  bool cold; /* every worker was asleep when it was put on them to start */
  air_cpu_command_buffer_t* cb; /* retained; NULL for a barrier */
  _Atomic uint32_t waits_left;
  _Atomic uint32_t pending; /* commands of the current wave still running */
  _Atomic(air_status_t) failure;
  uint32_t next; /* first command of the next wave */
  uint32_t n_signal;
  air_timepoint_t* waits;
  air_semaphore_t** signal_sems;
  uint64_t* signal_values;
  transfer_task_t* transfers;
};

static void set_failure(submission_t* s, air_status_t st) {
  air_status_t expected = NULL;
  if (!atomic_compare_exchange_strong(&s->failure, &expected, st)) air_status_free(st);
}

/* The last decrement to zero happens under the drain mutex: see cpu_device.h. */
static void inflight_done(air_cpu_device_t* d) {
  uint32_t cur = atomic_load(&d->inflight);
  while (cur > 1)
    if (atomic_compare_exchange_weak(&d->inflight, &cur, cur - 1)) return;
  pthread_mutex_lock(&d->drain_mu);
  if (atomic_fetch_sub(&d->inflight, 1) == 1) pthread_cond_broadcast(&d->drain_cv);
  pthread_mutex_unlock(&d->drain_mu);
}

/* The longest a submission may keep its caller (queue_execute "returns at
 * once"): past this it goes to the workers whatever the wake-ups cost. */
enum { CALLER_RUN_MAX_NS = 1000000 };
/* The same for a command buffer the caller runs with the workers' help
 * (with_workers): it holds its caller for its share of the work, and the
 * workers do theirs meanwhile. Past this (as last measured on either side) it
 * goes to the workers, so a long one still leaves its caller free. */
enum { CALLER_SHARED_MAX_NS = 10000000 };
/* Every (mask + 1)-th submission that could go either way takes the other path
 * than the rule says, to measure it again; the interval doubles while such
 * probes leave the choice as it was, from 64 up to 4096, and drops back to 64
 * when one changes it. */
enum { PROBE_MASK_MIN = 63, PROBE_MASK_MAX = 4095 };

/* c's execution time on its caller's thread (*here) and on the workers (*pool),
 * as last measured; a side not measured yet is estimated from the other (the
 * workers gain at most their parallelism p). False when neither is known. */
static bool estimate(air_cpu_device_t* d, air_cpu_command_buffer_t* c, int64_t* here,
                     int64_t* pool) {
  int64_t h = atomic_load_explicit(&c->here_ns, memory_order_relaxed);
  int64_t w = atomic_load_explicit(&c->pool_ns, memory_order_relaxed);
  int64_t p = air_pool_threads(d->pool);
  if (!h && !w) return false;
  *here = h ? h : w * p;
  *pool = w ? w : h / p;
  return true;
}

/* Whether c's next submission is cheaper on its caller's thread (run_here). On
 * the workers a submission pays a worker's wake-up (measured in advance) and
 * then its waiter's (about the same, unseen here) on top of its execution
 * there; on the caller it pays its execution here. So the caller wins when
 * here <= pool + 2 wake. Both executions are measured (estimate): a program
 * whose strands hand work back and forth (samples/vector_add.mlir) can run
 * slower on two workers than on one thread. The wake-up is the one the
 * workers' state asks for now: a spinning worker takes work in ~1 us, a
 * sleeping one (every worker idle past its spin, as between an application's
 * calls) costs a futex wake and the sleeper's way back onto a core, 30-100 us
 * on an idle VM, so it is measured apart (wake_cold_ns). */
static bool prefer_caller(air_cpu_device_t* d, air_cpu_command_buffer_t* c) {
  int64_t here, pool;
  if (!estimate(d, c, &here, &pool)) return false;
  int64_t wake = atomic_load_explicit(&d->wake_ns, memory_order_relaxed);
  if (air_pool_asleep(d->pool)) { /* the wake-up it would pay now (0: not yet seen) */
    int64_t cold = atomic_load_explicit(&d->wake_cold_ns, memory_order_relaxed);
    if (cold > wake) wake = cold;
  }
  return wake > 0 && here <= CALLER_RUN_MAX_NS && here <= pool + 2 * wake;
}

/* A probe of c finished (its time is stored): the next probe comes twice as
 * late if the rule still says what it said before (`pref`), at the minimum
 * interval if not. */
static void probed(air_cpu_device_t* d, air_cpu_command_buffer_t* c, bool pref) {
  uint32_t m = atomic_load_explicit(&d->probe_mask, memory_order_relaxed);
  m = prefer_caller(d, c) != pref ? PROBE_MASK_MIN : m < PROBE_MASK_MAX ? 2 * m + 1 : m;
  atomic_store_explicit(&d->probe_mask, m, memory_order_relaxed);
}

static void complete(submission_t* s) {
  air_status_t st = atomic_exchange(&s->failure, NULL);
  if (!st && s->cb && s->t0) {
    /* A running average over ~4 in which one sample counts at most twice the
     * average: a run that lost its core once does not flip the choice. */
    _Atomic int64_t* avg = s->finished ? &s->cb->here_ns : &s->cb->pool_ns;
    int64_t old = atomic_load_explicit(avg, memory_order_relaxed);
    int64_t now = air_time_now_ns() - s->t0;
    if (old && now > 2 * old) now = 2 * old;
    atomic_store_explicit(avg, old ? old + (now - old) / 4 : now, memory_order_relaxed);
    if (s->probe) probed(s->device, s->cb, s->pref);
  }
  _Atomic bool* finished = s->finished;
  for (uint32_t i = 0; i < s->n_signal; ++i) {
    air_semaphore_t* sem = s->signal_sems[i];
    if (st) {
      air_semaphore_fail(sem, air_status_clone(st));
    } else {
      /* Refused only when the timeline is already failed or at or past the value
       * (a duplicate entry, a host signal): either way no waiter is left hanging. */
      air_status_free(air_semaphore_signal(sem, s->signal_values[i]));
    }
  }
  air_status_free(st);
  for (uint32_t i = 0; i < s->n_signal; ++i) air_semaphore_release(s->signal_sems[i]);
  if (s->cb) air_command_buffer_release(&s->cb->base);
  air_cpu_device_t* d = s->device;
  d->base.allocator.free(d->base.allocator.self, s);
  inflight_done(d);
  if (finished) atomic_store_explicit(finished, true, memory_order_release);
}

static void run_transfer(const air_cpu_cmd_t* cmd) {
  if (cmd->kind == AIR_CPU_CMD_COPY) {
    memmove(cmd->u.copy.target, cmd->u.copy.source, (size_t)cmd->u.copy.length);
    return;
  }
  char* p = cmd->u.fill.target;
  size_t n = (size_t)cmd->u.fill.length;
  uint32_t w = cmd->u.fill.pattern;
  uint8_t b[4];
  memcpy(b, &w, 4);
  if (b[0] == b[1] && b[0] == b[2] && b[0] == b[3]) {
    memset(p, b[0], n);
    return;
  }
  size_t i = 0;
  for (; i + 4 <= n; i += 4) memcpy(p + i, b, 4);
  for (; i < n; ++i) p[i] = (char)b[i & 3];
}

static void advance(submission_t* s);

static bool start_dispatch(submission_t* s, const air_cpu_cmd_t* cmd);

/* A transfer, or a dispatch that runs inline (done when start_dispatch returns). */
static void transfer_task(air_task_t* t, uint32_t worker) {
  (void)worker;
  transfer_task_t* x = (transfer_task_t*)t;
  submission_t* s = x->sub;
  if (x->cmd->kind == AIR_CPU_CMD_DISPATCH) {
    if (!atomic_load(&s->failure)) start_dispatch(s, x->cmd); /* inline: finishes here */
  } else if (!atomic_load(&s->failure)) {
    run_transfer(x->cmd);
  }
  if (atomic_fetch_sub(&s->pending, 1) == 1) advance(s);
}

static void resume_task(air_task_t* t, uint32_t worker) {
  (void)worker;
  advance((submission_t*)t);
}

/* Notes when a submission not yet started goes to the workers, and whether it
 * finds them all asleep: advance measures that wake-up (wake_ns or wake_cold_ns). */
static void stamp_submit(submission_t* s) {
  s->t_submit = air_time_now_ns();
  s->cold = air_pool_asleep(s->pool);
}

/* Puts the submission on the pool from a thread that may not be a worker. The
 * extra in-flight count keeps the pool alive until air_pool_submit returns: the
 * submission could otherwise finish, and the device be destroyed, mid-call. */
static void hop(submission_t* s) {
  air_cpu_device_t* d = s->device;
  if (!s->t0) stamp_submit(s);
  atomic_fetch_add(&d->inflight, 1);
  air_pool_submit(s->pool, &s->task);
  inflight_done(d);
}

static void dispatch_done(void* user, air_status_t status) {
  submission_t* s = user;
  if (status) set_failure(s, status);
  if (atomic_fetch_sub(&s->pending, 1) == 1) hop(s);
}

/* Returns true when the command finished without calling dispatch_done: it
 * failed to start, or ran inline (its outcome recorded here). */
static bool start_dispatch(submission_t* s, const air_cpu_cmd_t* cmd) {
  air_status_t st, outcome = NULL;
  if (cmd->u.dispatch.inline_kind != AIR_INTERP_INLINE_NO) {
    st = air_interp_inline_exec(&cmd->u.dispatch.run, &outcome);
    if (outcome) set_failure(s, outcome);
  } else if (s->pool == s->device->pool) {
    st = air_interp_start(&cmd->u.dispatch.run.desc, dispatch_done, s);
    if (!st) return false;
  } else {
    air_interp_desc_t here = cmd->u.dispatch.run.desc; /* the run copies what it keeps */
    here.pool = s->pool;
    st = air_interp_start(&here, dispatch_done, s);
    if (!st) return false;
  }
  if (st) set_failure(s, st);
  return true;
}

static void advance(submission_t* s) {
  air_cpu_command_buffer_t* c = s->cb;
  if (!s->t0) {
    s->t0 = air_time_now_ns();
    if (s->t_submit) { /* a worker's wake-up: a running average over ~8 */
      air_cpu_device_t* d = s->device;
      _Atomic int64_t* avg = s->cold ? &d->wake_cold_ns : &d->wake_ns;
      int64_t old = atomic_load_explicit(avg, memory_order_relaxed);
      int64_t now = s->t0 - s->t_submit;
      atomic_store_explicit(avg, old ? old + (now - old) / 8 : now, memory_order_relaxed);
    }
  }
  for (;;) {
    if (!c || s->next >= c->n_cmds || atomic_load(&s->failure)) {
      complete(s);
      return;
    }
    uint32_t begin = s->next, end = begin;
    while (end < c->n_cmds && c->cmds[end].kind != AIR_CPU_CMD_BARRIER) ++end;
    s->next = end < c->n_cmds ? end + 1 : end;
    atomic_store(&s->pending, end - begin + 1); /* + the guard */
    uint32_t finished = 1, n_tasks = 0;
    const air_cpu_cmd_t* mine = NULL; /* one transfer this thread runs itself */
    for (uint32_t i = begin; i < end; ++i) {
      const air_cpu_cmd_t* cmd = &c->cmds[i];
      if (atomic_load(&s->failure)) {
        ++finished;
      } else if (cmd->kind == AIR_CPU_CMD_DISPATCH &&
                 cmd->u.dispatch.inline_kind != AIR_INTERP_INLINE_YES) {
        /* On the pool (NO), or here (SHORT: as cheap as handing it over). */
        finished += start_dispatch(s, cmd);
      } else if (!mine) {
        mine = cmd;
      } else {
        transfer_task_t* x = &s->transfers[n_tasks++];
        x->task.fn = transfer_task;
        x->sub = s;
        x->cmd = cmd;
        if (n_tasks > 1) s->transfers[n_tasks - 2].task.next = &x->task;
      }
    }
    if (n_tasks)
      air_pool_submit_chain(s->pool, &s->transfers[0].task,
                            &s->transfers[n_tasks - 1].task, n_tasks);
    if (mine) {
      if (mine->kind != AIR_CPU_CMD_DISPATCH) {
        if (!atomic_load(&s->failure)) run_transfer(mine);
        ++finished;
      } else if (atomic_load(&s->failure) || start_dispatch(s, mine)) {
        ++finished;
      }
    }
    if (atomic_fetch_sub(&s->pending, finished) != finished) return;
  }
}

static void wait_reached(void* user, air_status_t failure) {
  submission_t* s = user;
  if (failure) set_failure(s, air_status_clone(failure));
  if (atomic_fetch_sub(&s->waits_left, 1) == 1) hop(s);
}

/* Whether c runs on its caller with the workers' help (with_workers): the
 * caller takes PEs instead of waiting, and the helpers it wakes find a free
 * core. On the workers instead, the waiting caller, the worker running the
 * launch and the one woken to help are three threads: on 2 vCPUs the helper
 * was queued behind one of the others for 0.5-3 ms in most runs (1M and 4M
 * elementwise ran their two PEs in turn). So no choice by estimates and no
 * probes, only the bound on how long the caller is held, by the shorter of
 * the two measured sides (a first run slowed by page faults does not decide). */
static bool shared_here(air_cpu_command_buffer_t* c) {
  if (!c->with_workers) return false;
  int64_t h = atomic_load_explicit(&c->here_ns, memory_order_relaxed);
  int64_t w = atomic_load_explicit(&c->pool_ns, memory_order_relaxed);
  return (h && h <= CALLER_SHARED_MAX_NS) || (w && w <= CALLER_SHARED_MAX_NS) || (!h && !w);
}

/* Runs the submission to its end on this thread, its tasks on a thread-less pool
 * (pool.h) that this thread drains: no wake-up on either side. True when it ran.
 * Only for command buffers whose runs cannot outlive their work (caller_ok) and
 * when prefer_caller says so; both sides of that are measured, so the choice
 * follows the machine's load (a wake-up costs ~2 us while a worker still spins,
 * 30-100 us when it sleeps on an idle VM, 100-250 us at load 15). Now and then
 * a probe takes the other path (at most CALLER_RUN_MAX_NS here, as estimated).
 * A placement forced on the device (air_cpu_device_set_placement) overrides
 * the measured choice, never caller_ok. */
static bool run_here(submission_t* s) {
  air_cpu_device_t* d = s->device;
  air_cpu_command_buffer_t* c = s->cb;
  int64_t here, pool;
  int place = atomic_load_explicit(&d->placement, memory_order_relaxed);
  if (!c->caller_ok || place == AIR_CPU_PLACE_WORKERS) return false;
  if (place == AIR_CPU_PLACE_CALLER || shared_here(c)) {
    s->pref = true;
    s->probe = false;
  } else {
    if (!estimate(d, c, &here, &pool) || here > CALLER_RUN_MAX_NS) return false;
    s->pref = prefer_caller(d, c);
    uint32_t mask = atomic_load_explicit(&d->probe_mask, memory_order_relaxed);
    s->probe = (atomic_fetch_add_explicit(&d->probes, 1, memory_order_relaxed) & mask) == mask;
    /* A side never measured is tried at once (the first submission measured the
     * workers): an estimate from the other side is a bound, not a figure. */
    if (!atomic_load_explicit(&c->here_ns, memory_order_relaxed)) s->probe = !s->pref;
    if (s->pref == s->probe) return false;
  }
  air_pool_t* local = atomic_exchange(&d->spare_local, NULL);
  if (!local) {
    air_status_t st = air_pool_create_local(&d->base.allocator, &local);
    if (st) {
      air_status_free(st); /* the workers will do */
      return false;
    }
  }
  _Atomic bool finished;
  atomic_init(&finished, false);
  s->pool = local;
  s->finished = &finished;
  advance(s);
  air_pool_help(local, &finished, 0);
  /* The caller keeps the device alive during this call, so keeping the pool in
   * it is safe; a concurrent caller may have put its own back meanwhile. */
  air_pool_t* none = NULL;
  if (!atomic_compare_exchange_strong(&d->spare_local, &none, local)) air_pool_destroy(local);
  return true;
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

air_status_t air_cpu_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait,
                                   air_command_buffer_t* command_buffer,
                                   const air_timepoint_list_t* signal) {
  (void)queue;
  air_cpu_device_t* d = (air_cpu_device_t*)device;
  air_cpu_command_buffer_t* c = (air_cpu_command_buffer_t*)command_buffer;
  uint64_t n_wait = wait ? wait->count : 0, n_signal = signal ? signal->count : 0;
  uint64_t n_tasks = c ? c->max_wave_transfers : 0;
  if (n_wait == UINT32_MAX) /* the guard count would wrap */
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT, "too many waits");
  uint64_t bytes = round8(sizeof(submission_t)) + n_wait * sizeof(air_timepoint_t) +
                   n_signal * (sizeof(air_semaphore_t*) + sizeof(uint64_t)) +
                   n_tasks * sizeof(transfer_task_t);
  if (bytes > SIZE_MAX)
    return AIR_STATUS(&device->allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "submission too large");
  /* One block: the state, then wait nodes, signal values, signal semaphores and
   * transfer task nodes (all 8-byte aligned pieces). */
  char* mem = device->allocator.alloc(device->allocator.self, (size_t)bytes);
  if (!mem)
    return AIR_STATUS(&device->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory submitting to %s", device->info.name);
  submission_t* s = (submission_t*)mem;
  mem += round8(sizeof(*s));
  s->waits = (air_timepoint_t*)mem;
  mem += n_wait * sizeof(air_timepoint_t);
  s->signal_values = (uint64_t*)mem;
  mem += n_signal * sizeof(uint64_t);
  s->signal_sems = (air_semaphore_t**)mem;
  mem += n_signal * sizeof(air_semaphore_t*);
  s->transfers = (transfer_task_t*)mem;

  s->task.next = NULL;
  s->task.fn = resume_task;
  s->device = d;
  s->pool = d->pool;
  s->finished = NULL;
  s->t0 = s->t_submit = 0;
  s->probe = s->pref = s->cold = false;
  s->cb = c;
  atomic_init(&s->waits_left, (uint32_t)n_wait + 1);
  atomic_init(&s->pending, 0);
  atomic_init(&s->failure, NULL);
  s->next = 0;
  s->n_signal = (uint32_t)n_signal;
  for (uint32_t i = 0; i < n_signal; ++i) {
    s->signal_sems[i] = signal->semaphores[i];
    s->signal_values[i] = signal->values[i];
    air_semaphore_retain(signal->semaphores[i]);
  }
  if (c) air_command_buffer_retain(command_buffer);
  atomic_fetch_add(&d->inflight, 1);

  for (uint32_t i = 0; i < n_wait; ++i) {
    air_timepoint_t* tp = &s->waits[i];
    tp->next = NULL;
    tp->value = wait->values[i];
    tp->fn = wait_reached;
    tp->user = s;
    air_semaphore_notify(wait->semaphores[i], tp);
  }
  if (atomic_fetch_sub(&s->waits_left, 1) != 1) return NULL;
  /* Every wait was already resolved. Work goes to the pool so this call returns at
   * once; a barrier or a failure only signals, which is cheap enough to do here. */
  if (!c || c->n_cmds == 0 || atomic_load(&s->failure))
    complete(s);
  else if (!run_here(s)) {
    stamp_submit(s);
    air_pool_submit(d->pool, &s->task);
  }
  return NULL;
}

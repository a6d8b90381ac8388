/* cpu_device.h - the cpu driver: host memory, a worker pool, and the interpreter.
 *
 * cpu_device.c opens the device and makes buffers and executables,
 * cpu_command_buffer.c records commands into a flat list, and cpu_queue.c runs
 * submissions on the pool. Buffers are host memory, so commands keep raw pointers. */
#ifndef AIR_HAL_CPU_CPU_DEVICE_H_
#define AIR_HAL_CPU_CPU_DEVICE_H_

#include <pthread.h>

#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "hal/driver.h"

/* Where a submission that may run on its caller's thread goes (cpu_queue.c
 * run_here): as measured (the default), or always one way. The measured choice
 * follows the machine's load, so a test that asserts which thread ran a command
 * buffer forces it (air_cpu_device_set_placement); dispatches that may not run
 * on their caller (watchdog, trace, ranks) stay on the workers either way. */
typedef enum air_cpu_placement_e {
  AIR_CPU_PLACE_MEASURED = 0,
  AIR_CPU_PLACE_CALLER,
  AIR_CPU_PLACE_WORKERS,
} air_cpu_placement_t;

typedef struct air_cpu_device_t {
  air_device_t base;
  air_pool_t* pool;
  /* Watches every dispatch with a watchdog time: one thread, started by the
   * first such dispatch, joined when the device is destroyed. */
  air_interp_watchdog_t* watchdog;
  /* Submissions not yet complete. The last decrement to 0 happens under `drain_mu`,
   * so destroy, which waits for 0 under the same mutex, never frees the device
   * while a completing submission can still touch it. */
  _Atomic uint32_t inflight;
  pthread_mutex_t drain_mu;
  pthread_cond_t drain_cv;
  /* A thread-less pool (pool.h) kept for the next submission that runs on its
   * caller's thread (cpu_queue.c); NULL when none is kept (or one is in use). */
  _Atomic(air_pool_t*) spare_local;
  /* A worker's wake-up (submit to start of a submission's first wave), a
   * running average in ns (0: not measured), kept apart for submissions that
   * found a worker still spinning (wake_ns) and ones that found every worker
   * asleep on the futex (wake_cold_ns: tens of us on an idle VM, where the
   * sleeper's vCPU halts); a count of the submissions that could have run on
   * their caller, every (probe_mask + 1)-th of which goes to the workers to
   * measure the wake-up again. See cpu_queue.c. */
  _Atomic int64_t wake_ns;
  _Atomic int64_t wake_cold_ns;
  _Atomic uint32_t probes;
  _Atomic uint32_t probe_mask;
  _Atomic int placement; /* air_cpu_placement_t */
  char name[48];
} air_cpu_device_t;

/* An executable: the generic one plus the interpreter's tables for its program,
 * prepared once and shared by every dispatch (NULL when preparing failed: each
 * run then derives its own and reports the error itself). */
typedef struct air_cpu_executable_t {
  air_executable_t base;
  struct air_interp_prep_t* prep;
  /* The program's compiled units (JIT, or the artifact's host code), or NULL:
   * everything is interpreted (base.code_info says why). */
  struct air_cpu_code_t* code;
} air_cpu_executable_t;

typedef enum air_cpu_cmd_kind_e {
  AIR_CPU_CMD_DISPATCH,
  AIR_CPU_CMD_COPY,
  AIR_CPU_CMD_FILL,
  AIR_CPU_CMD_BARRIER,
} air_cpu_cmd_kind_t;

typedef struct air_cpu_cmd_t {
  air_cpu_cmd_kind_t kind;
  union {
    struct {
      /* The run, described once when recorded (device, program, tables, plan;
       * `args` kept pointing at the buffer's copy): a submission starts it as is.
       * For an inline kind it is also checked and its body looked up. */
      air_interp_inline_run_t run;
      uint32_t first_arg; /* index into the command buffer's args */
      int inline_kind; /* air_interp_inline_t, decided at recording */
    } dispatch;
    struct {
      const char* source;
      char* target;
      uint64_t length;
    } copy;
    struct {
      char* target;
      uint64_t length;
      uint32_t pattern; /* 4 bytes of the repeated pattern */
    } fill;
  } u;
} air_cpu_cmd_t;

typedef struct air_cpu_command_buffer_t {
  air_command_buffer_t base;
  air_cpu_cmd_t* cmds;
  uint32_t n_cmds, cap_cmds;
  air_arg_t* args;
  uint32_t n_args, cap_args;
  /* Commands between two barriers that may run as plain pool tasks (copies,
   * fills, dispatches that run inline), at most. */
  uint32_t max_wave_transfers;
  /* Whether a submission of it may run on the submitting thread (cpu_queue.c):
   * no dispatch has a watchdog, trace, ranks or transport (set at end). */
  bool caller_ok;
  /* caller_ok, every dispatch runs inline and one runs flat (its herds' PEs
   * shared with the workers): the caller runs it with the workers' help
   * (cpu_queue.c run_here) rather than choosing between them (set at end). */
  bool with_workers;
  /* How long its successful executions took, start of the first wave to
   * completion, in ns (a running average; 0: not yet measured), on its
   * caller's thread (here_ns) and on the workers (pool_ns): cpu_queue.c
   * compares the two. */
  _Atomic int64_t here_ns;
  _Atomic int64_t pool_ns;
} air_cpu_command_buffer_t;

air_status_t air_cpu_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out_device);

/* Forces where `device`'s later submissions run (see air_cpu_placement_t); an
 * error when it is not a cpu device. For tests. */
air_status_t air_cpu_device_set_placement(air_device_t* device, air_cpu_placement_t placement);

air_status_t air_cpu_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out_command_buffer);

air_status_t air_cpu_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait,
                                   air_command_buffer_t* command_buffer,
                                   const air_timepoint_list_t* signal);

#endif /* AIR_HAL_CPU_CPU_DEVICE_H_ */

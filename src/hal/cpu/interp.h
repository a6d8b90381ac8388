/* interp.h - the CPU driver's executor of AIR programs.
 *
 * Runs one entry function of a verified program with the spec's semantics: launch
 * instances may run in parallel, segment instances are co-resident, the processing
 * elements of a herd run concurrently (as explicit frames that park on channels and
 * resume, never one OS thread per PE), channels honour depth, indices and
 * broadcast, tokens order work. When nothing can progress it fails with an error
 * naming every blocked op and its location; a watchdog does the same for a kernel
 * that runs too long. Everything runs as tasks on the given pool; the start call
 * returns at once and `done` is called exactly once from some thread. */
#ifndef AIR_HAL_CPU_INTERP_H_
#define AIR_HAL_CPU_INTERP_H_

#include <stdint.h>

#include "air/allocator.h"
#include "air/kernel.h"
#include "air/status.h"
#include "air/trace.h"
#include "hal/cpu/pool.h"
#include "runtime/ir.h"

typedef struct air_interp_desc_t {
  const air_program_t* program;  /* verified; must outlive the run */
  const air_op_t* entry;         /* a func.func with a body */
  uint32_t n_args;
  const air_arg_t* args;         /* one per entry parameter; copied at start */
  air_pool_t* pool;
  const air_context_t* context;  /* registered kernels */
  int64_t watchdog_ns;           /* 0 = none */
  air_trace_t* trace;            /* NULL = none */
  air_allocator_t allocator;
} air_interp_desc_t;

/* Receives the outcome; owns `status`. */
typedef void (*air_interp_done_fn_t)(void* user, air_status_t status);

/* Starts a run. An error returned here means nothing started and `done` will not
 * be called. */
air_status_t air_interp_start(const air_interp_desc_t* desc, air_interp_done_fn_t done,
                              void* user);

/* Starts and waits. Must not be called from a worker of desc->pool. */
air_status_t air_interp_run(const air_interp_desc_t* desc);

#endif /* AIR_HAL_CPU_INTERP_H_ */

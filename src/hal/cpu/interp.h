/* interp.h - the CPU driver's executor of AIR programs.
 *
 * Runs one entry function of a verified program with the spec's semantics: launch
 * instances may run in parallel, segment instances are co-resident, the processing
 * elements of a herd run concurrently (as explicit frames that park on channels and
 * resume, never one OS thread per PE), channels honour depth, indices and
 * broadcast, tokens order work. When nothing can progress it fails with an error
 * naming every blocked op and its location; a watchdog does the same for a kernel
 * that runs too long. Everything runs as tasks on the given pool; the start call
 * returns at once and `done` is called exactly once from some thread.
 *
 * Choices the spec leaves open (details in the source files named):
 *  - A put completes once its data is copied into a free slot of the channel, so
 *    a producer runs exactly `depth` transfers ahead of its consumer (channel.c).
 *    Which transfer a put/get moves is fixed when it is issued (async: dispatched),
 *    as a DMA engine takes buffer descriptors in order.
 *  - Each launch instance has its own channel state: instances are independent
 *    and may run at once. Ops outside any launch share one.
 *  - Offsets/sizes/strides follow mlir-air's access-pattern rule (dma_internal.h).
 *  - func.call runs the callee's body if it has one; otherwise the kernel
 *    registered under the callee's name, else under its declaration's link_with,
 *    else under the enclosing herd's link_with (interp_exec.c).
 *  - scf.parallel init tokens delay every op an instance runs or dispatches
 *    (index math aside); the scf.parallel completes when the instances have run
 *    their bodies (interp_par.c).
 *  - put with dest(...) and air.rank are UNIMPLEMENTED.
 *
 * `done` is normally called after everything is freed. When the watchdog gives up
 * on a kernel (which cannot be stopped), `done` is called as soon as the rest of
 * the run is torn down; the kernel's late return then frees what is left without
 * touching the program, context, trace or pool beyond the worker it runs on, so
 * only the allocator must outlive it. */
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

/* interp.h - the CPU driver's executor of AIR programs: its interface to the
 * driver (device, command buffer, queue).
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
 *  - Offsets/sizes/strides follow mlir-air's access-pattern rule (pattern.h).
 *  - func.call runs the callee's body if it has one; otherwise the kernel
 *    registered under the callee's name, else under its declaration's link_with,
 *    else under the enclosing herd's link_with (call.c).
 *  - scf.parallel init tokens delay every op an instance runs or dispatches
 *    (index math aside); the scf.parallel completes when the instances have run
 *    their bodies (parallel.c).
 *  - put with dest(...) is UNIMPLEMENTED. Ranks run as strands with their own
 *    argument copies (rank.c, docs/scale-out.md).
 *
 * Two ways to run the host level (the entry body). Dynamic (no schedule): one host
 * strand walks the body in program order and dispatches async ops as strands that
 * tokens order. From a compiled schedule (scheduler/schedule.h): the body's ops are
 * the schedule's commands, started wave by wave as the partition says (a wave
 * opens when the previous wave of its queue and every wave it waits for have
 * completed); each command runs as its own strand and its program tokens still
 * order it inside the wave. Host-level L3 allocs the memory plan places take their
 * bytes from the transient arena. Both give the same results (waves.c).
 *
 * `done` is normally called after everything is freed. When the watchdog gives up
 * on a kernel (which cannot be stopped), `done` is called as soon as the rest of
 * the run is torn down; the kernel's late return then frees what is left without
 * touching the program, context, trace or pool beyond the worker it runs on, so
 * only the allocator must outlive it. */
#ifndef AIR_HAL_CPU_INTERP_INTERP_H_
#define AIR_HAL_CPU_INTERP_INTERP_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/kernel.h"
#include "air/status.h"
#include "air/trace.h"
#include "hal/compiled.h"
#include "hal/cpu/pool.h"
#include "runtime/ir/ir.h"
#include "scheduler/schedule.h"

/* A schedule bound to the program it was made for, prepared once so runs only
 * read it (plan.h, plan.c). Immutable; shareable by concurrent runs. */
typedef struct air_interp_plan_t air_interp_plan_t;

/* Binds `schedule` to `program` (verified, the one the schedule was compiled from
 * or loaded with). The schedule is trusted as the compiler made it or the artifact
 * reader checked it; binding only finds the entry (NOT_FOUND) and checks the body's
 * op count (DATA_LOSS). The plan borrows both; they must outlive it. */
air_status_t air_interp_plan_build(const air_allocator_t* allocator, const air_program_t* program,
                                   const air_schedule_t* schedule, air_interp_plan_t** out);
void air_interp_plan_free(air_interp_plan_t* plan);
/* The entry function the plan runs. */
const air_op_t* air_interp_plan_entry(const air_interp_plan_t* plan);
/* Bytes and alignment of the L3 transient arena a run needs (0 bytes: none). */
void air_interp_plan_transient(const air_interp_plan_t* plan, uint64_t* size,
                               uint32_t* alignment);

/* What every run of one program derives from it (value slots, block layouts, the
 * function and channel tables), made once and shared read-only by concurrent runs
 * (tables.c); it also keeps a few finished runs' state for reuse. Reference
 * counted: a run holds a reference, so a kernel the watchdog abandoned can still
 * unwind after the executable is gone. */
typedef struct air_interp_prep_t air_interp_prep_t;

/* Prepares `program` (verified; must outlive the result). An error here is the
 * one each run would report at start; callers may ignore it and run unprepared. */
air_status_t air_interp_prepare(const air_allocator_t* allocator, const air_program_t* program,
                                air_interp_prep_t** out);
void air_interp_prep_release(air_interp_prep_t* prep);

/* A watchdog: one thread that watches every run given it (desc.watchdog) with
 * a watchdog time, started by the first such run (watchdog.c). A device keeps
 * one for all its dispatches. Destroying joins the thread; every run given it
 * must have ended by then, a kernel the watchdog abandoned included (its run
 * ends when the kernel returns: drain the pool first). */
typedef struct air_interp_watchdog_t air_interp_watchdog_t;
air_status_t air_interp_watchdog_create(const air_allocator_t* allocator,
                                        air_interp_watchdog_t** out);
void air_interp_watchdog_destroy(air_interp_watchdog_t* watchdog);

typedef struct air_interp_desc_t {
  const air_program_t* program;  /* verified; must outlive the run */
  const air_op_t* entry;         /* a func.func with a body */
  uint32_t n_args;
  const air_arg_t* args;         /* one per entry parameter; copied at start */
  air_pool_t* pool;
  const air_context_t* context;  /* registered kernels */
  int64_t watchdog_ns;           /* 0 = none */
  /* Watches the run when watchdog_ns > 0 (must outlive the run); NULL: the run
   * starts a watchdog thread of its own. */
  air_interp_watchdog_t* watchdog;
  air_trace_t* trace;            /* NULL = none */
  air_allocator_t allocator;
  /* The schedule path: `plan` (prepared), else `schedule` (a plan is made for this
   * run), else neither: the dynamic path. The entry must be the schedule's. Like
   * the program, the plan or schedule must outlive the run (up to `done`). */
  const air_interp_plan_t* plan;
  const air_schedule_t* schedule;
  /* The L3 transient arena: at least the plan's transient size, aligned to its
   * alignment, not used by anything else during the run. NULL: the run allocates
   * one. Ignored on the dynamic path. */
  void* transient;
  uint64_t transient_size;
  /* Tables prepared for `program` (NULL: the run derives its own). */
  const air_interp_prep_t* prep;
  /* Where every rank's copy of the memref arguments goes (air/rank.h); NULL:
   * only the bindings (rank 0's) survive the run. */
  struct air_rank_copies_t* rank_copies;
  /* Ranks over a transport (air/rank.h): this process runs its block of ranks
   * only; NULL: all ranks run here. */
  struct air_rank_transport_t* transport;
  /* The caller is a worker of `pool` and lets a run that cannot park (no AIR
   * ops, tokens or calls of bodies; no watchdog, trace or planned transients)
   * execute inside air_interp_start, `done` called before it returns. */
  bool run_inline;
  /* The program's compiled units (hal/compiled.h), or NULL: every body is
   * interpreted. Must outlive the run, like the program. */
  const air_cg_code_t* code;
  /* Interpret everything and run the built-in linalg ops through their
   * reference loops (AIR_DISPATCH_INTERPRET): no compiled unit, no library
   * kernel. Results are the same bit for bit. */
  bool interpret;
} air_interp_desc_t;

/* Whether a run of `desc` may execute inline (desc->run_inline): NO; YES; SHORT,
 * also straight-line code that costs about what starting a run does. */
typedef enum air_interp_inline_e {
  AIR_INTERP_INLINE_NO = 0,
  AIR_INTERP_INLINE_YES,
  AIR_INTERP_INLINE_SHORT,
} air_interp_inline_t;
air_interp_inline_t air_interp_inline_kind(const air_interp_desc_t* desc);

/* A run that executes inline, checked once (when a dispatch is recorded): the
 * description, and the entry body's tables looked up, so running it does
 * nothing else. The description's `args` may be repointed (same values). */
typedef struct air_interp_inline_run_t {
  air_interp_desc_t desc;
  const void* body; /* private: the entry body's block info */
  /* Its launches run flat (flat.h): the herds' PEs are shared with desc.pool's
   * workers, which the running thread wakes. Best run on a thread that is not
   * one of those workers (the submitting one), so no worker it wakes has to
   * wait for that thread's core. */
  bool flat;
} air_interp_inline_run_t;

/* True, with *out filled, when a run of `desc` may execute inline (run_inline
 * set, air_interp_start's checks pass, air_interp_inline_kind not NO); else
 * false: such a run goes through air_interp_start, which reports any error. */
bool air_interp_inline_prepare(const air_interp_desc_t* desc, air_interp_inline_run_t* out);

/* Runs it to its end on the calling worker (a worker of desc.pool), as
 * air_interp_start would, with the outcome stored in *run_status (owned by the
 * caller) instead of passed to a `done`. An error returned here (out of memory)
 * means nothing ran, as for air_interp_start. */
air_status_t air_interp_inline_exec(const air_interp_inline_run_t* run, air_status_t* run_status);

/* Receives the outcome; owns `status`. */
typedef void (*air_interp_done_fn_t)(void* user, air_status_t status);

/* Starts a run. An error returned here means nothing started and `done` will not
 * be called. */
air_status_t air_interp_start(const air_interp_desc_t* desc, air_interp_done_fn_t done,
                              void* user);

/* Starts and waits. Must not be called from a worker of desc->pool. */
air_status_t air_interp_run(const air_interp_desc_t* desc);

#endif /* AIR_HAL_CPU_INTERP_INTERP_H_ */

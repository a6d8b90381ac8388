/* air/command_buffer.h - recorded work for a queue.
 *
 * A command buffer records dispatches of executable entries and transfers, and is
 * submitted with air_device_queue_execute (any number of times once ended).
 * Commands between two barriers may run concurrently; a barrier makes everything
 * after it wait for everything before it. Recording is not thread-safe; a recorded
 * buffer may be submitted from any thread.
 */
#ifndef AIR_COMMAND_BUFFER_H_
#define AIR_COMMAND_BUFFER_H_

#include "air/config.h"

#include <stdint.h>

#include "air/buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument of a dispatch: a memref parameter binds `buffer` at byte `offset`
 * (its shape comes from the entry's signature); a scalar parameter takes `i` or `f`. */
typedef struct air_binding_t {
  air_buffer_t* buffer;
  uint64_t offset;
  int64_t i;
  double f;
} air_binding_t;

/* Flags of air_dispatch_options_t. */
enum {
  /* Run the dynamic path even though the entry has a schedule (the executor walks
   * the body in program order; same results, for comparisons and as a fallback). */
  AIR_DISPATCH_DYNAMIC = 1u << 1,
  /* Run every body through the interpreter and every built-in linalg op through
   * its plain reference loop: no compiled herd code, no library kernels. Results
   * are the same bit for bit (the reference the default path is tested against);
   * for comparisons and as a fallback. */
  AIR_DISPATCH_INTERPRET = 1u << 2,
};

/* Options of one dispatch; zero means defaults. */
typedef struct air_dispatch_options_t {
  uint32_t flags;             /* AIR_DISPATCH_* */
  /* A kernel or op that runs longer than this fails the dispatch with
   * DEADLINE_EXCEEDED naming what was running; 0 = no watchdog. */
  int64_t watchdog_ns;
  /* Where to record trace events (air/trace.h), or NULL. */
  struct air_trace_t* trace;
  /* Programs with air.rank (air/rank.h): where every rank's copy of the memref
   * bindings is kept for the host to read after the dispatch, or NULL (then only
   * the bindings themselves, rank 0's copies, survive). The holder must outlive
   * the dispatch and serve one dispatch at a time. */
  struct air_rank_copies_t* rank_copies;
  /* Programs with air.rank: run one block of ranks in this process and reach the
   * others through this transport (air/rank.h; every process of the transport
   * makes the same dispatch), or NULL: every rank runs in this process. */
  struct air_rank_transport_t* transport;
} air_dispatch_options_t;

/* Creates an empty command buffer to record into. `flags` is reserved and must be 0
 * (anything else is INVALID_ARGUMENT). */
AIR_API air_status_t air_command_buffer_create(air_device_t* device, uint32_t flags,
                                               air_command_buffer_t** out_command_buffer);
AIR_API void air_command_buffer_retain(air_command_buffer_t* command_buffer);
AIR_API void air_command_buffer_release(air_command_buffer_t* command_buffer);

/* Runs entry `ordinal` of `executable` with `bindings` (one per parameter). From
 * the entry's schedule unless it has none or AIR_DISPATCH_DYNAMIC is set; the
 * driver then makes the transient arena for each run. */
AIR_API air_status_t air_command_buffer_dispatch(air_command_buffer_t* command_buffer,
                                                 air_executable_t* executable, uint32_t ordinal,
                                                 uint32_t binding_count,
                                                 const air_binding_t* bindings,
                                                 const air_dispatch_options_t* options);
/* The same with the caller's transient arena: `transient_offset` bytes into
 * `transient`, at least air_executable_transient_size bytes at an address with
 * its alignment (INVALID_ARGUMENT naming both numbers otherwise). The buffer is
 * retained like the bindings and must not be used by other work while the
 * dispatch runs (two submissions of this command buffer in flight at once would
 * share it). Ignored when the dispatch runs the dynamic path. */
AIR_API air_status_t air_command_buffer_dispatch_transient(
    air_command_buffer_t* command_buffer, air_executable_t* executable, uint32_t ordinal,
    uint32_t binding_count, const air_binding_t* bindings, air_buffer_t* transient,
    uint64_t transient_offset, const air_dispatch_options_t* options);
AIR_API air_status_t air_command_buffer_copy(air_command_buffer_t* command_buffer,
                                             air_buffer_t* source, uint64_t source_offset,
                                             air_buffer_t* target, uint64_t target_offset,
                                             uint64_t length);
/* Fills with a repeated 1-, 2- or 4-byte pattern. */
AIR_API air_status_t air_command_buffer_fill(air_command_buffer_t* command_buffer,
                                             air_buffer_t* target, uint64_t offset,
                                             uint64_t length, const void* pattern,
                                             uint32_t pattern_length);
AIR_API air_status_t air_command_buffer_barrier(air_command_buffer_t* command_buffer);
/* Ends recording; the buffer can then be submitted. */
AIR_API air_status_t air_command_buffer_end(air_command_buffer_t* command_buffer);

#ifdef __cplusplus
}
#endif
#endif /* AIR_COMMAND_BUFFER_H_ */

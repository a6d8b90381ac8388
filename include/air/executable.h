/* air/executable.h - a program prepared for one device.
 *
 * An executable is what a device runs: on the CPU, the verified program ready to
 * interpret; on a GPU or NPU, its code objects or instruction streams. Creating one
 * verifies the program for the device's target and compiles a schedule for each
 * entry function (per-queue waves, waits, the memory plan; docs/scheduler.md),
 * which dispatches run from. The program must outlive the executable (one loaded
 * from an artifact owns its own). Reference counted; thread-safe.
 */
#ifndef AIR_EXECUTABLE_H_
#define AIR_EXECUTABLE_H_

#include "air/config.h"

#include <stddef.h>
#include <stdint.h>

#include "air/device.h"
#include "air/kernel.h"
#include "air/program.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_executable_t air_executable_t;

/* Flags of air_executable_create. */
enum {
  /* Compile no schedule: dispatches run the dynamic path (the executor walks each
   * entry's body in program order, tokens ordering the work). For programs the
   * scheduler cannot plan (an L3 alloc of unknown size, a program too big for the
   * target), and for comparisons. */
  AIR_EXECUTABLE_NO_SCHEDULE = 1u << 0,
  /* Compile no herd code: do not JIT the program's loops (no code generator is
   * loaded) and ignore code objects an artifact carries; every body is
   * interpreted. Dispatches can also ask for that one at a time
   * (AIR_DISPATCH_INTERPRET). */
  AIR_EXECUTABLE_NO_COMPILE = 1u << 1,
};

/* Verifies `program` for the device's target and compiles a schedule for every
 * entry function whose parameters a dispatch can bind. A verified program always
 * runs: an entry the scheduler refuses (an L3 alloc with no static size, say)
 * runs on the dynamic path instead, and air_executable_schedule_info returns the
 * scheduler's located error as the reason. A program the verifier rejects fails
 * with the verifier's list of violations; otherwise only running out of memory
 * fails. `flags`: AIR_EXECUTABLE_NO_SCHEDULE, AIR_EXECUTABLE_NO_COMPILE (other
 * bits are INVALID_ARGUMENT). */
AIR_API air_status_t air_executable_create(air_device_t* device, const air_program_t* program,
                                           uint32_t flags, air_executable_t** out_executable);

/* What air_executable_create_with_options takes beyond the program. Zero
 * everything for the defaults. */
typedef struct air_executable_options_t {
  uint32_t flags;      /* AIR_EXECUTABLE_* */
  /* NPU devices (xrt:N): the xclbin holding the herd code and the array
   * configuration, as mlir-air's aircc builds it (required there; other devices
   * refuse it). */
  const char* xclbin;
  /* NPU: the kernel in the xclbin, matched as a name prefix (NULL: "MLIR_AIE"). */
  const char* kernel;
  /* NPU: an instruction stream (insts.bin, or hex text) to run instead of the one
   * compiled from the program's L3 data movement; use the one built with the
   * xclbin when its shim channels differ from libairrt's. NULL: the compiled one. */
  const char* insts;
} air_executable_options_t;

/* air_executable_create with options; `options` may be NULL. */
AIR_API air_status_t air_executable_create_with_options(air_device_t* device,
                                                        const air_program_t* program,
                                                        const air_executable_options_t* options,
                                                        air_executable_t** out_executable);

/* Creates an executable from a compiled artifact (an .airbin image, as `airc
 * compile` writes): the program and the schedule of its entry are read, checked
 * (a corrupt image is DATA_LOSS, something that is not an .airbin at all
 * INVALID_ARGUMENT; never a crash) and owned by the executable. The artifact's
 * schedule must be for the device's target (FAILED_PRECONDITION otherwise); other
 * entries of the program get schedules compiled here. `data` may be freed on
 * return. */
AIR_API air_status_t air_executable_create_from_artifact(air_device_t* device, const void* data,
                                                         size_t size,
                                                         air_executable_t** out_executable);
/* The same from a file; errors name the path. */
AIR_API air_status_t air_executable_create_from_file(air_device_t* device, const char* path,
                                                     air_executable_t** out_executable);
/* The same with options (flags other than 0 are refused: the artifact fixes the
 * schedule). */
AIR_API air_status_t air_executable_create_from_file_with_options(
    air_device_t* device, const char* path, const air_executable_options_t* options,
    air_executable_t** out_executable);
AIR_API void air_executable_retain(air_executable_t* executable);
AIR_API void air_executable_release(air_executable_t* executable);

/* Finds an entry function (a func.func with a body) by name; NULL `name` picks the
 * only one, or fails when there are several. */
AIR_API air_status_t air_executable_lookup(const air_executable_t* executable, const char* name,
                                           uint32_t* out_ordinal);

/* Describes entry `ordinal`'s parameters, so a caller can size buffers: `out_count`
 * receives the number of parameters; for each i < capacity, `out_args[i]` gets
 * kind, elem, and for memrefs rank/sizes (data NULL). */
AIR_API air_status_t air_executable_signature(const air_executable_t* executable,
                                              uint32_t ordinal, uint32_t capacity,
                                              air_arg_t* out_args, uint32_t* out_count);

/* The name of entry `ordinal` (without '@'), or NULL when out of range. Valid as
 * long as the executable. */
AIR_API const char* air_executable_entry_name(const air_executable_t* executable,
                                              uint32_t ordinal);

/* The L3 transient arena entry `ordinal` needs: the host-level buffers the memory
 * plan places, packed by lifetime. A dispatch may bring its own
 * (air_command_buffer_dispatch_transient) of at least `*out_bytes` bytes at an
 * address aligned to `*out_alignment`; otherwise the driver makes one per
 * dispatch. 0 bytes when the entry needs none or has no schedule. */
AIR_API air_status_t air_executable_transient_size(const air_executable_t* executable,
                                                   uint32_t ordinal, uint64_t* out_bytes,
                                                   uint32_t* out_alignment);

#define AIR_SCHEDULE_MAX_QUEUES 64

/* A summary of entry `ordinal`'s compiled schedule. */
typedef struct air_schedule_info_t {
  const char* target;         /* e.g. "cpu" */
  uint32_t commands;          /* host-level ops of the entry */
  uint32_t queues, waves, levels;
  uint32_t waits;             /* cross-queue waits kept */
  uint32_t waits_elided;      /* waits implied by others and dropped */
  uint32_t queue_waves[AIR_SCHEDULE_MAX_QUEUES];
  const char* queue_kind[AIR_SCHEDULE_MAX_QUEUES]; /* "host", "dma", "compute" */
  uint64_t transient_bytes;   /* as air_executable_transient_size */
  uint32_t transient_alignment;
  uint64_t compile_ns;        /* how long compiling took (as recorded in an artifact) */
} air_schedule_info_t;

/* Fills `out_info`; FAILED_PRECONDITION when the entry has no schedule (created
 * with AIR_EXECUTABLE_NO_SCHEDULE, or its parameters cannot be bound). */
AIR_API air_status_t air_executable_schedule_info(const air_executable_t* executable,
                                                  uint32_t ordinal,
                                                  air_schedule_info_t* out_info);

/* What an executable runs as compiled code (the CPU driver: the program's loops,
 * branches and linalg.generic ops, docs/codegen.md). */
typedef struct air_code_info_t {
  /* "jit" (compiled in process by the code generator), "artifact" (host code the
   * .airbin carried), or "none" (every body is interpreted). */
  const char* source;
  const char* generator;  /* e.g. "llvm-16"; NULL when none ran */
  uint32_t units;         /* ops that run compiled */
  uint32_t skipped;       /* candidates the generator does not cover (interpreted) */
  uint64_t emit_ns, optimize_ns, codegen_ns; /* what compiling took (jit) */
  /* When `units` is 0: why (no generator found, AIR_EXECUTABLE_NO_COMPILE, nothing
   * to compile, ...). Valid as long as the executable. */
  const char* why_none;
} air_code_info_t;

/* Fills `out_info`. */
AIR_API air_status_t air_executable_code_info(const air_executable_t* executable,
                                              air_code_info_t* out_info);

#ifdef __cplusplus
}
#endif
#endif /* AIR_EXECUTABLE_H_ */

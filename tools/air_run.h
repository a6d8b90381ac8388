/* air_run.h - what air-run's files share: the parsed command line (air_run_cli.h),
 * the state of one run (air_run.c), the per-argument work of air_run_args.c
 * (checking what the options say against the entry's signature, filling each
 * argument, writing outputs) and the GPU artifact of air_run_gpu.c.
 */
#ifndef AIR_TOOLS_AIR_RUN_H_
#define AIR_TOOLS_AIR_RUN_H_

#include <stddef.h>
#include <stdint.h>

#include "air/air.h"
#include "air_run_cli.h"
#include "npy.h"

/* Everything a run holds, released in one place. */
typedef struct run_state_t {
  air_context_t* context;
  air_program_t* program;
  air_device_t* device;
  air_executable_t* executable;
  air_command_buffer_t* command_buffer;
  air_semaphore_t* semaphore;
  air_trace_t* trace;
  uint32_t n_params;
  air_arg_t* params;
  air_buffer_t** buffers;
  air_binding_t* bindings;
  npy_array_t* host; /* per parameter: the host copy of a memref */
  char* text;
  char* entry_name;
  void* libraries[MAX_ARGS]; /* dlopen handles of --kernels, closed last */
  air_rank_copies_t* rank_copies; /* every rank's copy of the arguments (air/rank.h) */
  /* Under mpirun (AIR_RUN_MPI builds): the MPI transport; this process runs its
   * block of the ranks. NULL: every rank runs here. */
  air_rank_transport_t* transport;
} run_state_t;

/* "memref<512x512xbf16>", "i32": a parameter as AIR spells its type. */
const char* run_arg_type_string(const air_arg_t* a, char* buf, size_t len);

/* Checks every --input/--output against the entry's signature before any file is
 * read or anything runs: indices in range, outputs only of memrefs, static shapes,
 * numbers that fit their scalar's type. Prints each problem; returns 0 or an
 * exit code. */
int run_check_arguments(const run_state_t* r, const run_options_t* o, const char* display);

/* Prepares argument `i`: a host array for a memref (file, random or zeros) or a
 * scalar value, warning when it is filled with zeros nobody asked for. Returns 0
 * or an exit code. */
int run_prepare_argument(run_state_t* r, const run_options_t* o, uint32_t i);

/* Copies memref argument out->index back from its buffer and writes it. A path
 * holding `{rank}` names one file per rank (each rank's copy, from
 * r->rank_copies); without it rank 0's copy (the buffer) is written. */
int run_write_output(run_state_t* r, const run_options_t* o, const arg_spec_t* out);

/* A .mlir program for a GPU device: the .airbin `airc compile --target TARGET`
 * would write, with its generated kernels, in memory (*data NULL when this
 * air-run has no code generator, or TARGET is no GPU; the executable is then made
 * from the program and says what is missing). air_run_gpu.c. */
air_status_t air_run_gpu_artifact(air_context_t* ctx, const air_program_t* program,
                                  const char* entry, const char* target, void** data,
                                  size_t* size, int64_t* compile_ns);

#endif /* AIR_TOOLS_AIR_RUN_H_ */

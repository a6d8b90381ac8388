/* air_run.h - what air-run's files share: the parsed command line (air_run_cli.c),
 * the state of one run (air_run.c), the per-argument work of air_run_args.c
 * (checking what the options say against the entry's signature, filling each
 * argument, writing outputs) and the GPU artifact of air_run_gpu.c.
 */
#ifndef AIR_TOOLS_AIR_RUN_H_
#define AIR_TOOLS_AIR_RUN_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "air/air.h"
#include "npy.h"

#define MAX_ARGS 256

/* One `--input I=...` or `--output I=PATH`. */
typedef struct arg_spec_t {
  uint32_t index;
  int is_result; /* spelled rN */
  const char* value;
  const char* option; /* the option as written, for messages */
} arg_spec_t;

typedef struct run_options_t {
  const char* file;
  const char* entry;
  const char* device;
  arg_spec_t inputs[MAX_ARGS];
  uint32_t n_inputs;
  arg_spec_t outputs[MAX_ARGS];
  uint32_t n_outputs;
  int random;
  uint64_t seed;
  double timeout_s; /* 0 = none */
  const char* trace;
  const char* kernels[MAX_ARGS]; /* --kernels LIB.so, loaded in order */
  uint32_t n_kernels;
  int verbose;
  int quiet;
  int no_schedule;
  int no_compile;   /* --no-compile: AIR_EXECUTABLE_NO_COMPILE + AIR_DISPATCH_INTERPRET */
  const char* xclbin;     /* NPU: --xclbin FILE */
  const char* xrt_kernel; /* NPU: --xrt-kernel NAME */
  const char* insts;      /* NPU: --insts FILE */
} run_options_t;

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

/* The usage line (stdout for --help, stderr after bad usage). */
void run_print_usage(FILE* out);

/* Parses argv into *o (zeroed first), checking every value; --help and
 * --version print and return 0. Returns -1 when parsed and the run should go
 * on, otherwise the exit code to return at once (2: bad usage, said on stderr). */
int run_parse_command_line(int argc, char** argv, run_options_t* o);

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

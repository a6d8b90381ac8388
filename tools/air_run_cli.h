/* air_run_cli.h - air-run's command line as parsed (run_options_t) and the two
 * calls of air_run_cli.c that make it: the usage line and the parser. A header
 * of its own, which air_run.h includes, so that the command line needs nothing
 * of the run's files (and they call down into it, never the other way). */
#ifndef AIR_TOOLS_AIR_RUN_CLI_H_
#define AIR_TOOLS_AIR_RUN_CLI_H_

#include <stdint.h>
#include <stdio.h>

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

/* The usage line (stdout for --help, stderr after bad usage). */
void run_print_usage(FILE* out);

/* Parses argv into *o (zeroed first), checking every value; --help and
 * --version print and return 0. Returns -1 when parsed and the run should go
 * on, otherwise the exit code to return at once (2: bad usage, said on stderr). */
int run_parse_command_line(int argc, char** argv, run_options_t* o);

#endif /* AIR_TOOLS_AIR_RUN_CLI_H_ */

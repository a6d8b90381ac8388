/* air_bench_prog.h - what the issue-14 benchmarks (cpu-matmul, channel-transfer,
 * elementwise) and matmul share: an AIR program run through the public API on the cpu device
 * (context, device, executable, imported host buffers, one recorded dispatch,
 * timed submit -> completion), program text made from a template, and the machine's
 * load average for the table header.
 *
 * Each run is one air_device_queue_execute of a command buffer recorded once, so
 * a timed run is what an application pays per call once it has set up. */
#ifndef AIR_BENCH_PROG_H_
#define AIR_BENCH_PROG_H_

#include <stddef.h>
#include <stdint.h>

#include "air/air.h"

enum { ABP_MAX_BUFS = 8 };

typedef struct abp_t {
  air_context_t* ctx;
  air_device_t* dev;
  air_program_t* prog;
  air_executable_t* exe;
  air_buffer_t* buf[ABP_MAX_BUFS];
  air_command_buffer_t* cb;
  air_semaphore_t* sem;
  uint64_t value;
  const char* bench; /* for messages */
  /* What the runs execute: the executable's compiled units, and whether its
   * bodies are interpreted (--no-compile, or no code generator loaded). */
  air_code_info_t code;
  int interpreted;
} abp_t;

/* What to run: program text (or a file when `path` is set), entry, buffers. */
typedef struct abp_desc_t {
  const char* bench;
  const char* text;       /* program text, or NULL when `path` is given */
  size_t len;
  const char* path;
  const char* entry;      /* NULL: the only entry */
  int threads;            /* cpu:threads=N */
  uint32_t exe_flags;     /* AIR_EXECUTABLE_* */
  uint32_t dispatch_flags;/* AIR_DISPATCH_* */
  uint32_t n_bufs;
  void* host[ABP_MAX_BUFS];
  size_t bytes[ABP_MAX_BUFS];
  /* Integer parameters after the buffers, in order. */
  uint32_t n_ints;
  int64_t ints[ABP_MAX_BUFS];
  /* A host kernel the program calls (func.call @kernel), or NULL. */
  const char* kernel;
  air_kernel_fn_t kernel_fn;
} abp_desc_t;

/* Sets everything up; returns 0, or 1 after printing why. abp_close is safe
 * either way. When compiled code was asked for and the generator leaves some
 * of the program's loops or branches to the interpreter, says so on stderr. */
int abp_open(abp_t* r, const abp_desc_t* d);
/* One timed run (submit -> completion); returns 0 or 1 after printing why. */
int abp_run(abp_t* r, double* seconds);
void abp_close(abp_t* r);

/* Copies `tmpl` replacing each "@NAME@" whose NAME is keys[i] by vals[i]; the
 * result is malloc'd (NULL when out of memory or an @NAME@ is not a key). */
char* abp_expand(const char* tmpl, const char* const* keys, const char* const* vals, int n);

/* "/proc/loadavg"'s first three figures, or "?" */
void abp_loadavg(char* out, size_t cap);

/* Removes every "--no-compile" after argv[0] from argv in place (the issue-14
 * benchmarks' own option; ab_parse takes the rest) and returns the dispatch
 * flags it asks for: AIR_DISPATCH_INTERPRET if it was there, else 0. */
uint32_t abp_take_no_compile(int* argc, char** argv);

/* Whether the runs of a benchmark execute compiled herd code, for its header
 * line: `line` reads e.g. "herd code compiled (jit, llvm-16)" or "herd code
 * INTERPRETED (--no-compile)". Found from a small program with a herd loop on
 * the cpu device: the code generator is a shared library the runtime loads
 * when it finds it (libairrt_codegen.so, docs/codegen.md), so a bench binary
 * built or copied without it would quietly time the interpreter.
 * Returns 1 after printing why when compiled code was asked for (no
 * AIR_DISPATCH_INTERPRET in `dispatch_flags`) in a build that has the
 * generator but it cannot be loaded; a build without one (AIR_CODEGEN=OFF, no
 * LLVM 16) warns on stderr and goes on interpreted. */
typedef struct abp_code_t {
  int compiled;
  char line[160];
} abp_code_t;
int abp_code_probe(const char* bench, uint32_t dispatch_flags, abp_code_t* out);

#endif /* AIR_BENCH_PROG_H_ */

/* air_bench_util.h - what the air-bench benchmarks written for issue 5 share: the
 * common options (--json, --threads, --quick, --reps, --case), a monotonic clock,
 * medians and percentiles, and one output row in either format (TOOLS.md: a table
 * for people, one JSON object per line for scripts). */
#ifndef AIR_BENCH_UTIL_H_
#define AIR_BENCH_UTIL_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ab_opts_t {
  const char* bench; /* argv[0]: the bench's name */
  int json;
  int quick;         /* tiny sizes, one rep: the ctest smoke run */
  int threads;       /* 0 = the bench's default */
  int reps;          /* 0 = the bench's default */
  const char* only;  /* --case NAME, or NULL for every case */
} ab_opts_t;

/* Parses the common options. Returns -1 when fine, else the exit code (0 after
 * --help, 2 on bad usage, with a message). `usage` is the bench-specific text. */
int ab_parse(int argc, char** argv, ab_opts_t* o, const char* usage);
/* Whether --case selects `name`. */
int ab_want(const ab_opts_t* o, const char* name);

int64_t ab_now_ns(void);
/* Sorts v in place and returns the value at fraction p (0.5 = median). */
double ab_quantile(double* v, size_t n, double p);

/* One measurement. JSON: {"bench":..,"case":..,"runtime":..,"threads":..,
 * "metric":..,"value":..[,"ratio":..][,"variant":..]}; ratio NAN and variant NULL
 * are left out. The table form is printed by each bench itself. */
void ab_emit(const ab_opts_t* o, const char* case_name, const char* runtime, int threads,
             const char* metric, double value, double ratio, const char* variant);

/* Pins the calling thread to `cpu`; returns 0 on success. */
int ab_pin(int cpu);

#endif /* AIR_BENCH_UTIL_H_ */

/* air_bench_util.c - see air_bench_util.h. */
#define _GNU_SOURCE 1
#include "air_bench_util.h"
#include "tool_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int positive(const char* s, int* out) {
  char* end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < 1 || v > 1024) return 0;
  *out = (int)v;
  return 1;
}

int ab_parse(int argc, char** argv, ab_opts_t* o, const char* usage) {
  memset(o, 0, sizeof *o);
  o->bench = argc > 0 ? argv[0] : "air-bench";
  char where[96]; /* errors name the tool and the bench: `air-bench NAME: error: ...` */
  snprintf(where, sizeof where, "air-bench %s", o->bench);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--quick")) {
      o->quick = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: %s [--json] [--threads N] [--reps N] [--case NAME] [--quick]\n%s", o->bench,
             usage);
      return 0;
    } else if ((!strcmp(a, "--threads") || !strcmp(a, "--reps")) && i + 1 < argc) {
      if (!positive(argv[++i], !strcmp(a, "--threads") ? &o->threads : &o->reps)) {
        return tool_error(TOOL_EXIT_USAGE, where, "%s wants an integer in [1, 1024], not '%s'", a,
                          argv[i]);
      }
    } else if (!strcmp(a, "--case") && i + 1 < argc) {
      o->only = argv[++i];
    } else {
      return tool_error(TOOL_EXIT_USAGE, where, "unknown or incomplete option: %s (try --help)", a);
    }
  }
  return -1;
}

int ab_want(const ab_opts_t* o, const char* name) { return !o->only || !strcmp(o->only, name); }

int64_t ab_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

double ab_quantile(double* v, size_t n, double p) {
  if (!n) return NAN;
  qsort(v, n, sizeof *v, cmp_double);
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i < n ? i : n - 1];
}

void ab_emit(const ab_opts_t* o, const char* case_name, const char* runtime, int threads,
             const char* metric, double value, double ratio, const char* variant) {
  if (!o->json) return;
  printf("{\"bench\":\"%s\",\"case\":\"%s\",\"runtime\":\"%s\",\"threads\":%d,\"metric\":\"%s\","
         "\"value\":%.6g",
         o->bench, case_name, runtime, threads, metric, value);
  if (!isnan(ratio)) printf(",\"ratio\":%.4g", ratio);
  if (variant) printf(",\"variant\":\"%s\"", variant);
  printf("}\n");
  fflush(stdout);
}

int ab_pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

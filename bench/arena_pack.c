/* arena_pack.c - the arena-pack benchmark (PERFORMANCE.md): every instance in the
 * dsa data folder plus generated sets, planned by libairrt's packer and by the
 * three baseline rules in the same run; prints arena / lower bound and planning
 * time for each, checks every plan for overlaps, and ends with whether every
 * target holds. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pack_baselines.h"
#include "pack_gen.h"
#include "scheduler/pack/pack.h"
#include "tool_util.h"

#ifndef AIR_DSA_DATA_DIR
#define AIR_DSA_DATA_DIR "../shared/data/dsa"
#endif

#define KNOWN_OPTIMUM 1048576.0 /* the minimalloc sets' capacity */

enum { RUNTIMES = 1 + PACK_BASELINE_COUNT };

typedef struct {
  int json;
  int failures;     /* plans that failed or did not check */
  int never_worse;  /* airrt <= best baseline everywhere */
  int traces_ok;    /* <= 1.01 on iopddl and somas */
  int challenge_ok; /* <= 1.15 on minimalloc */
  int timing_ok;    /* random-62k under 100 ms */
  int all_fast;     /* every instance under 200 ms (issue 12) */
  double worst_trace, worst_challenge, ms_62k, slowest_ms;
  char slowest[64];
} bench_t;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The process's CPU time: on a shared machine the planner's own cost, where wall
 * time also counts the other processes' turns on the cores. */
static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double median3(const double* t) {
  double a = t[0], b = t[1], c = t[2];
  return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

static const char* runtime_name(int r) {
  return r == 0 ? "airrt" : pack_baseline_name((pack_baseline_t)(r - 1));
}

static void emit(const bench_t* b, const char* name, const char* runtime, const char* metric,
                 double value) {
  if (b->json)
    printf(
        "{\"bench\":\"arena-pack\",\"case\":\"%s\",\"runtime\":\"%s\",\"threads\":1,"
        "\"metric\":\"%s\",\"value\":%.6g}\n",
        name, runtime, metric, value);
}

/* Plans with one runtime; returns the arena or UINT64_MAX on failure. */
static uint64_t plan(int r, const air_pack_buffer_t* bufs, size_t n, uint64_t* off, double* ms,
                     double* cpu) {
  /* Median of three, except the quadratic baselines on big instances. */
  int reps = r == 0 || n <= 2000 ? 3 : 1;
  double times[3], cpus[3];
  uint64_t arena = UINT64_MAX;
  for (int k = 0; k < reps; ++k) {
    double t0 = now_ms(), c0 = cpu_ms();
    if (r == 0) {
      air_pack_result_t res;
      air_status_t s = air_pack_plan(NULL, bufs, n, NULL, off, &res);
      if (s) {
        fprintf(stderr, "arena-pack: %s\n", air_status_message(s));
        air_status_free(s);
        return UINT64_MAX;
      }
      arena = res.arena_size;
    } else if (pack_baseline_run((pack_baseline_t)(r - 1), bufs, n, 64, off, &arena)) {
      return UINT64_MAX;
    }
    times[k] = now_ms() - t0;
    cpus[k] = cpu_ms() - c0;
  }
  *ms = reps == 3 ? median3(times) : times[0];
  *cpu = reps == 3 ? median3(cpus) : cpus[0];
  air_status_t s = air_pack_check(NULL, bufs, n, 64, off, arena);
  if (s) {
    fprintf(stderr, "arena-pack: %s plan fails its check: %s\n", runtime_name(r),
            air_status_message(s));
    air_status_free(s);
    return UINT64_MAX;
  }
  return arena;
}

/* kind: 'c' challenging (minimalloc), 't' trace, 'g' generated. */
static void run_case(bench_t* b, const char* name, char kind, const air_pack_buffer_t* bufs,
                     size_t n) {
  uint64_t lb = 0;
  air_status_t s = air_pack_lower_bound(NULL, bufs, n, 64, &lb);
  uint64_t* off = malloc((n ? n : 1) * sizeof *off);
  if (s || !off) {
    fprintf(stderr, "arena-pack: %s: %s\n", name, s ? air_status_message(s) : "out of memory");
    air_status_free(s);
    free(off);
    b->failures++;
    return;
  }
  double ratio[RUNTIMES], ms[RUNTIMES], cpu[RUNTIMES];
  uint64_t arena[RUNTIMES];
  for (int r = 0; r < RUNTIMES; ++r) {
    arena[r] = plan(r, bufs, n, off, &ms[r], &cpu[r]);
    if (arena[r] == UINT64_MAX) b->failures++;
    ratio[r] = lb ? (double)arena[r] / (double)lb : 1.0;
    emit(b, name, runtime_name(r), "ratio_to_lower_bound", ratio[r]);
    emit(b, name, runtime_name(r), "plan_ms", ms[r]);
    emit(b, name, runtime_name(r), "plan_cpu_ms", cpu[r]);
  }
  free(off);
  uint64_t best_base = UINT64_MAX;
  for (int r = 1; r < RUNTIMES; ++r)
    if (arena[r] < best_base) best_base = arena[r];
  int ok = arena[0] <= best_base;
  if (!ok) b->never_worse = 0;
  if (kind == 't') {
    if (ratio[0] > b->worst_trace) b->worst_trace = ratio[0];
    if (ratio[0] > 1.01) b->traces_ok = 0;
  } else if (kind == 'c') {
    if (ratio[0] > b->worst_challenge) b->worst_challenge = ratio[0];
    if (ratio[0] > 1.15) b->challenge_ok = 0;
    emit(b, name, "airrt", "ratio_to_known_optimum", (double)arena[0] / KNOWN_OPTIMUM);
  }
  if (!strcmp(name, "random-62k")) {
    b->ms_62k = ms[0];
    if (ms[0] >= 100.0) b->timing_ok = 0;
  }
  /* Judged on CPU time: the machine is shared (wall time is in the table too). */
  if (cpu[0] > b->slowest_ms) {
    b->slowest_ms = cpu[0];
    snprintf(b->slowest, sizeof b->slowest, "%s", name);
    if (cpu[0] >= 200.0) b->all_fast = 0;
  }
  if (b->json) return;
  printf("%-14s %6zu %8.4f %8.1f %8.1f", name, n, ratio[0], ms[0], cpu[0]);
  for (int r = 1; r < RUNTIMES; ++r) printf(" %8.4f %8.1f", ratio[r], ms[r]);
  if (kind == 'c') printf("   opt %.4f", (double)arena[0] / KNOWN_OPTIMUM);
  printf("%s\n", ok ? "" : "   WORSE than a baseline");
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Collects `dir/sub/x.csv` paths for the three known folders, sorted. */
static size_t list_instances(const char* dir, char*** out) {
  static const char* const subs[] = {"iopddl", "somas", "minimalloc"};
  char** paths = NULL;
  size_t n = 0, cap = 0;
  for (size_t k = 0; k < sizeof subs / sizeof *subs; ++k) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, subs[k]);
    DIR* d = opendir(path);
    if (!d) continue;
    size_t first = n;
    struct dirent* e;
    while ((e = readdir(d))) {
      size_t len = strlen(e->d_name);
      if (len < 5 || strcmp(e->d_name + len - 4, ".csv")) continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 32;
        char** bigger = realloc(paths, cap * sizeof *paths);
        if (!bigger) break;
        paths = bigger;
      }
      size_t need = strlen(path) + len + 2;
      paths[n] = malloc(need);
      if (!paths[n]) break;
      snprintf(paths[n], need, "%s/%s", path, e->d_name);
      ++n;
    }
    closedir(d);
    qsort(paths + first, n - first, sizeof *paths, cmp_str);
  }
  *out = paths;
  return n;
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: air-bench arena-pack [--json] [--threads N] [--data DIR]\n"
          "  Packs every instance under DIR (default %s, or $AIR_DSA_DIR)\n"
          "  and generated sets with libairrt and the iree-order, tflite and xla-best\n"
          "  rules; prints arena / lower bound and plan time, then whether the\n"
          "  PERFORMANCE.md targets hold.\n",
          AIR_DSA_DATA_DIR);
}

int air_bench_arena_pack(int argc, char** argv) {
  bench_t b = {0};
  b.never_worse = b.traces_ok = b.challenge_ok = b.timing_ok = b.all_fast = 1;
  const char* dir = getenv("AIR_DSA_DIR") ? getenv("AIR_DSA_DIR") : AIR_DSA_DATA_DIR;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      b.json = 1;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      ++i; /* the packer is single-threaded; accepted for the common interface */
    } else if (!strcmp(argv[i], "--data") && i + 1 < argc) {
      dir = argv[++i];
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      tool_error(0, "air-bench arena-pack", "unknown or incomplete option: %s", argv[i]);
      usage(stderr);
      return TOOL_EXIT_USAGE;
    }
  }
  if (!b.json)
    printf("%-14s %6s %26s %17s %17s %17s\n%21s%s\n", "case", "n", "airrt", "iree-order",
           "tflite", "xla-best", "",
           "  ratio  plan_ms   cpu_ms    ratio  plan_ms    ratio  plan_ms    ratio  plan_ms");
  char** paths = NULL;
  size_t count = list_instances(dir, &paths);
  if (count == 0) fprintf(stderr, "arena-pack: no instances under %s; generated sets only\n", dir);
  for (size_t i = 0; i < count; ++i) {
    air_pack_instance_t in;
    air_status_t s = air_pack_csv_read(NULL, paths[i], &in);
    if (s) {
      fprintf(stderr, "arena-pack: %s\n", air_status_message(s));
      air_status_free(s);
      b.failures++;
    } else {
      const char* base = strrchr(paths[i], '/');
      base = base ? base + 1 : paths[i];
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
      char kind = strstr(paths[i], "/minimalloc/") ? 'c' : 't';
      run_case(&b, name, kind, in.buffers, in.count);
      air_pack_instance_free(&in);
    }
    free(paths[i]);
  }
  free(paths);

  static const pack_gen_spec_t k_gen[] = {
      {"random-1k", PACK_GEN_RANDOM, 1000, 1},
      {"random-10k", PACK_GEN_RANDOM, 10000, 2},
      {"cnn", PACK_GEN_CNN, 0, 3},
      {"transformer", PACK_GEN_TRANSFORMER, 0, 4},
      {"random-62k", PACK_GEN_RANDOM, 62000, 5},
      /* High concurrency: a training step's trace, ~9.3k buffers live at once. */
      {"trace-62k", PACK_GEN_TRACE, 62000, 6},
      {"random-100k", PACK_GEN_RANDOM, 100000, 9},
      {"trace-100k", PACK_GEN_TRACE, 100000, 7},
  };
  for (size_t g = 0; g < sizeof k_gen / sizeof k_gen[0]; ++g) {
    size_t n = 0;
    air_pack_buffer_t* bufs = pack_gen_make(&k_gen[g], &n);
    if (bufs)
      run_case(&b, k_gen[g].name, 'g', bufs, n);
    else
      b.failures++;
    free(bufs);
  }

  int all = b.failures == 0 && b.never_worse && b.traces_ok && b.challenge_ok && b.timing_ok &&
            b.all_fast;
  if (b.json) {
    emit(&b, "targets", "airrt", "targets_met", all ? 1.0 : 0.0);
  } else {
    printf(
        "targets: never worse than the best baseline: %s; traces <= 1.01: %s (worst %.4f); "
        "challenging <= 1.15: %s (worst %.4f); random-62k < 100 ms: %s (%.1f ms); "
        "every instance < 200 ms of CPU: %s (slowest %s, %.1f ms); plans checked: %s => %s\n",
        b.never_worse ? "yes" : "NO", b.traces_ok ? "yes" : "NO", b.worst_trace,
        b.challenge_ok ? "yes" : "NO", b.worst_challenge, b.timing_ok ? "yes" : "NO", b.ms_62k,
        b.all_fast ? "yes" : "NO", b.slowest, b.slowest_ms, b.failures ? "FAILURES" : "all ok",
        all ? "ALL TARGETS HOLD" : "TARGETS MISSED");
  }
  return b.failures ? 1 : 0;
}

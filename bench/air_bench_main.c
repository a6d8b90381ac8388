/* air_bench_main.c - the air-bench front end (TOOLS.md): `air-bench NAME [options]`
 * runs one benchmark by calling its entry air_bench_<name>(argc, argv) with argv[0]
 * set to NAME, so each bench parses its own options exactly as its stand-alone
 * binary does. */
#include <stdio.h>
#include <string.h>

#include "air/config.h"
#include "tool_util.h"

int air_bench_dag_overhead(int argc, char** argv);
int air_bench_arena_pack(int argc, char** argv);
int air_bench_dma_copy(int argc, char** argv);
int air_bench_signal_latency(int argc, char** argv);
int air_bench_submit_sweep(int argc, char** argv);
int air_bench_matmul(int argc, char** argv);
int air_bench_cpu_matmul(int argc, char** argv);
int air_bench_channel_transfer(int argc, char** argv);
int air_bench_elementwise(int argc, char** argv);
#ifdef AIR_BENCH_HSA
int air_bench_hsa_dispatch(int argc, char** argv);
#endif
int air_bench_npu_insts(int argc, char** argv);

typedef struct bench_t {
  const char* name;
  int (*fn)(int, char**);
  const char* what;
} bench_t;

static const bench_t k_benches[] = {
    {"dag-overhead", air_bench_dag_overhead, "task-graph build/replay ns per task vs TBB, OpenMP"},
    {"arena-pack", air_bench_arena_pack, "memory packing: arena / lower bound vs baselines"},
    {"dma-copy", air_bench_dma_copy, "N-d copy engine GB/s vs memcpy"},
    {"signal-latency", air_bench_signal_latency, "timepoint signal->wake latency, submit round trip"},
    {"submit-sweep", air_bench_submit_sweep, "fixed + per-dispatch submit cost (least squares)"},
    {"matmul", air_bench_matmul, "1024^3 f32 tile matmul through the runtime vs direct calls"},
    {"cpu-matmul", air_bench_cpu_matmul, "whole matmuls as AIR programs vs OpenBLAS sgemm"},
    {"channel-transfer", air_bench_channel_transfer, "put/get between two herds vs spin + memcpy"},
    {"elementwise", air_bench_elementwise, "vector_add-style herd code vs a C loop"},
#ifdef AIR_BENCH_HSA
    {"hsa-dispatch", air_bench_hsa_dispatch,
     "host cost per AQL dispatch and dependency edge (software HSA queue) vs IREE"},
#endif
    {"npu-insts", air_bench_npu_insts, "NPU stream generation per BD; host cost per submission (fake XRT)"},
};
enum { N_BENCHES = sizeof k_benches / sizeof k_benches[0] };

static void usage(FILE* f) {
  fprintf(f,
          "usage: air-bench NAME [--json] [--threads N] [options]   (air-bench NAME --help)\n"
          "       air-bench list | --help | --version\n"
          "  NAME:");
  for (int i = 0; i < N_BENCHES; ++i) fprintf(f, "%s %s", i ? " |" : "", k_benches[i].name);
  fprintf(f, "\n");
}

int main(int argc, char** argv) {
  if (argc < 2) {
    tool_error(0, "air-bench", "no benchmark named");
    usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  const char* name = argv[1];
  if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(name, "--version")) {
    printf("air-bench (libairrt) %s\n", AIR_VERSION_STRING);
    return 0;
  }
  if (!strcmp(name, "list")) {
    for (int i = 0; i < N_BENCHES; ++i) printf("%-17s %s\n", k_benches[i].name, k_benches[i].what);
    return 0;
  }
  for (int i = 0; i < N_BENCHES; ++i)
    if (!strcmp(name, k_benches[i].name)) return k_benches[i].fn(argc - 1, argv + 1);
  tool_error(0, "air-bench", "unknown benchmark: %s", name);
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

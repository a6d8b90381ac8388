/* soft_hsa_rt.c - the software HSA runtime as a library the hsa driver can load
 * in place of libhsa-runtime64 (tests only): `AIR_HSA_RUNTIME=.../libair_soft_hsa_rt.so
 * air-run PROGRAM --device hsa:0` runs the whole hsa path of air-run - artifact,
 * code objects, executables, kernargs, AQL packets, signals - against the soft
 * queue, and every kernel dispatch on the host workgroup simulator (gpu_sim.h):
 * the same generated kernels, built by the same code generator for the host, from
 * the program named by SOFT_HSA_PROGRAM (entry SOFT_HSA_ENTRY, default the first).
 * SOFT_HSA_GPU names the GPU (default gfx90a); SOFT_HSA_TIMEOUT the seconds a
 * simulated wait may last (default 60).
 *
 * The driver's loader takes the function table from air_hsa_api_v1 when a
 * library exports it (hal/hsa/hsa_api.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "codegen/cg_gpu.h"
#include "gpu_sim.h"
#include "soft_hsa.h"

typedef struct rt_t {
  soft_hsa_t* soft;
  air_hsa_api_t api;
  air_context_t* ctx;
  air_program_t* program;
  air_cg_gpu_sim_t* sim;
  char* text;
  int tried;
} rt_t;

/* One per process, like the runtime it stands for (its entry points take no
 * context); made by the first air_hsa_api_v1, freed when the library unloads. */
static rt_t g_rt;

static int sim_open(rt_t* rt, const char* gpu) {
  if (rt->tried) return rt->sim ? 0 : 1;
  rt->tried = 1;
  const char* path = getenv("SOFT_HSA_PROGRAM");
  if (!path || !*path) {
    fprintf(stderr, "soft HSA: a dispatch, but SOFT_HSA_PROGRAM names no program to simulate\n");
    return 1;
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "soft HSA: cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  rt->text = malloc((size_t)n + 1);
  size_t got = rt->text ? fread(rt->text, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!rt->text || got != (size_t)n) return 1;
  air_parse_options_t po = {0};
  po.filename = path;
  air_status_t s = air_context_create(NULL, NULL, &rt->ctx);
  if (!s) s = air_program_parse(rt->ctx, rt->text, (size_t)n, &po, &rt->program);
  const air_target_t* t = NULL;
  if (!s) s = air_target_lookup(NULL, gpu, &t);
  if (!s) s = air_cg_gpu_sim_create(NULL, (const air_program_t*)rt->program, getenv("SOFT_HSA_ENTRY"), t, &rt->sim);
  if (s) {
    fprintf(stderr, "soft HSA: cannot simulate %s: %s\n", path, air_status_message(s));
    air_status_free(s);
    return 1;
  }
  return 0;
}

static int dispatch(void* user, const char* name, const hsa_kernel_dispatch_packet_t* p) {
  rt_t* rt = user;
  const char* gpu = getenv("SOFT_HSA_GPU");
  if (!name || sim_open(rt, gpu && *gpu ? gpu : "gfx90a")) return 1;
  air_gpu_sim_fn fn;
  const air_gpu_kernel_t* k;
  air_status_t s = air_cg_gpu_sim_lookup(rt->sim, name, &fn, &k);
  if (s) {
    fprintf(stderr, "soft HSA: %s\n", air_status_message(s));
    air_status_free(s);
    return 1;
  }
  if (p->workgroup_size_x != k->workgroup_size || p->grid_size_x % k->workgroup_size) {
    fprintf(stderr, "soft HSA: %s dispatched with workgroup %u, grid %u; built for %u\n", name,
            p->workgroup_size_x, p->grid_size_x, k->workgroup_size);
    return 1;
  }
  char err[256];
  const char* to = getenv("SOFT_HSA_TIMEOUT");
  double timeout = to && atof(to) > 0 ? atof(to) : 60.0;
  if (air_gpu_sim_run(fn, k, p->kernarg_address, p->grid_size_x / k->workgroup_size,
                      p->group_segment_size, timeout, err, sizeof err)) {
    fprintf(stderr, "soft HSA: %s\n", err);
    return 1;
  }
  return 0;
}

__attribute__((visibility("default"))) int air_hsa_api_v1(air_hsa_api_t* out) {
  if (!g_rt.soft) {
    const char* gpu = getenv("SOFT_HSA_GPU");
    soft_hsa_options_t o = {.gpu_name = gpu && *gpu ? gpu : "gfx90a", .dispatch = dispatch,
                            .dispatch_user = &g_rt};
    g_rt.soft = soft_hsa_create(&o, &g_rt.api);
    if (!g_rt.soft) return 1;
  }
  *out = g_rt.api;
  return 0;
}

__attribute__((destructor)) static void unload(void) {
  air_cg_gpu_sim_free(g_rt.sim);
  air_program_destroy(g_rt.program);
  air_context_destroy(g_rt.ctx);
  free(g_rt.text);
  soft_hsa_destroy(g_rt.soft);
  memset(&g_rt, 0, sizeof g_rt);
}

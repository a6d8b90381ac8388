/* gpu_kernels.c - the gpu-kernels benchmark (docs/gpu.md, docs/performance.md):
 * what generating AMDGPU kernels from AIR launches costs at compile time, and how
 * big the code objects are, for three programs (vector add: PE -> thread, no LDS;
 * a tiled matmul: L2 tiles in LDS, L1 blocks in private memory, DMAs; and
 * samples/matmul_4x4.mlir: channels at every level, PE -> wave) on a CDNA (wave64)
 * and an RDNA (wave32) processor.
 *
 * Per case (median of --reps runs): the schedule, then air_cg_gpu_compile's
 * phases - AIR -> LLVM IR (emit), the O2 pipeline (opt), amdgcn machine code
 * (codegen) and ld.lld (link) - and the code objects' bytes. Two anchors from the
 * same run: the same launches built for the host workgroup simulator (emit + O2 +
 * ORC JIT, all in process), and one spawn of the linker doing nothing
 * (`ld.lld --version`), which is the floor of the link step's cost. Nothing here
 * runs a GPU; this is host compile time on a shared machine. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "air/air.h"
#include "air_bench_util.h"
#include "amdgpu/code_object.h"
#include "codegen/cg_gpu.h"
#include "runtime/target/target.h"
#include "scheduler/compile.h"

extern char** environ;

static const char* const k_progs[][2] = {
    {"vadd", AIR_GPU_DATA_DIR "/vadd.mlir"},
    {"tiled_matmul", AIR_GPU_DATA_DIR "/tiled_matmul.mlir"},
    {"matmul_4x4", AIR_SAMPLES_DIR "/matmul_4x4.mlir"},
};
static const char* const k_gfx[] = {"gfx90a", "gfx1100"};

static char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (s && fread(s, 1, (size_t)len, f) != (size_t)len) {
    free(s);
    s = NULL;
  }
  fclose(f);
  if (s) s[len] = 0;
  *n = s ? (size_t)len : 0;
  return s;
}

static int fail(const char* what, air_status_t s) {
  fprintf(stderr, "gpu-kernels: %s: %s\n", what, air_status_message(s));
  air_status_free(s);
  return 1;
}

/* One `linker --version` with its output discarded: wall ns, or -1. */
static int64_t spawn_ns(const char* linker) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char* argv[] = {(char*)linker, "--version", NULL};
  int64_t t0 = ab_now_ns();
  pid_t pid;
  int rc = posix_spawn(&pid, linker, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) return -1;
  return ab_now_ns() - t0;
}

typedef struct sample_t {
  double sched, emit, opt, codegen, link, total, host;
  uint64_t bytes;
  uint32_t n_kernels, lds, lds_object, workgroup;
  int waves;
} sample_t;

/* One run of everything a case measures. */
static int measure(air_context_t* ctx, const char* name, const char* text, size_t len,
                   const air_target_t* t, const air_cg_gpu_toolchain_t* tc, sample_t* out) {
  memset(out, 0, sizeof *out);
  air_parse_options_t po = {0};
  po.filename = name;
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(ctx, text, len, &po, &p);
  if (s) return fail(name, s);
  int64_t t0 = ab_now_ns();
  air_schedule_t* sc = NULL;
  s = air_schedule_compile(air_context_allocator(ctx), p, NULL, t, &sc);
  int64_t t1 = ab_now_ns();
  air_cg_gpu_stats_t st;
  memset(&st, 0, sizeof st);
  if (!s) s = air_cg_gpu_compile(air_context_allocator(ctx), p, sc, t, tc, &st);
  int64_t t2 = ab_now_ns();
  if (s) {
    air_schedule_free(sc);
    air_program_destroy(p);
    return fail(name, s);
  }
  out->sched = (double)(t1 - t0);
  out->emit = (double)st.emit_ns;
  out->opt = (double)st.opt_ns;
  out->codegen = (double)st.codegen_ns;
  out->link = (double)st.link_ns;
  out->total = (double)(t2 - t1);
  out->n_kernels = st.n_kernels;
  for (uint32_t i = 0; i < sc->gpu->n_objects; ++i) out->bytes += sc->gpu->objects[i].size;
  const air_gpu_kernel_t* k = &sc->gpu->kernels[0];
  out->lds = k->lds_bytes;
  /* What the code object declares: LLVM may have moved private arrays into LDS. */
  air_amdgpu_code_object_t* co = NULL;
  const air_gpu_object_t* ob = &sc->gpu->objects[k->object];
  s = air_amdgpu_code_object_read(NULL, ob->bytes, (size_t)ob->size, k->name, &co);
  const air_amdgpu_kernel_t* mk = s ? NULL : air_amdgpu_code_object_kernel(co, k->name);
  out->lds_object = mk ? mk->group_segment_fixed_size : 0;
  air_amdgpu_code_object_free(co);
  air_status_free(s);
  out->workgroup = k->workgroup_size;
  out->waves = k->mapping == AIR_GPU_MAP_WAVES;
  air_schedule_free(sc);
  /* Anchor: the same launches for the host workgroup simulator. */
  air_cg_gpu_sim_t* sim = NULL;
  int64_t t3 = ab_now_ns();
  s = air_cg_gpu_sim_create(air_context_allocator(ctx), p, NULL, t, &sim);
  out->host = (double)(ab_now_ns() - t3);
  air_cg_gpu_sim_free(sim);
  air_program_destroy(p);
  return s ? fail(name, s) : 0;
}

static double med(double* v, int n) { return ab_quantile(v, (size_t)n, 0.5); }

int air_bench_gpu_kernels(int argc, char** argv) {
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o,
                    "  Host compile time of generated GPU kernels (emit, O2, amdgcn codegen,\n"
                    "  ld.lld) and code-object size, against the same launches JIT-compiled for\n"
                    "  the host workgroup simulator and one bare spawn of the linker.\n"
                    "  --case PROGRAM/gfxNNN (vadd, tiled_matmul, matmul_4x4 x gfx90a, gfx1100)\n");
  if (rc >= 0) return rc;
  int reps = o.reps > 0 ? o.reps : o.quick ? 1 : 5;
  air_context_t* ctx = NULL;
  air_status_t s = air_context_create(NULL, NULL, &ctx);
  if (s) return fail("context", s);
  if (!o.json)
    printf("%-22s %4s %4s %6s %6s %5s %6s %6s %7s %6s %7s %6s %6s %7s %6s\n", "case", "map", "wg",
           "LDS", "LDS co", "sched", "emit", "opt", "codegen", "link", "total", "host", "spawn", "code B",
           "x host");
  rc = 0;
  for (size_t g = 0; g < sizeof k_gfx / sizeof *k_gfx && !rc; ++g) {
    const air_target_t* t = NULL;
    air_cg_gpu_toolchain_t tc;
    if ((s = air_target_lookup(NULL, k_gfx[g], &t)) ||
        (s = air_cg_gpu_toolchain_find(NULL, k_gfx[g], &tc))) {
      rc = fail(k_gfx[g], s);
      break;
    }
    for (size_t i = 0; i < sizeof k_progs / sizeof *k_progs && !rc; ++i) {
      char case_name[64];
      snprintf(case_name, sizeof case_name, "%s/%s", k_progs[i][0], k_gfx[g]);
      if (!ab_want(&o, case_name)) continue;
      size_t len = 0;
      char* text = slurp(k_progs[i][1], &len);
      if (!text) {
        fprintf(stderr, "gpu-kernels: cannot read %s\n", k_progs[i][1]);
        rc = 1;
        break;
      }
      double v[8][16], sp[16];
      sample_t smp = {0};
      for (int r = 0; r < reps && r < 16 && !rc; ++r) {
        rc = measure(ctx, k_progs[i][1], text, len, t, &tc, &smp);
        double* f[8] = {&smp.sched, &smp.emit, &smp.opt, &smp.codegen, &smp.link, &smp.total,
                        &smp.host, NULL};
        for (int m = 0; m < 7; ++m) v[m][r] = *f[m] / 1e6;
        int64_t ns = spawn_ns(tc.linker);
        sp[r] = ns < 0 ? NAN : (double)ns / 1e6;
      }
      free(text);
      if (rc) break;
      int n = reps < 16 ? reps : 16;
      double m[7];
      for (int k = 0; k < 7; ++k) m[k] = med(v[k], n);
      double spawn = med(sp, n);
      double x_host = m[6] > 0 ? m[5] / m[6] : NAN;
      if (o.json) {
        static const char* const names[7] = {"schedule_ms", "emit_ms", "opt_ms", "codegen_ms",
                                             "link_ms", "total_ms", "host_sim_ms"};
        for (int k = 0; k < 7; ++k)
          ab_emit(&o, case_name, "airrt", 1, names[k], m[k], k == 5 ? x_host : NAN, NULL);
        ab_emit(&o, case_name, "ld.lld", 1, "spawn_ms", spawn, NAN, NULL);
        ab_emit(&o, case_name, "airrt", 1, "code_object_bytes", (double)smp.bytes, NAN, NULL);
        ab_emit(&o, case_name, "airrt", 1, "lds_planned_bytes", (double)smp.lds, NAN, NULL);
        ab_emit(&o, case_name, "airrt", 1, "lds_code_object_bytes", (double)smp.lds_object, NAN, NULL);
      } else {
        printf("%-22s %4s %4u %6u %6u %5.1f %6.1f %6.1f %7.1f %6.1f %7.1f %6.1f %6.1f %7llu %6.2f\n",
               case_name, smp.waves ? "wave" : "thr", smp.workgroup, smp.lds, smp.lds_object, m[0], m[1], m[2],
               m[3], m[4], m[5], m[6], spawn, (unsigned long long)smp.bytes, x_host);
      }
    }
  }
  if (!o.json && !rc)
    printf("times in ms, medians of %d; total = emit + opt + codegen + link (+ checks); host = the\n"
           "same launches for the host simulator (emit + O2 + JIT); spawn = `ld.lld --version`;\n"
           "LDS = planned bytes, LDS co = the code object's group segment; code B = code-object bytes\n",
           reps);
  air_context_destroy(ctx);
  return rc;
}

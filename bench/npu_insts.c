/* npu_insts.c - the npu benchmark (docs/performance.md, "NPU instruction streams"):
 *
 *  gen:    instruction-stream generation per BD, three ways over the same K
 *          transfers: the TXN encoder alone (BD pack + blockwrite + patch + push;
 *          the anchor), an mlir-aie module read and lowered (airc npu-insts), the
 *          same transfers written as DMA tasks (configure/start/await/free), and
 *          an AIR program's L3 lowering inside air_schedule_compile (per launch),
 *          with the same compile for the cpu target as that case's anchor.
 *  submit: host cost of one submission of N dispatches through the fake XRT
 *          (tests/xrt_fake: no device, so this is the driver's own work: the
 *          queue, syncs, run-argument setting, start and wait calls), against the
 *          cpu device's submission of N no-op dispatches in the same run.
 * No NPU is involved: nothing here says how fast an NPU runs the stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "air/air.h"
#include "air_bench_util.h"
#include "npu/bd.h"
#include "npu/insts.h"
#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/target/target.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"

static int check(const char* what, air_status_t st) {
  if (!st) return 0;
  fprintf(stderr, "npu: %s: %s\n", what, air_status_message(st));
  air_status_free(st);
  return 1;
}

static void* s_alloc(void* self, size_t n) { (void)self; return malloc(n); }
static void* s_realloc(void* self, void* p, size_t n) { (void)self; return realloc(p, n); }
static void s_free(void* self, void* p) { (void)self; free(p); }
static const air_allocator_t k_a = {NULL, s_alloc, s_realloc, s_free};

/* K transfers of 256 i32 from %a at row k: the module, and the AIR program. */
static char* module_text(int k) {
  size_t cap = 1024 + (size_t)k * 200;
  char* t = malloc(cap);
  size_t n = (size_t)snprintf(t, cap,
                              "aie.device(npu1) {\n  aie.shim_dma_allocation @in(MM2S, 0, 0)\n"
                              "  aiex.runtime_sequence(%%a: memref<%dx256xi32>) {\n", k);
  for (int i = 0; i < k; ++i)
    n += (size_t)snprintf(t + n, cap - n,
                          "    aiex.npu.dma_memcpy_nd(%%a[0, 0, %d, 0][1, 1, 1, 256][0, 0, 256, 1]) "
                          "{id = %d : i64, metadata = @in, issue_token = true} : memref<%dx256xi32>\n",
                          i, i % 16, k);
  snprintf(t + n, cap - n, "  }\n}\n");
  return t;
}

/* The same K transfers as DMA tasks (configure, start, await, free; BD ids
 * numbered by the lowering): the task path of airc npu-insts. */
static char* task_module_text(int k) {
  size_t cap = 1024 + (size_t)k * 400;
  char* t = malloc(cap);
  size_t n = (size_t)snprintf(t, cap,
                              "aie.device(npu1) {\n  aie.shim_dma_allocation @in(MM2S, 0, 0)\n"
                              "  aiex.runtime_sequence(%%a: memref<%dx256xi32>) {\n", k);
  for (int i = 0; i < k; ++i)
    n += (size_t)snprintf(t + n, cap - n,
                          "    %%t%d = aiex.dma_configure_task_for @in {\n"
                          "      aie.dma_bd(%%a : memref<%dx256xi32>, %d, 256)\n      aie.end\n"
                          "    } {issue_token = true}\n    aiex.dma_start_task(%%t%d)\n"
                          "    aiex.dma_await_task(%%t%d)\n    aiex.dma_free_task(%%t%d)\n",
                          i, k, i * 256, i, i, i);
  snprintf(t + n, cap - n, "  }\n}\n");
  return t;
}

static char* program_text(int k) {
  char* t = malloc(8192);
  snprintf(t, 8192,
           "module {\n  air.channel @c [1, 1]\n"
           "  func.func @f(%%arg0: memref<%dx256xi32>) {\n"
           "    %%c1 = arith.constant 1 : index\n"
           "    %%0 = air.launch async (%%x) in (%%nx=%%c1) args(%%a=%%arg0) : memref<%dx256xi32> {\n"
           "      %%c0 = arith.constant 0 : index\n      %%c1_0 = arith.constant 1 : index\n"
           "      %%ck = arith.constant %d : index\n      %%c256 = arith.constant 256 : index\n"
           "      %%t0 = air.wait_all async\n"
           "      %%1 = scf.for %%i = %%c0 to %%ck step %%c1_0 iter_args(%%t = %%t0) -> (!air.token) {\n"
           "        %%p = air.channel.put async [%%t] @c[] (%%a[%%i, %%c0] [%%c1_0, %%c256] [%%c256, %%c1_0]) : (memref<%dx256xi32>)\n"
           "        scf.yield %%p : !air.token\n      }\n"
           "      %%2 = air.segment @s async {\n"
           "        %%s0 = arith.constant 0 : index\n        %%s1 = arith.constant 1 : index\n"
           "        %%sk = arith.constant %d : index\n"
           "        %%tk, %%buf = air.execute -> (memref<256xi32, 1>) {\n"
           "          %%al = memref.alloc() : memref<256xi32, 1>\n"
           "          air.execute_terminator %%al : memref<256xi32, 1>\n        }\n"
           "        %%3 = scf.for %%j = %%s0 to %%sk step %%s1 iter_args(%%u = %%tk) -> (!air.token) {\n"
           "          %%g = air.channel.get async [%%u] @c[] (%%buf[] [] []) : (memref<256xi32, 1>)\n"
           "          scf.yield %%g : !air.token\n        }\n"
           "        %%4 = air.execute [%%3] {\n          memref.dealloc %%buf : memref<256xi32, 1>\n        }\n"
           "      }\n    }\n"
           "    air.wait_all [%%0]\n    return\n  }\n}\n",
           k, k, k, k, k);
  return t;
}

static double median_ns(double* v, int n) { return ab_quantile(v, (size_t)n, 0.5); }

/* Median ns of `reps` lowerings of the mlir-aie module `text` (owned: freed
 * here) to an instruction stream; t[] is scratch for reps times. */
static int time_module(const char* what, char* text, const char* file, double* t, int reps,
                       double* out) {
  if (!text) {
    fprintf(stderr, "npu_insts: out of memory writing the %s\n", what);
    return 1;
  }
  int rc = 0;
  for (int r = 0; r < reps && !rc; ++r) {
    uint32_t* w = NULL;
    size_t n;
    int64_t t0 = ab_now_ns();
    rc = check(what, air_npu_insts_from_module(&k_a, text, strlen(text), file, NULL, &w, &n));
    t[r] = (double)(ab_now_ns() - t0);
    free(w);
  }
  free(text);
  *out = median_ns(t, reps);
  return rc;
}

static int bench_gen(const ab_opts_t* o, air_context_t* ctx) {
  static const int k_sizes[] = {1, 16, 256};
  int reps = o->reps ? o->reps : o->quick ? 1 : 21;
  air_npu_device_t model;
  if (!air_npu_device_find("npu1", 4, &model)) return 1;
  const air_npu_device_t* dev = &model;
  double* t = malloc(sizeof(double) * (size_t)reps);
  if (!o->json)
    printf("npu gen: ns per BD (median of %d); ratio = time / the encoder alone\n"
           "%6s %12s %14s %14s %16s %18s\n",
           reps, "BDs", "encoder", "module->TXN", "tasks->TXN", "AIR compile npu1", "AIR compile cpu");
  for (size_t si = 0; si < (o->quick ? 1 : sizeof k_sizes / sizeof k_sizes[0]); ++si) {
    int k = o->quick ? 2 : k_sizes[si];
    double enc, mod, npu, cpu;
    for (int r = 0; r < reps; ++r) { /* the anchor: pack and append only */
      int64_t t0 = ab_now_ns();
      air_txn_t txn;
      air_txn_init(&txn, &k_a, air_npu_device_geom(dev));
      for (int i = 0; i < k; ++i) {
        air_npu_nd_t nd = {{0, 0, (uint64_t)i, 0}, {1, 1, 1, 256}, {0, 0, 256, 1}, 32};
        air_npu_bd_t bd;
        uint64_t off;
        uint32_t rep, w[8];
        air_npu_why_t why;
        air_npu_nd_to_bd(&nd, &bd, &off, &rep, why);
        bd.bd_id = (uint32_t)i % 16;
        air_npu_bd_encode(dev, AIR_NPU_TILE_SHIM, &bd, w, why);
        air_txn_blockwrite(&txn, 0, 0, 0x1D000 + 0x20 * bd.bd_id, w, 8);
        air_txn_ddr_patch(&txn, 0x1D004 + 0x20 * bd.bd_id, 0, off);
        air_txn_write32(&txn, 0x1D214, air_npu_queue_word(bd.bd_id, rep, true, AIR_NPU_TILE_SHIM));
      }
      if (check("finish", air_txn_finish(&txn))) return 1;
      air_txn_free(&txn);
      t[r] = (double)(ab_now_ns() - t0);
    }
    enc = median_ns(t, reps) / k;
    double task;
    if (time_module("module", module_text(k), "b.mlir", t, reps, &mod) ||
        time_module("task module", task_module_text(k), "t.mlir", t, reps, &task))
      return 1;
    mod /= k;
    task /= k;
    char* p_text = program_text(k);
    air_program_t* p = NULL;
    if (check("parse", air_program_parse(ctx, p_text, strlen(p_text), NULL, &p))) return 1;
    const air_target_t *tn = NULL, *tc = NULL;
    air_target_lookup(NULL, "npu1", &tn);
    air_target_lookup(NULL, "cpu", &tc);
    double c[2];
    for (int which = 0; which < 2; ++which) {
      for (int r = 0; r < reps; ++r) {
        air_schedule_t* sc = NULL;
        int64_t t0 = ab_now_ns();
        if (check("compile", air_schedule_compile(NULL, p, NULL, which ? tc : tn, &sc))) return 1;
        t[r] = (double)(ab_now_ns() - t0);
        if (!which && !sc->npu_insts) {
          fprintf(stderr, "npu: no stream: %s\n", sc->npu_error ? sc->npu_error : "?");
          return 1;
        }
        air_schedule_free(sc);
      }
      c[which] = median_ns(t, reps) / k;
    }
    npu = c[0];
    cpu = c[1];
    air_program_destroy(p);
    free(p_text);
    char name[32];
    snprintf(name, sizeof name, "gen-%d", k);
    ab_emit(o, name, "airrt", 1, "encoder_ns_per_bd", enc, 1.0, NULL);
    ab_emit(o, name, "airrt", 1, "module_ns_per_bd", mod, mod / enc, NULL);
    ab_emit(o, name, "airrt", 1, "task_module_ns_per_bd", task, task / enc, NULL);
    ab_emit(o, name, "airrt", 1, "compile_npu1_ns_per_bd", npu, npu / enc, NULL);
    ab_emit(o, name, "airrt", 1, "compile_cpu_ns_per_bd", cpu, cpu / enc, NULL);
    if (!o->json)
      printf("%6d %12.1f %8.1f (%4.1fx) %8.1f (%4.1fx) %9.1f (%5.1fx) %11.1f (%5.1fx)\n", k, enc,
             mod, mod / enc, task, task / enc, npu, npu / enc, cpu, cpu / enc);
  }
  free(t);
  return 0;
}

/* Median submit->completion ns of a command buffer of n dispatches. */
static int time_submit(air_context_t* ctx, air_device_t* d, air_executable_t* e, int n,
                       air_binding_t* b, uint32_t nb, int reps, double* out) {
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* sem = NULL;
  if (check("cb", air_command_buffer_create(d, 0, &cb))) return 1;
  for (int i = 0; i < n; ++i)
    if (check("dispatch", air_command_buffer_dispatch(cb, e, 0, nb, b, NULL))) return 1;
  if (check("end", air_command_buffer_end(cb)) || check("sem", air_semaphore_create(ctx, 0, &sem)))
    return 1;
  double* t = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r <= reps; ++r) {
    uint64_t v = (uint64_t)r + 1;
    air_timepoint_list_t sig = {1, &sem, &v};
    int64_t t0 = ab_now_ns();
    if (check("submit", air_device_queue_execute(d, 0, NULL, cb, &sig)) ||
        check("wait", air_semaphore_wait(sem, v, -1)))
      return 1;
    if (r) t[r - 1] = (double)(ab_now_ns() - t0);
  }
  *out = median_ns(t, reps);
  free(t);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  return 0;
}

static int bench_submit(const ab_opts_t* o, air_context_t* ctx) {
#ifndef AIR_FAKE_XRT
  (void)ctx;
  if (!o->json) printf("npu submit: skipped (built without tests: no fake XRT)\n");
  return 0;
#else
  int reps = o->reps ? o->reps : o->quick ? 2 : 201;
  char dir[128], path[256];
  snprintf(dir, sizeof dir, "/tmp/air-bench-npu-%d", (int)getpid());
  snprintf(path, sizeof path, "%s/dev", dir);
  mkdir(dir, 0700);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/xrt", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/xrt/lib", dir);
  mkdir(path, 0700);
  const char* files[] = {"dev/accel0", "xrt/lib/libxrt_core.so.2", "final.xclbin"};
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    FILE* f = fopen(path, "w");
    if (f) fclose(f);
  }
  setenv("AIR_XRT_LIBRARY", AIR_FAKE_XRT, 1);
  snprintf(path, sizeof path, "%s/dev", dir);
  setenv("AIR_XRT_DEVICE_DIR", path, 1);
  snprintf(path, sizeof path, "%s/xrt", dir);
  setenv("XILINX_XRT", path, 1);
  char* p_text = program_text(4);
  air_program_t* p = NULL;
  air_device_t *dx = NULL, *dc = NULL;
  air_executable_t *ex = NULL, *ec = NULL;
  air_buffer_t *bx = NULL, *bc = NULL;
  snprintf(path, sizeof path, "%s/final.xclbin", dir);
  air_executable_options_t xo = {0, path, NULL, NULL};
  if (check("parse", air_program_parse(ctx, p_text, strlen(p_text), NULL, &p)) ||
      check("xrt", air_device_open(ctx, "xrt:0", &dx)) ||
      check("cpu", air_device_open(ctx, "cpu:threads=1", &dc)) ||
      check("xrt exe", air_executable_create_with_options(dx, p, &xo, &ex)) ||
      check("cpu exe", air_executable_create(dc, p, 0, &ec)) ||
      check("buf", air_buffer_allocate(dx, 4 * 256 * 4, 0, &bx)) ||
      check("buf", air_buffer_allocate(dc, 4 * 256 * 4, 0, &bc)))
    return 1;
  static const int k_n[] = {1, 8, 64};
  if (!o->json)
    printf("npu submit: median submit->completion per submission (%d reps), N dispatches of a\n"
           "4-transfer entry; xrt = the driver over the fake XRT, cpu = the same program on the\n"
           "cpu device (it really moves the data); ratio = xrt / cpu\n%6s %12s %12s %8s %14s\n",
           reps, "N", "xrt us", "cpu us", "ratio", "xrt us/disp");
  for (size_t i = 0; i < (o->quick ? 1 : sizeof k_n / sizeof k_n[0]); ++i) {
    int n = o->quick ? 1 : k_n[i];
    air_binding_t b1 = {bx, 0, 0, 0}, b2 = {bc, 0, 0, 0};
    double tx, tc;
    if (time_submit(ctx, dx, ex, n, &b1, 1, reps, &tx) || time_submit(ctx, dc, ec, n, &b2, 1, reps, &tc))
      return 1;
    char name[32];
    snprintf(name, sizeof name, "submit-%d", n);
    ab_emit(o, name, "airrt-xrt-fake", 1, "median_ns", tx, tx / tc, NULL);
    ab_emit(o, name, "airrt-cpu", 1, "median_ns", tc, NAN, NULL);
    if (!o->json)
      printf("%6d %12.2f %12.2f %8.2f %14.3f\n", n, tx / 1e3, tc / 1e3, tx / tc, tx / 1e3 / n);
  }
  air_buffer_release(bx);
  air_buffer_release(bc);
  air_executable_release(ex);
  air_executable_release(ec);
  air_device_release(dx);
  air_device_release(dc);
  air_program_destroy(p);
  free(p_text);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "npu: could not remove %s\n", dir);
  return 0;
#endif
}

int air_bench_npu_insts(int argc, char** argv) {
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o, "  cases: gen (stream generation per BD), submit (host cost "
                                    "per submission through the fake XRT)\n");
  if (rc >= 0) return rc;
  air_context_t* ctx = NULL;
  if (check("context", air_context_create(NULL, NULL, &ctx))) return 1;
  rc = 0;
  if (ab_want(&o, "gen")) rc |= bench_gen(&o, ctx);
  if (ab_want(&o, "submit")) rc |= bench_submit(&o, ctx);
  air_context_destroy(ctx);
  return rc ? 1 : 0;
}

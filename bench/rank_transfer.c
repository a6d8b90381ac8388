/* rank_transfer.c - the rank-transfer benchmark (docs/performance.md, issue 13):
 * a cross-rank dma between two processes under `mpirun -np 2`, against raw MPI
 * one-sided transfers of the same bytes measured in the same run.
 *
 *   raw    MPI_Get (or MPI_Put) of the bytes into a window of the peer, then
 *          MPI_Win_flush: what the MPI transport does per contiguous dma, with
 *          nothing around it. Window made with MPI_Win_allocate and locked once
 *          (MPI_Win_lock_all), as the transport does.
 *   airrt  the program below, run by the CPU driver with the MPI transport: rank 0
 *          runs K dmas from (src_rank) or to (dst_rank) rank 1's symmetric memref
 *          in an scf.for, after one local copy that touches both buffers (as the
 *          raw row's memsets do). The per-dma time is (min t(K+1) - min t(1)) / K
 *          over the repetitions, so the dispatch, the ranks' start, the window's
 *          collectives and the first transfer's mapping of the peer's fresh
 *          window (the raw row's warm-up) cancel out; what is left is the
 *          executor's per-op cost (loop step, dma op, the rank checks) plus the
 *          transfer.
 * Rows print both times per transfer, the bandwidths, their ratio (airrt / raw
 * bandwidth, target >= 0.9 at >= 1 MiB) and the latency airrt adds (target
 * <= 2 us at 8 B). Each figure is the best of a few repetitions; the machine may
 * be shared, so the load average is printed too. Rank 1 (process 1) only waits
 * at the collectives: the peer of a passive-target transfer does nothing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "air/air.h"
#include "rank_mpi/rank_mpi.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check(air_status_t st, const char* what) {
  if (!st) return 0;
  fprintf(stderr, "rank-transfer: %s: %s\n", what, air_status_message(st));
  air_status_free(st);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

typedef struct bench_t {
  air_context_t* ctx;
  air_device_t* dev;
  air_rank_transport_t* t;
} bench_t;

/* One dispatch of @xfer with k dmas of `bytes` (get: src_rank, else dst_rank);
 * returns its wall time in seconds. Every process makes it. */
static double air_run_once(bench_t* b, air_executable_t* exe, int64_t k) {
  air_binding_t bind[2];
  memset(bind, 0, sizeof bind);
  bind[0].i = 2;
  bind[1].i = k;
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* sem = NULL;
  air_dispatch_options_t o;
  memset(&o, 0, sizeof o);
  o.transport = b->t;
  check(air_command_buffer_create(b->dev, 0, &cb), "command buffer");
  check(air_command_buffer_dispatch(cb, exe, 0, 2, bind, &o), "dispatch");
  check(air_command_buffer_end(cb), "end");
  check(air_semaphore_create(b->ctx, 0, &sem), "semaphore");
  air_semaphore_t* sems[1] = {sem};
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, sems, &one};
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now_s();
  check(air_device_queue_execute(b->dev, 0, NULL, cb, &sig), "execute");
  check(air_semaphore_wait(sem, 1, -1), "run");
  double t = now_s() - t0;
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  return t;
}

/* The program must outlive the executable: *out_p is destroyed after it. */
static air_executable_t* air_program_for(bench_t* b, uint64_t bytes, int get, air_program_t** out_p) {
  char text[2048];
  uint64_t n = bytes / 4;
  snprintf(text, sizeof text,
           "func.func @xfer(%%nr: index, %%k: index) {\n"
           "  air.rank (%%r) in (%%n=%%nr) args(%%kk=%%k) : index {\n"
           "    %%c0 = arith.constant 0 : index\n"
           "    %%c1 = arith.constant 1 : index\n"
           "    %%h = memref.alloc() {air.symmetric} : memref<%lluxf32>\n"
           "    %%l = memref.alloc() : memref<%lluxf32>\n"
           "    %%is0 = arith.cmpi eq, %%r, %%c0 : index\n"
           "    scf.if %%is0 {\n"
           "      air.dma_memcpy_nd (%%l[] [] [], %%h[] [] []) : (memref<%lluxf32>, memref<%lluxf32>)\n"
           "      scf.for %%i = %%c0 to %%kk step %%c1 {\n"
           "        air.dma_memcpy_nd (%s) %s(%%c1) : (memref<%lluxf32>, memref<%lluxf32>)\n"
           "      }\n"
           "    }\n"
           "    memref.dealloc %%l : memref<%lluxf32>\n"
           "    memref.dealloc %%h : memref<%lluxf32>\n"
           "  }\n"
           "  return\n"
           "}\n",
           (unsigned long long)n, (unsigned long long)n, (unsigned long long)n,
           (unsigned long long)n, get ? "%l[] [] [], %h[] [] []" : "%h[] [] [], %l[] [] []", get ? "src_rank" : "dst_rank",
           (unsigned long long)n, (unsigned long long)n, (unsigned long long)n,
           (unsigned long long)n);
  air_program_t* p = NULL;
  check(air_program_parse(b->ctx, text, strlen(text), NULL, &p), "parse");
  air_executable_t* exe = NULL;
  check(air_executable_create(b->dev, p, 0, &exe), "executable");
  *out_p = p;
  return exe;
}

/* Seconds per raw MPI transfer of `bytes`, k of them after a warm-up. */
static double raw_once(uint64_t bytes, int get, int64_t k) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  void* base = NULL;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, me + 1, bytes);
  char* local = malloc(bytes);
  memset(local, 7, bytes);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = 0;
  if (me == 0) {
    for (int w = 0; w < 2; ++w) { /* warm-up, then k timed */
      int64_t n = w ? k : (k < 8 ? k : 8);
      double t0 = now_s();
      for (int64_t i = 0; i < n; ++i) {
        if (get)
          MPI_Get(local, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
        else
          MPI_Put(local, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
        MPI_Win_flush(1, win);
      }
      t = now_s() - t0;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(local);
  return k ? t / (double)k : 0;
}

int main(int argc, char** argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  bench_t b;
  memset(&b, 0, sizeof b);
  if (air_rank_transport_mpi_create(NULL, &b.t)) {
    fprintf(stderr, "rank-transfer: MPI is not available\n");
    return 1;
  }
  int me = (int)b.t->process;
  if (b.t->processes != 2) {
    if (!me) fprintf(stderr, "rank-transfer: run it under mpirun -np 2\n");
    b.t->vtable->destroy(b.t);
    return 2;
  }
  check(air_context_create(NULL, NULL, &b.ctx), "context");
  check(air_device_open(b.ctx, "cpu", &b.dev), "device");
  static const uint64_t all[] = {8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20, 16 << 20,
                                 64 << 20};
  static const uint64_t few[] = {8, 4096, 1 << 20};
  const uint64_t* sizes = quick ? few : all;
  size_t n_sizes = quick ? sizeof few / sizeof few[0] : sizeof all / sizeof all[0];
  int reps = quick ? 1 : 7;
  if (!me) {
    double l[3] = {0, 0, 0};
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
      if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3) l[0] = l[1] = l[2] = 0;
      fclose(f);
    }
    printf("rank-transfer: 2 processes, best of %d; load average %.2f %.2f %.2f\n", reps, l[0],
           l[1], l[2]);
    printf("%-4s %10s %8s %11s %11s %10s %10s %7s %9s\n", "dir", "bytes", "k", "raw us/op",
           "airrt us/op", "raw GB/s", "airrt GB/s", "ratio", "added us");
  }
  for (int get = 1; get >= 0; --get) {
    for (size_t s = 0; s < n_sizes; ++s) {
      uint64_t bytes = sizes[s];
      /* About 1 GiB moved per timing (fewer for small sizes), at least 32 transfers:
       * the airrt figure is a difference of two runs' minima, and each run's fixed
       * part (making and zeroing two buffers of `bytes`, the local copy, the
       * collectives) costs several transfers' time at large sizes, so its noise
       * under load must be spread over many transfers (with 8 at 64 MiB it moved
       * the ratio between 0.56 and 0.92 from run to run). */
      int64_t k = (int64_t)((1024ull << 20) / bytes);
      if (k > 20000) k = 20000;
      if (k < 32) k = 32;
      if (quick && k > 2000) k = 2000;
      double raw = 1e30, air = 1e30;
      air_program_t* prog = NULL;
      air_executable_t* exe = air_program_for(&b, bytes, get, &prog);
      air_run_once(&b, exe, 1); /* warm-up: first windows, pages */
      double t0 = 1e30, tk = 1e30;
      /* Raw and airrt repetitions alternate, so a change of the machine's load
       * during the row reaches both columns. */
      for (int r = 0; r < reps; ++r) {
        double w = raw_once(bytes, get, k);
        if (w < raw) raw = w;
        /* One remote dma in both runs: each run makes fresh windows, and the
         * first transfer into or out of one maps the peer's pages (the raw row
         * pays that in its warm-up transfer, outside the timing). */
        double x = air_run_once(&b, exe, 1), y = air_run_once(&b, exe, k + 1);
        if (x < t0) t0 = x;
        if (y < tk) tk = y;
      }
      air = (tk - t0) / (double)k;
      air_executable_release(exe);
      air_program_destroy(prog);
      if (!me) {
        double rb = (double)bytes / raw * 1e-9, ab = (double)bytes / air * 1e-9;
        printf("%-4s %10llu %8lld %11.3f %11.3f %10.3f %10.3f %7.3f %9.3f\n", get ? "get" : "put",
               (unsigned long long)bytes, (long long)k, raw * 1e6, air * 1e6, rb, ab, ab / rb,
               (air - raw) * 1e6);
        fflush(stdout);
      }
    }
  }
  air_device_release(b.dev);
  air_context_destroy(b.ctx);
  b.t->vtable->destroy(b.t);
  return 0;
}

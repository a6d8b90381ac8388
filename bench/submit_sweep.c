/* submit_sweep.c - the submit-sweep benchmark (PERFORMANCE.md): command buffers of
 * N = 1, 2, 4, ..., 1024 dispatches, submitted to the cpu device with one signal and
 * waited on; the median submit->completion time per N is fitted by least squares
 * (weighted by 1/time^2, i.e. relative error) to fixed_ns + N * per_dispatch_ns.
 *
 * The dispatch is the cheapest real one the HAL offers: an executable whose entry
 * is `func.func @noop() { return }`, so what is measured is the queue, the
 * command buffer walk and the executor's per-run start and finish, not any work.
 * The N dispatches share one wave (no barriers), as independent dispatches would
 * be recorded. Variant "barriers" puts a barrier between every two dispatches, so
 * each waits for the previous one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air/command_buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air_bench_util.h"

static const char k_noop[] =
    "module {\n"
    "  func.func @noop() {\n"
    "    return\n"
    "  }\n"
    "}\n";

static int check(const char* what, air_status_t st) {
  if (!st) return 0;
  fprintf(stderr, "submit-sweep: %s: %s\n", what, air_status_message(st));
  air_status_free(st);
  return 1;
}

/* Median ns of `reps` submit->wait round trips of a buffer with n dispatches. */
static int measure(air_context_t* ctx, air_device_t* dev, air_executable_t* exe, int n,
                   int barriers, int reps, double* out_ns) {
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* sem = NULL;
  double* t = malloc(sizeof(double) * (size_t)reps);
  int rc = 1;
  if (!t || check("command buffer", air_command_buffer_create(dev, 0, &cb))) goto done;
  for (int i = 0; i < n; ++i) {
    if (barriers && i && check("barrier", air_command_buffer_barrier(cb))) goto done;
    if (check("dispatch", air_command_buffer_dispatch(cb, exe, 0, 0, NULL, NULL))) goto done;
  }
  if (check("end", air_command_buffer_end(cb)) ||
      check("semaphore", air_semaphore_create(ctx, 0, &sem)))
    goto done;
  for (int r = 0; r <= reps; ++r) { /* rep 0 warms up */
    air_semaphore_t* sems[1] = {sem};
    uint64_t v = (uint64_t)r + 1;
    air_timepoint_list_t sig = {1, sems, &v};
    int64_t t0 = ab_now_ns();
    if (check("submit", air_device_queue_execute(dev, 0, NULL, cb, &sig)) ||
        check("run", air_semaphore_wait(sem, v, 60ll * 1000 * 1000 * 1000)))
      goto done;
    if (r) t[r - 1] = (double)(ab_now_ns() - t0);
  }
  *out_ns = ab_quantile(t, (size_t)reps, 0.5);
  rc = 0;
done:
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  free(t);
  return rc;
}

/* Least squares y = a + b x, each point weighted by 1/y^2 (relative error): N runs
 * over three decades, and unweighted the 1024-dispatch points alone would set both
 * terms, leaving the fixed cost to their noise. */
static void fit(const double* x, const double* y, int n, double* a, double* b) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; ++i) {
    double w = 1 / (y[i] * y[i]);
    sw += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  double den = sw * sxx - sx * sx;
  *b = den != 0 ? (sw * sxy - sx * sy) / den : 0;
  *a = (sy - *b * sx) / sw;
}

int air_bench_submit_sweep(int argc, char** argv) {
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o,
                    "  case fit: N = 1, 2, 4, ..., 1024 @noop dispatches per submission on the\n"
                    "  cpu device (--threads N workers, default 2); fixed_ns + N * per_dispatch_ns.\n");
  if (rc >= 0) return rc;
  if (!ab_want(&o, "fit")) return 0;
  int threads = o.threads ? o.threads : 2;
  int max_n = o.quick ? 16 : 1024;
  char uri[32];
  snprintf(uri, sizeof uri, "cpu:threads=%d", threads);
  air_context_t* ctx = NULL;
  air_device_t* dev = NULL;
  air_program_t* prog = NULL;
  air_executable_t* exe = NULL;
  rc = 1;
  if (check("context", air_context_create(NULL, NULL, &ctx)) ||
      check("device", air_device_open(ctx, uri, &dev)))
    goto done;
  air_parse_options_t popts = {0};
  popts.filename = "noop.mlir";
  if (check("parse", air_program_parse(ctx, k_noop, sizeof k_noop - 1, &popts, &prog)) ||
      check("executable", air_executable_create(dev, prog, 0, &exe)))
    goto done;
  if (!o.json)
    printf("submit-sweep fit on %s: median submit->completion of N @noop dispatches\n"
           "%-9s %6s %12s %12s %14s\n",
           uri, "variant", "N", "median_us", "fit_us", "us/dispatch");
  static const char* k_var[2] = {"one_wave", "barriers"};
  for (int b = 0; b < 2; ++b) {
    double xs[16], ys[16];
    int np = 0;
    for (int n = 1; n <= max_n; n *= 2) {
      int reps = o.reps ? o.reps : o.quick ? 3 : n <= 64 ? 51 : n <= 256 ? 21 : 11;
      double ns;
      if (measure(ctx, dev, exe, n, b, reps, &ns)) goto done;
      xs[np] = n, ys[np] = ns;
      ++np;
    }
    double fixed, per;
    fit(xs, ys, np, &fixed, &per);
    for (int i = 0; i < np; ++i) {
      ab_emit(&o, "fit", "airrt", threads, "median_ns", ys[i], NAN, k_var[b]);
      if (!o.json)
        printf("%-9s %6.0f %12.2f %12.2f %14.3f\n", k_var[b], xs[i], ys[i] / 1e3,
               (fixed + per * xs[i]) / 1e3, ys[i] / xs[i] / 1e3);
    }
    const char* variant = b ? k_var[b] : NULL;
    ab_emit(&o, "fit", "airrt", threads, "fixed_ns", fixed, NAN, variant);
    ab_emit(&o, "fit", "airrt", threads, "per_dispatch_ns", per, NAN, variant);
    if (!o.json)
      printf("%-9s fit: fixed %.0f ns (target <= 2000: %s), per dispatch %.0f ns (target <= 50: "
             "%s)\n",
             k_var[b], fixed, fixed <= 2000 ? "holds" : "MISSED", per,
             per <= 50 ? "holds" : "MISSED");
  }
  rc = 0;
done:
  air_executable_release(exe);
  air_program_destroy(prog);
  air_device_release(dev);
  air_context_destroy(ctx);
  return rc;
}

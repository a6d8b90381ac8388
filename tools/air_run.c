/* air-run - runs one entry function of an AIR program on a device (TOOLS.md).
 *
 * Flow: context -> parse -> device -> executable (verifies for the device's
 * target and compiles each entry's schedule; an .airbin artifact brings program
 * and schedule instead) -> the entry's signature -> one buffer per memref argument
 * (from .npy, random or zeros) -> a command buffer with one dispatch (from the
 * schedule, or the dynamic path with --no-schedule) -> queue execute with a
 * signal semaphore -> wait -> outputs, trace, summary.
 *
 * Exit status: 0 success, 1 user error (bad program, bad file, mismatched
 * argument, failed or timed-out run), 2 bad command line. A run that outlives
 * --timeout is abandoned with _exit: the device would drain in-flight work on
 * release, and the contract is never to hang.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "air/air.h"
#include "air_run.h"
#include "tool_util.h"
#ifdef AIR_RUN_MPI
#include "rank_mpi/rank_mpi.h"
#endif

/* ---- helpers ------------------------------------------------------------ */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char* format_duration(double s, char* buf, size_t len) {
  if (s < 1e-3)
    snprintf(buf, len, "%.1f us", s * 1e6);
  else if (s < 1.0)
    snprintf(buf, len, "%.3f ms", s * 1e3);
  else
    snprintf(buf, len, "%.3f s", s);
  return buf;
}

static int has_suffix(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* --verbose: what the dispatch will run from. */
static void print_schedule(const air_executable_t* e, uint32_t ordinal, const char* entry,
                           int no_schedule) {
  air_schedule_info_t in;
  air_status_t s = air_executable_schedule_info(e, ordinal, &in);
  if (s || no_schedule) {
    fprintf(stderr, "air-run: @%s runs the dynamic path (%s)\n", entry,
            no_schedule ? "--no-schedule" : air_status_message(s));
    air_status_free(s);
    return;
  }
  char d[32];
  fprintf(stderr,
          "air-run: schedule of @%s for %s: %u commands in %u waves (%u levels) on %u queues, "
          "%u waits kept (%u elided), transient arena %llu bytes (aligned to %u)",
          entry, in.target, in.commands, in.waves, in.levels, in.queues, in.waits,
          in.waits_elided, (unsigned long long)in.transient_bytes, in.transient_alignment);
  if (in.compile_ns)
    fprintf(stderr, ", compiled in %s", format_duration((double)in.compile_ns * 1e-9, d, sizeof d));
  fputc('\n', stderr);
  for (uint32_t q = 0; q < in.queues && q < AIR_SCHEDULE_MAX_QUEUES; ++q)
    fprintf(stderr, "air-run:   queue %u (%s): %u wave%s\n", q, in.queue_kind[q],
            in.queue_waves[q], in.queue_waves[q] == 1 ? "" : "s");
}

/* --verbose: what runs as compiled code. */
static void print_code(const air_executable_t* e, int no_compile) {
  air_code_info_t ci;
  air_status_t s = air_executable_code_info(e, &ci);
  if (s) {
    air_status_free(s);
    return;
  }
  char d[3][32];
  if (no_compile)
    fprintf(stderr, "air-run: compiled code: not used (--no-compile): every body interpreted\n");
  else if (!ci.units)
    fprintf(stderr, "air-run: compiled code: none (%s): every body interpreted\n", ci.why_none);
  else
    fprintf(stderr,
            "air-run: compiled code (%s%s%s): %u loops/branches/generics compiled, %u left to the "
            "interpreter; emit %s, optimise %s, machine code %s\n",
            ci.source, ci.generator ? ", " : "", ci.generator ? ci.generator : "", ci.units,
            ci.skipped, format_duration((double)ci.emit_ns * 1e-9, d[0], sizeof d[0]),
            format_duration((double)ci.optimize_ns * 1e-9, d[1], sizeof d[1]),
            format_duration((double)ci.codegen_ns * 1e-9, d[2], sizeof d[2]));
}

/* Everything a run holds, released in one place. */

static void release_all(run_state_t* r) {
  for (uint32_t i = 0; i < r->n_params; ++i) {
    if (r->buffers) air_buffer_release(r->buffers[i]);
    if (r->host) npy_free(&r->host[i]);
  }
  free(r->buffers);
  free(r->bindings);
  free(r->host);
  free(r->params);
  air_command_buffer_release(r->command_buffer);
  air_semaphore_release(r->semaphore);
  air_executable_release(r->executable);
  air_device_release(r->device);
  air_trace_destroy(r->trace);
  air_rank_copies_destroy(r->rank_copies);
  air_program_destroy(r->program);
  air_context_destroy(r->context);
  if (r->transport) r->transport->vtable->destroy(r->transport); /* MPI_Finalize */
  for (uint32_t i = 0; i < MAX_ARGS; ++i)
    if (r->libraries[i]) dlclose(r->libraries[i]);
  free(r->text);
  free(r->entry_name);
}

/* Under mpirun: a failed process ends its peers too (MPI_Abort), which may be
 * waiting for it at a collective; its own message is already printed. */
static void end_peers(const run_state_t* r, int rc) {
#ifdef AIR_RUN_MPI
  if (rc && r->transport && r->transport->processes > 1) {
    fprintf(stderr, "air-run: process %u of %u failed; ending the others\n",
            r->transport->process, r->transport->processes);
    fflush(stdout);
    fflush(stderr);
    /* The run told its peers (a deadlock every process found, or ABORT with
     * this error): give them a moment to print their own lines before MPI_Abort
     * ends them all. */
    struct timespec grace = {1, 0};
    nanosleep(&grace, NULL);
    air_rank_mpi_abort(rc);
  }
#else
  (void)r;
  (void)rc;
#endif
}

#ifdef AIR_RUN_MPI
static void ignore_message(void* user, uint32_t from, const void* msg, size_t length) {
  (void)user;
  (void)from;
  (void)msg;
  (void)length;
}
#endif

/* Loads each --kernels library and lets it register its kernels on the context
 * (the AIR_KERNEL_LIBRARY_SYMBOL convention of air/kernel.h). Returns nonzero, after
 * printing why, when one cannot be loaded or its registration fails. */
static int load_kernel_libraries(const run_options_t* o, air_context_t* context,
                                 void** handles) {
  for (uint32_t i = 0; i < o->n_kernels; ++i) {
    const char* path = o->kernels[i];
    /* dlopen searches the library path for a bare name; a path with a '/' is a file. */
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      return tool_error(1, path, "cannot load kernel library: %s", why ? why : "unknown error");
    }
    handles[i] = h;
    /* The object-to-function-pointer conversion is how dlsym is used; POSIX
     * guarantees it, ISO C does not, hence the detour through a union. */
    union {
      void* object;
      air_kernel_library_fn_t fn;
    } entry;
    entry.object = dlsym(h, AIR_KERNEL_LIBRARY_SYMBOL);
    if (!entry.object) {
      return tool_error(1, path, "not a kernel library: it exports no '%s' function",
                        AIR_KERNEL_LIBRARY_SYMBOL);
    }
    air_status_t s = entry.fn(context, air_context_register_kernel);
    if (s) {
      tool_error(0, path, "registering its kernels failed: %s", air_status_message(s));
      air_status_free(s);
      return 1;
    }
  }
  return 0;
}


static int run(const run_options_t* o) {
  run_state_t r;
  memset(&r, 0, sizeof r);
  const char* display = tool_display_name(o->file);
  double t_start = now_s();
  air_status_t s;
  size_t len = 0;

  /* Where results go is checked before anything runs: a run of minutes must not
   * end in "cannot create file". */
  int bad_paths = 0;
  for (uint32_t k = 0; k < o->n_outputs; ++k)
    if (!o->outputs[k].is_result) bad_paths |= tool_check_output_path(o->outputs[k].value);
  if (o->trace) bad_paths |= tool_check_output_path(o->trace);
  if (bad_paths) return TOOL_EXIT_FAILURE;

  /* Artifacts are recognised by name or by the ELF magic; the loader reads the
   * file again itself, so its errors name it. */
  if (tool_read_input(o->file, &r.text, &len)) return TOOL_EXIT_FAILURE;
  int artifact = has_suffix(o->file, ".airbin") || tool_is_artifact(r.text, len);

  int rc = TOOL_EXIT_FAILURE;
  s = air_context_create(NULL, NULL, &r.context);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  /* The device first: a misspelt URI is bad usage (exit 2) and says so before
   * any time goes into the program. Other device errors (a driver not built, no
   * such hardware) are about the machine, not a place in the program. */
  s = air_device_open(r.context, o->device, &r.device);
  if (s) {
    int usage = air_status_code(s) == AIR_STATUS_INVALID_ARGUMENT;
    rc = tool_fail_status("air-run", s);
    if (usage) {
      run_print_usage(stderr);
      rc = TOOL_EXIT_USAGE;
    }
    goto done;
  }
  air_device_info_t info;
  memset(&info, 0, sizeof info);
  s = air_device_query(r.device, &info);
  if (s) {
    rc = tool_fail_status("air-run", s);
    goto done;
  }
  if (load_kernel_libraries(o, r.context, r.libraries)) goto done;
  if (!artifact) {
    air_parse_options_t popts = {0};
    popts.filename = display;
    s = air_program_parse(r.context, r.text, len, &popts, &r.program);
    if (s) {
      rc = tool_fail_status(display, s);
      goto done;
    }
    tool_print_warnings(r.program);
  }
  double t_parsed = now_s();

  /* A program that verifies always gets an executable (an entry the scheduler
   * refuses runs the dynamic path), so a failure here is the verifier's list. */
  /* An artifact's schedule is fixed; --no-schedule then only picks the dynamic path. */
  /* --no-compile: no host code either (neither the JIT's nor the artifact's). */
  air_executable_options_t xo = {
      (o->no_schedule && !artifact ? AIR_EXECUTABLE_NO_SCHEDULE : 0) |
          (o->no_compile ? AIR_EXECUTABLE_NO_COMPILE : 0),
      o->xclbin, o->xrt_kernel, o->insts};
  void* gpu_image = NULL;
  size_t gpu_size = 0;
  int64_t gpu_ns = 0;
  s = NULL;
  if (!artifact && info.driver && !strcmp(info.driver, "hsa") && info.target && !o->no_schedule)
    s = air_run_gpu_artifact(r.context, r.program, o->entry, info.target, &gpu_image, &gpu_size,
                             &gpu_ns);
  if (s)
    ;
  else if (gpu_image)
    s = air_executable_create_from_artifact(r.device, gpu_image, gpu_size, &r.executable);
  else if (artifact)
    s = air_executable_create_from_file_with_options(r.device, o->file, &xo, &r.executable);
  else
    s = air_executable_create_with_options(r.device, r.program, &xo, &r.executable);
  bool generated = gpu_image != NULL;
  if (gpu_image) air_context_allocator(r.context)->free(air_context_allocator(r.context)->self, gpu_image);
  if (!s && generated && o->verbose)
    fprintf(stderr, "air-run: %s kernels generated in %.1f ms\n", info.target, gpu_ns / 1e6);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  uint32_t ordinal = 0;
  s = air_executable_lookup(r.executable, o->entry, &ordinal);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  const char* found = air_executable_entry_name(r.executable, ordinal);
  r.entry_name = found ? strdup(found) : NULL;
  const char* entry = r.entry_name ? r.entry_name : "entry";
  uint32_t n = 0;
  s = air_executable_signature(r.executable, ordinal, 0, NULL, &n);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  r.params = calloc(n ? n : 1, sizeof *r.params);
  r.buffers = calloc(n ? n : 1, sizeof *r.buffers);
  r.bindings = calloc(n ? n : 1, sizeof *r.bindings);
  r.host = calloc(n ? n : 1, sizeof *r.host);
  if (!r.params || !r.buffers || !r.bindings || !r.host) {
    tool_error(0, "air-run", "out of memory");
    goto done;
  }
  r.n_params = n;
  s = air_executable_signature(r.executable, ordinal, n, r.params, &n);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }

  /* Every option that names an argument is checked against the signature before
   * any file is read; each problem is reported, not only the first. */
  if ((rc = run_check_arguments(&r, o, display)) != 0) goto done;
  rc = TOOL_EXIT_FAILURE;
  for (uint32_t i = 0; i < r.n_params; ++i) {
    const air_arg_t* p = &r.params[i];
    int prc = run_prepare_argument(&r, o, i);
    if (prc) {
      rc = prc;
      goto done;
    }
    if (p->kind != AIR_ARG_MEMREF) continue;
    npy_array_t* host = &r.host[i];
    /* Allocate and copy in rather than import: every driver supports it, and the
     * host copy stays ours to reuse for the output. */
    s = air_buffer_allocate(r.device, host->nbytes, 0, &r.buffers[i]);
    if (s) {
      rc = tool_fail_status(display, s);
      goto done;
    }
    if (host->nbytes) {
      void* ptr = NULL;
      s = air_buffer_map(r.buffers[i], 0, host->nbytes, AIR_MAP_WRITE, &ptr);
      if (s) {
        rc = tool_fail_status(display, s);
        goto done;
      }
      memcpy(ptr, host->data, (size_t)host->nbytes);
      air_buffer_unmap(r.buffers[i], ptr);
    }
    r.bindings[i].buffer = r.buffers[i];
  }

  if (o->trace) {
    s = air_trace_create(r.context, &r.trace);
    if (s) {
      rc = tool_fail_status(o->trace, s);
      goto done;
    }
  }
  int64_t timeout_ns = o->timeout_s > 0 ? (int64_t)(o->timeout_s * 1e9) : -1;
  air_dispatch_options_t dopts;
  memset(&dopts, 0, sizeof dopts);
  if (o->no_schedule) dopts.flags = AIR_DISPATCH_DYNAMIC;
  if (o->no_compile) dopts.flags |= AIR_DISPATCH_INTERPRET;
  if (o->verbose) {
    print_schedule(r.executable, ordinal, entry, o->no_schedule);
    print_code(r.executable, o->no_compile);
  }
  dopts.watchdog_ns = timeout_ns > 0 ? timeout_ns : 0;
  dopts.trace = r.trace;
  s = air_rank_copies_create(r.context, &r.rank_copies);
  dopts.rank_copies = r.rank_copies;
#ifdef AIR_RUN_MPI
  /* Started by mpirun: every process runs the program, each its block of ranks.
   * The listener's polling keeps MPI's one-sided traffic moving where the
   * network needs the target's help. */
  if (!s && air_rank_mpi_launched()) {
    s = air_rank_transport_mpi_create(NULL, &r.transport);
    if (!s && r.transport->processes > 1)
      s = r.transport->vtable->listen(r.transport, ignore_message, NULL);
    dopts.transport = r.transport;
  }
#endif
  if (!s) s = air_command_buffer_create(r.device, 0, &r.command_buffer);
  if (!s)
    s = air_command_buffer_dispatch(r.command_buffer, r.executable, ordinal, r.n_params,
                                    r.bindings, &dopts);
  if (!s) s = air_command_buffer_end(r.command_buffer);
  if (!s) s = air_semaphore_create(r.context, 0, &r.semaphore);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  air_semaphore_t* sems[1] = {r.semaphore};
  uint64_t one = 1;
  air_timepoint_list_t signal = {1, sems, &one};
  double t_submit = now_s();
  s = air_device_queue_execute(r.device, 0, NULL, r.command_buffer, &signal);
  if (s) {
    rc = tool_fail_status(display, s);
    goto done;
  }
  /* The watchdog gets the first chance to fail the run with what it saw running;
   * the host wait allows it a grace period to report before giving up. An op
   * the executor cannot abandon (a linalg op) reports only when it ends, hence
   * a grace as long as the timeout, at least 3 s and at most 10 s. */
  int64_t grace = timeout_ns;
  if (grace < 3000000000) grace = 3000000000;
  if (grace > 10000000000) grace = 10000000000;
  s = air_semaphore_wait(r.semaphore, 1, timeout_ns < 0 ? -1 : timeout_ns + grace);
  double t_done = now_s();
  if (s) {
    air_status_t failure = NULL;
    uint64_t v = air_semaphore_query(r.semaphore, &failure);
    if (v == UINT64_MAX || air_status_code(s) != AIR_STATUS_DEADLINE_EXCEEDED || failure) {
      /* The run itself failed (deadlock, watchdog, kernel error): its message
       * names the ops and channels. The trace shows what ran until then. */
      air_status_free(failure);
      if (r.trace) {
        air_status_t ts = air_trace_write_json(r.trace, o->trace);
        if (ts) tool_fail_status(o->trace, ts);
      }
      int watchdog = air_status_code(s) == AIR_STATUS_DEADLINE_EXCEEDED;
      rc = tool_fail_status(display, s);
      if (watchdog) {
        /* The watchdog gave up on an op that may still be running on a worker;
         * releasing the device would wait for it. */
        fflush(stdout);
        fflush(stderr);
        end_peers(&r, rc);
        _exit(rc);
      }
      goto done;
    }
    char d[32];
    tool_error(0, display,
               "@%s did not finish within --timeout %g s (waited %s), and the executor "
               "reported neither a deadlock nor an op over the time limit: it is still "
               "computing",
               entry, o->timeout_s, format_duration(t_done - t_submit, d, sizeof d));
    air_status_free(s);
    if (r.trace) {
      air_status_t ts = air_trace_write_json(r.trace, o->trace);
      if (ts) tool_fail_status(o->trace, ts);
    }
    fflush(stdout);
    fflush(stderr);
    end_peers(&r, TOOL_EXIT_FAILURE);
    _exit(TOOL_EXIT_FAILURE); /* releasing the device would wait for the stuck work */
  }

  rc = TOOL_EXIT_OK;
  for (uint32_t k = 0; k < o->n_outputs && rc == TOOL_EXIT_OK; ++k)
    rc = run_write_output(&r, o, &o->outputs[k]);
  if (rc == TOOL_EXIT_OK && r.trace) {
    s = air_trace_write_json(r.trace, o->trace);
    if (s) rc = tool_fail_status(o->trace, s);
  }
  if (rc == TOOL_EXIT_OK && !o->quiet) {
    char d[32], t[32];
    /* The driver's name for the device says more than the URI ("cpu (2 threads)"). */
    fprintf(stderr, "air-run: @%s on %s: %s run, %s total\n", entry,
            info.name && *info.name ? info.name : o->device,
            format_duration(t_done - t_submit, d, sizeof d),
            format_duration(now_s() - t_start, t, sizeof t));
  }
  if (o->verbose) {
    char a[32], b[32];
    fprintf(stderr, "air-run: %s %s, prepare %s%s", artifact ? "read" : "parse",
            format_duration(t_parsed - t_start, a, sizeof a),
            format_duration(t_submit - t_parsed, b, sizeof b), r.trace ? "" : "\n");
    if (r.trace) fprintf(stderr, ", %zu trace events\n", air_trace_event_count(r.trace));
  }
done:
  end_peers(&r, rc);
  release_all(&r);
  return rc;
}

int main(int argc, char** argv) {
  run_options_t* o = malloc(sizeof *o);
  if (!o) {
    return tool_error(TOOL_EXIT_FAILURE, "air-run", "out of memory");
  }
  int rc = run_parse_command_line(argc, argv, o);
  if (rc < 0) rc = run(o);
  free(o);
  return rc;
}

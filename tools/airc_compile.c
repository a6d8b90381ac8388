/* airc_compile.c - `airc compile FILE.mlir --target T -o OUT.airbin [--entry FUNC]
 * [--no-code]`: parse, verify for the target, compile the entry's schedule
 * (schedule.h) and write program and schedule as an .airbin (artifact.h,
 * docs/artifact.md). For the cpu target the program's compiled units go in too,
 * as x86-64 code from the code generator when it is installed (hal/codegen_load.h),
 * so the program runs compiled without a JIT. Exit 0 when written, 1 for a bad
 * program or a failed write, 2 for a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/context.h"
#include "air/program.h"
#include "hal/codegen_load.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"
#include "runtime/target/target.h"
#include "runtime/base/status_util.h"
#include "tool_util.h"
#include "hal/compiled.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc compile FILE.mlir --target T -o OUT.airbin [--entry FUNC] [--no-code]\n"
          "  Verifies the program for target T (`airc targets` lists them), compiles the\n"
          "  schedule of FUNC (default: the first function with a body) and writes the\n"
          "  program and its schedule to OUT.airbin, an ELF file `readelf -S` lists.\n"
          "  For an AMD GPU target (gfx908, gfx90a, gfx940, gfx942, gfx1030, gfx1100) each\n"
          "  launch also becomes a GPU kernel, linked with lld into a code object that the\n"
          "  artifact carries (docs/gpu.md); -v prints the toolchain and the kernels.\n"
          "  For cpu it also stores the program's loops compiled to x86-64 (x86-64-v3)\n"
          "  when the code generator is installed; --no-code leaves them out.\n");
}

static int usage_error(const char* what, const char* arg) {
  tool_error(0, "airc compile", "%s%s%s", what, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

/* GPU targets: every launch becomes a kernel in a code object, built by the
 * code generator's gpu_compile hook (codegen/cg_gpu.h); without the generator a
 * GPU target is an error (an artifact without its kernels could not run). */
static air_status_t gpu_kernels(air_context_t* ctx, air_program_t* prog, air_schedule_t* sched,
                                const air_target_t* t, bool verbose) {
  const air_allocator_t* a = air_context_allocator(ctx);
  const air_cg_hooks_t* h = NULL;
  air_status_t s = air_cg_load(a, &h);
  if (s) {
    air_status_t e = AIR_STATUS(a, AIR_STATUS_UNAVAILABLE,
                                "target %s needs GPU kernels from the code generator: %s "
                                "(docs/building.md)", t->name, air_status_message(s));
    air_status_free(s);
    return e;
  }
  air_cg_gpu_stats_t st;
  AIR_RETURN_IF_ERROR(h->gpu_compile(a, prog, sched, t, &st));
  if (verbose) {
    fprintf(stderr, "airc compile: %s kernels with %s: %u kernel(s), emit %.1f ms, optimise "
                    "%.1f ms, code generation %.1f ms, link %.1f ms\n",
            t->gfx, st.toolchain, st.n_kernels, st.emit_ns / 1e6, st.opt_ns / 1e6,
            st.codegen_ns / 1e6, st.link_ns / 1e6);
    for (uint32_t i = 0; sched->gpu && i < sched->gpu->n_kernels; ++i) {
      const air_gpu_kernel_t* k = &sched->gpu->kernels[i];
      fprintf(stderr, "  %s: command %u, %s mapping, %u workgroup(s) of %u work-items per launch "
                      "instance (wave %u), LDS %u bytes, spill %llu bytes/workgroup, %u kernel arguments, "
                      "code object %llu bytes\n",
              k->name, k->cmd, k->mapping == AIR_GPU_MAP_WAVES ? "wave" : "thread",
              k->seg_workgroups, k->workgroup_size, k->wave_size, k->lds_bytes, (unsigned long long)k->spill_bytes,
              k->n_args, (unsigned long long)sched->gpu->objects[k->object].size);
    }
  }
  return NULL;
}

/* The program's units as one x86-64 object, when the generator is there; none
 * (and a note saying why) when it is not. */
static air_status_t emit_code(air_context_t* ctx, const air_program_t* prog,
                              air_artifact_code_t* code) {
  const air_allocator_t* a = air_context_allocator(ctx);
  const air_cg_hooks_t* h = NULL;
  air_status_t st = air_cg_load(a, &h);
  if (st) {
    fprintf(stderr, "airc compile: note: no host code in the artifact: %s\n",
            air_status_message(st));
    air_status_free(st);
    return NULL;
  }
  AIR_RETURN_IF_ERROR(h->emit_object(a, prog, &code->object, &code->size, &code->n_units));
  snprintf(code->isa, sizeof code->isa, "x86-64-v3");
  return NULL;
}

int airc_cmd_compile(int argc, char** argv) {
  const char *in_path = NULL, *out_path = NULL, *target = NULL, *entry = NULL;
  bool verbose = false;
  int no_code = 0;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    const char** slot = NULL;
    int m;
    if ((m = tool_option_value(argc, argv, &i, "--target", &v)) != 0) slot = &target;
    else if ((m = tool_option_value(argc, argv, &i, "--entry", &v)) != 0) slot = &entry;
    else if ((m = tool_option_value(argc, argv, &i, "-o", &v)) != 0) slot = &out_path;
    if (m < 0) return usage_error("option needs a value", argv[i]);
    if (slot) {
      *slot = v;
    } else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
      verbose = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return TOOL_EXIT_OK;
    } else if (!strcmp(argv[i], "--no-code")) {
      no_code = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("unknown option", argv[i]);
    } else if (in_path) {
      return usage_error("more than one input file", argv[i]);
    } else {
      in_path = argv[i];
    }
  }
  if (!in_path) return usage_error("no input file", NULL);
  if (!target) return usage_error("--target is required", NULL);
  if (!out_path || !*out_path) return usage_error("-o OUT.airbin is required", NULL);
  if (entry && !*entry) return usage_error("empty --entry", NULL);
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, target, &t);
  if (s) {
    tool_report_status("airc compile", s);
    air_status_free(s);
    usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  /* Where the artifact goes is checked before the work of compiling. */
  if (tool_check_output_path(out_path)) return TOOL_EXIT_FAILURE;

  const char* display = tool_display_name(in_path);
  char* text = NULL;
  size_t len = 0;
  if (tool_read_input(in_path, &text, &len)) return TOOL_EXIT_FAILURE;
  if (tool_refuse_binary(display, text, len)) {
    free(text);
    return TOOL_EXIT_FAILURE;
  }
  air_context_t* ctx = NULL;
  air_program_t* prog = NULL;
  air_schedule_t* sched = NULL;
  s = air_context_create(NULL, NULL, &ctx);
  if (!s) s = tool_parse_verified(ctx, text, len, display, target, &prog);
  if (prog) tool_print_warnings(prog);
  if (!s) s = air_schedule_compile(air_context_allocator(ctx), prog, entry, t, &sched);
  if (!s && t->kind == AIR_TARGET_GPU && t->gfx) s = gpu_kernels(ctx, prog, sched, t, verbose);
  air_artifact_code_t code;
  memset(&code, 0, sizeof code);
  if (!s && !no_code && !strcmp(target, "cpu")) s = emit_code(ctx, prog, &code);
  int rc = TOOL_EXIT_OK;
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
    rc = TOOL_EXIT_FAILURE;
  } else if ((s = air_artifact_write_file_ex(air_context_allocator(ctx), prog, sched, &code,
                                             out_path))) {
    rc = tool_fail_status(out_path, s);
  }
  if (code.object) air_context_allocator(ctx)->free(air_context_allocator(ctx)->self, code.object);
  air_schedule_free(sched);
  air_program_destroy(prog);
  air_context_destroy(ctx);
  free(text);
  return rc;
}

/* airc_report.c - `airc report FILE.mlir --target T --emit KIND [-o OUT]`:
 * verifies the program and prints, for target T (src/scheduler/report/report.h):
 *  - resources: the resource analysis and placement as a table; a program that
 *    does not fit prints the table and every violation, and exits 1;
 *  - memplan (with --svg OUT.svg also the picture), memplan-svg, schedule, dot:
 *    the compiled schedule of the entry (--entry FUNC, default the first function
 *    with a body); a compile error exits 1.
 * Exit 2 on a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/place.h"
#include "scheduler/report/report.h"
#include "scheduler/resources.h"
#include "scheduler/compile.h"
#include "scheduler/schedule.h"
#include "runtime/target/target.h"
#include "tool_util.h"

static void usage(FILE* f);

static int usage_error(const char* what, const char* arg) {
  tool_error(0, "airc report", "%s%s%s", what, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc report FILE.mlir --target T --emit KIND [-o OUT] [--svg OUT.svg]\n"
          "                   [--entry FUNC]\n"
          "  KIND: resources  the resource analysis and placement (tiles, L1/L2 bytes,\n"
          "                   DMA channels per segment and herd)\n"
          "        memplan    the memory plan: per arena its buffers, offsets, lifetimes\n"
          "                   (--svg OUT.svg also draws it)\n"
          "        memplan-svg  the memory plan as an SVG picture\n"
          "        schedule   the queues, waves, commands and kept waits\n"
          "        dot        the host token graph as Graphviz\n"
          "        npu-insts  (npu targets) the NPU instruction stream of the entry's L3\n"
          "                   transfers, decoded\n"
          "  Targets: see `airc targets`. Exit 1 when the program does not fit.\n");
}

/* Analysis, check and placement; the table goes to `out` even when a check fails
 * so the numbers behind the error are visible. */
static int run(air_program_t* prog, const air_target_t* t, const char* display,
               air_sb_t* out) {
  air_resources_t res;
  air_status_t s = air_resources_analyze(prog, t, &res);
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
    return TOOL_EXIT_FAILURE;
  }
  air_status_t check = air_resources_check(prog, &res);
  air_placement_t pl = {0};
  air_status_t placed = check ? AIR_STATUS_OK_VALUE : air_place(prog, &res, &pl);
  air_report_resources(out, prog, &res, check || placed ? NULL : &pl);
  int rc = TOOL_EXIT_OK;
  if (check || placed) {
    tool_report_status(display, check ? check : placed);
    rc = TOOL_EXIT_FAILURE;
  }
  air_status_free(check);
  air_status_free(placed);
  air_placement_free(&pl);
  air_resources_free(&res);
  return rc;
}

static bool is_schedule_emit(const char* emit) {
  return !strcmp(emit, "memplan") || !strcmp(emit, "memplan-svg") || !strcmp(emit, "schedule") ||
         !strcmp(emit, "dot") || !strcmp(emit, "npu-insts");
}

/* Compiles the entry (unless `loaded` from an .airbin, which it takes over) and
 * prints the report; the SVG also goes to svg_path. */
static int run_schedule(air_program_t* prog, const air_target_t* t, const char* display,
                        const char* entry, const char* emit, const char* svg_path,
                        air_schedule_t* loaded, air_sb_t* out) {
  air_schedule_t* sc = loaded;
  air_status_t s = sc ? AIR_STATUS_OK_VALUE : air_schedule_compile(&out->allocator, prog, entry, t, &sc);
  if (!s) s = air_report_emit(out, prog, sc, emit);
  int rc = TOOL_EXIT_OK;
  if (!s && svg_path) {
    air_sb_t svg;
    air_sb_init(&svg, &out->allocator);
    s = air_report_memplan_svg(&svg, prog, sc);
    if (!s && (svg.oom || tool_write_output(svg_path, svg.data, svg.len))) rc = TOOL_EXIT_FAILURE;
    air_sb_free(&svg);
  }
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
    rc = TOOL_EXIT_FAILURE;
  }
  air_schedule_free(sc);
  return rc;
}

/* An .airbin input: its program and compiled schedule, which must be for `target`
 * (and `entry`, when given). */
static air_status_t load_airbin(air_context_t* ctx, const char* data, size_t len,
                                const char* display, const char* target, const char* entry,
                                air_program_t** prog, air_schedule_t** sc) {
  AIR_RETURN_IF_ERROR(air_artifact_read(ctx, data, len, display, prog, sc));
  air_status_t s = AIR_STATUS_OK_VALUE;
  if (strcmp((*sc)->target, target))
    s = AIR_STATUS(NULL, AIR_STATUS_FAILED_PRECONDITION,
                   "compiled for target %s, not %s (airc compile makes another)",
                   (*sc)->target, target);
  else if (entry && strcmp((*sc)->entry, entry))
    s = AIR_STATUS(NULL, AIR_STATUS_FAILED_PRECONDITION,
                   "compiled for entry @%s, not @%s (airc compile makes another)",
                   (*sc)->entry, entry);
  if (!s) return s;
  air_schedule_free(*sc);
  air_program_destroy(*prog);
  *sc = NULL;
  *prog = NULL;
  return s;
}

int airc_cmd_report(int argc, char** argv) {
  const char *in_path = NULL, *out_path = NULL, *target = NULL, *emit = NULL;
  const char *svg_path = NULL, *entry = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    const char** slot = NULL;
    int m;
    if ((m = tool_option_value(argc, argv, &i, "--target", &v)) != 0) slot = &target;
    else if ((m = tool_option_value(argc, argv, &i, "--emit", &v)) != 0) slot = &emit;
    else if ((m = tool_option_value(argc, argv, &i, "-o", &v)) != 0) slot = &out_path;
    else if ((m = tool_option_value(argc, argv, &i, "--svg", &v)) != 0) slot = &svg_path;
    else if ((m = tool_option_value(argc, argv, &i, "--entry", &v)) != 0) slot = &entry;
    if (m < 0) return usage_error("option needs a value", argv[i]);
    if (slot) {
      *slot = v;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return TOOL_EXIT_OK;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("unknown option", argv[i]);
    } else if (in_path) {
      return usage_error("more than one input file", argv[i]);
    } else {
      in_path = argv[i];
    }
  }
  if (!in_path || !target || !emit)
    return usage_error(!in_path  ? "no input file"
                       : !target ? "--target is required"
                                 : "--emit is required",
                       NULL);
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, target, &t);
  if (s) {
    tool_report_status("airc report", s);
    air_status_free(s);
    usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  if (strcmp(emit, "resources") && !is_schedule_emit(emit))
    return usage_error("unknown --emit (resources, memplan, memplan-svg, schedule, dot, npu-insts)",
                       emit);
  if (svg_path && strcmp(emit, "memplan"))
    return usage_error("--svg goes with --emit memplan", NULL);
  /* Outputs are checked before the work. */
  if (tool_check_output_path(out_path) || tool_check_output_path(svg_path))
    return TOOL_EXIT_FAILURE;

  const char* display = tool_display_name(in_path);
  char* text = NULL;
  size_t len = 0;
  if (tool_read_input(in_path, &text, &len)) return TOOL_EXIT_FAILURE;
  air_context_t* ctx = NULL;
  air_program_t* prog = NULL;
  int rc = TOOL_EXIT_FAILURE;
  air_sb_t out;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  air_sb_init(&out, &heap);
  air_schedule_t* loaded = NULL; /* from an .airbin input */
  s = air_context_create(NULL, NULL, &ctx);
  if (!s && air_artifact_sniff(text, len)) {
    s = load_airbin(ctx, text, len, display, target, entry, &prog, &loaded);
  } else if (!s && tool_refuse_binary(display, text, len)) {
    prog = NULL; /* reported; nothing to do */
  } else {
    if (!s) s = tool_parse_verified(ctx, text, len, display, target, &prog);
    if (prog) tool_print_warnings(prog);
  }
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
  } else if (prog) {
    rc = is_schedule_emit(emit)
             ? run_schedule(prog, t, display, entry, emit, svg_path, loaded, &out)
             : run(prog, t, display, &out);
    if (is_schedule_emit(emit)) loaded = NULL; /* run_schedule took it */
  }
  if (out.oom) {
    tool_error(0, display, "out of memory");
    rc = TOOL_EXIT_FAILURE;
  } else if (out.len && tool_write_output(out_path, out.data, out.len)) {
    rc = TOOL_EXIT_FAILURE;
  }
  air_sb_free(&out);
  air_schedule_free(loaded);
  air_program_destroy(prog);
  air_context_destroy(ctx);
  free(text);
  return rc;
}

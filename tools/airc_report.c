/* airc_report.c - `airc report FILE.mlir --target T --emit resources [-o OUT]`:
 * verifies the program, runs the scheduler's resource analysis and placement for
 * target T and prints them as a table (src/scheduler/report.h). A program that
 * does not fit prints the table and every violation, and exits 1. Other --emit
 * kinds are not implemented yet (exit 1). Exit 2 on a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir.h"
#include "runtime/strbuf.h"
#include "scheduler/place.h"
#include "scheduler/report.h"
#include "scheduler/resources.h"
#include "scheduler/target.h"
#include "tool_util.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc report FILE.mlir --target T --emit resources [-o OUT]\n"
          "  Prints the resource analysis (tiles, L1/L2 bytes, DMA channels per segment\n"
          "  and herd) and the placement of segment instances and herds for target T\n"
          "  (npu1, npu2, mi300x, cpu). Exit 1 when the program does not fit.\n");
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

int airc_cmd_report(int argc, char** argv) {
  const char *in_path = NULL, *out_path = NULL, *target = NULL, *emit = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    const char** slot = NULL;
    int m;
    if ((m = tool_option_value(argc, argv, &i, "--target", &v)) != 0) slot = &target;
    else if ((m = tool_option_value(argc, argv, &i, "--emit", &v)) != 0) slot = &emit;
    else if ((m = tool_option_value(argc, argv, &i, "-o", &v)) != 0) slot = &out_path;
    if (m < 0) {
      fprintf(stderr, "airc report: error: %s needs a value\n", argv[i]);
      return TOOL_EXIT_USAGE;
    }
    if (slot) {
      *slot = v;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return TOOL_EXIT_OK;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "airc report: error: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return TOOL_EXIT_USAGE;
    } else if (in_path) {
      fprintf(stderr, "airc report: error: more than one input file ('%s', '%s')\n", in_path,
              argv[i]);
      return TOOL_EXIT_USAGE;
    } else {
      in_path = argv[i];
    }
  }
  if (!in_path || !target || !emit) {
    fprintf(stderr, "airc report: error: %s\n",
            !in_path ? "no input file" : !target ? "--target is required" : "--emit is required");
    usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, target, &t);
  if (s) {
    fprintf(stderr, "airc report: error: %s\n", air_status_message(s));
    air_status_free(s);
    return TOOL_EXIT_USAGE;
  }
  if (strcmp(emit, "resources")) {
    fprintf(stderr, "airc report: error: --emit %s is not implemented yet (only 'resources')\n",
            emit);
    return TOOL_EXIT_FAILURE;
  }

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
  air_parse_options_t popts = {.filename = display};
  s = air_context_create(NULL, NULL, &ctx);
  if (!s) s = air_program_parse(ctx, text, len, &popts, &prog);
  if (!s) s = air_program_verify(prog, target, 0);
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
  } else {
    rc = run(prog, t, display, &out);
  }
  if (out.oom) {
    fprintf(stderr, "%s: error: out of memory\n", display);
    rc = TOOL_EXIT_FAILURE;
  } else if (out.len && tool_write_output(out_path, out.data, out.len)) {
    rc = TOOL_EXIT_FAILURE;
  }
  air_sb_free(&out);
  air_program_destroy(prog);
  air_context_destroy(ctx);
  free(text);
  return rc;
}

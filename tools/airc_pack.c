/* airc_pack.c - `airc pack IN.csv [-o OFFSETS.csv] [--alignment N]`: the memory
 * packer on its own (TOOLS.md). Reads `id,lower,upper,size`, writes `id,offset`
 * (to OFFSETS.csv, or stdout with `-o -`), prints
 * `arena=BYTES lower_bound=BYTES ratio=R`. Exit 0 ok, 1 bad input, 2 bad usage.
 * The dispatcher calls airc_cmd_pack(argc, argv) with argv[0] = "pack". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/pack/pack.h"
#include "tool_util.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc pack IN.csv [-o OFFSETS.csv] [--alignment N]\n"
          "  Packs buffers `id,lower,upper,size` (live over [lower, upper)) into one\n"
          "  arena; writes `id,offset` to OFFSETS.csv (`-o -`: stdout) and prints\n"
          "  arena=BYTES lower_bound=BYTES ratio=R. N: power of two, default 64.\n");
}

static int usage_error(const char* fmt, const char* arg) {
  char what[512];
  snprintf(what, sizeof what, fmt, arg);
  tool_error(0, "airc pack", "%s", what);
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

static int parse_alignment(const char* s, uint64_t* out) {
  char* end = NULL;
  errno = 0;
  if (!s || *s < '0' || *s > '9') return 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v == 0 || (v & (v - 1))) return 0;
  *out = v;
  return 1;
}

int airc_cmd_pack(int argc, char** argv) {
  const char* in_path = NULL;
  const char* out_path = NULL;
  uint64_t alignment = AIR_PACK_DEFAULT_ALIGNMENT;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) return usage_error("-o needs a file name%s", "");
      out_path = argv[i];
    } else if (!strcmp(a, "--alignment") || !strncmp(a, "--alignment=", 12)) {
      const char* v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
      if (!parse_alignment(v, &alignment))
        return usage_error("--alignment needs a power of two, got '%s'", v ? v : "");
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option: %s", a);
    } else if (in_path) {
      return usage_error("more than one input file: %s", a);
    } else {
      in_path = a;
    }
  }
  if (!in_path) return usage_error("no input file%s", "");
  if (out_path && tool_check_output_path(out_path)) return TOOL_EXIT_FAILURE;

  /* The tools' reader: a directory, a binary file or an endless stream is a
   * clear error before the CSV parser sees a byte. */
  const char* display = tool_display_name(in_path);
  char* text = NULL;
  size_t len = 0;
  if (tool_read_input(in_path, &text, &len)) return TOOL_EXIT_FAILURE;
  if (tool_refuse_binary(display, text, len)) {
    free(text);
    return TOOL_EXIT_FAILURE;
  }
  air_pack_instance_t in;
  air_status_t s = air_pack_csv_parse(NULL, text, len, display, &in);
  free(text);
  if (s) return tool_fail_status(display, s);
  uint64_t* offsets = malloc((in.count ? in.count : 1) * sizeof *offsets);
  if (!offsets) {
    air_pack_instance_free(&in);
    return tool_error(TOOL_EXIT_FAILURE, display, "out of memory");
  }
  air_pack_options_t opts = {.alignment = alignment, .flags = AIR_PACK_FLAG_VERIFY};
  air_pack_result_t res;
  s = air_pack_plan(NULL, in.buffers, in.count, &opts, offsets, &res);
  int rc = 0;
  if (s) rc = tool_fail_status(display, s);
  FILE* out = NULL;
  if (!rc && out_path) {
    out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
    if (!out) rc = tool_error(TOOL_EXIT_FAILURE, out_path, "cannot write: %s", strerror(errno));
  }
  if (!rc && out) {
    fprintf(out, "id,offset\n");
    for (size_t i = 0; i < in.count; ++i)
      fprintf(out, "%llu,%llu\n", (unsigned long long)in.ids[i], (unsigned long long)offsets[i]);
    if (out != stdout && fclose(out) != 0)
      rc = tool_error(TOOL_EXIT_FAILURE, out_path, "write failed: %s", strerror(errno));
  }
  if (!rc) {
    double ratio = res.lower_bound ? (double)res.arena_size / (double)res.lower_bound : 1.0;
    /* With offsets on stdout the summary moves to stderr, so stdout stays CSV. */
    FILE* summary = out == stdout ? stderr : stdout;
    fprintf(summary, "arena=%llu lower_bound=%llu ratio=%.4f\n", (unsigned long long)res.arena_size,
            (unsigned long long)res.lower_bound, ratio);
  }
  free(offsets);
  air_pack_instance_free(&in);
  return rc;
}

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

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc pack IN.csv [-o OFFSETS.csv] [--alignment N]\n"
          "  Packs buffers `id,lower,upper,size` (live over [lower, upper)) into one\n"
          "  arena; writes `id,offset` to OFFSETS.csv (`-o -`: stdout) and prints\n"
          "  arena=BYTES lower_bound=BYTES ratio=R. N: power of two, default 64.\n");
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
      if (++i >= argc) {
        fprintf(stderr, "airc pack: error: -o needs a file name\n");
        return 2;
      }
      out_path = argv[i];
    } else if (!strcmp(a, "--alignment") || !strncmp(a, "--alignment=", 12)) {
      const char* v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
      if (!parse_alignment(v, &alignment)) {
        fprintf(stderr, "airc pack: error: --alignment needs a power of two, got '%s'\n",
                v ? v : "");
        return 2;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "airc pack: error: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (in_path) {
      fprintf(stderr, "airc pack: error: more than one input file ('%s', '%s')\n", in_path, a);
      return 2;
    } else {
      in_path = a;
    }
  }
  if (!in_path) {
    fprintf(stderr, "airc pack: error: no input file\n");
    usage(stderr);
    return 2;
  }

  air_pack_instance_t in;
  air_status_t s = air_pack_csv_read(NULL, in_path, &in);
  if (s) {
    fprintf(stderr, "%s\n", air_status_message(s));
    air_status_free(s);
    return 1;
  }
  uint64_t* offsets = malloc((in.count ? in.count : 1) * sizeof *offsets);
  if (!offsets) {
    fprintf(stderr, "%s: error: out of memory\n", in_path);
    air_pack_instance_free(&in);
    return 1;
  }
  air_pack_options_t opts = {.alignment = alignment, .flags = AIR_PACK_FLAG_VERIFY};
  air_pack_result_t res;
  s = air_pack_plan(NULL, in.buffers, in.count, &opts, offsets, &res);
  int rc = 0;
  if (s) {
    fprintf(stderr, "%s: error: %s\n", in_path, air_status_message(s));
    air_status_free(s);
    rc = 1;
  }
  FILE* out = NULL;
  if (!rc && out_path) {
    out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
    if (!out) {
      fprintf(stderr, "%s: error: cannot write: %s\n", out_path, strerror(errno));
      rc = 1;
    }
  }
  if (!rc && out) {
    fprintf(out, "id,offset\n");
    for (size_t i = 0; i < in.count; ++i)
      fprintf(out, "%llu,%llu\n", (unsigned long long)in.ids[i], (unsigned long long)offsets[i]);
    if (out != stdout && fclose(out) != 0) {
      fprintf(stderr, "%s: error: write failed: %s\n", out_path, strerror(errno));
      rc = 1;
    }
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

/* airc_npu.c - `airc npu-insts`: the NPU instruction stream of an mlir-aie device
 * module, written as binary (insts.bin) or hex text, and `--decode` to list a
 * stream (binary or hex) readably (docs/npu.md). Exit 0 success, 1 bad input,
 * 2 bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/allocator.h"
#include "npu/insts.h"
#include "npu/txn.h"
#include "tool_util.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc npu-insts FILE.mlir [--format bin|hex] [-o OUT] [--no-fold-ddr-offset]\n"
          "                      [--sequence NAME]\n"
          "       airc npu-insts --decode FILE [-o OUT]\n"
          "  Lowers the runtime sequence of an mlir-aie module (aie.device(npu1|npu1_Ncol|\n"
          "  npu2|npu2_Ncol)) to a TXN 0.1 instruction stream: `bin` little-endian words\n"
          "  (default; needs -o unless stdout is redirected), `hex` one 8-digit word per\n"
          "  line. --no-fold-ddr-offset leaves arg_plus of arguments >= 5 unchanged (for\n"
          "  runtimes other than xclbin + instruction buffer). --decode lists a binary or\n"
          "  hex stream with named fields.\n");
}

static int usage_error(const char* what, const char* arg) {
  fprintf(stderr, "airc npu-insts: error: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

static int report(const char* display, air_status_t s) {
  tool_report_status(display, s);
  air_status_free(s);
  return TOOL_EXIT_FAILURE;
}

static void* sys_alloc(void* self, size_t n) { (void)self; return malloc(n); }
static void* sys_realloc(void* self, void* p, size_t n) { (void)self; return realloc(p, n); }
static void sys_free(void* self, void* p) { (void)self; free(p); }

static int decode(const air_allocator_t* a, const char* in, const char* display, const char* out) {
  char* data = NULL;
  size_t len = 0;
  if (tool_read_input(in, &data, &len)) return TOOL_EXIT_FAILURE;
  uint32_t* words = NULL;
  size_t n = 0;
  air_status_t s = air_txn_read_file_bytes(a, data, len, display, &words, &n);
  free(data);
  if (s) return report(display, s);
  air_txn_view_t view;
  s = air_txn_decode(a, words, n, display, &view);
  char* text = NULL;
  size_t tl = 0;
  if (!s) s = air_txn_list(a, &view, &text, &tl);
  air_txn_view_free(a, &view);
  free(words);
  if (s) return report(display, s);
  int rc = tool_write_output(out, text, tl) ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
  free(text);
  return rc;
}

int airc_cmd_npu_insts(int argc, char** argv) {
  const char *in = NULL, *out = NULL, *format = "bin", *sequence = NULL;
  int do_decode = 0, no_fold = 0;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    const char** slot = NULL;
    int m;
    if ((m = tool_option_value(argc, argv, &i, "--format", &v)) != 0) slot = &format;
    else if ((m = tool_option_value(argc, argv, &i, "--sequence", &v)) != 0) slot = &sequence;
    else if ((m = tool_option_value(argc, argv, &i, "-o", &v)) != 0) slot = &out;
    if (m < 0) return usage_error("option needs a value", argv[i]);
    if (slot) {
      *slot = v;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return TOOL_EXIT_OK;
    } else if (!strcmp(argv[i], "--decode")) {
      do_decode = 1;
    } else if (!strcmp(argv[i], "--no-fold-ddr-offset")) {
      no_fold = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("unknown option", argv[i]);
    } else if (in) {
      return usage_error("more than one input file", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return usage_error("no input file", NULL);
  if (out && !*out) return usage_error("empty output path", NULL);
  int hex = !strcmp(format, "hex");
  if (!hex && strcmp(format, "bin")) return usage_error("--format must be bin or hex", format);
  air_allocator_t a = {NULL, sys_alloc, sys_realloc, sys_free};
  const char* display = tool_display_name(in);
  if (do_decode) {
    if (no_fold || sequence) return usage_error("--decode takes only FILE and -o", NULL);
    return decode(&a, in, display, out);
  }
  char* data = NULL;
  size_t len = 0;
  if (tool_read_input(in, &data, &len)) return TOOL_EXIT_FAILURE;
  air_npu_insts_options_t opt = {no_fold != 0, sequence};
  uint32_t* words = NULL;
  size_t n = 0;
  air_status_t s = air_npu_insts_from_module(&a, data, len, display, &opt, &words, &n);
  free(data);
  if (s) return report(display, s);
  tool_buf_t buf = {0};
  for (size_t i = 0; i < n; ++i) {
    if (hex) {
      char line[16];
      snprintf(line, sizeof line, "%08X\n", words[i]);
      tool_buf_append(&buf, line, 9);
    } else {
      unsigned char b[4] = {(unsigned char)words[i], (unsigned char)(words[i] >> 8),
                            (unsigned char)(words[i] >> 16), (unsigned char)(words[i] >> 24)};
      tool_buf_append(&buf, (const char*)b, 4);
    }
  }
  free(words);
  int rc = TOOL_EXIT_OK;
  if (buf.oom) {
    fprintf(stderr, "%s: error: out of memory\n", display);
    rc = TOOL_EXIT_FAILURE;
  } else if (tool_write_output(out, buf.data ? buf.data : "", buf.length)) {
    rc = TOOL_EXIT_FAILURE;
  }
  tool_buf_free(&buf);
  return rc;
}

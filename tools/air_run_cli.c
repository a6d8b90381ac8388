/* air_run_cli.c - air-run's command line: the usage line and --help (with the
 * device URI forms this libairrt has built in), and parsing the options into
 * run_options_t, every value checked (argument specs, seeds, timeouts, paths
 * that would be written twice) before anything is opened. Bad usage prints the
 * reason and the usage line and exits 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "air_run_cli.h"
#include "tool_util.h"

void run_print_usage(FILE* out) {
  fprintf(out,
          "usage: air-run FILE.mlir|FILE.airbin [--entry FUNC] [--device URI]\n"
          "               [--input I=PATH.npy]... [--output I=PATH.npy]... [--random[=SEED]]\n"
          "               [--timeout SECONDS] [--trace OUT.json] [--kernels LIB.so]...\n"
          "               [--no-schedule] [--no-compile] [--verbose] [--quiet]\n"
          "               [--xclbin FILE [--xrt-kernel NAME] [--insts FILE]]\n"
          "       air-run --help | --version\n");
}

/* The --device line: the URI forms of the drivers this libairrt has built in, and
 * which it leaves out, as the library reports them. */
static void print_devices(FILE* out) {
  fputs("  --device URI        ", out);
  const char* sep = "";
  for (uint32_t i = 0; i < air_device_driver_count(); ++i) {
    air_driver_info_t d;
    if (air_device_driver_info(i, &d) || !d.built) continue;
    fprintf(out, "%s%s%s", sep, d.forms, i == 0 ? " (default: cpu)" : "");
    sep = ", ";
  }
  fputc('\n', out);
  int any = 0;
  for (uint32_t i = 0; i < air_device_driver_count(); ++i) {
    air_driver_info_t d;
    if (air_device_driver_info(i, &d) || d.built) continue;
    fprintf(out, "%s%s", any++ ? ", " : "                      not built in: ", d.forms);
  }
  if (any) fputc('\n', out);
}

static void print_help(void) {
  run_print_usage(stdout);
  fputs("\nRuns one entry function of an AIR program (text, or an .airbin artifact from\n"
        "`airc compile`) and writes its memrefs back.\n\n"
        "  --entry FUNC        the func.func to run (default: the only one)\n",
        stdout);
  print_devices(stdout);
  fputs("  --input I=PATH.npy, -i I=PATH.npy\n"
        "                      fill argument I (0-based) from a .npy file; dtype and shape\n"
        "                      must match the memref (bf16 is '<u2', f16 '<f2'). A scalar\n"
        "                      argument also takes a number that fits its type: --input 3=42\n"
        "  --output I=PATH.npy, -o I=PATH.npy\n"
        "                      write memref argument I after the run (every memref is\n"
        "                      in/out); the path is checked before the run\n"
        "  --random[=SEED]     fill every argument without --input with seeded values:\n"
        "                      floats in [-1, 1), integers in [-8, 8), indices in [0, 8)\n"
        "                      (default seed 0); without it such arguments are zeros, with\n"
        "                      a warning for each one that no --output names\n"
        "  --timeout SECONDS   fail (exit 1) instead of running longer, naming what is\n"
        "                      still blocked when the executor can tell\n"
        "  --trace OUT.json    write a Chrome trace (open in Perfetto or chrome://tracing)\n"
        "  --kernels LIB.so    load a kernel library (a shared object exporting\n"
        "                      air_kernel_library_register, see air/kernel.h) whose C\n"
        "                      kernels func.call and link_with resolve to; repeatable\n"
        "  --no-schedule       run the dynamic path: the executor walks the body in\n"
        "                      program order instead of running the compiled schedule's\n"
        "                      waves (same results; for programs the scheduler rejects)\n"
        "  --no-compile        interpret every loop and run the built-in linalg ops'\n"
        "                      reference loops: no compiled code, no library kernels\n"
        "                      (same results, bit for bit; for comparisons)\n"
        "  --xclbin FILE       NPU (--device xrt:N): the xclbin with the herd code and\n"
        "                      array configuration, as mlir-air's aircc builds it\n"
        "  --xrt-kernel NAME   NPU: the xclbin's kernel (default MLIR_AIE)\n"
        "  --insts FILE        NPU: run this instruction stream (insts.bin or hex text)\n"
        "                      instead of the one compiled from the program\n"
        "  --verbose, -v       describe every argument, the schedule and the phases' times\n"
        "  --quiet, -q         no summary line\n\n"
        "Every argument, input file, output path and number is checked before the run.\n"
        "Exit status: 0 success, 1 bad program, bad file or failed run, 2 bad usage.\n"
        "Errors: FILE[:LINE:COL]: error: MESSAGE on stderr.\n",
        stdout);
}

static int usage_error(const char* what, const char* arg) {
  tool_error(0, "air-run", "%s%s%s", what, arg ? ": " : "", arg ? arg : "");
  run_print_usage(stderr);
  return TOOL_EXIT_USAGE;
}

static int parse_u64(const char* s, uint64_t* out) {
  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* `I=VALUE` or `rN=VALUE`. */
static int parse_arg_spec(const char* option, const char* text, arg_spec_t* out) {
  const char* eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1]) return -1;
  const char* p = text;
  out->is_result = 0;
  if (*p == 'r') {
    out->is_result = 1;
    ++p;
  }
  if (p == eq) return -1;
  uint32_t v = 0;
  for (; p < eq; ++p) {
    if (*p < '0' || *p > '9' || v > 100000) return -1;
    v = v * 10 + (uint32_t)(*p - '0');
  }
  out->index = v;
  out->value = eq + 1;
  out->option = option;
  return 0;
}

int run_parse_command_line(int argc, char** argv, run_options_t* o) {
  memset(o, 0, sizeof *o);
  int only_files = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (only_files || a[0] != '-' || a[1] == '\0') {
      if (o->file) return usage_error("more than one input file", a);
      o->file = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_files = 1;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_help();
      return TOOL_EXIT_OK;
    }
    if (strcmp(a, "--version") == 0) {
      printf("air-run (libairrt) %s\n", AIR_VERSION_STRING);
      return TOOL_EXIT_OK;
    }
    if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
      o->verbose = 1;
      continue;
    }
    if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      o->quiet = 1;
      continue;
    }
    if (strcmp(a, "--no-schedule") == 0) {
      o->no_schedule = 1;
      continue;
    }
    if (strcmp(a, "--no-compile") == 0) {
      o->no_compile = 1;
      continue;
    }
    /* --random takes its seed only as --random=SEED: a separate word would be
     * ambiguous with the input file. */
    if (strcmp(a, "--random") == 0 || strncmp(a, "--random=", 9) == 0) {
      o->random = 1;
      o->seed = 0;
      if (a[8] == '=' && parse_u64(a + 9, &o->seed))
        return usage_error("--random=SEED needs a non-negative integer", a + 9);
      continue;
    }
    const char* value = NULL;
    int m;
    if ((m = tool_option_value(argc, argv, &i, "--entry", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (*value == '@') ++value;
      if (!*value) return usage_error("empty entry name", NULL);
      o->entry = value;
    } else if ((m = tool_option_value(argc, argv, &i, "--xclbin", &value)) != 0 ||
               (m = tool_option_value(argc, argv, &i, "--xrt-kernel", &value)) != 0 ||
               (m = tool_option_value(argc, argv, &i, "--insts", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (!*value) return usage_error("empty value", a);
      if (!strncmp(a, "--xclbin", 8)) o->xclbin = value;
      else if (!strncmp(a, "--xrt-kernel", 12)) o->xrt_kernel = value;
      else o->insts = value;
    } else if ((m = tool_option_value(argc, argv, &i, "--device", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (!*value) return usage_error("empty device URI", NULL);
      o->device = value;
    } else if ((m = tool_option_value(argc, argv, &i, "--input", &value)) != 0 ||
               (m = tool_option_value(argc, argv, &i, "-i", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (o->n_inputs == MAX_ARGS) return usage_error("too many --input options", value);
      arg_spec_t* s = &o->inputs[o->n_inputs];
      if (parse_arg_spec("--input", value, s) || s->is_result)
        return usage_error("--input wants I=PATH.npy with I an argument index", value);
      for (uint32_t k = 0; k < o->n_inputs; ++k)
        if (o->inputs[k].index == s->index)
          return usage_error("argument given twice by --input", value);
      ++o->n_inputs;
    } else if ((m = tool_option_value(argc, argv, &i, "--output", &value)) != 0 ||
               (m = tool_option_value(argc, argv, &i, "-o", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (o->n_outputs == MAX_ARGS) return usage_error("too many --output options", value);
      arg_spec_t* s = &o->outputs[o->n_outputs];
      if (parse_arg_spec("--output", value, s))
        return usage_error("--output wants I=PATH.npy with I an argument index (or rN)", value);
      ++o->n_outputs;
    } else if ((m = tool_option_value(argc, argv, &i, "--timeout", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      char* end = NULL;
      errno = 0;
      double t = strtod(value, &end);
      if (errno || end == value || *end || !(t > 0) || t > 1e6)
        return usage_error("--timeout wants a positive number of seconds", value);
      o->timeout_s = t;
    } else if ((m = tool_option_value(argc, argv, &i, "--kernels", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (!*value) return usage_error("empty kernel library path", NULL);
      if (o->n_kernels == MAX_ARGS) return usage_error("too many --kernels options", value);
      o->kernels[o->n_kernels++] = value;
    } else if ((m = tool_option_value(argc, argv, &i, "--trace", &value)) != 0) {
      if (m < 0) return usage_error("option needs a value", a);
      if (!*value) return usage_error("empty trace path", NULL);
      o->trace = value;
    } else {
      return usage_error("unknown option", a);
    }
  }
  if (!o->file) return usage_error("no input file", NULL);
  if (!o->device) o->device = "cpu";
  /* Two outputs into one file would leave only the last. */
  for (uint32_t k = 0; k < o->n_outputs; ++k)
    for (uint32_t j = 0; j < k; ++j)
      if (strcmp(o->outputs[j].value, o->outputs[k].value) == 0)
        return usage_error("two --output options write the same file", o->outputs[k].value);
  if (o->trace)
    for (uint32_t k = 0; k < o->n_outputs; ++k)
      if (strcmp(o->trace, o->outputs[k].value) == 0)
        return usage_error("--trace and --output write the same file", o->trace);
  return -1;
}

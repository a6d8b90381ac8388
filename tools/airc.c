/* airc - the AIR schedule compiler's command line (contract: TOOLS.md).
 *
 * `airc COMMAND ...` dispatches through k_commands below. A command receives
 * (argc, argv) with argv[0] being the command's own name, like a tiny main(), and
 * returns the process exit code: 0 success, 1 user error (bad program, bad file,
 * failed check), 2 bad usage. Diagnostics go to stderr as `FILE:LINE:COL: error:`;
 * stdout carries only a command's real output, so airc composes in pipes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "runtime/target/target.h"
#include "tool_util.h"

typedef int (*airc_command_fn)(int argc, char** argv);

typedef struct airc_command_t {
  const char* name;
  airc_command_fn run;
  const char* synopsis; /* arguments after the command name */
  const char* summary;
} airc_command_t;

static int cmd_verify(int argc, char** argv);
static int cmd_print(int argc, char** argv);
/* tools/airc_pack.c: the memory packer on its own (TOOLS.md `airc pack`). */
int airc_cmd_pack(int argc, char** argv);
/* tools/airc_report.c: what the scheduler computed (resources, memory plan,
 * schedule, token graph) for a program or an .airbin. */
int airc_cmd_report(int argc, char** argv);
/* tools/airc_compile.c: program + compiled schedule -> .airbin (docs/artifact.md). */
int airc_cmd_compile(int argc, char** argv);
/* tools/airc_inspect.c: an AMDGPU code object's target and kernels. */
int airc_cmd_inspect(int argc, char** argv);
/* tools/airc_targets.c: the devices that can be targets, with their facts. */
int airc_cmd_targets(int argc, char** argv);
/* tools/airc_npu.c: an mlir-aie module's NPU instruction stream, and its listing. */
int airc_cmd_npu_insts(int argc, char** argv);

/* Keep TOOLS.md's spellings. */
static const airc_command_t k_commands[] = {
    {"verify", cmd_verify, "FILE.mlir [--split-input-file] [--target T]",
     "parse a program and check every rule of the AIR spec"},
    {"print", cmd_print, "FILE.mlir [--split-input-file] [-o OUT]",
     "parse a program and print it back (round trip)"},
    {"compile", airc_cmd_compile, "FILE.mlir --target T -o OUT.airbin [--entry FUNC]",
     "compile a program's schedule for a target into an .airbin artifact"},
    {"pack", airc_cmd_pack, "IN.csv [-o OFFSETS.csv] [--alignment N]",
     "run the memory packer on a lifetime table (id,lower,upper,size)"},
    {"report", airc_cmd_report,
     "FILE.mlir|FILE.airbin --target T --emit resources|memplan|memplan-svg|schedule|dot "
     "[-o OUT] [--svg OUT.svg] [--entry FUNC]",
     "print the resource analysis, memory plan, schedule or token graph (dot)"},
    {"inspect", airc_cmd_inspect, "FILE.hsaco|FILE.airbin [--json]",
     "print an AMDGPU code object's target, kernels and kernel arguments"},
    {"targets", airc_cmd_targets, "[--json]",
     "list the devices that can be targets (geometry, memory, DMA, BDs, locks)"},
    {"npu-insts", airc_cmd_npu_insts,
     "FILE.mlir [--format bin|hex] [-o OUT] [--no-fold-ddr-offset] | --decode FILE",
     "lower an mlir-aie module's runtime sequence to NPU instructions, or list a stream"},
};
static const size_t k_command_count = sizeof k_commands / sizeof k_commands[0];

/* The full text for --help; after a usage error only the `usage:` lines, so
 * every line on stderr keeps the diagnostic shape (tool_util.h). */
static void print_usage(FILE* out) {
  fprintf(out,
          "usage: airc COMMAND [ARGS...]\n"
          "       airc --help | --version | help COMMAND\n");
  if (out == stderr) return;
  fprintf(out,
          "\n"
          "commands:\n");
  for (size_t i = 0; i < k_command_count; ++i)
    fprintf(out, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
  fprintf(out,
          "\n"
          "FILE may be '-' for standard input. Exit status: 0 success, 1 error in the\n"
          "input or a failed check, 2 bad usage. Errors: FILE[:LINE:COL]: error: MESSAGE\n"
          "on stderr.\n");
}

static void print_command_usage(FILE* out, const airc_command_t* cmd) {
  fprintf(out, "usage: airc %s %s\n", cmd->name, cmd->synopsis);
}

static const airc_command_t* find_command(const char* name) {
  for (size_t i = 0; i < k_command_count; ++i)
    if (strcmp(k_commands[i].name, name) == 0) return &k_commands[i];
  return NULL;
}

static int usage_error(const airc_command_t* cmd, const char* what, const char* arg) {
  char where[64];
  snprintf(where, sizeof where, "airc %s", cmd->name);
  tool_error(0, where, "%s%s%s", what, arg ? ": " : "", arg ? arg : "");
  print_command_usage(stderr, cmd);
  return TOOL_EXIT_USAGE;
}

/* The command line shared by verify and print. */
typedef struct input_args_t {
  const char* file;
  const char* target; /* verify only */
  const char* output; /* print only */
  int split;
} input_args_t;

/* Returns -1 when parsed, otherwise the exit code to return at once. */
static int parse_input_args(const airc_command_t* cmd, int argc, char** argv,
                            input_args_t* args) {
  int is_verify = cmd->run == cmd_verify;
  int only_files = 0;
  memset(args, 0, sizeof *args);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (only_files || a[0] != '-' || a[1] == '\0') {
      if (args->file) return usage_error(cmd, "more than one input file", a);
      args->file = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_files = 1;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_command_usage(stdout, cmd);
      fprintf(stdout, "%s.\n", cmd->summary);
      if (is_verify)
        fprintf(stdout,
                "  --split-input-file  check each `// -----` separated part on its own\n"
                "  --target T          also check what target T needs (`airc targets` lists\n"
                "                      them), and that the program fits it (tiles, L1 and\n"
                "                      L2 bytes, DMA channels; as compile and report do);\n"
                "                      without it only target-independent rules\n");
      else
        fprintf(stdout,
                "  --split-input-file  print each `// -----` separated part on its own,\n"
                "                      outputs separated by `// -----`\n"
                "  -o OUT              write to OUT instead of standard output; OUT is\n"
                "                      written only when every part parsed\n");
      return TOOL_EXIT_OK;
    }
    if (strcmp(a, "--split-input-file") == 0) {
      args->split = 1;
      continue;
    }
    const char* value = NULL;
    int m = 0;
    if (is_verify) {
      m = tool_option_value(argc, argv, &i, "--target", &value);
      if (m > 0) args->target = value;
    } else {
      m = tool_option_value(argc, argv, &i, "-o", &value);
      if (m == 0) m = tool_option_value(argc, argv, &i, "--output", &value);
      if (m > 0) args->output = value;
    }
    if (m < 0) return usage_error(cmd, "option needs a value", a);
    if (m == 0) return usage_error(cmd, "unknown option", a);
  }
  if (!args->file) return usage_error(cmd, "no input file", NULL);
  if (args->target) {
    /* The scheduler's target table is the authority (compile and report use it);
     * a misspelt target is a usage error (exit 2), not a failed check. */
    const air_target_t* t = NULL;
    air_status_t s = air_target_lookup(NULL, args->target, &t);
    if (s) {
      char what[256];
      snprintf(what, sizeof what, "%s", air_status_message(s));
      air_status_free(s);
      return usage_error(cmd, what, NULL);
    }
  }
  if (args->output && !*args->output) return usage_error(cmd, "empty output path", NULL);
  return -1;
}

/* Parses every chunk of the input; verifies it or prints it. Failing chunks are
 * reported and skipped so one run shows every broken part of a split file. */
static int run_on_input(const airc_command_t* cmd, int argc, char** argv) {
  input_args_t args;
  int rc = parse_input_args(cmd, argc, argv, &args);
  if (rc >= 0) return rc;
  int is_verify = cmd->run == cmd_verify;
  const char* display = tool_display_name(args.file);

  char* data = NULL;
  size_t length = 0;
  if (tool_read_input(args.file, &data, &length)) return TOOL_EXIT_FAILURE;
  if (tool_refuse_binary(display, data, length)) {
    free(data);
    return TOOL_EXIT_FAILURE;
  }
  tool_chunk_t* chunks = NULL;
  size_t n_chunks = 0;
  if (tool_split_input(data, length, args.split, &chunks, &n_chunks)) {
    tool_error(0, display, "out of memory");
    free(data);
    return TOOL_EXIT_FAILURE;
  }

  air_context_t* context = NULL;
  air_status_t s = air_context_create(NULL, NULL, &context);
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
    free(chunks);
    free(data);
    return TOOL_EXIT_FAILURE;
  }

  tool_buf_t out = {0};
  size_t failed = 0;
  for (size_t i = 0; i < n_chunks; ++i) {
    if (i > 0 && !is_verify) {
      /* Separators stay even around failed parts so part N of the output lines
       * up with part N of the input. */
      if (out.length && out.data[out.length - 1] != '\n') tool_buf_append(&out, "\n", 1);
      tool_buf_append(&out, "// -----\n", 9);
    }
    air_parse_options_t opts = {0};
    opts.filename = display;
    opts.first_line = chunks[i].first_line;
    air_program_t* program = NULL;
    s = air_program_parse(context, chunks[i].text, chunks[i].length, &opts, &program);
    if (s) {
      tool_report_status(display, s);
      air_status_free(s);
      ++failed;
      continue;
    }
    tool_print_warnings(program);
    if (is_verify) {
      s = air_program_verify(program, args.target, 0);
      /* A target also bounds what fits on it; verify checks that as compile and
       * report do, so a program that verifies for npu1 compiles for it. */
      if (!s && args.target && tool_check_fit(display, program, args.target)) ++failed;
    } else {
      char* text = NULL;
      size_t text_length = 0;
      s = air_program_print_to_string(program, 0, &text, &text_length);
      if (!s) {
        tool_buf_append(&out, text, text_length);
        air_program_free_string(program, text);
      }
    }
    if (s) {
      tool_report_status(display, s);
      air_status_free(s);
      ++failed;
    }
    air_program_destroy(program);
  }
  air_context_destroy(context);
  free(chunks);
  free(data);

  if (out.oom) {
    tool_error(0, display, "out of memory assembling output");
    ++failed;
  } else if (!is_verify && (!failed || !args.output)) {
    if (tool_write_output(args.output, out.data ? out.data : "", out.length)) ++failed;
  }
  tool_buf_free(&out);
  return failed ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}

static int cmd_verify(int argc, char** argv) {
  return run_on_input(find_command("verify"), argc, argv);
}

static int cmd_print(int argc, char** argv) {
  return run_on_input(find_command("print"), argc, argv);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    tool_error(0, "airc", "no command given");
    print_usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  const char* name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
    print_usage(stdout);
    return TOOL_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    printf("airc (libairrt) %s\n", AIR_VERSION_STRING);
    return TOOL_EXIT_OK;
  }
  if (strcmp(name, "help") == 0) {
    if (argc < 3) {
      print_usage(stdout);
      return TOOL_EXIT_OK;
    }
    const airc_command_t* cmd = find_command(argv[2]);
    if (!cmd) {
      tool_error(0, "airc", "unknown command: %s", argv[2]);
      print_usage(stderr);
      return TOOL_EXIT_USAGE;
    }
    char help_flag[] = "--help";
    char* sub_argv[] = {argv[2], help_flag, NULL};
    return cmd->run(2, sub_argv);
  }
  const airc_command_t* cmd = find_command(name);
  if (!cmd) {
    tool_error(0, "airc", "unknown command: %s", name);
    print_usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  return cmd->run(argc - 1, argv + 1);
}

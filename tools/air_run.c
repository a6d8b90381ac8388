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
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "air/air.h"
#include "npy.h"
#include "tool_util.h"

#define MAX_ARGS 256

/* One `--input I=...` or `--output I=PATH`. */
typedef struct arg_spec_t {
  uint32_t index;
  int is_result; /* spelled rN */
  const char* value;
  const char* option; /* the option as written, for messages */
} arg_spec_t;

typedef struct run_options_t {
  const char* file;
  const char* entry;
  const char* device;
  arg_spec_t inputs[MAX_ARGS];
  uint32_t n_inputs;
  arg_spec_t outputs[MAX_ARGS];
  uint32_t n_outputs;
  int random;
  uint64_t seed;
  double timeout_s; /* 0 = none */
  const char* trace;
  const char* kernels[MAX_ARGS]; /* --kernels LIB.so, loaded in order */
  uint32_t n_kernels;
  int verbose;
  int quiet;
  int no_schedule;
} run_options_t;

static void print_usage(FILE* out) {
  fprintf(out,
          "usage: air-run FILE.mlir|FILE.airbin [--entry FUNC] [--device URI]\n"
          "               [--input I=PATH.npy]... [--output I=PATH.npy]... [--random[=SEED]]\n"
          "               [--timeout SECONDS] [--trace OUT.json] [--kernels LIB.so]...\n"
          "               [--no-schedule] [--verbose] [--quiet]\n"
          "       air-run --help | --version\n");
}

static void print_help(void) {
  print_usage(stdout);
  fputs("\nRuns one entry function of an AIR program (text, or an .airbin artifact from\n"
        "`airc compile`) and writes its memrefs back.\n\n"
        "  --entry FUNC        the func.func to run (default: the only one)\n"
        "  --device URI        cpu (default), cpu:threads=N, hsa:N, xrt:N\n"
        "  --input I=PATH.npy  fill argument I (0-based) from a .npy file; dtype and shape\n"
        "                      must match the memref (bf16 is '<u2', f16 '<f2'). A scalar\n"
        "                      argument also takes a number: --input 3=42\n"
        "  --output I=PATH.npy write memref argument I after the run (every memref is\n"
        "                      in/out)\n"
        "  --random[=SEED]     fill every argument without --input with seeded values:\n"
        "                      floats in [-1, 1), integers in [-8, 8) (default seed 0);\n"
        "                      without it such memrefs start zeroed\n"
        "  --timeout SECONDS   fail (exit 1) instead of running longer, naming what is\n"
        "                      still blocked when the executor can tell\n"
        "  --trace OUT.json    write a Chrome trace (open in Perfetto or chrome://tracing)\n"
        "  --kernels LIB.so    load a kernel library (a shared object exporting\n"
        "                      air_kernel_library_register, see air/kernel.h) whose C\n"
        "                      kernels func.call and link_with resolve to; repeatable\n"
        "  --no-schedule       run the dynamic path: the executor walks the body in\n"
        "                      program order instead of running the compiled schedule's\n"
        "                      waves (same results; for programs the scheduler rejects)\n"
        "  --verbose, -v       describe every argument, the schedule and the phases' times\n"
        "  --quiet, -q         no summary line\n\n"
        "Exit status: 0 success, 1 bad program, bad file or failed run, 2 bad usage.\n",
        stdout);
}

static int usage_error(const char* what, const char* arg) {
  fprintf(stderr, "air-run: error: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  print_usage(stderr);
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

/* Returns -1 when parsed, otherwise the exit code to return at once. */
static int parse_command_line(int argc, char** argv, run_options_t* o) {
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
  return -1;
}

/* ---- element types ------------------------------------------------------ */

typedef struct elem_info_t {
  const char* name;  /* as AIR spells it */
  uint32_t size;     /* bytes per element in a buffer */
  char kind;         /* npy kind written for it */
  const char* accepts; /* npy kinds accepted on input */
} elem_info_t;

/* MLIR integers are signless, so a memref of iN accepts NumPy's signed or
 * unsigned N-bit arrays; outputs are written signed. bf16 has no NumPy dtype. */
static const elem_info_t* elem_info(uint32_t elem) {
  static const elem_info_t k_info[AIR_ELEMENT_COUNT] = {
      [AIR_ELEMENT_I1] = {"i1", 1, 'b', "bui"},
      [AIR_ELEMENT_I8] = {"i8", 1, 'i', "iu"},
      [AIR_ELEMENT_I16] = {"i16", 2, 'i', "iu"},
      [AIR_ELEMENT_I32] = {"i32", 4, 'i', "iu"},
      [AIR_ELEMENT_I64] = {"i64", 8, 'i', "iu"},
      [AIR_ELEMENT_INDEX] = {"index", 8, 'i', "iu"},
      [AIR_ELEMENT_F16] = {"f16", 2, 'f', "f"},
      [AIR_ELEMENT_BF16] = {"bf16", 2, 'u', "u"},
      [AIR_ELEMENT_F32] = {"f32", 4, 'f', "f"},
      [AIR_ELEMENT_F64] = {"f64", 8, 'f', "f"},
  };
  if (elem == AIR_ELEMENT_NONE || elem >= AIR_ELEMENT_COUNT) return NULL;
  return &k_info[elem];
}

static const char* arg_type_string(const air_arg_t* a, char* buf, size_t len) {
  const elem_info_t* ei = elem_info(a->elem);
  const char* en = ei ? ei->name : "?";
  if (a->kind != AIR_ARG_MEMREF) {
    snprintf(buf, len, "%s", en);
    return buf;
  }
  size_t n = (size_t)snprintf(buf, len, "memref<");
  for (uint32_t d = 0; d < a->memref.rank && n < len; ++d) {
    if (a->memref.sizes[d] < 0)
      n += (size_t)snprintf(buf + n, len - n, "?x");
    else
      n += (size_t)snprintf(buf + n, len - n, "%lldx", (long long)a->memref.sizes[d]);
  }
  if (n < len) snprintf(buf + n, len - n, "%s>", en);
  return buf;
}

/* ---- random values ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint16_t f32_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40); /* NaN */
  bits += 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(bits >> 16);
}

/* IEEE half from a float (round to nearest even), enough for values in [-1, 1). */
static uint16_t f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  float a = fabsf(f);
  if (a >= 65520.0f) return sign | 0x7c00u;
  if (a < 6.103515625e-05f) { /* subnormal: units of 2^-24 */
    float units = a * 16777216.0f;
    return sign | (uint16_t)lrintf(units);
  }
  int e;
  float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  long mant = lrintf(m * 2048.0f); /* 11 significant bits, implicit one included */
  if (mant == 2048) {
    mant = 1024;
    ++e;
  }
  uint16_t exp = (uint16_t)(e - 1 + 15);
  return sign | (uint16_t)(exp << 10) | (uint16_t)(mant - 1024);
}

/* Fills `count` elements deterministically from (seed, argument index): an
 * argument's values do not depend on which other arguments are random. */
static void fill_random(void* data, uint64_t count, uint32_t elem, uint64_t seed, uint32_t index) {
  uint64_t st = seed * 0x2545f4914f6cdd1dull + (uint64_t)(index + 1) * 0x9e3779b97f4a7c15ull;
  unsigned char* p = data;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t r = splitmix64(&st);
    /* Floats on a 2^-23 grid (2^-52 for f64): exact in their type, [-1, 1). */
    float f = (float)((double)(r >> 40) * (1.0 / 8388608.0) - 1.0);
    int64_t small = (int64_t)(r >> 60) - 8; /* [-8, 8) */
    switch (elem) {
      case AIR_ELEMENT_I1: p[i] = (unsigned char)(r >> 63); break;
      case AIR_ELEMENT_I8: ((int8_t*)p)[i] = (int8_t)small; break;
      case AIR_ELEMENT_I16: ((int16_t*)(void*)p)[i] = (int16_t)small; break;
      case AIR_ELEMENT_I32: ((int32_t*)(void*)p)[i] = (int32_t)small; break;
      case AIR_ELEMENT_I64:
      case AIR_ELEMENT_INDEX: ((int64_t*)(void*)p)[i] = small; break;
      case AIR_ELEMENT_F16: ((uint16_t*)(void*)p)[i] = f32_to_f16(f); break;
      case AIR_ELEMENT_BF16: ((uint16_t*)(void*)p)[i] = f32_to_bf16(f); break;
      case AIR_ELEMENT_F32: ((float*)(void*)p)[i] = f; break;
      case AIR_ELEMENT_F64:
        ((double*)(void*)p)[i] = (double)(r >> 11) * (1.0 / 4503599627370496.0) - 1.0;
        break;
      default: break;
    }
  }
}

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

/* Everything a run holds, released in one place. */
typedef struct run_state_t {
  air_context_t* context;
  air_program_t* program;
  air_device_t* device;
  air_executable_t* executable;
  air_command_buffer_t* command_buffer;
  air_semaphore_t* semaphore;
  air_trace_t* trace;
  uint32_t n_params;
  air_arg_t* params;
  air_buffer_t** buffers;
  air_binding_t* bindings;
  npy_array_t* host; /* per parameter: the host copy of a memref */
  char* text;
  char* entry_name;
  void* libraries[MAX_ARGS]; /* dlopen handles of --kernels, closed last */
} run_state_t;

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
  air_program_destroy(r->program);
  air_context_destroy(r->context);
  for (uint32_t i = 0; i < MAX_ARGS; ++i)
    if (r->libraries[i]) dlclose(r->libraries[i]);
  free(r->text);
  free(r->entry_name);
}

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
      fprintf(stderr, "%s: error: cannot load kernel library: %s\n", path,
              why ? why : "unknown error");
      return 1;
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
      fprintf(stderr, "%s: error: not a kernel library: it exports no '%s' function\n", path,
              AIR_KERNEL_LIBRARY_SYMBOL);
      return 1;
    }
    air_status_t s = entry.fn(context, air_context_register_kernel);
    if (s) {
      fprintf(stderr, "%s: error: registering its kernels failed: %s\n", path,
              air_status_message(s));
      air_status_free(s);
      return 1;
    }
  }
  return 0;
}

/* Reports a failed status (taking it) and returns exit code 1. Like
 * tool_report_status, but indented lines are kept as they are: the executor's
 * reports list what is blocked as indented `FILE:LINE:COL: ...` lines under one
 * `error:` line, and a second `error:` prefix on each would bury them. */
static int report(const char* display, air_status_t s) {
  const char* msg = air_status_message(s);
  if (!*msg) {
    tool_report_status(display, s);
    air_status_free(s);
    return TOOL_EXIT_FAILURE;
  }
  size_t dlen = strlen(display);
  while (*msg) {
    const char* nl = strchr(msg, '\n');
    size_t n = nl ? (size_t)(nl - msg) : strlen(msg);
    if (n > 0) {
      int located = n > dlen && strncmp(msg, display, dlen) == 0 && msg[dlen] == ':';
      /* "FILE: what" (the artifact reader's form) gets its "error: " too. */
      if (located && n > dlen + 2 && msg[dlen + 1] == ' ' && strncmp(msg + dlen + 2, "error:", 6)) {
        fprintf(stderr, "%s: error: ", display);
        msg += dlen + 2;
        n -= dlen + 2;
      } else if (!located && msg[0] != ' ' && msg[0] != '\t') {
        fprintf(stderr, "%s: error: ", display);
      }
      fwrite(msg, 1, n, stderr);
      fputc('\n', stderr);
    }
    msg += n;
    if (*msg == '\n') ++msg;
  }
  air_status_free(s);
  return TOOL_EXIT_FAILURE;
}

static const arg_spec_t* find_input(const run_options_t* o, uint32_t index) {
  for (uint32_t k = 0; k < o->n_inputs; ++k)
    if (o->inputs[k].index == index) return &o->inputs[k];
  return NULL;
}

/* Parses a number given for a scalar argument; 0 when it is one. */
static int parse_scalar_literal(const char* s, const air_arg_t* param, air_binding_t* b) {
  char* end = NULL;
  errno = 0;
  if (param->kind == AIR_ARG_FLOAT) {
    double v = strtod(s, &end);
    if (errno || end == s || *end) return -1;
    b->f = v;
  } else {
    long long v = strtoll(s, &end, 0);
    if (errno || end == s || *end) {
      if (strcmp(s, "true") == 0) v = 1;
      else if (strcmp(s, "false") == 0) v = 0;
      else return -1;
    }
    b->i = v;
  }
  return 0;
}

/* Checks an .npy array against a memref parameter; 0 when it fits. */
static int check_array(const char* path, const npy_array_t* a, const air_arg_t* param,
                       uint32_t index, const char* entry) {
  const elem_info_t* ei = elem_info(param->elem);
  int ok = ei && a->itemsize == ei->size && strchr(ei->accepts, a->kind) != NULL;
  uint32_t rank = param->kind == AIR_ARG_MEMREF ? param->memref.rank : 0;
  int shape_ok = a->rank == rank;
  for (uint32_t d = 0; shape_ok && d < rank; ++d) shape_ok = a->shape[d] == param->memref.sizes[d];
  if (param->kind != AIR_ARG_MEMREF) /* a scalar: () or (1,) */
    shape_ok = a->count == 1 && a->rank <= 1;
  if (ok && shape_ok) return 0;
  char have_dt[8], have_sh[NPY_MAX_RANK * 24], want_dt[8], want_sh[AIR_MAX_RANK * 24], ty[256];
  int64_t one = 1;
  npy_dtype_string(a->kind, a->itemsize, have_dt);
  npy_shape_string(a->rank, a->shape, have_sh, sizeof have_sh);
  if (ei)
    npy_dtype_string(ei->kind, ei->size, want_dt);
  else
    snprintf(want_dt, sizeof want_dt, "?");
  if (param->kind == AIR_ARG_MEMREF)
    npy_shape_string(rank, param->memref.sizes, want_sh, sizeof want_sh);
  else
    npy_shape_string(0, &one, want_sh, sizeof want_sh);
  const char* what = !ok && !shape_ok ? "dtype and shape mismatch" : !ok ? "dtype mismatch"
                                                                        : "shape mismatch";
  fprintf(stderr,
          "%s: error: %s: the file holds dtype '%s' with shape %s, but argument %u of @%s is "
          "%s, which needs dtype '%s' with shape %s%s\n",
          path, what, have_dt, have_sh, index, entry, arg_type_string(param, ty, sizeof ty),
          want_dt, want_sh,
          param->elem == AIR_ELEMENT_BF16 ? " (bf16 travels as its raw bits, '<u2')" : "");
  return -1;
}

/* Prepares argument `i`: a host array for a memref (file, random or zeros) or a
 * scalar value. Returns 0 or an exit code. */
static int prepare_argument(run_state_t* r, const run_options_t* o, uint32_t i) {
  const air_arg_t* param = &r->params[i];
  const arg_spec_t* in = find_input(o, i);
  const char* entry = r->entry_name ? r->entry_name : "?";
  air_binding_t* b = &r->bindings[i];
  char err[512], ty[256];
  if (param->kind != AIR_ARG_MEMREF) {
    if (in) {
      if (parse_scalar_literal(in->value, param, b) == 0) return 0;
      npy_array_t a;
      if (npy_read_file(in->value, &a, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s (argument %u is a scalar %s: give a number or a .npy file)\n",
                in->value, err, i, arg_type_string(param, ty, sizeof ty));
        return TOOL_EXIT_FAILURE;
      }
      if (check_array(in->value, &a, param, i, entry)) {
        npy_free(&a);
        return TOOL_EXIT_FAILURE;
      }
      const unsigned char* p = a.data;
      switch (param->elem) {
        case AIR_ELEMENT_F32: { float v; memcpy(&v, p, 4); b->f = v; break; }
        case AIR_ELEMENT_F64: { double v; memcpy(&v, p, 8); b->f = v; break; }
        case AIR_ELEMENT_I1:
        case AIR_ELEMENT_I8: b->i = a.kind == 'i' ? (int8_t)p[0] : p[0]; break;
        case AIR_ELEMENT_I16: { int16_t v; memcpy(&v, p, 2); b->i = v; break; }
        case AIR_ELEMENT_I32: { int32_t v; memcpy(&v, p, 4); b->i = v; break; }
        default: { int64_t v; memcpy(&v, p, 8); b->i = v; break; }
        case AIR_ELEMENT_F16:
        case AIR_ELEMENT_BF16:
          fprintf(stderr, "%s: error: give %s scalar argument %u as a number\n", in->value,
                  arg_type_string(param, ty, sizeof ty), i);
          npy_free(&a);
          return TOOL_EXIT_FAILURE;
      }
      npy_free(&a);
    } else if (o->random) {
      uint64_t st = o->seed * 0x2545f4914f6cdd1dull + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;
      uint64_t v = splitmix64(&st);
      if (param->kind == AIR_ARG_FLOAT)
        b->f = (double)(v >> 40) * (1.0 / 8388608.0) - 1.0;
      else
        b->i = param->elem == AIR_ELEMENT_I1 ? (int64_t)(v >> 63) : (int64_t)(v >> 60) - 8;
    }
    if (o->verbose)
      fprintf(stderr, "air-run: argument %u: %s = %g%s\n", i, arg_type_string(param, ty, sizeof ty),
              param->kind == AIR_ARG_FLOAT ? b->f : (double)b->i,
              in ? "" : o->random ? " (random)" : " (default)");
    return 0;
  }

  const elem_info_t* ei = elem_info(param->elem);
  if (!ei) {
    fprintf(stderr, "%s: error: argument %u of @%s has an element type air-run cannot fill\n",
            o->file, i, entry);
    return TOOL_EXIT_FAILURE;
  }
  npy_array_t* host = &r->host[i];
  if (in) {
    if (npy_read_file(in->value, host, err, sizeof err)) {
      fprintf(stderr, "%s: error: %s\n", in->value, err);
      return TOOL_EXIT_FAILURE;
    }
    if (check_array(in->value, host, param, i, entry)) return TOOL_EXIT_FAILURE;
  } else {
    if (npy_alloc(host, ei->kind, ei->size, param->memref.rank, param->memref.sizes, err,
                  sizeof err)) {
      fprintf(stderr, "%s: error: argument %u of @%s: %s\n", o->file, i, entry, err);
      return TOOL_EXIT_FAILURE;
    }
    if (o->random) fill_random(host->data, host->count, param->elem, o->seed, i);
  }
  if (o->verbose)
    fprintf(stderr, "air-run: argument %u: %s <- %s\n", i, arg_type_string(param, ty, sizeof ty),
            in ? in->value : o->random ? "random" : "zeros");
  return 0;
}

/* Copies argument i back out of its buffer and writes it. */
static int write_output(run_state_t* r, const run_options_t* o, const arg_spec_t* out) {
  uint32_t i = out->index;
  const air_arg_t* param = &r->params[i];
  npy_array_t* host = &r->host[i];
  char err[512];
  void* ptr = NULL;
  air_status_t s = air_buffer_map(r->buffers[i], 0, host->nbytes, AIR_MAP_READ, &ptr);
  if (s) return report(out->value, s);
  if (host->nbytes) memcpy(host->data, ptr, (size_t)host->nbytes);
  air_buffer_unmap(r->buffers[i], ptr);
  /* Write with the memref's own dtype (an input may have been unsigned). */
  const elem_info_t* ei = elem_info(param->elem);
  host->kind = ei->kind;
  if (npy_write_file(out->value, host, err, sizeof err)) {
    fprintf(stderr, "%s: error: %s\n", out->value, err);
    return TOOL_EXIT_FAILURE;
  }
  if (o->verbose) fprintf(stderr, "air-run: wrote argument %u to %s\n", i, out->value);
  return 0;
}

static int run(const run_options_t* o) {
  run_state_t r;
  memset(&r, 0, sizeof r);
  const char* display = tool_display_name(o->file);
  double t_start = now_s();
  air_status_t s;
  size_t len = 0;

  /* Artifacts are recognised by name or by the ELF magic; the loader reads the
   * file again itself, so its errors name it. */
  if (tool_read_input(o->file, &r.text, &len)) return TOOL_EXIT_FAILURE;
  int artifact = has_suffix(o->file, ".airbin") || (len >= 4 && !memcmp(r.text, "\x7f" "ELF", 4));

  int rc = TOOL_EXIT_FAILURE;
  s = air_context_create(NULL, NULL, &r.context);
  if (s) {
    rc = report(display, s);
    goto done;
  }
  if (load_kernel_libraries(o, r.context, r.libraries)) goto done;
  if (!artifact) {
    air_parse_options_t popts = {0};
    popts.filename = display;
    s = air_program_parse(r.context, r.text, len, &popts, &r.program);
    if (s) {
      rc = report(display, s);
      goto done;
    }
    for (size_t w = 0; w < air_program_warning_count(r.program); ++w)
      fprintf(stderr, "%s\n", air_program_warning(r.program, w));
  }
  double t_parsed = now_s();

  /* Device errors are about the machine, not a place in the program. */
  s = air_device_open(r.context, o->device, &r.device);
  if (s) {
    rc = report("air-run", s);
    goto done;
  }
  air_device_info_t info;
  memset(&info, 0, sizeof info);
  s = air_device_query(r.device, &info);
  if (s) {
    rc = report("air-run", s);
    goto done;
  }
  if (artifact)
    s = air_executable_create_from_file(r.device, o->file, &r.executable);
  else
    s = air_executable_create(r.device, r.program, o->no_schedule ? AIR_EXECUTABLE_NO_SCHEDULE : 0,
                              &r.executable);
  if (s) {
    rc = report(display, s);
    if (!artifact && !o->no_schedule &&
        !air_executable_create(r.device, r.program, AIR_EXECUTABLE_NO_SCHEDULE, &r.executable))
      fprintf(stderr, "%s: note: the program verifies but cannot be scheduled; --no-schedule "
              "runs it without a compiled schedule\n", display);
    goto done;
  }
  uint32_t ordinal = 0;
  s = air_executable_lookup(r.executable, o->entry, &ordinal);
  if (s) {
    rc = report(display, s);
    goto done;
  }
  const char* found = air_executable_entry_name(r.executable, ordinal);
  r.entry_name = found ? strdup(found) : NULL;
  const char* entry = r.entry_name ? r.entry_name : "entry";
  uint32_t n = 0;
  s = air_executable_signature(r.executable, ordinal, 0, NULL, &n);
  if (s) {
    rc = report(display, s);
    goto done;
  }
  r.params = calloc(n ? n : 1, sizeof *r.params);
  r.buffers = calloc(n ? n : 1, sizeof *r.buffers);
  r.bindings = calloc(n ? n : 1, sizeof *r.bindings);
  r.host = calloc(n ? n : 1, sizeof *r.host);
  if (!r.params || !r.buffers || !r.bindings || !r.host) {
    fprintf(stderr, "air-run: error: out of memory\n");
    goto done;
  }
  r.n_params = n;
  s = air_executable_signature(r.executable, ordinal, n, r.params, &n);
  if (s) {
    rc = report(display, s);
    goto done;
  }

  /* Options that name arguments the entry does not have are caught before any
   * file is read. */
  for (uint32_t k = 0; k < o->n_inputs + o->n_outputs; ++k) {
    const arg_spec_t* a = k < o->n_inputs ? &o->inputs[k] : &o->outputs[k - o->n_inputs];
    char ty[256];
    if (a->is_result) {
      fprintf(stderr, "%s: error: %s r%u=...: @%s returns no memref (results are not supported "
              "by air-run yet; pass the memref as an argument)\n",
              display, a->option, a->index, entry);
      goto done;
    }
    if (a->index >= r.n_params) {
      fprintf(stderr, "%s: error: %s %u=...: @%s has %u argument%s%s\n", display, a->option,
              a->index, entry, r.n_params, r.n_params == 1 ? "" : "s",
              r.n_params ? " (numbered from 0)" : "");
      goto done;
    }
    if (k >= o->n_inputs && r.params[a->index].kind != AIR_ARG_MEMREF) {
      fprintf(stderr, "%s: error: --output %u=...: argument %u of @%s is a scalar %s; only "
              "memrefs are written back\n",
              display, a->index, a->index, entry, arg_type_string(&r.params[a->index], ty, sizeof ty));
      goto done;
    }
  }
  for (uint32_t i = 0; i < r.n_params; ++i) {
    const air_arg_t* p = &r.params[i];
    if (p->kind == AIR_ARG_MEMREF) {
      for (uint32_t d = 0; d < p->memref.rank; ++d)
        if (p->memref.sizes[d] < 0) {
          char ty[256];
          fprintf(stderr, "%s: error: argument %u of @%s is %s: dynamic shapes cannot be run yet\n",
                  display, i, entry, arg_type_string(p, ty, sizeof ty));
          goto done;
        }
    }
    int prc = prepare_argument(&r, o, i);
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
      rc = report(display, s);
      goto done;
    }
    if (host->nbytes) {
      void* ptr = NULL;
      s = air_buffer_map(r.buffers[i], 0, host->nbytes, AIR_MAP_WRITE, &ptr);
      if (s) {
        rc = report(display, s);
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
      rc = report(o->trace, s);
      goto done;
    }
  }
  int64_t timeout_ns = o->timeout_s > 0 ? (int64_t)(o->timeout_s * 1e9) : -1;
  air_dispatch_options_t dopts;
  memset(&dopts, 0, sizeof dopts);
  if (o->no_schedule) dopts.flags = AIR_DISPATCH_DYNAMIC;
  if (o->verbose) print_schedule(r.executable, ordinal, entry, o->no_schedule);
  dopts.watchdog_ns = timeout_ns > 0 ? timeout_ns : 0;
  dopts.trace = r.trace;
  s = air_command_buffer_create(r.device, 0, &r.command_buffer);
  if (!s)
    s = air_command_buffer_dispatch(r.command_buffer, r.executable, ordinal, r.n_params,
                                    r.bindings, &dopts);
  if (!s) s = air_command_buffer_end(r.command_buffer);
  if (!s) s = air_semaphore_create(r.context, 0, &r.semaphore);
  if (s) {
    rc = report(display, s);
    goto done;
  }
  air_semaphore_t* sems[1] = {r.semaphore};
  uint64_t one = 1;
  air_timepoint_list_t signal = {1, sems, &one};
  double t_submit = now_s();
  s = air_device_queue_execute(r.device, 0, NULL, r.command_buffer, &signal);
  if (s) {
    rc = report(display, s);
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
        if (ts) report(o->trace, ts);
      }
      int watchdog = air_status_code(s) == AIR_STATUS_DEADLINE_EXCEEDED;
      rc = report(display, s);
      if (watchdog) {
        /* The watchdog gave up on an op that may still be running on a worker;
         * releasing the device would wait for it. */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
      }
      goto done;
    }
    char d[32];
    fprintf(stderr,
            "%s: error: @%s did not finish within --timeout %g s (waited %s), and the "
            "executor reported neither a deadlock nor an op over the time limit: it is still "
            "computing\n",
            display, entry, o->timeout_s, format_duration(t_done - t_submit, d, sizeof d));
    air_status_free(s);
    if (r.trace) {
      air_status_t ts = air_trace_write_json(r.trace, o->trace);
      if (ts) report(o->trace, ts);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(TOOL_EXIT_FAILURE); /* releasing the device would wait for the stuck work */
  }

  rc = TOOL_EXIT_OK;
  for (uint32_t k = 0; k < o->n_outputs && rc == TOOL_EXIT_OK; ++k)
    rc = write_output(&r, o, &o->outputs[k]);
  if (rc == TOOL_EXIT_OK && r.trace) {
    s = air_trace_write_json(r.trace, o->trace);
    if (s) rc = report(o->trace, s);
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
  release_all(&r);
  return rc;
}

int main(int argc, char** argv) {
  run_options_t* o = malloc(sizeof *o);
  if (!o) {
    fprintf(stderr, "air-run: error: out of memory\n");
    return TOOL_EXIT_FAILURE;
  }
  int rc = parse_command_line(argc, argv, o);
  if (rc < 0) rc = run(o);
  free(o);
  return rc;
}

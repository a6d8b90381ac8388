/* tool_util.c - input, output and diagnostics shared by the tools (one error
 * shape for all of them: tool_util.h). */
#include "tool_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scheduler/resources.h"
#include "runtime/target/target.h"

const char* tool_display_name(const char* path) {
  return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

static void vreport(const char* where, const char* tag, const char* fmt, va_list ap) {
  fprintf(stderr, "%s: %s: ", where && *where ? where : "<unknown>", tag);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

int tool_error(int rc, const char* where, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(where, "error", fmt, ap);
  va_end(ap);
  return rc;
}

void tool_warning(const char* where, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(where, "warning", fmt, ap);
  va_end(ap);
}

void tool_note(const char* where, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(where, "note", fmt, ap);
  va_end(ap);
}

/* "1.5 MiB" style, for limits and sizes in messages. */
static const char* format_bytes(uint64_t n, char* buf, size_t len) {
  if (n >= ((uint64_t)1 << 30) && n % ((uint64_t)1 << 30) == 0)
    snprintf(buf, len, "%llu GiB", (unsigned long long)(n >> 30));
  else if (n >= ((uint64_t)1 << 20) && n % ((uint64_t)1 << 20) == 0)
    snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
  else
    snprintf(buf, len, "%llu bytes", (unsigned long long)n);
  return buf;
}

int tool_read_input(const char* path, char** out_data, size_t* out_length) {
  return tool_read_input_limited(path, TOOL_MAX_INPUT_BYTES, out_data, out_length);
}

int tool_read_input_limited(const char* path, size_t max_bytes, char** out_data,
                            size_t* out_length) {
  *out_data = NULL;
  *out_length = 0;
  int is_stdin = strcmp(path, "-") == 0;
  const char* name = tool_display_name(path);
  char lim[32];
  FILE* f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) return tool_error(-1, name, "cannot open file: %s", strerror(errno));
  /* A directory opens fine on Linux and fails only at the first read, with a
   * message that does not say what was wrong; a regular file's size is known
   * before reading it. Streams (pipes, /dev/zero) are caught by the limit below. */
  struct stat st;
  if (fstat(fileno(f), &st) == 0) {
    const char* why = NULL;
    if (S_ISDIR(st.st_mode)) why = "is a directory, not a file";
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)
      why = "is larger than the input limit";
    if (why) {
      if (!is_stdin) fclose(f);
      if (S_ISDIR(st.st_mode)) return tool_error(-1, name, "%s", why);
      char have[32];
      return tool_error(-1, name, "%s: %s, the limit is %s", why,
                        format_bytes((uint64_t)st.st_size, have, sizeof have),
                        format_bytes(max_bytes, lim, sizeof lim));
    }
  }
  char* data = NULL;
  size_t length = 0, capacity = 0;
  int rc = 0;
  for (;;) {
    /* +1 keeps room for the terminating NUL the parser does not need but
     * debuggers and error paths like; one byte past the limit tells "too big"
     * from "exactly at the limit". */
    if (length + 1 >= capacity) {
      size_t ncap = capacity ? capacity * 2 : 65536;
      if (ncap > max_bytes + 2) ncap = max_bytes + 2;
      char* nd = realloc(data, ncap);
      if (!nd) {
        tool_error(0, name, "out of memory reading input");
        rc = -1;
        break;
      }
      data = nd;
      capacity = ncap;
    }
    size_t n = fread(data + length, 1, capacity - length - 1, f);
    length += n;
    if (length > max_bytes) {
      tool_error(0, name, "input is larger than the input limit of %s (a stream that never "
                 "ends, or not a program)", format_bytes(max_bytes, lim, sizeof lim));
      rc = -1;
      break;
    }
    if (n == 0) {
      if (ferror(f)) {
        tool_error(0, name, "read error: %s", strerror(errno));
        rc = -1;
      }
      break;
    }
  }
  if (!is_stdin) fclose(f);
  if (rc) {
    free(data);
    return rc;
  }
  data[length] = '\0';
  *out_data = data;
  *out_length = length;
  return 0;
}

int tool_is_artifact(const char* data, size_t length) {
  return length >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
}

int tool_refuse_binary(const char* display, const char* data, size_t length) {
  if (tool_is_artifact(data, length)) {
    tool_error(0, display, "this is an .airbin (or another ELF file), not AIR text: "
               "`airc report FILE --target T --emit schedule` shows an .airbin, "
               "`air-run FILE` runs it");
    return 1;
  }
  /* Text has no NUL bytes; a NUL in the first 4 KiB means some other binary file,
   * which the parser would only call an unexpected character. */
  size_t n = length < 4096 ? length : 4096;
  if (n && memchr(data, '\0', n)) {
    tool_error(0, display, "this is a binary file, not AIR text");
    return 1;
  }
  return 0;
}

/* A separator is `// -----` followed only by blanks (a CR from a CRLF file counts
 * as a blank, so files edited on Windows split the same way). */
static int is_separator(const char* line, size_t n) {
  static const char k_sep[] = "// -----";
  const size_t k = sizeof k_sep - 1;
  if (n < k || memcmp(line, k_sep, k) != 0) return 0;
  for (size_t i = k; i < n; ++i)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return 0;
  return 1;
}

static int push_chunk(tool_chunk_t** chunks, size_t* count, size_t* capacity,
                      const char* text, size_t length, uint32_t first_line) {
  if (*count == *capacity) {
    size_t ncap = *capacity ? *capacity * 2 : 8;
    tool_chunk_t* nc = realloc(*chunks, ncap * sizeof **chunks);
    if (!nc) return -1;
    *chunks = nc;
    *capacity = ncap;
  }
  (*chunks)[*count].text = text;
  (*chunks)[*count].length = length;
  (*chunks)[*count].first_line = first_line;
  ++*count;
  return 0;
}

int tool_split_input(const char* data, size_t length, int split, tool_chunk_t** out_chunks,
                     size_t* out_count) {
  tool_chunk_t* chunks = NULL;
  size_t count = 0, capacity = 0;
  *out_chunks = NULL;
  *out_count = 0;
  const char* start = data;
  uint32_t start_line = 1, line = 1;
  size_t pos = 0;
  while (split && pos < length) {
    const char* nl = memchr(data + pos, '\n', length - pos);
    size_t end = nl ? (size_t)(nl - data) : length;
    if (is_separator(data + pos, end - pos)) {
      if (push_chunk(&chunks, &count, &capacity, start, (size_t)(data + pos - start),
                     start_line)) {
        free(chunks);
        return -1;
      }
      start = nl ? nl + 1 : data + length;
      start_line = line + 1;
    }
    pos = nl ? end + 1 : length;
    ++line;
  }
  if (push_chunk(&chunks, &count, &capacity, start, (size_t)(data + length - start),
                 start_line)) {
    free(chunks);
    return -1;
  }
  *out_chunks = chunks;
  *out_count = count;
  return 0;
}

/* Whether a line already has the diagnostic shape `WHERE...: error: `: the tag
 * follows a prefix without blanks (a path with its location), or follows the
 * display name itself (which may have blanks). */
static int is_tagged(const char* line, size_t n, const char* display, size_t dlen) {
  static const char* const k_tags[] = {": error: ", ": warning: ", ": note: "};
  for (size_t t = 0; t < sizeof k_tags / sizeof k_tags[0]; ++t) {
    size_t k = strlen(k_tags[t]);
    size_t from = n > dlen && strncmp(line, display, dlen) == 0 ? dlen : 0;
    for (size_t i = from; i + k <= n; ++i) {
      if (line[i] == ' ' || line[i] == '\t') break;
      if (line[i] == ':' && strncmp(line + i, k_tags[t], k) == 0) return 1;
    }
  }
  return 0;
}

void tool_report_status(const char* display, air_status_t status) {
  if (!status) return;
  const char* msg = air_status_message(status);
  size_t dlen = strlen(display);
  if (!*msg) {
    tool_error(0, display, "%s", air_status_code_name(air_status_code(status)));
    return;
  }
  while (*msg) {
    const char* nl = strchr(msg, '\n');
    size_t n = nl ? (size_t)(nl - msg) : strlen(msg);
    if (n > 0) {
      if (msg[0] == ' ' || msg[0] == '\t' || is_tagged(msg, n, display, dlen)) {
        /* a detail under the line before, or already in shape */
      } else if (n > dlen + 2 && strncmp(msg, display, dlen) == 0 && msg[dlen] == ':' &&
                 msg[dlen + 1] == ' ') {
        /* "DISPLAY: what": the tag goes after the name. */
        fprintf(stderr, "%s: error: ", display);
        msg += dlen + 2;
        n -= dlen + 2;
      } else {
        fprintf(stderr, "%s: error: ", display);
      }
      /* The library cuts its own diagnostics; this is the net for any other. */
      fwrite(msg, 1, n > TOOL_MAX_LINE ? TOOL_MAX_LINE : n, stderr);
      fputs(n > TOOL_MAX_LINE ? "...\n" : "\n", stderr);
    }
    msg += n;
    if (*msg == '\n') ++msg;
  }
}

int tool_fail_status(const char* display, air_status_t status) {
  tool_report_status(display, status);
  air_status_free(status);
  return TOOL_EXIT_FAILURE;
}

void tool_print_warnings(const air_program_t* program) {
  size_t n = air_program_warning_count(program);
  for (size_t w = 0; w < n; ++w) fprintf(stderr, "%s\n", air_program_warning(program, w));
}

void tool_buf_append(tool_buf_t* buf, const char* data, size_t length) {
  if (buf->oom || length == 0) return;
  if (buf->length + length + 1 > buf->capacity) {
    size_t ncap = buf->capacity ? buf->capacity : 4096;
    while (ncap < buf->length + length + 1) ncap *= 2;
    char* nd = realloc(buf->data, ncap);
    if (!nd) {
      buf->oom = 1;
      return;
    }
    buf->data = nd;
    buf->capacity = ncap;
  }
  memcpy(buf->data + buf->length, data, length);
  buf->length += length;
  buf->data[buf->length] = '\0';
}

void tool_buf_free(tool_buf_t* buf) {
  free(buf->data);
  buf->data = NULL;
  buf->length = buf->capacity = 0;
  buf->oom = 0;
}

int tool_write_output(const char* path, const char* data, size_t length) {
  int to_stdout = !path || strcmp(path, "-") == 0;
  const char* name = to_stdout ? "<stdout>" : path;
  FILE* f = to_stdout ? stdout : fopen(path, "wb");
  if (!f) {
    return tool_error(-1, name, "cannot open for writing: %s", strerror(errno));
  }
  int bad = length && fwrite(data, 1, length, f) != length;
  bad |= fflush(f) != 0;
  if (!to_stdout) bad |= fclose(f) != 0;
  if (bad) {
    return tool_error(-1, name, "write failed: %s", strerror(errno));
  }
  return 0;
}

int tool_check_output_path(const char* path) {
  if (!path || strcmp(path, "-") == 0) return 0;
  if (!*path) return tool_error(-1, "<output>", "empty output path");
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return tool_error(-1, path, "is a directory, not a file to write");
    if (access(path, W_OK) != 0)
      return tool_error(-1, path, "cannot write: %s", strerror(errno));
    return 0;
  }
  if (errno != ENOENT) return tool_error(-1, path, "cannot write: %s", strerror(errno));
  /* The file would be created: its directory must exist and take new files. */
  const char* slash = strrchr(path, '/');
  char* dir = NULL;
  if (!slash) {
    dir = strdup(".");
  } else if (slash == path) {
    dir = strdup("/");
  } else {
    dir = malloc((size_t)(slash - path) + 1);
    if (dir) {
      memcpy(dir, path, (size_t)(slash - path));
      dir[slash - path] = '\0';
    }
  }
  if (!dir) return tool_error(-1, path, "out of memory");
  int rc = 0;
  if (stat(dir, &st) != 0)
    rc = tool_error(-1, path, "cannot create file: directory %s: %s", dir, strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    rc = tool_error(-1, path, "cannot create file: %s is not a directory", dir);
  else if (access(dir, W_OK | X_OK) != 0)
    rc = tool_error(-1, path, "cannot create file in %s: %s", dir, strerror(errno));
  free(dir);
  return rc;
}

int tool_option_value(int argc, char** argv, int* index, const char* name,
                      const char** value) {
  const char* arg = argv[*index];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return 0;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (arg[n] != '\0') return 0;
  if (*index + 1 >= argc) return -1;
  *value = argv[++*index];
  return 1;
}

air_status_t tool_parse_verified(air_context_t* context, const char* text, size_t length,
                                 const char* display, const char* target,
                                 air_program_t** out_program) {
  air_parse_options_t opts = {.filename = display};
  *out_program = NULL;
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(context, text, length, &opts, &p);
  if (!s) s = air_program_verify(p, target, 0);
  if (s) {
    air_program_destroy(p);
    return s;
  }
  *out_program = p;
  return NULL;
}

int tool_check_fit(const char* display, const air_program_t* program, const char* target) {
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, target, &t);
  if (s) {
    tool_report_status("airc", s);
    air_status_free(s);
    return TOOL_EXIT_USAGE;
  }
  air_resources_t res;
  s = air_resources_analyze(program, t, &res);
  if (s && air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    /* Valid, and runnable on the dynamic path; only its size is unknown here. */
    tool_warning(display, "the fit on %s was not checked: %s", target, air_status_message(s));
    air_status_free(s);
    return 0;
  }
  if (s) return tool_fail_status(display, s);
  s = air_resources_check(program, &res);
  air_resources_free(&res);
  return s ? tool_fail_status(display, s) : 0;
}

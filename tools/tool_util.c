/* tool_util.c - input, output and diagnostics shared by the tools. */
#include "tool_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char* tool_display_name(const char* path) {
  return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

int tool_read_input(const char* path, char** out_data, size_t* out_length) {
  *out_data = NULL;
  *out_length = 0;
  int is_stdin = strcmp(path, "-") == 0;
  FILE* f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: error: cannot open file: %s\n", path, strerror(errno));
    return -1;
  }
  char* data = NULL;
  size_t length = 0, capacity = 0;
  int rc = 0;
  for (;;) {
    /* +1 keeps room for the terminating NUL the parser does not need but
     * debuggers and error paths like. */
    if (length + 1 >= capacity) {
      size_t ncap = capacity ? capacity * 2 : 65536;
      char* nd = realloc(data, ncap);
      if (!nd) {
        fprintf(stderr, "%s: error: out of memory reading input\n", tool_display_name(path));
        rc = -1;
        break;
      }
      data = nd;
      capacity = ncap;
    }
    size_t n = fread(data + length, 1, capacity - length - 1, f);
    length += n;
    if (n == 0) {
      if (ferror(f)) {
        fprintf(stderr, "%s: error: read error: %s\n", tool_display_name(path),
                strerror(errno));
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

void tool_report_status(const char* display, air_status_t status) {
  if (!status) return;
  const char* msg = air_status_message(status);
  size_t dlen = strlen(display);
  if (!*msg) {
    fprintf(stderr, "%s: error: %s\n", display, air_status_code_name(air_status_code(status)));
    return;
  }
  while (*msg) {
    const char* nl = strchr(msg, '\n');
    size_t n = nl ? (size_t)(nl - msg) : strlen(msg);
    if (n > 0) {
      int located = n > dlen && strncmp(msg, display, dlen) == 0 && msg[dlen] == ':';
      if (!located) fprintf(stderr, "%s: error: ", display);
      fwrite(msg, 1, n, stderr);
      fputc('\n', stderr);
    }
    msg += n;
    if (*msg == '\n') ++msg;
  }
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
    fprintf(stderr, "%s: error: cannot open for writing: %s\n", name, strerror(errno));
    return -1;
  }
  int bad = length && fwrite(data, 1, length, f) != length;
  bad |= fflush(f) != 0;
  if (!to_stdout) bad |= fclose(f) != 0;
  if (bad) {
    fprintf(stderr, "%s: error: write failed: %s\n", name, strerror(errno));
    return -1;
  }
  return 0;
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

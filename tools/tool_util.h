/* tool_util.h - pieces shared by the command-line tools (TOOLS.md contract).
 *
 * Tools own their process, so unlike the library they use the C heap and stdio
 * directly; every helper still reports failure by return value so main() alone
 * decides the exit code.
 */
#ifndef AIR_TOOLS_TOOL_UTIL_H_
#define AIR_TOOLS_TOOL_UTIL_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "air/context.h"
#include "air/program.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes every tool uses (TOOLS.md). */
enum {
  TOOL_EXIT_OK = 0,
  TOOL_EXIT_FAILURE = 1, /* bad program, bad file, failed check */
  TOOL_EXIT_USAGE = 2    /* bad command line */
};

/* The name diagnostics use for an input path: "<stdin>" for "-". */
const char* tool_display_name(const char* path);

/* Reads a whole file ("-" is standard input) into a NUL-terminated heap buffer.
 * Returns 0 on success; otherwise prints `PATH: error: ...` on stderr and
 * returns -1. Release the buffer with free(). */
int tool_read_input(const char* path, char** out_data, size_t* out_length);

/* One independent input of a `--split-input-file` file. */
typedef struct tool_chunk_t {
  const char* text;    /* points into the buffer that was split */
  size_t length;
  uint32_t first_line; /* line number of text's first line in the file */
} tool_chunk_t;

/* Splits `data` at lines that are exactly `// -----` (trailing blanks allowed);
 * the separator lines belong to no chunk. Without `split` the whole input is one
 * chunk. Returns 0 and a heap array (free()) or -1 when out of memory. */
int tool_split_input(const char* data, size_t length, int split, tool_chunk_t** out_chunks,
                     size_t* out_count);

/* Parses `text` (named `display` in diagnostics) and verifies it for `target`
 * (NULL: what holds on every target). On failure *out_program is NULL. */
air_status_t tool_parse_verified(air_context_t* context, const char* text, size_t length,
                                 const char* display, const char* target,
                                 air_program_t** out_program);

/* Prints a failed status on stderr, one diagnostic per line. Lines that do not
 * already carry a location get `DISPLAY: error: ` in front, so every line a tool
 * prints follows MLIR's `FILE:LINE:COL: error: MSG` shape as far as it can. */
void tool_report_status(const char* display, air_status_t status);

/* A growable byte buffer for output assembled before it is written. */
typedef struct tool_buf_t {
  char* data;
  size_t length, capacity;
  int oom; /* set once an append failed; later appends are dropped */
} tool_buf_t;

void tool_buf_append(tool_buf_t* buf, const char* data, size_t length);
void tool_buf_free(tool_buf_t* buf);

/* Writes `length` bytes to `path` ("-" or NULL means standard output). Returns 0
 * on success; otherwise prints `PATH: error: ...` and returns -1. */
int tool_write_output(const char* path, const char* data, size_t length);

/* Matches an option that takes a value, spelled `NAME VALUE` or `NAME=VALUE`.
 * Returns 1 and sets *value (advancing *index past a separate value) when argv[*index]
 * is that option, 0 when it is not, -1 when the value is missing. */
int tool_option_value(int argc, char** argv, int* index, const char* name,
                      const char** value);

#ifdef __cplusplus
}
#endif
#endif /* AIR_TOOLS_TOOL_UTIL_H_ */

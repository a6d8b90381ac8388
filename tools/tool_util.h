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

/* ---- diagnostics ----------------------------------------------------------
 * Every line a tool writes to stderr about a problem has one shape (TOOLS.md):
 *   WHERE[:LINE:COL]: error: MESSAGE      (also `warning:` and `note:`)
 * WHERE is the file the problem is in, or the tool's own name ("airc compile",
 * "air-run") when it is about the command line or the machine. Lines indented
 * under such a line are its details (e.g. every op a deadlock blocks). Usage
 * errors are followed by the `usage:` lines. tests/tools/error_format.sh checks
 * every tool's failure paths against this. */

/* Prints `WHERE: error: MESSAGE` and returns `rc`, so a command can say
 * `return tool_error(TOOL_EXIT_USAGE, "airc pack", "no input file");`. */
int tool_error(int rc, const char* where, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tool_warning(const char* where, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void tool_note(const char* where, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks that a verified program fits `target` (tiles, L1/L2 bytes, DMA channels:
 * what `airc compile` and `report` check), printing every violation. A program
 * whose needs cannot be computed statically (an alloc of dynamic size) gets a
 * warning saying the fit was not checked. Returns 0 when it fits (or could not be
 * checked), TOOL_EXIT_FAILURE otherwise; an unknown target is TOOL_EXIT_USAGE. */
int tool_check_fit(const char* display, const air_program_t* program, const char* target);

/* Prints a failed status on stderr, one diagnostic per line, in the shape above:
 * lines that already carry `...: error:` (or warning/note) are kept, indented
 * lines are details and kept, `DISPLAY: what` gets its `error:` tag, and any
 * other line gets `DISPLAY: error: ` in front. */
void tool_report_status(const char* display, air_status_t status);

/* The longest line tool_report_status writes; longer ones are cut with "...". */
enum { TOOL_MAX_LINE = 4000 };

/* tool_report_status, then frees the status; returns TOOL_EXIT_FAILURE. */
int tool_fail_status(const char* display, air_status_t status);

/* Prints the warnings a parse recorded (the parser already caps repeated ones). */
void tool_print_warnings(const air_program_t* program);

/* ---- input ---------------------------------------------------------------- */

/* The largest input file a tool reads: the parser's default limit (256 MiB,
 * air_parse_options_t.max_bytes). A bigger file, or a stream like /dev/zero that
 * never ends, is an error naming the limit, not a machine out of memory. */
#define TOOL_MAX_INPUT_BYTES ((size_t)AIR_PARSE_DEFAULT_MAX_BYTES)

/* Reads a whole file ("-" is standard input) into a NUL-terminated heap buffer,
 * at most TOOL_MAX_INPUT_BYTES. Returns 0 on success; otherwise prints
 * `PATH: error: ...` on stderr (a directory, a missing file, a file over the
 * limit) and returns -1. Release the buffer with free(). */
int tool_read_input(const char* path, char** out_data, size_t* out_length);
/* The same with an explicit limit in bytes. */
int tool_read_input_limited(const char* path, size_t max_bytes, char** out_data,
                            size_t* out_length);

/* True when `data` starts like an .airbin artifact (an ELF file). */
int tool_is_artifact(const char* data, size_t length);

/* For commands that read AIR text only: when `data` is an .airbin (or another
 * binary file), prints `DISPLAY: error: ...` saying what it is and which command
 * reads it, and returns 1; otherwise 0. */
int tool_refuse_binary(const char* display, const char* data, size_t length);

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

/* Checks, before any work, that `path` can be written later: not a directory, its
 * directory exists and is writable, an existing file is writable. "-" and NULL
 * (standard output) pass. Returns 0, or prints `PATH: error: ...` and returns -1.
 * Nothing is created. */
int tool_check_output_path(const char* path);

/* Matches an option that takes a value, spelled `NAME VALUE` or `NAME=VALUE`.
 * Returns 1 and sets *value (advancing *index past a separate value) when argv[*index]
 * is that option, 0 when it is not, -1 when the value is missing. */
int tool_option_value(int argc, char** argv, int* index, const char* name,
                      const char** value);

#ifdef __cplusplus
}
#endif
#endif /* AIR_TOOLS_TOOL_UTIL_H_ */

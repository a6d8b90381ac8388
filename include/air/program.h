/* air/program.h - an AIR program: load from text, print, verify.
 *
 * A program is one module (one input of a `// -----` split file). It is created
 * empty for the builder (air/builder.h), or parsed from AIR's textual form as
 * mlir-air prints it. A program is not thread-safe to modify; const calls may run
 * concurrently.
 */
#ifndef AIR_PROGRAM_H_
#define AIR_PROGRAM_H_

#include "air/config.h"

#include <stddef.h>
#include <stdint.h>

#include "air/context.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct air_program_t air_program_t;

/* The largest text parsed unless air_parse_options_t.max_bytes says otherwise:
 * 256 MiB, far above any program, far below what would exhaust a machine. */
#define AIR_PARSE_DEFAULT_MAX_BYTES ((uint64_t)256 << 20)

/* Options for parsing; zero-initialised means defaults. */
typedef struct air_parse_options_t {
  uint32_t flags;       /* reserved, must be 0 */
  const char* filename; /* used in diagnostics; NULL means "<input>" */
  uint32_t first_line;  /* line number of the text's first line; 0 means 1 */
  /* The most bytes of text accepted; 0 means AIR_PARSE_DEFAULT_MAX_BYTES,
   * UINT64_MAX no limit. Longer text (or a file that keeps going, like
   * /dev/zero) fails with RESOURCE_EXHAUSTED naming the limit, before parsing. */
  uint64_t max_bytes;
} air_parse_options_t;

/* Creates an empty program (a module with no operations). */
AIR_API air_status_t air_program_create(air_context_t* context, air_program_t** out_program);

/* Parses AIR text (`length` bytes; need not be NUL-terminated). On failure the
 * status message is `file:line:col: error: ...` and *out_program is NULL. */
AIR_API air_status_t air_program_parse(air_context_t* context, const char* text, size_t length,
                               const air_parse_options_t* options,
                               air_program_t** out_program);

/* Reads and parses a file, reading no more than the options' max_bytes (so an
 * endless stream is an error, not exhausted memory); a directory or a missing
 * file is an error naming the path. */
AIR_API air_status_t air_program_parse_file(air_context_t* context, const char* path,
                                    const air_parse_options_t* options,
                                    air_program_t** out_program);

/* Destroys a program; NULL is accepted. */
AIR_API void air_program_destroy(air_program_t* program);

/* Receives printed text piece by piece; a failed status stops the printer. */
typedef air_status_t (*air_write_fn_t)(void* user_data, const char* data, size_t length);

/* Prints the program as AIR text. The output parses back to the same program, and
 * printing that again gives the same text. `flags` is reserved and must be 0. */
AIR_API air_status_t air_program_print(const air_program_t* program, uint32_t flags,
                               air_write_fn_t write, void* user_data);

/* Prints into a NUL-terminated string allocated with the context's allocator;
 * release it with air_program_free_string(). `flags` as for air_program_print. */
AIR_API air_status_t air_program_print_to_string(const air_program_t* program, uint32_t flags,
                                         char** out_text, size_t* out_length);

/* Releases a string returned by air_program_print_to_string(). */
AIR_API void air_program_free_string(const air_program_t* program, char* text);

/* Checks every rule of the AIR spec that one program can break. `target` is NULL
 * for the checks that hold on every target, or a target name: "cpu", an AIE device
 * as mlir-air names it ("xcvc1902", "xcve2302", "xcve2802", "npu1", "npu1_1col" ...
 * "npu1_3col", "npu2", "npu2_1col" ... "npu2_7col"), or a GPU ("mi300x"); an
 * unknown name is INVALID_ARGUMENT listing them. The status lists every violation, one
 * `file:line:col: error: [rule] message` line each. `flags` is reserved and must
 * be 0. */
AIR_API air_status_t air_program_verify(const air_program_t* program, const char* target,
                                uint32_t flags);

/* Warnings recorded while parsing (e.g. an opaque declaration of another dialect),
 * each formatted `file:line:col: warning: ...`. */
AIR_API size_t air_program_warning_count(const air_program_t* program);
AIR_API const char* air_program_warning(const air_program_t* program, size_t index);

#ifdef __cplusplus
}
#endif
#endif /* AIR_PROGRAM_H_ */

/* fuzz_parse.c - the parser fuzz target: parse, verify, print, re-parse.
 *
 * Built two ways from this one file:
 *  - with AIR_FUZZ_LIBFUZZER (clang -fsanitize=fuzzer,...): a libFuzzer target;
 *  - plain, linked with fuzz_driver.c: runs saved inputs as an ordinary ctest
 *    under any compiler, so every input the fuzzer ever found stays a test.
 *
 * What must hold for any input: no crash, no leak (every allocation made through
 * the context's allocator is returned), failures carry a located message, and a
 * program that parses prints to text that parses back and prints identically.
 * A broken promise ends the process with __builtin_trap(): this is a test harness,
 * and a trap is what lets the fuzzer stop and save the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air.h"
#include "fuzz_parse.h"
#include "fuzz_util.h"

static const char k_filename[] = "fuzz.mlir";

/* Program errors must say where they are: `fuzz.mlir:LINE:COL: error: ...`. An
 * allocation failure may not know a location, so it is exempt. */
static void check_failure(air_status_t s) {
  const char* msg = air_status_message(s);
  FUZZ_CHECK(msg && *msg);
  int located = strncmp(msg, k_filename, sizeof k_filename - 1) == 0 &&
                msg[sizeof k_filename - 1] == ':';
  if (!located && air_status_code(s) != AIR_STATUS_RESOURCE_EXHAUSTED) {
    fprintf(stderr, "status without a location (%s): %s\n",
            air_status_code_name(air_status_code(s)), msg);
    FUZZ_CHECK(located);
  }
}

static void round_trip(air_context_t* context, const air_program_t* program) {
  char* first = NULL;
  size_t first_length = 0;
  air_status_t s = air_program_print_to_string(program, 0, &first, &first_length);
  if (s) {
    /* Until the printer exists there is nothing to compare. */
    FUZZ_CHECK(air_status_code(s) == AIR_STATUS_UNIMPLEMENTED ||
               air_status_code(s) == AIR_STATUS_RESOURCE_EXHAUSTED);
    air_status_free(s);
    return;
  }
  FUZZ_CHECK(first && strlen(first) == first_length);

  air_parse_options_t options = {0};
  options.filename = k_filename;
  air_program_t* again = NULL;
  s = air_program_parse(context, first, first_length, &options, &again);
  if (s) {
    fprintf(stderr, "printed text does not parse: %s\n--- printed:\n%.4000s\n",
            air_status_message(s), first);
    FUZZ_CHECK(s == AIR_STATUS_OK_VALUE);
  }

  char* second = NULL;
  size_t second_length = 0;
  s = air_program_print_to_string(again, 0, &second, &second_length);
  FUZZ_CHECK(s == AIR_STATUS_OK_VALUE);
  if (second_length != first_length || memcmp(first, second, first_length) != 0) {
    fprintf(stderr, "print(parse(print)) != print\n--- first:\n%.4000s\n--- second:\n%.4000s\n",
            first, second);
    FUZZ_CHECK(second_length == first_length && memcmp(first, second, first_length) == 0);
  }

  air_program_free_string(again, second);
  air_program_destroy(again);
  air_program_free_string(program, first);
}

void air_fuzz_parse_one(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t allocator = fuzz_counting_allocator(&counter);
  air_context_t* context = NULL;
  air_status_t s = air_context_create(NULL, &allocator, &context);
  if (s) {
    air_status_free(s);
    return;
  }

  air_parse_options_t options = {0};
  options.filename = k_filename;
  air_program_t* program = NULL;
  s = air_program_parse(context, (const char*)data, size, &options, &program);
  if (s) {
    FUZZ_CHECK(program == NULL);
    check_failure(s);
    air_status_free(s);
  } else {
    FUZZ_CHECK(program != NULL);
    for (size_t i = 0; i < air_program_warning_count(program); ++i)
      FUZZ_CHECK(air_program_warning(program, i) != NULL);
    static const char* const k_targets[] = {NULL, "cpu", "npu1", "npu2", "mi300x"};
    for (size_t t = 0; t < sizeof k_targets / sizeof k_targets[0]; ++t) {
      s = air_program_verify(program, k_targets[t], 0);
      if (s) {
        FUZZ_CHECK(*air_status_message(s));
        air_status_free(s);
      }
    }
    round_trip(context, program);
    air_program_destroy(program);
  }
  air_context_destroy(context);
  if (counter.live) fprintf(stderr, "%zu allocations leaked\n", counter.live);
  FUZZ_CHECK(counter.live == 0);
}

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_parse_one(data, size);
  return 0;
}
#endif

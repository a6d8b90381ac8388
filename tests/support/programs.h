/* programs.h - test programs: parsed and verified from a file or from text, and
 * the functions and ops tests look up in them. */
#ifndef AIR_TESTS_SUPPORT_PROGRAMS_H_
#define AIR_TESTS_SUPPORT_PROGRAMS_H_

#include <stddef.h>

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"

/* Parses and verifies a program file / text named `name` (fails the test on an
 * error). */
air_program_t* test_load_file(air_context_t* ctx, const char* path);
air_program_t* test_load_text(air_context_t* ctx, const char* name, const char* text);
/* `text` with each keys[k] (delimiters included, e.g. "@N@") replaced by
 * vals[k], into `out` (`cap` bytes: fails the test when it does not fit). The
 * first key that matches wins. */
void test_text_subst(char* out, size_t cap, const char* text, const char* const* keys,
                     const char* const* vals, int n);
/* The module's func.func @name, or NULL. */
const air_op_t* test_find_func(const air_program_t* p, const char* name);
/* The first op of `kind` (named `sym`, unless NULL) in `op` or nested in it. */
const air_op_t* test_find_op(const air_op_t* op, air_opkind_t kind, const char* sym);

#endif /* AIR_TESTS_SUPPORT_PROGRAMS_H_ */

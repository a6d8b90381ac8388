/* programs.h - test programs: parsed and verified from a file or from text, and
 * the functions and ops tests look up in them. */
#ifndef AIR_TESTS_SUPPORT_PROGRAMS_H_
#define AIR_TESTS_SUPPORT_PROGRAMS_H_

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"

/* Parses and verifies a program file / text named `name` (fails the test on an
 * error). */
air_program_t* test_load_file(air_context_t* ctx, const char* path);
air_program_t* test_load_text(air_context_t* ctx, const char* name, const char* text);
/* The module's func.func @name, or NULL. */
const air_op_t* test_find_func(const air_program_t* p, const char* name);
/* The first op of `kind` (named `sym`, unless NULL) in `op` or nested in it. */
const air_op_t* test_find_op(const air_op_t* op, air_opkind_t kind, const char* sym);

#endif /* AIR_TESTS_SUPPORT_PROGRAMS_H_ */

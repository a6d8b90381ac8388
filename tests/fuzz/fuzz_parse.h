/* fuzz_parse.h - the one function both fuzz builds share (see fuzz_parse.c). */
#ifndef AIR_TESTS_FUZZ_PARSE_H_
#define AIR_TESTS_FUZZ_PARSE_H_

#include <stddef.h>
#include <stdint.h>

/* Runs every check on one input; traps if a promise is broken. */
void air_fuzz_parse_one(const uint8_t* data, size_t size);

#endif /* AIR_TESTS_FUZZ_PARSE_H_ */

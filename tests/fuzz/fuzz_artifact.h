/* fuzz_artifact.h - the .airbin reader's fuzz check, shared by the libFuzzer
 * target, the corpus replay and the mutation test (tests/test_artifact.c). */
#ifndef AIR_TESTS_FUZZ_ARTIFACT_H_
#define AIR_TESTS_FUZZ_ARTIFACT_H_

#include <stddef.h>
#include <stdint.h>

/* Reads one input as an .airbin; traps if a promise is broken. Returns 1 when
 * the input loaded, 0 when it was rejected. */
int air_fuzz_artifact_check(const uint8_t* data, size_t size);
/* The same, with fuzz_driver.c's signature (it is built with
 * -Dair_fuzz_parse_one=air_fuzz_artifact_one for the corpus replay). */
void air_fuzz_artifact_one(const uint8_t* data, size_t size);

#endif /* AIR_TESTS_FUZZ_ARTIFACT_H_ */

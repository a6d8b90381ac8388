/* status.h - test checks on air_status_t results: fail with the message on an
 * unexpected error, expect a code and a phrase, expect a phrase in a message. */
#ifndef AIR_TESTS_SUPPORT_STATUS_H_
#define AIR_TESTS_SUPPORT_STATUS_H_

#include "air/status.h"

/* Fails the test, printing the message, unless `st` is success (frees it). */
void test_check(air_status_t st);
/* Fails unless `st` has `code` and, when `needle` is not NULL, a message holding
 * it (a non-OK code needs a status). Frees `st`. */
void test_expect_status(air_status_t st, air_status_code_t code, const char* needle);
/* Fails unless `msg` contains the formatted text. */
void test_expect_in(const char* msg, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* AIR_TESTS_SUPPORT_STATUS_H_ */

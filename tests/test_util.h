/* test_util.h - helpers the cmocka tests share: whole-file reads and a context
 * fixture. Header-only so each test stays one translation unit. */
#ifndef AIR_TESTS_TEST_UTIL_H_
#define AIR_TESTS_TEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>

#include "air/context.h"

/* Reads a whole file into a NUL-terminated malloc'd buffer (NULL on failure). */
static inline char* test_read_file(const char* path, size_t* len) {
  *len = 0;
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap + 1);
  for (size_t k; buf && (k = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += k;
    if (n == cap) {
      char* bigger = realloc(buf, (cap *= 2) + 1);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *len = buf ? n : 0;
  return buf;
}

/* cmocka group fixture: *state becomes a fresh air_context_t. */
static inline int test_context_setup(void** state) {
  air_context_t* ctx = NULL;
  if (air_context_create(NULL, NULL, &ctx)) return -1;
  *state = ctx;
  return 0;
}

static inline int test_context_teardown(void** state) {
  air_context_destroy(*state);
  return 0;
}

#endif /* AIR_TESTS_TEST_UTIL_H_ */

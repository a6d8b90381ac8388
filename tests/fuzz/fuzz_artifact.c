/* fuzz_artifact.c - the .airbin reader fuzz target: read, and when that succeeds
 * write the result back and read it again.
 *
 * Built like fuzz_parse.c: with AIR_FUZZ_LIBFUZZER as a libFuzzer target, plain
 * with fuzz_driver.c to replay the corpus as a ctest, and linked into
 * test_artifact for its deterministic mutation loop.
 *
 * What must hold for any input: no crash, no leak; a rejected input gets
 * INVALID_ARGUMENT (not an .airbin at all), DATA_LOSS (corrupt) or
 * RESOURCE_EXHAUSTED with a message naming the file, and nothing is returned; an
 * accepted input writes back to an artifact that reads again, and writing that
 * gives the same bytes (writing is a fixed point after one round); its host code
 * (`.air.code`) comes back unchanged. */
#include <string.h>

#include "air/air.h"
#include "fuzz_artifact.h"
#include "fuzz_util.h"
#include "scheduler/artifact/artifact.h"

static const char k_name[] = "fuzz.airbin";

static void check_failure(air_status_t s, const air_program_t* p, const air_schedule_t* sc) {
  air_status_code_t code = air_status_code(s);
  const char* msg = air_status_message(s);
  FUZZ_CHECK(p == NULL && sc == NULL);
  if (code != AIR_STATUS_INVALID_ARGUMENT && code != AIR_STATUS_DATA_LOSS &&
      code != AIR_STATUS_RESOURCE_EXHAUSTED) {
    fprintf(stderr, "unexpected status %s: %s\n", air_status_code_name(code), msg);
    FUZZ_CHECK(0);
  }
  FUZZ_CHECK(code == AIR_STATUS_RESOURCE_EXHAUSTED || strncmp(msg, k_name, sizeof k_name - 1) == 0);
}

static void rewrite(air_context_t* ctx, const air_program_t* p, const air_schedule_t* sc,
                    const air_artifact_code_t* code) {
  const air_allocator_t* a = air_context_allocator(ctx);
  void *first = NULL, *second = NULL;
  size_t first_size = 0, second_size = 0;
  air_status_t s = air_artifact_write_ex(a, p, sc, code, &first, &first_size);
  FUZZ_CHECK(s == NULL);
  air_program_t* p2 = NULL;
  air_schedule_t* sc2 = NULL;
  air_artifact_code_t code2;
  s = air_artifact_read_ex(ctx, first, first_size, k_name, &p2, &sc2, &code2);
  if (s) fprintf(stderr, "a written artifact does not read back: %s\n", air_status_message(s));
  FUZZ_CHECK(s == NULL);
  /* The host code comes back as it went in. */
  FUZZ_CHECK((code2.object != NULL) == (code->object != NULL));
  FUZZ_CHECK(code2.size == code->size && code2.n_units == code->n_units);
  FUZZ_CHECK(!code->object || memcmp(code2.object, code->object, code->size) == 0);
  s = air_artifact_write_ex(a, p2, sc2, &code2, &second, &second_size);
  FUZZ_CHECK(s == NULL);
  FUZZ_CHECK(first_size == second_size && memcmp(first, second, first_size) == 0);
  a->free(a->self, first);
  a->free(a->self, second);
  a->free(a->self, code2.object);
  air_schedule_free(sc2);
  air_program_destroy(p2);
}

int air_fuzz_artifact_check(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t allocator = fuzz_counting_allocator(&counter);
  air_context_t* ctx = NULL;
  air_status_t s = air_context_create(NULL, &allocator, &ctx);
  if (s) {
    air_status_free(s);
    return 0;
  }
  air_program_t* p = NULL;
  air_schedule_t* sc = NULL;
  air_artifact_code_t code;
  s = air_artifact_read_ex(ctx, data, size, k_name, &p, &sc, &code);
  int loaded = s == NULL;
  if (s) {
    check_failure(s, p, sc);
    FUZZ_CHECK(code.object == NULL);
    air_status_free(s);
  } else {
    FUZZ_CHECK(p != NULL && sc != NULL);
    rewrite(ctx, p, sc, &code);
    air_context_allocator(ctx)->free(air_context_allocator(ctx)->self, code.object);
    air_schedule_free(sc);
    air_program_destroy(p);
  }
  air_context_destroy(ctx);
  if (counter.live) fprintf(stderr, "%zu allocations leaked\n", counter.live);
  FUZZ_CHECK(counter.live == 0);
  return loaded;
}

void air_fuzz_artifact_one(const uint8_t* data, size_t size) { air_fuzz_artifact_check(data, size); }

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_artifact_check(data, size);
  return 0;
}
#endif

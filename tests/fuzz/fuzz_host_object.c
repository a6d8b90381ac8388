/* fuzz_host_object.c - the host object loader (hal/host_object.c) fuzz target:
 * link the input into memory and free it; nothing is ever called.
 *
 * Built like fuzz_artifact.c: with AIR_FUZZ_LIBFUZZER as a libFuzzer target, and
 * plain with fuzz_driver.c to replay tests/fuzz/host_object_corpus as a ctest.
 *
 * What must hold for any input: no crash, no leak (memory or mappings: every
 * mapping goes with the object); a rejected input gets DATA_LOSS (or
 * RESOURCE_EXHAUSTED) with a message naming it, and no object; an accepted one
 * lists functions whose addresses lie in its code. */
#include <string.h>

#include "fuzz_util.h"
#include "hal/host_object.h"

static const char k_name[] = "fuzz.o";

int air_fuzz_host_object_check(const uint8_t* data, size_t size);
void air_fuzz_host_object_one(const uint8_t* data, size_t size);

int air_fuzz_host_object_check(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t allocator = fuzz_counting_allocator(&counter);
  air_host_object_t* o = NULL;
  air_status_t s = air_host_object_load(&allocator, data, size, k_name, &o);
  int loaded = s == NULL;
  if (s) {
    air_status_code_t code = air_status_code(s);
    FUZZ_CHECK(o == NULL);
    FUZZ_CHECK(code == AIR_STATUS_DATA_LOSS || code == AIR_STATUS_RESOURCE_EXHAUSTED);
    FUZZ_CHECK(code == AIR_STATUS_RESOURCE_EXHAUSTED ||
               strncmp(air_status_message(s), k_name, sizeof k_name - 1) == 0);
    air_status_free(s);
  } else {
    FUZZ_CHECK(o != NULL);
    for (uint32_t i = 0; i < air_host_object_count(o); ++i) {
      FUZZ_CHECK(air_host_object_name(o, i) != NULL);
      FUZZ_CHECK(air_host_object_address(o, i) != NULL);
    }
    air_host_object_free(o);
  }
  if (counter.live) fprintf(stderr, "%zu allocations leaked\n", counter.live);
  FUZZ_CHECK(counter.live == 0);
  return loaded;
}

void air_fuzz_host_object_one(const uint8_t* data, size_t size) {
  air_fuzz_host_object_check(data, size);
}

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_host_object_check(data, size);
  return 0;
}
#endif

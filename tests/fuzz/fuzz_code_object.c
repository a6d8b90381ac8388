/* fuzz_code_object.c - the AMDGPU code-object reader's fuzz target
 * (src/amdgpu/code_object.c, metadata.c). Built like fuzz_artifact.c: a libFuzzer
 * target with AIR_FUZZ_LIBFUZZER, and plain with fuzz_driver.c to replay the
 * corpus as a ctest.
 *
 * What must hold for any input: no crash, no leak; a rejected input gets
 * INVALID_ARGUMENT (not an AMDGPU HSA code object), DATA_LOSS (corrupt),
 * UNIMPLEMENTED (another version or processor) or RESOURCE_EXHAUSTED, with a
 * message naming the input; an accepted one has every kernel's arguments inside
 * its kernarg segment and names every kernel by its own descriptor symbol. */
#include <string.h>

#include "amdgpu/code_object.h"
#include "fuzz_util.h"

static const char k_name[] = "fuzz.hsaco";

void air_fuzz_code_object_one(const uint8_t* data, size_t size);

void air_fuzz_code_object_one(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t allocator = fuzz_counting_allocator(&counter);
  air_amdgpu_code_object_t* co = NULL;
  air_status_t s = air_amdgpu_code_object_read(&allocator, data, size, k_name, &co);
  if (s) {
    air_status_code_t c = air_status_code(s);
    FUZZ_CHECK(co == NULL);
    FUZZ_CHECK(c == AIR_STATUS_INVALID_ARGUMENT || c == AIR_STATUS_DATA_LOSS ||
               c == AIR_STATUS_UNIMPLEMENTED || c == AIR_STATUS_RESOURCE_EXHAUSTED);
    FUZZ_CHECK(c == AIR_STATUS_RESOURCE_EXHAUSTED ||
               strncmp(air_status_message(s), k_name, sizeof k_name - 1) == 0);
    air_status_free(s);
  } else {
    FUZZ_CHECK(co && co->target && co->gfx);
    for (uint32_t k = 0; k < co->n_kernels; ++k) {
      const air_amdgpu_kernel_t* K = &co->kernels[k];
      FUZZ_CHECK(K->name && K->symbol);
      FUZZ_CHECK(K->kd.kernarg_size == K->kernarg_segment_size);
      for (uint32_t i = 0; i < K->n_args; ++i)
        FUZZ_CHECK((uint64_t)K->args[i].offset + K->args[i].size <= K->kernarg_segment_size);
    }
    air_amdgpu_code_object_free(co);
  }
  if (counter.live) fprintf(stderr, "%zu allocations leaked\n", counter.live);
  FUZZ_CHECK(counter.live == 0);
}

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_code_object_one(data, size);
  return 0;
}
#endif

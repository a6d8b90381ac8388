/* fuzz_aie.c - the mlir-aie module reader fuzz target: text to op tree to
 * instruction stream (npu/insts.h).
 *
 * What must hold for any input: no crash, hang or leak; a refused module gets
 * INVALID_ARGUMENT (or RESOURCE_EXHAUSTED) with a message that starts with the
 * file name; an accepted module's stream decodes (the lowering never writes what
 * the decoder refuses) and has the device's geometry. */
#include <string.h>

#include "fuzz_npu.h"
#include "fuzz_util.h"
#include "npu/insts.h"
#include "npu/txn.h"

static const char k_name[] = "fuzz.mlir";

int air_fuzz_aie_check(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t a = fuzz_counting_allocator(&counter);
  uint32_t* words = NULL;
  size_t n = 0;
  int ok = 0;
  air_status_t s = air_npu_insts_from_module(&a, (const char*)data, size, k_name, NULL, &words, &n);
  if (s) {
    air_status_code_t code = air_status_code(s);
    const char* msg = air_status_message(s);
    FUZZ_CHECK(words == NULL);
    if (code != AIR_STATUS_RESOURCE_EXHAUSTED) {
      if (code != AIR_STATUS_INVALID_ARGUMENT) fprintf(stderr, "unexpected status: %s\n", msg);
      FUZZ_CHECK(code == AIR_STATUS_INVALID_ARGUMENT);
      FUZZ_CHECK(strncmp(msg, k_name, sizeof k_name - 1) == 0);
    }
    air_status_free(s);
  } else {
    ok = 1;
    air_txn_view_t v;
    s = air_txn_decode(&a, words, n, "lowered", &v);
    if (s) fprintf(stderr, "the lowered stream does not decode: %s\n", air_status_message(s));
    FUZZ_CHECK(s == NULL);
    FUZZ_CHECK(v.geom.rows == 6 && v.geom.cols >= 1 && v.geom.cols <= 8);
    FUZZ_CHECK(v.geom.dev_gen == 3 || v.geom.dev_gen == 4);
    air_txn_view_free(&a, &v);
    a.free(a.self, words);
  }
  FUZZ_CHECK(counter.live == 0);
  return ok;
}

void air_fuzz_aie_one(const uint8_t* data, size_t size) { air_fuzz_aie_check(data, size); }

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_aie_check(data, size);
  return 0;
}
#endif

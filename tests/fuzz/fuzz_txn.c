/* fuzz_txn.c - the TXN stream reader fuzz target: bytes (binary or hex text) to
 * words, words to decoded ops, ops to a listing and back to words.
 *
 * What must hold for any input: no crash, no leak; a refused input gets
 * DATA_LOSS (or RESOURCE_EXHAUSTED) with a message naming the file, and a decoder
 * refusal names the word; an accepted stream lists, and encoding its decoded ops
 * gives the same words (the decoder accepts only what the encoder writes). */
#include <string.h>

#include "fuzz_npu.h"
#include "fuzz_util.h"
#include "npu/txn.h"

static const char k_name[] = "fuzz.bin";

static void check_refusal(air_status_t s, int decoding) {
  air_status_code_t code = air_status_code(s);
  const char* msg = air_status_message(s);
  if (code == AIR_STATUS_RESOURCE_EXHAUSTED) return;
  if (code != AIR_STATUS_DATA_LOSS) fprintf(stderr, "unexpected status: %s\n", msg);
  FUZZ_CHECK(code == AIR_STATUS_DATA_LOSS);
  FUZZ_CHECK(strncmp(msg, k_name, sizeof k_name - 1) == 0);
  if (decoding && !strstr(msg, "word")) fprintf(stderr, "no word named: %s\n", msg);
  FUZZ_CHECK(!decoding || strstr(msg, "word") != NULL);
}

int air_fuzz_txn_check(const uint8_t* data, size_t size) {
  fuzz_counter_t counter = {0};
  air_allocator_t a = fuzz_counting_allocator(&counter);
  uint32_t* words = NULL;
  size_t n = 0;
  int ok = 0;
  air_status_t s = air_txn_read_file_bytes(&a, data, size, k_name, &words, &n);
  if (s) {
    FUZZ_CHECK(words == NULL);
    check_refusal(s, 0);
    air_status_free(s);
  } else {
    air_txn_view_t v;
    s = air_txn_decode(&a, words, n, k_name, &v);
    if (s) {
      FUZZ_CHECK(v.ops == NULL && v.n_ops == 0);
      check_refusal(s, 1);
      air_status_free(s);
    } else {
      ok = 1;
      char* text = NULL;
      size_t tl = 0;
      s = air_txn_list(&a, &v, &text, &tl);
      FUZZ_CHECK(s == NULL && text != NULL && strlen(text) == tl);
      a.free(a.self, text);
      air_txn_t t;
      air_txn_init(&t, &a, v.geom);
      for (uint32_t i = 0; i < v.n_ops; ++i) air_txn_encode_op(&t, &v.ops[i]);
      s = air_txn_finish(&t);
      FUZZ_CHECK(s == NULL);
      FUZZ_CHECK(t.n_words == n && memcmp(t.words, words, n * 4) == 0);
      air_txn_free(&t);
      air_txn_view_free(&a, &v);
    }
    a.free(a.self, words);
  }
  FUZZ_CHECK(counter.live == 0);
  return ok;
}

void air_fuzz_txn_one(const uint8_t* data, size_t size) { air_fuzz_txn_check(data, size); }

#ifdef AIR_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  air_fuzz_txn_check(data, size);
  return 0;
}
#endif

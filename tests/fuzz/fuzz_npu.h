/* fuzz_npu.h - fuzz checks of the NPU readers: the TXN stream decoder
 * (fuzz_txn.c) and the mlir-aie module reader and lowering (fuzz_aie.c), shared
 * by the libFuzzer targets and the corpus replays (tests/fuzz_npu.cmake). */
#ifndef AIR_TESTS_FUZZ_NPU_H_
#define AIR_TESTS_FUZZ_NPU_H_

#include <stddef.h>
#include <stdint.h>

/* Each returns 1 when the input was accepted, 0 when refused; traps when a
 * promise is broken. The _one forms have fuzz_driver.c's signature. */
int air_fuzz_txn_check(const uint8_t* data, size_t size);
void air_fuzz_txn_one(const uint8_t* data, size_t size);
int air_fuzz_aie_check(const uint8_t* data, size_t size);
void air_fuzz_aie_one(const uint8_t* data, size_t size);

#endif /* AIR_TESTS_FUZZ_NPU_H_ */

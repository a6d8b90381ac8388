/* insts.h - the instruction stream of an mlir-aie device module: reads
 * `aie.device(npu1|npu1_Ncol|npu2|npu2_Ncol) { ... }` with an `aie.runtime_sequence`
 * or `aiex.runtime_sequence` and lowers the sequence's `aiex.npu.*` ops to a TXN
 * 0.1 stream (what mlir-aie writes as insts.bin). Other ops of the module are read
 * and kept but not interpreted; an op inside the sequence that this lowering does
 * not know is an error at its line, never a silently shorter stream. */
#ifndef AIR_NPU_INSTS_H_
#define AIR_NPU_INSTS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef struct air_npu_insts_options_t {
  /* false: add 0x80000000 to arg_plus of address patches of arguments >= 5, as the
   * xclbin + instruction-buffer runtime needs (mlir-aie's default). */
  bool no_fold_ddr_offset;
  /* Which runtime sequence (its @name) when the module has several; NULL = the
   * only one. */
  const char* sequence;
} air_npu_insts_options_t;

/* Lowers `text` (named `display` in messages) to instruction words, allocated
 * with `allocator`. INVALID_ARGUMENT `DISPLAY:LINE:COL: error: ...` for bad input. */
air_status_t air_npu_insts_from_module(const air_allocator_t* allocator, const char* text,
                                       size_t len, const char* display,
                                       const air_npu_insts_options_t* options,
                                       uint32_t** out_words, size_t* out_n_words);

#endif /* AIR_NPU_INSTS_H_ */

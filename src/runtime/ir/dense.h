/* dense.h - the values of a `dense<...>` elements literal (dense.c), as
 * memref.global initialisers write them: the verifier checks them against the
 * global's type and the CPU executor fills the global's memory from them. The
 * IR keeps the literal as its source text, so it prints back unchanged. */
#ifndef AIR_RUNTIME_IR_DENSE_H_
#define AIR_RUNTIME_IR_DENSE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/ir/ir.h"

/* Decodes `dense<...>` (nested lists, one splat value, `true`/`false`, decimal
 * or hexadecimal numbers, or a "0x..." string of raw little-endian bytes) into
 * `count` elements of `elem`, each air_elem_size(elem) bytes, at `out` (NULL
 * only checks). A splat fills every element. On failure returns false with a
 * message in `err`. */
bool air_ir_dense_decode(const char* text, air_elem_kind_t elem, uint64_t count, void* out,
                         char* err, size_t err_size);

#endif /* AIR_RUNTIME_IR_DENSE_H_ */

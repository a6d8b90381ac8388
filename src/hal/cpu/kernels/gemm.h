/* gemm.h - the CPU driver's matrix-multiply kernels: C += A * B on row-major
 * operands with unit inner strides, through libxsmm's JIT kernels where that
 * gives the reference result bit for bit, and the plain loops otherwise (and
 * always when asked for the reference).
 *
 * The semantics are the loops': every C entry accumulates its products in k
 * order, f32 with one fused multiply-add per product (fmaf: round once), integers
 * wrapping at 32 bits. libxsmm's f32 kernels do the same whenever every register
 * block of C is at least two vectors wide and accumulates in one register, which
 * holds for N a multiple of 32 on AVX-512 (docs/performance.md, "linalg kernels"):
 * other widths are padded to that in scratch; other CPUs run the loops.
 * tests/test_kernels.c checks the equality on a grid of shapes.
 *
 * Scratch memory (padding, bf16 conversion, int8 operand layouts) comes from the
 * caller's allocator; every call that needs some returns false when it is short,
 * having changed nothing. Thread-safe (libxsmm's kernel registry is). */
#ifndef AIR_HAL_CPU_KERNELS_GEMM_H_
#define AIR_HAL_CPU_KERNELS_GEMM_H_

#include <stdbool.h>
#include <stdint.h>

#include "air/allocator.h"

/* Which implementation a call may use. */
typedef enum air_kern_impl_e {
  AIR_KERN_AUTO = 0,      /* the library where it matches the loops, else the loops */
  AIR_KERN_REFERENCE = 1, /* the plain loops */
} air_kern_impl_t;

/* A row-major matrix: element (i, j) at p[i * ld + j]. */
typedef struct air_kern_mat_t {
  void* p;
  int64_t ld;
} air_kern_mat_t;

/* f32: C (M x N) += A (M x K) * B (K x N). */
bool air_kern_sgemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                    air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch);

/* bf16 A and B (uint16_t bit patterns), f32 C: the products are exact in f32, so
 * this is sgemm of the widened values (converted in scratch). */
bool air_kern_bgemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                    air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch);

/* int8 A and B, int32 C, wrapping. */
bool air_kern_i8gemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                     air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch);

/* The library behind AIR_KERN_AUTO on this CPU, for reports ("libxsmm (AVX-512
 * kernels)"); NULL when only the loops run. */
const char* air_kern_library(void);

#endif /* AIR_HAL_CPU_KERNELS_GEMM_H_ */

/* xform.h - the CPU driver's data-movement kernels for the built-in linalg ops
 * fill, copy and transpose, on row-major 2-d views with unit inner strides (the
 * linalg family folds a view to that shape, or uses its element walk): libxsmm's
 * JIT copy and transpose kernels (libxsmm_matcopy, libxsmm_otrans), or the plain
 * loops when asked for the reference or when libxsmm is absent. Moving bytes is
 * exact either way; the loops stay as the reference tests compare against. */
#ifndef AIR_HAL_CPU_KERNELS_XFORM_H_
#define AIR_HAL_CPU_KERNELS_XFORM_H_

#include <stdint.h>

#include "hal/cpu/kernels/gemm.h"

/* dst[i*ldd + j] = src[i*lds + j], `es`-byte elements, rows x cols. The two
 * may not overlap. */
void air_kern_copy2d(int64_t rows, int64_t cols, const void* src, int64_t lds, void* dst,
                     int64_t ldd, uint32_t es, air_kern_impl_t impl);

/* dst[j*ldd + i] = src[i*lds + j]: dst is cols x rows. No overlap. */
void air_kern_transpose2d(int64_t rows, int64_t cols, const void* src, int64_t lds, void* dst,
                          int64_t ldd, uint32_t es, air_kern_impl_t impl);

/* dst[i*ldd + j] = the `es` bytes at `value`. */
void air_kern_fill2d(int64_t rows, int64_t cols, void* dst, int64_t ldd, const void* value,
                     uint32_t es, air_kern_impl_t impl);

#endif /* AIR_HAL_CPU_KERNELS_XFORM_H_ */

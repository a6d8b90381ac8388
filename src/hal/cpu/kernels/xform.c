/* xform.c - fill, copy and transpose kernels (xform.h). libxsmm is column-major:
 * a row-major rows x cols view with row stride ld is its cols x rows matrix with
 * leading dimension ld, so (m, n) = (cols, rows) throughout. */
#include "hal/cpu/kernels/xform.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#if defined(AIR_HAVE_LIBXSMM)
#include <libxsmm.h>
#endif

static bool lib_ok(air_kern_impl_t impl, int64_t rows, int64_t cols, int64_t lds, int64_t ldd,
                   uint32_t es) {
#if defined(AIR_HAVE_LIBXSMM)
  return impl == AIR_KERN_AUTO && air_kern_library() && (es == 1 || es == 2 || es == 4 || es == 8) &&
         rows > 0 && cols > 0 && rows <= INT_MAX && cols <= INT_MAX && lds > 0 && lds <= INT_MAX &&
         ldd > 0 && ldd <= INT_MAX;
#else
  (void)impl, (void)rows, (void)cols, (void)lds, (void)ldd, (void)es;
  return false;
#endif
}

void air_kern_copy2d(int64_t rows, int64_t cols, const void* src, int64_t lds, void* dst,
                     int64_t ldd, uint32_t es, air_kern_impl_t impl) {
  if (rows <= 0 || cols <= 0) return;
  if (lds == cols && ldd == cols) { /* one run: nothing beats memcpy */
    memcpy(dst, src, (size_t)(rows * cols) * es);
    return;
  }
#if defined(AIR_HAVE_LIBXSMM)
  if (lib_ok(impl, rows, cols, lds, ldd, es) && lds >= cols && ldd >= cols) {
    libxsmm_matcopy(dst, src, es, (libxsmm_blasint)cols, (libxsmm_blasint)rows,
                    (libxsmm_blasint)lds, (libxsmm_blasint)ldd);
    return;
  }
#endif
  for (int64_t i = 0; i < rows; ++i)
    memcpy((char*)dst + (size_t)(i * ldd) * es, (const char*)src + (size_t)(i * lds) * es,
           (size_t)cols * es);
}

#define TRANSPOSE_LOOP(T)                                                  \
  do {                                                                     \
    const T* s_ = src;                                                     \
    T* d_ = dst;                                                           \
    for (int64_t i = 0; i < rows; ++i)                                     \
      for (int64_t j = 0; j < cols; ++j) d_[j * ldd + i] = s_[i * lds + j]; \
  } while (0)

void air_kern_transpose2d(int64_t rows, int64_t cols, const void* src, int64_t lds, void* dst,
                          int64_t ldd, uint32_t es, air_kern_impl_t impl) {
  if (rows <= 0 || cols <= 0) return;
#if defined(AIR_HAVE_LIBXSMM)
  if (lib_ok(impl, rows, cols, lds, ldd, es) && lds >= cols && ldd >= rows) {
    libxsmm_otrans(dst, src, es, (libxsmm_blasint)cols, (libxsmm_blasint)rows,
                   (libxsmm_blasint)lds, (libxsmm_blasint)ldd);
    return;
  }
#endif
  switch (es) {
    case 1: TRANSPOSE_LOOP(uint8_t); return;
    case 2: TRANSPOSE_LOOP(uint16_t); return;
    case 4: TRANSPOSE_LOOP(uint32_t); return;
    case 8: TRANSPOSE_LOOP(uint64_t); return;
    default:
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          memcpy((char*)dst + (size_t)(j * ldd + i) * es, (const char*)src + (size_t)(i * lds + j) * es,
                 es);
  }
}

#define FILL_LOOP(T)                                   \
  do {                                                 \
    T v_;                                              \
    memcpy(&v_, value, sizeof v_);                     \
    for (int64_t i = 0; i < rows; ++i) {               \
      T* d_ = (T*)dst + i * ldd;                       \
      for (int64_t j = 0; j < cols; ++j) d_[j] = v_;   \
    }                                                  \
  } while (0)

void air_kern_fill2d(int64_t rows, int64_t cols, void* dst, int64_t ldd, const void* value,
                     uint32_t es, air_kern_impl_t impl) {
  if (rows <= 0 || cols <= 0) return;
  bool zero = true;
  for (uint32_t k = 0; k < es; ++k) zero = zero && ((const uint8_t*)value)[k] == 0;
#if defined(AIR_HAVE_LIBXSMM)
  if (zero && lib_ok(impl, rows, cols, ldd, ldd, es) && ldd >= cols && ldd != cols) {
    libxsmm_matcopy(dst, NULL, es, (libxsmm_blasint)cols, (libxsmm_blasint)rows,
                    (libxsmm_blasint)ldd, (libxsmm_blasint)ldd);
    return;
  }
#endif
  if (zero && ldd == cols) {
    memset(dst, 0, (size_t)(rows * cols) * es);
    return;
  }
  switch (es) {
    case 1: FILL_LOOP(uint8_t); return;
    case 2: FILL_LOOP(uint16_t); return;
    case 4: FILL_LOOP(uint32_t); return;
    case 8: FILL_LOOP(uint64_t); return;
    default:
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) memcpy((char*)dst + (size_t)(i * ldd + j) * es, value, es);
  }
}

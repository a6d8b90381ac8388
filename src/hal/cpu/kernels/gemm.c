/* gemm.c - matrix-multiply kernels (gemm.h): libxsmm's JIT kernels where they
 * equal the reference loops bit for bit, the loops otherwise.
 *
 * libxsmm is column-major: the row-major C = A * B is handed to it as
 * C^T = B^T * A^T, i.e. (m, n, k) = (N, M, K) with B as its first operand. Its
 * f32 code generator keeps each register block of C in registers across the
 * whole k loop and adds one product per fused multiply-add, in k order, except
 * for blocks one vector wide with few rows, where it spreads k over two or four
 * accumulators to hide latency (generator_gemm_avx512_microkernel.c, "number of n
 * accumulators"). Blocks are at least two vectors wide when libxsmm's m (our N)
 * is a multiple of 32, so only such widths go to it; others are padded with zero
 * columns in scratch. Large operands are cut into blocks the JIT accepts, every C
 * block taking its k blocks in order, which keeps every entry's chain intact. */
#include "hal/cpu/kernels/gemm.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "runtime/base/mem.h"

#if defined(AIR_HAVE_LIBXSMM)
#include <libxsmm.h>
#endif

/*---------------------------------------------------------------------------*/
/* Reference loops                                                           */
/*---------------------------------------------------------------------------*/

/* i-k-j: the innermost loop streams a row of B into a row of C, one fmaf per
 * product, so each C entry sees its products in k order. */
static inline __attribute__((always_inline)) void sgemm_body(int64_t M, int64_t N, int64_t K,
                                                             const float* A, int64_t lda,
                                                             const float* B, int64_t ldb,
                                                             float* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    float* restrict c = C + i * ldc;
    for (int64_t k = 0; k < K; ++k) {
      const float aik = A[i * lda + k];
      const float* restrict b = B + k * ldb;
      for (int64_t j = 0; j < N; ++j) c[j] = fmaf(aik, b[j], c[j]);
    }
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* With the FMA instructions enabled fmaf is one instruction (and the j loop
 * vectorises); the same loop without them calls libm's exact fmaf. */
#define FMA_ISA target("fma")
__attribute__((FMA_ISA)) static void sgemm_loop_fma(int64_t M, int64_t N, int64_t K,
                                                          const float* A, int64_t lda,
                                                          const float* B, int64_t ldb, float* C,
                                                          int64_t ldc) {
  sgemm_body(M, N, K, A, lda, B, ldb, C, ldc);
}
#define HAVE_FMA_CLONE 1
#endif

static void sgemm_loop(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                       const float* B, int64_t ldb, float* C, int64_t ldc) {
#ifdef HAVE_FMA_CLONE
  if (__builtin_cpu_supports("fma")) {
    sgemm_loop_fma(M, N, K, A, lda, B, ldb, C, ldc);
    return;
  }
#endif
  sgemm_body(M, N, K, A, lda, B, ldb, C, ldc);
}

static void i8gemm_loop(int64_t M, int64_t N, int64_t K, const int8_t* A, int64_t lda,
                        const int8_t* B, int64_t ldb, int32_t* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    int32_t* restrict c = C + i * ldc;
    for (int64_t k = 0; k < K; ++k) {
      const uint32_t aik = (uint32_t)(int32_t)A[i * lda + k];
      const int8_t* restrict b = B + k * ldb;
      for (int64_t j = 0; j < N; ++j)
        c[j] = (int32_t)((uint32_t)c[j] + aik * (uint32_t)(int32_t)b[j]);
    }
  }
}

static float bf16_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* rows x cols of bf16 (ld `ld`) widened into f32 `dst` (ld `dld`, columns from
 * `cols` to `dld` zero). */
static void widen_bf16_any(int64_t rows, int64_t cols, const uint16_t* src, int64_t ld,
                           float* dst, int64_t dld) {
  for (int64_t i = 0; i < rows; ++i) {
    const uint16_t* s = src + i * ld;
    float* d = dst + i * dld;
    for (int64_t j = 0; j < cols; ++j) d[j] = bf16_f32(s[j]);
    for (int64_t j = cols; j < dld; ++j) d[j] = 0;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* The same bits 16 at a time (zero-extend, shift into the high half): the
 * widening of every bf16 matmul's operands, per call, was a third of a 64^3
 * kernel's time as scalar code. */
__attribute__((target("avx512f"))) static void widen_bf16_avx512(int64_t rows, int64_t cols,
                                                                  const uint16_t* src,
                                                                  int64_t ld, float* dst,
                                                                  int64_t dld) {
  for (int64_t i = 0; i < rows; ++i) {
    const uint16_t* s = src + i * ld;
    float* d = dst + i * dld;
    int64_t j = 0;
    for (; j + 16 <= cols; j += 16) {
      __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(s + j)));
      _mm512_storeu_si512((void*)(d + j), _mm512_slli_epi32(w, 16));
    }
    for (; j < cols; ++j) d[j] = bf16_f32(s[j]);
    for (j = cols; j < dld; ++j) d[j] = 0;
  }
}
#define HAVE_WIDEN_AVX512 1
#endif

static void widen_bf16(int64_t rows, int64_t cols, const uint16_t* src, int64_t ld, float* dst,
                       int64_t dld) {
#ifdef HAVE_WIDEN_AVX512
  if (__builtin_cpu_supports("avx512f")) {
    widen_bf16_avx512(rows, cols, src, ld, dst, dld);
    return;
  }
#endif
  widen_bf16_any(rows, cols, src, ld, dst, dld);
}

static void copy_f32(int64_t rows, int64_t cols, const float* src, int64_t ld, float* dst,
                     int64_t dld) {
  for (int64_t i = 0; i < rows; ++i) {
    memcpy(dst + i * dld, src + i * ld, (size_t)cols * sizeof(float));
    for (int64_t j = cols; j < dld; ++j) dst[i * dld + j] = 0;
  }
}

/*---------------------------------------------------------------------------*/
/* libxsmm                                                                   */
/*---------------------------------------------------------------------------*/

#if defined(AIR_HAVE_LIBXSMM)

/* The generator's behaviour above was checked for its AVX-512 code; other
 * targets run the loops. */
static bool lib_usable(void) { return libxsmm_get_target_archid() >= LIBXSMM_X86_AVX512_CORE; }

static bool fits_int(int64_t x) { return x >= 0 && x <= INT_MAX; }

enum { BM = 64, BN = 64, BK = 256 };

/* C += A * B, N a multiple of 32, through JIT kernels of at most BM x BN x BK.
 * False (nothing done) when libxsmm refuses a shape. */
static bool sgemm_lib(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float* C, int64_t ldc) {
  if (!fits_int(lda) || !fits_int(ldb) || !fits_int(ldc)) return false;
  libxsmm_smmfunction kern[2][2][2] = {{{0}}};
  float alpha = 1, beta = 1;
  int flags = LIBXSMM_GEMM_FLAGS('N', 'N'), pf = LIBXSMM_GEMM_PREFETCH_NONE;
  libxsmm_blasint xa = (libxsmm_blasint)ldb, xb = (libxsmm_blasint)lda, xc = (libxsmm_blasint)ldc;
  /* The kernels for a full block and for each edge: at most 8 shapes. */
  int64_t mr = M % BM, nr = N % BN, kr = K % BK;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) {
        int64_t m = a ? mr : (M >= BM ? BM : 0), n = b ? nr : (N >= BN ? BN : 0),
                k = c ? kr : (K >= BK ? BK : 0);
        if (!m || !n || !k) continue;
        kern[a][b][c] = libxsmm_smmdispatch((libxsmm_blasint)n, (libxsmm_blasint)m,
                                            (libxsmm_blasint)k, &xa, &xb, &xc, &alpha, &beta,
                                            &flags, &pf);
        if (!kern[a][b][c]) return false;
      }
  for (int64_t i = 0; i < M; i += BM)
    for (int64_t j = 0; j < N; j += BN)
      for (int64_t k = 0; k < K; k += BK) /* in order: each C entry's chain */
        kern[M - i < BM][N - j < BN][K - k < BK](B + k * ldb + j, A + i * lda + k,
                                                 C + i * ldc + j);
  return true;
}

/* int8: VNNI multiplies unsigned by signed bytes, and 1.17's signed x signed
 * kernel computes nothing on this hardware, so B (libxsmm's A) goes in as B + 128
 * in its VNNI layout vnni[k/4][j][k%4], and 128 * rowsum(A) comes off C after.
 * Exact: all of it wraps modulo 2^32 like the loop. The int8 generator of 1.17
 * gets other shapes wrong (and prints "Unknown instruction type" while making
 * them): only N a multiple of 32 and K and A's row stride multiples of 4 go to
 * it, which a grid of 980 shapes here and tests/test_kernels.c check. */
static bool i8gemm_lib(int64_t M, int64_t N, int64_t K, const int8_t* A, int64_t lda,
                       const int8_t* B, int64_t ldb, int32_t* C, int64_t ldc,
                       const air_allocator_t* scratch, bool* oom) {
  if (N % 32 || K % 4 || lda % 4 || lda < K || ldb < N || ldc < N || !fits_int(M) || !fits_int(N) || !fits_int(K) ||
      !fits_int(lda) || !fits_int(ldc))
    return false;
  libxsmm_blasint xa = (libxsmm_blasint)N, xb = (libxsmm_blasint)lda, xc = (libxsmm_blasint)ldc;
  int alpha = 1, beta = 1, flags = LIBXSMM_GEMM_FLAG_VNNI_A, pf = LIBXSMM_GEMM_PREFETCH_NONE;
  libxsmm_usbimmfunction f = libxsmm_usbimmdispatch((libxsmm_blasint)N, (libxsmm_blasint)M,
                                                    (libxsmm_blasint)K, &xa, &xb, &xc, &alpha,
                                                    &beta, &flags, &pf);
  if (!f) return false;
  uint8_t* vb = air_mem_alloc(scratch, (size_t)K * (size_t)N);
  if (!vb) {
    *oom = true;
    return false;
  }
  for (int64_t k = 0; k < K; k += 4)
    for (int64_t j = 0; j < N; ++j)
      for (int q = 0; q < 4; ++q)
        vb[(k / 4) * N * 4 + j * 4 + q] = (uint8_t)(B[(k + q) * ldb + j] + 128);
  f(vb, (const char*)A, (int*)C);
  for (int64_t i = 0; i < M; ++i) {
    uint32_t s = 0;
    for (int64_t k = 0; k < K; ++k) s += (uint32_t)(int32_t)A[i * lda + k];
    for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = (int32_t)((uint32_t)C[i * ldc + j] - 128u * s);
  }
  air_mem_free(scratch, vb);
  return true;
}

#endif /* AIR_HAVE_LIBXSMM */

/*---------------------------------------------------------------------------*/
/* Entry points                                                              */
/*---------------------------------------------------------------------------*/

static int64_t round32(int64_t n) { return (n + 31) / 32 * 32; }

/* f32 operands as given (A may be NULL when `A32` was converted already):
 * the library on a width padded to 32 when needed, else the loop. */
static bool sgemm_any(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float* C, int64_t ldc, air_kern_impl_t impl,
                      const air_allocator_t* scratch) {
#if defined(AIR_HAVE_LIBXSMM)
  /* Leading dimensions shorter than a row (overlapping rows) stay with the loop. */
  if (impl == AIR_KERN_AUTO && lda >= K && ldb >= N && ldc >= N && lib_usable()) {
    if (N % 32 == 0) {
      if (sgemm_lib(M, N, K, A, lda, B, ldb, C, ldc)) return true;
    } else {
      int64_t Np = round32(N);
      float* pb = air_mem_alloc(scratch, (size_t)(K * Np + M * Np) * sizeof(float));
      if (!pb) return false;
      float* pc = pb + K * Np;
      copy_f32(K, N, B, ldb, pb, Np);
      copy_f32(M, N, C, ldc, pc, Np);
      bool done = sgemm_lib(M, Np, K, A, lda, pb, Np, pc, Np);
      if (done)
        for (int64_t i = 0; i < M; ++i) memcpy(C + i * ldc, pc + i * Np, (size_t)N * sizeof(float));
      air_mem_free(scratch, pb);
      if (done) return true;
    }
  }
#else
  (void)scratch;
#endif
  (void)impl;
  sgemm_loop(M, N, K, A, lda, B, ldb, C, ldc);
  return true;
}

bool air_kern_sgemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                    air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch) {
  if (M <= 0 || N <= 0 || K <= 0) return true;
  return sgemm_any(M, N, K, A.p, A.ld, B.p, B.ld, C.p, C.ld, impl, scratch);
}

bool air_kern_bgemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                    air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch) {
  if (M <= 0 || N <= 0 || K <= 0) return true;
  float* a = air_mem_alloc(scratch, (size_t)(M * K + K * N) * sizeof(float));
  if (!a) return false;
  float* b = a + M * K;
  widen_bf16(M, K, A.p, A.ld, a, K);
  widen_bf16(K, N, B.p, B.ld, b, N);
  bool ok = sgemm_any(M, N, K, a, K, b, N, C.p, C.ld, impl, scratch);
  air_mem_free(scratch, a);
  return ok;
}

bool air_kern_i8gemm(int64_t M, int64_t N, int64_t K, air_kern_mat_t A, air_kern_mat_t B,
                     air_kern_mat_t C, air_kern_impl_t impl, const air_allocator_t* scratch) {
  if (M <= 0 || N <= 0 || K <= 0) return true;
#if defined(AIR_HAVE_LIBXSMM)
  bool oom = false;
  if (impl == AIR_KERN_AUTO && lib_usable() &&
      i8gemm_lib(M, N, K, A.p, A.ld, B.p, B.ld, C.p, C.ld, scratch, &oom))
    return true;
  if (oom) return false;
#else
  (void)impl, (void)scratch;
#endif
  i8gemm_loop(M, N, K, A.p, A.ld, B.p, B.ld, C.p, C.ld);
  return true;
}

const char* air_kern_library(void) {
#if defined(AIR_HAVE_LIBXSMM)
  if (lib_usable()) return "libxsmm (AVX-512 kernels)";
#endif
  return NULL;
}

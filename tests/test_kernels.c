/* test_kernels.c - the CPU driver's library kernels (src/hal/cpu/kernels/) against
 * their reference loops and against naive loops written here, bit for bit: f32
 * matmul on a grid of shapes and leading dimensions (widths around libxsmm's
 * register blocks, depths around its k unrolling, sizes past its JIT limit) with
 * values of mixed magnitude so that any other summation order shows, and with
 * signed zeros, subnormals and infinities; bf16 -> f32 and int8 -> int32
 * matmuls; a scratch allocator that runs dry. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal/cpu/kernels/gemm.h"
#include "hal/cpu/kernels/xform.h"
#include "runtime/base/bf16.h"

static uint64_t g_s = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  g_s ^= g_s << 13, g_s ^= g_s >> 7, g_s ^= g_s << 17;
  return g_s;
}
/* Mixed magnitudes: products differ by up to 2^40, so reassociation rounds
 * differently (the test would see a two-accumulator sum). */
static float rndf(void) {
  float x = (float)((double)(rnd() >> 11) / 9007199254740992.0 - 0.5);
  return x * ldexpf(1.0f, (int)(rnd() % 41) - 20);
}

static void naive_sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                        const float* B, int64_t ldb, float* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float c = C[i * ldc + j];
      for (int64_t k = 0; k < K; ++k) c = fmaf(A[i * lda + k], B[k * ldb + j], c);
      C[i * ldc + j] = c;
    }
}

/* One shape: AUTO, REFERENCE and the naive loop from the same C. */
static void check_sgemm(int64_t M, int64_t N, int64_t K, const float* special, int n_special) {
  int64_t lda = K + 3, ldb = N + 5, ldc = N + 1;
  float* A = malloc(sizeof(float) * (size_t)(M * lda));
  float* B = malloc(sizeof(float) * (size_t)(K * ldb));
  float* C0 = malloc(sizeof(float) * (size_t)(M * ldc));
  float* C1 = malloc(sizeof(float) * (size_t)(M * ldc));
  float* C2 = malloc(sizeof(float) * (size_t)(M * ldc));
  assert_true(A && B && C0 && C1 && C2);
  for (int64_t i = 0; i < M * lda; ++i) A[i] = n_special && rnd() % 7 == 0 ? special[rnd() % (uint64_t)n_special] : rndf();
  for (int64_t i = 0; i < K * ldb; ++i) B[i] = n_special && rnd() % 7 == 0 ? special[rnd() % (uint64_t)n_special] : rndf();
  for (int64_t i = 0; i < M * ldc; ++i) C0[i] = C1[i] = C2[i] = rndf();
  air_allocator_t al;
  air_allocator_init_system(&al);
  air_kern_mat_t a = {A, lda}, b = {B, ldb};
  assert_true(air_kern_sgemm(M, N, K, a, b, (air_kern_mat_t){C0, ldc}, AIR_KERN_AUTO, &al));
  assert_true(air_kern_sgemm(M, N, K, a, b, (air_kern_mat_t){C1, ldc}, AIR_KERN_REFERENCE, &al));
  naive_sgemm(M, N, K, A, lda, B, ldb, C2, ldc);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      int64_t x = i * ldc + j;
      if (memcmp(&C1[x], &C2[x], 4) || memcmp(&C0[x], &C2[x], 4))
        fail_msg("sgemm %lldx%lldx%lld: C[%lld][%lld] auto %a, reference %a, naive %a",
                 (long long)M, (long long)N, (long long)K, (long long)i, (long long)j, C0[x],
                 C1[x], C2[x]);
    }
  free(A), free(B), free(C0), free(C1), free(C2);
}

static void test_sgemm_grid(void** state) {
  (void)state;
  static const int64_t ms[] = {1, 2, 5, 8, 13, 32, 64, 65};
  static const int64_t ns[] = {1, 7, 16, 31, 32, 48, 64, 72, 80, 96, 128, 144};
  static const int64_t ks[] = {1, 3, 8, 23, 24, 25, 64, 100};
  for (size_t m = 0; m < sizeof ms / sizeof *ms; ++m)
    for (size_t n = 0; n < sizeof ns / sizeof *ns; ++n)
      for (size_t k = 0; k < sizeof ks / sizeof *ks; ++k) check_sgemm(ms[m], ns[n], ks[k], NULL, 0);
}

/* Past the JIT's size limit: blocked, each C block taking its k blocks in order. */
static void test_sgemm_large(void** state) {
  (void)state;
  check_sgemm(300, 256, 700, NULL, 0);
  check_sgemm(129, 96, 513, NULL, 0);
  check_sgemm(70, 200, 260, NULL, 0);
}

static void test_sgemm_special_values(void** state) {
  (void)state;
  const float sp[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 1e-45f, INFINITY, -INFINITY, 1e38f, -2e38f};
  check_sgemm(32, 64, 64, sp, 9);
  check_sgemm(17, 32, 9, sp, 9);
  check_sgemm(64, 100, 40, sp, 9);
}

static void test_bgemm(void** state) {
  (void)state;
  static const int64_t shapes[][3] = {{32, 32, 32}, {64, 64, 64}, {5, 40, 9}, {33, 96, 70}, {128, 128, 128}};
  air_allocator_t al;
  air_allocator_init_system(&al);
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], lda = K + 2, ldb = N + 3, ldc = N;
    uint16_t* A = malloc(2 * (size_t)(M * lda));
    uint16_t* B = malloc(2 * (size_t)(K * ldb));
    float *fa = malloc(4 * (size_t)(M * lda)), *fb = malloc(4 * (size_t)(K * ldb));
    float *C0 = malloc(4 * (size_t)(M * ldc)), *C1 = malloc(4 * (size_t)(M * ldc)),
          *C2 = malloc(4 * (size_t)(M * ldc));
    assert_true(A && B && fa && fb && C0 && C1 && C2);
    for (int64_t i = 0; i < M * lda; ++i) fa[i] = air_bf16_to_f32(A[i] = air_bf16_from_f32(rndf()));
    for (int64_t i = 0; i < K * ldb; ++i) fb[i] = air_bf16_to_f32(B[i] = air_bf16_from_f32(rndf()));
    for (int64_t i = 0; i < M * ldc; ++i) C0[i] = C1[i] = C2[i] = rndf();
    air_kern_mat_t a = {A, lda}, b = {B, ldb};
    assert_true(air_kern_bgemm(M, N, K, a, b, (air_kern_mat_t){C0, ldc}, AIR_KERN_AUTO, &al));
    assert_true(air_kern_bgemm(M, N, K, a, b, (air_kern_mat_t){C1, ldc}, AIR_KERN_REFERENCE, &al));
    naive_sgemm(M, N, K, fa, lda, fb, ldb, C2, ldc);
    assert_memory_equal(C0, C2, 4 * (size_t)(M * ldc));
    assert_memory_equal(C1, C2, 4 * (size_t)(M * ldc));
    free(A), free(B), free(fa), free(fb), free(C0), free(C1), free(C2);
  }
}

static void test_i8gemm(void** state) {
  (void)state;
  static const int64_t shapes[][3] = {{32, 32, 32}, {64, 64, 64}, {5, 7, 9},   {33, 48, 12},
                                      {16, 100, 128}, {3, 3, 1},  {17, 96, 36}, {1, 256, 512},
                                      {100, 64, 8}};
  air_allocator_t al;
  air_allocator_init_system(&al);
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], ldb = N + 2, ldc = N + 4;
    int64_t lda = K + (s % 2 ? 1 : 4); /* a row stride the library takes, and one it does not */
    int8_t *A = malloc((size_t)(M * lda)), *B = malloc((size_t)(K * ldb));
    int32_t *C0 = malloc(4 * (size_t)(M * ldc)), *C1 = malloc(4 * (size_t)(M * ldc)),
            *C2 = malloc(4 * (size_t)(M * ldc));
    assert_true(A && B && C0 && C1 && C2);
    for (int64_t i = 0; i < M * lda; ++i) A[i] = (int8_t)rnd();
    for (int64_t i = 0; i < K * ldb; ++i) B[i] = (int8_t)rnd();
    for (int64_t i = 0; i < M * ldc; ++i) C0[i] = C1[i] = C2[i] = (int32_t)rnd(); /* wraps */
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        uint32_t c = (uint32_t)C2[i * ldc + j];
        for (int64_t k = 0; k < K; ++k) c += (uint32_t)((int32_t)A[i * lda + k] * B[k * ldb + j]);
        C2[i * ldc + j] = (int32_t)c;
      }
    air_kern_mat_t a = {A, lda}, b = {B, ldb};
    assert_true(air_kern_i8gemm(M, N, K, a, b, (air_kern_mat_t){C0, ldc}, AIR_KERN_AUTO, &al));
    assert_true(air_kern_i8gemm(M, N, K, a, b, (air_kern_mat_t){C1, ldc}, AIR_KERN_REFERENCE, &al));
    assert_memory_equal(C0, C2, 4 * (size_t)(M * ldc));
    assert_memory_equal(C1, C2, 4 * (size_t)(M * ldc));
    free(A), free(B), free(C0), free(C1), free(C2);
  }
}

/* An allocator that has nothing to give. */
static void* no_alloc(void* self, size_t n) { (void)self, (void)n; return NULL; }
static void* no_realloc(void* self, void* p, size_t n) { (void)self, (void)p, (void)n; return NULL; }
static void no_free(void* self, void* p) { (void)self, (void)p; }

static void test_scratch_exhausted(void** state) {
  (void)state;
  air_allocator_t none = {NULL, no_alloc, no_realloc, no_free};
  float A[8 * 8], B[8 * 8], C[8 * 8], C0[8 * 8];
  for (int i = 0; i < 64; ++i) A[i] = B[i] = C0[i] = C[i] = (float)i;
  uint16_t h[64] = {0};
  /* bf16 always converts in scratch: refused, C untouched. */
  assert_false(air_kern_bgemm(8, 8, 8, (air_kern_mat_t){h, 8}, (air_kern_mat_t){h, 8},
                              (air_kern_mat_t){C, 8}, AIR_KERN_AUTO, &none));
  assert_memory_equal(C, C0, sizeof C);
  /* f32 of a width that is padded when the library runs: done by the library or
   * refused unchanged, never half done; the loop needs no scratch. */
  bool done = air_kern_sgemm(8, 8, 8, (air_kern_mat_t){A, 8}, (air_kern_mat_t){B, 8},
                             (air_kern_mat_t){C, 8}, AIR_KERN_AUTO, &none);
  if (!done) assert_memory_equal(C, C0, sizeof C);
  assert_true(air_kern_sgemm(8, 8, 8, (air_kern_mat_t){A, 8}, (air_kern_mat_t){B, 8},
                             (air_kern_mat_t){C0, 8}, AIR_KERN_REFERENCE, &none));
}

/* fill / copy / transpose: the library and the loops write the same bytes and
 * nothing outside the view (the row padding keeps its pattern). */
static void test_xform(void** state) {
  (void)state;
  static const int64_t shapes[][2] = {{1, 1}, {3, 5}, {32, 32}, {64, 17}, {7, 128}, {100, 100}};
  static const uint32_t sizes[] = {1, 2, 3, 4, 8};
  for (size_t si = 0; si < sizeof shapes / sizeof *shapes; ++si)
    for (size_t ei = 0; ei < sizeof sizes / sizeof *sizes; ++ei) {
      int64_t R = shapes[si][0], C = shapes[si][1];
      uint32_t es = sizes[ei];
      int64_t lds = C + 3, ldd = (R > C ? R : C) + 5;
      size_t sb = (size_t)(R * lds) * es, db = (size_t)((R > C ? R : C) * ldd) * es;
      uint8_t *src = malloc(sb), *d0 = malloc(db), *d1 = malloc(db);
      assert_true(src && d0 && d1);
      for (size_t i = 0; i < sb; ++i) src[i] = (uint8_t)rnd();
      for (int which = 0; which < 3; ++which) {
        memset(d0, 0xa5, db);
        memset(d1, 0xa5, db);
        uint8_t value[8];
        for (int k = 0; k < 8; ++k) value[k] = (uint8_t)(which == 2 && si % 2 ? 0 : rnd());
        for (int impl = 0; impl < 2; ++impl) {
          uint8_t* d = impl ? d1 : d0;
          air_kern_impl_t im = impl ? AIR_KERN_REFERENCE : AIR_KERN_AUTO;
          if (which == 0) air_kern_copy2d(R, C, src, lds, d, ldd, es, im);
          else if (which == 1) air_kern_transpose2d(R, C, src, lds, d, ldd, es, im);
          else air_kern_fill2d(R, C, d, ldd, value, es, im);
        }
        assert_memory_equal(d0, d1, db);
        /* The reference against the definition. */
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = 0; j < C; ++j) {
            const uint8_t* want = which == 2 ? value : src + (size_t)(i * lds + j) * es;
            const uint8_t* got = which == 1 ? d1 + (size_t)(j * ldd + i) * es
                                            : d1 + (size_t)(i * ldd + j) * es;
            assert_memory_equal(got, want, es);
          }
        if (which != 1) /* padding after each row untouched */
          for (int64_t i = 0; i < R; ++i) assert_int_equal(d1[(size_t)(i * ldd + C) * es], 0xa5);
      }
      free(src), free(d0), free(d1);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sgemm_grid),  cmocka_unit_test(test_sgemm_large),
      cmocka_unit_test(test_sgemm_special_values), cmocka_unit_test(test_bgemm),
      cmocka_unit_test(test_i8gemm),      cmocka_unit_test(test_scratch_exhausted),
      cmocka_unit_test(test_xform),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_bench_blas.c - the benchmarks' OpenBLAS anchor (bench/air_bench_blas.c).
 *
 * ab_blas_core_wanted: which kernel set to force for each kind of pick and CPU.
 * ab_blas_open: a missing library is an error with its name; the loaded library
 * runs a kernel set that uses this CPU's vector width (OpenBLAS 0.3.21 picks its
 * SSE3 "Prescott" kernels on Emerald Rapids by itself, so this fails without the
 * forced core); and a user's OPENBLAS_CORETYPE is kept (checked in a child, since
 * OpenBLAS reads it once per process). */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "air_bench_blas.h"

static void test_core_wanted(void** state) {
  (void)state;
  /* AVX-512 CPU: anything without AVX-512 kernels is replaced by SkylakeX. */
  assert_string_equal(ab_blas_core_wanted("Prescott", 1, 1), "SkylakeX");
  assert_string_equal(ab_blas_core_wanted("Haswell", 1, 1), "SkylakeX");
  assert_string_equal(ab_blas_core_wanted("Zen", 1, 1), "SkylakeX");
  assert_string_equal(ab_blas_core_wanted("", 1, 1), "SkylakeX");
  assert_string_equal(ab_blas_core_wanted(NULL, 1, 1), "SkylakeX");
  assert_null(ab_blas_core_wanted("SkylakeX", 1, 1));
  assert_null(ab_blas_core_wanted("skylakex", 1, 1));
  assert_null(ab_blas_core_wanted("Cooperlake", 1, 1));
  assert_null(ab_blas_core_wanted("SapphireRapids", 1, 1));
  /* AVX2 + FMA CPU: SSE-era picks become Haswell, AVX2 ones stay. */
  assert_string_equal(ab_blas_core_wanted("Prescott", 0, 1), "Haswell");
  assert_string_equal(ab_blas_core_wanted("Sandybridge", 0, 1), "Haswell");
  assert_null(ab_blas_core_wanted("Haswell", 0, 1));
  assert_null(ab_blas_core_wanted("Zen", 0, 1));
  /* Nothing wider than SSE (or not x86): OpenBLAS's choice stands. */
  assert_null(ab_blas_core_wanted("Prescott", 0, 0));
  assert_null(ab_blas_core_wanted("", 0, 0));
}

static void test_missing_library(void** state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("AIR_OPENBLAS", "libno-such-openblas.so.9", 1);
    ab_blas_t ob;
    char why[256] = "";
    int ok = ab_blas_open(&ob, why, sizeof why);
    _exit(!ok && strstr(why, "libno-such-openblas.so.9") ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_user_core_kept(void** state) {
  (void)state;
#if !defined(__x86_64__) && !defined(__i386__)
  skip(); /* the core names below are x86's */
#endif
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    unsetenv("AIR_OPENBLAS");
    setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    ab_blas_t ob;
    char why[256] = "";
    if (!ab_blas_open(&ob, why, sizeof why)) _exit(2);
    _exit(!strcasecmp(ob.core, "Prescott") && strstr(ob.core_how, "set by the user") ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_uses_vector_width(void** state) {
  (void)state;
  unsetenv("AIR_OPENBLAS");
  unsetenv("OPENBLAS_CORETYPE");
  ab_blas_t ob;
  char why[256] = "";
  assert_true(ab_blas_open(&ob, why, sizeof why));
  int avx512, avx2_fma;
  ab_blas_cpu_features(&avx512, &avx2_fma);
  print_message("OpenBLAS core %s (%s); avx512 %d, avx2+fma %d\n", ob.core, ob.core_how, avx512,
                avx2_fma);
  assert_null(ab_blas_core_wanted(ob.core, avx512, avx2_fma));
  /* And it computes: a 2x2 product. */
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0};
  ob.set_threads(1);
  ob.sgemm(AB_CBLAS_ROW, AB_CBLAS_NOTRANS, AB_CBLAS_NOTRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c,
           2);
  assert_true(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_core_wanted),
      cmocka_unit_test(test_missing_library),
      cmocka_unit_test(test_user_core_kept),
      cmocka_unit_test(test_uses_vector_width),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* air_bench_blas.h - Debian's OpenBLAS as the benchmarks' anchor, opened with
 * dlopen(RTLD_LOCAL) and called through pointers (gemm-libs, cpu-matmul): its BLAS
 * names then cannot collide with another BLAS linked into the same binary, and
 * the benchmarks build where OpenBLAS is absent (they say so and stop). */
#ifndef AIR_BENCH_BLAS_H_
#define AIR_BENCH_BLAS_H_

/* CBLAS enum values, fixed by the standard. */
enum { AB_CBLAS_ROW = 101, AB_CBLAS_NOTRANS = 111, AB_CBLAS_TRANS = 112 };

typedef void (*ab_sgemm_fn)(int, int, int, int, int, int, float, const float*, int,
                            const float*, int, float, float*, int);
typedef void (*ab_dgemm_fn)(int, int, int, int, int, int, double, const double*, int,
                            const double*, int, double, double*, int);
typedef struct ab_blas_t {
  ab_sgemm_fn sgemm;
  ab_dgemm_fn dgemm;
  void (*set_threads)(int);
} ab_blas_t;

/* Opens $AIR_OPENBLAS or AIR_OPENBLAS_SONAME (set by the build); returns 1 on
 * success, else 0 with `why` (dlerror's text) filled. Before the library starts
 * its threads, their idle spin is cut short (OPENBLAS_THREAD_TIMEOUT, unless the
 * caller set it): OpenBLAS workers otherwise spin for a long while after each
 * call and would take the core from whatever the benchmark times next. */
int ab_blas_open(ab_blas_t* ob, char* why, unsigned cap);

#endif /* AIR_BENCH_BLAS_H_ */

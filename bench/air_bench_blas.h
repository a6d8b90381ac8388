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
  /* The kernel set OpenBLAS runs ("SkylakeX", ...; "?" if it cannot say) and
   * how it was chosen, for the benchmarks' headers: "detected by OpenBLAS",
   * "set by the user (OPENBLAS_CORETYPE)", or "set by the bench: OpenBLAS
   * picked Prescott, which does not use this CPU's AVX-512". */
  char core[32];
  char core_how[128];
} ab_blas_t;

/* Opens $AIR_OPENBLAS or AIR_OPENBLAS_SONAME (set by the build); returns 1 on
 * success, else 0 with `why` (dlerror's text) filled. Before the library starts
 * its threads, their idle spin is cut short (OPENBLAS_THREAD_TIMEOUT, unless the
 * caller set it): OpenBLAS workers otherwise spin for a long while after each
 * call and would take the core from whatever the benchmark times next.
 *
 * The anchor must be the best OpenBLAS has for this CPU. OpenBLAS picks its
 * kernels when it is loaded; a release that does not know the CPU (0.3.21 on
 * Emerald Rapids) falls back to its SSE3 "Prescott" kernels, 5-8x slower, which
 * would flatter every ratio. Unless the user set OPENBLAS_CORETYPE, the library
 * is first loaded in a forked child to see what it picks; if that core does not
 * use the CPU's vector width (ab_blas_core_wanted), OPENBLAS_CORETYPE is set
 * before it is loaded here. Call it before starting threads. */
int ab_blas_open(ab_blas_t* ob, char* why, unsigned cap);

/* The core to force, or NULL to keep OpenBLAS's choice: given the core
 * OpenBLAS picked (its openblas_get_corename(), any case) and what the CPU and
 * OS support, "SkylakeX" if the CPU has AVX-512 (F, BW, DQ, VL) and the pick is
 * not an AVX-512 core (SkylakeX, Cooperlake, SapphireRapids), "Haswell" if it
 * has AVX2 and FMA and the pick uses neither (anything but those and Haswell,
 * Zen); an unknown pick ("" or NULL) is treated like a fallback. */
const char* ab_blas_core_wanted(const char* picked, int has_avx512, int has_avx2_fma);

/* Whether the CPU and OS support AVX-512 (F, BW, DQ, VL), and AVX2 with FMA
 * (both 0 off x86). */
void ab_blas_cpu_features(int* has_avx512, int* has_avx2_fma);

#endif /* AIR_BENCH_BLAS_H_ */

/* air_bench_blas.c - see air_bench_blas.h. */
#define _GNU_SOURCE 1
#include "air_bench_blas.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef AIR_OPENBLAS_SONAME
#define AIR_OPENBLAS_SONAME "libopenblas.so.0"
#endif

int ab_blas_open(ab_blas_t* ob, char* why, unsigned cap) {
  /* 2^4 cycles: the workers go to sleep almost at once after a call. */
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  const char* name = getenv("AIR_OPENBLAS");
  if (!name) name = AIR_OPENBLAS_SONAME;
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, cap, "cannot load OpenBLAS (%s): %s", name, dlerror());
    return 0;
  }
  ob->sgemm = (ab_sgemm_fn)(uintptr_t)dlsym(h, "cblas_sgemm");
  ob->dgemm = (ab_dgemm_fn)(uintptr_t)dlsym(h, "cblas_dgemm");
  ob->set_threads = (void (*)(int))(uintptr_t)dlsym(h, "openblas_set_num_threads");
  if (!ob->sgemm || !ob->dgemm || !ob->set_threads) {
    snprintf(why, cap, "%s lacks cblas_sgemm, cblas_dgemm or openblas_set_num_threads", name);
    return 0;
  }
  return 1;
}

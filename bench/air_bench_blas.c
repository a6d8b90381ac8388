/* air_bench_blas.c - see air_bench_blas.h. */
#define _GNU_SOURCE 1
#include "air_bench_blas.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AIR_OPENBLAS_SONAME
#define AIR_OPENBLAS_SONAME "libopenblas.so.0"
#endif

typedef const char* (*corename_fn)(void);

static int in_list(const char* name, const char* const* list) {
  for (; *list; ++list)
    if (!strcasecmp(name, *list)) return 1;
  return 0;
}

const char* ab_blas_core_wanted(const char* picked, int has_avx512, int has_avx2_fma) {
  static const char* const k_avx512[] = {"SkylakeX", "Cooperlake", "SapphireRapids", NULL};
  static const char* const k_avx2[] = {"Haswell", "Zen", "SkylakeX", "Cooperlake",
                                       "SapphireRapids", NULL};
  if (!picked) picked = "";
  if (has_avx512 && !in_list(picked, k_avx512)) return "SkylakeX";
  if (!has_avx512 && has_avx2_fma && !in_list(picked, k_avx2)) return "Haswell";
  return NULL;
}

void ab_blas_cpu_features(int* avx512, int* avx2_fma) {
  *avx512 = *avx2_fma = 0;
#if defined(__x86_64__) || defined(__i386__)
  /* gcc's and clang's checks include the OS's support (XCR0) for the registers. */
  __builtin_cpu_init();
  *avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  *avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}

static void copy_name(char* dst, size_t cap, const char* src) {
  snprintf(dst, cap, "%s", src && *src ? src : "?");
}

/* The core OpenBLAS picks on its own, found by loading it in a child process
 * (this one must load it only once, with the final environment). 0 if the
 * child could not say. */
static int probe_core(const char* name, char* core, size_t cap) {
  int fd[2];
  if (pipe(fd)) return 0;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return 0;
  }
  if (pid == 0) {
    close(fd[0]);
    void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    corename_fn f = h ? (corename_fn)(uintptr_t)dlsym(h, "openblas_get_corename") : NULL;
    const char* c = f ? f() : NULL;
    if (c) {
      ssize_t w = write(fd[1], c, strlen(c));
      (void)w;
    }
    _exit(c ? 0 : 1);
  }
  close(fd[1]);
  size_t got = 0;
  while (got + 1 < cap) {
    ssize_t r = read(fd[0], core + got, cap - 1 - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  core[got] = 0;
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0;
}

int ab_blas_open(ab_blas_t* ob, char* why, unsigned cap) {
  memset(ob, 0, sizeof *ob);
  /* 2^4 cycles: the workers go to sleep almost at once after a call. */
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  const char* name = getenv("AIR_OPENBLAS");
  if (!name) name = AIR_OPENBLAS_SONAME;
  const char* user = getenv("OPENBLAS_CORETYPE");
  const char* forced = NULL;
  char picked[32] = "";
  if (user && *user) {
    snprintf(ob->core_how, sizeof ob->core_how, "set by the user (OPENBLAS_CORETYPE=%s)", user);
  } else {
    int avx512, avx2_fma;
    ab_blas_cpu_features(&avx512, &avx2_fma);
    if (probe_core(name, picked, sizeof picked))
      forced = ab_blas_core_wanted(picked, avx512, avx2_fma);
    if (forced) {
      setenv("OPENBLAS_CORETYPE", forced, 1);
      snprintf(ob->core_how, sizeof ob->core_how,
               "set by the bench: OpenBLAS picked %s, which does not use this CPU's %s", picked,
               avx512 ? "AVX-512" : "AVX2/FMA");
    } else {
      snprintf(ob->core_how, sizeof ob->core_how, "detected by OpenBLAS");
    }
  }
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
  corename_fn core = (corename_fn)(uintptr_t)dlsym(h, "openblas_get_corename");
  copy_name(ob->core, sizeof ob->core, core ? core() : NULL);
  if (forced && strcasecmp(ob->core, forced)) {
    /* This build lacks the wanted kernels: say so rather than hide it. */
    snprintf(ob->core_how, sizeof ob->core_how,
             "OpenBLAS picked %s; the bench asked for %s, which this build lacks", picked,
             forced);
  }
  return 1;
}

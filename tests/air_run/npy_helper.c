/* npy_helper - makes and checks .npy files for the air-run tests (no NumPy here).
 *
 *   npy_helper write PATH DTYPE SHAPE GEN   DTYPE e.g. <f4; SHAPE e.g. 4096, 2x3,
 *                                           or - for a scalar; GEN iota | half |
 *                                           const=V (value i, (N - i) / 2, V)
 *   npy_helper add A B C                    C == A + B, elementwise (f32)
 *   npy_helper affine X Y MUL ADD           Y == X * MUL + ADD (f32)
 *   npy_helper same X Y                     same dtype, shape and bytes
 *   npy_helper info PATH                    prints "DTYPE SHAPE"
 *
 * Exit status 0 when the check holds, 1 when it does not, 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static int load(const char* path, npy_array_t* a) {
  char err[512];
  if (npy_read_file(path, a, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", path, err);
    return -1;
  }
  return 0;
}

static int load_f32(const char* path, npy_array_t* a) {
  if (load(path, a)) return -1;
  if (a->kind != 'f' || a->itemsize != 4) {
    fprintf(stderr, "%s: not float32\n", path);
    npy_free(a);
    return -1;
  }
  return 0;
}

static int cmd_write(char** argv) {
  const char* dt = argv[0];
  const char* sh = argv[1];
  const char* gen = argv[2];
  char order = dt[0], kind = dt[1];
  uint32_t size = (uint32_t)atoi(dt + 2);
  int64_t shape[NPY_MAX_RANK];
  uint32_t rank = 0;
  if (strcmp(sh, "-") != 0) {
    for (const char* p = sh; *p;) {
      shape[rank++] = strtoll(p, (char**)&p, 10);
      if (*p == 'x') ++p;
    }
  }
  (void)order;
  npy_array_t a;
  char err[512];
  if (npy_alloc(&a, kind, size, rank, shape, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  double cval = strncmp(gen, "const=", 6) == 0 ? atof(gen + 6) : 0;
  for (uint64_t i = 0; i < a.count; ++i) {
    double v = strcmp(gen, "iota") == 0 ? (double)i
               : strcmp(gen, "half") == 0 ? (double)(a.count - i) / 2
                                          : cval;
    unsigned char* p = (unsigned char*)a.data + i * size;
    if (kind == 'f' && size == 4) { float f = (float)v; memcpy(p, &f, 4); }
    else if (kind == 'f' && size == 8) memcpy(p, &v, 8);
    else if (kind == 'f' && size == 2) { uint16_t h = 0; memcpy(p, &h, 2); } /* zeros */
    else { int64_t x = (int64_t)v; memcpy(p, &x, size); } /* little-endian truncation */
  }
  int rc = npy_write_file(argv[-1], &a, err, sizeof err) ? (fprintf(stderr, "%s\n", err), 1) : 0;
  npy_free(&a);
  return rc;
}

static int cmd_add(char** argv) {
  npy_array_t a, b, c;
  if (load_f32(argv[0], &a)) return 1;
  if (load_f32(argv[1], &b)) return 1;
  if (load_f32(argv[2], &c)) return 1;
  int bad = a.count != b.count || a.count != c.count;
  for (uint64_t i = 0; !bad && i < a.count; ++i) {
    float x = ((float*)a.data)[i], y = ((float*)b.data)[i], z = ((float*)c.data)[i];
    if (z != x + y) {
      fprintf(stderr, "element %llu: %g + %g != %g\n", (unsigned long long)i, x, y, z);
      bad = 1;
    }
  }
  if (!bad) printf("ok: %llu sums\n", (unsigned long long)a.count);
  npy_free(&a), npy_free(&b), npy_free(&c);
  return bad;
}

static int cmd_affine(char** argv) {
  npy_array_t x, y;
  if (load_f32(argv[0], &x) || load_f32(argv[1], &y)) return 1;
  float mul = (float)atof(argv[2]), add = (float)atof(argv[3]);
  int bad = x.count != y.count;
  for (uint64_t i = 0; !bad && i < x.count; ++i) {
    float want = ((float*)x.data)[i] * mul + add;
    if (((float*)y.data)[i] != want) {
      fprintf(stderr, "element %llu: %g != %g\n", (unsigned long long)i, ((float*)y.data)[i], want);
      bad = 1;
    }
  }
  if (!bad) printf("ok: %llu values\n", (unsigned long long)x.count);
  npy_free(&x), npy_free(&y);
  return bad;
}

static int cmd_same(char** argv) {
  npy_array_t a, b;
  if (load(argv[0], &a) || load(argv[1], &b)) return 1;
  int same = a.kind == b.kind && a.itemsize == b.itemsize && a.rank == b.rank &&
             a.nbytes == b.nbytes && memcmp(a.shape, b.shape, a.rank * sizeof a.shape[0]) == 0 &&
             memcmp(a.data, b.data, (size_t)a.nbytes) == 0;
  printf("%s\n", same ? "same" : "different");
  npy_free(&a), npy_free(&b);
  return same ? 0 : 1;
}

static int cmd_info(char** argv) {
  npy_array_t a;
  if (load(argv[0], &a)) return 1;
  char dt[8], sh[512];
  printf("%s %s\n", npy_dtype_string(a.kind, a.itemsize, dt),
         npy_shape_string(a.rank, a.shape, sh, sizeof sh));
  npy_free(&a);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 6 && strcmp(argv[1], "write") == 0) return cmd_write(argv + 3);
  if (argc == 5 && strcmp(argv[1], "add") == 0) return cmd_add(argv + 2);
  if (argc == 6 && strcmp(argv[1], "affine") == 0) return cmd_affine(argv + 2);
  if (argc == 4 && strcmp(argv[1], "same") == 0) return cmd_same(argv + 2);
  if (argc == 3 && strcmp(argv[1], "info") == 0) return cmd_info(argv + 2);
  fprintf(stderr, "usage: npy_helper write|add|affine|same|info ...\n");
  return 2;
}

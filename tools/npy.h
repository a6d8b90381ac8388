/* npy.h - NumPy .npy files: the arrays air-run reads into and writes out of memrefs.
 *
 * Format 1.0, 2.0 and 3.0 headers are read; 1.0 is written (2.0 when the header
 * would not fit). Only what maps onto memref elements is accepted: booleans,
 * integers and floats of 1, 2, 4 or 8 bytes, in C (row-major) order. Big-endian
 * files are converted on reading; arrays are always written little-endian. bf16
 * has no NumPy dtype and travels as its raw bits, `<u2`.
 *
 * Errors are reported by return value with a message in a caller buffer, never by
 * exiting, so a malformed file cannot crash or end the tool.
 */
#ifndef AIR_TOOLS_NPY_H_
#define AIR_TOOLS_NPY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAX_RANK 32

typedef struct npy_array_t {
  char kind;            /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float */
  uint32_t itemsize;    /* bytes per element: 1, 2, 4 or 8 */
  uint32_t rank;        /* 0 for a scalar */
  int64_t shape[NPY_MAX_RANK];
  uint64_t count;       /* elements: the product of shape */
  void* data;           /* count * itemsize bytes, 64-byte aligned, little-endian */
  uint64_t nbytes;
} npy_array_t;

/* Parses a whole .npy file held in memory. On success returns 0 and fills `out`
 * (its data is a new copy: release with npy_free). On failure returns -1, leaves
 * `out` empty and writes a NUL-terminated message into err[errlen]. */
int npy_parse(const void* bytes, size_t length, npy_array_t* out, char* err, size_t errlen);

/* Reads and parses a file. Messages do not repeat the path. */
int npy_read_file(const char* path, npy_array_t* out, char* err, size_t errlen);
/* The same, reading at most `max_bytes`: a bigger file (or an endless stream) fails
 * with *too_big set, so the caller can say what size it wanted. A directory fails
 * as one. */
int npy_read_file_limited(const char* path, uint64_t max_bytes, npy_array_t* out, char* err,
                          size_t errlen, int* too_big);

/* Encodes `a` as a .npy file image into a malloc'ed buffer (free()). */
int npy_encode(const npy_array_t* a, void** out_bytes, size_t* out_length, char* err,
               size_t errlen);

/* Writes `a` to `path`. */
int npy_write_file(const char* path, const npy_array_t* a, char* err, size_t errlen);

/* Allocates zeroed data for an array of the given kind, size and shape (sets
 * count/nbytes). Returns -1 with a message on overflow or when out of memory. */
int npy_alloc(npy_array_t* a, char kind, uint32_t itemsize, uint32_t rank,
              const int64_t* shape, char* err, size_t errlen);

void npy_free(npy_array_t* a);

/* The dtype string of (kind, itemsize), e.g. "<f4", "|u1", "|b1"; buf >= 8 bytes. */
const char* npy_dtype_string(char kind, uint32_t itemsize, char* buf);

/* Formats a shape as NumPy prints it: "()", "(4096,)", "(512, 512)". */
const char* npy_shape_string(uint32_t rank, const int64_t* shape, char* buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* AIR_TOOLS_NPY_H_ */

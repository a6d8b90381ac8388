/* npy.c - reading and writing NumPy .npy files; see npy.h.
 *
 * The header is a Python dict literal. Rather than accept "anything Python would
 * evaluate", the reader takes the exact subset numpy.save writes (and hand-written
 * files plausibly use): string keys, quoted dtype strings, True/False, tuples of
 * non-negative integers, either quote style, optional trailing commas and spaces.
 * Anything else is an error that says what was expected.
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char k_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static int fail(char* err, size_t errlen, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char* err, size_t errlen, const char* fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

void npy_free(npy_array_t* a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

const char* npy_dtype_string(char kind, uint32_t itemsize, char* buf) {
  /* One-byte types have no byte order; NumPy spells them with '|'. */
  snprintf(buf, 8, "%c%c%u", itemsize == 1 ? '|' : '<', kind, itemsize);
  return buf;
}

const char* npy_shape_string(uint32_t rank, const int64_t* shape, char* buf, size_t len) {
  size_t n = 0;
  if (len == 0) return buf;
  buf[0] = '\0';
  n += (size_t)snprintf(buf + n, len - n, "(");
  for (uint32_t i = 0; i < rank && n < len; ++i)
    n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (n < len) snprintf(buf + n, len - n, rank == 1 ? ",)" : ")");
  return buf;
}

static int valid_dtype(char kind, uint32_t itemsize) {
  switch (kind) {
    case 'b': return itemsize == 1;
    case 'i':
    case 'u': return itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8;
    case 'f': return itemsize == 2 || itemsize == 4 || itemsize == 8;
    default: return 0;
  }
}

int npy_alloc(npy_array_t* a, char kind, uint32_t itemsize, uint32_t rank,
              const int64_t* shape, char* err, size_t errlen) {
  memset(a, 0, sizeof *a);
  if (!valid_dtype(kind, itemsize))
    return fail(err, errlen, "unsupported element type '%c%u'", kind, itemsize);
  if (rank > NPY_MAX_RANK) return fail(err, errlen, "rank %u exceeds %d", rank, NPY_MAX_RANK);
  uint64_t count = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) return fail(err, errlen, "negative extent %lld", (long long)shape[i]);
    if (shape[i] && count > (UINT64_MAX / 2) / (uint64_t)shape[i])
      return fail(err, errlen, "shape too large");
    count *= (uint64_t)shape[i];
  }
  if (count > (UINT64_MAX / 2) / itemsize || count * itemsize > (uint64_t)SIZE_MAX - 64)
    return fail(err, errlen, "array too large");
  uint64_t nbytes = count * itemsize;
  /* 64-byte alignment: the data may be imported as a device buffer as is. */
  size_t alloc = (size_t)((nbytes + 63) & ~(uint64_t)63);
  void* data = aligned_alloc(64, alloc ? alloc : 64);
  if (!data)
    return fail(err, errlen, "out of memory for %llu bytes", (unsigned long long)nbytes);
  memset(data, 0, alloc ? alloc : 64);
  a->kind = kind;
  a->itemsize = itemsize;
  a->rank = rank;
  for (uint32_t i = 0; i < rank; ++i) a->shape[i] = shape[i];
  a->count = count;
  a->data = data;
  a->nbytes = nbytes;
  return 0;
}

/* ---- header parsing ----------------------------------------------------- */

typedef struct hdr_t {
  const char* p;
  const char* end;
} hdr_t;

static void skip_blanks(hdr_t* h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
    ++h->p;
}

static int accept(hdr_t* h, char c) {
  skip_blanks(h);
  if (h->p < h->end && *h->p == c) {
    ++h->p;
    return 1;
  }
  return 0;
}

/* A quoted string without escapes (dtype strings and keys never need them). */
static int read_quoted(hdr_t* h, char* out, size_t outlen) {
  skip_blanks(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return -1;
  char q = *h->p++;
  size_t n = 0;
  while (h->p < h->end && *h->p != q) {
    if (*h->p == '\\' || n + 1 >= outlen) return -1;
    out[n++] = *h->p++;
  }
  if (h->p >= h->end) return -1;
  ++h->p;
  out[n] = '\0';
  return 0;
}

static int read_word(hdr_t* h, const char* word) {
  skip_blanks(h);
  size_t n = strlen(word);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, word, n) != 0) return 0;
  h->p += n;
  return 1;
}

static int read_shape(hdr_t* h, npy_array_t* a, char* err, size_t errlen) {
  if (!accept(h, '(')) return fail(err, errlen, "malformed header: 'shape' is not a tuple");
  a->rank = 0;
  for (;;) {
    if (accept(h, ')')) return 0;
    skip_blanks(h);
    if (h->p >= h->end || *h->p < '0' || *h->p > '9')
      return fail(err, errlen, "malformed header: 'shape' must hold non-negative integers");
    int64_t v = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
      if (v > (INT64_MAX - 9) / 10) return fail(err, errlen, "malformed header: extent too large");
      v = v * 10 + (*h->p++ - '0');
    }
    if (h->p < h->end && (*h->p == 'L' || *h->p == 'l')) ++h->p; /* Python 2 longs */
    if (a->rank == NPY_MAX_RANK)
      return fail(err, errlen, "shape has more than %d dimensions", NPY_MAX_RANK);
    a->shape[a->rank++] = v;
    if (accept(h, ',')) continue;
    if (accept(h, ')')) return 0;
    return fail(err, errlen, "malformed header: expected ',' or ')' in 'shape'");
  }
}

static int parse_descr(const char* descr, char* kind, uint32_t* itemsize, int* swap, char* err,
                       size_t errlen) {
  char order = descr[0];
  const char* k = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=') ++k;
  /* NumPy's one-character aliases that numpy.save can emit. */
  if (strcmp(k, "?") == 0) k = "b1";
  if (!k[0] || !k[1]) return fail(err, errlen, "unsupported dtype '%s'", descr);
  char c = k[0];
  char* endp = NULL;
  errno = 0;
  unsigned long size = strtoul(k + 1, &endp, 10);
  if (errno || *endp || endp == k + 1 || k[1] == '+' || k[1] == '-')
    return fail(err, errlen, "unsupported dtype '%s'", descr);
  if (c == 'c' || c == 'V' || c == 'S' || c == 'U' || c == 'O' || c == 'M' || c == 'm' ||
      !valid_dtype(c, (uint32_t)size))
    return fail(err, errlen,
                "unsupported dtype '%s' (expected bool, int, uint or float of 1, 2, 4 or 8 bytes)",
                descr);
  *kind = c;
  *itemsize = (uint32_t)size;
  *swap = order == '>' && size > 1;
  return 0;
}

static int parse_header(const char* text, size_t len, npy_array_t* a, int* swap, char* err,
                        size_t errlen) {
  hdr_t h = {text, text + len};
  int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
  char descr[64] = "";
  if (!accept(&h, '{')) return fail(err, errlen, "malformed header: expected a '{' dictionary");
  for (;;) {
    if (accept(&h, '}')) break;
    char key[32];
    if (read_quoted(&h, key, sizeof key))
      return fail(err, errlen, "malformed header: expected a quoted key");
    if (!accept(&h, ':')) return fail(err, errlen, "malformed header: expected ':' after '%s'", key);
    if (strcmp(key, "descr") == 0) {
      skip_blanks(&h);
      if (h.p < h.end && *h.p == '[')
        return fail(err, errlen, "structured dtypes are not supported");
      if (read_quoted(&h, descr, sizeof descr))
        return fail(err, errlen, "malformed header: 'descr' must be a dtype string");
      have_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (read_word(&h, "True")) fortran = 1;
      else if (read_word(&h, "False")) fortran = 0;
      else return fail(err, errlen, "malformed header: 'fortran_order' must be True or False");
      have_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      if (read_shape(&h, a, err, errlen)) return -1;
      have_shape = 1;
    } else {
      return fail(err, errlen, "malformed header: unknown key '%s'", key);
    }
    if (accept(&h, ',')) continue;
    if (accept(&h, '}')) break;
    return fail(err, errlen, "malformed header: expected ',' or '}'");
  }
  skip_blanks(&h);
  if (h.p != h.end) return fail(err, errlen, "malformed header: text after the dictionary");
  if (!have_descr || !have_order || !have_shape)
    return fail(err, errlen, "malformed header: missing '%s'",
                !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  if (parse_descr(descr, &a->kind, &a->itemsize, swap, err, errlen)) return -1;
  /* A Fortran-ordered array with at most one extent above 1 has the same bytes in
   * C order, so only a genuinely transposed layout is refused. */
  uint32_t big = 0;
  for (uint32_t i = 0; i < a->rank; ++i) big += a->shape[i] > 1;
  if (fortran && big > 1)
    return fail(err, errlen,
                "Fortran-order (column-major) arrays are not supported; save the array in C "
                "order (numpy.ascontiguousarray)");
  return 0;
}

static void byteswap(void* data, uint64_t count, uint32_t itemsize) {
  unsigned char* p = data;
  for (uint64_t i = 0; i < count; ++i, p += itemsize)
    for (uint32_t j = 0; j < itemsize / 2; ++j) {
      unsigned char t = p[j];
      p[j] = p[itemsize - 1 - j];
      p[itemsize - 1 - j] = t;
    }
}

int npy_parse(const void* bytes, size_t length, npy_array_t* out, char* err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const unsigned char* b = bytes;
  if (length < 10 || memcmp(b, k_magic, sizeof k_magic) != 0)
    return fail(err, errlen, "not a .npy file (no \\x93NUMPY magic)");
  unsigned major = b[6], minor = b[7];
  size_t header_len, start;
  if (major == 1) {
    header_len = (size_t)b[8] | (size_t)b[9] << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (length < 12) return fail(err, errlen, "truncated .npy header");
    header_len = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    start = 12;
  } else {
    return fail(err, errlen, "unsupported .npy format version %u.%u", major, minor);
  }
  if (header_len > length - start)
    return fail(err, errlen, "truncated .npy header (%zu bytes announced, %zu present)",
                header_len, length - start);
  npy_array_t a;
  memset(&a, 0, sizeof a);
  int swap = 0;
  if (parse_header((const char*)b + start, header_len, &a, &swap, err, errlen)) return -1;
  size_t data_at = start + header_len;
  npy_array_t made;
  if (npy_alloc(&made, a.kind, a.itemsize, a.rank, a.shape, err, errlen)) return -1;
  uint64_t have = length - data_at;
  if (have != made.nbytes) {
    char sh[256], dt[8];
    fail(err, errlen, "data has %llu bytes but dtype '%s' and shape %s need %llu",
         (unsigned long long)have, npy_dtype_string(made.kind, made.itemsize, dt),
         npy_shape_string(made.rank, made.shape, sh, sizeof sh),
         (unsigned long long)made.nbytes);
    npy_free(&made);
    return -1;
  }
  if (made.nbytes) memcpy(made.data, b + data_at, (size_t)made.nbytes);
  if (swap) byteswap(made.data, made.count, made.itemsize);
  *out = made;
  return 0;
}

int npy_read_file(const char* path, npy_array_t* out, char* err, size_t errlen) {
  int too_big = 0;
  return npy_read_file_limited(path, UINT64_MAX, out, err, errlen, &too_big);
}

int npy_read_file_limited(const char* path, uint64_t max_bytes, npy_array_t* out, char* err,
                          size_t errlen, int* too_big) {
  memset(out, 0, sizeof *out);
  *too_big = 0;
  FILE* f = fopen(path, "rb");
  if (!f) return fail(err, errlen, "cannot open file: %s", strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0) {
    int dir = S_ISDIR(st.st_mode);
    if (dir || (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)) {
      fclose(f);
      *too_big = !dir;
      return fail(err, errlen, dir ? "is a directory, not a .npy file"
                                   : "the file is larger than %llu bytes",
                  (unsigned long long)max_bytes);
    }
  }
  char* data = NULL;
  size_t len = 0, cap = 0;
  int rc = 0;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 1 << 16;
      char* n = realloc(data, ncap);
      if (!n) {
        rc = fail(err, errlen, "out of memory reading the file");
        break;
      }
      data = n;
      cap = ncap;
    }
    size_t got = fread(data + len, 1, cap - len, f);
    len += got;
    if ((uint64_t)len > max_bytes) {
      *too_big = 1;
      rc = fail(err, errlen, "the file is larger than %llu bytes", (unsigned long long)max_bytes);
      break;
    }
    if (got == 0) {
      if (ferror(f)) rc = fail(err, errlen, "read error: %s", strerror(errno));
      break;
    }
  }
  fclose(f);
  if (rc == 0) rc = npy_parse(data, len, out, err, errlen);
  free(data);
  return rc;
}

/* ---- writing ------------------------------------------------------------ */

int npy_encode(const npy_array_t* a, void** out_bytes, size_t* out_length, char* err,
               size_t errlen) {
  *out_bytes = NULL;
  *out_length = 0;
  if (!valid_dtype(a->kind, a->itemsize))
    return fail(err, errlen, "unsupported element type '%c%u'", a->kind, a->itemsize);
  char dict[64 + NPY_MAX_RANK * 24], dt[8], sh[NPY_MAX_RANK * 24];
  int dlen = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                      npy_dtype_string(a->kind, a->itemsize, dt),
                      npy_shape_string(a->rank, a->shape, sh, sizeof sh));
  if (dlen < 0 || (size_t)dlen >= sizeof dict) return fail(err, errlen, "header too long");
  /* numpy pads the header with spaces and a newline so the data starts on a
   * 64-byte boundary; readers that map the file rely on it. */
  size_t prefix = 10;
  size_t total = (prefix + (size_t)dlen + 1 + 63) & ~(size_t)63;
  int v2 = total - prefix > 65535;
  if (v2) {
    prefix = 12;
    total = (prefix + (size_t)dlen + 1 + 63) & ~(size_t)63;
  }
  size_t header_len = total - prefix;
  if (a->nbytes > SIZE_MAX - total) return fail(err, errlen, "array too large");
  unsigned char* out = malloc(total + (size_t)a->nbytes);
  if (!out) return fail(err, errlen, "out of memory encoding the array");
  memcpy(out, k_magic, sizeof k_magic);
  out[6] = v2 ? 2 : 1;
  out[7] = 0;
  out[8] = (unsigned char)(header_len & 0xff);
  out[9] = (unsigned char)((header_len >> 8) & 0xff);
  if (v2) {
    out[10] = (unsigned char)((header_len >> 16) & 0xff);
    out[11] = (unsigned char)((header_len >> 24) & 0xff);
  }
  memcpy(out + prefix, dict, (size_t)dlen);
  memset(out + prefix + dlen, ' ', header_len - (size_t)dlen - 1);
  out[total - 1] = '\n';
  if (a->nbytes) memcpy(out + total, a->data, (size_t)a->nbytes);
  *out_bytes = out;
  *out_length = total + (size_t)a->nbytes;
  return 0;
}

int npy_write_file(const char* path, const npy_array_t* a, char* err, size_t errlen) {
  void* bytes = NULL;
  size_t len = 0;
  if (npy_encode(a, &bytes, &len, err, errlen)) return -1;
  FILE* f = fopen(path, "wb");
  if (!f) {
    int e = errno;
    free(bytes);
    return fail(err, errlen, "cannot create file: %s", strerror(e));
  }
  size_t put = fwrite(bytes, 1, len, f);
  int e = errno;
  int bad = put != len || ferror(f);
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  free(bytes);
  if (bad) return fail(err, errlen, "cannot write file: %s", strerror(e));
  return 0;
}

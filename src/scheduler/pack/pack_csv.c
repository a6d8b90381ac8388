/* pack_csv.c - the `id,lower,upper,size` instance format of `airc pack` and the
 * packing benchmark. Errors carry NAME:LINE so a user can fix the file; every
 * field is a plain decimal integer, which keeps the reader strict and tiny. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/base/strbuf.h"
#include "scheduler/pack/pack.h"

enum { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_COUNT };
static const char* const k_columns[COL_COUNT] = {"id", "lower", "upper", "size"};

typedef struct {
  const char* p; /* start of the line */
  size_t n;      /* length without the newline or a trailing CR */
} line_t;

static const char* next_line(const char* p, const char* end, line_t* out) {
  const char* q = memchr(p, '\n', (size_t)(end - p));
  const char* stop = q ? q : end;
  out->p = p;
  out->n = (size_t)(stop - p);
  if (out->n && p[out->n - 1] == '\r') out->n--;
  return q ? q + 1 : end;
}

static int is_blank(line_t l) {
  for (size_t i = 0; i < l.n; ++i)
    if (l.p[i] != ' ' && l.p[i] != '\t') return 0;
  return 1;
}

/* Splits at commas, trimming blanks around each field. Returns the field count
 * (which may exceed `max`; only the first `max` are stored). */
static size_t split(line_t l, line_t* fields, size_t max) {
  size_t count = 0;
  size_t i = 0;
  for (;;) {
    size_t start = i;
    while (i < l.n && l.p[i] != ',') ++i;
    size_t a = start, b = i;
    while (a < b && (l.p[a] == ' ' || l.p[a] == '\t')) ++a;
    while (b > a && (l.p[b - 1] == ' ' || l.p[b - 1] == '\t')) --b;
    if (count < max) fields[count] = (line_t){l.p + a, b - a};
    ++count;
    if (i >= l.n) break;
    ++i;
  }
  return count;
}

/* 0 ok, 1 not a number, 2 negative, 3 too large. */
static int parse_u64(line_t f, uint64_t* out) {
  if (f.n == 0) return 1;
  size_t i = 0;
  if (f.p[0] == '-' || f.p[0] == '+') {
    if (f.n == 1) return 1;
    for (size_t k = 1; k < f.n; ++k)
      if (f.p[k] < '0' || f.p[k] > '9') return 1;
    if (f.p[0] == '-') {
      for (size_t k = 1; k < f.n; ++k)
        if (f.p[k] != '0') return 2;
    }
    i = 1;
  }
  uint64_t v = 0;
  for (; i < f.n; ++i) {
    char c = f.p[i];
    if (c < '0' || c > '9') return 1;
    unsigned d = (unsigned)(c - '0');
    if (v > (UINT64_MAX - d) / 10) return 3;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static int cmp_id_line(const void* a, const void* b) {
  const uint64_t* x = a;
  const uint64_t* y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* `NAME:LINE:COL: error: ...`, the shape every tool's diagnostics have; COL is the
 * 1-based byte column of the field at fault (1 for the whole line). */
static air_status_t csv_error(const air_allocator_t* allocator, const char* name, size_t line,
                              size_t col, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
static air_status_t csv_error(const air_allocator_t* allocator, const char* name, size_t line,
                              size_t col, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT, "%s:%zu:%zu: error: %s", name, line,
                    col, msg);
}

static air_status_t parse_header(const air_allocator_t* allocator, const char* name, line_t l,
                                 size_t line_no, int col_of_field[COL_COUNT]) {
  line_t f[8];
  size_t n = split(l, f, 8);
  int seen[COL_COUNT] = {0};
  char q[AIR_QUOTE_BUF];
  if (n > COL_COUNT)
    return csv_error(allocator, name, line_no, 1,
                     "header has %zu columns, expected id,lower,upper,size", n);
  for (size_t i = 0; i < n; ++i) {
    int c = -1;
    for (int k = 0; k < COL_COUNT; ++k)
      if (f[i].n == strlen(k_columns[k]) && memcmp(f[i].p, k_columns[k], f[i].n) == 0) c = k;
    if (c < 0)
      return csv_error(allocator, name, line_no, (size_t)(f[i].p - l.p) + 1,
                       "unknown column '%s', expected id,lower,upper,size",
                       air_quote(q, sizeof q, f[i].p, f[i].n));
    if (seen[c])
      return csv_error(allocator, name, line_no, (size_t)(f[i].p - l.p) + 1,
                       "column '%s' appears twice", k_columns[c]);
    seen[c] = 1;
    col_of_field[i] = c;
  }
  for (int k = 0; k < COL_COUNT; ++k)
    if (!seen[k])
      return csv_error(allocator, name, line_no, 1,
                       "missing column '%s' (expected id,lower,upper,size)", k_columns[k]);
  return NULL;
}

air_status_t air_pack_csv_parse(const air_allocator_t* allocator_in, const char* text,
                                size_t length, const char* name, air_pack_instance_t* out) {
  air_allocator_t sys;
  allocator_in = air_mem_or_system(allocator_in, &sys);
  const air_allocator_t* allocator = allocator_in;
  memset(out, 0, sizeof *out);
  out->allocator = *allocator;
  if (!name) name = "<input>";
  const char* p = text ? text : "";
  const char* end = p + (text ? length : 0);

  /* Upper bound on rows, so the arrays are sized once. */
  size_t max_rows = 1;
  for (const char* q = p; q < end; ++q) max_rows += (*q == '\n');

  line_t l;
  size_t line_no = 0;
  int have_header = 0;
  int col_of_field[COL_COUNT];
  while (p < end && !have_header) {
    p = next_line(p, end, &l);
    ++line_no;
    if (is_blank(l)) continue;
    AIR_RETURN_IF_ERROR(parse_header(allocator, name, l, line_no, col_of_field));
    have_header = 1;
  }
  if (!have_header)
    return csv_error(allocator, name, line_no ? line_no : 1, 1,
                     "empty input, expected header id,lower,upper,size");

  air_pack_buffer_t* bufs = allocator->alloc(allocator->self, max_rows * sizeof *bufs);
  uint64_t* ids = allocator->alloc(allocator->self, max_rows * sizeof *ids);
  uint64_t* id_line = allocator->alloc(allocator->self, max_rows * 2 * sizeof *id_line);
  air_status_t status = NULL;
  if (!bufs || !ids || !id_line) {
    status = AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", name);
    goto fail;
  }
  size_t count = 0;
  while (p < end) {
    p = next_line(p, end, &l);
    ++line_no;
    if (is_blank(l)) continue;
    line_t f[COL_COUNT];
    size_t n = split(l, f, COL_COUNT);
    if (n != COL_COUNT) {
      status = csv_error(allocator, name, line_no, 1,
                         "expected 4 fields (id,lower,upper,size), got %zu", n);
      goto fail;
    }
    uint64_t v[COL_COUNT];
    for (int i = 0; i < COL_COUNT; ++i) {
      int c = col_of_field[i];
      int rc = parse_u64(f[i], &v[c]);
      size_t col = (size_t)(f[i].p - l.p) + 1;
      char q[AIR_QUOTE_BUF]; /* a field echoed: short and printable, even from a binary file */
      if (rc == 1)
        status = csv_error(allocator, name, line_no, col, "%s '%s' is not a number",
                           k_columns[c], air_quote(q, sizeof q, f[i].p, f[i].n));
      else if (rc == 2)
        status = csv_error(allocator, name, line_no, col, "%s '%s' is negative", k_columns[c],
                           air_quote(q, sizeof q, f[i].p, f[i].n));
      else if (rc == 3)
        status = csv_error(allocator, name, line_no, col, "%s '%s' does not fit in 64 bits",
                           k_columns[c], air_quote(q, sizeof q, f[i].p, f[i].n));
      if (status) goto fail;
    }
    if (v[COL_UPPER] <= v[COL_LOWER]) {
      status = csv_error(allocator, name, line_no, 1, "upper %llu must be greater than lower %llu",
                         (unsigned long long)v[COL_UPPER], (unsigned long long)v[COL_LOWER]);
      goto fail;
    }
    bufs[count] = (air_pack_buffer_t){v[COL_LOWER], v[COL_UPPER], v[COL_SIZE]};
    ids[count] = v[COL_ID];
    id_line[2 * count] = v[COL_ID];
    id_line[2 * count + 1] = line_no;
    ++count;
  }
  qsort(id_line, count, 2 * sizeof *id_line, cmp_id_line);
  for (size_t i = 1; i < count; ++i) {
    if (id_line[2 * i] == id_line[2 * i - 2]) {
      status = csv_error(
          allocator, name, (size_t)id_line[2 * i + 1], 1, "duplicate id %llu (first on line %llu)",
          (unsigned long long)id_line[2 * i], (unsigned long long)id_line[2 * i - 1]);
      goto fail;
    }
  }
  allocator->free(allocator->self, id_line);
  out->buffers = bufs;
  out->ids = ids;
  out->count = count;
  return NULL;

fail:
  allocator->free(allocator->self, bufs);
  allocator->free(allocator->self, ids);
  allocator->free(allocator->self, id_line);
  return status;
}

air_status_t air_pack_csv_read(const air_allocator_t* allocator_in, const char* path,
                               air_pack_instance_t* out) {
  air_allocator_t sys;
  allocator_in = air_mem_or_system(allocator_in, &sys);
  const air_allocator_t* allocator = allocator_in;
  memset(out, 0, sizeof *out);
  FILE* f = fopen(path, "rb");
  if (!f)
    return AIR_STATUS(allocator, AIR_STATUS_NOT_FOUND, "%s: error: cannot open: %s", path,
                      strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char* text = allocator->alloc(allocator->self, cap);
  air_status_t status = NULL;
  while (text) {
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (len < cap) break;
    if (!air_mem_grow_z(allocator, (void**)&text, &cap, cap + 1, 1)) {
      allocator->free(allocator->self, text);
      text = NULL;
      break;
    }
  }
  if (!text) {
    status = AIR_STATUS(allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", path);
  } else if (ferror(f)) {
    status = AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS, "%s: error: read failed", path);
  } else {
    status = air_pack_csv_parse(allocator, text, len, path, out);
  }
  fclose(f);
  if (text) allocator->free(allocator->self, text);
  return status;
}

void air_pack_instance_free(air_pack_instance_t* instance) {
  if (!instance) return;
  const air_allocator_t* a = &instance->allocator;
  if (a->free) {
    a->free(a->self, instance->buffers);
    a->free(a->self, instance->ids);
  }
  memset(instance, 0, sizeof *instance);
}

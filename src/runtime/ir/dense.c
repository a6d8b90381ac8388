/* dense.c - decoding `dense<...>` elements literals into packed element bytes
 * (see dense.h). Integers wrap to the element's width as MLIR stores them;
 * floats round to nearest even into f16/bf16/f32. */
#include "runtime/ir/dense.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/bf16.h"

typedef struct dreader_t {
  const char* s;
  const char* end;
  air_elem_kind_t elem;
  uint32_t size;
  uint8_t* out;
  uint64_t count, n; /* elements wanted, elements read */
  char* err;
  size_t err_size;
} dreader_t;

static bool fail(dreader_t* r, const char* fmt, ...) {
  if (r->err && r->err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->err_size, fmt, ap);
    va_end(ap);
  }
  return false;
}

static void skip_ws(dreader_t* r) {
  while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r'))
    ++r->s;
}

/* IEEE half from a double, round to nearest even. */
static uint16_t to_f16(double d) {
  float f = (float)d;
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xff, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
  int32_t he = (int32_t)e - 127 + 15;
  if (he >= 31) return (uint16_t)(sign | 0x7c00u);
  if (he <= 0) {
    if (he < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - he);
    uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) ++hm;
    return (uint16_t)(sign | hm);
  }
  uint32_t hm = m >> 13, rem = m & 0x1fffu;
  uint32_t h = sign | ((uint32_t)he << 10) | hm;
  if (rem > 0x1000u || (rem == 0x1000u && (hm & 1))) ++h;
  return (uint16_t)h;
}

/* Stores one value (integer `iv`, or float `fv` when `is_float`) as element n. */
static void put(dreader_t* r, bool is_float, int64_t iv, uint64_t bits, bool hex, double fv) {
  uint8_t* p = r->out ? r->out + r->n * r->size : NULL;
  ++r->n;
  if (!p) return;
  if (air_elem_is_float(r->elem)) {
    if (hex && !is_float) { /* a bit pattern */
      memcpy(p, &bits, r->size);
      return;
    }
    double v = is_float ? fv : (double)iv;
    switch (r->elem) {
      case AIR_ELEM_F16: { uint16_t h = to_f16(v); memcpy(p, &h, 2); break; }
      case AIR_ELEM_BF16: { uint16_t h = air_bf16_from_f32((float)v); memcpy(p, &h, 2); break; }
      case AIR_ELEM_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
      default: memcpy(p, &v, 8); break;
    }
    return;
  }
  uint64_t u = (uint64_t)iv; /* little-endian: the low bytes are the value */
  memcpy(p, &u, r->size);
}

static bool read_value(dreader_t* r) {
  skip_ws(r);
  if (r->n >= r->count) return fail(r, "more than %llu elements", (unsigned long long)r->count);
  if (r->end - r->s >= 4 && memcmp(r->s, "true", 4) == 0) {
    r->s += 4;
    put(r, false, 1, 1, false, 0);
    return true;
  }
  if (r->end - r->s >= 5 && memcmp(r->s, "false", 5) == 0) {
    r->s += 5;
    put(r, false, 0, 0, false, 0);
    return true;
  }
  char buf[64];
  size_t k = 0;
  while (r->s < r->end && k + 1 < sizeof buf &&
         (strchr("0123456789abcdefABCDEFxX.+-", *r->s) != NULL))
    buf[k++] = *r->s++;
  buf[k] = 0;
  if (!k) return fail(r, "expected a number in the dense literal");
  bool neg = buf[0] == '-';
  const char* digits = buf + (neg || buf[0] == '+');
  bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  bool is_float = !hex && (strchr(buf, '.') || strchr(buf, 'e') || strchr(buf, 'E'));
  char* e = NULL;
  errno = 0;
  if (is_float) {
    double f = strtod(buf, &e);
    if (*e || errno == ERANGE) return fail(r, "bad float '%s' in the dense literal", buf);
    if (!air_elem_is_float(r->elem)) return fail(r, "float '%s' for an integer element", buf);
    put(r, true, 0, 0, false, f);
    return true;
  }
  uint64_t u = strtoull(digits, &e, hex ? 16 : 10);
  if (*e || errno == ERANGE) return fail(r, "bad integer '%s' in the dense literal", buf);
  int64_t iv = neg ? (int64_t)(0 - u) : (int64_t)u;
  put(r, false, iv, u, hex && !neg, 0);
  return true;
}

static bool read_list(dreader_t* r, int depth) {
  skip_ws(r);
  if (depth > 64) return fail(r, "dense literal nested too deep");
  if (r->s < r->end && *r->s == '[') {
    ++r->s;
    skip_ws(r);
    if (r->s < r->end && *r->s == ']') {
      ++r->s;
      return true;
    }
    for (;;) {
      if (!read_list(r, depth + 1)) return false;
      skip_ws(r);
      if (r->s < r->end && *r->s == ',') {
        ++r->s;
        continue;
      }
      if (r->s < r->end && *r->s == ']') {
        ++r->s;
        return true;
      }
      return fail(r, "expected ',' or ']' in the dense literal");
    }
  }
  return read_value(r);
}

/* `"0x0102..."`: raw bytes, either every element or one splat element. */
static bool read_hex_string(dreader_t* r) {
  const char* s = r->s + 3; /* after `"0x` */
  const char* q = memchr(s, '"', (size_t)(r->end - s));
  if (!q) return fail(r, "unterminated hex string in the dense literal");
  size_t nbytes = (size_t)(q - s) / 2;
  if ((size_t)(q - s) % 2) return fail(r, "odd number of hex digits in the dense literal");
  uint64_t total = r->count * r->size;
  if (nbytes != total && nbytes != r->size)
    return fail(r, "hex data of %zu bytes for %llu elements of %u bytes", nbytes,
                (unsigned long long)r->count, r->size);
  for (size_t i = 0; i < nbytes; ++i) {
    unsigned v;
    char two[3] = {s[2 * i], s[2 * i + 1], 0};
    char* e;
    v = (unsigned)strtoul(two, &e, 16);
    if (*e) return fail(r, "bad hex digit in the dense literal");
    if (r->out) r->out[i] = (uint8_t)v;
  }
  if (r->out && nbytes == r->size)
    for (uint64_t k = 1; k < r->count; ++k) memcpy(r->out + k * r->size, r->out, r->size);
  r->n = r->count;
  r->s = q + 1;
  return true;
}

bool air_ir_dense_decode(const char* text, air_elem_kind_t elem, uint64_t count, void* out,
                         char* err, size_t err_size) {
  dreader_t r = {0};
  r.elem = elem;
  r.size = air_elem_size(elem);
  r.out = out;
  r.count = count;
  r.err = err;
  r.err_size = err_size;
  if (err && err_size) err[0] = 0;
  if (!text || strncmp(text, "dense<", 6) != 0 || !r.size)
    return fail(&r, "expected a dense<...> literal of a numeric element type");
  r.s = text + 6;
  r.end = text + strlen(text);
  skip_ws(&r);
  if (r.end - r.s >= 3 && r.s[0] == '"' && r.s[1] == '0' && (r.s[2] == 'x' || r.s[2] == 'X')) {
    if (!read_hex_string(&r)) return false;
  } else if (r.s < r.end && *r.s == '>') {
    if (count) return fail(&r, "empty dense literal for %llu elements", (unsigned long long)count);
  } else {
    bool splat = *r.s != '[';
    if (!read_list(&r, 0)) return false;
    if (splat && r.n == 1) {
      if (out)
        for (uint64_t k = 1; k < count; ++k) memcpy(r.out + k * r.size, r.out, r.size);
      r.n = count;
    }
  }
  skip_ws(&r);
  if (r.s >= r.end || *r.s != '>') return fail(&r, "expected '>' to close the dense literal");
  if (r.n != count)
    return fail(&r, "the dense literal has %llu elements but the type holds %llu",
                (unsigned long long)r.n, (unsigned long long)count);
  return true;
}

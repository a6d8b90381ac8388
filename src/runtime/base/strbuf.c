/* strbuf.c - growable strings; see strbuf.h. */
#include "runtime/base/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"

void air_sb_init(air_sb_t* sb, const air_allocator_t* allocator) {
  memset(sb, 0, sizeof(*sb));
  sb->allocator = *allocator;
}

void air_sb_free(air_sb_t* sb) {
  if (sb->data) sb->allocator.free(sb->allocator.self, sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void air_sb_clear(air_sb_t* sb) {
  sb->len = 0;
  if (sb->data) sb->data[0] = 0;
}

static bool sb_reserve(air_sb_t* sb, size_t extra) {
  if (sb->oom) return false;
  if (extra > SIZE_MAX - sb->len - 1) {
    sb->oom = true;
    return false;
  }
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return true;
  /* Strings start at 256 bytes: most messages fit in one allocation. */
  if (!air_mem_grow_z(&sb->allocator, (void**)&sb->data, &sb->cap, need < 256 ? 256 : need, 1)) {
    sb->oom = true;
    return false;
  }
  return true;
}

void air_sb_append(air_sb_t* sb, const char* s, size_t n) {
  if (!sb_reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = 0;
}

void air_sb_puts(air_sb_t* sb, const char* s) { air_sb_append(sb, s, strlen(s)); }

void air_sb_putc(air_sb_t* sb, char c) { air_sb_append(sb, &c, 1); }

void air_sb_vprintf(air_sb_t* sb, const char* fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof small) {
    air_sb_append(sb, small, (size_t)n);
  } else if (sb_reserve(sb, (size_t)n)) {
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

void air_sb_printf(air_sb_t* sb, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

char* air_sb_take(air_sb_t* sb, size_t* out_len) {
  if (sb->oom) {
    air_sb_free(sb);
    sb->oom = false;
    return NULL;
  }
  if (!sb->data && !sb_reserve(sb, 0)) return NULL;
  sb->data[sb->len] = 0;
  char* d = sb->data;
  if (out_len) *out_len = sb->len;
  sb->data = NULL;
  sb->len = sb->cap = 0;
  return d;
}

const char* air_quote(char* buf, size_t cap, const char* s, size_t n) {
  size_t o = 0, i = 0;
  if (cap == 0) return buf;
  /* Room is kept for one escape (4), "..." (3) and the NUL. */
  for (; i < n && i < AIR_QUOTE_MAX && o + 8 < cap; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f) {
      buf[o++] = (char)c;
    } else {
      static const char k_hex[] = "0123456789abcdef";
      buf[o++] = '\\';
      buf[o++] = 'x';
      buf[o++] = k_hex[c >> 4];
      buf[o++] = k_hex[c & 15];
    }
  }
  if (i < n && o + 4 <= cap) {
    memcpy(buf + o, "...", 3);
    o += 3;
  }
  buf[o] = 0;
  return buf;
}

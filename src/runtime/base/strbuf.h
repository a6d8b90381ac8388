/* strbuf.h - a growable byte string on an air_allocator_t, for printers and
 * diagnostics. Appends never fail loudly: they set `oom` and later appends are
 * ignored, so callers check once at the end. */
#ifndef AIR_RUNTIME_BASE_STRBUF_H_
#define AIR_RUNTIME_BASE_STRBUF_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "air/allocator.h"

typedef struct air_sb_t {
  air_allocator_t allocator;
  char* data; /* NUL-terminated when len > 0 */
  size_t len, cap;
  bool oom;
} air_sb_t;

void air_sb_init(air_sb_t* sb, const air_allocator_t* allocator);
void air_sb_free(air_sb_t* sb);
void air_sb_clear(air_sb_t* sb);
void air_sb_append(air_sb_t* sb, const char* s, size_t n);
void air_sb_puts(air_sb_t* sb, const char* s);
void air_sb_putc(air_sb_t* sb, char c);
void air_sb_printf(air_sb_t* sb, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void air_sb_vprintf(air_sb_t* sb, const char* fmt, va_list ap);
/* Takes the buffer (NUL-terminated, never NULL unless oom); the sb is reset. */
char* air_sb_take(air_sb_t* sb, size_t* out_len);

/* Input echoed in a message: printable ASCII kept, any other byte as \xNN, and at
 * most AIR_QUOTE_MAX bytes of it followed by "...", so a 50 MB token or a binary
 * file comes back as a short readable fragment. Writes into `buf` (at least
 * AIR_QUOTE_BUF bytes; a smaller one gets less) and returns it. */
enum { AIR_QUOTE_MAX = 48, AIR_QUOTE_BUF = AIR_QUOTE_MAX * 4 + 8 };
const char* air_quote(char* buf, size_t cap, const char* s, size_t n);

#endif /* AIR_RUNTIME_BASE_STRBUF_H_ */

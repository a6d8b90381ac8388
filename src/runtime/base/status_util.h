/* status_util.h - internal helpers for making and propagating statuses. */
#ifndef AIR_RUNTIME_BASE_STATUS_UTIL_H_
#define AIR_RUNTIME_BASE_STATUS_UTIL_H_

#include <stdarg.h>

#include "air/status.h"

/* printf-style air_status_make. */
air_status_t air_status_fmt(const air_allocator_t* allocator, air_status_code_t code,
                            const char* src_file, uint32_t src_line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
air_status_t air_status_vfmt(const air_allocator_t* allocator, air_status_code_t code,
                             const char* src_file, uint32_t src_line, const char* fmt,
                             va_list ap);

/* Makes a status at the calling line: AIR_STATUS(alloc, CODE, "fmt", ...). */
#define AIR_STATUS(alloc, code, ...) \
  air_status_fmt((alloc), (code), __FILE__, __LINE__, __VA_ARGS__)

#define AIR_RETURN_IF_ERROR(expr)       \
  do {                                  \
    air_status_t air_s_ = (expr);       \
    if (air_s_) return air_s_;          \
  } while (0)

#endif /* AIR_RUNTIME_BASE_STATUS_UTIL_H_ */

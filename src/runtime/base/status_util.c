/* status_util.c - formatted statuses (AIR_STATUS): the message is formatted on
 * the stack when it fits, else on the status's allocator, and handed to
 * air_status_make (status.c). */
#include "runtime/base/status_util.h"

#include <stdio.h>

air_status_t air_status_vfmt(const air_allocator_t* allocator, air_status_code_t code,
                             const char* src_file, uint32_t src_line, const char* fmt,
                             va_list ap) {
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return air_status_make(allocator, code, src_file, src_line, fmt);
  }
  if ((size_t)n < sizeof small) {
    va_end(ap2);
    return air_status_make(allocator, code, src_file, src_line, small);
  }
  air_allocator_t sys;
  if (!allocator) {
    air_allocator_init_system(&sys);
    allocator = &sys;
  }
  char* big = allocator->alloc(allocator->self, (size_t)n + 1);
  if (!big) {
    va_end(ap2);
    small[sizeof small - 1] = 0;
    return air_status_make(allocator, code, src_file, src_line, small);
  }
  vsnprintf(big, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  air_status_t s = air_status_make(allocator, code, src_file, src_line, big);
  allocator->free(allocator->self, big);
  return s;
}

air_status_t air_status_fmt(const air_allocator_t* allocator, air_status_code_t code,
                            const char* src_file, uint32_t src_line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  air_status_t s = air_status_vfmt(allocator, code, src_file, src_line, fmt, ap);
  va_end(ap);
  return s;
}

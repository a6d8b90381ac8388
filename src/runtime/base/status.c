/* status.c - failed statuses: a heap record with code, message and the C source
 * that made it. The record keeps a copy of the allocator it came from so it can be
 * freed without a context. When memory is short a constant record is returned;
 * it is immutable, so sharing it breaks no isolation between contexts. */
#include <stdint.h>
#include <string.h>

#include "air/status.h"

struct air_status_record_t {
  air_status_code_t code;
  uint32_t source_line;
  const char* source_file;
  air_allocator_t allocator;
  int is_static;
  char message[];
};

static const struct {
  air_status_code_t code;
  uint32_t source_line;
  const char* source_file;
  air_allocator_t allocator;
  int is_static;
  char message[48];
} k_oom_status = {AIR_STATUS_RESOURCE_EXHAUSTED, 0, "status.c", {0, 0, 0, 0}, 1,
                  "out of memory while reporting an error"};

air_status_t air_status_make(const air_allocator_t* allocator, air_status_code_t code,
                             const char* source_file, uint32_t source_line,
                             const char* message) {
  if (code == AIR_STATUS_OK) return NULL;
  air_allocator_t sys;
  if (!allocator) {
    air_allocator_init_system(&sys);
    allocator = &sys;
  }
  if (!message) message = "";
  size_t n = strlen(message);
  struct air_status_record_t* s =
      allocator->alloc(allocator->self, sizeof(*s) + n + 1);
  if (!s) return (air_status_t)(uintptr_t)&k_oom_status;
  s->code = code;
  s->source_file = source_file;
  s->source_line = source_line;
  s->allocator = *allocator;
  s->is_static = 0;
  memcpy(s->message, message, n + 1);
  return s;
}

air_status_code_t air_status_code(air_status_t status) {
  return status ? status->code : AIR_STATUS_OK;
}

const char* air_status_message(air_status_t status) {
  return status ? status->message : "";
}

const char* air_status_code_name(air_status_code_t code) {
  static const char* const names[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
      "UNAVAILABLE", "DATA_LOSS"};
  if ((unsigned)code < sizeof names / sizeof names[0]) return names[code];
  return "UNKNOWN_CODE";
}

void air_status_source(air_status_t status, const char** out_file, uint32_t* out_line) {
  if (out_file) *out_file = status ? status->source_file : NULL;
  if (out_line) *out_line = status ? status->source_line : 0;
}

air_status_t air_status_clone(air_status_t status) {
  if (!status || status->is_static) return status;
  return air_status_make(&status->allocator, status->code, status->source_file,
                         status->source_line, status->message);
}

void air_status_free(air_status_t status) {
  if (!status || status->is_static) return;
  status->allocator.free(status->allocator.self, status);
}

/* artifact_code.c - the `.air.code` section (artifact_code.h). */
#include "scheduler/artifact/artifact_code.h"

#include <stdbool.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact_format.h"

#define CODE_MAGIC "AIRCODE\0"
#define CODE_VERSION 1u

static uint64_t fnv1a(const void* p, size_t n) {
  const uint8_t* b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

air_status_t air_art_code_encode(const air_allocator_t* a, const air_artifact_code_t* code,
                                 const void* text, size_t text_size, uint8_t** out,
                                 size_t* out_size) {
  *out = NULL, *out_size = 0;
  size_t isa_len = strnlen(code->isa, sizeof code->isa);
  if (!code->object || !code->size || !isa_len || isa_len >= sizeof code->isa)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "artifact: host code needs an object and an instruction set name");
  if (code->size > SIZE_MAX - AIR_ART_CODE_HEADER)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "artifact: host code too large");
  uint8_t* b = a->alloc(a->self, AIR_ART_CODE_HEADER + code->size);
  if (!b) return AIR_STATUS_OOM(a, "artifact host code");
  memset(b, 0, AIR_ART_CODE_HEADER);
  memcpy(b, CODE_MAGIC, 8);
  air_art_put32(b + 8, CODE_VERSION);
  air_art_put32(b + 12, code->n_units);
  air_art_put64(b + 16, fnv1a(text, text_size));
  air_art_put64(b + 24, code->size);
  memcpy(b + 32, code->isa, isa_len);
  memcpy(b + AIR_ART_CODE_HEADER, code->object, code->size);
  *out = b;
  *out_size = AIR_ART_CODE_HEADER + code->size;
  return NULL;
}

air_status_t air_art_code_decode(const air_allocator_t* a, const char* name, const uint8_t* sec,
                                 size_t size, const void* text, size_t text_size,
                                 air_artifact_code_t* out) {
  memset(out, 0, sizeof *out);
  if (size < AIR_ART_CODE_HEADER || memcmp(sec, CODE_MAGIC, 8))
    return air_art_corrupt(a, name, "%s: no AIRCODE header", AIR_ART_CODE_SECTION);
  uint32_t version = air_art_get32(sec + 8);
  if (version != CODE_VERSION)
    return air_art_corrupt(a, name, "%s: version %u (this reader reads %u)", AIR_ART_CODE_SECTION,
                           version, CODE_VERSION);
  uint64_t n = air_art_get64(sec + 24);
  if (n == 0 || n != size - AIR_ART_CODE_HEADER)
    return air_art_corrupt(a, name, "%s: object size %llu, but the section holds %zu bytes after "
                                    "its header",
                           AIR_ART_CODE_SECTION, (unsigned long long)n, size - AIR_ART_CODE_HEADER);
  if (air_art_get64(sec + 16) != fnv1a(text, text_size))
    return air_art_corrupt(a, name, "%s: made for other program text (hash differs from "
                                    ".air.program's)",
                           AIR_ART_CODE_SECTION);
  const uint8_t* isa = sec + 32;
  size_t isa_len = strnlen((const char*)isa, 16);
  bool padded = isa_len > 0 && isa_len < 16;
  for (size_t i = isa_len; padded && i < 16; ++i) padded = !isa[i];
  for (size_t i = 0; padded && i < isa_len; ++i) padded = isa[i] > ' ' && isa[i] < 127;
  if (!padded)
    return air_art_corrupt(a, name, "%s: instruction set name is not a printable, NUL-padded "
                                    "string",
                           AIR_ART_CODE_SECTION);
  uint8_t* copy = a->alloc(a->self, (size_t)n);
  if (!copy) return AIR_STATUS_OOM(a, "artifact host code");
  memcpy(copy, sec + AIR_ART_CODE_HEADER, (size_t)n);
  out->object = copy;
  out->size = (size_t)n;
  out->n_units = air_art_get32(sec + 12);
  memcpy(out->isa, isa, isa_len);
  return NULL;
}

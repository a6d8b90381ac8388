/* artifact_code.h - the optional `.air.code` section (docs/artifact.md): the
 * program's host code as an x86-64 object, tied to the program text by a hash.
 *
 *   0   magic      "AIRCODE\0"
 *   8   version    u32 = 1
 *   12  n_units    u32
 *   16  text_hash  u64, FNV-1a 64 of the `.air.program` bytes
 *   24  size       u64, bytes of the object
 *   32  isa        16 bytes, NUL-terminated and NUL-padded ("x86-64-v3")
 *   48  the object
 *
 * Only the section is checked here (its shape, the hash, the ISA name); the
 * object's own structure is the loader's (hal/host_object.c) when it is linked. */
#ifndef AIR_SCHEDULER_ARTIFACT_ARTIFACT_CODE_H_
#define AIR_SCHEDULER_ARTIFACT_ARTIFACT_CODE_H_

#include <stddef.h>
#include <stdint.h>

#include "scheduler/artifact/artifact.h"

#define AIR_ART_CODE_SECTION ".air.code"
#define AIR_ART_CODE_HEADER 48u

/* The section's bytes for `code` and the program text (allocator's). */
air_status_t air_art_code_encode(const air_allocator_t* a, const air_artifact_code_t* code,
                                 const void* text, size_t text_size, uint8_t** out,
                                 size_t* out_size);

/* Checks a section against the program text and copies the object out. */
air_status_t air_art_code_decode(const air_allocator_t* a, const char* name, const uint8_t* sec,
                                 size_t size, const void* text, size_t text_size,
                                 air_artifact_code_t* out);

#endif /* AIR_SCHEDULER_ARTIFACT_ARTIFACT_CODE_H_ */

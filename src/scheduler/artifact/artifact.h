/* artifact.h - the .airbin file: a compiled schedule and the program it belongs to,
 * in an ELF container written and read with libelf so `readelf -S` lists it.
 *
 * The program travels as its printed AIR text (print/parse is a fixed point, so
 * op indices in the schedule mean the same ops after loading). The reader trusts
 * nothing: every offset, size, count and index is checked before use, the text is
 * parsed and verified, and the stored partition must honour every edge of the
 * program's host-level token graph. A corrupt or truncated file is DATA_LOSS (or
 * INVALID_ARGUMENT for a file that is not an .airbin at all) with a message naming
 * the section and the field, never a crash. */
#ifndef AIR_SCHEDULER_ARTIFACT_ARTIFACT_H_
#define AIR_SCHEDULER_ARTIFACT_ARTIFACT_H_

#include <stddef.h>

#include "air/allocator.h"
#include "air/context.h"
#include "air/program.h"
#include "air/status.h"
#include "scheduler/schedule.h"

/* Host code for the program's compiled units, the optional `.air.code` section
 * (docs/artifact.md): an x86-64 relocatable object holding one function per unit,
 * "air_unit_<N>" for the op at preorder index N of the module (hal/compiled.h,
 * loaded by hal/host_object.h), for the instruction set `isa`. The section also
 * stores a hash of the program text, so code is never paired with a program it
 * was not made for. */
typedef struct air_artifact_code_t {
  void* object;   /* reading: the allocator's copy (caller frees), NULL when none */
  size_t size;
  uint32_t n_units;
  char isa[16];   /* "x86-64-v3" */
} air_artifact_code_t;

/* Serialises (program, schedule) into an ELF image in memory; *out_data comes from
 * `allocator` (caller frees). */
air_status_t air_artifact_write(const air_allocator_t* allocator, const air_program_t* program,
                                const air_schedule_t* schedule, void** out_data,
                                size_t* out_size);
air_status_t air_artifact_write_file(const air_allocator_t* allocator,
                                     const air_program_t* program,
                                     const air_schedule_t* schedule, const char* path);

/* The same, with the program's host code (`code` NULL or with no object: none). */
air_status_t air_artifact_write_ex(const air_allocator_t* allocator, const air_program_t* program,
                                   const air_schedule_t* schedule,
                                   const air_artifact_code_t* code, void** out_data,
                                   size_t* out_size);
air_status_t air_artifact_write_file_ex(const air_allocator_t* allocator,
                                        const air_program_t* program,
                                        const air_schedule_t* schedule,
                                        const air_artifact_code_t* code, const char* path);

/* True when the bytes start like an .airbin (ELF magic); a cheap sniff for tools. */
bool air_artifact_sniff(const void* data, size_t size);

/* Reads and validates an image. `name` is used in messages (a path or "<memory>").
 * On success the caller owns *out_program (air_program_destroy) and *out_schedule
 * (air_schedule_free); on error neither is set. */
air_status_t air_artifact_read(air_context_t* context, const void* data, size_t size,
                               const char* name, air_program_t** out_program,
                               air_schedule_t** out_schedule);
/* The same for a file; NOT_FOUND / UNAVAILABLE when it cannot be read. The
 * schedule's arrays come from the context's allocator. Layout and every rule the
 * reader checks: docs/artifact.md. */
air_status_t air_artifact_read_file(air_context_t* context, const char* path,
                                    air_program_t** out_program, air_schedule_t** out_schedule);

/* The same, also returning the host code when the image carries some
 * (`out_code->object` NULL otherwise; from the context's allocator). A `.air.code`
 * section that is malformed or made for other program text fails the whole read
 * (DATA_LOSS). */
air_status_t air_artifact_read_ex(air_context_t* context, const void* data, size_t size,
                                  const char* name, air_program_t** out_program,
                                  air_schedule_t** out_schedule, air_artifact_code_t* out_code);
air_status_t air_artifact_read_file_ex(air_context_t* context, const char* path,
                                       air_program_t** out_program, air_schedule_t** out_schedule,
                                       air_artifact_code_t* out_code);

#endif /* AIR_SCHEDULER_ARTIFACT_ARTIFACT_H_ */

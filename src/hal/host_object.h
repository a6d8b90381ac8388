/* host_object.h - loading the code generator's x86-64 objects (the compiled
 * units an .airbin carries, docs/artifact.md) into executable memory without
 * LLVM: a small static linker for exactly what the generator emits.
 *
 * Accepted: an ELF64 little-endian relocatable for x86-64 whose allocated
 * sections are read-only code and constants (no writable data, no TLS), whose
 * relocations are SHT_RELA entries of type R_X86_64_64 (absolute 64-bit: the
 * generator uses the large code model) against defined symbols, section symbols
 * or one of the few C library functions generated code may call (fmax, fmin,
 * memcpy, memmove, memset and the libm functions of math ops). Everything else —
 * another machine, a PC-relative relocation, an offset outside its section, an
 * unknown external — is refused with DATA_LOSS naming the section and entry, and
 * nothing is mapped. The bytes are untrusted for their structure (the fuzz
 * target code_object feeds it garbage); their *meaning* is native code the
 * process will run, so load objects only from artifacts you trust (or make the
 * executable with AIR_EXECUTABLE_NO_COMPILE).
 *
 * Code ends up in pages mapped read+execute, constants read-only; nothing is
 * writable and executable at once. */
#ifndef AIR_HAL_HOST_OBJECT_H_
#define AIR_HAL_HOST_OBJECT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef struct air_host_object_t air_host_object_t;

/* Links `bytes` into memory. `name` is used in messages. */
air_status_t air_host_object_load(const air_allocator_t* allocator, const void* bytes,
                                  size_t size, const char* name, air_host_object_t** out);
void air_host_object_free(air_host_object_t* obj);

/* Defined global functions, in symbol-table order: name and address. */
uint32_t air_host_object_count(const air_host_object_t* obj);
const char* air_host_object_name(const air_host_object_t* obj, uint32_t i);
void* air_host_object_address(const air_host_object_t* obj, uint32_t i);

/* Whether this CPU runs code generated for `isa` ("x86-64-v3": AVX2, FMA, BMI1/2,
 * F16C, LZCNT, MOVBE and the OS saving YMM state; "x86-64": any x86-64). */
bool air_host_object_cpu_supports(const char* isa);

#endif /* AIR_HAL_HOST_OBJECT_H_ */

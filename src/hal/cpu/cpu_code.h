/* cpu_code.h - the compiled code of one CPU executable: its program's units
 * (hal/compiled.h) either JIT-compiled by the code generator when it is loaded
 * (hal/codegen_load.h), or linked from the x86-64 object an artifact carries
 * (hal/host_object.h), looked up by op when the executor reaches one. Made once
 * per executable, read by every run; never changed after it is made. */
#ifndef AIR_HAL_CPU_CPU_CODE_H_
#define AIR_HAL_CPU_CPU_CODE_H_

#include "air/executable.h"
#include "hal/compiled.h"
#include "scheduler/artifact/artifact.h"

typedef struct air_cpu_code_t air_cpu_code_t;

/* Compiles `program` (which must outlive the code) with the generator when one
 * is found; `*out` NULL and `info->why_none` set when there is none or it
 * compiles nothing. Fails only on out-of-memory or a generator error that is not
 * "not covered". */
air_status_t air_cpu_code_jit(const air_allocator_t* allocator, const air_program_t* program,
                              air_cpu_code_t** out, air_code_info_t* info);

/* Links an artifact's host code for `program`; refused (DATA_LOSS) when the
 * object is malformed or names ops that are not units; `*out` NULL (with
 * `info->why_none`) when this CPU lacks the code's instruction set. */
air_status_t air_cpu_code_link(const air_allocator_t* allocator, const air_program_t* program,
                               const air_artifact_code_t* code, air_cpu_code_t** out,
                               air_code_info_t* info);

/* The unit for `op`, or NULL (interpret). */
const air_cg_unit_t* air_cpu_code_find(const air_cpu_code_t* code, const air_op_t* op);
/* The same lookup as the executor takes it (hal/compiled.h); lives with `code`. */
const air_cg_code_t* air_cpu_code_lookup(const air_cpu_code_t* code);

void air_cpu_code_free(air_cpu_code_t* code);

#endif /* AIR_HAL_CPU_CPU_CODE_H_ */

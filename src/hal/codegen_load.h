/* codegen_load.h - finding the code generator at run time. libairrt never links
 * LLVM: the generator is its own shared library, libairrt_codegen.so.X.Y, which
 * the runtime opens when it is present (linked into the application already, or
 * found by the dynamic loader beside libairrt or on its search path) and reaches
 * through the hook table of hal/compiled.h. Without it every body is
 * interpreted. */
#ifndef AIR_HAL_CODEGEN_LOAD_H_
#define AIR_HAL_CODEGEN_LOAD_H_

#include "air/allocator.h"
#include "air/status.h"
#include "hal/compiled.h"

/* The generator's hooks, or UNAVAILABLE saying why there are none (not found,
 * another build's, another ABI). The library stays loaded for the process's
 * life (LLVM does not support being unloaded), so the hooks never dangle. */
air_status_t air_cg_load(const air_allocator_t* allocator, const air_cg_hooks_t** out);

/* The file name looked for, "libairrt_codegen.so.X.Y". */
const char* air_cg_library_name(void);

#endif /* AIR_HAL_CODEGEN_LOAD_H_ */

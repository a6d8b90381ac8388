/* gpu_sim.h - the host workgroup simulator (tests only): runs a generated GPU
 * kernel that the code generator JIT-compiled for this CPU (codegen/cg_gpu.h,
 * air_cg_gpu_sim_create) the way a GPU would, one workgroup after another, each
 * work-item a host thread with its work-item and workgroup ids, the workgroup's
 * LDS one shared buffer, barriers a barrier of the workgroup's threads, and the
 * kernel's sleep-waits a yield. A failing work-item (bounds, a channel error, a
 * wait that timed out) ends the dispatch with its code and source line. */
#ifndef AIR_TESTS_GPU_SIM_H_
#define AIR_TESTS_GPU_SIM_H_

#include <stddef.h>
#include <stdint.h>

#include "codegen/cg_gpu.h"
#include "hal/compiled.h"

/* Runs `n_groups` workgroups of kernel `fn` (described by `k`) with `kernarg` and
 * `lds_bytes` of LDS each. Returns 0, or non-zero with a message in `err`.
 * A wait that has not ended after `timeout_s` seconds fails the dispatch. */
int air_gpu_sim_run(air_gpu_sim_fn fn, const air_gpu_kernel_t* k, const void* kernarg,
                    uint32_t n_groups, uint32_t lds_bytes, double timeout_s, char* err,
                    size_t err_cap);

#endif /* AIR_TESTS_GPU_SIM_H_ */

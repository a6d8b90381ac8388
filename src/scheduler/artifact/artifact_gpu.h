/* artifact_gpu.h - the optional GPU sections of an .airbin (docs/artifact.md):
 * `.air.gpu`, the kernel table of schedule->gpu (scheduler/gpu_code.h), and one
 * `.air.hsaco.N` section per code object, holding the object's bytes as lld
 * wrote them.
 *
 *   .air.gpu   0  magic "AIRGPU\0\0"   8  version u32 = 1   12 n_objects u32
 *              16 n_kernels u32        20 reserved u32       24 processor [16]
 *              40 n_kernels records of AIR_ART_GPU_KERNEL bytes, then every
 *                 kernel's arguments, 8 bytes each (kind u32, param u32)
 *
 * A kernel record: cmd, object, mapping, workgroup_size, wave_size, fixed_roles,
 * pes, pes_per_wave, lds_bytes, n_grid, n_args, seg_workgroups (u32 each; 0 in
 * tables written before segments had iteration spaces, read as 1), spill_bytes
 * (u64), grid[3] as (param u32, reserved u32, value i64), name [64]. The reader
 * checks the table's shape against the schedule (commands, counts, sizes, names);
 * the code objects themselves are checked by the code-object reader when the hsa
 * driver loads them (amdgpu/code_object.c, fuzzed on its own). */
#ifndef AIR_SCHEDULER_ARTIFACT_ARTIFACT_GPU_H_
#define AIR_SCHEDULER_ARTIFACT_ARTIFACT_GPU_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "scheduler/schedule.h"

#define AIR_ART_GPU_SECTION ".air.gpu"
#define AIR_ART_GPU_OBJECT_PREFIX ".air.hsaco."
#define AIR_ART_GPU_HEADER 40u
#define AIR_ART_GPU_KERNEL 168u
#define AIR_ART_GPU_MAX_OBJECTS 256u

/* The `.air.gpu` bytes of `code` (allocator's). */
air_status_t air_art_gpu_encode(const air_allocator_t* a, const air_gpu_code_t* code,
                                uint8_t** out, size_t* out_size);

/* Builds s->gpu (in s->arena) from the `.air.gpu` bytes and the object sections
 * (objects[i] of sizes[i], i < n_objects, NULL where absent), checking the table
 * against the schedule; DATA_LOSS "NAME: .air.gpu: ..." when it does not fit. */
air_status_t air_art_gpu_decode(const air_allocator_t* a, const char* name, const uint8_t* sec,
                                size_t size, const uint8_t* const* objects, const size_t* sizes,
                                uint32_t n_objects, air_schedule_t* s);

#endif /* AIR_SCHEDULER_ARTIFACT_ARTIFACT_GPU_H_ */

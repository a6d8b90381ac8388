/* air/kernel.h - C kernels that herds call, and the memref descriptor they receive.
 *
 * Compute inside a herd is either built-in ops (arith, memref, scf, affine, linalg),
 * which every backend executes, or a named kernel: the callee of a `func.call`, or the
 * object named by a herd's `link_with`. On the CPU a named kernel is a C function
 * registered on the context before programs run. Registration is not thread-safe
 * against running programs: register first, then run.
 */
#ifndef AIR_KERNEL_H_
#define AIR_KERNEL_H_

#include "air/config.h"

#include <stdint.h>

#include "air/context.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AIR_MAX_RANK 8

/* A strided view of memory: element (i0, i1, ...) lives at
 * data + (offset + i0*strides[0] + i1*strides[1] + ...) * element_size. Sizes and
 * strides count elements. `elem` is an air_elem_t (air/types.h); bf16 is stored as
 * the upper 16 bits of an IEEE f32 (little-endian uint16). */
typedef struct air_memref_t {
  void* data;
  int64_t offset;
  uint32_t elem;
  uint32_t rank;
  int64_t sizes[AIR_MAX_RANK];
  int64_t strides[AIR_MAX_RANK];
} air_memref_t;

/* What an argument is. */
typedef enum air_arg_kind_e {
  AIR_ARG_MEMREF = 0,
  AIR_ARG_INT = 1,   /* integers and index: value in `i` */
  AIR_ARG_FLOAT = 2, /* f16, bf16, f32, f64: value in `f` */
} air_arg_kind_t;

/* One argument of a kernel call (or of a program entry function). */
typedef struct air_arg_t {
  uint32_t kind; /* air_arg_kind_t */
  uint32_t elem; /* air_elem_t of the scalar or of the memref's elements */
  int64_t i;
  double f;
  air_memref_t memref;
} air_arg_t;

/* Everything a kernel receives. `tile` is the calling processing element's
 * coordinates in its herd and `tile_sizes` the herd's iteration space (rank
 * `tile_rank`, 0 when called outside a herd). Results (scalar func.call results)
 * are written by the kernel into `results`, whose kind/elem are preset. */
typedef struct air_kernel_call_t {
  const char* name;
  uint32_t n_args;
  const air_arg_t* args;
  uint32_t n_results;
  air_arg_t* results;
  uint32_t tile_rank;
  int64_t tile[4];
  int64_t tile_sizes[4];
} air_kernel_call_t;

/* A kernel. Return NULL on success or a failed status (e.g. made with
 * air_status_make): the run fails with it, and every waiter receives it. A kernel
 * may run on any worker thread (or, on the cpu device, on the thread that
 * submitted the work), concurrently with other calls of itself. */
typedef air_status_t (*air_kernel_fn_t)(void* user_data, const air_kernel_call_t* call);

/* Registers `fn` under `name` (a func.call callee such as "scale_tile", or a
 * link_with object such as "kernel.o"). Registering a name again replaces it. */
AIR_API air_status_t air_context_register_kernel(air_context_t* context, const char* name,
                                                 air_kernel_fn_t fn, void* user_data);

/* Looks a kernel up; NOT_FOUND when absent. */
AIR_API air_status_t air_context_find_kernel(const air_context_t* context, const char* name,
                                             air_kernel_fn_t* out_fn, void** out_user_data);

/* Kernel libraries. A shared object that bundles kernels exports one function
 * named AIR_KERNEL_LIBRARY_SYMBOL of type air_kernel_library_fn_t; a host (air-run
 * --kernels LIB.so, or an application) loads it and calls it with its context and a
 * registration function, so the library needs no link-time dependency on
 * libairrt for registering. Kernels that build failure statuses may link libairrt
 * for air_status_make: statuses carry their own allocator and are freed correctly by
 * any copy of the library. */
#define AIR_KERNEL_LIBRARY_SYMBOL "air_kernel_library_register"
#if defined(__GNUC__)
#define AIR_KERNEL_LIBRARY_EXPORT __attribute__((visibility("default")))
#else
#define AIR_KERNEL_LIBRARY_EXPORT
#endif
typedef air_status_t (*air_kernel_register_fn_t)(air_context_t* context, const char* name,
                                                 air_kernel_fn_t fn, void* user_data);
typedef air_status_t (*air_kernel_library_fn_t)(air_context_t* context,
                                                air_kernel_register_fn_t register_kernel);

#ifdef __cplusplus
}
#endif
#endif /* AIR_KERNEL_H_ */

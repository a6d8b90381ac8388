/* driver.h - what a HAL driver implements, and the object headers it embeds.
 *
 * A driver reads two things: the requests below (already checked) and, for each
 * dispatchable entry, its compiled schedule (scheduler/schedule.h, the HAL
 * contract: waves, waits, in-wave edges, affinity producers, the memory plan),
 * which the compiler or the artifact reader made complete and consistent. A
 * driver never runs a scheduler analysis. Drivers register in one table,
 * drivers.c; docs/hal.md says how to add one.
 *
 * Every HAL object starts with an air_resource_t (reference count + vtable) and
 * then a concrete header shared by all drivers (air_device_t, air_buffer_t, ...);
 * a driver's struct embeds that header first and adds its own fields. Every vtable
 * starts with air_resource_vtable_t, whose `destroy` runs when the last reference
 * goes, so a command buffer can hold buffers and executables in one list.
 *
 * The public calls in device.c, buffer.c, executable.c and command_buffer.c check
 * arguments and state before reaching a vtable, so drivers see only valid requests:
 * ranges inside their buffers, ordinals inside their executables, bindings already
 * turned into air_arg_t. Objects do not retain their device: the device must
 * outlive their use (releasing them after the device is fine).
 */
#ifndef AIR_HAL_DRIVER_H_
#define AIR_HAL_DRIVER_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "air/buffer.h"
#include "air/command_buffer.h"
#include "air/device.h"
#include "air/executable.h"
#include "air/kernel.h"
#include "air/program.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/schedule.h"

/* An op of the program (runtime/ir.h); drivers that run the IR include that. */
typedef struct air_op_t air_op_t;

/*--- resources -------------------------------------------------------------*/

typedef struct air_resource_t air_resource_t;

typedef struct air_resource_vtable_t {
  void (*destroy)(air_resource_t* resource);
} air_resource_vtable_t;

struct air_resource_t {
  _Atomic uint32_t refs;
  const air_resource_vtable_t* vtable; /* the object's vtable begins with this */
};

static inline void air_resource_init(air_resource_t* r, const void* vtable) {
  atomic_init(&r->refs, 1);
  r->vtable = (const air_resource_vtable_t*)vtable;
}
static inline void air_resource_retain(air_resource_t* r) {
  if (r) atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}
static inline void air_resource_release(air_resource_t* r) {
  if (r && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1)
    r->vtable->destroy(r);
}

/*--- devices ---------------------------------------------------------------*/

struct air_device_t {
  air_resource_t resource;
  air_context_t* context;
  air_allocator_t allocator;
  air_device_info_t info; /* filled by the driver at open */
};

typedef struct air_device_vtable_t {
  air_resource_vtable_t resource; /* destroy drains in-flight work first */
  air_status_t (*buffer_allocate)(air_device_t* device, uint64_t size, uint32_t flags,
                                  air_buffer_t** out_buffer);
  air_status_t (*buffer_import)(air_device_t* device, void* host_ptr, uint64_t size,
                                uint32_t flags, air_buffer_t** out_buffer);
  /* `loaded` (NULL, or a schedule read from an artifact for one entry of
   * `program`) is taken over on success. `code` (NULL, or the host code the
   * artifact carried, docs/artifact.md) is borrowed for the call. */
  air_status_t (*executable_create)(air_device_t* device, const air_program_t* program,
                                    uint32_t flags, air_schedule_t* loaded,
                                    const air_artifact_code_t* code,
                                    air_executable_t** out_executable);
  air_status_t (*command_buffer_create)(air_device_t* device, uint32_t flags,
                                        air_command_buffer_t** out_command_buffer);
  /* Lists are validated; `command_buffer` is ended and of this device, or NULL. */
  air_status_t (*queue_execute)(air_device_t* device, uint32_t queue,
                                const air_timepoint_list_t* wait,
                                air_command_buffer_t* command_buffer,
                                const air_timepoint_list_t* signal);
  /* Optional (NULL when the driver takes no options beyond flags): executable_create
   * with air_executable_options_t (never NULL here; flags already checked). When
   * present it serves every executable creation of the device. */
  air_status_t (*executable_create_options)(air_device_t* device, const air_program_t* program,
                                            const air_executable_options_t* options,
                                            air_schedule_t* loaded,
                                            air_executable_t** out_executable);
} air_device_vtable_t;

#define AIR_DEVICE_VTABLE(d) ((const air_device_vtable_t*)(d)->resource.vtable)

/*--- drivers ---------------------------------------------------------------*/

/* Opens a device. `params` is what follows "name:" in the URI (NULL when there is
 * no ':'); `uri` is the whole URI, for messages. A driver whose hardware or library
 * is absent answers UNAVAILABLE; malformed params are INVALID_ARGUMENT. */
typedef air_status_t (*air_driver_open_fn_t)(air_context_t* context, const char* params,
                                             const char* uri, air_device_t** out_device);

/* One entry of the driver table (drivers.c, the only file that names drivers).
 * `forms` lists the driver's URI forms for messages, e.g. "cpu, cpu:threads=N". */
typedef struct air_driver_t {
  const char* name;
  const char* forms;
  air_driver_open_fn_t open;
} air_driver_t;

/* The table, in the order URIs are matched and messages list them. */
const air_driver_t* air_drivers(uint32_t* out_count);

/* Parses a decimal number in [lo, hi] spanning exactly `len` bytes (URI params). */
bool air_parse_u32(const char* s, size_t len, uint32_t lo, uint32_t hi, uint32_t* out);

/*--- buffers ---------------------------------------------------------------*/

struct air_buffer_t {
  air_resource_t resource;
  air_device_t* device;
  air_allocator_t allocator;
  uint64_t size;
  void* host_ptr; /* host-addressable bytes, or NULL when mapping must ask the driver */
  bool imported;  /* host_ptr belongs to the caller */
  /* Where the device's own code finds byte 0 when that is not host_ptr (the hsa
   * driver: a GPU virtual address the host cannot dereference), else NULL.
   * Dispatch bindings resolve through it; only the owning driver reads them. */
  void* device_ptr;
};

typedef struct air_buffer_vtable_t {
  air_resource_vtable_t resource;
  /* [offset, offset + length) is inside the buffer; `access` is READ|WRITE.
   * NULL map and unmap: the buffer is coherent host memory at host_ptr (mapping
   * returns host_ptr + offset, or NULL for an empty import; unmapping does nothing). */
  air_status_t (*map)(air_buffer_t* buffer, uint64_t offset, uint64_t length,
                      uint32_t access, void** out_ptr);
  void (*unmap)(air_buffer_t* buffer, void* ptr);
} air_buffer_vtable_t;

void air_buffer_init(air_buffer_t* buffer, const air_buffer_vtable_t* vtable,
                     air_device_t* device, uint64_t size, void* host_ptr, bool imported);

/*--- executables -----------------------------------------------------------*/

/* One entry function and its parameters as air_arg_t (data NULL; dynamic memref
 * extents -1). `why_not` says why it cannot be dispatched, or is NULL. `schedule`
 * is the entry's compiled schedule (owned; NULL when none was made), `prepared`
 * the driver's form of it (the cpu driver: an air_interp_plan_t), which the
 * driver frees before air_executable_deinit. */
typedef struct air_entry_t {
  const air_op_t* func;
  const char* name;
  uint32_t n_params;
  air_arg_t* params;
  const char* why_not;
  uint32_t why_not_param;
  air_schedule_t* schedule;
  /* Why the scheduler refused this entry (owned), when it did: the entry then
   * runs on the dynamic path, which needs no plan. */
  air_status_t schedule_error;
  void* prepared;
} air_entry_t;

struct air_executable_t {
  air_resource_t resource;
  air_device_t* device;
  air_allocator_t allocator;
  const air_program_t* program;
  air_program_t* owned_program; /* loaded from an artifact: destroyed with it */
  uint32_t n_entries;
  air_entry_t* entries;
  /* What runs compiled, filled by the driver (air_executable_code_info);
   * `code_why` holds the why_none text. Zero: nothing. */
  air_code_info_t code_info;
  char code_why[256];
};

typedef struct air_executable_vtable_t {
  air_resource_vtable_t resource;
} air_executable_vtable_t;

/* Verifies `program` for `target`, fills the entries and, unless `flags` has
 * AIR_EXECUTABLE_NO_SCHEDULE, gives each dispatchable entry a schedule: `loaded`
 * for its own entry (taken over, also on failure), compiled for the others. On
 * failure nothing needs undoing. */
air_status_t air_executable_init(air_executable_t* executable,
                                 const air_executable_vtable_t* vtable, air_device_t* device,
                                 const air_program_t* program, const char* target, uint32_t flags,
                                 air_schedule_t* loaded);
void air_executable_deinit(air_executable_t* executable);

/*--- command buffers -------------------------------------------------------*/

struct air_command_buffer_t {
  air_resource_t resource;
  air_device_t* device;
  air_allocator_t allocator;
  bool ended;
  uint32_t n_retained, cap_retained;
  air_resource_t** retained; /* buffers and executables the commands use */
};

typedef struct air_command_buffer_vtable_t {
  air_resource_vtable_t resource;
  /* `args` has one entry per parameter, memrefs pointing into their buffers; it is
   * borrowed for the call. `options` is never NULL. */
  /* `transient` is the caller's transient arena (checked against the entry's
   * needs), or NULL: the driver makes one per run. */
  air_status_t (*dispatch)(air_command_buffer_t* cb, air_executable_t* executable,
                           uint32_t ordinal, uint32_t n_args, const air_arg_t* args,
                           const air_dispatch_options_t* options, void* transient,
                           uint64_t transient_size);
  air_status_t (*copy)(air_command_buffer_t* cb, air_buffer_t* source, uint64_t source_offset,
                       air_buffer_t* target, uint64_t target_offset, uint64_t length);
  /* `pattern` is the 1/2/4-byte pattern repeated to fill 4 bytes; `length` is a
   * multiple of `pattern_length`. */
  air_status_t (*fill)(air_command_buffer_t* cb, air_buffer_t* target, uint64_t offset,
                       uint64_t length, uint32_t pattern, uint32_t pattern_length);
  air_status_t (*barrier)(air_command_buffer_t* cb);
  air_status_t (*end)(air_command_buffer_t* cb);
} air_command_buffer_vtable_t;

void air_command_buffer_init(air_command_buffer_t* cb, const air_command_buffer_vtable_t* vtable,
                             air_device_t* device);
/* Releases what the commands retained. */
void air_command_buffer_deinit(air_command_buffer_t* cb);

#endif /* AIR_HAL_DRIVER_H_ */

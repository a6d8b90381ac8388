/* hsa_api.h - the part of the HSA runtime (ROCr) the hsa driver calls, as a table
 * of function pointers: filled by dlopen'ing libhsa-runtime64 (hsa_api.c), so a
 * machine without ROCm runs everything else and an absent runtime is an error at
 * device open, not a link failure; or filled by the tests with their software
 * HSA (tests/soft_hsa), which runs the same driver against a host-memory queue.
 *
 * Types and prototypes come from <hsa/hsa.h> (Debian libhsa-runtime-dev, needed at
 * build time only). */
#ifndef AIR_HAL_HSA_HSA_API_H_
#define AIR_HAL_HSA_HSA_API_H_

#ifdef AIR_HAVE_HSA
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "air/allocator.h"
#include "air/status.h"

/* X(name, return type, parameters) for every function the driver uses. */
#define AIR_HSA_API_FUNCTIONS(X)                                                             \
  X(hsa_init, hsa_status_t, (void))                                                          \
  X(hsa_shut_down, hsa_status_t, (void))                                                     \
  X(hsa_status_string, hsa_status_t, (hsa_status_t status, const char** string))             \
  X(hsa_iterate_agents, hsa_status_t,                                                        \
    (hsa_status_t (*callback)(hsa_agent_t agent, void* data), void* data))                   \
  X(hsa_agent_get_info, hsa_status_t,                                                        \
    (hsa_agent_t agent, hsa_agent_info_t attribute, void* value))                            \
  X(hsa_queue_create, hsa_status_t,                                                          \
    (hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,                              \
     void (*callback)(hsa_status_t status, hsa_queue_t* source, void* data), void* data,     \
     uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue))       \
  X(hsa_queue_destroy, hsa_status_t, (hsa_queue_t * queue))                                  \
  X(hsa_queue_add_write_index_relaxed, uint64_t, (const hsa_queue_t* queue, uint64_t value)) \
  X(hsa_queue_load_read_index_scacquire, uint64_t, (const hsa_queue_t* queue))               \
  X(hsa_signal_create, hsa_status_t,                                                         \
    (hsa_signal_value_t initial_value, uint32_t num_consumers, const hsa_agent_t* consumers, \
     hsa_signal_t* signal))                                                                  \
  X(hsa_amd_signal_create, hsa_status_t,                                                     \
    (hsa_signal_value_t initial_value, uint32_t num_consumers, const hsa_agent_t* consumers, \
     uint64_t attributes, hsa_signal_t* signal))                                             \
  X(hsa_signal_destroy, hsa_status_t, (hsa_signal_t signal))                                 \
  X(hsa_signal_load_scacquire, hsa_signal_value_t, (hsa_signal_t signal))                    \
  X(hsa_signal_store_relaxed, void, (hsa_signal_t signal, hsa_signal_value_t value))         \
  X(hsa_signal_store_screlease, void, (hsa_signal_t signal, hsa_signal_value_t value))       \
  X(hsa_signal_wait_scacquire, hsa_signal_value_t,                                           \
    (hsa_signal_t signal, hsa_signal_condition_t condition, hsa_signal_value_t compare_value, \
     uint64_t timeout_hint, hsa_wait_state_t wait_state_hint))                               \
  X(hsa_code_object_reader_create_from_memory, hsa_status_t,                                 \
    (const void* code_object, size_t size, hsa_code_object_reader_t* code_object_reader))    \
  X(hsa_code_object_reader_destroy, hsa_status_t,                                            \
    (hsa_code_object_reader_t code_object_reader))                                           \
  X(hsa_executable_create_alt, hsa_status_t,                                                 \
    (hsa_profile_t profile, hsa_default_float_rounding_mode_t rounding, const char* options, \
     hsa_executable_t* executable))                                                          \
  X(hsa_executable_load_agent_code_object, hsa_status_t,                                     \
    (hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t reader,        \
     const char* options, hsa_loaded_code_object_t* loaded_code_object))                     \
  X(hsa_executable_freeze, hsa_status_t, (hsa_executable_t executable, const char* options)) \
  X(hsa_executable_destroy, hsa_status_t, (hsa_executable_t executable))                     \
  X(hsa_executable_get_symbol_by_name, hsa_status_t,                                         \
    (hsa_executable_t executable, const char* symbol_name, const hsa_agent_t* agent,         \
     hsa_executable_symbol_t* symbol))                                                       \
  X(hsa_executable_symbol_get_info, hsa_status_t,                                            \
    (hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t attribute, void* value))   \
  X(hsa_amd_agent_iterate_memory_pools, hsa_status_t,                                        \
    (hsa_agent_t agent, hsa_status_t (*callback)(hsa_amd_memory_pool_t pool, void* data),    \
     void* data))                                                                            \
  X(hsa_amd_memory_pool_get_info, hsa_status_t,                                              \
    (hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, void* value))         \
  X(hsa_amd_memory_pool_allocate, hsa_status_t,                                              \
    (hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr))                   \
  X(hsa_amd_memory_pool_free, hsa_status_t, (void* ptr))                                     \
  X(hsa_amd_agents_allow_access, hsa_status_t,                                               \
    (uint32_t num_agents, const hsa_agent_t* agents, const uint32_t* flags, const void* ptr)) \
  X(hsa_amd_memory_async_copy, hsa_status_t,                                                 \
    (void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,  \
     uint32_t num_dep_signals, const hsa_signal_t* dep_signals,                              \
     hsa_signal_t completion_signal))                                                        \
  X(hsa_amd_signal_wait_any, uint32_t,                                                       \
    (uint32_t signal_count, hsa_signal_t* signals, hsa_signal_condition_t* conds,            \
     hsa_signal_value_t* values, uint64_t timeout_hint, hsa_wait_state_t wait_hint,          \
     hsa_signal_value_t* satisfying_value))

typedef struct air_hsa_api_t {
#define AIR_HSA_API_FIELD(name, ret, params) ret(*name) params;
  AIR_HSA_API_FUNCTIONS(AIR_HSA_API_FIELD)
#undef AIR_HSA_API_FIELD
  void* library;    /* the dlopen handle, or NULL for a table the caller filled */
  const char* from; /* where the functions came from, for messages */
} air_hsa_api_t;

/* dlopen's `path` (NULL: libhsa-runtime64.so.1, then libhsa-runtime64.so) and
 * resolves every function. UNAVAILABLE, naming the library and what to install,
 * when it cannot be loaded or lacks a function. */
air_status_t air_hsa_api_load(const air_allocator_t* allocator, const char* path,
                              air_hsa_api_t* out);
void air_hsa_api_unload(air_hsa_api_t* api);

/* A status for a failed HSA call: "<what>: <hsa_status_string> (HSA status 0x...)". */
air_status_t air_hsa_status(const air_allocator_t* allocator, const air_hsa_api_t* api,
                            hsa_status_t status, const char* what);

#endif /* AIR_HAVE_HSA */
#endif /* AIR_HAL_HSA_HSA_API_H_ */

/* xrt_api.h - the part of XRT's C API the NPU driver calls, reached through
 * dlopen (libairrt never links XRT: a machine without it runs everything else),
 * and the probe that must pass before any call that can abort the process.
 *
 * Prototypes restate Debian's libxrt-dev 2.13 headers (xrt/xrt_device.h,
 * xrt_bo.h, xrt_kernel.h, experimental/xrt_xclbin.h), which upstream keeps:
 * handles are void*, calls returning a handle give NULL and set errno on failure,
 * int calls give 0 or a negative value with errno. See BACKENDS.md §1.2.
 *
 * The hazard (BACKENDS.md §1.3, measured): Debian's libxrt_coreutil throws out
 * of its error path and aborts the process (std::terminate) inside
 * xrtDeviceOpen when XILINX_XRT is unset, or set to a directory whose lib/ lacks
 * libxrt_core.so.2. So air_xrt_probe checks, in order: an NPU device node, then
 * that XILINX_XRT names an XRT install whose lib/ has libxrt_core.so.2; only then
 * may xrtDeviceOpen be called. */
#ifndef AIR_HAL_XRT_XRT_API_H_
#define AIR_HAL_XRT_XRT_API_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

typedef void* xrt_handle_t;

/* enum ert_cmd_state (xrt/ert.h) */
enum {
  AIR_ERT_NEW = 1, AIR_ERT_QUEUED = 2, AIR_ERT_RUNNING = 3, AIR_ERT_COMPLETED = 4,
  AIR_ERT_ERROR = 5, AIR_ERT_ABORT = 6, AIR_ERT_SUBMITTED = 7, AIR_ERT_TIMEOUT = 8,
  AIR_ERT_NORESPONSE = 9, AIR_ERT_SKERROR = 10, AIR_ERT_SKCRASHED = 11,
};
/* enum xclBOSyncDirection */
enum { AIR_XCL_BO_SYNC_TO_DEVICE = 0, AIR_XCL_BO_SYNC_FROM_DEVICE = 1 };
/* BO flags (xrt/xrt_mem.h) */
#define AIR_XRT_BO_FLAGS_CACHEABLE (1u << 24)
#define AIR_XRT_BO_FLAGS_HOST_ONLY (1u << 29)

/* Opcode 3: the firmware executes the instruction buffer as a TXN stream. */
#define AIR_XRT_NPU_OPCODE 3u
/* Kernel arguments: 0 opcode, 1 instruction BO, 2 word count, 3.. data BOs. */
enum { AIR_XRT_ARG_OPCODE = 0, AIR_XRT_ARG_INSTS = 1, AIR_XRT_ARG_COUNT = 2, AIR_XRT_ARG_DATA = 3 };

typedef struct air_xrt_api_t {
  void* lib; /* dlopen handle */
  char path[512];
  xrt_handle_t (*xrtDeviceOpen)(unsigned int index);
  int (*xrtDeviceClose)(xrt_handle_t dev);
  int (*xrtDeviceLoadXclbinHandle)(xrt_handle_t dev, xrt_handle_t xclbin);
  xrt_handle_t (*xrtXclbinAllocFilename)(const char* filename);
  int (*xrtXclbinFreeHandle)(xrt_handle_t xclbin);
  int (*xrtXclbinGetUUID)(xrt_handle_t xclbin, unsigned char uuid[16]);
  xrt_handle_t (*xrtPLKernelOpen)(xrt_handle_t dev, const unsigned char uuid[16], const char* name);
  int (*xrtKernelClose)(xrt_handle_t kernel);
  int (*xrtKernelArgGroupId)(xrt_handle_t kernel, int argno);
  xrt_handle_t (*xrtBOAlloc)(xrt_handle_t dev, size_t size, uint64_t flags, uint32_t grp);
  xrt_handle_t (*xrtBOAllocUserPtr)(xrt_handle_t dev, void* ptr, size_t size, uint64_t flags,
                                    uint32_t grp);
  xrt_handle_t (*xrtBOSubAlloc)(xrt_handle_t parent, size_t size, size_t offset);
  int (*xrtBOFree)(xrt_handle_t bo);
  void* (*xrtBOMap)(xrt_handle_t bo);
  int (*xrtBOSync)(xrt_handle_t bo, int dir, size_t size, size_t offset);
  xrt_handle_t (*xrtRunOpen)(xrt_handle_t kernel);
  int (*xrtRunSetArg)(xrt_handle_t run, int index, ...);
  int (*xrtRunStart)(xrt_handle_t run);
  int (*xrtRunWait)(xrt_handle_t run);
  int (*xrtRunClose)(xrt_handle_t run);
} air_xrt_api_t;

/* Where the probe looks; filled from the environment by air_xrt_env_read. */
typedef struct air_xrt_env_t {
  const char* library;    /* AIR_XRT_LIBRARY, else $XILINX_XRT/lib/libxrt_coreutil.so.2,
                             else "libxrt_coreutil.so.2" from the loader's path */
  const char* xilinx_xrt; /* XILINX_XRT, or NULL */
  const char* device_dir; /* AIR_XRT_DEVICE_DIR, else "/dev/accel" (amdxdna's nodes) */
} air_xrt_env_t;

void air_xrt_env_read(air_xrt_env_t* env);

/* Checks that device `index` may be opened without risking XRT's abort (a device
 * node exists; XILINX_XRT is a usable install). UNAVAILABLE saying what is
 * missing otherwise. */
air_status_t air_xrt_probe(const air_allocator_t* a, const air_xrt_env_t* env, uint32_t index);

/* dlopens the library and resolves every entry point; UNAVAILABLE naming the
 * library or the missing symbol. air_xrt_api_unload dlcloses it. */
air_status_t air_xrt_api_load(const air_allocator_t* a, const air_xrt_env_t* env,
                              air_xrt_api_t* api);
void air_xrt_api_unload(air_xrt_api_t* api);

/* A status for a failed XRT call: "XRT CALL failed: <errno text>" (XRT prints its
 * own message on stderr; errno is the part the C API returns). `what` adds
 * context. `err` is the errno read right after the call. */
air_status_t air_xrt_error(const air_allocator_t* a, air_status_code_t code, const char* call,
                           int err, const char* what);

/* ert_cmd_state names ("COMPLETED", ...). */
const char* air_xrt_state_name(int state);

#endif /* AIR_HAL_XRT_XRT_API_H_ */

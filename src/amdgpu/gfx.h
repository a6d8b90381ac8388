/* gfx.h - AMDGPU processors: the EF_AMDGPU_MACH numbers of an ELF header's e_flags,
 * the xnack/sramecc feature settings of each code-object version, and target-id
 * strings ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"). Pure data; no libraries.
 */
#ifndef AIR_AMDGPU_GFX_H_
#define AIR_AMDGPU_GFX_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* e_flags bits (LLVM's AMDGPUUsage): the processor in bits 0-7; code object v3
 * has one bit each for xnack and sramecc; v4 and later two bits each. */
#define AIR_EF_AMDGPU_MACH 0x0ffu
#define AIR_EF_AMDGPU_XNACK_V3 0x100u
#define AIR_EF_AMDGPU_SRAMECC_V3 0x200u
#define AIR_EF_AMDGPU_XNACK_V4 0x300u
#define AIR_EF_AMDGPU_SRAMECC_V4 0xc00u

/* ELF constants glibc's <elf.h> does not spell (hsa's amd_hsa_elf.h is C++). */
#define AIR_EM_AMDGPU 224
#define AIR_ELFOSABI_AMDGPU_HSA 64
#define AIR_NT_AMDGPU_METADATA 32

/* A feature's setting in a target id: absent from the id (any), or forced. */
typedef enum air_gfx_feature_e {
  AIR_GFX_FEATURE_UNSUPPORTED = 0, /* the processor has no such mode */
  AIR_GFX_FEATURE_ANY,             /* code runs with the mode on or off */
  AIR_GFX_FEATURE_OFF,
  AIR_GFX_FEATURE_ON,
} air_gfx_feature_t;

typedef struct air_gfx_info_t {
  const char* name;  /* "gfx90a" */
  uint32_t mach;     /* EF_AMDGPU_MACH_AMDGCN_* */
  uint8_t wave64;    /* 1: wavefront size 64 by default; 0: 32 (RDNA) */
  uint8_t xnack;     /* processor supports the xnack mode */
  uint8_t sramecc;   /* processor supports the sramecc mode */
  uint8_t llvm;      /* first LLVM major release that can generate code for it */
  uint32_t lds_bytes;/* LDS per workgroup (bytes) */
} air_gfx_info_t;

/* The processor with this EF_AMDGPU_MACH number / name, or NULL. */
const air_gfx_info_t* air_gfx_by_mach(uint32_t mach);
const air_gfx_info_t* air_gfx_by_name(const char* name, size_t len);
/* Every known processor (for error messages and tests). */
const air_gfx_info_t* air_gfx_table(uint32_t* out_count);

/* The xnack and sramecc settings e_flags carry for code-object version `version`
 * (3, 4, 5, ...); earlier versions carry none (ANY). */
void air_gfx_features(uint32_t version, uint32_t e_flags, air_gfx_feature_t* out_xnack,
                      air_gfx_feature_t* out_sramecc);

/* Code-object version from the ELF header's EI_ABIVERSION under ELFOSABI_AMDGPU_HSA:
 * 0 -> 2, 1 -> 3, 2 -> 4, 3 -> 5, 4 -> 6. */
static inline uint32_t air_gfx_code_object_version(uint8_t abi_version) {
  return (uint32_t)abi_version + 2u;
}

/* Writes the processor's target-id ("gfx90a:sramecc+:xnack-"; features that are
 * ANY or UNSUPPORTED are left out, sramecc before xnack as LLVM writes them) into
 * `buf`; returns the length snprintf would. */
int air_gfx_target_id(char* buf, size_t cap, const char* processor, air_gfx_feature_t xnack,
                      air_gfx_feature_t sramecc);

#endif /* AIR_AMDGPU_GFX_H_ */

/* gfx.c - the AMDGPU processor table: EF_AMDGPU_MACH numbers and feature support
 * as LLVM's AMDGPUUsage documents them, plus the LLVM release that first generates
 * code for each (for the "this toolchain cannot build gfx942" message). Numbers up
 * to 0x47 were checked against objects that Debian's clang-14/16 built here. */
#include "amdgpu/gfx.h"

#include <stdio.h>
#include <string.h>

#define K64 65536u

/* name, mach, wave64, xnack, sramecc, llvm, lds */
static const air_gfx_info_t k_gfx[] = {
    {"gfx600", 0x020, 1, 0, 0, 3, K64},   {"gfx601", 0x021, 1, 0, 0, 3, K64},
    {"gfx602", 0x03a, 1, 0, 0, 12, K64},  {"gfx700", 0x022, 1, 0, 0, 3, K64},
    {"gfx701", 0x023, 1, 0, 0, 3, K64},   {"gfx702", 0x024, 1, 0, 0, 3, K64},
    {"gfx703", 0x025, 1, 0, 0, 3, K64},   {"gfx704", 0x026, 1, 0, 0, 3, K64},
    {"gfx705", 0x03b, 1, 0, 0, 12, K64},  {"gfx801", 0x028, 1, 1, 0, 3, K64},
    {"gfx802", 0x029, 1, 0, 0, 3, K64},   {"gfx803", 0x02a, 1, 0, 0, 3, K64},
    {"gfx805", 0x03c, 1, 0, 0, 12, K64},  {"gfx810", 0x02b, 1, 1, 0, 3, K64},
    {"gfx900", 0x02c, 1, 1, 0, 5, K64},   {"gfx902", 0x02d, 1, 1, 0, 5, K64},
    {"gfx904", 0x02e, 1, 1, 0, 7, K64},   {"gfx906", 0x02f, 1, 1, 1, 7, K64},
    {"gfx908", 0x030, 1, 1, 1, 10, K64},  {"gfx909", 0x031, 1, 1, 0, 10, K64},
    {"gfx90a", 0x03f, 1, 1, 1, 13, K64},  {"gfx90c", 0x032, 1, 1, 0, 12, K64},
    {"gfx940", 0x040, 1, 1, 1, 15, K64},  {"gfx941", 0x04b, 1, 1, 1, 17, K64},
    {"gfx942", 0x04c, 1, 1, 1, 17, K64},  {"gfx950", 0x04f, 1, 1, 1, 20, 160u * 1024u},
    {"gfx1010", 0x033, 0, 1, 0, 9, K64},  {"gfx1011", 0x034, 0, 1, 0, 10, K64},
    {"gfx1012", 0x035, 0, 1, 0, 10, K64}, {"gfx1013", 0x042, 0, 1, 0, 13, K64},
    {"gfx1030", 0x036, 0, 0, 0, 12, K64}, {"gfx1031", 0x037, 0, 0, 0, 12, K64},
    {"gfx1032", 0x038, 0, 0, 0, 12, K64}, {"gfx1033", 0x039, 0, 0, 0, 12, K64},
    {"gfx1034", 0x03e, 0, 0, 0, 13, K64}, {"gfx1035", 0x03d, 0, 0, 0, 13, K64},
    {"gfx1036", 0x045, 0, 0, 0, 15, K64}, {"gfx1100", 0x041, 0, 0, 0, 15, K64},
    {"gfx1101", 0x046, 0, 0, 0, 15, K64}, {"gfx1102", 0x047, 0, 0, 0, 15, K64},
    {"gfx1103", 0x044, 0, 0, 0, 15, K64}, {"gfx1150", 0x043, 0, 0, 0, 17, K64},
    {"gfx1151", 0x04a, 0, 0, 0, 17, K64}, {"gfx1200", 0x048, 0, 0, 0, 18, K64},
    {"gfx1201", 0x04e, 0, 0, 0, 18, K64},
};
static const uint32_t k_gfx_count = sizeof k_gfx / sizeof k_gfx[0];

const air_gfx_info_t* air_gfx_table(uint32_t* out_count) {
  *out_count = k_gfx_count;
  return k_gfx;
}

const air_gfx_info_t* air_gfx_by_mach(uint32_t mach) {
  for (uint32_t i = 0; i < k_gfx_count; ++i)
    if (k_gfx[i].mach == mach) return &k_gfx[i];
  return NULL;
}

const air_gfx_info_t* air_gfx_by_name(const char* name, size_t len) {
  for (uint32_t i = 0; i < k_gfx_count; ++i)
    if (strlen(k_gfx[i].name) == len && memcmp(k_gfx[i].name, name, len) == 0) return &k_gfx[i];
  return NULL;
}

void air_gfx_features(uint32_t version, uint32_t e_flags, air_gfx_feature_t* out_xnack,
                      air_gfx_feature_t* out_sramecc) {
  *out_xnack = *out_sramecc = AIR_GFX_FEATURE_ANY;
  if (version == 3) {
    /* v3 has no "any": a clear bit means the mode is off. */
    *out_xnack = e_flags & AIR_EF_AMDGPU_XNACK_V3 ? AIR_GFX_FEATURE_ON : AIR_GFX_FEATURE_OFF;
    *out_sramecc = e_flags & AIR_EF_AMDGPU_SRAMECC_V3 ? AIR_GFX_FEATURE_ON : AIR_GFX_FEATURE_OFF;
  } else if (version >= 4) {
    /* Two bits each: 0 unsupported, 1 any, 2 off, 3 on. */
    static const air_gfx_feature_t k_v4[4] = {AIR_GFX_FEATURE_UNSUPPORTED, AIR_GFX_FEATURE_ANY,
                                              AIR_GFX_FEATURE_OFF, AIR_GFX_FEATURE_ON};
    *out_xnack = k_v4[(e_flags >> 8) & 3u];
    *out_sramecc = k_v4[(e_flags >> 10) & 3u];
  }
}

int air_gfx_target_id(char* buf, size_t cap, const char* processor, air_gfx_feature_t xnack,
                      air_gfx_feature_t sramecc) {
  const char* sr = sramecc == AIR_GFX_FEATURE_ON    ? ":sramecc+"
                   : sramecc == AIR_GFX_FEATURE_OFF ? ":sramecc-"
                                                    : "";
  const char* xn = xnack == AIR_GFX_FEATURE_ON    ? ":xnack+"
                   : xnack == AIR_GFX_FEATURE_OFF ? ":xnack-"
                                                  : "";
  return snprintf(buf, cap, "%s%s%s", processor, sr, xn);
}

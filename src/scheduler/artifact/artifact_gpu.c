/* artifact_gpu.c - encoding and decoding the GPU sections (artifact_gpu.h). */
#include "scheduler/artifact/artifact_gpu.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact_format.h"

static const char k_magic[8] = {'A', 'I', 'R', 'G', 'P', 'U', 0, 0};

air_status_t air_art_gpu_encode(const air_allocator_t* a, const air_gpu_code_t* code,
                                uint8_t** out, size_t* out_size) {
  size_t n_args = 0;
  for (uint32_t i = 0; i < code->n_kernels; ++i) n_args += code->kernels[i].n_args;
  size_t size = AIR_ART_GPU_HEADER + (size_t)code->n_kernels * AIR_ART_GPU_KERNEL + 8 * n_args;
  uint8_t* p = a->alloc(a->self, size);
  if (!p) return AIR_STATUS_OOM(a, "artifact .air.gpu");
  memset(p, 0, size);
  memcpy(p, k_magic, 8);
  air_art_put32(p + 8, 1);
  air_art_put32(p + 12, code->n_objects);
  air_art_put32(p + 16, code->n_kernels);
  memcpy(p + 24, code->processor, strnlen(code->processor, 15));
  uint8_t* at = p + AIR_ART_GPU_HEADER;
  for (uint32_t i = 0; i < code->n_kernels; ++i, at += AIR_ART_GPU_KERNEL) {
    const air_gpu_kernel_t* k = &code->kernels[i];
    const uint32_t w[12] = {k->cmd, k->object, k->mapping, k->workgroup_size, k->wave_size,
                            k->fixed_roles, k->pes, k->pes_per_wave, k->lds_bytes, k->n_grid,
                            k->n_args, k->seg_workgroups};
    for (int j = 0; j < 12; ++j) air_art_put32(at + 4 * j, w[j]);
    air_art_put64(at + 48, k->spill_bytes);
    for (int d = 0; d < 3; ++d) {
      air_art_put32(at + 56 + 16 * d, k->grid[d].param);
      air_art_put64(at + 64 + 16 * d, (uint64_t)k->grid[d].value);
    }
    memcpy(at + 104, k->name, strnlen(k->name, 63));
  }
  for (uint32_t i = 0; i < code->n_kernels; ++i)
    for (uint32_t j = 0; j < code->kernels[i].n_args; ++j, at += 8) {
      air_art_put32(at, code->kernels[i].args[j].kind);
      air_art_put32(at + 4, code->kernels[i].args[j].param);
    }
  *out = p;
  *out_size = size;
  return NULL;
}

static bool good_name(const uint8_t* s, size_t cap) {
  size_t n = strnlen((const char*)s, cap);
  if (!n || n == cap) return false;
  for (size_t i = 0; i < n; ++i)
    if (!(s[i] == '_' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= 'A' && s[i] <= 'Z')))
      return false;
  for (size_t i = n; i < cap; ++i)
    if (s[i]) return false;
  return true;
}

#define BAD(...) air_art_corrupt(a, name, ".air.gpu: " __VA_ARGS__)

air_status_t air_art_gpu_decode(const air_allocator_t* a, const char* name, const uint8_t* sec,
                                size_t size, const uint8_t* const* objects, const size_t* sizes,
                                uint32_t n_objects, air_schedule_t* s) {
  if (!sec) {
    for (uint32_t i = 0; i < n_objects; ++i)
      if (objects[i]) return air_art_corrupt(a, name, "%s%u without a .air.gpu table", AIR_ART_GPU_OBJECT_PREFIX, i);
    return NULL;
  }
  if (size < AIR_ART_GPU_HEADER || memcmp(sec, k_magic, 8)) return BAD("bad header");
  if (air_art_get32(sec + 8) != 1)
    return BAD("version %u (this reader reads 1)", air_art_get32(sec + 8));
  uint32_t no = air_art_get32(sec + 12), nk = air_art_get32(sec + 16);
  if (no != n_objects) return BAD("%u code objects, but %u %s* sections", no, n_objects, AIR_ART_GPU_OBJECT_PREFIX);
  if (nk > s->n_cmds) return BAD("%u kernels for %u commands", nk, s->n_cmds);
  if (!good_name(sec + 24, 16)) return BAD("bad processor name");
  if ((size - AIR_ART_GPU_HEADER) / AIR_ART_GPU_KERNEL < nk) return BAD("cut short");
  air_gpu_code_t* c = air_art_array(&s->arena, 1, sizeof *c);
  if (!c) return AIR_STATUS_OOM(a, "artifact .air.gpu");
  memcpy(c->processor, sec + 24, 16);
  c->n_objects = no;
  c->n_kernels = nk;
  c->objects = air_art_array(&s->arena, no, sizeof *c->objects);
  c->kernels = air_art_array(&s->arena, nk, sizeof *c->kernels);
  if (!c->objects || !c->kernels) return AIR_STATUS_OOM(a, "artifact .air.gpu");
  for (uint32_t i = 0; i < no; ++i) {
    if (!objects[i] || !sizes[i]) return air_art_corrupt(a, name, "%s%u is missing or empty", AIR_ART_GPU_OBJECT_PREFIX, i);
    uint8_t* keep = air_art_array(&s->arena, sizes[i], 1);
    if (!keep) return AIR_STATUS_OOM(a, "artifact code object");
    memcpy(keep, objects[i], sizes[i]);
    c->objects[i] = (air_gpu_object_t){keep, sizes[i]};
  }
  size_t args_at = AIR_ART_GPU_HEADER + (size_t)nk * AIR_ART_GPU_KERNEL, n_args = 0;
  const uint8_t* at = sec + AIR_ART_GPU_HEADER;
  for (uint32_t i = 0; i < nk; ++i, at += AIR_ART_GPU_KERNEL) {
    air_gpu_kernel_t* k = &c->kernels[i];
    k->cmd = air_art_get32(at);
    k->object = air_art_get32(at + 4);
    k->mapping = air_art_get32(at + 8);
    k->workgroup_size = air_art_get32(at + 12);
    k->wave_size = air_art_get32(at + 16);
    k->fixed_roles = air_art_get32(at + 20);
    k->pes = air_art_get32(at + 24);
    k->pes_per_wave = air_art_get32(at + 28);
    k->lds_bytes = air_art_get32(at + 32);
    k->n_grid = air_art_get32(at + 36);
    k->n_args = air_art_get32(at + 40);
    /* Written as 0 before segments had iteration spaces on the GPU: one. */
    k->seg_workgroups = air_art_get32(at + 44) ? air_art_get32(at + 44) : 1;
    k->spill_bytes = air_art_get64(at + 48);
    if (k->cmd >= s->n_cmds || (i && k->cmd <= c->kernels[i - 1].cmd))
      return BAD("kernel %u: command %u out of order or range", i, k->cmd);
    if (k->object >= no) return BAD("kernel %u: object %u of %u", i, k->object, no);
    if (k->mapping != AIR_GPU_MAP_THREADS && k->mapping != AIR_GPU_MAP_WAVES)
      return BAD("kernel %u: mapping %u", i, k->mapping);
    if (k->wave_size != 32 && k->wave_size != 64) return BAD("kernel %u: wave size %u", i, k->wave_size);
    if (!k->workgroup_size || k->workgroup_size > 1024)
      return BAD("kernel %u: workgroup of %u work-items", i, k->workgroup_size);
    if (k->pes > 1024 || !k->pes_per_wave || k->pes_per_wave > k->wave_size || k->fixed_roles > 2)
      return BAD("kernel %u: %u PEs, %u per wave, %u roles", i, k->pes, k->pes_per_wave, k->fixed_roles);
    if (k->lds_bytes > (1u << 20) || k->spill_bytes > (1ull << 40))
      return BAD("kernel %u: LDS %u, spill %llu bytes", i, k->lds_bytes, (unsigned long long)k->spill_bytes);
    if (k->seg_workgroups > 65536 * 8)
      return BAD("kernel %u: %u workgroups per launch instance", i, k->seg_workgroups);
    if (k->n_grid > 3 || k->n_args > 65) return BAD("kernel %u: %u grid dims, %u arguments", i, k->n_grid, k->n_args);
    for (uint32_t d = 0; d < 3; ++d) {
      k->grid[d].param = air_art_get32(at + 56 + 16 * d);
      k->grid[d].value = (int64_t)air_art_get64(at + 64 + 16 * d);
      if (d < k->n_grid && k->grid[d].param != UINT32_MAX && k->grid[d].param >= 64)
        return BAD("kernel %u: grid size from parameter %u", i, k->grid[d].param);
    }
    if (!good_name(at + 104, 64)) return BAD("kernel %u: bad name", i);
    memcpy(k->name, at + 104, 64);
    n_args += k->n_args;
  }
  if ((size - args_at) / 8 < n_args || size - args_at != 8 * n_args)
    return BAD("%zu bytes of arguments, expected %zu", size - args_at, 8 * n_args);
  at = sec + args_at;
  for (uint32_t i = 0; i < nk; ++i) {
    air_gpu_kernel_t* k = &c->kernels[i];
    k->args = air_art_array(&s->arena, k->n_args, sizeof *k->args);
    if (!k->args) return AIR_STATUS_OOM(a, "artifact .air.gpu");
    for (uint32_t j = 0; j < k->n_args; ++j, at += 8) {
      k->args[j].kind = air_art_get32(at);
      k->args[j].param = air_art_get32(at + 4);
      if (k->args[j].kind < AIR_GPU_ARG_MEMREF || k->args[j].kind > AIR_GPU_ARG_SPILL ||
          k->args[j].param >= 64)
        return BAD("kernel %u: argument %u (kind %u, parameter %u)", i, j, k->args[j].kind, k->args[j].param);
    }
  }
  s->gpu = c;
  return NULL;
}

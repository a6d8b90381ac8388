/* xrt_device.c - the `xrt:N` device: probe and open, host-only BOs as buffers,
 * and executables (xclbin, kernel, one instruction BO per entry). See
 * xrt_driver.h for the model and xrt_api.h for the probe. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/xrt/xrt_device.h"
#include "hal/xrt/xrt_driver.h"
#include "npu/npu.h"
#include "npu/txn.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

#define XERR(d, code, call, what) air_xrt_error(&(d)->base.allocator, code, call, errno, what)

/*--- buffers ---------------------------------------------------------------------*/

static void buffer_destroy(air_resource_t* r) {
  air_xrt_buffer_t* b = (air_xrt_buffer_t*)r;
  air_xrt_device_t* d = (air_xrt_device_t*)b->base.device;
  for (uint32_t i = 0; i < b->n_subs; ++i) d->api.xrtBOFree(b->subs[i].bo);
  d->api.xrtBOFree(b->bo);
  air_mem_free(&b->base.allocator, b->subs);
  pthread_mutex_destroy(&b->mu);
  air_allocator_t a = b->base.allocator;
  a.free(a.self, b);
}

/* Host-only BOs, mapped at allocation: the worker syncs around each run, so host
 * access needs nothing and the HAL's default map and unmap (NULL) serve. */
static const air_buffer_vtable_t k_buffer_vtable = {.resource = {buffer_destroy}};

bool air_xrt_is_buffer(const air_resource_t* r) {
  return r->vtable == &k_buffer_vtable.resource;
}

static air_status_t buffer_allocate(air_device_t* base, uint64_t size, uint32_t flags,
                                    air_buffer_t** out) {
  (void)flags;
  air_xrt_device_t* d = (air_xrt_device_t*)base;
  air_xrt_buffer_t* b = air_mem_calloc(&base->allocator, 1, sizeof *b);
  if (!b) return AIR_STATUS_OOM(&base->allocator, "an NPU buffer");
  /* Group 0: the host bank of mlir-aie's xclbins, where every data argument lives. */
  b->bo = size > SIZE_MAX ? NULL
                          : d->api.xrtBOAlloc(d->dev, (size_t)(size ? size : 1),
                                              AIR_XRT_BO_FLAGS_HOST_ONLY, 0);
  if (!b->bo) {
    char what[64];
    snprintf(what, sizeof what, "for a %llu-byte buffer", (unsigned long long)size);
    air_status_t s = XERR(d, AIR_STATUS_RESOURCE_EXHAUSTED, "xrtBOAlloc", what);
    air_mem_free(&base->allocator, b);
    return s;
  }
  void* p = d->api.xrtBOMap(b->bo);
  if (!p) {
    air_status_t s = XERR(d, AIR_STATUS_INTERNAL, "xrtBOMap", "of a new buffer");
    d->api.xrtBOFree(b->bo);
    air_mem_free(&base->allocator, b);
    return s;
  }
  pthread_mutex_init(&b->mu, NULL);
  memset(p, 0, (size_t)size);
  air_buffer_init(&b->base, &k_buffer_vtable, base, size, p, false);
  *out = &b->base;
  return NULL;
}

static air_status_t buffer_import(air_device_t* base, void* host_ptr, uint64_t size,
                                  uint32_t flags, air_buffer_t** out) {
  (void)host_ptr;
  (void)size;
  (void)flags;
  (void)out;
  /* A user pointer BO needs page alignment and driver support that cannot be
   * checked here; say so rather than make one that may not work. */
  return AIR_STATUS(&base->allocator, AIR_STATUS_UNIMPLEMENTED,
                    "%s: importing host memory is not supported; allocate the buffer on the "
                    "device (air_buffer_allocate) and copy into it", base->info.name);
}

air_status_t air_xrt_buffer_range_bo(air_xrt_device_t* d, air_xrt_buffer_t* b, uint64_t offset,
                                     uint64_t size, xrt_handle_t* out) {
  if (offset == 0) { /* the data starts at the BO: syncs name the size */
    *out = b->bo;
    return NULL;
  }
  air_status_t s = NULL;
  pthread_mutex_lock(&b->mu);
  for (uint32_t i = 0; i < b->n_subs; ++i)
    if (b->subs[i].offset == offset && b->subs[i].size == size) {
      *out = b->subs[i].bo;
      pthread_mutex_unlock(&b->mu);
      return NULL;
    }
  if (!air_mem_grow(&b->base.allocator, (void**)&b->subs, &b->cap_subs, (size_t)b->n_subs + 1,
                    sizeof *b->subs)) {
    s = AIR_STATUS_OOM(&b->base.allocator, "sub-buffer table");
  } else {
    xrt_handle_t sub = d->api.xrtBOSubAlloc(b->bo, (size_t)size, (size_t)offset);
    if (!sub) {
      char what[96];
      snprintf(what, sizeof what, "for bytes [%llu, +%llu) of a buffer",
               (unsigned long long)offset, (unsigned long long)size);
      s = XERR(d, AIR_STATUS_INTERNAL, "xrtBOSubAlloc", what);
    } else {
      b->subs[b->n_subs++] = (air_xrt_sub_t){offset, size, sub};
      *out = sub;
    }
  }
  pthread_mutex_unlock(&b->mu);
  return s;
}

/*--- executables -----------------------------------------------------------------*/

static void executable_destroy(air_resource_t* r) {
  air_xrt_executable_t* x = (air_xrt_executable_t*)r;
  air_xrt_device_t* d = (air_xrt_device_t*)x->base.device;
  const air_allocator_t* a = &x->base.allocator;
  for (uint32_t i = 0; x->xe && i < x->base.n_entries; ++i) {
    air_xrt_entry_t* e = &x->xe[i];
    for (uint32_t k = 0; k < e->n_runs; ++k) d->api.xrtRunClose(e->runs[k]);
    if (e->insts_bo) d->api.xrtBOFree(e->insts_bo);
    air_mem_free(a, e->runs);
    air_mem_free(a, e->insts);
    air_mem_free(a, e->param_of);
    air_mem_free(a, e->use);
  }
  air_mem_free(a, x->xe);
  if (x->kernel) d->api.xrtKernelClose(x->kernel);
  if (x->xclbin) d->api.xrtXclbinFreeHandle(x->xclbin);
  air_executable_deinit(&x->base);
  air_allocator_t al = *a;
  al.free(al.self, x);
}

static const air_executable_vtable_t k_executable_vtable = {.resource = {executable_destroy}};

/* Which data arguments the stream reads (MM2S from their BD) and writes (S2MM):
 * a patch names (BD register, argument); the queue push that starts that BD
 * names the direction. An argument patched but never pushed is taken as both. */
static air_status_t stream_uses(const air_allocator_t* a, air_xrt_entry_t* e, const char* name) {
  air_txn_view_t v;
  AIR_RETURN_IF_ERROR(air_txn_decode(a, e->insts, e->n_insts, name, &v));
  /* BD (column, id) -> argument, for shim BDs. */
  int64_t bd_arg[128][16];
  for (int c = 0; c < 128; ++c)
    for (int k = 0; k < 16; ++k) bd_arg[c][k] = -1;
  air_status_t s = NULL;
  for (uint32_t i = 0; i < v.n_ops && !s; ++i) {
    const air_txn_op_t* op = &v.ops[i];
    uint32_t col = (uint32_t)(op->addr >> 25) & 0x7F, row = (uint32_t)(op->addr >> 20) & 0x1F;
    uint32_t off = (uint32_t)op->addr & 0xFFFFF;
    if (op->opcode == AIR_TXN_DDR_PATCH) {
      if (op->arg_idx >= e->n_data) {
        s = AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                       "%s: word %u patches kernel data argument %llu; the entry has %u memref "
                       "parameters", name, op->word, (unsigned long long)op->arg_idx, e->n_data);
        break;
      }
      e->use[op->arg_idx] |= AIR_XRT_ARG_READ | AIR_XRT_ARG_WRITTEN;
      if (row == 0 && off >= 0x1D004 && off < 0x1D200 && (off - 0x1D004) % 0x20 == 0)
        bd_arg[col][(off - 0x1D004) / 0x20] = (int64_t)op->arg_idx;
    }
  }
  /* Second pass: pushes narrow the patched arguments to their direction. */
  uint8_t seen[64] = {0};
  for (uint32_t i = 0; i < v.n_ops && !s; ++i) {
    const air_txn_op_t* op = &v.ops[i];
    if (op->opcode != AIR_TXN_WRITE) continue;
    uint32_t col = (uint32_t)(op->addr >> 25) & 0x7F, row = (uint32_t)(op->addr >> 20) & 0x1F;
    uint32_t off = (uint32_t)op->addr & 0xFFFFF;
    if (row != 0) continue;
    bool s2mm = off == 0x1D204 || off == 0x1D20C, mm2s = off == 0x1D214 || off == 0x1D21C;
    if (!s2mm && !mm2s) continue;
    int64_t arg = bd_arg[col][op->value & 0xF];
    if (arg < 0 || arg >= 64) continue;
    if (!seen[arg]) e->use[arg] = 0;
    seen[arg] = 1;
    e->use[arg] |= mm2s ? AIR_XRT_ARG_READ : AIR_XRT_ARG_WRITTEN;
  }
  air_txn_view_free(a, &v);
  return s;
}

static air_status_t read_insts_file(const air_allocator_t* a, const char* path, uint32_t** w,
                                    size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f)
    return AIR_STATUS(a, AIR_STATUS_NOT_FOUND, "%s: cannot open instruction stream: %s", path,
                      strerror(errno));
  char* buf = NULL;
  size_t len = 0, cap = 0;
  air_status_t s = NULL;
  for (;;) {
    if (!air_mem_grow_z(a, (void**)&buf, &cap, len + 65536, 1)) {
      s = AIR_STATUS_OOM(a, "instruction stream file");
      break;
    }
    size_t k = fread(buf + len, 1, cap - len, f);
    len += k;
    if (k == 0) break;
  }
  fclose(f);
  if (!s) s = air_txn_read_file_bytes(a, buf, len, path, w, n);
  air_mem_free(a, buf);
  return s;
}

/* Gives entry `i` its stream (the options' file, else the schedule's), its BO and
 * its argument table. A missing stream is kept as the entry's reason, reported
 * when it is dispatched. */
static air_status_t prepare_entry(air_xrt_device_t* d, air_xrt_executable_t* x, uint32_t i,
                                  const air_executable_options_t* o) {
  const air_allocator_t* a = &x->base.allocator;
  air_entry_t* en = &x->base.entries[i];
  air_xrt_entry_t* e = &x->xe[i];
  if (en->why_not) {
    e->why_not = en->why_not;
    return NULL;
  }
  for (uint32_t p = 0; p < en->n_params; ++p) e->n_data += en->params[p].kind == AIR_ARG_MEMREF;
  e->param_of = air_mem_calloc(a, e->n_data ? e->n_data : 1, sizeof *e->param_of);
  e->use = air_mem_calloc(a, e->n_data ? e->n_data : 1, 1);
  if (!e->param_of || !e->use) return AIR_STATUS_OOM(a, "NPU entry tables");
  for (uint32_t p = 0, k = 0; p < en->n_params; ++p)
    if (en->params[p].kind == AIR_ARG_MEMREF) e->param_of[k++] = p;
  const char* src = o->insts;
  if (o->insts) {
    AIR_RETURN_IF_ERROR(read_insts_file(a, o->insts, &e->insts, &e->n_insts));
  } else if (en->schedule && en->schedule->npu_insts) {
    e->n_insts = en->schedule->n_npu_insts;
    e->insts = air_mem_alloc(a, e->n_insts * 4);
    if (!e->insts) return AIR_STATUS_OOM(a, "instruction stream");
    memcpy(e->insts, en->schedule->npu_insts, e->n_insts * 4);
    src = "the compiled instruction stream";
  } else {
    snprintf(e->why, sizeof e->why, "@%s has no NPU instruction stream: %s", en->name,
             en->schedule && en->schedule->npu_error ? en->schedule->npu_error
             : en->schedule ? "its schedule has none"
                            : "it has no schedule (give one with an instruction stream file)");
    e->why_not = e->why;
    return NULL;
  }
  AIR_RETURN_IF_ERROR(stream_uses(a, e, src));
  e->insts_bo = d->api.xrtBOAlloc(d->dev, e->n_insts * 4, AIR_XRT_BO_FLAGS_CACHEABLE,
                                  x->insts_group);
  if (!e->insts_bo) return XERR(d, AIR_STATUS_RESOURCE_EXHAUSTED, "xrtBOAlloc", "for instructions");
  void* p = d->api.xrtBOMap(e->insts_bo);
  if (!p) return XERR(d, AIR_STATUS_INTERNAL, "xrtBOMap", "of the instruction buffer");
  memcpy(p, e->insts, e->n_insts * 4);
  if (d->api.xrtBOSync(e->insts_bo, AIR_XCL_BO_SYNC_TO_DEVICE, e->n_insts * 4, 0))
    return XERR(d, AIR_STATUS_INTERNAL, "xrtBOSync", "of the instruction buffer");
  return NULL;
}

static air_status_t executable_create_options(air_device_t* base, const air_program_t* program,
                                              const air_executable_options_t* o,
                                              air_schedule_t* loaded, air_executable_t** out) {
  air_xrt_device_t* d = (air_xrt_device_t*)base;
  const air_allocator_t* a = &base->allocator;
  if (!o->xclbin) {
    air_schedule_free(loaded);
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "%s needs the xclbin holding the herd code: give it with "
                      "air_executable_create_with_options (air-run --xclbin FILE)",
                      base->info.name);
  }
  air_xrt_executable_t* x = air_mem_calloc(a, 1, sizeof *x);
  if (!x) {
    air_schedule_free(loaded);
    return AIR_STATUS_OOM(a, "an NPU executable");
  }
  air_status_t s = air_executable_init(&x->base, &k_executable_vtable, base, program, d->target,
                                       o->flags, loaded);
  if (s) {
    air_mem_free(a, x);
    return s;
  }
  x->xe = air_mem_calloc(a, x->base.n_entries ? x->base.n_entries : 1, sizeof *x->xe);
  if (!x->xe) s = AIR_STATUS_OOM(a, "NPU entries");
  if (!s && !(x->xclbin = d->api.xrtXclbinAllocFilename(o->xclbin)))
    s = XERR(d, AIR_STATUS_NOT_FOUND, "xrtXclbinAllocFilename", o->xclbin);
  if (!s && d->api.xrtDeviceLoadXclbinHandle(d->dev, x->xclbin))
    s = XERR(d, AIR_STATUS_UNAVAILABLE, "xrtDeviceLoadXclbinHandle", o->xclbin);
  unsigned char uuid[16];
  if (!s && d->api.xrtXclbinGetUUID(x->xclbin, uuid))
    s = XERR(d, AIR_STATUS_DATA_LOSS, "xrtXclbinGetUUID", o->xclbin);
  const char* kname = o->kernel ? o->kernel : "MLIR_AIE";
  if (!s && !(x->kernel = d->api.xrtPLKernelOpen(d->dev, uuid, kname))) {
    char what[256];
    snprintf(what, sizeof what, "for kernel '%s' of %s", kname, o->xclbin);
    s = XERR(d, AIR_STATUS_NOT_FOUND, "xrtPLKernelOpen", what);
  }
  if (!s) {
    int g = d->api.xrtKernelArgGroupId(x->kernel, AIR_XRT_ARG_INSTS);
    if (g < 0) s = XERR(d, AIR_STATUS_INTERNAL, "xrtKernelArgGroupId", "of argument 1");
    else x->insts_group = (uint32_t)g;
  }
  if (o->insts && x->base.n_entries != 1 && !s)
    s = AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                   "an instruction stream file serves one entry; the program has %u",
                   x->base.n_entries);
  for (uint32_t i = 0; i < x->base.n_entries && !s; ++i) s = prepare_entry(d, x, i, o);
  if (s) {
    executable_destroy(&x->base.resource);
    return s;
  }
  *out = &x->base;
  return NULL;
}

static air_status_t executable_create(air_device_t* base, const air_program_t* program,
                                      uint32_t flags, air_schedule_t* loaded,
                                      const air_artifact_code_t* code, air_executable_t** out) {
  (void)code; /* host code (.air.code) is for the cpu driver */
  air_executable_options_t o = {flags, NULL, NULL, NULL};
  return executable_create_options(base, program, &o, loaded, out);
}

air_status_t air_xrt_entry_run(air_xrt_device_t* d, air_xrt_executable_t* x, uint32_t ordinal,
                               uint32_t slot, xrt_handle_t* out) {
  air_xrt_entry_t* e = &x->xe[ordinal];
  const air_allocator_t* a = &x->base.allocator;
  while (e->n_runs <= slot) {
    if (!air_mem_grow(a, (void**)&e->runs, &e->cap_runs, (size_t)e->n_runs + 1, sizeof *e->runs))
      return AIR_STATUS_OOM(a, "run handles");
    xrt_handle_t r = d->api.xrtRunOpen(x->kernel);
    if (!r) return XERR(d, AIR_STATUS_RESOURCE_EXHAUSTED, "xrtRunOpen", NULL);
    e->runs[e->n_runs++] = r;
    /* Scalars go as 64 bits: XRT 2.13 reads size_t, newer XRT the xclbin's size. */
    if (d->api.xrtRunSetArg(r, AIR_XRT_ARG_OPCODE, (uint64_t)AIR_XRT_NPU_OPCODE) ||
        d->api.xrtRunSetArg(r, AIR_XRT_ARG_INSTS, e->insts_bo) ||
        d->api.xrtRunSetArg(r, AIR_XRT_ARG_COUNT, (uint64_t)e->n_insts))
      return XERR(d, AIR_STATUS_INTERNAL, "xrtRunSetArg", "(opcode, instructions, count)");
  }
  *out = e->runs[slot];
  return NULL;
}

/*--- the device ------------------------------------------------------------------*/

static void device_destroy(air_resource_t* r) {
  air_xrt_device_t* d = (air_xrt_device_t*)r;
  pthread_mutex_lock(&d->mu);
  d->stop = true;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  pthread_join(d->worker, NULL); /* runs what is queued first */
  pthread_cond_destroy(&d->cv);
  pthread_mutex_destroy(&d->mu);
  d->api.xrtDeviceClose(d->dev);
  air_xrt_api_unload(&d->api);
  air_allocator_t a = d->base.allocator;
  a.free(a.self, d);
}

static const air_device_vtable_t k_device_vtable = {
    .resource = {device_destroy},
    .buffer_allocate = buffer_allocate,
    .buffer_import = buffer_import,
    .executable_create = executable_create,
    .command_buffer_create = air_xrt_command_buffer_create,
    .queue_execute = air_xrt_queue_execute,
    .executable_create_options = executable_create_options,
};

/* The NPU model from the PCI id the amdxdna node sits on (Phoenix/Hawk Point:
 * 0x1502; Strix, Krackan: 0x17f0), unless AIR_XRT_TARGET names one. */
static const char* detect_target(uint32_t index) {
  const char* env = getenv("AIR_XRT_TARGET");
  air_npu_device_t model;
  if (env && air_npu_device_find(env, strlen(env), &model)) return env;
  char path[128], id[32] = {0};
  snprintf(path, sizeof path, "/sys/class/accel/accel%u/device/device", index);
  FILE* f = fopen(path, "r");
  if (f) {
    if (!fgets(id, sizeof id, f)) id[0] = 0;
    fclose(f);
  }
  return strncmp(id, "0x17f0", 6) == 0 ? "npu2" : "npu1";
}

air_status_t air_xrt_device_open(air_context_t* context, const char* params, const char* uri,
                                 air_device_t** out) {
  const air_allocator_t* a = air_context_allocator(context);
  uint32_t index = 0;
  if (params && !air_parse_u32(params, strlen(params), 0, 1023, &index))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "malformed device URI '%s': expected xrt or xrt:N with N a device index",
                      uri);
  air_xrt_env_t env;
  air_xrt_env_read(&env);
  air_status_t s = air_xrt_probe(a, &env, index);
  if (s) return s;
  air_xrt_device_t* d = air_mem_calloc(a, 1, sizeof *d);
  if (!d) return AIR_STATUS_OOM(a, "an NPU device");
  s = air_xrt_api_load(a, &env, &d->api);
  if (s) {
    air_mem_free(a, d);
    return s;
  }
  errno = 0;
  d->dev = d->api.xrtDeviceOpen(index);
  if (!d->dev) {
    char what[64];
    snprintf(what, sizeof what, "for NPU %u", index);
    s = air_xrt_error(a, AIR_STATUS_UNAVAILABLE, "xrtDeviceOpen", errno, what);
    air_xrt_api_unload(&d->api);
    air_mem_free(a, d);
    return s;
  }
  d->index = index;
  snprintf(d->target, sizeof d->target, "%s", detect_target(index));
  air_npu_device_t model;
  uint32_t cols = air_npu_device_find(d->target, strlen(d->target), &model) ? model.cols : 0;
  snprintf(d->name, sizeof d->name, "xrt:%u (%s NPU, %u columns)", index, d->target, cols);
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  air_resource_init(&d->base.resource, &k_device_vtable);
  d->base.context = context;
  d->base.allocator = *a;
  d->base.info.driver = "xrt";
  d->base.info.name = d->name;
  d->base.info.workers = cols;
  d->base.info.queue_count = 1;
  if (pthread_create(&d->worker, NULL, air_xrt_worker_main, d) != 0) {
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    d->api.xrtDeviceClose(d->dev);
    air_xrt_api_unload(&d->api);
    air_mem_free(a, d);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot start the worker of %s", uri);
  }
  *out = &d->base;
  return NULL;
}

/* command_buffer.c - the recording calls every driver shares.
 *
 * Everything that can be wrong with a command is found here, while recording, so a
 * submitted command buffer fails only for what its work does: bindings become
 * air_arg_t (checked against the entry's parameters and their buffers), ranges are
 * checked without overflow, and the buffers and executables a command uses are
 * retained until the command buffer is destroyed (a submission holds the command
 * buffer, so they outlive the work). */
#include <string.h>

#include "hal/driver.h"
#include "runtime/ir/ir.h"
#include "runtime/base/status_util.h"

#define CB_VTABLE(cb) ((const air_command_buffer_vtable_t*)(cb)->resource.vtable)

void air_command_buffer_init(air_command_buffer_t* cb, const air_command_buffer_vtable_t* vtable,
                             air_device_t* device) {
  memset(cb, 0, sizeof(*cb));
  air_resource_init(&cb->resource, vtable);
  cb->device = device;
  cb->allocator = device->allocator;
}

void air_command_buffer_deinit(air_command_buffer_t* cb) {
  for (uint32_t i = 0; i < cb->n_retained; ++i) air_resource_release(cb->retained[i]);
  cb->allocator.free(cb->allocator.self, cb->retained);
  cb->retained = NULL;
  cb->n_retained = 0;
}

/* Consecutive commands usually reuse the last resource: skip those repeats. */
static air_status_t retain(air_command_buffer_t* cb, air_resource_t* r) {
  for (uint32_t i = cb->n_retained, k = 0; i > 0 && k < 4; --i, ++k)
    if (cb->retained[i - 1] == r) return NULL;
  if (cb->n_retained == cb->cap_retained) {
    uint32_t cap = cb->cap_retained ? cb->cap_retained * 2 : 8;
    air_resource_t** n = cb->allocator.realloc(cb->allocator.self, cb->retained,
                                               cap * sizeof(*n));
    if (!n)
      return AIR_STATUS(&cb->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                        "out of memory recording a command");
    cb->retained = n;
    cb->cap_retained = cap;
  }
  air_resource_retain(r);
  cb->retained[cb->n_retained++] = r;
  return NULL;
}

static air_status_t check_recording(air_command_buffer_t* cb, const char* call) {
  if (!cb) return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "%s: NULL command buffer", call);
  if (cb->ended)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_FAILED_PRECONDITION,
                      "%s: the command buffer has ended; record into a new one", call);
  return NULL;
}

static air_status_t check_range(air_command_buffer_t* cb, const air_buffer_t* b,
                                uint64_t offset, uint64_t length, const char* call,
                                const char* what) {
  if (!b)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_INVALID_ARGUMENT, "%s: NULL %s buffer", call,
                      what);
  if (b->device != cb->device)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "%s: the %s buffer belongs to another device", call, what);
  if (offset > b->size || length > b->size - offset)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_OUT_OF_RANGE,
                      "%s: %s range [%llu, +%llu) is outside the %llu-byte buffer", call, what,
                      (unsigned long long)offset, (unsigned long long)length,
                      (unsigned long long)b->size);
  return NULL;
}

void air_command_buffer_retain(air_command_buffer_t* cb) {
  if (cb) air_resource_retain(&cb->resource);
}

void air_command_buffer_release(air_command_buffer_t* cb) {
  if (cb) air_resource_release(&cb->resource);
}

air_status_t air_command_buffer_create(air_device_t* device, uint32_t flags,
                                       air_command_buffer_t** out_command_buffer) {
  if (!device || !out_command_buffer)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_create: NULL argument");
  *out_command_buffer = NULL;
  if (flags)
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_create: unknown flags 0x%x", flags);
  return AIR_DEVICE_VTABLE(device)->command_buffer_create(device, flags, out_command_buffer);
}

/* Binds one memref parameter: the memref starts at the binding's byte offset, is
 * dense row-major, and must lie inside the buffer and be aligned to its element. */
static air_status_t bind_memref(air_command_buffer_t* cb, const air_entry_t* en, uint32_t i,
                                const air_binding_t* bd, air_arg_t* arg) {
  const air_allocator_t* a = &cb->allocator;
  const air_memref_t* m = &en->params[i].memref;
  if (!bd->buffer)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: parameter %u is a memref but binding %u has no buffer",
                      en->name, i, i);
  if (bd->buffer->device != cb->device)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: binding %u's buffer belongs to another device", en->name, i);
  char* base = bd->buffer->device_ptr ? bd->buffer->device_ptr : bd->buffer->host_ptr;
  if (!base && bd->buffer->size)
    return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED,
                      "dispatch @%s: binding %u's buffer is not addressable by this driver",
                      en->name, i);
  uint64_t esize = air_elem_size((air_elem_kind_t)m->elem);
  uint64_t elems = 1;
  for (uint32_t d = 0; d < m->rank; ++d) {
    uint64_t s = (uint64_t)m->sizes[d];
    if (s && elems > UINT64_MAX / s) goto too_big;
    elems *= s;
  }
  if (esize && elems > UINT64_MAX / esize) goto too_big;
  uint64_t bytes = elems * esize;
  const air_buffer_t* b = bd->buffer;
  if (bd->offset > b->size || bytes > b->size - bd->offset)
    return AIR_STATUS(a, AIR_STATUS_OUT_OF_RANGE,
                      "dispatch @%s: parameter %u needs %llu bytes at offset %llu but its "
                      "buffer holds %llu", en->name, i, (unsigned long long)bytes,
                      (unsigned long long)bd->offset, (unsigned long long)b->size);
  char* data = base ? base + bd->offset : NULL;
  if (esize && (uintptr_t)data % esize)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: parameter %u's data (buffer + %llu) is not aligned to "
                      "its %llu-byte elements", en->name, i, (unsigned long long)bd->offset,
                      (unsigned long long)esize);
  *arg = en->params[i];
  arg->memref.data = data;
  arg->memref.offset = 0;
  uint64_t stride = 1; /* unsigned: an empty memref may have absurd other extents */
  for (uint32_t d = m->rank; d-- > 0;) {
    arg->memref.strides[d] = (int64_t)stride;
    stride *= (uint64_t)m->sizes[d];
  }
  return NULL;
too_big:
  return AIR_STATUS(a, AIR_STATUS_OUT_OF_RANGE,
                    "dispatch @%s: parameter %u's byte size overflows 64 bits", en->name, i);
}

/* The caller's transient arena must cover what the entry's schedule needs. */
static air_status_t check_transient(air_command_buffer_t* cb, const air_executable_t* e,
                                    uint32_t ordinal, air_buffer_t* t, uint64_t offset,
                                    void** out, uint64_t* out_size) {
  const air_allocator_t* a = &cb->allocator;
  const char* name = e->entries[ordinal].name;
  uint64_t need = 0;
  uint32_t align = 1;
  AIR_RETURN_IF_ERROR(air_executable_transient_size(e, ordinal, &need, &align));
  if (t->device != cb->device)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: the transient buffer belongs to another device", name);
  char* base = t->device_ptr ? t->device_ptr : t->host_ptr;
  if (!base && t->size)
    return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED,
                      "dispatch @%s: the transient buffer is not addressable by this driver", name);
  uint64_t have = offset <= t->size ? t->size - offset : 0;
  uintptr_t at = (uintptr_t)base + (uintptr_t)offset;
  if (offset > t->size || have < need || (need && at % align))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: the transient arena (buffer + %llu) has %llu bytes at an "
                      "address aligned to %llu; the entry needs %llu bytes aligned to %u",
                      name, (unsigned long long)offset, (unsigned long long)have,
                      (unsigned long long)(at ? at & -at : 0), (unsigned long long)need, align);
  *out = base ? base + offset : NULL;
  *out_size = have;
  return NULL;
}

air_status_t air_command_buffer_dispatch(air_command_buffer_t* cb, air_executable_t* e,
                                         uint32_t ordinal, uint32_t binding_count,
                                         const air_binding_t* bindings,
                                         const air_dispatch_options_t* options) {
  return air_command_buffer_dispatch_transient(cb, e, ordinal, binding_count, bindings, NULL, 0,
                                               options);
}

air_status_t air_command_buffer_dispatch_transient(air_command_buffer_t* cb, air_executable_t* e,
                                                   uint32_t ordinal, uint32_t binding_count,
                                                   const air_binding_t* bindings,
                                                   air_buffer_t* transient,
                                                   uint64_t transient_offset,
                                                   const air_dispatch_options_t* options) {
  AIR_RETURN_IF_ERROR(check_recording(cb, "air_command_buffer_dispatch"));
  const air_allocator_t* a = &cb->allocator;
  if (!e || (binding_count && !bindings))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_command_buffer_dispatch: NULL argument");
  if (e->device != cb->device)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_dispatch: the executable belongs to another device");
  if (ordinal >= e->n_entries)
    return AIR_STATUS(a, AIR_STATUS_OUT_OF_RANGE,
                      "air_command_buffer_dispatch: entry ordinal %u out of range (the "
                      "executable has %u)", ordinal, e->n_entries);
  air_dispatch_options_t opts = {0};
  if (options) opts = *options;
  if (opts.flags & ~(uint32_t)(AIR_DISPATCH_DYNAMIC | AIR_DISPATCH_INTERPRET))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_dispatch: unknown flags 0x%x", opts.flags);
  if (opts.watchdog_ns < 0)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_dispatch: negative watchdog");
  const air_entry_t* en = &e->entries[ordinal];
  if (en->why_not)
    return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED, "dispatch @%s: parameter %u %s", en->name,
                      en->why_not_param, en->why_not);
  if (binding_count != en->n_params)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "dispatch @%s: %u bindings for %u parameters", en->name, binding_count,
                      en->n_params);

  void* arena = NULL;
  uint64_t arena_size = 0;
  if (transient)
    AIR_RETURN_IF_ERROR(
        check_transient(cb, e, ordinal, transient, transient_offset, &arena, &arena_size));

  air_arg_t small[8];
  air_arg_t* args = small;
  if (en->n_params > 8) {
    args = a->alloc(a->self, en->n_params * sizeof(*args));
    if (!args)
      return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory recording a dispatch");
  }
  air_status_t st = NULL;
  for (uint32_t i = 0; i < en->n_params && !st; ++i) {
    if (en->params[i].kind == AIR_ARG_MEMREF) {
      st = bind_memref(cb, en, i, &bindings[i], &args[i]);
    } else {
      args[i] = en->params[i];
      args[i].i = bindings[i].i;
      args[i].f = bindings[i].f;
    }
  }
  if (!st) st = retain(cb, &e->resource);
  for (uint32_t i = 0; i < en->n_params && !st; ++i)
    if (en->params[i].kind == AIR_ARG_MEMREF) st = retain(cb, &bindings[i].buffer->resource);
  if (!st && transient) st = retain(cb, &transient->resource);
  if (!st)
    st = CB_VTABLE(cb)->dispatch(cb, e, ordinal, en->n_params, args, &opts, arena, arena_size);
  if (args != small) a->free(a->self, args);
  return st;
}

air_status_t air_command_buffer_copy(air_command_buffer_t* cb, air_buffer_t* source,
                                     uint64_t source_offset, air_buffer_t* target,
                                     uint64_t target_offset, uint64_t length) {
  AIR_RETURN_IF_ERROR(check_recording(cb, "air_command_buffer_copy"));
  AIR_RETURN_IF_ERROR(
      check_range(cb, source, source_offset, length, "air_command_buffer_copy", "source"));
  AIR_RETURN_IF_ERROR(
      check_range(cb, target, target_offset, length, "air_command_buffer_copy", "target"));
  if (length == 0) return NULL;
  AIR_RETURN_IF_ERROR(retain(cb, &source->resource));
  AIR_RETURN_IF_ERROR(retain(cb, &target->resource));
  return CB_VTABLE(cb)->copy(cb, source, source_offset, target, target_offset, length);
}

air_status_t air_command_buffer_fill(air_command_buffer_t* cb, air_buffer_t* target,
                                     uint64_t offset, uint64_t length, const void* pattern,
                                     uint32_t pattern_length) {
  AIR_RETURN_IF_ERROR(check_recording(cb, "air_command_buffer_fill"));
  if (!pattern)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_fill: NULL pattern");
  if (pattern_length != 1 && pattern_length != 2 && pattern_length != 4)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_fill: pattern of %u bytes (1, 2 or 4)", pattern_length);
  if (length % pattern_length)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_command_buffer_fill: length %llu is not a multiple of the %u-byte "
                      "pattern", (unsigned long long)length, pattern_length);
  AIR_RETURN_IF_ERROR(check_range(cb, target, offset, length, "air_command_buffer_fill", "target"));
  if (length == 0) return NULL;
  uint8_t p[4];
  for (uint32_t i = 0; i < 4; ++i) p[i] = ((const uint8_t*)pattern)[i % pattern_length];
  uint32_t word;
  memcpy(&word, p, 4);
  AIR_RETURN_IF_ERROR(retain(cb, &target->resource));
  return CB_VTABLE(cb)->fill(cb, target, offset, length, word, pattern_length);
}

air_status_t air_command_buffer_barrier(air_command_buffer_t* cb) {
  AIR_RETURN_IF_ERROR(check_recording(cb, "air_command_buffer_barrier"));
  return CB_VTABLE(cb)->barrier(cb);
}

air_status_t air_command_buffer_end(air_command_buffer_t* cb) {
  AIR_RETURN_IF_ERROR(check_recording(cb, "air_command_buffer_end"));
  AIR_RETURN_IF_ERROR(CB_VTABLE(cb)->end(cb));
  cb->ended = true;
  return NULL;
}

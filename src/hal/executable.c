/* executable.c - the executable calls every driver shares: verification for the
 * device's target, the table of entry functions and their parameters, lookup.
 *
 * Parameters are described once at creation as air_arg_t, the form dispatches and
 * kernels use, so recording a dispatch is a copy plus the buffer addresses. */
#include <string.h>

#include "hal/driver.h"
#include "runtime/status_util.h"

static bool is_entry(const air_op_t* op) {
  return op->kind == AIR_OP_FUNC && op->n_regions > 0 && op->regions[0];
}

/* Fills `arg` from a parameter type; returns why it cannot be bound, or NULL. */
static const char* describe_param(const air_program_t* p, air_tid_t t, air_arg_t* arg) {
  const air_type_info_t* ti = air_ir_type(p, t);
  memset(arg, 0, sizeof(*arg));
  arg->elem = (uint32_t)ti->elem;
  switch (ti->kind) {
    case AIR_TYPE_SCALAR:
      arg->kind = air_elem_is_float(ti->elem) ? AIR_ARG_FLOAT : AIR_ARG_INT;
      return NULL;
    case AIR_TYPE_MEMREF: {
      arg->kind = AIR_ARG_MEMREF;
      arg->memref.elem = (uint32_t)ti->elem;
      if (ti->rank > AIR_MAX_RANK) return "is a memref of rank above 8";
      arg->memref.rank = ti->rank;
      const char* why = NULL;
      for (uint32_t d = 0; d < ti->rank; ++d) {
        arg->memref.sizes[d] = ti->shape[d] == AIR_DIM_DYNAMIC ? -1 : ti->shape[d];
        if (ti->shape[d] == AIR_DIM_DYNAMIC) why = "has a dynamic shape; dispatch binds static shapes";
      }
      return why;
    }
    default:
      arg->kind = AIR_ARG_INT;
      arg->elem = 0;
      return "is not a memref or a scalar";
  }
}

air_status_t air_executable_init(air_executable_t* e, const air_executable_vtable_t* vtable,
                                 air_device_t* device, const air_program_t* program,
                                 const char* target) {
  memset(e, 0, sizeof(*e));
  air_resource_init(&e->resource, vtable);
  e->device = device;
  e->allocator = device->allocator;
  e->program = program;
  AIR_RETURN_IF_ERROR(air_program_verify(program, target, 0));

  /* One block: the entry table, then every entry's parameters. */
  const air_block_t* body = program->module->n_regions ? program->module->regions[0] : NULL;
  uint32_t n_entries = 0;
  size_t n_params = 0;
  for (const air_op_t* op = body ? body->first : NULL; op; op = op->next) {
    if (!is_entry(op)) continue;
    ++n_entries;
    n_params += op->iaux[0];
  }
  if (n_entries == 0) return NULL;
  size_t bytes = n_entries * sizeof(air_entry_t) + n_params * sizeof(air_arg_t);
  air_entry_t* entries = e->allocator.alloc(e->allocator.self, bytes);
  if (!entries)
    return AIR_STATUS(&e->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory describing %u entry functions", n_entries);
  air_arg_t* params = (air_arg_t*)(entries + n_entries);
  uint32_t k = 0;
  for (const air_op_t* op = body->first; op; op = op->next) {
    if (!is_entry(op)) continue;
    air_entry_t* en = &entries[k++];
    en->func = op;
    en->name = op->sym ? op->sym : "";
    en->n_params = op->iaux[0];
    en->params = params;
    en->why_not = NULL;
    en->why_not_param = 0;
    for (uint32_t i = 0; i < en->n_params; ++i) {
      const char* why = describe_param(program, op->types[i], &params[i]);
      if (why && !en->why_not) {
        en->why_not = why;
        en->why_not_param = i;
      }
    }
    params += en->n_params;
  }
  e->entries = entries;
  e->n_entries = n_entries;
  return NULL;
}

void air_executable_deinit(air_executable_t* e) {
  e->allocator.free(e->allocator.self, e->entries);
  e->entries = NULL;
}

air_status_t air_executable_create(air_device_t* device, const air_program_t* program,
                                   uint32_t flags, air_executable_t** out_executable) {
  if (!device || !program || !out_executable)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create: NULL argument");
  *out_executable = NULL;
  if (flags)
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create: unknown flags 0x%x", flags);
  return AIR_DEVICE_VTABLE(device)->executable_create(device, program, flags, out_executable);
}

void air_executable_retain(air_executable_t* executable) {
  if (executable) air_resource_retain(&executable->resource);
}

void air_executable_release(air_executable_t* executable) {
  if (executable) air_resource_release(&executable->resource);
}

air_status_t air_executable_lookup(const air_executable_t* e, const char* name,
                                   uint32_t* out_ordinal) {
  if (!e || !out_ordinal)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_executable_lookup: NULL argument");
  if (!name) {
    if (e->n_entries == 1) {
      *out_ordinal = 0;
      return NULL;
    }
    if (e->n_entries == 0)
      return AIR_STATUS(&e->allocator, AIR_STATUS_NOT_FOUND,
                        "the program has no entry function (a func.func with a body)");
    return AIR_STATUS(&e->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "the program has %u entry functions (@%s, @%s, ...); name one",
                      e->n_entries, e->entries[0].name, e->entries[1].name);
  }
  for (uint32_t i = 0; i < e->n_entries; ++i) {
    if (strcmp(e->entries[i].name, name) == 0) {
      *out_ordinal = i;
      return NULL;
    }
  }
  return AIR_STATUS(&e->allocator, AIR_STATUS_NOT_FOUND,
                    "no entry function @%s in the program", name);
}

air_status_t air_executable_signature(const air_executable_t* e, uint32_t ordinal,
                                      uint32_t capacity, air_arg_t* out_args,
                                      uint32_t* out_count) {
  if (!e || !out_count || (capacity && !out_args))
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_signature: NULL argument");
  if (ordinal >= e->n_entries)
    return AIR_STATUS(&e->allocator, AIR_STATUS_OUT_OF_RANGE,
                      "entry ordinal %u out of range (the executable has %u)", ordinal,
                      e->n_entries);
  const air_entry_t* en = &e->entries[ordinal];
  *out_count = en->n_params;
  for (uint32_t i = 0; i < en->n_params && i < capacity; ++i) out_args[i] = en->params[i];
  return NULL;
}

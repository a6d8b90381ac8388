/* executable.c - the executable calls every driver shares: verification for the
 * device's target, the table of entry functions and their parameters, a compiled
 * schedule per entry (or one loaded from an .airbin artifact), lookup.
 *
 * Parameters are described once at creation as air_arg_t, the form dispatches and
 * kernels use, so recording a dispatch is a copy plus the buffer addresses.
 * Schedules are compiled here, once, for every entry a dispatch can bind; the
 * driver turns each into its own prepared form. */
#include <string.h>

#include "hal/driver.h"
#include "runtime/ir/ir.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"

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

static void free_schedules(air_executable_t* e) {
  for (uint32_t i = 0; i < e->n_entries; ++i) {
    air_schedule_free(e->entries[i].schedule);
    e->entries[i].schedule = NULL;
    air_status_free(e->entries[i].schedule_error);
    e->entries[i].schedule_error = NULL;
  }
}

/* `loaded` serves its own entry; every other dispatchable entry is compiled. */
static air_status_t schedule_entries(air_executable_t* e, const char* target,
                                     air_schedule_t* loaded) {
  const air_target_t* t = NULL;
  air_status_t st = NULL;
  if (loaded && strcmp(loaded->target, target))
    st = AIR_STATUS(&e->allocator, AIR_STATUS_FAILED_PRECONDITION,
                    "the artifact's schedule is for target \"%s\"; this device runs \"%s\"",
                    loaded->target, target);
  if (!st) st = air_target_lookup(&e->allocator, target, &t);
  for (uint32_t i = 0; i < e->n_entries && !st; ++i) {
    air_entry_t* en = &e->entries[i];
    if (loaded && !strcmp(loaded->entry, en->name)) {
      en->schedule = loaded;
      loaded = NULL;
    } else if (!en->why_not) {
      /* A verified program always runs: what the scheduler cannot plan (an L3
       * alloc of unknown size, say) falls back to the dynamic path, and the reason
       * is kept for air_executable_schedule_info. Out of memory stays an error. */
      air_status_t cs =
          air_schedule_compile(&e->allocator, e->program, en->name, t, &en->schedule);
      if (cs && air_status_code(cs) == AIR_STATUS_RESOURCE_EXHAUSTED) st = cs;
      else en->schedule_error = cs;
    }
  }
  if (!st && loaded)
    st = AIR_STATUS(&e->allocator, AIR_STATUS_DATA_LOSS,
                    "the artifact's schedule is for @%s, which is not an entry of its program",
                    loaded->entry);
  air_schedule_free(loaded);
  if (st) free_schedules(e);
  return st;
}

air_status_t air_executable_init(air_executable_t* e, const air_executable_vtable_t* vtable,
                                 air_device_t* device, const air_program_t* program,
                                 const char* target, uint32_t flags, air_schedule_t* loaded) {
  memset(e, 0, sizeof(*e));
  air_resource_init(&e->resource, vtable);
  e->device = device;
  e->allocator = device->allocator;
  e->program = program;
  /* The artifact reader verified a loaded program for its schedule's target. */
  bool verified = loaded && !strcmp(loaded->target, target);
  air_status_t vst = verified ? NULL : air_program_verify(program, target, 0);
  if (vst || (flags & AIR_EXECUTABLE_NO_SCHEDULE)) {
    air_schedule_free(loaded);
    if (vst) return vst;
    loaded = NULL;
  }

  /* One block: the entry table, then every entry's parameters. */
  const air_block_t* body = program->module->n_regions ? program->module->regions[0] : NULL;
  uint32_t n_entries = 0;
  size_t n_params = 0;
  for (const air_op_t* op = body ? body->first : NULL; op; op = op->next) {
    if (!is_entry(op)) continue;
    ++n_entries;
    n_params += op->iaux[0];
  }
  if (n_entries == 0) {
    if (!loaded) return NULL;
    air_schedule_free(loaded);
    return AIR_STATUS(&e->allocator, AIR_STATUS_DATA_LOSS,
                      "the artifact's program has no entry function");
  }
  size_t bytes = n_entries * sizeof(air_entry_t) + n_params * sizeof(air_arg_t);
  air_entry_t* entries = e->allocator.alloc(e->allocator.self, bytes);
  if (!entries) {
    air_schedule_free(loaded);
    return AIR_STATUS(&e->allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory describing %u entry functions", n_entries);
  }
  memset(entries, 0, n_entries * sizeof(air_entry_t));
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
  if (flags & AIR_EXECUTABLE_NO_SCHEDULE) return NULL;
  air_status_t st = schedule_entries(e, target, loaded);
  if (st) {
    e->allocator.free(e->allocator.self, e->entries);
    e->entries = NULL;
    e->n_entries = 0;
  }
  return st;
}

void air_executable_deinit(air_executable_t* e) {
  if (e->entries) free_schedules(e);
  e->allocator.free(e->allocator.self, e->entries);
  e->entries = NULL;
  if (e->owned_program) air_program_destroy(e->owned_program);
  e->owned_program = NULL;
}

/* Through the driver's options entry when it has one; a driver without one
 * refuses options it cannot honour. */
static air_status_t create_with(air_device_t* device, const air_program_t* program,
                                const air_executable_options_t* o, air_schedule_t* loaded,
                                const air_artifact_code_t* code, air_executable_t** out) {
  static const air_executable_options_t k_none = {0, NULL, NULL, NULL};
  const air_device_vtable_t* vt = AIR_DEVICE_VTABLE(device);
  if (!o) o = &k_none;
  if (vt->executable_create_options)
    return vt->executable_create_options(device, program, o, loaded, out);
  if (o->xclbin || o->kernel || o->insts) {
    air_schedule_free(loaded);
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "device %s takes no %s: an xclbin, kernel or instruction stream is for "
                      "an NPU (xrt:N)", device->info.name,
                      o->xclbin ? "xclbin" : o->kernel ? "kernel name" : "instruction stream");
  }
  return vt->executable_create(device, program, o->flags, loaded, code, out);
}

air_status_t air_executable_create_with_options(air_device_t* device,
                                                const air_program_t* program,
                                                const air_executable_options_t* options,
                                                air_executable_t** out_executable) {
  if (!device || !program || !out_executable)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create: NULL argument");
  *out_executable = NULL;
  uint32_t flags = options ? options->flags : 0;
  if (flags & ~(uint32_t)(AIR_EXECUTABLE_NO_SCHEDULE | AIR_EXECUTABLE_NO_COMPILE))
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create: unknown flags 0x%x", flags);
  return create_with(device, program, options, NULL, NULL, out_executable);
}

air_status_t air_executable_create(air_device_t* device, const air_program_t* program,
                                   uint32_t flags, air_executable_t** out_executable) {
  air_executable_options_t o = {flags, NULL, NULL, NULL};
  return air_executable_create_with_options(device, program, &o, out_executable);
}

/* The executable takes the program; the schedule goes to its entry; the host
 * code (docs/artifact.md, `.air.code`) is the driver's to link or ignore during
 * the call, and freed here. */
static air_status_t create_loaded(air_device_t* device, air_program_t* program,
                                  air_schedule_t* schedule, air_artifact_code_t* code,
                                  const air_executable_options_t* options,
                                  air_executable_t** out) {
  air_status_t st = create_with(device, program, options, schedule, code->object ? code : NULL, out);
  const air_allocator_t* a = air_context_allocator(device->context);
  if (code->object) a->free(a->self, code->object);
  if (st) {
    air_program_destroy(program);
    return st;
  }
  (*out)->owned_program = program;
  return NULL;
}

air_status_t air_executable_create_from_artifact(air_device_t* device, const void* data,
                                                 size_t size, air_executable_t** out) {
  if (!device || (!data && size) || !out)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create_from_artifact: NULL argument");
  *out = NULL;
  air_program_t* program = NULL;
  air_schedule_t* schedule = NULL;
  air_artifact_code_t code;
  AIR_RETURN_IF_ERROR(air_artifact_read_ex(device->context, data, size, "<memory>", &program,
                                           &schedule, &code));
  return create_loaded(device, program, schedule, &code, NULL, out);
}

air_status_t air_executable_create_from_file_with_options(
    air_device_t* device, const char* path, const air_executable_options_t* options,
    air_executable_t** out) {
  if (!device || !path || !out)
    return AIR_STATUS(device ? &device->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create_from_file: NULL argument");
  *out = NULL;
  /* AIR_EXECUTABLE_NO_COMPILE only: the artifact's host code is then ignored. */
  if (options && (options->flags & ~(uint32_t)AIR_EXECUTABLE_NO_COMPILE))
    return AIR_STATUS(&device->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_create_from_file: flags 0x%x with an artifact, whose "
                      "schedule is fixed", options->flags);
  air_program_t* program = NULL;
  air_schedule_t* schedule = NULL;
  air_artifact_code_t code;
  AIR_RETURN_IF_ERROR(
      air_artifact_read_file_ex(device->context, path, &program, &schedule, &code));
  return create_loaded(device, program, schedule, &code, options, out);
}

air_status_t air_executable_create_from_file(air_device_t* device, const char* path,
                                             air_executable_t** out) {
  return air_executable_create_from_file_with_options(device, path, NULL, out);
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

const char* air_executable_entry_name(const air_executable_t* e, uint32_t ordinal) {
  return e && ordinal < e->n_entries ? e->entries[ordinal].name : NULL;
}

static air_status_t entry_at(const air_executable_t* e, uint32_t ordinal, const char* call,
                             const air_entry_t** out) {
  if (!e) return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "%s: NULL executable", call);
  if (ordinal >= e->n_entries)
    return AIR_STATUS(&e->allocator, AIR_STATUS_OUT_OF_RANGE,
                      "%s: entry ordinal %u out of range (the executable has %u)", call, ordinal,
                      e->n_entries);
  *out = &e->entries[ordinal];
  return NULL;
}

/* The L3 arena is the memory plan's first; a driver may use less of it. */
static void transient_of(const air_schedule_t* sc, uint64_t* bytes, uint32_t* alignment) {
  const air_memplan_t* m = sc ? &sc->memplan : NULL;
  bool l3 = m && m->n_arenas && m->arenas[0].space == AIR_MEMPLAN_L3;
  *bytes = l3 ? m->arenas[0].size : 0;
  *alignment = m && m->alignment ? m->alignment : 1;
}

air_status_t air_executable_transient_size(const air_executable_t* e, uint32_t ordinal,
                                           uint64_t* out_bytes, uint32_t* out_alignment) {
  const air_entry_t* en = NULL;
  AIR_RETURN_IF_ERROR(entry_at(e, ordinal, "air_executable_transient_size", &en));
  if (!out_bytes)
    return AIR_STATUS(&e->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_transient_size: NULL argument");
  uint32_t alignment;
  transient_of(en->schedule, out_bytes, &alignment);
  if (out_alignment) *out_alignment = alignment;
  return NULL;
}

air_status_t air_executable_schedule_info(const air_executable_t* e, uint32_t ordinal,
                                          air_schedule_info_t* out) {
  const air_entry_t* en = NULL;
  AIR_RETURN_IF_ERROR(entry_at(e, ordinal, "air_executable_schedule_info", &en));
  if (!out)
    return AIR_STATUS(&e->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_schedule_info: NULL argument");
  const air_schedule_t* sc = en->schedule;
  if (!sc && en->schedule_error)
    return AIR_STATUS(&e->allocator, AIR_STATUS_FAILED_PRECONDITION,
                      "@%s has no schedule; it runs on the dynamic path because the scheduler "
                      "refused it: %s",
                      en->name, air_status_message(en->schedule_error));
  if (!sc)
    return AIR_STATUS(&e->allocator, AIR_STATUS_FAILED_PRECONDITION,
                      "@%s has no schedule (%s)", en->name,
                      en->why_not ? en->why_not : "the executable was made without schedules");
  const air_partition_t* P = sc->partition;
  memset(out, 0, sizeof *out);
  out->target = sc->target;
  out->commands = sc->n_cmds;
  out->queues = P->n_queues;
  out->waves = P->n_waves;
  out->levels = P->n_levels;
  out->waits = P->n_waits;
  out->waits_elided = (uint32_t)(P->stats.waits_raw - P->stats.waits_kept);
  for (uint32_t q = 0; q < P->n_queues && q < AIR_SCHEDULE_MAX_QUEUES; ++q) {
    out->queue_waves[q] = P->queues[q].wave_end - P->queues[q].wave_begin;
    out->queue_kind[q] = air_sched_queue_kind_name(q < sc->n_queues ? sc->queue_kind[q] : 0xff);
  }
  transient_of(sc, &out->transient_bytes, &out->transient_alignment);
  out->compile_ns = sc->compile_ns;
  return NULL;
}

air_status_t air_executable_code_info(const air_executable_t* e, air_code_info_t* out) {
  if (!e || !out)
    return AIR_STATUS(e ? &e->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_executable_code_info: NULL argument");
  *out = e->code_info;
  if (!out->source) out->source = "none";
  if (!out->units && !out->why_none)
    out->why_none = e->code_why[0] ? e->code_why : "this device's driver runs no host code";
  return NULL;
}

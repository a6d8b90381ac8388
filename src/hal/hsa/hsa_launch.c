/* hsa_launch.c - planning an entry's launches as GPU dispatches of link_with code
 * objects, and packing their kernel arguments (hsa_launch.h). */
#ifdef AIR_HAVE_HSA
#include "hal/hsa/hsa_launch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu/kernarg.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "runtime/ir/ir.h"

typedef struct planner_t {
  const air_allocator_t* a;
  const air_hsa_system_t* sys;
  const air_program_t* p;
  const char* entry;
  air_hsa_plan_t* plan;
  const air_gpu_code_t* gpu; /* the schedule's generated kernels, or NULL */
} planner_t;

/* The refusal for what a GPU herd cannot do (yet), at the op. */
#define REFUSE(pl, op, ...) \
  AIR_IR_ERROR((pl)->p, AIR_STATUS_UNIMPLEMENTED, (op)->line, (op)->col, __VA_ARGS__)

/* Follows `v` out through herd, segment and launch arguments and sizes to an entry
 * parameter or a constant. */
static air_status_t trace(planner_t* pl, const air_op_t* at, air_vid_t v, air_hsa_src_t* out) {
  const air_type_info_t* t = air_ir_type(pl->p, air_ir_value_type(pl->p, v));
  memset(out, 0, sizeof *out);
  out->memref = t->kind == AIR_TYPE_MEMREF;
  out->elem = t->elem;
  if (out->memref && t->memspace != AIR_MEM_L3)
    return REFUSE(pl, at, "on the GPU a linked kernel takes L3 memrefs; this one is in memory "
                          "space %d", t->memspace);
  for (;;) {
    const air_value_info_t* info = air_ir_value(pl->p, v);
    if (info->def) {
      const air_op_t* d = info->def;
      if (d->kind != AIR_OP_CONSTANT || out->memref)
        return REFUSE(pl, d, "a linked GPU kernel's argument must come from the entry's "
                             "parameters or a constant, not from %s", air_opkind_name(d->kind));
      out->param = UINT32_MAX;
      out->i = d->value.i;
      out->f = d->value.kind == AIR_ATTR_FLOAT ? d->value.f : (double)d->value.i;
      return NULL;
    }
    const air_op_t* owner = info->block ? info->block->parent : NULL;
    if (owner && owner->kind == AIR_OP_FUNC) {
      out->param = info->index;
      return NULL;
    }
    if (!owner || (owner->kind != AIR_OP_LAUNCH && owner->kind != AIR_OP_SEGMENT &&
                   owner->kind != AIR_OP_HERD))
      return REFUSE(pl, at, "an argument of a linked GPU kernel comes from a region the hsa "
                            "driver cannot follow");
    uint32_t n = owner->iaux[0], k = info->index;
    if (k < n)
      return REFUSE(pl, owner, "a linked GPU kernel cannot take an iteration index of %s as an "
                               "argument: each work-item reads its own ids",
                    air_opkind_name(owner->kind));
    v = k < 2 * n ? owner->operands[k - n] : owner->operands[n + (k - 2 * n)];
  }
}

/* The single op of kind `kind` in `b`, the others being constants and the
 * terminator. */
static air_status_t only(planner_t* pl, const air_op_t* holder, const air_block_t* b,
                         air_opkind_t kind, const air_op_t** out) {
  *out = NULL;
  for (const air_op_t* op = b->first; op; op = op->next) {
    if (op->kind == AIR_OP_CONSTANT || air_opkind_class(op->kind) == AIR_OPC_TERMINATOR) continue;
    if (op->kind != kind || *out)
      return REFUSE(pl, op, "a GPU herd here would need a kernel generated from %s in %s: only "
                            "launch > segment > herd > func.call of a link_with code object "
                            "runs on the hsa driver so far (docs/gpu.md)",
                    air_opkind_name(op->kind), air_opkind_name(holder->kind));
    *out = op;
  }
  if (!*out)
    return REFUSE(pl, holder, "%s holds no %s", air_opkind_name(holder->kind),
                  air_opkind_name(kind));
  return NULL;
}

static air_status_t herd_size(planner_t* pl, const air_op_t* herd, uint32_t d, uint32_t* out) {
  air_hsa_src_t s;
  AIR_RETURN_IF_ERROR(trace(pl, herd, herd->operands[d], &s));
  if (s.param != UINT32_MAX || s.i < 1 || s.i > 1024)
    return REFUSE(pl, herd, "a GPU herd's size must be a constant in 1..1024 (its workgroup)");
  *out = (uint32_t)s.i;
  return NULL;
}

static air_status_t read_file(planner_t* pl, const char* path, uint8_t** out, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return AIR_STATUS(pl->a, AIR_STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0, k;
  uint8_t* buf = air_mem_alloc(pl->a, cap);
  while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      uint32_t c32 = (uint32_t)cap; /* code objects are far below 4 GiB */
      if (cap > (1u << 30) || !air_mem_grow(pl->a, (void**)&buf, &c32, cap * 2, 1)) {
        air_mem_free(pl->a, buf);
        buf = NULL;
        break;
      }
      cap = c32;
    }
  }
  fclose(f);
  if (!buf) return AIR_STATUS_OOM(pl->a, "reading a code object");
  *out = buf;
  *size = n;
  return NULL;
}

static air_status_t load_object(planner_t* pl, air_hsa_kernel_t* k);

/* The code object `name` (link_with), read, checked and loaded once per plan. */
static air_status_t kernel_file(planner_t* pl, const air_op_t* herd, const char* name,
                                air_hsa_kernel_t** out) {
  air_hsa_plan_t* plan = pl->plan;
  for (uint32_t i = 0; i < plan->n_kernels; ++i)
    if (!strcmp(plan->kernels[i].path, name)) return *out = &plan->kernels[i], NULL;
  air_hsa_kernel_t* k = &plan->kernels[plan->n_kernels];
  memset(k, 0, sizeof *k);
  /* As written, else beside the program's file. */
  char path[4096];
  snprintf(path, sizeof path, "%s", name);
  FILE* probe = fopen(path, "rb");
  if (!probe && name[0] != '/' && pl->p->filename) {
    const char* slash = strrchr(pl->p->filename, '/');
    if (slash)
      snprintf(path, sizeof path, "%.*s/%s", (int)(slash - pl->p->filename), pl->p->filename, name);
  }
  if (probe) fclose(probe);
  size_t len = strlen(path) + 1;
  k->path = air_mem_alloc(pl->a, len);
  if (!k->path) return AIR_STATUS_OOM(pl->a, "hsa plan");
  memcpy(k->path, path, len);
  plan->n_kernels++;
  air_status_t s = read_file(pl, path, &k->bytes, &k->size);
  if (s) {
    air_status_t r = REFUSE(pl, herd, "link_with \"%s\": %s", name, air_status_message(s));
    air_status_free(s);
    return r;
  }
  AIR_RETURN_IF_ERROR(load_object(pl, k));
  *out = k;
  return NULL;
}

/* Reads k->bytes as a code object, checks it is for this GPU and loads it. */
static air_status_t load_object(planner_t* pl, air_hsa_kernel_t* k) {
  const char* path = k->path;
  AIR_RETURN_IF_ERROR(air_amdgpu_code_object_read(pl->a, k->bytes, k->size, path, &k->co));
  if (strcmp(k->co->gfx->name, pl->sys->gpu_name))
    return AIR_STATUS(pl->a, AIR_STATUS_INVALID_ARGUMENT,
                      "%s: code object for %s (%s), but the GPU is %s", path, k->co->gfx->name,
                      k->co->target, pl->sys->gpu_name);
  const air_hsa_api_t* api = pl->sys->api;
  hsa_status_t st = api->hsa_code_object_reader_create_from_memory(k->bytes, k->size, &k->reader);
  if (st == HSA_STATUS_SUCCESS) {
    st = api->hsa_executable_create_alt(pl->sys->profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                        NULL, &k->exe);
    if (st != HSA_STATUS_SUCCESS) api->hsa_code_object_reader_destroy(k->reader);
  }
  if (st == HSA_STATUS_SUCCESS) {
    k->loaded = true;
    st = api->hsa_executable_load_agent_code_object(k->exe, pl->sys->gpu, k->reader, NULL, NULL);
    if (st == HSA_STATUS_SUCCESS) st = api->hsa_executable_freeze(k->exe, NULL);
  }
  if (st != HSA_STATUS_SUCCESS) {
    char what[4200];
    snprintf(what, sizeof what, "loading %s", path);
    return air_hsa_status(pl->a, api, st, what);
  }
  return NULL;
}

/* A launch whose kernel the code generator built (scheduler/gpu_code.h). */
/* Finds kernel `name` in the loaded object `k`: its metadata in l->meta, its
 * kernel object and segment sizes. False when the object has no such kernel. */
static bool find_kernel(planner_t* pl, const air_hsa_kernel_t* k, const char* name,
                        air_hsa_launch_t* l) {
  char sym[512];
  snprintf(sym, sizeof sym, "%s.kd", name);
  l->meta = air_amdgpu_code_object_kernel(k->co, name);
  hsa_executable_symbol_t symbol;
  const air_hsa_api_t* api = pl->sys->api;
  if (!l->meta || api->hsa_executable_get_symbol_by_name(k->exe, sym, &pl->sys->gpu, &symbol) !=
                      HSA_STATUS_SUCCESS)
    return false;
  api->hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                      &l->kernel_object);
  api->hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                      &l->group_segment_size);
  api->hsa_executable_symbol_get_info(
      symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &l->private_segment_size);
  return true;
}

static air_status_t plan_generated(planner_t* pl, const air_op_t* launch,
                                   const air_gpu_kernel_t* g, air_hsa_launch_t* l) {
  air_hsa_plan_t* plan = pl->plan;
  const air_gpu_code_t* code = pl->gpu;
  if (strcmp(code->processor, pl->sys->gpu_name))
    return AIR_STATUS(pl->a, AIR_STATUS_INVALID_ARGUMENT,
                      "the program's GPU kernels were built for %s, but the GPU is %s: compile "
                      "it again with airc compile --target %s",
                      code->processor, pl->sys->gpu_name, pl->sys->gpu_name);
  l->gen = g;
  air_hsa_kernel_t* k = NULL;
  char label[96];
  snprintf(label, sizeof label, "<artifact>.air.hsaco.%u", g->object);
  for (uint32_t i = 0; i < plan->n_kernels && !k; ++i)
    if (!strcmp(plan->kernels[i].path, label)) k = &plan->kernels[i];
  if (!k) {
    k = &plan->kernels[plan->n_kernels];
    memset(k, 0, sizeof *k);
    size_t n = (size_t)code->objects[g->object].size;
    k->path = air_mem_alloc(pl->a, strlen(label) + 1);
    k->bytes = air_mem_alloc(pl->a, n ? n : 1);
    if (!k->path || !k->bytes) {
      air_mem_free(pl->a, k->path);
      air_mem_free(pl->a, k->bytes);
      return AIR_STATUS_OOM(pl->a, "hsa plan");
    }
    memcpy(k->path, label, strlen(label) + 1);
    memcpy(k->bytes, code->objects[g->object].bytes, n);
    k->size = n;
    plan->n_kernels++;
    AIR_RETURN_IF_ERROR(load_object(pl, k));
  }
  if (!find_kernel(pl, k, g->name, l))
    return REFUSE(pl, launch, "the artifact's code object has no kernel '%s'", g->name);
  if (l->meta->kernarg_segment_size < 8 * g->n_args)
    return AIR_STATUS(pl->a, AIR_STATUS_DATA_LOSS, "kernel %s takes %u bytes of arguments, not %u",
                      g->name, l->meta->kernarg_segment_size, 8 * g->n_args);
  const air_op_t* func = NULL;
  for (const air_op_t* o = pl->p->module->regions[0]->first; o && !func; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->sym && !strcmp(o->sym, pl->entry)) func = o;
  l->n_args = g->n_args;
  l->args = air_mem_calloc(pl->a, l->n_args ? l->n_args : 1, sizeof *l->args);
  if (!l->args) return AIR_STATUS_OOM(pl->a, "hsa plan");
  for (uint32_t i = 0; i < g->n_args; ++i) {
    air_hsa_src_t* a = &l->args[i];
    a->param = g->args[i].param;
    a->spill = g->args[i].kind == AIR_GPU_ARG_SPILL;
    if (a->spill) continue;
    if (!func || a->param >= func->iaux[0])
      return AIR_STATUS(pl->a, AIR_STATUS_DATA_LOSS, "kernel %s: argument %u names parameter %u",
                        g->name, i, a->param);
    const air_type_info_t* t = air_ir_type(pl->p, func->types[a->param]);
    a->memref = t->kind == AIR_TYPE_MEMREF;
    a->elem = t->elem;
    if (a->memref != (g->args[i].kind == AIR_GPU_ARG_MEMREF))
      return AIR_STATUS(pl->a, AIR_STATUS_DATA_LOSS, "kernel %s: argument %u's kind", g->name, i);
  }
  return NULL;
}

static air_status_t plan_launch(planner_t* pl, const air_op_t* launch, uint32_t cmd,
                                air_hsa_launch_t* l) {
  l->cmd = cmd;
  for (uint32_t i = 0; pl->gpu && i < pl->gpu->n_kernels; ++i)
    if (pl->gpu->kernels[i].cmd == cmd) return plan_generated(pl, launch, &pl->gpu->kernels[i], l);
  l->rank = launch->iaux[0];
  if (l->rank > 2) return REFUSE(pl, launch, "a GPU grid from a launch has at most 2 dimensions");
  for (uint32_t d = 0; d < l->rank; ++d) {
    AIR_RETURN_IF_ERROR(trace(pl, launch, launch->operands[d], &l->size[d]));
    if (l->size[d].memref) return REFUSE(pl, launch, "a launch size is not a memref");
  }
  if (launch->n_regions != 1) return REFUSE(pl, launch, "a launch without a body");
  const air_op_t *seg, *herd, *call;
  AIR_RETURN_IF_ERROR(only(pl, launch, launch->regions[0], AIR_OP_SEGMENT, &seg));
  AIR_RETURN_IF_ERROR(only(pl, seg, seg->regions[0], AIR_OP_HERD, &herd));
  const air_attr_t* lw = air_ir_attr_get(herd, "link_with");
  if (lw) lw = air_ir_attr_resolve(pl->p, lw);
  if (!lw || lw->kind != AIR_ATTR_STRING)
    return REFUSE(pl, herd, "this herd's body runs as a GPU kernel the code generator builds at "
                            "compile time: compile the program with `airc compile --target %s` "
                            "(air-run does so itself for a .mlir file when built with the code "
                            "generator), or give the herd link_with=\"FILE.hsaco\" (docs/gpu.md)",
                  pl->sys->gpu_name);
  AIR_RETURN_IF_ERROR(only(pl, herd, herd->regions[0], AIR_OP_CALL, &call));
  uint32_t hn = herd->iaux[0];
  l->herd[0] = l->herd[1] = 1;
  for (uint32_t d = 0; d < hn && d < 2; ++d) AIR_RETURN_IF_ERROR(herd_size(pl, herd, d, &l->herd[d]));
  if ((uint64_t)l->herd[0] * l->herd[1] > 1024)
    return REFUSE(pl, herd, "a GPU workgroup holds at most 1024 work-items, not %u x %u",
                  l->herd[0], l->herd[1]);
  air_hsa_kernel_t* k = NULL;
  AIR_RETURN_IF_ERROR(kernel_file(pl, herd, lw->s, &k));
  if (!find_kernel(pl, k, call->sym, l))
    return REFUSE(pl, call, "%s has no kernel '%s'", k->path, call->sym);
  l->n_args = call->n_operands;
  l->args = air_mem_calloc(pl->a, l->n_args ? l->n_args : 1, sizeof *l->args);
  if (!l->args) return AIR_STATUS_OOM(pl->a, "hsa plan");
  for (uint32_t i = 0; i < l->n_args; ++i)
    AIR_RETURN_IF_ERROR(trace(pl, call, call->operands[i], &l->args[i]));
  return NULL;
}

air_status_t air_hsa_plan_create(const air_allocator_t* a, const air_hsa_system_t* sys,
                                 const air_program_t* program, const air_entry_t* e,
                                 air_hsa_plan_t** out) {
  *out = NULL;
  air_hsa_plan_t* plan = air_mem_calloc(a, 1, sizeof *plan);
  if (!plan) return AIR_STATUS_OOM(a, "hsa plan");
  planner_t pl = {a, sys, program, e->name, plan, e->schedule ? e->schedule->gpu : NULL};
  const air_block_t* body = e->func->regions[0];
  uint32_t n = 0;
  for (const air_op_t* op = body->first; op; op = op->next) n += op->kind == AIR_OP_LAUNCH;
  plan->launches = air_mem_calloc(a, n ? n : 1, sizeof *plan->launches);
  plan->kernels = air_mem_calloc(a, n ? n : 1, sizeof *plan->kernels);
  air_status_t s = plan->launches && plan->kernels ? NULL : AIR_STATUS_OOM(a, "hsa plan");
  uint32_t cmd = 0;
  for (const air_op_t* op = body->first; op && !s; op = op->next, ++cmd) {
    if (op->kind == AIR_OP_LAUNCH) {
      s = plan_launch(&pl, op, cmd, &plan->launches[plan->n_launches]);
      plan->n_launches++;
    } else if (op->kind != AIR_OP_CONSTANT && op->kind != AIR_OP_WAIT_ALL &&
               air_opkind_class(op->kind) != AIR_OPC_TERMINATOR) {
      s = REFUSE(&pl, op, "%s at the entry's top level does not run on the hsa driver yet; "
                          "only launches, wait_all and constants do", air_opkind_name(op->kind));
    }
  }
  if (s) {
    air_hsa_plan_free(a, sys, plan);
    return s;
  }
  *out = plan;
  return NULL;
}

void air_hsa_plan_free(const air_allocator_t* a, const air_hsa_system_t* sys,
                       air_hsa_plan_t* plan) {
  if (!plan) return;
  for (uint32_t i = 0; i < plan->n_launches; ++i) air_mem_free(a, plan->launches[i].args);
  for (uint32_t i = 0; i < plan->n_kernels; ++i) {
    air_hsa_kernel_t* k = &plan->kernels[i];
    if (k->loaded) {
      sys->api->hsa_executable_destroy(k->exe);
      sys->api->hsa_code_object_reader_destroy(k->reader);
    }
    air_amdgpu_code_object_free(k->co);
    air_mem_free(a, k->bytes);
    air_mem_free(a, k->path);
  }
  air_mem_free(a, plan->kernels);
  air_mem_free(a, plan->launches);
  air_mem_free(a, plan);
}

/* The bytes of one scalar argument as the kernel's metadata sizes it. */
static void scalar_bytes(const air_hsa_src_t* s, const air_arg_t* args, uint32_t size,
                         uint8_t out[8]) {
  int64_t i = s->param == UINT32_MAX ? s->i : args[s->param].i;
  double f = s->param == UINT32_MAX ? s->f : args[s->param].f;
  memset(out, 0, 8);
  if (s->elem == AIR_ELEM_F32) {
    float v = (float)f;
    memcpy(out, &v, 4);
  } else if (s->elem == AIR_ELEM_F64) {
    memcpy(out, &f, 8);
  } else {
    for (uint32_t b = 0; b < size && b < 8; ++b) out[b] = (uint8_t)((uint64_t)i >> (8 * b));
  }
}

static int64_t gen_workgroups(const air_gpu_kernel_t* g, const air_arg_t* args) {
  int64_t n = g->seg_workgroups ? g->seg_workgroups : 1;
  for (uint32_t d = 0; d < g->n_grid; ++d) {
    int64_t s = g->grid[d].param == UINT32_MAX ? g->grid[d].value : args[g->grid[d].param].i;
    if (s < 1 || (n *= s) > UINT32_MAX) return -1;
  }
  return n;
}

uint64_t air_hsa_launch_spill_bytes(const air_hsa_launch_t* l, const air_arg_t* args) {
  if (!l->gen || !l->gen->spill_bytes) return 0;
  int64_t n = gen_workgroups(l->gen, args);
  return n < 1 ? 0 : (uint64_t)n * l->gen->spill_bytes;
}

/* A generated kernel: 8-byte slots (memref addresses, int64 words, doubles),
 * seg_workgroups workgroups per launch instance (one per innermost segment
 * instance, docs/gpu.md). */
static air_status_t pack_generated(const air_allocator_t* a, const air_hsa_launch_t* l,
                                   const air_arg_t* args, void* spill, void* out, uint32_t grid[3],
                                   uint16_t workgroup[3]) {
  const air_gpu_kernel_t* g = l->gen;
  int64_t n = gen_workgroups(g, args);
  if (n < 1 || (uint64_t)n * g->workgroup_size > UINT32_MAX)
    return AIR_STATUS(a, AIR_STATUS_OUT_OF_RANGE,
                      "kernel %s: its launch's iteration space cannot be a GPU grid", g->name);
  memset(out, 0, l->meta->kernarg_segment_size);
  uint8_t* p = out;
  for (uint32_t i = 0; i < l->n_args; ++i) {
    const air_hsa_src_t* s = &l->args[i];
    uint64_t w;
    if (s->spill) {
      w = (uint64_t)(uintptr_t)spill;
    } else if (s->memref) {
      const air_memref_t* m = &args[s->param].memref;
      /* The kernel was built for the parameter's static, row-major shape. */
      int64_t want = 1;
      for (uint32_t k = m->rank; k-- > 0 && k < AIR_MAX_RANK;) {
        if (m->sizes[k] != 1 && m->strides[k] != want)
          return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                            "kernel %s: parameter %u is a strided view; generated GPU kernels take "
                            "contiguous row-major memrefs", g->name, s->param);
        want *= m->sizes[k];
      }
      w = (uint64_t)(uintptr_t)m->data + (uint64_t)m->offset * air_elem_size((air_elem_kind_t)m->elem);
    } else if (air_elem_is_float((air_elem_kind_t)s->elem)) {
      double f = args[s->param].f;
      memcpy(&w, &f, 8);
    } else {
      w = (uint64_t)args[s->param].i;
    }
    memcpy(p + 8 * i, &w, 8);
  }
  grid[0] = (uint32_t)n * g->workgroup_size;
  grid[1] = grid[2] = 1;
  workgroup[0] = (uint16_t)g->workgroup_size;
  workgroup[1] = workgroup[2] = 1;
  return NULL;
}

air_status_t air_hsa_launch_pack(const air_allocator_t* a, const air_hsa_launch_t* l,
                                 const air_arg_t* args, void* spill, void* out, uint32_t grid[3],
                                 uint16_t workgroup[3]) {
  if (l->gen) return pack_generated(a, l, args, spill, out, grid, workgroup);
  air_amdgpu_dims_t dims = {{1, 1, 1}, {1, 1, 1}, 1};
  for (uint32_t d = 0; d < 2; ++d) {
    int64_t blocks = 1;
    if (d < l->rank) blocks = l->size[d].param == UINT32_MAX ? l->size[d].i : args[l->size[d].param].i;
    if (blocks < 1 || (uint64_t)blocks * l->herd[d] > UINT32_MAX)
      return AIR_STATUS(a, AIR_STATUS_OUT_OF_RANGE,
                        "launch dimension %u of %lld blocks cannot be a GPU grid", d,
                        (long long)blocks);
    dims.grid[d] = (uint32_t)blocks * l->herd[d];
    dims.workgroup[d] = (uint16_t)l->herd[d];
  }
  dims.dims = dims.grid[1] > 1 || dims.workgroup[1] > 1 ? 2 : 1;
  /* Explicit arguments, in the call's order. */
  uint8_t scalars[64][8];
  const void* values[64];
  uint32_t sizes[64];
  uint32_t n = 0;
  if (l->n_args > 64) return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED, "more than 64 kernel arguments");
  for (uint32_t k = 0, i = 0; k < l->meta->n_args && i < l->n_args; ++k) {
    const air_amdgpu_arg_t* m = &l->meta->args[k];
    if (m->kind != AIR_AMDGPU_ARG_BY_VALUE && m->kind != AIR_AMDGPU_ARG_GLOBAL_BUFFER) continue;
    const air_hsa_src_t* s = &l->args[i++];
    if (s->memref) {
      uint64_t addr = (uint64_t)(uintptr_t)args[s->param].memref.data;
      memcpy(scalars[n], &addr, 8);
    } else {
      scalar_bytes(s, args, m->size, scalars[n]);
    }
    values[n] = scalars[n];
    sizes[n] = m->size;
    ++n;
  }
  AIR_RETURN_IF_ERROR(air_amdgpu_kernarg_pack(a, l->meta, values, sizes, n, &dims, out,
                                              l->meta->kernarg_segment_size));
  for (int d = 0; d < 3; ++d) grid[d] = dims.grid[d], workgroup[d] = dims.workgroup[d];
  return NULL;
}
#endif /* AIR_HAVE_HSA */

typedef int air_hsa_launch_translation_unit_t;

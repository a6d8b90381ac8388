/* cg_gpu.c - every launch of an entry as a GPU kernel (cg_gpu.h): planned,
 * emitted through the shared emitter, optimised, compiled and linked into one code
 * object per launch, each object read back with the runtime's own code-object
 * reader and checked against the plan before it is attached to the schedule; or
 * the same kernels JIT-compiled for the host workgroup simulator. */
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu/code_object.h"
#include "amdgpu/gfx.h"
#include "codegen/cg_gpu_kernel.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

static const air_op_t* find_func(const air_program_t* p, const char* name) {
  for (const air_op_t* o = p->module->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->n_regions && (!name || (o->sym && !strcmp(o->sym, name))))
      return o;
  return NULL;
}

static void kernel_name(char* out, size_t cap, uint32_t cmd) {
  snprintf(out, cap, "air_launch_%u", cmd);
}

/* The description an artifact stores and the driver dispatches by. */
static air_status_t describe(air_arena_t* arena, const cg_gpu_plan_t* pl, uint32_t cmd,
                             uint32_t object, air_gpu_kernel_t* k) {
  memset(k, 0, sizeof *k);
  k->cmd = cmd;
  k->object = object;
  kernel_name(k->name, sizeof k->name, cmd);
  k->mapping = pl->mapping;
  k->workgroup_size = pl->workgroup;
  k->wave_size = pl->wave_size;
  k->fixed_roles = pl->fixed_roles;
  k->pes = pl->pes;
  k->pes_per_wave = pl->pes_per_wave;
  k->lds_bytes = pl->lds_bytes;
  k->spill_bytes = pl->spill_bytes;
  k->n_grid = pl->n_grid;
  for (uint32_t d = 0; d < pl->n_grid; ++d) k->grid[d] = pl->grid[d];
  k->seg_workgroups = pl->wg_per_launch;
  k->n_args = pl->n_params + (pl->spill_bytes ? 1 : 0);
  k->args = air_arena_alloc(arena, (k->n_args ? k->n_args : 1) * sizeof *k->args);
  if (!k->args) return AIR_STATUS_OOM(NULL, "GPU kernel description");
  for (uint32_t i = 0; i < pl->n_params; ++i) {
    bool mr = air_ir_type(pl->p, pl->func->types[i])->kind == AIR_TYPE_MEMREF;
    k->args[i] = (air_gpu_arg_t){mr ? AIR_GPU_ARG_MEMREF : AIR_GPU_ARG_SCALAR, i};
  }
  if (pl->spill_bytes) k->args[pl->n_params] = (air_gpu_arg_t){AIR_GPU_ARG_SPILL, 0};
  return NULL;
}

/* O2 without loop unrolling: kernels are mostly waits and copy loops, and
 * unrolling an scf.parallel of channel ops multiplies the wait loops (and the
 * compile time) by its trip count for no gain. */
static air_status_t optimize(air_cg_module_t* m) {
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopUnrolling(o, 0);
  LLVMErrorRef e = LLVMRunPasses(m->mod, "default<O2>", m->tm, o);
  LLVMDisposePassBuilderOptions(o);
  if (!e) return NULL;
  char* msg = LLVMGetErrorMessage(e);
  air_status_t st = AIR_STATUS(&m->alloc, AIR_STATUS_INTERNAL, "LLVM optimisation pipeline: %s", msg);
  LLVMDisposeErrorMessage(msg);
  return st;
}

static void amdgcn_entry(air_cg_module_t* m, void* fn) {
  (void)m;
  LLVMSetFunctionCallConv((LLVMValueRef)fn, LLVMAMDGPUKERNELCallConv);
}

/* The code object must say what the plan says. LDS is the one exception: the
 * plan's figure is a floor, since LLVM's AMDGPU backend (AMDGPUPromoteAlloca)
 * may move a private (L1) array into LDS when the workgroup size it was told
 * leaves room; the dispatch uses the code object's figure, which must still fit
 * one CU. */
static air_status_t check_object(const air_allocator_t* a, const cg_gpu_plan_t* pl,
                                 const air_gpu_kernel_t* k, const void* bytes, size_t size) {
  air_amdgpu_code_object_t* co = NULL;
  AIR_RETURN_IF_ERROR(air_amdgpu_code_object_read(a, bytes, size, k->name, &co));
  const air_amdgpu_kernel_t* mk = air_amdgpu_code_object_kernel(co, k->name);
  air_status_t st = NULL;
  if (!mk)
    st = AIR_STATUS(a, AIR_STATUS_INTERNAL, "the linked code object lacks kernel %s", k->name);
  else if (mk->group_segment_fixed_size < pl->lds_bytes ||
           (pl->t->l1_bytes && mk->group_segment_fixed_size > pl->t->l1_bytes) ||
           mk->kernarg_segment_size < 8 * k->n_args ||
           mk->wavefront_size != pl->wave_size || strcmp(co->gfx->name, pl->t->gfx))
    st = AIR_STATUS(a, AIR_STATUS_INTERNAL,
                    "kernel %s: the code object says %s, LDS %u, kernargs %u, wave %u; the plan "
                    "%s, LDS %u, kernargs %u, wave %u",
                    k->name, co->gfx->name, mk->group_segment_fixed_size, mk->kernarg_segment_size,
                    mk->wavefront_size, pl->t->gfx, pl->lds_bytes, 8 * k->n_args, pl->wave_size);
  air_amdgpu_code_object_free(co);
  return st;
}

static air_status_t target_for(const air_target_t* t, const air_cg_gpu_toolchain_t* tc,
                               air_cg_target_t* out) {
  const air_gfx_info_t* gfx = t->gfx ? air_gfx_by_name(t->gfx, strlen(t->gfx)) : NULL;
  if (!gfx || t->kind != AIR_TARGET_GPU)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "target %s is not an AMD GPU with a processor (gfx) the kernel generator "
                      "knows", t->name);
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  /* A processor this LLVM does not know is left generic here and named to the
   * external compiler instead. */
  bool known = gfx->llvm <= major;
  if (!known && (!tc || !tc->compiler[0]))
    return AIR_STATUS(NULL, AIR_STATUS_UNAVAILABLE, "%s needs LLVM %u or newer (this is LLVM %u)",
                      t->gfx, gfx->llvm, major);
  const char* features = !gfx->wave64 ? (t->wave_size == 64 ? "+wavefrontsize64" : "+wavefrontsize32") : "";
  AIR_RETURN_IF_ERROR(air_cg_target_init(AIR_CG_ARCH_AMDGCN, known ? t->gfx : "", features, out));
  out->entry = amdgcn_entry;
  return NULL;
}

air_status_t air_cg_gpu_compile(const air_allocator_t* allocator, const air_program_t* p,
                                air_schedule_t* sc, const air_target_t* t,
                                const air_cg_gpu_toolchain_t* tc, air_cg_gpu_stats_t* stats) {
  air_allocator_t sys;
  const air_allocator_t* a = air_mem_or_system(allocator, &sys);
  air_cg_gpu_stats_t local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  const air_op_t* func = find_func(p, sc->entry);
  if (!func) return AIR_STATUS(a, AIR_STATUS_NOT_FOUND, "no entry function @%s", sc->entry);
  air_cg_target_t tg;
  AIR_RETURN_IF_ERROR(target_for(t, tc, &tg));
  uint32_t n = 0;
  for (const air_op_t* o = func->regions[0]->first; o; o = o->next) n += o->kind == AIR_OP_LAUNCH;
  air_gpu_code_t* code = air_arena_alloc(&sc->arena, sizeof *code);
  if (!code) return AIR_STATUS_OOM(a, "GPU code");
  memset(code, 0, sizeof *code);
  snprintf(code->processor, sizeof code->processor, "%s", t->gfx);
  code->kernels = air_arena_alloc(&sc->arena, (n ? n : 1) * sizeof *code->kernels);
  code->objects = air_arena_alloc(&sc->arena, (n ? n : 1) * sizeof *code->objects);
  if (!code->kernels || !code->objects) return AIR_STATUS_OOM(a, "GPU code");
  uint32_t cmd = 0;
  air_status_t st = NULL;
  for (const air_op_t* o = func->regions[0]->first; o && !st; o = o->next, ++cmd) {
    if (o->kind != AIR_OP_LAUNCH) continue;
    cg_gpu_plan_t pl;
    AIR_RETURN_IF_ERROR(cg_gpu_plan(a, p, func, o, t, &pl));
    air_gpu_kernel_t* k = &code->kernels[code->n_kernels];
    st = describe(&sc->arena, &pl, cmd, code->n_objects, k);
    air_cg_module_t* m = NULL;
    if (!st) st = air_cg_module_create(a, &tg, k->name, &m);
    if (!st) st = cg_gpu_emit(m, &pl, CG_GPU_TARGET_AMDGCN, k->name);
    int64_t t0 = cg_now_ns();
    if (!st) st = optimize(m);
    stats->opt_ns += cg_now_ns() - t0;
    void* bytes = NULL;
    size_t size = 0;
    if (!st) st = cg_gpu_link(m, tc, &bytes, &size, &stats->codegen_ns, &stats->link_ns);
    if (m) {
      int64_t e;
      air_cg_module_times(m, &e);
      stats->emit_ns += e;
    }
    air_cg_module_free(m);
    if (!st) st = check_object(a, &pl, k, bytes, size);
    if (!st) {
      uint8_t* keep = air_arena_alloc(&sc->arena, size);
      if (!keep) st = AIR_STATUS_OOM(a, "GPU code object");
      else {
        memcpy(keep, bytes, size);
        code->objects[code->n_objects++] = (air_gpu_object_t){keep, size};
        code->n_kernels++;
        stats->n_kernels++;
      }
    }
    air_mem_free(a, bytes);
    cg_gpu_plan_free(a, &pl);
  }
  if (!st) sc->gpu = code;
  return st;
}

/* Every launch of the entry planned and dropped: what the program cannot do on
 * `t`, found without a toolchain. */
static air_status_t plan_all(const air_allocator_t* a, const air_program_t* p, const char* entry,
                             const air_target_t* t) {
  const air_op_t* func = find_func(p, entry);
  if (!func) return NULL; /* air_cg_gpu_compile says so */
  for (const air_op_t* o = func->regions[0]->first; o; o = o->next) {
    if (o->kind != AIR_OP_LAUNCH) continue;
    cg_gpu_plan_t pl;
    AIR_RETURN_IF_ERROR(cg_gpu_plan(a, p, func, o, t, &pl));
    cg_gpu_plan_free(a, &pl);
  }
  return NULL;
}

air_status_t air_cg_gpu_compile_found(const air_allocator_t* a, const air_program_t* p,
                                      air_schedule_t* sc, const air_target_t* t,
                                      air_cg_gpu_stats_t* stats) {
  if (!t->gfx || t->kind != AIR_TARGET_GPU)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "target %s is not an AMD GPU", t->name);
  air_cg_gpu_toolchain_t tc;
  air_status_t ts = air_cg_gpu_toolchain_find(a, t->gfx, &tc);
  if (ts) {
    /* The program's own errors first (mi300x's limits on a machine without the
     * LLVM gfx942 needs, say): they need fixing whatever the toolchain. */
    air_allocator_t sys;
    air_status_t ps = plan_all(air_mem_or_system(a, &sys), p, sc->entry, t);
    if (!ps) return ts;
    air_status_free(ts);
    return ps;
  }
  air_status_t st = air_cg_gpu_compile(a, p, sc, t, &tc, stats);
  if (stats) snprintf(stats->toolchain, sizeof stats->toolchain, "%s", tc.describe);
  return st;
}

/*--- the host workgroup simulator ---------------------------------------------------*/

struct air_cg_gpu_sim_t {
  air_allocator_t alloc;
  air_arena_t arena;
  air_cg_jit_t* jit;
  uint32_t n;
  air_gpu_kernel_t* kernels;
  air_gpu_sim_fn* fns;
};

air_status_t air_cg_gpu_sim_create(const air_allocator_t* allocator, const air_program_t* p,
                                   const char* entry, const air_target_t* t,
                                   air_cg_gpu_sim_t** out) {
  *out = NULL;
  air_allocator_t a = air_mem_or_system_copy(allocator);
  const air_op_t* func = find_func(p, entry);
  if (!func) return AIR_STATUS(&a, AIR_STATUS_NOT_FOUND, "no entry function %s", entry ? entry : "");
  air_cg_gpu_sim_t* sim = air_mem_calloc(&a, 1, sizeof *sim);
  if (!sim) return AIR_STATUS_OOM(&a, "GPU simulator");
  sim->alloc = a;
  air_arena_init(&sim->arena, &a);
  uint32_t n = 0;
  for (const air_op_t* o = func->regions[0]->first; o; o = o->next) n += o->kind == AIR_OP_LAUNCH;
  sim->kernels = air_arena_alloc(&sim->arena, (n ? n : 1) * sizeof *sim->kernels);
  sim->fns = air_arena_alloc(&sim->arena, (n ? n : 1) * sizeof *sim->fns);
  air_cg_target_t tg;
  air_status_t st = sim->kernels && sim->fns ? air_cg_target_init(AIR_CG_ARCH_HOST, NULL, NULL, &tg)
                                             : AIR_STATUS_OOM(&a, "GPU simulator");
  air_cg_module_t* m = NULL;
  if (!st) st = air_cg_module_create(&a, &tg, "air_gpu_sim", &m);
  uint32_t cmd = 0;
  for (const air_op_t* o = func->regions[0]->first; o && !st; o = o->next, ++cmd) {
    if (o->kind != AIR_OP_LAUNCH) continue;
    cg_gpu_plan_t pl;
    st = cg_gpu_plan(&a, p, func, o, t, &pl);
    if (st) break;
    air_gpu_kernel_t* k = &sim->kernels[sim->n];
    st = describe(&sim->arena, &pl, cmd, sim->n, k);
    if (!st) st = cg_gpu_emit(m, &pl, CG_GPU_TARGET_SIM, k->name);
    if (!st) sim->n++;
    cg_gpu_plan_free(&a, &pl);
  }
  if (!st) st = optimize(m);
  if (!st) {
    st = air_cg_jit_create(m, &sim->jit); /* consumes the module */
    m = NULL;
  }
  for (uint32_t i = 0; i < sim->n && !st; ++i) {
    void* fn = NULL;
    st = air_cg_jit_lookup(sim->jit, sim->kernels[i].name, &fn);
    memcpy(&sim->fns[i], &fn, sizeof fn);
  }
  air_cg_module_free(m);
  if (st) {
    air_cg_gpu_sim_free(sim);
    return st;
  }
  *out = sim;
  return NULL;
}

air_status_t air_cg_gpu_sim_lookup(air_cg_gpu_sim_t* sim, const char* name, air_gpu_sim_fn* fn,
                                   const air_gpu_kernel_t** info) {
  for (uint32_t i = 0; i < sim->n; ++i)
    if (!strcmp(sim->kernels[i].name, name)) {
      *fn = sim->fns[i];
      *info = &sim->kernels[i];
      return NULL;
    }
  return AIR_STATUS(&sim->alloc, AIR_STATUS_NOT_FOUND, "no simulated GPU kernel %s", name);
}

void air_cg_gpu_sim_free(air_cg_gpu_sim_t* sim) {
  if (!sim) return;
  air_cg_jit_free(sim->jit);
  air_arena_deinit(&sim->arena);
  air_allocator_t a = sim->alloc;
  air_mem_free(&a, sim);
}

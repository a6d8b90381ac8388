/* cg_hooks.c - the hook table the runtime calls (hal/compiled.h): every unit of a
 * program JIT-compiled into one module, looked up once, with what it cost; or
 * emitted as one x86-64 object for an artifact. A unit's function is named
 * "air_unit_<N>", N its op's preorder index in the module, so a loader of the
 * object finds the op again in the program read back from the artifact. This
 * file also holds the library's one exported symbol, AIR_CG_ENTRY_SYMBOL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/config.h"
#include "codegen/cg_gpu.h"
#include "codegen/cg_internal.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

struct air_cg_program_t {
  air_allocator_t alloc;
  air_cg_jit_t* jit;
  air_cg_unit_t* units;     /* sorted by op address */
  uint32_t n_units, cap_units;
  air_vid_t* ins;           /* the units' input lists, back to back */
  const air_op_t** ops;     /* the units' op lists, back to back */
  air_cg_stats_t stats;
};

typedef struct collect_t {
  air_cg_program_t* cp;
  const air_program_t* p;
  air_cg_module_t* m;
  uint32_t index;           /* preorder index of the next op */
  air_status_t st;
} collect_t;

/* Ops in `op`'s subtree, itself included. */
static uint32_t subtree_size(const air_op_t* op) {
  uint32_t n = 1;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      n += subtree_size(o);
  return n;
}

static void unit_name(char* buf, size_t cap, uint32_t index) {
  snprintf(buf, cap, "air_unit_%u", index);
}

/* Outermost candidates: a compiled op's nested ops belong to it. */
static void collect(collect_t* c, const air_op_t* op) {
  if (c->st) return;
  uint32_t index = c->index++;
  if (air_cg_unit_candidate(c->p, op)) {
    c->index = index + subtree_size(op);
    char name[32];
    unit_name(name, sizeof name, index);
    air_status_t st = air_cg_module_add(c->m, c->p, op, name);
    if (st && air_status_code(st) == AIR_STATUS_UNIMPLEMENTED) {
      air_status_free(st);
      c->cp->stats.n_skipped++;
    } else if (st) {
      c->st = st;
    } else {
      if (!air_mem_grow(&c->cp->alloc, (void**)&c->cp->units, &c->cp->cap_units,
                        c->cp->n_units + 1, sizeof(air_cg_unit_t))) {
        c->st = AIR_STATUS_OOM(&c->cp->alloc, "compiled units");
        return;
      }
      air_cg_unit_t* u = &c->cp->units[c->cp->n_units++];
      memset(u, 0, sizeof *u);
      u->op = op;
      u->n_out = air_cg_unit_n_out(op);
      u->index = index;
      u->air_ops = air_cg_unit_air_ops(op);
    }
    return;
  }
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      collect(c, o);
}

static int by_op(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const air_cg_unit_t*)a)->op, y = (uintptr_t)((const air_cg_unit_t*)b)->op;
  return x < y ? -1 : x > y;
}

static void release(air_cg_program_t* cp) {
  if (!cp) return;
  air_cg_jit_free(cp->jit);
  air_allocator_t a = cp->alloc;
  air_mem_free(&a, cp->units);
  air_mem_free(&a, cp->ins);
  air_mem_free(&a, (void*)cp->ops);
  air_mem_free(&a, cp);
}

static air_status_t compile(const air_allocator_t* allocator, const air_program_t* program,
                            air_cg_program_t** out) {
  *out = NULL;
  air_allocator_t a = *allocator;
  air_cg_program_t* cp = air_mem_calloc(&a, 1, sizeof *cp);
  if (!cp) return AIR_STATUS_OOM(&a, "compiled program");
  cp->alloc = a;
  air_cg_target_t t;
  air_status_t st = air_cg_target_init(AIR_CG_ARCH_HOST, NULL, NULL, &t);
  air_cg_module_t* m = NULL;
  if (!st) st = air_cg_module_create(&a, &t, "air_program", &m);
  if (st) {
    release(cp);
    return st;
  }
  collect_t c = {cp, program, m, 0, NULL};
  collect(&c, program->module);
  st = c.st;
  cp->stats.n_units = cp->n_units;
  air_cg_module_times(m, &cp->stats.emit_ns);
  if (!st && !cp->n_units) {
    air_cg_module_free(m);
    *out = cp;
    return NULL;
  }
  int64_t t0 = cg_now_ns();
  if (!st) st = air_cg_module_optimize(m);
  cp->stats.opt_ns = cg_now_ns() - t0;
  if (st) {
    air_cg_module_free(m);
    release(cp);
    return st;
  }
  st = air_cg_jit_create(m, &cp->jit); /* consumes m */
  /* Input lists: the same analysis the loader of objects uses. */
  uint32_t total = 0;
  for (uint32_t i = 0; !st && i < cp->n_units; ++i) {
    air_vid_t tmp[64];
    uint32_t n = air_cg_unit_inputs(program, cp->units[i].op, tmp, 64);
    cp->units[i].n_in = n; /* never UINT32_MAX: the emitter refused such units */
    total += n;
  }
  if (!st && !(cp->ins = air_mem_calloc(&a, total ? total : 1, sizeof(air_vid_t))))
    st = AIR_STATUS_OOM(&a, "compiled unit inputs");
  uint32_t total_ops = 0;
  for (uint32_t i = 0; !st && i < cp->n_units; ++i) total_ops += air_cg_unit_ops(cp->units[i].op, NULL);
  if (!st && !(cp->ops = air_mem_calloc(&a, total_ops ? total_ops : 1, sizeof(air_op_t*))))
    st = AIR_STATUS_OOM(&a, "compiled unit ops");
  for (uint32_t i = 0, at_op = 0; !st && i < cp->n_units; ++i) {
    cp->units[i].ops = cp->ops + at_op;
    cp->units[i].n_ops = air_cg_unit_ops(cp->units[i].op, cp->ops + at_op);
    at_op += cp->units[i].n_ops;
  }
  t0 = cg_now_ns();
  uint32_t at = 0;
  for (uint32_t i = 0; !st && i < cp->n_units; ++i) {
    air_cg_unit_t* u = &cp->units[i];
    air_cg_unit_inputs(program, u->op, cp->ins + at, u->n_in);
    u->in = cp->ins + at;
    at += u->n_in;
    char name[32];
    unit_name(name, sizeof name, u->index);
    void* fn = NULL;
    st = air_cg_jit_lookup(cp->jit, name, &fn);
    u->fn = (air_cg_fn_t)(uintptr_t)fn;
  }
  cp->stats.codegen_ns = cg_now_ns() - t0;
  if (st) {
    release(cp);
    return st;
  }
  qsort(cp->units, cp->n_units, sizeof *cp->units, by_op);
  *out = cp;
  return NULL;
}

static const air_cg_unit_t* find(const air_cg_program_t* cp, const air_op_t* op) {
  size_t lo = 0, hi = cp ? cp->n_units : 0;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp->units[mid].op == op) return &cp->units[mid];
    if ((uintptr_t)cp->units[mid].op < (uintptr_t)op)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

static void stats(const air_cg_program_t* cp, air_cg_stats_t* out) {
  if (cp) *out = cp->stats;
  else memset(out, 0, sizeof *out);
}

/* One x86-64 object with every unit (hal/compiled.h, emit_object). */
static air_status_t emit_object(const air_allocator_t* allocator, const air_program_t* program,
                                void** bytes, size_t* size, uint32_t* n_units) {
  *bytes = NULL, *size = 0, *n_units = 0;
  air_allocator_t a = *allocator;
  air_cg_program_t* cp = air_mem_calloc(&a, 1, sizeof *cp); /* only its unit list */
  if (!cp) return AIR_STATUS_OOM(&a, "compiled program");
  cp->alloc = a;
  air_cg_target_t t;
  air_cg_module_t* m = NULL;
  air_status_t st = air_cg_target_init(AIR_CG_ARCH_X86_64, NULL, NULL, &t);
  if (!st) st = air_cg_module_create(&a, &t, "air_program", &m);
  if (!st) {
    collect_t c = {cp, program, m, 0, NULL};
    collect(&c, program->module);
    st = c.st;
  }
  if (!st && cp->n_units) {
    st = air_cg_module_optimize(m);
    if (!st) st = air_cg_module_object(m, bytes, size);
    if (!st) *n_units = cp->n_units;
  }
  air_cg_module_free(m);
  release(cp);
  return st;
}

static const air_cg_hooks_t k_hooks = {
    .abi_version = AIR_CG_ABI_VERSION,
    .name = "llvm-16",
    .build = AIR_VERSION_STRING,
    .compile = compile,
    .release = release,
    .find = find,
    .stats = stats,
    .emit_object = emit_object,
    .gpu_compile = air_cg_gpu_compile_found,
};

const air_cg_hooks_t* air_cg_hooks(void) { return &k_hooks; }

/* What libairrt_codegen.so exports (and nothing else): the runtime finds the
 * generator through this name (hal/codegen_load.c). */
__attribute__((visibility("default"))) const air_cg_hooks_t* air_codegen_hooks(void);
const air_cg_hooks_t* air_codegen_hooks(void) { return &k_hooks; }

/* cpu_code.c - a CPU executable's compiled code (cpu_code.h): the generator's JIT
 * through its hook table, or an artifact's object linked by the core's loader,
 * behind one lookup by op. */
#include "hal/cpu/cpu_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/host_object.h"
#include "hal/codegen_load.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

struct air_cpu_code_t {
  air_allocator_t alloc;
  air_cg_code_t lookup;     /* self = this */
  /* JIT: the generator's program (its units and lookup). */
  const air_cg_hooks_t* hooks;
  air_cg_program_t* jit;
  /* Artifact: the linked object and units made here, sorted by op. */
  air_host_object_t* obj;
  air_cg_unit_t* units;
  uint32_t n_units;
  air_vid_t* ins;
  const air_op_t** ops;
};

static const air_cg_unit_t* find_hook(const void* self, const air_op_t* op);

air_status_t air_cpu_code_jit(const air_allocator_t* allocator, const air_program_t* program,
                              air_cpu_code_t** out, air_code_info_t* info) {
  *out = NULL;
  const air_cg_hooks_t* h = NULL;
  air_status_t st = air_cg_load(allocator, &h);
  info->source = "none";
  if (st) {
    /* Not an error: the program is interpreted. The reason is kept. */
    static const char k_none[] = "no code generator";
    info->why_none = k_none;
    info->generator = NULL;
    info->skipped = 0;
    air_status_free(st);
    return NULL;
  }
  air_cg_program_t* cp = NULL;
  AIR_RETURN_IF_ERROR(h->compile(allocator, program, &cp));
  air_cg_stats_t stats;
  h->stats(cp, &stats);
  info->generator = h->name;
  info->units = stats.n_units;
  info->skipped = stats.n_skipped;
  info->emit_ns = (uint64_t)stats.emit_ns;
  info->optimize_ns = (uint64_t)stats.opt_ns;
  info->codegen_ns = (uint64_t)stats.codegen_ns;
  if (!stats.n_units) {
    h->release(cp);
    info->why_none = stats.n_skipped ? "no loop or branch is one the generator covers"
                                     : "the program has no loop, branch or generic to compile";
    return NULL;
  }
  air_cpu_code_t* c = air_mem_calloc(allocator, 1, sizeof *c);
  if (!c) {
    h->release(cp);
    return AIR_STATUS_OOM(allocator, "compiled code");
  }
  c->alloc = *allocator;
  c->lookup = (air_cg_code_t){c, find_hook};
  c->hooks = h;
  c->jit = cp;
  info->source = "jit";
  *out = c;
  return NULL;
}

static int by_op(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const air_cg_unit_t*)a)->op, y = (uintptr_t)((const air_cg_unit_t*)b)->op;
  return x < y ? -1 : x > y;
}

/* What a unit may be: the ops the generator makes units of. */
static bool unit_kind(const air_op_t* op) {
  switch (op->kind) {
    case AIR_OP_FOR: case AIR_OP_AFFINE_FOR: case AIR_OP_IF: case AIR_OP_AFFINE_IF:
    case AIR_OP_GENERIC: case AIR_OP_HERD: /* a herd: its body */
      return true;
    default: return false;
  }
}

air_status_t air_cpu_code_link(const air_allocator_t* allocator, const air_program_t* program,
                               const air_artifact_code_t* code, air_cpu_code_t** out,
                               air_code_info_t* info) {
  *out = NULL;
  info->source = "none";
  if (!air_host_object_cpu_supports(code->isa)) {
    info->why_none = "this CPU lacks the instruction set of the artifact's host code";
    return NULL;
  }
  air_cpu_code_t* c = air_mem_calloc(allocator, 1, sizeof *c);
  if (!c) return AIR_STATUS_OOM(allocator, "compiled code");
  c->alloc = *allocator;
  c->lookup = (air_cg_code_t){c, find_hook};
  const char* name = program->filename ? program->filename : "<artifact>";
  air_status_t st = air_host_object_load(allocator, code->object, code->size, name, &c->obj);
  uint32_t n = st ? 0 : air_host_object_count(c->obj);
  if (!st && n != code->n_units)
    st = AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                    "%s: .air.code: the object has %u functions, the header says %u units", name,
                    n, code->n_units);
  if (!st && !(c->units = air_mem_calloc(allocator, n ? n : 1, sizeof(air_cg_unit_t))))
    st = AIR_STATUS_OOM(allocator, "compiled units");
  uint32_t total = 0;
  for (uint32_t i = 0; !st && i < n; ++i) {
    const char* fn = air_host_object_name(c->obj, i);
    unsigned index = 0;
    char tail = 0;
    const air_op_t* op = NULL;
    if (sscanf(fn, "air_unit_%u%c", &index, &tail) == 1)
      op = air_cg_op_at(program->module, index);
    if (!op || !unit_kind(op)) {
      st = AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                      "%s: .air.code: function '%s' names no loop, branch or generic of the "
                      "program",
                      name, fn);
      break;
    }
    air_vid_t tmp[64];
    uint32_t k = air_cg_unit_inputs(program, op, tmp, 64);
    if (k == UINT32_MAX) {
      st = AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                      "%s: .air.code: '%s' is for an op with more than 64 inputs", name, fn);
      break;
    }
    c->units[i] = (air_cg_unit_t){.op = op,
                                  .fn = (air_cg_fn_t)(uintptr_t)air_host_object_address(c->obj, i),
                                  .n_in = k,
                                  .n_out = air_cg_unit_n_out(op),
                                  .index = index,
                                  .air_ops = air_cg_unit_air_ops(op)};
    total += k;
  }
  if (!st && !(c->ins = air_mem_calloc(allocator, total ? total : 1, sizeof(air_vid_t))))
    st = AIR_STATUS_OOM(allocator, "compiled unit inputs");
  for (uint32_t i = 0, at = 0; !st && i < n; ++i) {
    air_cg_unit_inputs(program, c->units[i].op, c->ins + at, c->units[i].n_in);
    c->units[i].in = c->ins + at;
    at += c->units[i].n_in;
  }
  uint32_t total_ops = 0;
  for (uint32_t i = 0; !st && i < n; ++i) total_ops += air_cg_unit_ops(c->units[i].op, NULL);
  if (!st && !(c->ops = air_mem_calloc(allocator, total_ops ? total_ops : 1, sizeof(air_op_t*))))
    st = AIR_STATUS_OOM(allocator, "compiled unit ops");
  for (uint32_t i = 0, at = 0; !st && i < n; ++i) {
    c->units[i].ops = c->ops + at;
    c->units[i].n_ops = air_cg_unit_ops(c->units[i].op, c->ops + at);
    at += c->units[i].n_ops;
  }
  if (st) {
    air_cpu_code_free(c);
    return st;
  }
  c->n_units = n;
  qsort(c->units, n, sizeof *c->units, by_op);
  for (uint32_t i = 1; i < n; ++i)
    if (c->units[i].op == c->units[i - 1].op) {
      air_cpu_code_free(c);
      return AIR_STATUS(allocator, AIR_STATUS_DATA_LOSS,
                        "%s: .air.code: two functions for one op (air_unit_%u)", name,
                        c->units[i].index);
    }
  info->source = "artifact";
  info->units = n;
  *out = c;
  return NULL;
}

static const air_cg_unit_t* find_hook(const void* self, const air_op_t* op) {
  return air_cpu_code_find(self, op);
}

const air_cg_code_t* air_cpu_code_lookup(const air_cpu_code_t* c) { return c ? &c->lookup : NULL; }

const air_cg_unit_t* air_cpu_code_find(const air_cpu_code_t* c, const air_op_t* op) {
  if (!c) return NULL;
  if (c->jit) return c->hooks->find(c->jit, op);
  size_t lo = 0, hi = c->n_units;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->units[mid].op == op) return &c->units[mid];
    if ((uintptr_t)c->units[mid].op < (uintptr_t)op)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

void air_cpu_code_free(air_cpu_code_t* c) {
  if (!c) return;
  if (c->jit) c->hooks->release(c->jit);
  air_host_object_free(c->obj);
  air_allocator_t a = c->alloc;
  air_mem_free(&a, c->units);
  air_mem_free(&a, c->ins);
  air_mem_free(&a, (void*)c->ops);
  air_mem_free(&a, c);
}

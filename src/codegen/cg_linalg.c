/* cg_linalg.c - linalg.generic as compiled code: the elementwise and reduction
 * generics of herd code (c = a + b over a view, a row sum, a scale) become a loop
 * nest the optimiser vectorises, with the executor's semantics
 * (hal/cpu/interp/linalg.c) exactly:
 *
 *  - loops run over dims d0..dn-1 in order (reductions accumulate in order), each
 *    bounded by the size of the first operand dimension whose map result is that
 *    plain dim;
 *  - no iteration space, no checks: a zero-sized loop does nothing at all;
 *  - every map is linear (no mod/floordiv/ceildiv: those stay interpreted), so its
 *    reach is checked at the corners of the box before anything runs - out of
 *    range is AIR_CG_OOB at the generic, with no side effect - and each operand
 *    then advances by a fixed element stride per loop;
 *  - at each point every memref operand is loaded (outputs too, for
 *    reductions), the body runs, and the yields are stored to the outputs in
 *    order.
 * What the executor refuses with a message (a non-plain loop bound, a map of the
 * wrong arity, a yield of another type) is left to it: UNIMPLEMENTED here. */
#include <string.h>

#include "codegen/cg_internal.h"

enum { MAX_LOOPS = AIR_AFF_MAX_LINEAR_DIMS, MAX_OPS = 16 };

typedef struct gop_t {
  const air_affine_map_t* map;
  bool mem;
  int64_t coef[AIR_MAX_RANK][MAX_LOOPS]; /* per result k: its linear form */
  int64_t c0[AIR_MAX_RANK];
} gop_t;

/* The generic's maps, or NULL when they are not what the executor accepts. */
static const air_attr_t* maps_of(const air_program_t* p, const air_op_t* op) {
  const air_attr_t* ma = air_ir_attr_get(op, "indexing_maps");
  ma = ma ? air_ir_attr_resolve(p, ma) : NULL;
  return ma && ma->kind == AIR_ATTR_ARRAY && ma->n == op->n_operands ? ma : NULL;
}

bool cg_generic_supported(const air_program_t* p, const air_op_t* op) {
  uint32_t n = op->n_operands, n_in = op->iaux[0];
  const air_block_t* body = op->n_regions ? op->regions[0] : NULL;
  const air_attr_t* ma = maps_of(p, op);
  if (op->kind != AIR_OP_GENERIC || !ma || n > MAX_OPS || n_in > n || n == n_in || !body ||
      body->n_args != n || !body->last || body->last->kind != AIR_OP_LINALG_YIELD ||
      body->last->n_operands != n - n_in || op->n_results)
    return false;
  uint32_t nl = 0;
  bool have[MAX_LOOPS] = {0};
  for (uint32_t i = 0; i < n; ++i) {
    const air_attr_t* m = air_ir_attr_resolve(p, &ma->elems[i]);
    if (!m || m->kind != AIR_ATTR_MAP || !m->map || m->map->n_syms) return false;
    if (i == 0) nl = m->map->n_dims;
    if (m->map->n_dims != nl || nl > MAX_LOOPS) return false;
    air_vid_t v = op->operands[i];
    if (!cg_is_memref(p, v)) {
      if (i >= n_in || cg_value_elem(p, v) == AIR_ELEM_NONE) return false;
      continue;
    }
    const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
    if (t->rank > AIR_MAX_RANK || m->map->n_results != t->rank) return false;
    for (uint32_t k = 0; k < m->map->n_results; ++k) {
      const air_aff_t* x = m->map->results[k];
      int64_t coef[MAX_LOOPS], c0;
      if (!air_aff_linearize(x, nl, coef, &c0)) return false;
      if (x && x->kind == AIR_AFF_DIM && x->value >= 0 && (uint64_t)x->value < nl)
        have[x->value] = true;
    }
    /* A body arg of the element's own type (the executor loads it as that). */
    if (cg_value_elem(p, body->args[i]) != t->elem) return false;
    if (i >= n_in) {
      air_vid_t y = body->last->operands[i - n_in];
      if (cg_value_elem(p, y) != t->elem) return false;
    }
  }
  for (uint32_t d = 0; d < nl; ++d)
    if (!have[d]) return false;
  for (const air_op_t* o = body->first; o != body->last; o = o->next)
    if (!cg_scalar_supported(p, o)) return false;
  return true;
}

static LLVMTypeRef mem_type(cg_fn_t* f, uint32_t el) {
  return el == AIR_ELEM_BF16 ? f->m->i16
         : el == AIR_ELEM_F16 ? f->m->f16
         : el == AIR_ELEM_I1  ? f->m->i8
                              : cg_elem_type(f->m, el);
}

/* Loop nest state: one counted loop per dim, each operand's element offset
 * carried as the loop's induction arithmetic (offset = base + sum iv_d * step). */
typedef struct nest_t {
  LLVMValueRef bound[MAX_LOOPS];
  LLVMBasicBlockRef header[MAX_LOOPS], latch_from[MAX_LOOPS], exit[MAX_LOOPS];
  LLVMValueRef iv[MAX_LOOPS];
} nest_t;

void cg_emit_generic(cg_fn_t* f, const air_op_t* op) {
  const air_program_t* p = f->p;
  air_cg_module_t* m = f->m;
  LLVMBuilderRef B = f->b;
  uint32_t n = op->n_operands, n_in = op->iaux[0], my_index = f->op_index;
  const air_block_t* body = op->regions[0];
  const air_attr_t* ma = maps_of(p, op);
  gop_t g[MAX_OPS];
  cg_mem_t* mm[MAX_OPS];
  memset(g, 0, sizeof g);
  uint32_t nl = 0;
  LLVMValueRef bound[MAX_LOOPS] = {0};
  for (uint32_t i = 0; i < n; ++i) {
    g[i].map = air_ir_attr_resolve(p, &ma->elems[i])->map;
    if (i == 0) nl = g[i].map->n_dims;
    g[i].mem = cg_is_memref(p, op->operands[i]);
    mm[i] = g[i].mem ? cg_mem_of(f, op->operands[i]) : NULL;
    if (g[i].mem && !mm[i]) {
      cg_unsupported(f, op, "a memref not passed into the unit");
      return;
    }
    if (!g[i].mem) continue;
    for (uint32_t k = 0; k < g[i].map->n_results; ++k) {
      const air_aff_t* x = g[i].map->results[k];
      air_aff_linearize(x, nl, g[i].coef[k], &g[i].c0[k]);
      if (x->kind == AIR_AFF_DIM && !bound[x->value]) bound[x->value] = mm[i]->sizes[k];
    }
  }
  /* No iteration space: nothing at all (the executor returns before checking). */
  LLVMValueRef empty = LLVMConstInt(m->i1, 0, 0);
  for (uint32_t d = 0; d < nl; ++d)
    empty = LLVMBuildOr(B, empty, LLVMBuildICmp(B, LLVMIntEQ, bound[d], cg_ci64(f, 0), ""), "");
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "generic");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "generic.done");
  LLVMBuildCondBr(B, empty, done, run);
  LLVMPositionBuilderAtEnd(B, run);

  /* Corner checks and per-loop element strides, in wrapping arithmetic as the
   * executor computes them. */
  LLVMValueRef base[MAX_OPS], dstep[MAX_OPS][MAX_LOOPS];
  LLVMValueRef bad = LLVMConstInt(m->i1, 0, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (!g[i].mem) continue;
    base[i] = mm[i]->offset;
    for (uint32_t d = 0; d < nl; ++d) dstep[i][d] = cg_ci64(f, 0);
    for (uint32_t k = 0; k < g[i].map->n_results; ++k) {
      LLVMValueRef lo = cg_ci64(f, g[i].c0[k]), hi = lo;
      for (uint32_t d = 0; d < nl; ++d) {
        int64_t c = g[i].coef[k][d];
        if (!c) continue;
        LLVMValueRef ext = LLVMBuildMul(B, cg_ci64(f, c),
                                        LLVMBuildSub(B, bound[d], cg_ci64(f, 1), ""), "");
        LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, ext, cg_ci64(f, 0), "");
        lo = LLVMBuildAdd(B, lo, LLVMBuildSelect(B, neg, ext, cg_ci64(f, 0), ""), "");
        hi = LLVMBuildAdd(B, hi, LLVMBuildSelect(B, neg, cg_ci64(f, 0), ext, ""), "");
        dstep[i][d] = LLVMBuildAdd(
            B, dstep[i][d], LLVMBuildMul(B, cg_ci64(f, c), mm[i]->strides[k], ""), "");
      }
      bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntSLT, lo, cg_ci64(f, 0), ""), "");
      bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntSGE, hi, mm[i]->sizes[k], ""), "");
      base[i] = LLVMBuildAdd(B, base[i],
                             LLVMBuildMul(B, cg_ci64(f, g[i].c0[k]), mm[i]->strides[k], ""), "");
    }
    bad = LLVMBuildOr(B, bad,
                      LLVMBuildICmp(B, LLVMIntEQ, mm[i]->data,
                                    LLVMConstPointerNull(LLVMTypeOf(mm[i]->data)), ""),
                      "");
  }
  f->op_index = my_index;
  cg_fail_if(f, bad, AIR_CG_OOB);

  /* The nest: iv_d from 0 to bound[d]. */
  nest_t ns;
  memset(&ns, 0, sizeof ns);
  LLVMBasicBlockRef pre[MAX_LOOPS];
  for (uint32_t d = 0; d < nl; ++d) {
    pre[d] = LLVMGetInsertBlock(B);
    ns.header[d] = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "g.loop");
    ns.exit[d] = LLVMAppendBasicBlockInContext(m->ctx, f->fn, "g.exit");
    LLVMBuildBr(B, ns.header[d]);
    LLVMPositionBuilderAtEnd(B, ns.header[d]);
    ns.iv[d] = LLVMBuildPhi(B, m->i64, "g.iv");
  }
  /* Addresses and loads. */
  for (uint32_t i = 0; i < n; ++i) {
    air_vid_t arg = body->args[i];
    if (!g[i].mem) {
      cg_set(f, arg, cg_val(f, op->operands[i]));
      continue;
    }
    LLVMValueRef off = base[i];
    for (uint32_t d = 0; d < nl; ++d)
      off = LLVMBuildAdd(B, off, LLVMBuildMul(B, ns.iv[d], dstep[i][d], ""), "");
    LLVMValueRef addr = LLVMBuildGEP2(B, mem_type(f, mm[i]->elem), mm[i]->data, &off, 1, "");
    base[i] = addr; /* reused below as this point's address */
    cg_set(f, arg, cg_load_elem(f, mm[i]->elem, addr));
  }
  f->op_index = my_index + 1;
  const air_op_t* yield = f->emit_block(f, body);
  if (f->st) return;
  if (!yield) {
    cg_unsupported(f, op, "a body without linalg.yield");
    return;
  }
  for (uint32_t j = 0; j < n - n_in; ++j)
    cg_store_elem(f, mm[n_in + j]->elem, base[n_in + j], cg_val(f, yield->operands[j]));
  /* Close the loops innermost first. */
  for (uint32_t d = nl; d-- > 0;) {
    LLVMValueRef next = LLVMBuildNUWAdd(B, ns.iv[d], cg_ci64(f, 1), "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(B);
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, next, bound[d], ""), ns.header[d], ns.exit[d]);
    LLVMValueRef zero = cg_ci64(f, 0);
    LLVMAddIncoming(ns.iv[d], &zero, &pre[d], 1);
    LLVMAddIncoming(ns.iv[d], &next, &from, 1);
    LLVMPositionBuilderAtEnd(B, ns.exit[d]);
  }
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
}

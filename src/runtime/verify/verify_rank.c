/* verify_rank.c - the rules of scale-out: air.rank and its universe, symmetric
 * allocations ([rank]) and cross-rank data movement ([rank]). Rule ids are
 * documented in verify.c; the model is in docs/scale-out.md.
 *
 * A rank is what a separate process would be: the verifier checks what must hold
 * in every rank alike for the program to mean the same text under mpirun. A
 * symmetric allocation is collective (every rank makes it, in the same order and
 * size, as MPI_Win_allocate is), so it sits at rank level, outside branches and
 * outside loops whose trip count differs per rank, and its sizes must not depend
 * on the rank id. Peers address symmetric memrefs only, and a constant peer must
 * be inside the rank space. */
#include <stdio.h>
#include <string.h>

#include "runtime/verify/verify_rank.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)
#define MAX_TRACE 64

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

/* Number of ranks of air.rank `r` (product of constant sizes), or -1. */
static int64_t rank_space(const air_vctx_t* v, uint32_t r) {
  const air_op_t* op = v->ops[r].op;
  int64_t n = 1, c;
  for (uint32_t k = 0; k < op->iaux[0] && k < op->n_operands; ++k)
    if (!air_v_const(v, op->operands[k], &c) || c < 1 || __builtin_mul_overflow(n, c, &n))
      return -1;
  return n;
}

static bool is_symmetric_alloc(const air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  return op->kind == AIR_OP_ALLOC && air_ir_attr_get(op, "air.symmetric");
}

/* The op that allocated memref `vid`, through kernel arguments of hierarchy ops,
 * views and air.execute results; NONE when it is not an op (a function
 * argument) or cannot be followed. */
static uint32_t memref_root(const air_vctx_t* v, air_vid_t vid) {
  for (int steps = 0; steps < MAX_TRACE && air_v_valid(v, vid); ++steps) {
    const air_vval_t* vv = &v->vals[vid];
    if (vv->owner == AIR_V_NONE || v->ops[vv->owner].bad) return AIR_V_NONE;
    const air_op_t* o = v->ops[vv->owner].op;
    uint32_t i = vv->index, n = o->iaux[0];
    if (vv->is_arg) {
      if (!air_v_is_hier(o->kind) || i < 2 * n || i - 2 * n >= air_ir_hier_nargs(o))
        return AIR_V_NONE;
      vid = o->operands[n + i - 2 * n];
      continue;
    }
    switch (air_opkind_class(o->kind)) {
      case AIR_OPC_ALLOC: return vv->owner;
      case AIR_OPC_SUBVIEW:
      case AIR_OPC_RESHAPE:
        if (!o->n_operands) return AIR_V_NONE;
        vid = o->operands[0];
        break;
      case AIR_OPC_EXECUTE: {
        const air_op_t* t = o->n_regions && o->regions[0] ? o->regions[0]->last : NULL;
        if (i < 1 || !t || t->kind != AIR_OP_EXECUTE_TERM || i - 1 >= t->n_operands)
          return AIR_V_NONE;
        vid = t->operands[i - 1];
        break;
      }
      default: return AIR_V_NONE;
    }
  }
  return AIR_V_NONE;
}

/* True when `vid` may differ between the ranks of air.rank `r`: it is computed
 * from a rank id, or from something the verifier cannot see to be uniform
 * (memory, calls, loop-carried values). Constants, sizes and values passed in
 * from outside the rank are the same in every rank. */
static bool varies(const air_vctx_t* v, air_vid_t vid, uint32_t r, int depth) {
  if (!air_v_valid(v, vid)) return false;
  if (depth > MAX_TRACE) return true;
  const air_vval_t* vv = &v->vals[vid];
  if (vv->owner == AIR_V_NONE) return false;
  const air_op_t* o = v->ops[vv->owner].op;
  uint32_t i = vv->index;
  if (vv->is_arg) {
    if (air_v_is_hier(o->kind)) {
      uint32_t n = o->iaux[0];
      if (vv->owner == r) return i < n;
      if (i < n) return true; /* ids of a launch/segment/herd */
      uint32_t k = i < 2 * n ? i - n : n + i - 2 * n;
      return k < o->n_operands && varies(v, o->operands[k], r, depth + 1);
    }
    if (o->kind == AIR_OP_FOR && i == 0) {
      for (uint32_t k = 0; k < 3 && k < o->n_operands; ++k)
        if (varies(v, o->operands[k], r, depth + 1)) return true;
      return false;
    }
    if (o->kind == AIR_OP_AFFINE_FOR && i == 0 && o->n_lists) {
      for (uint32_t k = 0; k < o->lists[0].n; ++k)
        if (varies(v, o->lists[0].items[k].value, r, depth + 1)) return true;
      return false;
    }
    return o->kind != AIR_OP_FUNC;
  }
  switch (air_opkind_class(o->kind)) {
    case AIR_OPC_CONSTANT: return false;
    case AIR_OPC_BINARY:
    case AIR_OPC_UNARY:
    case AIR_OPC_CAST:
    case AIR_OPC_CMP:
    case AIR_OPC_SELECT:
    case AIR_OPC_AFFINE_APPLY:
      for (uint32_t k = 0; k < o->n_operands; ++k)
        if (varies(v, o->operands[k], r, depth + 1)) return true;
      return false;
    case AIR_OPC_EXECUTE: {
      const air_op_t* t = o->n_regions && o->regions[0] ? o->regions[0]->last : NULL;
      if (i == 0) return false; /* the token */
      return !t || i - 1 >= t->n_operands || varies(v, t->operands[i - 1], r, depth + 1);
    }
    default: return true;
  }
}

static const char* loc(const air_vctx_t* v, uint32_t id, char* buf, size_t n) {
  const air_op_t* o = v->ops[id].op;
  snprintf(buf, n, "the %s at %u:%u", air_v_opname(o), o->line, o->col);
  return buf;
}

/*---------------------------------------------------------------------------*/
/* air.rank and air.universe.alloc                                           */
/*---------------------------------------------------------------------------*/

void air_v_check_rank(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  char lb[96], nb[64];
  uint32_t h = v->ops[id].hier;
  if (h != AIR_V_NONE)
    ERR(id, "nesting",
        "air.rank is the outermost level (a rank holds launches, as a process would); it "
        "cannot be nested inside %s",
        loc(v, h, lb, sizeof lb));
  if (op->iaux[0] == 0)
    ERR(id, "structure", "air.rank needs a rank space: air.rank (%%r) in (%%n = %%c) ...");
  if (v->target == AIR_VT_AIE)
    ERR(id, "rank",
        "target %s runs no ranks: the NPU backend interprets neither air.rank nor symmetric "
        "memrefs and cross-rank DMA (spec 2.4, 2.7); run it on cpu (in process or under "
        "mpirun)",
        air_v_target_name(v));
  uint32_t n = op->iaux[0], na = air_ir_hier_nargs(op);
  for (uint32_t i = n; i < n + na && i < op->n_operands; ++i) {
    const air_type_info_t* t = air_v_type(v, op->operands[i]);
    if (t->kind == AIR_TYPE_MEMREF && t->memspace != AIR_MEM_L3)
      ERR(id, "memory-space",
          "kernel argument %s of air.rank is in %s (space %d); each rank gets its own copy of "
          "L3 memrefs, and L2/L1 buffers are allocated inside its segments and herds",
          air_v_vname(v, op->operands[i], nb, sizeof nb), air_v_space_name(t->memspace),
          (int)t->memspace);
  }
  air_vid_t u = air_ir_rank_universe(op);
  if (!u) return;
  air_v_want(v, id, u, "!air.universe", air_v_type(v, u)->kind == AIR_TYPE_UNIVERSE, "%s",
             "the universe");
  if (!air_v_valid(v, u) || v->vals[u].is_arg || v->vals[u].owner == AIR_V_NONE) return;
  const air_op_t* uo = v->ops[v->vals[u].owner].op;
  int64_t size, space = rank_space(v, id);
  if (uo->kind == AIR_OP_UNIVERSE_ALLOC && uo->n_operands == 1 &&
      air_v_const(v, uo->operands[0], &size) && space > 0 && size != space)
    ERR(id, "rank",
        "the rank space of air.rank has %lld rank%s but its universe %s (%u:%u) holds %lld; "
        "give the air.rank as many ranks as the universe",
        (long long)space, space == 1 ? "" : "s", air_v_vname(v, u, nb, sizeof nb), uo->line,
        uo->col, (long long)size);
}

void air_v_check_universe(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  char lb[96];
  if (op->n_operands != 1 || op->n_results != 1 || op->n_regions) {
    ERR(id, "structure",
        "air.universe.alloc takes one index operand and returns one !air.universe");
    v->ops[id].bad = 1;
    return;
  }
  air_v_want_index(v, id, op->operands[0], "the number of ranks");
  air_v_want(v, id, op->results[0], "!air.universe",
             air_v_type(v, op->results[0])->kind == AIR_TYPE_UNIVERSE, "%s", "the result");
  int64_t n;
  if (air_v_const(v, op->operands[0], &n) && n < 1)
    ERR(id, "rank", "air.universe.alloc of %lld ranks; a universe holds at least one rank",
        (long long)n);
  uint32_t h = v->ops[id].hier;
  if (h != AIR_V_NONE)
    ERR(id, "nesting",
        "air.universe.alloc makes the ranks an air.rank runs on and belongs outside it, at "
        "host level; this one is inside %s",
        loc(v, h, lb, sizeof lb));
}

/*---------------------------------------------------------------------------*/
/* Symmetric allocations                                                     */
/*---------------------------------------------------------------------------*/

void air_v_check_symmetric(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  bool alloc = op->kind == AIR_OP_ALLOC;
  if (alloc ? !air_ir_attr_get(op, "air.symmetric")
            : !op->n_operands || memref_root(v, op->operands[0]) == AIR_V_NONE ||
                  !is_symmetric_alloc(v, memref_root(v, op->operands[0])))
    return;
  const char* what = alloc ? "memref.alloc {air.symmetric}" : "memref.dealloc of a symmetric memref";
  const char* act = alloc ? "made" : "freed";
  char lb[96], nb[64];
  uint32_t r = air_v_rank_of(v, id);
  if (r == AIR_V_NONE) {
    ERR(id, "rank",
        "%s: a symmetric memref is %s by every rank of an air.rank together; this one is "
        "outside any air.rank, so move it into the rank body",
        what, act);
    return;
  }
  if (v->ops[id].hier != r) {
    ERR(id, "rank",
        "%s must be at rank level (in the air.rank body, where every rank runs it); this one "
        "is inside %s",
        what, loc(v, v->ops[id].hier, lb, sizeof lb));
    return;
  }
  if (alloc && op->n_results == 1) {
    const air_type_info_t* t = air_v_type(v, op->results[0]);
    if (t->kind == AIR_TYPE_MEMREF && t->memspace != AIR_MEM_L3)
      ERR(id, "rank",
          "a symmetric memref lives on the symmetric heap in L3 memory; this one is in %s "
          "(space %d)",
          air_v_space_name(t->memspace), (int)t->memspace);
  }
  /* Lockstep: every rank reaches the op equally often and in the same order. */
  for (uint32_t p = v->ops[id].parent; p != r && p != AIR_V_NONE; p = v->ops[p].parent) {
    const air_op_t* po = v->ops[p].op;
    bool bad_bounds = false;
    if (po->kind == AIR_OP_FOR) {
      for (uint32_t k = 0; k < 3 && k < po->n_operands; ++k)
        bad_bounds = bad_bounds || varies(v, po->operands[k], r, 0);
    } else if (po->kind == AIR_OP_AFFINE_FOR && po->n_lists) {
      for (uint32_t k = 0; k < po->lists[0].n; ++k)
        bad_bounds = bad_bounds || varies(v, po->lists[0].items[k].value, r, 0);
    } else if (po->kind != AIR_OP_EXECUTE) {
      ERR(id, "rank",
          "%s is inside %s, which the ranks need not all run alike; every rank must have its "
          "symmetric memrefs %s in the same order, so move it to the rank body",
          what, loc(v, p, lb, sizeof lb), act);
      return;
    }
    if (bad_bounds) {
      ERR(id, "rank",
          "%s is inside %s, whose bounds depend on the rank id, so ranks would run it a "
          "different number of times; every rank must have its symmetric memrefs %s alike",
          what, loc(v, p, lb, sizeof lb), act);
      return;
    }
  }
  for (uint32_t k = 0; alloc && k < op->n_operands; ++k)
    if (varies(v, op->operands[k], r, 0))
      ERR(id, "rank",
          "dynamic size %s of a symmetric memref may differ between ranks (it depends on the "
          "rank id or on data); every rank's copy must have the same size",
          air_v_vname(v, op->operands[k], nb, sizeof nb));
}

/*---------------------------------------------------------------------------*/
/* Cross-rank data movement                                                  */
/*---------------------------------------------------------------------------*/

void air_v_check_rank_dma(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  char lb[96], nb[64];
  for (int w = 0; w < 2; ++w) {
    const char* name = w ? "dst_rank" : "src_rank";
    const char* side = w ? "destination" : "source";
    const air_attr_t* at = air_ir_attr_get(op, name);
    air_vid_t rv = air_ir_dma_rank(op, w == 1);
    if (!at && !rv) continue;
    uint32_t r = air_v_rank_of(v, id);
    if (at && rv)
      ERR(id, "rank", "%s is given twice, as an attribute and as an operand; keep one", name);
    if (r == AIR_V_NONE) {
      ERR(id, "rank",
          "%s names a peer rank, which needs an enclosing air.rank (whose rank space it "
          "indexes)",
          name);
      continue;
    }
    int64_t k = 0;
    bool known = false;
    if (at) {
      const air_attr_t* a = air_ir_attr_resolve(v->p, at);
      if (!a || a->kind != AIR_ATTR_INT)
        ERR(id, "rank", "%s must be an integer attribute (e.g. %s = 0 : i64)", name, name);
      else
        k = a->i, known = true;
    } else {
      air_v_want_index(v, id, rv, "%s", name);
      known = air_v_const(v, rv, &k);
    }
    int64_t space = rank_space(v, r);
    if (known && (k < 0 || (space > 0 && k >= space)))
      ERR(id, "rank", "%s is %lld, outside the rank space [0, %lld) of %s", name, (long long)k,
          (long long)space, loc(v, r, lb, sizeof lb));
    air_vid_t m = op->operands[w ? 0 : 1];
    uint32_t root = memref_root(v, m);
    if (root == AIR_V_NONE || !is_symmetric_alloc(v, root))
      ERR(id, "rank",
          "%s makes the %s %s a peer's memref, but it is not an air.symmetric allocation; peers "
          "address only memrefs from memref.alloc() {air.symmetric} in the air.rank body",
          name, side, air_v_vname(v, m, nb, sizeof nb));
  }
}

void air_v_check_rank_chan(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  uint32_t c = v->ops[id].chan;
  if (c == AIR_V_NONE || c >= v->n_chans || v->chans[c].type != AIR_VCH_SYMHEAP) return;
  if (air_v_rank_of(v, id) == AIR_V_NONE)
    ERR(id, "rank",
        "%s uses the gpu_symmetric_heap channel @%s, which carries messages between ranks and "
        "needs an enclosing air.rank",
        air_v_opname(op), op->sym ? op->sym : "?");
}

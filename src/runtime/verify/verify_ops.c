/* verify_ops.c - rules one op breaks on its own or with its ancestors: shape and
 * types ([structure]), placement ([nesting], [execute-region]), token lists and
 * results ([token-list], [async-result], [launch-concurrency]), symbols and
 * target limits; data movement and memory are in verify_data.c. Rule ids are
 * documented in verify.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/verify/verify_ctrl.h"
#include "runtime/verify/verify_data.h"
#include "runtime/verify/verify_mem.h"
#include "runtime/verify/verify_passes.h"
#include "runtime/verify/verify_rank.h"
#include "runtime/verify/verify_util.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/*---------------------------------------------------------------------------*/
/* Per-class checks                                                          */
/*---------------------------------------------------------------------------*/

static void check_hier(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  uint32_t n = op->iaux[0];
  if (n > op->n_operands) {
    ERR(id, "structure", "%s declares %u dimensions but has only %u operands", on, n,
        op->n_operands);
    v->ops[id].bad = 1;
    return;
  }
  uint32_t nargs = air_ir_hier_nargs(op);
  /* A bodiless op (a launch naming its symbol, or what fusion passes leave) is
   * legal text; running one is not (the CPU driver says so at the op). */
  if (op->kind == AIR_OP_RANK ? op->n_regions != 1 : op->n_regions > 1) {
    ERR(id, "structure", "%s must have %s one body region (found %u)", on,
        op->kind == AIR_OP_RANK ? "exactly" : "at most", op->n_regions);
    v->ops[id].bad = 1;
    return;
  }
  if (op->kind == AIR_OP_LAUNCH && op->n_regions == 0 && !op->sym)
    ERR(id, "structure", "air.launch without a body must name a symbol (air.launch @name ...)");
  if (op->kind == AIR_OP_HERD && n > 2)
    ERR(id, "structure", "air.herd is a 1D or 2D array of PEs; this one has %u dimensions", n);
  int64_t pes = 1;
  bool pes_static = true;
  for (uint32_t k = 0; k < n; ++k) {
    air_v_want_index(v, id, op->operands[k], "size #%u", k);
    int64_t c;
    if (!air_v_const(v, op->operands[k], &c)) {
      pes_static = false;
      continue;
    }
    if (c < 1)
      ERR(id, "structure", "size #%u of %s is %lld; iteration space sizes must be >= 1", k, on,
          (long long)c);
    if (__builtin_mul_overflow(pes, c, &pes)) pes_static = false;
  }
  if (op->n_regions == 1) {
    air_block_t* b = op->regions[0];
    if (b->n_args != 2 * n + nargs) {
      ERR(id, "structure",
          "the body of %s has %u block arguments; expected %u (%u ids, %u sizes, %u args)", on,
          b->n_args, 2 * n + nargs, n, n, nargs);
      v->ops[id].bad = 1;
    } else {
      for (uint32_t k = 0; k < 2 * n; ++k)
        air_v_want_index(v, id, b->args[k], "block argument #%u (%s)", k, k < n ? "id" : "size");
      air_v_match_args(v, id, b, 2 * n, nargs, nargs ? op->operands + n : NULL, NULL, "kernel argument");
    }
    air_opkind_t tk = op->kind == AIR_OP_LAUNCH    ? AIR_OP_LAUNCH_TERM
                      : op->kind == AIR_OP_SEGMENT ? AIR_OP_SEGMENT_TERM
                      : op->kind == AIR_OP_RANK    ? AIR_OP_RANK_TERM
                                                   : AIR_OP_HERD_TERM;
    const air_op_t* t = air_v_want_term(v, id, 0, tk);
    if (t && t->n_operands) ERR(id, "structure", "%s takes no operands", air_v_opname(t));
  }
  air_v_check_async(v, id);

  /* Nesting (spec 2.1-2.3). */
  uint32_t h = v->ops[id].hier;
  const air_op_t* ho = h != AIR_V_NONE ? v->ops[h].op : NULL;
  if (op->kind == AIR_OP_RANK) {
    air_v_check_rank(v, id); /* verify_rank.c: nesting, universe, tokens */
  } else if (op->kind == AIR_OP_LAUNCH && ho && ho->kind != AIR_OP_RANK) {
    ERR(id, "nesting",
        "air.launch is the outermost level and cannot be nested inside the %s at %u:%u; move "
        "it to function or module level",
        air_v_opname(ho), ho->line, ho->col);
  } else if (op->kind == AIR_OP_SEGMENT && (!ho || ho->kind == AIR_OP_HERD ||
                                              ho->kind == AIR_OP_RANK)) {
    if (!ho || ho->kind == AIR_OP_RANK)
      ERR(id, "nesting",
          "air.segment must be nested inside an air.launch (or another air.segment)");
    else
      ERR(id, "nesting",
          "air.segment cannot be nested inside the air.herd at %u:%u; herds are the innermost "
          "level",
          ho->line, ho->col);
  } else if (op->kind == AIR_OP_HERD && (!ho || ho->kind != AIR_OP_SEGMENT)) {
    if (ho && ho->kind == AIR_OP_HERD)
      ERR(id, "nesting", "air.herd cannot contain another air.herd (the enclosing one is at %u:%u)",
          ho->line, ho->col);
    else
      ERR(id, "nesting", "air.herd must be nested inside an air.segment%s",
          ho ? "; wrap it in an air.segment inside the launch" : "");
  }

  if (op->kind == AIR_OP_LAUNCH) {
    if (op->toks[AIR_TOK_CONC].n)
      ERR(id, "launch-concurrency",
          "air.launch cannot carry a concurrency list: its instances are may-be-parallel; put "
          "concurrency tokens on the segments inside it");
    for (uint32_t i = n; i < op->n_operands; ++i) {
      const air_type_info_t* t = air_v_type(v, op->operands[i]);
      if (t->kind == AIR_TYPE_MEMREF && t->memspace != AIR_MEM_L3) {
        char nb[64];
        ERR(id, "memory-space",
            "kernel argument %s of air.launch is in %s (space %d); a launch takes L3 memrefs, "
            "L2/L1 buffers are allocated inside its segments and herds",
            air_v_vname(v, op->operands[i], nb, sizeof nb), air_v_space_name(t->memspace),
            (int)t->memspace);
      }
    }
  }
  uint32_t max_pes = v->target_row ? v->target_row->max_herd_pes : 0;
  if (op->kind == AIR_OP_HERD && v->target == AIR_VT_GPU && max_pes && pes_static &&
      pes > max_pes)
    ERR(id, "target-limit",
        "air.herd has %lld PEs but a %s herd runs on one CU with at most %u wavefront "
        "slots; split it or move work to the enclosing segment's iteration space",
        (long long)pes, air_v_target_name(v), max_pes);
}

static void check_func(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t nin = op->iaux[0];
  if (!op->sym || nin > op->n_types || (op->n_types && !op->types) || op->n_regions > 1) {
    ERR(id, "structure", "func.func needs a name, a signature and at most one body");
    v->ops[id].bad = 1;
    return;
  }
  if (op->n_regions == 1) {
    const air_block_t* b = op->regions[0];
    if (b->n_args != nin) {
      ERR(id, "structure",
          "the body of func.func @%s has %u arguments but its signature has %u inputs", op->sym,
          b->n_args, nin);
      v->ops[id].bad = 1;
      return;
    }
    air_v_match_args(v, id, b, 0, nin, NULL, op->types, "input");
    const air_op_t* t = air_v_want_term(v, id, 0, AIR_OP_RETURN);
    if (t)
      air_v_match_yield(v, id, t, op->n_types - nin, NULL, op->n_types > nin ? op->types + nin : NULL,
                  "structure", "returns");
  }
  if (v->ops[v->ops[id].parent].op->kind != AIR_OP_MODULE)
    ERR(id, "nesting", "func.func @%s must be at module level", op->sym);
}

static void check_call(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  if (!op->sym) {
    ERR(id, "structure", "func.call needs a callee");
    v->ops[id].bad = 1;
    return;
  }
  uint32_t f = air_v_symbol(v, id, op->sym);
  const air_op_t* fo = f != AIR_V_NONE ? v->ops[f].op : NULL;
  if (!fo || fo->kind != AIR_OP_FUNC || v->ops[f].bad) {
    ERR(id, "symbol",
        "func.call names @%s, which is not a declared function; declare it (func.func private "
        "@%s(...))",
        op->sym, op->sym);
    return;
  }
  uint32_t nin = fo->iaux[0], nres = fo->n_types - nin;
  if (op->n_operands != nin || op->n_results != nres) {
    ERR(id, "symbol",
        "func.call @%s passes %u arguments and expects %u results, but @%s takes %u and returns %u",
        op->sym, op->n_operands, op->n_results, op->sym, nin, nres);
    return;
  }
  for (uint32_t i = 0; i < nin + nres; ++i) {
    air_vid_t vid = i < nin ? op->operands[i] : op->results[i - nin];
    if (!air_v_valid(v, vid) || air_v_same_type(v, air_v_vtype(v, vid), fo->types[i])) continue;
    char a[96], b[96];
    ERR(id, "symbol", "%s #%u of func.call @%s has type %s but the function declares %s",
        i < nin ? "argument" : "result", i < nin ? i : i - nin, op->sym,
        air_v_tname(v, air_v_vtype(v, vid), a, sizeof a),
        air_v_tname(v, fo->types[i], b, sizeof b));
  }
}

static void check_terminator(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  uint32_t par = v->ops[id].parent;
  air_opkind_t pk = par != AIR_V_NONE ? v->ops[par].op->kind : AIR_OP_MODULE;
  bool ok;
  switch (op->kind) {
    case AIR_OP_RETURN: ok = pk == AIR_OP_FUNC; break;
    case AIR_OP_LAUNCH_TERM: ok = pk == AIR_OP_LAUNCH; break;
    case AIR_OP_SEGMENT_TERM: ok = pk == AIR_OP_SEGMENT; break;
    case AIR_OP_HERD_TERM: ok = pk == AIR_OP_HERD; break;
    case AIR_OP_RANK_TERM: ok = pk == AIR_OP_RANK; break;
    case AIR_OP_EXECUTE_TERM: ok = pk == AIR_OP_EXECUTE; break;
    case AIR_OP_REDUCE_RETURN: ok = pk == AIR_OP_REDUCE; break;
    case AIR_OP_YIELD:
      ok = pk == AIR_OP_FOR || pk == AIR_OP_IF || pk == AIR_OP_PARALLEL || pk == AIR_OP_INDEX_SWITCH;
      break;
    case AIR_OP_AFFINE_YIELD: ok = pk == AIR_OP_AFFINE_FOR || pk == AIR_OP_AFFINE_IF; break;
    case AIR_OP_LINALG_YIELD: ok = pk == AIR_OP_GENERIC; break;
    default: ok = true; break;
  }
  if (!ok)
    ERR(id, "structure", "%s cannot terminate a region of %s", air_v_opname(op),
        par != AIR_V_NONE ? air_v_opname(v->ops[par].op) : "the module");
  else if (op->next)
    ERR(id, "structure", "%s must be the last op of its block", air_v_opname(op));
}

/* Shape checks of the simple classes: counts, then types. */
static void check_simple(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  air_opcls_t cls = air_opkind_class(op->kind);
  static const struct {
    int8_t ops, res; /* -1: variable */
  } k_shape[] = {
      [AIR_OPC_CONSTANT] = {0, 1},      [AIR_OPC_BINARY] = {2, 1},
      [AIR_OPC_UNARY] = {1, 1},         [AIR_OPC_CMP] = {2, 1},
      [AIR_OPC_SELECT] = {3, 1},        [AIR_OPC_CAST] = {1, 1},
      [AIR_OPC_ALLOC] = {-1, 1},        [AIR_OPC_DEALLOC] = {1, 0},
      [AIR_OPC_LOAD] = {-1, 1},         [AIR_OPC_STORE] = {-1, 0},
      [AIR_OPC_COPY] = {2, 0},          [AIR_OPC_SUBVIEW] = {1, 1},
      [AIR_OPC_TOKEN_ALLOC] = {0, 1},   [AIR_OPC_WAIT_ALL] = {0, -1},
      [AIR_OPC_AFFINE_APPLY] = {-1, 1}, [AIR_OPC_RESHAPE] = {1, 1},
      [AIR_OPC_UNIVERSE] = {1, 1},      [AIR_OPC_TERNARY] = {3, 1},
  };
  if ((unsigned)cls >= sizeof k_shape / sizeof k_shape[0]) return;
  int want_ops = k_shape[cls].ops, want_res = k_shape[cls].res;
  if ((want_ops >= 0 && op->n_operands != (uint32_t)want_ops) ||
      (want_res >= 0 && op->n_results != (uint32_t)want_res) ||
      (cls == AIR_OPC_LOAD && op->n_operands < 1) || (cls == AIR_OPC_STORE && op->n_operands < 2) ||
      (cls == AIR_OPC_SUBVIEW && (op->n_lists < 3 || !op->lists)) ||
      (cls == AIR_OPC_RESHAPE && op->kind != AIR_OP_MEMREF_CAST &&
       (op->n_lists < 2 || !op->lists))) {
    ERR(id, "structure", "%s has %u operands and %u results, which its form does not allow", on,
        op->n_operands, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  air_vid_t r = op->n_results ? op->results[0] : 0;
  const air_type_info_t* rt = air_v_type(v, r);
  char a[96], b[96];
  switch (cls) {
    case AIR_OPC_CONSTANT: {
      const air_attr_t* at = air_ir_attr_resolve(v->p, &op->value);
      bool ok =
          at && (((at->kind == AIR_ATTR_INT || at->kind == AIR_ATTR_BOOL) && air_v_is_int_like(rt)) ||
                 (at->kind == AIR_ATTR_FLOAT && air_v_is_float(rt)));
      if (!ok && air_v_valid(v, r))
        ERR(id, "structure", "arith.constant's value does not fit its type %s",
            air_v_tname(v, air_v_vtype(v, r), a, sizeof a));
      break;
    }
    case AIR_OPC_BINARY:
    case AIR_OPC_UNARY:
    case AIR_OPC_TERNARY: {
      bool fl = air_opkind_domain(op->kind) == AIR_DOMAIN_FLOAT;
      for (uint32_t i = 0; i < op->n_operands; ++i) {
        air_vid_t x = op->operands[i];
        if (!air_v_valid(v, x) || !air_v_valid(v, r)) continue;
        if (!air_v_same_type(v, air_v_vtype(v, x), air_v_vtype(v, r)))
          ERR(id, "structure", "operand #%u of %s has type %s but the result is %s", i, on,
              air_v_tname(v, air_v_vtype(v, x), a, sizeof a),
              air_v_tname(v, air_v_vtype(v, r), b, sizeof b));
      }
      if (air_v_valid(v, r) && (fl ? !air_v_is_float(rt) : !air_v_is_int_like(rt)))
        ERR(id, "structure", "%s works on %s types, not %s", on, fl ? "float" : "integer or index",
            air_v_tname(v, air_v_vtype(v, r), a, sizeof a));
      break;
    }
    case AIR_OPC_CMP: {
      air_vid_t x = op->operands[0], y = op->operands[1];
      bool fl = op->kind == AIR_OP_CMPF;
      if (op->iaux[0] >= (fl ? (uint32_t)AIR_CMPF_COUNT_ : (uint32_t)AIR_CMPI_COUNT_))
        ERR(id, "structure", "%s has an unknown predicate %u", on, op->iaux[0]);
      if (air_v_valid(v, x) && air_v_valid(v, y) &&
          !air_v_same_type(v, air_v_vtype(v, x), air_v_vtype(v, y)))
        ERR(id, "structure", "%s compares %s with %s; both sides must have one type", on,
            air_v_tname(v, air_v_vtype(v, x), a, sizeof a),
            air_v_tname(v, air_v_vtype(v, y), b, sizeof b));
      if (air_v_valid(v, x)) {
        const air_type_info_t* xt = air_v_type(v, x);
        air_v_want(v, id, x, fl ? "a float" : "an integer or index",
                  fl ? air_v_is_float(xt) : air_v_is_int_like(xt), "%s", "the left operand");
      }
      air_v_want(v, id, r, "i1", air_v_is_i1(rt), "%s", "the result");
      break;
    }
    case AIR_OPC_SELECT:
      air_v_want(v, id, op->operands[0], "i1", air_v_is_i1(air_v_type(v, op->operands[0])), "%s",
                "the condition");
      for (int i = 1; i < 3; ++i)
        if (air_v_valid(v, op->operands[i]) && air_v_valid(v, r) &&
            !air_v_same_type(v, air_v_vtype(v, op->operands[i]), air_v_vtype(v, r)))
          ERR(id, "structure", "operand #%d of arith.select has type %s but the result is %s", i,
              air_v_tname(v, air_v_vtype(v, op->operands[i]), a, sizeof a),
              air_v_tname(v, air_v_vtype(v, r), b, sizeof b));
      break;
    case AIR_OPC_ALLOC: {
      air_v_want(v, id, r, "a memref", rt->kind == AIR_TYPE_MEMREF, "%s", "the result");
      if (rt->kind != AIR_TYPE_MEMREF) break;
      uint32_t dyn = 0;
      for (uint32_t i = 0; i < rt->rank && rt->shape; ++i) dyn += rt->shape[i] == AIR_DIM_DYNAMIC;
      if (dyn != op->n_operands)
        ERR(id, "structure", "memref.alloc of %s needs %u dynamic sizes, found %u",
            air_v_tname(v, air_v_vtype(v, r), a, sizeof a), dyn, op->n_operands);
      for (uint32_t i = 0; i < op->n_operands; ++i)
        air_v_want_index(v, id, op->operands[i], "a dynamic size");
      break;
    }
    case AIR_OPC_DEALLOC: air_v_want_memref(v, id, op->operands[0], "the operand"); break;
    case AIR_OPC_LOAD:
    case AIR_OPC_STORE: {
      uint32_t m = cls == AIR_OPC_LOAD ? 0 : 1;
      air_vid_t mem = op->operands[m];
      air_v_want_memref(v, id, mem, "the memref operand");
      const air_type_info_t* mt = air_v_type(v, mem);
      if (mt->kind != AIR_TYPE_MEMREF) break;
      if (op->kind == AIR_OP_AFFINE_LOAD || op->kind == AIR_OP_AFFINE_STORE) {
        /* The operands after the memref feed the map; its results are the indices. */
        const air_attr_t* am = air_ir_attr_resolve(v->p, &op->value);
        if (!am || am->kind != AIR_ATTR_MAP || !am->map ||
            (am->map->n_results && !am->map->results) ||
            am->map->n_dims + am->map->n_syms != op->n_operands - m - 1 ||
            op->iaux[0] != am->map->n_dims) {
          ERR(id, "structure",
              "%s needs an affine map whose dims and symbols match its %u subscript operands",
              on, op->n_operands - m - 1);
          v->ops[id].bad = 1;
          break;
        }
        if (am->map->n_results != mt->rank)
          ERR(id, "structure", "%s of a rank-%u memref needs %u subscripts, found %u", on,
              mt->rank, mt->rank, am->map->n_results);
      } else if (op->n_operands - m - 1 != mt->rank) {
        ERR(id, "structure", "%s of a rank-%u memref needs %u indices, found %u", on, mt->rank,
            mt->rank, op->n_operands - m - 1);
      }
      for (uint32_t i = m + 1; i < op->n_operands; ++i)
        air_v_want_index(v, id, op->operands[i], "an index");
      air_vid_t val = cls == AIR_OPC_LOAD ? r : op->operands[0];
      const air_type_info_t* vt = air_v_type(v, val);
      if (air_v_valid(v, val) && (vt->kind != AIR_TYPE_SCALAR || vt->elem != mt->elem))
        ERR(id, "structure", "%s moves a %s value but the memref holds %s", on,
            air_v_tname(v, air_v_vtype(v, val), a, sizeof a), air_elem_name(mt->elem));
      break;
    }
    case AIR_OPC_COPY: {
      air_v_want_memref(v, id, op->operands[0], "the source");
      air_v_want_memref(v, id, op->operands[1], "the destination");
      const air_type_info_t* s = air_v_type(v, op->operands[0]);
      const air_type_info_t* d = air_v_type(v, op->operands[1]);
      if (s->kind == AIR_TYPE_MEMREF && d->kind == AIR_TYPE_MEMREF && s->elem != d->elem)
        ERR(id, "structure", "memref.copy copies %s into %s; element types must match",
            air_elem_name(s->elem), air_elem_name(d->elem));
      break;
    }
    case AIR_OPC_SUBVIEW:
      air_v_want_memref(v, id, op->operands[0], "the source");
      air_v_want(v, id, r, "a memref", rt->kind == AIR_TYPE_MEMREF, "%s", "the result");
      break;
    case AIR_OPC_RESHAPE: air_v_check_reshape(v, id); break;
    case AIR_OPC_TOKEN_ALLOC:
      air_v_want(v, id, r, "!air.token", rt->kind == AIR_TYPE_TOKEN, "%s", "the result");
      break;
    case AIR_OPC_WAIT_ALL: air_v_check_async(v, id); break;
    case AIR_OPC_AFFINE_APPLY: {
      const air_attr_t* m = air_ir_attr_resolve(v->p, &op->value);
      bool apply = op->kind == AIR_OP_AFFINE_APPLY;
      if (!m || m->kind != AIR_ATTR_MAP || !m->map || !m->map->results ||
          (apply ? m->map->n_results != 1 : m->map->n_results < 1) ||
          m->map->n_dims + m->map->n_syms != op->n_operands || op->iaux[0] != m->map->n_dims) {
        ERR(id, "structure",
            "%s needs a %s affine map whose dims and symbols match its %u operands", on,
            apply ? "one-result" : "non-empty", op->n_operands);
        v->ops[id].bad = 1;
        break;
      }
      for (uint32_t i = 0; i < op->n_operands; ++i)
        air_v_want_index(v, id, op->operands[i], "an operand");
      air_v_want_index(v, id, r, "the result");
      break;
    }
    default: break;
  }
}

/*---------------------------------------------------------------------------*/
/* Rules every op is subject to                                              */
/*---------------------------------------------------------------------------*/

static void check_token_lists(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  static const char* const names[3] = {"dependency", "affinity", "concurrency"};
  air_opcls_t cls = air_opkind_class(op->kind);
  bool dep_ok = cls == AIR_OPC_HIER || cls == AIR_OPC_CHANNEL_IO || cls == AIR_OPC_DMA ||
                cls == AIR_OPC_WAIT_ALL || cls == AIR_OPC_EXECUTE || cls == AIR_OPC_CUSTOM;
  /* air.rank takes a dependency list only (verify_rank.c says why). */
  bool aff_ok = cls == AIR_OPC_HIER && op->kind != AIR_OP_RANK;
  /* launch + concurrency is its own rule ([launch-concurrency]). */
  bool conc_ok = cls == AIR_OPC_HIER && op->kind != AIR_OP_RANK;
  bool ok[3] = {dep_ok, aff_ok, conc_ok};
  for (int k = 0; k < 3; ++k) {
    const air_vlist_t* l = &op->toks[k];
    if (!l->n) continue;
    if (!l->items) {
      ERR(id, "structure", "the %s list of %s has %u entries but no array", names[k],
          air_v_opname(op), l->n);
      v->ops[id].bad = 1;
      continue;
    }
    if (!ok[k])
      ERR(id, "token-list", "%s cannot carry a%s %s list; %s", air_v_opname(op), k == 1 ? "n" : "",
          names[k],
          k == 0 ? "only AIR hierarchy, data-movement, wait_all and execute ops wait on tokens"
          : op->kind == AIR_OP_RANK
              ? "ranks are separate processes, which share no hardware to be affine or "
                "concurrent on; put these lists on the launches, segments and herds inside"
              : "affinity and concurrency lists belong on air.segment and air.herd "
                "(affinity also on air.launch)");
    for (uint32_t i = 0; i < l->n; ++i) {
      air_vid_t t = l->items[i];
      if (!air_v_valid(v, t) || air_v_is_token(v, t)) continue;
      char nb[64], tb[96];
      ERR(id, "token-list", "%s in the %s list of %s is a %s, not an !air.token",
          air_v_vname(v, t, nb, sizeof nb), names[k], air_v_opname(op),
          air_v_tname(v, air_v_vtype(v, t), tb, sizeof tb));
    }
  }
}

static void check_op(air_vctx_t* v, uint32_t id, uint8_t* seen_types) {
  air_op_t* op = v->ops[id].op;
  air_opcls_t cls = air_opkind_class(op->kind);
  if ((op->n_operands && !op->operands) || (op->n_lists && !op->lists) ||
      (op->n_types && !op->types)) {
    ERR(id, "structure", "%s has counts without arrays", air_v_opname(op));
    v->ops[id].bad = 1;
    return;
  }
  check_token_lists(v, id);
  if (v->ops[id].bad) return;
  if (cls != AIR_OPC_HIER && cls != AIR_OPC_CHANNEL_IO && cls != AIR_OPC_DMA &&
      cls != AIR_OPC_WAIT_ALL && cls != AIR_OPC_EXECUTE && cls != AIR_OPC_TOKEN_ALLOC &&
      cls != AIR_OPC_CUSTOM && (op->flags & AIR_OPF_ASYNC))
    ERR(id, "async-result",
        "%s cannot be async; only AIR hierarchy, data-movement, wait_all and "
        "execute ops return tokens",
        air_v_opname(op));
  if (v->ops[id].exec != AIR_V_NONE &&
      (cls == AIR_OPC_HIER || cls == AIR_OPC_CHANNEL_IO || cls == AIR_OPC_DMA ||
       cls == AIR_OPC_WAIT_ALL || cls == AIR_OPC_EXECUTE || cls == AIR_OPC_TOKEN_ALLOC ||
       cls == AIR_OPC_CHANNEL || cls == AIR_OPC_FUNC || cls == AIR_OPC_CUSTOM ||
       cls == AIR_OPC_GLOBAL || cls == AIR_OPC_MODULE)) {
    const air_op_t* e = v->ops[v->ops[id].exec].op;
    ERR(id, "execute-region",
        "%s cannot be inside the air.execute at %u:%u, whose region holds host computation "
        "only; move it out and order it with the execute's token",
        air_v_opname(op), e->line, e->col);
  }
  air_v_check_spaces(v, id, seen_types);
  switch (cls) {
    case AIR_OPC_MODULE:
      if (id != 0 && v->ops[v->ops[id].parent].op->kind != AIR_OP_MODULE)
        ERR(id, "nesting", "a module may only be at module level");
      if (op->n_regions != 1) v->ops[id].bad = 1;
      break;
    case AIR_OPC_OPAQUE:
      if (v->ops[v->ops[id].parent].op->kind != AIR_OP_MODULE)
        ERR(id, "nesting", "operations of other dialects are kept only at module level");
      break;
    case AIR_OPC_FUNC: check_func(v, id); break;
    case AIR_OPC_CALL: check_call(v, id); break;
    case AIR_OPC_TERMINATOR: check_terminator(v, id); break;
    case AIR_OPC_CHANNEL:
      if (!op->sym || op->n_lists < 1) {
        ERR(id, "structure", "air.channel needs a name and a dimension list");
        v->ops[id].bad = 1;
      }
      if (v->ops[v->ops[id].parent].op->kind != AIR_OP_MODULE)
        ERR(id, "nesting", "air.channel @%s must be declared at module level",
            op->sym ? op->sym : "?");
      break;
    case AIR_OPC_HIER: check_hier(v, id); break;
    case AIR_OPC_CHANNEL_IO:
      air_v_check_chan_io(v, id);
      air_v_check_rank_chan(v, id);
      break;
    case AIR_OPC_DMA:
      air_v_check_dma(v, id);
      if (!v->ops[id].bad) air_v_check_rank_dma(v, id);
      break;
    case AIR_OPC_EXECUTE: {
      if (op->n_regions != 1) {
        ERR(id, "structure", "air.execute needs exactly one region");
        v->ops[id].bad = 1;
        break;
      }
      if (op->n_results < 1 || !air_v_is_token(v, op->results[0])) {
        ERR(id, "async-result", "air.execute's first result must be its !air.token");
        break;
      }
      const air_op_t* t = air_v_want_term(v, id, 0, AIR_OP_EXECUTE_TERM);
      if (t)
        air_v_match_yield(v, id, t, op->n_results - 1, op->results + 1, NULL, "execute-region",
                    "has value results:");
      break;
    }
    case AIR_OPC_FOR: air_v_check_for(v, id); break;
    case AIR_OPC_PARALLEL: air_v_check_parallel(v, id); break;
    case AIR_OPC_REDUCE: air_v_check_reduce(v, id); break;
    case AIR_OPC_IF: air_v_check_if(v, id, false); break;
    case AIR_OPC_AFFINE_IF: air_v_check_if(v, id, true); break;
    case AIR_OPC_AFFINE_FOR: air_v_check_affine_for(v, id); break;
    case AIR_OPC_LINALG: air_v_check_linalg(v, id); break;
    case AIR_OPC_SWITCH: air_v_check_switch(v, id); break;
    case AIR_OPC_FORALL: air_v_check_forall(v, id); break;
    case AIR_OPC_IN_PARALLEL: air_v_check_in_parallel(v, id); break;
    case AIR_OPC_LINALG_INDEX: air_v_check_linalg_index(v, id); break;
    default:
      if (!air_v_check_mem(v, id)) check_simple(v, id);
      break;
  }
  air_v_check_ranked(v, id);
  /* Only these classes hold regions (their checks count them). */
  bool has_regions = cls == AIR_OPC_MODULE || cls == AIR_OPC_FUNC || cls == AIR_OPC_HIER ||
                     cls == AIR_OPC_EXECUTE || cls == AIR_OPC_FOR || cls == AIR_OPC_PARALLEL ||
                     cls == AIR_OPC_REDUCE || cls == AIR_OPC_IF || cls == AIR_OPC_AFFINE_IF ||
                     cls == AIR_OPC_AFFINE_FOR || cls == AIR_OPC_LINALG ||
                     cls == AIR_OPC_SWITCH || cls == AIR_OPC_FORALL ||
                     cls == AIR_OPC_IN_PARALLEL || cls == AIR_OPC_OPAQUE;
  if (!v->ops[id].bad && op->n_regions && !has_regions) {
    ERR(id, "structure", "%s takes no regions (found %u)", air_v_opname(op), op->n_regions);
    v->ops[id].bad = 1;
  }
  if (v->ops[id].bad) return;
  if (cls == AIR_OPC_ALLOC) air_v_check_alloc_space(v, id);
  air_v_check_herd_access(v, id);
  if (cls == AIR_OPC_ALLOC || cls == AIR_OPC_DEALLOC) air_v_check_symmetric(v, id);
  if (cls == AIR_OPC_UNIVERSE) air_v_check_universe(v, id);
  if (v->target == AIR_VT_AIE) air_v_check_npu_compute(v, id);
}

void air_v_check_ops(air_vctx_t* v) {
  air_v_collect_channels(v);
  uint8_t* seen = air_v_calloc(v, v->p->n_types ? v->p->n_types : 1, 1);
  if (!seen) return;
  for (uint32_t j = 0; j < v->n_ops && !v->oom; ++j) check_op(v, j, seen);
  air_mem_free(v->a, seen);
}

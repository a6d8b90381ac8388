/* verify_ops.c - rules one op breaks on its own or with its ancestors: shape and
 * types ([structure]), placement ([nesting], [execute-region]), token lists and
 * results ([token-list], [async-result], [launch-concurrency]), symbols and
 * target limits; data movement and memory are in verify_data.c. Rule ids are
 * documented in verify.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/verify/verify_data.h"
#include "runtime/verify/verify_passes.h"
#include "runtime/verify/verify_util.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/*---------------------------------------------------------------------------*/
/* Type helpers                                                              */
/*---------------------------------------------------------------------------*/

/* Interned ids make equal types equal ids; the two token spellings are one type. */
static bool same_type(const air_vctx_t* v, air_tid_t a, air_tid_t b) {
  if (a == b) return true;
  return air_ir_type(v->p, a)->kind == AIR_TYPE_TOKEN &&
         air_ir_type(v->p, b)->kind == AIR_TYPE_TOKEN;
}

static bool is_int_like(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && t->elem != AIR_ELEM_NONE && !air_elem_is_float(t->elem);
}
static bool is_float(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && air_elem_is_float(t->elem);
}
static bool is_i1(const air_type_info_t* t) {
  return t->kind == AIR_TYPE_SCALAR && t->elem == AIR_ELEM_I1;
}

/* The terminator of region r when it is the expected kind; reports otherwise. */
static const air_op_t* want_term(air_vctx_t* v, uint32_t id, uint32_t r, air_opkind_t k) {
  const air_op_t* op = v->ops[id].op;
  if (r >= op->n_regions || !op->regions[r]) return NULL;
  const air_op_t* t = op->regions[r]->last;
  if (!t || t->kind != k) {
    ERR(id, "structure", "region #%u of %s must end with %s (found %s)", r, air_v_opname(op),
        air_opkind_name(k), t ? air_v_opname(t) : "an empty block");
    return NULL;
  }
  return t;
}

/* Checks that a terminator's operands match a list of values or of types. */
static void match_yield(air_vctx_t* v, uint32_t id, const air_op_t* t, uint32_t n,
                        const air_vid_t* vals, const air_tid_t* tids, const char* rule,
                        const char* what) {
  const air_op_t* op = v->ops[id].op;
  if (t->n_operands != n || (n && !t->operands)) {
    ERR(id, rule, "%s yields %u values but %s %s %u", air_v_opname(t), t->n_operands,
        air_v_opname(op), what, n);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    air_tid_t want = vals ? air_v_vtype(v, vals[i]) : tids[i];
    air_tid_t got = air_v_vtype(v, t->operands[i]);
    if (!air_v_valid(v, t->operands[i]) || same_type(v, want, got)) continue;
    char a[96], b[96];
    ERR(id, rule, "value #%u of %s has type %s but %s expects %s", i, air_v_opname(t),
        air_v_tname(v, got, a, sizeof a), air_v_opname(op), air_v_tname(v, want, b, sizeof b));
  }
}

/* Block arguments [from, from + n) must have the given types. */
static void match_args(air_vctx_t* v, uint32_t id, const air_block_t* b, uint32_t from, uint32_t n,
                       const air_vid_t* vals, const air_tid_t* tids, const char* what) {
  for (uint32_t i = 0; i < n && from + i < b->n_args; ++i) {
    air_vid_t a = b->args[from + i];
    air_tid_t want = vals ? air_v_vtype(v, vals[i]) : tids[i];
    if (!air_v_valid(v, a) || (vals && !air_v_valid(v, vals[i])) ||
        same_type(v, want, air_v_vtype(v, a)))
      continue;
    char x[96], y[96];
    ERR(id, "structure", "block argument #%u (%s) of %s has type %s but must be %s", from + i, what,
        air_v_opname(v->ops[id].op), air_v_tname(v, air_v_vtype(v, a), x, sizeof x),
        air_v_tname(v, want, y, sizeof y));
  }
}

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
  uint32_t nargs = op->n_operands - n;
  if (op->kind == AIR_OP_LAUNCH ? op->n_regions > 1 : op->n_regions != 1) {
    ERR(id, "structure", "%s must have exactly one body region (found %u)", on, op->n_regions);
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
      match_args(v, id, b, 2 * n, nargs, nargs ? op->operands + n : NULL, NULL, "kernel argument");
    }
    air_opkind_t tk = op->kind == AIR_OP_LAUNCH    ? AIR_OP_LAUNCH_TERM
                      : op->kind == AIR_OP_SEGMENT ? AIR_OP_SEGMENT_TERM
                                                   : AIR_OP_HERD_TERM;
    const air_op_t* t = want_term(v, id, 0, tk);
    if (t && t->n_operands) ERR(id, "structure", "%s takes no operands", air_v_opname(t));
  }
  air_v_check_async(v, id);

  /* Nesting (spec 2.1-2.3). */
  uint32_t h = v->ops[id].hier;
  const air_op_t* ho = h != AIR_V_NONE ? v->ops[h].op : NULL;
  if (op->kind == AIR_OP_LAUNCH && ho) {
    ERR(id, "nesting",
        "air.launch is the outermost level and cannot be nested inside the %s at %u:%u; move "
        "it to function or module level",
        air_v_opname(ho), ho->line, ho->col);
  } else if (op->kind == AIR_OP_SEGMENT && (!ho || ho->kind == AIR_OP_HERD)) {
    if (!ho)
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
    match_args(v, id, b, 0, nin, NULL, op->types, "input");
    const air_op_t* t = want_term(v, id, 0, AIR_OP_RETURN);
    if (t)
      match_yield(v, id, t, op->n_types - nin, NULL, op->n_types > nin ? op->types + nin : NULL,
                  "structure", "returns");
  }
  if (v->ops[id].parent != 0) ERR(id, "nesting", "func.func @%s must be at module level", op->sym);
}

static void check_call(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  if (!op->sym) {
    ERR(id, "structure", "func.call needs a callee");
    v->ops[id].bad = 1;
    return;
  }
  uint32_t f = air_v_symbol(v, op->sym);
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
    if (!air_v_valid(v, vid) || same_type(v, air_v_vtype(v, vid), fo->types[i])) continue;
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
    case AIR_OP_EXECUTE_TERM: ok = pk == AIR_OP_EXECUTE; break;
    case AIR_OP_REDUCE_RETURN: ok = pk == AIR_OP_REDUCE; break;
    case AIR_OP_YIELD: ok = pk == AIR_OP_FOR || pk == AIR_OP_IF || pk == AIR_OP_PARALLEL; break;
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

static void check_for(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  if (op->n_operands < 3 || op->n_regions != 1) {
    ERR(id, "structure", "scf.for needs lower bound, upper bound, step and one body region");
    v->ops[id].bad = 1;
    return;
  }
  uint32_t ninit = op->n_operands - 3;
  const air_type_info_t* lt = air_v_type(v, op->operands[0]);
  static const char* const what[3] = {"the lower bound", "the upper bound", "the step"};
  for (int k = 0; k < 3; ++k) {
    const air_type_info_t* t = air_v_type(v, op->operands[k]);
    air_v_want(v, id, op->operands[k], "index (or one integer type for all three)",
              is_int_like(t) && t == lt, "%s", what[k]);
  }
  const air_block_t* b = op->regions[0];
  if (b->n_args != 1 + ninit || op->n_results != ninit) {
    ERR(id, "structure",
        "scf.for has %u iter_args inits but %u block arguments and %u results; expected %u "
        "and %u",
        ninit, b->n_args, op->n_results, 1 + ninit, ninit);
    v->ops[id].bad = 1;
    return;
  }
  air_tid_t lb = air_v_vtype(v, op->operands[0]);
  if (air_v_valid(v, op->operands[0])) match_args(v, id, b, 0, 1, NULL, &lb, "induction variable");
  match_args(v, id, b, 1, ninit, op->operands + 3, NULL, "iter_arg");
  for (uint32_t i = 0; i < ninit; ++i) {
    air_vid_t r = op->results[i], init = op->operands[3 + i];
    if (!air_v_valid(v, r) || !air_v_valid(v, init) ||
        same_type(v, air_v_vtype(v, r), air_v_vtype(v, init)))
      continue;
    char a[96], c[96];
    ERR(id, "structure", "result #%u of scf.for has type %s but its init has type %s", i,
        air_v_tname(v, air_v_vtype(v, r), a, sizeof a),
        air_v_tname(v, air_v_vtype(v, init), c, sizeof c));
  }
  const air_op_t* t = want_term(v, id, 0, AIR_OP_YIELD);
  if (t) match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}

static void check_parallel(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t n = op->iaux[0];
  if (n > op->n_operands / 3 || op->n_regions != 1) {
    ERR(id, "structure",
        "scf.parallel with %u dimensions needs %u bound/step operands and one body", n, 3 * n);
    v->ops[id].bad = 1;
    return;
  }
  uint32_t ninit = op->n_operands - 3 * n;
  for (uint32_t k = 0; k < 3 * n; ++k)
    air_v_want_index(v, id, op->operands[k], "%s #%u",
                     k < n       ? "lower bound"
                     : k < 2 * n ? "upper bound"
                                 : "step",
                     k % (n ? n : 1));
  const air_block_t* b = op->regions[0];
  if (b->n_args != n || op->n_results != ninit) {
    ERR(id, "structure",
        "scf.parallel has %u dimensions and %u inits but %u block arguments and %u results", n,
        ninit, b->n_args, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t k = 0; k < n; ++k) air_v_want_index(v, id, b->args[k], "an induction variable");
  for (uint32_t i = 0; i < ninit; ++i) {
    air_vid_t r = op->results[i], init = op->operands[3 * n + i];
    if (air_v_valid(v, r) && air_v_valid(v, init) &&
        !same_type(v, air_v_vtype(v, r), air_v_vtype(v, init)))
      ERR(id, "structure", "result #%u of scf.parallel does not have its init's type", i);
  }
  const air_op_t* t = b->last;
  if (t && t->kind == AIR_OP_YIELD && ninit == 0 && t->n_operands == 0) return;
  t = want_term(v, id, 0, AIR_OP_REDUCE);
  if (t) match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}

static void check_reduce(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t par = v->ops[id].parent;
  if (par == AIR_V_NONE || v->ops[par].op->kind != AIR_OP_PARALLEL || op->next)
    ERR(id, "structure", "scf.reduce must be the last op of an scf.parallel body");
  if (op->n_regions != op->n_operands) {
    ERR(id, "structure", "scf.reduce needs one region per reduced value (%u values, %u regions)",
        op->n_operands, op->n_regions);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_block_t* b = op->regions[r];
    air_tid_t t = air_v_vtype(v, op->operands[r]);
    if (b->n_args != 2) {
      ERR(id, "structure", "region #%u of scf.reduce must take two arguments (lhs, rhs)", r);
      continue;
    }
    if (air_v_valid(v, op->operands[r])) {
      air_tid_t two[2] = {t, t};
      match_args(v, id, b, 0, 2, NULL, two, "reduction operand");
    }
    const air_op_t* term = want_term(v, id, r, AIR_OP_REDUCE_RETURN);
    if (term && air_v_valid(v, op->operands[r]))
      match_yield(v, id, term, 1, NULL, &t, "structure", "reduces");
  }
}

static void check_if(air_vctx_t* v, uint32_t id, bool affine) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  if (op->n_regions < 1 || op->n_regions > 2 || (op->n_results && op->n_regions != 2)) {
    ERR(id, "structure", "%s needs a then region and %s else region", on,
        op->n_results ? "an" : "at most one");
    v->ops[id].bad = 1;
    return;
  }
  if (!affine) {
    if (op->n_operands != 1) {
      ERR(id, "structure", "scf.if takes exactly one condition operand");
      v->ops[id].bad = 1;
      return;
    }
    air_v_want(v, id, op->operands[0], "i1", is_i1(air_v_type(v, op->operands[0])), "%s",
              "the condition");
  } else {
    const air_attr_t* s = air_ir_attr_resolve(v->p, &op->value);
    if (!s || s->kind != AIR_ATTR_SET || !s->set ||
        s->set->n_dims + s->set->n_syms != op->n_operands || op->iaux[0] != s->set->n_dims) {
      ERR(id, "structure",
          "affine.if needs an integer set whose dims and symbols match its %u operands",
          op->n_operands);
      v->ops[id].bad = 1;
      return;
    }
    for (uint32_t i = 0; i < op->n_operands; ++i)
      air_v_want_index(v, id, op->operands[i], "an operand");
  }
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_op_t* t = want_term(v, id, r, affine ? AIR_OP_AFFINE_YIELD : AIR_OP_YIELD);
    if (t) match_yield(v, id, t, op->n_results, op->results, NULL, "structure", "has results:");
  }
}

static void check_affine_for(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  if (op->n_lists < 1 || !op->lists || op->lists[0].n != 2 || !op->lists[0].items ||
      op->n_regions != 1) {
    ERR(id, "structure", "affine.for needs a lower and an upper bound and one body region");
    v->ops[id].bad = 1;
    return;
  }
  for (int k = 0; k < 2; ++k)
    if (op->lists[0].items[k].value)
      air_v_want_index(v, id, op->lists[0].items[k].value,
                       k ? "the upper bound" : "the lower bound");
  if (op->iaux[1] < 1) ERR(id, "structure", "affine.for needs a step >= 1");
  const air_block_t* b = op->regions[0];
  uint32_t ninit = op->n_operands;
  if (b->n_args != 1 + ninit || op->n_results != ninit) {
    ERR(id, "structure", "affine.for has %u inits but %u block arguments and %u results", ninit,
        b->n_args, op->n_results);
    v->ops[id].bad = 1;
    return;
  }
  air_v_want_index(v, id, b->args[0], "the induction variable");
  match_args(v, id, b, 1, ninit, op->operands, NULL, "iter_arg");
  const air_op_t* t = want_term(v, id, 0, AIR_OP_AFFINE_YIELD);
  if (t) match_yield(v, id, t, ninit, op->results, NULL, "structure", "has results:");
}

static void check_linalg(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t nin = op->iaux[0];
  if (nin > op->n_operands) {
    ERR(id, "structure", "%s declares %u inputs but has %u operands", air_v_opname(op), nin,
        op->n_operands);
    v->ops[id].bad = 1;
    return;
  }
  uint32_t nout = op->n_operands - nin;
  uint32_t want_in = op->kind == AIR_OP_MATMUL ? 2 : op->kind == AIR_OP_GENERIC ? nin : 1;
  if (nin != want_in || nout < 1 || (op->kind != AIR_OP_GENERIC && nout != 1)) {
    ERR(id, "structure", "%s takes %u ins and 1 outs (found %u and %u)", air_v_opname(op), want_in,
        nin, nout);
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t i = 0; i < op->n_operands; ++i) {
    if (op->kind == AIR_OP_FILL && i == 0) continue; /* the fill value is a scalar */
    air_v_want_memref(v, id, op->operands[i], "%s #%u", i < nin ? "input" : "output",
                      i < nin ? i : i - nin);
  }
  if (op->kind == AIR_OP_GENERIC) {
    if (op->n_regions != 1 || op->regions[0]->n_args != op->n_operands) {
      ERR(id, "structure", "linalg.generic needs one region with one argument per operand");
      v->ops[id].bad = 1;
      return;
    }
    const air_op_t* t = want_term(v, id, 0, AIR_OP_LINALG_YIELD);
    if (t && t->n_operands != nout)
      ERR(id, "structure", "linalg.yield yields %u values but linalg.generic has %u outputs",
          t->n_operands, nout);
  }
}

/* collapse_shape / expand_shape / cast: same element type and memory space; the
 * groups partition the dimensions of the higher-rank side in order, one group per
 * dimension of the lower-rank side, and static sizes multiply up. */
static void check_reshape(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  air_vid_t sv = op->operands[0], rv = op->results[0];
  air_v_want_memref(v, id, sv, "the source");
  air_v_want(v, id, rv, "a memref", air_v_type(v, rv)->kind == AIR_TYPE_MEMREF, "%s",
            "the result");
  const air_type_info_t* s = air_v_type(v, sv);
  const air_type_info_t* d = air_v_type(v, rv);
  if (s->kind != AIR_TYPE_MEMREF || d->kind != AIR_TYPE_MEMREF) return;
  if (s->elem != d->elem || s->memspace != d->memspace) {
    ERR(id, "structure", "%s changes the element type or memory space (%s, space %d to %s, "
        "space %d)", on, air_elem_name(s->elem), (int)s->memspace, air_elem_name(d->elem),
        (int)d->memspace);
    return;
  }
  if (op->kind == AIR_OP_MEMREF_CAST) {
    bool ok = s->rank == d->rank;
    for (uint32_t k = 0; ok && k < s->rank; ++k)
      ok = s->shape[k] == d->shape[k] || s->shape[k] == AIR_DIM_DYNAMIC ||
           d->shape[k] == AIR_DIM_DYNAMIC;
    if (!ok) ERR(id, "structure", "%s between incompatible shapes", on);
    return;
  }
  bool collapse = op->kind == AIR_OP_COLLAPSE_SHAPE;
  const air_type_info_t* hi = collapse ? s : d; /* the side the groups index */
  const air_type_info_t* lo = collapse ? d : s;
  const air_ixlist_t* idx = &op->lists[0];
  const air_ixlist_t* groups = &op->lists[1];
  if (groups->n != lo->rank || idx->n != hi->rank) {
    ERR(id, "structure", "%s has %u groups over %u dimensions; the types need %u over %u", on,
        groups->n, idx->n, lo->rank, hi->rank);
    return;
  }
  uint32_t k = 0;
  for (uint32_t g = 0; g < groups->n; ++g) {
    int64_t n = groups->items[g].cst, prod = 1;
    bool dyn = false;
    if (n < 1 || n > (int64_t)(idx->n - k)) {
      ERR(id, "structure", "%s: reassociation group #%u is empty or too long", on, g);
      return;
    }
    for (int64_t j = 0; j < n; ++j, ++k) {
      if (idx->items[k].cst != (int64_t)k) {
        ERR(id, "structure", "%s: reassociation groups must list dimensions 0..%u in order", on,
            hi->rank - 1);
        return;
      }
      int64_t e = hi->shape[k];
      if (e == AIR_DIM_DYNAMIC || __builtin_mul_overflow(prod, e, &prod)) dyn = true;
    }
    if (!dyn && lo->shape[g] != AIR_DIM_DYNAMIC && lo->shape[g] != prod)
      ERR(id, "structure", "%s: dimension %u is %lld but its group multiplies to %lld", on, g,
          (long long)lo->shape[g], (long long)prod);
  }
  if (op->kind == AIR_OP_EXPAND_SHAPE && op->n_lists > 2) {
    const air_ixlist_t* os = &op->lists[2];
    if (os->n != d->rank) {
      ERR(id, "structure", "%s: output_shape has %u sizes for a rank-%u result", on, os->n,
          d->rank);
      return;
    }
    for (uint32_t i = 0; i < os->n; ++i) {
      if (os->items[i].value)
        air_v_want_index(v, id, os->items[i].value, "an output_shape size");
      else if (d->shape[i] != AIR_DIM_DYNAMIC && d->shape[i] != os->items[i].cst)
        ERR(id, "structure", "%s: output_shape size %u is %lld but the result type says %lld",
            on, i, (long long)os->items[i].cst, (long long)d->shape[i]);
    }
  }
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
          at && (((at->kind == AIR_ATTR_INT || at->kind == AIR_ATTR_BOOL) && is_int_like(rt)) ||
                 (at->kind == AIR_ATTR_FLOAT && is_float(rt)));
      if (!ok && air_v_valid(v, r))
        ERR(id, "structure", "arith.constant's value does not fit its type %s",
            air_v_tname(v, air_v_vtype(v, r), a, sizeof a));
      break;
    }
    case AIR_OPC_BINARY:
    case AIR_OPC_UNARY: {
      bool fl = op->kind >= AIR_OP_ADDF && op->kind <= AIR_OP_NEGF;
      for (uint32_t i = 0; i < op->n_operands; ++i) {
        air_vid_t x = op->operands[i];
        if (!air_v_valid(v, x) || !air_v_valid(v, r)) continue;
        if (!same_type(v, air_v_vtype(v, x), air_v_vtype(v, r)))
          ERR(id, "structure", "operand #%u of %s has type %s but the result is %s", i, on,
              air_v_tname(v, air_v_vtype(v, x), a, sizeof a),
              air_v_tname(v, air_v_vtype(v, r), b, sizeof b));
      }
      if (air_v_valid(v, r) && (fl ? !is_float(rt) : !is_int_like(rt)))
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
          !same_type(v, air_v_vtype(v, x), air_v_vtype(v, y)))
        ERR(id, "structure", "%s compares %s with %s; both sides must have one type", on,
            air_v_tname(v, air_v_vtype(v, x), a, sizeof a),
            air_v_tname(v, air_v_vtype(v, y), b, sizeof b));
      if (air_v_valid(v, x)) {
        const air_type_info_t* xt = air_v_type(v, x);
        air_v_want(v, id, x, fl ? "a float" : "an integer or index",
                  fl ? is_float(xt) : is_int_like(xt), "%s", "the left operand");
      }
      air_v_want(v, id, r, "i1", is_i1(rt), "%s", "the result");
      break;
    }
    case AIR_OPC_SELECT:
      air_v_want(v, id, op->operands[0], "i1", is_i1(air_v_type(v, op->operands[0])), "%s",
                "the condition");
      for (int i = 1; i < 3; ++i)
        if (air_v_valid(v, op->operands[i]) && air_v_valid(v, r) &&
            !same_type(v, air_v_vtype(v, op->operands[i]), air_v_vtype(v, r)))
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
    case AIR_OPC_RESHAPE: check_reshape(v, id); break;
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
                cls == AIR_OPC_WAIT_ALL || cls == AIR_OPC_EXECUTE;
  bool aff_ok = cls == AIR_OPC_HIER;
  /* launch + concurrency is its own rule ([launch-concurrency]). */
  bool conc_ok = cls == AIR_OPC_HIER;
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
      (op->flags & AIR_OPF_ASYNC))
    ERR(id, "async-result",
        "%s cannot be async; only AIR hierarchy, data-movement, wait_all and "
        "execute ops return tokens",
        air_v_opname(op));
  if (v->ops[id].exec != AIR_V_NONE &&
      (cls == AIR_OPC_HIER || cls == AIR_OPC_CHANNEL_IO || cls == AIR_OPC_DMA ||
       cls == AIR_OPC_WAIT_ALL || cls == AIR_OPC_EXECUTE || cls == AIR_OPC_TOKEN_ALLOC ||
       cls == AIR_OPC_CHANNEL || cls == AIR_OPC_FUNC)) {
    const air_op_t* e = v->ops[v->ops[id].exec].op;
    ERR(id, "execute-region",
        "%s cannot be inside the air.execute at %u:%u, whose region holds host computation "
        "only; move it out and order it with the execute's token",
        air_v_opname(op), e->line, e->col);
  }
  air_v_check_spaces(v, id, seen_types);
  switch (cls) {
    case AIR_OPC_MODULE:
      if (id != 0) ERR(id, "nesting", "a module may only be the top-level op");
      if (op->n_regions != 1) v->ops[id].bad = 1;
      break;
    case AIR_OPC_OPAQUE:
      if (v->ops[id].parent != 0)
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
      if (v->ops[id].parent != 0)
        ERR(id, "nesting", "air.channel @%s must be declared at module level",
            op->sym ? op->sym : "?");
      break;
    case AIR_OPC_HIER: check_hier(v, id); break;
    case AIR_OPC_CHANNEL_IO: air_v_check_chan_io(v, id); break;
    case AIR_OPC_DMA: air_v_check_dma(v, id); break;
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
      const air_op_t* t = want_term(v, id, 0, AIR_OP_EXECUTE_TERM);
      if (t)
        match_yield(v, id, t, op->n_results - 1, op->results + 1, NULL, "execute-region",
                    "has value results:");
      break;
    }
    case AIR_OPC_FOR: check_for(v, id); break;
    case AIR_OPC_PARALLEL: check_parallel(v, id); break;
    case AIR_OPC_REDUCE: check_reduce(v, id); break;
    case AIR_OPC_IF: check_if(v, id, false); break;
    case AIR_OPC_AFFINE_IF: check_if(v, id, true); break;
    case AIR_OPC_AFFINE_FOR: check_affine_for(v, id); break;
    case AIR_OPC_LINALG: check_linalg(v, id); break;
    default: check_simple(v, id); break;
  }
  /* Region ops other than those above take no regions. */
  if (!v->ops[id].bad && op->n_regions &&
      (cls == AIR_OPC_CALL || cls == AIR_OPC_TERMINATOR || cls == AIR_OPC_CHANNEL ||
       cls == AIR_OPC_CHANNEL_IO || cls == AIR_OPC_DMA || cls == AIR_OPC_WAIT_ALL ||
       cls == AIR_OPC_TOKEN_ALLOC || cls == AIR_OPC_CONSTANT || cls == AIR_OPC_BINARY ||
       cls == AIR_OPC_UNARY || cls == AIR_OPC_CMP || cls == AIR_OPC_SELECT || cls == AIR_OPC_CAST ||
       cls == AIR_OPC_ALLOC || cls == AIR_OPC_DEALLOC || cls == AIR_OPC_LOAD ||
       cls == AIR_OPC_STORE || cls == AIR_OPC_COPY || cls == AIR_OPC_SUBVIEW ||
       cls == AIR_OPC_AFFINE_APPLY || cls == AIR_OPC_RESHAPE)) {
    ERR(id, "structure", "%s takes no regions (found %u)", air_v_opname(op), op->n_regions);
    v->ops[id].bad = 1;
  }
  if (v->ops[id].bad) return;
  if (cls == AIR_OPC_ALLOC) air_v_check_alloc_space(v, id);
  if (v->target == AIR_VT_AIE) air_v_check_npu_compute(v, id);
}

void air_v_check_ops(air_vctx_t* v) {
  air_v_collect_channels(v);
  uint8_t* seen = air_v_calloc(v, v->p->n_types ? v->p->n_types : 1, 1);
  if (!seen) return;
  for (uint32_t j = 0; j < v->n_ops && !v->oom; ++j) check_op(v, j, seen);
  air_mem_free(v->a, seen);
}

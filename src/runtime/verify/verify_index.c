/* verify_index.c - the verifier's first step: the indexing walk that gives every
 * op reachable through well-formed links a pre-order id and every value its
 * owner, checking the links as it goes ([structure]), and the module symbol
 * table ([symbol] duplicates). Every later pass reads what this builds. */
#include "runtime/verify/verify_passes.h"

#include <string.h>

#include "runtime/verify/verify_util.h"

/*---------------------------------------------------------------------------*/
/* Module symbols and visited blocks                                         */
/*---------------------------------------------------------------------------*/

static bool is_symbol_op(const air_vctx_t* v, uint32_t j) {
  const air_op_t* op = v->ops[j].op;
  uint32_t par = v->ops[j].parent;
  return op->sym && par != AIR_V_NONE && v->ops[par].op->kind == AIR_OP_MODULE &&
         (op->kind == AIR_OP_FUNC || op->kind == AIR_OP_CHANNEL || op->kind == AIR_OP_GLOBAL);
}

/* Builds the symbol tables of the modules (the top one, and nested ones a file
 * with several top-level modules has) from their func, channel and memref.global
 * ops; reports duplicates within a module. */
static void build_symbols(air_vctx_t* v) {
  uint32_t n = 0;
  for (uint32_t j = 0; j < v->n_ops; ++j) n += is_symbol_op(v, j);
  uint32_t cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  v->syms = air_v_calloc(v, cap, sizeof(uint32_t));
  if (!v->syms) return;
  memset(v->syms, 0xff, cap * sizeof(uint32_t));
  v->sym_cap = cap;
  for (uint32_t j = 0; j < v->n_ops; ++j) {
    if (!is_symbol_op(v, j)) continue;
    air_op_t* op = v->ops[j].op;
    uint32_t prev = air_v_symbol_in(v, v->ops[j].parent, op->sym);
    if (prev != AIR_V_NONE) {
      air_v_error(v, op, "symbol",
                  "symbol @%s is already defined at %u:%u; give each func.func, "
                  "air.channel and memref.global a unique name",
                  op->sym, v->ops[prev].op->line, v->ops[prev].op->col);
      continue;
    }
    air_v_symbol_add(v, j);
  }
}

/* Adds a block to the visited set; false when it was already there. Out of
 * memory sets v->oom, which ends the walk. */
static bool block_visit(air_vctx_t* v, air_block_t* b) {
  if (air_ptrmap_get(&v->blocks, b)) return false;
  if (!air_ptrmap_put(&v->blocks, v->a, b, b)) v->oom = true;
  return true;
}

/*---------------------------------------------------------------------------*/
/* Indexing walk                                                             */
/*---------------------------------------------------------------------------*/

static bool is_isolated(air_opkind_t k) {
  return k == AIR_OP_MODULE || k == AIR_OP_FUNC || air_v_is_hier(k);
}

static void define(air_vctx_t* v, uint32_t owner, bool is_arg, uint32_t region, uint32_t index,
                   air_vid_t vid, const air_block_t* b) {
  air_op_t* op = v->ops[owner].op;
  const char* what = is_arg ? "block argument" : "result";
  if (!air_v_valid(v, vid)) {
    air_v_error(v, op, "structure", "%s #%u of %s is not a valid value (id %u)", what, index,
                air_v_opname(op), vid);
    v->ops[owner].bad = 1;
    return;
  }
  char nb[64];
  air_vval_t* vv = &v->vals[vid];
  if (vv->owner != AIR_V_NONE) {
    air_v_error(v, op, "structure", "%s #%u of %s (%s) is already defined by the %s at %u:%u", what,
                index, air_v_opname(op), air_v_vname(v, vid, nb, sizeof nb),
                air_v_opname(v->ops[vv->owner].op), v->ops[vv->owner].op->line,
                v->ops[vv->owner].op->col);
    v->ops[owner].bad = 1;
    return;
  }
  vv->owner = owner;
  vv->index = index;
  vv->region = region;
  vv->is_arg = is_arg;
  const air_value_info_t* info = &v->p->values[vid];
  if (info->type == 0 || info->type >= v->p->n_types)
    air_v_error(v, op, "structure", "%s %s of %s has no valid type", what,
                air_v_vname(v, vid, nb, sizeof nb), air_v_opname(op));
  bool consistent = is_arg ? info->def == NULL && info->block == b && info->index == index
                           : info->def == op && info->index == index;
  if (!consistent)
    air_v_error(v, op, "structure",
                "the value table's record of %s (defining op, block or position) does not "
                "match where %s #%u of %s holds it",
                air_v_vname(v, vid, nb, sizeof nb), what, index, air_v_opname(op));
}

static uint32_t index_op(air_vctx_t* v, air_op_t* op, uint32_t parent, uint32_t region,
                         uint32_t depth);

static void index_block(air_vctx_t* v, uint32_t id, uint32_t r, air_block_t* b, uint32_t depth) {
  air_op_t* op = v->ops[id].op;
  if (b->n_args && !b->args) {
    air_v_error(v, op, "structure", "region #%u of %s has %u arguments but no argument array", r,
                air_v_opname(op), b->n_args);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t i = 0; i < b->n_args; ++i) define(v, id, true, r, i, b->args[i], b);
  }
  air_op_t* prev = NULL;
  for (air_op_t* o = b->first; o; o = o->next) {
    if (o->parent != b || o->prev != prev) {
      air_v_error(v, prev ? prev : op, "structure",
                  "the op list of region #%u of %s is corrupt (parent or prev link wrong); "
                  "build blocks with air_ir_block_append",
                  r, air_v_opname(op));
      v->ops[id].bad = 1;
      return;
    }
    if ((unsigned)o->kind >= AIR_OP_COUNT_) {
      air_v_error(v, op, "structure", "an op in region #%u of %s has an unknown kind %d", r,
                  air_v_opname(op), (int)o->kind);
      v->ops[id].bad = 1;
      return;
    }
    if (index_op(v, o, id, r, depth) == AIR_V_NONE) return;
    prev = o;
  }
  if (b->last != prev) {
    air_v_error(v, op, "structure", "region #%u of %s: the block's last-op link is wrong", r,
                air_v_opname(op));
    v->ops[id].bad = 1;
  }
}

static uint32_t index_op(air_vctx_t* v, air_op_t* op, uint32_t parent, uint32_t region,
                         uint32_t depth) {
  if (v->oom) return AIR_V_NONE;
  /* air_mem_grow refuses more than UINT32_MAX entries, so ids stay below AIR_V_NONE. */
  if (!air_mem_grow(v->a, (void**)&v->ops, &v->cap_ops, (size_t)v->n_ops + 1, sizeof(*v->ops))) {
    v->oom = true;
    return AIR_V_NONE;
  }
  uint32_t id = v->n_ops++;
  air_vop_t* r = &v->ops[id];
  memset(r, 0, sizeof(*r));
  r->op = op;
  r->parent = parent;
  r->region = region;
  r->depth = (uint16_t)depth;
  r->chan = AIR_V_NONE;
  r->scope = r->hier = r->exec = AIR_V_NONE;
  if (parent != AIR_V_NONE) {
    const air_vop_t* pr = &v->ops[parent];
    air_opkind_t pk = pr->op->kind;
    r->scope = is_isolated(pk) ? parent : pr->scope;
    r->hier = air_v_is_hier(pk) ? parent : pr->hier;
    r->exec = pk == AIR_OP_EXECUTE ? parent : pr->exec;
  }
  if (op->n_results && !op->results) {
    air_v_error(v, op, "structure", "%s has %u results but no result array", air_v_opname(op),
                op->n_results);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t i = 0; i < op->n_results; ++i) define(v, id, false, 0, i, op->results[i], NULL);
  }
  if (op->n_regions && !op->regions) {
    air_v_error(v, op, "structure", "%s has %u regions but no region array", air_v_opname(op),
                op->n_regions);
    v->ops[id].bad = 1;
  } else {
    for (uint32_t ri = 0; ri < op->n_regions; ++ri) {
      air_block_t* b = op->regions[ri];
      if (!b) {
        air_v_error(v, op, "structure", "region #%u of %s is missing its block", ri,
                    air_v_opname(op));
        v->ops[id].bad = 1;
        continue;
      }
      if (b->parent != op || !block_visit(v, b)) {
        air_v_error(v, op, "structure", "region #%u of %s holds a block that belongs to another op",
                    ri, air_v_opname(op));
        v->ops[id].bad = 1;
        continue;
      }
      if (depth + 1 > AIR_V_MAX_DEPTH) {
        air_v_error(v, op, "structure", "ops are nested more than %d levels deep", AIR_V_MAX_DEPTH);
        v->ops[id].bad = 1;
        v->too_deep = true;
        continue;
      }
      index_block(v, id, ri, b, depth + 1);
      if (v->oom) return AIR_V_NONE;
    }
  }
  v->ops[id].end = v->n_ops;
  return id;
}

bool air_v_index(air_vctx_t* v) {
  for (uint32_t i = 0; i < v->p->n_values; ++i) v->vals[i].owner = AIR_V_NONE;
  index_op(v, v->p->module, AIR_V_NONE, 0, 0);
  if (!v->oom) build_symbols(v);
  return !v->oom;
}

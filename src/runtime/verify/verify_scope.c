/* verify_scope.c - where values may be used: [dominance], [isolation]; and the
 * token rules that follow values across regions: [launch-token-scope],
 * [token-conflict], and the unused-unnamed half of [async-result].
 *
 * Dominance is a scoped walk: a value is visible from the point after its
 * definition to the end of its block, nested blocks included, so one pass that
 * marks values on definition and unmarks them when their block closes decides
 * every use in linear time. Isolation compares the innermost isolated op of the
 * use with that of the definition. */
#include <stdio.h>
#include <string.h>

#include "runtime/verify/verify_passes.h"
#include "runtime/verify/verify_util.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

static bool is_isolated(air_opkind_t k) {
  return k == AIR_OP_MODULE || k == AIR_OP_FUNC || air_v_is_hier(k);
}

/* The innermost isolated op whose body holds the value. */
static uint32_t value_scope(const air_vctx_t* v, air_vid_t vid) {
  const air_vval_t* vv = &v->vals[vid];
  if (vv->is_arg && is_isolated(v->ops[vv->owner].op->kind)) return vv->owner;
  return v->ops[vv->owner].scope;
}

/* Where a use sits in its op: operand i, token list `list` entry i, or index
 * list `list` entry i. Formatted only when there is something to report. */
enum { USE_OPERAND, USE_TOKEN, USE_LIST };

static const char* use_name(char* w, size_t n, int kind, uint32_t list, uint32_t i) {
  static const char* const tl[3] = {"dependency", "affinity", "concurrency"};
  if (kind == USE_OPERAND)
    snprintf(w, n, "operand #%u", i);
  else if (kind == USE_TOKEN)
    snprintf(w, n, "%s token #%u", tl[list], i);
  else
    snprintf(w, n, "list #%u entry #%u", list, i);
  return w;
}

static void check_use(air_vctx_t* v, const uint8_t* vis, uint32_t user, air_vid_t vid, int kind,
                      uint32_t list, uint32_t idx) {
  const air_op_t* op = v->ops[user].op;
  if (air_v_valid(v, vid) && vis[vid]) {
    v->uses[vid]++;
    uint32_t us = v->ops[user].scope;
    if (us == AIR_V_NONE || us == value_scope(v, vid)) return;
  }
  char nb[64], what[64];
  use_name(what, sizeof what, kind, list, idx);
  if (!air_v_valid(v, vid)) {
    ERR(user, "structure", "%s of %s is not a valid value (id %u)", what, air_v_opname(op), vid);
    return;
  }
  const air_vval_t* vv = &v->vals[vid];
  air_v_vname(v, vid, nb, sizeof nb);
  if (vv->owner == AIR_V_NONE) {
    ERR(user, "dominance", "%s (%s) of %s is not defined by any op or block of this program", what,
        nb, air_v_opname(op));
    return;
  }
  const air_op_t* d = v->ops[vv->owner].op;
  if (!vis[vid]) {
    if (vv->is_arg)
      ERR(user, "dominance",
          "%s of %s is %s, an argument of a region of the %s at %u:%u that does not enclose "
          "this use",
          what, air_v_opname(op), nb, air_v_opname(d), d->line, d->col);
    else if (vv->owner < user && user < v->ops[vv->owner].end)
      ERR(user, "dominance",
          "%s of %s is %s, a result of the enclosing %s at %u:%u; an op's "
          "results are not visible inside its own regions",
          what, air_v_opname(op), nb, air_v_opname(d), d->line, d->col);
    else if (vv->owner > user)
      ERR(user, "dominance",
          "%s of %s is %s, which is defined later (by the %s at %u:%u); define values before "
          "using them",
          what, air_v_opname(op), nb, air_v_opname(d), d->line, d->col);
    else
      ERR(user, "dominance",
          "%s of %s is %s, defined by the %s at %u:%u inside a region that does not enclose "
          "this use",
          what, air_v_opname(op), nb, air_v_opname(d), d->line, d->col);
    return;
  }
  const air_op_t* iso = v->ops[v->ops[user].scope].op;
  if (iso->kind == AIR_OP_FUNC)
    ERR(user, "isolation",
        "%s of %s is %s, defined outside func.func @%s, whose body is isolated from above; "
        "pass it as a function argument or define it inside the function",
        what, air_v_opname(op), nb, iso->sym ? iso->sym : "?");
  else
    ERR(user, "isolation",
        "%s of %s is %s, defined outside the %s at %u:%u, whose body is isolated from above; "
        "pass it in through args(...)%s",
        what, air_v_opname(op), nb, air_v_opname(iso), iso->line, iso->col,
        d->kind == AIR_OP_CONSTANT ? " or define the constant inside the body" : "");
}

static void scope_op(air_vctx_t* v, uint8_t* vis, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  for (uint32_t i = 0; i < op->n_operands && op->operands; ++i)
    check_use(v, vis, id, op->operands[i], USE_OPERAND, 0, i);
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < op->toks[k].n && op->toks[k].items; ++i)
      check_use(v, vis, id, op->toks[k].items[i], USE_TOKEN, k, i);
  for (uint32_t l = 0; l < op->n_lists && op->lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n && op->lists[l].items; ++i)
      if (op->lists[l].items[i].value)
        check_use(v, vis, id, op->lists[l].items[i].value, USE_LIST, l, i);
  for (uint32_t r = 0; r < op->n_regions && op->regions; ++r) {
    const air_block_t* b = op->regions[r];
    if (!b) continue;
    for (uint32_t i = 0; i < b->n_args && b->args; ++i) {
      air_vid_t a = b->args[i];
      if (air_v_valid(v, a) && v->vals[a].owner == id && v->vals[a].is_arg) vis[a] = 1;
    }
    uint32_t first = air_v_first_child(v, id, r);
    for (uint32_t j = first; j != AIR_V_NONE; j = air_v_next_sibling(v, id, j)) scope_op(v, vis, j);
    for (uint32_t i = 0; i < b->n_args && b->args; ++i)
      if (air_v_valid(v, b->args[i]) && v->vals[b->args[i]].owner == id) vis[b->args[i]] = 0;
    for (uint32_t j = first; j != AIR_V_NONE; j = air_v_next_sibling(v, id, j)) {
      const air_op_t* c = v->ops[j].op;
      for (uint32_t i = 0; i < c->n_results && c->results; ++i)
        if (air_v_valid(v, c->results[i]) && v->vals[c->results[i]].owner == j)
          vis[c->results[i]] = 0;
    }
  }
  for (uint32_t i = 0; i < op->n_results && op->results; ++i) {
    air_vid_t r = op->results[i];
    if (air_v_valid(v, r) && v->vals[r].owner == id && !v->vals[r].is_arg) vis[r] = 1;
  }
}

/* 'async' means the token is named; a builder program may instead use it. */
static void check_dropped_tokens(air_vctx_t* v) {
  for (uint32_t id = 0; id < v->n_ops; ++id) {
    const air_op_t* op = v->ops[id].op;
    if (v->ops[id].bad || !op->n_results || !op->results) continue;
    if (!(op->flags & AIR_OPF_ASYNC) && op->kind != AIR_OP_EXECUTE) continue;
    air_vid_t t = op->results[0];
    if (!air_v_valid(v, t) || !air_v_is_token(v, t) || v->uses[t]) continue;
    const char* name = v->p->values[t].name;
    if (name && name[0]) continue;
    ERR(id, "async-result",
        "the token of this async %s is neither named nor used; bind it (`%%t = %s async "
        "...`), use it in a dependency list, or use the blocking form",
        air_v_opname(op), air_v_opname(op));
  }
}

/*---------------------------------------------------------------------------*/
/* Affinity and concurrency tokens and the launch boundary                   */
/*---------------------------------------------------------------------------*/

static bool inside(const air_vctx_t* v, uint32_t outer, uint32_t id) {
  return id > outer && id < v->ops[outer].end;
}

static void check_launch_scope(air_vctx_t* v) {
  static const char* const tl[3] = {"dependency", "affinity", "concurrency"};
  for (uint32_t id = 0; id < v->n_ops; ++id) {
    const air_op_t* op = v->ops[id].op;
    if (v->ops[id].bad || (op->kind != AIR_OP_SEGMENT && op->kind != AIR_OP_HERD)) continue;
    uint32_t launch = AIR_V_NONE;
    for (uint32_t h = v->ops[id].hier; h != AIR_V_NONE; h = v->ops[h].hier)
      if (v->ops[h].op->kind == AIR_OP_LAUNCH) launch = h;
    if (launch == AIR_V_NONE) continue;
    for (int k = AIR_TOK_AFF; k <= AIR_TOK_CONC; ++k) {
      for (uint32_t i = 0; i < op->toks[k].n && op->toks[k].items; ++i) {
        air_vid_t t = op->toks[k].items[i];
        char nb[64];
        air_v_vname(v, t, nb, sizeof nb);
        bool reported = false;
        /* Follow the token out through kernel args and loop iter_args. */
        for (int steps = 0; air_v_valid(v, t) && steps < 256; ++steps) {
          const air_vval_t* vv = &v->vals[t];
          if (vv->owner == AIR_V_NONE || !vv->is_arg || v->ops[vv->owner].bad) break;
          const air_op_t* o = v->ops[vv->owner].op;
          uint32_t idx = vv->index, n = o->iaux[0];
          if (air_v_is_hier(o->kind) && idx >= 2 * n && n + idx - 2 * n < o->n_operands) {
            if (o->kind == AIR_OP_LAUNCH) {
              ERR(id, "launch-token-scope",
                  "%s in the %s list of %s is passed into the air.launch at %u:%u through "
                  "args; only dependency tokens may cross a launch boundary, so create "
                  "affinity/concurrency tokens inside the launch (air.token.alloc)",
                  nb, tl[k], air_v_opname(op), o->line, o->col);
              reported = true;
              break;
            }
            t = o->operands[n + idx - 2 * n];
          } else if (o->kind == AIR_OP_FOR && idx >= 1 && 2 + idx < o->n_operands) {
            t = o->operands[2 + idx];
          } else if (o->kind == AIR_OP_AFFINE_FOR && idx >= 1 && idx - 1 < o->n_operands) {
            t = o->operands[idx - 1];
          } else {
            break;
          }
        }
        if (reported || !air_v_valid(v, t) || v->vals[t].owner == AIR_V_NONE) continue;
        uint32_t d = v->vals[t].owner;
        if (d == launch ? v->vals[t].is_arg : inside(v, launch, d)) continue;
        const air_op_t* lo = v->ops[launch].op;
        ERR(id, "launch-token-scope",
            "%s in the %s list of %s is defined outside the enclosing air.launch at %u:%u; "
            "affinity and concurrency tokens may not cross a launch boundary",
            nb, tl[k], air_v_opname(op), lo->line, lo->col);
      }
    }
  }
}

/* Ops the token chain of `b` reaches (dependency lists, transitively) get
 * mark[op] = stamp. Bounded: a partial walk only misses conflicts. */
static void mark_deps(air_vctx_t* v, uint32_t b, uint32_t* mark, uint32_t stamp, uint32_t* stack,
                      uint32_t cap) {
  uint32_t sp = 0, budget = 4096;
  stack[sp++] = b;
  while (sp && budget--) {
    const air_op_t* op = v->ops[stack[--sp]].op;
    for (uint32_t i = 0; i < op->toks[AIR_TOK_DEP].n && op->toks[AIR_TOK_DEP].items; ++i) {
      air_vid_t t = op->toks[AIR_TOK_DEP].items[i];
      if (!air_v_valid(v, t) || v->vals[t].owner == AIR_V_NONE || v->vals[t].is_arg) continue;
      uint32_t d = v->vals[t].owner;
      if (mark[d] == stamp) continue;
      mark[d] = stamp;
      if (sp < cap) stack[sp++] = d;
    }
  }
}

/* True when `b` can only start after `a` completes because `a` blocks the
 * sequential flow of its block and `b` comes later in that block. */
static bool after_blocking(const air_vctx_t* v, uint32_t a, uint32_t b) {
  if (v->ops[a].op->flags & AIR_OPF_ASYNC) return false;
  uint32_t x = b;
  while (x != AIR_V_NONE && v->ops[x].parent != v->ops[a].parent) x = v->ops[x].parent;
  return x != AIR_V_NONE && x > a && v->ops[x].region == v->ops[a].region && !inside(v, a, b);
}

static void check_token_conflicts(air_vctx_t* v) {
  uint32_t nv = v->p->n_values;
  uint32_t* start = air_v_calloc(v, (size_t)nv + 1, sizeof(uint32_t));
  uint32_t* astamp = air_v_calloc(v, nv, sizeof(uint32_t));
  uint32_t* aop = air_v_calloc(v, nv, sizeof(uint32_t));
  uint32_t* mark = air_v_calloc(v, v->n_ops, sizeof(uint32_t));
  uint32_t* stack = air_v_calloc(v, 4096, sizeof(uint32_t));
  uint32_t* members = NULL;
  uint32_t total = 0;
  if (v->oom) goto done;
  /* Members of each concurrency group, bucketed by token (counting sort). */
  for (uint32_t id = 0; id < v->n_ops; ++id) {
    const air_op_t* op = v->ops[id].op;
    if (v->ops[id].bad || !air_v_is_hier(op->kind)) continue;
    for (uint32_t i = 0; i < op->toks[AIR_TOK_CONC].n; ++i) {
      air_vid_t t = op->toks[AIR_TOK_CONC].items[i];
      if (!air_v_valid(v, t)) continue;
      for (uint32_t j = 0; j < op->toks[AIR_TOK_AFF].n; ++j)
        if (op->toks[AIR_TOK_AFF].items[j] == t) {
          char nb[64];
          ERR(id, "token-conflict",
              "%s is in both the affinity and the concurrency list of %s; affinity serialises "
              "ops and concurrency makes them overlap, so use two different tokens",
              air_v_vname(v, t, nb, sizeof nb), air_v_opname(op));
        }
      start[t + 1]++;
      total++;
    }
  }
  for (uint32_t t = 0; t < nv; ++t) start[t + 1] += start[t];
  members = air_v_calloc(v, total, sizeof(uint32_t));
  if (!members) goto done;
  for (uint32_t id = 0; id < v->n_ops; ++id) {
    const air_op_t* op = v->ops[id].op;
    if (v->ops[id].bad || !air_v_is_hier(op->kind)) continue;
    for (uint32_t i = 0; i < op->toks[AIR_TOK_CONC].n; ++i) {
      air_vid_t t = op->toks[AIR_TOK_CONC].items[i];
      if (air_v_valid(v, t)) members[astamp[t]++ + start[t]] = id;
    }
  }
  memset(astamp, 0, nv * sizeof(uint32_t));
  uint32_t stamp = 0;
  for (air_vid_t t = 1; t < nv; ++t) {
    uint32_t lo = start[t], hi = start[t + 1];
    if (hi - lo < 2) continue;
    char tn[64];
    air_v_vname(v, t, tn, sizeof tn);
    for (uint32_t m = lo; m < hi; ++m) {
      uint32_t id = members[m];
      const air_op_t* op = v->ops[id].op;
      for (uint32_t i = 0; i < op->toks[AIR_TOK_AFF].n; ++i) {
        air_vid_t a = op->toks[AIR_TOK_AFF].items[i];
        if (!air_v_valid(v, a)) continue;
        if (astamp[a] == t && aop[a] != id) {
          const air_op_t* o = v->ops[aop[a]].op;
          char an[64];
          ERR(id, "token-conflict",
              "%s and the %s at %u:%u share affinity token %s (run one after the other on the "
              "same resources) and concurrency token %s (run at the same time); drop one of "
              "the two",
              air_v_opname(op), air_v_opname(o), o->line, o->col, air_v_vname(v, a, an, sizeof an),
              tn);
        } else {
          astamp[a] = t;
          aop[a] = id;
        }
      }
    }
    if (hi - lo > 256) continue;
    for (uint32_t m = lo; m < hi; ++m) {
      uint32_t b = members[m];
      mark_deps(v, b, mark, ++stamp, stack, 4096);
      for (uint32_t k = lo; k < hi; ++k) {
        uint32_t a = members[k];
        if (a == b) continue;
        bool dep = mark[a] == stamp, seq = !dep && after_blocking(v, a, b);
        if (!dep && !seq) continue;
        const air_op_t* ao = v->ops[a].op;
        ERR(b, "token-conflict",
            "%s shares concurrency token %s with the %s at %u:%u, so the two must run at the "
            "same time, but it %s; remove the ordering or the concurrency token",
            air_v_opname(v->ops[b].op), tn, air_v_opname(ao), ao->line, ao->col,
            dep ? "waits for that op's token" : "only starts after that blocking op completes");
      }
    }
  }
done:
  air_mem_free(v->a, start);
  air_mem_free(v->a, astamp);
  air_mem_free(v->a, aop);
  air_mem_free(v->a, mark);
  air_mem_free(v->a, stack);
  air_mem_free(v->a, members);
}

void air_v_check_scopes(air_vctx_t* v) {
  uint8_t* vis = air_v_calloc(v, v->p->n_values ? v->p->n_values : 1, 1);
  if (!vis) return;
  scope_op(v, vis, 0);
  air_mem_free(v->a, vis);
  check_dropped_tokens(v);
  check_launch_scope(v);
  check_token_conflicts(v);
}

/* verify_deadlock.c - [deadlock]: channel operations that can start but never
 * complete.
 *
 * The model (spec 2.6): a get completes only after a put on its channel ran;
 * depth N lets N-1 transfers run ahead of the gets (depth 1 is a rendezvous: the
 * spec's minimal deadlock is a put then a get in one scope), so a blocking put
 * that is the k-th to one index of a sequential scope with no get in between
 * completes only if k <= N-1 or some get of the channel can run. An op can start
 * when every blocking op before it in its block (and its ancestors' blocks) and
 * every token in its dependency list has completed; a hierarchy op completes
 * when everything nested in it does.
 *
 * "Can run" is the least fixpoint of these facts, computed by rounds that walk
 * the program: round r decides which channel ops can start from which channels
 * had a startable put/get in round r-1, until nothing changes. An op that can
 * start but cannot complete in the fixpoint is a deadlock: every event that
 * could unblock it is causally after it (a cycle through channels is the
 * general case). Every approximation is optimistic (counts, indices, branch
 * conditions and loop trip counts are ignored unless static), so a reported
 * deadlock is real whenever the op runs at all. */
#include <string.h>

#include "runtime/verify/verify_passes.h"
#include "runtime/verify/verify_util.h"

#define STEP_LIMIT 60000000ull
#define MAX_ROUNDS 256

typedef struct dl_t {
  air_vctx_t* v;
  uint8_t* done;                      /* per value: the token can be signaled */
  uint8_t* reach;                     /* per op: the op can start */
  uint8_t* comp;                      /* per op: a put/get can complete once started */
  uint32_t* kpos;                     /* per op: position of a blocking put in its same-index run */
  uint8_t *pput, *pget, *cput, *cget; /* per channel: previous/current round */
  uint32_t *rstamp, *rlen, *rfirst;   /* per channel: the current run of puts */
  uint32_t stamp;
  uint64_t steps;
  bool aborted;
} dl_t;

enum { FLOW_DONE = 1, ALL_DONE = 2 };

static bool deps_done(const dl_t* D, const air_op_t* op) {
  const air_vlist_t* l = &op->toks[AIR_TOK_DEP];
  for (uint32_t i = 0; i < l->n; ++i)
    if (air_v_valid(D->v, l->items[i]) && !D->done[l->items[i]]) return false;
  return true;
}

/* Two puts write the same channel index when their index operands are the same
 * values or equal constants. */
static bool same_index(const air_vctx_t* v, const air_op_t* a, const air_op_t* b) {
  uint32_t n = a->iaux[0];
  if (n != b->iaux[0]) return false;
  for (uint32_t k = 0; k < n; ++k) {
    int64_t x, y;
    if (a->operands[k] == b->operands[k]) continue;
    if (!air_v_const(v, a->operands[k], &x) || !air_v_const(v, b->operands[k], &y) || x != y)
      return false;
  }
  return true;
}

/* True when a loop's bounds are constants and it runs at least once. */
static bool runs_once(const air_vctx_t* v, const air_op_t* o) {
  int64_t lb, ub, st;
  uint32_t n = o->iaux[0];
  switch (o->kind) {
    case AIR_OP_FOR:
      return air_v_const(v, o->operands[0], &lb) && air_v_const(v, o->operands[1], &ub) &&
             air_v_const(v, o->operands[2], &st) && st > 0 && ub > lb;
    case AIR_OP_AFFINE_FOR:
      return air_v_ix_const(v, &o->lists[0].items[0], &lb) &&
             air_v_ix_const(v, &o->lists[0].items[1], &ub) && ub > lb;
    case AIR_OP_PARALLEL:
      for (uint32_t k = 0; k < n; ++k)
        if (!air_v_const(v, o->operands[k], &lb) || !air_v_const(v, o->operands[n + k], &ub) ||
            !air_v_const(v, o->operands[2 * n + k], &st) || st <= 0 || ub <= lb)
          return false;
      return true;
    case AIR_OP_FORALL:
      for (uint32_t k = 0; k < n && o->n_lists == 3; ++k)
        if (!air_v_ix_const(v, &o->lists[0].items[k], &lb) ||
            !air_v_ix_const(v, &o->lists[1].items[k], &ub) ||
            !air_v_ix_const(v, &o->lists[2].items[k], &st) || st <= 0 || ub <= lb)
          return false;
      return o->n_lists == 3;
    default: return false;
  }
}

static uint8_t dl_region(dl_t* D, uint32_t id, uint32_t r, bool reach);

/* Walks op j; returns whether it completes and sets *pending when an async part
 * of it does not. */
static bool dl_op(dl_t* D, uint32_t j, bool blocked, uint32_t* stamp, bool* pending) {
  air_vctx_t* v = D->v;
  const air_op_t* op = v->ops[j].op;
  bool starts = !blocked && deps_done(D, op);
  bool done = starts;
  uint32_t c = v->ops[j].chan;
  air_opcls_t cls = air_opkind_class(op->kind);
  if (air_v_is_chan_io(op->kind) && c != AIR_V_NONE && !v->chans[c].bad) {
    bool put = op->kind == AIR_OP_PUT, async = op->flags & AIR_OPF_ASYNC;
    D->reach[j] = starts;
    if (starts) (put ? D->cput : D->cget)[c] = 1;
    bool comp;
    if (!put) {
      comp = D->pput[c];
      D->rstamp[c] = 0; /* a get may consume the puts before it */
    } else {
      uint32_t k = 1;
      if (!async && starts) {
        if (D->rstamp[c] == *stamp && same_index(v, v->ops[D->rfirst[c]].op, op)) {
          k = ++D->rlen[c];
        } else {
          D->rstamp[c] = *stamp;
          D->rfirst[c] = j;
          D->rlen[c] = 1;
        }
      }
      D->kpos[j] = k;
      comp = (int64_t)k <= v->chans[c].depth - 1 || D->pget[c];
    }
    D->comp[j] = comp;
    done = starts && comp;
  } else if (op->kind == AIR_OP_FUNC) {
    if (op->n_regions && v->ops[j].has_chan) dl_region(D, j, 0, true);
    return true;
  } else if (op->n_regions && v->ops[j].has_chan) {
    uint8_t body = FLOW_DONE | ALL_DONE;
    if (cls == AIR_OPC_IF || cls == AIR_OPC_AFFINE_IF || cls == AIR_OPC_SWITCH) {
      /* Any branch may be taken: the op completes when one of them does. */
      body = cls != AIR_OPC_SWITCH && op->n_regions < 2 ? FLOW_DONE | ALL_DONE : 0;
      for (uint32_t r = 0; r < op->n_regions; ++r) body |= dl_region(D, j, r, starts);
    } else {
      for (uint32_t r = 0; r < op->n_regions; ++r) body &= dl_region(D, j, r, starts);
    }
    if (cls == AIR_OPC_HIER) {
      done = starts && (body & ALL_DONE);
    } else if (cls == AIR_OPC_FOR || cls == AIR_OPC_PARALLEL || cls == AIR_OPC_AFFINE_FOR ||
               cls == AIR_OPC_FORALL) {
      bool once = runs_once(v, op);
      done = starts && ((body & FLOW_DONE) || !once);
      if (once && !(body & ALL_DONE)) *pending = true;
    } else {
      done = starts && (body & FLOW_DONE);
      if (!(body & ALL_DONE)) *pending = true;
    }
    /* Channel ops nested in this op may consume the puts before it. */
    *stamp = ++D->stamp;
  }
  bool async = (op->flags & AIR_OPF_ASYNC) || op->kind == AIR_OP_EXECUTE;
  for (uint32_t i = 0; i < op->n_results; ++i)
    if (air_v_valid(v, op->results[i])) D->done[op->results[i]] = done;
  if (async && op->n_results && air_v_is_token(v, op->results[0])) {
    if (!done) *pending = true;
    return true;
  }
  return done;
}

static uint8_t dl_region(dl_t* D, uint32_t id, uint32_t r, bool reach) {
  air_vctx_t* v = D->v;
  uint32_t stamp = ++D->stamp;
  bool blocked = !reach, pending = false;
  for (uint32_t j = air_v_first_child(v, id, r); j != AIR_V_NONE;
       j = air_v_next_sibling(v, id, j)) {
    if (D->aborted || ++D->steps > STEP_LIMIT) {
      D->aborted = true;
      return 0;
    }
    if (v->ops[j].bad) continue;
    if (!dl_op(D, j, blocked, &stamp, &pending)) blocked = true;
  }
  return (blocked ? 0 : FLOW_DONE) | (!blocked && !pending ? ALL_DONE : 0);
}

static void report(dl_t* D, uint32_t j) {
  air_vctx_t* v = D->v;
  const air_op_t* op = v->ops[j].op;
  const air_vchan_t* ch = &v->chans[v->ops[j].chan];
  const char* name = op->sym;
  if (v->ops[j].hier != AIR_V_NONE && v->ops[v->ops[j].hier].op->kind == AIR_OP_RANK) {
    /* At rank level every rank runs the same body: no rank gets past this op. */
    air_v_error(v, op, "deadlock",
                "air.channel.%s @%s waits forever in every rank: no rank can reach a matching "
                "air.channel.%s @%s before this op completes (each rank runs the same body, so "
                "each is blocked here%s); %s",
                op->kind == AIR_OP_GET ? "get" : "put", name,
                op->kind == AIR_OP_GET ? "put" : "get", name,
                op->kind == AIR_OP_PUT && ch->depth <= 1 ? "; depth 1 is a rendezvous" : "",
                op->kind == AIR_OP_GET
                    ? "make the get async, or let each rank put before it gets"
                    : "make the put async, or give the channel room for it (a larger depth)");
    return;
  }
  if (op->kind == AIR_OP_GET) {
    air_v_error(v, op, "deadlock",
                "air.channel.get @%s waits forever: no air.channel.put @%s can run before it "
                "completes (every put is ordered after this get, or after another channel "
                "operation that never completes); move the puts into a concurrent herd or "
                "segment, or into async ops that do not wait for this get",
                name, name);
  } else if (ch->depth <= 1) {
    air_v_error(v, op, "deadlock",
                "air.channel.put @%s blocks until a get takes its data (depth 1 is a "
                "rendezvous), but no air.channel.get @%s can run before this put completes "
                "(every get is ordered after it, or after another channel operation that "
                "never completes); put the get in a concurrent herd or segment, or in an "
                "async op that does not wait for this put",
                name, name);
  } else {
    air_v_error(v, op, "deadlock",
                "air.channel.put @%s is put #%u to the same index in this sequential scope "
                "with no get in between, but depth %lld lets only %lld transfers run ahead of "
                "a get and no air.channel.get @%s can run before this put completes; raise the "
                "depth to at least %u or move the gets into a concurrent herd or segment",
                name, D->kpos[j], (long long)ch->depth, (long long)ch->depth - 1, name,
                D->kpos[j] + 1);
  }
}

void air_v_check_deadlock(air_vctx_t* v) {
  if (!v->n_chans || !v->ops[0].has_chan) return;
  dl_t D;
  memset(&D, 0, sizeof(D));
  D.v = v;
  uint32_t nv = v->p->n_values, nc = v->n_chans;
  D.done = air_v_calloc(v, nv, 1);
  D.reach = air_v_calloc(v, v->n_ops, 1);
  D.comp = air_v_calloc(v, v->n_ops, 1);
  D.kpos = air_v_calloc(v, v->n_ops, sizeof(uint32_t));
  D.pput = air_v_calloc(v, nc, 1);
  D.pget = air_v_calloc(v, nc, 1);
  D.cput = air_v_calloc(v, nc, 1);
  D.cget = air_v_calloc(v, nc, 1);
  D.rstamp = air_v_calloc(v, nc, sizeof(uint32_t));
  D.rlen = air_v_calloc(v, nc, sizeof(uint32_t));
  D.rfirst = air_v_calloc(v, nc, sizeof(uint32_t));
  bool converged = false;
  for (int round = 0; round < MAX_ROUNDS && !v->oom && !D.aborted; ++round) {
    memset(D.done, 1, nv);
    memset(D.reach, 0, v->n_ops);
    memset(D.comp, 0, v->n_ops);
    memset(D.cput, 0, nc);
    memset(D.cget, 0, nc);
    memset(D.rstamp, 0, nc * sizeof(uint32_t));
    dl_region(&D, 0, 0, true);
    if (!memcmp(D.cput, D.pput, nc) && !memcmp(D.cget, D.pget, nc)) {
      converged = true;
      break;
    }
    memcpy(D.pput, D.cput, nc);
    memcpy(D.pget, D.cget, nc);
  }
  if (converged && !D.aborted)
    for (uint32_t j = 0; j < v->n_ops; ++j)
      if (D.reach[j] && !D.comp[j] && air_v_is_chan_io(v->ops[j].op->kind)) report(&D, j);
  air_mem_free(v->a, D.done);
  air_mem_free(v->a, D.reach);
  air_mem_free(v->a, D.comp);
  air_mem_free(v->a, D.kpos);
  air_mem_free(v->a, D.pput);
  air_mem_free(v->a, D.pget);
  air_mem_free(v->a, D.cput);
  air_mem_free(v->a, D.cget);
  air_mem_free(v->a, D.rstamp);
  air_mem_free(v->a, D.rlen);
  air_mem_free(v->a, D.rfirst);
}

/* verify_balance.c - [channel-balance]: the spec's static balance condition.
 *
 * Producers and consumers usually sit in different herds, segments or launch
 * bodies, so balance is a whole-program count per channel index: every put and
 * get counts once per instance of its enclosing rank/launch/segment/herd/scf.parallel
 * iteration spaces and once per iteration of its static loops. The count is
 * computed, not enumerated: a binder (iteration space or loop) is enumerated
 * point by point only when some channel index, condition or bound below it
 * depends on its variables ("relevant"); otherwise its body is evaluated once
 * and multiplied by its trip count. Indices, affine.if sets and scf.if
 * conditions are evaluated per point, so tile-dependent routing is exact.
 *
 * What cannot be decided statically is skipped, never guessed: a loop or
 * iteration space with a dynamic count contributes nothing when its body is
 * balanced on its own and makes its channels unknown otherwise; a branch on a
 * dynamic condition must move the same amounts on both sides (the spec's "each
 * branch independently"), and then counts as its then-branch. A broadcast put
 * counts once per receiver of its broadcast set.
 *
 * This file counts; what an index evaluates to at a point and which binders it
 * depends on is verify_balance_index.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/verify/verify_balance_index.h"
#include "runtime/verify/verify_passes.h"

#define UNK UINT64_MAX
#define ENUM_LIMIT (1u << 20)  /* points of one enumerated binder */
#define TRACK_LIMIT (1u << 22) /* counters tracked per index, all channels */
#define MAX_DIMS 16

typedef struct bentry_t {
  uint32_t chan;
  uint64_t pt;
  int64_t put, get;
} bentry_t;

typedef struct bsink_t {
  bentry_t* e;
  uint32_t n, cap;
} bsink_t;

typedef struct bchan_t {
  int64_t* put; /* per index, or NULL when indices are not tracked */
  int64_t* get;
  int64_t put_unk, get_unk; /* contributions whose index is not static */
  bool unk, dyn, touched, reported;
} bchan_t;

typedef struct bdefer_t {
  uint32_t op;
  const char* rule;
  size_t off, len;
} bdefer_t;

static void defer(bal_t* B, uint32_t op, const char* rule, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void defer(bal_t* B, uint32_t op, const char* rule, const char* fmt, ...) {
  if (!air_mem_grow(B->v->a, (void**)&B->defer, &B->cap_defer, (size_t)B->n_defer + 1,
                    sizeof(*B->defer))) {
    B->aborted = true;
    return;
  }
  bdefer_t* d = &B->defer[B->n_defer++];
  d->op = op;
  d->rule = rule;
  d->off = B->text.len;
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(&B->text, fmt, ap);
  va_end(ap);
  d->len = B->text.len - d->off;
}

/*---------------------------------------------------------------------------*/
/* Counting                                                                  */
/*---------------------------------------------------------------------------*/

static void sink_add(bal_t* B, uint32_t c, uint64_t pt, int64_t dput, int64_t dget) {
  if (B->cur) {
    bsink_t* s = B->cur;
    if (!air_mem_grow(B->v->a, (void**)&s->e, &s->cap, (size_t)s->n + 1, sizeof(*s->e))) {
      B->aborted = true;
      return;
    }
    s->e[s->n++] = (bentry_t){c, pt, dput, dget};
    return;
  }
  bchan_t* h = &B->ch[c];
  h->touched = true;
  int64_t *p = &h->put_unk, *g = &h->get_unk;
  if (pt == UNK || !h->put)
    h->unk = true;
  else
    p = &h->put[pt], g = &h->get[pt];
  if (__builtin_add_overflow(*p, dput, p) || __builtin_add_overflow(*g, dget, g)) h->dyn = true;
}

static int entry_cmp(const void* a, const void* b) {
  const bentry_t* x = a;
  const bentry_t* y = b;
  if (x->chan != y->chan) return x->chan < y->chan ? -1 : 1;
  return x->pt < y->pt ? -1 : x->pt > y->pt;
}

/* Sorts and merges entries with the same channel and index. */
static void normalize(bal_t* B, bsink_t* s) {
  if (!s->n) return;
  qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
  uint32_t w = 0;
  for (uint32_t i = 1; i < s->n; ++i) {
    bentry_t* a = &s->e[w];
    const bentry_t* b = &s->e[i];
    if (a->chan == b->chan && a->pt == b->pt) {
      if (__builtin_add_overflow(a->put, b->put, &a->put) ||
          __builtin_add_overflow(a->get, b->get, &a->get))
        B->ch[a->chan].dyn = true;
    } else {
      s->e[++w] = *b;
    }
  }
  s->n = w + 1;
}

static void b_op(bal_t* B, uint32_t j, int64_t mult);

static void b_region(bal_t* B, uint32_t id, uint32_t r, int64_t mult) {
  for (uint32_t j = air_v_first_child(B->v, id, r); j != AIR_V_NONE && !B->aborted;
       j = air_v_next_sibling(B->v, id, j))
    b_op(B, j, mult);
}

/* A body run a statically unknown number of times: it may only move balanced
 * amounts; otherwise its channels cannot be checked. */
static void b_dyn(bal_t* B, uint32_t id) {
  bsink_t s = {0};
  bsink_t* saved = B->cur;
  B->cur = &s;
  b_region(B, id, 0, 1);
  B->cur = saved;
  normalize(B, &s);
  for (uint32_t i = 0; i < s.n; ++i)
    if (s.e[i].put != s.e[i].get) B->ch[s.e[i].chan].dyn = true;
  air_mem_free(B->v->a, s.e);
}

static void fmt_index(char* buf, size_t n, const air_vchan_t* ch, uint64_t pt) {
  size_t k = (size_t)snprintf(buf, n, "[");
  uint64_t div = 1;
  for (uint32_t d = 0; d < ch->rank; ++d) div *= (uint64_t)ch->bdims[d];
  for (uint32_t d = 0; d < ch->rank && k < n; ++d) {
    div /= (uint64_t)ch->bdims[d];
    k += (size_t)snprintf(buf + k, n - k, "%s%llu", d ? ", " : "",
                          (unsigned long long)(pt / div % (uint64_t)ch->bdims[d]));
  }
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* A branch on a condition not known statically: both sides (regions r_then and
 * r_else; an absent else moves nothing) must move the same amounts (net puts -
 * gets) on every channel index. The then-side counts once toward the total when
 * `add`. scf.index_switch compares its first region with each other one. */
static void b_branch_pair(bal_t* B, uint32_t id, int64_t mult, uint32_t r_then, uint32_t r_else,
                          bool add) {
  air_vctx_t* v = B->v;
  bsink_t t = {0}, e = {0};
  bsink_t* saved = B->cur;
  B->cur = &t;
  b_region(B, id, r_then, 1);
  B->cur = &e;
  if (r_else < v->ops[id].op->n_regions) b_region(B, id, r_else, 1);
  B->cur = saved;
  normalize(B, &t);
  normalize(B, &e);
  uint32_t i = 0, k = 0;
  while ((i < t.n || k < e.n) && !B->aborted) {
    int c = i == t.n ? 1 : k == e.n ? -1 : entry_cmp(&t.e[i], &e.e[k]);
    const bentry_t zero = {0, 0, 0, 0};
    const bentry_t* a = c <= 0 ? &t.e[i] : &zero;
    const bentry_t* b = c >= 0 ? &e.e[k] : &zero;
    uint32_t ch = c <= 0 ? t.e[i].chan : e.e[k].chan;
    uint64_t pt = c <= 0 ? t.e[i].pt : e.e[k].pt;
    if (c <= 0) ++i;
    if (c >= 0) ++k;
    int64_t na, nb;
    if (B->ch[ch].dyn) continue;
    if (__builtin_sub_overflow(a->put, a->get, &na) ||
        __builtin_sub_overflow(b->put, b->get, &nb)) {
      B->ch[ch].dyn = true;
      continue;
    }
    if (na == nb) continue;
    B->ch[ch].reported = true;
    if (B->reported[id]) continue;
    B->reported[id] = 1;
    const air_vchan_t* cd = &v->chans[ch];
    char ix[96] = "";
    if (pt != UNK) fmt_index(ix, sizeof ix, cd, pt);
    const air_op_t* o = v->ops[id].op;
    if (o->kind == AIR_OP_INDEX_SWITCH)
      defer(B, id, "channel-balance",
            "the regions of this %s move different amounts on channel @%s%s: region #%u has "
            "%lld puts and %lld gets, region #%u %lld puts and %lld gets; balance must hold on "
            "each branch, so match every put and get inside each case (or make the switch "
            "operand static)",
            air_v_opname(o), v->ops[cd->op].op->sym, ix, r_then, (long long)a->put,
            (long long)a->get, r_else, (long long)b->put, (long long)b->get);
    else
      defer(B, id, "channel-balance",
            "the branches of this %s move different amounts on channel @%s%s: the then-branch "
            "has %lld puts and %lld gets, the else-branch %lld puts and %lld gets; balance must "
            "hold on each branch, so match every put and get inside the branch (or make the "
            "condition static)",
            air_v_opname(o), v->ops[cd->op].op->sym, ix, (long long)a->put, (long long)a->get,
            (long long)b->put, (long long)b->get);
  }
  for (uint32_t x = 0; add && x < t.n; ++x) {
    int64_t p, g;
    if (__builtin_mul_overflow(t.e[x].put, mult, &p) ||
        __builtin_mul_overflow(t.e[x].get, mult, &g))
      B->ch[t.e[x].chan].dyn = true;
    else
      sink_add(B, t.e[x].chan, t.e[x].pt, p, g);
  }
  air_mem_free(v->a, t.e);
  air_mem_free(v->a, e.e);
}

static void b_branches(bal_t* B, uint32_t id, int64_t mult) {
  b_branch_pair(B, id, mult, 0, 1, true);
}

/* Counts the body of a binder over its space: lb[k] + i * st[k], i < trip[k]. */
static void b_space(bal_t* B, uint32_t id, uint32_t n, const int64_t* lb, const int64_t* st,
                    const int64_t* trip, const air_vid_t* vars, int64_t mult) {
  uint32_t mask = B->rel[id], relk[MAX_DIMS], nrel = 0;
  uint64_t points = 1;
  int64_t m = mult;
  for (uint32_t k = 0; k < n; ++k) {
    if (trip[k] <= 0) return;
    if (mask & air_vbal_dim_bit(k)) {
      relk[nrel++] = k;
      points = (uint64_t)trip[k] > ENUM_LIMIT ? ENUM_LIMIT + 1ull : points * (uint64_t)trip[k];
      if (points > ENUM_LIMIT) break;
    } else if (__builtin_mul_overflow(m, trip[k], &m)) {
      b_dyn(B, id);
      return;
    }
  }
  if (points > ENUM_LIMIT) {
    b_dyn(B, id);
    return;
  }
  if (!nrel) {
    b_region(B, id, 0, m);
    return;
  }
  int64_t cnt[MAX_DIMS] = {0};
  for (uint32_t r = 0; r < nrel; ++r) {
    B->bound[vars[relk[r]]] = 1;
    B->env[vars[relk[r]]] = lb[relk[r]];
  }
  for (;;) {
    b_region(B, id, 0, m);
    if (B->aborted) break;
    uint32_t r = 0;
    for (; r < nrel; ++r) {
      uint32_t k = relk[r];
      if (++cnt[r] < trip[k]) {
        B->env[vars[k]] = lb[k] + cnt[r] * st[k];
        break;
      }
      cnt[r] = 0;
      B->env[vars[k]] = lb[k];
    }
    if (r == nrel) break;
  }
  for (uint32_t r = 0; r < nrel; ++r) B->bound[vars[relk[r]]] = 0;
}

static bool trip_count(int64_t lb, int64_t ub, int64_t st, int64_t* trip) {
  if (st <= 0) return false;
  if (ub <= lb) {
    *trip = 0;
    return true;
  }
  int64_t span;
  if (__builtin_sub_overflow(ub, lb, &span)) return false;
  *trip = span / st + (span % st != 0);
  return true;
}

static void b_chan(bal_t* B, uint32_t j, int64_t mult) {
  air_vctx_t* v = B->v;
  const air_op_t* o = v->ops[j].op;
  uint32_t c = v->ops[j].chan;
  const air_vchan_t* ch = &v->chans[c];
  bchan_t* h = &B->ch[c];
  if (ch->bad || !ch->dims) return;
  uint32_t n = o->iaux[0], R = ch->rank;
  bool put = o->kind == AIR_OP_PUT;
  if (R > MAX_DIMS || (n != R && !(n == 0 && air_v_chan_may_omit(ch, put)))) {
    h->dyn = true;
    return;
  }
  int64_t idx[MAX_DIMS] = {0};
  bool known = true;
  for (uint32_t k = 0; k < n; ++k)
    if (!air_v_chan_index_ignored(ch, put, k)) known = air_vbal_eval(B, o->operands[k], &idx[k], 0) && known;
  const int64_t* lim = put ? ch->dims : ch->bdims;
  if (known) {
    for (uint32_t k = 0; k < R; ++k) {
      if (idx[k] >= 0 && idx[k] < lim[k]) continue;
      h->dyn = true;
      int64_t lit;
      /* A literal index out of range was reported with the op itself. */
      if (!B->reported[j] && !air_v_const(v, o->operands[k], &lit)) {
        B->reported[j] = 1;
        defer(B, j, "undeclared-channel",
              "index #%u of %s evaluates to %lld for some instance, outside [0, %lld) of "
              "air.channel @%s",
              k, air_v_opname(o), (long long)idx[k], (long long)lim[k], o->sym);
      }
      return;
    }
  }
  int64_t fan = 1, amount;
  bool over = false;
  for (uint32_t k = 0; put && k < R; ++k)
    if (ch->dims[k] != ch->bdims[k]) over = over || __builtin_mul_overflow(fan, ch->bdims[k], &fan);
  if (over || __builtin_mul_overflow(mult, fan, &amount)) {
    h->dyn = true;
    return;
  }
  if (!known || !h->put) {
    sink_add(B, c, UNK, put ? amount : 0, put ? 0 : mult);
    return;
  }
  /* A broadcast put reaches every index that agrees with it on the dimensions
   * the channel does not broadcast. */
  int64_t d[MAX_DIMS];
  for (uint32_t k = 0; k < R; ++k) d[k] = ch->dims[k] == ch->bdims[k] || !put ? idx[k] : 0;
  for (;;) {
    uint64_t pt = 0;
    for (uint32_t k = 0; k < R; ++k) pt = pt * (uint64_t)ch->bdims[k] + (uint64_t)d[k];
    sink_add(B, c, pt, put ? mult : 0, put ? 0 : mult);
    if (!put || fan == 1) return;
    uint32_t k = R;
    while (k-- > 0) {
      if (ch->dims[k] == ch->bdims[k]) continue;
      if (++d[k] < ch->bdims[k]) break;
      d[k] = 0;
    }
    if (k == UINT32_MAX) return;
  }
}

static void b_op(bal_t* B, uint32_t j, int64_t mult) {
  air_vctx_t* v = B->v;
  if (!air_vbal_step(B) || !v->ops[j].has_chan || v->ops[j].bad) return;
  const air_op_t* o = v->ops[j].op;
  int64_t lb[MAX_DIMS], st[MAX_DIMS], trip[MAX_DIMS], x;
  air_vid_t vars[MAX_DIMS];
  uint32_t n = o->iaux[0];
  switch (o->kind) {
    case AIR_OP_PUT:
    case AIR_OP_GET: b_chan(B, j, mult); return;
    case AIR_OP_LAUNCH:
    case AIR_OP_SEGMENT:
    case AIR_OP_HERD:
    case AIR_OP_RANK:
      if (!o->n_regions) return;
      if (n > MAX_DIMS) {
        b_dyn(B, j);
        return;
      }
      for (uint32_t k = 0; k < n; ++k) {
        lb[k] = 0;
        st[k] = 1;
        vars[k] = o->regions[0]->args[k];
        if (!air_vbal_eval(B, o->operands[k], &trip[k], 0)) {
          b_dyn(B, j);
          return;
        }
      }
      b_space(B, j, n, lb, st, trip, vars, mult);
      return;
    case AIR_OP_FOR:
    case AIR_OP_AFFINE_FOR: {
      int64_t ub;
      bool ok;
      if (o->kind == AIR_OP_FOR) {
        ok = air_vbal_eval(B, o->operands[0], &lb[0], 0) && air_vbal_eval(B, o->operands[1], &ub, 0) &&
             air_vbal_eval(B, o->operands[2], &st[0], 0);
      } else {
        const air_ix_t* bnd = o->lists[0].items;
        lb[0] = bnd[0].cst;
        ub = bnd[1].cst;
        st[0] = o->iaux[1];
        ok = (!bnd[0].value || air_vbal_eval(B, bnd[0].value, &lb[0], 0)) &&
             (!bnd[1].value || air_vbal_eval(B, bnd[1].value, &ub, 0));
      }
      if (!ok || !trip_count(lb[0], ub, st[0], &trip[0])) {
        b_dyn(B, j);
        return;
      }
      vars[0] = o->regions[0]->args[0];
      b_space(B, j, 1, lb, st, trip, vars, mult);
      return;
    }
    case AIR_OP_PARALLEL:
      if (n > MAX_DIMS) {
        b_dyn(B, j);
        return;
      }
      for (uint32_t k = 0; k < n; ++k) {
        int64_t ub;
        vars[k] = o->regions[0]->args[k];
        if (!air_vbal_eval(B, o->operands[k], &lb[k], 0) || !air_vbal_eval(B, o->operands[n + k], &ub, 0) ||
            !air_vbal_eval(B, o->operands[2 * n + k], &st[k], 0) || !trip_count(lb[k], ub, st[k], &trip[k])) {
          b_dyn(B, j);
          return;
        }
      }
      b_space(B, j, n, lb, st, trip, vars, mult);
      return;
    case AIR_OP_IF:
    case AIR_OP_AFFINE_IF: {
      int c = o->kind == AIR_OP_AFFINE_IF    ? air_vbal_eval_set(B, o)
              : air_vbal_eval(B, o->operands[0], &x, 0) ? x != 0
                                             : -1;
      if (c < 0)
        b_branches(B, j, mult);
      else if (c || o->n_regions > 1)
        b_region(B, j, c ? 0 : 1, mult);
      return;
    }
    case AIR_OP_INDEX_SWITCH: {
      /* The case whose value the operand has, else the default (the last region). */
      uint32_t nc = o->n_regions ? o->n_regions - 1 : 0;
      if (!o->n_regions) return;
      if (!air_vbal_eval(B, o->operands[0], &x, 0)) {
        for (uint32_t r = 1; r < o->n_regions && !B->aborted; ++r)
          b_branch_pair(B, j, mult, 0, r, r == 1);
        if (o->n_regions == 1) b_region(B, j, 0, mult);
        return;
      }
      uint32_t r = 0;
      while (r < nc && o->value.ints[r] != x) ++r;
      b_region(B, j, r, mult);
      return;
    }
    case AIR_OP_FORALL: {
      if (n > MAX_DIMS || o->n_lists != 3) {
        b_dyn(B, j);
        return;
      }
      for (uint32_t k = 0; k < n; ++k) {
        int64_t ub;
        const air_ix_t* bl = &o->lists[0].items[k];
        const air_ix_t* bu = &o->lists[1].items[k];
        const air_ix_t* bs = &o->lists[2].items[k];
        vars[k] = o->regions[0]->args[k];
        lb[k] = bl->cst;
        ub = bu->cst;
        st[k] = bs->cst;
        if ((bl->value && !air_vbal_eval(B, bl->value, &lb[k], 0)) || (bu->value && !air_vbal_eval(B, bu->value, &ub, 0)) ||
            (bs->value && !air_vbal_eval(B, bs->value, &st[k], 0)) || !trip_count(lb[k], ub, st[k], &trip[k])) {
          b_dyn(B, j);
          return;
        }
      }
      b_space(B, j, n, lb, st, trip, vars, mult);
      return;
    }
    default: break;
  }
  for (uint32_t r = 0; r < o->n_regions; ++r) b_region(B, j, r, mult);
}

/*---------------------------------------------------------------------------*/
/* Driver                                                                    */
/*---------------------------------------------------------------------------*/

static void report(bal_t* B, uint32_t c) {
  air_vctx_t* v = B->v;
  const air_vchan_t* ch = &v->chans[c];
  const bchan_t* h = &B->ch[c];
  const air_op_t* o = v->ops[ch->op].op;
  char bnote[160] = "";
  if (ch->broadcast) {
    size_t k = (size_t)snprintf(bnote, sizeof bnote,
                                "; each put is counted once per receiver of broadcast_shape [");
    for (uint32_t d = 0; d < ch->rank && k < sizeof bnote; ++d)
      k += (size_t)snprintf(bnote + k, sizeof bnote - k, "%s%lld", d ? ", " : "",
                            (long long)ch->bdims[d]);
    if (k < sizeof bnote) snprintf(bnote + k, sizeof bnote - k, "]");
  }
  static const char* const how =
      "counted over every rank/launch/segment/herd/scf.parallel instance and loop iteration";
  if (!h->unk && h->put) {
    air_sb_t sb;
    air_sb_init(&sb, v->a);
    uint32_t bad = 0;
    for (uint64_t pt = 0; pt < ch->npoints; ++pt) {
      if (h->put[pt] == h->get[pt]) continue;
      if (bad++ < 4) {
        char ix[96];
        fmt_index(ix, sizeof ix, ch, pt);
        air_sb_printf(&sb, "%s@%s%s has %lld puts but %lld gets", bad > 1 ? "; " : "", o->sym, ix,
                      (long long)h->put[pt], (long long)h->get[pt]);
      }
    }
    if (bad > 4) air_sb_printf(&sb, "; and %u more indices", bad - 4);
    if (bad)
      air_v_error(v, o, "channel-balance",
                  "channel @%s is unbalanced: %s (%s%s); every put must be matched by a get on "
                  "the same channel index",
                  o->sym, sb.data ? sb.data : "", how, bnote);
    air_sb_free(&sb);
    return;
  }
  int64_t p = h->put_unk, g = h->get_unk;
  for (uint64_t pt = 0; h->put && pt < ch->npoints; ++pt)
    if (__builtin_add_overflow(p, h->put[pt], &p) || __builtin_add_overflow(g, h->get[pt], &g))
      return;
  if (p != g)
    air_v_error(v, o, "channel-balance",
                "channel @%s is unbalanced: %lld puts but %lld gets in total (%s%s; some indices "
                "are not static, so only totals are compared); every put must be matched by a "
                "get",
                o->sym, (long long)p, (long long)g, how, bnote);
}

void air_v_check_balance(air_vctx_t* v) {
  if (!v->n_chans || !v->ops[0].has_chan) return;
  bal_t B;
  memset(&B, 0, sizeof(B));
  B.v = v;
  uint32_t nv = v->p->n_values;
  B.ch = air_v_calloc(v, v->n_chans, sizeof(bchan_t));
  B.env = air_v_calloc(v, nv, sizeof(int64_t));
  B.bound = air_v_calloc(v, nv, 1);
  B.seen = air_v_calloc(v, nv, 1);
  B.rel = air_v_calloc(v, v->n_ops, sizeof(uint32_t));
  B.reported = air_v_calloc(v, v->n_ops, 1);
  air_sb_init(&B.text, v->a);
  if (!v->oom) {
    uint64_t tracked = 0;
    for (uint32_t c = 0; c < v->n_chans; ++c) {
      uint64_t np = v->chans[c].npoints;
      if (!np || tracked + np > TRACK_LIMIT) continue;
      B.ch[c].put = air_v_calloc(v, np, sizeof(int64_t));
      B.ch[c].get = air_v_calloc(v, np, sizeof(int64_t));
      tracked += np;
      if (v->oom) break;
    }
  }
  if (!v->oom) {
    air_vbal_mark_relevant(&B);
    for (uint32_t j = air_v_first_child(v, 0, 0); j != AIR_V_NONE && !B.aborted;
         j = air_v_next_sibling(v, 0, j))
      b_op(&B, j, 1);
    if (!B.aborted && !B.text.oom) {
      for (uint32_t i = 0; i < B.n_defer; ++i)
        air_v_error(v, v->ops[B.defer[i].op].op, B.defer[i].rule, "%.*s", (int)B.defer[i].len,
                    B.text.data + B.defer[i].off);
      for (uint32_t c = 0; c < v->n_chans; ++c) {
        const bchan_t* h = &B.ch[c];
        if (!v->chans[c].bad && !h->dyn && !h->reported && h->touched) report(&B, c);
      }
    }
  }
  for (uint32_t c = 0; B.ch && c < v->n_chans; ++c) {
    air_mem_free(v->a, B.ch[c].put);
    air_mem_free(v->a, B.ch[c].get);
  }
  air_mem_free(v->a, B.ch);
  air_mem_free(v->a, B.env);
  air_mem_free(v->a, B.bound);
  air_mem_free(v->a, B.seen);
  air_mem_free(v->a, B.rel);
  air_mem_free(v->a, B.reported);
  air_mem_free(v->a, B.stack);
  air_mem_free(v->a, B.defer);
  air_sb_free(&B.text);
}

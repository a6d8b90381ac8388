/* hier.c - the hierarchy op family: air.launch, air.segment and air.herd. The op
 * runs in a strand of its own; every instance of its iteration space becomes a
 * strand joined to the op's token, all started together (segment and herd
 * instances are co-resident; launch instances may run in parallel too, each
 * with its own channel space). A herd instance is a processing element (ix_pe_t)
 * that kernels and traces are told about. Ops sharing an affinity token run one
 * at a time. */
#include "hal/cpu/interp/hier.h"

#include <stdio.h>
#include <stdlib.h>

#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/rank.h"
#include "hal/cpu/interp/unit.h"
#include "hal/futex.h"

static int tok_ptr_cmp(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)*(void* const*)a, y = (uintptr_t)*(void* const*)b;
  return x < y ? -1 : x > y;
}

/* Ops sharing an affinity token run one at a time: the op's completion token
 * holds each group until it fires. Groups are taken in address order, so two
 * ops never wait on each other's groups. */
static int acquire_affinity(ix_strand_t* s, ix_env_t* e, const air_op_t* op) {
  ix_run_t* r = s->run;
  const air_vlist_t* aff = &op->toks[AIR_TOK_AFF];
  if (!aff->n) return IX_CONT;
  enum { MAXA = 16 };
  struct {
    ix_tok_t* t;
    air_vid_t v;
  } a[MAXA];
  uint32_t n = 0;
  for (uint32_t i = 0; i < aff->n && n < MAXA; ++i) {
    air_status_t st = ix_get_tok(r, e, op, aff->items[i], &a[n].t);
    if (st) return ix_failed(s, st);
    a[n++].v = aff->items[i];
  }
  qsort(a, n, sizeof a[0], tok_ptr_cmp);
  ix_tok_t* me = s->join;
  ix_wake_t w = {0};
  ix_lock(r);
  for (uint32_t i = 0; i < n; ++i) {
    ix_tok_t* t = a[i].t;
    if (t->aff_holder == me) continue;
    if (!t->aff_holder) {
      if (me->n_held == me->cap_held) {
        uint32_t cap = me->cap_held ? me->cap_held * 2 : 4;
        ix_tok_t** h = r->alloc.realloc(r->alloc.self, me->held, cap * sizeof(*h));
        if (!h) {
          ix_unlock(r);
          return ix_oom(s);
        }
        me->held = h;
        me->cap_held = cap;
      }
      ix_tok_ref(t);
      me->held[me->n_held++] = t;
      t->aff_holder = me;
      continue;
    }
    s->w.park = (ix_park_t){.why = IX_WHY_AFFINITY, .op = op, .vid = a[i].v, .tok = t};
    bool parked = ix_park_locked(r, &s->w, &t->aff_waiters, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  ix_unlock(r);
  return IX_CONT;
}

int ix_hier_space(ix_strand_t* s, ix_env_t* e, const air_op_t* op, int64_t* sizes,
                  uint64_t* total) {
  ix_run_t* r = s->run;
  uint32_t n = op->iaux[0];
  if (!op->n_regions || !op->regions[0])
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "%s @%s without a body is not supported by the CPU executor",
                               ix_opname(op), op->sym ? op->sym : "?"));
  const air_block_t* body = op->regions[0];
  if (n > AIR_MAX_RANK || op->n_operands < n || body->n_args != 2 * n + (op->n_operands - n))
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: malformed operands",
                               ix_opname(op)));
  *total = 1;
  for (uint32_t k = 0; k < n; ++k) {
    air_status_t st = ix_get_i(r, e, op, op->operands[k], &sizes[k]);
    if (st) return ix_failed(s, st);
    if (sizes[k] < 0 || __builtin_mul_overflow(*total, (uint64_t)sizes[k], total) ||
        *total > (UINT64_C(1) << 24))
      return ix_failed(s, ix_err(r, op, AIR_STATUS_OUT_OF_RANGE,
                                 "%s: iteration space size #%u is %lld", ix_opname(op), k,
                                 (long long)sizes[k]));
  }
  return IX_CONT;
}

int ix_hier_instance(ix_strand_t* s, ix_env_t* e, const air_op_t* op, const int64_t* sizes,
                     uint64_t i, bool unit, ix_env_t** out) {
  ix_run_t* r = s->run;
  uint32_t n = op->iaux[0];
  const air_block_t* body = op->regions[0];
  uint32_t na = op->n_operands - n;
  bool herd = op->kind == AIR_OP_HERD;
  int64_t id[AIR_MAX_RANK];
  uint64_t x = i;
  for (uint32_t k = n; k-- > 0;) {
    id[k] = (int64_t)(x % (uint64_t)sizes[k]);
    x /= (uint64_t)sizes[k];
  }
  ix_env_t* ie = ix_env_new(r, body, NULL, herd);
  if (!ie) return ix_oom(s);
  for (uint32_t k = 0; k < n; ++k) {
    ix_set(r, ie, body->args[k], (ix_val_t){.i = id[k]});
    ix_set(r, ie, body->args[n + k], (ix_val_t){.i = sizes[k]});
  }
  air_status_t st = na ? ix_pass(r, e, op, op->operands + n, ie, body->args + 2 * n, na) : NULL;
  if (st) {
    ix_env_unref(r, ie);
    return ix_failed(s, st);
  }
  if (herd) {
    ix_pe_t* pe = ie->pe;
    pe->herd = op;
    pe->link_with = ix_attr_str(r, op, "link_with");
    pe->rank = n < 4 ? n : 4;
    for (uint32_t k = 0; k < pe->rank; ++k) {
      pe->tile[k] = id[k];
      pe->sizes[k] = sizes[k];
    }
    /* The track name is read by traces and by reports of parked strands. A PE
     * whose body is a compiled unit never parks, and such a unit holding AIR
     * ops never runs traced, so its name is formatted only if the unit falls
     * back to the interpreter (ix_pe_name). */
    if (unit && !r->trace && n <= 4)
      pe->track[0] = '\0';
    else
      ix_pe_name_at(pe, op, id, n);
    /* Traced: the PE's life is one span on its track, from its herd instance's
     * start until the last strand working for it leaves (strand.c), so every
     * PE has a track and its ops' spans nest inside. */
    atomic_init(&pe->strands, 0);
    pe->t0 = r->trace ? air_time_now_ns() : 0;
    pe->env = ie;
  }
  *out = ie;
  return IX_CONT;
}

/* Runs in the op's own strand: every instance becomes a strand joined to the
 * op's token, all started together (segment and herd instances are co-resident;
 * launch instances may as well run in parallel). */
int ix_op_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  /* Ranks have their own copies of the arguments and a symmetric heap (rank.c). */
  if (op->kind == AIR_OP_RANK) return ix_op_rank(s, f, op);
  int64_t sizes[AIR_MAX_RANK];
  uint64_t total;
  int rc = ix_hier_space(s, e, op, sizes, &total);
  if (rc != IX_CONT) return rc;
  rc = acquire_affinity(s, e, op);
  if (rc != IX_CONT) return rc;
  const air_block_t* body = op->regions[0];
  bool herd = op->kind == AIR_OP_HERD;
  /* A herd body compiled whole runs as one call per PE (unit.c). */
  uint8_t body_flags = herd && ix_unit_of(r, op) ? IX_FL_UNIT : 0;
  for (uint64_t i = 0; i < total; ++i) {
    ix_env_t* ie;
    rc = ix_hier_instance(s, e, op, sizes, i, body_flags != 0, &ie);
    if (rc != IX_CONT) return rc;
    struct ix_space_t* space = op->kind == AIR_OP_LAUNCH ? ix_space_new_in(r, s->space) : s->space;
    ix_strand_t* c = space ? ix_strand_new(r, s->join, s->join, herd ? ie->pe : s->pe, space)
                           : NULL;
    ix_frame_t cf = {.kind = IX_F_BODY, .flags = body_flags, .owner = op, .pc = body->first,
                     .env = ie};
    if (!c || !ix_push(c, &cf)) {
      if (c) ix_strand_free(c);
      ix_env_unref(r, ie);
      return ix_oom(s);
    }
    ix_spawn(r, c);
  }
  ix_next(s);
  return IX_CONT;
}

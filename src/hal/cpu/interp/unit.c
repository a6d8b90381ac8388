/* unit.c - compiled units (hal/compiled.h): a loop, branch or linalg.generic the
 * program's compiled code covers runs as one call of native code instead of op by
 * op. The unit reads its inputs from the strand's environments (scalars as the
 * executor holds them, memrefs as pointers to its views), writes the op's results
 * back, and fails like the interpreter would, at the op it names and after the
 * same stores; a view that does not have its type's static shape makes it decline
 * before any side effect (IX_UNIT_FALLBACK), and the op is interpreted.
 *
 * The caller (loop.c) has waited for everything the unit reads first: its
 * dependencies, the air.execute results among its inputs and the strand's
 * scf.parallel init tokens, since code inside may touch memory. A unit never
 * parks. */
#include "hal/cpu/interp/unit.h"

#include <stdio.h>

#include "hal/cpu/interp/chan_lane.h"
#include "hal/cpu/interp/dma.h"
#include "hal/cpu/interp/env.h"
#include "hal/cpu/interp/memref.h"
#include "hal/cpu/interp/trace.h"
#include "hal/cpu/interp/waves.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"

/*---------------------------------------------------------------------------*/
/* The hooks of units that hold AIR ops (hal/compiled.h air_cg_rt_t)          */
/*---------------------------------------------------------------------------*/

/* What a unit's hooks reach through frame->ctx. A failing hook keeps the
 * interpreter's error for its op in `err`. */
typedef struct unit_ctx_t {
  ix_strand_t* s;
  ix_env_t* e;
  const air_cg_unit_t* u;
  air_status_t err;
} unit_ctx_t;

static void unpack_lists(const int64_t* p, ix_lists_t* l) {
  l->n_off = (uint32_t)p[0];
  l->n = (uint32_t)p[1];
  l->off = p + 2;
  l->size = l->off + l->n_off;
  l->stride = l->size + l->n;
}

/* The op numbered `at` under the unit. */
static const air_op_t* op_at(const unit_ctx_t* c, uint32_t at) {
  if (at < c->u->n_ops) return c->u->ops[at];
  const air_op_t* op = air_cg_op_at(c->u->op, at);
  return op ? op : c->u->op;
}

/* Any transfer but the commonest (hook_dma): out of line, so the common one
 * sets up no frame for it. */
static __attribute__((noinline)) int32_t hook_dma_lists(air_cg_frame_t* fr, uint32_t at,
                                                        const air_memref_t* dv, const int64_t* dp,
                                                        const air_memref_t* sv, const int64_t* sp) {
  ix_lists_t dl, sl;
  unpack_lists(dp, &dl);
  unpack_lists(sp, &sl);
  if (ix_dma_flat(dv, &dl, sv, &sl)) return 0;
  unit_ctx_t* c = fr->ctx;
  int64_t t0 = 0;
  c->err = ix_dma_move(c->s, op_at(c, at), dv, &dl, sv, &sl, false, &t0);
  return c->err ? 1 : 0;
}

static int32_t hook_dma(air_cg_frame_t* fr, uint32_t at, const air_memref_t* dv,
                        const int64_t* dp, const air_memref_t* sv, const int64_t* sp) {
  return ix_dma_1d(dv, dp, sv, sp) ? 0 : hook_dma_lists(fr, at, dv, dp, sv, sp);
}

static int32_t hook_alloc(air_cg_frame_t* fr, uint32_t at, air_memref_t* out) {
  unit_ctx_t* c = fr->ctx;
  ix_run_t* r = c->s->run;
  const air_op_t* op = op_at(c, at);
  air_status_t st = NULL;
  if (!ix_arena_alloc_view(r, op, out, &st)) st = ix_alloc_view(r, c->e, op, out);
  c->err = st;
  return st ? 1 : 0;
}

static int32_t hook_dealloc(air_cg_frame_t* fr, uint32_t at, const air_memref_t* m) {
  unit_ctx_t* c = fr->ctx;
  ix_run_t* r = c->s->run;
  const air_op_t* op = op_at(c, at);
  air_status_t st = NULL;
  if (!ix_arena_dealloc_view(r, op, m, &st)) st = ix_dealloc_view(r, op, m);
  c->err = st;
  return st ? 1 : 0;
}

static const air_cg_rt_t k_rt = {hook_dma, hook_alloc, hook_dealloc};

/* The interpreter's message for what failed at `bad`. */
static air_status_t unit_error(ix_run_t* r, ix_env_t* e, const air_op_t* unit, int32_t code,
                               uint32_t fail_op) {
  const air_op_t* bad = air_cg_op_at(unit, fail_op);
  if (!bad) bad = unit;
  char nb[64];
  switch (code) {
    case AIR_CG_OOB:
      if (bad->kind == AIR_OP_GENERIC)
        return ix_err(r, bad, AIR_STATUS_OUT_OF_RANGE,
                      "linalg.generic: an indexing map reaches outside its operand");
      return ix_err(r, bad, AIR_STATUS_OUT_OF_RANGE, "%s: index out of bounds of %s",
                    ix_opname(bad),
                    ix_vname(r, bad->operands[air_opkind_class(bad->kind) == AIR_OPC_LOAD ? 0 : 1],
                             nb, sizeof nb));
    case AIR_CG_DIV:
      return ix_err(r, bad, AIR_STATUS_OUT_OF_RANGE, "%s: division by zero or overflow",
                    ix_opname(bad));
    case AIR_CG_STEP: {
      /* The step is known here when it comes from outside the unit. */
      air_vid_t sv = bad->kind == AIR_OP_FOR && bad->n_operands > 2 ? bad->operands[2] : 0;
      ix_val_t* x = sv ? ix_slot(r, e, sv) : NULL;
      int64_t step = bad->kind == AIR_OP_AFFINE_FOR ? (int64_t)(int32_t)bad->iaux[1] : x ? x->i : 0;
      if (bad->kind == AIR_OP_AFFINE_FOR || x)
        return ix_err(r, bad, AIR_STATUS_OUT_OF_RANGE, "%s: step %lld is not positive",
                      ix_opname(bad), (long long)step);
      return ix_err(r, bad, AIR_STATUS_OUT_OF_RANGE, "%s: step is not positive", ix_opname(bad));
    }
    default:
      return ix_err(r, unit, AIR_STATUS_INTERNAL, "compiled code of %s returned %d",
                    ix_opname(unit), (int)code);
  }
}

/* Calls unit `u` of `op` with its inputs from `e`: IX_CONT (results bound),
 * IX_FAILED or IX_UNIT_FALLBACK (nothing done). A unit holding AIR ops is
 * interpreted when traced (each op keeps its span) and in a rank's space (its
 * allocs may be collectives, rank.c). */
static int unit_call(ix_strand_t* s, ix_env_t* e, const air_op_t* op, const air_cg_unit_t* u) {
  ix_run_t* r = s->run;
  if (u->air_ops && (r->trace || ix_space_rank(s->space, NULL))) return IX_UNIT_FALLBACK;
  enum { SMALL = 16 };
  air_cg_word_t in_small[SMALL], out_small[SMALL];
  air_cg_word_t* in = u->n_in <= SMALL ? in_small : air_mem_alloc(&r->alloc, u->n_in * sizeof *in);
  air_cg_word_t* out =
      u->n_out <= SMALL ? out_small : air_mem_alloc(&r->alloc, u->n_out * sizeof *out);
  if (!in || !out) {
    if (in != in_small) air_mem_free(&r->alloc, in);
    if (out != out_small) air_mem_free(&r->alloc, out);
    return ix_oom(s);
  }
  air_status_t st = NULL;
  for (uint32_t i = 0; i < u->n_in && !st; ++i) {
    air_vid_t v = u->in[i];
    if (v < r->tab.n_values && r->tab.vinfo[v].kind == IX_K_MEMREF) {
      air_memref_t* m;
      st = ix_get_view(r, e, op, v, &m);
      if (!st) in[i].m = m;
      continue;
    }
    ix_val_t* x = ix_slot(r, e, v);
    if (!x) {
      char nb[64];
      st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION, "%s: operand %s has no value here",
                  ix_opname(op), ix_vname(r, v, nb, sizeof nb));
      break;
    }
    in[i].i = x->i; /* the union's bits: an int64 or a double, as held */
  }
  int32_t rc = AIR_CG_FALLBACK;
  if (!st) {
    int64_t t0 = r->trace ? air_time_now_ns() : 0;
    unit_ctx_t ctx = {s, e, u, NULL};
    air_cg_frame_t frame = {.in = in, .out = out, .rt = &k_rt, .ctx = &ctx};
    ix_watchdog_enter(s, op, false);
    rc = u->fn(&frame);
    ix_watchdog_exit(s);
    if (rc == AIR_CG_OK) {
      for (uint32_t i = 0; i < u->n_out; ++i) ix_set(r, e, op->results[i], (ix_val_t){.i = out[i].i});
      ix_trace(s, s->pe ? AIR_TRACK_PE : AIR_TRACK_HOST, s->pe ? s->pe->track : "host", op, t0);
    } else if (rc == AIR_CG_HOOK && ctx.err) {
      st = ctx.err;
    } else if (rc != AIR_CG_FALLBACK) {
      air_status_free(ctx.err);
      st = unit_error(r, e, op, rc, frame.fail_op);
    }
  }
  if (in != in_small) air_mem_free(&r->alloc, in);
  if (out != out_small) air_mem_free(&r->alloc, out);
  if (st) return ix_failed(s, st);
  return rc == AIR_CG_FALLBACK ? IX_UNIT_FALLBACK : IX_CONT;
}

int ix_unit_run(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const air_cg_unit_t* u) {
  int rc = unit_call(s, f->env, op, u);
  if (rc == IX_CONT) ix_next(s);
  return rc;
}

int ix_unit_pe(ix_strand_t* s, ix_env_t* e, const air_op_t* herd, const air_cg_unit_t* u) {
  int rc = unit_call(s, e, herd, u);
  if (rc != IX_CONT && s->pe) ix_pe_name(s->pe);
  return rc;
}

int ix_unit_body(ix_strand_t* s, ix_frame_t* f) {
  const air_cg_unit_t* u = ix_unit_of(s->run, f->owner);
  int rc = u ? unit_call(s, f->env, f->owner, u) : IX_UNIT_FALLBACK;
  if (rc == IX_CONT) ix_pop(s); /* as the body's end does (loop.c block_end) */
  if (rc != IX_CONT && s->pe) ix_pe_name(s->pe); /* the interpreter or a report may need it */
  return rc;
}

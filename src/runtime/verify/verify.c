/* verify.c - the spec's static rules over one program: the entry point, which
 * runs the passes in order and turns their diagnostics into one status.
 *
 * Every violation becomes one line `file:line:col: error: [rule] message`; the
 * lines are sorted by location and returned in one FAILED_PRECONDITION status.
 * All passes run over the whole program, so one bad op does not hide the rest;
 * like a compiler's error limit, the first AIR_V_MAX_ERRORS lines by location
 * are kept and a count of the others ends the message. A fact found twice (per
 * enumerated instance, or by two passes) is one line.
 * The verifier never trusts the IR: ids, counts and links are checked before use,
 * and what cannot be interpreted is reported as [structure] and skipped.
 *
 * Rule ids (the spec is seeds/000; section numbers refer to it):
 *
 *  structure          op shape per its class layout in ir.h: operand/result/
 *                     region/list counts, terminators present, last and of the
 *                     right kind, yielded/returned values matching results,
 *                     block arguments matching signatures, operand types the
 *                     class fixes (index sizes/indices/bounds, i1 conditions,
 *                     memref data operands, token iter_args), intact links.
 *  nesting            rank outside any rank/launch/segment/herd; launch outside
 *                     any launch/segment/herd (inside a rank is fine);
 *                     universe.alloc outside them all; segment inside a
 *                     launch or segment (at any depth) and not in a herd; herd
 *                     inside a segment, never in a herd; func, channel and
 *                     opaque ops only at module level (spec 2.1-2.3). The spec
 *                     restricts where hierarchy ops nest, not where data moves:
 *                     put/get/dma/wait_all are legal at any level (host code
 *                     included) except inside air.execute.
 *  isolation          rank/launch/segment/herd/func bodies use only values defined
 *                     inside them; captures (constants too) must go through
 *                     args(...) (IsolatedFromAbove, spec 1).
 *  dominance          a use must follow its definition in the same block, or be
 *                     nested in a block that follows it.
 *  symbol             symbols are unique in their module (a file may hold
 *                     several); func.call names a declared function with a
 *                     matching signature; memref.get_global names a
 *                     memref.global of its type.
 *  token-list         dependency/affinity/concurrency lists hold only tokens;
 *                     dependency only on AIR async-capable ops; affinity only on
 *                     launch/segment/herd; concurrency only on segment/herd (the
 *                     per-op syntax of spec 2; data-movement syntax has dependency
 *                     lists only); air.rank takes a dependency list only.
 *  launch-concurrency no concurrency list on air.launch (spec 2.1).
 *  launch-token-scope affinity/concurrency tokens never cross a launch boundary:
 *                     not passed into a launch through args (traced through
 *                     nested args and loop iter_args) nor captured (spec 1.5).
 *  token-conflict     ops that share an affinity token must run disjoint and ops
 *                     that share a concurrency token must overlap: two ops may
 *                     not share both, a token may not be in both lists of one op,
 *                     and concurrency partners may not be ordered by a
 *                     dependency (token chain) or by a blocking op (spec 1.5 table).
 *  async-result       async form <=> one token result; execute's first result is
 *                     a token; sync and async not both; a token result must be
 *                     used or named ('async' => the result must be named).
 *  memory-space       memref spaces are 0/1/2; L1 (2) allocs inside a herd, L2 (1)
 *                     allocs inside a segment and not in a herd; launch and rank
 *                     args are L3 (spec 2.1); memref/affine load and store in a herd
 *                     touch L1 only, on every target (spec 1: cross-level access
 *                     only through data movement; linalg, DMA and channels are
 *                     exempt); with an AIE target (every xcv* and npu* device)
 *                     all compute in a herd (linalg, memref.copy, func.call)
 *                     uses L1 only (spec 2.3; GPU herds may compute on L2/L3,
 *                     spec 4.2).
 *  dma-lists          offsets/sizes/strides: sizes and strides of equal length,
 *                     offsets no longer than sizes, static offsets/strides >= 0,
 *                     sizes > 0; a dma's sides have the same element type and,
 *                     when both are static, the same element count, counting
 *                     pad_before/pad_after on either side. Lists longer
 *                     than the memref rank are legal (mlir-air describes
 *                     wrap-around access patterns with them), so rank is not
 *                     checked.
 *  rank               scale-out (verify_rank.c, spec 2.4 and 2.7): src_rank/
 *                     dst_rank only inside an air.rank, on the side of a memref
 *                     that traces (through args, views, execute results) to
 *                     memref.alloc {air.symmetric}, once each, a constant one in
 *                     the rank space; symmetric allocs and their deallocs only
 *                     at rank level (not in a launch/segment/herd), in L3, not
 *                     under a branch or a loop whose bounds vary by rank, sizes
 *                     not derived from the rank id or data (lockstep, as
 *                     MPI_Win_allocate/free are collective); gpu_symmetric_heap
 *                     channels only inside an air.rank; a constant universe size
 *                     equals the rank space; air.universe.alloc has >= 1 rank;
 *                     no air.rank with an AIE target.
 *  broadcast-shape    channel dims > 0; broadcast_shape has the channel's rank,
 *                     positive dims, and each channel dim equals it or is 1
 *                     (NumPy broadcasting of the channel onto the shape).
 *  channel-type       channel_type is one of the five spec values, and a written
 *                     one fits the target (npu_* not on a GPU, gpu_* not on an
 *                     AIE device); depth is an integer >= 1; npu_mmio gets land
 *                     in L1; (air.)refeed_count is an integer in [1, 2^31-1];
 *                     packet_ids only on npu_dma_packet channels, each in
 *                     [0, 31], none repeated.
 *  undeclared-channel put/get name a declared channel (in the nearest module);
 *                     index count equals its rank, or none when every dim the
 *                     op indexes is 1 (puts: the channel's dims, whatever its
 *                     broadcast_shape; gets: the broadcast_shape); constant
 *                     indices, and indices resolved per herd/segment/loop
 *                     instance, are in range of those dims. A get's index on a
 *                     broadcast dimension that is 1 on both sides is ignored.
 *  execute-region     air.execute holds host computation only (no hierarchy,
 *                     channel, dma, wait_all, execute, token or channel decl ops)
 *                     and yields values matching its results.
 *  channel-balance    per channel index, total puts == total gets, counting every
 *                     rank/launch/segment/herd/scf.parallel instance and static loop
 *                     iteration, resolving indices and affine.if/scf.if
 *                     conditions per instance; a broadcast put counts once per
 *                     receiver. Branches on dynamic conditions must move the same
 *                     amounts. Dynamic counts are skipped (spec 2.6 static balance).
 *  deadlock           a channel op that can start but never complete: a get whose
 *                     every put is ordered after it (or behind another blocked
 *                     op: cycles through channels), a put that needs a get
 *                     (depth 1 is a rendezvous; depth N lets N-1 puts run ahead of
 *                     the gets in one sequential scope) while every get is
 *                     ordered after it (spec 2.6 deadlock).
 *  target-limit       target facts one program can break: a GPU herd has at
 *                     most the target's max_herd_pes PEs (mi300x: 32, spec 4.2).
 *                     Fitting a target's resources is the scheduler's job.
 *
 * Files, bottom up: verify_util.c holds what the passes share; verify_index.c
 * indexes the program and builds the symbol table; verify_data.c,
 * verify_rank.c (scale-out) and verify_ops.c check ops one by one;
 * verify_scope.c walks values (dominance, isolation, token scope and conflicts);
 * verify_balance.c and verify_deadlock.c analyse channels over the whole program; this file runs them in order
 * (verify_passes.h). Analyses that cannot decide statically (dynamic counts,
 * indices or conditions; budgets exceeded) stay silent rather than guess.
 */
#include "runtime/verify/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/status_util.h"
#include "runtime/verify/verify_passes.h"
#include "runtime/verify/verify_util.h"

/*---------------------------------------------------------------------------*/
/* Entry point                                                               */
/*---------------------------------------------------------------------------*/

static int diag_cmp(const void* a, const void* b) {
  const air_vdiag_t* x = a;
  const air_vdiag_t* y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static air_status_t oom(const air_vctx_t* v) {
  char what[192];
  snprintf(what, sizeof what, "verifying %s", v->p->filename);
  return AIR_STATUS_OOM(v->a, what);
}

static air_status_t finish(air_vctx_t* v) {
  const air_program_t* p = v->p;
  air_status_t st = NULL;
  if (v->oom || v->text.oom) {
    st = oom(v);
  } else if (v->n_diags) {
    qsort(v->diags, v->n_diags, sizeof(*v->diags), diag_cmp);
    air_sb_t out;
    air_sb_init(&out, v->a);
    const air_vdiag_t* last = NULL;
    for (uint32_t i = 0; i < v->n_diags; ++i) {
      const air_vdiag_t* d = &v->diags[i];
      /* The same fact found twice (e.g. once per enumerated instance) is one line. */
      if (last && last->line == d->line && last->col == d->col && last->len == d->len &&
          memcmp(v->text.data + last->off, v->text.data + d->off, d->len) == 0)
        continue;
      if (out.len) air_sb_putc(&out, '\n');
      air_sb_printf(&out, "%s:%u:%u: error: ", p->filename, d->line, d->col);
      /* A message quoting a huge name is cut, as every diagnostic is (ir.h). */
      size_t n = d->len > AIR_IR_MAX_DIAG ? AIR_IR_MAX_DIAG : d->len;
      air_sb_append(&out, v->text.data + d->off, n);
      if (n < d->len) air_sb_puts(&out, "...");
      last = d;
    }
    if (v->n_dropped)
      air_sb_printf(&out, "\n%s: error: ... and %u more errors", p->filename, v->n_dropped);
    if (out.oom) {
      st = oom(v);
    } else {
      st = air_status_make(v->a, AIR_STATUS_FAILED_PRECONDITION, __FILE__, __LINE__,
                           out.data ? out.data : "");
    }
    air_sb_free(&out);
  }
  return st;
}

air_status_t air_verify(const air_program_t* p, const char* target, uint32_t flags) {
  (void)flags; /* reserved */
  if (!p) return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_verify: NULL program");
  air_vctx_t v;
  memset(&v, 0, sizeof(v));
  v.p = p;
  v.a = &p->allocator;
  if (target) {
    /* The target table names every device; its message lists them. */
    AIR_RETURN_IF_ERROR(air_target_lookup(v.a, target, &v.target_row));
    const air_target_kind_t kind = v.target_row->kind;
    v.target = kind == AIR_TARGET_NPU ? AIR_VT_AIE : kind == AIR_TARGET_GPU ? AIR_VT_GPU
                                                                             : AIR_VT_CPU;
  }
  air_sb_init(&v.text, v.a);
  if (!p->module || p->module->kind != AIR_OP_MODULE || p->module->n_regions != 1 ||
      !p->module->regions || !p->module->regions[0]) {
    air_v_error(&v, p->module, "structure",
                "the program has no module with a body; create it with air_ir_program_new");
  } else if ((v.vals = air_v_calloc(&v, p->n_values ? p->n_values : 1, sizeof(air_vval_t))) &&
             (v.uses = air_v_calloc(&v, p->n_values ? p->n_values : 1, sizeof(uint32_t)))) {
    if (air_v_index(&v)) air_v_check_ops(&v);
    if (!v.oom) {
      /* has_chan lets the channel analyses skip subtrees without channel ops. */
      for (uint32_t j = v.n_ops; j-- > 0;) {
        if (air_v_is_chan_io(v.ops[j].op->kind) && v.ops[j].chan != AIR_V_NONE)
          v.ops[j].has_chan = 1;
        if (v.ops[j].has_chan && v.ops[j].parent != AIR_V_NONE) v.ops[v.ops[j].parent].has_chan = 1;
      }
      air_v_check_scopes(&v);
    }
    if (!v.oom && !v.too_deep) air_v_check_balance(&v);
    if (!v.oom && !v.too_deep) air_v_check_deadlock(&v);
  }
  air_status_t st = finish(&v);
  for (uint32_t i = 0; i < v.n_chans; ++i) {
    air_mem_free(v.a, v.chans[i].dims);
    air_mem_free(v.a, v.chans[i].bdims);
  }
  air_mem_free(v.a, v.chans);
  air_mem_free(v.a, v.syms);
  air_ptrmap_free(&v.blocks, v.a);
  air_mem_free(v.a, v.ops);
  air_mem_free(v.a, v.vals);
  air_mem_free(v.a, v.uses);
  air_mem_free(v.a, v.diags);
  air_mem_free(v.a, v.seen);
  air_sb_free(&v.text);
  return st;
}

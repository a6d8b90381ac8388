/* cg_gpu_ops.c - the AIR ops a GPU kernel adds to the shared emitter (its
 * ext_op hook, cg_gpu_kernel.h): the hierarchy (segment bodies inline, herds as
 * phases or as roles), channels as LDS rendezvous slots, DMA as copy loops,
 * execute regions inline, wait_all, scf.parallel as loops, linalg fill / copy /
 * matmul as loops, linalg.generic through the shared emitter (cg_linalg.c).
 * Async ops run in program order on their work-item: tokens need no run-time
 * form, except a segment's or herd's, which waits on an LDS flag.
 *
 * Channel protocol (one instance = tickets + `depth` slots in LDS). Each side
 * takes a ticket t (atomic add), uses slot t % depth in round r = t / depth:
 * waits until the slot's `done` is r, posts its access pattern and sets its
 * `posted` word to r + 1, then, once both sides have posted, the copier copies
 * and sets `done` to r + 1, which frees the slot and ends the other side's wait.
 * The copier is the get side, unless only the put side's memory is private (L1):
 * private memory is reachable by its own work-item only. Every wait polls and
 * makes progress in the same loop, so a lane never waits for code after a loop
 * it has not left (the lanes of a wave move together). */
#include <string.h>

#include "codegen/cg_gpu_kernel.h"

static LLVMValueRef i64c(cg_gpu_t* g, int64_t v) { return cg_gpu_i64(g, v); }

void cg_gpu_share(cg_gpu_t* g, LLVMValueRef* lane, LLVMValueRef* lanes) {
  if (g->all_items) {
    *lane = g->lid;
    *lanes = cg_gpu_i32(g, g->plan->workgroup);
  } else {
    *lane = cg_gpu_i32(g, 0);
    *lanes = cg_gpu_i32(g, 1);
  }
}

/* After work shared by every work-item, before anyone reads its result. */
static void shared_done(cg_gpu_t* g) {
  if (g->all_items) cg_gpu_target_barrier(g);
}

static cg_mem_t* mem(cg_gpu_t* g, const air_op_t* op, air_vid_t v) {
  cg_fn_t* f = g->f;
  for (uint32_t i = 0; i < f->n_mems; ++i)
    if (f->mems[i].vid == v) return &f->mems[i];
  cg_mem_t* m = cg_gpu_mem(f, v);
  if (!m) cg_unsupported(f, op, "a memref whose place the GPU kernel cannot resolve");
  return m;
}

static LLVMValueRef ix(cg_gpu_t* g, const air_ix_t* it) {
  return it->value ? cg_val(g->f, it->value) : i64c(g, it->cst);
}

/* The access pattern of `lists[0..2]` (offsets, sizes, strides) over memref `v`,
 * checked to stay inside it (the interpreter's rules, hal/cpu/interp/pattern.c). */
static bool own_pattern(cg_gpu_t* g, const air_op_t* op, air_vid_t v, const air_ixlist_t* lists,
                        cg_gpu_pat_t* out) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  cg_mem_t* mm = mem(g, op, v);
  if (!mm) return false;
  const air_type_info_t* t = air_ir_type(f->p, air_ir_value_type(f->p, v));
  int64_t mstride[4] = {0, 0, 0, 0}, elems = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    mstride[k] = elems;
    elems *= t->shape[k];
  }
  memset(out, 0, sizeof *out);
  out->base = mm->data;
  out->esize = air_elem_size((air_elem_kind_t)t->elem);
  out->priv = cg_gpu_i32(g, t->memspace == AIR_MEM_L1);
  uint32_t n = lists[1].n, pad;
  LLVMValueRef size[4], stride[4];
  LLVMValueRef start = i64c(g, 0);
  if (!n) {
    n = t->rank;
    for (uint32_t k = 0; k < n; ++k) size[k] = i64c(g, t->shape[k]), stride[k] = i64c(g, mstride[k]);
  } else {
    if (lists[0].n > n || lists[2].n != n) {
      cg_unsupported(f, op, "an access pattern whose offsets, sizes and strides do not match");
      return false;
    }
    for (uint32_t k = 0; k < n; ++k) size[k] = ix(g, &lists[1].items[k]), stride[k] = ix(g, &lists[2].items[k]);
    uint32_t first = n - lists[0].n;
    for (uint32_t i = 0; i < lists[0].n; ++i) {
      uint32_t k = first + i;
      int64_t mdim = (int64_t)k - ((int64_t)n - (int64_t)t->rank);
      LLVMValueRef w = mdim >= 0 ? i64c(g, mstride[mdim]) : stride[k];
      start = LLVMBuildAdd(B, start, LLVMBuildMul(B, ix(g, &lists[0].items[i]), w, ""), "");
    }
  }
  pad = 4 - n;
  for (uint32_t k = 0; k < 4; ++k) {
    out->size[k] = k < pad ? i64c(g, 1) : size[k - pad];
    out->stride[k] = k < pad ? i64c(g, 0) : stride[k - pad];
  }
  out->start = start;
  /* Inside the memref: lo >= 0 and hi < elements, when anything moves. */
  LLVMValueRef lo = start, hi = start, neg = LLVMConstInt(f->m->i1, 0, 0), any = LLVMConstInt(f->m->i1, 1, 0);
  for (uint32_t k = 0; k < 4; ++k) {
    LLVMValueRef s = out->size[k];
    neg = LLVMBuildOr(B, neg, LLVMBuildICmp(B, LLVMIntSLT, s, i64c(g, 0), ""), "");
    any = LLVMBuildAnd(B, any, LLVMBuildICmp(B, LLVMIntSGT, s, i64c(g, 0), ""), "");
    LLVMValueRef reach = LLVMBuildMul(B, LLVMBuildSub(B, s, i64c(g, 1), ""), out->stride[k], "");
    LLVMValueRef pos = LLVMBuildICmp(B, LLVMIntSGT, reach, i64c(g, 0), "");
    hi = LLVMBuildAdd(B, hi, LLVMBuildSelect(B, pos, reach, i64c(g, 0), ""), "");
    lo = LLVMBuildAdd(B, lo, LLVMBuildSelect(B, pos, i64c(g, 0), reach, ""), "");
  }
  LLVMValueRef out_of = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, lo, i64c(g, 0), ""),
                                    LLVMBuildICmp(B, LLVMIntSGE, hi, i64c(g, elems), ""), "");
  cg_gpu_fail_if(g, LLVMBuildOr(B, neg, LLVMBuildAnd(B, any, out_of, ""), ""), AIR_CG_OOB, op->line);
  return !f->st;
}

/*--- hierarchy tokens -------------------------------------------------------------*/

static LLVMValueRef ctl(cg_gpu_t* g, int word) { return cg_gpu_gep(g, g->lds, i64c(g, 4 * word)); }

static void wait_token(cg_gpu_t* g, air_vid_t tok, uint32_t line) {
  const cg_gpu_plan_t* pl = g->plan;
  if (pl->segment->n_results && tok == pl->segment->results[0] && g->level == CG_LVL_LAUNCH &&
      pl->segment_role)
    cg_gpu_wait_ge(g, ctl(g, 3), cg_gpu_i32(g, 1), line);
  if (pl->herd->n_results && tok == pl->herd->results[0] && g->level != CG_LVL_HERD)
    cg_gpu_wait_ge(g, ctl(g, 2), cg_gpu_i32(g, pl->pes), line);
}

void cg_gpu_wait_tokens(cg_gpu_t* g, const air_op_t* op) {
  if (g->plan->mapping != AIR_GPU_MAP_WAVES) return;
  for (uint32_t i = 0; i < op->toks[AIR_TOK_DEP].n; ++i)
    wait_token(g, op->toks[AIR_TOK_DEP].items[i], op->line);
}

/*--- channels ---------------------------------------------------------------------*/

enum { PAT_BASE = 0, PAT_START = 8, PAT_SIZE = 16, PAT_STRIDE = 48, PAT_ESIZE = 80, PAT_PRIV = 84 };

static void store_pat(cg_gpu_t* g, LLVMValueRef at, const cg_gpu_pat_t* p) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  LLVMValueRef flat = p->base;
  if (LLVMTypeOf(flat) != f->m->ptr) flat = LLVMBuildAddrSpaceCast(B, flat, f->m->ptr, "");
  LLVMBuildStore(B, flat, cg_gpu_gep(g, at, i64c(g, PAT_BASE)));
  LLVMBuildStore(B, p->start, cg_gpu_gep(g, at, i64c(g, PAT_START)));
  for (int k = 0; k < 4; ++k) {
    LLVMBuildStore(B, p->size[k], cg_gpu_gep(g, at, i64c(g, PAT_SIZE + 8 * k)));
    LLVMBuildStore(B, p->stride[k], cg_gpu_gep(g, at, i64c(g, PAT_STRIDE + 8 * k)));
  }
  LLVMBuildStore(B, cg_gpu_i32(g, p->esize), cg_gpu_gep(g, at, i64c(g, PAT_ESIZE)));
  LLVMBuildStore(B, p->priv, cg_gpu_gep(g, at, i64c(g, PAT_PRIV)));
}

static void load_pat(cg_gpu_t* g, LLVMValueRef at, cg_gpu_pat_t* p) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  memset(p, 0, sizeof *p);
  p->base = LLVMBuildLoad2(B, f->m->ptr, cg_gpu_gep(g, at, i64c(g, PAT_BASE)), "");
  p->start = LLVMBuildLoad2(B, f->m->i64, cg_gpu_gep(g, at, i64c(g, PAT_START)), "");
  for (int k = 0; k < 4; ++k) {
    p->size[k] = LLVMBuildLoad2(B, f->m->i64, cg_gpu_gep(g, at, i64c(g, PAT_SIZE + 8 * k)), "");
    p->stride[k] = LLVMBuildLoad2(B, f->m->i64, cg_gpu_gep(g, at, i64c(g, PAT_STRIDE + 8 * k)), "");
  }
  p->esize_v = LLVMBuildLoad2(B, f->m->i32, cg_gpu_gep(g, at, i64c(g, PAT_ESIZE)), "");
  p->priv = LLVMBuildLoad2(B, f->m->i32, cg_gpu_gep(g, at, i64c(g, PAT_PRIV)), "");
}

static void emit_channel(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  air_cg_module_t* m = f->m;
  LLVMBuilderRef B = f->b;
  const cg_gpu_chan_t* c = cg_gpu_plan_chan(g->plan, op->sym);
  bool put = op->kind == AIR_OP_PUT;
  if (!c) {
    cg_unsupported(f, op, "a channel the GPU plan does not know");
    return;
  }
  /* The instance: indices row-major, each checked. */
  LLVMValueRef idx = i64c(g, 0), bad = LLVMConstInt(m->i1, 0, 0);
  for (uint32_t k = 0; k < op->iaux[0] && k < c->n_dims; ++k) {
    LLVMValueRef x = cg_val(f, op->operands[k]);
    bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntUGE, x, i64c(g, c->dims[k]), ""), "");
    idx = LLVMBuildAdd(B, LLVMBuildMul(B, idx, i64c(g, c->dims[k]), ""), x, "");
  }
  cg_gpu_fail_if(g, bad, AIR_CG_CHANNEL, op->line);
  cg_gpu_pat_t own;
  if (!own_pattern(g, op, op->operands[op->iaux[0]], op->lists, &own)) return;
  uint64_t inst_bytes = CG_CH_HEAD + (uint64_t)c->depth * CG_SLOT_BYTES;
  LLVMValueRef inst = cg_gpu_gep(g, g->lds, LLVMBuildAdd(B, i64c(g, c->offset),
                                                         LLVMBuildMul(B, idx, i64c(g, (int64_t)inst_bytes), ""), ""));
  LLVMValueRef t = cg_gpu_add32(g, cg_gpu_gep(g, inst, i64c(g, put ? 0 : 4)), cg_gpu_i32(g, 1));
  LLVMValueRef depth = cg_gpu_i32(g, c->depth);
  LLVMValueRef r = LLVMBuildUDiv(B, t, depth, "");
  LLVMValueRef r1 = LLVMBuildAdd(B, r, cg_gpu_i32(g, 1), "");
  LLVMValueRef slot = cg_gpu_gep(g, inst, LLVMBuildAdd(B, i64c(g, CG_CH_HEAD),
      LLVMBuildMul(B, LLVMBuildZExt(B, LLVMBuildURem(B, t, depth, ""), m->i64, ""),
                   i64c(g, CG_SLOT_BYTES), ""), ""));
  LLVMValueRef my_posted = cg_gpu_gep(g, slot, i64c(g, put ? 0 : 4));
  LLVMValueRef peer_posted = cg_gpu_gep(g, slot, i64c(g, put ? 4 : 0));
  LLVMValueRef done = cg_gpu_gep(g, slot, i64c(g, 8));
  LLVMValueRef pat_put = cg_gpu_gep(g, slot, i64c(g, 16));
  LLVMValueRef pat_get = cg_gpu_gep(g, slot, i64c(g, 16 + CG_PAT_BYTES));

  LLVMValueRef fn = f->fn;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.head");
  LLVMBasicBlockRef try_post = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.post?");
  LLVMBasicBlockRef do_post = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.post");
  LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.check");
  LLVMBasicBlockRef decide = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.decide");
  LLVMBasicBlockRef copy = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.copy");
  LLVMBasicBlockRef check_done = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.done?");
  LLVMBasicBlockRef nap = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.nap");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(m->ctx, fn, "ch.exit");
  LLVMBuildBr(B, head);
  /* head: (posted, count) */
  LLVMPositionBuilderAtEnd(B, head);
  LLVMValueRef posted = LLVMBuildPhi(B, m->i1, "posted");
  LLVMValueRef cnt = LLVMBuildPhi(B, m->i32, "cnt");
  LLVMBuildCondBr(B, posted, check, try_post);
  /* try_post: the slot is ours once the previous round is done. */
  LLVMPositionBuilderAtEnd(B, try_post);
  LLVMValueRef free_now = LLVMBuildICmp(B, LLVMIntEQ, cg_gpu_load32(g, done), r, "");
  LLVMBuildCondBr(B, free_now, do_post, nap);
  LLVMPositionBuilderAtEnd(B, do_post);
  store_pat(g, put ? pat_put : pat_get, &own);
  cg_gpu_store32(g, my_posted, r1);
  LLVMBuildBr(B, check);
  /* check: both posted? */
  LLVMPositionBuilderAtEnd(B, check);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, cg_gpu_load32(g, peer_posted), r1, ""), decide,
                  check_done);
  LLVMPositionBuilderAtEnd(B, decide);
  cg_gpu_pat_t peer;
  load_pat(g, put ? pat_get : pat_put, &peer);
  LLVMValueRef own_priv = own.priv;
  LLVMValueRef both = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, own_priv, cg_gpu_i32(g, 0), ""),
                                   LLVMBuildICmp(B, LLVMIntNE, peer.priv, cg_gpu_i32(g, 0), ""), "");
  cg_gpu_fail_if(g, both, AIR_CG_CHANNEL, op->line);
  /* put copies iff its memory is private (and, checked above, the get's is not) */
  LLVMValueRef put_priv = put ? own_priv : peer.priv;
  LLVMValueRef put_copies = LLVMBuildICmp(B, LLVMIntNE, put_priv, cg_gpu_i32(g, 0), "");
  LLVMValueRef i_copy = put ? put_copies : LLVMBuildNot(B, put_copies, "");
  LLVMBuildCondBr(B, i_copy, copy, check_done);
  LLVMPositionBuilderAtEnd(B, copy);
  LLVMValueRef zero = cg_gpu_i32(g, 0), one = cg_gpu_i32(g, 1);
  if (put)
    cg_gpu_copy(g, &peer, &own, zero, one, op->line);
  else
    cg_gpu_copy(g, &own, &peer, zero, one, op->line);
  cg_gpu_store32(g, done, r1);
  LLVMBuildBr(B, exit);
  /* check_done: the peer copied */
  LLVMPositionBuilderAtEnd(B, check_done);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, cg_gpu_load32(g, done), r1, ""), exit, nap);
  /* nap: (posted) */
  LLVMPositionBuilderAtEnd(B, nap);
  LLVMValueRef nap_posted = LLVMBuildPhi(B, m->i1, "");
  cg_gpu_fail_if(g, cg_gpu_target_pause(g, cnt), AIR_CG_DEADLOCK, op->line);
  LLVMValueRef next = LLVMBuildAdd(B, cnt, one, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, head);
  /* phis */
  LLVMValueRef f0 = LLVMConstInt(m->i1, 0, 0), t1 = LLVMConstInt(m->i1, 1, 0);
  LLVMAddIncoming(posted, &f0, &pre, 1);
  LLVMAddIncoming(posted, &nap_posted, &latch, 1);
  LLVMAddIncoming(cnt, &zero, &pre, 1);
  LLVMAddIncoming(cnt, &next, &latch, 1);
  LLVMBasicBlockRef from_check_done = check_done;
  LLVMAddIncoming(nap_posted, &f0, &try_post, 1);
  LLVMAddIncoming(nap_posted, &t1, &from_check_done, 1);
  LLVMPositionBuilderAtEnd(B, exit);
}

/*--- DMA, linalg -----------------------------------------------------------------*/

static void emit_dma(cg_gpu_t* g, const air_op_t* op) {
  cg_gpu_pat_t dst, src;
  if (!own_pattern(g, op, op->operands[0], op->lists, &dst)) return;
  if (!own_pattern(g, op, op->operands[1], op->lists + 3, &src)) return;
  LLVMValueRef lane, lanes;
  cg_gpu_share(g, &lane, &lanes);
  cg_gpu_copy(g, &dst, &src, lane, lanes, op->line);
  shared_done(g);
}

static LLVMTypeRef storage_type(air_cg_module_t* m, uint32_t el) {
  return el == AIR_ELEM_BF16 ? m->i16 : el == AIR_ELEM_F16 ? m->f16 : el == AIR_ELEM_I1 ? m->i8
                                                                    : cg_elem_type(m, el);
}

static LLVMValueRef elem_at(cg_gpu_t* g, cg_mem_t* mm, LLVMValueRef k) {
  return LLVMBuildGEP2(g->f->b, storage_type(g->f->m, mm->elem), mm->data, &k, 1, "");
}

static int64_t elems_of(const air_program_t* p, air_vid_t v, int64_t* shape, uint32_t* rank) {
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  int64_t n = 1;
  *rank = t->rank;
  for (uint32_t k = 0; k < t->rank; ++k) shape[k] = t->shape[k], n *= t->shape[k];
  return n;
}

/* linalg.generic through the shared emitter (cg_linalg.c: the interpreter's
 * semantics, loops in order): one work-item runs it - a PE inside its herd, a
 * role's lane in the waves mapping, work-item 0 for the workgroup outside herds
 * in the threads mapping, before the barrier every shared op ends with (its
 * iterations may reduce into the outputs, so they are not shared out). */
static void emit_generic(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  if (!g->all_items) {
    cg_emit_generic(f, op);
    return;
  }
  LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "generic.one");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "generic.join");
  LLVMBuildCondBr(f->b, g->uniform_first, one, join);
  LLVMPositionBuilderAtEnd(f->b, one);
  cg_emit_generic(f, op);
  if (f->st) return;
  LLVMBuildBr(f->b, join);
  LLVMPositionBuilderAtEnd(f->b, join); /* emit_linalg's barrier follows */
}

static void emit_linalg(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  LLVMValueRef lane, lanes;
  cg_gpu_share(g, &lane, &lanes);
  LLVMValueRef lane64 = LLVMBuildZExt(B, lane, f->m->i64, ""), lanes64 = LLVMBuildZExt(B, lanes, f->m->i64, "");
  uint32_t n_in = op->iaux[0];
  if (op->kind == AIR_OP_GENERIC) {
    emit_generic(g, op);
  } else if (op->kind == AIR_OP_FILL) {
    if (n_in != 1 || op->n_operands != 2) { cg_unsupported(f, op, "linalg.fill's form"); return; }
    uint32_t xe = cg_value_elem(f->p, op->operands[0]);
    cg_mem_t* out = mem(g, op, op->operands[1]);
    if (!out || xe == AIR_ELEM_NONE) { cg_unsupported(f, op, "linalg.fill's operands"); return; }
    int64_t shape[8];
    uint32_t rank;
    int64_t n = elems_of(f->p, op->operands[1], shape, &rank);
    LLVMValueRef x = cg_val(f, op->operands[0]);
    bool xf = air_elem_is_float((air_elem_kind_t)xe), mf = air_elem_is_float((air_elem_kind_t)out->elem);
    if (xf != mf || (!xf && xe != out->elem) || (xf && (xe == AIR_ELEM_F64) != (out->elem == AIR_ELEM_F64)))
      { cg_unsupported(f, op, "linalg.fill of a value of another type"); return; }
    if (xf) x = cg_round(f, out->elem, x);
    cg_gpu_loop_t l;
    LLVMValueRef k = cg_gpu_loop_begin(g, &l, lane64, i64c(g, n), lanes64);
    cg_store_elem(f, out->elem, elem_at(g, out, k), x);
    cg_gpu_loop_end(g, &l);
  } else if (op->kind == AIR_OP_LINALG_COPY) {
    if (n_in != 1 || op->n_operands != 2) { cg_unsupported(f, op, "linalg.copy's form"); return; }
    cg_gpu_pat_t dst, src;
    air_ixlist_t none[3];
    memset(none, 0, sizeof none);
    if (!own_pattern(g, op, op->operands[1], none, &dst) || !own_pattern(g, op, op->operands[0], none, &src))
      return;
    cg_gpu_copy(g, &dst, &src, lane, lanes, op->line);
  } else if (op->kind == AIR_OP_MATMUL) {
    if (n_in != 2 || op->n_operands != 3) { cg_unsupported(f, op, "linalg.matmul's form"); return; }
    int64_t sa[8], sb[8], sc[8];
    uint32_t ra, rb, rc;
    elems_of(f->p, op->operands[0], sa, &ra);
    elems_of(f->p, op->operands[1], sb, &rb);
    elems_of(f->p, op->operands[2], sc, &rc);
    if (ra != 2 || rb != 2 || rc != 2 || sa[1] != sb[0] || sa[0] != sc[0] || sb[1] != sc[1])
      { cg_unsupported(f, op, "linalg.matmul needs A (MxK), B (KxN) and C (MxN)"); return; }
    cg_mem_t *A = mem(g, op, op->operands[0]), *Bm = mem(g, op, op->operands[1]),
             *C = mem(g, op, op->operands[2]);
    if (!A || !Bm || !C) return;
    bool cf = air_elem_is_float((air_elem_kind_t)C->elem);
    if (air_elem_is_float((air_elem_kind_t)A->elem) != cf || air_elem_is_float((air_elem_kind_t)Bm->elem) != cf ||
        (cf && ((A->elem == AIR_ELEM_F64) != (C->elem == AIR_ELEM_F64) ||
                (Bm->elem == AIR_ELEM_F64) != (C->elem == AIR_ELEM_F64))) ||
        (!cf && (A->elem != C->elem || Bm->elem != C->elem)))
      { cg_unsupported(f, op, "linalg.matmul over mixed element types on the GPU"); return; }
    int64_t M = sa[0], K = sa[1], N = sb[1];
    cg_gpu_loop_t l;
    LLVMValueRef o = cg_gpu_loop_begin(g, &l, lane64, i64c(g, M * N), lanes64);
    LLVMValueRef i = LLVMBuildUDiv(B, o, i64c(g, N ? N : 1), ""), j = LLVMBuildURem(B, o, i64c(g, N ? N : 1), "");
    LLVMValueRef acc0 = cg_load_elem(f, C->elem, elem_at(g, C, o));
    /* The interpreter's semantics (hal/cpu/interp/linalg.c), so the results are
     * the same bits: k ascending; f32 (and bf16/f16 outputs) accumulate in f32 with
     * one fused multiply-add per product (fmaf), f64 with a multiply and an add,
     * integers wrap in C's type (same bits as its i64 accumulator truncated). */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef kb = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "mm.k");
    LLVMBasicBlockRef kx = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "mm.kx");
    LLVMBuildCondBr(B, LLVMConstInt(f->m->i1, K > 0, 0), kb, kx);
    LLVMPositionBuilderAtEnd(B, kb);
    LLVMValueRef k = LLVMBuildPhi(B, f->m->i64, "k"), acc = LLVMBuildPhi(B, LLVMTypeOf(acc0), "acc");
    LLVMValueRef a = cg_load_elem(f, A->elem, elem_at(g, A, LLVMBuildAdd(B, LLVMBuildMul(B, i, i64c(g, K), ""), k, "")));
    LLVMValueRef b = cg_load_elem(f, Bm->elem, elem_at(g, Bm, LLVMBuildAdd(B, LLVMBuildMul(B, k, i64c(g, N), ""), j, "")));
    LLVMValueRef nacc;
    if (cf && C->elem != AIR_ELEM_F64) {
      LLVMTypeRef ft = f->m->f32;
      LLVMValueRef args[3] = {a, b, acc};
      nacc = cg_intrinsic(f, "llvm.fma", &ft, 1, args, 3);
    } else {
      nacc = cf ? LLVMBuildFAdd(B, acc, LLVMBuildFMul(B, a, b, ""), "")
                : LLVMBuildAdd(B, acc, LLVMBuildMul(B, a, b, ""), "");
    }
    LLVMValueRef k1 = LLVMBuildAdd(B, k, i64c(g, 1), "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, k1, i64c(g, K), ""), kb, kx);
    LLVMValueRef zero = i64c(g, 0);
    LLVMAddIncoming(k, &zero, &pre, 1);
    LLVMAddIncoming(k, &k1, &kb, 1);
    LLVMAddIncoming(acc, &acc0, &pre, 1);
    LLVMAddIncoming(acc, &nacc, &kb, 1);
    LLVMPositionBuilderAtEnd(B, kx);
    LLVMValueRef res = LLVMBuildPhi(B, LLVMTypeOf(acc0), "");
    LLVMAddIncoming(res, &acc0, &pre, 1);
    LLVMAddIncoming(res, &nacc, &kb, 1);
    cg_store_elem(f, C->elem, elem_at(g, C, o), cf ? cg_round(f, C->elem, res) : res);
    cg_gpu_loop_end(g, &l);
  } else {
    { cg_unsupported(f, op, "this linalg op on the GPU"); return; }
  }
  shared_done(g);
}

/*--- control ---------------------------------------------------------------------*/

static void emit_parallel(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  uint32_t n = op->iaux[0];
  cg_gpu_loop_t loops[8];
  if (n > 8) { cg_unsupported(f, op, "scf.parallel of more than 8 dimensions"); return; }
  for (uint32_t d = 0; d < n; ++d) {
    LLVMValueRef lb = cg_val(f, op->operands[d]), ub = cg_val(f, op->operands[n + d]),
                 st = cg_val(f, op->operands[2 * n + d]);
    cg_gpu_fail_if(g, LLVMBuildICmp(f->b, LLVMIntSLE, st, i64c(g, 0), ""), AIR_CG_STEP, op->line);
    cg_set(f, op->regions[0]->args[d], cg_gpu_loop_begin(g, &loops[d], lb, ub, st));
  }
  cg_emit_block(f, op->regions[0]);
  for (uint32_t d = n; d-- > 0;) cg_gpu_loop_end(g, &loops[d]);
}

static void emit_execute(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  const air_op_t* term = cg_emit_block(f, op->regions[0]);
  for (uint32_t i = 1; term && i < op->n_results && i - 1 < term->n_operands; ++i)
    if (cg_value_elem(f->p, op->results[i]) != AIR_ELEM_NONE)
      cg_set(f, op->results[i], cg_val(f, term->operands[i - 1]));
}

/* A herd in the threads mapping: a phase every work-item reaches, PE x, y being
 * work-item y * sx + x. */
static void emit_herd_phase(cg_gpu_t* g, const air_op_t* op) {
  cg_fn_t* f = g->f;
  LLVMBuilderRef B = f->b;
  int64_t sz[2] = {1, 1};
  for (uint32_t d = 0; d < op->iaux[0] && d < 2; ++d) {
    LLVMValueRef c = cg_val(f, op->operands[d]);
    sz[d] = LLVMIsAConstantInt(c) ? (int64_t)LLVMConstIntGetSExtValue(c) : 1;
  }
  cg_gpu_target_barrier(g);
  LLVMBasicBlockRef in = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "herd");
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "herd.end");
  LLVMValueRef lid = LLVMBuildZExt(B, g->lid, f->m->i64, "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, lid, i64c(g, sz[0] * sz[1]), ""), in, out);
  LLVMPositionBuilderAtEnd(B, in);
  LLVMValueRef saved[2] = {g->herd_ids[0], g->herd_ids[1]};
  g->herd_ids[0] = LLVMBuildURem(B, lid, i64c(g, sz[0]), "");
  g->herd_ids[1] = LLVMBuildUDiv(B, lid, i64c(g, sz[0]), "");
  for (uint32_t d = 0; d < op->iaux[0]; ++d) cg_set(f, op->regions[0]->args[d], g->herd_ids[d]);
  uint32_t level = g->level;
  bool all = g->all_items;
  g->level = CG_LVL_HERD;
  g->all_items = false;
  cg_emit_block(f, op->regions[0]);
  g->level = level;
  g->all_items = all;
  g->herd_ids[0] = saved[0], g->herd_ids[1] = saved[1];
  LLVMBuildBr(B, out);
  LLVMPositionBuilderAtEnd(B, out);
  cg_gpu_target_barrier(g);
}

bool cg_gpu_op(cg_fn_t* f, const air_op_t* op) {
  cg_gpu_t* g = cg_gpu_of(f);
  if (f->st) return true;
  g->line = op->line;
  bool waves = g->plan->mapping == AIR_GPU_MAP_WAVES;
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_HIER:
      if (op->kind == AIR_OP_SEGMENT) {
        if (waves) { /* its own role, started at its start point (cg_gpu_emit.c) */
          if (g->plan->segment_role && !op->n_results)
            cg_gpu_wait_ge(g, ctl(g, 3), cg_gpu_i32(g, 1), op->line);
        } else {
          uint32_t level = g->level;
          g->level = CG_LVL_SEGMENT;
          cg_emit_block(f, op->regions[0]);
          g->level = level;
        }
        return true;
      }
      if (op->kind == AIR_OP_HERD) {
        if (waves) {
          if (!op->n_results) cg_gpu_wait_ge(g, ctl(g, 2), cg_gpu_i32(g, g->plan->pes), op->line);
        } else {
          emit_herd_phase(g, op);
        }
        return true;
      }
      return false;
    case AIR_OPC_CHANNEL_IO:
      cg_gpu_wait_tokens(g, op);
      emit_channel(g, op);
      return true;
    case AIR_OPC_DMA:
      cg_gpu_wait_tokens(g, op);
      emit_dma(g, op);
      return true;
    case AIR_OPC_EXECUTE:
      cg_gpu_wait_tokens(g, op);
      emit_execute(g, op);
      return true;
    case AIR_OPC_WAIT_ALL:
      cg_gpu_wait_tokens(g, op);
      return true;
    case AIR_OPC_PARALLEL:
      emit_parallel(g, op);
      return true;
    case AIR_OPC_REDUCE: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC:
      return true; /* token joins; buffers are planned, their lifetime the kernel's */
    case AIR_OPC_LINALG:
      cg_gpu_wait_tokens(g, op);
      emit_linalg(g, op);
      return true;
    case AIR_OPC_STORE:
      if (!g->all_items) return false;
      { /* one write for the workgroup, seen by all after the barrier */
        LLVMBasicBlockRef w = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "store.one");
        LLVMBasicBlockRef j = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "store.join");
        LLVMBuildCondBr(f->b, g->uniform_first, w, j);
        LLVMPositionBuilderAtEnd(f->b, w);
        cg_emit_core_op(f, op);
        LLVMBuildBr(f->b, j);
        LLVMPositionBuilderAtEnd(f->b, j);
        cg_gpu_target_barrier(g);
      }
      return true;
    default:
      return false;
  }
}

/* cg_gpu_plan.c - one launch analysed for a GPU kernel (cg_gpu_kernel.h): its
 * chain of segments (cg_gpu_grid.c lays their instances out as workgroups) and
 * herds, the mapping (PE -> thread, or PE -> wave when channels tie
 * the levels together), the LDS / spill / private place of every L1 and L2
 * buffer, the LDS state of every channel, and the grid. Whatever a GPU kernel
 * cannot do is refused here, at the op, before any IR is built. */
#include <string.h>

#include "codegen/cg_gpu_kernel.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct planner_t {
  const air_allocator_t* a;
  cg_gpu_plan_t* pl;
  const air_program_t* p;
  uint32_t n_herds;
  bool channels;            /* a put or get anywhere in the launch */
  bool launch_work, segment_work;
  uint32_t cap_bufs, cap_chans;
  uint32_t depth;           /* segments around the op being walked */
  cg_gpu_depth_use_t use[CG_GPU_MAX_SEGS + 1];
  const air_op_t* first_chan; /* the first channel put/get */
} planner_t;

#define REFUSE(P, op, ...) \
  AIR_IR_ERROR((P)->p, AIR_STATUS_UNIMPLEMENTED, (op)->line, (op)->col, __VA_ARGS__)

const air_op_t* cg_gpu_enclosing_hier(const air_op_t* op) {
  for (const air_block_t* b = op->parent; b && b->parent; b = b->parent->parent)
    if (air_opkind_class(b->parent->kind) == AIR_OPC_HIER) return b->parent;
  return NULL;
}

const cg_gpu_buf_t* cg_gpu_plan_buf(const cg_gpu_plan_t* pl, const air_op_t* alloc) {
  for (uint32_t i = 0; i < pl->n_bufs; ++i)
    if (pl->bufs[i].alloc == alloc) return &pl->bufs[i];
  return NULL;
}

const cg_gpu_chan_t* cg_gpu_plan_chan(const cg_gpu_plan_t* pl, const char* sym) {
  for (uint32_t i = 0; i < pl->n_chans; ++i)
    if (!strcmp(pl->chans[i].decl->sym, sym)) return &pl->chans[i];
  return NULL;
}

/* A launch size: a constant or an entry parameter. */
static air_status_t trace_size(planner_t* P, const air_op_t* at, air_vid_t v, air_gpu_size_t* out) {
  const air_value_info_t* info = air_ir_value(P->p, v);
  if (info->def && info->def->kind == AIR_OP_CONSTANT) {
    out->param = UINT32_MAX;
    out->value = info->def->value.i;
    return NULL;
  }
  if (!info->def && info->block && info->block->parent == P->pl->func) {
    out->param = info->index;
    out->value = 0;
    return NULL;
  }
  return REFUSE(P, at, "a GPU grid's size must be a constant or an entry parameter");
}

/* A memref type a kernel can address: static shape, identity layout. */
static air_status_t check_memref(planner_t* P, const air_op_t* at, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(P->p, air_ir_value_type(P->p, v));
  if (t->kind != AIR_TYPE_MEMREF) return NULL;
  if (t->layout) return REFUSE(P, at, "a memref with a layout in a GPU kernel is not supported");
  if (t->rank > 4) return REFUSE(P, at, "a GPU kernel addresses memrefs of rank 4 at most");
  for (uint32_t k = 0; k < t->rank; ++k)
    if (t->shape[k] < 0)
      return REFUSE(P, at, "a memref of dynamic shape in a GPU kernel (%s): GPU kernels are "
                           "built for static shapes (dynamic shapes in L2 cannot be placed in LDS)",
                    t->memspace == AIR_MEM_L2 ? "L2" : t->memspace == AIR_MEM_L1 ? "L1" : "L3");
  return NULL;
}

static uint64_t memref_bytes(const air_program_t* p, air_vid_t v) {
  const air_type_info_t* t = air_ir_type(p, air_ir_value_type(p, v));
  uint64_t n = air_elem_size((air_elem_kind_t)t->elem);
  for (uint32_t k = 0; k < t->rank; ++k) n *= (uint64_t)t->shape[k];
  return (n + 15) & ~(uint64_t)15;
}

static air_status_t add_buf(planner_t* P, const air_op_t* alloc, uint32_t level) {
  air_vid_t v = alloc->results[0];
  AIR_RETURN_IF_ERROR(check_memref(P, alloc, v));
  int32_t ms = air_ir_type(P->p, air_ir_value_type(P->p, v))->memspace;
  uint32_t where;
  if (ms == AIR_MEM_L1) {
    if (level != CG_LVL_HERD)
      return REFUSE(P, alloc, "an L1 buffer outside a herd: on the GPU L1 is a PE's private memory");
    where = CG_GPU_PRIVATE;
  } else if (ms == AIR_MEM_L2) {
    if (level == CG_LVL_HERD)
      return REFUSE(P, alloc, "an L2 buffer allocated inside a herd: on the GPU L2 is the "
                              "workgroup's LDS, allocated by the segment or launch body");
    if (!P->use[P->depth].l2) P->use[P->depth].l2 = alloc;
    where = CG_GPU_LDS;
  } else {
    return REFUSE(P, alloc, "an L3 allocation inside a GPU kernel: allocate L3 buffers at the "
                            "entry's top level and pass them in");
  }
  cg_gpu_plan_t* pl = P->pl;
  if (!air_mem_grow(P->a, (void**)&pl->bufs, &P->cap_bufs, pl->n_bufs + 1, sizeof *pl->bufs))
    return AIR_STATUS_OOM(P->a, "GPU kernel plan");
  cg_gpu_buf_t* b = &pl->bufs[pl->n_bufs++];
  memset(b, 0, sizeof *b);
  b->alloc = alloc;
  b->where = where;
  b->bytes = memref_bytes(P->p, v);
  return NULL;
}

static air_status_t add_chan(planner_t* P, const air_op_t* io, uint32_t level) {
  const air_op_t* decl = NULL;
  for (const air_op_t* o = P->p->module->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_CHANNEL && o->sym && !strcmp(o->sym, io->sym)) decl = o;
  if (!decl) return REFUSE(P, io, "channel @%s is not declared", io->sym);
  if (air_ir_attr_get(decl, "broadcast_shape") || air_ir_attr_get(decl, "channel_type"))
    return REFUSE(P, io, "broadcast and typed (cascade) channels do not run on the GPU yet");
  cg_gpu_plan_t* pl = P->pl;
  cg_gpu_chan_t* c = (cg_gpu_chan_t*)cg_gpu_plan_chan(pl, io->sym);
  if (!c) {
    if (!air_mem_grow(P->a, (void**)&pl->chans, &P->cap_chans, pl->n_chans + 1, sizeof *pl->chans))
      return AIR_STATUS_OOM(P->a, "GPU kernel plan");
    c = &pl->chans[pl->n_chans++];
    memset(c, 0, sizeof *c);
    c->decl = decl;
    c->instances = 1;
    const air_ixlist_t* dims = decl->n_lists ? &decl->lists[0] : NULL;
    c->n_dims = dims ? dims->n : 0;
    if (c->n_dims > 4) return REFUSE(P, decl, "a channel with more than 4 dimensions on the GPU");
    for (uint32_t k = 0; k < c->n_dims; ++k) {
      int64_t d = dims->items[k].cst;
      if (d < 1 || d > 4096) return REFUSE(P, decl, "channel dimension %lld", (long long)d);
      c->dims[k] = (uint32_t)d;
      c->instances *= (uint32_t)d;
    }
    c->depth = 1;
    const air_attr_t* dep = air_ir_attr_get(decl, "depth");
    if (dep) dep = air_ir_attr_resolve(P->p, dep);
    if (dep && dep->kind == AIR_ATTR_INT && dep->i >= 1 && dep->i <= 16) c->depth = (uint32_t)dep->i;
    if (c->instances > 4096) return REFUSE(P, decl, "a channel of more than 4096 instances on the GPU");
  }
  if (io->iaux[0] != c->n_dims && !(io->iaux[0] == 0 && c->instances == 1))
    return REFUSE(P, io, "@%s takes %u indices", io->sym, c->n_dims);
  if (io->flags & AIR_OPF_HAS_DEST) return REFUSE(P, io, "a put with dest(...) on the GPU");
  if (level == CG_LVL_HERD) {
    if (io->kind == AIR_OP_PUT) c->put_herd = true;
    else c->get_herd = true;
  }
  air_vid_t m = io->operands[io->iaux[0]];
  AIR_RETURN_IF_ERROR(check_memref(P, io, m));
  for (uint32_t l = 1; l < 3 && l < io->n_lists; ++l)
    if (io->lists[l].n > 4) return REFUSE(P, io, "an access pattern of more than 4 dimensions");
  return NULL;
}

/* True when an op of this class has effects beyond computing a value. */
static bool is_work(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_TERMINATOR:
    case AIR_OPC_HIER: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC: case AIR_OPC_WAIT_ALL:
      return false;
    case AIR_OPC_EXECUTE: /* an execute that only allocates is no work */
      for (const air_op_t* o = op->regions[0]->first; o; o = o->next)
        if (is_work(o)) return true;
      return false;
    default: return true;
  }
}

/* An op whose effect must happen once per instance of its level. */
static bool has_effect(const air_op_t* op) {
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_STORE: case AIR_OPC_DMA: case AIR_OPC_CHANNEL_IO: case AIR_OPC_LINALG:
      return true;
    default: return false;
  }
}

static air_status_t walk_block(planner_t* P, const air_block_t* b, uint32_t level);

static air_status_t walk_op(planner_t* P, const air_op_t* op, uint32_t level) {
  if (level == CG_LVL_LAUNCH && is_work(op)) P->launch_work = true;
  if (level == CG_LVL_SEGMENT && is_work(op)) P->segment_work = true;
  if (level != CG_LVL_HERD && has_effect(op) && !P->use[P->depth].effect) P->use[P->depth].effect = op;
  if (op->flags & (AIR_OPF_SRC_RANK | AIR_OPF_DST_RANK))
    return REFUSE(P, op, "ranks (src_rank/dst_rank) inside a GPU kernel");
  switch (air_opkind_class(op->kind)) {
    case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
    case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_AFFINE_APPLY: case AIR_OPC_TERMINATOR:
    case AIR_OPC_WAIT_ALL: case AIR_OPC_DEALLOC:
      return NULL;
    case AIR_OPC_LOAD: case AIR_OPC_STORE: {
      uint32_t mi = air_opkind_class(op->kind) == AIR_OPC_LOAD ? 0 : 1;
      return check_memref(P, op, op->operands[mi]);
    }
    case AIR_OPC_FOR: case AIR_OPC_AFFINE_FOR: case AIR_OPC_IF: case AIR_OPC_AFFINE_IF:
    case AIR_OPC_EXECUTE:
      for (uint32_t r = 0; r < op->n_regions; ++r) AIR_RETURN_IF_ERROR(walk_block(P, op->regions[r], level));
      return NULL;
    case AIR_OPC_PARALLEL:
      for (uint32_t i = 3 * op->iaux[0]; i < op->n_operands; ++i)
        if (!air_ir_type_is_token(P->p, air_ir_value_type(P->p, op->operands[i])))
          return REFUSE(P, op, "scf.parallel with a value reduction in a GPU kernel (only tokens)");
      return walk_block(P, op->regions[0], level);
    case AIR_OPC_REDUCE:
      for (uint32_t i = 0; i < op->n_operands; ++i)
        if (!air_ir_type_is_token(P->p, air_ir_value_type(P->p, op->operands[i])))
          return REFUSE(P, op, "scf.reduce of values in a GPU kernel (only tokens)");
      return NULL;
    case AIR_OPC_ALLOC:
      return add_buf(P, op, level);
    case AIR_OPC_DMA:
      if (op->n_operands != 2 || op->n_lists < 6) return REFUSE(P, op, "malformed dma");
      for (uint32_t l = 0; l < 6; ++l)
        if (op->lists[l].n > 4) return REFUSE(P, op, "an access pattern of more than 4 dimensions");
      AIR_RETURN_IF_ERROR(check_memref(P, op, op->operands[0]));
      return check_memref(P, op, op->operands[1]);
    case AIR_OPC_CHANNEL_IO:
      P->channels = true;
      if (!P->first_chan) P->first_chan = op;
      return add_chan(P, op, level);
    case AIR_OPC_LINALG:
      if (op->kind == AIR_OP_GENERIC && !cg_generic_supported(P->p, op))
        return REFUSE(P, op, "this linalg.generic in a GPU kernel: its maps must be linear "
                             "(no mod, floordiv or ceildiv), every loop bounded by an operand "
                             "dimension, at most 16 operands, and its body scalar arithmetic");
      for (uint32_t i = 0; i < op->n_operands; ++i) AIR_RETURN_IF_ERROR(check_memref(P, op, op->operands[i]));
      return NULL;
    case AIR_OPC_HIER:
      if (op->kind == AIR_OP_SEGMENT) {
        if (level == CG_LVL_HERD) return REFUSE(P, op, "a segment inside a herd");
        AIR_RETURN_IF_ERROR(cg_gpu_grid_add(P->pl, op, P->depth));
        P->depth++;
        air_status_t s = walk_block(P, op->regions[0], CG_LVL_SEGMENT);
        P->depth--;
        return s;
      }
      if (op->kind == AIR_OP_HERD) {
        if (level != CG_LVL_SEGMENT) return REFUSE(P, op, "a herd outside a segment");
        if (air_ir_attr_get(op, "link_with"))
          return REFUSE(P, op, "a herd with link_with runs its code object (the hsa driver's "
                               "linked kernels), not a generated kernel");
        uint32_t sz[2] = {1, 1};
        if (op->iaux[0] > 2) return REFUSE(P, op, "a herd of more than 2 dimensions");
        for (uint32_t d = 0; d < op->iaux[0]; ++d) {
          int64_t n;
          if (!cg_gpu_const_of(P->p, op->operands[d], &n) || n < 1 || n > 1024)
            return REFUSE(P, op, "a GPU herd's size must be a constant in 1..1024");
          sz[d] = (uint32_t)n;
        }
        if (!P->use[P->depth].herd) P->use[P->depth].herd = op;
        if (!P->pl->herd) {
          P->pl->herd = op;
          P->pl->herd_size[0] = sz[0];
          P->pl->herd_size[1] = sz[1];
        }
        uint32_t pes = sz[0] * sz[1];
        if (pes > P->pl->pes) P->pl->pes = pes;
        P->n_herds++;
        return walk_block(P, op->regions[0], CG_LVL_HERD);
      }
      return REFUSE(P, op, "%s inside a GPU kernel", air_opkind_name(op->kind));
    case AIR_OPC_CALL:
      return REFUSE(P, op, "func.call of @%s inside a GPU kernel: a host function cannot run on "
                           "the GPU (a herd may link_with a code object instead)",
                    op->sym ? op->sym : "?");
    default:
      return REFUSE(P, op, "%s inside a GPU kernel is not supported", air_opkind_name(op->kind));
  }
}

static air_status_t walk_block(planner_t* P, const air_block_t* b, uint32_t level) {
  for (const air_op_t* o = b ? b->first : NULL; o; o = o->next)
    AIR_RETURN_IF_ERROR(walk_op(P, o, level));
  return NULL;
}

/* Channels must stay inside this launch, and hierarchy tokens may only be waited
 * on (the waves mapping turns those waits into flag waits). */
static air_status_t check_uses(planner_t* P, const air_op_t* op) {
  if (op == P->pl->launch) return NULL;
  if (air_opkind_class(op->kind) == AIR_OPC_CHANNEL_IO && cg_gpu_plan_chan(P->pl, op->sym))
    return REFUSE(P, op, "channel @%s is used here and inside a GPU kernel (line %u): on the GPU "
                         "a channel lives in one workgroup's LDS and cannot cross workgroups",
                  op->sym, P->pl->launch->line);
  if (P->pl->mapping == AIR_GPU_MAP_WAVES) {
    const air_op_t* hs[2] = {P->pl->segment, P->pl->herd};
    for (int h = 0; h < 2; ++h) {
      if (!hs[h] || !hs[h]->n_results) continue;
      air_vid_t tok = hs[h]->results[0];
      for (uint32_t i = 0; i < op->n_operands; ++i)
        if (op->operands[i] == tok)
          return REFUSE(P, op, "%s's token flows through %s: on the GPU's wave mapping a "
                               "segment's or herd's token can only be waited on",
                        air_opkind_name(hs[h]->kind), air_opkind_name(op->kind));
    }
  }
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      AIR_RETURN_IF_ERROR(check_uses(P, o));
  return NULL;
}

air_status_t cg_gpu_plan(const air_allocator_t* a, const air_program_t* p, const air_op_t* func,
                         const air_op_t* launch, const air_target_t* t, cg_gpu_plan_t* pl) {
  memset(pl, 0, sizeof *pl);
  pl->p = p;
  pl->t = t;
  pl->func = func;
  pl->launch = launch;
  pl->n_params = func->iaux[0];
  pl->xcd_seg = -1;
  planner_t P;
  memset(&P, 0, sizeof P);
  P.a = a;
  P.pl = pl;
  P.p = p;
  air_status_t s = NULL;
  if (launch->iaux[0] > 3) s = REFUSE(&P, launch, "a launch of more than 3 dimensions");
  if (!s && launch->n_regions != 1) s = REFUSE(&P, launch, "a launch without a body");
  pl->n_grid = launch->iaux[0];
  for (uint32_t d = 0; !s && d < pl->n_grid; ++d)
    s = trace_size(&P, launch, launch->operands[d], &pl->grid[d]);
  if (!s) s = walk_block(&P, launch->regions[0], CG_LVL_LAUNCH);
  if (!s && !pl->segment) s = REFUSE(&P, launch, "a GPU kernel needs a segment in its launch");
  if (!s && !pl->herd) s = REFUSE(&P, pl->segment, "a GPU kernel needs a herd in its segment");
  if (!s) s = cg_gpu_grid_finish(pl, P.use, P.first_chan);
  if (s) goto fail;
  pl->wave_size = t->wave_size ? t->wave_size : 64;
  if (P.channels) {
    /* PEs that block on channels get waves of their own: the lanes of one wave
     * cannot make progress independently (docs/gpu.md). */
    pl->mapping = AIR_GPU_MAP_WAVES;
    pl->launch_role = P.launch_work;
    pl->segment_role = P.segment_work;
    pl->fixed_roles = (uint32_t)pl->launch_role + (uint32_t)pl->segment_role;
    if (pl->n_segs != 1) {
      s = REFUSE(&P, pl->segs[1].op, "with channels, a GPU kernel holds one segment, directly in "
                                     "its launch (the segment body gets a wave of its own; nested "
                                     "segments with channels are not supported yet)");
      goto fail;
    }
    if (P.n_herds != 1 || pl->herd->parent != pl->segment->regions[0]) {
      s = REFUSE(&P, pl->herd, "with channels, a GPU segment holds exactly one herd, directly in "
                               "its body (each PE gets a wave for the whole kernel)");
      goto fail;
    }
    uint32_t slots = t->wave_slots ? t->wave_slots : 32;
    if (pl->pes > slots) {
      s = REFUSE(&P, pl->herd, "a herd of %u PEs that use channels needs a wave each, but a %s CU "
                               "holds %u waves", pl->pes, t->name, slots);
      goto fail;
    }
    uint32_t max_waves = 1024 / pl->wave_size;
    pl->pes_per_wave = 1;
    if (pl->fixed_roles + pl->pes > max_waves) {
      /* Past a workgroup's 1024 work-items, PEs share waves lane by lane: they then
       * advance through their channel ops together, so no channel may join two
       * PEs (docs/gpu.md). */
      uint32_t room = max_waves - pl->fixed_roles;
      pl->pes_per_wave = (pl->pes + room - 1) / room;
      for (uint32_t i = 0; i < pl->n_chans; ++i)
        if (pl->chans[i].put_herd && pl->chans[i].get_herd) {
          s = REFUSE(&P, pl->herd, "this herd's %u PEs share waves (%u roles need more than a "
                                   "workgroup's %u waves of %u), so PEs cannot exchange data "
                                   "through channel @%s", pl->pes, pl->fixed_roles + pl->pes,
                     max_waves, pl->wave_size, pl->chans[i].decl->sym);
          goto fail;
        }
    }
    pl->workgroup = (pl->fixed_roles + (pl->pes + pl->pes_per_wave - 1) / pl->pes_per_wave) *
                    pl->wave_size;
  } else {
    pl->mapping = AIR_GPU_MAP_THREADS;
    pl->pes_per_wave = 1;
    pl->workgroup = pl->pes;
  }
  if (!s) s = check_uses(&P, p->module);
  if (s) goto fail;
  /* LDS: control words, channel state, then L2 buffers while they fit; the rest
   * of L2 goes to the workgroup's slice of global memory. */
  /* The control words only serve the waves mapping's roles. */
  uint64_t lds = pl->mapping == AIR_GPU_MAP_WAVES ? CG_CTL_BYTES : 0;
  for (uint32_t i = 0; i < pl->n_chans; ++i) {
    cg_gpu_chan_t* c = &pl->chans[i];
    c->offset = (uint32_t)lds;
    lds += (uint64_t)c->instances * (CG_CH_HEAD + (uint64_t)c->depth * CG_SLOT_BYTES);
  }
  uint64_t cap = t->l1_bytes ? t->l1_bytes : 65536;
  if (lds > cap) {
    s = REFUSE(&P, launch, "this kernel's channels need %llu bytes of LDS state, more than the "
                           "%llu a workgroup has", (unsigned long long)lds, (unsigned long long)cap);
    goto fail;
  }
  pl->lds_init_bytes = (uint32_t)lds;
  for (uint32_t i = 0; i < pl->n_bufs; ++i) {
    cg_gpu_buf_t* b = &pl->bufs[i];
    if (b->where != CG_GPU_LDS) continue;
    if (lds + b->bytes <= cap) {
      b->offset = lds;
      lds += b->bytes;
    } else {
      b->where = CG_GPU_SPILL;
      b->offset = pl->spill_bytes;
      pl->spill_bytes += b->bytes;
    }
  }
  pl->lds_bytes = (uint32_t)lds;
  return NULL;
fail:
  cg_gpu_plan_free(a, pl);
  return s;
}

void cg_gpu_plan_free(const air_allocator_t* a, cg_gpu_plan_t* pl) {
  air_mem_free(a, pl->bufs);
  air_mem_free(a, pl->chans);
  pl->bufs = NULL;
  pl->chans = NULL;
  pl->n_bufs = pl->n_chans = 0;
}

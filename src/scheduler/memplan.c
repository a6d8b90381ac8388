/* memplan.c - the memory plan of an entry function (see memplan.h).
 *
 * One pre-order walk numbers the ops and hands each planned alloc to its scope:
 * the host (L3, outside every launch/segment/herd), the innermost segment (L2) or
 * the innermost herd (L1). A scope is planned when its walk ends, so a segment's
 * herds are done before the segment. An alloc belongs to the top-level op of the
 * scope's block that contains it; its lifetime runs from that op to the end of the
 * top-level op that frees it (a dealloc of the alloc's value, or of the result an
 * enclosing air.execute yields it as), else to the end of the scope. Values do
 * not cross launch/segment/herd boundaries (they are isolated from above), so one
 * per-value array records, for each dealloc, the top-level index in its scope.
 *
 * An L2 alloc inside a herd is made by every PE: its buffer holds one aligned copy
 * per PE, PE k's at offset + k * (size / PEs). L3 allocs inside a launch and L1
 * allocs outside a herd are not planned (the driver makes them on demand). */
#include "scheduler/memplan.h"

#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/pack/pack.h"
#include "scheduler/resources.h"
#include "scheduler/schedule_bind.h"
#include "scheduler/host_graph.h"

typedef struct mbuf_t {
  const air_op_t* alloc;
  uint32_t op;       /* pre-order index */
  uint32_t top;      /* top-level op of the scope block holding the alloc */
  air_vid_t tracked; /* the value the scope's block sees (0: only inside `top`) */
  uint64_t size;
} mbuf_t;

typedef struct scope_t {
  uint32_t space;
  const air_op_t* owner;      /* NULL for L3 */
  uint32_t owner_index;
  const air_block_t* block;
  uint32_t base;              /* pre-order index of the block's first op */
  uint32_t top;               /* top-level op being walked */
  uint32_t* top_pos;          /* per top-level op: its position (relative pre-order) */
  uint32_t n_top, cap_top;
  mbuf_t* bufs;
  uint32_t n_bufs, cap_bufs;
} scope_t;

typedef struct vec_t {
  void* data;
  size_t n, cap, elem;
} vec_t;

typedef struct mp_t {
  const air_program_t* p;
  const air_allocator_t* a;
  const air_target_t* t;
  const air_partition_t* part;
  uint64_t alignment;
  uint32_t* dealloc_at; /* per value: max top-level index of a dealloc (NONE) */
  uint32_t* node_of;    /* scratch for block graphs */
  uint32_t next;        /* pre-order counter */
  vec_t arenas;         /* air_memplan_arena_t, L2/L1 in planning order */
  vec_t buffers;        /* air_memplan_buffer_t, grouped by arena */
} mp_t;

typedef struct ctx_t {
  scope_t* host;  /* L3, NULL inside a launch/segment/herd */
  scope_t* seg;   /* innermost segment */
  scope_t* herd;  /* innermost herd */
  scope_t* cur;   /* innermost scope: where deallocs are recorded */
  uint64_t pes;   /* PEs of the herds between `seg` and the op */
} ctx_t;

/* A zeroed new element at the end of v, or NULL when out of memory. */
static void* vec_push(const air_allocator_t* a, vec_t* v) {
  if (!air_mem_grow_z(a, &v->data, &v->cap, v->n + 1, v->elem)) return NULL;
  void* slot = (char*)v->data + v->n++ * v->elem;
  memset(slot, 0, v->elem);
  return slot;
}

static void scope_free(const mp_t* m, scope_t* s) {
  m->a->free(m->a->self, s->top_pos);
  m->a->free(m->a->self, s->bufs);
}

static bool const_u64(const air_program_t* p, air_vid_t v, uint64_t* out) {
  const air_op_t* d = air_ir_value(p, v)->def;
  if (!d || d->kind != AIR_OP_CONSTANT || d->value.kind != AIR_ATTR_INT || d->value.i < 0)
    return false;
  *out = (uint64_t)d->value.i;
  return true;
}

static uint64_t herd_pes(const air_program_t* p, const air_op_t* herd) {
  uint64_t pes = 1, v;
  for (uint32_t i = 0; i < herd->iaux[0] && i < herd->n_operands; ++i)
    if (const_u64(p, herd->operands[i], &v)) pes *= v ? v : 1;
  return pes;
}

static const char* value_name(const air_program_t* p, air_vid_t v) {
  const char* n = air_ir_value(p, v)->name;
  return n ? n : "";
}

/* Aligned bytes of one alloc (times `copies`), or an error naming it. */
static air_status_t alloc_size(const mp_t* m, const air_op_t* op, uint64_t copies,
                               uint64_t* out) {
  const air_type_info_t* ty = air_ir_type(m->p, air_ir_value_type(m->p, op->results[0]));
  uint64_t bytes = air_elem_size(ty->elem);
  bool overflow = false;
  for (uint32_t i = 0; i < ty->rank; ++i) {
    if (ty->shape[i] == AIR_DIM_DYNAMIC || ty->shape[i] < 0)
      return AIR_IR_ERROR(m->p, AIR_STATUS_FAILED_PRECONDITION, op->line, op->col,
                          "[memplan] memref.alloc %%%s has a dynamic shape; the memory plan "
                          "needs static sizes",
                          value_name(m->p, op->results[0]));
    uint64_t d = (uint64_t)ty->shape[i];
    if (d && bytes > UINT64_MAX / d) overflow = true;
    bytes *= d;
  }
  uint64_t aligned = bytes + (m->alignment - 1);
  if (aligned < bytes || overflow || (copies && aligned / m->alignment > UINT64_MAX / copies))
    return AIR_IR_ERROR(m->p, AIR_STATUS_FAILED_PRECONDITION, op->line, op->col,
                        "[memplan] memref.alloc %%%s is too large", value_name(m->p, op->results[0]));
  *out = (aligned & ~(m->alignment - 1)) * copies;
  return AIR_STATUS_OK_VALUE;
}

/* The value the scope block sees for an alloc: its own result at top level, or
 * the result of a top-level air.execute that yields it. */
static air_vid_t tracked_value(const scope_t* s, const air_op_t* op) {
  if (op->parent == s->block) return op->results[0];
  const air_op_t* ex = air_ir_parent_op(op);
  if (!ex || ex->kind != AIR_OP_EXECUTE || ex->parent != s->block) return 0;
  const air_op_t* term = air_ir_block_terminator(op->parent);
  for (uint32_t k = 0; term && k < term->n_operands; ++k)
    if (term->operands[k] == op->results[0] && k + 1 < ex->n_results) return ex->results[k + 1];
  return 0;
}

static air_status_t add_alloc(mp_t* m, const ctx_t* c, const air_op_t* op, uint32_t index) {
  if (!op->n_results) return AIR_STATUS_OK_VALUE;
  const air_type_info_t* ty = air_ir_type(m->p, air_ir_value_type(m->p, op->results[0]));
  if (ty->kind != AIR_TYPE_MEMREF) return AIR_STATUS_OK_VALUE;
  scope_t* s = ty->memspace == AIR_MEM_L3   ? c->host
               : ty->memspace == AIR_MEM_L2 ? c->seg
               : ty->memspace == AIR_MEM_L1 ? c->herd
                                            : NULL;
  if (!s) return AIR_STATUS_OK_VALUE;
  mbuf_t b = {.alloc = op, .op = index, .top = s->top, .tracked = tracked_value(s, op)};
  AIR_RETURN_IF_ERROR(alloc_size(m, op, ty->memspace == AIR_MEM_L2 ? c->pes : 1, &b.size));
  if (!air_mem_grow(m->a, (void**)&s->bufs, &s->cap_bufs, (size_t)s->n_bufs + 1, sizeof b))
    return AIR_STATUS_OOM(m->a, "planning memory");
  s->bufs[s->n_bufs++] = b;
  return AIR_STATUS_OK_VALUE;
}

static air_status_t visit(mp_t* m, const ctx_t* c, const air_op_t* op);
static air_status_t plan_scope(mp_t* m, scope_t* s);

/* Walks a scope's block, noting where each top-level op starts. */
static air_status_t walk_scope(mp_t* m, scope_t* s, const ctx_t* c) {
  s->base = m->next;
  uint32_t k = 0;
  for (const air_op_t* op = s->block ? s->block->first : NULL; op; op = op->next, ++k) {
    if (!air_mem_grow(m->a, (void**)&s->top_pos, &s->cap_top, (size_t)s->n_top + 1,
                      sizeof *s->top_pos))
      return AIR_STATUS_OOM(m->a, "planning memory");
    s->top_pos[s->n_top++] = m->next - s->base;
    s->top = k;
    AIR_RETURN_IF_ERROR(visit(m, c, op));
  }
  return AIR_STATUS_OK_VALUE;
}

static air_status_t visit_scope(mp_t* m, const ctx_t* outer, const air_op_t* op, uint32_t index) {
  scope_t s = {.space = op->kind == AIR_OP_HERD ? AIR_MEMPLAN_L1 : AIR_MEMPLAN_L2,
               .owner = op, .owner_index = index,
               .block = op->n_regions ? op->regions[0] : NULL};
  ctx_t c = {.cur = &s, .pes = 1};
  if (op->kind == AIR_OP_HERD) {
    c.seg = outer->seg;
    c.herd = &s;
    c.pes = outer->pes * herd_pes(m->p, op);
  } else {
    c.seg = &s;
  }
  air_status_t st = walk_scope(m, &s, &c);
  if (!st) st = plan_scope(m, &s);
  scope_free(m, &s);
  return st;
}

static air_status_t visit(mp_t* m, const ctx_t* c, const air_op_t* op) {
  uint32_t index = m->next++;
  if (op->kind == AIR_OP_ALLOC) AIR_RETURN_IF_ERROR(add_alloc(m, c, op, index));
  if (op->kind == AIR_OP_DEALLOC && op->n_operands && op->operands[0] < m->p->n_values &&
      c->cur) {
    uint32_t* at = &m->dealloc_at[op->operands[0]];
    if (*at == AIR_SCHED_NONE || *at < c->cur->top) *at = c->cur->top;
  }
  if (op->kind == AIR_OP_HERD || op->kind == AIR_OP_SEGMENT)
    return visit_scope(m, c, op, index);
  ctx_t inner = *c;
  scope_t dummy = {0}; /* a launch body: nothing planned, deallocs ignored */
  if (op->kind == AIR_OP_LAUNCH) inner = (ctx_t){.cur = &dummy, .pes = 1};
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* x = op->regions[r] ? op->regions[r]->first : NULL; x; x = x->next) {
      if (op->kind == AIR_OP_LAUNCH) dummy.top = 0;
      AIR_RETURN_IF_ERROR(visit(m, &inner, x));
    }
  return AIR_STATUS_OK_VALUE;
}

/* The top-level op whose end frees buffer b (NONE: never freed). */
static uint32_t freed_by(const mp_t* m, const mbuf_t* b) {
  uint32_t d = m->dealloc_at[b->alloc->results[0]];
  if (b->tracked) {
    uint32_t t = m->dealloc_at[b->tracked];
    if (t != AIR_SCHED_NONE && (d == AIR_SCHED_NONE || t > d)) d = t;
  }
  if (d != AIR_SCHED_NONE && d < b->top) d = b->top;
  return d;
}

/* L1: one tile's, less the core's stack. L2 on an NPU: the mem tiles of the
 * columns the segment spans (its x_size; without one it may span the device,
 * which the resource check already bounds for co-resident segments); on an array
 * without mem tiles L2 is host memory reached through the shim DMAs (mlir-air's
 * airrt.alloc path), with no limit. Elsewhere one L2 unit. */
static uint64_t capacity_of(const mp_t* m, const scope_t* s) {
  const air_target_t* t = m->t;
  if (s->space == AIR_MEMPLAN_L1) return air_target_l1_usable(t);
  if (s->space != AIR_MEMPLAN_L2) return 0;
  if (t->kind != AIR_TARGET_NPU || !s->owner) return t->l2_bytes;
  if (!air_target_l2_on_array(t)) return 0;
  int64_t xs = air_res_attr_int(s->owner, "x_size");
  uint32_t tiles = air_target_memtiles_in(t, 0, xs > 0 ? (uint32_t)xs : 0);
  return t->l2_bytes * (tiles ? tiles : 1);
}

/* Packs one scope's buffers (lifetimes already in lower/upper) into a new arena. */
static air_status_t pack_scope(mp_t* m, const scope_t* s, air_pack_buffer_t* pb) {
  uint64_t* off = air_mem_calloc(m->a, s->n_bufs, sizeof *off);
  if (!off) return AIR_STATUS_OOM(m->a, "planning memory");
  air_pack_options_t opts = {.alignment = m->alignment, .search_budget = 2u * 1000 * 1000,
                             .flags = s->n_bufs > 20000 ? AIR_PACK_FLAG_NO_SEARCH : 0};
  air_pack_result_t res = {0};
  air_status_t st =
      s->n_bufs ? air_pack_plan(m->a, pb, s->n_bufs, &opts, off, &res) : AIR_STATUS_OK_VALUE;
  air_memplan_arena_t* ar = st ? NULL : vec_push(m->a, &m->arenas);
  if (!st && !ar) st = AIR_STATUS_OOM(m->a, "planning memory");
  if (!st) {
    *ar = (air_memplan_arena_t){.space = s->space,
                                .owner = s->owner ? s->owner_index : UINT32_MAX,
                                .size = res.arena_size, .lower_bound = res.lower_bound,
                                .capacity = capacity_of(m, s),
                                .buffer_begin = (uint32_t)m->buffers.n};
    for (uint32_t i = 0; i < s->n_bufs && !st; ++i) {
      air_memplan_buffer_t* b = vec_push(m->a, &m->buffers);
      if (!b) {
        st = AIR_STATUS_OOM(m->a, "planning memory");
        break;
      }
      *b = (air_memplan_buffer_t){.op = s->bufs[i].op, .arena = (uint32_t)(m->arenas.n - 1),
                                  .size = pb[i].size, .offset = off[i],
                                  .start = (uint32_t)pb[i].lower, .end = (uint32_t)pb[i].upper};
    }
    ar->buffer_end = (uint32_t)m->buffers.n;
  }
  m->a->free(m->a->self, off);
  if (!st && ar->capacity && ar->size > ar->capacity) {
    char lb[96];
    const air_op_t* o = s->owner;
    return AIR_IR_ERROR(m->p, AIR_STATUS_FAILED_PRECONDITION, o->line, o->col,
                        "[memplan] %s needs %llu bytes of %s after packing (peak live %llu); "
                        "%s has %llu",
                        air_res_label(o, lb, sizeof lb), (unsigned long long)ar->size,
                        s->space == AIR_MEMPLAN_L1 ? "L1 per tile" : "L2",
                        (unsigned long long)ar->lower_bound, m->t->name,
                        (unsigned long long)ar->capacity);
  }
  return st;
}

/* First top-level index from which every later op is ordered after d (n when
 * some op at the very end is not), by a walk over the successors of d. */
static uint32_t ordered_from(const uint32_t* succ_off, const uint32_t* succ, uint32_t n,
                             uint32_t d, uint32_t* mark, uint32_t* stack) {
  uint32_t sp = 0;
  mark[d] = d;
  stack[sp++] = d;
  while (sp) {
    uint32_t v = stack[--sp];
    for (uint32_t k = succ_off[v]; k < succ_off[v + 1]; ++k)
      if (mark[succ[k]] != d) {
        mark[succ[k]] = d;
        stack[sp++] = succ[k];
      }
  }
  uint32_t k = n;
  while (k > d + 1 && mark[k - 1] == d) --k;
  return k;
}

/* L2 / L1: lifetimes in pre-order positions from the block's token graph. */
static air_status_t plan_block_scope(mp_t* m, scope_t* s, air_pack_buffer_t* pb) {
  if (!m->node_of) { /* only programs with segments or herds need it */
    m->node_of = m->a->alloc(m->a->self, (size_t)m->p->n_values * sizeof *m->node_of + 1);
    if (!m->node_of) return AIR_STATUS_OOM(m->a, "planning memory");
    for (uint32_t i = 0; i < m->p->n_values; ++i) m->node_of[i] = AIR_SCHED_NONE;
  }
  air_sched_block_graph_t g;
  AIR_RETURN_IF_ERROR(air_sched_block_graph(m->a, m->p, s->block, m->node_of, &g));
  uint32_t n = g.n, end_pos = m->next - s->base;
  uint32_t* succ_off = air_mem_calloc(m->a, (size_t)n + 1, sizeof *succ_off);
  uint32_t* succ = air_mem_calloc(m->a, g.pred_off[n], sizeof *succ);
  uint32_t* mark = air_mem_calloc(m->a, n, sizeof *mark);
  uint32_t* stack = air_mem_calloc(m->a, n, sizeof *stack);
  uint32_t* cache = air_mem_calloc(m->a, n, sizeof *cache);
  air_status_t st = succ_off && succ && mark && stack && cache
                        ? AIR_STATUS_OK_VALUE
                        : AIR_STATUS_OOM(m->a, "planning memory");
  if (!st) {
    for (uint32_t i = 0; i < n; ++i) {
      mark[i] = cache[i] = AIR_SCHED_NONE;
      for (uint32_t k = g.pred_off[i]; k < g.pred_off[i + 1]; ++k) ++succ_off[g.pred[k] + 1];
    }
    for (uint32_t i = 0; i < n; ++i) succ_off[i + 1] += succ_off[i];
    for (uint32_t i = 0; i < n; ++i) /* stack doubles as the fill cursor */
      stack[i] = succ_off[i];
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t k = g.pred_off[i]; k < g.pred_off[i + 1]; ++k) succ[stack[g.pred[k]]++] = i;
    for (uint32_t i = 0; i < s->n_bufs; ++i) {
      const mbuf_t* b = &s->bufs[i];
      uint32_t d = freed_by(m, b), end = end_pos;
      if (d != AIR_SCHED_NONE && d < n) {
        if (cache[d] == AIR_SCHED_NONE) cache[d] = ordered_from(succ_off, succ, n, d, mark, stack);
        end = cache[d] < n ? s->top_pos[cache[d]] : end_pos;
      }
      pb[i] = (air_pack_buffer_t){.lower = s->top_pos[b->top], .upper = end, .size = b->size};
    }
  }
  m->a->free(m->a->self, succ_off);
  m->a->free(m->a->self, succ);
  m->a->free(m->a->self, mark);
  m->a->free(m->a->self, stack);
  m->a->free(m->a->self, cache);
  air_sched_block_graph_free(m->a, &g);
  return st;
}

/* L3: lifetimes in partition levels; allocs and frees are host-queue commands. */
static void plan_host_scope(const mp_t* m, const scope_t* s, air_pack_buffer_t* pb) {
  const air_partition_t* P = m->part;
  for (uint32_t i = 0; i < s->n_bufs; ++i) {
    const mbuf_t* b = &s->bufs[i];
    uint32_t d = freed_by(m, b);
    uint32_t start = b->top < P->n_nodes ? P->waves[P->node_wave[b->top]].level : 0;
    uint32_t end = d != AIR_SCHED_NONE && d < P->n_nodes ? P->waves[P->node_wave[d]].level + 1
                                                          : P->n_levels;
    if (end <= start) end = start + 1;
    pb[i] = (air_pack_buffer_t){.lower = start, .upper = end, .size = b->size};
  }
}

static air_status_t plan_scope(mp_t* m, scope_t* s) {
  air_pack_buffer_t* pb = air_mem_calloc(m->a, s->n_bufs, sizeof *pb);
  if (!pb) return AIR_STATUS_OOM(m->a, "planning memory");
  air_status_t st = AIR_STATUS_OK_VALUE;
  if (s->space == AIR_MEMPLAN_L3)
    plan_host_scope(m, s, pb);
  else
    st = plan_block_scope(m, s, pb);
  if (!st) st = pack_scope(m, s, pb);
  m->a->free(m->a->self, pb);
  return st;
}

/* Copies the arenas into `arena` in the order memplan.h promises: L3, L2s, L1s. */
static air_status_t emit(mp_t* m, air_arena_t* arena, air_memplan_t* out) {
  const air_memplan_arena_t* in = m->arenas.data;
  const air_memplan_buffer_t* bin = m->buffers.data;
  out->n_arenas = (uint32_t)m->arenas.n;
  out->n_buffers = (uint32_t)m->buffers.n;
  out->arenas = air_arena_alloc(arena, m->arenas.n * sizeof *out->arenas + 1);
  out->buffers = air_arena_alloc(arena, m->buffers.n * sizeof *out->buffers + 1);
  if (!out->arenas || !out->buffers) return AIR_STATUS_OOM(m->a, "planning memory");
  uint32_t na = 0, nb = 0;
  for (uint32_t space = AIR_MEMPLAN_L3; space <= AIR_MEMPLAN_L1; ++space)
    for (size_t i = 0; i < m->arenas.n; ++i) {
      if (in[i].space != space) continue;
      air_memplan_arena_t a = in[i];
      a.buffer_begin = nb;
      for (uint32_t k = in[i].buffer_begin; k < in[i].buffer_end; ++k) {
        out->buffers[nb] = bin[k];
        out->buffers[nb++].arena = na;
      }
      a.buffer_end = nb;
      out->arenas[na++] = a;
    }
  return AIR_STATUS_OK_VALUE;
}

air_status_t air_memplan_build(air_arena_t* arena, const air_allocator_t* allocator,
                               const air_program_t* program, const air_op_t* entry,
                               const air_partition_t* partition, const air_target_t* target,
                               uint32_t alignment, air_memplan_t* out) {
  memset(out, 0, sizeof *out);
  if (!alignment) alignment = AIR_MEMPLAN_DEFAULT_ALIGNMENT;
  if (alignment & (alignment - 1))
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "memory plan alignment %u is not a power of two", alignment);
  if (!entry || !entry->n_regions || !entry->regions[0])
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "the entry is not a function with a body");
  mp_t m = {.p = program, .a = allocator, .t = target, .part = partition, .alignment = alignment,
            .arenas = {.elem = sizeof(air_memplan_arena_t)},
            .buffers = {.elem = sizeof(air_memplan_buffer_t)}};
  m.dealloc_at = allocator->alloc(allocator->self,
                                  (size_t)program->n_values * sizeof *m.dealloc_at + 1);
  air_status_t st = m.dealloc_at ? AIR_STATUS_OK_VALUE : AIR_STATUS_OOM(m.a, "planning memory");
  scope_t host = {.space = AIR_MEMPLAN_L3, .block = entry->regions[0]};
  if (!st) {
    for (uint32_t i = 0; i < program->n_values; ++i) m.dealloc_at[i] = AIR_SCHED_NONE;
    ctx_t c = {.host = &host, .cur = &host, .pes = 1};
    st = walk_scope(&m, &host, &c);
  }
  if (!st && host.n_top && partition->n_nodes + 1 < host.n_top)
    st = AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                    "the partition has %u nodes but the entry body has %u ops",
                    partition->n_nodes, host.n_top - 1);
  if (!st) st = plan_scope(&m, &host);
  if (!st) {
    out->alignment = alignment;
    st = emit(&m, arena, out);
  }
  scope_free(&m, &host);
  allocator->free(allocator->self, m.dealloc_at);
  allocator->free(allocator->self, m.node_of);
  allocator->free(allocator->self, m.arenas.data);
  allocator->free(allocator->self, m.buffers.data);
  if (st) memset(out, 0, sizeof *out);
  return st;
}

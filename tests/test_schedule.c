/* test_schedule.c - the AIR schedule compiler: host token graph (edges, barriers,
 * queues, channel groups), the partition honouring every edge, the memory plan's
 * safety on fixed and random programs, the reports, the error cases, and the
 * compile time of a million-op host body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_clock.h"

#include "air/program.h"
#include "runtime/ir/ir.h"
#include "runtime/base/strbuf.h"
#include "scheduler/compile.h"
#include "scheduler/memplan.h"
#include "scheduler/partition.h"
#include "scheduler/report/report.h"
#include "scheduler/schedule.h"
#include "scheduler/schedule_bind.h"
#include "scheduler/host_graph.h"
#include "runtime/target/target.h"
#include "test_util.h"

int airc_cmd_report(int argc, char** argv);

#define DATA AIR_TEST_DATA_DIR "/schedule/"

static const air_target_t* target(const char* name) {
  const air_target_t* t = NULL;
  air_status_t s = air_target_lookup(NULL, name, &t);
  assert_null(s);
  return t;
}

static air_program_t* parse_text(void** state, const char* name, const char* text, size_t len) {
  air_parse_options_t opts = {.filename = name};
  air_program_t* p = NULL;
  air_status_t s = air_program_parse(*state, text, len, &opts, &p);
  if (!s) s = air_program_verify(p, NULL, 0);
  if (s) fail_msg("%s: %s", name, air_status_message(s));
  return p;
}

static air_program_t* load(void** state, const char* path) {
  size_t len;
  char* text = test_read_file(path, &len);
  if (!text) fail_msg("cannot read %s", path);
  air_program_t* p = parse_text(state, path, text, len);
  free(text);
  return p;
}

static air_schedule_t* compile(air_program_t* p, const char* tname) {
  air_schedule_t* sc = NULL;
  air_status_t s = air_schedule_compile(NULL, p, NULL, target(tname), &sc);
  if (s) fail_msg("compile for %s: %s", tname, air_status_message(s));
  return sc;
}

/* The host graph of a compiled schedule's entry (arrays in `arena`). */
static const air_op_t* host_graph(air_program_t* p, const air_schedule_t* sc, air_arena_t* arena,
                                  air_sched_host_graph_t* hg, const air_op_t*** ops) {
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  const air_op_t* entry = NULL;
  assert_null(air_schedule_bind(&heap, sc, p, &entry, ops));
  air_arena_init(arena, &heap);
  air_status_t s = air_schedule_host_graph(arena, &heap, p, entry, target(sc->target), hg);
  if (s) fail_msg("%s", air_status_message(s));
  assert_int_equal(hg->graph.n, sc->n_cmds);
  return entry;
}

static bool same_group(const air_sched_host_graph_t* hg, uint32_t a, uint32_t b) {
  return hg->graph.group && hg->graph.group[a] != AIR_PARTITION_NO_GROUP &&
         hg->graph.group[a] == hg->graph.group[b];
}

static bool has_pred(const air_sched_host_graph_t* hg, uint32_t node, uint32_t pred) {
  for (uint32_t k = hg->graph.pred_off[node]; k < hg->graph.pred_off[node + 1]; ++k)
    if (hg->graph.pred[k] == pred) return true;
  return false;
}

/* Per value: the last body node holding a dealloc of it (UINT32_MAX: none). */
typedef struct dl_walk_t {
  uint32_t* at;
  uint32_t node;
} dl_walk_t;

static bool dl_op(air_op_t* op, void* user) {
  dl_walk_t* w = user;
  if (op->kind == AIR_OP_DEALLOC && op->n_operands) w->at[op->operands[0]] = w->node;
  return true;
}

/* The body node containing op. */
static uint32_t node_of(const air_op_t* const* ops, uint32_t n, const air_op_t* op) {
  const air_block_t* body = ops[0]->parent;
  while (op->parent != body) op = air_ir_parent_op(op);
  for (uint32_t i = 0; i < n; ++i)
    if (ops[i] == op) return i;
  fail_msg("op not in the entry body");
  return 0;
}

/* The value the host sees for an L3 alloc (its result, or the execute's). */
static air_vid_t seen_value(const air_op_t* alloc) {
  const air_op_t* ex = air_ir_parent_op(alloc);
  const air_op_t* term = air_ir_block_terminator(alloc->parent);
  if (ex && ex->kind == AIR_OP_EXECUTE)
    for (uint32_t k = 0; term && k < term->n_operands; ++k)
      if (term->operands[k] == alloc->results[0]) return ex->results[k + 1];
  return alloc->results[0];
}

/* Index of the op of `block` that holds op. */
static uint32_t top_index(const air_block_t* block, const air_op_t* op) {
  while (op && op->parent != block) op = air_ir_parent_op(op);
  assert_non_null(op);
  uint32_t i = 0;
  for (const air_op_t* x = block->first; x != op; x = x->next) ++i;
  return i;
}

typedef struct find_free_t {
  air_vid_t a, b;
  const air_block_t* block;
  uint32_t top; /* last top-level index freeing a or b */
} find_free_t;

static bool find_free_op(air_op_t* op, void* user) {
  find_free_t* f = user;
  if (op->kind == AIR_OP_DEALLOC && op->n_operands &&
      (op->operands[0] == f->a || op->operands[0] == f->b)) {
    uint32_t t = top_index(f->block, op);
    if (f->top == UINT32_MAX || t > f->top) f->top = t;
  }
  return true;
}

/* L2 / L1: in the owner's body, the op freeing `first` precedes (in the token
 * graph, independently walked here) the op making `later`. */
static void check_block_order(air_program_t* p, const air_op_t* owner, const air_op_t* first,
                              const air_op_t* later) {
  const air_block_t* block = owner->regions[0];
  find_free_t f = {first->results[0], seen_value(first), block, UINT32_MAX};
  for (air_op_t* x = block->first; x; x = x->next) air_ir_walk(x, find_free_op, &f);
  if (f.top == UINT32_MAX) fail_msg("buffer at line %u shares bytes but is never freed", first->line);
  uint32_t made = top_index(block, later);
  if (made == f.top) fail_msg("lines %u, %u: freed where the other is made", first->line, later->line);
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  uint32_t* node_of = malloc(p->n_values * sizeof *node_of);
  for (uint32_t v = 0; v < p->n_values; ++v) node_of[v] = AIR_SCHED_NONE;
  air_sched_block_graph_t g;
  assert_null(air_sched_block_graph(&heap, p, block, node_of, &g));
  /* Backwards from `made`: is the freeing op an ancestor? */
  bool* reach = calloc(g.n + 1, 1);
  reach[made] = true;
  for (uint32_t i = made + 1; i-- > 0;)
    if (reach[i])
      for (uint32_t k = g.pred_off[i]; k < g.pred_off[i + 1]; ++k) reach[g.pred[k]] = true;
  if (!reach[f.top])
    fail_msg("lines %u, %u: the free (op %u) is not ordered before the alloc (op %u)",
             first->line, later->line, f.top, made);
  free(reach);
  free(node_of);
  air_sched_block_graph_free(&heap, &g);
}

/* Memory plan safety: buffers sharing bytes never share time; for L3 the free of
 * the earlier is ordered before the alloc of the later by the partition. */
static uint32_t check_memplan(air_program_t* p, const air_schedule_t* sc, const air_op_t* entry,
                              const air_op_t* const* body) {
  const air_memplan_t* mp = &sc->memplan;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  const air_op_t** pre = NULL;
  uint32_t n_pre = 0;
  assert_null(air_schedule_preorder(&heap, entry, &pre, &n_pre));
  uint32_t* dl = malloc(p->n_values * sizeof *dl);
  for (uint32_t v = 0; v < p->n_values; ++v) dl[v] = UINT32_MAX;
  for (uint32_t i = 0; i < sc->n_body_ops; ++i) {
    dl_walk_t w = {dl, i};
    air_ir_walk((air_op_t*)body[i], dl_op, &w);
  }
  assert_true(mp->n_arenas >= 1);
  assert_int_equal(mp->arenas[0].space, AIR_MEMPLAN_L3);
  uint32_t reused = 0;
  for (uint32_t a = 0; a < mp->n_arenas; ++a) {
    const air_memplan_arena_t* ar = &mp->arenas[a];
    if (a) assert_true(ar->space >= mp->arenas[a - 1].space);
    assert_true(ar->size >= ar->lower_bound);
    assert_true(ar->capacity == 0 || ar->size <= ar->capacity);
    for (uint32_t i = ar->buffer_begin; i < ar->buffer_end; ++i) {
      const air_memplan_buffer_t* x = &mp->buffers[i];
      assert_int_equal(x->arena, a);
      assert_true(x->op < n_pre && pre[x->op]->kind == AIR_OP_ALLOC);
      assert_int_equal(x->offset % mp->alignment, 0);
      assert_true(x->offset + x->size <= ar->size);
      assert_true(x->start < x->end);
      for (uint32_t k = ar->buffer_begin; k < i; ++k) {
        const air_memplan_buffer_t* y = &mp->buffers[k];
        bool bytes = x->size && y->size && x->offset < y->offset + y->size &&
                     y->offset < x->offset + x->size;
        if (!bytes) continue;
        ++reused;
        if (x->start < y->end && y->start < x->end)
          fail_msg("buffers %u and %u share bytes and time [%u,%u) [%u,%u)", x->op, y->op,
                   x->start, x->end, y->start, y->end);
        const air_memplan_buffer_t* first = x->end <= y->start ? x : y;
        const air_memplan_buffer_t* later = first == x ? y : x;
        if (ar->space != AIR_MEMPLAN_L3) {
          check_block_order(p, pre[ar->owner], pre[first->op], pre[later->op]);
          continue;
        }
        uint32_t freed = dl[seen_value(pre[first->op])];
        if (freed == UINT32_MAX) freed = dl[pre[first->op]->results[0]];
        assert_true(freed != UINT32_MAX);
        uint32_t made = node_of(body, sc->n_body_ops, pre[later->op]);
        if (freed != made && !air_partition_orders(sc->partition, freed, made))
          fail_msg("L3: free at node %u not ordered before alloc at node %u", freed, made);
      }
    }
  }
  free(dl);
  heap.free(heap.self, pre);
  return reused;
}

/* Every edge of the host graph is honoured; L3 memory commands are on the host. */
static uint32_t check_schedule(air_program_t* p, const air_schedule_t* sc) {
  air_arena_t arena;
  air_sched_host_graph_t hg;
  const air_op_t** ops = NULL;
  const air_op_t* entry = host_graph(p, sc, &arena, &hg, &ops);
  const air_partition_t* P = sc->partition;
  assert_int_equal(P->n_nodes, sc->n_cmds);
  uint32_t* seen = malloc((hg.graph.n + 1) * sizeof *seen);
  for (uint32_t i = 0; i < hg.graph.n; ++i) seen[i] = UINT32_MAX;
  for (uint32_t i = 0; i < hg.graph.n; ++i) {
    assert_int_equal(sc->cmds[i].op, i);
    assert_int_equal(sc->cmds[i].kind, hg.kind[i]);
    uint32_t k = hg.kind[i];
    if (k == AIR_SCHED_CMD_ALLOC || k == AIR_SCHED_CMD_DEALLOC || k == AIR_SCHED_CMD_EXECUTE)
      assert_int_equal(hg.graph.queue[i], AIR_SCHED_Q_HOST);
    for (uint32_t e = hg.graph.pred_off[i]; e < hg.graph.pred_off[i + 1]; ++e) {
      uint32_t j = hg.graph.pred[e];
      assert_true(j < i);
      if (seen[j] == i) fail_msg("duplicate edge %u -> %u", j, i);
      seen[j] = i;
      if (!air_partition_orders(P, j, i) && !same_group(&hg, i, j))
        fail_msg("edge %u -> %u not honoured", j, i);
    }
  }
  free(seen);
  uint32_t reused = check_memplan(p, sc, entry, ops);
  air_arena_deinit(&arena);
  free(ops);
  return reused;
}

/*---------------------------------------------------------------------------*/

static void test_corpus(void** state) {
  static const char* const files[] = {
      AIR_SOURCE_DIR "/samples/matmul_4x4.mlir", AIR_SOURCE_DIR "/samples/matmul_4x4_bf16.mlir",
      AIR_SOURCE_DIR "/samples/pipeline.mlir", AIR_SOURCE_DIR "/samples/vector_add.mlir",
      AIR_TEST_DATA_DIR "/programs/affine_if_broadcast.mlir",
      AIR_TEST_DATA_DIR "/programs/affine_tile_transpose.mlir",
      AIR_TEST_DATA_DIR "/programs/execute_results.mlir",
      AIR_TEST_DATA_DIR "/programs/linalg_generic_bf16.mlir",
      AIR_TEST_DATA_DIR "/programs/matmul_4x4_channels.mlir",
      AIR_TEST_DATA_DIR "/programs/module_attrs_opaque.mlir",
      AIR_TEST_DATA_DIR "/programs/no_module_wrapper.mlir",
      AIR_TEST_DATA_DIR "/programs/old_async_token.mlir",
      AIR_TEST_DATA_DIR "/programs/parallel_reduce_tokens.mlir",
      AIR_TEST_DATA_DIR "/programs/scalar_control.mlir",
      AIR_TEST_DATA_DIR "/programs/segment_pipeline.mlir",
      AIR_TEST_DATA_DIR "/programs/segment_unroll_kernel.mlir",
      AIR_TEST_DATA_DIR "/programs/spec_token_lists.mlir",
      AIR_TEST_DATA_DIR "/programs/vector_add_dma.mlir",
      DATA "barriers.mlir", DATA "groups.mlir", DATA "memplan.mlir",
  };
  static const char* const targets[] = {"cpu", "npu1"};
  uint32_t compiled = 0, refused = 0;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
    air_program_t* p = load(state, files[f]);
    for (size_t t = 0; t < 2; ++t) {
      air_schedule_t* sc = NULL;
      air_status_t s = air_schedule_compile(NULL, p, NULL, target(targets[t]), &sc);
      if (s && t == 1 && air_status_code(s) == AIR_STATUS_FAILED_PRECONDITION) {
        print_message("%s does not fit npu1: %s\n", files[f], air_status_message(s));
        air_status_free(s);
        ++refused;
        continue;
      }
      if (s) fail_msg("%s on %s: %s", files[f], targets[t], air_status_message(s));
      assert_string_equal(sc->target, targets[t]);
      check_schedule(p, sc);
      air_schedule_free(sc);
      ++compiled;
    }
    air_program_destroy(p);
  }
  print_message("compiled %u, refused %u (npu1)\n", compiled, refused);
  assert_true(compiled >= sizeof files / sizeof files[0] + 15);
}

static void test_barriers(void** state) {
  air_program_t* p = load(state, DATA "barriers.mlir");
  air_schedule_t* sc = compile(p, "cpu");
  check_schedule(p, sc);
  air_arena_t arena;
  air_sched_host_graph_t hg;
  const air_op_t** ops = NULL;
  host_graph(p, sc, &arena, &hg, &ops);
  const air_partition_t* P = sc->partition;
  assert_int_equal(hg.graph.n, 10);
  /* 0, 1: independent; 2 (blocking wait_all) after both; 3, 4 after 2. */
  assert_int_equal(hg.graph.pred_off[1] - hg.graph.pred_off[0], 0);
  assert_int_equal(hg.graph.pred_off[2] - hg.graph.pred_off[1], 0);
  assert_true(has_pred(&hg, 2, 0) && has_pred(&hg, 2, 1));
  assert_true(has_pred(&hg, 3, 2) && has_pred(&hg, 4, 2));
  assert_false(has_pred(&hg, 4, 3));
  /* The sync launch (5): after 3 and 4, before everything later. */
  assert_int_equal(hg.kind[5], AIR_SCHED_CMD_LAUNCH);
  assert_true(has_pred(&hg, 5, 3) && has_pred(&hg, 5, 4));
  assert_true(has_pred(&hg, 6, 5) && has_pred(&hg, 7, 5));
  assert_true(air_partition_orders(P, 0, 9) && air_partition_orders(P, 3, 6));
  assert_false(air_partition_orders(P, 0, 1) || air_partition_orders(P, 3, 4));
  /* The chain keeps the edges linear: no barrier takes preds from before the last. */
  assert_false(has_pred(&hg, 5, 0));
  /* Queues: the launch computes, the rest is host work. */
  assert_int_equal(hg.graph.queue[5], AIR_SCHED_Q_COMPUTE);
  assert_int_equal(hg.graph.queue[7], AIR_SCHED_Q_HOST);
  assert_int_equal(hg.kind[7], AIR_SCHED_CMD_ALLOC);
  assert_int_equal(hg.kind[8], AIR_SCHED_CMD_DEALLOC);
  assert_true(has_pred(&hg, 8, 7) && has_pred(&hg, 9, 8));
  air_arena_deinit(&arena);
  free(ops);
  air_schedule_free(sc);
  air_program_destroy(p);
}

static void test_groups(void** state) {
  air_program_t* p = load(state, DATA "groups.mlir");
  air_schedule_t* sc = compile(p, "npu1");
  check_schedule(p, sc);
  air_arena_t arena;
  air_sched_host_graph_t hg;
  const air_op_t** ops = NULL;
  host_graph(p, sc, &arena, &hg, &ops);
  const uint32_t* g = hg.graph.group;
  /* put @in (0), launch with @in and @mid (1), launch with @mid (2). */
  assert_true(g[0] != AIR_PARTITION_NO_GROUP);
  assert_int_equal(g[0], g[1]);
  assert_int_equal(g[1], g[2]);
  assert_int_equal(g[3], AIR_PARTITION_NO_GROUP); /* dma */
  assert_int_equal(g[4], AIR_PARTITION_NO_GROUP); /* launch without channels */
  assert_int_equal(hg.graph.queue[0], AIR_SCHED_Q_DMA);
  assert_int_equal(hg.graph.queue[3], AIR_SCHED_Q_DMA);
  assert_true(hg.graph.queue[1] >= AIR_SCHED_Q_COMPUTE);
  assert_int_equal(hg.queue_kind[hg.graph.queue[4]], AIR_SCHED_Q_COMPUTE);
  assert_true(has_pred(&hg, 4, 3));
  /* A group runs at once: one level, so the put cannot wait for its reader. */
  const air_partition_t* P = sc->partition;
  assert_int_equal(P->waves[P->node_wave[0]].level, P->waves[P->node_wave[1]].level);
  assert_int_equal(P->waves[P->node_wave[0]].level, P->waves[P->node_wave[2]].level);
  assert_true(P->stats.groups >= 1);
  air_arena_deinit(&arena);
  free(ops);
  air_schedule_free(sc);
  air_program_destroy(p);
}

static const air_memplan_buffer_t* buffer_at(air_program_t* p, const air_schedule_t* sc,
                                             uint32_t line) {
  const air_memplan_t* mp = &sc->memplan;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  const air_op_t* entry = NULL;
  const air_op_t** body = NULL;
  assert_null(air_schedule_bind(&heap, sc, p, &entry, &body));
  const air_op_t** pre = NULL;
  uint32_t n = 0;
  assert_null(air_schedule_preorder(&heap, entry, &pre, &n));
  const air_memplan_buffer_t* found = NULL;
  for (uint32_t i = 0; i < mp->n_buffers && !found; ++i)
    if (pre[mp->buffers[i].op]->line == line) found = &mp->buffers[i];
  free(pre);
  free(body);
  if (!found) fail_msg("no buffer allocated at line %u", line);
  return found;
}

static void test_memplan(void** state) {
  air_program_t* p = load(state, DATA "memplan.mlir");
  air_schedule_t* sc = compile(p, "npu1");
  assert_true(check_schedule(p, sc) >= 2);
  const air_memplan_t* mp = &sc->memplan;
  assert_int_equal(mp->n_arenas, 3);
  assert_int_equal(mp->alignment, 64);
  const air_memplan_arena_t *l3 = &mp->arenas[0], *l2 = &mp->arenas[1], *l1 = &mp->arenas[2];
  assert_int_equal(l3->space, AIR_MEMPLAN_L3);
  assert_int_equal(l3->owner, UINT32_MAX);
  assert_int_equal(l2->space, AIR_MEMPLAN_L2);
  assert_int_equal(l1->space, AIR_MEMPLAN_L1);
  /* L3: %c 2048 B live throughout; %a and %b (4096 B each) take turns. */
  const air_memplan_buffer_t *c = buffer_at(p, sc, 7), *a = buffer_at(p, sc, 8),
                             *b = buffer_at(p, sc, 11);
  assert_int_equal(a->offset, b->offset);
  assert_true(a->end <= b->start);
  assert_int_equal(l3->size, 6144);
  assert_int_equal(l3->lower_bound, 6144);
  assert_int_equal(l3->capacity, 0);
  assert_int_equal(c->size, 2048);
  /* L2: two 1 KiB buffers live together. */
  assert_int_equal(l2->size, 2048);
  /* No x_size: the segment may span every column, so every mem tile's L2. */
  assert_int_equal(l2->capacity, target("npu1")->l2_bytes * target("npu1")->l2_units);
  /* L1: %x and %y (256 B) share, %z (16 floats -> 64 B aligned) beside them. */
  const air_memplan_buffer_t *z = buffer_at(p, sc, 30), *x = buffer_at(p, sc, 34),
                             *y = buffer_at(p, sc, 42);
  assert_int_equal(z->size, 64);
  assert_int_equal(x->offset, y->offset);
  assert_true(x->end <= y->start);
  assert_true(z->offset + z->size <= x->offset || x->offset + x->size <= z->offset);
  assert_int_equal(l1->size, 320);
  assert_int_equal(l1->capacity, 65536 - 1024); /* less the core's stack */
  air_schedule_free(sc);
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Random programs                                                           */
/*---------------------------------------------------------------------------*/

typedef struct rng_t {
  uint64_t s;
} rng_t;

static uint32_t rnd(rng_t* r, uint32_t n) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33) % n;
}

typedef struct gen_t {
  rng_t r;
  air_sb_t* sb;
  uint32_t id; /* unique names */
} gen_t;

typedef struct live_t {
  uint32_t id, size;
} live_t;

static void memref_ty(air_sb_t* sb, uint32_t size, int space) {
  if (space)
    air_sb_printf(sb, "memref<%uxi8, %d>", size, space);
  else
    air_sb_printf(sb, "memref<%uxi8>", size);
}

static void deps(gen_t* g, const uint32_t* toks, uint32_t n) {
  uint32_t k = n ? rnd(&g->r, 3) : 0;
  if (!k) return;
  air_sb_puts(g->sb, " [");
  for (uint32_t i = 0; i < k; ++i) air_sb_printf(g->sb, "%s%%t%u", i ? ", " : "", toks[rnd(&g->r, n)]);
  air_sb_putc(g->sb, ']');
}

/* A random block of allocs, frees and token joins in one memory space; the host
 * block (space 0) may also hold launches with a segment (L2) and a herd (L1). */
static void gen_block(gen_t* g, int space, uint32_t n_ops, int indent) {
  uint32_t toks[64], n_toks = 0;
  live_t live[64];
  uint32_t n_live = 0;
  for (uint32_t k = 0; k < n_ops; ++k) {
    uint32_t id = g->id++, what = rnd(&g->r, space ? 6 : 8);
    uint32_t size = 64u << rnd(&g->r, 5);
    air_sb_printf(g->sb, "%*s", indent, "");
    if ((what == 2 || what == 3) && !n_live) what = 0;
    if (what == 0 && n_live < 64) { /* async alloc */
      air_sb_printf(g->sb, "%%t%u, %%b%u = air.execute", id, id);
      deps(g, toks, n_toks);
      air_sb_puts(g->sb, " -> (");
      memref_ty(g->sb, size, space);
      air_sb_printf(g->sb, ") {\n%*s  %%a%u = memref.alloc() : ", indent, "", id);
      memref_ty(g->sb, size, space);
      air_sb_printf(g->sb, "\n%*s  air.execute_terminator %%a%u : ", indent, "", id);
      memref_ty(g->sb, size, space);
      air_sb_printf(g->sb, "\n%*s}\n", indent, "");
      live[n_live++] = (live_t){id, size};
      if (n_toks < 64) toks[n_toks++] = id;
    } else if (what == 1 && n_live < 64) { /* sync alloc */
      air_sb_printf(g->sb, "%%b%u = memref.alloc() : ", id);
      memref_ty(g->sb, size, space);
      air_sb_putc(g->sb, '\n');
      live[n_live++] = (live_t){id, size};
    } else if (what == 2 || what == 3) { /* async / sync free */
      uint32_t j = rnd(&g->r, n_live);
      live_t b = live[j];
      live[j] = live[--n_live];
      if (what == 2) {
        air_sb_printf(g->sb, "%%t%u = air.execute", id);
        deps(g, toks, n_toks);
        air_sb_printf(g->sb, " {\n%*s  memref.dealloc %%b%u : ", indent, "", b.id);
        memref_ty(g->sb, b.size, space);
        air_sb_printf(g->sb, "\n%*s}\n", indent, "");
        if (n_toks < 64) toks[n_toks++] = id;
      } else {
        air_sb_printf(g->sb, "memref.dealloc %%b%u : ", b.id);
        memref_ty(g->sb, b.size, space);
        air_sb_putc(g->sb, '\n');
      }
    } else if (what == 4 || (what == 5 && !n_toks)) {
      air_sb_printf(g->sb, "%%t%u = air.wait_all async", id);
      deps(g, toks, n_toks);
      air_sb_putc(g->sb, '\n');
      if (n_toks < 64) toks[n_toks++] = id;
    } else if (what == 5) {
      air_sb_printf(g->sb, "air.wait_all [%%t%u]\n", toks[rnd(&g->r, n_toks)]);
    } else {
      air_sb_printf(g->sb, "%%t%u = air.launch async", id);
      deps(g, toks, n_toks);
      air_sb_printf(g->sb, " {\n%*s  %%s%u = air.segment @s%u async {\n", indent, "", id, id);
      air_sb_printf(g->sb, "%*s    %%one%u = arith.constant 1 : index\n", indent, "", id);
      gen_block(g, 1, rnd(&g->r, 8), indent + 4);
      air_sb_printf(g->sb,
                    "%*s    %%h%u = air.herd @h%u async tile (%%x%u, %%y%u) in (%%sx%u=%%one%u, "
                    "%%sy%u=%%one%u) {\n",
                    indent, "", id, id, id, id, id, id, id, id);
      gen_block(g, 2, 4 + rnd(&g->r, 12), indent + 6);
      air_sb_printf(g->sb, "%*s    }\n", indent, "");
      gen_block(g, 1, rnd(&g->r, 6), indent + 4);
      air_sb_printf(g->sb, "%*s  }\n%*s}\n", indent, "", indent, "");
      if (n_toks < 64) toks[n_toks++] = id;
    }
  }
}

static void test_memplan_random(void** state) {
  uint32_t reused = 0, buffers = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    air_sb_t sb;
    air_sb_init(&sb, &(air_allocator_t){0});
    air_allocator_init_system(&sb.allocator);
    gen_t g = {.r = {seed * 7919}, .sb = &sb};
    air_sb_puts(&sb, "module {\n  func.func @rand() {\n");
    gen_block(&g, 0, 10 + rnd(&g.r, 30), 4);
    air_sb_puts(&sb, "    return\n  }\n}\n");
    assert_false(sb.oom);
    char name[32];
    snprintf(name, sizeof name, "random%llu.mlir", (unsigned long long)seed);
    air_program_t* p = parse_text(state, name, sb.data, sb.len);
    for (int t = 0; t < 2; ++t) {
      air_schedule_t* sc = compile(p, t ? "npu1" : "cpu");
      reused += check_schedule(p, sc);
      buffers += sc->memplan.n_buffers;
      air_schedule_free(sc);
    }
    air_program_destroy(p);
    air_sb_free(&sb);
  }
  print_message("random plans: %u buffers, %u pairs sharing bytes (checked)\n", buffers, reused);
  /* The property is only tested when buffers really share memory. */
  assert_true(reused > 50);
}

/*---------------------------------------------------------------------------*/
/* Reports                                                                   */
/*---------------------------------------------------------------------------*/

static char* run_report(const char* file, const char* tname, const char* emit, const char* svg,
                        int expect_rc) {
  char out[] = "/tmp/test_schedule_report_XXXXXX";
  int fd = mkstemp(out);
  assert_true(fd >= 0);
  close(fd);
  char* argv[] = {"report", (char*)file, "--target", (char*)tname, "--emit", (char*)emit,
                  "-o", out, svg ? "--svg" : NULL, (char*)svg, NULL};
  int rc = airc_cmd_report(svg ? 10 : 8, argv);
  assert_int_equal(rc, expect_rc);
  size_t len;
  char* text = test_read_file(out, &len);
  unlink(out);
  assert_non_null(text);
  return text;
}

static void expect_all(const char* text, ...) {
  va_list ap;
  va_start(ap, text);
  for (const char* frag; (frag = va_arg(ap, const char*));)
    if (!strstr(text, frag)) fail_msg("'%s' not in:\n%s", frag, text);
  va_end(ap);
}

static void test_reports(void** state) {
  (void)state;
  const char* file = DATA "memplan.mlir";
  char* t = run_report(file, "npu1", "memplan", NULL, 0);
  expect_all(t, "memory plan of @plan for npu1", "arena 0: L3 transients", "lower bound 6144",
             "capacity unlimited", "L2 of segment @seg", "capacity 2097152",
             "L1 of herd @work (" DATA "memplan.mlir:25:9)", "%x ", "memplan.mlir:34:13",
             "[13, ", NULL);
  free(t);
  char svg[] = "/tmp/test_schedule_svg_XXXXXX";
  int fd = mkstemp(svg);
  assert_true(fd >= 0);
  close(fd);
  free(run_report(file, "npu1", "memplan", svg, 0));
  size_t len;
  char* pic = test_read_file(svg, &len);
  unlink(svg);
  assert_non_null(pic);
  expect_all(pic, "<svg xmlns=", "<rect", "<title>%x memref.alloc at ", "</svg>", NULL);
  free(pic);
  t = run_report(file, "npu1", "memplan-svg", NULL, 0);
  expect_all(t, "<svg", "<title>%b memref.alloc", NULL);
  free(t);

  t = run_report(file, "npu1", "schedule", NULL, 0);
  expect_all(t, "schedule of @plan for npu1: 8 commands", "cross-queue edges",
             "waits ", "before elision", "queue 0 (host)", "queue 2 (compute)", "wave 0 (level 0)",
             "launch    air.launch", "memplan.mlir:14:5", "waits: queue", NULL);
  free(t);

  t = run_report(DATA "groups.mlir", "cpu", "dot", NULL, 0);
  expect_all(t, "digraph \"groups\" {", "subgraph cluster_q0", "label=\"queue 1 (dma)\"",
             "air.channel.put @in", "group 0", "style=filled", "n3 -> n4;", NULL);
  int depth = 0, min_depth = 0;
  for (const char* c = t; *c; ++c) {
    depth += *c == '{';
    depth -= *c == '}';
    if (depth < min_depth) min_depth = depth;
  }
  assert_int_equal(depth, 0);
  assert_int_equal(min_depth, 0);
  free(t);

  /* resources still works; a program that does not fit fails every emit. */
  t = run_report(file, "npu1", "resources", NULL, 0);
  expect_all(t, "target npu1", "work", NULL);
  free(t);
  free(run_report(AIR_TEST_DATA_DIR "/sched/herd_5x4.mlir", "npu1", "memplan", NULL, 1));
  char* bad[] = {"report", (char*)file, "--target", "cpu", "--emit", "bogus", NULL};
  assert_int_equal(airc_cmd_report(6, bad), 2);
}

/*---------------------------------------------------------------------------*/
/* Errors                                                                    */
/*---------------------------------------------------------------------------*/

static void expect_error(air_status_t s, air_status_code_t code, const char* frag) {
  assert_non_null(s);
  if (air_status_code(s) != code || !strstr(air_status_message(s), frag))
    fail_msg("code %d: %s (wanted '%s')", (int)air_status_code(s), air_status_message(s), frag);
  air_status_free(s);
}

static void test_errors(void** state) {
  air_program_t* p = load(state, DATA "memplan.mlir");
  air_schedule_t* sc = NULL;
  expect_error(air_schedule_compile(NULL, p, "nosuch", target("cpu"), &sc), AIR_STATUS_NOT_FOUND,
               "unknown entry function @nosuch");
  assert_null(sc);
  sc = compile(p, "cpu");
  assert_string_equal(sc->entry, "plan");
  assert_string_equal(air_sched_cmd_kind_name(AIR_SCHED_CMD_WAIT_ALL), "wait_all");
  assert_string_equal(air_sched_queue_kind_name(AIR_SCHED_Q_DMA), "dma");
  assert_string_equal(air_sched_cmd_kind_name(99), "unknown");

  /* A plan over a target with a tiny L1 names the herd. */
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  const air_op_t* entry = NULL;
  const air_op_t** body = NULL;
  assert_null(air_schedule_bind(&heap, sc, p, &entry, &body));
  air_target_t tiny = *target("npu1");
  tiny.l1_bytes = 256;
  air_arena_t arena;
  air_arena_init(&arena, &heap);
  air_memplan_t mp;
  expect_error(air_memplan_build(&arena, &heap, p, entry, sc->partition, &tiny, 64, &mp),
               AIR_STATUS_FAILED_PRECONDITION, "memplan.mlir:25:9: error: [memplan] herd @work "
               "needs 320 bytes of L1 per tile");
  tiny = *target("npu1");
  tiny.l2_bytes = 256; /* x 4 mem tiles = 1 KiB */
  expect_error(air_memplan_build(&arena, &heap, p, entry, sc->partition, &tiny, 64, &mp),
               AIR_STATUS_FAILED_PRECONDITION, "segment @seg needs 2048 bytes of L2");
  expect_error(air_memplan_build(&arena, &heap, p, entry, sc->partition, &tiny, 48, &mp),
               AIR_STATUS_INVALID_ARGUMENT, "power of two");
  /* A bigger alignment rounds every buffer up. */
  assert_null(air_memplan_build(&arena, &heap, p, entry, sc->partition, target("npu1"), 4096, &mp));
  assert_int_equal(mp.alignment, 4096);
  for (uint32_t i = 0; i < mp.n_buffers; ++i) assert_int_equal(mp.buffers[i].size % 4096, 0);
  air_arena_deinit(&arena);
  free(body);

  /* Binding to a program with another op count is DATA_LOSS. */
  air_program_t* other = load(state, DATA "barriers.mlir");
  air_schedule_free(sc);
  sc = compile(other, "cpu");
  air_program_t* renamed = NULL;
  const char* text = "func.func @barriers() {\n  %t = air.wait_all async\n  return\n}\n";
  renamed = parse_text(state, "renamed.mlir", text, strlen(text));
  expect_error(air_schedule_bind(&heap, sc, renamed, &entry, &body), AIR_STATUS_DATA_LOSS,
               "has 1 ops");
  air_schedule_free(sc);
  air_program_destroy(renamed);
  air_program_destroy(other);
  air_program_destroy(p);

  /* Does not fit the target. */
  p = load(state, AIR_TEST_DATA_DIR "/sched/herd_5x4.mlir");
  expect_error(air_schedule_compile(NULL, p, NULL, target("npu1"), &sc),
               AIR_STATUS_FAILED_PRECONDITION, "herd @wide needs 20 tiles");
  air_program_destroy(p);
}

/* A dynamic L3 alloc: the plan names it (the resource analysis ignores L3). */
static void test_dynamic_l3(void** state) {
  const char* text =
      "func.func @dyn(%n: index) {\n"
      "  %buf = memref.alloc(%n) : memref<?xf32>\n"
      "  memref.dealloc %buf : memref<?xf32>\n"
      "  return\n"
      "}\n";
  air_program_t* p = parse_text(state, "dyn.mlir", text, strlen(text));
  air_schedule_t* sc = NULL;
  expect_error(air_schedule_compile(NULL, p, "dyn", target("cpu"), &sc),
               AIR_STATUS_FAILED_PRECONDITION,
               "dyn.mlir:2:3: error: [memplan] memref.alloc %buf has a dynamic shape");
  air_program_destroy(p);
}

/*---------------------------------------------------------------------------*/
/* Speed                                                                     */
/*---------------------------------------------------------------------------*/

/* A million chained wait_all ops, built through the IR API, compile (host graph,
 * partition, memory plan) in linear time: under a second of CPU time. */
static void test_speed(void** state) {
  enum { N = 1000000 };
  air_program_t* p = NULL;
  assert_null(air_ir_program_new(*state, "chain.mlir", &p));
  air_op_t* fn = air_ir_op_new(p, AIR_OP_FUNC, 1, 1, 0, 0, 1, 0);
  assert_non_null(fn);
  fn->sym = "chain";
  air_block_t* body = air_ir_block_new(p, fn, 0);
  assert_non_null(body);
  fn->regions[0] = body;
  air_ir_block_append(p->module->regions[0], fn);
  air_tid_t tok = air_ir_type_token(p, false);
  air_vid_t prev = 0;
  for (uint32_t i = 0; i < N; ++i) {
    air_op_t* w = air_ir_op_new(p, AIR_OP_WAIT_ALL, i + 2, 5, 0, 1, 0, 0);
    assert_non_null(w);
    w->flags = AIR_OPF_ASYNC;
    if (prev) {
      assert_true(air_ir_vlist_init(p, &w->toks[AIR_TOK_DEP], 1));
      w->toks[AIR_TOK_DEP].items[0] = prev;
    }
    prev = w->results[0] = air_ir_value_new(p, tok, w, NULL, 0, NULL);
    assert_true(prev != 0);
    air_ir_block_append(body, w);
  }
  air_ir_block_append(body, air_ir_op_new(p, AIR_OP_RETURN, N + 2, 3, 0, 0, 0, 0));
  air_schedule_t* sc = NULL;
  double t0 = test_cpu_seconds();
  air_status_t s = air_schedule_compile(NULL, p, "chain", target("cpu"), &sc);
  double dt = test_cpu_seconds() - t0;
  if (s) fail_msg("%s", air_status_message(s));
  print_message("compiled %d chained ops in %.3f s CPU (%.0f ns/op; wall %.3f s)\n", N, dt,
                dt * 1e9 / N, (double)sc->compile_ns * 1e-9);
  assert_int_equal(sc->n_cmds, N);
  assert_int_equal(sc->partition->n_levels, N);
  assert_int_equal(sc->partition->stats.edges, N - 1);
  assert_true(air_partition_orders(sc->partition, 0, N - 1));
#ifndef TEST_SANITIZED
  assert_true(dt < 1.0);
#endif
  air_schedule_free(sc);
  air_ir_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus),      cmocka_unit_test(test_barriers),
      cmocka_unit_test(test_groups),      cmocka_unit_test(test_memplan),
      cmocka_unit_test(test_memplan_random), cmocka_unit_test(test_reports),
      cmocka_unit_test(test_errors),      cmocka_unit_test(test_dynamic_l3),
      cmocka_unit_test(test_speed),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

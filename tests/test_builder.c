/* The builder API: complete programs built op by op and checked against the IR
 * layouts of ir.h, every argument check, and print/parse/verify round trips
 * (skipped only while the printer, parser or verifier is a placeholder). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "air/builder.h"
#include "air/context.h"
#include "air/program.h"
#include "air/types.h"
#include "runtime/ir/ir.h"

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

#define OK(expr)                                                            \
  do {                                                                      \
    air_status_t ok_s_ = (expr);                                            \
    if (ok_s_) {                                                            \
      print_error("%s:%d: %s\n  -> %s\n", __FILE__, __LINE__, #expr,        \
                  air_status_message(ok_s_));                               \
      air_status_free(ok_s_);                                               \
      fail();                                                               \
    }                                                                       \
  } while (0)

#define FAILS(expr, code)                                                   \
  do {                                                                      \
    air_status_t f_s_ = (expr);                                             \
    if (air_status_code(f_s_) != (code))                                    \
      print_error("%s:%d: %s gave %s (%s), wanted %s\n", __FILE__, __LINE__, \
                  #expr, air_status_code_name(air_status_code(f_s_)),       \
                  air_status_message(f_s_), air_status_code_name(code));    \
    assert_int_equal(air_status_code(f_s_), (code));                        \
    assert_true(air_status_message(f_s_)[0] != 0);                          \
    air_status_free(f_s_);                                                  \
  } while (0)

#define INVALID AIR_STATUS_INVALID_ARGUMENT
#define PRECOND AIR_STATUS_FAILED_PRECONDITION

typedef struct fixture_t {
  air_context_t* ctx;
  air_program_t* p;
  air_builder_t* b;
} fixture_t;

static int setup(void** state) {
  static fixture_t f;
  memset(&f, 0, sizeof(f));
  if (air_context_create(NULL, NULL, &f.ctx)) return -1;
  if (air_program_create(f.ctx, &f.p)) return -1;
  if (air_builder_create(f.p, &f.b)) return -1;
  *state = &f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  air_builder_destroy(f->b);
  air_program_destroy(f->p);
  air_context_destroy(f->ctx);
  return 0;
}

static air_type_t t_scalar(air_builder_t* b, air_elem_t e) {
  air_type_t t = 0;
  OK(air_type_scalar(air_builder_program(b), e, &t));
  return t;
}

static air_type_t t_memref(air_builder_t* b, air_elem_t e, uint32_t rank, const int64_t* shape,
                           uint32_t space) {
  air_type_t t = 0;
  OK(air_type_memref(air_builder_program(b), e, rank, shape, space, NULL, &t));
  return t;
}

static air_type_t t_memref2(air_builder_t* b, air_elem_t e, int64_t d0, int64_t d1,
                            uint32_t space) {
  int64_t s[2] = {d0, d1};
  return t_memref(b, e, 2, s, space);
}

static air_value_t cidx(air_builder_t* b, int64_t v) {
  air_value_t r = 0;
  OK(air_builder_constant_index(b, v, &r));
  return r;
}

static air_value_t alloc(air_builder_t* b, air_type_t t) {
  air_value_t r = 0;
  OK(air_builder_memref_alloc(b, t, 0, NULL, &r));
  return r;
}

static air_value_t binop(air_builder_t* b, air_binary_op_t op, air_value_t x, air_value_t y) {
  air_value_t r = 0;
  OK(air_builder_binary(b, op, x, y, &r));
  return r;
}

/* The module body's ops, the n-th op of a body, body lengths. */
static air_block_t* module_body(air_program_t* p) { return p->module->regions[0]; }

static uint32_t block_len(const air_block_t* blk) {
  uint32_t n = 0;
  for (air_op_t* o = blk->first; o; o = o->next) ++n;
  return n;
}

static air_op_t* nth(const air_block_t* blk, uint32_t i) {
  air_op_t* o = blk->first;
  while (o && i--) o = o->next;
  assert_non_null(o);
  return o;
}

typedef struct find_t {
  air_opkind_t kind;
  uint32_t skip, count;
  air_op_t* found;
} find_t;

static bool find_cb(air_op_t* op, void* user) {
  find_t* f = user;
  if (op->kind != f->kind) return true;
  if (f->count++ == f->skip) f->found = op;
  return true;
}

/* The `i`-th op of `kind` in pre-order under the module. */
static air_op_t* find(air_program_t* p, air_opkind_t kind, uint32_t i) {
  find_t f = {kind, i, 0, NULL};
  air_ir_walk(p->module, find_cb, &f);
  assert_non_null(f.found);
  return f.found;
}

static uint32_t count(air_program_t* p, air_opkind_t kind) {
  find_t f = {kind, UINT32_MAX, 0, NULL};
  air_ir_walk(p->module, find_cb, &f);
  return f.count;
}

static air_elem_kind_t value_elem(air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v))->elem;
}

static bool value_is_token(air_program_t* p, air_vid_t v) {
  return air_ir_type_is_token(p, air_ir_value_type(p, v));
}

/* Every body of a region op ends with a terminator of the right kind. */
static air_opkind_t expected_terminator(air_opkind_t k) {
  switch (k) {
    case AIR_OP_FUNC: return AIR_OP_RETURN;
    case AIR_OP_LAUNCH: return AIR_OP_LAUNCH_TERM;
    case AIR_OP_SEGMENT: return AIR_OP_SEGMENT_TERM;
    case AIR_OP_HERD: return AIR_OP_HERD_TERM;
    case AIR_OP_RANK: return AIR_OP_RANK_TERM;
    case AIR_OP_EXECUTE: return AIR_OP_EXECUTE_TERM;
    case AIR_OP_FOR: return AIR_OP_YIELD;
    case AIR_OP_IF: return AIR_OP_YIELD;
    case AIR_OP_PARALLEL: return AIR_OP_REDUCE;
    case AIR_OP_REDUCE: return AIR_OP_REDUCE_RETURN;
    case AIR_OP_AFFINE_IF: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_AFFINE_FOR: return AIR_OP_AFFINE_YIELD;
    case AIR_OP_GENERIC: return AIR_OP_LINALG_YIELD;
    default: return AIR_OP_COUNT_;
  }
}

static bool terminated_cb(air_op_t* op, void* user) {
  (void)user;
  if (op->kind == AIR_OP_MODULE) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_block_t* blk = op->regions[r];
    assert_non_null(blk);
    assert_ptr_equal(blk->parent, op);
    assert_non_null(blk->last);
    assert_int_equal(blk->last->kind, expected_terminator(op->kind));
    for (air_op_t* o = blk->first; o; o = o->next) assert_ptr_equal(o->parent, blk);
  }
  return true;
}

static void assert_all_terminated(air_program_t* p) {
  air_ir_walk(p->module, terminated_cb, NULL);
}

/*---------------------------------------------------------------------------*/
/* Programs                                                                  */
/*---------------------------------------------------------------------------*/

/* Vector add: L3 -> L1 with dma_memcpy_nd, a scalar loop, L1 -> L3. */
static void build_vector_add(air_builder_t* b) {
  int64_t n = 1024, tile = 256;
  air_type_t l3 = t_memref(b, AIR_ELEMENT_F32, 1, &n, AIR_MEMORY_L3);
  air_type_t l1 = t_memref(b, AIR_ELEMENT_F32, 1, &tile, AIR_MEMORY_L1);
  air_type_t ins[3] = {l3, l3, l3};
  air_func_desc_t f = {0};
  f.name = "vector_add";
  f.n_inputs = 3;
  f.inputs = ins;
  air_value_t fa[3];
  OK(air_builder_func_begin(b, &f, fa));
  air_value_t c1 = cidx(b, 1);
  air_hier_desc_t ld = {0};
  ld.n_dims = 1;
  ld.sizes = &c1;
  ld.n_args = 3;
  ld.args = fa;
  air_value_t la[5];
  OK(air_builder_launch_begin(b, &ld, la, NULL));
  air_hier_desc_t sd = {0};
  sd.name = "vadd_seg";
  sd.n_args = 3;
  sd.args = la + 2;
  air_value_t sa[3];
  OK(air_builder_segment_begin(b, &sd, sa, NULL));
  air_value_t c4 = cidx(b, 4);
  air_hier_desc_t hd = {0};
  hd.name = "vadd_herd";
  hd.n_dims = 1;
  hd.sizes = &c4;
  hd.n_args = 3;
  hd.args = sa;
  air_value_t ha[5];
  OK(air_builder_herd_begin(b, &hd, ha, NULL));
  air_value_t c0 = cidx(b, 0), c1h = cidx(b, 1), c256 = cidx(b, 256);
  air_value_t off = binop(b, AIR_BINARY_MULI, ha[0], c256);
  air_value_t bufs[3] = {alloc(b, l1), alloc(b, l1), alloc(b, l1)};
  air_index_t offs[1] = {{off, 0}}, sizes[1] = {{0, 256}}, strides[1] = {{0, 1}};
  air_value_t toks[2];
  for (int i = 0; i < 2; ++i) {
    air_dma_desc_t d = {0};
    d.flags = AIR_BUILD_ASYNC;
    d.dst.memref = bufs[i];
    d.src = (air_slice_t){ha[2 + i], 1, offs, 1, sizes, 1, strides};
    OK(air_builder_dma_memcpy_nd(b, &d, &toks[i]));
  }
  OK(air_builder_wait_all(b, 0, 2, toks, NULL));
  air_value_t iv, va, vb, vc;
  OK(air_builder_scf_for_begin(b, c0, c256, c1h, 0, NULL, &iv, NULL, NULL));
  OK(air_builder_memref_load(b, bufs[0], 1, &iv, &va));
  OK(air_builder_memref_load(b, bufs[1], 1, &iv, &vb));
  OK(air_builder_binary(b, AIR_BINARY_ADDF, va, vb, &vc));
  OK(air_builder_memref_store(b, vc, bufs[2], 1, &iv));
  OK(air_builder_scf_for_end(b, 0, NULL));
  air_dma_desc_t out = {0};
  out.dst = (air_slice_t){ha[4], 1, offs, 1, sizes, 1, strides};
  out.src.memref = bufs[2];
  OK(air_builder_dma_memcpy_nd(b, &out, NULL));
  for (int i = 0; i < 3; ++i) OK(air_builder_memref_dealloc(b, bufs[i]));
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* 4x4 herd matmul: channels L3 -> L2 -> L1 and back, the L1 side double-buffered
 * with two token iter_args, the L2 side fanned out with scf.parallel. */
static void build_matmul(air_builder_t* b) {
  static const char* const chans[4] = {"L3ToL2A", "L2ToL1A", "L1ToL2C", "L2ToL3C"};
  static const int64_t one[2] = {1, 1}, four[2] = {4, 4};
  for (int i = 0; i < 4; ++i) {
    air_channel_desc_t c = {0};
    c.name = chans[i];
    c.rank = 2;
    c.dims = (i == 1 || i == 2) ? four : one;
    OK(air_builder_channel(b, &c));
  }
  air_type_t a_l3 = t_memref2(b, AIR_ELEMENT_BF16, 128, 128, AIR_MEMORY_L3);
  air_type_t c_l3 = t_memref2(b, AIR_ELEMENT_F32, 128, 128, AIR_MEMORY_L3);
  air_type_t a_l2 = t_memref2(b, AIR_ELEMENT_BF16, 128, 128, AIR_MEMORY_L2);
  air_type_t c_l2 = t_memref2(b, AIR_ELEMENT_F32, 128, 128, AIR_MEMORY_L2);
  air_type_t a_l1 = t_memref2(b, AIR_ELEMENT_BF16, 32, 32, AIR_MEMORY_L1);
  air_type_t c_l1 = t_memref2(b, AIR_ELEMENT_F32, 32, 32, AIR_MEMORY_L1);
  air_type_t kin[3] = {a_l1, a_l1, c_l1};
  air_func_desc_t k = {0};
  k.flags = AIR_BUILD_PRIVATE;
  k.name = "matmul_tile";
  k.n_inputs = 3;
  k.inputs = kin;
  OK(air_builder_func_declare(b, &k));

  air_type_t fin[2] = {a_l3, c_l3};
  air_func_desc_t f = {0};
  f.name = "matmul";
  f.n_inputs = 2;
  f.inputs = fin;
  air_value_t fa[2];
  OK(air_builder_func_begin(b, &f, fa));
  air_value_t c1 = cidx(b, 1);
  air_value_t lsz[2] = {c1, c1};
  air_hier_desc_t ld = {0};
  ld.flags = AIR_BUILD_ASYNC;
  ld.n_dims = 2;
  ld.sizes = lsz;
  ld.n_args = 2;
  ld.args = fa;
  air_value_t la[6], ltok;
  OK(air_builder_launch_begin(b, &ld, la, &ltok));
  {
    air_value_t lc0 = cidx(b, 0);
    air_value_t lidx[2] = {lc0, lc0};
    air_channel_io_desc_t io = {0};
    io.flags = AIR_BUILD_ASYNC;
    io.channel = "L3ToL2A";
    io.n_indices = 2;
    io.indices = lidx;
    io.data.memref = la[4];
    air_value_t lt[3];
    OK(air_builder_channel_put(b, &io, &lt[0]));
    io.channel = "L2ToL3C";
    io.data.memref = la[5];
    OK(air_builder_channel_get(b, &io, &lt[1]));

    air_hier_desc_t sd = {0};
    sd.flags = AIR_BUILD_ASYNC;
    sd.name = "matmul_seg";
    OK(air_builder_segment_begin(b, &sd, NULL, &lt[2]));
    {
      air_value_t c0 = cidx(b, 0), c1s = cidx(b, 1), c2 = cidx(b, 2), c4 = cidx(b, 4);
      air_value_t c32 = cidx(b, 32);
      air_value_t a2 = alloc(b, a_l2), cbuf = alloc(b, c_l2);
      air_value_t idx00[2] = {c0, c0};
      memset(&io, 0, sizeof(io));
      io.flags = AIR_BUILD_ASYNC;
      io.channel = "L3ToL2A";
      io.n_indices = 2;
      io.indices = idx00;
      io.data.memref = a2;
      air_value_t ga;
      OK(air_builder_channel_get(b, &io, &ga));

      /* Fan A out: two tiles per iteration, as the herd consumes them. */
      air_value_t lbs[2] = {c0, c0}, ubs[2] = {c4, c4}, steps[2] = {c1s, c1s}, ivs[2], pres;
      OK(air_builder_scf_parallel_begin(b, 2, lbs, ubs, steps, 1, &ga, ivs, &pres));
      {
        air_value_t oi = binop(b, AIR_BINARY_MULI, ivs[0], c32);
        air_value_t kv, iters[2], fres[2], inits[2] = {ga, ga}, pt[2];
        OK(air_builder_scf_for_begin(b, c0, c4, c2, 2, inits, &kv, iters, fres));
        for (int q = 0; q < 2; ++q) {
          air_value_t kk = q ? binop(b, AIR_BINARY_ADDI, kv, c1s) : kv;
          air_value_t ok = binop(b, AIR_BINARY_MULI, kk, c32);
          air_index_t offs[2] = {{oi, 0}, {ok, 0}}, szs[2] = {{0, 32}, {0, 32}},
                      strs[2] = {{0, 128}, {0, 1}};
          memset(&io, 0, sizeof(io));
          io.flags = AIR_BUILD_ASYNC;
          io.channel = "L2ToL1A";
          io.n_indices = 2;
          io.indices = ivs;
          io.data = (air_slice_t){a2, 2, offs, 2, szs, 2, strs};
          io.tokens.n_deps = 1;
          io.tokens.deps = &iters[q];
          OK(air_builder_channel_put(b, &io, &pt[q]));
        }
        OK(air_builder_scf_for_end(b, 2, pt));
        air_value_t w;
        OK(air_builder_wait_all(b, AIR_BUILD_ASYNC, 2, fres, &w));
        OK(air_builder_scf_parallel_end(b, 1, &w));
      }

      air_value_t hsz[2] = {c4, c4}, ha[4], htok;
      air_hier_desc_t hd = {0};
      hd.flags = AIR_BUILD_ASYNC;
      hd.name = "matmul_herd";
      hd.n_dims = 2;
      hd.sizes = hsz;
      hd.link_with = "mm.o";
      hd.tokens.n_deps = 1;
      hd.tokens.deps = &pres;
      OK(air_builder_herd_begin(b, &hd, ha, &htok));
      {
        air_value_t hc0 = cidx(b, 0), hc2 = cidx(b, 2), hc4 = cidx(b, 4);
        air_value_t t0, t1, tc, bufA0, bufA1, bufC, m;
        OK(air_builder_execute_begin(b, 0, NULL, 1, &a_l1, &t0, &bufA0));
        m = alloc(b, a_l1);
        OK(air_builder_execute_end(b, 1, &m));
        OK(air_builder_execute_begin(b, 0, NULL, 1, &a_l1, &t1, &bufA1));
        m = alloc(b, a_l1);
        OK(air_builder_execute_end(b, 1, &m));
        OK(air_builder_execute_begin(b, 0, NULL, 1, &c_l1, &tc, &bufC));
        m = alloc(b, c_l1);
        air_value_t zero;
        OK(air_builder_constant_float(b, t_scalar(b, AIR_ELEMENT_F32), 0.0, &zero));
        OK(air_builder_linalg_fill(b, zero, m));
        OK(air_builder_execute_end(b, 1, &m));

        air_value_t kv, it[2], fr[2], inits[2] = {t0, t1}, hidx[2] = {ha[0], ha[1]};
        OK(air_builder_scf_for_begin(b, hc0, hc4, hc2, 2, inits, &kv, it, fr));
        air_value_t g[2], mm[2];
        for (int q = 0; q < 2; ++q) {
          memset(&io, 0, sizeof(io));
          io.flags = AIR_BUILD_ASYNC;
          io.channel = "L2ToL1A";
          io.n_indices = 2;
          io.indices = hidx;
          io.data.memref = q ? bufA1 : bufA0;
          io.tokens.n_deps = 1;
          io.tokens.deps = &it[q];
          OK(air_builder_channel_get(b, &io, &g[q]));
          air_value_t deps[2] = {g[q], q ? mm[0] : tc};
          OK(air_builder_execute_begin(b, 2, deps, 0, NULL, &mm[q], NULL));
          if (q == 0) {
            air_value_t args[3] = {bufA0, bufA0, bufC};
            OK(air_builder_call(b, "matmul_tile", 3, args, 0, NULL, NULL));
          } else {
            OK(air_builder_linalg_matmul(b, bufA1, bufA1, bufC));
          }
          OK(air_builder_execute_end(b, 0, NULL));
        }
        OK(air_builder_scf_for_end(b, 2, mm));
        memset(&io, 0, sizeof(io));
        io.flags = AIR_BUILD_ASYNC;
        io.channel = "L1ToL2C";
        io.n_indices = 2;
        io.indices = hidx;
        io.data.memref = bufC;
        io.tokens.n_deps = 2;
        io.tokens.deps = fr;
        air_value_t pc, td;
        OK(air_builder_channel_put(b, &io, &pc));
        OK(air_builder_execute_begin(b, 1, &pc, 0, NULL, &td, NULL));
        OK(air_builder_memref_dealloc(b, bufA0));
        OK(air_builder_memref_dealloc(b, bufA1));
        OK(air_builder_memref_dealloc(b, bufC));
        OK(air_builder_execute_end(b, 0, NULL));
        OK(air_builder_wait_all(b, 0, 1, &td, NULL));
      }
      OK(air_builder_herd_end(b));
      OK(air_builder_set_attr_int(b, "id", 1, t_scalar(b, AIR_ELEMENT_I32)));

      /* Gather C from the herd while it runs. */
      air_value_t gres;
      OK(air_builder_scf_parallel_begin(b, 2, lbs, ubs, steps, 1, &ga, ivs, &gres));
      {
        air_value_t oi = binop(b, AIR_BINARY_MULI, ivs[0], c32);
        air_value_t oj = binop(b, AIR_BINARY_MULI, ivs[1], c32);
        air_index_t offs[2] = {{oi, 0}, {oj, 0}}, szs[2] = {{0, 32}, {0, 32}},
                    strs[2] = {{0, 128}, {0, 1}};
        memset(&io, 0, sizeof(io));
        io.flags = AIR_BUILD_ASYNC;
        io.channel = "L1ToL2C";
        io.n_indices = 2;
        io.indices = ivs;
        io.data = (air_slice_t){cbuf, 2, offs, 2, szs, 2, strs};
        air_value_t gt;
        OK(air_builder_channel_get(b, &io, &gt));
        OK(air_builder_scf_parallel_end(b, 1, &gt));
      }
      air_value_t before_out[2] = {gres, htok}, pout;
      memset(&io, 0, sizeof(io));
      io.flags = AIR_BUILD_ASYNC;
      io.channel = "L2ToL3C";
      io.n_indices = 2;
      io.indices = idx00;
      io.data.memref = cbuf;
      io.tokens.n_deps = 2;
      io.tokens.deps = before_out;
      OK(air_builder_channel_put(b, &io, &pout));
      OK(air_builder_wait_all(b, 0, 1, &pout, NULL));
      OK(air_builder_memref_dealloc(b, a2));
      OK(air_builder_memref_dealloc(b, cbuf));
    }
    OK(air_builder_segment_end(b));
    OK(air_builder_wait_all(b, 0, 3, lt, NULL));
  }
  OK(air_builder_launch_end(b));
  OK(air_builder_wait_all(b, 0, 1, &ltok, NULL));
  OK(air_builder_func_end(b, 0, NULL));
}

/* scf.parallel with a token init and the spec's reduce, and one without init. */
static void build_parallel(air_builder_t* b) {
  int64_t n = 64;
  air_type_t l3 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L3);
  air_type_t l2 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L2);
  air_func_desc_t f = {0};
  f.name = "parallel";
  f.n_inputs = 1;
  f.inputs = &l3;
  air_value_t m;
  OK(air_builder_func_begin(b, &f, &m));
  air_hier_desc_t ld = {0};
  ld.n_args = 1;
  ld.args = &m;
  air_value_t lm, sm;
  OK(air_builder_launch_begin(b, &ld, &lm, NULL));
  air_hier_desc_t sd = {0};
  sd.name = "par_seg";
  sd.n_args = 1;
  sd.args = &lm;
  OK(air_builder_segment_begin(b, &sd, &sm, NULL));
  air_value_t c0 = cidx(b, 0), c1 = cidx(b, 1), c4 = cidx(b, 4), c16 = cidx(b, 16);
  air_value_t buf = alloc(b, l2), t0, iv, r;
  OK(air_builder_wait_all(b, AIR_BUILD_ASYNC, 0, NULL, &t0));
  OK(air_builder_scf_parallel_begin(b, 1, &c0, &c4, &c1, 1, &t0, &iv, &r));
  {
    air_value_t off = binop(b, AIR_BINARY_MULI, iv, c16), d;
    air_index_t offs[1] = {{off, 0}}, szs[1] = {{0, 16}}, strs[1] = {{0, 1}};
    air_dma_desc_t dd = {0};
    dd.flags = AIR_BUILD_ASYNC;
    dd.dst = (air_slice_t){buf, 1, offs, 1, szs, 1, strs};
    dd.src = (air_slice_t){sm, 1, offs, 1, szs, 1, strs};
    dd.tokens.n_deps = 1;
    dd.tokens.deps = &t0;
    OK(air_builder_dma_memcpy_nd(b, &dd, &d));
    OK(air_builder_scf_parallel_end(b, 1, &d));
  }
  OK(air_builder_wait_all(b, 0, 1, &r, NULL));
  OK(air_builder_scf_parallel_begin(b, 1, &c0, &c4, &c1, 0, NULL, &iv, NULL));
  {
    air_value_t v;
    OK(air_builder_memref_load(b, buf, 1, &iv, &v));
    OK(air_builder_memref_store(b, v, buf, 1, &iv));
    OK(air_builder_scf_parallel_end(b, 0, NULL));
  }
  OK(air_builder_memref_dealloc(b, buf));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* air.execute returning values, chained by tokens. */
static void build_execute(air_builder_t* b) {
  int64_t n = 16;
  air_type_t l3 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L3);
  air_type_t index = t_scalar(b, AIR_ELEMENT_INDEX), i32 = t_scalar(b, AIR_ELEMENT_I32);
  air_func_desc_t f = {0};
  f.name = "execute";
  f.n_inputs = 1;
  f.inputs = &l3;
  f.n_results = 1;
  f.results = &i32;
  air_value_t in;
  OK(air_builder_func_begin(b, &f, &in));
  air_type_t rt[2] = {l3, index};
  air_value_t t1, res[2], t2, t3, x, t4, inner[2];
  OK(air_builder_execute_begin(b, 0, NULL, 2, rt, &t1, res));
  inner[0] = alloc(b, l3);
  inner[1] = cidx(b, 7);
  OK(air_builder_execute_end(b, 2, inner));
  OK(air_builder_execute_begin(b, 1, &t1, 0, NULL, &t2, NULL));
  OK(air_builder_memref_copy(b, in, res[0]));
  OK(air_builder_execute_end(b, 0, NULL));
  OK(air_builder_execute_begin(b, 1, &t2, 1, &i32, &t3, &x));
  air_value_t v;
  OK(air_builder_memref_load(b, res[0], 1, &res[1], &v));
  OK(air_builder_execute_end(b, 1, &v));
  OK(air_builder_execute_begin(b, 1, &t3, 0, NULL, &t4, NULL));
  OK(air_builder_memref_dealloc(b, res[0]));
  OK(air_builder_execute_end(b, 0, NULL));
  OK(air_builder_wait_all(b, 0, 1, &t4, NULL));
  OK(air_builder_func_end(b, 1, &x));
}

/* Affinity and concurrency tokens, placement attributes. */
static void build_tokens(air_builder_t* b) {
  air_func_desc_t f = {0};
  f.name = "tokens";
  OK(air_builder_func_begin(b, &f, NULL));
  air_value_t lt;
  air_hier_desc_t ld = {0};
  ld.flags = AIR_BUILD_ASYNC;
  OK(air_builder_launch_begin(b, &ld, NULL, &lt));
  {
    air_value_t ta, tc, s[3];
    OK(air_builder_token_alloc(b, &ta));
    OK(air_builder_token_alloc(b, &tc));
    air_hier_desc_t sd = {0};
    sd.flags = AIR_BUILD_ASYNC;
    sd.name = "seg_a";
    sd.tokens.n_affinity = 1;
    sd.tokens.affinity = &ta;
    sd.tokens.n_concurrency = 1;
    sd.tokens.concurrency = &tc;
    OK(air_builder_segment_begin(b, &sd, NULL, &s[0]));
    {
      air_value_t c2 = cidx(b, 2);
      air_hier_desc_t hd = {0};
      hd.name = "herd_a";
      hd.n_dims = 1;
      hd.sizes = &c2;
      OK(air_builder_herd_begin(b, &hd, NULL, NULL));
      OK(air_builder_herd_end(b));
    }
    OK(air_builder_segment_end(b));
    memset(&sd, 0, sizeof(sd));
    sd.flags = AIR_BUILD_ASYNC;
    sd.name = "seg_b";
    sd.tokens.n_deps = 1;
    sd.tokens.deps = &s[0];
    sd.tokens.n_affinity = 1;
    sd.tokens.affinity = &ta;
    OK(air_builder_segment_begin(b, &sd, NULL, &s[1]));
    OK(air_builder_segment_end(b));
    memset(&sd, 0, sizeof(sd));
    sd.flags = AIR_BUILD_ASYNC | AIR_BUILD_X_LOC | AIR_BUILD_Y_LOC | AIR_BUILD_X_SIZE |
               AIR_BUILD_Y_SIZE;
    sd.name = "seg_c";
    sd.tokens.n_concurrency = 1;
    sd.tokens.concurrency = &tc;
    sd.x_loc = 0;
    sd.y_loc = 2;
    sd.x_size = 4;
    sd.y_size = 4;
    OK(air_builder_segment_begin(b, &sd, NULL, &s[2]));
    {
      air_value_t c2 = cidx(b, 2), sz[2] = {c2, c2};
      air_hier_desc_t hd = {0};
      hd.name = "herd_c";
      hd.n_dims = 2;
      hd.sizes = sz;
      hd.flags = AIR_BUILD_X_LOC | AIR_BUILD_Y_LOC;
      hd.x_loc = 1;
      hd.y_loc = 3;
      OK(air_builder_herd_begin(b, &hd, NULL, NULL));
      OK(air_builder_herd_end(b));
    }
    OK(air_builder_segment_end(b));
    OK(air_builder_wait_all(b, 0, 3, s, NULL));
  }
  OK(air_builder_launch_end(b));
  OK(air_builder_wait_all(b, 0, 1, &lt, NULL));
  OK(air_builder_func_end(b, 0, NULL));
}

/* Every element type in memrefs at L3, L2 and L1, and as constants. */
static void build_elements(air_builder_t* b) {
  air_func_desc_t f = {0};
  f.name = "elements";
  OK(air_builder_func_begin(b, &f, NULL));
  for (int level = 0; level < 3; ++level) {
    if (level == 1) {
      OK(air_builder_launch_begin(b, &(air_hier_desc_t){0}, NULL, NULL));
      air_hier_desc_t sd = {0};
      sd.name = "elem_seg";
      OK(air_builder_segment_begin(b, &sd, NULL, NULL));
    } else if (level == 2) {
      air_value_t c1 = cidx(b, 1);
      air_hier_desc_t hd = {0};
      hd.name = "elem_herd";
      hd.n_dims = 1;
      hd.sizes = &c1;
      OK(air_builder_herd_begin(b, &hd, NULL, NULL));
    }
    uint32_t space = level == 0 ? AIR_MEMORY_L3 : level == 1 ? AIR_MEMORY_L2 : AIR_MEMORY_L1;
    for (int e = AIR_ELEMENT_I1; e < AIR_ELEMENT_COUNT; ++e) {
      air_value_t m = alloc(b, t_memref2(b, (air_elem_t)e, 4, 8, space));
      OK(air_builder_memref_dealloc(b, m));
    }
  }
  for (int e = AIR_ELEMENT_I1; e <= AIR_ELEMENT_F64; ++e) {
    air_type_t t = t_scalar(b, (air_elem_t)e);
    air_value_t v;
    if (e >= AIR_ELEMENT_F16)
      OK(air_builder_constant_float(b, t, 1.5, &v));
    else
      OK(air_builder_constant_int(b, t, e == AIR_ELEMENT_I1 ? 1 : -3, &v));
  }
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* A channel broadcast from one L2 buffer to a 4x1 herd. */
static void build_broadcast(air_builder_t* b) {
  static const int64_t dims[2] = {1, 1}, bshape[2] = {4, 1};
  air_channel_desc_t c = {0};
  c.name = "bcast";
  c.rank = 2;
  c.dims = dims;
  c.broadcast_rank = 2;
  c.broadcast_shape = bshape;
  c.channel_type = "npu_dma_stream";
  c.depth = 2;
  OK(air_builder_channel(b, &c));
  int64_t n = 64;
  air_type_t l3 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L3);
  air_type_t l2 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L2);
  air_type_t l1 = t_memref(b, AIR_ELEMENT_I32, 1, &n, AIR_MEMORY_L1);
  air_func_desc_t f = {0};
  f.name = "broadcast";
  f.n_inputs = 1;
  f.inputs = &l3;
  air_value_t in, lin, sin;
  OK(air_builder_func_begin(b, &f, &in));
  air_hier_desc_t ld = {0};
  ld.n_args = 1;
  ld.args = &in;
  OK(air_builder_launch_begin(b, &ld, &lin, NULL));
  air_hier_desc_t sd = {0};
  sd.name = "bcast_seg";
  sd.n_args = 1;
  sd.args = &lin;
  OK(air_builder_segment_begin(b, &sd, &sin, NULL));
  {
    air_value_t c0 = cidx(b, 0), c1 = cidx(b, 1), c4 = cidx(b, 4);
    air_value_t buf = alloc(b, l2), d, pt;
    air_dma_desc_t dd = {0};
    dd.flags = AIR_BUILD_ASYNC;
    dd.dst.memref = buf;
    dd.src.memref = sin;
    OK(air_builder_dma_memcpy_nd(b, &dd, &d));
    air_value_t idx[2] = {c0, c0};
    air_channel_io_desc_t io = {0};
    io.flags = AIR_BUILD_ASYNC;
    io.channel = "bcast";
    io.n_indices = 2;
    io.indices = idx;
    io.data.memref = buf;
    io.tokens.n_deps = 1;
    io.tokens.deps = &d;
    OK(air_builder_channel_put(b, &io, &pt));
    air_value_t hsz[2] = {c4, c1}, ha[4];
    air_hier_desc_t hd = {0};
    hd.name = "bcast_herd";
    hd.n_dims = 2;
    hd.sizes = hsz;
    OK(air_builder_herd_begin(b, &hd, ha, NULL));
    {
      air_value_t lb = alloc(b, l1);
      memset(&io, 0, sizeof(io));
      io.channel = "bcast";
      io.n_indices = 2;
      io.indices = ha;
      io.data.memref = lb;
      OK(air_builder_channel_get(b, &io, NULL));
      OK(air_builder_memref_dealloc(b, lb));
    }
    OK(air_builder_herd_end(b));
    OK(air_builder_wait_all(b, 0, 1, &pt, NULL));
    OK(air_builder_memref_dealloc(b, buf));
  }
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* d0 * 64 + s0 */
static const int64_t k_map_codes[] = {AIR_AFFINE_ADD, AIR_AFFINE_MUL, AIR_AFFINE_DIM, 0,
                                      AIR_AFFINE_CONST, 64, AIR_AFFINE_SYM, 0};
/* (d0, d1) : (d0 == 0, d1 - 1 >= 0) */
static const int64_t k_set_codes[] = {AIR_AFFINE_EQ0, AIR_AFFINE_DIM, 0, AIR_AFFINE_GE0,
                                      AIR_AFFINE_ADD, AIR_AFFINE_DIM, 1, AIR_AFFINE_CONST, -1};
/* (d0, d1) -> (d0, d1) */
static const int64_t k_id2_codes[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 1};
/* (d0, d1)[s0] -> (d1, d0 + s0) */
static const int64_t k_tr_codes[] = {AIR_AFFINE_DIM, 1, AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0,
                                     AIR_AFFINE_SYM, 0};
/* (d0)[s0] -> (d0 + 4, s0) */
static const int64_t k_minmax_codes[] = {AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0, AIR_AFFINE_CONST,
                                         4, AIR_AFFINE_SYM, 0};

static air_affine_desc_t map_desc(void) {
  air_affine_desc_t m = {0, 1, 1, 1, 8, k_map_codes};
  return m;
}
static air_affine_desc_t set_desc(void) {
  air_affine_desc_t s = {0, 2, 0, 2, 9, k_set_codes};
  return s;
}
static air_affine_desc_t id2_desc(void) {
  air_affine_desc_t s = {0, 2, 0, 2, 4, k_id2_codes};
  return s;
}

/* The built-in compute ops and control flow inside a herd. */
static void build_compute(air_builder_t* b) {
  air_type_t f32 = t_scalar(b, AIR_ELEMENT_F32), i32 = t_scalar(b, AIR_ELEMENT_I32);
  air_type_t index = t_scalar(b, AIR_ELEMENT_INDEX);
  air_type_t l1 = t_memref2(b, AIR_ELEMENT_F32, 64, 64, AIR_MEMORY_L1);
  air_type_t l1s = t_memref2(b, AIR_ELEMENT_F32, 32, 32, AIR_MEMORY_L1);
  int64_t sub_shape[2] = {32, 32};
  air_type_t sub;
  OK(air_type_memref(air_builder_program(b), AIR_ELEMENT_F32, 2, sub_shape, AIR_MEMORY_L1,
                     "strided<[64, 1], offset: ?>", &sub));
  air_func_desc_t f = {0};
  f.name = "compute";
  OK(air_builder_func_begin(b, &f, NULL));
  OK(air_builder_launch_begin(b, &(air_hier_desc_t){0}, NULL, NULL));
  air_hier_desc_t sd = {0};
  sd.name = "compute_seg";
  OK(air_builder_segment_begin(b, &sd, NULL, NULL));
  air_value_t c2 = cidx(b, 2), hsz[2] = {c2, c2}, ha[4];
  air_hier_desc_t hd = {0};
  hd.name = "compute_herd";
  hd.n_dims = 2;
  hd.sizes = hsz;
  OK(air_builder_herd_begin(b, &hd, ha, NULL));
  {
    air_value_t x = ha[0], y = ha[1];
    air_value_t c0 = cidx(b, 0), c1 = cidx(b, 1), c32 = cidx(b, 32);
    air_affine_desc_t md = map_desc();
    air_value_t ops[2] = {x, c1}, off, cond, sel, cast, fz;
    OK(air_builder_affine_apply(b, &md, 2, ops, &off));
    OK(air_builder_cmpi(b, AIR_ICMP_SLT, x, y, &cond));
    OK(air_builder_select(b, cond, x, y, &sel));
    OK(air_builder_cast(b, AIR_CAST_INDEX_CAST, sel, i32, &cast));
    air_value_t q = binop(b, AIR_BINARY_DIVSI, off, c32);
    air_value_t rm = binop(b, AIR_BINARY_REMSI, off, c32);
    air_value_t diff = binop(b, AIR_BINARY_SUBI, q, rm);
    (void)diff;
    OK(air_builder_constant_float(b, f32, 0.0, &fz));
    air_value_t buf = alloc(b, l1), small = alloc(b, l1s), sv;
    OK(air_builder_linalg_fill(b, fz, buf));
    air_index_t so[2] = {{c0, 0}, {0, 32}}, ss[2] = {{0, 32}, {0, 32}}, st[2] = {{0, 1}, {0, 1}};
    air_slice_t sl = {buf, 2, so, 2, ss, 2, st};
    OK(air_builder_memref_subview(b, &sl, sub, &sv));

    air_value_t r;
    OK(air_builder_scf_if_begin(b, cond, 1, &index, &r));
    OK(air_builder_linalg_copy(b, sv, small));
    OK(air_builder_else(b, 1, &x));
    OK(air_builder_memref_copy(b, sv, small));
    OK(air_builder_scf_if_end(b, 1, &y));
    OK(air_builder_scf_if_begin(b, cond, 0, NULL, NULL));
    OK(air_builder_scf_if_end(b, 0, NULL));

    air_affine_desc_t setd = set_desc();
    air_value_t xy[2] = {x, y};
    OK(air_builder_affine_if_begin(b, &setd, 2, xy, 0, NULL, NULL));
    air_value_t ij[2] = {c0, c1};
    OK(air_builder_memref_store(b, fz, buf, 2, ij));
    OK(air_builder_else(b, 0, NULL));
    OK(air_builder_affine_if_end(b, 0, NULL));

    air_index_t lo = {0, 0}, hi = {0, 32};
    air_value_t iv;
    OK(air_builder_affine_for_begin(b, &lo, &hi, 1, 0, NULL, &iv, NULL, NULL));
    {
      air_value_t v, nv, cf, idx2[2] = {iv, iv};
      OK(air_builder_memref_load(b, small, 2, idx2, &v));
      OK(air_builder_negf(b, v, &nv));
      OK(air_builder_cmpf(b, AIR_FCMP_OLT, v, nv, &cf));
      air_value_t m;
      OK(air_builder_select(b, cf, v, nv, &m));
      OK(air_builder_memref_store(b, m, small, 2, idx2));
      OK(air_builder_affine_for_end(b, 0, NULL));
    }

    {
      /* small[d1][d0 + s0] = small[d0][d1]; then min/max and reshapes of buf */
      air_affine_desc_t id = id2_desc(), tr = {0, 2, 1, 2, 7, k_tr_codes};
      air_value_t lops[2] = {x, y}, sops[3] = {x, y, c1}, v, mn, mx, fl, ex, cs;
      OK(air_builder_affine_load(b, small, &id, 2, lops, &v));
      OK(air_builder_affine_store(b, v, small, &tr, 3, sops));
      air_affine_desc_t mm = {0, 1, 1, 2, 7, k_minmax_codes};
      OK(air_builder_affine_min(b, &mm, 2, sops, &mn));
      OK(air_builder_affine_max(b, &mm, 2, sops, &mx));
      (void)mx;
      uint32_t one_group[1] = {2};
      int64_t flat_shape[1] = {64 * 64}, dyn_shape[2] = {AIR_SHAPE_DYNAMIC, 64};
      air_type_t flat = t_memref(b, AIR_ELEMENT_F32, 1, flat_shape, AIR_MEMORY_L1);
      air_type_t dyn = t_memref(b, AIR_ELEMENT_F32, 2, dyn_shape, AIR_MEMORY_L1);
      OK(air_builder_memref_collapse_shape(b, buf, 1, one_group, flat, &fl));
      air_index_t os[2] = {{mn, 0}, {0, 64}};
      OK(air_builder_memref_expand_shape(b, fl, 1, one_group, 2, os, dyn, &ex));
      OK(air_builder_memref_cast(b, buf, dyn, &cs));
    }

    air_affine_desc_t maps[2] = {id2_desc(), id2_desc()};
    air_iterator_t its[2] = {AIR_ITERATOR_PARALLEL, AIR_ITERATOR_PARALLEL};
    air_generic_desc_t g = {0};
    g.n_ins = 1;
    g.ins = &small;
    g.n_outs = 1;
    g.outs = &small;
    g.indexing_maps = maps;
    g.n_iterators = 2;
    g.iterators = its;
    air_value_t ga[2], sum;
    OK(air_builder_linalg_generic_begin(b, &g, ga));
    OK(air_builder_binary(b, AIR_BINARY_ADDF, ga[0], ga[1], &sum));
    OK(air_builder_linalg_generic_end(b, 1, &sum));
    OK(air_builder_memref_dealloc(b, small));
    OK(air_builder_memref_dealloc(b, buf));
  }
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* The MI300 mapping: nested segments, the outer with backend-granularity XCD. */
static void build_gpu(air_builder_t* b) {
  air_func_desc_t f = {0};
  f.name = "gpu";
  OK(air_builder_func_begin(b, &f, NULL));
  OK(air_builder_launch_begin(b, &(air_hier_desc_t){0}, NULL, NULL));
  air_value_t c8 = cidx(b, 8);
  air_hier_desc_t sd = {0};
  sd.name = "xcd";
  sd.n_dims = 1;
  sd.sizes = &c8;
  sd.backend_granularity = "XCD";
  OK(air_builder_segment_begin(b, &sd, NULL, NULL));
  air_value_t c4 = cidx(b, 4);
  memset(&sd, 0, sizeof(sd));
  sd.name = "cu";
  sd.n_dims = 1;
  sd.sizes = &c4;
  OK(air_builder_segment_begin(b, &sd, NULL, NULL));
  air_value_t c16 = cidx(b, 16);
  air_hier_desc_t hd = {0};
  hd.name = "warps";
  hd.n_dims = 1;
  hd.sizes = &c16;
  OK(air_builder_herd_begin(b, &hd, NULL, NULL));
  OK(air_builder_herd_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

/* Sync forms and every kind of generic attribute. */
static void build_attrs(air_builder_t* b) {
  air_func_desc_t f = {0};
  f.name = "attrs";
  OK(air_builder_func_begin(b, &f, NULL));
  air_hier_desc_t ld = {0};
  ld.flags = AIR_BUILD_SYNC;
  OK(air_builder_launch_begin(b, &ld, NULL, NULL));
  air_hier_desc_t sd = {0};
  sd.flags = AIR_BUILD_SYNC;
  sd.name = "attr_seg";
  OK(air_builder_segment_begin(b, &sd, NULL, NULL));
  air_value_t c1 = cidx(b, 1);
  air_hier_desc_t hd = {0};
  hd.flags = AIR_BUILD_SYNC;
  hd.name = "attr_herd";
  hd.n_dims = 1;
  hd.sizes = &c1;
  OK(air_builder_herd_begin(b, &hd, NULL, NULL));
  OK(air_builder_herd_end(b));
  static const int64_t pads[2] = {0, 1}, shape[3] = {2, 3, 4};
  OK(air_builder_set_attr_int(b, "id", 3, t_scalar(b, AIR_ELEMENT_I32)));
  OK(air_builder_set_attr_dense(b, "pad_before", AIR_ELEMENT_I32, 2, pads));
  OK(air_builder_set_attr_ints(b, "shape", 3, shape));
  OK(air_builder_set_attr_bool(b, "flag", true));
  OK(air_builder_set_attr_string(b, "note", "say \"hi\"\n"));
  OK(air_builder_set_attr_unit(b, "marked"));
  OK(air_builder_set_attr_float(b, "scale", 0.5, t_scalar(b, AIR_ELEMENT_F32)));
  air_affine_desc_t md = map_desc(), setd = set_desc();
  OK(air_builder_set_attr_affine(b, "a_map", &md));
  OK(air_builder_set_attr_affine(b, "broadcast_set", &setd));
  OK(air_builder_segment_end(b));
  OK(air_builder_launch_end(b));
  /* A symmetric allocation is made by every rank together, in a rank body. */
  air_value_t c2 = cidx(b, 2);
  air_hier_desc_t rd = {0};
  rd.n_dims = 1;
  rd.sizes = &c2;
  OK(air_builder_rank_begin(b, &rd, NULL, NULL));
  int64_t n = 1024;
  air_value_t m = alloc(b, t_memref(b, AIR_ELEMENT_F32, 1, &n, AIR_MEMORY_L3));
  OK(air_builder_set_attr_unit(b, "air.symmetric"));
  OK(air_builder_set_name(b, m, "sym_buf"));
  OK(air_builder_memref_dealloc(b, m));
  OK(air_builder_rank_end(b));
  OK(air_builder_func_end(b, 0, NULL));
}

typedef struct program_case_t {
  const char* name;
  void (*build)(air_builder_t* b);
} program_case_t;

static const program_case_t k_programs[] = {
    {"vector_add", build_vector_add}, {"matmul", build_matmul},
    {"parallel", build_parallel},     {"execute", build_execute},
    {"tokens", build_tokens},         {"elements", build_elements},
    {"broadcast", build_broadcast},   {"compute", build_compute},
    {"gpu", build_gpu},               {"attrs", build_attrs},
};
enum { N_PROGRAMS = sizeof(k_programs) / sizeof(k_programs[0]) };

/* Builds program `i` in the fixture and checks the builder closed every body. */
static air_program_t* build(fixture_t* f, int i) {
  k_programs[i].build(f->b);
  OK(air_builder_finish(f->b));
  assert_int_equal(air_builder_depth(f->b), 0);
  assert_all_terminated(f->p);
  return f->p;
}


/*---------------------------------------------------------------------------*/
/* Structure of the built programs                                           */
/*---------------------------------------------------------------------------*/

static const air_attr_t* attr(const air_op_t* op, const char* name, air_attr_kind_t kind) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  if (!a) print_error("op %s has no attribute %s\n", air_opkind_name(op->kind), name);
  assert_non_null(a);
  assert_int_equal(a->kind, kind);
  return a;
}

static void test_vector_add(void** state) {
  air_program_t* p = build(*state, 0);
  air_block_t* mod = module_body(p);
  assert_int_equal(block_len(mod), 1);
  air_op_t* fn = nth(mod, 0);
  assert_int_equal(fn->kind, AIR_OP_FUNC);
  assert_string_equal(fn->sym, "vector_add");
  assert_int_equal(fn->iaux[0], 3);
  assert_int_equal(fn->n_types, 3);
  assert_int_equal(fn->n_regions, 1);
  air_block_t* body = fn->regions[0];
  assert_int_equal(body->n_args, 3);
  assert_int_equal(block_len(body), 3);
  assert_int_equal(nth(body, 0)->kind, AIR_OP_CONSTANT);
  assert_int_equal(nth(body, 2)->kind, AIR_OP_RETURN);
  assert_int_equal(nth(body, 2)->n_operands, 0);

  air_op_t* launch = nth(body, 1);
  assert_int_equal(launch->kind, AIR_OP_LAUNCH);
  assert_int_equal(launch->iaux[0], 1);
  assert_int_equal(launch->n_operands, 4);
  assert_int_equal(launch->operands[0], nth(body, 0)->results[0]);
  assert_int_equal(launch->operands[1], body->args[0]);
  assert_int_equal(launch->operands[3], body->args[2]);
  assert_int_equal(launch->n_results, 0);
  assert_int_equal(launch->flags & (AIR_OPF_ASYNC | AIR_OPF_SYNC), 0);
  assert_null(launch->sym);
  air_block_t* lb = launch->regions[0];
  assert_int_equal(lb->n_args, 5);
  assert_int_equal(value_elem(p, lb->args[0]), AIR_ELEM_INDEX);
  assert_int_equal(value_elem(p, lb->args[1]), AIR_ELEM_INDEX);
  assert_int_equal(air_ir_value_type(p, lb->args[2]), fn->types[0]);
  assert_ptr_equal(air_ir_value(p, lb->args[2])->block, lb);
  assert_int_equal(air_ir_value(p, lb->args[4])->index, 4);

  air_op_t* seg = find(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(seg->sym, "vadd_seg");
  assert_ptr_equal(air_ir_parent_op(seg), launch);
  assert_int_equal(seg->iaux[0], 0);
  assert_int_equal(seg->n_operands, 3);
  assert_int_equal(seg->operands[0], lb->args[2]);
  assert_int_equal(seg->regions[0]->n_args, 3);

  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_ptr_equal(air_ir_parent_op(herd), seg);
  assert_string_equal(herd->sym, "vadd_herd");
  assert_int_equal(herd->iaux[0], 1);
  assert_int_equal(herd->n_operands, 4);
  air_block_t* hb = herd->regions[0];
  assert_int_equal(hb->n_args, 5);

  assert_int_equal(count(p, AIR_OP_DMA), 3);
  air_op_t* muli = find(p, AIR_OP_MULI, 0);
  assert_int_equal(muli->operands[0], hb->args[0]);
  air_op_t* d0 = find(p, AIR_OP_DMA, 0);
  assert_true(d0->flags & AIR_OPF_ASYNC);
  assert_int_equal(d0->n_results, 1);
  assert_true(value_is_token(p, d0->results[0]));
  assert_int_equal(d0->n_operands, 2);
  assert_int_equal(air_ir_value(p, d0->operands[0])->def->kind, AIR_OP_ALLOC);
  assert_int_equal(d0->operands[1], hb->args[2]);
  assert_int_equal(d0->n_lists, 6);
  assert_int_equal(d0->lists[0].n, 0);
  assert_int_equal(d0->lists[3].n, 1);
  assert_int_equal(d0->lists[3].items[0].value, muli->results[0]);
  assert_int_equal(d0->lists[4].items[0].value, 0);
  assert_int_equal(d0->lists[4].items[0].cst, 256);
  assert_int_equal(d0->lists[5].items[0].cst, 1);
  air_op_t* d2 = find(p, AIR_OP_DMA, 2);
  assert_int_equal(d2->flags & AIR_OPF_ASYNC, 0);
  assert_int_equal(d2->n_results, 0);
  assert_int_equal(d2->operands[0], hb->args[4]);
  assert_int_equal(d2->lists[0].n, 1);
  assert_int_equal(d2->lists[3].n, 0);

  air_op_t* w = find(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(w->n_results, 0);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], d0->results[0]);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[1], find(p, AIR_OP_DMA, 1)->results[0]);

  air_op_t* loop = find(p, AIR_OP_FOR, 0);
  assert_int_equal(loop->n_operands, 3);
  assert_int_equal(loop->n_results, 0);
  assert_int_equal(loop->regions[0]->n_args, 1);
  assert_int_equal(loop->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(loop->regions[0]->last->n_operands, 0);
  air_op_t* ld = find(p, AIR_OP_LOAD, 0);
  assert_int_equal(ld->n_operands, 2);
  assert_int_equal(ld->operands[1], loop->regions[0]->args[0]);
  assert_int_equal(value_elem(p, ld->results[0]), AIR_ELEM_F32);
  air_op_t* st = find(p, AIR_OP_STORE, 0);
  assert_int_equal(st->operands[0], find(p, AIR_OP_ADDF, 0)->results[0]);
  assert_int_equal(count(p, AIR_OP_LOAD), 2);
  assert_int_equal(count(p, AIR_OP_ALLOC), 3);
  assert_int_equal(count(p, AIR_OP_DEALLOC), 3);
  assert_int_equal(hb->last->kind, AIR_OP_HERD_TERM);
}

static void test_matmul(void** state) {
  air_program_t* p = build(*state, 1);
  air_block_t* mod = module_body(p);
  assert_int_equal(block_len(mod), 6);
  air_op_t* ch = nth(mod, 1);
  assert_int_equal(ch->kind, AIR_OP_CHANNEL);
  assert_string_equal(ch->sym, "L2ToL1A");
  assert_int_equal(ch->n_lists, 1);
  assert_int_equal(ch->lists[0].n, 2);
  assert_int_equal(ch->lists[0].items[0].cst, 4);
  assert_int_equal(ch->lists[0].items[1].cst, 4);
  assert_int_equal(ch->n_attrs, 0);
  assert_int_equal(nth(mod, 0)->lists[0].items[0].cst, 1);
  air_op_t* decl = nth(mod, 4);
  assert_int_equal(decl->kind, AIR_OP_FUNC);
  assert_true(decl->flags & AIR_OPF_PRIVATE);
  assert_int_equal(decl->n_regions, 0);
  assert_int_equal(decl->iaux[0], 3);
  assert_int_equal(decl->n_types, 3);

  air_op_t* launch = find(p, AIR_OP_LAUNCH, 0);
  assert_true(launch->flags & AIR_OPF_ASYNC);
  assert_int_equal(launch->n_results, 1);
  assert_int_equal(launch->iaux[0], 2);
  assert_int_equal(launch->regions[0]->n_args, 6);
  assert_int_equal(count(p, AIR_OP_PUT), 5);
  assert_int_equal(count(p, AIR_OP_GET), 5);
  air_op_t* put0 = find(p, AIR_OP_PUT, 0);
  assert_string_equal(put0->sym, "L3ToL2A");
  assert_int_equal(put0->iaux[0], 2);
  assert_int_equal(put0->n_operands, 3);
  assert_int_equal(put0->operands[2], launch->regions[0]->args[4]);
  assert_int_equal(put0->n_lists, 3);
  assert_int_equal(put0->lists[0].n + put0->lists[1].n + put0->lists[2].n, 0);
  air_op_t* put1 = find(p, AIR_OP_PUT, 1);
  assert_string_equal(put1->sym, "L2ToL1A");
  assert_int_equal(put1->lists[0].n, 2);
  assert_int_equal(put1->lists[2].items[0].cst, 128);
  assert_int_equal(put1->toks[AIR_TOK_DEP].n, 1);

  air_op_t* par = find(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 2);
  assert_int_equal(par->n_operands, 7);
  assert_int_equal(par->n_results, 1);
  assert_int_equal(count(p, AIR_OP_PARALLEL), 2);
  assert_int_equal(count(p, AIR_OP_REDUCE), 2);

  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_string_equal(herd->sym, "matmul_herd");
  assert_true(herd->flags & AIR_OPF_ASYNC);
  assert_int_equal(herd->n_results, 1);
  assert_int_equal(herd->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(herd->toks[AIR_TOK_DEP].items[0], par->results[0]);
  assert_string_equal(attr(herd, "link_with", AIR_ATTR_STRING)->s, "mm.o");
  const air_attr_t* id = attr(herd, "id", AIR_ATTR_INT);
  assert_int_equal(id->i, 1);
  assert_int_equal(air_ir_type(p, id->type)->elem, AIR_ELEM_I32);
  air_block_t* hb = herd->regions[0];
  assert_int_equal(hb->n_args, 4);

  air_op_t* hfor = find(p, AIR_OP_FOR, 1);
  assert_ptr_equal(air_ir_parent_op(hfor), herd);
  assert_int_equal(hfor->n_operands, 5);
  assert_int_equal(hfor->n_results, 2);
  assert_true(value_is_token(p, hfor->results[0]) && value_is_token(p, hfor->results[1]));
  air_block_t* fb = hfor->regions[0];
  assert_int_equal(fb->n_args, 3);
  assert_int_equal(value_elem(p, fb->args[0]), AIR_ELEM_INDEX);
  assert_true(value_is_token(p, fb->args[1]) && value_is_token(p, fb->args[2]));
  air_op_t* ex0 = find(p, AIR_OP_EXECUTE, 0);
  assert_ptr_equal(air_ir_parent_op(ex0), herd);
  assert_int_equal(hfor->operands[3], ex0->results[0]);
  air_op_t* y = fb->last;
  assert_int_equal(y->kind, AIR_OP_YIELD);
  assert_int_equal(y->n_operands, 2);
  air_op_t* call = find(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "matmul_tile");
  assert_int_equal(call->n_operands, 3);
  assert_int_equal(call->n_results, 0);
  air_op_t* call_ex = air_ir_parent_op(call);
  assert_int_equal(call_ex->kind, AIR_OP_EXECUTE);
  assert_int_equal(call_ex->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(y->operands[0], call_ex->results[0]);
  air_op_t* g = find(p, AIR_OP_GET, 2);
  assert_int_equal(g->operands[0], hb->args[0]);
  assert_int_equal(g->operands[1], hb->args[1]);
  assert_int_equal(g->toks[AIR_TOK_DEP].items[0], fb->args[1]);

  assert_int_equal(ex0->n_results, 2);
  assert_true(value_is_token(p, ex0->results[0]));
  const air_type_info_t* bt = air_ir_type(p, air_ir_value_type(p, ex0->results[1]));
  assert_int_equal(bt->kind, AIR_TYPE_MEMREF);
  assert_int_equal(bt->elem, AIR_ELEM_BF16);
  assert_int_equal(bt->memspace, AIR_MEM_L1);
  air_op_t* et = ex0->regions[0]->last;
  assert_int_equal(et->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(et->n_operands, 1);
  assert_int_equal(air_ir_value_type(p, et->operands[0]), air_ir_value_type(p, ex0->results[1]));
  assert_int_equal(ex0->regions[0]->first->kind, AIR_OP_ALLOC);

  air_op_t* mm = find(p, AIR_OP_MATMUL, 0);
  assert_int_equal(mm->iaux[0], 2);
  assert_int_equal(mm->n_operands, 3);
  air_op_t* fill = find(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->iaux[0], 1);
  assert_int_equal(fill->n_operands, 2);
}

static void test_parallel(void** state) {
  air_program_t* p = build(*state, 2);
  air_op_t* par = find(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 1);
  assert_int_equal(par->n_operands, 4);
  assert_int_equal(par->n_results, 1);
  assert_true(value_is_token(p, par->results[0]));
  assert_int_equal(air_ir_value(p, par->operands[3])->def->kind, AIR_OP_WAIT_ALL);
  air_block_t* body = par->regions[0];
  assert_int_equal(body->n_args, 1);
  air_op_t* dma = find(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->toks[AIR_TOK_DEP].items[0], par->operands[3]);
  air_op_t* red = body->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_int_equal(red->operands[0], dma->results[0]);
  assert_int_equal(red->n_regions, 1);
  air_block_t* rb = red->regions[0];
  assert_int_equal(rb->n_args, 2);
  assert_true(value_is_token(p, rb->args[0]) && value_is_token(p, rb->args[1]));
  assert_int_equal(block_len(rb), 2);
  air_op_t* w = nth(rb, 0);
  assert_int_equal(w->kind, AIR_OP_WAIT_ALL);
  assert_true(w->flags & AIR_OPF_ASYNC);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 2);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], rb->args[0]);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[1], rb->args[1]);
  air_op_t* ret = nth(rb, 1);
  assert_int_equal(ret->kind, AIR_OP_REDUCE_RETURN);
  assert_int_equal(ret->n_operands, 1);
  assert_int_equal(ret->operands[0], w->results[0]);

  air_op_t* par2 = find(p, AIR_OP_PARALLEL, 1);
  assert_int_equal(par2->n_results, 0);
  assert_int_equal(par2->n_operands, 3);
  assert_int_equal(par2->regions[0]->last->kind, AIR_OP_REDUCE);
  assert_int_equal(par2->regions[0]->last->n_operands, 0);
  assert_int_equal(par2->regions[0]->last->n_regions, 0);
}

static void test_execute(void** state) {
  air_program_t* p = build(*state, 3);
  air_op_t* e0 = find(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(e0->n_results, 3);
  assert_true(e0->flags & AIR_OPF_ASYNC);
  assert_true(value_is_token(p, e0->results[0]));
  assert_int_equal(air_ir_type(p, air_ir_value_type(p, e0->results[1]))->kind, AIR_TYPE_MEMREF);
  assert_int_equal(value_elem(p, e0->results[2]), AIR_ELEM_INDEX);
  assert_int_equal(e0->toks[AIR_TOK_DEP].n, 0);
  air_op_t* term = e0->regions[0]->last;
  assert_int_equal(term->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(term->n_operands, 2);
  assert_int_equal(air_ir_value(p, term->operands[0])->def->kind, AIR_OP_ALLOC);
  assert_int_equal(air_ir_value(p, term->operands[1])->def->kind, AIR_OP_CONSTANT);
  assert_int_equal(air_ir_value(p, term->operands[1])->def->value.i, 7);
  air_op_t* e1 = find(p, AIR_OP_EXECUTE, 1);
  assert_int_equal(e1->n_results, 1);
  assert_int_equal(e1->toks[AIR_TOK_DEP].items[0], e0->results[0]);
  assert_int_equal(e1->regions[0]->last->n_operands, 0);
  air_op_t* e2 = find(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(e2->n_results, 2);
  assert_int_equal(value_elem(p, e2->results[1]), AIR_ELEM_I32);
  air_op_t* ld = find(p, AIR_OP_LOAD, 0);
  assert_int_equal(ld->operands[0], e0->results[1]);
  assert_int_equal(ld->operands[1], e0->results[2]);
  air_op_t* fn = nth(module_body(p), 0);
  assert_int_equal(fn->n_types, 2);
  assert_int_equal(fn->iaux[0], 1);
  air_op_t* ret = fn->regions[0]->last;
  assert_int_equal(ret->kind, AIR_OP_RETURN);
  assert_int_equal(ret->operands[0], e2->results[1]);
}

static void test_tokens(void** state) {
  air_program_t* p = build(*state, 4);
  assert_int_equal(count(p, AIR_OP_TOKEN_ALLOC), 2);
  air_op_t* ta = find(p, AIR_OP_TOKEN_ALLOC, 0);
  air_op_t* tc = find(p, AIR_OP_TOKEN_ALLOC, 1);
  assert_true(value_is_token(p, ta->results[0]));
  air_op_t* sa = find(p, AIR_OP_SEGMENT, 0);
  air_op_t* sb = find(p, AIR_OP_SEGMENT, 1);
  air_op_t* sc = find(p, AIR_OP_SEGMENT, 2);
  assert_string_equal(sa->sym, "seg_a");
  assert_int_equal(sa->toks[AIR_TOK_AFF].n, 1);
  assert_int_equal(sa->toks[AIR_TOK_AFF].items[0], ta->results[0]);
  assert_int_equal(sa->toks[AIR_TOK_CONC].n, 1);
  assert_int_equal(sa->toks[AIR_TOK_CONC].items[0], tc->results[0]);
  assert_int_equal(sa->toks[AIR_TOK_DEP].n, 0);
  assert_int_equal(sb->toks[AIR_TOK_DEP].items[0], sa->results[0]);
  assert_int_equal(sb->toks[AIR_TOK_AFF].items[0], ta->results[0]);
  assert_int_equal(sb->toks[AIR_TOK_CONC].n, 0);
  assert_int_equal(sc->toks[AIR_TOK_CONC].items[0], tc->results[0]);
  assert_int_equal(attr(sc, "x_loc", AIR_ATTR_INT)->i, 0);
  assert_int_equal(attr(sc, "y_loc", AIR_ATTR_INT)->i, 2);
  assert_int_equal(attr(sc, "x_size", AIR_ATTR_INT)->i, 4);
  assert_int_equal(attr(sc, "y_size", AIR_ATTR_INT)->i, 4);
  assert_int_equal(attr(sc, "x_loc", AIR_ATTR_INT)->type, 0);
  assert_int_equal(sa->n_attrs, 0);
  air_op_t* hc = find(p, AIR_OP_HERD, 1);
  assert_int_equal(hc->n_attrs, 2);
  assert_int_equal(attr(hc, "y_loc", AIR_ATTR_INT)->i, 3);
  air_op_t* w = find(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(w->toks[AIR_TOK_DEP].n, 3);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[2], sc->results[0]);
}

static void test_elements(void** state) {
  air_program_t* p = build(*state, 5);
  enum { NE = AIR_ELEMENT_COUNT - 1 }; /* element types, i1 to ui64 */
  assert_int_equal(count(p, AIR_OP_ALLOC), 3 * NE);
  for (uint32_t i = 0; i < 3 * NE; ++i) {
    air_op_t* a = find(p, AIR_OP_ALLOC, i);
    air_type_details_t d;
    OK(air_type_describe(p, air_value_type(p, a->results[0]), &d));
    assert_int_equal(d.typeclass, AIR_TYPECLASS_MEMREF);
    assert_int_equal(d.elem, AIR_ELEMENT_I1 + i % NE);
    assert_int_equal(d.memory_space, i / NE);
    assert_int_equal(d.rank, 2);
    assert_int_equal(d.shape[0], 4);
    assert_int_equal(d.shape[1], 8);
    assert_null(d.layout);
  }
  /* The ten signless scalar constants follow the herd's size constant (arith has
   * no constants of siN/uiN types). */
  assert_int_equal(count(p, AIR_OP_CONSTANT), 11);
  for (uint32_t i = 0; i < 10; ++i) {
    air_op_t* c = find(p, AIR_OP_CONSTANT, i + 1);
    assert_int_equal(value_elem(p, c->results[0]), AIR_ELEM_I1 + i);
    assert_int_equal(c->value.type, air_ir_value_type(p, c->results[0]));
    assert_int_equal(c->value.kind, i >= 6 ? AIR_ATTR_FLOAT : AIR_ATTR_INT);
  }
}

static void test_broadcast(void** state) {
  air_program_t* p = build(*state, 6);
  air_op_t* ch = nth(module_body(p), 0);
  assert_int_equal(ch->kind, AIR_OP_CHANNEL);
  assert_string_equal(ch->sym, "bcast");
  const air_attr_t* bs = attr(ch, "broadcast_shape", AIR_ATTR_ARRAY);
  assert_int_equal(bs->n, 2);
  assert_int_equal(bs->elems[0].kind, AIR_ATTR_INT);
  assert_int_equal(bs->elems[0].i, 4);
  assert_int_equal(bs->elems[1].i, 1);
  assert_string_equal(attr(ch, "channel_type", AIR_ATTR_STRING)->s, "npu_dma_stream");
  assert_int_equal(attr(ch, "depth", AIR_ATTR_INT)->i, 2);
  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  air_op_t* get = find(p, AIR_OP_GET, 0);
  assert_int_equal(get->flags, 0);
  assert_int_equal(get->n_results, 0);
  assert_int_equal(get->operands[0], herd->regions[0]->args[0]);
  assert_int_equal(get->operands[1], herd->regions[0]->args[1]);
  air_op_t* put = find(p, AIR_OP_PUT, 0);
  assert_int_equal(put->toks[AIR_TOK_DEP].items[0], find(p, AIR_OP_DMA, 0)->results[0]);
}

static void test_compute(void** state) {
  air_program_t* p = build(*state, 7);
  air_op_t* ap = find(p, AIR_OP_AFFINE_APPLY, 0);
  assert_int_equal(ap->value.kind, AIR_ATTR_MAP);
  assert_int_equal(ap->iaux[0], 1);
  assert_int_equal(ap->n_operands, 2);
  const air_affine_map_t* m = ap->value.map;
  assert_int_equal(m->n_dims, 1);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 1);
  int64_t dims[1] = {3}, syms[1] = {5}, r = 0;
  assert_true(air_aff_eval(m->results[0], dims, syms, &r));
  assert_int_equal(r, 3 * 64 + 5);
  assert_int_equal(value_elem(p, ap->results[0]), AIR_ELEM_INDEX);
  air_op_t* cmpi = find(p, AIR_OP_CMPI, 0);
  assert_int_equal(cmpi->iaux[0], AIR_CMPI_SLT);
  assert_int_equal(value_elem(p, cmpi->results[0]), AIR_ELEM_I1);
  assert_int_equal(find(p, AIR_OP_CMPF, 0)->iaux[0], AIR_CMPF_OLT);
  assert_int_equal(find(p, AIR_OP_SELECT, 0)->n_operands, 3);
  assert_int_equal(value_elem(p, find(p, AIR_OP_INDEX_CAST, 0)->results[0]), AIR_ELEM_I32);
  assert_int_equal(count(p, AIR_OP_DIVSI) + count(p, AIR_OP_REMSI) + count(p, AIR_OP_SUBI), 3);
  air_op_t* sv = find(p, AIR_OP_SUBVIEW, 0);
  assert_int_equal(sv->n_lists, 3);
  assert_int_equal(sv->lists[0].items[0].value, find(p, AIR_OP_CONSTANT, 1)->results[0]);
  assert_int_equal(sv->lists[0].items[1].cst, 32);
  assert_string_equal(air_ir_type(p, air_ir_value_type(p, sv->results[0]))->layout,
                      "strided<[64, 1], offset: ?>");

  air_op_t* if0 = find(p, AIR_OP_IF, 0);
  assert_int_equal(if0->n_regions, 2);
  assert_int_equal(if0->n_results, 1);
  assert_int_equal(if0->operands[0], cmpi->results[0]);
  air_op_t* herd = find(p, AIR_OP_HERD, 0);
  assert_int_equal(if0->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(if0->regions[0]->last->operands[0], herd->regions[0]->args[0]);
  assert_int_equal(if0->regions[1]->last->operands[0], herd->regions[0]->args[1]);
  assert_int_equal(if0->regions[0]->first->kind, AIR_OP_LINALG_COPY);
  assert_int_equal(if0->regions[1]->first->kind, AIR_OP_COPY);
  air_op_t* if1 = find(p, AIR_OP_IF, 1);
  assert_int_equal(if1->n_regions, 1);
  assert_int_equal(if1->n_results, 0);

  air_op_t* aif = find(p, AIR_OP_AFFINE_IF, 0);
  assert_int_equal(aif->value.kind, AIR_ATTR_SET);
  assert_int_equal(aif->iaux[0], 2);
  assert_int_equal(aif->n_regions, 2);
  const air_affine_set_t* s = aif->value.set;
  assert_int_equal(s->n_constraints, 2);
  assert_true(s->is_eq[0]);
  assert_false(s->is_eq[1]);
  int64_t d2[2] = {0, 1};
  assert_true(air_aff_eval(s->constraints[1], d2, NULL, &r));
  assert_int_equal(r, 0);
  assert_int_equal(aif->regions[1]->last->kind, AIR_OP_AFFINE_YIELD);

  air_op_t* af = find(p, AIR_OP_AFFINE_FOR, 0);
  assert_int_equal(af->lists[0].n, 2);
  assert_int_equal(af->lists[0].items[1].cst, 32);
  assert_int_equal(af->iaux[1], 1);
  assert_int_equal(count(p, AIR_OP_NEGF), 1);

  air_op_t* al = find(p, AIR_OP_AFFINE_LOAD, 0);
  assert_int_equal(al->n_operands, 3);
  assert_int_equal(al->iaux[0], 2);
  assert_int_equal(al->value.map->n_results, 2);
  air_op_t* as = find(p, AIR_OP_AFFINE_STORE, 0);
  assert_int_equal(as->n_operands, 5);
  assert_int_equal(as->operands[0], al->results[0]);
  assert_int_equal(as->value.map->n_syms, 1);
  int64_t dd[2] = {2, 3}, ss[1] = {10};
  assert_true(air_aff_eval(as->value.map->results[1], dd, ss, &r));
  assert_int_equal(r, 12);
  assert_int_equal(find(p, AIR_OP_AFFINE_MIN, 0)->value.map->n_results, 2);
  assert_int_equal(find(p, AIR_OP_AFFINE_MAX, 0)->iaux[0], 1);
  air_op_t* co = find(p, AIR_OP_COLLAPSE_SHAPE, 0);
  assert_int_equal(co->n_lists, 2);
  assert_int_equal(co->lists[0].n, 2);
  assert_int_equal(co->lists[0].items[1].cst, 1);
  assert_int_equal(co->lists[1].items[0].cst, 2);
  air_op_t* ex = find(p, AIR_OP_EXPAND_SHAPE, 0);
  assert_int_equal(ex->n_lists, 3);
  assert_int_equal(ex->lists[2].items[0].value, find(p, AIR_OP_AFFINE_MIN, 0)->results[0]);
  assert_int_equal(find(p, AIR_OP_MEMREF_CAST, 0)->n_lists, 0);

  air_op_t* g = find(p, AIR_OP_GENERIC, 0);
  assert_int_equal(g->iaux[0], 1);
  assert_int_equal(g->n_operands, 2);
  const air_attr_t* maps = attr(g, "indexing_maps", AIR_ATTR_ARRAY);
  assert_int_equal(maps->n, 2);
  assert_int_equal(maps->elems[1].kind, AIR_ATTR_MAP);
  assert_int_equal(maps->elems[1].map->n_results, 2);
  const air_attr_t* its = attr(g, "iterator_types", AIR_ATTR_ARRAY);
  assert_int_equal(its->n, 2);
  assert_string_equal(its->elems[0].s, "parallel");
  air_block_t* gb = g->regions[0];
  assert_int_equal(gb->n_args, 2);
  assert_int_equal(value_elem(p, gb->args[0]), AIR_ELEM_F32);
  assert_int_equal(gb->last->kind, AIR_OP_LINALG_YIELD);
  assert_int_equal(gb->last->operands[0], find(p, AIR_OP_ADDF, 0)->results[0]);
}

static void test_gpu(void** state) {
  air_program_t* p = build(*state, 8);
  air_op_t* xcd = find(p, AIR_OP_SEGMENT, 0);
  air_op_t* cu = find(p, AIR_OP_SEGMENT, 1);
  assert_string_equal(attr(xcd, "backend-granularity", AIR_ATTR_STRING)->s, "XCD");
  assert_null(air_ir_attr_get(cu, "backend-granularity"));
  assert_ptr_equal(air_ir_parent_op(cu), xcd);
  assert_int_equal(xcd->iaux[0], 1);
  assert_int_equal(xcd->regions[0]->n_args, 2);
  assert_ptr_equal(air_ir_parent_op(find(p, AIR_OP_HERD, 0)), cu);
}

static void test_attrs(void** state) {
  fixture_t* f = *state;
  air_program_t* p = build(f, 9);
  air_op_t* launch = find(p, AIR_OP_LAUNCH, 0);
  assert_true(launch->flags & AIR_OPF_SYNC);
  assert_int_equal(launch->n_results, 0);
  assert_true(find(p, AIR_OP_SEGMENT, 0)->flags & AIR_OPF_SYNC);
  air_op_t* h = find(p, AIR_OP_HERD, 0);
  assert_true(h->flags & AIR_OPF_SYNC);
  assert_int_equal(h->n_attrs, 9);
  const air_attr_t* pad = attr(h, "pad_before", AIR_ATTR_DENSE);
  assert_int_equal(pad->n, 2);
  assert_int_equal(pad->ints[1], 1);
  assert_int_equal(air_ir_type(p, pad->type)->elem, AIR_ELEM_I32);
  const air_attr_t* shape = attr(h, "shape", AIR_ATTR_ARRAY);
  assert_int_equal(shape->n, 3);
  assert_int_equal(shape->elems[2].i, 4);
  assert_int_equal(attr(h, "flag", AIR_ATTR_BOOL)->i, 1);
  assert_string_equal(attr(h, "note", AIR_ATTR_STRING)->s, "say \"hi\"\n");
  attr(h, "marked", AIR_ATTR_UNIT);
  const air_attr_t* sc = attr(h, "scale", AIR_ATTR_FLOAT);
  assert_true(sc->f == 0.5);
  assert_int_equal(air_ir_type(p, sc->type)->elem, AIR_ELEM_F32);
  assert_int_equal(attr(h, "a_map", AIR_ATTR_MAP)->map->n_dims, 1);
  assert_int_equal(attr(h, "broadcast_set", AIR_ATTR_SET)->set->n_constraints, 2);
  attr(find(p, AIR_OP_ALLOC, 0), "air.symmetric", AIR_ATTR_UNIT);

  /* Setting a name again replaces its value; the current op after an end is the
   * closed op. */
  OK(air_builder_set_attr_int(f->b, "answer", 41, 0));
  OK(air_builder_set_attr_int(f->b, "answer", 42, 0));
  air_op_t* fn = nth(module_body(p), 0);
  assert_int_equal(fn->n_attrs, 1);
  assert_int_equal(attr(fn, "answer", AIR_ATTR_INT)->i, 42);
}

static void test_launch_ref_and_names(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "host";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c2 = cidx(b, 2), tok = 0;
  air_hier_desc_t d = {0};
  d.flags = AIR_BUILD_ASYNC;
  d.name = "outlined";
  d.n_dims = 1;
  d.sizes = &c2;
  OK(air_builder_launch_ref(b, &d, &tok));
  OK(air_builder_set_name(b, tok, "t0"));
  OK(air_builder_set_name(b, c2, "c2"));
  OK(air_builder_set_name(b, c2, "2"));
  OK(air_builder_wait_all(b, 0, 1, &tok, NULL));
  OK(air_builder_func_end(b, 0, NULL));
  air_op_t* l = find(f->p, AIR_OP_LAUNCH, 0);
  assert_int_equal(l->n_regions, 0);
  assert_string_equal(l->sym, "outlined");
  assert_int_equal(l->n_results, 1);
  assert_int_equal(l->results[0], tok);
  assert_string_equal(air_ir_value(f->p, tok)->name, "t0");
  assert_string_equal(air_ir_value(f->p, c2)->name, "2");
  OK(air_builder_set_name(b, c2, NULL));
  assert_null(air_ir_value(f->p, c2)->name);
}

/* put with dest(...): the dest operand follows the memref and sets the flag. */
static void test_put_dest(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t c0 = cidx(b, 0), tok = 0;
  air_value_t src = alloc(b, t_memref2(b, AIR_ELEMENT_I16, 8, 8, AIR_MEMORY_L3));
  air_value_t dst = alloc(b, t_memref2(b, AIR_ELEMENT_I16, 8, 8, AIR_MEMORY_L3));
  air_index_t offs[2] = {{c0, 0}, {0, 4}}, szs[2] = {{0, 4}, {0, 4}}, strs[2] = {{0, 8}, {0, 1}};
  air_channel_io_desc_t io = {0};
  io.flags = AIR_BUILD_ASYNC;
  io.channel = "ch";
  io.n_indices = 1;
  io.indices = &c0;
  io.data = (air_slice_t){src, 2, offs, 2, szs, 2, strs};
  io.dest = dst;
  OK(air_builder_channel_put(b, &io, &tok));
  air_op_t* put = find(f->p, AIR_OP_PUT, 0);
  assert_true(put->flags & AIR_OPF_HAS_DEST);
  assert_true(put->flags & AIR_OPF_ASYNC);
  assert_int_equal(put->n_operands, 3);
  assert_int_equal(put->operands[0], c0);
  assert_int_equal(put->operands[1], src);
  assert_int_equal(put->operands[2], dst);
  assert_int_equal(put->results[0], tok);
  assert_int_equal(put->lists[0].items[0].value, c0);
  assert_int_equal(put->lists[0].items[1].value, 0);
  assert_int_equal(put->lists[0].items[1].cst, 4);
  assert_int_equal(put->lists[2].items[0].cst, 8);
  io.dest = 0;
  io.flags = 0;
  OK(air_builder_channel_put(b, &io, &tok));
  assert_int_equal(tok, 0);
  assert_int_equal(find(f->p, AIR_OP_PUT, 1)->flags, 0);
  assert_int_equal(find(f->p, AIR_OP_PUT, 1)->n_operands, 2);
}

static void test_types(void** state) {
  fixture_t* f = *state;
  air_program_t* p = f->p;
  air_type_t a, b2, t_new, t_old;
  OK(air_type_scalar(p, AIR_ELEMENT_BF16, &a));
  OK(air_type_scalar(p, AIR_ELEMENT_BF16, &b2));
  assert_int_equal(a, b2);
  OK(air_type_token(p, 0, &t_new));
  OK(air_type_token(p, AIR_TOKEN_OLD_SPELLING, &t_old));
  assert_int_not_equal(t_new, t_old);
  air_type_details_t d;
  OK(air_type_describe(p, t_old, &d));
  assert_int_equal(d.typeclass, AIR_TYPECLASS_TOKEN);
  assert_int_equal(d.flags, AIR_TOKEN_OLD_SPELLING);
  int64_t shape[3] = {2, AIR_SHAPE_DYNAMIC, 4};
  air_type_t m1, m2, m3;
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, NULL, &m1));
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, NULL, &m2));
  OK(air_type_memref(p, AIR_ELEMENT_I8, 3, shape, AIR_MEMORY_L2, "#map", &m3));
  assert_int_equal(m1, m2);
  assert_int_not_equal(m1, m3);
  OK(air_type_describe(p, m3, &d));
  assert_int_equal(d.shape[1], AIR_SHAPE_DYNAMIC);
  assert_string_equal(d.layout, "#map");
  /* A `?` extent takes one dynamic size at alloc. */
  air_builder_t* b = f->b;
  air_value_t n = cidx(b, 5), v;
  FAILS(air_builder_memref_alloc(b, m1, 0, NULL, &v), INVALID);
  OK(air_builder_memref_alloc(b, m1, 1, &n, &v));
  assert_int_equal(air_value_type(p, v), m1);
  air_op_t* al = find(p, AIR_OP_ALLOC, 0);
  assert_int_equal(al->n_operands, 1);
  assert_int_equal(al->operands[0], n);
  /* A rank-0 memref. */
  air_type_t m0;
  OK(air_type_memref(p, AIR_ELEMENT_F64, 0, NULL, AIR_MEMORY_L1, NULL, &m0));
  OK(air_type_describe(p, m0, &d));
  assert_int_equal(d.rank, 0);
  assert_int_equal(d.memory_space, AIR_MEMORY_L1);
}

/*---------------------------------------------------------------------------*/
/* Argument and state checks                                                 */
/*---------------------------------------------------------------------------*/

static void test_null_arguments(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_builder_t* nb = NULL;
  air_value_t v = 0, c = cidx(b, 1);
  air_type_t t = 0;
  FAILS(air_builder_create(NULL, &nb), INVALID);
  FAILS(air_builder_create(f->p, NULL), INVALID);
  air_builder_destroy(NULL);
  FAILS(air_builder_finish(NULL), INVALID);
  assert_int_equal(air_builder_depth(NULL), 0);
  assert_null(air_builder_program(NULL));
  assert_ptr_equal(air_builder_program(b), f->p);

  FAILS(air_builder_constant_index(NULL, 1, &v), INVALID);
  FAILS(air_builder_constant_index(b, 1, NULL), INVALID);
  FAILS(air_builder_constant_int(b, t_scalar(b, AIR_ELEMENT_I32), 1, NULL), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, c, NULL), INVALID);
  FAILS(air_builder_cmpi(b, AIR_ICMP_EQ, c, c, NULL), INVALID);
  FAILS(air_builder_token_alloc(b, NULL), INVALID);
  FAILS(air_builder_token_alloc(NULL, &v), INVALID);
  FAILS(air_builder_wait_all(b, AIR_BUILD_ASYNC, 0, NULL, NULL), INVALID);
  FAILS(air_builder_wait_all(b, 0, 2, NULL, NULL), INVALID);
  FAILS(air_builder_memref_alloc(b, t_memref2(b, AIR_ELEMENT_F32, 2, 2, 0), 0, NULL, NULL),
        INVALID);
  FAILS(air_builder_call(b, "k", 0, NULL, 1, &t, NULL), INVALID);
  FAILS(air_builder_call(b, NULL, 0, NULL, 0, NULL, NULL), INVALID);

  FAILS(air_builder_channel(b, NULL), INVALID);
  FAILS(air_builder_func_begin(b, NULL, NULL), INVALID);
  FAILS(air_builder_func_declare(b, NULL), INVALID);
  FAILS(air_builder_launch_begin(b, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_segment_begin(NULL, &(air_hier_desc_t){0}, NULL, NULL), INVALID);
  FAILS(air_builder_channel_put(b, NULL, &v), INVALID);
  FAILS(air_builder_channel_get(b, NULL, &v), INVALID);
  FAILS(air_builder_dma_memcpy_nd(b, NULL, &v), INVALID);
  FAILS(air_builder_linalg_generic_begin(b, NULL, NULL), INVALID);
  FAILS(air_builder_affine_apply(b, NULL, 0, NULL, &v), INVALID);
  FAILS(air_builder_affine_if_begin(b, NULL, 0, NULL, 0, NULL, NULL), INVALID);
  FAILS(air_builder_memref_subview(b, NULL, 1, &v), INVALID);
  FAILS(air_builder_affine_for_begin(b, NULL, NULL, 1, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_set_attr_string(b, "s", NULL), INVALID);
  FAILS(air_builder_set_attr_int(b, NULL, 1, 0), INVALID);
  FAILS(air_builder_set_attr_ints(b, "a", 2, NULL), INVALID);

  FAILS(air_type_token(NULL, 0, &t), INVALID);
  FAILS(air_type_scalar(f->p, AIR_ELEMENT_F32, NULL), INVALID);
  FAILS(air_type_memref(f->p, AIR_ELEMENT_F32, 2, NULL, 0, NULL, &t), INVALID);
  FAILS(air_type_describe(f->p, 1, NULL), INVALID);
  /* Put with AIR_BUILD_ASYNC needs somewhere to put the token. */
  air_channel_io_desc_t io = {0};
  io.flags = AIR_BUILD_ASYNC;
  io.channel = "c";
  io.data.memref = alloc(b, t_memref2(b, AIR_ELEMENT_F32, 2, 2, 0));
  FAILS(air_builder_channel_put(b, &io, NULL), INVALID);
  io.flags = 0;
  OK(air_builder_channel_put(b, &io, NULL));
}

static void test_bad_types(void** state) {
  fixture_t* f = *state;
  air_program_t* p = f->p;
  air_builder_t* b = f->b;
  air_type_t t = 0;
  int64_t shape[2] = {4, 4}, neg[2] = {4, -2};
  FAILS(air_type_scalar(p, AIR_ELEMENT_NONE, &t), INVALID);
  FAILS(air_type_scalar(p, AIR_ELEMENT_COUNT, &t), INVALID);
  FAILS(air_type_scalar(p, (air_elem_t)99, &t), INVALID);
  FAILS(air_type_scalar(p, (air_elem_t)-1, &t), INVALID);
  FAILS(air_type_memref(p, (air_elem_t)42, 2, shape, 0, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, shape, 3, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, neg, 0, NULL, &t), INVALID);
  FAILS(air_type_memref(p, AIR_ELEMENT_F32, 2, shape, 0, "", &t), INVALID);
  FAILS(air_type_token(p, 0x80, &t), INVALID);
  assert_int_equal(t, 0);
  air_type_details_t d;
  FAILS(air_type_describe(p, 0, &d), INVALID);
  FAILS(air_type_describe(p, 9999, &d), INVALID);
  assert_int_equal(air_value_type(p, 0), 0);
  assert_int_equal(air_value_type(p, 99999), 0);
  assert_int_equal(air_value_type(NULL, 1), 0);

  air_type_t f32 = t_scalar(b, AIR_ELEMENT_F32), i8 = t_scalar(b, AIR_ELEMENT_I8);
  air_type_t i1 = t_scalar(b, AIR_ELEMENT_I1), mem = t_memref(b, AIR_ELEMENT_F32, 2, shape, 0);
  air_value_t v;
  FAILS(air_builder_constant_int(b, f32, 1, &v), INVALID);
  FAILS(air_builder_constant_int(b, 0, 1, &v), INVALID);
  FAILS(air_builder_constant_int(b, 9999, 1, &v), INVALID);
  FAILS(air_builder_constant_float(b, i8, 1.0, &v), INVALID);
  FAILS(air_builder_constant_int(b, i8, 256, &v), INVALID);
  FAILS(air_builder_constant_int(b, i8, -129, &v), INVALID);
  FAILS(air_builder_constant_int(b, i1, 2, &v), INVALID);
  OK(air_builder_constant_int(b, i8, 255, &v));
  OK(air_builder_constant_int(b, i8, -128, &v));
  OK(air_builder_constant_int(b, i1, 0, &v));
  FAILS(air_builder_memref_alloc(b, f32, 0, NULL, &v), INVALID);
  FAILS(air_builder_memref_alloc(b, 0, 0, NULL, &v), INVALID);
  FAILS(air_builder_cast(b, AIR_CAST_INDEX_CAST, v, mem, &v), INVALID);
  FAILS(air_builder_cast(b, (air_cast_op_t)77, v, i8, &v), INVALID);
  FAILS(air_builder_execute_begin(b, 0, NULL, 1, &t, NULL, NULL), INVALID);
  OK(air_builder_set_attr_int(b, "x", 1, 0));
  FAILS(air_builder_set_attr_dense(b, "pad", AIR_ELEMENT_F32, 1, shape), INVALID);
  FAILS(air_builder_set_attr_dense(b, "pad", (air_elem_t)99, 1, shape), INVALID);
  FAILS(air_builder_set_attr_int(b, "x", 1, f32), INVALID);
  FAILS(air_builder_set_attr_float(b, "x", 1.0, i8), INVALID);
  air_func_desc_t fd = {0};
  fd.name = "k";
  fd.n_inputs = 1;
  fd.inputs = &t; /* 0: not a type */
  FAILS(air_builder_func_declare(b, &fd), INVALID);
}

static void test_bad_values(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "bad_values";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c = cidx(b, 4), tok, fv, iv, v;
  OK(air_builder_token_alloc(b, &tok));
  OK(air_builder_constant_float(b, t_scalar(b, AIR_ELEMENT_F32), 2.0, &fv));
  OK(air_builder_constant_int(b, t_scalar(b, AIR_ELEMENT_I32), 2, &iv));
  air_value_t mem = alloc(b, t_memref2(b, AIR_ELEMENT_F32, 4, 4, AIR_MEMORY_L3));

  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, 0, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, 0, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, 99999, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, fv, fv, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDF, c, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, iv, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_MULI, tok, tok, &v), INVALID);
  FAILS(air_builder_binary(b, (air_binary_op_t)99, c, c, &v), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_COUNT, c, c, &v), INVALID);
  FAILS(air_builder_negf(b, c, &v), INVALID);
  FAILS(air_builder_cmpi(b, (air_icmp_t)10, c, c, &v), INVALID);
  FAILS(air_builder_cmpf(b, AIR_FCMP_OEQ, c, c, &v), INVALID);
  FAILS(air_builder_select(b, c, c, c, &v), INVALID);
  FAILS(air_builder_set_name(b, 0, "x"), INVALID);
  FAILS(air_builder_set_name(b, c, ""), INVALID);
  FAILS(air_builder_set_name(b, c, "a b"), INVALID);
  FAILS(air_builder_set_name(b, c, "1x"), INVALID);
  FAILS(air_builder_set_name(b, c, "%x"), INVALID);

  FAILS(air_builder_wait_all(b, 0, 1, &c, NULL), INVALID);
  air_value_t deps[2] = {tok, 0};
  FAILS(air_builder_wait_all(b, 0, 2, deps, NULL), INVALID);
  FAILS(air_builder_execute_begin(b, 1, &c, 0, NULL, NULL, NULL), INVALID);

  air_hier_desc_t hd = {0};
  air_value_t zero = 0;
  hd.n_dims = 1;
  hd.sizes = &zero;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.sizes = &fv;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.sizes = &c;
  hd.n_args = 1;
  hd.args = &zero;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.n_args = 0;
  hd.tokens.n_affinity = 1;
  hd.tokens.affinity = &c;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.tokens.n_affinity = 0;
  hd.tokens.n_concurrency = 1;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.tokens.n_concurrency = 0;
  hd.link_with = "";
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);

  air_dma_desc_t dd = {0};
  dd.src.memref = mem;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.memref = c;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.memref = mem;
  air_index_t bad_ix[1] = {{fv, 0}};
  dd.dst.n_offsets = 1;
  dd.dst.offsets = bad_ix;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);
  dd.dst.offsets = NULL;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, NULL), INVALID);

  air_channel_io_desc_t io = {0};
  io.channel = "c";
  io.data.memref = mem;
  io.dest = mem;
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);
  io.dest = 0;
  io.n_indices = 1;
  io.indices = &fv;
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);
  io.n_indices = 0;
  io.channel = "";
  FAILS(air_builder_channel_get(b, &io, NULL), INVALID);

  air_value_t idx[2] = {c, c};
  FAILS(air_builder_memref_load(b, mem, 1, idx, &v), INVALID);
  FAILS(air_builder_memref_load(b, c, 0, NULL, &v), INVALID);
  FAILS(air_builder_memref_store(b, iv, mem, 2, idx), INVALID);
  FAILS(air_builder_memref_store(b, fv, mem, 2, NULL), INVALID);
  OK(air_builder_memref_store(b, fv, mem, 2, idx));
  FAILS(air_builder_memref_copy(b, mem, c), INVALID);
  air_slice_t sl = {mem, 1, NULL, 0, NULL, 0, NULL};
  FAILS(air_builder_memref_subview(b, &sl, 1, &v), INVALID);
  air_index_t ix2[2] = {{0, 0}, {0, 0}};
  sl = (air_slice_t){mem, 2, ix2, 2, ix2, 1, ix2};
  FAILS(air_builder_memref_subview(b, &sl, 1, &v), INVALID);
  FAILS(air_builder_linalg_fill(b, mem, mem), INVALID);
  FAILS(air_builder_linalg_matmul(b, mem, c, mem), INVALID);

  FAILS(air_builder_scf_for_begin(b, tok, c, c, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, iv, c, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, c, c, 1, &zero, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_parallel_begin(b, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_parallel_begin(b, 1, &c, &c, &iv, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_if_begin(b, c, 0, NULL, NULL), INVALID);
  air_index_t lo = {0, 0}, hi = {fv, 0};
  FAILS(air_builder_affine_for_begin(b, &lo, &hi, 1, 0, NULL, NULL, NULL, NULL), INVALID);
  hi.value = 0;
  FAILS(air_builder_affine_for_begin(b, &lo, &hi, 0, 0, NULL, NULL, NULL, NULL), INVALID);

  air_affine_desc_t md = map_desc();
  air_value_t ops[2] = {c, c};
  FAILS(air_builder_affine_apply(b, &md, 1, ops, &v), INVALID);
  air_value_t fops[2] = {c, fv};
  FAILS(air_builder_affine_apply(b, &md, 2, fops, &v), INVALID);
  air_affine_desc_t two = id2_desc();
  FAILS(air_builder_affine_apply(b, &two, 2, ops, &v), INVALID);
  air_affine_desc_t sd = set_desc();
  FAILS(air_builder_affine_if_begin(b, &sd, 1, ops, 0, NULL, NULL), INVALID);
  /* affine.load/store: one map result per dimension, operands matching the map */
  FAILS(air_builder_affine_load(b, mem, &md, 2, ops, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, NULL, 0, NULL, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, &two, 1, ops, &v), INVALID);
  FAILS(air_builder_affine_load(b, mem, &two, 2, ops, NULL), INVALID);
  FAILS(air_builder_affine_store(b, c, mem, &two, 2, ops), INVALID);
  FAILS(air_builder_affine_min(b, &md, 1, ops, &v), INVALID);
  air_affine_desc_t empty = {0, 1, 0, 0, 0, NULL};
  FAILS(air_builder_affine_max(b, &empty, 1, ops, &v), INVALID);
  /* reshapes: groups cover the dimensions, element types agree */
  uint32_t g2[1] = {2}, g11[2] = {1, 1}, g3[1] = {3};
  int64_t s16[1] = {16}, sdyn[2] = {AIR_SHAPE_DYNAMIC, 4}, s8[2] = {8, 4};
  air_type_t t16 = t_memref(b, AIR_ELEMENT_F32, 1, s16, AIR_MEMORY_L3);
  air_type_t i16 = t_memref(b, AIR_ELEMENT_I32, 1, s16, AIR_MEMORY_L3);
  air_type_t tdyn = t_memref(b, AIR_ELEMENT_F32, 2, sdyn, AIR_MEMORY_L3);
  air_type_t t8 = t_memref(b, AIR_ELEMENT_F32, 2, s8, AIR_MEMORY_L3);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, g3, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 2, g11, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, NULL, t16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, mem, 1, g2, i16, &v), INVALID);
  FAILS(air_builder_memref_collapse_shape(b, c, 1, g2, t16, &v), INVALID);
  air_value_t flat;
  OK(air_builder_memref_collapse_shape(b, mem, 1, g2, t16, &flat));
  air_index_t os1[1] = {{0, 4}};
  FAILS(air_builder_memref_expand_shape(b, flat, 1, g2, 1, os1, tdyn, &v), INVALID);
  FAILS(air_builder_memref_expand_shape(b, flat, 2, g11, 0, NULL, tdyn, &v), INVALID);
  FAILS(air_builder_memref_cast(b, mem, t16, &v), INVALID);
  FAILS(air_builder_memref_cast(b, mem, t8, &v), INVALID);
  OK(air_builder_memref_cast(b, mem, tdyn, &v));
  FAILS(air_builder_affine_if_begin(b, &md, 2, ops, 0, NULL, NULL), INVALID);

  air_affine_desc_t maps[2] = {id2_desc(), map_desc()};
  air_iterator_t its[2] = {AIR_ITERATOR_PARALLEL, AIR_ITERATOR_REDUCTION};
  air_generic_desc_t g = {0};
  g.n_ins = 1;
  g.ins = &mem;
  g.n_outs = 1;
  g.outs = &mem;
  g.indexing_maps = maps;
  g.n_iterators = 2;
  g.iterators = its;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID); /* map 1 has 1 dim */
  maps[1] = id2_desc();
  its[1] = (air_iterator_t)7;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  its[1] = AIR_ITERATOR_REDUCTION;
  g.outs = &c;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  g.outs = &mem;
  g.ins = &tok;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  OK(air_builder_func_end(b, 0, NULL));
}

static void test_bad_affine(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t c = cidx(b, 1), v, ops[2] = {c, c};
  /* Leftover codes, truncation, positions out of range, unknown codes, zeroes. */
  static const int64_t leftover[] = {AIR_AFFINE_DIM, 0, AIR_AFFINE_DIM, 0};
  static const int64_t truncated[] = {AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0};
  static const int64_t no_number[] = {AIR_AFFINE_CONST};
  static const int64_t dim_range[] = {AIR_AFFINE_DIM, 1};
  static const int64_t sym_range[] = {AIR_AFFINE_SYM, -1};
  static const int64_t unknown[] = {123, 0};
  static const int64_t zeros[] = {0, 0};
  const struct {
    const int64_t* codes;
    uint32_t n;
  } cases[] = {{leftover, 4}, {truncated, 3}, {no_number, 1}, {dim_range, 2},
               {sym_range, 2}, {unknown, 2},  {zeros, 2}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    air_affine_desc_t d = {0, 1, 1, 1, cases[i].n, cases[i].codes};
    FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  }
  air_affine_desc_t d = {0, 1, 1, 1, 2, NULL};
  FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  d = map_desc();
  d.flags = 1;
  FAILS(air_builder_affine_apply(b, &d, 2, ops, &v), INVALID);
  /* A set's constraints must start with GE0/EQ0. */
  static const int64_t unmarked[] = {AIR_AFFINE_DIM, 0};
  air_affine_desc_t s = {0, 1, 0, 1, 2, unmarked};
  FAILS(air_builder_affine_if_begin(b, &s, 1, &c, 0, NULL, NULL), INVALID);
  /* Deep nesting is refused, not recursed into without bound. */
  enum { DEPTH = 5000 };
  static int64_t deep[3 * DEPTH + 2];
  uint32_t n = 0;
  for (int i = 0; i < DEPTH; ++i) deep[n++] = AIR_AFFINE_MUL;
  deep[n++] = AIR_AFFINE_DIM;
  deep[n++] = 0;
  for (int i = 0; i < DEPTH; ++i) deep[n++] = AIR_AFFINE_CONST, deep[n++] = 1;
  air_affine_desc_t dd = {0, 1, 0, 1, n, deep};
  FAILS(air_builder_affine_apply(b, &dd, 1, &c, &v), INVALID);
  assert_int_equal(count(f->p, AIR_OP_AFFINE_APPLY), 0);
  air_affine_desc_t ok = map_desc();
  OK(air_builder_affine_apply(b, &ok, 2, ops, &v));
  assert_int_equal(count(f->p, AIR_OP_AFFINE_APPLY), 1);
}

static void test_bad_flags_and_descs(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_value_t v;
  air_channel_desc_t cd = {0};
  FAILS(air_builder_channel(b, &cd), INVALID); /* no name */
  cd.name = "";
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.name = "c";
  cd.flags = 1;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.flags = 0;
  int64_t dims[2] = {4, 0};
  cd.rank = 2;
  cd.dims = dims;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.dims = NULL;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.rank = 0;
  cd.channel_type = "";
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.channel_type = NULL;
  cd.broadcast_rank = 1;
  FAILS(air_builder_channel(b, &cd), INVALID);
  cd.broadcast_rank = 0;
  OK(air_builder_channel(b, &cd));

  air_func_desc_t fd = {0};
  fd.name = "f";
  fd.flags = AIR_BUILD_ASYNC;
  FAILS(air_builder_func_begin(b, &fd, NULL), INVALID);
  fd.flags = 0;
  fd.name = NULL;
  FAILS(air_builder_func_begin(b, &fd, NULL), INVALID);
  fd.name = "f";
  OK(air_builder_func_begin(b, &fd, NULL));

  air_hier_desc_t hd = {0};
  hd.flags = AIR_BUILD_ASYNC | AIR_BUILD_SYNC;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.flags = 1u << 20;
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.flags = 0;
  hd.name = "";
  FAILS(air_builder_launch_begin(b, &hd, NULL, NULL), INVALID);
  hd.name = NULL;
  FAILS(air_builder_launch_ref(b, &hd, NULL), INVALID); /* a ref needs a name */
  hd.backend_granularity = "";
  FAILS(air_builder_segment_begin(b, &hd, NULL, NULL), INVALID);

  FAILS(air_builder_wait_all(b, AIR_BUILD_SYNC, 0, NULL, &v), INVALID);
  air_dma_desc_t dd = {0};
  dd.flags = AIR_BUILD_PRIVATE;
  FAILS(air_builder_dma_memcpy_nd(b, &dd, &v), INVALID);
  air_generic_desc_t g = {0};
  g.flags = 1;
  FAILS(air_builder_linalg_generic_begin(b, &g, NULL), INVALID);
  OK(air_builder_func_end(b, 0, NULL));
}

static void test_nesting(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  /* Ends without a begin. */
  FAILS(air_builder_herd_end(b), PRECOND);
  FAILS(air_builder_segment_end(b), PRECOND);
  FAILS(air_builder_launch_end(b), PRECOND);
  FAILS(air_builder_func_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_execute_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_for_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_parallel_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_scf_if_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_if_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_for_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_linalg_generic_end(b, 0, NULL), PRECOND);
  FAILS(air_builder_else(b, 0, NULL), PRECOND);
  /* No op yet: nothing to put an attribute on. */
  FAILS(air_builder_set_attr_unit(b, "u"), PRECOND);
  OK(air_builder_finish(b));

  air_func_desc_t fd = {0};
  fd.name = "nest";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_channel_desc_t cd = {0};
  cd.name = "inner";
  FAILS(air_builder_channel(b, &cd), PRECOND);
  FAILS(air_builder_func_begin(b, &fd, NULL), PRECOND);
  FAILS(air_builder_func_declare(b, &fd), PRECOND);

  OK(air_builder_launch_begin(b, &(air_hier_desc_t){0}, NULL, NULL));
  assert_int_equal(air_builder_depth(b), 2);
  /* The wrong end kind leaves the body open. */
  FAILS(air_builder_segment_end(b), PRECOND);
  FAILS(air_builder_herd_end(b), PRECOND);
  FAILS(air_builder_func_end(b, 0, NULL), PRECOND);
  air_status_t s = air_builder_finish(b);
  assert_int_equal(air_status_code(s), PRECOND);
  assert_non_null(strstr(air_status_message(s), "air.launch"));
  air_status_free(s);
  assert_int_equal(air_builder_depth(b), 2);

  /* execute: the terminator must match the results. */
  air_type_t index = t_scalar(b, AIR_ELEMENT_INDEX), i32 = t_scalar(b, AIR_ELEMENT_I32);
  air_value_t tok, r;
  OK(air_builder_execute_begin(b, 0, NULL, 1, &index, &tok, &r));
  air_value_t c = cidx(b, 3), ci;
  OK(air_builder_constant_int(b, i32, 3, &ci));
  FAILS(air_builder_execute_end(b, 0, NULL), INVALID);
  FAILS(air_builder_execute_end(b, 1, &ci), INVALID);
  FAILS(air_builder_launch_end(b), PRECOND);
  OK(air_builder_execute_end(b, 1, &c));

  /* scf.for: yields must match the iter_args. */
  air_value_t c0 = cidx(b, 0), c1 = cidx(b, 1), iv, it, res;
  OK(air_builder_scf_for_begin(b, c0, c, c1, 1, &tok, &iv, &it, &res));
  FAILS(air_builder_scf_for_end(b, 1, &iv), INVALID);
  FAILS(air_builder_scf_for_end(b, 0, NULL), INVALID);
  FAILS(air_builder_affine_for_end(b, 1, &it), PRECOND);
  OK(air_builder_scf_for_end(b, 1, &it));
  assert_int_equal(air_value_type(f->p, res), air_value_type(f->p, tok));

  /* if/else: one else only; the end must name the right if. */
  air_value_t cond;
  OK(air_builder_cmpi(b, AIR_ICMP_EQ, c0, c1, &cond));
  OK(air_builder_scf_if_begin(b, cond, 0, NULL, NULL));
  OK(air_builder_else(b, 0, NULL));
  FAILS(air_builder_else(b, 0, NULL), PRECOND);
  FAILS(air_builder_affine_if_end(b, 0, NULL), PRECOND);
  OK(air_builder_scf_if_end(b, 0, NULL));
  air_affine_desc_t sd = set_desc();
  air_value_t ops[2] = {c0, c1};
  OK(air_builder_affine_if_begin(b, &sd, 2, ops, 0, NULL, NULL));
  FAILS(air_builder_scf_if_end(b, 0, NULL), PRECOND);
  OK(air_builder_affine_if_end(b, 0, NULL));

  /* scf.parallel reduces tokens only. */
  air_value_t pr;
  OK(air_builder_scf_parallel_begin(b, 1, &c0, &c, &c1, 1, &c0, NULL, &pr));
  FAILS(air_builder_scf_parallel_end(b, 1, &c0), INVALID);
  FAILS(air_builder_scf_parallel_end(b, 0, NULL), INVALID);
  FAILS(air_builder_scf_parallel_end(b, 1, &tok), INVALID);
  assert_int_equal(air_builder_depth(b), 3);

  /* func.return must match the signature. */
  air_builder_t* b2;
  air_program_t* p2;
  OK(air_program_create(f->ctx, &p2));
  OK(air_builder_create(p2, &b2));
  fd.n_results = 1;
  fd.results = &index;
  air_type_t index2 = t_scalar(b2, AIR_ELEMENT_INDEX);
  fd.results = &index2;
  OK(air_builder_func_begin(b2, &fd, NULL));
  air_value_t k;
  OK(air_builder_constant_int(b2, t_scalar(b2, AIR_ELEMENT_I64), 1, &k));
  FAILS(air_builder_func_end(b2, 0, NULL), INVALID);
  FAILS(air_builder_func_end(b2, 1, &k), INVALID);
  OK(air_builder_constant_index(b2, 1, &k));
  OK(air_builder_func_end(b2, 1, &k));
  OK(air_builder_finish(b2));
  air_builder_destroy(b2);
  air_program_destroy(p2);
}

/* A failed call appends nothing and opens nothing. */
static void test_failure_appends_nothing(void** state) {
  fixture_t* f = *state;
  air_builder_t* b = f->b;
  air_func_desc_t fd = {0};
  fd.name = "atomic";
  OK(air_builder_func_begin(b, &fd, NULL));
  air_value_t c = cidx(b, 1), tok, v;
  OK(air_builder_token_alloc(b, &tok));
  air_block_t* body = nth(module_body(f->p), 0)->regions[0];
  uint32_t len = block_len(body), values = f->p->n_values;
  air_value_t bad_deps[2] = {tok, c};
  air_hier_desc_t hd = {0};
  hd.n_dims = 1;
  hd.sizes = &c;
  hd.tokens.n_deps = 2;
  hd.tokens.deps = bad_deps;
  FAILS(air_builder_herd_begin(b, &hd, NULL, NULL), INVALID);
  FAILS(air_builder_segment_begin(b, &hd, NULL, NULL), INVALID);
  FAILS(air_builder_wait_all(b, AIR_BUILD_ASYNC, 2, bad_deps, &v), INVALID);
  FAILS(air_builder_execute_begin(b, 2, bad_deps, 0, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_scf_for_begin(b, c, c, tok, 0, NULL, NULL, NULL, NULL), INVALID);
  FAILS(air_builder_binary(b, AIR_BINARY_ADDI, c, tok, &v), INVALID);
  assert_int_equal(block_len(body), len);
  assert_int_equal(air_builder_depth(b), 1);
  assert_int_equal(f->p->n_values, values);
  OK(air_builder_func_end(b, 0, NULL));
  assert_all_terminated(f->p);
}

/*---------------------------------------------------------------------------*/
/* Print, parse, verify                                                      */
/*---------------------------------------------------------------------------*/

static uint32_t kind_count(air_program_t* p, air_opkind_t k) { return count(p, k); }

/* print -> parse -> print gives the same text and the same ops. */
static void round_trip(void** state, int i) {
  fixture_t* f = *state;
  air_program_t* p = build(f, i);
  char *t1 = NULL, *t2 = NULL;
  size_t n1 = 0, n2 = 0;
  air_status_t s = air_program_print_to_string(p, 0, &t1, &n1);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    skip();
  }
  OK(s);
  assert_int_equal(strlen(t1), n1);
  air_parse_options_t o = {0};
  o.filename = k_programs[i].name;
  air_program_t* q = NULL;
  s = air_program_parse(f->ctx, t1, n1, &o, &q);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    air_program_free_string(p, t1);
    skip();
  }
  if (s) print_error("--- printed %s ---\n%s\n", k_programs[i].name, t1);
  OK(s);
  OK(air_program_print_to_string(q, 0, &t2, &n2));
  if (strcmp(t1, t2) != 0)
    print_error("--- first print ---\n%s\n--- second print ---\n%s\n", t1, t2);
  assert_string_equal(t1, t2);
  /* A name given with air_builder_set_name is the one printed and parsed back. */
  if (k_programs[i].build == build_attrs) {
    assert_non_null(strstr(t1, "%sym_buf = memref.alloc()"));
    air_op_t* a = find(q, AIR_OP_ALLOC, 0);
    assert_string_equal(air_ir_value(q, a->results[0])->name, "sym_buf");
  }
  for (int k = 0; k < AIR_OP_COUNT_; ++k) {
    uint32_t a = kind_count(p, (air_opkind_t)k), c = kind_count(q, (air_opkind_t)k);
    if (a != c)
      print_error("%s: %u %s ops built, %u parsed back\n", k_programs[i].name, a,
                  air_opkind_name((air_opkind_t)k), c);
    assert_int_equal(a, c);
  }
  air_program_free_string(p, t1);
  air_program_free_string(q, t2);
  air_program_destroy(q);
}

/* The verifier accepts every program built here. */
static void verifies(void** state, int i) {
  fixture_t* f = *state;
  air_program_t* p = build(f, i);
  air_status_t s = air_program_verify(p, NULL, 0);
  if (air_status_code(s) == AIR_STATUS_UNIMPLEMENTED) {
    air_status_free(s);
    skip();
  }
  if (s) {
    char* text = NULL;
    air_status_t ps = air_program_print_to_string(p, 0, &text, NULL);
    if (!ps) print_error("--- %s ---\n%s\n", k_programs[i].name, text);
    air_status_free(ps);
    air_program_free_string(p, text);
  }
  OK(s);
}

#define PROGRAM_TESTS(X) \
  X(0, vector_add) X(1, matmul) X(2, parallel) X(3, execute) X(4, tokens) \
  X(5, elements) X(6, broadcast) X(7, compute) X(8, gpu) X(9, attrs)

#define DEFINE_RT(i, name)                                                       \
  static void test_round_trip_##name(void** state) { round_trip(state, i); }     \
  static void test_verify_##name(void** state) { verifies(state, i); }
PROGRAM_TESTS(DEFINE_RT)
#undef DEFINE_RT

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define RT_ENTRY(i, name) T(test_round_trip_##name), T(test_verify_##name),

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_vector_add),
      T(test_matmul),
      T(test_parallel),
      T(test_execute),
      T(test_tokens),
      T(test_elements),
      T(test_broadcast),
      T(test_compute),
      T(test_gpu),
      T(test_attrs),
      T(test_launch_ref_and_names),
      T(test_types),
      T(test_put_dest),
      T(test_null_arguments),
      T(test_bad_types),
      T(test_bad_values),
      T(test_bad_affine),
      T(test_bad_flags_and_descs),
      T(test_nesting),
      T(test_failure_appends_nothing),
      PROGRAM_TESTS(RT_ENTRY)
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

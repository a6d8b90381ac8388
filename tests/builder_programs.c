/* builder_programs.c - the builder tests' corpus: complete programs built op
 * by op through the builder API (vector add, a 4x4 herd matmul, scf.parallel,
 * air.execute, tokens, every element type, a channel broadcast, the built-in
 * compute ops, the MI300 mapping, sync forms and attributes). test_builder.c
 * checks their IR structure, test_builder_roundtrip.c prints, parses and
 * verifies them. */
#include "builder_test.h"

/*---------------------------------------------------------------------------*/
/* Programs                                                                  */
/*---------------------------------------------------------------------------*/

/* Vector add: L3 -> L1 with dma_memcpy_nd, a scalar loop, L1 -> L3. */
void build_vector_add(air_builder_t* b) {
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
void build_matmul(air_builder_t* b) {
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
void build_parallel(air_builder_t* b) {
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
void build_execute(air_builder_t* b) {
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
void build_tokens(air_builder_t* b) {
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
void build_elements(air_builder_t* b) {
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
void build_broadcast(air_builder_t* b) {
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

/* (d0, d1)[s0] -> (d1, d0 + s0) */
static const int64_t k_tr_codes[] = {AIR_AFFINE_DIM, 1, AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0,
                                     AIR_AFFINE_SYM, 0};
/* (d0)[s0] -> (d0 + 4, s0) */
static const int64_t k_minmax_codes[] = {AIR_AFFINE_ADD, AIR_AFFINE_DIM, 0, AIR_AFFINE_CONST,
                                         4, AIR_AFFINE_SYM, 0};


/* The built-in compute ops and control flow inside a herd. */
void build_compute(air_builder_t* b) {
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
void build_gpu(air_builder_t* b) {
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
void build_attrs(air_builder_t* b) {
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

const program_case_t k_programs[N_PROGRAMS] = {
    {"vector_add", build_vector_add}, {"matmul", build_matmul},
    {"parallel", build_parallel},     {"execute", build_execute},
    {"tokens", build_tokens},         {"elements", build_elements},
    {"broadcast", build_broadcast},   {"compute", build_compute},
    {"gpu", build_gpu},               {"attrs", build_attrs},
};
_Static_assert(sizeof(k_programs) / sizeof(k_programs[0]) == N_PROGRAMS,
               "N_PROGRAMS counts k_programs");

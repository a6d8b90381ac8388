/* dma_copy.c - the dma-copy benchmark (PERFORMANCE.md): the CPU driver's N-d copy
 * path, called as the executor calls it for air.dma_memcpy_nd (from the values
 * of offsets/sizes/strides in elements: ix_copy_flat when both sides are one
 * contiguous run, else both access patterns built with ix_pat_make, then
 * ix_pat_copy), against memcpy of the same bytes, hot in cache except the 64 MiB
 * case. Rows:
 *   airrt   ix_copy_flat, or ix_pat_make x 2 + ix_pat_copy, per transfer;
 *   memcpy  one memcpy of the transfer's bytes; for tile64_from_4096 the 64 row
 *           memcpys of the same tile (TOOLS.md);
 *   floor   a hand-written loop producing the same layout (block4d_64: one memcpy
 *           per 64-byte row; transpose64: a plain double loop), where memcpy of
 *           the same bytes is no fair floor.
 * Every case checks once that airrt's result equals the memcpy / floor layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/types.h"
#include "air_bench_util.h"
#include "hal/cpu/interp/pattern.h"

enum { SIDE = 4096, BIG_ELEMS = SIDE * SIDE }; /* the 64 MiB f32 source */

typedef struct pat_lists_t {
  air_memref_t view;
  uint32_t n_off, n;
  int64_t off[4], size[4], stride[4];
} pat_lists_t;

typedef struct case_t {
  const char* name;
  size_t bytes;
  pat_lists_t dst, src;
  float *d, *s;              /* destination / source base (view data) */
  ix_pat_t dp, sp;           /* prebuilt patterns for the copy_only variant */
  ix_lists_t dl, sl;         /* the lists as ix_dma passes their values */
  void (*baseline)(const struct case_t*, float* out); /* memcpy row */
  void (*floor)(const struct case_t*, float* out);    /* NULL = none */
  double target;             /* least airrt/memcpy ratio accepted, 0 = none */
} case_t;

static air_memref_t view(void* data, uint32_t rank, const int64_t* sizes) {
  air_memref_t m;
  memset(&m, 0, sizeof m);
  m.data = data;
  m.elem = AIR_ELEMENT_F32;
  m.rank = rank;
  int64_t st = 1;
  for (int k = (int)rank - 1; k >= 0; --k) {
    m.sizes[k] = sizes[k];
    m.strides[k] = st;
    st *= sizes[k];
  }
  return m;
}

/* The executor's path (ix_dma): a transfer that is one contiguous run on both
 * sides moves straight from the lists (ix_copy_flat); any other builds both
 * patterns, checks the counts and copies. */
static void airrt_copy(const case_t* c) {
  ix_pat_t dp, sp;
  const pat_lists_t *d = &c->dst, *s = &c->src;
  if (ix_copy_flat(&d->view, &c->dl, &s->view, &c->sl, 4)) return;
  const char* why = ix_pat_make(&d->view, 4, d->n_off, d->off, d->n, d->size, d->stride, &dp);
  if (!why) why = ix_pat_make(&s->view, 4, s->n_off, s->off, s->n, s->size, s->stride, &sp);
  if (why || ix_pat_count(&dp) != ix_pat_count(&sp)) {
    fprintf(stderr, "dma-copy: %s: bad pattern: %s\n", c->name, why ? why : "count mismatch");
    abort();
  }
  ix_pat_copy(&dp, &sp);
}

static void memcpy_same_bytes(const case_t* c, float* out) {
  memcpy(out, c->s + c->src.off[0], c->bytes);
}

static void memcpy_rows_tile(const case_t* c, float* out) {
  const float* s = c->s + c->src.off[0] * SIDE + c->src.off[1];
  for (int r = 0; r < 64; ++r) memcpy(out + r * 64, s + (size_t)r * SIDE, 64 * sizeof(float));
}

/* block4d: [8][8][16][16] out of [64]^4 at offsets (8, 16, 32, 16). */
static const float* block_src(const case_t* c) {
  const int64_t* o = c->src.off;
  return c->s + ((o[0] * 64 + o[1]) * 64 + o[2]) * 64 + o[3];
}
static void memcpy_block(const case_t* c, float* out) { memcpy(out, block_src(c), c->bytes); }
static void floor_block(const case_t* c, float* out) {
  const float* s = block_src(c);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int i = 0; i < 16; ++i, out += 16)
        memcpy(out, s + ((size_t)a * 64 * 64 + (size_t)b * 64 + (size_t)i) * 64, 64);
}

static void floor_transpose(const case_t* c, float* out) {
  const float* s = c->s;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) out[i * 64 + j] = s[j * 64 + i];
}

/* Runs `fn` until about `budget_ns` has passed at least `min_iters` times; returns
 * ns per call. */
typedef struct timed_t {
  const case_t* c;
  int which; /* 0 airrt, 1 memcpy, 2 floor, 3 airrt with prebuilt patterns */
} timed_t;

static void run_once(const timed_t* t) {
  const case_t* c = t->c;
  if (t->which == 0)
    airrt_copy(c);
  else if (t->which == 1)
    c->baseline(c, c->d);
  else if (t->which == 3)
    ix_pat_copy(&c->dp, &c->sp);
  else
    c->floor(c, c->d);
}

static double time_iters(const timed_t* t, long iters) {
  int64_t t0 = ab_now_ns();
  for (long i = 0; i < iters; ++i) {
    run_once(t);
    __asm__ volatile("" ::: "memory"); /* keep every copy */
  }
  return (double)(ab_now_ns() - t0) / (double)iters;
}

static int setup(case_t* c, const char* name, float* big, float* dst, size_t contiguous_bytes) {
  memset(c, 0, sizeof *c);
  c->name = name;
  c->s = big;
  c->d = dst;
  c->baseline = memcpy_same_bytes;
  if (contiguous_bytes) { /* dst[] [] [] <- src[off] [n] [1] */
    int64_t n = (int64_t)(contiguous_bytes / 4);
    c->bytes = contiguous_bytes;
    c->dst.view = view(dst, 1, &n);
    int64_t big_n = BIG_ELEMS;
    c->src.view = view(big, 1, &big_n);
    c->src.n_off = c->src.n = 1;
    c->src.off[0] = n < BIG_ELEMS ? 64 : 0; /* off a page start, as a real offset is */
    c->src.size[0] = n;
    c->src.stride[0] = 1;
    c->target = 0.9;
  } else if (!strcmp(name, "tile64_from_4096")) {
    int64_t big_sz[2] = {SIDE, SIDE}, t[2] = {64, 64};
    c->bytes = 64 * 64 * 4;
    c->dst.view = view(dst, 2, t);
    c->src.view = view(big, 2, big_sz);
    c->src.n_off = c->src.n = 2;
    c->src.off[0] = 1024, c->src.off[1] = 2048;
    c->src.size[0] = c->src.size[1] = 64;
    c->src.stride[0] = SIDE, c->src.stride[1] = 1;
    c->baseline = memcpy_rows_tile;
    c->target = 1 / 1.2;
  } else if (!strcmp(name, "block4d_64")) {
    int64_t big_sz[4] = {64, 64, 64, 64}, b[4] = {8, 8, 16, 16};
    c->bytes = 8 * 8 * 16 * 16 * 4;
    c->dst.view = view(dst, 4, b);
    c->src.view = view(big, 4, big_sz);
    c->src.n_off = c->src.n = 4;
    int64_t o[4] = {8, 16, 32, 16}, st[4] = {64 * 64 * 64, 64 * 64, 64, 1};
    for (int k = 0; k < 4; ++k) {
      c->src.off[k] = o[k];
      c->src.size[k] = b[k];
      c->src.stride[k] = st[k];
    }
    c->baseline = memcpy_block;
    c->floor = floor_block;
  } else if (!strcmp(name, "transpose64")) {
    int64_t t[2] = {64, 64};
    c->bytes = 64 * 64 * 4;
    c->dst.view = view(dst, 2, t);
    c->src.view = view(big, 2, t);
    c->src.n_off = 0;
    c->src.n = 2;
    c->src.size[0] = c->src.size[1] = 64;
    c->src.stride[0] = 1, c->src.stride[1] = 64; /* read column by column */
    c->floor = floor_transpose;
  } else {
    return -1;
  }
  c->dl = (ix_lists_t){c->dst.n_off, c->dst.n, c->dst.off, c->dst.size, c->dst.stride};
  c->sl = (ix_lists_t){c->src.n_off, c->src.n, c->src.off, c->src.size, c->src.stride};
  return 0;
}

int air_bench_dma_copy(int argc, char** argv) {
  ab_opts_t o;
  int rc = ab_parse(argc, argv, &o, "  GB/s of libairrt's N-d copy path vs memcpy, 1 thread.\n");
  if (rc >= 0) return rc;
  static const struct {
    const char* name;
    size_t bytes;
  } k_cases[] = {
      {"contiguous_4KiB", 4096},
      {"contiguous_64KiB", 65536},
      {"contiguous_1MiB", 1 << 20},
      {"contiguous_64MiB", (size_t)64 << 20},
      {"tile64_from_4096", 0},
      {"block4d_64", 0},
      {"transpose64", 0},
  };
  int reps = o.reps ? o.reps : (o.quick ? 1 : 9);
  int64_t budget = o.quick ? 200000 : 20000000; /* ns per rep and runtime */
  float* big = aligned_alloc(64, (size_t)BIG_ELEMS * 4);
  float* dst = aligned_alloc(64, (size_t)BIG_ELEMS * 4);
  float* chk = aligned_alloc(64, (size_t)BIG_ELEMS * 4);
  if (!big || !dst || !chk) {
    fprintf(stderr, "dma-copy: out of memory (needs 3 x 64 MiB)\n");
    free(big), free(dst), free(chk);
    return 1;
  }
  for (size_t i = 0; i < (size_t)BIG_ELEMS; ++i) big[i] = (float)i;
  memset(dst, 0, (size_t)BIG_ELEMS * 4);
  memset(chk, 0, (size_t)BIG_ELEMS * 4);
  if (!o.json)
    printf("dma-copy: GB/s, 1 thread, median of %d reps; ratio = airrt / memcpy (target: "
           ">= 0.90 contiguous, >= 0.83 tile = within 1.2x of 64 row memcpys)\n"
           "prebuilt = airrt's copy on patterns built once (what decoding the lists costs is "
           "the difference); extra_ns = airrt - memcpy ns per transfer\n"
           "%-18s %10s %9s %9s %9s %9s %8s %8s %9s  %s\n",
           reps, "case", "bytes", "airrt", "prebuilt", "memcpy", "floor", "ratio", "/floor",
           "extra_ns", "target");
  int bad = 0, misses = 0;
  for (size_t ci = 0; ci < sizeof k_cases / sizeof k_cases[0]; ++ci) {
    if (!ab_want(&o, k_cases[ci].name)) continue;
    if (o.quick && k_cases[ci].bytes > (1u << 20)) continue; /* the 64 MiB run */
    case_t c;
    setup(&c, k_cases[ci].name, big, dst, k_cases[ci].bytes);
    /* Correctness first: airrt's layout must equal the baseline's or floor's. */
    void (*ref)(const case_t*, float*) = c.floor ? c.floor : c.baseline;
    ref(&c, chk);
    memset(dst, 0xff, c.bytes);
    airrt_copy(&c);
    if (memcmp(dst, chk, c.bytes)) {
      fprintf(stderr, "dma-copy: %s: FAIL: airrt's copy differs from the reference\n", c.name);
      bad = 1;
      continue;
    }
    ix_pat_make(&c.dst.view, 4, c.dst.n_off, c.dst.off, c.dst.n, c.dst.size, c.dst.stride, &c.dp);
    ix_pat_make(&c.src.view, 4, c.src.n_off, c.src.off, c.src.n, c.src.size, c.src.stride, &c.sp);
    static const int k_order[4] = {0, 1, 3, 2}; /* runtimes measured, floor last */
    int nrt = c.floor ? 4 : 3;
    long iters[4];
    for (int w = 0; w < nrt; ++w) { /* calibrate: one rep takes about `budget` */
      timed_t t = {&c, k_order[w]};
      double ns = time_iters(&t, 1);
      ns = time_iters(&t, 1);
      long n = (long)((double)budget / (ns > 1 ? ns : 1));
      iters[w] = n < 1 ? 1 : n;
    }
    double* samples = malloc(sizeof(double) * (size_t)reps * 4);
    for (int r = 0; r < reps; ++r) /* interleaved so drift hits every row alike */
      for (int w = 0; w < nrt; ++w) {
        timed_t t = {&c, k_order[w]};
        samples[k_order[w] * reps + r] = time_iters(&t, iters[w]);
      }
    double gbps[4] = {NAN, NAN, NAN, NAN}, ns[4] = {NAN, NAN, NAN, NAN};
    for (int w = 0; w < nrt; ++w) {
      int k = k_order[w];
      ns[k] = ab_quantile(samples + k * reps, (size_t)reps, 0.5);
      gbps[k] = (double)c.bytes / ns[k];
    }
    free(samples);
    double ratio = gbps[0] / gbps[1], vs_floor = c.floor ? gbps[0] / gbps[2] : NAN;
    int ok = !c.target || ratio >= c.target;
    misses += !ok;
    ab_emit(&o, c.name, "airrt", 1, "gbps", gbps[0], ratio, NULL);
    ab_emit(&o, c.name, "airrt", 1, "gbps", gbps[3], gbps[3] / gbps[1], "prebuilt_patterns");
    ab_emit(&o, c.name, "airrt", 1, "overhead_ns", ns[0] - ns[1], NAN, NULL);
    ab_emit(&o, c.name, "memcpy", 1, "gbps", gbps[1], NAN,
            c.baseline == memcpy_rows_tile ? "64_row_memcpys" : NULL);
    if (c.floor) ab_emit(&o, c.name, "floor", 1, "gbps", gbps[2], NAN, NULL);
    if (c.floor) ab_emit(&o, c.name, "airrt", 1, "ratio_to_floor", vs_floor, NAN, NULL);
    if (!o.json) {
      char fl[16] = "-", vf[16] = "-";
      if (c.floor) {
        snprintf(fl, sizeof fl, "%.2f", gbps[2]);
        snprintf(vf, sizeof vf, "%.2f", vs_floor);
      }
      printf("%-18s %10zu %9.2f %9.2f %9.2f %9s %8.2f %8s %9.0f  %s\n", c.name, c.bytes, gbps[0],
             gbps[3], gbps[1], fl, ratio, vf, ns[0] - ns[1], !c.target ? "-" : ok ? "ok" : "MISS");
    }
  }
  if (!o.json) printf("targets: %s\n", misses ? "some MISSED (see rows)" : "all hold");
  free(big), free(dst), free(chk);
  return bad;
}
